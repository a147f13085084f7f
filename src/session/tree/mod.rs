//! The entry tree as pi's `getTree()` builds it: roots, children sorted by
//! timestamp, labels in file order; plus what pi lacks, loops broken. What
//! is read along the tree lives beside it:
//!
//! ```text
//! view.rs         pi's /tree view: order, filters, nesting, connectors
//! entry_line.rs   one line per entry in the words of pi's /tree
//! context.rs      what the model sees at a leaf (compactions, edits)
//! tokens.rs       how big that context is, in tokens, as pi's footer says
//! parts.rs        a built tree as a stored index keeps it
//! bits.rs         a row of flags, one bit each
//! ```

mod bits;
pub mod context;
pub mod entry_line;
mod label_table;
pub mod parts;
mod targets;
pub mod tokens;
pub mod view;
pub use targets::{LabelTargets, target_of};

use crate::session::Entries;
use crate::session::line::entry::{Entry, Info, Kind, Parent};
use crate::session::line::jskey;
use crate::session::{Problem, ProblemKind};
pub(crate) use bits::Bits;
use compact_str::CompactString;
use label_table::LabelTable;
pub use label_table::Labels;
use rustc_hash::FxHashMap as HashMap;

/// Below this many entries the tree is built (or read back) on one thread.
const PARALLEL_MIN: usize = 20_000;

/// A resolved label on an entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelInfo {
    /// The label as a person reads it (a short one kept in place, without
    /// an allocation: a session can hold a million labels).
    pub label: CompactString,
    /// The label's value as pi keeps it (any truthy JSON value), as a
    /// [`jskey`] key: `--json` output echoes it.
    pub value: CompactString,
    /// The label entry's timestamp string.
    pub timestamp: Option<CompactString>,
}

/// Index over a session's entries. Entry indices (`u32`) point into the
/// session's entry list. Like pi, an id that occurs twice names its last
/// occurrence (the "node"), and each occurrence hangs that node under its own
/// parent.
#[derive(Debug, Default, Clone)]
pub struct Tree {
    /// Made when the tree is built; a tree read back from a stored index
    /// makes it at the first lookup (ten million entries take a second).
    by_id: std::sync::OnceLock<IdMap>,
    /// Lookups left to answer by a scan of the entries while there is no
    /// table of ids (see [`Lookups::Drop`]).
    scans: Scans,
    /// For each entry (occurrence): its parent node, [`NO_PARENT`] for a
    /// root.
    parent: Vec<u32>,
    /// For each node: its children, sorted like pi's tree, at
    /// `child_list[child_start[node]..child_start[node + 1]]`.
    child_start: Vec<u32>,
    child_list: Vec<u32>,
    roots: Vec<u32>,
    /// How many of `roots`, at the end, are loops cut open: pi's tree has
    /// no root there, so it never shows them (piscope's views do).
    cut_roots: usize,
    labels: LabelTable,
    /// The last entry in file order (what pi resumes at).
    last: Option<u32>,
    /// Entries whose `parentId` is falsy or absent: pi's walk up to the
    /// root stops there, even where its tree hangs them under a parent.
    walk_stops: Bits,
    /// Edges cut to break a loop of the tree that pi's walk up to the root
    /// still takes: the loop ran through an edge the walk does not follow
    /// (a falsy or absent `parentId`), so the walk ends. Entry to parent.
    walk_only: HashMap<u32, u32>,
}

/// Whether a tree keeps its table of ids once built. A caller that looks
/// up an id or two at most (a command that reads a session once) lets it
/// go before the parents are laid out when few of them need it, and
/// before the child lists otherwise: ten million ids' 84 MB less at the
/// build's peak. Its first [`SCANS`] lookups are then answered by a scan
/// of the entries (no table made), and the table is made again at the
/// next, so that many lookups stay linear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookups {
    Keep,
    Drop,
}

/// How many lookups a tree built without its table of ids answers by a
/// scan of the entries before it makes the table.
const SCANS: u32 = 4;

/// The lookups a tree has left to answer by a scan (none unless built
/// with [`Lookups::Drop`]).
#[derive(Debug, Default)]
struct Scans(std::sync::atomic::AtomicU32);

impl Scans {
    fn new(n: u32) -> Scans {
        Scans(std::sync::atomic::AtomicU32::new(n))
    }

    /// Takes one, if one is left.
    fn take(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        self.0
            .fetch_update(Relaxed, Relaxed, |n| n.checked_sub(1))
            .is_ok()
    }
}

impl Clone for Scans {
    fn clone(&self) -> Scans {
        Scans::new(self.0.load(std::sync::atomic::Ordering::Relaxed))
    }
}

/// The node of `id` as the table of ids gives it (the last live entry
/// filed under it), found by a scan of the entries from the end.
fn scan_for(entries: &Entries, id: &str) -> Option<u32> {
    entries
        .iter()
        .enumerate()
        .rev()
        .find(|(_, e)| e.kind() != Kind::Header && key_of(e) == id)
        .map(|(i, _)| i as u32)
}

/// [`Tree::parent`]'s mark of a root.
const NO_PARENT: u32 = u32::MAX;

/// From how many nodes on a tree is large (see [`Tree::path_to`]).
const BIG_TREE: usize = 1 << 20;

/// How many nodes of a path [`Tree::path_in_stretches`] hands on at a
/// time.
const PATH_STRETCH: usize = 1 << 14;

/// Entry ids to entries: a table of entry indices hashed by id, the ids
/// themselves left in the entries (four bytes a slot, where a map of keys
/// to indices took sixteen).
#[derive(Debug, Default, Clone)]
struct IdMap(hashbrown::HashTable<u32>);

/// The key an entry is filed under: its id, or pi's `undefined`.
fn key_of(e: &Entry) -> &str {
    e.id.as_deref().unwrap_or(jskey::UNDEFINED)
}

fn hash_id(id: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(id.as_bytes());
    h.finish()
}

impl IdMap {
    fn with_capacity(n: usize) -> IdMap {
        IdMap(hashbrown::HashTable::with_capacity(n))
    }

    /// Maps `id` (the key of entry `i`) to `i`; returns what it mapped to
    /// before.
    fn insert(&mut self, entries: &Entries, id: &str, i: u32) -> Option<u32> {
        let key = |&j: &u32| hash_id(key_of(&entries[j as usize]));
        match self
            .0
            .entry(hash_id(id), |&j| key_of(&entries[j as usize]) == id, key)
        {
            hashbrown::hash_table::Entry::Occupied(mut o) => {
                Some(std::mem::replace(o.get_mut(), i))
            }
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert(i);
                None
            }
        }
    }

    /// The table of the first `upto` entries' ids (each naming its last
    /// occurrence, as [`id_map`] makes it), their keys hashed in one pass
    /// that holds none of them (entries left in a stored index are read
    /// a chunk at a time, and not kept); two entries' keys are compared
    /// only when their hashes are equal. Room is left for a quarter more.
    fn hashed(entries: &Entries, upto: usize) -> IdMap {
        use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
        // Written in place by each run on every core: no run's own list,
        // nor their joining, doubles the memory for a moment.
        let upto = upto.min(entries.len());
        let mut hashes: Vec<AtomicU64> = crate::par::big_vec(upto);
        hashes.resize_with(upto, AtomicU64::default);
        entries.map_runs(|first, run| {
            for (k, e) in run.iter().enumerate() {
                if let Some(slot) = hashes.get(first + k).filter(|_| e.kind() != Kind::Header) {
                    slot.store(hash_id(key_of(e)), Relaxed);
                }
            }
        });
        let hash = |j: u32| hashes[j as usize].load(Relaxed);
        let mut map = IdMap::with_capacity(upto + upto / 4);
        for i in (0..upto).filter(|&i| entries.kind(i) != Kind::Header) {
            let h = hash(i as u32);
            let same =
                |&j: &u32| hash(j) == h && key_of(&entries[j as usize]) == key_of(&entries[i]);
            let rehash = |&j: &u32| hash(j);
            match map.0.entry(h, same, rehash) {
                hashbrown::hash_table::Entry::Occupied(mut o) => *o.get_mut() = i as u32,
                hashbrown::hash_table::Entry::Vacant(v) => {
                    v.insert(i as u32);
                }
            }
        }
        map
    }

    fn get(&self, entries: &Entries, id: &str) -> Option<u32> {
        self.0
            .find(hash_id(id), |&j| {
                entries.get(j as usize).is_some_and(|e| key_of(e) == id)
            })
            .copied()
    }
}

/// Lists grouped by owner in one flat vector: `groups(owners)` puts each
/// `(owner, item)` pair, in the order given, into its owner's group.
fn groups(n: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n + 1];
    for (owner, _) in pairs.clone() {
        start[owner as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut list = vec![0u32; start[n] as usize];
    // Each group's start serves as its cursor (no copy: ten million
    // entries' worth), ending as the next group's start; then moved back.
    for (owner, item) in pairs {
        let at = &mut start[owner as usize];
        list[*at as usize] = item;
        *at += 1;
    }
    for i in (1..=n).rev() {
        start[i] = start[i - 1];
    }
    start[0] = 0;
    (start, list)
}

/// The ids of live entries: each id names its last occurrence.
struct Ids {
    map: IdMap,
    /// Occurrences whose id a later entry took over.
    superseded: Vec<bool>,
    duplicates: Vec<Problem>,
}

fn index_ids(entries: &Entries) -> Ids {
    let mut superseded = vec![false; entries.len()];
    let mut first_line: HashMap<&str, u32> = HashMap::default();
    let mut duplicates = Vec::new();
    let map = id_map(entries, |i, prev| {
        superseded[prev as usize] = true;
        // Entries without an id share pi's `undefined` key: the last one
        // is the node every one of them stands for, and no duplicate.
        if let Some(id) = &entries[i as usize].id {
            let first = *first_line
                .entry(id.as_str())
                .or_insert(entries[prev as usize].line);
            duplicates.push(Problem {
                line: entries[i as usize].line,
                kind: ProblemKind::DuplicateId {
                    id: id.to_string(),
                    first_line: first,
                },
            });
        }
    });
    Ids {
        map,
        superseded,
        duplicates,
    }
}

/// The id table of live entries; `taken(i, prev)` for each entry `i` that
/// takes over the key of an earlier entry `prev`.
fn id_map(entries: &Entries, mut taken: impl FnMut(u32, u32)) -> IdMap {
    let mut map = IdMap::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        if e.kind() == Kind::Header {
            continue;
        }
        if let Some(prev) = map.insert(entries, key_of(e), i as u32) {
            taken(i as u32, prev);
        }
    }
    map
}

/// How a live entry names its parent.
#[derive(Clone, Copy, PartialEq)]
enum Link {
    /// No parent: none named, not a string, its own id, or a header.
    Root,
    /// The id of the entry just before it (most entries).
    Previous,
    /// Any other id, looked up.
    Other,
    /// No `parentId` at all: pi's tree looks up `undefined`, the key of the
    /// last entry without an id.
    Undefined,
}

/// What the tree needs besides ids, in one pass in file order.
struct Shape {
    links: Vec<Link>,
    labels: Labels,
    last: Option<u32>,
    walk_stops: Bits,
    /// Entries whose truthy `parentId` is their own id: roots in pi's tree,
    /// but pi's walk to the root goes on to the id's node (a later entry
    /// with the same id), if it is another entry.
    self_named: Vec<u32>,
}

fn shape(entries: &Entries) -> Shape {
    let n = entries.len();
    let mut links = vec![Link::Root; n];
    let mut labels = HashMap::default();
    let mut last = None;
    let mut walk_stops = Bits::new(n);
    let mut self_named = Vec::new();
    let mut before: Option<&Entry> = None;
    for (i, e) in entries.iter().enumerate() {
        // The entry before, when it is live.
        let previous = before.take();
        if e.kind() == Kind::Header {
            continue;
        }
        before = Some(e);
        last = Some(i as u32);
        let stops = match &e.parent {
            Parent::Id(p) => !jskey::is_truthy(p),
            _ => true,
        };
        if stops {
            walk_stops.set(i as u32);
        }
        if e.parent == Parent::Missing && e.id.is_some() {
            links[i] = Link::Undefined;
        }
        if let Parent::Id(p) = &e.parent {
            if Some(p) != e.id.as_ref() {
                links[i] = match previous {
                    Some(b) if b.id.as_ref() == Some(p) => Link::Previous,
                    _ => Link::Other,
                };
            } else if !stops {
                self_named.push(i as u32);
            }
        }
        apply_label(&mut labels, e, i as u32);
    }
    Shape {
        links,
        labels,
        last,
        walk_stops,
        self_named,
    }
}

/// Applies `e`, entry `at`, if it is a label entry, to the labels so far.
fn apply_label(labels: &mut Labels, e: &Entry, at: u32) {
    let Info::Label(change) = &e.info else {
        return;
    };
    let Some(t) = &change.target else {
        return;
    };
    if change.label.is_some() {
        labels.insert(t.clone(), at);
    } else {
        labels.remove(t.as_str());
    }
}

impl LabelInfo {
    /// What the label entry `e` sets, when it sets a label.
    pub fn of(e: &Entry) -> Option<LabelInfo> {
        let Info::Label(change) = &e.info else {
            return None;
        };
        let l = change.label.as_deref()?;
        Some(LabelInfo {
            label: CompactString::from(jskey::display(l)),
            value: CompactString::from(l),
            timestamp: change.timestamp(e.time_ms()),
        })
    }
}

impl Tree {
    /// Builds the index; loops found are added to `problems`.
    pub fn build(entries: &Entries, problems: &mut Vec<Problem>) -> Tree {
        Tree::build_with(entries, problems, Lookups::Keep)
    }

    /// [`Tree::build`], keeping its table of ids or not (see [`Lookups`]).
    pub fn build_with(entries: &Entries, problems: &mut Vec<Problem>, lookups: Lookups) -> Tree {
        let parallel = entries.len() >= PARALLEL_MIN
            && std::thread::available_parallelism().is_ok_and(|t| t.get() > 1);
        Tree::build_on(entries, problems, parallel, lookups)
    }

    fn build_on(
        entries: &Entries,
        problems: &mut Vec<Problem>,
        parallel: bool,
        lookups: Lookups,
    ) -> Tree {
        // Entries are large: two passes over them (at once on two cores for
        // a big session), the rest mostly on small arrays.
        let n = entries.len();
        let (ids, shape) = if parallel {
            std::thread::scope(|s| {
                let ids = s.spawn(|| index_ids(entries));
                crate::par::let_them_start();
                let shape = shape(entries);
                let ids = ids.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                (ids, shape)
            })
        } else {
            (index_ids(entries), shape(entries))
        };
        let Ids {
            map: by_id,
            superseded,
            duplicates,
        } = ids;
        let Shape {
            links,
            labels,
            last,
            walk_stops,
            self_named,
        } = shape;
        problems.extend(duplicates);
        // Each occurrence's node: itself, unless a later entry took its id
        // over (none did, in most files: then no table at all).
        let node_of: Option<Vec<u32>> = superseded.contains(&true).then(|| {
            (0..n)
                .map(|i| {
                    let taken =
                        superseded[i].then(|| entries[i].id.as_deref().unwrap_or(jskey::UNDEFINED));
                    taken
                        .and_then(|id| by_id.get(entries, id))
                        .unwrap_or(i as u32)
                })
                .collect()
        });
        let node = |i: u32| node_of.as_ref().map_or(i, |v| v[i as usize]);
        // A parent found without the table: none, or the entry before,
        // which is that id's node unless a later entry took the id over.
        let direct = |i: usize, link: Link| match link {
            Link::Root => Some(NO_PARENT),
            Link::Previous if !superseded[i - 1] => Some(i as u32 - 1),
            _ => None,
        };
        let look_up = |by_id: &IdMap, i: usize, link: Link| {
            let p = match link {
                Link::Undefined => by_id.get(entries, jskey::UNDEFINED),
                _ => entries[i].parent_id().and_then(|p| by_id.get(entries, p)),
            };
            p.unwrap_or(NO_PARENT)
        };
        // When the table goes early and few parents need it (most entries
        // name the one before), those few are looked up first and the
        // table let go before the parents' array is made: ten million
        // entries' 84 MB and 40 MB never held at once.
        let needing = || {
            links
                .iter()
                .enumerate()
                .filter(|&(i, &link)| direct(i, link).is_none())
        };
        let early = lookups == Lookups::Drop && needing().count() <= n / 16;
        let looked_up: Vec<u32> = if early {
            needing()
                .map(|(i, &link)| look_up(&by_id, i, link))
                .collect()
        } else {
            Vec::new()
        };
        let by_id = (!early).then_some(by_id);
        let mut looked_up = looked_up.into_iter();
        // Four bytes an entry, [`NO_PARENT`] for none (ten million
        // entries: 40 MB less than options).
        let mut parent: Vec<u32> = links
            .iter()
            .enumerate()
            .map(|(i, &link)| match (direct(i, link), &by_id) {
                (Some(p), _) => p,
                (None, Some(by_id)) => look_up(by_id, i, link),
                (None, None) => looked_up.next().unwrap_or(NO_PARENT),
            })
            .collect();
        drop(looked_up);
        drop(superseded);
        drop(links);
        // A parent node before its child's node everywhere means no loop.
        let ordered = parent
            .iter()
            .enumerate()
            .all(|(i, &p)| p == NO_PARENT || p < node(i as u32));
        let mut walk_only = HashMap::default();
        let mut cut = Vec::new();
        if !ordered {
            // Loops (hostile files only) are broken on options.
            let mut links: Vec<Option<u32>> = parent
                .iter()
                .map(|&p| (p != NO_PARENT).then_some(p))
                .collect();
            let original = links.clone();
            let nodes: Vec<u32> = (0..n as u32).map(node).collect();
            cut = break_loops(entries, &nodes, &mut links, problems);
            walk_only = walks_that_end(&original, &links, &walk_stops);
            parent = links.iter().map(|p| p.unwrap_or(NO_PARENT)).collect();
        }
        // Only the first step of a walk can start at an entry that is not
        // its id's node, so these edges add no loop.
        for &i in &self_named {
            if node(i) != i {
                walk_only.insert(i, node(i));
            }
        }

        let mut roots = Vec::new();
        cut.sort_unstable();
        for (i, &p) in parent.iter().enumerate() {
            // (A header is no node: only live entries are roots.)
            if p == NO_PARENT
                && entries[i].kind() != Kind::Header
                && cut.binary_search(&(i as u32)).is_err()
            {
                roots.push(node(i as u32));
            }
        }
        let cut_roots = cut.len();
        roots.extend(cut.iter().map(|&i| node(i)));
        // Not needed from here on: let go before the child lists are made
        // when the caller looks up no id (see [`Lookups`]).
        let by_id = by_id.filter(|_| lookups == Lookups::Keep);
        // Only live entries have parents.
        let (child_start, mut child_list) = groups(
            n,
            parent
                .iter()
                .enumerate()
                .filter(|&(_, &p)| p != NO_PARENT)
                .map(|(i, &p)| (p, i as u32)),
        );
        let key = |occ: u32| entries[node(occ) as usize].time_ms();
        for w in child_start.windows(2) {
            let list = &mut child_list[w[0] as usize..w[1] as usize];
            if list.len() > 1 {
                sort_like_v8(list, key);
            }
        }
        // Children are sorted as occurrences; the tree shows nodes.
        if node_of.is_some() {
            for c in &mut child_list {
                *c = node(*c);
            }
        }
        drop(node_of);
        Tree {
            by_id: by_id.map_or_else(std::sync::OnceLock::new, std::sync::OnceLock::from),
            scans: Scans::new(if lookups == Lookups::Drop { SCANS } else { 0 }),
            parent,
            child_start,
            child_list,
            roots,
            cut_roots,
            labels: LabelTable::new(labels),
            last,
            walk_stops,
            walk_only,
        }
    }

    /// Makes the table of ids now, if it is not made yet (a tree read
    /// back from a stored index makes it at the first lookup, which the
    /// first growth asks for): called ahead, off the thread that reads
    /// the growth.
    pub fn ready_lookups(&self, entries: &Entries) {
        self.by_id
            .get_or_init(|| IdMap::hashed(entries, entries.len()));
    }

    /// Whether the table of ids is made.
    pub fn lookups_ready(&self) -> bool {
        self.by_id.get().is_some()
    }

    /// The entry an id names (its last occurrence), among the `entries`
    /// the tree was built from.
    pub fn find(&self, entries: &Entries, id: &str) -> Option<u32> {
        if self.by_id.get().is_none() && self.scans.take() {
            return scan_for(entries, id);
        }
        self.by_id
            .get_or_init(|| IdMap::hashed(entries, entries.len()))
            .get(entries, id)
    }

    /// This tree (of the entries before `from`) grown by the entries from
    /// `from` on, when that gives what [`Tree::build`] of them all gives
    /// and the growth is what pi writes: every new entry has an id no
    /// entry had, names a parent by a truthy id that is not its own, is
    /// no header, and is the newest (by time) of its parent's children.
    /// Then `true`, and nothing else is read of the entries before
    /// `from` than a few; `false` leaves the tree as it was, to be built
    /// again.
    pub fn extend(&mut self, entries: &Entries, from: usize) -> bool {
        let n = entries.len();
        // (A tree whose children were let go has no lists to grow.)
        if self.parent.len() != from || from > n || self.child_start.len() != from + 1 {
            return false;
        }
        if from == n {
            return true;
        }
        let by_id = self.by_id.get_or_init(|| IdMap::hashed(entries, from));
        // Every new id: new, and no header among them (pi's `undefined`
        // key, that of entries without one, is not taken either).
        let mut new_ids: HashMap<&str, u32> = HashMap::default();
        for i in from..n {
            let e = &entries[i];
            let Some(id) = e.id.as_deref() else {
                return false;
            };
            let taken = id == jskey::UNDEFINED || by_id.get(entries, id).is_some();
            if e.kind() == Kind::Header || taken || new_ids.insert(id, i as u32).is_some() {
                return false;
            }
        }
        // No earlier entry named one of them as its parent (it hung at the
        // root for want of it): the entries without a parent are few.
        let mut roots = (0..from).filter(|&i| self.parent[i] == NO_PARENT);
        let named_new = roots.by_ref().take(4096).any(|i| match &entries[i].parent {
            Parent::Id(p) => new_ids.contains_key(p.as_str()),
            _ => false,
        });
        if named_new || roots.next().is_some() {
            return false;
        }
        // Each new entry's parent node (`None`: a root), checked before
        // anything changes.
        let mut parents: Vec<Option<u32>> = Vec::with_capacity(n - from);
        // The newest time among each parent's children so far.
        let mut newest: HashMap<u32, i64> = HashMap::default();
        for i in from..n {
            let e = &entries[i];
            let parent = match &e.parent {
                Parent::Id(p) if e.id.as_ref() == Some(p) || !jskey::is_truthy(p) => return false,
                Parent::Id(p) => match new_ids.get(p.as_str()) {
                    // A later entry: pi's tree may loop there.
                    Some(&j) if j as usize >= i => return false,
                    Some(&j) => Some(j),
                    None => by_id.get(entries, p),
                },
                Parent::Null | Parent::Invalid => None,
                Parent::Missing => return false,
            };
            if let Some(p) = parent {
                let Some(time) = e.time_ms() else {
                    return false;
                };
                let latest = match newest.get(&p) {
                    Some(&t) => Some(t),
                    None => match self.newest_child(entries, p) {
                        Some(t) => t,
                        None => return false,
                    },
                };
                if latest.is_some_and(|t| t > time) {
                    return false;
                }
                newest.insert(p, time);
            }
            parents.push(parent);
        }
        drop(newest);
        if let Some(map) = self.by_id.get_mut() {
            for (id, i) in new_ids {
                map.insert(entries, id, i);
            }
        }
        let cut_from = self.roots.len() - self.cut_roots;
        let mut new_roots = Vec::new();
        let mut children: Vec<(u32, u32)> = Vec::new();
        for (k, parent) in parents.iter().enumerate() {
            let i = (from + k) as u32;
            let e = &entries[i as usize];
            self.parent.push(parent.unwrap_or(NO_PARENT));
            // (Every parent named here is a truthy id.)
            self.walk_stops.push(!matches!(e.parent, Parent::Id(_)));
            match parent {
                Some(p) => children.push((*p, i)),
                None => new_roots.push(i),
            }
            apply_label(self.labels.get_mut(), e, i);
        }
        self.roots.splice(cut_from..cut_from, new_roots);
        self.last = n.checked_sub(1).map(|l| l as u32);
        self.add_children(n, children);
        true
    }

    /// The newest time among `node`'s children: `Some(None)` for none,
    /// `None` when one has no time or there are too many to look at.
    fn newest_child(&self, entries: &Entries, node: u32) -> Option<Option<i64>> {
        let kids = self.children(node);
        if kids.len() > 64 {
            return None;
        }
        kids.iter().try_fold(None, |most: Option<i64>, &c| {
            let t = entries.get(c as usize).and_then(Entry::time_ms)?;
            Some(Some(most.map_or(t, |m| m.max(t))))
        })
    }

    /// Grows the children's lists to `n` nodes, each `(parent, child)` of
    /// `added` put last among its parent's children, in the order given;
    /// only the lists from the first parent named on are moved.
    fn add_children(&mut self, n: usize, mut added: Vec<(u32, u32)>) {
        added.sort_by_key(|&(p, _)| p);
        let old = self.child_start.len() - 1;
        let first = added.first().map_or(old, |&(p, _)| (p as usize).min(old));
        let split = self.child_start[first] as usize;
        let moved = self.child_list.split_off(split);
        let starts: Vec<u32> = self.child_start[first..].to_vec();
        self.child_start.truncate(first + 1);
        let mut adds = added.into_iter().peekable();
        for node in first..n {
            if node < old {
                let (a, b) = (
                    starts[node - first] as usize,
                    starts[node - first + 1] as usize,
                );
                self.child_list
                    .extend_from_slice(&moved[a - split..b - split]);
            }
            while let Some((_, c)) = adds.next_if(|&(p, _)| p as usize == node) {
                self.child_list.push(c);
            }
            self.child_start.push(self.child_list.len() as u32);
        }
    }

    /// Root nodes in file order (a node can appear twice when its id
    /// does), then the loops cut open, which pi's tree cannot show.
    pub fn roots(&self) -> &[u32] {
        &self.roots
    }

    /// The roots pi's tree has: without the loops cut open.
    pub fn pi_roots(&self) -> &[u32] {
        &self.roots[..self.roots.len() - self.cut_roots]
    }

    /// Children of a node, oldest first.
    pub fn children(&self, node: u32) -> &[u32] {
        let at = |i: usize| self.child_start.get(i).map(|&s| s as usize);
        match (at(node as usize), at(node as usize + 1)) {
            (Some(from), Some(to)) => self.child_list.get(from..to).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The parent node of an entry, after loops are broken.
    pub fn parent(&self, node: u32) -> Option<u32> {
        self.parent
            .get(node as usize)
            .copied()
            .filter(|&p| p != NO_PARENT)
    }

    /// The last entry in file order.
    pub fn last(&self) -> Option<u32> {
        self.last
    }

    /// The label entry that labels the entry with id `id` (see [`Labels`]).
    pub fn label_entry(&self, id: &str) -> Option<u32> {
        self.labels.get().get(id).copied()
    }

    /// The label entry of each of `ids` (see [`Labels`]), without making
    /// the labels' table where it is not made yet (see
    /// [`label_table::LabelTable::find`]).
    pub fn label_entries(&self, ids: &[&str]) -> Vec<Option<u32>> {
        self.labels.find(ids)
    }

    pub fn labels(&self) -> &Labels {
        self.labels.get()
    }

    /// Frees the links, keeping the labels and the last entry: for a
    /// one-shot listing that has laid out its view (see
    /// [`crate::session::tree::view::TreeView`]) and asks nothing else of the tree.
    /// Lookups, children and paths answer nothing afterwards.
    pub fn keep_labels_only(&mut self) {
        *self = Tree {
            labels: std::mem::take(&mut self.labels),
            last: self.last,
            by_id: std::sync::OnceLock::from(IdMap::default()),
            ..Tree::default()
        };
    }

    /// Frees the child lists, keeping the parents, the walks and the
    /// labels: for a one-shot command that walks branches up and lists no
    /// children (ten million entries: 80 MB). Children, and the orders
    /// made of them, answer nothing afterwards, and the tree no longer
    /// grows: [`Tree::extend`] asks for it to be built again.
    pub fn forget_children(&mut self) {
        self.child_start = Vec::new();
        self.child_list = Vec::new();
    }

    /// Frees the labels' table: for a one-shot command that finds the
    /// labels' targets its own way (see [`LabelTargets`]). No entry has a
    /// label afterwards.
    pub fn forget_labels(&mut self) {
        self.labels = LabelTable::default();
    }

    /// The path from the root down to `node`, inclusive, as pi walks it:
    /// up through truthy `parentId`s only.
    pub fn path_to(&self, node: u32) -> Vec<u32> {
        // In a large tree a path may be millions of nodes long: room for
        // every node is reserved (its pages touched only as the path
        // fills them, in huge pages), not grown by doubling.
        let mut path = if self.parent.len() >= BIG_TREE {
            crate::par::big_vec(self.parent.len())
        } else {
            Vec::new()
        };
        path.push(node);
        let mut cur = node;
        while let Some(p) = self.step_up(cur) {
            path.push(p);
            cur = p;
        }
        path.reverse();
        path
    }

    /// The next node up from `node` on a path (see [`Tree::path_to`]).
    fn step_up(&self, node: u32) -> Option<u32> {
        self.parent(node)
            .or_else(|| self.walk_only.get(&node).copied())
            .filter(|_| !self.walk_stops.get(node))
    }

    /// [`Tree::path_to`] handed to `each` a stretch at a time, root first,
    /// never held whole (ten million entries would be 40 MB): the walk up
    /// keeps every [`PATH_STRETCH`]-th node, and each stretch is walked
    /// again from its own.
    pub fn path_in_stretches<E>(
        &self,
        node: u32,
        each: impl FnMut(&[u32]) -> Result<(), E>,
    ) -> Result<(), E> {
        self.path_in_stretches_of(node, PATH_STRETCH, each)
    }

    fn path_in_stretches_of<E>(
        &self,
        node: u32,
        stretch: usize,
        mut each: impl FnMut(&[u32]) -> Result<(), E>,
    ) -> Result<(), E> {
        let stretch = stretch.max(1);
        // The nodes `stretch`, 2 `stretch`, … steps up from `node`.
        let mut starts = vec![node];
        let mut len = 1usize;
        let mut cur = node;
        while let Some(p) = self.step_up(cur) {
            if len.is_multiple_of(stretch) {
                starts.push(p);
            }
            len += 1;
            cur = p;
        }
        let mut buf = Vec::with_capacity(stretch.min(len));
        for (k, &start) in starts.iter().enumerate().rev() {
            let take = (len - k * stretch).min(stretch);
            buf.clear();
            buf.push(start);
            let mut cur = start;
            while buf.len() < take {
                let Some(p) = self.step_up(cur) else { break };
                buf.push(p);
                cur = p;
            }
            buf.reverse();
            each(&buf)?;
        }
        Ok(())
    }

    /// Nodes in depth-first pre-order, as pi's tree lists them (entries on
    /// a loop, and below one, are in no tree of pi's). A node that hangs
    /// under several parents (a duplicated id) is listed under each, as pi
    /// does, within a budget that keeps hostile files linear.
    pub fn preorder(&self) -> Vec<u32> {
        let budget = self.parent.len().saturating_mul(4) + 1024;
        let mut expanded = vec![false; self.parent.len()];
        let mut out = Vec::with_capacity(self.parent.len());
        let mut stack: Vec<u32> = self.pi_roots().iter().rev().copied().collect();
        while let Some(node) = stack.pop() {
            out.push(node);
            let seen = std::mem::replace(&mut expanded[node as usize], true);
            if seen && out.len() > budget {
                continue;
            }
            stack.extend(self.children(node).iter().rev());
        }
        out
    }
}

/// Makes the parent graph acyclic: each loop is cut at the occurrence, latest
/// in the file, that closed it; that occurrence becomes a root. Returns the
/// occurrences cut.
fn break_loops(
    entries: &Entries,
    node_of: &[u32],
    parent: &mut [Option<u32>],
    problems: &mut Vec<Problem>,
) -> Vec<u32> {
    let mut cut = Vec::new();
    const WHITE: u8 = 0;
    const GRAY: u8 = 1;
    const BLACK: u8 = 2;
    let n = parent.len();
    let mut kids: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (occ, p) in parent.iter().enumerate() {
        if let Some(p) = p {
            kids[*p as usize].push(occ as u32);
        }
    }
    let mut color = vec![WHITE; n];
    // Stack frames: (node, next child position, occurrence edge that led here).
    let mut stack: Vec<(u32, usize, Option<u32>)> = Vec::new();
    let mut start = 0;
    while start < n {
        if color[start] != WHITE || node_of[start] != start as u32 {
            start += 1;
            continue;
        }
        stack.clear();
        stack.push((start as u32, 0, None));
        color[start] = GRAY;
        let mut restart = false;
        while let Some(&mut (node, ref mut pos, _)) = stack.last_mut() {
            let Some(&occ) = kids[node as usize].get(*pos) else {
                color[node as usize] = BLACK;
                stack.pop();
                continue;
            };
            *pos += 1;
            if parent[occ as usize].is_none() {
                continue;
            }
            let child = node_of[occ as usize];
            match color[child as usize] {
                WHITE => {
                    color[child as usize] = GRAY;
                    stack.push((child, 0, Some(occ)));
                }
                GRAY => {
                    let from = stack.iter().position(|f| f.0 == child).unwrap_or(0);
                    let closer = stack[from + 1..]
                        .iter()
                        .filter_map(|f| f.2)
                        .chain(std::iter::once(occ))
                        .max()
                        .unwrap_or(occ);
                    parent[closer as usize] = None;
                    cut.push(closer);
                    let e = &entries[closer as usize];
                    problems.push(Problem {
                        line: e.line,
                        kind: ProblemKind::ParentLoop {
                            id: e.id.as_deref().unwrap_or("").to_string(),
                        },
                    });
                    if closer != occ {
                        restart = true;
                        break;
                    }
                }
                _ => {}
            }
        }
        if restart {
            for f in &stack {
                color[f.0 as usize] = WHITE;
            }
        }
    }
    cut
}

/// The edges `break_loops` cut (in `original`, not in `cut`) that pi's walk
/// to the root takes and that lead to an end: the loop they closed ran
/// through a `parentId` the walk does not follow. An edge on a loop the walk
/// goes round forever (where pi hangs) stays cut. Linear: each entry's walk
/// is settled once.
fn walks_that_end(
    original: &[Option<u32>],
    cut: &[Option<u32>],
    walk_stops: &Bits,
) -> HashMap<u32, u32> {
    const UNKNOWN: u8 = 0;
    const ENDS: u8 = 1;
    const LOOPS: u8 = 2;
    const ON_TRAIL: u8 = 3;
    let n = original.len();
    let next = |i: usize| {
        if walk_stops.get(i as u32) {
            None
        } else {
            original[i].map(|p| p as usize)
        }
    };
    let mut state = vec![UNKNOWN; n];
    let mut trail = Vec::new();
    for start in 0..n {
        if state[start] != UNKNOWN {
            continue;
        }
        trail.clear();
        let mut cur = Some(start);
        let outcome = loop {
            let Some(c) = cur.filter(|&c| c < n) else {
                break ENDS;
            };
            match state[c] {
                UNKNOWN => {
                    state[c] = ON_TRAIL;
                    trail.push(c);
                    cur = next(c);
                }
                ON_TRAIL => break LOOPS,
                settled => break settled,
            }
        };
        for &t in &trail {
            state[t] = outcome;
        }
    }
    (0..n)
        .filter(|&i| cut[i].is_none() && !walk_stops.get(i as u32) && state[i] == ENDS)
        .filter_map(|i| original[i].map(|p| (i as u32, p)))
        .collect()
}

/// Sorts child occurrences oldest first, exactly as V8's `Array.prototype.sort`
/// orders them with pi's comparator (`a - b` on times; NaN compares equal).
pub(crate) fn sort_like_v8(list: &mut [u32], key: impl Fn(u32) -> Option<i64>) {
    if list.iter().all(|&o| key(o).is_some()) {
        // A consistent comparator: any stable sort gives V8's order.
        list.sort_by_key(|&o| key(o));
        return;
    }
    crate::jstext::sort::sort_like_v8(list, |a, b| match (key(a), key(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => std::cmp::Ordering::Equal,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::line::entry::{Id, Span};

    fn entry(line: u32, id: Option<&str>, parent: Parent, header: bool) -> Entry {
        let kind = if header { Kind::Header } else { Kind::Message };
        let mut e = Entry::new(
            kind,
            id.map(Id::from),
            parent,
            Info::None,
            line,
            Span::default(),
        );
        e.set_time_ms(Some(i64::from(line % 7)));
        e
    }

    /// Numbers below `m` for each `next(m)`, the same from the same `seed`.
    pub(super) fn numbers(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut x = seed;
        move |m| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        }
    }

    /// Random graphs with repeated ids, forward and self references, and
    /// headers: each live entry hangs under the node its parentId names
    /// unless that edge was cut (and reported) to break a loop, and every
    /// node is reached from a root.
    #[test]
    fn random_graphs_keep_pis_edges_and_have_no_loops() {
        let mut next = numbers(0x5eed);
        for round in 0..400 {
            let n = 1 + next(40) as usize;
            let ids = 1 + next(n as u64 + 3);
            let name = |k: u64| format!("e{k}");
            let entries: Vec<Entry> = (0..n)
                .map(|i| {
                    let id = (next(10) > 0).then(|| name(next(ids)));
                    let parent = match next(10) {
                        0 => Parent::Null,
                        1 => Parent::Missing,
                        2 => Parent::Invalid,
                        3 if i > 0 => Parent::Id(name(next(ids)).into()),
                        _ if i > 0 && round % 2 == 0 => Parent::Id(likely_id(i - 1).into()),
                        _ => Parent::Id(name(next(ids)).into()),
                    };
                    entry(i as u32 + 1, id.as_deref(), parent, next(25) == 0)
                })
                .collect();
            let entries = Entries::from(entries);
            let mut problems = Vec::new();
            let tree = Tree::build(&entries, &mut problems);
            let cut: Vec<u32> = problems
                .iter()
                .filter(|p| matches!(p.kind, ProblemKind::ParentLoop { .. }))
                .map(|p| p.line)
                .collect();
            let live = |i: usize| entries[i].kind() != Kind::Header;
            // Entries without an id share pi's `undefined` key, and a missing
            // parentId looks that key up.
            let node = |i: usize| match &entries[i].id {
                _ if !live(i) => i as u32,
                Some(id) => tree.find(&entries, id).unwrap_or(i as u32),
                None => tree.find(&entries, jskey::UNDEFINED).unwrap_or(i as u32),
            };
            for (i, e) in entries.iter().enumerate() {
                let want = match &e.parent {
                    Parent::Id(p) if live(i) && Some(p) != e.id.as_ref() => tree.find(&entries, p),
                    Parent::Missing if live(i) && e.id.is_some() => {
                        tree.find(&entries, jskey::UNDEFINED)
                    }
                    _ => None,
                };
                let got = tree.parent(i as u32);
                if got != want {
                    assert!(
                        got.is_none() && cut.contains(&e.line),
                        "round {round} entry {i}"
                    );
                }
                if live(i) {
                    let listed = match got {
                        Some(p) => tree.children(p).contains(&node(i)),
                        None => tree.roots().contains(&node(i)),
                    };
                    assert!(listed, "round {round} entry {i}");
                }
            }
            // Every node is reached from a root (pi's, or a loop cut open).
            let mut reached = Vec::new();
            let mut stack: Vec<u32> = tree.roots().to_vec();
            while let Some(r) = stack.pop() {
                if !reached.contains(&r) {
                    reached.push(r);
                    stack.extend(tree.children(r));
                }
            }
            for i in (0..n).filter(|&i| live(i)) {
                assert!(reached.contains(&node(i)), "round {round} entry {i}");
            }

            // The path to each entry is pi's walk up through truthy parentIds
            // (loops of the tree or not), wherever that walk ends.
            for i in (0..n).filter(|&i| live(i)) {
                let mut walk = vec![i as u32];
                let mut cur = i;
                while walk.len() <= n + 1 {
                    let next = match &entries[cur].parent {
                        Parent::Id(p) if jskey::is_truthy(p) => tree.find(&entries, p),
                        _ => None,
                    };
                    let Some(next) = next else { break };
                    walk.push(next);
                    cur = next as usize;
                }
                if walk.len() > n + 1 {
                    continue; // pi walks round forever
                }
                walk.reverse();
                assert_eq!(
                    tree.path_to(i as u32),
                    walk,
                    "round {round} entry {i}: {:?} {:?}",
                    entries
                        .iter()
                        .map(|e| (&e.id, &e.parent))
                        .collect::<Vec<_>>(),
                    (0..n).map(|k| tree.parent(k as u32)).collect::<Vec<_>>()
                );
            }
            // Handed on in stretches of any size, the path is the same.
            for i in 0..n as u32 {
                let path = tree.path_to(i);
                for stretch in [1, 2, 3, 5, n + 2] {
                    let mut joined = Vec::new();
                    let each = |s: &[u32]| {
                        assert!(!s.is_empty() && s.len() <= stretch);
                        joined.extend_from_slice(s);
                        Ok::<(), ()>(())
                    };
                    tree.path_in_stretches_of(i, stretch, each).unwrap();
                    assert_eq!(joined, path, "round {round} entry {i} by {stretch}");
                }
            }
        }
    }

    #[test]
    fn short_and_long_ids_stay_apart() {
        let ids = [
            "",
            "a",
            "a\0",
            "\0",
            "abcdefgh",
            "abcdefghi",
            "ab",
            "ba",
            "é",
            "x\0\0",
            "an id longer than fits in place",
        ];
        let mut entries = Entries::from(
            ids.iter()
                .enumerate()
                .map(|(i, id)| entry(i as u32 + 1, Some(id), Parent::Null, false))
                .collect::<Vec<_>>(),
        );
        let mut map = IdMap::with_capacity(4);
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(map.insert(&entries, id, i as u32), None);
        }
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(map.get(&entries, id), Some(i as u32), "{id:?}");
        }
        assert_eq!(map.get(&entries, "abcdefg"), None);
        assert_eq!(map.get(&entries, "an id longer than fits"), None);
        entries.push(entry(99, Some("a\0"), Parent::Null, false));
        assert_eq!(map.insert(&entries, "a\0", 11), Some(2));
        assert_eq!(map.get(&entries, "a\0"), Some(11));
    }

    /// The two passes give the same tree on one thread and on two, on big
    /// random sessions with repeated ids, labels, headers and loops; and
    /// the same without the table of ids, whether few parents need it
    /// (chains, where it goes before the parents are laid out) or many.
    #[test]
    fn threads_build_the_same_tree() {
        let mut next = numbers(0xfeed);
        for (n, chain) in [(30_000usize, false), (70_001, false), (50_000, true)] {
            let ids = n as u64 - next(n as u64 / 10);
            let entries: Vec<Entry> = (0..n)
                .map(|i| {
                    let id = if chain {
                        // Mostly each its own id; now and then an id used
                        // before, or none.
                        match next(200) {
                            0 => Some(format!("e{}", next(i as u64 + 1))),
                            1..=3 => None,
                            _ => Some(format!("e{i}")),
                        }
                    } else {
                        (next(50) > 0).then(|| format!("e{}", next(ids)))
                    };
                    let parent = match next(if chain { 100 } else { 20 }) {
                        0 => Parent::Null,
                        1 => Parent::Id(format!("e{}", next(ids)).into()),
                        2 if chain => Parent::Missing,
                        _ if chain => Parent::Id(format!("e{}", i.saturating_sub(1)).into()),
                        _ => Parent::Id(
                            format!("e{}", i.saturating_sub(1 + next(3) as usize)).into(),
                        ),
                    };
                    let mut e = entry(i as u32 + 1, id.as_deref(), parent, next(1000) == 0);
                    if next(100) == 0 {
                        e.info =
                            Info::Label(Box::new(crate::session::line::entry::LabelChange::new(
                                Some(format!("e{}", next(ids)).as_str().into()),
                                (next(3) > 0).then(|| format!("l{i}").as_str().into()),
                                None,
                                None,
                            )));
                    }
                    e
                })
                .collect();
            let entries = Entries::from(entries);
            let (mut p1, mut p2, mut p3) = (Vec::new(), Vec::new(), Vec::new());
            let one = Tree::build_on(&entries, &mut p1, false, Lookups::Keep);
            let two = Tree::build_on(&entries, &mut p2, true, Lookups::Keep);
            // Without its table of ids: the same tree, its ids found by a
            // table made at the first lookup.
            let three = Tree::build_on(&entries, &mut p3, true, Lookups::Drop);
            assert!(one.lookups_ready() && !three.lookups_ready());
            assert_eq!(p1, p2);
            assert_eq!(p1, p3);
            assert_eq!(
                (&one.parent, &one.child_start, &one.child_list, &one.roots),
                (
                    &three.parent,
                    &three.child_start,
                    &three.child_list,
                    &three.roots
                )
            );
            assert!(p1.len() > 10);
            assert_eq!(one.parent, two.parent);
            assert_eq!(one.child_start, two.child_start);
            assert_eq!(one.child_list, two.child_list);
            assert_eq!((&one.roots, one.last), (&two.roots, two.last));
            assert_eq!(one.labels(), two.labels());
            for e in &entries {
                if let Some(id) = e.id_str() {
                    assert_eq!(one.find(&entries, id), two.find(&entries, id));
                    assert_eq!(one.find(&entries, id), three.find(&entries, id));
                }
            }
            assert_eq!(one.preorder(), two.preorder());
        }
    }

    /// An id entry `i` may well have, so parents often name the entry just
    /// before (the common case `Tree::build` shortcuts).
    fn likely_id(i: usize) -> String {
        format!("e{}", i % 5)
    }

    #[test]
    fn v8_order_for_unparsable_times() {
        // times: 3, NaN, 1 -> V8 keeps [a, b, c] as one "ascending" run
        // (NaN compares equal), then c is inserted by binary search.
        let times = [Some(3), None, Some(1)];
        let mut list = vec![0, 1, 2];
        sort_like_v8(&mut list, |o| times[o as usize]);
        assert_eq!(list, vec![0, 1, 2]);
        let times = [Some(3), Some(2), None, Some(1)];
        let mut list = vec![0, 1, 2, 3];
        sort_like_v8(&mut list, |o| times[o as usize]);
        assert_eq!(list, vec![3, 1, 0, 2]);
    }

    /// Two trees alike in everything a caller can ask of them.
    fn assert_same_tree(a: &Tree, b: &Tree, entries: &Entries, what: &str) {
        assert_eq!(a.parent, b.parent, "parents, {what}");
        assert_eq!(a.child_start, b.child_start, "children, {what}");
        assert_eq!(a.child_list, b.child_list, "children, {what}");
        assert_eq!(
            (&a.roots, a.cut_roots),
            (&b.roots, b.cut_roots),
            "roots, {what}"
        );
        assert_eq!(a.labels(), b.labels(), "labels, {what}");
        assert_eq!(a.last, b.last, "last, {what}");
        assert_eq!(a.walk_stops, b.walk_stops, "walks, {what}");
        assert_eq!(a.walk_only, b.walk_only, "walks, {what}");
        for e in entries.iter() {
            let key = key_of(e);
            assert_eq!(a.find(entries, key), b.find(entries, key), "{key}, {what}");
        }
    }

    /// Entries `..k` and all of them, as two lists.
    fn prefix_and_all(all: &[Entry], k: usize) -> (Entries, Entries) {
        let mut prefix = Entries::default();
        let mut full = Entries::default();
        for (i, e) in all.iter().enumerate() {
            if i < k {
                prefix.push(e.clone());
            }
            full.push(e.clone());
        }
        (prefix, full)
    }

    /// The tree of entries `..k` grown by the rest, its id table made
    /// when it was built or (`fresh_ids`) at the first lookup: when it
    /// grows, the tree built of them all; when not, unchanged. Whether it
    /// grew.
    fn grown_or_unchanged(all: &[Entry], k: usize, fresh_ids: bool, what: &str) -> bool {
        let (prefix, full) = prefix_and_all(all, k);
        let mut tree = Tree::build(&prefix, &mut Vec::new());
        if fresh_ids {
            tree.by_id = std::sync::OnceLock::new();
        }
        let before = tree.clone();
        // The same tree with its id table made ahead, on another thread.
        let ahead = fresh_ids.then(|| {
            let ahead = tree.clone();
            std::thread::scope(|s| {
                s.spawn(|| ahead.ready_lookups(&prefix));
            });
            assert!(ahead.lookups_ready(), "{what}");
            ahead
        });
        let grew = tree.extend(&full, k);
        if let Some(mut ahead) = ahead {
            assert_eq!(ahead.extend(&full, k), grew, "made ahead, {what}");
            assert_same_tree(&ahead, &tree, &full, &format!("made ahead, {what}"));
        }
        if !grew {
            assert_same_tree(&tree, &before, &prefix, &format!("unchanged, {what}"));
            return false;
        }
        let built = Tree::build(&full, &mut Vec::new());
        assert_same_tree(&tree, &built, &full, &format!("grown at {k}, {what}"));
        true
    }

    /// A tree grown by entries appended to its file is the tree built of
    /// them all: every test file cut at every line (or at a hundred
    /// lines, for long ones), and random growths with forks, roots,
    /// labels, times out of order or missing, repeated, self-named and
    /// missing parents. A growth the tree cannot take leaves it as it
    /// was (it is then built again); the common ones it takes.
    /// A tree built without keeping its table of ids finds every id as
    /// one that kept it, repeated and missing ids too, in every test
    /// session: its first lookups by a scan of the entries, which makes no
    /// table, then by the table made again.
    #[test]
    fn ids_are_found_after_the_table_is_let_go() {
        use crate::session::read::index_pass::{Detail, scan_entries};
        let mut checked = 0;
        for path in crate::session::read::file::test_session_files() {
            let mut all: Vec<Entry> = Vec::new();
            if scan_entries(&path, Detail::Full, |e, _| all.push(e)).is_err() {
                continue;
            }
            let entries = Entries::from(all);
            let kept = Tree::build(&entries, &mut Vec::new());
            let dropped = Tree::build_with(&entries, &mut Vec::new(), Lookups::Drop);
            assert!(!dropped.lookups_ready());
            let mut ids: Vec<String> = entries.iter().map(|e| key_of(e).to_string()).collect();
            ids.extend(["no such id", "", jskey::UNDEFINED].map(String::from));
            let before: Vec<Option<u32>> = ids.iter().map(|id| kept.find(&entries, id)).collect();
            let scanned: Vec<Option<u32>> = ids.iter().map(|id| scan_for(&entries, id)).collect();
            assert_eq!(before, scanned, "{}", path.display());
            for (k, id) in ids.iter().enumerate() {
                assert_eq!(dropped.lookups_ready(), k > SCANS as usize, "{k}");
                assert_eq!(dropped.find(&entries, id), before[k], "{}", path.display());
            }
            checked += usize::from(before.iter().any(Option::is_some));
        }
        assert!(checked > 5, "{checked}");
    }

    /// A tree whose children were let go keeps its paths, and asks to be
    /// built again rather than grow lists it no longer has.
    #[test]
    fn a_tree_without_children_walks_and_does_not_grow() {
        use crate::session::read::index_pass::{Detail, scan_entries};
        let mut checked = 0;
        for path in crate::session::read::file::test_session_files() {
            let mut all: Vec<Entry> = Vec::new();
            if scan_entries(&path, Detail::Full, |e, _| all.push(e)).is_err() || all.len() < 4 {
                continue;
            }
            let (some, entries) = prefix_and_all(&all, all.len() - 1);
            let tree = Tree::build(&some, &mut Vec::new());
            let mut thin = tree.clone();
            thin.forget_children();
            for i in 0..some.len() as u32 {
                assert_eq!(thin.path_to(i), tree.path_to(i), "{}", path.display());
            }
            assert!(!thin.extend(&entries, some.len()), "{}", path.display());
            // (Where the whole tree grows.)
            checked += usize::from(tree.clone().extend(&entries, some.len()));
        }
        assert!(checked > 20, "{checked}");
    }

    #[test]
    fn a_tree_grown_is_the_tree_built() {
        // Growths taken and not: the files', then random ones.
        let mut files = [0usize; 2];
        let mut random = [0usize; 2];
        for path in crate::session::read::file::test_session_files() {
            use crate::session::read::index_pass::{Detail, scan_entries};
            let mut all: Vec<Entry> = Vec::new();
            if scan_entries(&path, Detail::Full, |e, _| all.push(e)).is_err() {
                continue;
            }
            let step = all.len().div_ceil(100).max(1);
            for k in (0..=all.len()).step_by(step) {
                let what = format!("{} at {k}", path.display());
                files[usize::from(!grown_or_unchanged(&all, k, k % 2 == 0, &what))] += 1;
            }
        }
        let mut next = numbers(0x9e37);
        for round in 0..300 {
            let n = 2 + next(30) as usize;
            let mut all: Vec<Entry> = Vec::new();
            for i in 0..n {
                let id = match next(40) {
                    0 => None,
                    1 if i > 0 => Some(format!("e{}", next(i as u64))),
                    _ => Some(format!("e{i}")),
                };
                let parent = match next(20) {
                    0 => Parent::Null,
                    1 => Parent::Missing,
                    2 => Parent::Invalid,
                    3 => Parent::Id(Id::from("")),
                    4 if i > 0 => Parent::Id(Id::from(format!("e{}", next(i as u64)).as_str())),
                    5 => Parent::Id(Id::from(format!("e{}", i + 1).as_str())),
                    6 => Parent::Id(Id::from(format!("e{i}").as_str())),
                    _ if i > 0 => Parent::Id(Id::from(format!("e{}", i - 1).as_str())),
                    _ => Parent::Null,
                };
                let mut e = entry(i as u32 + 2, id.as_deref(), parent, next(60) == 0);
                e.set_time_ms(match next(12) {
                    0 => None,
                    1 => Some(i as i64 - 3),
                    _ => Some(i as i64),
                });
                if next(8) == 0 && i > 0 {
                    e.set_kind(Kind::Label);
                    e.info = Info::Label(Box::new(crate::session::line::entry::LabelChange::new(
                        Some(Id::from(format!("e{}", next(i as u64)).as_str())),
                        (next(3) > 0).then(|| Id::from("l")),
                        None,
                        None,
                    )));
                }
                all.push(e);
            }
            for k in 0..=n {
                let what = format!("round {round}");
                random[usize::from(!grown_or_unchanged(&all, k, round % 2 == 0, &what))] += 1;
            }
        }
        // The files' growths are mostly taken; random ones both ways.
        assert!(files[0] > 2 * files[1], "the files: {files:?}");
        assert!(random[0] > 300 && random[1] > 300, "random: {random:?}");
    }
}
