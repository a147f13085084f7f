//! A session kept at outline depth, as a stored index holds it and reads
//! it back: everything but the tree, which is built again from the
//! entries. Reading it back checks that the parts fit together, so a
//! stored index from a faulty writer is refused, never believed. The
//! entries themselves are written apart, in chunks, and read back only
//! when used (see [`super::entries`]).

use super::entries::{self, ChunkRef, Entries};
use super::entry_bytes::write_entries;
use super::line::entry::{Entry, ModelRef, Role};
use super::read::chunked::{Section, write_chunks};
use super::read::file::PrefixPrint;
use super::tree::parts::TreeParts;
use super::tree::{Lookups, Tree};
use super::{CURRENT_VERSION, Detail, Fact, Header, Outline, Problem, Read, Session};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What a session keeps, borrowed for writing (see [`Session::stored`]).
/// The entries are written apart, first ([`StoredRef::write_entries`]).
#[derive(Serialize)]
pub struct StoredRef<'a> {
    header: &'a Header,
    #[serde(skip)]
    entries: &'a Entries,
    /// Each entry's type and flags (see [`entries::type_byte`]).
    #[serde(with = "serde_bytes")]
    types: Vec<u8>,
    /// Where the entries' chunks lie, once written.
    chunks: Vec<ChunkRef>,
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
/// entries stay where they were written until used.
#[derive(Deserialize)]
pub struct Stored {
    header: Header,
    #[serde(deserialize_with = "crate::par::big_seq::bytes")]
    types: Vec<u8>,
    chunks: Vec<ChunkRef>,
    line_problems: Vec<Problem>,
    read_to: u64,
    prefix: PrefixPrint,
    next_line: u32,
    #[serde(deserialize_with = "crate::par::big_seq::deserialize")]
    facts: Vec<Fact>,
    kinds: Vec<(Role, ModelRef)>,
    tree: TreeParts,
    problems: Vec<Problem>,
}

impl StoredRef<'_> {
    /// The bytes [`StoredRef::write_entries`] wrote.
    pub fn entries_len(&self) -> u64 {
        self.chunks.last().map_or(0, |c| c.piece.end)
    }

    /// Writes the entries, [`CHUNK`] at a time (each with
    /// [`write_entries`]), and notes where each chunk lies: from where
    /// `w` is now, which a reader gives [`Session::from_stored`].
    pub fn write_entries(&mut self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut starts = Vec::new();
        let chunks = (0..self.entries.chunk_count()).filter_map(|k| {
            // A whole chunk still in an index is copied as it is.
            if let Some((bytes, start)) = self.entries.stored_chunk(k) {
                starts.push(start);
                return Some(Ok(bytes));
            }
            let chunk = self.entries.chunk(k);
            let first = chunk.first()?;
            starts.push((first.span().offset, first.line));
            let mut bytes = Vec::new();
            Some(write_entries(chunk.iter().copied(), &mut bytes).map(|()| bytes))
        });
        let pieces = write_chunks(chunks, w)?;
        self.chunks = pieces
            .into_iter()
            .zip(starts)
            .map(|(piece, (offset, line))| ChunkRef {
                piece,
                offset,
                line,
            })
            .collect();
        Ok(())
    }
}

impl Stored {
    /// Bytes of the file the stored session was read from.
    pub fn read_to(&self) -> u64 {
        self.read_to
    }
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
            outline.keep(e);
        }
        outline.facts.shrink_to_fit();
        self.outline = outline;
        self.detail = Detail::Outline;
        self
    }

    /// What a stored index keeps of this session; `None` unless it is at
    /// outline depth (a legacy file never is). Its entries are written
    /// with [`StoredRef::write_entries`] before it is.
    pub fn stored(&self) -> Option<StoredRef<'_>> {
        (self.detail == Detail::Outline).then(|| StoredRef {
            header: &self.header,
            entries: &self.entries,
            types: self.entries.type_bytes(),
            chunks: Vec::new(),
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

    /// The session `stored` keeps, of the file at `path`, its entries left
    /// in `section` (where [`StoredRef::write_entries`] wrote them) and its
    /// tree as it was built; `None` when its parts do not fit together.
    pub fn from_stored(path: PathBuf, stored: Stored, section: Section) -> Option<Session> {
        let Stored {
            header,
            types,
            chunks,
            line_problems,
            read_to,
            prefix,
            next_line,
            facts,
            kinds,
            tree,
            problems,
        } = stored;
        let fits = header.version == CURRENT_VERSION
            && prefix.len == read_to
            && header.span.offset.saturating_add(header.span.len) <= read_to
            && facts.len() == types.len()
            && facts
                .iter()
                .all(|f| f.kind().is_none_or(|k| k < kinds.len()))
            // A last line still being written is a problem at `next_line`.
            && line_problems.iter().all(|p| p.line <= next_line)
            && problems.iter().all(|p| p.line <= next_line);
        if !fits {
            return None;
        }
        let entries = Entries::stored(entries::Stored::new(
            section,
            chunks,
            types,
            path.clone(),
            read_to,
            next_line,
        )?);
        // Each label set by a label entry, as the types say.
        if !tree.labels_fit(&entries) {
            return None;
        }
        // The tree as it was built, unless it does not fit (then built again).
        let tree = Tree::from_parts(tree, &entries);
        let built = match tree {
            Some(t) => super::Built::Stored(Box::new(t), problems),
            None => super::Built::ToBuild(Lookups::Keep),
        };
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
        self.full_entries(from, self.entries.len().saturating_sub(from))
    }

    /// Entry `i` as a whole read gives it, read again from its line (see
    /// [`Session::full_entries_from`]).
    pub fn full_entry(&self, i: u32) -> Result<Entry, super::SessionError> {
        let mut one = self.full_entries(i as usize, 1)?;
        one.pop()
            .ok_or_else(|| super::SessionError::changed_while_read(&self.path))
    }

    /// The `want` entries from `from` on at full depth: as they are at
    /// full depth, else read again from their lines, each where it was.
    fn full_entries(&self, from: usize, want: usize) -> Result<Vec<Entry>, super::SessionError> {
        let Some(first) = self.entries.get(from) else {
            return Ok(Vec::new());
        };
        if self.detail == Detail::Full {
            return Ok(self.entries.since(from).take(want).cloned().collect());
        }
        let file = self.open_file()?;
        let mut got: Vec<Entry> = Vec::with_capacity(want);
        let (offset, line) = (first.span().offset, first.line);
        Detail::Full
            .entries_from(file, offset, line, self.read_to, |e| {
                let Some(wanted) = self.entries.get(from + got.len()) else {
                    return false;
                };
                if wanted.span() == e.span() {
                    got.push(e);
                } else if e.span().offset > wanted.span().offset {
                    // Lines only come later: the one wanted is gone.
                    return false;
                }
                got.len() < want
            })
            .map_err(|e| super::SessionError::io(&self.path, e))?;
        if got.len() != want {
            return Err(super::SessionError::changed_while_read(&self.path));
        }
        Ok(got)
    }

    /// The role of message entry `i`, at any depth.
    pub fn role_of(&self, i: u32) -> Option<&Role> {
        if i as usize >= self.entries.len() {
            return None;
        }
        self.message_view(i).map(|m| m.role)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::entries::CHUNK;
    use crate::session::line::entry::{Info, Kind};

    /// `s` stored: what says where its entries lie, and the entries.
    fn stored_bytes(s: &Session) -> (Vec<u8>, Vec<u8>) {
        let mut stored = s.stored().unwrap();
        let mut body = Vec::new();
        stored.write_entries(&mut body).unwrap();
        (postcard::to_allocvec(&stored).unwrap(), body)
    }

    /// `s` stored and read back.
    fn round_trip(s: &Session) -> Option<Session> {
        let (meta, body) = stored_bytes(s);
        Session::from_stored(
            s.path.clone(),
            postcard::from_bytes(&meta).unwrap(),
            Section::holding(&body),
        )
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
            let back = round_trip(&outline).unwrap();
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
                    assert_eq!(s.entries.kind(i as usize), read.entry(i).kind());
                    let ctx = |x: &Session| format!("{:?}", x.context_for_path(x.tree.path_to(i)));
                    assert_eq!(ctx(s), ctx(&read), "{} entry {i}", path.display());
                }
            }
            assert!(back.entries == outline.entries, "{}", path.display());
        }
    }

    /// A session file of `n` messages in one branch, a label on every
    /// seventh, written in `dir`.
    fn long_file(dir: &std::path::Path, n: usize) -> PathBuf {
        let path = dir.join("long.jsonl");
        let mut text = String::from(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s1\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n",
        );
        for i in 0..n {
            let parent = match i {
                0 => "null".to_string(),
                _ => format!("\"e{}\"", i - 1),
            };
            let line = if i % 7 == 6 {
                format!(
                    "{{\"type\":\"label\",\"id\":\"e{i}\",\"parentId\":{parent},\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"targetId\":\"e{}\",\"label\":\"l{i}\"}}\n",
                    i - 3
                )
            } else {
                format!(
                    "{{\"type\":\"message\",\"id\":\"e{i}\",\"parentId\":{parent},\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"m{i}\"}}}}\n"
                )
            };
            text.push_str(&line);
        }
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A stored session of several chunks reads each chunk back only when
    /// one of its entries is used, and gives the outline read's entries.
    /// A chunk whose bytes were damaged in the index is read from the
    /// session file instead; when the session file no longer holds it
    /// either, the chunk's entries keep their types and nothing else (no
    /// panic, no wrong entry of another type).
    #[test]
    fn stored_chunks_read_when_used_and_from_the_file_when_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let n = CHUNK * 2 + 500;
        let path = long_file(dir.path(), n);
        let read = Session::open_with(&path, Detail::Outline).unwrap();
        assert_eq!(read.entries.len(), n);
        let (meta, mut body) = stored_bytes(&read);
        let clean = body.clone();
        let stored: Stored = postcard::from_bytes(&meta).unwrap();
        assert_eq!(stored.chunks.len(), 3);
        // The middle chunk damaged in the index.
        let at = stored.chunks[0].piece.end as usize + 100;
        body[at] ^= 0x55;
        let back = Session::from_stored(path.clone(), stored, Section::holding(&body)).unwrap();
        let used = || back.entries.chunks_read();
        // Opening read no chunk; where pi resumes reads the last one.
        assert_eq!(used(), 0);
        assert_eq!(back.leaf(), read.leaf());
        assert_eq!(used(), 1);
        assert_eq!(back.tree.labels(), read.tree.labels());
        let label = (CHUNK..).find(|i| i % 7 == 6).unwrap();
        assert_eq!(back.entries.kind(label), Kind::Label);
        assert_eq!(used(), 1);
        // Stored again: the whole chunk still sound in the index is copied
        // without being read, the damaged one read from the session file;
        // the same bytes as first written.
        assert_eq!(stored_bytes(&back), (meta.clone(), clean));
        assert_eq!(used(), 2);
        for i in 0..n {
            assert_eq!(back.entries.get(i), read.entries.get(i), "entry {i}");
        }
        assert_eq!(used(), 3);
        assert_eq!(
            back.label_of(3).map(|l| l.label),
            read.label_of(3).map(|l| l.label)
        );

        // Damaged in the index, and the session file rewritten meanwhile.
        let (meta, mut body) = stored_bytes(&read);
        let stored: Stored = postcard::from_bytes(&meta).unwrap();
        body[stored.chunks[0].piece.end as usize + 100] ^= 0x55;
        let back = Session::from_stored(path.clone(), stored, Section::holding(&body)).unwrap();
        std::fs::write(&path, "{}\n").unwrap();
        for i in 0..n {
            let e = &back.entries[i];
            assert_eq!(e.kind(), read.entries[i].kind(), "entry {i}");
            if (CHUNK..2 * CHUNK).contains(&i) {
                assert_eq!((e.id.as_deref(), &e.info), (None, &Info::None));
            } else {
                assert_eq!(e, &read.entries[i]);
            }
        }
    }

    /// Which entries have a label, asked of a session left in a stored
    /// index, is what each entry's own check says, its chunks read for
    /// the pass only (none kept afterwards); a chunk damaged in the index
    /// is read from the session file for it. Asked of a session read from
    /// its file, the same.
    #[test]
    fn labelled_entries_come_from_one_pass_that_keeps_no_chunk() {
        let dir = tempfile::tempdir().unwrap();
        let n = CHUNK * 2 + 500;
        let path = long_file(dir.path(), n);
        let read = Session::open_with(&path, Detail::Outline).unwrap();
        let each: Vec<bool> = (0..n as u32).map(|i| read.has_label(i)).collect();
        assert!(
            each.iter().filter(|&&l| l).count() > 100,
            "the file labels entries"
        );
        assert_eq!(read.labelled(), each);
        let (meta, mut body) = stored_bytes(&read);
        let stored: Stored = postcard::from_bytes(&meta).unwrap();
        body[stored.chunks[0].piece.end as usize + 100] ^= 0x55;
        let back = Session::from_stored(path.clone(), stored, Section::holding(&body)).unwrap();
        assert_eq!(back.labelled(), each);
        assert_eq!(back.entries.chunks_read(), 0);
        // A chunk already read is used as it is.
        assert!(back.entries.get(CHUNK + 1).is_some());
        assert_eq!(back.labelled(), each);
        assert_eq!(back.entries.chunks_read(), 1);
    }

    /// A long session read back from its index has its labels' table made
    /// on a thread of its own: the labels found before that thread is done
    /// (a preview's window, the rows on screen), once it is, and every
    /// entry's, are the full read's, and so is the table.
    #[test]
    fn labels_of_a_long_stored_session_are_the_full_reads_with_or_without_their_table() {
        let dir = tempfile::tempdir().unwrap();
        // Past the size whose labels' table is made on a thread.
        let n = 30_000;
        let path = long_file(dir.path(), n);
        let read = Session::open_with(&path, Detail::Outline).unwrap();
        let (meta, body) = stored_bytes(&read);
        let back = || {
            let stored: Stored = postcard::from_bytes(&meta).unwrap();
            Session::from_stored(path.clone(), stored, Section::holding(&body)).unwrap()
        };
        let each = |s: &Session, nodes: &[u32]| -> Vec<_> {
            nodes.iter().map(|&i| s.label_of(i)).collect()
        };
        let window: Vec<u32> = (0..n as u32).step_by(97).chain([3, 9, 10, 3, 0]).collect();
        let all: Vec<u32> = (0..n as u32).collect();
        let truth = each(&read, &window);
        assert!(
            truth.iter().flatten().count() > 40,
            "the window holds labels"
        );
        for wait in [false, true] {
            let b = back();
            if wait {
                std::thread::sleep(std::time::Duration::from_millis(300));
            }
            assert_eq!(b.labels_of(&window), truth, "waited {wait}");
            assert_eq!(b.labels_of(&[]), Vec::new());
            assert_eq!(b.labels_of(&all), each(&read, &all), "waited {wait}");
            assert_eq!(b.tree.labels(), read.tree.labels());
            assert_eq!(b.labels_of(&window), truth);
            assert_eq!(b.labelled(), read.labelled());
        }
    }

    /// Parts that do not fit together are refused.
    #[test]
    fn stored_parts_that_do_not_fit_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = long_file(dir.path(), CHUNK + 10);
        let s = Session::open_with(&path, Detail::Outline).unwrap();
        let (meta, body) = stored_bytes(&s);
        let fresh = || postcard::from_bytes::<Stored>(&meta).unwrap();
        assert!(Session::from_stored(path.clone(), fresh(), Section::holding(&body)).is_some());
        type Spoil = Box<dyn Fn(&mut Stored)>;
        let mut spoiled: Vec<Spoil> = vec![
            Box::new(|s| s.read_to -= 1),
            Box::new(|s| {
                s.facts.pop();
            }),
            Box::new(|s| {
                s.types.pop();
            }),
            Box::new(|s| s.types[3] = 0x1f),
            Box::new(|s| s.types[3] |= 0x80),
            Box::new(|s| s.types[6] = Kind::Message.code()),
            Box::new(|s| s.chunks.swap(0, 1)),
            Box::new(|s| {
                s.chunks.pop();
            }),
            Box::new(|s| s.chunks[1].piece.end += 1),
            Box::new(|s| s.chunks[1].offset = s.read_to),
            Box::new(|s| s.chunks[1].line = s.chunks[0].line),
            Box::new(|s| s.header.version = 2),
            Box::new(|s| s.next_line = 1),
        ];
        if let Some(f) = fresh().facts.iter().position(|f| f.kind().is_some()) {
            spoiled.push(Box::new(move |s| s.facts[f] = Fact(9999)));
        }
        for (k, spoil) in spoiled.iter().enumerate() {
            let mut st = fresh();
            spoil(&mut st);
            let back = Session::from_stored(path.clone(), st, Section::holding(&body));
            assert!(back.is_none(), "spoil {k}");
        }
    }
}
