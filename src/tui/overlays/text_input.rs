//! A one-line text field for dialogs: typing, Backspace / Delete, the
//! cursor moved by ← → Home End, Ctrl+U to clear.

use crate::tui::input::keymap::Key;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};

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

    /// Applies an editing key; false when the key is not an editing key.
    pub fn key(&mut self, k: Key) -> bool {
        let len = self.text.chars().count();
        match (k.code, k.typed_char()) {
            (_, Some(c)) => {
                let at = self.byte_at(self.cursor);
                self.text.insert(at, c);
                self.cursor += 1;
            }
            (KeyCode::Backspace, _) if self.cursor > 0 => {
                self.cursor -= 1;
                let at = self.byte_at(self.cursor);
                self.text.remove(at);
            }
            (KeyCode::Delete, _) if self.cursor < len => {
                let at = self.byte_at(self.cursor);
                self.text.remove(at);
            }
            (KeyCode::Left, _) => self.cursor = self.cursor.saturating_sub(1),
            (KeyCode::Right, _) => self.cursor = (self.cursor + 1).min(len),
            (KeyCode::Home, _) => self.cursor = 0,
            (KeyCode::End, _) => self.cursor = len,
            (KeyCode::Char('u'), _) if k.mods == KeyModifiers::CONTROL => {
                self.text.clear();
                self.cursor = 0;
            }
            (KeyCode::Backspace | KeyCode::Delete, _) => {}
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

    fn press(t: &mut TextInput, spec: &str) {
        t.key(Key::parse(spec).unwrap());
    }

    #[test]
    fn edits_at_the_cursor() {
        let mut t = TextInput::new("héllo");
        press(&mut t, "left");
        press(&mut t, "left");
        press(&mut t, "X");
        assert_eq!(t.text, "hélXlo");
        press(&mut t, "backspace");
        press(&mut t, "home");
        press(&mut t, "delete");
        assert_eq!(t.text, "éllo");
        assert_eq!(t.split(), ("", "éllo"));
        press(&mut t, "ctrl+u");
        assert_eq!(t.text, "");
        press(&mut t, "backspace");
        assert_eq!(t.cursor, 0);
    }
}
