//! Drawing the status bar and the hint line.

use super::{StatusPane, StatusView, hints, left_text, right_text};
use crate::safe_text as text;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Draws the status bar and the hint line.
pub(super) fn draw(
    frame: &mut Frame,
    status: Rect,
    hint_area: Rect,
    pane: &StatusPane,
    view: &StatusView,
) {
    let theme = view.theme;
    if status.height > 0 {
        let (left, error) = left_text(pane, view);
        let right = right_text(view);
        let width = usize::from(status.width);
        let right = text::truncate(&right, width / 2);
        let left_room = width.saturating_sub(text::width(&right) + 2);
        let left = text::truncate(&left, left_room);
        let gap = width.saturating_sub(text::width(&left) + text::width(&right) + 1);
        let left_style = if error {
            theme.error
        } else if pane.message.is_some() {
            theme.message
        } else {
            ratatui::style::Style::new()
        };
        let line = Line::from(vec![
            Span::raw(" "),
            Span::styled(left, left_style),
            Span::raw(" ".repeat(gap)),
            Span::raw(right),
        ])
        .style(theme.status);
        frame.render_widget(Paragraph::new(line).style(theme.status), status);
    }
    if hint_area.height > 0 {
        let mut spans = vec![Span::raw(" ")];
        let fitted = hints(view, usize::from(hint_area.width));
        for (n, (key, word)) in fitted.into_iter().enumerate() {
            if n > 0 {
                spans.push(Span::styled(" · ", theme.muted));
            }
            spans.push(Span::styled(key, theme.key));
            spans.push(Span::styled(format!(" {word}"), theme.muted));
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), hint_area);
    }
}
