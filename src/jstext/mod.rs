//! The JavaScript string semantics pi's code relies on, once: `trim` and
//! `\s`, `toLowerCase`, UTF-16 lengths and slices, and `Date.parse` (`date`).
//!
//! The bottom layer: it imports nothing from the crate. A Rust string stands
//! for the JavaScript string with every lone surrogate replaced by U+FFFD,
//! which is what node prints for one. Both are one UTF-16 unit, neither is
//! white space, cased or case-ignorable, so every rule here gives the same
//! answer on either; a slice that cuts a surrogate pair in two yields U+FFFD
//! for the half it keeps, as pi's output shows it.

pub mod date;
pub mod sort;

use std::borrow::Cow;

/// ECMAScript's WhiteSpace and LineTerminator: what `trim()` removes and
/// what `\s` matches. Not U+0085 or U+180E, which Rust's `is_whitespace`
/// and older Unicode call white space; U+FEFF is.
pub fn is_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `String.prototype.trim`.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// `s.replace(/\s+/g, " ")`: every run of white space becomes one space.
pub fn collapse_spaces(s: &str) -> Cow<'_, str> {
    let mut chars = s.char_indices().peekable();
    // Borrow while nothing changes: a lone ' ' between non-spaces stays.
    let first_change = loop {
        match chars.next() {
            None => return Cow::Borrowed(s),
            Some((i, c)) if is_space(c) => {
                let run_of_one_space =
                    c == ' ' && !chars.peek().is_some_and(|&(_, next)| is_space(next));
                if !run_of_one_space {
                    break i;
                }
            }
            Some(_) => {}
        }
    };
    let mut out = String::with_capacity(s.len());
    out.push_str(&s[..first_change]);
    push_runs_as_space(&mut out, &s[first_change..], is_space);
    Cow::Owned(out)
}

/// `s.replace(/[…]+/g, " ")` for the class `in_class`: each run of its
/// characters becomes one space.
pub fn replace_runs_with_space(s: &str, in_class: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(s.len());
    push_runs_as_space(&mut out, s, in_class);
    out
}

fn push_runs_as_space(out: &mut String, s: &str, in_class: impl Fn(char) -> bool) {
    let mut in_run = false;
    for c in s.chars() {
        if in_class(c) {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
}

/// `String.prototype.toLowerCase`: the full Unicode mapping of the root
/// locale, final sigma included. Checked against node for every code point
/// and for sigma in context (`tests/conformance/js_string_rules_match_node.rs`).
pub fn to_lower(s: &str) -> String {
    s.to_lowercase()
}

/// `.length`: UTF-16 code units.
pub fn len_utf16(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// `.slice(start, end)`: negative positions count from the end, `None` is
/// the end, and an empty range gives "".
pub fn slice(s: &str, start: i64, end: Option<i64>) -> Cow<'_, str> {
    let len = len_utf16(s) as i64;
    let resolve = |p: i64| if p < 0 { (len + p).max(0) } else { p.min(len) };
    let from = resolve(start);
    let to = end.map_or(len, resolve);
    units(s, from as usize, (to.max(from)) as usize)
}

/// `.substring(a, b)`: positions clamped to the string, swapped when `b < a`.
pub fn substring(s: &str, a: i64, b: Option<i64>) -> Cow<'_, str> {
    let len = len_utf16(s) as i64;
    let a = a.clamp(0, len) as usize;
    let b = b.map_or(len, |b| b.clamp(0, len)) as usize;
    units(s, a.min(b), a.max(b))
}

/// UTF-16 units `from..to`, a half pair at either end as U+FFFD.
fn units(s: &str, from: usize, to: usize) -> Cow<'_, str> {
    if from >= to {
        return Cow::Borrowed("");
    }
    let (mut pos, mut start, mut end) = (0, None, s.len());
    let (mut lead, mut tail) = (false, false);
    for (i, c) in s.char_indices() {
        let (a, b) = (pos, pos + c.len_utf16());
        pos = b;
        if b <= from {
            continue;
        }
        if a >= to {
            end = i;
            break;
        }
        if a < from {
            // `from` splits this pair: its low half starts the slice.
            lead = true;
            start = Some(i + c.len_utf8());
        } else if b > to {
            // `to` splits this pair: its high half ends the slice.
            tail = true;
            end = i;
            break;
        } else if start.is_none() {
            start = Some(i);
        }
    }
    let start = start.unwrap_or(end);
    if !lead && !tail {
        return Cow::Borrowed(&s[start..end]);
    }
    let mut out = String::with_capacity(end - start + 6);
    if lead {
        out.push('\u{FFFD}');
    }
    out.push_str(&s[start..end]);
    if tail {
        out.push('\u{FFFD}');
    }
    Cow::Owned(out)
}

/// pi's `normalizeWhitespaceLower`: lower case, every run of white space
/// as one space, trimmed.
pub fn normalize_whitespace_lower(text: &str) -> String {
    let lower = to_lower(text);
    let mut out = match collapse_spaces(&lower) {
        Cow::Borrowed(_) => lower,
        Cow::Owned(collapsed) => collapsed,
    };
    // Collapsed, the ends hold at most one space each.
    if out.ends_with(' ') {
        out.pop();
    }
    if out.starts_with(' ') {
        out.remove(0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_keeps_what_javascript_keeps() {
        assert_eq!(trim("\u{feff}\u{3000} a \u{2029}\u{a0}"), "a");
        // Rust's white space, not JavaScript's.
        assert_eq!(trim("name\u{85}"), "name\u{85}");
        // White space in old Unicode, not since 6.3.
        assert_eq!(trim("\u{180e}name\u{180e}"), "\u{180e}name\u{180e}");
        assert_eq!(trim("\u{200b}x"), "\u{200b}x");
    }

    #[test]
    fn runs_of_space_become_one() {
        assert_eq!(collapse_spaces("a \t\u{feff} b c"), "a b c");
        assert_eq!(collapse_spaces(" x\u{85}y "), " x\u{85}y ");
        assert!(matches!(collapse_spaces("a b c"), Cow::Borrowed(_)));
        assert_eq!(collapse_spaces("a\u{3000}b"), "a b");
        assert_eq!(collapse_spaces("\n"), " ");
    }

    #[test]
    fn lower_case_in_full() {
        assert_eq!(to_lower("İ"), "i\u{307}");
        assert_eq!(to_lower("ΟΔΟΣ ΣΑΣ"), "οδος σας");
        assert_eq!(to_lower("Σ"), "σ");
        assert_eq!(to_lower("ẞ"), "ß");
    }

    #[test]
    fn lengths_and_slices_in_utf16_units() {
        let s = "a😀b";
        assert_eq!(len_utf16(s), 4);
        assert_eq!(slice(s, 0, Some(2)), "a\u{FFFD}");
        assert_eq!(slice(s, 2, None), "\u{FFFD}b");
        assert_eq!(slice(s, 2, Some(3)), "\u{FFFD}");
        assert_eq!(slice(s, 1, Some(3)), "😀");
        assert_eq!(slice(s, -1, None), "b");
        assert_eq!(slice(s, 3, Some(1)), "");
        assert_eq!(slice(s, 0, Some(200)), s);
        assert_eq!(substring(s, 3, Some(1)), "😀");
        assert_eq!(substring(s, -5, Some(1)), "a");
        assert_eq!(slice("😀😀", 1, Some(3)), "\u{FFFD}\u{FFFD}");
    }
}
