//! A one-line text field for dialogs: typing, and the editing actions of
//! the keymap's text scope (deleting either side of the cursor, moving it,
//! clearing the field).

use crate::tui::input::keymap::Action;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextInput {
    pub text: String,
    /// The cursor, in characters from the start.
    pub cursor: usize,
}

impl TextInput {
    /// A field holding `text`, the cursor at its end.
    pub fn new(text: &str) -> TextInput {
        TextInput {
            text: text.to_string(),
            cursor: text.chars().count(),
        }
    }

    fn byte_at(&self, chars: usize) -> usize {
        self.text
            .char_indices()
            .nth(chars)
            .map_or(self.text.len(), |(i, _)| i)
    }

    /// A typed character, at the cursor.
    pub fn type_char(&mut self, c: char) {
        let at = self.byte_at(self.cursor);
        self.text.insert(at, c);
        self.cursor += 1;
    }

    /// Applies an editing action; false when `action` is not one.
    pub fn edit(&mut self, action: Action) -> bool {
        let len = self.text.chars().count();
        match action {
            Action::DeleteBack => {
                if self.cursor > 0 {
                    self.cursor -= 1;
                    let at = self.byte_at(self.cursor);
                    self.text.remove(at);
                }
            }
            Action::DeleteForward => {
                if self.cursor < len {
                    let at = self.byte_at(self.cursor);
                    self.text.remove(at);
                }
            }
            Action::CursorLeft => self.cursor = self.cursor.saturating_sub(1),
            Action::CursorRight => self.cursor = (self.cursor + 1).min(len),
            Action::CursorStart => self.cursor = 0,
            Action::CursorEnd => self.cursor = len,
            Action::ClearField => {
                self.text.clear();
                self.cursor = 0;
            }
            _ => return false,
        }
        true
    }

    /// The text before and after the cursor.
    pub fn split(&self) -> (&str, &str) {
        self.text.split_at(self.byte_at(self.cursor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_at_the_cursor() {
        let mut t = TextInput::new("héllo");
        t.edit(Action::CursorLeft);
        t.edit(Action::CursorLeft);
        t.type_char('X');
        assert_eq!(t.text, "hélXlo");
        t.edit(Action::DeleteBack);
        t.edit(Action::CursorStart);
        t.edit(Action::DeleteForward);
        assert_eq!(t.text, "éllo");
        assert_eq!(t.split(), ("", "éllo"));
        t.edit(Action::ClearField);
        assert_eq!(t.text, "");
        t.edit(Action::DeleteBack);
        assert_eq!(t.cursor, 0);
        assert!(!t.edit(Action::Quit));
    }
}
