//! A dialog over the panes: a question with an optional text field, what
//! Enter does, and what happens next (`then`, chosen by whoever opened it).

use crate::safe_text as text;
use crate::tui::input::keymap::{Action, Key, Keymap, Scope};
use crate::tui::look::theme::Theme;
use crate::tui::overlays::text_input::TextInput;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Wrap};

/// Widest a dialog gets.
const MAX_WIDTH: u16 = 76;

#[derive(Debug, Clone)]
pub struct Dialog<T> {
    pub title: String,
    /// The question and what it concerns; shown as is, so made safe by
    /// whoever builds the dialog.
    pub body: Vec<String>,
    pub input: Option<TextInput>,
    /// Text that must be typed before Enter works (a permanent delete).
    pub require: Option<&'static str>,
    /// What Enter does, for the hint line ("branch", "move to the trash").
    pub yes: String,
    /// Drawn in the error colour: something that cannot be undone.
    pub danger: bool,
    /// Whether there is anything for Enter to do now (a clean-up whose
    /// rules pick no session has not).
    pub enabled: bool,
    /// Body lines scrolled past (a long list of sessions).
    pub scroll: usize,
    /// A body line to show whole on one row (a command to copy): the
    /// dialog widens for it, as far as the screen allows.
    pub whole_line: Option<usize>,
    pub then: T,
}

/// What a key did to a dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialogKey {
    /// Enter: the field's text (or `None` without a field).
    Submit(Option<String>),
    Cancel,
    Stay,
    /// The switch key: the opener changes what the dialog offers.
    Switch,
}

impl<T> Dialog<T> {
    /// A yes/no question.
    pub fn confirm(title: &str, body: Vec<String>, yes: &str, then: T) -> Dialog<T> {
        Dialog {
            title: title.to_string(),
            body,
            input: None,
            require: None,
            yes: yes.to_string(),
            danger: false,
            enabled: true,
            scroll: 0,
            whole_line: None,
            then,
        }
    }

    /// A question answered by typing, the field pre-filled with `value`.
    pub fn ask(title: &str, body: Vec<String>, value: &str, yes: &str, then: T) -> Dialog<T> {
        Dialog {
            input: Some(TextInput::new(value)),
            ..Dialog::confirm(title, body, yes, then)
        }
    }

    /// Something that cannot be undone: `word` must be typed first.
    pub fn dangerous(mut self, word: &'static str) -> Dialog<T> {
        self.danger = true;
        self.require = Some(word);
        self.input = Some(TextInput::default());
        self
    }

    /// Shows body line `index` whole, on one row.
    pub fn keep_whole(mut self, index: usize) -> Dialog<T> {
        self.whole_line = Some(index);
        self
    }

    /// Whether Enter would go ahead now.
    pub fn ready(&self) -> bool {
        self.enabled
            && match (self.require, &self.input) {
                (Some(word), Some(i)) => i.text.trim() == word,
                _ => true,
            }
    }

    /// The field's text, if the dialog has one.
    pub fn field(&self) -> Option<&str> {
        self.input.as_ref().map(|i| i.text.as_str())
    }

    /// A key, as the keymap's dialog scope (then the text field's, then
    /// the global quit) says.
    pub fn key(&mut self, k: Key, keymap: &Keymap) -> DialogKey {
        let last = self.body.len().saturating_sub(1);
        match keymap.own_action(Scope::Dialog, k) {
            Some(Action::Cancel) => return DialogKey::Cancel,
            Some(Action::Confirm) if self.ready() => {
                let text = self.input.as_ref().map(|i| i.text.clone());
                return DialogKey::Submit(if self.require.is_some() { None } else { text });
            }
            Some(Action::Confirm) => {}
            Some(Action::Switch) => return DialogKey::Switch,
            Some(Action::Up) => self.scroll = self.scroll.saturating_sub(1),
            Some(Action::Down) => self.scroll = (self.scroll + 1).min(last),
            Some(Action::PageUp) => self.scroll = self.scroll.saturating_sub(10),
            Some(Action::PageDown) => self.scroll = (self.scroll + 10).min(last),
            // Answers only without a field (with one, they are typed).
            Some(a) if a.is_answer() && self.input.is_none() => {
                return match a {
                    Action::AnswerYes if self.ready() => DialogKey::Submit(None),
                    Action::AnswerYes => DialogKey::Stay,
                    _ => DialogKey::Cancel,
                };
            }
            _ => {
                // As in pi: the quit key cancels a dialog; it quits only
                // from the panes.
                if keymap.own_action(Scope::Global, k) == Some(Action::Quit) {
                    return DialogKey::Cancel;
                }
                if let Some(i) = self.input.as_mut() {
                    match (keymap.own_action(Scope::Text, k), k.typed_char()) {
                        (Some(a), _) => {
                            i.edit(a);
                        }
                        (None, Some(c)) => i.type_char(c),
                        (None, None) => {}
                    }
                }
            }
        }
        DialogKey::Stay
    }
}

/// What the dialog's bottom line names: the keys in force.
pub struct DialogKeys {
    pub confirm: String,
    pub cancel: String,
    /// The scroll keys run together (`↑↓`), if bound.
    pub scroll: Option<String>,
}

impl DialogKeys {
    pub fn from_keymap(keymap: &Keymap) -> DialogKeys {
        DialogKeys {
            confirm: keymap.keys_for(Scope::Dialog, Action::Confirm),
            cancel: keymap.keys_for(Scope::Dialog, Action::Cancel),
            scroll: keymap.up_down(Scope::Dialog),
        }
    }
}

/// Draws `dialog` over the middle of `area`.
pub fn draw<T>(
    frame: &mut Frame,
    area: Rect,
    dialog: &Dialog<T>,
    keys: &DialogKeys,
    theme: &Theme,
) {
    let mut w = area.width.saturating_sub(4).min(MAX_WIDTH);
    if let Some(line) = dialog.whole_line.and_then(|i| dialog.body.get(i)) {
        // Border and padding take four columns.
        let needed = u16::try_from(text::width(line) + 4).unwrap_or(u16::MAX);
        w = w.max(needed.min(area.width));
    }
    if w < 10 || area.height < 5 {
        return;
    }
    let inner_w = usize::from(w.saturating_sub(4)).max(1);
    let rows = |s: &str| wrapped_rows(s, inner_w);
    let input_rows = usize::from(dialog.input.is_some()) * 2;
    let body_room = usize::from(area.height.saturating_sub(4)).saturating_sub(input_rows + 2);
    let body_rows: usize = dialog
        .body
        .iter()
        .skip(dialog.scroll)
        .map(|l| rows(l))
        .sum();
    let h = (body_rows.min(body_room) + input_rows + 2).min(usize::from(area.height)) as u16;
    let border = if dialog.danger {
        theme.error
    } else {
        theme.border_focused
    };
    let enter = if dialog.ready() {
        format!("{} {} · ", keys.confirm, dialog.yes)
    } else if let Some(word) = dialog.require.filter(|_| dialog.enabled) {
        format!("type {word:?} to {} · ", dialog.yes)
    } else {
        String::new()
    };
    let more = match &keys.scroll {
        Some(scroll) if body_rows > body_room => format!(" · {scroll} scroll"),
        _ => String::new(),
    };
    let hint = format!("{enter}{} cancel{more}", keys.cancel);
    let inner = dialog_box(frame, area, (w, h), &dialog.title, &hint, border, theme);
    let input_h = input_rows as u16;
    let body_area = Rect {
        height: inner.height.saturating_sub(input_h),
        ..inner
    };
    let lines: Vec<Line<'_>> = dialog
        .body
        .iter()
        .skip(dialog.scroll)
        .map(|l| Line::raw(l.as_str()))
        .collect();
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body_area);
    if let Some(input) = &dialog.input {
        let (before, after) = input.split();
        let room = usize::from(inner.width).saturating_sub(3);
        let before = text::clean_line(before);
        // Keep the cursor in view in a long field.
        let before = if text::width(&before) > room {
            let skip = before.chars().count().saturating_sub(room);
            before.chars().skip(skip).collect()
        } else {
            before
        };
        let line = Line::from(vec![
            Span::styled("> ", theme.accent),
            Span::raw(before),
            Span::styled("▏", theme.accent),
            Span::raw(text::clean_line(after)),
        ]);
        let y = inner.y + inner.height.saturating_sub(1);
        frame.render_widget(
            Paragraph::new(line),
            Rect {
                y,
                height: 1,
                ..inner
            },
        );
    }
}

/// Rows a line takes when wrapped at word boundaries to `width` columns
/// (as the paragraph drawing it wraps; a word too long for a row is cut).
fn wrapped_rows(line: &str, width: usize) -> usize {
    let mut rows = 1;
    let mut used = 0;
    for word in line.split(' ') {
        let w = text::width(word);
        let need = if used == 0 { w } else { used + 1 + w };
        if need <= width {
            used = need;
        } else if w <= width {
            rows += 1;
            used = w;
        } else {
            // Cut across rows, starting on a fresh one.
            if used > 0 {
                rows += 1;
            }
            rows += (w - 1) / width;
            used = (w - 1) % width + 1;
        }
    }
    rows
}

/// Clears a `w` × `h` box in the middle of `area` and draws a dialog's
/// rounded frame on it, `title` at its top and `hint` (its keys) at its
/// bottom; the area inside it, a column of padding each side.
pub fn dialog_box(
    frame: &mut Frame,
    area: Rect,
    (w, h): (u16, u16),
    title: &str,
    hint: &str,
    border: Style,
    theme: &Theme,
) -> Rect {
    let rect = Rect::new(
        area.x + area.width.saturating_sub(w) / 2,
        area.y + area.height.saturating_sub(h) / 2,
        w,
        h,
    );
    frame.render_widget(Clear, rect);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(border)
        .title(Span::styled(format!(" {title} "), theme.title))
        .title_bottom(Span::styled(format!(" {hint} "), theme.muted));
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    Rect {
        x: inner.x + 1,
        width: inner.width.saturating_sub(2),
        ..inner
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rows_count_word_wrapping() {
        assert_eq!(super::wrapped_rows("", 10), 1);
        assert_eq!(super::wrapped_rows("aaaa bbbb", 10), 1);
        assert_eq!(super::wrapped_rows("aaaa bbbbbb", 10), 2);
        assert_eq!(super::wrapped_rows("a bbbbbbbbbbbbbbbbbbbbbbbbb", 10), 4);
    }

    use super::*;

    fn press<T>(d: &mut Dialog<T>, spec: &str) -> DialogKey {
        d.key(Key::parse(spec).unwrap(), &Keymap::defaults())
    }

    #[test]
    fn a_dangerous_dialog_wants_its_word() {
        let mut d = Dialog::confirm("Delete", vec![], "delete for good", ()).dangerous("delete");
        assert_eq!(press(&mut d, "enter"), DialogKey::Stay);
        for c in "delete".chars() {
            press(&mut d, &c.to_string());
        }
        assert_eq!(press(&mut d, "enter"), DialogKey::Submit(None));
    }

    #[test]
    fn a_disabled_dialog_takes_no_enter_but_still_edits() {
        let mut d = Dialog::ask("Clean up", vec![], "--empty", "trash", ());
        d.enabled = false;
        assert_eq!(press(&mut d, "enter"), DialogKey::Stay);
        press(&mut d, "x");
        assert_eq!(d.field(), Some("--emptyx"));
        d.enabled = true;
        assert_eq!(
            press(&mut d, "enter"),
            DialogKey::Submit(Some("--emptyx".into()))
        );
    }

    #[test]
    fn questions_take_y_n_and_fields_take_text() {
        let mut d = Dialog::confirm("Q", vec![], "go", ());
        assert_eq!(press(&mut d, "y"), DialogKey::Submit(None));
        assert_eq!(press(&mut d, "n"), DialogKey::Cancel);
        let mut d = Dialog::ask("Label", vec![], "old", "label", ());
        press(&mut d, "backspace");
        press(&mut d, "y");
        assert_eq!(
            press(&mut d, "enter"),
            DialogKey::Submit(Some("oly".into()))
        );
        assert_eq!(press(&mut d, "esc"), DialogKey::Cancel);
    }
}
