//! A one-line text field: typing, and the editing actions of the keymap's
//! text scope, pi's editor keys (deleting a character, a word or the rest
//! of the line either side of the cursor; moving it by a character, a word
//! or to either end). Dialog fields and both search boxes edit through it.

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

    /// Applies an edit; whether it changed the text (a move of the cursor
    /// alone does not; an editing action that deletes changes its length).
    pub fn apply(&mut self, edit: Edit) -> bool {
        let before = self.text.len();
        match edit {
            Edit::Type(c) => {
                self.type_char(c);
                true
            }
            Edit::Do(action) => self.edit(action) && self.text.len() != before,
        }
    }

    /// Where the word before the cursor starts, as pi's editor moves: back
    /// over blanks, then over one word (letters and digits) or one run of
    /// punctuation.
    fn word_start(&self) -> usize {
        let chars: Vec<char> = self.text.chars().collect();
        let mut at = self.cursor.min(chars.len());
        while at > 0 && chars[at - 1].is_whitespace() {
            at -= 1;
        }
        let word = at > 0 && is_word(chars[at - 1]);
        while at > 0 && !chars[at - 1].is_whitespace() && is_word(chars[at - 1]) == word {
            at -= 1;
        }
        at
    }

    /// Where the word after the cursor ends, as pi's editor moves.
    fn word_end(&self) -> usize {
        let chars: Vec<char> = self.text.chars().collect();
        let mut at = self.cursor.min(chars.len());
        while at < chars.len() && chars[at].is_whitespace() {
            at += 1;
        }
        let word = at < chars.len() && is_word(chars[at]);
        while at < chars.len() && !chars[at].is_whitespace() && is_word(chars[at]) == word {
            at += 1;
        }
        at
    }

    /// Deletes the characters `from..to`, and puts the cursor at `from`.
    fn delete(&mut self, from: usize, to: usize) {
        let (a, b) = (self.byte_at(from), self.byte_at(to));
        self.text.replace_range(a..b, "");
        self.cursor = from;
    }

    /// Applies an editing action; false when `action` is not one.
    pub fn edit(&mut self, action: Action) -> bool {
        let len = self.text.chars().count();
        match action {
            Action::WordLeft => self.cursor = self.word_start(),
            Action::WordRight => self.cursor = self.word_end(),
            Action::DeleteWordBack => self.delete(self.word_start(), self.cursor),
            Action::DeleteWordForward => self.delete(self.cursor, self.word_end()),
            Action::DeleteToStart => self.delete(0, self.cursor),
            Action::DeleteToEnd => self.delete(self.cursor, len),
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
            _ => return false,
        }
        true
    }

    /// Empties the field.
    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
    }

    /// The text before and after the cursor.
    pub fn split(&self) -> (&str, &str) {
        self.text.split_at(self.byte_at(self.cursor))
    }
}

/// Letters and digits make words; blanks and punctuation part them.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// What a key does to a text field: types a character, or an editing
/// action of the keymap's text scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    Type(char),
    Do(Action),
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
        t.edit(Action::CursorEnd);
        t.edit(Action::DeleteToStart);
        assert_eq!(t.text, "");
        t.edit(Action::DeleteBack);
        assert_eq!(t.cursor, 0);
        assert!(!t.edit(Action::Quit));
    }

    #[test]
    fn pi_editor_keys_move_and_delete_by_word_and_to_either_end() {
        let mut t = TextInput::new("fix the parser, now");
        let at = |t: &TextInput| {
            let (a, b) = t.split();
            format!("{a}|{b}")
        };
        t.edit(Action::WordLeft);
        assert_eq!(at(&t), "fix the parser, |now");
        t.edit(Action::WordLeft);
        assert_eq!(
            at(&t),
            "fix the parser|, now",
            "punctuation is a word of its own"
        );
        t.edit(Action::WordLeft);
        assert_eq!(at(&t), "fix the |parser, now");
        t.edit(Action::DeleteWordForward);
        assert_eq!(at(&t), "fix the |, now");
        t.edit(Action::DeleteWordBack);
        assert_eq!(at(&t), "fix |, now");
        t.edit(Action::WordRight);
        assert_eq!(at(&t), "fix ,| now");
        t.edit(Action::WordRight);
        assert_eq!(at(&t), "fix , now|");
        t.edit(Action::CursorStart);
        t.edit(Action::WordRight);
        t.edit(Action::DeleteToEnd);
        assert_eq!(at(&t), "fix|");
        t.type_char('é');
        t.edit(Action::CursorLeft);
        t.edit(Action::DeleteToStart);
        assert_eq!(at(&t), "|é");
        assert!(!t.apply(Edit::Do(Action::DeleteWordBack)));
        // A move alone changes no text.
        assert!(!t.apply(Edit::Do(Action::CursorRight)));
        t.edit(Action::CursorStart);
        assert!(t.apply(Edit::Do(Action::DeleteToEnd)));
        assert_eq!(t.text, "");
    }
}
