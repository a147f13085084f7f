//! Program output with terminal escape sequences, made safe: colour and
//! emphasis (SGR) become span styles, every other sequence (cursor moves,
//! titles, hyperlinks, screen clears) is dropped, and whatever is left that
//! is not text goes through the sanitiser like any other span.

use super::document::{Class, Line, Span, Style};

/// Columns between tab stops in output.
const TAB_STOP: usize = 4;

/// The longest escape sequence read as one; a longer "sequence" is not
/// one, and its escape shows as `␛`.
const MAX_SEQUENCE: usize = 256;

/// Output as lines of styled spans (class [`Class::Output`]).
pub fn parse(text: &str) -> Vec<Line> {
    let mut p = Parser {
        lines: Vec::new(),
        line: Vec::new(),
        buf: String::new(),
        col: 0,
        style: Style::of(Class::Output),
    };
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\u{1b}' | '\u{9b}' => match sequence(&chars, i) {
                Some((end, sgr)) => {
                    if let Some(params) = sgr {
                        p.flush();
                        p.style = apply_sgr(p.style, &params);
                    }
                    i = end;
                    continue;
                }
                None => p.push_char(c),
            },
            '\n' => p.end_line(),
            '\r' if chars.get(i + 1) == Some(&'\n') => {}
            // A lone carriage return starts the line over, as a terminal
            // draws a progress bar: what follows is what was left showing.
            '\r' => {
                p.buf.clear();
                p.line.clear();
                p.col = 0;
            }
            '\t' => {
                let n = TAB_STOP - p.col % TAB_STOP;
                p.buf.extend(std::iter::repeat_n(' ', n));
                p.col += n;
            }
            c => p.push_char(c),
        }
        i += 1;
    }
    p.flush();
    if !p.line.is_empty() || p.lines.is_empty() {
        p.lines.push(p.line);
    }
    p.lines
}

struct Parser {
    lines: Vec<Line>,
    line: Line,
    buf: String,
    col: usize,
    style: Style,
}

impl Parser {
    fn push_char(&mut self, c: char) {
        self.buf.push(c);
        self.col += unicode_width::UnicodeWidthChar::width(c).unwrap_or(1);
    }

    fn flush(&mut self) {
        if !self.buf.is_empty() {
            self.line.push(Span::new(&self.buf, self.style));
            self.buf.clear();
        }
    }

    fn end_line(&mut self) {
        self.flush();
        self.lines.push(std::mem::take(&mut self.line));
        self.col = 0;
    }
}

/// The sequence starting at `chars[i]` (an ESC or an 8-bit CSI): where it
/// ends, and its parameters when it is an SGR (`ESC [ … m`). `None` when it
/// is not a complete sequence.
fn sequence(chars: &[char], i: usize) -> Option<(usize, Option<String>)> {
    let (mut j, kind) = if chars[i] == '\u{9b}' {
        (i + 1, '[')
    } else {
        let next = *chars.get(i + 1)?;
        (i + 2, next)
    };
    let limit = (i + MAX_SEQUENCE).min(chars.len());
    match kind {
        '[' => {
            let start = j;
            while j < limit {
                let c = chars[j];
                match c {
                    '\u{30}'..='\u{3f}' | '\u{20}'..='\u{2f}' => j += 1,
                    '\u{40}'..='\u{7e}' => {
                        let params: String = chars[start..j].iter().collect();
                        return Some((j + 1, (c == 'm').then_some(params)));
                    }
                    _ => return None,
                }
            }
            None
        }
        // OSC, DCS, SOS, PM, APC: strings up to BEL or ST.
        ']' | 'P' | 'X' | '^' | '_' => {
            while j < limit {
                match chars[j] {
                    '\u{7}' | '\u{9c}' => return Some((j + 1, None)),
                    '\u{1b}' if chars.get(j + 1) == Some(&'\\') => return Some((j + 2, None)),
                    _ => j += 1,
                }
            }
            None
        }
        // nF: intermediates, then a final byte (charset choices).
        '\u{20}'..='\u{2f}' => {
            while j < limit && ('\u{20}'..='\u{2f}').contains(&chars[j]) {
                j += 1;
            }
            match chars.get(j) {
                Some('\u{30}'..='\u{7e}') => Some((j + 1, None)),
                _ => None,
            }
        }
        // Fp, Fe, Fs: one final byte (keypad modes, save cursor, reset).
        '\u{30}'..='\u{7e}' => Some((j, None)),
        _ => None,
    }
}

fn apply_sgr(mut style: Style, params: &str) -> Style {
    // Colon sub-parameters (38:2::r:g:b) read like semicolons.
    let nums: Vec<Option<u32>> = params
        .split([';', ':'])
        .map(|p| {
            if p.is_empty() {
                Some(0)
            } else {
                p.parse().ok()
            }
        })
        .collect();
    let mut k = 0;
    while k < nums.len() {
        let Some(n) = nums[k] else {
            // Not a number: the rest of the sequence is not trusted.
            break;
        };
        match n {
            0 => style = Style::of(style.class),
            1 => style.bold = true,
            2 => style.dim = true,
            3 => style.italic = true,
            4 => style.underline = true,
            9 => style.strike = true,
            22 => {
                style.bold = false;
                style.dim = false;
            }
            23 => style.italic = false,
            24 => style.underline = false,
            29 => style.strike = false,
            30..=37 => style.fg = Some((n - 30) as u8),
            39 => style.fg = None,
            40..=47 => style.bg = Some((n - 40) as u8),
            49 => style.bg = None,
            90..=97 => style.fg = Some((n - 90 + 8) as u8),
            100..=107 => style.bg = Some((n - 100 + 8) as u8),
            38 | 48 => {
                let (colour, used) = extended(&nums[k + 1..]);
                if n == 38 {
                    style.fg = colour.or(style.fg);
                } else {
                    style.bg = colour.or(style.bg);
                }
                k += used;
            }
            _ => {}
        }
        k += 1;
    }
    style
}

/// `5;n` or `2;r;g;b` after a 38 or 48: the colour (a 24-bit one as the
/// nearest of the 256) and how many parameters it took.
fn extended(rest: &[Option<u32>]) -> (Option<u8>, usize) {
    match rest.first() {
        Some(Some(5)) => {
            let n = rest.get(1).copied().flatten();
            (n.and_then(|n| u8::try_from(n).ok()), 2)
        }
        Some(Some(2)) => {
            let channel = |k: usize| {
                rest.get(k)
                    .copied()
                    .flatten()
                    .map(|v| v.min(255) as u16)
                    .unwrap_or(0)
            };
            let (r, g, b) = (channel(1), channel(2), channel(3));
            let level = |v: u16| ((v * 5 + 127) / 255) as u8;
            (Some(16 + 36 * level(r) + 6 * level(g) + level(b)), 4)
        }
        _ => (None, 0),
    }
}

/// Output without its escape sequences, as plain clean lines.
#[cfg(test)]
fn plain_lines(text: &str) -> Vec<String> {
    parse(text)
        .iter()
        .map(|l| super::document::line_text(l))
        .map(|l| crate::safe_text::clean_line(&l))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> Vec<Vec<(String, Option<u8>, bool)>> {
        parse(text)
            .into_iter()
            .map(|l| {
                l.into_iter()
                    .map(|s| (s.text().to_string(), s.style.fg, s.style.bold))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn colours_become_styles() {
        let got = spans("\u{1b}[1;31merror\u{1b}[0m: x\n\u{1b}[38;5;208mo\u{1b}[38;2;0;255;0mg");
        assert_eq!(
            got,
            vec![
                vec![
                    ("error".to_string(), Some(1), true),
                    (": x".to_string(), None, false)
                ],
                vec![
                    ("o".to_string(), Some(208), false),
                    ("g".to_string(), Some(46), false)
                ],
            ]
        );
    }

    #[test]
    fn every_other_sequence_is_dropped_or_shown() {
        let hostile = "a\u{1b}]0;title\u{7}b\u{1b}[2J\u{1b}[Hc\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\\
                       \u{1b}(Bd\u{9b}31me\u{1b}Pq#0\u{1b}\\f\u{7}\u{8}\u{1b}[99999999999999999999";
        let lines = plain_lines(hostile);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0], "abclinkdef␇␈␛[99999999999999999999");
        for line in parse(hostile) {
            for s in line {
                assert!(!s.text().chars().any(char::is_control), "{:?}", s.text());
            }
        }
    }

    #[test]
    fn carriage_returns_and_tabs_are_drawn_like_a_terminal() {
        assert_eq!(
            plain_lines("10%\r50%\r100%\r\nok\tx"),
            vec!["100%", "ok  x"]
        );
        assert_eq!(plain_lines(""), vec![""]);
    }
}
