//! A session prepared for the tree pane: the engine's session plus each
//! entry's clean one-line text, row colour and pi's `/tree` view of it.

use crate::safe_text as text;
use crate::session::line::entry::{Entry, Info, Role, ToolCall};
use crate::session::line::facts::UsageTotals;
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

/// The rows' one-line texts of a session, one string for all of them (a
/// session of a million entries makes no million allocations).
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct RowTexts {
    text: String,
    /// Where each row's text ends in `text`.
    ends: Vec<u64>,
}

impl RowTexts {
    pub fn push(&mut self, row: &str) {
        self.text.push_str(row);
        self.ends.push(self.text.len() as u64);
    }

    /// Row `i`'s text; empty past the end.
    pub fn get(&self, i: usize) -> &str {
        let Some(&end) = self.ends.get(i) else {
            return "";
        };
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start as usize..end as usize).unwrap_or("")
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Whether the ends rise and stay inside the text, each on a character
    /// boundary (so [`RowTexts::get`] gives each row's text): for a stored
    /// index.
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
        let calls = self.calls.ready()?;
        for e in entries.clone() {
            calls.add_from(e);
        }
        for (k, e) in entries.enumerate() {
            let line = entry_line::entry_line(e, calls, home);
            self.texts.push(&text::clean_line(&line));
            self.kinds.push(row_kind(e));
            self.bare
                .push(e.message().is_some_and(entry_line::bare_turn));
            if let Some(&u) = e.usage() {
                self.usage.push(((first + k) as u32, u));
            }
        }
        Some(())
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
}

/// Sessions of this many entries or more have their leaf's context worked
/// out as they are loaded, beside their view: a pass over a long branch
/// the first preview would otherwise start with.
pub const LEAF_CONTEXT_FROM: usize = 100_000;

impl LoadedSession {
    /// Reads the session file at `path` for display. `home` shortens
    /// paths in tool rows to `~`.
    pub fn open(path: &Path, home: Option<&str>) -> Result<LoadedSession, SessionError> {
        Session::open(path).map(|s| LoadedSession::new(s, home))
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
        let leaf_context = || {
            let leaf = session.leaf()?;
            Some(session.context_for_path(session.tree.path_to(leaf)))
        };
        let (leaf_context, view) = match session.entries.len() >= LEAF_CONTEXT_FROM {
            true => crate::par::beside("piscope-context", leaf_context, || TreeView::new(&session)),
            false => (None, TreeView::new(&session)),
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
        LoadedSession::read_on(before.columns.clone(), session, home)
    }

    /// A session read on from where `columns` (the rows of its first
    /// entries) stopped: the rows of the new entries are made from their
    /// lines, read again at full depth.
    pub fn read_on(
        mut columns: RowColumns,
        session: Session,
        home: Option<&str>,
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
        Ok(LoadedSession::with_columns(session, columns))
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
        )
    }

    /// The rows for one filter and set of folds.
    pub fn rows(&self, filter: Filter, folded: &HashSet<u32>) -> view::Rows {
        self.view
            .rows_where(&self.session, folded, |node| self.shows(filter, node))
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
