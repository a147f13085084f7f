//! pi's `/tree` view of a session: the display order (the branch holding the
//! leaf first), the filters, nesting only at forks of visible rows, the
//! connectors, the one-line texts and the marks for the leaf and its path.
//! The browser's tree pane and `piscope tree` both lay their rows out here.

use crate::session::Session;
use crate::session::line::entry::{Kind, Role};
use crate::session::tree::Bits;
use crate::session::tree::entry_line::{self, ToolCalls};
use std::collections::HashSet;

/// Deeper forks than this are drawn at this depth: a hostile file with
/// thousands of nested forks stays readable and cheap to draw.
pub const MAX_DEPTH: u16 = 48;

const NO_ROW: u32 = u32::MAX;
/// No node (a root's parent in [`TreeView`]).
const NO_NODE: u32 = u32::MAX;

/// pi's tree filters, in the order its filter-cycling key goes through them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Filter {
    #[default]
    Default,
    NoTools,
    UserOnly,
    LabeledOnly,
    All,
}

impl Filter {
    pub const CYCLE: [Filter; 5] = [
        Filter::Default,
        Filter::NoTools,
        Filter::UserOnly,
        Filter::LabeledOnly,
        Filter::All,
    ];

    pub fn next(self) -> Filter {
        let i = Filter::CYCLE.iter().position(|f| *f == self).unwrap_or(0);
        Filter::CYCLE[(i + 1) % Filter::CYCLE.len()]
    }

    pub fn previous(self) -> Filter {
        let i = Filter::CYCLE.iter().position(|f| *f == self).unwrap_or(0);
        Filter::CYCLE[(i + Filter::CYCLE.len() - 1) % Filter::CYCLE.len()]
    }

    /// pi's toggle: choosing the filter in force goes back to the default.
    pub fn toggle(self, chosen: Filter) -> Filter {
        if self == chosen {
            Filter::Default
        } else {
            chosen
        }
    }

    /// The tag pi shows after the position (`[no-tools]`); none for the default.
    pub fn tag(self) -> Option<&'static str> {
        match self {
            Filter::Default => None,
            Filter::NoTools => Some("no-tools"),
            Filter::UserOnly => Some("user"),
            Filter::LabeledOnly => Some("labeled"),
            Filter::All => Some("all"),
        }
    }
}

/// What marks a row: where pi resumes, or the path to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Leaf,
    Path,
    None,
}

impl Mark {
    /// The mark of `node`, where pi resumes at `leaf`; `on_path`: it is on
    /// the path from the root to the leaf.
    fn of(node: u32, leaf: Option<u32>, on_path: bool) -> Mark {
        if Some(node) == leaf {
            Mark::Leaf
        } else if on_path {
            Mark::Path
        } else {
            Mark::None
        }
    }

    /// The mark as pi's `/tree` draws it before a row's text.
    pub fn text(self) -> &'static str {
        match self {
            Mark::Leaf => "◉ ",
            Mark::Path => "• ",
            Mark::None => "",
        }
    }
}

/// Where pi resumes and the path to it: what the rows' marks need of a
/// [`TreeView`] (see [`TreeView::into_rows_where`]).
#[derive(Debug, Clone, Default)]
pub struct Marks {
    active: Bits,
    leaf: Option<u32>,
}

impl Marks {
    pub fn mark(&self, node: u32) -> Mark {
        Mark::of(node, self.leaf, self.active.get(node))
    }
}

/// A session in pi's `/tree` order, with the leaf and the path to it.
#[derive(Debug, Clone, Default)]
pub struct TreeView {
    /// Every node once, in pre-order, the branch holding the leaf first at
    /// each fork (pi's `flattenTree`).
    pub order: Vec<u32>,
    /// Per entry index: the node it was reached from in `order`.
    /// (`NO_NODE` for a root: four bytes a node.) See [`TreeView::parent`].
    parent: Vec<u32>,
    /// Per entry index: on the path from the root to the leaf (see
    /// [`TreeView::on_path`]).
    active: Bits,
    pub leaf: Option<u32>,
}

impl TreeView {
    pub fn new(s: &Session) -> TreeView {
        let n = s.entries.len();
        let mut active = Bits::new(n);
        for node in s.branch() {
            active.set(node);
        }
        let (order, parent) = display_order(s, &active);
        TreeView {
            order,
            parent,
            active,
            leaf: s.leaf(),
        }
    }

    /// The view of `s`, a session read on from the one this view is of,
    /// when what it gained is what pi writes as it goes on (a chain of
    /// entries under the leaf, the last of them the new leaf): the chain
    /// follows the leaf in the order, and the path grows by it. `None`
    /// for any other growth, to be viewed afresh ([`TreeView::new`]).
    pub fn grown(&self, s: &Session) -> Option<TreeView> {
        let (before, n) = (self.parent.len(), s.entries.len());
        let leaf = self.leaf.filter(|&l| self.active.get(l))?;
        if n <= before || s.branch_leaf() != Some(n as u32 - 1) {
            return None;
        }
        let chain = before as u32..n as u32;
        // A new entry that takes over an old one's id rehangs what was
        // under it (pi files an id under its last entry).
        let first_line = s.entry(before as u32).line;
        if s.problems.iter().any(|p| {
            p.line >= first_line
                && matches!(p.kind, crate::session::ProblemKind::DuplicateId { .. })
        }) {
            return None;
        }
        let mut above = leaf;
        for node in chain.clone() {
            s.entry(node).id_str()?;
            let next = node + 1;
            let kids: &[u32] = if next < n as u32 { &[next] } else { &[] };
            if s.tree.parent(node) != Some(above)
                || s.tree.step_up(node) != Some(above)
                || s.tree.children(node) != kids
            {
                return None;
            }
            above = node;
        }
        if s.tree.children(leaf) != [before as u32] {
            return None;
        }
        // The path up from the old leaf is still the one this view marks
        // (a growth that hangs old entries elsewhere changes it).
        let (mut on, mut node) = (1, leaf);
        while let Some(up) = s.tree.step_up(node) {
            if !self.active.get(up) || on > before {
                return None;
            }
            (on, node) = (on + 1, up);
        }
        if on != self.active.count() {
            return None;
        }
        let at = self.order.iter().rposition(|&node| node == leaf)?;
        let mut order = Vec::with_capacity(n);
        order.extend_from_slice(&self.order[..=at]);
        order.extend(chain.clone());
        order.extend_from_slice(&self.order[at + 1..]);
        let mut parent = Vec::with_capacity(n);
        parent.extend_from_slice(&self.parent);
        parent.push(leaf);
        parent.extend(before as u32..n as u32 - 1);
        let mut active = self.active.clone();
        for _ in chain {
            active.push(true);
        }
        Some(TreeView {
            order,
            parent,
            active,
            leaf: s.leaf(),
        })
    }

    /// Whether `node` is on the path from the root to the leaf.
    pub fn on_path(&self, node: u32) -> bool {
        self.active.get(node)
    }

    /// The node `node` was reached from in `order` (`None` for a root).
    pub fn parent(&self, node: u32) -> Option<u32> {
        self.parent
            .get(node as usize)
            .copied()
            .filter(|&p| p != NO_NODE)
    }

    pub fn mark(&self, node: u32) -> Mark {
        Mark::of(node, self.leaf, self.active.get(node))
    }

    /// Whether pi's `/tree` shows the entry `node` under `filter`.
    pub fn shows(&self, s: &Session, filter: Filter, node: u32) -> bool {
        let m = s.entry(node).message();
        self.shows_as(
            s,
            filter,
            node,
            m.map(|m| &m.role),
            m.is_some_and(entry_line::bare_turn),
            |n| s.has_label(n),
        )
    }

    /// [`TreeView::shows`] for an entry whose message (if any) has `role`
    /// and is a bare assistant turn (see [`entry_line::bare_turn`]) or not: for a
    /// session read at outline depth, its messages read on the side.
    pub fn shows_as(
        &self,
        s: &Session,
        filter: Filter,
        node: u32,
        role: Option<&Role>,
        bare: bool,
        labelled: impl FnOnce(u32) -> bool,
    ) -> bool {
        let kind = s.entries.kind(node as usize);
        if kind == Kind::Usage {
            return false;
        }
        // Tool-call-only assistant turns clutter the tree; pi keeps the
        // leaf, errors and aborts.
        if bare && Some(node) != self.leaf {
            return false;
        }
        let setting = matches!(
            kind,
            Kind::Label
                | Kind::ContextEdit
                | Kind::Custom
                | Kind::ModelChange
                | Kind::ThinkingLevelChange
                | Kind::SessionInfo
        );
        match filter {
            Filter::Default => !setting,
            Filter::NoTools => !setting && role != Some(&Role::ToolResult),
            Filter::UserOnly => role == Some(&Role::User),
            Filter::LabeledOnly => labelled(node),
            Filter::All => true,
        }
    }

    /// Lays out the visible entries: pi's filter, then folds (a folded
    /// entry hides everything below it), then nesting at forks.
    pub fn rows(&self, s: &Session, filter: Filter, folded: &HashSet<u32>) -> Rows {
        self.rows_where(s, folded, |node| self.shows(s, filter, node))
    }

    /// [`TreeView::rows`] with the filter given as which nodes it shows.
    pub fn rows_where(
        &self,
        s: &Session,
        folded: &HashSet<u32>,
        shows: impl Fn(u32) -> bool + Sync,
    ) -> Rows {
        self.rows_where_in(s, folded, shows, Rows::default())
    }

    /// [`TreeView::rows_where`] laid out in the memory of rows made
    /// before (`room`, which goes), when it is large enough: on a long
    /// session laid out again as it grows, fresh pages (which the kernel
    /// clears, 170 MB for ten million rows) cost more than the layout.
    pub fn rows_where_in(
        &self,
        s: &Session,
        folded: &HashSet<u32>,
        shows: impl Fn(u32) -> bool + Sync,
        room: Rows,
    ) -> Rows {
        let visible = shown(s, shows);
        let n = s.entries.len();
        let mut row_of = reused(room.row_of, n);
        row_of.resize(n, NO_ROW);
        let rows = reused(room.rows, visible.count());
        lay_out(
            &self.order,
            Some(&self.parent),
            row_of,
            rows,
            visible,
            folded,
        )
    }

    /// [`TreeView::rows_where`] for a listing that needs no more of the
    /// view than its marks, `visible` the nodes the filter shows (see
    /// [`shown`]): the view's table of parents becomes the rows' table of
    /// nodes (each node's parent is read just before its row is written),
    /// and its order goes as soon as the rows are laid out.
    pub(crate) fn into_rows(self, visible: Bits, folded: &HashSet<u32>) -> (Rows, Marks) {
        let TreeView {
            order,
            parent,
            active,
            leaf,
        } = self;
        let room = crate::par::big_vec(visible.count());
        let rows = lay_out(&order, None, parent, room, visible, folded);
        (rows, Marks { active, leaf })
    }
}

/// `v` emptied when it has room for `n` items and not more than twice
/// that (rows laid out again under a narrower filter need not hold on to
/// the wider one's memory), else a fresh vector.
fn reused<T>(mut v: Vec<T>, n: usize) -> Vec<T> {
    if v.capacity() >= n && v.capacity() / 2 <= n {
        v.clear();
        v
    } else {
        drop(v);
        crate::par::big_vec(n)
    }
}

/// Which entries `shows` shows, asked on every core (the layout walks in
/// tree order, where the answers' reads would be scattered).
pub(crate) fn shown(s: &Session, shows: impl Fn(u32) -> bool + Sync) -> Bits {
    Bits::par_from(s.entries.len(), shows)
}

/// The rows of the nodes in `order` that are `visible`, under the `folded`
/// ones: pi's nesting at forks and connectors. Each node's parent is
/// `parent`'s, or when that is `None` the one `row_of` holds until the
/// node's row is written there. `row_of` becomes the rows' index; the
/// rows are written into `rows` (empty, with room for every visible node).
fn lay_out(
    order: &[u32],
    parent: Option<&[u32]>,
    mut row_of: Vec<u32>,
    mut rows: Vec<Row>,
    mut visible: Bits,
    folded: &HashSet<u32>,
) -> Rows {
    let n = row_of.len();
    let mut hidden = Bits::new(n);
    // Per node: its row when it shows, else the nearest visible
    // ancestor's (`NO_ROW`: none). Once laid out, each node's row.
    let some = |v: u32| (v != NO_ROW).then_some(v);
    // First the rows in order, each with its visible parent, counting
    // every row's visible children; then what follows from those.
    debug_assert!(rows.is_empty());
    let mut visible_roots = 0usize;
    for &node in order {
        let i = node as usize;
        let p = parent
            .unwrap_or(&row_of)
            .get(i)
            .copied()
            .filter(|&p| p != NO_NODE);
        if p.is_some_and(|p| folded.contains(&p) || hidden.get(p)) {
            hidden.set(node);
            visible.clear(node);
        }
        let above = p.map_or(NO_ROW, |p| row_of[p as usize]);
        if !visible.get(node) {
            row_of[i] = above;
            continue;
        }
        match some(above) {
            Some(vp) => rows[vp as usize].add_child(),
            None => visible_roots += 1,
        }
        row_of[i] = rows.len() as u32;
        rows.push(Row::new(node, above, folded.contains(&node)));
    }
    drop(hidden);
    // The last of each row's visible children (and of the roots): the
    // first met from the end.
    let mut has_last = Bits::new(rows.len());
    let mut last_root = false;
    for r in rows.iter_mut().rev() {
        let last = match some(r.visible_parent) {
            Some(vp) => has_last.insert(vp),
            None => !std::mem::replace(&mut last_root, true),
        };
        r.set_flag(Row::LAST, last);
    }
    drop(has_last);
    for k in 0..rows.len() {
        let r = rows[k];
        // A row heads its branch when it is one of several (roots or
        // children of one row); it then nests what is under it.
        let (depth, head, up) = match some(r.visible_parent) {
            None => (0, visible_roots > 1, NO_ROW),
            Some(vp) => {
                let p = rows[vp as usize];
                let up = if p.connector() { vp } else { p.up };
                let fork = p.visible_children() > 1;
                let p_heads = match p.visible_parent {
                    NO_ROW => visible_roots > 1,
                    _ => p.connector(),
                };
                let nest = fork || p_heads;
                let depth = if nest && p.depth < MAX_DEPTH {
                    p.depth + 1
                } else {
                    p.depth
                };
                (depth, fork, up)
            }
        };
        let row = &mut rows[k];
        row.depth = depth;
        row.up = up;
        // pi draws a connector on the children of a fork only (not on
        // roots, even when there are several).
        row.set_flag(Row::CONNECTOR, r.visible_parent != NO_ROW && head);
        row.set_flag(
            Row::FOLDABLE,
            r.folded() || (r.visible_children() > 0 && (r.visible_parent == NO_ROW || head)),
        );
    }
    // Each node's row, `NO_ROW` for one that does not show (or was not
    // laid out: its slot may still hold its parent).
    for (i, row) in row_of.iter_mut().enumerate() {
        if !visible.get(i as u32) || rows.get(*row as usize).is_none_or(|r| r.node as usize != i) {
            *row = NO_ROW;
        }
    }
    Rows { rows, row_of }
}

/// Pre-order with the active child first at every fork; each node listed
/// once (a duplicated id can hang one node under two parents).
fn display_order(s: &Session, active: &Bits) -> (Vec<u32>, Vec<u32>) {
    let n = s.entries.len();
    let mut order = crate::par::big_vec(n);
    let mut parent = crate::par::big_vec_of(n, NO_NODE);
    let mut seen = Bits::new(n);
    let active_first = |list: &[u32]| -> Vec<u32> {
        let mut v: Vec<u32> = list.to_vec();
        // A stable sort keeps pi's timestamp order within each group.
        v.sort_by_key(|&c| !active.get(c));
        v
    };
    let mut stack: Vec<(u32, Option<u32>)> = active_first(s.tree.roots())
        .into_iter()
        .rev()
        .map(|r| (r, None))
        .collect();
    while let Some((node, from)) = stack.pop() {
        if node as usize >= n || !seen.insert(node) {
            continue;
        }
        parent[node as usize] = from.unwrap_or(NO_NODE);
        order.push(node);
        let kids = s.tree.children(node);
        if kids.len() == 1 {
            stack.push((kids[0], Some(node)));
        } else {
            stack.extend(
                active_first(kids)
                    .into_iter()
                    .rev()
                    .map(|c| (c, Some(node))),
            );
        }
    }
    (order, parent)
}

/// pi's one-line text of every entry, by entry index (`home` shortens paths
/// in tool rows to `~`). Not made safe for a terminal: the front end does.
pub fn texts(s: &Session, home: Option<&str>) -> Vec<String> {
    let calls = ToolCalls::collect(s);
    s.entries
        .iter()
        .map(|e| entry_line::entry_line(e, &calls, home))
        .collect()
}

/// One visible row (16 bytes: a listing of ten million entries holds
/// ten million of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub node: u32,
    /// The nearest ancestor's row that has a connector (`NO_ROW`: none):
    /// the rows a gutter is drawn from.
    up: u32,
    /// The nearest visible ancestor's row (`NO_ROW`: none).
    visible_parent: u32,
    /// Indentation level: grows at forks only.
    pub depth: u16,
    /// The flags below, and how many rows have this one as their visible
    /// parent (none, one, or more: [`Row::visible_children`]).
    flags: u8,
}

impl Row {
    /// One of several visible children: pi draws `├─` / `└─` before it.
    const CONNECTOR: u8 = 1;
    /// The last of its visible siblings (`└─`; no `│` below it).
    const LAST: u8 = 1 << 1;
    /// pi's rule: a root or the first entry of a branch, with something
    /// under it.
    const FOLDABLE: u8 = 1 << 2;
    const FOLDED: u8 = 1 << 3;
    /// The count of visible children in two bits, up to [`Row::MANY`].
    const CHILDREN_SHIFT: u8 = 4;
    const MANY: u8 = 2;

    fn new(node: u32, visible_parent: u32, folded: bool) -> Row {
        Row {
            node,
            up: NO_ROW,
            visible_parent,
            depth: 0,
            flags: if folded { Row::FOLDED } else { 0 },
        }
    }

    fn flag(&self, f: u8) -> bool {
        self.flags & f != 0
    }

    fn set_flag(&mut self, f: u8, on: bool) {
        if on {
            self.flags |= f;
        } else {
            self.flags &= !f;
        }
    }

    pub fn connector(&self) -> bool {
        self.flag(Row::CONNECTOR)
    }

    pub fn last(&self) -> bool {
        self.flag(Row::LAST)
    }

    pub fn foldable(&self) -> bool {
        self.flag(Row::FOLDABLE)
    }

    pub fn folded(&self) -> bool {
        self.flag(Row::FOLDED)
    }

    /// How many rows have this one as their visible parent: 0, 1, or 2
    /// for two or more (all a fork needs told).
    pub fn visible_children(&self) -> u32 {
        u32::from(self.flags >> Row::CHILDREN_SHIFT)
    }

    /// Counts one more visible child (up to [`Row::MANY`]).
    fn add_child(&mut self) {
        let n = (self.flags >> Row::CHILDREN_SHIFT)
            .saturating_add(1)
            .min(Row::MANY);
        self.flags = self.flags & ((1 << Row::CHILDREN_SHIFT) - 1) | n << Row::CHILDREN_SHIFT;
    }

    /// The nearest ancestor's row that has a connector.
    fn up(&self) -> Option<u32> {
        (self.up != NO_ROW).then_some(self.up)
    }

    /// The nearest visible ancestor's row.
    pub fn visible_parent(&self) -> Option<u32> {
        (self.visible_parent != NO_ROW).then_some(self.visible_parent)
    }
}

/// Where pi resumes, as the rows show it: the leaf's row, or the row of
/// its nearest visible ancestor when the filter hides the leaf.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResumePoint {
    /// The row to mark `◉` (none when no ancestor of the leaf shows).
    pub row: Option<usize>,
    /// The leaf, when the filter hides it (not when a fold does: the
    /// folded row stands for its whole branch).
    pub hidden_leaf: Option<u32>,
    /// The hidden entries between that row and the leaf, the leaf first,
    /// piscope's own branch markers left out (they carry nothing).
    pub carried: Vec<u32>,
}

/// The rows for one filter and set of folds.
#[derive(Debug, Clone, Default)]
pub struct Rows {
    pub rows: Vec<Row>,
    /// Per entry index: its row, or `NO_ROW`.
    row_of: Vec<u32>,
}

impl Rows {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn get(&self, row: usize) -> Option<&Row> {
        self.rows.get(row)
    }

    /// The row showing `node`, if it is visible.
    pub fn row_of(&self, node: u32) -> Option<usize> {
        match self.row_of.get(node as usize) {
            Some(&r) if r != NO_ROW => Some(r as usize),
            _ => None,
        }
    }

    /// The row of `node` or, when it is hidden, of its nearest visible
    /// ancestor (pi keeps the cursor this way); else the last row.
    pub fn nearest_row(&self, view: &TreeView, node: u32) -> Option<usize> {
        let mut cur = Some(node);
        let mut steps = 0;
        while let Some(n) = cur {
            if let Some(r) = self.row_of(n) {
                return Some(r);
            }
            cur = view.parent(n);
            steps += 1;
            if steps > view.parent.len() {
                break;
            }
        }
        self.rows.len().checked_sub(1)
    }

    /// Where pi resumes in these rows (laid out by `view` with the filter
    /// that `shows` the entries it shows).
    pub fn resume_point(
        &self,
        view: &TreeView,
        s: &Session,
        shows: impl Fn(u32) -> bool,
    ) -> ResumePoint {
        let Some(leaf) = view.leaf else {
            return ResumePoint::default();
        };
        let mut point = ResumePoint::default();
        let mut cur = Some(leaf);
        let mut folded_away = false;
        // One step per entry up: bounded even if the links were to loop.
        for _ in 0..=view.parent.len() {
            let Some(n) = cur else { break };
            if let Some(r) = self.row_of(n) {
                point.row = Some(r);
                break;
            }
            // An entry the filter shows is hidden by a fold.
            folded_away |= shows(n);
            if !crate::session::write::append::is_branch_marker(s.entry(n)) {
                point.carried.push(n);
            }
            cur = view.parent(n);
        }
        if self.row_of(leaf).is_some() || folded_away {
            point.carried.clear();
        } else {
            point.hidden_leaf = Some(leaf);
        }
        point
    }

    /// The row of the branch start above `row` (pi's fold-or-up when the row
    /// cannot fold): the first entry of the current branch, or of the one above.
    pub fn segment_start_up(&self, row: usize) -> usize {
        let mut cur = row;
        loop {
            let Some(parent) = self.rows[cur].visible_parent() else {
                return cur;
            };
            let p = parent as usize;
            if self.rows[p].visible_children() > 1 && cur < row {
                return cur;
            }
            cur = p;
        }
    }

    /// The next branch point's first child below `row`, following first
    /// children (pi's unfold-or-down when the row is not folded).
    pub fn segment_start_down(&self, row: usize) -> usize {
        let mut cur = row;
        loop {
            let r = &self.rows[cur];
            match r.visible_children() {
                0 => return cur,
                1 => cur += 1,
                _ => return cur + 1,
            }
        }
    }

    /// pi's connectors before each row's text, three columns a level:
    /// `├─ ` / `└─ ` before a child of a fork, `│  ` where a fork above has
    /// more children further down. A listing shows no folds.
    pub fn connectors(&self) -> Vec<String> {
        self.gutters(false)
    }

    /// The connectors as pi's `/tree` draws them with folds (`folds`): a
    /// foldable child of a fork takes `├⊟ ` (`├⊞ ` when folded), and a
    /// folded row without a connector ends its gutter with `⊞ `.
    pub fn gutters(&self, folds: bool) -> Vec<String> {
        self.gutter_rows(folds).collect()
    }

    /// [`Rows::gutters`] one row at a time, in row order: a listing of a
    /// million rows holds one gutter at a time, not a million.
    pub fn gutter_rows(&self, folds: bool) -> GutterRows<'_> {
        GutterRows {
            rows: self,
            folds,
            above: Vec::new(),
            next: 0,
        }
    }
}

/// The gutters of [`Rows`], row by row (see [`Rows::gutter_rows`]).
pub struct GutterRows<'a> {
    rows: &'a Rows,
    folds: bool,
    /// The rows with a connector above the row (its ancestors'), outermost
    /// first: (row, level, whether its siblings go on below, whether it
    /// draws: the first at its level).
    above: Vec<(u32, usize, bool, bool)>,
    next: usize,
}

impl Iterator for GutterRows<'_> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        let i = self.next;
        let r = self.rows.rows.get(i)?;
        self.next += 1;
        // Rows come in pre-order: every row between an ancestor and this
        // one is under that ancestor, so the rows kept above the row
        // before are this one's up to its nearest with a connector.
        let above = &mut self.above;
        while above.last().is_some_and(|&(a, ..)| Some(a) != r.up()) {
            above.pop();
        }
        let drawn = above
            .iter()
            .filter(|a| a.3)
            .map(|&(_, l, more, _)| (l, more));
        let gutter = gutter_of(r, drawn, self.folds);
        if let Some(level) = usize::from(r.depth)
            .checked_sub(1)
            .filter(|_| r.connector())
        {
            // Levels only grow down the rows above (a fork deeper than
            // the deepest level drawn shares it).
            let draws = above.last().is_none_or(|&(_, l, ..)| l < level);
            above.push((i as u32, level, !r.last(), draws));
        }
        Some(gutter)
    }
}

impl Rows {
    /// Row `i`'s gutter, as [`Rows::gutter_rows`] gives it, worked out from
    /// its ancestors with a connector alone (one step each, however long
    /// the branches between them): the browser draws the gutters of the
    /// rows in view, and keeps none.
    pub fn gutter(&self, i: usize, folds: bool) -> String {
        let Some(r) = self.rows.get(i) else {
            return String::new();
        };
        // The forks' children above the row: its ancestors with a
        // connector, outermost first, each deeper than the one before.
        let mut chain = Vec::new();
        let mut at = r.up();
        // Bounded by the rows, whatever the links say.
        for _ in 0..self.rows.len() {
            let Some(a) = at else { break };
            let Some(ar) = self.rows.get(a as usize) else {
                break;
            };
            if let Some(level) = usize::from(ar.depth)
                .checked_sub(1)
                .filter(|_| ar.connector())
            {
                chain.push((level, !ar.last()));
            }
            at = ar.up();
        }
        let mut levels: Vec<(usize, bool)> = Vec::with_capacity(chain.len());
        for (level, more) in chain.into_iter().rev() {
            if levels.last().is_none_or(|&(l, _)| l < level) {
                levels.push((level, more));
            }
        }
        gutter_of(r, levels.iter().copied(), folds)
    }
}

/// A row's gutter, given the forks' children above it (level, whether
/// their siblings go on below), outermost first.
fn gutter_of(r: &Row, above: impl Iterator<Item = (usize, bool)> + Clone, folds: bool) -> String {
    let depth = usize::from(r.depth);
    let mut cells: Vec<&str> = vec!["   "; depth];
    for (level, more) in above.clone() {
        if let Some(c) = cells.get_mut(level) {
            *c = if more { "│  " } else { "   " };
        }
    }
    let level = depth.checked_sub(1).filter(|_| r.connector());
    // pi marks the fold of a row with a connector in the connector
    // (and not at all where a line from above takes its place).
    let fold_in_connector = level.is_some();
    if let Some(level) = level {
        // A line from a fork above keeps its place (as pi draws it).
        if !above.clone().any(|(l, _)| l == level) {
            cells[level] = match (r.last(), folds && r.folded(), folds && r.foldable()) {
                (true, true, _) => "└⊞ ",
                (false, true, _) => "├⊞ ",
                (true, false, true) => "└⊟ ",
                (false, false, true) => "├⊟ ",
                (true, false, false) => "└─ ",
                (false, false, false) => "├─ ",
            };
        }
    }
    if folds && r.folded() && !fold_in_connector {
        cells.push("⊞ ");
    }
    cells.concat()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;

    /// A session file from JSON lines after a header.
    fn session(lines: &[&str]) -> Session {
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        writeln!(
            f,
            r#"{{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}}"#
        )
        .expect("write");
        for l in lines {
            writeln!(f, "{l}").expect("write");
        }
        Session::open(f.path()).expect("a session")
    }

    fn msg(id: &str, parent: Option<&str>, t: u32, role: &str, text: &str) -> String {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:{t:02}.000Z","message":{{"role":"{role}","content":"{text}"}}}}"#
        )
    }

    fn layout(s: &Session, filter: Filter, folded: &HashSet<u32>) -> Vec<String> {
        let view = TreeView::new(s);
        let texts = texts(s, None);
        let rows = view.rows(s, filter, folded);
        rows.rows
            .iter()
            .map(|r| {
                format!(
                    "{}{}{}",
                    "  ".repeat(r.depth as usize),
                    if r.foldable() { "+" } else { "" },
                    texts[r.node as usize]
                )
            })
            .collect()
    }

    /// The rows with pi's connectors.
    fn drawn(s: &Session, filter: Filter) -> Vec<String> {
        let view = TreeView::new(s);
        let texts = texts(s, None);
        let rows = view.rows(s, filter, &HashSet::new());
        rows.connectors()
            .into_iter()
            .zip(&rows.rows)
            .map(|(c, r)| format!("{c}{}", texts[r.node as usize]))
            .collect()
    }

    /// A view grown with its session is the view made afresh of the
    /// session grown: every test session cut after each of some of its
    /// lines and read whole, and each read whole and grown by a chain of
    /// messages under its leaf (which grows most views rather than making
    /// them again; not those of damaged files where the chain hangs
    /// elsewhere), by a message under another entry and by one under no
    /// entry.
    #[test]
    fn a_view_grown_is_the_view_made_afresh() {
        let same = |a: &TreeView, b: &TreeView, at: &str| {
            assert_eq!(a.order, b.order, "{at}");
            assert_eq!(a.parent, b.parent, "{at}");
            assert_eq!(a.active, b.active, "{at}");
            assert_eq!(a.leaf, b.leaf, "{at}");
        };
        let read = |text: &str| {
            let mut f = tempfile::NamedTempFile::new().expect("temp file");
            f.write_all(text.as_bytes()).expect("write");
            Session::open(f.path()).ok()
        };
        let (mut grown, mut chains) = (0, 0);
        for path in crate::session::read::file::test_session_files() {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Some(whole) = read(&text) else {
                continue;
            };
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let step = lines.len().div_ceil(12).max(1);
            for cut in (1..lines.len()).step_by(step) {
                let Some(part) = read(&lines[..cut].concat()) else {
                    continue;
                };
                if let Some(view) = TreeView::new(&part).grown(&whole) {
                    same(
                        &view,
                        &TreeView::new(&whole),
                        &format!("{} cut {cut}", path.display()),
                    );
                    grown += 1;
                }
            }
            let Some(leaf) = whole.leaf().and_then(|l| whole.entry(l).id_str()) else {
                continue;
            };
            let other = whole
                .entries
                .iter()
                .find_map(|e| e.id_str())
                .unwrap_or(leaf);
            let ended = if text.ends_with('\n') {
                text.clone()
            } else {
                format!("{text}\n")
            };
            let chain = [
                msg("grown-1", Some(leaf), 1, "user", "more"),
                msg("grown-2", Some("grown-1"), 2, "assistant", "yes"),
                msg("grown-3", Some("grown-2"), 3, "user", "again"),
            ];
            for (more, must) in [
                (chain.join("\n"), true),
                (msg("grown-1", Some(other), 1, "user", "aside"), false),
                (msg("grown-1", None, 1, "user", "anew"), false),
            ] {
                let Some(after) = read(&format!("{ended}{more}\n")) else {
                    continue;
                };
                let at = format!("{} + {more}", path.display());
                if let Some(view) = TreeView::new(&whole).grown(&after) {
                    same(&view, &TreeView::new(&after), &at);
                    chains += usize::from(must);
                }
            }
        }
        assert!(
            grown > 50 && chains > 50,
            "{grown} cuts grown, {chains} chains"
        );
    }

    /// a → b → {c → d, e → f}; the leaf is f (written last), so e's branch
    /// comes first although c is older.
    pub(crate) fn forked() -> Session {
        let lines = [
            msg("a", None, 1, "user", "one"),
            msg("b", Some("a"), 2, "assistant", "two"),
            msg("c", Some("b"), 3, "user", "left"),
            msg("d", Some("c"), 4, "assistant", "left answer"),
            msg("e", Some("b"), 5, "user", "right"),
            msg("f", Some("e"), 6, "assistant", "right answer"),
        ];
        session(&lines.iter().map(String::as_str).collect::<Vec<_>>())
    }

    /// A row's gutter worked out from its ancestors is the one the row by
    /// row pass gives, in every test session, under every filter, with
    /// and without folds (every foldable row folded, and every third).
    #[test]
    fn one_rows_gutter_is_the_passes() {
        let mut checked = 0;
        for path in crate::session::read::file::test_session_files() {
            let Ok(s) = Session::open(&path) else {
                continue;
            };
            let view = TreeView::new(&s);
            let all = view.rows(&s, Filter::All, &HashSet::new());
            let foldable: Vec<u32> = all
                .rows
                .iter()
                .filter(|r| r.foldable())
                .map(|r| r.node)
                .collect();
            let folds = [
                HashSet::new(),
                foldable.iter().copied().collect(),
                foldable.iter().step_by(3).copied().collect(),
            ];
            for filter in Filter::CYCLE {
                for folded in &folds {
                    let rows = view.rows(&s, filter, folded);
                    for marks in [true, false] {
                        let pass: Vec<String> = rows.gutter_rows(marks).collect();
                        for (i, g) in pass.iter().enumerate() {
                            assert_eq!(&rows.gutter(i, marks), g, "{} row {i}", path.display());
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// What a row costs: a listing of a million entries holds a million.
    #[test]
    fn rows_are_small() {
        assert_eq!(std::mem::size_of::<Row>(), 16);
    }

    #[test]
    fn nests_only_at_forks_with_the_active_branch_first() {
        let s = forked();
        assert_eq!(
            layout(&s, Filter::Default, &HashSet::new()),
            vec![
                "+user: one",
                "assistant: two",
                "  +user: right",
                "    assistant: right answer",
                "  +user: left",
                "    assistant: left answer",
            ]
        );
    }

    #[test]
    fn connectors_as_pi_draws_them() {
        let s = forked();
        assert_eq!(
            drawn(&s, Filter::Default),
            vec![
                "user: one",
                "assistant: two",
                "├─ user: right",
                "│     assistant: right answer",
                "└─ user: left",
                "      assistant: left answer",
            ]
        );
    }

    #[test]
    fn gutters_carry_pi_s_fold_marks() {
        let s = forked();
        let view = TreeView::new(&s);
        let right = s.find("e").expect("e");
        let folded: HashSet<u32> = [right].into();
        let rows = view.rows(&s, Filter::Default, &folded);
        // The root folds without a connector: pi marks it only once folded.
        assert_eq!(rows.gutters(true), vec!["", "", "├⊞ ", "└⊟ ", "      "]);
        let rows = view.rows(&s, Filter::Default, &[s.find("a").expect("a")].into());
        assert_eq!(rows.gutters(true), vec!["⊞ "]);
        assert_eq!(rows.connectors(), vec![""]);
    }

    #[test]
    fn a_fork_of_hidden_entries_does_not_nest() {
        // b's second child is a label pi's default view hides: b is no
        // fork there, but it is with every entry shown.
        let label = r#"{"type":"label","id":"l","parentId":"b","timestamp":"2026-01-01T00:00:09.000Z","targetId":"a","label":"start"}"#;
        let a = msg("a", None, 1, "user", "one");
        let b = msg("b", Some("a"), 2, "assistant", "two");
        let c = msg("c", Some("b"), 3, "user", "three");
        let s = session(&[&a, &b, &c, label]);
        assert_eq!(
            drawn(&s, Filter::Default),
            vec!["user: one", "assistant: two", "user: three"]
        );
        assert_eq!(
            drawn(&s, Filter::All),
            vec![
                "user: one",
                "assistant: two",
                "├─ [label: start]",
                "└─ user: three"
            ]
        );
    }

    #[test]
    fn connectors_of_nested_forks_and_several_roots() {
        // a → {b → {c, d}, e}, and a second root r.
        let lines = [
            msg("a", None, 1, "user", "a"),
            msg("b", Some("a"), 2, "assistant", "b"),
            msg("c", Some("b"), 3, "user", "c"),
            msg("d", Some("b"), 4, "user", "d"),
            msg("e", Some("a"), 5, "assistant", "e"),
            msg("r", None, 6, "user", "r"),
        ];
        let s = session(&lines.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(
            drawn(&s, Filter::Default),
            vec![
                // The leaf's root first; roots take no connector.
                "user: r",
                "user: a",
                "├─ assistant: b",
                "│  ├─ user: c",
                "│  └─ user: d",
                "└─ assistant: e",
            ]
        );
    }

    #[test]
    fn marks_the_leaf_and_its_path() {
        let s = forked();
        let view = TreeView::new(&s);
        let mark = |id: &str| view.mark(s.find(id).expect("entry"));
        assert_eq!(mark("f"), Mark::Leaf);
        assert_eq!(mark("e"), Mark::Path);
        assert_eq!(mark("a"), Mark::Path);
        assert_eq!(mark("c"), Mark::None);
    }

    #[test]
    fn folding_hides_descendants_and_keeps_the_fold_mark() {
        let s = forked();
        let view = TreeView::new(&s);
        let e = s.find("e").expect("e");
        let folded: HashSet<u32> = [e].into();
        let rows = view.rows(&s, Filter::Default, &folded);
        let r = rows.row_of(e).expect("a row");
        assert!(rows.rows[r].folded() && rows.rows[r].foldable());
        let f = s.find("f").expect("f");
        assert_eq!(rows.row_of(f), None);
        assert_eq!(rows.nearest_row(&view, f), Some(r));
    }

    #[test]
    fn user_only_filter_reattaches_to_visible_ancestors() {
        let s = forked();
        assert_eq!(
            layout(&s, Filter::UserOnly, &HashSet::new()),
            vec!["+user: one", "  user: right", "  user: left"]
        );
        assert_eq!(
            drawn(&s, Filter::UserOnly),
            vec!["user: one", "├─ user: right", "└─ user: left"]
        );
    }

    #[test]
    fn branch_points_are_found_up_and_down() {
        let s = forked();
        let rows = TreeView::new(&s).rows(&s, Filter::Default, &HashSet::new());
        // From the root, down goes to the first child of the fork.
        assert_eq!(rows.segment_start_down(0), 2);
        // From the answer under "right", up goes to "right".
        assert_eq!(rows.segment_start_up(3), 2);
        // From "right" itself, up goes on to the root.
        assert_eq!(rows.segment_start_up(2), 0);
    }

    #[test]
    fn tool_only_turns_hide_unless_they_are_the_leaf() {
        let call = r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"x.rs"}}],"stopReason":"toolUse"}}"#;
        let result = r#"{"type":"message","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"fn main"}]}}"#;
        let a = msg("a", None, 1, "user", "go");
        let s = session(&[&a, call, result]);
        assert_eq!(
            layout(&s, Filter::Default, &HashSet::new()),
            vec!["+user: go", "[read: x.rs]"]
        );
        assert_eq!(
            layout(&s, Filter::NoTools, &HashSet::new()),
            vec!["user: go"]
        );
        let s = session(&[&a, call]);
        assert_eq!(
            layout(&s, Filter::Default, &HashSet::new()),
            vec!["+user: go", "assistant: (no content)"]
        );
    }
}
