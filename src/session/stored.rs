//! A session kept at outline depth, as a stored index holds it and reads
//! it back: everything but the tree, which is built again from the
//! entries. Reading it back checks that the parts fit together, so a
//! stored index from a faulty writer is refused, never believed.

use super::line::entry::{Entry, ModelRef, Role};
use super::read::file::PrefixPrint;
use super::{CURRENT_VERSION, Detail, Fact, Header, Outline, Problem, Read, Session};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What a session keeps, borrowed for writing (see [`Session::stored`]).
#[derive(Serialize)]
pub struct StoredRef<'a> {
    header: &'a Header,
    entries: &'a [Entry],
    line_problems: &'a [Problem],
    read_to: u64,
    prefix: PrefixPrint,
    next_line: u32,
    facts: &'a [Fact],
    kinds: &'a [(Role, ModelRef)],
}

/// What a session keeps, read back (field for field [`StoredRef`]).
#[derive(Deserialize)]
pub struct Stored {
    header: Header,
    entries: Vec<Entry>,
    line_problems: Vec<Problem>,
    read_to: u64,
    prefix: PrefixPrint,
    next_line: u32,
    facts: Vec<Fact>,
    kinds: Vec<(Role, ModelRef)>,
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
        for e in &mut self.entries {
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
            entries: &self.entries,
            line_problems: &self.line_problems,
            read_to: self.read_to,
            prefix: self.prefix,
            next_line: self.next_line,
            facts: &self.outline.facts,
            kinds: &self.outline.kinds,
        })
    }

    /// The session `stored` keeps, of the file at `path`, its tree built
    /// again; `None` when its parts do not fit together.
    pub fn from_stored(path: PathBuf, stored: Stored) -> Option<Session> {
        let Stored {
            header,
            entries,
            line_problems,
            read_to,
            prefix,
            next_line,
            facts,
            kinds,
        } = stored;
        let fits = header.version == CURRENT_VERSION
            && prefix.len == read_to
            && header.span.offset.saturating_add(header.span.len) <= read_to
            && facts.len() == entries.len()
            && facts.iter().all(|f| f.kind().is_none_or(|k| k < kinds.len()))
            && entries.windows(2).all(|w| {
                w[0].span.offset.saturating_add(w[0].span.len) <= w[1].span.offset
                    && w[0].line < w[1].line
            })
            && entries
                .iter()
                .all(|e| e.span.offset.saturating_add(e.span.len) <= read_to)
            && entries.last().is_none_or(|e| e.line < next_line)
            // A last line still being written is a problem at `next_line`.
            && line_problems.iter().all(|p| p.line <= next_line);
        if !fits {
            return None;
        }
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
            return Ok(self.entries[from..].to_vec());
        }
        let want = &self.entries[from..];
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
            let bytes = postcard::to_allocvec(&outline.stored().unwrap()).unwrap();
            let back: Stored = postcard::from_bytes(&bytes).unwrap();
            let back = Session::from_stored(path.clone(), back).unwrap();
            for s in [&outline, &back] {
                assert_eq!(s.entries.len(), read.entries.len(), "{}", path.display());
                assert_eq!(s.problems, read.problems);
                assert_eq!(s.tree.preorder(), read.tree.preorder());
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

    /// Parts that do not fit together are refused.
    #[test]
    fn stored_parts_that_do_not_fit_are_refused() {
        let path = crate::session::read::file::test_session_files()
            .into_iter()
            .find(|p| Session::open(p).is_ok_and(|s| !s.is_legacy() && s.entries.len() > 3))
            .unwrap();
        let s = Session::open(&path).unwrap().into_outline();
        let bytes = postcard::to_allocvec(&s.stored().unwrap()).unwrap();
        let fresh = || postcard::from_bytes::<Stored>(&bytes).unwrap();
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
