//! One frame: a pure function of the app state. No I/O happens here; every
//! text it shows was made safe when it was read.

use crate::safe_text as text;
use crate::tui::look::layout::Pane;
use crate::tui::overlays::{dialog, file_list, help, secret_review, usage};
use crate::tui::panes::tree::Content;
use crate::tui::panes::{picker, status, tree};
use crate::tui::state::App;
use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};

/// Narrower or shorter than this, only a note is drawn.
const MIN_WIDTH: u16 = 20;
const MIN_HEIGHT: u16 = 5;

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    let theme = &app.config.theme;
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        frame.render_widget(
            Paragraph::new("piscope: the terminal is too small")
                .wrap(ratatui::widgets::Wrap { trim: true }),
            area,
        );
        return;
    }
    let screen = &app.screen;
    let layout = screen.layout_in(area);
    if let (Some(r), Some(text)) = (layout.banner, screen.banner()) {
        let line = Line::styled(
            text::fit(
                &format!(" {}", text::clean_line(text)),
                usize::from(r.width),
            ),
            theme.banner,
        );
        frame.render_widget(Paragraph::new(line), r);
    }
    for &(pane, rect) in &layout.panes {
        let focused = pane == screen.focus();
        let block = pane_block(app, pane, focused, rect.width).borders(layout.borders());
        match pane {
            Pane::Picker => app.picker().draw(
                frame,
                rect,
                picker::DrawContext {
                    theme,
                    keymap: &app.config.keymap,
                    clock: app.clock,
                    home: screen.home(),
                    focused,
                    block,
                },
            ),
            Pane::Tree => app.tree.draw(
                frame,
                rect,
                tree::DrawContext {
                    theme,
                    keymap: &app.config.keymap,
                    clock: app.clock,
                    focused,
                    block,
                },
            ),
            Pane::Preview => app.preview.draw(frame, rect, block, theme),
        }
    }
    let view = status::StatusView {
        picker: screen.has(Pane::Picker).then_some(app.picker()),
        tree: &app.tree,
        polling: app.polling(),
        scope: app.scope(),
        tree_search_typing: app.tree.is_typing_search() && screen.focus() == Pane::Tree,
        back: app.back().word(),
        brings_in: {
            let next = screen.next_pane(true);
            (layout.rect(next).is_none()).then(|| next.title())
        },
        keymap: &app.config.keymap,
        theme,
    };
    app.status.draw(frame, layout.status, layout.hints, &view);
    if let Some(u) = app.overlay.usage() {
        usage::draw(frame, area, u, theme, &app.config.keymap, screen.home());
    }
    if let Some(h) = app.help() {
        help::draw(frame, area, h, &app.config, &app.help_scopes());
    }
    if let Some(list) = app.overlay.files() {
        file_list::draw(frame, area, list, &app.config.keymap, theme);
    }
    if let Some(r) = app.overlay.review() {
        secret_review::draw(frame, area, r, &app.config.keymap, theme);
    }
    if let Some(d) = app.dialog() {
        let keys = dialog::DialogKeys::from_keymap(&app.config.keymap);
        dialog::draw(frame, area, d, &keys, theme);
    }
}

/// The border and titles of a pane.
fn pane_block(app: &App, pane: Pane, focused: bool, width: u16) -> Block<'static> {
    let theme = &app.config.theme;
    let border = if focused {
        theme.border_focused
    } else {
        theme.border
    };
    let mut title = pane.title().to_string();
    match pane {
        Pane::Tree => {
            if let Content::Ready(t) = app.tree.content() {
                if let Some(name) = &t.name {
                    title = format!("{title} · {name}");
                }
            }
            if app.tree_is_behind() {
                title.push_str(" · reading…");
            }
        }
        Pane::Preview => {
            let mode = app.preview.mode();
            if mode.raw {
                title = "Raw JSON".to_string();
            } else if mode.expanded {
                title.push_str(" · expanded");
            }
        }
        Pane::Picker => {
            if app.picker().is_demo() {
                title.push_str(" · demo");
            }
            // The scope, and the key for the other one, as far as they fit
            // between the corners and the title's spaces.
            let room = usize::from(width).saturating_sub(4);
            let parts = app.picker().title_parts(&app.config.keymap);
            let fits = parts
                .into_iter()
                .map(|p| format!("{title} · {p}"))
                .find(|t| text::width(t) <= room);
            title = fits.unwrap_or(title);
        }
    }
    // Cut with "…" rather than clipped by the border.
    let title = text::truncate(&title, usize::from(width).saturating_sub(4));
    let mut block = Block::bordered()
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Rounded
        })
        .border_style(border)
        .title(Span::styled(format!(" {title} "), theme.title));
    if pane == Pane::Tree && app.tree.is_ready() {
        block = block.title_bottom(Span::styled(
            format!(" {} ", app.tree.position()),
            theme.muted,
        ));
    }
    block
}
