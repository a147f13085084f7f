//! A built tree as a stored index keeps it, so a session opened from its
//! index skips the build: parents, children and roots as little-endian
//! arrays, and the labels as the entry that set each (made into their
//! table on a thread of their own, see `label_table.rs`). The id
//! table is not kept: it is made at the first lookup.
//!
//! Reading the parts back checks that they fit the entries and that every
//! walk up the tree ends (each parent comes before its child in the file).
//! A tree that is not so (duplicated ids, loops cut open) is built again.

use super::{NO_PARENT, PARALLEL_MIN, Tree};
use crate::session::Entries;
use crate::session::line::entry::Kind;
use compact_str::CompactString;
use serde::{Deserialize, Serialize};

/// A [`Tree`]'s parts (see the module's notes).
#[derive(Serialize, Deserialize)]
pub struct TreeParts {
    #[serde(with = "le_words")]
    parent: Vec<u32>,
    #[serde(with = "le_words")]
    child_start: Vec<u32>,
    #[serde(with = "le_words")]
    child_list: Vec<u32>,
    roots: Vec<u32>,
    cut_roots: u32,
    last: Option<u32>,
    #[serde(
        serialize_with = "serde_bytes::serialize",
        deserialize_with = "crate::par::big_seq::bytes"
    )]
    walk_stops: Vec<u8>,
    walk_only: Vec<(u32, u32)>,
    /// Each labelled id and the label entry that set its label, in the
    /// order of those entries.
    #[serde(deserialize_with = "crate::par::big_seq::deserialize")]
    labels: Vec<(CompactString, u32)>,
}

impl TreeParts {
    /// Whether each label is said to be set by a label entry of `entries`.
    pub fn labels_fit(&self, entries: &Entries) -> bool {
        self.labels
            .iter()
            .all(|&(_, at)| entries.kind(at as usize) == Kind::Label)
    }
}

/// Words kept as little-endian bytes (one run of bytes, as `serde_bytes`
/// writes a byte vector), read straight from those bytes into words.
mod le_words {
    use serde::Serializer;
    use serde::de::{Deserializer, Error, Visitor};

    pub fn serialize<S: Serializer>(words: &[u32], s: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        s.serialize_bytes(&bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
        struct Words;
        impl Visitor<'_> for Words {
            type Value = Vec<u32>;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("whole little-endian u32s")
            }

            fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<u32>, E> {
                crate::session::read::chunked::words(bytes)
                    .ok_or_else(|| E::custom("bytes that are not whole u32s"))
            }
        }
        d.deserialize_bytes(Words)
    }
}

impl Tree {
    /// What a stored index keeps of this tree.
    pub fn parts(&self) -> TreeParts {
        let mut walk_only: Vec<(u32, u32)> = self.walk_only.iter().map(|(&a, &b)| (a, b)).collect();
        walk_only.sort_unstable();
        TreeParts {
            parent: self.parent.clone(),
            child_start: self.child_start.clone(),
            child_list: self.child_list.clone(),
            roots: self.roots.clone(),
            cut_roots: self.cut_roots as u32,
            last: self.last,
            walk_stops: self.walk_stops.iter().map(u8::from).collect(),
            walk_only,
            labels: {
                let mut labels: Vec<(CompactString, u32)> = self
                    .labels()
                    .iter()
                    .map(|(id, &at)| (CompactString::from(id.as_str()), at))
                    .collect();
                labels.sort_unstable_by_key(|l| l.1);
                labels
            },
        }
    }

    /// The tree `parts` keep, of `entries`; `None` when they do not fit
    /// them or a walk up the tree might not end (then it is built again).
    /// Its labels are as the parts say (see [`TreeParts::labels_fit`]).
    pub fn from_parts(mut parts: TreeParts, entries: &Entries) -> Option<Tree> {
        let stored = std::mem::take(&mut parts.labels);
        let labels = super::LabelTable::of_stored(stored, entries.len() >= PARALLEL_MIN);
        Some(Tree {
            labels,
            ..Tree::unlabelled_from_parts(parts, entries)?
        })
    }

    /// [`Tree::from_parts`] without its labels.
    fn unlabelled_from_parts(parts: TreeParts, entries: &Entries) -> Option<Tree> {
        let n = entries.len();
        let below = |v: u32| (v as usize) < n;
        // Every step up goes to an earlier entry: every walk ends.
        let fits = parts.parent.len() == n
            && parts
                .parent
                .iter()
                .enumerate()
                .all(|(i, &p)| p == NO_PARENT || (p as usize) < i)
            && parts.child_start.len() == n + 1
            && parts.child_start.first() == Some(&0)
            && parts.child_start.windows(2).all(|w| w[0] <= w[1])
            && parts
                .child_start
                .last()
                .is_some_and(|&l| l as usize == parts.child_list.len())
            && parts.child_list.iter().all(|&c| below(c))
            && parts.roots.iter().all(|&r| below(r))
            && parts.cut_roots as usize <= parts.roots.len()
            && parts.last.is_none_or(below)
            && parts.walk_stops.len() == n
            && parts.walk_stops.iter().all(|&s| s <= 1)
            && parts.walk_only.iter().all(|&(a, b)| below(a) && b < a);
        if !fits {
            return None;
        }
        Some(Tree {
            by_id: std::sync::OnceLock::new(),
            scans: Default::default(),
            parent: parts.parent,
            child_start: parts.child_start,
            child_list: parts.child_list,
            roots: parts.roots,
            cut_roots: parts.cut_roots as usize,
            labels: super::LabelTable::default(),
            last: parts.last,
            walk_stops: parts.walk_stops.iter().map(|&s| s == 1).collect(),
            walk_only: parts.walk_only.into_iter().collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;

    /// Every test session's tree, kept and read back, answers as the tree
    /// built from its entries: parents, children, roots, paths, order,
    /// labels and lookups; or it is refused, and then only where a walk
    /// up might go to a later entry.
    #[test]
    fn parts_read_back_as_the_built_tree() {
        let mut read_back = 0;
        for path in crate::session::read::file::test_session_files() {
            let Ok(s) = Session::open(&path) else {
                continue;
            };
            let built = &s.tree;
            let n = s.entries.len() as u32;
            let Some(back) = Tree::from_parts(built.parts(), &s.entries) else {
                assert!(
                    (0..n).any(|i| built.parent(i).is_some_and(|p| p > i)),
                    "{}",
                    path.display()
                );
                continue;
            };
            read_back += 1;
            assert_eq!(back.roots(), built.roots());
            assert_eq!(back.pi_roots(), built.pi_roots());
            assert_eq!(back.last(), built.last());
            assert_eq!(back.labels(), built.labels());
            assert_eq!(back.preorder(), built.preorder());
            for i in 0..n {
                assert_eq!(back.parent(i), built.parent(i));
                assert_eq!(back.children(i), built.children(i));
                assert_eq!(back.path_to(i), built.path_to(i), "{}", path.display());
                if let Some(id) = s.entries[i as usize].id_str() {
                    assert_eq!(back.find(&s.entries, id), built.find(&s.entries, id));
                }
            }
        }
        assert!(read_back > 20, "{read_back}");
    }

    /// Words kept as bytes are the bytes a byte vector of their
    /// little-endian bytes is kept as, and read back as the words; bytes
    /// that are not whole words are refused.
    #[test]
    fn words_read_back_from_their_bytes() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct W(#[serde(with = "le_words")] Vec<u32>);
        let w = W(vec![0, 1, u32::MAX, 70_000]);
        let bytes = postcard::to_allocvec(&w).unwrap();
        let le = [0, 0, 0, 0, 1, 0, 0, 0, 255, 255, 255, 255, 112, 17, 1, 0];
        assert_eq!(
            bytes,
            postcard::to_allocvec(serde_bytes::Bytes::new(&le)).unwrap()
        );
        assert_eq!(postcard::from_bytes::<W>(&bytes).unwrap(), w);
        let odd = postcard::to_allocvec(serde_bytes::Bytes::new(&[1, 2, 3, 4, 5])).unwrap();
        assert!(postcard::from_bytes::<W>(&odd).is_err());
    }

    /// Parts that do not fit the entries, or whose walks might not end,
    /// are refused.
    #[test]
    fn parts_that_do_not_fit_are_refused() {
        let path = crate::session::read::file::test_session_files()
            .into_iter()
            .find(|p| Session::open(p).is_ok_and(|s| s.entries.len() > 5))
            .unwrap();
        let s = Session::open(&path).unwrap();
        assert!(Tree::from_parts(s.tree.parts(), &s.entries).is_some());
        type Spoil = Box<dyn Fn(&mut TreeParts)>;
        let spoiled: Vec<Spoil> = vec![
            // A parent after its child: a walk might go round.
            Box::new(|p| p.parent[1] = 4),
            Box::new(|p| {
                p.parent.pop();
            }),
            Box::new(|p| {
                p.child_start.pop();
            }),
            Box::new(|p| p.child_list.push(9999)),
            Box::new(|p| p.roots.push(9999)),
            Box::new(|p| p.cut_roots = 9999),
            Box::new(|p| p.walk_stops[0] = 7),
            Box::new(|p| p.walk_only.push((2, 3))),
            Box::new(|p| p.last = Some(9999)),
        ];
        for spoil in spoiled {
            let mut parts = s.tree.parts();
            spoil(&mut parts);
            assert!(Tree::from_parts(parts, &s.entries).is_none());
        }
    }
}
