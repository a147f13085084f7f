//! The entry tree pane: selection kept by entry id, pi's filters and folds,
//! the `/` search and its hits, and drawing through tui-tree-widget.

use crate::safe_text as text;
use crate::tui::clock::Clock;
use crate::tui::input::keymap::{Action, Keymap, Scope};
use crate::tui::look::strings;
use crate::tui::look::theme::Theme;
use crate::tui::model::entry_tree::{Filter, Rows};
use crate::tui::model::loaded::{LoadedSession, OpenError, RowKind};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, StatefulWidget};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use tui_tree_widget::{Tree, TreeItem, TreeState};

/// What the pane holds.
#[derive(Debug, Clone, Default)]
pub enum Content {
    /// Nothing chosen yet.
    #[default]
    Empty,
    Loading(PathBuf),
    /// The session could not be read; the error as its type.
    Failed {
        path: PathBuf,
        error: OpenError,
    },
    Ready(Arc<LoadedSession>),
}

/// The `/` search: the query being typed or in force, and its hits.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// True while the query is being typed.
    pub editing: bool,
    pub query: String,
    /// Rows that match, in order.
    pub hits: Vec<u32>,
}

#[derive(Debug, Clone, Default)]
pub struct TreePane {
    pub content: Content,
    pub filter: Filter,
    /// Folded entries (node indices of the loaded session).
    pub folded: HashSet<u32>,
    pub rows: Rows,
    pub selected: usize,
    /// The first row shown.
    pub offset: usize,
    /// Rows that fit in the pane (set from the layout).
    pub height: usize,
    pub label_times: bool,
    pub search: Search,
    /// Keep the cursor on the leaf as the session grows.
    pub follow: bool,
}

impl TreePane {
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
    pub fn set_session(&mut self, loaded: Arc<LoadedSession>) {
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
            loaded.leaf
        } else {
            selected_id
                .and_then(|id| loaded.session.find(&id))
                .or(loaded.leaf)
        };
        self.content = Content::Ready(loaded);
        self.rebuild(target);
        if !same_file {
            self.center();
        }
    }

    /// Recomputes rows and puts the cursor on `target` or its nearest
    /// visible ancestor.
    fn rebuild(&mut self, target: Option<u32>) {
        let Some(t) = self.loaded().cloned() else {
            self.rows = Rows::default();
            return;
        };
        self.rows = Rows::build(&t, self.filter, &self.folded);
        self.selected = target
            .and_then(|n| self.rows.nearest_row(&t, n))
            .unwrap_or(0);
        self.search.hits = self.rows.search(&t, &self.search.query);
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
            Action::TreeSearch => {
                self.search.query.clear();
                self.search.editing = true;
            }
            Action::TreeClearSearch => self.finish_search(false),
            Action::TreeNextHit => self.jump_hit(true),
            Action::TreePreviousHit => self.jump_hit(false),
            Action::TreeJumpToLeaf => {
                if let Some(t) = self.loaded().cloned() {
                    if let Some(r) = t.leaf.and_then(|l| self.rows.nearest_row(&t, l)) {
                        self.selected = r;
                        self.center();
                    }
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
        if row.foldable && !row.folded {
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
        if row.folded {
            self.folded.remove(&row.node);
            self.rebuild(Some(row.node));
        } else {
            self.selected = self.rows.segment_start_down(self.selected);
        }
    }

    /// A character typed into the `/` search box (or Backspace as `None`).
    pub fn edit_search(&mut self, c: Option<char>) -> bool {
        match c {
            Some(c) => self.search.query.push(c),
            None => {
                self.search.query.pop();
            }
        }
        let Some(t) = self.loaded().cloned() else {
            return false;
        };
        self.search.hits = self.rows.search(&t, &self.search.query);
        // As in a pager, the cursor goes to the first hit at or after it.
        let before = self.selected_node();
        if let Some(&hit) = self
            .search
            .hits
            .iter()
            .find(|&&h| h as usize >= self.selected)
            .or(self.search.hits.first())
        {
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

    /// Selects an entry by id (a deep-search hit); false if it is not there.
    pub fn select_id(&mut self, id: &str) -> bool {
        let Some(t) = self.loaded().cloned() else {
            return false;
        };
        let Some(node) = t.session.find(id) else {
            return false;
        };
        if self.rows.row_of(node).is_none() {
            // Show it even if the filter or a fold hid it.
            self.folded.clear();
            self.filter = if self.filter.shows(&t, node) {
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
        let h = self.height.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + h {
            self.offset = self.selected + 1 - h;
        }
        let max_offset = self.rows.len().saturating_sub(h);
        self.offset = self.offset.min(max_offset);
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
        if self.follow {
            s.push_str(" [follow]");
        }
        s
    }
}

/// What drawing the pane needs besides the pane itself.
pub struct DrawContext<'a> {
    pub theme: &'a Theme,
    /// For the texts that name a key.
    pub keymap: &'a Keymap,
    pub clock: Clock,
    pub focused: bool,
    pub block: Block<'a>,
}

/// Draws the pane into `area`.
pub fn draw(frame: &mut Frame, area: Rect, pane: &TreePane, cx: DrawContext<'_>) {
    let theme = cx.theme;
    let inner = cx.block.inner(area);
    frame.render_widget(cx.block, area);
    let (list_area, search_area) = if pane.search.editing || !pane.search.query.is_empty() {
        let h = inner.height.saturating_sub(1);
        (
            Rect { height: h, ..inner },
            Some(Rect {
                y: inner.y + h,
                height: inner.height.min(1),
                ..inner
            }),
        )
    } else {
        (inner, None)
    };
    if let Some(r) = search_area {
        let hits = match pane.search.hits.len() {
            0 if !pane.search.query.is_empty() => " (no match)".to_string(),
            0 => String::new(),
            n => strings::search_hits(
                n,
                &cx.keymap.keys_for(Scope::Tree, Action::TreeNextHit),
                &cx.keymap.keys_for(Scope::Tree, Action::TreePreviousHit),
            ),
        };
        let cursor = if pane.search.editing { "▏" } else { "" };
        let line = Line::from(vec![
            Span::styled("/", theme.accent),
            Span::raw(text::clean_line(&pane.search.query)),
            Span::styled(cursor, theme.accent),
            Span::styled(hits, theme.muted),
        ]);
        frame.render_widget(Paragraph::new(line), r);
    }
    let message = |frame: &mut Frame, msg: Line<'_>| {
        frame.render_widget(Paragraph::new(msg), list_area);
    };
    match &pane.content {
        Content::Empty => message(
            frame,
            Line::styled("Choose a session to see its entries.", theme.muted),
        ),
        Content::Loading(path) => message(
            frame,
            Line::styled(
                format!("Reading {}…", text::clean_line(&file_name(path))),
                theme.muted,
            ),
        ),
        Content::Failed { path, error } => frame.render_widget(
            Paragraph::new(vec![
                Line::styled(
                    format!("Cannot show {}", text::clean_line(&file_name(path))),
                    theme.error,
                ),
                Line::raw(text::clean_line(&error.to_string())),
            ])
            .wrap(ratatui::widgets::Wrap { trim: false }),
            list_area,
        ),
        Content::Ready(t) if pane.rows.is_empty() => {
            let hint = if pane.filter == Filter::Default {
                "No entries yet: this session has only its header.".to_string()
            } else {
                strings::no_filter_match(
                    &cx.keymap.keys_for(Scope::Tree, Action::TreeFilterDefault),
                )
            };
            message(frame, Line::styled(hint, theme.muted));
            let _ = t;
        }
        Content::Ready(t) => draw_rows(frame.buffer_mut(), list_area, pane, t, theme, cx.clock),
    }
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Draws the rows in view through tui-tree-widget. Only the rows on screen
/// (and the rows they nest under) become widget items, so a frame costs the
/// same for a session of 100 entries or 100,000.
fn draw_rows(
    buf: &mut Buffer,
    area: Rect,
    pane: &TreePane,
    t: &LoadedSession,
    theme: &Theme,
    clock: Clock,
) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    let start = pane.offset.min(pane.rows.len());
    let end = (start + usize::from(area.height)).min(pane.rows.len());
    // The window, plus every row a window row nests under.
    let mut needed: BTreeSet<usize> = BTreeSet::new();
    for r in start..end {
        let mut cur = Some(r);
        while let Some(c) = cur {
            if !needed.insert(c) {
                break;
            }
            cur = pane.rows.rows[c].container.map(|p| p as usize);
        }
    }
    let above = needed.range(..start).count();
    let hits: HashSet<u32> = pane.search.hits.iter().copied().collect();
    let mut children: HashMap<Option<usize>, Vec<TreeItem<'_, usize>>> = HashMap::new();
    let mut opened: Vec<usize> = Vec::new();
    for &r in needed.iter().rev() {
        let row = &pane.rows.rows[r];
        let mut kids = children.remove(&Some(r)).unwrap_or_default();
        kids.reverse();
        if !kids.is_empty() {
            opened.push(r);
        }
        let line = row_line(pane, t, r, hits.contains(&(r as u32)), theme, clock);
        let item =
            TreeItem::new(r, line.clone(), kids).unwrap_or_else(|_| TreeItem::new_leaf(r, line));
        children
            .entry(row.container.map(|c| c as usize))
            .or_default()
            .push(item);
    }
    let mut items = children.remove(&None).unwrap_or_default();
    items.reverse();
    let path_of = |r: usize| -> Vec<usize> {
        let mut p = vec![r];
        let mut cur = pane.rows.rows[r].container;
        while let Some(c) = cur {
            p.push(c as usize);
            cur = pane.rows.rows[c as usize].container;
        }
        p.reverse();
        p
    };
    let Ok(tree) = Tree::new(&items) else {
        return;
    };
    let tree = tree
        .highlight_style(theme.selected)
        .highlight_symbol("› ")
        .node_open_symbol("")
        .node_closed_symbol("")
        .node_no_children_symbol("");
    let mut state = TreeState::default();
    for r in opened {
        state.open(path_of(r));
    }
    // A first pass on a one-cell scratch buffer tells the widget how many
    // rows there are, so it accepts the scroll past the nesting rows.
    let scratch_area = Rect::new(0, 0, 1, 1);
    let mut scratch = Buffer::empty(scratch_area);
    StatefulWidget::render(tree.clone(), scratch_area, &mut scratch, &mut state);
    state.scroll_down(above);
    if (start..end).contains(&pane.selected) {
        state.select(path_of(pane.selected));
    }
    StatefulWidget::render(tree, area, buf, &mut state);
}

/// One row: fold mark, path mark, `[label]`, label time, pi's text.
fn row_line<'a>(
    pane: &TreePane,
    t: &'a LoadedSession,
    r: usize,
    hit: bool,
    theme: &Theme,
    clock: Clock,
) -> Line<'a> {
    let row = &pane.rows.rows[r];
    let node = row.node;
    let mut spans: Vec<Span<'a>> = Vec::with_capacity(6);
    spans.push(Span::styled(
        if row.folded {
            "⊞ "
        } else if row.foldable {
            "⊟ "
        } else {
            "  "
        },
        theme.muted,
    ));
    let active = t.active.get(node as usize).copied().unwrap_or(false);
    if Some(node) == t.leaf {
        spans.push(Span::styled("◉ ", theme.leaf_mark));
    } else if active {
        spans.push(Span::styled("• ", theme.path_mark));
    } else {
        spans.push(Span::raw("  "));
    }
    if let Some(label) = t.session.label_of(node) {
        spans.push(Span::styled(
            format!("[{}] ", text::clean_line(&label.label)),
            theme.label,
        ));
        if pane.label_times {
            if let Some(ms) = label
                .timestamp
                .as_deref()
                .and_then(crate::jstext::date::parse_ms)
            {
                spans.push(Span::styled(
                    format!("{} ", clock.short_time(ms)),
                    theme.muted,
                ));
            }
        }
    }
    let kind = t
        .kinds
        .get(node as usize)
        .copied()
        .unwrap_or(RowKind::Setting);
    let text = t.text(node);
    let split = kind.prefix_len(text);
    let (prefix, rest) = text.split_at(split);
    let (prefix_style, rest_style) = styles(kind, theme);
    if !prefix.is_empty() {
        spans.push(Span::styled(prefix, prefix_style));
    }
    let rest_style = if hit {
        rest_style.patch(theme.hit)
    } else {
        rest_style
    };
    spans.push(Span::styled(rest, rest_style));
    Line::from(spans)
}

fn styles(kind: RowKind, theme: &Theme) -> (Style, Style) {
    match kind {
        RowKind::User => (theme.user, theme.text),
        RowKind::Assistant => (theme.assistant, theme.text),
        RowKind::AssistantQuiet => (theme.assistant, theme.muted),
        RowKind::AssistantError => (theme.assistant, theme.error),
        RowKind::Tool | RowKind::Bash => (theme.tool, theme.tool),
        RowKind::Custom => (theme.custom, theme.custom),
        RowKind::Compaction => (theme.compaction, theme.compaction),
        RowKind::BranchSummary => (theme.branch_summary, theme.branch_summary),
        RowKind::Setting => (theme.setting, theme.setting),
    }
}
