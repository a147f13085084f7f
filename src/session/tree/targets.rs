//! The entries label entries name, found without a table of every id: a
//! command that rewrites a session (prune, fork) looks up each label's
//! target, and a table of ten million ids is 84 MB where one of the
//! labels' targets is a fifth of that on a million labels.

use super::{hash_id, key_of};
use crate::session::Entries;
use crate::session::line::entry::{Entry, Info, Kind};

/// For each target a label entry names (by its text), the latest label
/// entry naming it and the entry it names, as [`super::Tree::find`] finds
/// it (the last with that id), or [`LabelTargets::NOWHERE`]. Eight bytes a
/// target; the texts are left in the label entries.
pub struct LabelTargets(hashbrown::HashTable<(u32, u32)>);

/// The target a label entry names, as written (`None` when it names none
/// or is no label).
pub fn target_of(e: &Entry) -> Option<&str> {
    match &e.info {
        Info::Label(l) => l.target.as_deref(),
        _ => None,
    }
}

impl LabelTargets {
    /// A target no entry has.
    pub const NOWHERE: u32 = u32::MAX;

    /// The targets of every label entry of `entries`: the labels in one
    /// pass from the end (the first met of each target is its latest),
    /// then the targets in another, also from the end, which stops when
    /// every one is found.
    pub fn of(entries: &Entries) -> LabelTargets {
        let live = || {
            entries
                .iter()
                .enumerate()
                .rev()
                .filter(|(_, e)| e.kind() != Kind::Header)
        };
        let text = |label: u32| target_of(&entries[label as usize]).unwrap_or_default();
        let count = live().filter(|(_, e)| target_of(e).is_some()).count();
        let mut table = hashbrown::HashTable::with_capacity(count);
        for (i, e) in live() {
            let Some(t) = target_of(e) else { continue };
            let same = |&(label, _): &(u32, u32)| text(label) == t;
            let rehash = |&(label, _): &(u32, u32)| hash_id(text(label));
            if let hashbrown::hash_table::Entry::Vacant(v) = table.entry(hash_id(t), same, rehash) {
                v.insert((i as u32, Self::NOWHERE));
            }
        }
        let mut left = table.len();
        for (i, e) in live() {
            if left == 0 {
                break;
            }
            let id = key_of(e);
            let found = table.find_mut(hash_id(id), |&(label, _)| text(label) == id);
            if let Some(slot) = found.filter(|slot| slot.1 == Self::NOWHERE) {
                slot.1 = i as u32;
                left -= 1;
            }
        }
        LabelTargets(table)
    }

    /// The entry `target` names (`None` when no entry has that id or no
    /// label names it).
    pub fn get(&self, target: &str, entries: &Entries) -> Option<u32> {
        self.0
            .find(hash_id(target), |&(label, _)| {
                entries
                    .get(label as usize)
                    .and_then(target_of)
                    .is_some_and(|t| t == target)
            })
            .map(|&(_, entry)| entry)
            .filter(|&entry| entry != Self::NOWHERE)
    }

    /// Each target's latest label entry and the entry it names, those
    /// found, in no particular order.
    pub fn latest(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.0
            .iter()
            .copied()
            .filter(|&(_, entry)| entry != Self::NOWHERE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;

    /// Every label's target is the entry a lookup of its id gives, and
    /// each target keeps its latest label: on a session with labels set,
    /// set again, cleared, naming no entry, naming an id two entries share,
    /// and naming none.
    #[test]
    fn finds_what_a_lookup_finds() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("s.jsonl");
        let lines = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#,
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":"hi","timestamp":2}}"#,
            r#"{"type":"label","id":"l1","parentId":"b","timestamp":"2025-01-01T00:00:03.000Z","targetId":"a","label":"one"}"#,
            r#"{"type":"label","id":"l2","parentId":"l1","timestamp":"2025-01-01T00:00:04.000Z","targetId":"gone","label":"two"}"#,
            r#"{"type":"message","id":"b","parentId":"l2","timestamp":"2025-01-01T00:00:05.000Z","message":{"role":"user","content":"again","timestamp":5}}"#,
            r#"{"type":"label","id":"l3","parentId":"b","timestamp":"2025-01-01T00:00:06.000Z","targetId":"b","label":"three"}"#,
            r#"{"type":"label","id":"l4","parentId":"l3","timestamp":"2025-01-01T00:00:07.000Z","targetId":"a"}"#,
            r#"{"type":"label","id":"l5","parentId":"l4","timestamp":"2025-01-01T00:00:08.000Z","label":"none"}"#,
        ];
        std::fs::write(&path, lines.join("\n") + "\n").expect("write");
        let session = Session::open(&path).expect("open");
        let targets = LabelTargets::of(&session.entries);
        for t in ["a", "b"] {
            assert_eq!(targets.get(t, &session.entries), session.find(t), "{t}");
        }
        assert_eq!(targets.get("gone", &session.entries), None);
        assert_eq!(
            targets.get("l1", &session.entries),
            None,
            "no label names it"
        );
        let mut latest: Vec<(u32, u32)> = targets.latest().collect();
        latest.sort_unstable();
        // (The header is no entry.) l3, entry 5, names the second b (4);
        // l4 (6) is a's latest (0).
        assert_eq!(latest, vec![(5, 4), (6, 0)]);
    }
}
