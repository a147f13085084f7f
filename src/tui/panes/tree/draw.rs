//! Drawing the entry tree pane: the search line, the empty and failed
//! states, and the rows in view through tui-tree-widget.

use super::{Content, TreePane};
use crate::safe_text as text;
use crate::session::tree::LabelInfo;
use crate::tui::clock::Clock;
use crate::tui::input::keymap::{Action, Keymap, Scope};
use crate::tui::look::strings;
use crate::tui::look::theme::Theme;
use crate::tui::model::entry_tree::{self, Filter, Mark};
use crate::tui::model::loaded::{LoadedSession, RowKind};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, StatefulWidget};
use std::collections::HashSet;
use tui_tree_widget::{Tree, TreeItem, TreeState};
use unicode_segmentation::UnicodeSegmentation;

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
    let (list_area, search_area) = if pane.search.editing || !pane.search.query.text.is_empty() {
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
        let (query, hits, at) = pane.search_state();
        let count = match hits.len() {
            0 if !query.is_empty() => " no match".to_string(),
            0 => String::new(),
            n => strings::search_hits(
                at,
                n,
                &cx.keymap.keys_for(Scope::Tree, Action::TreeNextHit),
                &cx.keymap.keys_for(Scope::Tree, Action::TreePreviousHit),
            ),
        };
        let (before, after) = if pane.search.editing {
            pane.search.query.split()
        } else {
            (query, "")
        };
        let cursor = if pane.search.editing { "▏" } else { "" };
        let line = Line::from(vec![
            Span::styled(strings::SEARCH_PROMPT, theme.muted),
            Span::styled(text::clean_line(before), theme.accent),
            Span::styled(cursor, theme.accent),
            Span::styled(text::clean_line(after), theme.accent),
            Span::styled(count, theme.muted),
        ]);
        frame.render_widget(Paragraph::new(line), r);
    }
    let message = |frame: &mut Frame, msg: Line<'_>| {
        frame.render_widget(Paragraph::new(msg), list_area);
    };
    match &pane.content {
        Content::Empty => message(frame, Line::styled(strings::TREE_NO_SESSION, theme.muted)),
        Content::Loading(path, progress) => message(
            frame,
            Line::styled(
                strings::tree_reading(
                    &text::clean_line(&file_name(path)),
                    progress.and_then(|p| p.percent()),
                ),
                theme.muted,
            ),
        ),
        Content::Failed { path, error } => frame.render_widget(
            Paragraph::new(vec![
                Line::styled(
                    strings::tree_cannot_show(&text::clean_line(&file_name(path))),
                    theme.error,
                ),
                Line::raw(text::clean_line(&error.to_string())),
            ])
            .wrap(ratatui::widgets::Wrap { trim: false }),
            list_area,
        ),
        Content::Ready(t) if pane.is_waiting() => message(
            frame,
            Line::styled(
                strings::laying_out_rows(t.session.entries.len()),
                theme.muted,
            ),
        ),
        Content::Ready(t) if pane.rows.is_empty() => {
            let hint = if pane.filter == Filter::Default {
                strings::TREE_ONLY_HEADER.to_string()
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

/// Draws the rows in view through tui-tree-widget, as one flat list: pi's
/// gutter is drawn in each row's text (the widget's own indentation cannot
/// draw connectors), and only the rows on screen become widget items, so a
/// frame costs the same for a session of 100 entries or 100,000.
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
    let hits: HashSet<u32> = pane.search.hits.iter().copied().collect();
    let tokens = if hits.is_empty() {
        Vec::new()
    } else {
        entry_tree::tokens(&pane.search.query.text)
    };
    // Columns for a row's text, after the cursor's gutter.
    let width = usize::from(area.width).saturating_sub(2);
    let shift = pan(pane, start..end, width);
    // The rows' labels in one look (see `Session::labels_of`).
    let nodes: Vec<u32> = (start..end).map(|r| pane.rows.rows[r].node).collect();
    let labels = t.session.labels_of(&nodes);
    let items: Vec<TreeItem<'_, usize>> = (start..end)
        .zip(labels)
        .map(|(r, label)| {
            let words: &[String] = if hits.contains(&(r as u32)) {
                &tokens
            } else {
                &[]
            };
            let line = row_line(pane, t, r, label, words, width + shift, theme, clock);
            TreeItem::new_leaf(r, skip_columns(line, shift))
        })
        .collect();
    let Ok(tree) = Tree::new(&items) else {
        return;
    };
    // The selection is painted under the row before the widget draws it,
    // so a hit keeps its own colours on the selected row.
    let tree = tree
        .highlight_symbol("› ")
        .node_open_symbol("")
        .node_closed_symbol("")
        .node_no_children_symbol("");
    let mut state = TreeState::default();
    if (start..end).contains(&pane.selected) {
        let y = area.y + (pane.selected - start) as u16;
        buf.set_style(
            Rect {
                y,
                height: 1,
                ..area
            },
            theme.selected,
        );
        state.select(vec![pane.selected]);
    }
    StatefulWidget::render(tree, area, buf, &mut state);
}

/// How far the rows in view are panned left, so that the selected row's
/// text stays in view however deep its gutter (as pi's `/tree` pans): none
/// while at least a third of the width (4 to 20 columns) is left after the
/// gutter; then the gutter's end moves to a quarter of the width (2 to 12
/// columns) from the left.
fn pan(pane: &TreePane, rows: std::ops::Range<usize>, width: usize) -> usize {
    let gutter = |r: usize| text::width(&pane.gutter(r));
    if !rows.contains(&pane.selected) {
        return 0;
    }
    // Where the selected row's text starts: after its gutter and its mark.
    let anchor = gutter(pane.selected) + 2;
    let keep = (width / 3).clamp(4, 20);
    if anchor + keep <= width {
        return 0;
    }
    let context = (width / 4).clamp(2, 12);
    anchor.saturating_sub(context)
}

/// `line` without its first `n` columns (a wide character cut in two
/// leaves a blank).
fn skip_columns(line: Line<'_>, n: usize) -> Line<'_> {
    if n == 0 {
        return line;
    }
    let mut left = n;
    let mut spans = Vec::with_capacity(line.spans.len());
    for span in line.spans {
        if left == 0 {
            spans.push(span);
            continue;
        }
        let w = text::width(&span.content);
        if w <= left {
            left -= w;
            continue;
        }
        let mut rest = String::new();
        for g in span.content.graphemes(true) {
            if left > 0 {
                let gw = text::width(g);
                if gw > left {
                    rest.push_str(&" ".repeat(gw - left));
                }
                left = left.saturating_sub(gw);
                continue;
            }
            rest.push_str(g);
        }
        spans.push(Span::styled(rest, span.style));
    }
    Line::from(spans).style(line.style)
}

/// Widest the note of what a hidden leaf carries is drawn.
const CARRIED_WIDTH: usize = 28;

/// One row as pi draws it: gutter, path mark (`◉` where pi resumes),
/// `[label]`, label time, the text; the search's words marked.
#[allow(clippy::too_many_arguments)]
fn row_line<'a>(
    pane: &TreePane,
    t: &'a LoadedSession,
    r: usize,
    label: Option<LabelInfo>,
    words: &[String],
    width: usize,
    theme: &Theme,
    clock: Clock,
) -> Line<'a> {
    let row = &pane.rows.rows[r];
    let node = row.node;
    let mut spans: Vec<Span<'a>> = Vec::with_capacity(8);
    let g = pane.gutter(r);
    if !g.is_empty() {
        spans.push(Span::styled(g, theme.muted));
    }
    let resume = pane.resume_point();
    if resume.row == Some(r) {
        spans.push(Span::styled("◉ ", theme.leaf_mark));
        if !resume.carried.is_empty() {
            spans.push(Span::styled(
                carried_note(t, &resume.carried),
                theme.leaf_mark,
            ));
        }
    } else if t.view.mark(node) != Mark::None {
        spans.push(Span::styled("• ", theme.path_mark));
    }
    if let Some(label) = label {
        spans.push(Span::styled("[", theme.label));
        push_marked(
            &mut spans,
            text::clean_line(&label.label),
            theme.label,
            words,
            theme.hit,
        );
        spans.push(Span::styled("] ", theme.label));
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
        .columns
        .kinds
        .get(node as usize)
        .copied()
        .unwrap_or(RowKind::Setting);
    let text = t.text(node);
    let (prefix_style, rest_style) = styles(kind, theme);
    let split = kind.prefix_len(text);
    if words.is_empty() {
        let (prefix, rest) = text.split_at(split);
        if !prefix.is_empty() {
            spans.push(Span::styled(prefix, prefix_style));
        }
        spans.push(Span::styled(rest, rest_style));
    } else {
        // The role word can match too (pi searches it): mark the whole text.
        let mut ranges = entry_tree::find_all(text, words);
        let mut at = 0;
        let used: usize = spans.iter().map(|s| text::width(&s.content)).sum();
        if let Some(cut) = ranges
            .first()
            .and_then(|m| shown_from(text, split, m.clone(), width.saturating_sub(used)))
        {
            // The first match lies past the pane's edge: the text before it
            // gives way to `…`, so the match shows.
            push_styled(&mut spans, text, 0..split, split, prefix_style, rest_style);
            spans.push(Span::styled("…", theme.muted));
            ranges.retain(|m| m.start >= cut);
            at = cut;
        }
        for m in ranges {
            push_styled(
                &mut spans,
                text,
                at..m.start,
                split,
                prefix_style,
                rest_style,
            );
            let base = if m.start < split {
                prefix_style
            } else {
                rest_style
            };
            spans.push(Span::styled(&text[m.clone()], base.patch(theme.hit)));
            at = m.end;
        }
        push_styled(
            &mut spans,
            text,
            at..text.len(),
            split,
            prefix_style,
            rest_style,
        );
    }
    if let Some(n) = pane.replaced_by(node) {
        spans.push(Span::styled(strings::replaced_entries(n), theme.muted));
    }
    if !pane.remembers(node) {
        // What the model does not see fades (a hit keeps its background);
        // where pi resumes stays marked.
        for s in spans.iter_mut().filter(|s| s.style != theme.leaf_mark) {
            s.style = s.style.patch(theme.forgotten);
        }
    }
    Line::from(spans)
}

/// Columns of context kept before a match brought into view.
const MATCH_CONTEXT: usize = 12;

/// Where to start showing `text` after its role prefix (`split`) so that
/// `first`, a match, fits in `room` columns; `None` when it fits already.
fn shown_from(
    text: &str,
    split: usize,
    first: std::ops::Range<usize>,
    room: usize,
) -> Option<usize> {
    if text::width(&text[..first.end]) <= room || first.start < split {
        return None;
    }
    // Back from the match by a little context, on a character boundary.
    let before = &text[split..first.start];
    let mut cut = first.start;
    let mut cols = 0;
    for (i, c) in before.char_indices().rev() {
        cols += text::width(c.encode_utf8(&mut [0; 4]));
        if cols > MATCH_CONTEXT {
            break;
        }
        cut = split + i;
    }
    Some(cut)
}

/// `‹[model: claude-sonnet-4-5]›`: what the hidden entries between the row
/// and the leaf carry, the leaf first.
fn carried_note(t: &LoadedSession, carried: &[u32]) -> String {
    let first = carried.first().map_or("", |&n| t.text(n));
    let more = carried.len().saturating_sub(1);
    let inner = if more == 0 {
        text::truncate(first, CARRIED_WIDTH)
    } else {
        format!("{}, +{more} more", text::truncate(first, CARRIED_WIDTH))
    };
    format!("‹{inner}› ")
}

/// Part `range` of a row's text, in the role's colour up to `split`.
fn push_styled<'a>(
    spans: &mut Vec<Span<'a>>,
    text: &'a str,
    range: std::ops::Range<usize>,
    split: usize,
    prefix: Style,
    rest: Style,
) {
    if range.is_empty() {
        return;
    }
    if range.start < split {
        let cut = split.min(range.end);
        spans.push(Span::styled(&text[range.start..cut], prefix));
        if cut < range.end {
            spans.push(Span::styled(&text[cut..range.end], rest));
        }
    } else {
        spans.push(Span::styled(&text[range], rest));
    }
}

/// `s` with the search's words in the hit colour.
fn push_marked<'a>(
    spans: &mut Vec<Span<'a>>,
    s: String,
    style: Style,
    words: &[String],
    hit: Style,
) {
    let ranges = entry_tree::find_all(&s, words);
    let mut at = 0;
    for m in ranges {
        if at < m.start {
            spans.push(Span::styled(s[at..m.start].to_string(), style));
        }
        spans.push(Span::styled(s[m.clone()].to_string(), style.patch(hit)));
        at = m.end;
    }
    if at < s.len() {
        spans.push(Span::styled(s[at..].to_string(), style));
    }
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
