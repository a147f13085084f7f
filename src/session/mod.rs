//! The pi session format: read a file into an index of entries, understand
//! its tree and context, and append to it exactly as pi would. This file
//! holds [`Session`], an opened file (read in full, then read on as it
//! grows); the rest lives in:
//!
//! ```text
//! error.rs     SessionError, and the problems reading survived
//! content.rs   message content as text (export, context, copy, search)
//! entries.rs   the entries in file order
//! entry_bytes.rs an entry as a stored index keeps it
//! line/        one line read: the one line reader, JSON as pi's
//!              JavaScript reads it, the entry a line becomes
//! read/        regular files only, read in blocks on all cores; the
//!              index pass (a whole file into entries and problems)
//! stored.rs    a session at outline depth, stored and read back
//! tree/        the tree, pi's /tree view and its one-line texts, the
//!              context at a leaf
//! write/       the write lock, appends, migration, fork, prune, rewrites
//! ```

pub mod content;
pub mod entries;
pub mod entry_bytes;
pub mod error;
pub mod line;
pub mod read;
pub mod stored;
pub mod tree;
pub mod write;

use compact_str::CompactString;
pub use entries::Entries;
use line::entry::{self, Entry, Kind};
use line::jskey;
use read::blocks;
use read::file::PrefixPrint;
use read::index_pass::{Scanned, ingest_line, scan_entries};
use std::fs::File;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use tree::{Lookups, Tree};
use write::migrate;

pub use error::{Problem, ProblemKind, SessionError};
pub use line::entry::Header;
pub use read::index_pass::{Detail, open_file};
pub use tree::context::{Context, ContextItem, LeafSelector, Memory, Remembered};
pub use write::append::{
    BranchOutcome, already_there, append_label, append_name, branch_leaf, branch_to,
};
/// The `flock` and file-identity checks piscope's writers use, for the
/// catalog's own lock on its deep-search data.
pub(crate) use write::lock::{same_file, try_lock};
pub use write::migrate::CURRENT_VERSION;

/// The pi release whose session rules piscope follows: the published
/// package the conformance tests install and compare with (its install
/// script pins the same one; a test holds the two equal).
pub const PI_VERSION: &str = "1.6.0";

/// An opened session: header, entries in file order, tree, problems.
#[derive(Debug, Clone)]
pub struct Session {
    pub path: PathBuf,
    pub header: Header,
    pub entries: Entries,
    pub problems: Vec<Problem>,
    pub tree: Tree,
    /// Bytes read so far: the end of the last complete line.
    pub read_to: u64,
    /// What those bytes were, checked before reading on.
    prefix: PrefixPrint,
    /// The next physical line number after `read_to`.
    next_line: u32,
    /// Problems found by reading lines (tree problems are recomputed).
    line_problems: Vec<Problem>,
    /// Original `id` values of a legacy file's entries, before migration.
    legacy_ids: Vec<Option<CompactString>>,
    /// What was kept of each entry.
    pub detail: Detail,
    /// At outline depth, what the context needs of each message.
    outline: Outline,
}

/// What the context needs of each message, kept beside the entries at
/// outline depth: a few bytes each, each role and model named once.
#[derive(Debug, Clone, Default)]
struct Outline {
    /// By entry index: a message's [`Fact`], [`Fact::NONE`] for any other
    /// entry (four bytes an entry).
    facts: Vec<Fact>,
    /// The roles and models messages have, each pair once.
    kinds: Vec<(entry::Role, entry::ModelRef)>,
    kind_ids: rustc_hash::FxHashMap<(entry::Role, entry::ModelRef), u32>,
}

/// An index into `Outline::kinds`, its top bit set when the content is
/// null.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
struct Fact(u32);

impl Fact {
    const NONE: Fact = Fact(u32::MAX);
    const NULLISH: u32 = 1 << 31;

    fn kind(self) -> Option<usize> {
        (self != Fact::NONE).then_some((self.0 & !Fact::NULLISH) as usize)
    }

    fn nullish(self) -> bool {
        self.0 & Fact::NULLISH != 0
    }
}

impl Outline {
    /// Adds `e` (read at full depth) and leaves it at outline depth: a
    /// message's info goes, what the context needs of it stays here.
    fn keep(&mut self, e: &mut Entry) {
        let brief = match std::mem::take(&mut e.info) {
            entry::Info::Message(m) => Some(entry::Brief::of(*m)),
            info => {
                e.info = info;
                None
            }
        };
        self.add(brief);
    }

    fn add(&mut self, brief: Option<entry::Brief>) {
        let fact = brief.map(|b| {
            let model = entry::ModelRef {
                provider: b.provider,
                model_id: b.model,
            };
            let kind = (b.role, model);
            // A session has a handful of kinds: look among the first few
            // before hashing.
            let few = self.kinds.iter().take(8).position(|k| *k == kind);
            let kind = match few {
                Some(k) => k as u32,
                None => {
                    let next = self.kinds.len() as u32;
                    *self.kind_ids.entry(kind).or_insert_with_key(|k| {
                        self.kinds.push(k.clone());
                        next
                    })
                }
            };
            Fact(kind | if b.nullish { Fact::NULLISH } else { 0 })
        });
        self.facts.push(fact.unwrap_or(Fact::NONE));
    }
}

/// A session's tree as it is assembled: given with all its problems (read
/// back from a stored index), or to be built.
enum Built {
    Stored(Box<Tree>, Vec<Problem>),
    ToBuild(Lookups),
}

/// How far a file was read: to the end of its last complete line, what
/// those bytes were, the next line's number, and the lines' problems.
struct Read {
    read_to: u64,
    prefix: PrefixPrint,
    next_line: u32,
    problems: Vec<Problem>,
}

/// What [`Session::refresh`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refresh {
    Unchanged,
    /// New entries were read from the end of the file.
    Appended(usize),
    /// The file shrank or its header changed: read again in full.
    Reloaded,
}

/// A session's file against what was read of it.
enum OnDisk {
    /// Cut short, or its header or the bytes read changed.
    Rewritten,
    AsRead,
    /// Bytes appended after those read.
    Grown,
}

impl Session {
    /// Reads a session file with everything the browser shows.
    pub fn open(path: impl AsRef<Path>) -> Result<Session, SessionError> {
        Session::open_with(path.as_ref(), Detail::Full)
    }

    /// Reads a session file, keeping only `detail`.
    pub fn open_with(path: &Path, detail: Detail) -> Result<Session, SessionError> {
        Session::open_as(path, detail, Lookups::Keep)
    }

    /// [`Session::open_with`] for a caller that reads the session once and
    /// looks up an id or two at most: its tree's table of ids is let go as
    /// soon as the tree is built (its first lookups scan the entries; see
    /// [`Lookups`]).
    pub fn open_once(path: &Path, detail: Detail) -> Result<Session, SessionError> {
        Session::open_as(path, detail, Lookups::Drop)
    }

    fn open_as(path: &Path, detail: Detail, lookups: Lookups) -> Result<Session, SessionError> {
        let mut entries = Entries::default();
        let mut outline = Outline::default();
        let outlined = detail == Detail::Outline;
        let scanned = scan_entries(path, detail, |e, brief| {
            entries.push(e);
            if outlined {
                outline.add(brief);
            }
        })?;
        if outlined && scanned.header.version < CURRENT_VERSION {
            // Migration edits message roles, which an outline does not keep.
            return Session::open_as(path, Detail::Structure, lookups);
        }
        Session::opened(path, scanned, entries, detail, outline, lookups)
    }

    /// Reads a session file at full depth, handing each entry, with its
    /// index, to `each` as it is read, and keeps it at outline depth: what
    /// [`Session::open`] then [`Session::into_outline`] make, without ever
    /// holding every entry at full depth. `go_on` is asked after each line
    /// how far the file is read; when it says no, the read stops
    /// ([`SessionError::Stopped`]). `None` for a legacy file (before
    /// version 3), whose entries change as they migrate after the read:
    /// what `each` was given is not what they become.
    pub fn open_outlined(
        path: &Path,
        mut each: impl FnMut(usize, &Entry),
        go_on: impl FnMut(u64) -> bool,
    ) -> Result<Option<Session>, SessionError> {
        let mut entries = Entries::default();
        let mut outline = Outline::default();
        let each = |mut e: Entry, _| {
            each(entries.len(), &e);
            outline.keep(&mut e);
            entries.push(e);
        };
        let scanned = read::index_pass::scan_entries_while(path, Detail::Full, each, go_on)?;
        if scanned.header.version < CURRENT_VERSION {
            return Ok(None);
        }
        Session::opened(
            path,
            scanned,
            entries,
            Detail::Outline,
            outline,
            Lookups::Keep,
        )
        .map(Some)
    }

    /// A session of the `entries` (and their `outline`) a scan of `path`
    /// read, its header's text read and its tree built.
    fn opened(
        path: &Path,
        scanned: Scanned,
        mut entries: Entries,
        detail: Detail,
        mut outline: Outline,
        lookups: Lookups,
    ) -> Result<Session, SessionError> {
        let Scanned {
            mut header,
            mut file,
            problems,
            read_to,
            next_line,
        } = scanned;
        // Grown by doubling: up to twice what it holds; then shared.
        entries.freeze();
        outline.facts.shrink_to_fit();
        header.raw = blocks::read_span(&mut file, header.span.offset, header.span.len)
            .map_err(|e| SessionError::io(path, e))?
            .trim_end_matches('\r')
            .to_string();
        let prefix = PrefixPrint::of(&file, read_to).map_err(|e| SessionError::io(path, e))?;
        Ok(Session::assemble(
            path.to_path_buf(),
            header,
            entries,
            Read {
                read_to,
                prefix,
                next_line,
                problems,
            },
            detail,
            outline,
            Built::ToBuild(lookups),
        ))
    }

    /// A session of these parts, its tree built; or the tree and all the
    /// problems given when `built` (then nothing is migrated: a current
    /// file's session).
    fn assemble(
        path: PathBuf,
        header: Header,
        entries: Entries,
        read: Read,
        detail: Detail,
        outline: Outline,
        built: Built,
    ) -> Session {
        let (tree, problems, rebuild) = match built {
            Built::Stored(tree, problems) => (*tree, problems, None),
            Built::ToBuild(lookups) => (Tree::default(), Vec::new(), Some(lookups)),
        };
        let mut session = Session {
            path,
            header,
            entries,
            problems,
            tree,
            read_to: read.read_to,
            prefix: read.prefix,
            next_line: read.next_line,
            line_problems: read.problems,
            legacy_ids: Vec::new(),
            detail,
            outline,
        };
        if let Some(lookups) = rebuild {
            session.reindex(lookups);
        }
        session
    }

    /// Reads what was appended since the last read; reloads in full when the
    /// file shrank or was rewritten (its header, or the bytes before where
    /// it was read to, changed).
    pub fn refresh(&mut self) -> Result<Refresh, SessionError> {
        let path = self.path.clone();
        let io = |e| SessionError::io(&path, e);
        let mut file = open_file(&path)?;
        match self.on_disk(&mut file)? {
            OnDisk::Rewritten => {
                *self = Session::open_with(&path, self.detail)?;
                return Ok(Refresh::Reloaded);
            }
            OnDisk::AsRead => return Ok(Refresh::Unchanged),
            OnDisk::Grown => {}
        }
        let scanned = file.try_clone().map_err(io)?;
        // A previous unfinished last line is read again now.
        self.line_problems
            .retain(|p| p.kind != ProblemKind::Unfinished);
        let before = self.entries.len();
        let (mut read_to, mut next_line) = (self.read_to, self.next_line);
        let entries = &mut self.entries;
        let problems = &mut self.line_problems;
        let outlined = self.detail == Detail::Outline;
        let outline = &mut self.outline;
        let detail = self.detail;
        let mut keep = |e, brief| {
            entries.push(e);
            if outlined {
                outline.add(brief);
            }
        };
        detail
            .scan(scanned, self.read_to, self.next_line, |meta, parsed| {
                if ingest_line(&mut keep, problems, meta, parsed) {
                    read_to = meta.offset + meta.len + u64::from(meta.terminated);
                    next_line = meta.number + 1;
                }
                ControlFlow::Continue(())
            })
            .map_err(io)?;
        if read_to != self.read_to {
            self.prefix = PrefixPrint::of(&file, read_to).map_err(io)?;
        }
        self.read_to = read_to;
        self.next_line = next_line;
        let added = self.entries.len() - before;
        self.entries.freeze();
        // What pi appends grows the tree; anything else builds it again.
        if self.is_legacy() || !self.tree.extend(&self.entries, before) {
            self.reindex(Lookups::Keep);
        } else {
            // The tree's own problems are as they were; the lines' may
            // have changed (a last line finished, new damage).
            let tree: Vec<Problem> = self
                .problems
                .iter()
                .filter(|p| p.kind.is_tree())
                .cloned()
                .collect();
            self.set_problems(tree);
        }
        Ok(if added > 0 {
            Refresh::Appended(added)
        } else {
            Refresh::Unchanged
        })
    }

    /// Makes ready now what reading on from the file's end needs of what
    /// was read (the table of ids), where it waits to be asked for (see
    /// [`Tree::ready_lookups`]): a session opened from its index, that pi
    /// is writing, grows at once rather than after a pass over every
    /// entry. Waits for a call already under way on another thread.
    pub fn ready_for_growth(&self) {
        self.tree.ready_lookups(&self.entries);
    }

    /// Whether the file is as it was last read: nothing appended, its
    /// header and the bytes read unchanged (what makes [`Session::refresh`]
    /// answer `Unchanged` at once), asked without reading a line.
    pub fn unchanged_on_disk(&self) -> Result<bool, SessionError> {
        let mut file = open_file(&self.path)?;
        Ok(matches!(self.on_disk(&mut file)?, OnDisk::AsRead))
    }

    /// What `file`, the session's file opened again, is against what was
    /// read of it.
    fn on_disk(&self, file: &mut File) -> Result<OnDisk, SessionError> {
        let io = |e| SessionError::io(&self.path, e);
        let len = file.metadata().map_err(io)?.len();
        let rewritten = len < self.read_to
            || !self.header_unchanged(file)?
            || !self.prefix.matches(file).map_err(io)?;
        Ok(match (rewritten, len == self.read_to) {
            (true, _) => OnDisk::Rewritten,
            (false, true) => OnDisk::AsRead,
            (false, false) => OnDisk::Grown,
        })
    }

    fn header_unchanged(&self, file: &mut File) -> Result<bool, SessionError> {
        let text = match blocks::read_span(file, self.header.span.offset, self.header.span.len) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(false),
            Err(e) => return Err(SessionError::io(&self.path, e)),
        };
        Ok(text.trim_end_matches('\r') == self.header.raw)
    }

    /// The session's file, opened again to read bodies from (refused if
    /// something other than a regular file has taken its place).
    pub fn open_file(&self) -> Result<File, SessionError> {
        open_file(&self.path)
    }

    /// Recomputes migration ids and the tree after entries changed.
    fn reindex(&mut self, lookups: Lookups) {
        if self.header.version < 2 {
            migrate::assign_legacy_ids(
                &self.header.id,
                self.entries.as_mut_slice(),
                &mut self.legacy_ids,
            );
        }
        if self.header.version < 3 {
            migrate::rename_hook_messages(self.entries.as_mut_slice());
        }
        let mut tree = Vec::new();
        self.tree = Tree::build_with(&self.entries, &mut tree, lookups);
        self.set_problems(tree);
    }

    /// The session's problems: its lines', then those its `tree` found,
    /// in line order.
    fn set_problems(&mut self, tree: Vec<Problem>) {
        let mut problems = self.line_problems.clone();
        problems.extend(tree);
        problems.sort_by_key(|p| p.line);
        self.problems = problems;
    }

    /// True when the file predates version 3 and is migrated in memory.
    pub fn is_legacy(&self) -> bool {
        self.header.version < CURRENT_VERSION
    }

    /// The entry an id names.
    pub fn find(&self, id: &str) -> Option<u32> {
        self.tree.find(&self.entries, id)
    }

    pub fn entry(&self, idx: u32) -> &Entry {
        &self.entries[idx as usize]
    }

    /// Entries that are part of the tree (later header lines excluded).
    pub fn live_entries(&self) -> impl DoubleEndedIterator<Item = (u32, &Entry)> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.kind() != Kind::Header)
            .map(|(i, e)| (i as u32, e))
    }

    /// The id pi resumes at: the id of the last entry in file order.
    pub fn leaf_id(&self) -> Option<&str> {
        self.tree.last().and_then(|i| self.entry(i).id_str())
    }

    /// The node pi resumes at.
    pub fn leaf(&self) -> Option<u32> {
        // The last entry is the last of its id: its own node.
        self.leaf_id().and(self.tree.last())
    }

    /// The active branch: root to leaf (none when the leaf's id is falsy,
    /// as pi's `getBranch` finds nothing for it).
    pub fn branch(&self) -> Vec<u32> {
        self.branch_leaf()
            .map(|l| self.tree.path_to(l))
            .unwrap_or_default()
    }

    /// [`Session::branch`] handed to `each` a stretch at a time, never held
    /// whole (see [`tree::Tree::path_in_stretches`]).
    pub fn branch_in_stretches<E>(
        &self,
        each: impl FnMut(&[u32]) -> Result<(), E>,
    ) -> Result<(), E> {
        match self.branch_leaf() {
            Some(leaf) => self.tree.path_in_stretches(leaf, each),
            None => Ok(()),
        }
    }

    /// The leaf a branch ends at: none when the leaf's id is falsy.
    fn branch_leaf(&self) -> Option<u32> {
        self.leaf()
            .filter(|_| self.leaf_id().is_some_and(jskey::is_truthy))
    }

    /// The session name: latest `session_info`, trimmed; empty clears. A
    /// lone surrogate in it reads as U+FFFD.
    pub fn name(&self) -> Option<String> {
        self.name_units().map(|u| String::from_utf16_lossy(&u))
    }

    /// The session name as a JSON string literal, as pi writes it (a lone
    /// surrogate escaped); `None` when there is none.
    pub fn name_json(&self) -> Option<String> {
        self.name_units()
            .map(|u| line::jsvalue::js_string_literal(&u))
    }

    /// The name's UTF-16 text, trimmed as JavaScript trims.
    fn name_units(&self) -> Option<Vec<u16>> {
        // Only `session_info` entries are read, the latest first.
        let key = (0..self.entries.len())
            .rev()
            .filter(|&i| self.entries.kind(i) == Kind::SessionInfo)
            .find_map(|i| match &self.entries[i].info {
                entry::Info::SessionInfo { name } => Some(name.as_deref()),
                _ => None,
            })
            .flatten()?;
        name_units(key)
    }

    /// How many entries are part of the tree (later header lines not
    /// counted), without reading them.
    pub fn live_count(&self) -> usize {
        (0..self.entries.len())
            .filter(|&i| self.entries.kind(i) != Kind::Header)
            .count()
    }

    /// The label on an entry.
    pub fn label_of(&self, idx: u32) -> Option<tree::LabelInfo> {
        self.entry(idx).id_str().and_then(|id| self.label_by_id(id))
    }

    /// The label on each of `entries` (a few: see
    /// [`tree::Tree::label_entries`]).
    pub fn labels_of(&self, entries: &[u32]) -> Vec<Option<tree::LabelInfo>> {
        let ids: Vec<Option<&str>> = entries.iter().map(|&i| self.entry(i).id_str()).collect();
        let asked: Vec<&str> = ids.iter().flatten().copied().collect();
        let mut found = self.tree.label_entries(&asked).into_iter();
        ids.iter()
            .map(|id| {
                let at = id.and_then(|_| found.next().flatten())?;
                self.entries.get(at as usize).and_then(tree::LabelInfo::of)
            })
            .collect()
    }

    /// Whether an entry has a label.
    pub fn has_label(&self, idx: u32) -> bool {
        self.entry(idx)
            .id_str()
            .is_some_and(|id| self.tree.label_entry(id).is_some())
    }

    /// Per entry, whether it has a label ([`Session::has_label`] of each),
    /// from one pass over the entries that holds none of them: a filter
    /// of labelled entries on a session left in a stored index reads its
    /// ten million entries once, not into memory.
    pub fn labelled(&self) -> Vec<bool> {
        let labels = self.tree.labels();
        if labels.is_empty() {
            return vec![false; self.entries.len()];
        }
        let runs = self.entries.map_runs(|_, run| {
            run.iter()
                .map(|e| e.id_str().is_some_and(|id| labels.contains_key(id)))
                .collect::<Vec<bool>>()
        });
        runs.concat()
    }

    /// The label on the entry with id `id`.
    pub fn label_by_id(&self, id: &str) -> Option<tree::LabelInfo> {
        let at = self.tree.label_entry(id)?;
        self.entries.get(at as usize).and_then(tree::LabelInfo::of)
    }

    /// Damaged lines (not counting a last line still being written).
    pub fn damaged_lines(&self) -> usize {
        self.problems
            .iter()
            .filter(|p| {
                matches!(
                    p.kind,
                    ProblemKind::Damaged { .. } | ProblemKind::NotAnObject
                )
            })
            .count()
    }

    /// The line text of an entry, read again from the file.
    pub fn line_text(&self, idx: u32) -> Result<String, SessionError> {
        let mut file = self.open_file()?;
        self.line_text_in(&mut file, idx)
    }

    /// Like [`Session::line_text`], reusing an open file.
    pub fn line_text_in(&self, file: &mut File, idx: u32) -> Result<String, SessionError> {
        let span = self.entry(idx).span();
        blocks::read_span(file, span.offset, span.len).map_err(|e| SessionError::io(&self.path, e))
    }

    /// What was kept of message entry `i` at outline depth: its role, whether
    /// its content is null, and its model.
    /// Frees what a session at outline depth keeps of its messages'
    /// roles and models (four bytes an entry): for a one-shot listing
    /// that has asked what it needs of them. [`Session::outline_fact`]
    /// answers nothing afterwards.
    pub fn forget_outline_facts(&mut self) {
        self.outline = Outline::default();
    }

    pub(crate) fn outline_fact(&self, i: u32) -> Option<(&entry::Role, bool, &entry::ModelRef)> {
        let fact = *self.outline.facts.get(i as usize)?;
        let (role, model) = self.outline.kinds.get(fact.kind()?)?;
        Some((role, fact.nullish(), model))
    }

    /// The header as pi sees it after migration (version 3).
    pub fn header_json(&self) -> String {
        let json = migrate::migrated_header(&self.header);
        if line::jsvalue::may_differ(json.as_bytes()) {
            return line::jsvalue::normalize(&json);
        }
        json
    }
}

/// The session name of the file at `path` (see [`Session::name`]), read in
/// one scan that keeps no entry.
pub fn read_name(path: &Path) -> Result<Option<String>, SessionError> {
    let mut latest: Option<Option<entry::Text>> = None;
    scan_entries(path, Detail::Outline, |e, _| {
        let header = e.kind() == Kind::Header;
        if let entry::Info::SessionInfo { name } = e.info {
            if !header {
                latest = Some(name);
            }
        }
    })?;
    let units = latest.flatten().as_deref().and_then(name_units);
    Ok(units.map(|u| String::from_utf16_lossy(&u)))
}

/// A name's UTF-16 text, trimmed as JavaScript trims; `None` when the key
/// is not a string or nothing is left.
fn name_units(key: &str) -> Option<Vec<u16>> {
    let units = jskey::string_units(key)?;
    // Every character JavaScript trims is in the BMP: one code unit.
    let space = |u: &u16| char::from_u32(u32::from(*u)).is_some_and(crate::jstext::is_space);
    let start = units.iter().position(|u| !space(u))?;
    let end = units
        .iter()
        .rposition(|u| !space(u))
        .map_or(start, |e| e + 1);
    Some(units[start..end].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// An outline keeps all a structure read does but message infos, and
    /// gives the same tree, problems and context at every leaf.
    #[test]
    fn outline_reads_like_structure() {
        let files = crate::session::read::file::test_session_files();
        let mut messages = 0;
        for path in files {
            let Ok(full) = Session::open_with(&path, Detail::Structure) else {
                assert!(Session::open_with(&path, Detail::Outline).is_err());
                continue;
            };
            let outline = Session::open_with(&path, Detail::Outline).unwrap();
            assert_eq!(outline.problems, full.problems);
            assert_eq!(outline.tree.preorder(), full.tree.preorder());
            assert_eq!(outline.entries.len(), full.entries.len());
            for (i, (a, b)) in outline.entries.iter().zip(&full.entries).enumerate() {
                if outline.detail == Detail::Outline && b.kind() == Kind::Message {
                    messages += 1;
                    assert_eq!(a.info, entry::Info::None);
                    let (a, b) = (outline.message_view(i as u32), full.message_view(i as u32));
                    let (a, b) = (a.unwrap(), b.unwrap());
                    assert_eq!(
                        (a.role, a.nullish, a.provider, a.model),
                        (b.role, b.nullish, b.provider, b.model)
                    );
                } else {
                    assert_eq!(a, b);
                }
            }
            let mut leaves = vec![LeafSelector::Last, LeafSelector::Null];
            leaves.extend(
                full.entries
                    .iter()
                    .filter_map(|e| e.id_str())
                    .map(|id| LeafSelector::Id(id.into())),
            );
            for leaf in leaves.iter().step_by(3) {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                outline
                    .write_context_json(&outline.context(leaf), &mut a)
                    .unwrap();
                full.write_context_json(&full.context(leaf), &mut b)
                    .unwrap();
                assert_eq!(a, b, "{} at {leaf:?}", path.display());
            }
        }
        assert!(messages > 300, "{messages}");
    }

    /// A session read on from a copy of it, as the browser reads on,
    /// shares the entries the copy had read (none copied), reads what a
    /// fresh read does, and leaves the copy as it was; changed in place,
    /// a shared copy is copied first.
    #[test]
    fn a_copy_read_on_shares_what_was_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("grows.jsonl");
        let mut data = String::from(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2024-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n",
        );
        let line = |i: usize| {
            let parent = i
                .checked_sub(1)
                .map_or("null".to_string(), |p| format!("\"e{p}\""));
            format!(
                "{{\"type\":\"message\",\"id\":\"e{i}\",\"parentId\":{parent},\"timestamp\":\"2024-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"m{i}\"}}}}\n"
            )
        };
        for i in 0..100 {
            data.push_str(&line(i));
        }
        std::fs::write(&path, &data).unwrap();
        let first = Session::open(&path).unwrap();
        // Appended in two rounds, each read on from a copy, as the browser
        // does; the second one past the point where the new entries are
        // frozen too.
        let mut now = first.clone();
        let mut n = 100;
        for more in [3, super::entries::FREEZE_FROM + 5] {
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            for i in n..n + more {
                file.write_all(line(i).as_bytes()).unwrap();
            }
            n += more;
            let before = now.clone();
            assert!(now.entries.shares_frozen(&before.entries));
            assert_eq!(now.refresh().unwrap(), Refresh::Appended(more));
            let fresh = Session::open(&path).unwrap();
            assert!(now.entries == fresh.entries);
            assert_eq!(format!("{:?}", now.entries), format!("{:?}", fresh.entries));
            assert_eq!(now.tree.preorder(), fresh.tree.preorder());
            assert_eq!(
                before.entries.len(),
                n - more,
                "the copy read from is as it was"
            );
        }
        assert_eq!(first.entries.len(), 100);
        // Changed in place, a shared copy is copied first.
        let mut changed = now.clone();
        changed.entries.as_mut_slice()[0].line = 999;
        assert_eq!(now.entries[0].line, 2);
        assert_eq!(changed.entries[0].line, 999);
    }

    /// Every object or array id is a `Map` key of its own, as in pi: two
    /// entries with `"id":[]` stay two nodes, and a `parentId` that is an
    /// object finds neither. Read small (one block) and big (blocks parsed
    /// on several threads), and again after an append.
    #[test]
    fn object_ids_are_keys_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("odd.jsonl");
        for pad_lines in [0usize, 4000] {
            let mut data = Vec::new();
            writeln!(data, r#"{{"type":"session","version":3,"id":"s","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/"}}"#).unwrap();
            let pad = "x".repeat(300);
            for i in 0..pad_lines {
                writeln!(data, r#"{{"type":"message","id":"p{i}","parentId":null,"message":{{"role":"user","content":"{pad}"}}}}"#).unwrap();
            }
            writeln!(data, r#"{{"type":"message","id":"a","parentId":null,"timestamp":"2024-01-01T00:00:01.000Z","message":{{"role":"user","content":"x"}}}}"#).unwrap();
            writeln!(data, r#"{{"type":"message","id":[],"parentId":null,"timestamp":"2024-01-01T00:00:02.000Z","message":"m"}}"#).unwrap();
            writeln!(data, r#"{{"type":"custom_message","id":[],"parentId":"a","timestamp":"2024-01-01T00:00:03.000Z","customType":"c","content":"c","display":true}}"#).unwrap();
            writeln!(
                data,
                r#"{{"type":"label","id":"l","parentId":[],"targetId":"a","label":"x"}}"#
            )
            .unwrap();
            std::fs::write(&path, &data).unwrap();
            let mut s = Session::open(&path).unwrap();
            let check = |s: &Session| {
                let n = s.entries.len() as u32;
                let (array_message, array_custom, label) = (n - 3, n - 2, n - 1);
                let a = s.find("a").unwrap();
                assert_eq!(s.tree.children(a), [array_custom]);
                assert!(s.tree.roots().contains(&array_message));
                assert!(s.tree.roots().contains(&label));
                assert_ne!(
                    s.entries[array_message as usize].id,
                    s.entries[array_custom as usize].id
                );
                assert_eq!(s.tree.parent(array_message), None);
                assert_eq!(s.tree.parent(label), None);
            };
            check(&s);
            let mut more = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            writeln!(more, r#"{{"type":"message","id":"z","parentId":"a","timestamp":"2024-01-01T00:00:04.000Z","message":{{"role":"user","content":"y"}}}}"#).unwrap();
            assert_eq!(s.refresh().unwrap(), Refresh::Appended(1));
            let n = s.entries.len() as u32;
            let a = s.find("a").unwrap();
            assert_eq!(s.tree.children(a), [n - 3, n - 1]);
            assert!(s.tree.roots().contains(&(n - 4)));
        }
    }

    /// A session big enough to be read on several threads, with blank,
    /// damaged and non-UTF-8 lines and a second header between entries:
    /// every entry and problem keeps its physical line number, as when the
    /// file is read a line at a time; a refresh after an append continues
    /// the numbering.
    #[test]
    fn big_sessions_keep_line_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.jsonl");
        let mut data = Vec::new();
        writeln!(data, r#"{{"type":"session","version":3,"id":"s","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/"}}"#).unwrap();
        let mut want = Vec::new();
        let pad = "x".repeat(300);
        for i in 0..6000u32 {
            let line = i + 2 + i / 7 * 2;
            match i % 97 {
                5 => data.extend_from_slice(b"{\"type\":\"message\",\"id\":\"\xff\"}\n"),
                9 => writeln!(data, r#"{{"type":"session","id":"again"}}"#).unwrap(),
                _ => writeln!(data, r#"{{"type":"message","id":"m{i}","parentId":null,"timestamp":"2024-01-01T00:00:00.000Z","message":{{"role":"user","content":"{pad}"}}}}"#).unwrap(),
            }
            want.push(line);
            if i % 7 == 6 {
                data.extend_from_slice(b"\n{broken\n");
            }
        }
        std::fs::write(&path, &data).unwrap();
        assert!(data.len() > 1 << 20);
        for detail in [Detail::Structure, Detail::Full, Detail::Outline] {
            let mut s = Session::open_with(&path, detail).unwrap();
            assert_eq!(s.header.line, 1);
            let lines: Vec<u32> = s.entries.iter().map(|e| e.line).collect();
            assert_eq!(lines, want);
            let damaged: Vec<u32> = s
                .problems
                .iter()
                .filter(|p| matches!(p.kind, ProblemKind::Damaged { .. }))
                .map(|p| p.line)
                .collect();
            let broken: Vec<u32> = (0..6000u32)
                .filter(|i| i % 7 == 6)
                .map(|i| i + 2 + i / 7 * 2 + 2)
                .collect();
            assert_eq!(damaged, broken);
            for p in &s.problems {
                if matches!(p.kind, ProblemKind::NotUtf8 | ProblemKind::ExtraHeader) {
                    assert!(want.contains(&p.line), "{p}");
                }
            }
            let next = data.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
            let mut more = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            writeln!(
                more,
                r#"{{"type":"message","id":"z","parentId":null,"message":{{}}}}"#
            )
            .unwrap();
            assert_eq!(s.refresh().unwrap(), Refresh::Appended(1));
            assert_eq!(s.entries.last().map(|e| e.line), Some(next));
            let last = s.entries.len() as u32 - 1;
            assert!(s.message_view(last).is_some());
            assert_eq!(
                s.message_view(last - 1).map(|m| m.role.clone()),
                Some(entry::Role::User)
            );
            std::fs::write(&path, &data).unwrap();
        }
    }
}
