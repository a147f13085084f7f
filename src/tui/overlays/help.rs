//! The help screen: every binding of every pane and overlay, generated from
//! the keymap so it can never drift, plus where the config file is and what
//! was wrong with it.

use crate::safe_text as text;
use crate::tui::config::Config;
use crate::tui::input::keymap::{ACTIONS, Action, Key, Keymap, Scope};
use crate::tui::look::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};

/// How far a page key scrolls the help screen.
const PAGE: usize = 10;

/// The help screen's state: how far it is scrolled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Help {
    pub scroll: usize,
}

/// What a key did to the help screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HelpKey {
    Stay,
    Close,
}

impl Help {
    /// A key, as the keymap's help scope says; any other key closes the
    /// screen, except the global quit. `last` is the furthest it scrolls
    /// (its last line at the bottom).
    pub fn key(&mut self, k: Key, keymap: &Keymap, last: usize) -> HelpKey {
        match keymap.own_action(Scope::Help, k) {
            Some(Action::Up) => self.scroll = self.scroll.saturating_sub(1),
            Some(Action::Down) => self.scroll += 1,
            Some(Action::PageUp) => self.scroll = self.scroll.saturating_sub(PAGE),
            Some(Action::PageDown) => self.scroll += PAGE,
            Some(Action::First) => self.scroll = 0,
            Some(Action::Last) => self.scroll = last,
            _ => return HelpKey::Close,
        }
        self.scroll = self.scroll.min(last);
        HelpKey::Stay
    }
}

/// The help screen's box in `area`.
fn frame_rect(area: Rect) -> Rect {
    let w = area.width.saturating_sub(4).min(86);
    let h = area.height.saturating_sub(2);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// How far the help screen scrolls in `area`: until its last line is at
/// the bottom, never past it.
pub fn last_scroll(config: &Config, scopes: &[Scope], area: Rect) -> usize {
    let inner = Block::bordered().inner(frame_rect(area));
    lines(config, scopes, usize::from(inner.width))
        .len()
        .saturating_sub(usize::from(inner.height))
}

/// Columns a key takes before its description.
const KEY_COLUMNS: usize = 25;

/// One key and what it does, the description wrapped at spaces to `width`
/// under itself.
fn entry(key: &str, what: &str, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let room = width.saturating_sub(KEY_COLUMNS).max(12);
    let mut rows = wrap_words(what, room).into_iter();
    let mut out = vec![Line::from(vec![
        Span::styled(format!("  {} ", text::fit(key, 22)), theme.key),
        Span::raw(rows.next().unwrap_or_default()),
    ])];
    out.extend(rows.map(|r| Line::raw(format!("{}{r}", " ".repeat(KEY_COLUMNS)))));
    out
}

/// `s` in rows of at most `room` columns, broken at spaces (a longer word
/// keeps a row of its own).
fn wrap_words(s: &str, room: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut row = String::new();
    for word in s.split(' ') {
        if !row.is_empty() && text::width(&row) + 1 + text::width(word) > room {
            out.push(std::mem::take(&mut row));
        }
        if !row.is_empty() {
            row.push(' ');
        }
        row.push_str(word);
    }
    if !row.is_empty() || out.is_empty() {
        out.push(row);
    }
    out
}

/// The lines of the help screen for `width` columns.
pub fn lines(config: &Config, scopes: &[Scope], width: usize) -> Vec<Line<'static>> {
    let theme = &config.theme;
    let mut out = Vec::new();
    for &scope in scopes {
        out.push(Line::styled(scope.title(), theme.title));
        for info in ACTIONS.iter().filter(|i| i.scope == scope) {
            let keys = config.keymap.label(scope, info.action);
            if keys.is_empty() {
                continue;
            }
            out.extend(entry(&keys, info.help, width, theme));
        }
        out.push(Line::default());
    }
    // Typing a character is no binding: it is what a field is for.
    out.push(Line::styled("Typing", theme.title));
    out.extend(entry(
        "characters",
        "Sessions: search (words, \"a phrase\", re:pattern); entry tree: search it, as in pi's /tree; dialog fields: their text",
        width,
        theme,
    ));
    // Stepping back is bound per pane; the keys as the user bound them.
    let mut back: Vec<String> = Vec::new();
    for (scope, action) in [
        (Scope::Picker, Action::PickerClear),
        (Scope::Tree, Action::TreeClearSearch),
        (Scope::Preview, Action::TreeClearSearch),
    ] {
        let keys = config.keymap.label(scope, action);
        if !keys.is_empty() && !back.contains(&keys) {
            back.push(keys);
        }
    }
    if !back.is_empty() {
        out.extend(entry(
            &back.join(", "),
            "Steps back: out of a dialog or search, to the pane before, then quits",
            width,
            theme,
        ));
    }
    out.push(Line::default());
    out.push(Line::styled("Marks in the tree", theme.title));
    for (k, what) in [
        ("•", "on the path pi resumes"),
        ("◉", "where pi resumes (the leaf)"),
        (
            "◉ ‹…›",
            "pi resumes after this row, at entries the filter hides",
        ),
        ("├─ └─ │", "pi's connectors: the branches of a fork"),
        ("├⊟ / ├⊞", "a branch that folds / a folded branch"),
        ("[name]", "a label"),
    ] {
        out.extend(entry(k, what, width, theme));
    }
    out.push(Line::default());
    let file = config.path.as_ref().map_or_else(
        || "(no config folder on this system)".to_string(),
        |p| text::clean_line(&p.display().to_string()),
    );
    out.push(Line::styled("Config file", theme.title));
    out.push(Line::raw(format!("  {file}")));
    out.push(Line::styled(
        "  [keys.<pane>] and [theme] tables override the defaults.",
        theme.muted,
    ));
    for p in &config.problems {
        out.push(Line::styled(
            format!("  ! {}", text::clean_line(p)),
            theme.error,
        ));
    }
    out
}

/// The bottom line: the help screen's own keys, as bound.
fn footer(config: &Config) -> String {
    let keymap = &config.keymap;
    let close = keymap.keys_for(Scope::Help, Action::Close);
    match keymap.up_down(Scope::Help) {
        Some(scroll) => format!(" {scroll} scroll · {close} close "),
        None => format!(" {close} close "),
    }
}

/// Draws the help screen over the middle of `area`.
pub fn draw(frame: &mut Frame, area: Rect, help: Help, config: &Config, scopes: &[Scope]) {
    let theme: &Theme = &config.theme;
    let rect = frame_rect(area);
    frame.render_widget(Clear, rect);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.border_focused)
        .title(Span::styled(" Help ", theme.title))
        .title_bottom(Span::styled(footer(config), theme.muted));
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let all = lines(config, scopes, usize::from(inner.width));
    let start = help
        .scroll
        .min(all.len().saturating_sub(usize::from(inner.height)));
    let shown: Vec<Line<'_>> = all
        .into_iter()
        .skip(start)
        .take(usize::from(inner.height))
        .collect();
    frame.render_widget(Paragraph::new(shown), inner);
}
