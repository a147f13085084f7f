//! A session prepared for the tree pane: the engine's session plus each
//! entry's clean one-line text, row colour and pi's `/tree` view of it.

use crate::safe_text as text;
use crate::session::line::entry::{Entry, Info, Role, ToolCall};
use crate::session::line::facts::UsageTotals;
use crate::session::read::chunked::{Chunked, Piece, Section, words, write_chunks};
use crate::session::tree::entry_line::{self, ToolCalls};
use crate::session::tree::view::{self, Filter, TreeView};
use crate::session::{Context, Session, SessionError};
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

/// How a row's text is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RowKind {
    User,
    Assistant,
    /// `(aborted)` or `(no content)`.
    AssistantQuiet,
    AssistantError,
    Tool,
    Bash,
    Custom,
    Compaction,
    BranchSummary,
    /// Model, thinking level, label, title, custom and context-edit entries.
    Setting,
}

impl RowKind {
    /// Columns of the row text that name the role (`user: `), coloured apart.
    pub fn prefix_len(self, text: &str) -> usize {
        let prefix = match self {
            RowKind::User => "user: ",
            RowKind::Assistant | RowKind::AssistantQuiet | RowKind::AssistantError => "assistant: ",
            _ => return 0,
        };
        if text.starts_with(prefix) {
            prefix.len()
        } else {
            0
        }
    }
}

/// Why a session could not be shown: a type, so the app tells a deleted
/// session from an unreadable one without comparing texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    /// The open session's file is gone (noticed when reading on).
    Deleted,
    /// The file could not be read: the reader's one-line error.
    Unreadable(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Deleted => f.write_str(crate::tui::look::strings::SESSION_DELETED),
            OpenError::Unreadable(e) => f.write_str(e),
        }
    }
}

/// The rows' one-line texts of a session. Those a stored index holds stay
/// there, read [`TEXT_CHUNK`] rows at a time when one of them is drawn or
/// searched; those made since are kept in one string (a session of a
/// million entries makes no million allocations).
#[derive(Debug, Default, Clone)]
pub struct RowTexts {
    /// The first rows' texts, left in a stored index.
    stored: Option<Arc<StoredTexts>>,
    /// The texts of the rows after those, one after another.
    text: String,
    /// Where each of those ends in `text`.
    ends: Vec<u64>,
}

/// How many rows' texts a stored chunk holds (the last one fewer).
pub const TEXT_CHUNK: usize = 4096;

/// What a row whose text a stored index no longer gives shows instead.
const UNREADABLE_ROW: &str = "(this row's text is unreadable: the session's index was damaged)";

/// Rows' texts left in a stored index.
#[derive(Debug)]
struct StoredTexts {
    rows: usize,
    chunks: Chunked<TextChunk>,
}

/// A stored chunk's texts: where each ends in its text.
#[derive(Debug)]
struct TextChunk {
    text: String,
    ends: Vec<u32>,
}

impl TextChunk {
    /// The `n` rows' texts in `bytes` (see [`RowTexts::write_chunks`]):
    /// `None` unless the ends rise, each on a character boundary, to the
    /// end of the text.
    fn read(bytes: &[u8], n: usize) -> Option<TextChunk> {
        let (ends, text) = bytes.split_at_checked(n.checked_mul(4)?)?;
        let ends = words(ends)?;
        let text = String::from_utf8(text.to_vec()).ok()?;
        let fits = ends.windows(2).all(|w| w[0] <= w[1])
            && ends.iter().all(|&e| text.is_char_boundary(e as usize))
            && ends.last().map_or(0, |&e| e as usize) == text.len();
        fits.then_some(TextChunk { text, ends })
    }

    /// `n` rows that say their text is unreadable.
    fn unreadable(n: usize) -> TextChunk {
        let len = UNREADABLE_ROW.len() as u32;
        TextChunk {
            text: UNREADABLE_ROW.repeat(n),
            ends: (1..=n as u32).map(|k| k * len).collect(),
        }
    }

    fn get(&self, j: usize) -> &str {
        let start = j.checked_sub(1).map_or(0, |p| self.ends[p]) as usize;
        let end = self.ends.get(j).map_or(start, |&e| e as usize);
        self.text.get(start..end).unwrap_or("")
    }
}

impl StoredTexts {
    fn get(&self, i: usize) -> &str {
        let k = i / TEXT_CHUNK;
        let n = TEXT_CHUNK.min(self.rows - k * TEXT_CHUNK);
        self.chunks
            .get(k, |bytes| {
                bytes
                    .and_then(|b| TextChunk::read(&b, n))
                    .unwrap_or_else(|| TextChunk::unreadable(n))
            })
            .get(i % TEXT_CHUNK)
    }
}

impl RowTexts {
    /// `rows` texts left in `section`, in the chunks `pieces` that
    /// [`RowTexts::write_chunks`] wrote; `None` when they are not as many
    /// as so many rows take.
    pub fn stored(section: Section, pieces: Vec<Piece>, rows: usize) -> Option<RowTexts> {
        if pieces.len() != rows.div_ceil(TEXT_CHUNK) {
            return None;
        }
        Some(RowTexts {
            stored: Some(Arc::new(StoredTexts {
                rows,
                chunks: Chunked::new(section, pieces)?,
            })),
            text: String::new(),
            ends: Vec::new(),
        })
    }

    /// Writes every row's text in chunks of [`TEXT_CHUNK`] rows, each the
    /// ends of its rows' texts in its text (u32s, little-endian) and then
    /// that text; the chunks' pieces.
    pub fn write_chunks(&self, w: &mut dyn std::io::Write) -> std::io::Result<Vec<Piece>> {
        let n = self.len();
        let chunk = |k: usize| -> std::io::Result<Vec<u8>> {
            // A whole chunk still in an index is copied as it is.
            let whole = (k + 1) * TEXT_CHUNK <= self.stored_len();
            if let Some(bytes) = self
                .stored
                .as_ref()
                .filter(|_| whole)
                .and_then(|s| s.chunks.bytes(k))
            {
                return Ok(bytes);
            }
            let rows = k * TEXT_CHUNK..((k + 1) * TEXT_CHUNK).min(n);
            let mut ends = Vec::with_capacity(rows.len() * 4);
            let mut text = Vec::new();
            for i in rows {
                text.extend_from_slice(self.get(i).as_bytes());
                let end = u32::try_from(text.len()).map_err(std::io::Error::other)?;
                ends.extend_from_slice(&end.to_le_bytes());
            }
            ends.extend_from_slice(&text);
            Ok(ends)
        };
        write_chunks((0..n.div_ceil(TEXT_CHUNK)).map(chunk), w)
    }

    /// How many rows' texts are left in a stored index.
    fn stored_len(&self) -> usize {
        self.stored.as_ref().map_or(0, |s| s.rows)
    }

    pub fn push(&mut self, row: &str) {
        self.text.push_str(row);
        self.ends.push(self.text.len() as u64);
    }

    /// Puts each `(row, text)` in place of that row's text (rows made
    /// here, not left in a stored index: others are left as they are).
    fn replace(&mut self, rows: &[(usize, String)]) {
        let first = self.stored_len();
        let mut by_row: std::collections::HashMap<usize, &str> = rows
            .iter()
            .filter(|(i, _)| *i >= first)
            .map(|(i, t)| (*i - first, t.as_str()))
            .collect();
        if by_row.is_empty() {
            return;
        }
        let mut made = RowTexts::default();
        for i in 0..self.ends.len() {
            let row = by_row.remove(&i).unwrap_or_else(|| self.get(first + i));
            made.push(row);
        }
        self.text = made.text;
        self.ends = made.ends;
    }

    fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    /// Row `i`'s text; empty past the end.
    pub fn get(&self, i: usize) -> &str {
        if let Some(s) = self.stored.as_ref().filter(|s| i < s.rows) {
            return s.get(i);
        }
        let i = i - self.stored_len();
        let Some(&end) = self.ends.get(i) else {
            return "";
        };
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start as usize..end as usize).unwrap_or("")
    }

    pub fn len(&self) -> usize {
        self.stored_len() + self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the ends of the texts kept here rise and stay inside the
    /// text, each on a character boundary (so [`RowTexts::get`] gives each
    /// row's text; stored chunks are checked as they are read).
    pub fn fits(&self) -> bool {
        let mut last = 0;
        self.ends.iter().all(|&end| {
            let ok = end >= last && self.text.is_char_boundary(end as usize);
            last = end;
            ok
        }) && last as usize <= self.text.len()
    }
}

/// What the rows need of each entry beyond the session at outline depth,
/// which keeps no message's text: its row's text and colour, whether pi's
/// tree hides it, its usage, and the tool calls a later tool result's row
/// names.
#[derive(Debug, Clone)]
pub struct RowColumns {
    /// Per entry index: pi's one-line summary, made safe for the terminal.
    pub texts: RowTexts,
    pub kinds: Vec<RowKind>,
    /// Per entry: an assistant turn pi's tree hides (see
    /// [`entry_line::bare_turn`]).
    pub bare: Vec<bool>,
    /// The entries that carry usage, by entry index, rising.
    pub usage: Vec<(u32, UsageTotals)>,
    pub calls: Calls,
}

/// The session's tool calls by id, which only the rows of entries read
/// later need: kept as a stored index holds them until then.
#[derive(Debug, Clone)]
pub enum Calls {
    Ready(ToolCalls<'static>),
    /// The calls as a stored index keeps them (see [`Calls::stored`]).
    Stored(Vec<u8>),
}

impl Calls {
    /// The calls, read from their stored form first if need be; `None`
    /// when that form does not read.
    fn ready(&mut self) -> Option<&mut ToolCalls<'static>> {
        if let Calls::Stored(bytes) = self {
            let pairs: Vec<(String, ToolCall)> = postcard::from_bytes(bytes).ok()?;
            *self = Calls::Ready(ToolCalls::from_pairs(pairs));
        }
        match self {
            Calls::Ready(calls) => Some(calls),
            Calls::Stored(_) => None,
        }
    }

    /// The calls in their stored form.
    pub fn stored(&self) -> Vec<u8> {
        match self {
            Calls::Ready(calls) => postcard::to_allocvec(&calls.to_pairs()).unwrap_or_default(),
            Calls::Stored(bytes) => bytes.clone(),
        }
    }
}

impl RowColumns {
    fn with_capacity(n: usize) -> RowColumns {
        RowColumns {
            texts: RowTexts::default(),
            kinds: Vec::with_capacity(n),
            bare: Vec::with_capacity(n),
            usage: Vec::new(),
            calls: Calls::Ready(ToolCalls::owned()),
        }
    }

    /// Adds the rows of `entries` (read at full depth), the first being
    /// entry `first`; `None` when the stored calls do not read.
    fn extend<'a>(
        &mut self,
        first: usize,
        entries: impl Iterator<Item = &'a Entry> + Clone,
        home: Option<&str>,
    ) -> Option<()> {
        let mut calls = std::mem::replace(&mut self.calls, Calls::Ready(ToolCalls::owned()));
        let made = calls.ready().map(|calls| {
            for e in entries.clone() {
                calls.add_from(e);
            }
            for (k, e) in entries.enumerate() {
                self.push_row(first + k, e, calls, home);
            }
        });
        self.calls = calls;
        made
    }

    /// Adds the row of entry `i`, `e` (read at full depth), naming the
    /// `calls`.
    fn push_row(&mut self, i: usize, e: &Entry, calls: &ToolCalls<'_>, home: Option<&str>) {
        let line = entry_line::entry_line(e, calls, home);
        self.texts.push(&text::clean_line(&line));
        self.kinds.push(row_kind(e));
        self.bare
            .push(e.message().is_some_and(entry_line::bare_turn));
        if let Some(&u) = e.usage() {
            self.usage.push((i as u32, u));
        }
    }

    /// Whether every column has a row per entry, and the usage rises
    /// within them: for a stored index.
    pub fn fits(&self, entries: usize) -> bool {
        self.texts.len() == entries
            && self.texts.fits()
            && self.kinds.len() == entries
            && self.bare.len() == entries
            && self.usage.windows(2).all(|w| w[0].0 < w[1].0)
            && self.usage.last().is_none_or(|u| (u.0 as usize) < entries)
    }
}

/// A session read for the tree pane: the engine's session at outline depth
/// (a legacy file's at full depth) plus, per entry, what its row needs and
/// pi's display order. Built off the UI thread.
#[derive(Debug)]
pub struct LoadedSession {
    pub session: Arc<Session>,
    pub columns: RowColumns,
    /// pi's `/tree` order, leaf and path.
    pub view: TreeView,
    /// The session's name, made safe (read once: finding it walks the file's entries).
    pub name: Option<String>,
    /// Entries in the tree (later header lines not counted).
    pub entry_count: usize,
    /// A long session's context at its leaf, worked out while its view
    /// was, for the first preview to take (see [`LoadedSession::take_leaf_context`]).
    leaf_context: std::sync::Mutex<Option<Context>>,
    /// Per entry, whether it has a label (see [`Session::labelled`]):
    /// made at the first filter that asks.
    labelled: std::sync::OnceLock<Vec<bool>>,
}

/// Sessions of this many entries or more have their leaf's context worked
/// out as they are loaded, beside their view: a pass over a long branch
/// the first preview would otherwise start with.
pub const LEAF_CONTEXT_FROM: usize = 100_000;

/// How far the read of a session file has come: bytes read of the file's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadProgress {
    pub read: u64,
    pub of: u64,
}

impl ReadProgress {
    /// The part read, in whole percent; `None` when the size is unknown.
    pub fn percent(self) -> Option<u64> {
        (self.of > 0).then(|| self.read.min(self.of) * 100 / self.of)
    }
}

/// Rows made as a session is read (see [`LoadedSession::open`]): each
/// entry's row is made as it is read, so that no entry is held at full
/// depth for long. A tool result's row shows the call it names, which the
/// whole read's rows find anywhere in the file (a later call with the same
/// id winning): a row whose call came, or came again, only after it was
/// made is made again at the end.
struct RowsAsRead<'h> {
    columns: RowColumns,
    calls: ToolCalls<'static>,
    home: Option<&'h str>,
    /// Each tool result's row: the hash of the call id it names, and its
    /// entry.
    results: Vec<(u64, u32)>,
    /// The call ids rows have named so far, hashed.
    named: HashSet<u64>,
    /// Those a call set after a row named them.
    set_since: HashSet<u64>,
}

fn hash_call_id(id: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(id)
}

impl<'h> RowsAsRead<'h> {
    fn new(home: Option<&'h str>) -> RowsAsRead<'h> {
        RowsAsRead {
            columns: RowColumns::with_capacity(0),
            calls: ToolCalls::owned(),
            home,
            results: Vec::new(),
            named: HashSet::new(),
            set_since: HashSet::new(),
        }
    }

    /// Makes the row of entry `i`, `e`, read at full depth.
    fn add(&mut self, i: usize, e: &Entry) {
        for id in entry_line::call_ids(e) {
            let h = hash_call_id(id);
            if self.named.contains(&h) {
                self.set_since.insert(h);
            }
        }
        self.calls.add_from(e);
        if let Some(id) = entry_line::call_named(e) {
            let h = hash_call_id(id);
            self.named.insert(h);
            self.results.push((h, i as u32));
        }
        self.columns.push_row(i, e, &self.calls, self.home);
    }

    /// The rows of `session` (the one read), those whose call came later
    /// made again from their lines.
    fn finish(self, session: &Session) -> Result<RowColumns, SessionError> {
        let RowsAsRead {
            mut columns,
            calls,
            home,
            results,
            set_since,
            ..
        } = self;
        let mut again = Vec::new();
        for (h, i) in results {
            if set_since.contains(&h) {
                let e = session.full_entry(i)?;
                let line = entry_line::entry_line(&e, &calls, home);
                again.push((i as usize, text::clean_line(&line)));
            }
        }
        columns.texts.replace(&again);
        columns.texts.shrink_to_fit();
        columns.kinds.shrink_to_fit();
        columns.bare.shrink_to_fit();
        columns.calls = Calls::Ready(calls);
        Ok(columns)
    }
}

impl LoadedSession {
    /// Reads the session file at `path` for display. `home` shortens
    /// paths in tool rows to `~`. Each entry is kept at outline depth as
    /// soon as its row is made; a legacy file, whose entries migrate once
    /// read, is read whole first.
    pub fn open(path: &Path, home: Option<&str>) -> Result<LoadedSession, SessionError> {
        LoadedSession::open_watched(path, home, |_| true)
    }

    /// [`LoadedSession::open`], asking `go_on` as the file is read how far
    /// it is read (the end of the last whole line): when it says no, the
    /// read stops ([`SessionError::Stopped`]).
    pub fn open_watched(
        path: &Path,
        home: Option<&str>,
        go_on: impl FnMut(u64) -> bool,
    ) -> Result<LoadedSession, SessionError> {
        let mut rows = RowsAsRead::new(home);
        match Session::open_outlined(path, |i, e| rows.add(i, e), go_on)? {
            Some(session) => {
                let columns = rows.finish(&session)?;
                Ok(LoadedSession::with_columns(session, columns))
            }
            None => Session::open(path).map(|s| LoadedSession::new(s, home)),
        }
    }

    /// Prepares a session read at full depth for display.
    pub fn new(session: Session, home: Option<&str>) -> LoadedSession {
        let mut columns = RowColumns::with_capacity(session.entries.len());
        // Fresh calls are ready.
        let _ = columns.extend(0, session.entries.iter(), home);
        LoadedSession::with_columns(session.into_outline(), columns)
    }

    /// A session and its rows' columns, as a stored index kept them.
    pub fn with_columns(session: Session, columns: RowColumns) -> LoadedSession {
        LoadedSession::assemble(session, columns, true, None)
    }

    /// A session and its rows' columns; its leaf's context worked out
    /// beside its view when this is its `first` showing and it is long;
    /// its view made unless it is given (one grown with the session).
    fn assemble(
        session: Session,
        columns: RowColumns,
        first: bool,
        view: Option<TreeView>,
    ) -> LoadedSession {
        let leaf_context = || {
            let leaf = session.leaf()?;
            Some(session.context_for_path(session.tree.path_to(leaf)))
        };
        let (leaf_context, view) = match (view, first && session.entries.len() >= LEAF_CONTEXT_FROM)
        {
            (Some(view), _) => (None, view),
            (None, true) => {
                crate::par::beside("piscope-context", leaf_context, || TreeView::new(&session))
            }
            (None, false) => (None, TreeView::new(&session)),
        };
        let name = session.name().map(|n| text::clean_line(&n));
        let entry_count = session.live_count();
        LoadedSession {
            name,
            entry_count,
            session: Arc::new(session),
            columns,
            view,
            leaf_context: std::sync::Mutex::new(leaf_context.flatten()),
            labelled: std::sync::OnceLock::new(),
        }
    }

    /// The context at `node`, when it is the leaf whose context was worked
    /// out as the session was loaded. Asked once: the first preview takes
    /// it or lets it go (it holds a long branch).
    pub fn take_leaf_context(&self, node: u32) -> Option<Context> {
        let kept = self.leaf_context.lock().ok()?.take();
        kept.filter(|c| c.path.last() == Some(&node))
    }

    /// Prepares a session that was read on from where `before` stopped:
    /// the rows of the entries `before` had are kept, only new ones are
    /// made, from their lines read again at full depth.
    pub fn grown(
        before: &LoadedSession,
        session: Session,
        home: Option<&str>,
    ) -> Result<LoadedSession, SessionError> {
        let view = before.view.grown(&session);
        LoadedSession::read_on_as(before.columns.clone(), session, home, false, view)
    }

    /// A session read on from where `columns` (the rows of its first
    /// entries) stopped: the rows of the new entries are made from their
    /// lines, read again at full depth.
    pub fn read_on(
        columns: RowColumns,
        session: Session,
        home: Option<&str>,
    ) -> Result<LoadedSession, SessionError> {
        LoadedSession::read_on_as(columns, session, home, true, None)
    }

    /// [`LoadedSession::read_on`], for the `first` showing of the session
    /// or not, with its `view` when it is already made (see
    /// [`LoadedSession::assemble`]).
    fn read_on_as(
        mut columns: RowColumns,
        session: Session,
        home: Option<&str>,
        first: bool,
        view: Option<TreeView>,
    ) -> Result<LoadedSession, SessionError> {
        let kept = columns.kinds.len();
        if kept > session.entries.len() {
            // Fewer entries than before: not a growth.
            return LoadedSession::open(&session.path, home);
        }
        let added = session.full_entries_from(kept)?;
        if columns.extend(kept, added.iter(), home).is_none() {
            return LoadedSession::open(&session.path, home);
        }
        drop(added);
        Ok(LoadedSession::assemble(session, columns, first, view))
    }

    pub fn entry(&self, node: u32) -> &Entry {
        self.session.entry(node)
    }

    pub fn text(&self, node: u32) -> &str {
        self.columns.texts.get(node as usize)
    }

    /// The usage entry `node` carries.
    pub fn usage(&self, node: u32) -> Option<&UsageTotals> {
        let u = &self.columns.usage;
        u.binary_search_by_key(&node, |(i, _)| *i)
            .ok()
            .map(|k| &u[k].1)
    }

    /// Whether pi's `/tree` shows entry `node` under `filter`.
    pub fn shows(&self, filter: Filter, node: u32) -> bool {
        let bare = self
            .columns
            .bare
            .get(node as usize)
            .copied()
            .unwrap_or(false);
        self.view.shows_as(
            &self.session,
            filter,
            node,
            self.session.role_of(node),
            bare,
            |n| {
                let labelled = self.labelled.get_or_init(|| self.session.labelled());
                labelled.get(n as usize).copied().unwrap_or(false)
            },
        )
    }

    /// The rows for one filter and set of folds.
    pub fn rows(&self, filter: Filter, folded: &HashSet<u32>) -> view::Rows {
        self.rows_in(filter, folded, view::Rows::default())
    }

    /// [`LoadedSession::rows`] laid out in the memory of `room` (rows made
    /// before) when it is large enough.
    pub fn rows_in(&self, filter: Filter, folded: &HashSet<u32>, room: view::Rows) -> view::Rows {
        self.view
            .rows_where_in(&self.session, folded, |node| self.shows(filter, node), room)
    }

    /// The entry's label, made safe.
    pub fn label(&self, node: u32) -> Option<String> {
        self.session
            .label_of(node)
            .map(|l| text::clean_line(&l.label))
    }
}

fn row_kind(e: &Entry) -> RowKind {
    match &e.info {
        Info::Message(m) => match m.role {
            Role::User => RowKind::User,
            Role::Assistant => {
                if m.content.text.has_text
                    && !entry_line::normalize(&m.content.text.text).is_empty()
                {
                    RowKind::Assistant
                } else if m.stop_reason.as_deref() != Some("aborted")
                    && m.error.as_ref().is_some_and(|e| !e.text.is_empty())
                {
                    RowKind::AssistantError
                } else {
                    RowKind::AssistantQuiet
                }
            }
            Role::ToolResult => RowKind::Tool,
            Role::BashExecution => RowKind::Bash,
            Role::BranchSummary => RowKind::BranchSummary,
            Role::CompactionSummary => RowKind::Compaction,
            _ => RowKind::Custom,
        },
        Info::CustomMessage { .. } => RowKind::Custom,
        Info::Compaction(_) => RowKind::Compaction,
        Info::BranchSummary { .. } => RowKind::BranchSummary,
        _ => RowKind::Setting,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows' texts written in chunks and left in a file read back as they
    /// were, a chunk at a time when one of its rows is asked for; rows made
    /// after them follow; a chunk damaged in the file reads as rows that
    /// say so, and the others as written.
    #[test]
    fn stored_texts_read_back_a_chunk_at_a_time() {
        let n = TEXT_CHUNK * 2 + 7;
        let mut texts = RowTexts::default();
        let row = |i: usize| match i % 3 {
            0 => String::new(),
            1 => format!("user: message {i} ✓"),
            _ => format!("assistant: {}", "é".repeat(i % 50)),
        };
        for i in 0..n {
            texts.push(&row(i));
        }
        let mut body = Vec::new();
        let pieces = texts.write_chunks(&mut body).unwrap();
        assert_eq!(pieces.len(), 3);
        let stored =
            |body: &[u8]| RowTexts::stored(Section::holding(body), pieces.clone(), n).unwrap();
        let made = |t: &RowTexts| t.stored.as_ref().map_or(0, |s| s.chunks.made());
        // Written again, whole chunks are copied without being read: only
        // the last, partial one is.
        let fresh = stored(&body);
        let mut again = Vec::new();
        assert_eq!(fresh.write_chunks(&mut again).unwrap(), pieces);
        assert_eq!((again == body, made(&fresh)), (true, 1));
        let mut back = stored(&body);
        assert_eq!((back.len(), made(&back)), (n, 0));
        assert_eq!(back.get(TEXT_CHUNK + 1), row(TEXT_CHUNK + 1));
        assert_eq!(made(&back), 1);
        back.push("grown");
        assert_eq!(back.len(), n + 1);
        assert_eq!(back.get(n), "grown");
        assert_eq!(back.get(n + 1), "");
        for i in 0..n {
            assert_eq!(back.get(i), row(i), "row {i}");
        }
        assert!(back.fits());
        let mut damaged = body.clone();
        let at = pieces[0].end as usize + 5;
        damaged[at] ^= 0x40;
        let back = stored(&damaged);
        assert_eq!(back.get(3), row(3));
        assert_eq!(back.get(TEXT_CHUNK + 3), UNREADABLE_ROW);
        assert_eq!(back.get(2 * TEXT_CHUNK), row(2 * TEXT_CHUNK));
        // As many chunks as the rows take, or none.
        assert!(RowTexts::stored(Section::holding(&body), pieces[..2].to_vec(), n).is_none());
    }
}
