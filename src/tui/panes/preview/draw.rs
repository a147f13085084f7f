//! Drawing the context preview pane: its header line, the rows of the
//! blocks in view (the marked block with a bar in the gutter, the selected
//! entry's rows shaded, blocks inside a compaction indented), the pictures
//! over the rows kept for them (or why there is none), and the scrollbar.

use super::PreviewPane;
use super::style;
use crate::tui::look::theme::Theme;
use crate::tui::model::preview_doc::{GUTTER, NEST_INDENT};
use crate::tui::model::preview_images::{ImageKey, Picture};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState};
use ratatui_image::sliced::{SignedPosition, SlicedImage};

/// The columns and rows a preview document gets inside the pane's block.
pub fn text_area(inner: Rect) -> Rect {
    Rect {
        y: inner.y + 1.min(inner.height),
        height: inner.height.saturating_sub(1),
        width: inner.width.saturating_sub(1),
        ..inner
    }
}

/// The gutter's mark on the rows of the marked block.
const CURSOR_MARK: &str = "▌";

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
    let Some(doc) = &pane.doc else {
        let words = if pane.wanted.is_none() {
            "Select an entry to see the context pi would send."
        } else {
            "Building the context…"
        };
        frame.render_widget(
            Paragraph::new(Line::styled(words, theme.muted)),
            header_area,
        );
        return;
    };
    let header = if Some(doc.key) != pane.wanted {
        Line::styled("Building the context…", theme.muted)
    } else {
        doc.header.clone()
    };
    frame.render_widget(Paragraph::new(header), header_area);
    let height = usize::from(body.height);
    let mut lines: Vec<Line<'static>> = Vec::with_capacity(height);
    let mut pos = pane.top;
    let mut skip = pane.top_row;
    // Pictures in view: which, and where their rows start (above the view
    // when negative).
    let mut pictures: Vec<(ImageKey, u16, i32)> = Vec::new();
    while lines.len() < height && pos < pane.shown.len() {
        let b = &doc.blocks[pane.shown[pos]];
        let marked = pos == pane.cursor;
        let gutter = if marked {
            Span::styled(CURSOR_MARK, theme.block_cursor)
        } else {
            Span::raw(" ")
        };
        let indent = " ".repeat(usize::from(NEST_INDENT) * usize::from(b.depth));
        let make = |spans: Vec<Span<'static>>| {
            let mut row = vec![gutter.clone()];
            if !indent.is_empty() {
                row.push(Span::raw(indent.clone()));
            }
            row.extend(spans);
            let line = Line::from(row);
            if b.selected {
                line.patch_style(theme.preview_selected)
            } else {
                line
            }
        };
        match pane.rows_at(pos) {
            Some(rows) => {
                let room = height - lines.len();
                let start = lines.len() as i32 - skip as i32;
                for spot in &rows.images {
                    let y = start + spot.row as i32;
                    if y + spot.rows as i32 > 0 && y < height as i32 {
                        let x = usize::from(GUTTER) + indent.len() + spot.col;
                        let x = u16::try_from(x).unwrap_or(u16::MAX);
                        pictures.push((ImageKey::of(b, spot), x, y));
                    }
                }
                for r in rows.rows.iter().skip(skip).take(room) {
                    lines.push(make(style::row(r, theme)));
                }
            }
            // Not laid out yet (the worker is at it): its title stands in.
            None if skip == 0 => lines.push(make(style::row(&b.block.title, theme))),
            None => {}
        }
        skip = 0;
        pos += 1;
    }
    frame.render_widget(Paragraph::new(lines), body);
    for (key, x, y) in pictures {
        draw_picture(frame, body, pane.picture(&key), x, y, theme);
    }
    let fits = pane.top == 0 && pane.top_row == 0 && {
        let mut rows = 0;
        (0..pane.shown.len()).all(|p| {
            rows += pane.height_of(p);
            rows <= height
        })
    };
    if !fits && pane.shown.len() > 1 {
        let mut state = ScrollbarState::new(pane.shown.len().saturating_sub(1)).position(pane.top);
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

/// A picture over the rows kept for it, from column `x` and row `y` of
/// `body` (rows above the view when `y` is negative are cut off); a picture
/// that could not be made says why on its first row; one not decoded yet
/// leaves the rows blank.
fn draw_picture(
    frame: &mut Frame,
    body: Rect,
    picture: Option<&Picture>,
    x: u16,
    y: i32,
    theme: &Theme,
) {
    if x >= body.width {
        return;
    }
    match picture {
        Some(Picture::Shown(p)) => {
            let (Ok(x), Ok(y)) = (i16::try_from(x), i16::try_from(y)) else {
                return;
            };
            frame.render_widget(SlicedImage::new(p, SignedPosition { x, y }), body);
        }
        Some(Picture::Failed(why)) => {
            let Ok(y) = u16::try_from(y) else { return };
            if y >= body.height {
                return;
            }
            let area = Rect {
                x: body.x + x,
                y: body.y + y,
                width: body.width - x,
                height: 1,
            };
            let words = crate::safe_text::clean_line(&format!("cannot show it: {why}"));
            frame.render_widget(Paragraph::new(Line::styled(words, theme.muted)), area);
        }
        None => {}
    }
}
