//! What the model sees at a given leaf: pi's `buildContextEntries` and
//! `buildSessionContext`, with compactions (`firstKeptEntryId` or the newer
//! `retainedTail`), context edits and branch summaries.

use super::Bits;
use crate::session::line::cursor::Cursor;
use crate::session::line::entry::{Entry, Info, Kind, ModelRef, Role, Span};
use crate::session::line::jskey;
use crate::session::line::raw_json::{RawObject, ms_json};
use crate::session::read::blocks;
use crate::session::{Session, SessionError};
use compact_str::CompactString;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

/// Which leaf to build the context for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeafSelector {
    /// The last entry in file order (where pi resumes).
    Last,
    /// Before any entry: an empty context.
    Null,
    /// A given entry; an unknown id falls back to the last entry, as in pi.
    Id(String),
}

/// One entry that contributes to the context, in eight bytes (a branch of
/// ten million entries has as many).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextItem {
    /// The entry, [`ADDS_NOTHING`] set when it adds nothing.
    entry: u32,
    /// The edit, [`NO_EDIT`] for none.
    edit: u32,
}

/// [`ContextItem::entry`]'s bit for an item that adds nothing (an entry's
/// index is far below it: two billion entries would not fit in memory).
const ADDS_NOTHING: u32 = 1 << 31;
/// [`ContextItem::edit`]'s mark of none.
const NO_EDIT: u32 = u32::MAX;

impl ContextItem {
    pub fn new(entry: u32, edit: Option<u32>, contributes: bool) -> ContextItem {
        debug_assert!(entry < ADDS_NOTHING && edit != Some(NO_EDIT));
        ContextItem {
            entry: entry | if contributes { 0 } else { ADDS_NOTHING },
            edit: edit.unwrap_or(NO_EDIT),
        }
    }

    /// The entry's index.
    pub fn entry(&self) -> u32 {
        self.entry & !ADDS_NOTHING
    }

    /// The latest `context_edit` on the branch that targets this entry.
    pub fn edit(&self) -> Option<u32> {
        (self.edit != NO_EDIT).then_some(self.edit)
    }

    /// False for an older compaction kept inside the range: it adds nothing.
    pub fn contributes(&self) -> bool {
        self.entry & ADDS_NOTHING == 0
    }
}

/// A context's items, four bytes each: the entries (with
/// [`ContextItem::contributes`] in their top bit), and beside them the few
/// that an edit targets, by place. A branch of ten million entries has as
/// many items.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextItems {
    entries: Vec<u32>,
    /// (item's place, the edit), places rising.
    edits: Vec<(u32, u32)>,
}

impl ContextItems {
    fn from_items(items: impl Iterator<Item = ContextItem>) -> ContextItems {
        let mut out = ContextItems {
            entries: crate::par::big_vec(items.size_hint().0),
            edits: Vec::new(),
        };
        for (k, item) in items.enumerate() {
            if let Some(edit) = item.edit() {
                out.edits.push((k as u32, edit));
            }
            out.entries.push(item.entry);
        }
        out.entries.shrink_to_fit();
        out
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The item at place `k`.
    pub fn get(&self, k: usize) -> Option<ContextItem> {
        (k < self.len()).then(|| self.at(k))
    }

    /// The entry of the item at place `k`, which is below
    /// [`ContextItems::len`].
    pub fn at_entry(&self, k: usize) -> u32 {
        self.entries[k] & !ADDS_NOTHING
    }

    /// The item at place `k`, which is below [`ContextItems::len`].
    fn at(&self, k: usize) -> ContextItem {
        let entry = self.entries[k];
        let edit = match self.edits.is_empty() {
            true => NO_EDIT,
            false => self
                .edits
                .binary_search_by_key(&(k as u32), |&(at, _)| at)
                .map_or(NO_EDIT, |i| self.edits[i].1),
        };
        ContextItem { entry, edit }
    }

    /// Every item, first to last.
    pub fn iter(&self) -> ItemsIter<'_> {
        ItemsIter {
            items: self,
            places: 0..self.len(),
        }
    }

    /// Keeps the items `keep` says to, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&ContextItem) -> bool) {
        let kept: Vec<ContextItem> = self.iter().filter(|i| keep(i)).collect();
        *self = ContextItems::from_items(kept.into_iter());
    }

    /// Drops the first `n` items.
    pub fn drop_first(&mut self, n: usize) {
        let rest: Vec<ContextItem> = self.iter().skip(n).collect();
        *self = ContextItems::from_items(rest.into_iter());
    }
}

/// [`ContextItems::iter`]: the items by place, from either end.
pub struct ItemsIter<'a> {
    items: &'a ContextItems,
    places: std::ops::Range<usize>,
}

impl Iterator for ItemsIter<'_> {
    type Item = ContextItem;

    fn next(&mut self) -> Option<ContextItem> {
        self.places.next().map(|k| self.items.at(k))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.places.size_hint()
    }
}

impl DoubleEndedIterator for ItemsIter<'_> {
    fn next_back(&mut self) -> Option<ContextItem> {
        self.places.next_back().map(|k| self.items.at(k))
    }
}

impl ExactSizeIterator for ItemsIter<'_> {}

impl<'a> IntoIterator for &'a ContextItems {
    type Item = ContextItem;
    type IntoIter = ItemsIter<'a>;

    fn into_iter(self) -> ItemsIter<'a> {
        self.iter()
    }
}

/// The context at one leaf. Message bodies are read from the file on demand
/// with [`Session::context_messages`].
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    /// Root to leaf.
    pub path: Vec<u32>,
    pub items: ContextItems,
    /// `None` when the latest change set no level (JavaScript `undefined`);
    /// a [`crate::session::line::jskey`] key.
    pub thinking_level: Option<CompactString>,
    pub model: Option<ModelRef>,
    /// The compaction whose summary opens the context, if any.
    pub compaction: Option<u32>,
}

/// Whether the model sees an entry at one leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Memory {
    /// In the context: its message is sent (or, for a setting, in force).
    Seen,
    /// On the path to the leaf but not sent: cut away by a compaction, an
    /// older compaction's summary, or a message a context edit omits.
    CompactedAway,
    /// Not on the path to the leaf: another branch.
    OffPath,
}

/// What the model remembers at one leaf, per entry (see
/// [`Session::remembered`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Remembered {
    /// The leaf it was built for; `None` before any entry.
    pub leaf: Option<u32>,
    on_path: Bits,
    seen: Bits,
}

impl Remembered {
    pub fn memory(&self, node: u32) -> Memory {
        if self.seen.get(node) {
            Memory::Seen
        } else if self.on_path.get(node) {
            Memory::CompactedAway
        } else {
            Memory::OffPath
        }
    }

    /// Whether the model sees `node` at this leaf.
    pub fn sees(&self, node: u32) -> bool {
        self.seen.get(node)
    }
}

impl Session {
    /// Builds the context for a leaf.
    pub fn context(&self, leaf: &LeafSelector) -> Context {
        let path = self
            .leaf_at(leaf)
            .map(|s| self.tree.path_to(s))
            .unwrap_or_default();
        self.context_for_path(path)
    }

    /// The entry a context for `leaf` ends at (`None`: before any).
    pub fn leaf_at(&self, leaf: &LeafSelector) -> Option<u32> {
        match leaf {
            LeafSelector::Null => None,
            LeafSelector::Last => self.tree.last(),
            // pi looks up only a truthy id.
            LeafSelector::Id(id) if id.is_empty() => self.tree.last(),
            LeafSelector::Id(id) => self.find(id).or(self.tree.last()),
        }
    }

    /// The context ending at the entry `leaf` (none: before any entry),
    /// for a command that asks nothing more of the tree than its labels:
    /// the children are let go before the path is walked, the rest of the
    /// tree's links after (see [`super::Tree::keep_labels_only`]), before
    /// the context is built beside the path. Ten million entries: 120 MB
    /// never held with the context, 80 MB never with the path.
    pub fn context_once(&mut self, leaf: Option<u32>) -> Context {
        self.tree.forget_children();
        let path = leaf.map(|s| self.tree.path_to(s)).unwrap_or_default();
        self.tree.keep_labels_only();
        self.context_for_path(path)
    }

    /// Builds the context for a path (root to leaf).
    pub fn context_for_path(&self, path: Vec<u32>) -> Context {
        // The latest level and model in force, looked for from the leaf
        // back: a long branch is rarely walked far.
        let mut thinking_level: Option<Option<CompactString>> = None;
        let mut model: Option<Option<ModelRef>> = None;
        for &i in path.iter().rev() {
            if thinking_level.is_some() && model.is_some() {
                break;
            }
            match self.entries.kind(i as usize) {
                // Only a setting's info is read: a message's view is kept
                // beside the entries.
                Kind::ThinkingLevelChange | Kind::ModelChange => match &self.entry(i).info {
                    Info::ThinkingLevel(level) if thinking_level.is_none() => {
                        thinking_level = Some(level.as_deref().map(CompactString::from))
                    }
                    Info::ModelChange(c) if model.is_none() => {
                        model = Some(Some(ModelRef {
                            provider: c.provider.clone(),
                            model_id: c.model_id.clone(),
                        }))
                    }
                    _ => {}
                },
                _ if model.is_none() => {
                    if let Some(m) = self.message_view(i).filter(|m| *m.role == Role::Assistant) {
                        model = Some(Some(ModelRef {
                            provider: m.provider.cloned(),
                            model_id: m.model.cloned(),
                        }))
                    }
                }
                _ => {}
            }
        }
        let thinking_level = thinking_level.unwrap_or(Some(CompactString::const_new("off")));
        let model = model.flatten();
        let (selected, compaction_pos) = self.context_entries(&path);
        let items = self.context_items(&selected);
        let compaction = compaction_pos.map(|_| selected[0]);
        drop(selected);
        Context {
            path,
            items,
            thinking_level,
            model,
            compaction,
        }
    }

    /// The context's items for pi's selected entries: the latest edit of
    /// each, and whether it adds messages at all.
    fn context_items(&self, selected: &[u32]) -> ContextItems {
        // pi's edits `Map`: an absent target is the key `undefined`, which
        // an entry without id looks up.
        let mut edits: HashMap<&str, u32> = HashMap::new();
        for &i in selected {
            let edit = self.entries.kind(i as usize) == Kind::ContextEdit;
            if let Info::ContextEdit { target, .. } = &self.info_if(edit, i) {
                edits.insert(target.as_deref().unwrap_or(jskey::UNDEFINED), i);
            }
        }
        let items = selected.iter().enumerate().map(|(k, &i)| {
            // Most sessions have no edit: no id to hash per entry.
            let edit = match edits.is_empty() {
                true => None,
                false => {
                    let id = self.entry(i).id_str();
                    edits.get(id.unwrap_or(jskey::UNDEFINED)).copied()
                }
            };
            let kind = self.entries.kind(i as usize);
            let contributes = !(kind == Kind::Compaction && k > 0) && self.contributes(i);
            ContextItem::new(i, edit, contributes)
        });
        ContextItems::from_items(items)
    }

    /// pi's `buildContextEntries` on `path`: the entries whose messages
    /// the context is built from, and where on the path the latest
    /// compaction is (it opens the list). Without a compaction that is the
    /// path itself, not copied (ten million entries: 40 MB).
    fn context_entries<'p>(&self, path: &'p [u32]) -> (Cow<'p, [u32]>, Option<usize>) {
        let compaction_pos = path
            .iter()
            .rposition(|&i| self.entries.kind(i as usize) == Kind::Compaction);
        let Some(pos) = compaction_pos else {
            return (Cow::Borrowed(path), None);
        };
        let comp = self.entry(path[pos]);
        let mut out = vec![path[pos]];
        let (first_kept, tail) = match &comp.info {
            Info::Compaction(c) => (c.first_kept.as_deref(), c.retained_tail),
            _ => (None, false),
        };
        if !tail {
            let mut found = false;
            for &i in &path[..pos] {
                let e = self.entry(i);
                // `entry.id === firstKeptEntryId`: both absent is equal too.
                found |= e.id_str() == first_kept;
                let system = self
                    .message_view(i)
                    .is_some_and(|m| *m.role == Role::System);
                if found && !system {
                    out.push(i);
                }
            }
        }
        out.extend_from_slice(&path[pos + 1..]);
        (Cow::Owned(out), compaction_pos)
    }

    /// What the model remembers with `leaf` as the leaf (`None`: before
    /// any entry).
    pub fn remembered_at(&self, leaf: Option<u32>) -> Remembered {
        let path = leaf.map(|l| self.tree.path_to(l)).unwrap_or_default();
        // The context's entries without its model and level: this runs on
        // every move of the tree's selection.
        let (selected, _) = self.context_entries(&path);
        self.remembered_from(&path, &self.context_items(&selected))
    }

    /// How many entries with a message the compaction `comp` replaced: seen
    /// by the model just before it, and no longer with it as the leaf.
    pub fn replaced_by(&self, comp: u32) -> usize {
        let path = self.tree.path_to(comp);
        let Some((_, before)) = path.split_last() else {
            return 0;
        };
        let then = self.remembered(&self.context_for_path(before.to_vec()));
        let now = self.remembered(&self.context_for_path(path.clone()));
        before
            .iter()
            .filter(|&&i| self.contributes(i) && then.sees(i) && !now.sees(i))
            .count()
    }

    /// What the model remembers at the leaf of `ctx`: each entry seen,
    /// forgotten on the way there, or off the path. Costs one pass over
    /// the context, however large the session.
    pub fn remembered(&self, ctx: &Context) -> Remembered {
        self.remembered_from(&ctx.path, &ctx.items)
    }

    fn remembered_from(&self, path: &[u32], items: &ContextItems) -> Remembered {
        let n = self.entries.len();
        let mut r = Remembered {
            leaf: path.last().copied(),
            on_path: Bits::new(n),
            seen: Bits::new(n),
        };
        for &i in path {
            r.on_path.set(i);
        }
        for item in items {
            let omitted = item.edit().is_some_and(|edit| {
                matches!(self.entry(edit).info, Info::ContextEdit { omit: true, .. })
            });
            // A setting on the kept part is seen (it adds no message but is
            // in force); a message whose summary or text is not sent is not.
            let sent = !self.contributes(item.entry()) || (item.contributes() && !omitted);
            if sent {
                r.seen.set(item.entry);
            }
        }
        r
    }

    /// The messages one context item adds, as JSON objects, exactly as pi
    /// builds them. `file` is the session file, open for reading.
    pub fn context_messages(
        &self,
        item: ContextItem,
        file: &mut File,
    ) -> Result<Vec<String>, SessionError> {
        if !item.contributes() {
            return Ok(Vec::new());
        }
        let line = self.line_text_in(file, item.entry)?;
        let messages = entry_messages(self, item.entry, &line);
        match item.edit() {
            None => Ok(messages),
            Some(edit) => {
                let edit_line = self.line_text_in(file, edit)?;
                Ok(apply_edit(messages, &edit_line))
            }
        }
    }

    /// How many messages the context sends, as pi builds them (the count
    /// the preview's header and the exports give).
    pub fn context_message_count(
        &self,
        ctx: &Context,
        file: &mut File,
    ) -> Result<usize, SessionError> {
        let mut n = 0;
        for item in &ctx.items {
            n += self.context_message_count_of(item, file)?;
        }
        Ok(n)
    }

    /// How many messages one context item adds ([`Session::context_messages`]'
    /// count), its line read only where the entry does not say: a plain
    /// message (its role read from its message object, nothing to rebuild
    /// or edit) adds one. A branch of a million messages is counted without
    /// reading a million lines.
    pub fn context_message_count_of(
        &self,
        item: ContextItem,
        file: &mut File,
    ) -> Result<usize, SessionError> {
        match self.context_message_count_unread(item) {
            Some(n) => Ok(n),
            None => Ok(self.context_messages(item, file)?.len()),
        }
    }

    /// [`Session::context_message_count_of`] where it reads no line (most
    /// items: an item adding nothing, a plain message); `None` where it
    /// does.
    pub fn context_message_count_unread(&self, item: ContextItem) -> Option<usize> {
        if !item.contributes() {
            return Some(0);
        }
        let plain = item.edit().is_none()
            && !self.entries.echoes_changed(item.entry as usize)
            && self
                .message_view(item.entry)
                .is_some_and(|m| *m.role != Role::Missing && !needs_rebuild(self, &m));
        plain.then_some(1)
    }

    /// Writes the whole context as pi's `{messages, thinkingLevel, model}`.
    pub fn write_context_json(
        &self,
        ctx: &Context,
        out: &mut dyn std::io::Write,
    ) -> Result<(), SessionError> {
        let io = |e| SessionError::io(&self.path, e);
        let mut lines = LineWindow::new(self.open_file()?);
        out.write_all(b"{\"messages\":[").map_err(io)?;
        let mut first = true;
        let mut put = |out: &mut dyn std::io::Write, m: &str| {
            if !std::mem::take(&mut first) {
                out.write_all(b",")?;
            }
            out.write_all(m.as_bytes())
        };
        for item in &ctx.items {
            if !item.contributes() {
                continue;
            }
            let e = self.entry(item.entry);
            let line = lines.line(e.span()).map_err(io)?;
            // Most messages are copied as written: no need to build them.
            let plain = item.edit().is_none()
                && !e.js_echo()
                && self
                    .message_view(item.entry)
                    .is_some_and(|m| !needs_rebuild(self, &m));
            if let Some(raw) = plain.then(|| message_raw(&line)).flatten() {
                put(out, raw).map_err(io)?;
                continue;
            }
            let line = line.into_owned();
            let mut messages = entry_messages(self, item.entry, &line);
            // A number beyond f64 is written as JavaScript writes it (null),
            // whether the message had it or an edit's replacement brought it.
            let mut echo = e.js_echo();
            if let Some(edit) = item.edit() {
                let edit = self.entry(edit);
                echo |= edit.js_echo();
                let edit_line = lines.line(edit.span()).map_err(io)?;
                messages = apply_edit(messages, &edit_line);
            }
            for m in messages {
                let m = if echo {
                    crate::session::line::jsvalue::normalize(&m)
                } else {
                    m
                };
                put(out, &m).map_err(io)?;
            }
        }
        out.write_all(b"]").map_err(io)?;
        // The level and the model are echoed whatever their JSON type; an
        // absent one (`undefined`) leaves its key out.
        let mut tail = Vec::new();
        if let Some(level) = &ctx.thinking_level {
            tail.extend_from_slice(b",\"thinkingLevel\":");
            jskey::push_json(&mut tail, level);
        }
        tail.extend_from_slice(b",\"model\":");
        match &ctx.model {
            None => tail.extend_from_slice(b"null"),
            Some(m) => {
                tail.push(b'{');
                if let Some(p) = &m.provider {
                    tail.extend_from_slice(b"\"provider\":");
                    jskey::push_json(&mut tail, p);
                }
                if let Some(id) = &m.model_id {
                    if m.provider.is_some() {
                        tail.push(b',');
                    }
                    tail.extend_from_slice(b"\"modelId\":");
                    jskey::push_json(&mut tail, id);
                }
                tail.push(b'}');
            }
        }
        tail.push(b'}');
        out.write_all(&tail).map_err(io)
    }
}

/// Lines of the session file read through a window of it: a long context
/// costs a few large reads rather than two calls per entry. The window only
/// moves forward, each time past where it was, and a line behind it is read
/// alone, so no order of lines reads the file more than about twice.
struct LineWindow {
    file: File,
    buf: Vec<u8>,
    /// File offset of `buf[0]`.
    at: u64,
    /// A line read alone.
    single: Vec<u8>,
}

impl LineWindow {
    const SIZE: u64 = 1 << 20;

    fn new(file: File) -> LineWindow {
        LineWindow {
            file,
            buf: Vec::new(),
            at: 0,
            single: Vec::new(),
        }
    }

    /// The text at `span`, as [`blocks::read_span`] reads it.
    fn line(&mut self, span: Span) -> std::io::Result<Cow<'_, str>> {
        let end = span.offset.saturating_add(span.len);
        if span.offset < self.at {
            Self::fill(
                &mut self.file,
                &mut self.single,
                span.offset,
                span.len,
                span.len,
            )?;
            return Ok(blocks::decode_span(&self.single, span.offset));
        }
        if end > self.at + self.buf.len() as u64 {
            self.at = span.offset;
            let want = span.len.max(Self::SIZE);
            Self::fill(&mut self.file, &mut self.buf, span.offset, want, span.len)?;
        }
        let from = (span.offset - self.at) as usize;
        Ok(blocks::decode_span(
            &self.buf[from..from + span.len as usize],
            span.offset,
        ))
    }

    /// Reads up to `want` bytes at `offset` into `buf`; at least `need`.
    fn fill(
        file: &mut File,
        buf: &mut Vec<u8>,
        offset: u64,
        want: u64,
        need: u64,
    ) -> std::io::Result<()> {
        buf.clear();
        file.seek(SeekFrom::Start(offset))?;
        file.take(want).read_to_end(buf)?;
        if (buf.len() as u64) < need {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file is shorter than when it was read",
            ));
        }
        Ok(())
    }
}

/// The raw `message` value of a plain entry line, read in place; `None`
/// when serde should decide (damage, an escaped or repeated key, null).
fn message_raw(line: &str) -> Option<&str> {
    let mut c = Cursor::new(line.as_bytes());
    c.ws();
    let mut found = None;
    let mut more = c.open_object()?;
    while more {
        let key = c.key()?;
        let start = c.pos();
        c.skip_value()?;
        if key == b"message" {
            if found.is_some() {
                return None;
            }
            found = Some(start..c.pos());
        }
        more = c.member_end()?;
    }
    c.ws();
    if !c.at_end() {
        return None;
    }
    // serde reads a null message as none at all.
    line.get(found?).filter(|raw| *raw != "null")
}

/// What the context reads of a message entry, whichever detail was kept.
pub(crate) struct MessageView<'a> {
    pub(crate) role: &'a Role,
    pub(crate) nullish: bool,
    pub(crate) provider: Option<&'a CompactString>,
    pub(crate) model: Option<&'a CompactString>,
}

impl Session {
    /// The message entry `i` is, seen through its info or (at outline
    /// depth) what was kept of it; `None` for other entries.
    pub(crate) fn message_view(&self, i: u32) -> Option<MessageView<'_>> {
        // At outline depth no entry keeps a message's info: what was kept
        // of it is read without reading the entry.
        let kept = self.detail != crate::session::Detail::Outline;
        if let Info::Message(m) = &self.info_if(kept, i) {
            return Some(MessageView {
                role: &m.role,
                nullish: m.content.nullish,
                provider: m.provider.as_ref(),
                model: m.model.as_ref(),
            });
        }
        let (role, nullish, model) = self.outline_fact(i)?;
        Some(MessageView {
            role,
            nullish,
            provider: model.provider.as_ref(),
            model: model.model_id.as_ref(),
        })
    }

    /// Entry `i`'s info when `read`, else none (an entry left in a stored
    /// index is then not read).
    fn info_if(&self, read: bool, i: u32) -> &Info {
        match read {
            true => &self.entry(i).info,
            false => &Info::None,
        }
    }

    /// Whether entry `i`'s type can add messages at all (read only for
    /// the types whose info says).
    fn contributes(&self, i: u32) -> bool {
        match self.entries.kind(i as usize) {
            Kind::Message => true,
            Kind::CustomMessage | Kind::Compaction | Kind::BranchSummary => {
                contributes(self.entry(i))
            }
            _ => false,
        }
    }
}

/// Whether pi builds this message anew (null content, a legacy hook
/// message) rather than taking it as written.
fn needs_rebuild(session: &Session, m: &MessageView<'_>) -> bool {
    m.nullish
        && matches!(
            m.role,
            Role::System | Role::User | Role::Assistant | Role::ToolResult
        )
        || (session.header.version < 3 && *m.role == Role::Custom)
}

/// Whether an entry type can add messages at all.
fn contributes(e: &Entry) -> bool {
    match &e.info {
        // Messages have a message info at every depth but the outline.
        _ if e.kind() == Kind::Message => true,
        Info::CustomMessage { .. } | Info::Compaction(_) => true,
        // `if (entry.summary)`: any truthy value.
        Info::BranchSummary(b) => b.summary.truthy,
        _ => false,
    }
}

#[derive(Deserialize)]
struct MessageOnly<'a> {
    #[serde(borrow)]
    message: Option<&'a RawValue>,
}

/// pi's `sessionEntryToContextMessages`.
fn entry_messages(session: &Session, idx: u32, line: &str) -> Vec<String> {
    let e = session.entry(idx);
    if let Some(m) = session.message_view(idx) {
        return message_messages(session, &m, line);
    }
    match &e.info {
        Info::CustomMessage { .. } => {
            let Ok(o) = RawObject::parse(line) else {
                return Vec::new();
            };
            let mut msg = RawObject::new();
            msg.set("role", "custom");
            copy_field(&o, &mut msg, "customType");
            match o.get("content").filter(|c| c.get() != "null") {
                Some(c) => msg.set_raw("content", c),
                None => msg.set_json("content", "[]".into()),
            }
            copy_field(&o, &mut msg, "display");
            copy_field(&o, &mut msg, "details");
            msg.set_json("timestamp", ms_json(e.time_ms()));
            vec![msg.to_json()]
        }
        Info::BranchSummary { .. } => {
            let Ok(o) = RawObject::parse(line) else {
                return Vec::new();
            };
            let mut msg = RawObject::new();
            msg.set("role", "branchSummary");
            copy_field(&o, &mut msg, "summary");
            copy_field(&o, &mut msg, "fromId");
            msg.set_json("timestamp", ms_json(e.time_ms()));
            vec![msg.to_json()]
        }
        Info::Compaction(c) => {
            let Ok(o) = RawObject::parse(line) else {
                return Vec::new();
            };
            let mut out = Vec::new();
            if c.system_message {
                if let Some(sys) = o.get("systemMessage") {
                    out.push(sys.get().to_string());
                }
            }
            let mut msg = RawObject::new();
            msg.set("role", "compactionSummary");
            copy_field(&o, &mut msg, "summary");
            copy_field(&o, &mut msg, "tokensBefore");
            msg.set_json("timestamp", ms_json(e.time_ms()));
            out.push(msg.to_json());
            if c.retained_tail {
                if let Some(tail) = o.get("retainedTail") {
                    if let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(tail.get()) {
                        out.extend(items.iter().map(|m| m.get().to_string()));
                    }
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// The message a message entry adds: as written, or built anew.
fn message_messages(session: &Session, m: &MessageView<'_>, line: &str) -> Vec<String> {
    if !needs_rebuild(session, m) {
        if let Ok(MessageOnly { message: Some(raw) }) = serde_json::from_str(line) {
            return vec![raw.get().to_string()];
        }
    }
    let Some(mut msg) = RawObject::parse(line).ok().and_then(|o| {
        o.get("message")
            .and_then(|m| RawObject::parse(m.get()).ok())
    }) else {
        return Vec::new();
    };
    if *m.role == Role::Custom && msg.get_str("role").as_deref() == Some("hookMessage") {
        msg.set("role", "custom");
    }
    if m.nullish {
        match m.role {
            Role::System => msg.set("content", ""),
            Role::User | Role::Assistant | Role::ToolResult => msg.set_json("content", "[]".into()),
            _ => {}
        }
    }
    vec![msg.to_json()]
}

/// Copies a field when present and not `undefined` (JSON has no undefined,
/// so presence is enough).
fn copy_field(from: &RawObject, to: &mut RawObject, key: &str) {
    if let Some(v) = from.get(key) {
        to.set_raw(key, v);
    }
}

/// pi's `projectContextEntry`: a `null` replacement omits the entry's
/// messages; otherwise their content is replaced (a string becomes one text
/// block for assistant and tool-result messages), and left out when the
/// replacement has none. An absent replacement is one without content
/// (where pi crashes reading `undefined.content`).
fn apply_edit(messages: Vec<String>, edit_line: &str) -> Vec<String> {
    let Ok(edit) = RawObject::parse(edit_line) else {
        return messages;
    };
    let replacement = edit.get("replacement");
    if replacement.is_some_and(|r| r.get() == "null") {
        return Vec::new();
    }
    let new_content = replacement
        .and_then(|r| RawObject::parse(r.get()).ok())
        .and_then(|r| r.get("content").map(ToOwned::to_owned));
    messages
        .into_iter()
        .map(|m| {
            let Ok(mut msg) = RawObject::parse(&m) else {
                return m;
            };
            let role = msg.get_str("role");
            if !matches!(
                role.as_deref(),
                Some("user" | "assistant" | "toolResult" | "custom")
            ) {
                return m;
            }
            match &new_content {
                None => msg.remove("content"),
                Some(c) => {
                    let is_string = c.get().starts_with('"');
                    if is_string && matches!(role.as_deref(), Some("assistant" | "toolResult")) {
                        msg.set_json(
                            "content",
                            format!("[{{\"type\":\"text\",\"text\":{}}}]", c.get()),
                        );
                    } else {
                        msg.set_raw("content", c);
                    }
                }
            }
            msg.to_json()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_keeps_its_entry_edit_and_contribution_in_eight_bytes() {
        assert_eq!(std::mem::size_of::<ContextItem>(), 8);
        for entry in [0, 1, 7, ADDS_NOTHING - 1] {
            for edit in [
                None,
                Some(0),
                Some(5),
                Some(ADDS_NOTHING),
                Some(NO_EDIT - 1),
            ] {
                for contributes in [true, false] {
                    let item = ContextItem::new(entry, edit, contributes);
                    assert_eq!(
                        (item.entry(), item.edit(), item.contributes()),
                        (entry, edit, contributes)
                    );
                }
            }
        }
    }

    /// A context item's message count without its line is the count of the
    /// messages its line gives, for every item of the context at every
    /// entry of every test session (hostile ones included), at full and at
    /// outline depth.
    #[test]
    fn counted_messages_are_the_messages_read() {
        let (mut items, mut counted) = (0, 0);
        for path in crate::session::read::file::test_session_files() {
            for detail in [
                crate::session::Detail::Full,
                crate::session::Detail::Outline,
            ] {
                let Ok(s) = Session::open_with(&path, detail) else {
                    continue;
                };
                let mut file = s.open_file().unwrap();
                let mut probe = s.open_file().unwrap();
                for i in 0..s.entries.len() as u32 {
                    let ctx = s.context_for_path(s.tree.path_to(i));
                    for item in &ctx.items {
                        let read = s.context_messages(item, &mut file).unwrap().len();
                        let count = s.context_message_count_of(item, &mut probe).unwrap();
                        assert_eq!(count, read, "{} entry {}", path.display(), item.entry);
                        items += 1;
                        counted += usize::from(item.edit().is_none() && read == 1);
                    }
                }
            }
        }
        assert!(
            items > 10_000 && counted > 5_000,
            "{items} items, {counted} plain"
        );
    }

    /// The items kept four bytes each with their edits beside read back
    /// as the items they were made of, in either direction, by place, kept
    /// in part and cut at the front.
    #[test]
    fn items_read_back_as_made() {
        let mut next = crate::session::tree::tests::numbers(0x2545_f491);
        for round in 0..200 {
            let len = next(40) as usize;
            let made: Vec<ContextItem> = (0..len)
                .map(|_| {
                    let edit = (next(4) == 0).then(|| next(1000) as u32);
                    ContextItem::new(next(1 << 20) as u32, edit, next(3) != 0)
                })
                .collect();
            let items = ContextItems::from_items(made.iter().copied());
            assert_eq!(items.len(), len);
            assert_eq!(items.iter().collect::<Vec<_>>(), made, "{round}");
            assert_eq!(
                items.iter().rev().collect::<Vec<_>>(),
                made.iter().rev().copied().collect::<Vec<_>>()
            );
            assert_eq!((&items).into_iter().collect::<Vec<_>>(), made);
            for (k, item) in made.iter().enumerate() {
                assert_eq!(items.get(k), Some(*item));
                assert_eq!(items.at_entry(k), item.entry());
            }
            assert_eq!(items.get(len), None);
            let cut = next(len as u64 + 1) as usize;
            let mut front = items.clone();
            front.drop_first(cut);
            assert_eq!(front.iter().collect::<Vec<_>>(), made[cut..]);
            let mut kept = items.clone();
            kept.retain(|i| i.entry() % 2 == 0);
            let want: Vec<ContextItem> = made
                .iter()
                .copied()
                .filter(|i| i.entry() % 2 == 0)
                .collect();
            assert_eq!(kept.iter().collect::<Vec<_>>(), want);
        }
    }

    /// A context built after the tree's links are let go is the context
    /// built with them, and the labels still answer: at every leaf, the
    /// last entry and before any entry, of every test session.
    #[test]
    fn a_context_once_is_the_context() {
        let mut checked = 0;
        for path in crate::session::read::file::test_session_files() {
            let Ok(s) = Session::open_with(&path, crate::session::Detail::Outline) else {
                continue;
            };
            let mut leaves: Vec<Option<u32>> = s
                .live_entries()
                .map(|(i, _)| Some(i))
                .filter(|&i| i.is_some_and(|i| s.tree.children(i).is_empty()))
                .take(8)
                .collect();
            leaves.extend([s.tree.last(), None]);
            let labels: Vec<_> = (0..s.entries.len() as u32).map(|i| s.label_of(i)).collect();
            for leaf in leaves {
                let want = s.context_for_path(leaf.map(|l| s.tree.path_to(l)).unwrap_or_default());
                let Ok(mut once) = Session::open_once(&path, crate::session::Detail::Outline)
                else {
                    panic!("{} opened once", path.display());
                };
                let got = once.context_once(leaf);
                assert_eq!(got, want, "{} at {leaf:?}", path.display());
                let now: Vec<_> = (0..once.entries.len() as u32)
                    .map(|i| once.label_of(i))
                    .collect();
                assert_eq!(now, labels, "{}", path.display());
                assert!(once.tree.children(0).is_empty());
                checked += usize::from(want.path.len() > 2);
            }
        }
        assert!(checked > 50, "{checked}");
    }

    /// Lines in any order, long and short, come back as `read_span` reads
    /// them.
    #[test]
    fn line_window_reads_any_order() {
        use std::io::Write;
        let mut data = Vec::new();
        let mut spans = Vec::new();
        for i in 0..3000u64 {
            let len = if i % 500 == 7 { 1_500_000 } else { i % 900 };
            let offset = data.len() as u64;
            data.extend((0..len).map(|k| b'a' + ((i + k) % 26) as u8));
            data.push(b'\n');
            spans.push(Span { offset, len });
        }
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&data).unwrap();
        let mut window = LineWindow::new(File::open(f.path()).unwrap());
        let mut plain = File::open(f.path()).unwrap();
        let mut x: u64 = 3;
        for k in 0..6000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Mostly forward, sometimes anywhere.
            let i = if k % 5 == 0 {
                (x >> 33) as usize % spans.len()
            } else {
                k / 2
            };
            let span = spans[i];
            let want = blocks::read_span(&mut plain, span.offset, span.len).unwrap();
            assert_eq!(window.line(span).unwrap(), want, "line {i}");
        }
    }

    /// In place or by serde, the same message text, or none.
    #[test]
    fn message_raw_agrees_with_serde() {
        let serde = |line: &str| match serde_json::from_str::<MessageOnly>(line) {
            Ok(MessageOnly { message: Some(raw) }) => Some(raw.get().to_string()),
            _ => None,
        };
        for line in [
            r#"{"type":"message","message":{"role":"user","content":"hi"}}"#,
            r#" { "message" : { "a" : [1, 2.5e-3] } , "x": null } "#,
            r#"{"message":null}"#,
            r#"{"message":5,"id":"a"}"#,
            r#"{"message":"s"}"#,
            r#"{"message":{},"message":{}}"#,
            r#"{"messag\u0065":{"a":1}}"#,
            r#"{"id":"a"}"#,
            r#"{"message":{"a":1}"#,
            r#"{"message":{"a":1}} x"#,
            r#"{"message":{"a":"\ud83d\ude00"}}"#,
            r#"[{"message":{}}]"#,
        ] {
            let fast = message_raw(line);
            if let Some(fast) = fast {
                assert_eq!(Some(fast.to_string()), serde(line), "{line}");
            }
        }
        assert_eq!(message_raw(r#"{"message":{"a":1}}"#), Some(r#"{"a":1}"#));
        assert_eq!(message_raw(r#"{"message":null}"#), None);
    }
}
