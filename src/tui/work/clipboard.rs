//! Copying text out: the system clipboard when there is one, else the
//! terminal's own clipboard through an OSC 52 sequence (which works over SSH).

use base64::Engine as _;
use std::sync::{Mutex, OnceLock};

/// Set (non-empty) to skip the system clipboard and always use OSC 52.
pub const NO_SYSTEM_CLIPBOARD_ENV: &str = "PISCOPE_NO_SYSTEM_CLIPBOARD";

/// The system clipboard, kept for the whole run: on X11 the text is served
/// from this process, so dropping the handle would drop the copy.
fn system() -> Option<&'static Mutex<arboard::Clipboard>> {
    static CLIPBOARD: OnceLock<Option<Mutex<arboard::Clipboard>>> = OnceLock::new();
    CLIPBOARD
        .get_or_init(|| {
            if std::env::var_os(NO_SYSTEM_CLIPBOARD_ENV).is_some_and(|v| !v.is_empty()) {
                return None;
            }
            arboard::Clipboard::new().ok().map(Mutex::new)
        })
        .as_ref()
}

/// Puts `text` on the system clipboard; `false` when there is none.
pub fn copy_to_system(text: &str) -> bool {
    let Some(clipboard) = system() else {
        return false;
    };
    let Ok(mut c) = clipboard.lock() else {
        return false;
    };
    c.set_text(text.to_string()).is_ok()
}

/// The OSC 52 sequence that asks the terminal to copy `text`. Inside GNU
/// screen it is wrapped so screen passes it on (tmux takes it as it is).
pub fn osc52(text: &str) -> Vec<u8> {
    let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    let seq = format!("\x1b]52;c;{encoded}\x07");
    let in_screen = std::env::var("TERM").is_ok_and(|t| t.starts_with("screen"))
        && std::env::var_os("TMUX").is_none();
    if in_screen {
        format!("\x1bP{seq}\x1b\\").into_bytes()
    } else {
        seq.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_carries_the_text_base64_encoded() {
        let seq = String::from_utf8(osc52("hi \u{1b}[31m")).unwrap();
        let start = seq.find("]52;c;").unwrap() + 6;
        let end = seq.find('\x07').unwrap();
        assert_eq!(&seq[start..end], "aGkgG1szMW0=");
    }
}
