//! Drawing the context preview pane: its header line, the document's
//! lines in view and the scrollbar.

use super::PreviewPane;
use crate::tui::look::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState};

/// The columns and rows a preview document gets inside the pane's block.
pub fn text_area(inner: Rect) -> Rect {
    Rect {
        y: inner.y + 1.min(inner.height),
        height: inner.height.saturating_sub(1),
        width: inner.width.saturating_sub(1),
        ..inner
    }
}

/// Draws the pane into `area`.
pub(super) fn draw(
    frame: &mut Frame,
    area: Rect,
    pane: &PreviewPane,
    block: Block<'_>,
    theme: &Theme,
) {
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let body = text_area(inner);
    let header_area = Rect {
        height: inner.height.min(1),
        ..inner
    };
    match &pane.doc {
        None if pane.wanted.is_none() => {
            frame.render_widget(
                Paragraph::new(Line::styled(
                    "Select an entry to see the context pi would send.",
                    theme.muted,
                )),
                header_area,
            );
        }
        None => frame.render_widget(
            Paragraph::new(Line::styled("Building the context…", theme.muted)),
            header_area,
        ),
        Some(doc) => {
            let header = if Some(doc.key) != pane.wanted {
                Line::styled("Building the context…", theme.muted)
            } else {
                doc.header.clone()
            };
            frame.render_widget(Paragraph::new(header), header_area);
            let end = (pane.scroll + usize::from(body.height)).min(doc.lines.len());
            let start = pane.scroll.min(end);
            let visible: Vec<Line<'_>> = doc.lines[start..end].to_vec();
            frame.render_widget(Paragraph::new(visible), body);
            if doc.lines.len() > usize::from(body.height) {
                let mut state =
                    ScrollbarState::new(doc.lines.len().saturating_sub(usize::from(body.height)))
                        .position(start);
                let bar = Rect {
                    x: inner.x + inner.width.saturating_sub(1),
                    width: inner.width.min(1),
                    ..body
                };
                frame.render_stateful_widget(
                    Scrollbar::new(ScrollbarOrientation::VerticalRight)
                        .begin_symbol(None)
                        .end_symbol(None)
                        .thumb_style(theme.accent)
                        .track_style(theme.muted),
                    bar,
                    &mut state,
                );
            }
        }
    }
}
