//! A session kept at outline depth, as a stored index holds it and reads
//! it back: everything but the tree, which is built again from the
//! entries. Reading it back checks that the parts fit together, so a
//! stored index from a faulty writer is refused, never believed.

use super::line::entry::{Entry, Id, Info, Kind, ModelRef, Parent, Role, Span};
use super::read::file::PrefixPrint;
use super::tree::Tree;
use super::tree::parts::TreeParts;
use super::{CURRENT_VERSION, Detail, Fact, Header, Outline, Problem, Read, Session};
use serde::{Deserialize, Serialize};
use std::mem::MaybeUninit;
use std::path::PathBuf;

/// How many parts a stored session's entries are written in, each read
/// back on a core of its own (see [`StoredRef::entry_parts`]).
pub const ENTRY_PARTS: usize = 2;

/// What a session keeps, borrowed for writing (see [`Session::stored`]).
/// The entries are written apart, in parts ([`StoredRef::entry_parts`]).
#[derive(Serialize)]
pub struct StoredRef<'a> {
    header: &'a Header,
    #[serde(skip)]
    entries: &'a [Entry],
    entry_count: u64,
    line_problems: &'a [Problem],
    read_to: u64,
    prefix: PrefixPrint,
    next_line: u32,
    facts: &'a [Fact],
    kinds: &'a [(Role, ModelRef)],
    tree: TreeParts,
    problems: &'a [Problem],
}

/// What a session keeps, read back (field for field [`StoredRef`]); the
/// entries are read with [`read_entries`], then [`Stored::set_entries`].
#[derive(Deserialize)]
pub struct Stored {
    header: Header,
    #[serde(skip)]
    entries: Vec<Entry>,
    entry_count: u64,
    line_problems: Vec<Problem>,
    read_to: u64,
    prefix: PrefixPrint,
    next_line: u32,
    facts: Vec<Fact>,
    kinds: Vec<(Role, ModelRef)>,
    tree: TreeParts,
    problems: Vec<Problem>,
    /// The label entries' indices, found as the entries were read.
    #[serde(skip)]
    labelled: Vec<u32>,
}

/// Entries [`read_entries`] read, and which of them are label entries (in
/// order): the labels are then found without another pass over them all.
pub struct ReadEntries {
    entries: Vec<Entry>,
    labelled: Vec<u32>,
}

impl StoredRef<'_> {
    /// The entries in [`ENTRY_PARTS`] parts, in order, each written with
    /// [`write_entries`].
    pub fn entry_parts(&self) -> impl Iterator<Item = &[Entry]> {
        let per = self.entries.len().div_ceil(ENTRY_PARTS).max(1);
        let mut parts: Vec<&[Entry]> = self.entries.chunks(per).collect();
        parts.resize(ENTRY_PARTS, &[]);
        parts.into_iter()
    }
}

/// The fewest bytes an entry is written in (its fields, each a byte at
/// least; a test holds the smallest entry to it).
const MIN_ENTRY_BYTES: usize = 8;

/// Writes `entries` one after another. Most entries (every message at
/// outline depth) keep no info: those are written in a fixed form read
/// without the general decoder, a third of its time; any other entry is
/// written whole after a mark.
pub fn write_entries(entries: &[Entry], w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut fixed = Vec::with_capacity(64);
    for e in entries {
        fixed.clear();
        if write_fixed(e, &mut fixed) {
            w.write_all(&fixed)?;
        } else {
            w.write_all(&[WHOLE])?;
            postcard::to_io(e, &mut *w).map_err(std::io::Error::other)?;
        }
    }
    Ok(())
}

/// The marks before an entry: its fixed form, or the whole entry.
const FIXED: u8 = 0;
const WHOLE: u8 = 1;

/// Writes `e` in the fixed form, if it has one: no info, ids of at most
/// 255 bytes. The mark, the kind, a byte of flags (lossy, echo, an id,
/// the parent's form), the time, line, offset and length
/// (little-endian), then the id and the parent's id, each after its
/// length.
fn write_fixed(e: &Entry, out: &mut Vec<u8>) -> bool {
    let short = |id: &str| u8::try_from(id.len()).is_ok();
    let (parent_form, parent_id) = match &e.parent {
        Parent::Null => (0u8, None),
        Parent::Missing => (1, None),
        Parent::Id(p) => (2, Some(p.as_str())),
        Parent::Invalid => (3, None),
    };
    if !matches!(e.info, Info::None)
        || !e.id.as_deref().is_none_or(short)
        || !parent_id.is_none_or(short)
    {
        return false;
    }
    out.push(FIXED);
    if postcard::to_io(&e.kind, &mut *out).is_err() {
        return false;
    }
    let flags = u8::from(e.lossy)
        | u8::from(e.js_echo) << 1
        | u8::from(e.id.is_some()) << 2
        | parent_form << 3;
    out.push(flags);
    out.extend_from_slice(&e.time.to_le_bytes());
    out.extend_from_slice(&e.line.to_le_bytes());
    out.extend_from_slice(&e.span.offset.to_le_bytes());
    out.extend_from_slice(&e.span.len.to_le_bytes());
    for id in e.id.as_deref().into_iter().chain(parent_id) {
        out.push(id.len() as u8);
        out.extend_from_slice(id.as_bytes());
    }
    true
}

/// Reads one entry [`write_entries`] wrote at the front of `bytes`; the
/// entry and the bytes after it.
fn read_one(bytes: &[u8]) -> Option<(Entry, &[u8])> {
    let (&mark, rest) = bytes.split_first()?;
    if mark == WHOLE {
        return postcard::take_from_bytes::<Entry>(rest).ok();
    }
    if mark != FIXED {
        return None;
    }
    let (kind, rest) = postcard::take_from_bytes::<Kind>(rest).ok()?;
    let (&flags, rest) = rest.split_first()?;
    let (time, rest) = rest.split_first_chunk::<8>()?;
    let (line, rest) = rest.split_first_chunk::<4>()?;
    let (offset, rest) = rest.split_first_chunk::<8>()?;
    let (len, mut rest) = rest.split_first_chunk::<8>()?;
    let mut id = || -> Option<Id> {
        let (&n, after) = rest.split_first()?;
        let (text, after) = after.split_at_checked(usize::from(n))?;
        rest = after;
        Some(Id::new(std::str::from_utf8(text).ok()?))
    };
    let own = if flags & 4 != 0 { Some(id()?) } else { None };
    let parent = match flags >> 3 {
        0 => Parent::Null,
        1 => Parent::Missing,
        2 => Parent::Id(id()?),
        3 => Parent::Invalid,
        _ => return None,
    };
    let e = Entry {
        id: own,
        parent,
        kind,
        time: i64::from_le_bytes(*time),
        line: u32::from_le_bytes(*line),
        span: Span {
            offset: u64::from_le_bytes(*offset),
            len: u64::from_le_bytes(*len),
        },
        lossy: flags & 1 != 0,
        js_echo: flags & 2 != 0,
        info: Info::None,
    };
    Some((e, rest))
}

/// Bytes of a mapped index read between two givings back of its pages.
const RELEASE_EVERY: usize = 8 << 20;

/// Reads `bytes`, one part written by [`write_entries`], into `slots`,
/// front to back: how many were filled, whether that was all of `bytes`
/// and exactly as many as `slots`, and which slots hold label entries. With
/// `release`, the part lies in a file mapping whose pages are given back
/// as they are read (see [`crate::par::release_mapped`]).
fn read_part(
    mut bytes: &[u8],
    slots: &mut [MaybeUninit<Entry>],
    release: bool,
) -> (usize, bool, Vec<u32>) {
    let mut filled = 0;
    let mut labelled = Vec::new();
    let mut unreleased = bytes;
    while !bytes.is_empty() {
        let done = unreleased.len() - bytes.len();
        if release && done >= RELEASE_EVERY {
            // SAFETY: `read_mapped_entries`'s caller promised a mapping.
            unsafe { crate::par::release_mapped(&unreleased[..done]) };
            unreleased = bytes;
        }
        let Some(slot) = slots.get_mut(filled) else {
            return (filled, false, labelled);
        };
        let Some((e, rest)) = read_one(bytes) else {
            return (filled, false, labelled);
        };
        if matches!(e.info, Info::Label(_)) {
            labelled.push(filled as u32);
        }
        slot.write(e);
        filled += 1;
        bytes = rest;
    }
    (filled, filled == slots.len(), labelled)
}

impl Stored {
    /// Bytes of the file the stored session was read from.
    pub fn read_to(&self) -> u64 {
        self.read_to
    }

    /// Takes the entries [`read_entries`] read: `None` when they are not
    /// as many as were written.
    pub fn set_entries(&mut self, read: ReadEntries) -> Option<()> {
        (read.entries.len() as u64 == self.entry_count).then(|| {
            self.entries = read.entries;
            self.labelled = read.labelled;
        })
    }
}

/// Reads `count` entries from their parts (see [`StoredRef::entry_parts`]),
/// each on a thread of its own; `None` when a part is damaged or they are
/// not as many.
pub fn read_entries(parts: &[&[u8]], count: u64) -> Option<ReadEntries> {
    read_entries_from(parts, count, false)
}

/// [`read_entries`] from parts in a file mapping, whose pages leave the
/// resident memory as they are read: reading a 900 MB index never holds all
/// of it.
///
/// # Safety
/// The parts must lie in a read-only shared mapping of a file that does not
/// change while it is mapped (see [`crate::par::release_mapped`]).
pub unsafe fn read_mapped_entries(parts: &[&[u8]], count: u64) -> Option<ReadEntries> {
    read_entries_from(parts, count, true)
}

fn read_entries_from(parts: &[&[u8]], count: u64, release: bool) -> Option<ReadEntries> {
    let count = usize::try_from(count).ok()?;
    // Room for all of them, made before they are read: a count beyond
    // what the bytes could hold (see `MIN_ENTRY_BYTES`) is damage. The
    // parts split them as `entry_parts` did.
    let bytes: usize = parts.iter().map(|p| p.len()).sum();
    if parts.len() != ENTRY_PARTS || count.saturating_mul(MIN_ENTRY_BYTES) > bytes {
        return None;
    }
    let per = count.div_ceil(ENTRY_PARTS).max(1);
    let mut entries: Vec<Entry> = Vec::with_capacity(count);
    crate::par::huge_pages(&mut entries);
    let mut slots: Vec<&mut [MaybeUninit<Entry>]> = entries.spare_capacity_mut()[..count]
        .chunks_mut(per)
        .collect();
    slots.resize_with(ENTRY_PARTS, Default::default);
    let read: Vec<(usize, bool, Vec<u32>)> = std::thread::scope(|s| {
        let mut jobs = parts.iter().zip(slots.iter_mut());
        let first = jobs.next();
        let handles: Vec<_> = jobs
            .map(|(p, slots)| s.spawn(move || read_part(p, slots, release)))
            .collect();
        crate::par::let_them_start();
        let first = first.map(|(p, slots)| read_part(p, slots, release));
        first
            .into_iter()
            .chain(
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or((0, false, Vec::new()))),
            )
            .collect()
    });
    if read.iter().all(|&(_, whole, _)| whole) {
        // SAFETY: every part filled all of its slots, and the slots are
        // the first `count` of the room, in order.
        unsafe { entries.set_len(count) };
        let mut labelled = Vec::new();
        for (k, (_, _, part)) in read.into_iter().enumerate() {
            let start = (k * per) as u32;
            labelled.extend(part.into_iter().map(|i| start + i));
        }
        return Some(ReadEntries { entries, labelled });
    }
    // Damaged: the entries read are dropped, and none is kept.
    for (slots, &(filled, _, _)) in slots.iter_mut().zip(&read) {
        for slot in &mut slots[..filled] {
            // SAFETY: `read_part` wrote the first `filled` slots.
            unsafe { slot.assume_init_drop() };
        }
    }
    None
}

impl Session {
    /// The session at outline depth: messages keep only what the context
    /// needs (see [`Detail::Outline`]); other entries keep what they have.
    /// A legacy file, whose messages migrate, stays as it is.
    pub fn into_outline(mut self) -> Session {
        if self.detail == Detail::Outline || self.is_legacy() {
            return self;
        }
        let mut outline = Outline::default();
        for e in self.entries.as_mut_slice() {
            let brief = match std::mem::take(&mut e.info) {
                super::line::entry::Info::Message(m) => Some(super::line::entry::Brief::of(*m)),
                info => {
                    e.info = info;
                    None
                }
            };
            outline.add(brief);
        }
        outline.facts.shrink_to_fit();
        self.outline = outline;
        self.detail = Detail::Outline;
        self
    }

    /// What a stored index keeps of this session; `None` unless it is at
    /// outline depth (a legacy file never is).
    pub fn stored(&self) -> Option<StoredRef<'_>> {
        (self.detail == Detail::Outline).then(|| StoredRef {
            header: &self.header,
            entries: self.entries.as_slice(),
            entry_count: self.entries.len() as u64,
            line_problems: &self.line_problems,
            read_to: self.read_to,
            prefix: self.prefix,
            next_line: self.next_line,
            facts: &self.outline.facts,
            kinds: &self.outline.kinds,
            tree: self.tree.parts(),
            problems: &self.problems,
        })
    }

    /// The session `stored` keeps, of the file at `path`, its tree built
    /// again; `None` when its parts do not fit together.
    pub fn from_stored(path: PathBuf, stored: Stored) -> Option<Session> {
        let Stored {
            header,
            entries,
            entry_count: _,
            line_problems,
            read_to,
            prefix,
            next_line,
            facts,
            kinds,
            tree,
            problems,
            labelled,
        } = stored;
        let fits = header.version == CURRENT_VERSION
            && prefix.len == read_to
            && header.span.offset.saturating_add(header.span.len) <= read_to
            && facts.len() == entries.len()
            && entries.last().is_none_or(|e| e.line < next_line)
            // A last line still being written is a problem at `next_line`.
            && line_problems.iter().all(|p| p.line <= next_line)
            && problems.iter().all(|p| p.line <= next_line);
        if !fits {
            return None;
        }
        let entries = super::Entries::from(entries);
        // Each entry in order within the bytes read, each fact of a known
        // kind: checked on a thread of its own while the tree is read back
        // (two passes over ten million entries take a fifth of a second).
        let in_order = || {
            facts
                .iter()
                .all(|f| f.kind().is_none_or(|k| k < kinds.len()))
                && entries.as_slice().windows(2).all(|w| {
                    w[0].span.offset.saturating_add(w[0].span.len) <= w[1].span.offset
                        && w[0].line < w[1].line
                })
                && entries
                    .iter()
                    .all(|e| e.span.offset.saturating_add(e.span.len) <= read_to)
        };
        // The tree as it was built, unless it does not fit (then built again).
        let (in_order, tree) = crate::par::beside("piscope-check", in_order, || {
            Tree::from_parts(tree, &entries, Some(&labelled))
        });
        if in_order != Some(true) {
            return None;
        }
        let built = tree.map(|t| (t, problems));
        let kind_ids = kinds
            .iter()
            .enumerate()
            .map(|(i, k)| (k.clone(), i as u32))
            .collect();
        Some(Session::assemble(
            path,
            header,
            entries,
            Read {
                read_to,
                prefix,
                next_line,
                problems: line_problems,
            },
            Detail::Outline,
            Outline {
                facts,
                kinds,
                kind_ids,
            },
            built,
        ))
    }

    /// Entries `from..` as a whole read gives them (with their message
    /// infos), read again from the file: for a session at outline depth,
    /// what its newest entries' rows need. Fails when the file no longer
    /// holds those lines where they were.
    pub fn full_entries_from(&self, from: usize) -> Result<Vec<Entry>, super::SessionError> {
        let Some(first) = self.entries.get(from) else {
            return Ok(Vec::new());
        };
        if self.detail == Detail::Full {
            return Ok(self.entries.since(from).cloned().collect());
        }
        let want = &self.entries.as_slice()[from..];
        let io = |e| super::SessionError::io(&self.path, e);
        let file = self.open_file()?;
        let mut got: Vec<Entry> = Vec::with_capacity(want.len());
        let mut problems = Vec::new();
        Detail::Full
            .scan(file, first.span.offset, first.line, |meta, parsed| {
                let mut keep = |e: Entry, _| {
                    if want.get(got.len()).is_some_and(|w| w.span == e.span) {
                        got.push(e);
                    }
                };
                super::read::index_pass::ingest_line(&mut keep, &mut problems, meta, parsed);
                if meta.offset + meta.len >= self.read_to || got.len() == want.len() {
                    std::ops::ControlFlow::Break(())
                } else {
                    std::ops::ControlFlow::Continue(())
                }
            })
            .map_err(io)?;
        if got.len() != want.len() {
            return Err(super::SessionError::changed_while_read(&self.path));
        }
        Ok(got)
    }

    /// The role of message entry `i`, at any depth.
    pub fn role_of(&self, i: u32) -> Option<&Role> {
        self.entries.get(i as usize)?;
        self.message_view(i).map(|m| m.role)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `s` stored and read back, its entries in parts.
    fn round_trip(s: &Session) -> Stored {
        let stored = s.stored().unwrap();
        let mut back: Stored =
            postcard::from_bytes(&postcard::to_allocvec(&stored).unwrap()).unwrap();
        let parts: Vec<Vec<u8>> = stored
            .entry_parts()
            .map(|p| {
                let mut bytes = Vec::new();
                write_entries(p, &mut bytes).unwrap();
                bytes
            })
            .collect();
        assert_eq!(parts.len(), ENTRY_PARTS);
        let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        back.set_entries(read_entries(&parts, back.entry_count).unwrap())
            .unwrap();
        // A part cut short, or one too few entries, is refused.
        if let Some(cut) = parts.iter().position(|p| !p.is_empty()) {
            let mut short = parts.clone();
            short[cut] = &short[cut][..short[cut].len() - 1];
            let mut again: Stored =
                postcard::from_bytes(&postcard::to_allocvec(&stored).unwrap()).unwrap();
            assert!(read_entries(&short, again.entry_count).is_none());
            // An unknown mark before an entry, or unknown flags in its
            // fixed form.
            let mut marked = parts[cut].to_vec();
            marked[0] = 7;
            let mut odd = parts.clone();
            odd[cut] = &marked;
            assert!(read_entries(&odd, again.entry_count).is_none());
            if parts[cut][0] == FIXED {
                let mut flagged = parts[cut].to_vec();
                let at = 1 + postcard::to_allocvec(&Kind::Message).unwrap().len();
                flagged[at] |= 0x20;
                odd[cut] = &flagged;
                assert!(read_entries(&odd, again.entry_count).is_none());
            }
            assert!(read_entries(&parts, again.entry_count + 1).is_none());
            let entries = read_entries(&parts, again.entry_count).unwrap();
            again.entry_count += 1;
            assert!(again.set_entries(entries).is_none());
        }
        back
    }

    /// A session made outline from a whole read, stored and read back,
    /// is the session an outline read gives: entries (messages without
    /// their infos), facts, tree, problems and context at every entry.
    #[test]
    fn stored_outlines_read_back_as_outline_reads() {
        for path in crate::session::read::file::test_session_files() {
            let Ok(full) = Session::open(&path) else {
                continue;
            };
            if full.is_legacy() {
                assert!(full.clone().into_outline().stored().is_none());
                continue;
            }
            let outline = full.into_outline();
            let read = Session::open_with(&path, Detail::Outline).unwrap();
            let back = Session::from_stored(path.clone(), round_trip(&outline)).unwrap();
            for s in [&outline, &back] {
                assert_eq!(s.entries.len(), read.entries.len(), "{}", path.display());
                assert_eq!(s.problems, read.problems);
                assert_eq!(s.tree.preorder(), read.tree.preorder());
                assert_eq!(s.tree.labels(), read.tree.labels());
                assert_eq!(s.read_to, read.read_to);
                for i in 0..read.entries.len() as u32 {
                    assert_eq!(
                        s.outline_fact(i),
                        read.outline_fact(i),
                        "{}",
                        path.display()
                    );
                    assert_eq!(s.role_of(i), read.role_of(i));
                    let ctx = |x: &Session| format!("{:?}", x.context_for_path(x.tree.path_to(i)));
                    assert_eq!(ctx(s), ctx(&read), "{} entry {i}", path.display());
                }
            }
            for (a, b) in back.entries.iter().zip(&outline.entries) {
                assert_eq!(a, b);
            }
        }
    }

    /// Even an entry with nothing in it takes [`MIN_ENTRY_BYTES`].
    #[test]
    fn no_entry_is_written_in_fewer_bytes_than_the_least() {
        let mut bytes = Vec::new();
        let least = Entry {
            id: None,
            parent: Parent::Null,
            kind: Kind::Message,
            time: 0,
            line: 0,
            span: Span::default(),
            lossy: false,
            js_echo: false,
            info: Info::None,
        };
        write_entries(&[least], &mut bytes).unwrap();
        assert!(bytes.len() >= MIN_ENTRY_BYTES, "{}", bytes.len());
    }

    /// Parts that do not fit together are refused.
    #[test]
    fn stored_parts_that_do_not_fit_are_refused() {
        let path = crate::session::read::file::test_session_files()
            .into_iter()
            .find(|p| Session::open(p).is_ok_and(|s| !s.is_legacy() && s.entries.len() > 3))
            .unwrap();
        let s = Session::open(&path).unwrap().into_outline();
        let fresh = || round_trip(&s);
        assert!(Session::from_stored(path.clone(), fresh()).is_some());
        type Spoil = Box<dyn Fn(&mut Stored)>;
        let mut spoiled: Vec<Spoil> = vec![
            Box::new(|s| s.read_to -= 1),
            Box::new(|s| {
                s.facts.pop();
            }),
            Box::new(|s| s.entries.swap(1, 2)),
            Box::new(|s| s.header.version = 2),
            Box::new(|s| s.next_line = 1),
        ];
        if let Some(f) = fresh().facts.iter().position(|f| f.kind().is_some()) {
            spoiled.push(Box::new(move |s| s.facts[f] = Fact(9999)));
        }
        for spoil in spoiled {
            let mut st = fresh();
            spoil(&mut st);
            assert!(Session::from_stored(path.clone(), st).is_none());
        }
    }
}
