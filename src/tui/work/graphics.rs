//! What the terminal can draw, asked once at start-up: its graphics
//! protocol (kitty's, sixel, iTerm2's) and the size of a cell in pixels.
//! The question is written before the input thread starts (the answers
//! arrive as input) and waited for at most [`ANSWER_TIMEOUT`], so a
//! terminal that does not answer only delays the first frame a little.

use crate::tui::look::images::{ImageMode, Protocol};
use crate::tui::model::preview_images::Graphics;
use std::time::Duration;

/// How long the terminal has to answer.
pub const ANSWER_TIMEOUT: Duration = Duration::from_millis(500);
/// A cell's size when the terminal tells none (a common font's).
const DEFAULT_CELL: (u16, u16) = (10, 20);

/// What the terminal said.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Answers {
    pub kitty: bool,
    pub sixel: bool,
    /// A cell's width and height in pixels.
    pub cell: Option<(u16, u16)>,
    /// The terminal answered at all (within the timeout).
    pub answered: bool,
}

/// How this run draws pictures, by the setting and what the terminal says;
/// `None`: as placeholders. Needs the terminal in raw mode, and nothing
/// else reading its input yet.
pub fn detect(mode: ImageMode) -> Option<Graphics> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    match mode {
        ImageMode::Off => None,
        ImageMode::Force(Protocol::Halfblocks) => {
            Some(Graphics::new(Protocol::Halfblocks, DEFAULT_CELL))
        }
        ImageMode::Force(p) => {
            let cell = cell_from_window().or_else(|| ask_terminal(ANSWER_TIMEOUT).cell);
            Some(Graphics::new(p, cell.unwrap_or(DEFAULT_CELL)))
        }
        ImageMode::Auto => {
            // Inside tmux or screen the question reaches the multiplexer,
            // not the terminal, and pictures need its passthrough: only
            // when asked for by name.
            let term = env("TERM").unwrap_or_default();
            if env("TMUX").is_some() || term.starts_with("tmux") || term.starts_with("screen") {
                return None;
            }
            let answers = ask_terminal(ANSWER_TIMEOUT);
            let cell = answers.cell.or_else(cell_from_window)?;
            let protocol = choose(
                &answers,
                env("TERM_PROGRAM").as_deref(),
                env("LC_TERMINAL").as_deref(),
                env("WEZTERM_EXECUTABLE").is_some(),
                env("KONSOLE_VERSION").is_some(),
            )?;
            Some(Graphics::new(protocol, cell))
        }
    }
}

/// The protocol to use, from the terminal's answers and what its
/// environment says it is.
pub fn choose(
    answers: &Answers,
    term_program: Option<&str>,
    lc_terminal: Option<&str>,
    wezterm: bool,
    konsole: bool,
) -> Option<Protocol> {
    let iterm2 = wezterm
        || term_program.is_some_and(|p| p.contains("iTerm") || p.contains("WezTerm"))
        || lc_terminal.is_some_and(|t| t.contains("iTerm"));
    // WezTerm draws iTerm2's protocol best; Konsole's answers promise more
    // than it draws well.
    if wezterm || konsole {
        return iterm2.then_some(Protocol::Iterm2);
    }
    if answers.kitty {
        Some(Protocol::Kitty)
    } else if answers.sixel {
        Some(Protocol::Sixel)
    } else {
        iterm2.then_some(Protocol::Iterm2)
    }
}

/// Reads a terminal's answers from `bytes`; true once its status report
/// (the last answer asked for) has come.
pub fn read_answers(
    bytes: &[u8],
    parser: &mut ratatui_image::picker::cap_parser::Parser,
    out: &mut Answers,
) -> bool {
    use ratatui_image::picker::cap_parser::Response;
    let mut done = false;
    for &b in bytes {
        for r in parser.push(char::from(b)) {
            out.answered = true;
            match r {
                Response::Kitty => out.kitty = true,
                Response::Sixel => out.sixel = true,
                Response::CellSize(Some((w, h))) if w > 0 && h > 0 => out.cell = Some((w, h)),
                Response::Status => done = true,
                _ => {}
            }
        }
    }
    done
}

/// Asks the terminal (on standard output) and reads its answers (from
/// standard input) until it has answered everything or `timeout` passed.
#[cfg(unix)]
fn ask_terminal(timeout: Duration) -> Answers {
    use ratatui_image::picker::cap_parser::{Parser, QueryStdioOptions};
    use std::io::Write as _;
    use std::time::Instant;
    let mut answers = Answers::default();
    let query = Parser::query(false, QueryStdioOptions::default());
    let mut out = std::io::stdout();
    if out
        .write_all(query.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        return answers;
    }
    let mut parser = Parser::new();
    let started = Instant::now();
    let mut buf = [0u8; 256];
    loop {
        let left = timeout.saturating_sub(started.elapsed());
        if left.is_zero() {
            break;
        }
        let mut fd = libc::pollfd {
            fd: libc::STDIN_FILENO,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = libc::c_int::try_from(left.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
        // SAFETY: one valid pollfd, for the call's duration.
        let ready = unsafe { libc::poll(&mut fd, 1, ms) };
        if ready < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        if ready <= 0 {
            break;
        }
        // Read straight from the descriptor: the standard library's buffer
        // would keep bytes the input thread never sees.
        // SAFETY: `buf` is valid for `buf.len()` bytes.
        let n = unsafe { libc::read(libc::STDIN_FILENO, buf.as_mut_ptr().cast(), buf.len()) };
        let Ok(n) = usize::try_from(n) else { break };
        if n == 0 {
            break;
        }
        if read_answers(&buf[..n], &mut parser, &mut answers) {
            break;
        }
    }
    answers
}

#[cfg(not(unix))]
fn ask_terminal(_timeout: Duration) -> Answers {
    Answers::default()
}

/// A cell's size from the window's size in pixels, when the terminal
/// tells it.
#[cfg(unix)]
fn cell_from_window() -> Option<(u16, u16)> {
    // SAFETY: `winsize` is plain data, filled by the call.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: TIOCGWINSZ writes one winsize.
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0;
    if !ok || ws.ws_col == 0 || ws.ws_row == 0 || ws.ws_xpixel == 0 || ws.ws_ypixel == 0 {
        return None;
    }
    Some((ws.ws_xpixel / ws.ws_col, ws.ws_ypixel / ws.ws_row)).filter(|&(w, h)| w > 0 && h > 0)
}

#[cfg(not(unix))]
fn cell_from_window() -> Option<(u16, u16)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui_image::picker::cap_parser::Parser;

    fn answers(bytes: &[u8]) -> (Answers, bool) {
        let mut a = Answers::default();
        let done = read_answers(bytes, &mut Parser::new(), &mut a);
        (a, done)
    }

    #[test]
    fn a_kitty_answer_picks_kitty() {
        let (a, done) = answers(b"\x1b_Gi=31;OK\x1b\\\x1b[?62;4;22c\x1b[6;20;10t\x1b[0n");
        assert!(done);
        assert_eq!(a.cell, Some((10, 20)));
        assert_eq!(choose(&a, None, None, false, false), Some(Protocol::Kitty));
    }

    #[test]
    fn sixel_without_kitty_picks_sixel_and_nothing_picks_nothing() {
        let (a, done) = answers(b"\x1b[?62;4;22c\x1b[0n");
        assert!(done && a.sixel && !a.kitty);
        assert_eq!(choose(&a, None, None, false, false), Some(Protocol::Sixel));
        let (a, done) = answers(b"\x1b[?1;2c\x1b[0n");
        assert!(done);
        assert_eq!(choose(&a, None, None, false, false), None);
        assert_eq!(
            choose(&a, Some("iTerm.app"), None, false, false),
            Some(Protocol::Iterm2)
        );
        // Konsole's sixel is not trusted; WezTerm draws iTerm2's protocol.
        let (a, _) = answers(b"\x1b[?62;4;22c\x1b[0n");
        assert_eq!(choose(&a, None, None, false, true), None);
        assert_eq!(choose(&a, None, None, true, false), Some(Protocol::Iterm2));
    }

    #[test]
    fn answers_split_across_reads_are_read_whole() {
        let mut a = Answers::default();
        let mut p = Parser::new();
        assert!(!read_answers(b"\x1b[?62;", &mut p, &mut a));
        assert!(!read_answers(b"4c\x1b[6;18;9", &mut p, &mut a));
        assert!(read_answers(b"t\x1b[0n", &mut p, &mut a));
        assert!(a.sixel);
        assert_eq!(a.cell, Some((9, 18)));
    }
}
