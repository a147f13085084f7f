//! Untrusted text made safe and measured for the terminal: control
//! characters become visible symbols, and lines are cut and wrapped by width.

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Zero-width marks kept after one visible character. More than a few only
/// pile up ("zalgo" text) and some terminals then draw outside the cell.
const MAX_MARKS: usize = 3;

/// Columns between tab stops when a block of text is shown.
const TAB_STOP: usize = 4;

/// One line of text from a session file, safe to print: escape sequences and
/// other control characters become visible symbols (`␛`, `␇`, ...), bidi
/// overrides become `�`, and stray or excess zero-width marks are dropped so
/// that every cell the line claims is a cell the terminal draws.
pub fn clean_line(s: &str) -> String {
    let visible = crate::cli::sanitize(s);
    let mut out = String::with_capacity(visible.len());
    let mut marks = 0;
    let mut has_base = false;
    for c in visible.chars() {
        match c.width() {
            Some(0) => {
                if has_base && marks < MAX_MARKS {
                    out.push(c);
                    marks += 1;
                }
            }
            // Only controls have no width, and sanitize replaced them all.
            None => out.push('\u{fffd}'),
            Some(_) => {
                has_base = true;
                marks = 0;
                out.push(c);
            }
        }
    }
    out
}

/// A block of text (a message body, tool output) as clean lines: line ends
/// (LF or CRLF) split it, tabs become spaces to the next tab stop.
pub fn clean_block(s: &str) -> Vec<String> {
    s.split('\n')
        .map(|line| {
            let line = line.strip_suffix('\r').unwrap_or(line);
            clean_line(&expand_tabs(line))
        })
        .collect()
}

fn expand_tabs(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\t') {
        return line.into();
    }
    let mut out = String::with_capacity(line.len() + 8);
    let mut col = 0;
    for c in line.chars() {
        if c == '\t' {
            let n = TAB_STOP - col % TAB_STOP;
            out.extend(std::iter::repeat_n(' ', n));
            col += n;
        } else {
            out.push(c);
            col += c.width().unwrap_or(1);
        }
    }
    out.into()
}

/// Display width in terminal columns.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Cuts `s` to at most `max` columns, ending with `…` when something was cut.
pub fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for g in s.graphemes(true) {
        let w = width(g);
        if used + w > max - 1 {
            break;
        }
        out.push_str(g);
        used += w;
    }
    out.push('…');
    out
}

/// Pads `s` with spaces on the right to exactly `cols` columns (cutting it
/// first when it is wider).
pub fn fit(s: &str, cols: usize) -> String {
    let mut out = truncate(s, cols);
    let w = width(&out);
    out.extend(std::iter::repeat_n(' ', cols.saturating_sub(w)));
    out
}

/// Wraps one clean line into rows of at most `cols` columns, breaking at
/// spaces where it can and inside a word where it must. An empty line gives
/// one empty row.
pub fn wrap(line: &str, cols: usize) -> Vec<String> {
    let cols = cols.max(1);
    if width(line) <= cols {
        return vec![line.to_string()];
    }
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut row_width = 0;
    for word in line.split_word_bounds() {
        let w = width(word);
        if row_width + w <= cols {
            row.push_str(word);
            row_width += w;
            continue;
        }
        if word.trim().is_empty() {
            // A space at the break is dropped.
            rows.push(std::mem::take(&mut row));
            row_width = 0;
            continue;
        }
        if w <= cols && row_width > 0 {
            rows.push(std::mem::take(&mut row));
            row.push_str(word);
            row_width = w;
            continue;
        }
        for g in word.graphemes(true) {
            let gw = width(g);
            if row_width + gw > cols && row_width > 0 {
                rows.push(std::mem::take(&mut row));
                row_width = 0;
            }
            row.push_str(g);
            row_width += gw;
        }
    }
    if !row.is_empty() || rows.is_empty() {
        rows.push(row);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_become_visible() {
        let s = clean_line("a\u{1b}[31mred\u{1b}]0;title\u{7} \u{9b}x \u{202e}rtl");
        assert_eq!(s, "a␛[31mred␛]0;title␇ \u{fffd}x \u{fffd}rtl");
        assert!(s.chars().all(|c| !c.is_control()));
    }

    #[test]
    fn excess_and_leading_marks_are_dropped() {
        let zalgo = format!("\u{301}e{}", "\u{301}".repeat(10));
        let s = clean_line(&zalgo);
        assert_eq!(s, format!("e{}", "\u{301}".repeat(MAX_MARKS)));
        assert_eq!(width(&s), 1);
    }

    #[test]
    fn blocks_split_lines_and_expand_tabs() {
        assert_eq!(clean_block("a\tb\r\nc\rd"), vec!["a   b", "c␍d"]);
    }

    #[test]
    fn wide_characters_are_measured() {
        assert_eq!(width("日本"), 4);
        assert_eq!(truncate("日本語です", 5), "日本…");
        assert_eq!(fit("日本", 5), "日本 ");
    }

    #[test]
    fn wrapping_breaks_at_spaces_then_inside_words() {
        assert_eq!(wrap("hello big world", 9), vec!["hello big", "world"]);
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), vec![""]);
        assert_eq!(wrap("日本語日本語", 5), vec!["日本", "語日", "本語"]);
    }
}
