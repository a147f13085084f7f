//! A session's entries in file order, as [`super::Session`] holds them.
//! Entries read from the session file are kept as read. Entries a stored
//! index holds stay in the index file: their types are kept (a byte each),
//! and the entries themselves are read back a chunk of [`CHUNK`] at a
//! time, at the first use of one of them. Opening a session of ten million
//! entries then reads none of them until a row or a command asks.
//!
//! A chunk is checked when read: its bytes' hash, then each entry where
//! the index said the chunk starts, in file order, of the type kept for
//! it, all within the bytes the index was made from. A chunk that is not
//! so (its index file damaged since it was opened) is read again from the
//! session file itself, at outline depth, from the chunk's first line.

use super::line::entry::{Entry, Info, Kind, Parent, Span};
use super::read::chunked::{Chunked, Piece, Section};
use super::read::index_pass::Detail;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// How many entries a stored chunk holds (the last one fewer).
pub const CHUNK: usize = 4096;

/// [`type_byte`]'s flags, above the type's [`Kind::code`].
const LOSSY: u8 = 1 << 5;
const ECHO: u8 = 1 << 6;
const TYPE_BITS: u8 = 0x1f | LOSSY | ECHO;

/// An entry's type and flags in a byte: its [`Kind::code`] (under 32),
/// and whether it is [`Entry::lossy`] and [`Entry::js_echo`].
pub(crate) fn type_byte(e: &Entry) -> u8 {
    e.kind().code() | if e.lossy() { LOSSY } else { 0 } | if e.js_echo() { ECHO } else { 0 }
}

/// The type a [`type_byte`] gives.
fn kind_of(t: u8) -> Option<Kind> {
    Kind::from_code(t & 0x1f)
}

/// The entries of a session, by index (`u32` in the tree, `usize` here).
#[derive(Clone, Default)]
pub struct Entries {
    /// The first entries, left in a stored index.
    stored: Option<Arc<Stored>>,
    /// The entries after those read from the session file once, shared
    /// by every copy of the entries: reading on from a copy of a session
    /// of ten million entries copies none of them.
    frozen: Arc<Vec<Entry>>,
    /// The entries read since (all of them, for a session read from its
    /// file and not yet frozen).
    tail: Vec<Entry>,
}

/// The entries read on since a session was frozen are frozen with it
/// again from this many (and an eighth of the frozen ones) on.
pub(crate) const FREEZE_FROM: usize = 1 << 16;

/// Where a stored chunk lies in the index and where it starts in the
/// session file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkRef {
    /// Where its bytes end in the entries' section, and their hash.
    pub piece: Piece,
    /// Its first entry's offset in the session file, and line.
    pub offset: u64,
    pub line: u32,
}

/// Entries left in a stored index (see the module's notes).
#[derive(Debug)]
pub(crate) struct Stored {
    /// The chunks, each read at its first use.
    chunks: Chunked<Box<[Entry]>>,
    /// Where each chunk's first entry is in the session file, and its line.
    starts: Vec<(u64, u32)>,
    /// Each entry's type and flags (see [`type_byte`]).
    types: Vec<u8>,
    /// The session file, to read a damaged chunk's entries from; where
    /// the index stopped reading it, and the next line's number then.
    session: PathBuf,
    read_to: u64,
    next_line: u32,
}

impl Stored {
    /// Entries in `section`, in `chunks` (each written by
    /// [`super::entry_bytes::write_entries`]), of the `types` (each a
    /// [`type_byte`]), read from
    /// the session file `session` up to `read_to` (line `next_line`
    /// next); `None` when the chunks do not fit: not as many as the
    /// types ask, not filling the section, ends or starts not rising, a
    /// start beyond what was read.
    pub(crate) fn new(
        section: Section,
        chunks: Vec<ChunkRef>,
        types: Vec<u8>,
        session: PathBuf,
        read_to: u64,
        next_line: u32,
    ) -> Option<Stored> {
        let fits = chunks.len() == types.len().div_ceil(CHUNK)
            && types
                .iter()
                .all(|&t| kind_of(t).is_some() && t & !TYPE_BITS == 0)
            && chunks
                .windows(2)
                .all(|w| w[0].offset < w[1].offset && w[0].line < w[1].line)
            && chunks
                .last()
                .is_none_or(|c| c.offset < read_to && c.line < next_line);
        if !fits {
            return None;
        }
        Some(Stored {
            chunks: Chunked::new(section, chunks.iter().map(|c| c.piece).collect())?,
            starts: chunks.iter().map(|c| (c.offset, c.line)).collect(),
            types,
            session,
            read_to,
            next_line,
        })
    }

    /// Chunk `k`'s entries, read at the first call.
    fn chunk(&self, k: usize) -> &[Entry] {
        self.chunks
            .get(k, |bytes| self.decode(k, bytes).into_boxed_slice())
    }

    /// Chunk `k`'s entries from its `bytes` as read (`None`: they did not
    /// read back as written), checked; else from the session file.
    fn decode(&self, k: usize, bytes: Option<Vec<u8>>) -> Vec<Entry> {
        bytes
            .and_then(|b| super::entry_bytes::read_chunk(&b, self.range(k).len()))
            .filter(|entries| self.fits(k, entries))
            .or_else(|| self.reread_chunk(k))
            .unwrap_or_else(|| self.unreadable(k))
    }

    /// `f` of chunk `k`'s entries: those read already, or else read for
    /// this call only (a pass over every entry then holds one chunk at a
    /// time, not all of them).
    fn with_chunk<R>(&self, k: usize, f: impl FnOnce(&[Entry]) -> R) -> R {
        match self.chunks.made_chunk(k) {
            Some(made) => f(made),
            None => f(&self.decode(k, self.chunks.bytes(k))),
        }
    }

    /// The entries chunk `k` should hold: its range of indices.
    fn range(&self, k: usize) -> std::ops::Range<usize> {
        k * CHUNK..((k + 1) * CHUNK).min(self.types.len())
    }

    /// Where the entries after chunk `k` start in the session file, and
    /// their first line.
    fn after(&self, k: usize) -> (u64, u32) {
        self.starts
            .get(k + 1)
            .copied()
            .unwrap_or((self.read_to, self.next_line))
    }

    /// Whether `entries` are what chunk `k` holds: as many, the first
    /// where the chunk starts, in file order up to where the next chunk
    /// starts, each of its kept type.
    fn fits(&self, k: usize, entries: &[Entry]) -> bool {
        let (offset, line) = self.starts[k];
        let (end, next_line) = self.after(k);
        let types = &self.types[self.range(k)];
        entries.len() == types.len()
            && entries
                .first()
                .is_some_and(|e| (e.span().offset, e.line) == (offset, line))
            && entries.windows(2).all(|w| {
                w[0].span().offset.saturating_add(w[0].span().len) <= w[1].span().offset
                    && w[0].line < w[1].line
            })
            && entries.last().is_some_and(|e| {
                e.span().offset.saturating_add(e.span().len) <= end && e.line < next_line
            })
            && entries.iter().zip(types).all(|(e, &t)| type_byte(e) == t)
    }

    /// Chunk `k` read again from the session file, at outline depth.
    fn reread_chunk(&self, k: usize) -> Option<Vec<Entry>> {
        let (offset, line) = self.starts[k];
        let want = self.range(k).len();
        let file = super::read::index_pass::open_file(&self.session).ok()?;
        let (end, _) = self.after(k);
        let mut entries = Vec::with_capacity(want);
        Detail::Outline
            .entries_from(file, offset, line, end, |e| {
                entries.push(e);
                entries.len() < want
            })
            .ok()?;
        self.fits(k, &entries).then_some(entries)
    }

    /// What stands for chunk `k` when neither the index nor the session
    /// file gives its entries (both changed since the session was
    /// opened): entries of the kept types and nothing else, at the
    /// chunk's first line.
    fn unreadable(&self, k: usize) -> Vec<Entry> {
        let (offset, line) = self.starts[k];
        self.types[self.range(k)]
            .iter()
            .map(|&t| {
                let kind = kind_of(t).unwrap_or(Kind::Missing);
                let span = Span { offset, len: 0 };
                let mut e = Entry::new(kind, None, Parent::Invalid, Info::None, line, span);
                e.set_lossy(t & LOSSY != 0);
                e.set_js_echo(t & ECHO != 0);
                e
            })
            .collect()
    }
}

impl Entries {
    /// Entries left in `stored`, then `tail`.
    pub(crate) fn stored(stored: Stored) -> Entries {
        Entries {
            stored: Some(Arc::new(stored)),
            ..Entries::default()
        }
    }

    /// How many are left in a stored index.
    fn stored_len(&self) -> usize {
        self.stored.as_ref().map_or(0, |s| s.types.len())
    }

    pub fn len(&self) -> usize {
        self.stored_len() + self.frozen.len() + self.tail.len()
    }

    /// Entry `j` of those read from the session file: frozen, then since.
    fn read(&self, j: usize) -> Option<&Entry> {
        match j.checked_sub(self.frozen.len()) {
            None => self.frozen.get(j),
            Some(k) => self.tail.get(k),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> Option<&Entry> {
        match &self.stored {
            Some(s) if i < s.types.len() => s.chunk(i / CHUNK).get(i % CHUNK),
            _ => self.read(i - self.stored_len()),
        }
    }

    pub fn last(&self) -> Option<&Entry> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// Entry `i`'s type, without reading a stored entry (`Kind::Header`
    /// past the end: nothing there is part of the tree).
    pub fn kind(&self, i: usize) -> Kind {
        self.type_byte(i).and_then(kind_of).unwrap_or(Kind::Header)
    }

    /// Whether entry `i`'s line held bytes that are not UTF-8 or a number
    /// beyond f64 (see [`Entry::lossy`], [`Entry::js_echo`]): what is
    /// echoed from it is not its text as written. Read without reading a
    /// stored entry.
    pub fn echoes_changed(&self, i: usize) -> bool {
        self.type_byte(i).is_some_and(|t| t & (LOSSY | ECHO) != 0)
    }

    /// Entry `i`'s [`type_byte`].
    fn type_byte(&self, i: usize) -> Option<u8> {
        match &self.stored {
            Some(s) if i < s.types.len() => Some(s.types[i]),
            _ => self.read(i - self.stored_len()).map(type_byte),
        }
    }

    /// Each entry's [`type_byte`], as a stored index keeps them.
    pub(crate) fn type_bytes(&self) -> Vec<u8> {
        (0..self.len()).filter_map(|i| self.type_byte(i)).collect()
    }

    /// Every entry, first to last.
    pub fn iter(&self) -> Iter<'_> {
        self.since(0)
    }

    /// The entries from `from` on (none past the end).
    pub fn since(&self, from: usize) -> Iter<'_> {
        Iter {
            entries: self,
            front: from.min(self.len()),
            back: self.len(),
        }
    }

    /// `f(first, entries)` for every run of entries in file order, `first`
    /// the index of the run's first entry, runs taken on every core; the
    /// answers in file order. Entries left in a stored index and not read
    /// yet are read for the pass only: ten million of them are never all
    /// held at once.
    pub(crate) fn map_runs<R: Send>(&self, f: impl Fn(usize, &[Entry]) -> R + Sync) -> Vec<R> {
        let stored_runs = self.stored.as_ref().map_or(0, |s| s.chunks.len());
        let frozen_runs = self.frozen.len().div_ceil(CHUNK);
        let tail_runs = self.tail.len().div_ceil(CHUNK);
        let run_of = |part: &[Entry], k: usize, first: usize| {
            let from = k * CHUNK;
            f(first + from, &part[from..(from + CHUNK).min(part.len())])
        };
        crate::par::map(stored_runs + frozen_runs + tail_runs, 1, |k| {
            let base = self.stored_len();
            match &self.stored {
                Some(s) if k < stored_runs => s.with_chunk(k, |run| f(s.range(k).start, run)),
                _ if k < stored_runs + frozen_runs => run_of(&self.frozen, k - stored_runs, base),
                _ => run_of(
                    &self.tail,
                    k - stored_runs - frozen_runs,
                    base + self.frozen.len(),
                ),
            }
        })
    }

    /// How many chunks of [`CHUNK`] the entries make (a stored index
    /// keeps them so).
    pub(crate) fn chunk_count(&self) -> usize {
        self.len().div_ceil(CHUNK)
    }

    /// Chunk `k`'s entries.
    pub(crate) fn chunk(&self, k: usize) -> Vec<&Entry> {
        let end = ((k + 1) * CHUNK).min(self.len());
        (k * CHUNK..end).filter_map(|i| self.get(i)).collect()
    }

    /// Chunk `k` as a stored index keeps it, when it is a whole chunk left
    /// in one and reads back as written: its bytes and where its first
    /// entry is in the session file (so a stored session is written again
    /// without reading its entries).
    pub(crate) fn stored_chunk(&self, k: usize) -> Option<(Vec<u8>, (u64, u32))> {
        let s = self.stored.as_ref()?;
        if s.range(k).len() != CHUNK {
            return None;
        }
        Some((s.chunks.bytes(k)?, *s.starts.get(k)?))
    }

    /// How many stored chunks have been read so far.
    #[cfg(test)]
    pub(crate) fn chunks_read(&self) -> usize {
        self.stored.as_ref().map_or(0, |s| s.chunks.made())
    }

    /// Whether the entries read from the session file that `self` has
    /// frozen are the very ones `other` has (not a copy).
    #[cfg(test)]
    pub(crate) fn shares_frozen(&self, other: &Entries) -> bool {
        !self.frozen.is_empty() && Arc::ptr_eq(&self.frozen, &other.frozen)
    }

    pub(crate) fn push(&mut self, e: Entry) {
        self.tail.push(e);
    }

    /// The entries to change in place (migration, the outline's infos):
    /// any left in a stored index are read first.
    pub(crate) fn as_mut_slice(&mut self) -> &mut [Entry] {
        let frozen = std::mem::take(&mut self.frozen);
        let frozen = Arc::try_unwrap(frozen).unwrap_or_else(|shared| shared.to_vec());
        let mut all: Vec<Entry> = match self.stored.take() {
            Some(s) => (0..s.chunks.len())
                .flat_map(|k| s.chunk(k).iter().cloned())
                .chain(frozen)
                .collect(),
            None => frozen,
        };
        if !all.is_empty() {
            all.append(&mut self.tail);
            self.tail = all;
        }
        &mut self.tail
    }

    /// Shares the entries read so far with every copy made from now on
    /// (see [`Entries::frozen`]): all of them the first time, then those
    /// read on once they are many.
    pub(crate) fn freeze(&mut self) {
        let enough = FREEZE_FROM.max(self.frozen.len() / 8);
        if self.tail.is_empty() || (!self.frozen.is_empty() && self.tail.len() < enough) {
            return;
        }
        let mut tail = std::mem::take(&mut self.tail);
        let mut frozen = match Arc::try_unwrap(std::mem::take(&mut self.frozen)) {
            Ok(mine) if mine.is_empty() => tail,
            Ok(mut mine) => {
                mine.append(&mut tail);
                mine
            }
            Err(shared) => shared.iter().cloned().chain(tail).collect(),
        };
        frozen.shrink_to_fit();
        self.frozen = Arc::new(frozen);
    }
}

/// The entries in order, however they are held.
impl std::fmt::Debug for Entries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Entries {
    fn eq(&self, other: &Entries) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl From<Vec<Entry>> for Entries {
    fn from(tail: Vec<Entry>) -> Entries {
        Entries {
            tail,
            ..Entries::default()
        }
    }
}

impl std::ops::Index<usize> for Entries {
    type Output = Entry;

    fn index(&self, i: usize) -> &Entry {
        match self.get(i) {
            Some(e) => e,
            None => panic!("entry {i} of {}", self.len()),
        }
    }
}

/// The entries in order (see [`Entries::iter`]).
#[derive(Clone)]
pub struct Iter<'a> {
    entries: &'a Entries,
    front: usize,
    back: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Entry;

    fn next(&mut self) -> Option<&'a Entry> {
        if self.front >= self.back {
            return None;
        }
        self.front += 1;
        self.entries.get(self.front - 1)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.entries.get(self.back)
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Entries {
    type Item = &'a Entry;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
