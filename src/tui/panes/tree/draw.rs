//! Drawing the entry tree pane: the search line, the empty and failed
//! states, and the rows in view through tui-tree-widget.

use super::{Content, TreePane};
use crate::safe_text as text;
use crate::tui::clock::Clock;
use crate::tui::input::keymap::{Action, Keymap, Scope};
use crate::tui::look::strings;
use crate::tui::look::theme::Theme;
use crate::tui::model::entry_tree::{Filter, Mark};
use crate::tui::model::loaded::{LoadedSession, RowKind};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, StatefulWidget};
use std::collections::{BTreeSet, HashMap, HashSet};
use tui_tree_widget::{Tree, TreeItem, TreeState};

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
pub(super) fn draw(frame: &mut Frame, area: Rect, pane: &TreePane, cx: DrawContext<'_>) {
    // Without the focus the selection is drawn dimmer.
    let unfocused;
    let theme = if cx.focused {
        cx.theme
    } else {
        unfocused = Theme {
            selected: cx.theme.selection(false),
            ..cx.theme.clone()
        };
        &unfocused
    };
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
    match t.view.mark(node) {
        Mark::Leaf => spans.push(Span::styled("◉ ", theme.leaf_mark)),
        Mark::Path => spans.push(Span::styled("• ", theme.path_mark)),
        Mark::None => spans.push(Span::raw("  ")),
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
