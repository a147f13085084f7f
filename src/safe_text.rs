//! The one sanitiser: untrusted text (anything read from a session file or
//! its path) made safe and measured for the terminal, for both front ends.
//! Control characters (escape sequences included) and bidi overrides become
//! visible symbols; lines are cut and wrapped by width; [`SafeWriter`] is the
//! gate every readable line of the command line passes through.

use std::io::{self, Write};
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
    let visible = sanitize(s);
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
    s.split('\n').map(clean_block_line).collect()
}

/// One line of a block, cleaned as [`clean_block`] cleans it.
pub fn clean_block_line(line: &str) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    clean_line(&expand_tabs(line))
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

/// Makes untrusted text safe for a terminal on one line: control characters
/// (escape sequences, line breaks and tabs included) become visible symbols
/// and bidi overrides `�`.
pub fn sanitize(s: &str) -> String {
    s.chars().map(safe_char).collect()
}

/// Like [`sanitize`], but keeps line breaks (LF) and tabs: for blocks of text.
pub fn sanitize_block(s: &str) -> String {
    s.chars().map(block_char).collect()
}

fn block_char(c: char) -> char {
    if c == '\n' || c == '\t' {
        c
    } else {
        safe_char(c)
    }
}

/// A character a terminal shows as itself: C0 controls become their
/// `␀`..`␟` pictures, DEL `␡`; C1 controls (an 8-bit CSI or DCS) and the
/// marks that reorder text (bidi embeddings, overrides, isolates) become `�`.
fn safe_char(c: char) -> char {
    match c {
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
        '\u{7f}' => '\u{2421}',
        '\u{80}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}'
        | '\u{200e}'
        | '\u{200f}' => '\u{fffd}',
        c => c,
    }
}

/// A writer whose output is safe for a terminal whatever is written to it:
/// everything passes [`sanitize_block`] on its way (line breaks and tabs
/// stay), and bytes that are not UTF-8 become `�`. The command line writes
/// all its readable output through one, so a string from a file that some
/// formatting code forgot to clean still cannot reach the terminal raw.
pub struct SafeWriter<W: Write> {
    inner: W,
    /// The start of a character split between two writes.
    pending: Vec<u8>,
}

impl<W: Write> SafeWriter<W> {
    pub fn new(inner: W) -> Self {
        SafeWriter {
            inner,
            pending: Vec::new(),
        }
    }

    fn emit(&mut self, s: &str) -> io::Result<()> {
        if shown_as_is(s) {
            self.inner.write_all(s.as_bytes())
        } else {
            self.inner.write_all(sanitize_block(s).as_bytes())
        }
    }
}

/// Whether [`sanitize_block`] leaves `s` as it is.
fn shown_as_is(s: &str) -> bool {
    unchanged(s, true)
}

/// Whether [`sanitize`] (with `breaks`, [`sanitize_block`]) leaves `s` as
/// it is, with only a few characters decoded: every character
/// [`safe_char`] changes starts with a byte below 0x20, 0x7f, 0xc2 (the C1
/// controls) or 0xe2 (the bidi marks). Those bytes are found sixteen at a
/// time on vectors, and only the characters they start are decoded and
/// asked.
fn unchanged(s: &str, breaks: bool) -> bool {
    let suspect = |b: u8| b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xe2;
    let same = |c: char| match breaks {
        true => block_char(c) == c,
        false => safe_char(c) == c,
    };
    // A suspect byte starts a character (none of them continues one).
    let changed = |i: usize| {
        s.get(i..)
            .and_then(|rest| rest.chars().next())
            .is_some_and(|c| !same(c))
    };
    let bytes = s.as_bytes();
    // Sixteen bytes at a time on vectors, each suspect looked at.
    #[cfg(target_arch = "x86_64")]
    let mut at = {
        let mut at = 0;
        while let Some(block) = bytes.get(at..at + 16) {
            let mut mask = sse2::suspects(block);
            while mask != 0 {
                if changed(at + mask.trailing_zeros() as usize) {
                    return false;
                }
                mask &= mask - 1;
            }
            at += 16;
        }
        at
    };
    #[cfg(not(target_arch = "x86_64"))]
    let mut at = 0;
    while at < bytes.len() {
        if suspect(bytes[at]) && changed(at) {
            return false;
        }
        at += 1;
    }
    true
}

/// The suspects of [`unchanged`], sixteen bytes at a time with SSE2, which
/// every x86-64 processor has.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    /// A bit for each byte of the 16 in `block` (fewer: none) that is below
    /// 0x20, 0x7f, 0xc2 or 0xe2.
    #[inline]
    pub(super) fn suspects(block: &[u8]) -> u32 {
        let Ok(block) = <&[u8; 16]>::try_from(block) else {
            return 0;
        };
        // SAFETY: SSE2 is part of x86-64, and `block` holds the 16 bytes
        // the unaligned load reads.
        unsafe {
            let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let is = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
            // v <= 0x1f, unsigned: max(v, 0x1f) == 0x1f.
            let limit = _mm_set1_epi8(0x1f);
            let ctrl = _mm_cmpeq_epi8(_mm_max_epu8(v, limit), limit);
            let odd = _mm_or_si128(_mm_or_si128(is(0x7f), is(0xc2)), is(0xe2));
            _mm_movemask_epi8(_mm_or_si128(ctrl, odd)) as u32
        }
    }
}

/// Appends `s` to `out` as [`sanitize`] gives it (most text is appended
/// as it is, with no character decoded).
pub fn push_sanitized(out: &mut String, s: &str) {
    if unchanged(s, false) {
        out.push_str(s);
    } else {
        out.push_str(&sanitize(s));
    }
}

impl<W: Write> Write for SafeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let joined;
        let mut rest: &[u8] = if self.pending.is_empty() {
            buf
        } else {
            self.pending.extend_from_slice(buf);
            joined = std::mem::take(&mut self.pending);
            &joined
        };
        loop {
            // Most output is UTF-8: checked on vectors first, and again
            // (to find where it stops being so) only when it is not.
            let checked = match simdutf8::basic::from_utf8(rest) {
                Ok(s) => Ok(s),
                Err(_) => std::str::from_utf8(rest),
            };
            match checked {
                Ok(s) => {
                    self.emit(s)?;
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    // Checked by from_utf8 just now.
                    self.emit(std::str::from_utf8(valid).unwrap_or_default())?;
                    match e.error_len() {
                        Some(bad) => {
                            self.inner.write_all("\u{fffd}".as_bytes())?;
                            rest = &after[bad..];
                        }
                        None => {
                            self.pending = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        Ok(buf.len())
    }

    /// A character still split at a flush is never completed: it becomes `�`.
    fn flush(&mut self) -> io::Result<()> {
        if !self.pending.is_empty() {
            self.pending.clear();
            self.inner.write_all("\u{fffd}".as_bytes())?;
        }
        self.inner.flush()
    }
}

/// A size for reading: `812 B`, `12 KB`, `3.4 MB` (powers of 1024).
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else if v < 10.0 {
        format!("{v:.1} {}", UNITS[u])
    } else {
        format!("{v:.0} {}", UNITS[u])
    }
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
    fn blocks_keep_line_breaks_and_tabs_only() {
        assert_eq!(sanitize("a\nb\tc"), "a␊b␉c");
        assert_eq!(sanitize_block("a\nb\tc\r\u{1b}[2J"), "a\nb\tc␍␛[2J");
        assert_eq!(
            sanitize("\u{9b}\u{90}\u{2066}\u{2069}\u{200f}"),
            "\u{fffd}".repeat(5)
        );
    }

    #[test]
    fn the_writer_lets_nothing_raw_through() {
        let mut out = SafeWriter::new(Vec::new());
        let text = "ok\n\u{1b}]52;c;eA==\u{7}\u{9b}1m\u{202e}é\n";
        let bytes = text.as_bytes();
        // A character split between writes is put back together.
        let cut = text.find('é').unwrap() + 1;
        out.write_all(&bytes[..cut]).unwrap();
        out.write_all(&bytes[cut..]).unwrap();
        out.write_all(b"bad \xff\xc3").unwrap();
        out.flush().unwrap();
        let shown = String::from_utf8(out.inner).unwrap();
        assert_eq!(
            shown,
            "ok\n␛]52;c;eA==␇\u{fffd}1m\u{fffd}é\nbad \u{fffd}\u{fffd}"
        );
    }

    /// What the writer lets through as it is, it would also have left
    /// unchanged: each character that is changed, at every place around
    /// the 32-byte runs told at once, in plain text and beside others.
    #[test]
    fn text_shown_as_is_is_what_sanitising_leaves() {
        let odd = [
            "\u{1b}", "\r", "\u{7f}", "\u{9b}", "\u{202e}", "\u{200f}", "\0", "\u{80}", "\u{9f}",
            "\u{200e}", "\u{202a}", "\u{2066}", "\u{2069}", "\u{1f}",
        ];
        let fine = [
            "é", "…", "日", "\n", "\t", "~", " ", "\u{a0}", "\u{ff}", "\u{200d}", "\u{2010}",
            "\u{2029}", "\u{202f}", "\u{2065}", "\u{206a}", "\u{2190}", "\u{e000}",
        ];
        for len in [0, 1, 31, 32, 33, 64, 70] {
            for at in 0..=len {
                for c in odd.iter().chain(&fine) {
                    for near in ["", "é", "日本"] {
                        let text = format!("{}{c}{near}{}", "a".repeat(at), "b".repeat(len - at));
                        let same = sanitize_block(&text) == text;
                        assert_eq!(shown_as_is(&text), same, "{text:?}");
                        let mut pushed = String::from(">");
                        push_sanitized(&mut pushed, &text);
                        assert_eq!(pushed, format!(">{}", sanitize(&text)), "{text:?}");
                        assert_eq!(unchanged(&text, false), sanitize(&text) == text);
                    }
                }
            }
        }
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
