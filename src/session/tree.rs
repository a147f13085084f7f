//! The entry tree as pi's `getTree()` builds it: roots, children sorted by
//! timestamp, labels in file order; plus what pi lacks, loops broken.

use super::entry::{Entry, Info, Kind, Parent};
use super::{Problem, ProblemKind};
use compact_str::CompactString;
use rustc_hash::FxHashMap as HashMap;

/// A resolved label on an entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelInfo {
    pub label: String,
    /// The label entry's timestamp string.
    pub timestamp: Option<CompactString>,
}

/// Index over a session's entries. Entry indices (`u32`) point into the
/// session's entry list. Like pi, an id that occurs twice names its last
/// occurrence (the "node"), and each occurrence hangs that node under its own
/// parent.
#[derive(Debug, Default, Clone)]
pub struct Tree {
    by_id: HashMap<CompactString, u32>,
    /// For each entry (occurrence): its parent node, `None` for a root.
    parent: Vec<Option<u32>>,
    /// For each node: its child occurrences, sorted like pi's tree.
    children: Vec<Vec<u32>>,
    roots: Vec<u32>,
    labels: HashMap<CompactString, LabelInfo>,
    /// The last entry in file order (what pi resumes at).
    last: Option<u32>,
}

impl Tree {
    /// Builds the index; loops found are added to `problems`.
    pub fn build(entries: &[Entry], problems: &mut Vec<Problem>) -> Tree {
        let n = entries.len();
        let live = |i: usize| entries[i].kind != Kind::Header;
        let mut by_id: HashMap<CompactString, u32> =
            HashMap::with_capacity_and_hasher(n, Default::default());
        let mut first_line: HashMap<&str, u32> = HashMap::default();
        let mut last = None;
        let mut labels = HashMap::default();
        for (i, e) in entries.iter().enumerate() {
            if !live(i) {
                continue;
            }
            last = Some(i as u32);
            if let Some(id) = &e.id {
                if let Some(prev) = by_id.insert(id.clone(), i as u32) {
                    let first = *first_line
                        .entry(id.as_str())
                        .or_insert(entries[prev as usize].line);
                    problems.push(Problem {
                        line: e.line,
                        kind: ProblemKind::DuplicateId {
                            id: id.to_string(),
                            first_line: first,
                        },
                    });
                }
            }
            if let Info::Label {
                target: Some(t),
                label,
            } = &e.info
            {
                match label {
                    Some(l) => {
                        labels.insert(
                            t.clone(),
                            LabelInfo {
                                label: l.clone(),
                                timestamp: e.timestamp.clone(),
                            },
                        );
                    }
                    None => {
                        labels.remove(t);
                    }
                }
            }
        }
        let node_of = |i: usize| -> u32 {
            entries[i]
                .id
                .as_ref()
                .and_then(|id| by_id.get(id).copied())
                .unwrap_or(i as u32)
        };
        let mut parent: Vec<Option<u32>> = (0..n)
            .map(|i| {
                if !live(i) {
                    return None;
                }
                match &entries[i].parent {
                    Parent::Id(p) if Some(p) != entries[i].id.as_ref() => by_id.get(p).copied(),
                    _ => None,
                }
            })
            .collect();
        let node_of_vec: Vec<u32> = (0..n).map(node_of).collect();
        break_loops(entries, &node_of_vec, &mut parent, problems);

        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for (i, p) in parent.iter().enumerate() {
            if !live(i) {
                continue;
            }
            match p {
                Some(p) => children[*p as usize].push(i as u32),
                None => roots.push(i as u32),
            }
        }
        let key = |occ: u32| entries[node_of_vec[occ as usize] as usize].time_ms;
        for list in &mut children {
            if list.len() > 1 {
                sort_like_v8(list, key);
            }
        }
        // Children are stored by occurrence; the tree shows nodes.
        for list in &mut children {
            for c in list.iter_mut() {
                *c = node_of_vec[*c as usize];
            }
        }
        for r in &mut roots {
            *r = node_of_vec[*r as usize];
        }
        Tree {
            by_id,
            parent,
            children,
            roots,
            labels,
            last,
        }
    }

    /// The entry an id names (its last occurrence).
    pub fn find(&self, id: &str) -> Option<u32> {
        self.by_id.get(id).copied()
    }

    /// Root nodes in file order (a node can appear twice when its id does).
    pub fn roots(&self) -> &[u32] {
        &self.roots
    }

    /// Children of a node, oldest first.
    pub fn children(&self, node: u32) -> &[u32] {
        self.children.get(node as usize).map_or(&[], Vec::as_slice)
    }

    /// The parent node of an entry, after loops are broken.
    pub fn parent(&self, node: u32) -> Option<u32> {
        self.parent.get(node as usize).copied().flatten()
    }

    /// The last entry in file order.
    pub fn last(&self) -> Option<u32> {
        self.last
    }

    pub fn label(&self, id: &str) -> Option<&LabelInfo> {
        self.labels.get(id)
    }

    pub fn labels(&self) -> &HashMap<CompactString, LabelInfo> {
        &self.labels
    }

    /// The path from the root down to `node`, inclusive.
    pub fn path_to(&self, node: u32) -> Vec<u32> {
        let mut path = vec![node];
        let mut cur = node;
        while let Some(p) = self.parent(cur) {
            path.push(p);
            cur = p;
        }
        path.reverse();
        path
    }

    /// Nodes in depth-first pre-order, as pi's tree lists them. A node that
    /// hangs under several parents (a duplicated id) is listed under each,
    /// as pi does, within a budget that keeps hostile files linear.
    pub fn preorder(&self) -> Vec<u32> {
        let budget = self.parent.len().saturating_mul(4) + 1024;
        let mut expanded = vec![false; self.children.len()];
        let mut out = Vec::with_capacity(self.parent.len());
        let mut stack: Vec<u32> = self.roots.iter().rev().copied().collect();
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
/// in the file, that closed it; that occurrence becomes a root.
fn break_loops(
    entries: &[Entry],
    node_of: &[u32],
    parent: &mut [Option<u32>],
    problems: &mut Vec<Problem>,
) {
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
}

/// Sorts child occurrences oldest first, exactly as V8's `Array.prototype.sort`
/// orders them with pi's comparator (`a - b` on times; NaN compares equal).
pub(crate) fn sort_like_v8(list: &mut [u32], key: impl Fn(u32) -> Option<i64>) {
    if list.iter().all(|&o| key(o).is_some()) {
        list.sort_by_key(|&o| key(o));
        return;
    }
    let cmp = |a: u32, b: u32| -> i64 {
        match (key(a), key(b)) {
            (Some(x), Some(y)) => (x - y).signum(),
            _ => 0,
        }
    };
    // V8 sorts arrays shorter than 64 as one run: the leading ascending or
    // strictly descending run, then binary insertion of the rest.
    let n = list.len();
    let mut run = 2;
    let descending = cmp(list[1], list[0]) < 0;
    while run < n {
        let order = cmp(list[run], list[run - 1]);
        if (descending && order >= 0) || (!descending && order < 0) {
            break;
        }
        run += 1;
    }
    if descending {
        list[..run].reverse();
    }
    for start in run..n {
        let pivot = list[start];
        let (mut left, mut right) = (0, start);
        while left < right {
            let mid = left + (right - left) / 2;
            if cmp(pivot, list[mid]) < 0 {
                right = mid;
            } else {
                left = mid + 1;
            }
        }
        list.copy_within(left..start, left + 1);
        list[left] = pivot;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
