//! The entry tree pane: selection kept by entry id, pi's filters and folds,
//! the search typed into it and its hits, where pi resumes even when the
//! filter hides that entry, and what the model remembers at the selected
//! entry; `draw.rs` draws it.

use crate::session::Remembered;
use crate::session::line::entry::Kind;
use crate::tui::input::keymap::Action;
use crate::tui::model::entry_tree::{self, Filter, ResumePoint, Rows};
use crate::tui::model::loaded::{LoadedSession, OpenError, ReadProgress};
use crate::tui::model::preview_doc::REMEMBERED_WITH_PREVIEW;
use crate::tui::overlays::text_input::{Edit, TextInput};
use ratatui::Frame;
use ratatui::layout::Rect;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

mod draw;
pub use draw::DrawContext;

/// What the pane holds.
#[derive(Debug, Clone, Default)]
pub enum Content {
    /// Nothing chosen yet.
    #[default]
    Empty,
    /// Being read; how far, once a long read says.
    Loading(PathBuf, Option<ReadProgress>),
    /// The session could not be read; the error as its type.
    Failed {
        path: PathBuf,
        error: OpenError,
    },
    Ready(Arc<LoadedSession>),
}

/// The search: the query being typed or kept, and its hits.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// True while the query is being typed.
    editing: bool,
    /// The query, with its cursor.
    query: TextInput,
    /// Rows that match, in order.
    hits: Vec<u32>,
}

#[derive(Debug, Clone, Default)]
pub struct TreePane {
    content: Content,
    filter: Filter,
    /// Folded entries (node indices of the loaded session).
    folded: HashSet<u32>,
    rows: Rows,
    resume: ResumePoint,
    selected: usize,
    /// The first row shown.
    offset: usize,
    /// Rows that fit in the pane (set from the layout).
    height: usize,
    label_times: bool,
    search: Search,
    /// Keep the cursor on the leaf as the session grows.
    follow: bool,
    /// What the model remembers with the previewed entry as the leaf:
    /// the rest is drawn dimmed. Worked out once per selection.
    memory: Option<Remembered>,
    /// Per compaction row shown so far: how many entries it replaced
    /// (worked out when the row first comes into view).
    replaced: HashMap<u32, usize>,
    /// A long session just opened whose rows are not laid out yet: they
    /// will select its leaf, whose preview is asked for first, so the two
    /// are worked out side by side (see [`TreePane::lay_out`]).
    waiting: bool,
}

impl TreePane {
    /// Draws the pane into `area`.
    pub fn draw(&self, frame: &mut Frame, area: Rect, cx: DrawContext<'_>) {
        draw::draw(frame, area, self, cx);
    }

    /// What the pane holds.
    pub fn content(&self) -> &Content {
        &self.content
    }

    /// Whether a session is shown.
    pub fn is_ready(&self) -> bool {
        matches!(self.content, Content::Ready(_))
    }

    /// Whether the session shown (or last asked for) could not be read.
    pub fn has_failed(&self) -> bool {
        matches!(self.content, Content::Failed { .. })
    }

    /// A session is being read: said so unless a previous tree is shown,
    /// which stays on screen until the new one is read.
    pub fn show_loading(&mut self, path: PathBuf) {
        if !self.is_ready() {
            self.content = Content::Loading(path, None);
        }
    }

    /// A long read of `path` has come this far: said so, in place of a
    /// previous tree (which would stand for the wrong session for long).
    pub fn show_reading(&mut self, path: PathBuf, progress: ReadProgress) {
        if self.is_ready() {
            self.clear_rows();
        }
        self.content = Content::Loading(path, Some(progress));
    }

    /// The session could not be read.
    pub fn show_failed(&mut self, path: PathBuf, error: OpenError) {
        self.content = Content::Failed { path, error };
        self.clear_rows();
    }

    /// Shows nothing (the session shown was deleted here, on purpose).
    pub fn clear(&mut self) {
        self.content = Content::Empty;
        self.clear_rows();
    }

    fn clear_rows(&mut self) {
        self.waiting = false;
        self.rows = Rows::default();
        self.resume = ResumePoint::default();
        self.memory = None;
        self.replaced.clear();
    }

    /// Whether the model sees `node` with the previewed entry as the leaf
    /// (true until that is worked out).
    pub fn remembers(&self, node: u32) -> bool {
        self.memory.as_ref().is_none_or(|m| m.sees(node))
    }

    /// How many entries the compaction `node` replaced, once its row was
    /// in view.
    pub fn replaced_by(&self, node: u32) -> Option<usize> {
        self.replaced.get(&node).copied()
    }

    /// Works out what the model remembers at the previewed entry when the
    /// selection moved, and what the compactions in view replaced.
    fn refresh_memory(&mut self) {
        let Some(t) = self.loaded().cloned() else {
            return;
        };
        let leaf = self.preview_node();
        if self.memory.as_ref().is_none_or(|m| m.leaf != leaf) {
            // A long session's comes with its preview.
            let here = t.session.entries.len() < REMEMBERED_WITH_PREVIEW;
            self.memory = here.then(|| t.session.remembered_at(leaf));
        }
        let end = (self.offset + self.height.max(1)).min(self.rows.len());
        for r in self.offset.min(end)..end {
            let node = self.rows.rows[r].node;
            if t.entry(node).kind() == Kind::Compaction {
                self.replaced
                    .entry(node)
                    .or_insert_with(|| t.session.replaced_by(node));
            }
        }
    }

    /// What the model remembers at an entry, worked out with its preview
    /// (see [`REMEMBERED_WITH_PREVIEW`]): taken if that entry is still the
    /// one previewed.
    pub fn remembered_ready(&mut self, r: Remembered) {
        if r.leaf == self.preview_node() {
            self.memory = Some(r);
        }
    }

    /// Row `r`'s gutter, pi's connectors and fold marks before its text
    /// (worked out for the rows drawn: a deep tree's gutters for every row
    /// took more memory than the session).
    pub fn gutter(&self, r: usize) -> String {
        self.rows.gutter(r, true)
    }

    /// Where pi resumes, as the rows show it.
    pub fn resume_point(&self) -> &ResumePoint {
        &self.resume
    }

    /// The entry the preview shows: the selected one, or the leaf itself
    /// when the selected row stands for a leaf the filter hides (the
    /// context pi resumes with).
    pub fn preview_node(&self) -> Option<u32> {
        if self.waiting {
            return self.loaded()?.view.leaf;
        }
        let node = self.selected_node()?;
        match self.resume {
            ResumePoint {
                row: Some(row),
                hidden_leaf: Some(leaf),
                ..
            } if row == self.selected => Some(leaf),
            _ => Some(node),
        }
    }

    /// The search's words and hits: (query, hits, the hit under the cursor).
    pub fn search_state(&self) -> (&str, &[u32], Option<usize>) {
        let at = self
            .search
            .hits
            .iter()
            .position(|&h| h as usize == self.selected);
        (&self.search.query.text, &self.search.hits, at)
    }

    /// The rows shown, in order.
    pub fn rows(&self) -> &Rows {
        &self.rows
    }

    /// The row under the cursor.
    pub fn selected_row(&self) -> usize {
        self.selected
    }

    /// Folded entries (node indices of the loaded session).
    pub fn folded(&self) -> &HashSet<u32> {
        &self.folded
    }

    /// The first row shown.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Whether the search's query is being typed.
    pub fn is_typing_search(&self) -> bool {
        self.search.editing
    }

    /// Whether the search line is shown (typed, or kept for the hit keys).
    pub fn has_search_line(&self) -> bool {
        self.search.editing || !self.search.query.text.is_empty()
    }

    /// Turns following the leaf on or off; on, the cursor goes to the
    /// leaf at once. Returns whether it is on.
    pub fn toggle_follow(&mut self) -> bool {
        self.follow = !self.follow;
        if self.follow {
            self.on_action(Action::TreeJumpToLeaf);
        }
        self.follow
    }

    pub fn loaded(&self) -> Option<&Arc<LoadedSession>> {
        match &self.content {
            Content::Ready(t) => Some(t),
            _ => None,
        }
    }

    /// The entry under the cursor.
    pub fn selected_node(&self) -> Option<u32> {
        self.loaded()?;
        self.rows.get(self.selected).map(|r| r.node)
    }

    /// Shows a freshly read session. When it is the same file as before
    /// (a reload), the selection and folds follow their entry ids.
    /// Returns true when the rows of a long session opened at its leaf are
    /// left to [`TreePane::lay_out`] (only when `may_wait`): laying out ten
    /// million rows takes half a second, and the preview need not wait.
    pub fn set_session(&mut self, loaded: Arc<LoadedSession>, may_wait: bool) -> bool {
        let previous = self.loaded().cloned();
        let same_file = previous
            .as_ref()
            .is_some_and(|p| p.session.path == loaded.session.path);
        let keep_id = |node: u32| -> Option<String> {
            let p = previous.as_ref()?;
            p.entry(node).id_str().map(str::to_string)
        };
        let (selected_id, folded_ids): (Option<String>, Vec<String>) = if same_file {
            (
                self.selected_node().and_then(keep_id),
                self.folded.iter().filter_map(|&n| keep_id(n)).collect(),
            )
        } else {
            (None, Vec::new())
        };
        if !same_file {
            self.filter = Filter::Default;
            self.search = Search::default();
            self.offset = 0;
        }
        self.folded = folded_ids
            .iter()
            .filter_map(|id| loaded.session.find(id))
            .collect();
        let target = if self.follow {
            loaded.view.leaf
        } else {
            selected_id
                .and_then(|id| loaded.session.find(&id))
                .or(loaded.view.leaf)
        };
        let wait = may_wait
            && !same_file
            && target == loaded.view.leaf
            && loaded.session.entries.len() >= REMEMBERED_WITH_PREVIEW;
        self.content = Content::Ready(loaded);
        self.memory = None;
        self.replaced.clear();
        if wait {
            self.rows = Rows::default();
            self.resume = ResumePoint::default();
            self.waiting = true;
            return true;
        }
        self.rebuild(target);
        if !same_file {
            self.center();
        }
        false
    }

    /// Lays out the rows [`TreePane::set_session`] left for later.
    pub fn lay_out(&mut self) {
        if let Some(leaf) = self.loaded().filter(|_| self.waiting).map(|t| t.view.leaf) {
            self.rebuild(leaf);
            self.center();
        }
    }

    /// Whether the rows of the session shown are still to be laid out.
    pub fn is_waiting(&self) -> bool {
        self.waiting
    }

    /// Recomputes rows and puts the cursor on `target` or its nearest
    /// visible ancestor.
    fn rebuild(&mut self, target: Option<u32>) {
        self.waiting = false;
        let Some(t) = self.loaded().cloned() else {
            self.clear_rows();
            return;
        };
        let room = std::mem::take(&mut self.rows);
        self.rows = entry_tree::rows(&t, self.filter, &self.folded, room);
        let filter = self.filter;
        self.resume = self
            .rows
            .resume_point(&t.view, &t.session, |n| t.shows(filter, n));
        self.selected = target
            .and_then(|n| self.rows.nearest_row(&t.view, n))
            .unwrap_or(0);
        self.search.hits = entry_tree::search(&self.rows, &t, &self.search.query.text);
        self.keep_visible();
    }

    /// Applies a key's action; returns true when the selection moved to
    /// another entry (the preview follows).
    pub fn on_action(&mut self, action: Action) -> bool {
        let before = self.selected_node();
        let page = self.height.max(1);
        let moved = action.moved(self.selected, self.rows.len(), page);
        match action {
            _ if moved.is_some() => self.selected = moved.unwrap_or(self.selected),
            Action::TreeFoldOrUp => self.fold_or_up(),
            Action::TreeUnfoldOrDown => self.unfold_or_down(),
            Action::TreeFilterDefault => self.set_filter(Filter::Default),
            Action::TreeFilterNoTools => self.set_filter(self.filter.toggle(Filter::NoTools)),
            Action::TreeFilterUserOnly => self.set_filter(self.filter.toggle(Filter::UserOnly)),
            Action::TreeFilterLabeledOnly => {
                self.set_filter(self.filter.toggle(Filter::LabeledOnly))
            }
            Action::TreeFilterAll => self.set_filter(self.filter.toggle(Filter::All)),
            Action::TreeFilterNext => self.set_filter(self.filter.next()),
            Action::TreeFilterPrevious => self.set_filter(self.filter.previous()),
            Action::TreeClearSearch => self.finish_search(false),
            Action::TreeNextHit => self.jump_hit(true),
            Action::TreePreviousHit => self.jump_hit(false),
            Action::TreeJumpToLeaf => {
                if let Some(r) = self.resume.row {
                    self.selected = r;
                    self.center();
                }
            }
            Action::TreeLabelTimes => self.label_times = !self.label_times,
            _ => {}
        }
        self.keep_visible();
        self.selected_node() != before
    }

    fn set_filter(&mut self, filter: Filter) {
        let target = self.selected_node();
        self.filter = filter;
        // pi clears folds when the filter changes.
        self.folded.clear();
        self.rebuild(target);
    }

    fn fold_or_up(&mut self) {
        let Some(row) = self.rows.get(self.selected).copied() else {
            return;
        };
        if row.foldable() && !row.folded() {
            self.folded.insert(row.node);
            self.rebuild(Some(row.node));
        } else {
            self.selected = self.rows.segment_start_up(self.selected);
        }
    }

    fn unfold_or_down(&mut self) {
        let Some(row) = self.rows.get(self.selected).copied() else {
            return;
        };
        if row.folded() {
            self.folded.remove(&row.node);
            self.rebuild(Some(row.node));
        } else {
            self.selected = self.rows.segment_start_down(self.selected);
        }
    }

    /// A character typed in the tree (or Backspace as `None`): it goes into
    /// the search, as in pi's `/tree`, on from a query kept before.
    pub fn edit_search(&mut self, edit: Edit) -> bool {
        if matches!(edit, Edit::Do(_)) && self.search.query.text.is_empty() {
            return false;
        }
        self.search.editing = true;
        if !self.search.query.apply(edit) {
            return false;
        }
        let Some(t) = self.loaded().cloned() else {
            return false;
        };
        self.search.hits = entry_tree::search(&self.rows, &t, &self.search.query.text);
        // As in pi's `/tree`, the cursor goes to the first hit from the top.
        let before = self.selected_node();
        if let Some(&hit) = self.search.hits.first() {
            self.selected = hit as usize;
            self.center();
        }
        self.selected_node() != before
    }

    /// Keeps the query for the hit keys, or drops it.
    pub fn finish_search(&mut self, keep: bool) {
        self.search.editing = false;
        if !keep {
            self.search.query.clear();
            self.search.hits.clear();
        }
    }

    fn jump_hit(&mut self, forward: bool) {
        let hits = &self.search.hits;
        let cur = self.selected as u32;
        let next = if forward {
            hits.iter().find(|&&h| h > cur).or(hits.first())
        } else {
            hits.iter().rev().find(|&&h| h < cur).or(hits.last())
        };
        if let Some(&h) = next {
            self.selected = h as usize;
            self.center();
        }
    }

    /// Selects the row at `y` rows below the top of the list.
    pub fn click(&mut self, y: usize) -> bool {
        let before = self.selected_node();
        let row = self.offset + y;
        if row < self.rows.len() {
            self.selected = row;
        }
        self.refresh_memory();
        self.selected_node() != before
    }

    /// Scrolls by mouse wheel, moving the cursor along.
    pub fn wheel(&mut self, down: bool) -> bool {
        self.on_action(if down { Action::Down } else { Action::Up })
    }

    /// Sets the rows that fit, keeping the cursor in view.
    pub fn set_height(&mut self, height: usize) {
        self.height = height;
        self.keep_visible();
    }

    /// Selects an entry by id; false if it is not there. A deep-search
    /// hit is shown even if the filter or a fold hid it; with
    /// `keep_filter` (a branch's new leaf) the row that stands for it is
    /// selected and the filter stays.
    pub fn select_id(&mut self, id: &str, keep_filter: bool) -> bool {
        let Some(t) = self.loaded().cloned() else {
            return false;
        };
        let Some(node) = t.session.find(id) else {
            return false;
        };
        if keep_filter {
            self.rebuild(Some(node));
            self.center();
            return true;
        }
        if self.rows.row_of(node).is_none() {
            // Show it even if the filter or a fold hid it.
            self.folded.clear();
            self.filter = if t.shows(self.filter, node) {
                self.filter
            } else {
                Filter::All
            };
        }
        self.rebuild(Some(node));
        self.center();
        true
    }

    fn keep_visible(&mut self) {
        self.offset = crate::tui::look::layout::offset_showing(
            self.selected,
            self.offset,
            self.height,
            self.rows.len(),
        );
        self.refresh_memory();
    }

    /// Puts the cursor in the middle of the pane, as pi does after a jump.
    fn center(&mut self) {
        let h = self.height.max(1);
        self.offset = self.selected.saturating_sub(h / 2);
        self.keep_visible();
    }

    /// `(12/85) [no-tools] [+label time]`, as pi writes it.
    pub fn position(&self) -> String {
        let mut s = if self.rows.is_empty() {
            "(0/0)".to_string()
        } else {
            format!("({}/{})", self.selected + 1, self.rows.len())
        };
        if let Some(tag) = self.filter.tag() {
            s.push_str(&format!(" [{tag}]"));
        }
        if self.label_times {
            s.push_str(" [+label time]");
        }
        if self.resume.row.is_none() && self.resume.hidden_leaf.is_some() {
            // No row stands for where pi resumes: say so.
            s.push_str(" [◉ hidden]");
        }
        if self.follow {
            s.push_str(" [follow]");
        }
        s
    }
}
