//! One key press as the keymap sees it: normalised the same way however a
//! terminal sends it, parsed from and shown as text (`Ctrl+D`, `Shift+Tab`).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::fmt;

/// A key press, normalised: a shifted character is the character itself
/// (`T`, not Shift+t), so bindings compare equal however the terminal sends them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Key {
    pub fn new(code: KeyCode, mods: KeyModifiers) -> Key {
        let mut mods = mods & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match code {
            KeyCode::Char(c) if mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
                // With Ctrl or Alt, terminals differ in the case they send:
                // keep the letter lower case and the Shift as a modifier.
                if c.is_uppercase() {
                    mods.insert(KeyModifiers::SHIFT);
                }
                KeyCode::Char(c.to_lowercase().next().unwrap_or(c))
            }
            KeyCode::Char(c) => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::Char(c)
            }
            KeyCode::BackTab => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            other => other,
        };
        Key { code, mods }
    }

    pub fn from_event(ev: &KeyEvent) -> Key {
        Key::new(ev.code, ev.modifiers)
    }

    /// A plain character: what typing into a text box receives.
    pub fn typed_char(&self) -> Option<char> {
        match self.code {
            KeyCode::Char(c) if (self.mods - KeyModifiers::SHIFT).is_empty() => Some(c),
            _ => None,
        }
    }

    /// Parses `ctrl+left`, `shift+t`, `?`, `f1`, ...
    pub fn parse(text: &str) -> Result<Key, String> {
        let bad = || format!("{text:?} is not a key");
        let lower = text.trim().to_ascii_lowercase();
        let (mods_part, name) = if lower.len() > 1 && lower.ends_with('+') {
            // "ctrl++" names the plus key.
            (&lower[..lower.len() - 2], "+")
        } else {
            match lower.rfind('+') {
                Some(i) => (&lower[..i], &lower[i + 1..]),
                None => ("", lower.as_str()),
            }
        };
        let mut mods = KeyModifiers::NONE;
        for m in mods_part.split('+').filter(|m| !m.is_empty()) {
            mods |= match m {
                "ctrl" | "control" | "c" => KeyModifiers::CONTROL,
                "alt" | "meta" | "option" | "m" => KeyModifiers::ALT,
                "shift" | "s" => KeyModifiers::SHIFT,
                _ => return Err(format!("{text:?}: unknown modifier {m:?}")),
            };
        }
        let original_char = {
            // The character as written, so "N" stays upper case.
            let raw = text.trim();
            let tail = raw.rsplit_once('+').map_or(raw, |(_, t)| t);
            let mut chars = tail.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Some(c),
                _ => None,
            }
        };
        let code = match name {
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "pageup" | "pgup" => KeyCode::PageUp,
            "pagedown" | "pgdn" => KeyCode::PageDown,
            "enter" | "return" => KeyCode::Enter,
            "esc" | "escape" => KeyCode::Esc,
            "tab" if mods.contains(KeyModifiers::SHIFT) => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "backspace" => KeyCode::Backspace,
            "delete" | "del" => KeyCode::Delete,
            "insert" | "ins" => KeyCode::Insert,
            "space" => KeyCode::Char(' '),
            "plus" => KeyCode::Char('+'),
            f if f.len() > 1 && f.starts_with('f') => match f[1..].parse::<u8>() {
                Ok(n @ 1..=24) => KeyCode::F(n),
                _ => return Err(bad()),
            },
            _ => match original_char {
                Some(c) if !c.is_control() => {
                    if mods == KeyModifiers::SHIFT {
                        mods = KeyModifiers::NONE;
                        KeyCode::Char(c.to_uppercase().next().unwrap_or(c))
                    } else {
                        KeyCode::Char(c)
                    }
                }
                _ => return Err(bad()),
            },
        };
        Ok(Key::new(code, mods))
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mods.contains(KeyModifiers::CONTROL) {
            f.write_str("Ctrl+")?;
        }
        if self.mods.contains(KeyModifiers::ALT) {
            f.write_str("Alt+")?;
        }
        if self.mods.contains(KeyModifiers::SHIFT) {
            f.write_str("Shift+")?;
        }
        match self.code {
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::BackTab => f.write_str("Shift+Tab"),
            KeyCode::Backspace => f.write_str("Backspace"),
            KeyCode::Delete => f.write_str("Del"),
            KeyCode::Insert => f.write_str("Ins"),
            KeyCode::F(n) => write!(f, "F{n}"),
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c)
                if self
                    .mods
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                write!(f, "{}", c.to_uppercase())
            }
            KeyCode::Char(c) => write!(f, "{c}"),
            other => write!(f, "{other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_and_normalise() {
        let k = |s: &str| Key::parse(s).unwrap();
        assert_eq!(
            k("shift+t"),
            Key::new(KeyCode::Char('T'), KeyModifiers::NONE)
        );
        assert_eq!(k("T"), Key::new(KeyCode::Char('T'), KeyModifiers::SHIFT));
        assert_eq!(
            k("ctrl+left"),
            Key::new(KeyCode::Left, KeyModifiers::CONTROL)
        );
        assert_eq!(
            k("ctrl+shift+o"),
            Key::new(KeyCode::Char('O'), KeyModifiers::CONTROL)
        );
        assert_eq!(
            k("shift+tab"),
            Key::new(KeyCode::BackTab, KeyModifiers::SHIFT)
        );
        assert_eq!(k("f1").to_string(), "F1");
        assert_eq!(k("ctrl+d").to_string(), "Ctrl+D");
        assert!(Key::parse("ctrl+nope").is_err());
        assert!(Key::parse("hyper+x").is_err());
    }
}
