//! A text as written, kept as the edits that make it from its folded form
//! (see [`crate::jstext::normalize_whitespace_lower`]): the deep-search
//! index stores every entry's folded text, which every search scans, so
//! the text as written costs only where it differs: its capitals, its
//! runs of white space other than one space, its ends. Reading a text back
//! is a copy with a few bytes put in, where a compressed copy of the text
//! would have to be decompressed whole.
//!
//! A patch is a run of edits, each three LEB128 numbers, `copy`, `drop`
//! and `insert`, then `insert` bytes: copy that many bytes of the folded
//! text, pass over `drop` more, put in the bytes given. The rest of the
//! folded text is copied after the last edit; a text the same as its
//! folded form has an empty patch.

use crate::jstext::is_space;

/// Appends to `out` the patch that makes `original` from `folded` (its
/// folded form). The edits follow the folding character by character; a
/// text they do not give back exactly (a fold that looks at its
/// neighbours) is kept whole, as one edit.
pub(crate) fn write(original: &str, folded: &str, out: &mut Vec<u8>) {
    let start = out.len();
    if edits(original, folded, out).is_some() {
        let mut back = Vec::with_capacity(original.len());
        if apply(folded.as_bytes(), &out[start..], &mut back).is_some()
            && back == original.as_bytes()
        {
            return;
        }
    }
    out.truncate(start);
    push_edit(out, 0, folded.len(), original.as_bytes());
}

/// Appends to `out` the text `patch` makes from `folded`; `None` when the
/// patch does not fit the text (damage: nothing is to be trusted then).
pub(crate) fn apply(folded: &[u8], patch: &[u8], out: &mut Vec<u8>) -> Option<()> {
    apply_upto(folded, patch, out, usize::MAX).map(|_| ())
}

/// [`apply`], stopping after the edit that takes what it appended to
/// `limit` bytes or more: `Some(true)` when the whole text was made,
/// `Some(false)` when it stopped short (only what it read was checked).
pub(crate) fn apply_upto(
    folded: &[u8],
    mut patch: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
) -> Option<bool> {
    let start = out.len();
    let mut at = 0usize;
    while !patch.is_empty() {
        if out.len() - start >= limit {
            return Some(false);
        }
        let copy = leb128(&mut patch)?;
        let drop = leb128(&mut patch)?;
        let insert = leb128(&mut patch)?;
        let copied = at.checked_add(copy)?;
        out.extend_from_slice(folded.get(at..copied)?);
        at = copied.checked_add(drop)?;
        if at > folded.len() {
            return None;
        }
        out.extend_from_slice(patch.get(..insert)?);
        patch = &patch[insert..];
    }
    out.extend_from_slice(folded.get(at..)?);
    Some(true)
}

/// Writes the edits, walking `original` beside `folded`: each run of
/// white space is one space in the folded text (none at either end), each
/// other character as many characters as it lowers to. `None` when the
/// folded text runs out first.
fn edits(original: &str, folded: &str, out: &mut Vec<u8>) -> Option<()> {
    let mut pending = Pending::default();
    let mut at = 0usize;
    let mut rest = original;
    let mut started = false;
    while let Some(c) = rest.chars().next() {
        // A run of ASCII other than white space folds byte for byte.
        let plain = rest
            .bytes()
            .position(|b| !b.is_ascii() || is_space(char::from(b)))
            .unwrap_or(rest.len());
        if plain > 0 {
            started = true;
            let (run, folds) = (
                &rest.as_bytes()[..plain],
                folded.as_bytes().get(at..at + plain)?,
            );
            if run == folds {
                pending.copy(out, plain);
            } else {
                for (&o, &f) in run.iter().zip(folds) {
                    if o == f {
                        pending.copy(out, 1);
                    } else if o.to_ascii_lowercase() == f {
                        pending.change(1, &[o]);
                    } else {
                        return None;
                    }
                }
            }
            at += plain;
            rest = &rest[plain..];
            continue;
        }
        if is_space(c) {
            let run_len = rest.find(|c: char| !is_space(c)).unwrap_or(rest.len());
            let (run, after) = rest.split_at(run_len);
            if !started || after.is_empty() {
                // Trimmed away: nothing in the folded text.
                pending.change(0, run.as_bytes());
            } else if folded.as_bytes().get(at) != Some(&b' ') {
                return None;
            } else if run == " " {
                pending.copy(out, 1);
                at += 1;
            } else {
                pending.change(1, run.as_bytes());
                at += 1;
            }
            rest = after;
            continue;
        }
        started = true;
        let ch = &rest[..c.len_utf8()];
        let lowered = c.to_lowercase().count();
        let tail = folded.get(at..)?;
        let (mut len, mut n) = (0, 0);
        for l in tail.chars().take(lowered) {
            len += l.len_utf8();
            n += 1;
        }
        if n < lowered {
            return None;
        }
        if tail.as_bytes()[..len] == *ch.as_bytes() {
            pending.copy(out, len);
        } else {
            pending.change(len, ch.as_bytes());
        }
        at += len;
        rest = &rest[ch.len()..];
    }
    pending.flush(out);
    // The rest of the folded text would be copied after the last edit.
    (at == folded.len()).then_some(())
}

/// The edit being gathered: folded bytes copied since the last change,
/// then bytes dropped and bytes put in.
#[derive(Default)]
struct Pending {
    copy: usize,
    drop: usize,
    insert: Vec<u8>,
}

impl Pending {
    fn copy(&mut self, out: &mut Vec<u8>, n: usize) {
        if self.drop > 0 || !self.insert.is_empty() {
            self.flush(out);
        }
        self.copy += n;
    }

    fn change(&mut self, drop: usize, insert: &[u8]) {
        self.drop += drop;
        self.insert.extend_from_slice(insert);
    }

    /// Writes the edit gathered, if it changes anything (copies alone are
    /// left to the next edit, or to the copy of the rest).
    fn flush(&mut self, out: &mut Vec<u8>) {
        if self.drop > 0 || !self.insert.is_empty() {
            push_edit(out, self.copy, self.drop, &self.insert);
            *self = Pending::default();
        }
    }
}

fn push_edit(out: &mut Vec<u8>, copy: usize, drop: usize, insert: &[u8]) {
    for n in [copy, drop, insert.len()] {
        push_leb128(out, n as u64);
    }
    out.extend_from_slice(insert);
}

fn push_leb128(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// A LEB128 number at the front of `bytes`, taken off; `None` when it is
/// cut short or does not fit a `usize`.
fn leb128(bytes: &mut &[u8]) -> Option<usize> {
    // Most numbers of a patch are under 128: one byte.
    if let Some((&b, rest)) = bytes.split_first()
        && b < 0x80
    {
        *bytes = rest;
        return Some(usize::from(b));
    }
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        n |= u64::from(b & 0x7f).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return usize::try_from(n).ok();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jstext::normalize_whitespace_lower;

    fn round_trip(text: &str) -> Vec<u8> {
        let folded = normalize_whitespace_lower(text);
        let mut patch = Vec::new();
        write(text, &folded, &mut patch);
        let mut back = Vec::new();
        assert_eq!(
            apply(folded.as_bytes(), &patch, &mut back),
            Some(()),
            "{text:?}"
        );
        assert_eq!(back, text.as_bytes(), "{text:?}");
        patch
    }

    /// Every text comes back from its folded form and its patch, byte for
    /// byte: capitals, white space of every kind, trimmed ends, letters
    /// that lower to more than one, Greek's final sigma (lowered by its
    /// neighbours), texts of nothing but space.
    #[test]
    fn a_text_comes_back_from_its_fold_and_patch() {
        for text in [
            "",
            "plain words only",
            "The Widget renders Twice.",
            "  leading and trailing \n",
            "fn main() {\n    let X = Foo::new();\n\tprintln!(\"{X}\");\n}\n",
            "a\u{3000}b\u{feff}c\u{a0} d\u{2029}",
            "İstanbul İİ",
            "ΟΔΟΣ ΣΑΣ Σ",
            "ẞ STRASSE",
            " \n\t ",
            "x\u{85}y",
            "MiXeD cAsE with ÜMLÄUTS and emoji 😀 ok",
            "\u{0130}\u{0130}a",
        ] {
            round_trip(text);
        }
    }

    /// A text already folded costs nothing, and a capital or a line break a
    /// few bytes:
    /// the patch is the difference, not the text.
    #[test]
    fn a_patch_holds_only_the_differences() {
        assert!(round_trip("already folded text").is_empty());
        assert_eq!(round_trip("one Capital here").len(), 4);
        // At most four bytes for each capital and each line break (fewer
        // where they are next to each other: one edit).
        let lines = "Line one\nline two\nline three\n".repeat(50);
        let patch = round_trip(&lines).len();
        assert!(patch > 50 * 8 && patch < 50 * 16, "{patch}");
    }

    /// Every text of two sessions pi wrote (code, tool output, prompts,
    /// summaries) comes back from its fold and patch, and the patches
    /// take a fraction of the texts.
    #[test]
    fn pi_written_texts_come_back() {
        let (mut texts, mut bytes, mut patched) = (0, 0, 0);
        for line in crate::session::read::file::pi_written_lines() {
            let entry: serde_json::Map<String, serde_json::Value> =
                serde_json::from_slice(&line).expect("a JSON object");
            for (_, text) in crate::session::content::search_texts(&entry) {
                texts += 1;
                bytes += text.len();
                patched += round_trip(&text).len();
            }
        }
        assert!(texts > 100, "{texts} texts");
        assert!(patched * 2 < bytes, "{patched} of {bytes} bytes");
    }

    /// Made up to a limit, a text is its first bytes (at least the limit's
    /// worth, or the whole text), and says whether it is whole.
    #[test]
    fn a_text_made_up_to_a_limit_is_its_start() {
        let text = "Some Text\nwith Capitals and\n\tbreaks ".repeat(40);
        let folded = normalize_whitespace_lower(&text);
        let patch = round_trip(&text);
        for limit in [
            0,
            1,
            10,
            100,
            1000,
            text.len() - 1,
            text.len(),
            text.len() + 1,
        ] {
            let mut out = b"before".to_vec();
            let whole = apply_upto(folded.as_bytes(), &patch, &mut out, limit).expect("fits");
            let made = &out[6..];
            assert!(text.as_bytes().starts_with(made), "{limit}");
            assert_eq!(whole, made.len() == text.len(), "{limit}");
            assert!(whole || made.len() >= limit, "{limit}");
        }
    }

    /// A patch that does not fit its text reads as nothing, never as a
    /// wrong text or a panic: cut short, copying or dropping past the
    /// end, putting in more bytes than it has, numbers too long.
    #[test]
    fn a_damaged_patch_reads_as_nothing() {
        let folded = b"hello world";
        let mut out = Vec::new();
        for patch in [
            &[0x80][..],
            &[20, 0, 0][..],
            &[0, 20, 0][..],
            &[0, 0, 5, b'a'][..],
            &[0xff; 11][..],
            &[5][..],
        ] {
            out.clear();
            assert_eq!(apply(folded, patch, &mut out), None, "{patch:?}");
        }
        out.clear();
        assert_eq!(apply(folded, &[0, 1, 1, b'H'], &mut out), Some(()));
        assert_eq!(out, b"Hello world");
    }
}
