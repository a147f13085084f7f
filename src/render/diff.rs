//! An `edit` tool call shown as the change it makes: the tool's own diff
//! from its result (`details.diff`, the file's line numbers and context)
//! as pi draws it, else a diff of each `oldText` → `newText` (pi's `edits`
//! list, or the older single pair) drawn the same way but without line
//! numbers (the file is not at hand to count them): added, removed and
//! context lines classed, `...` where lines are left out.

use super::document::{Class, CodeLine, LineKind, Span};
use crate::safe_text;
use serde_json::Value;
use similar::TextDiff;

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// Lines of diff an edit is shown with at most; the others are counted. A
/// line costs a hundred bytes or so, and an edit of megabytes of short
/// lines took fifty times its size.
pub const MAX_DIFF_LINES: usize = 5_000;

/// How long the diff may look for the smallest change; past it, it
/// settles for a larger one (two texts of a million different lines took
/// minutes).
const DIFF_TIME: std::time::Duration = std::time::Duration::from_millis(300);

/// The `(oldText, newText)` pairs of an edit call's arguments: its `edits`
/// list, else the top-level pair. Fields that are not strings count as
/// empty; an entry without either is left out.
pub fn edit_pairs(args: &Value) -> Vec<(String, String)> {
    let pair = |v: &Value| {
        let old = v.get("oldText").or_else(|| v.get("old_string"));
        let new = v.get("newText").or_else(|| v.get("new_string"));
        if old.is_none() && new.is_none() {
            return None;
        }
        let s = |x: Option<&Value>| x.and_then(Value::as_str).unwrap_or("").to_string();
        Some((s(old), s(new)))
    };
    match args.get("edits").and_then(Value::as_array) {
        Some(list) => list.iter().filter_map(pair).collect(),
        None => pair(args).into_iter().collect(),
    }
}

/// The line that stands for lines left out between two changes, as pi
/// draws it.
fn gap() -> CodeLine {
    CodeLine {
        kind: LineKind::Hunk,
        spans: vec![Span::new("    ...", Class::DiffHunk)],
    }
}

/// The diff of the pairs, one after the other with `...` between them:
/// its first [`MAX_DIFF_LINES`] lines, and how many more it has.
pub fn edit_diff(pairs: &[(String, String)]) -> (Vec<CodeLine>, usize) {
    let (mut out, mut more) = (Vec::new(), 0);
    for (n, (old, new)) in pairs.iter().enumerate() {
        if n > 0 && out.len() >= MAX_DIFF_LINES {
            more += 1;
        } else if n > 0 {
            out.push(gap());
        }
        let (lines, past) = diff_lines(old, new, MAX_DIFF_LINES.saturating_sub(out.len()));
        out.extend(lines);
        more += past;
    }
    mark_changed_words(&mut out);
    (out, more)
}

/// A diff as the edit tool tells it in its result (`details.diff`): each
/// line a sign (`+`, `-` or a space), the file's line number and the text,
/// `...` where unchanged lines are left out. Its first [`MAX_DIFF_LINES`]
/// lines, and how many more it has.
pub fn told_diff(text: &str) -> (Vec<CodeLine>, usize) {
    let mut out = Vec::new();
    let mut more = 0;
    for line in text.trim_end_matches('\n').split('\n') {
        if out.len() >= MAX_DIFF_LINES {
            more += 1;
            continue;
        }
        let (kind, class) = match line.chars().next() {
            Some('+') => (LineKind::Add, Class::DiffAdd),
            Some('-') => (LineKind::Del, Class::DiffDel),
            _ if line.trim() == "..." => (LineKind::Hunk, Class::DiffHunk),
            _ => (LineKind::Plain, Class::DiffContext),
        };
        out.push(CodeLine {
            kind,
            spans: vec![Span::clean(safe_text::clean_block_line(line), class)],
        });
    }
    mark_changed_words(&mut out);
    (out, more)
}

/// Lines longer than this are not compared word by word.
const WORD_DIFF_CHARS: usize = 2_000;

/// A line of a diff as its sign and line number (with the space after
/// them) and its text: `-  87   get messages();` is `-  87 ` and
/// `  get messages();`.
fn split_diff_line(line: &str) -> Option<(&str, &str)> {
    let mut chars = line.char_indices();
    let (_, sign) = chars.next()?;
    if !matches!(sign, '+' | '-' | ' ') {
        return None;
    }
    let rest = &line[1..];
    let digits_from = rest.len() - rest.trim_start_matches(' ').len();
    let after_spaces = &rest[digits_from..];
    let digits = after_spaces.len()
        - after_spaces
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    let mut head = 1 + digits_from + digits;
    if digits == 0 {
        // No number: the sign's own space only.
        head = 1;
    }
    let tail = &line[head..];
    let tail = tail.strip_prefix(' ')?;
    Some((&line[..line.len() - tail.len()], tail))
}

/// Where one line is removed and one added in its place, the words that
/// changed are marked (colours swapped), as pi draws a line's change; the
/// indent the two lines share is never marked.
fn mark_changed_words(lines: &mut [CodeLine]) {
    let mut k = 0;
    while k < lines.len() {
        let single = lines[k].kind == LineKind::Del
            && k + 1 < lines.len()
            && lines[k + 1].kind == LineKind::Add
            && (k == 0 || lines[k - 1].kind != LineKind::Del)
            && (k + 2 >= lines.len() || lines[k + 2].kind != LineKind::Add);
        if single {
            let old = super::document::line_text(&lines[k].spans);
            let new = super::document::line_text(&lines[k + 1].spans);
            if old.len() <= WORD_DIFF_CHARS && new.len() <= WORD_DIFF_CHARS {
                if let (Some((oh, ot)), Some((nh, nt))) =
                    (split_diff_line(&old), split_diff_line(&new))
                {
                    let (del, add) = word_marks(ot, nt);
                    let mut spans = vec![Span::clean(oh.to_string(), Class::DiffDel)];
                    spans.extend(del);
                    lines[k].spans = spans;
                    let mut spans = vec![Span::clean(nh.to_string(), Class::DiffAdd)];
                    spans.extend(add);
                    lines[k + 1].spans = spans;
                }
            }
            k += 2;
        } else {
            k += 1;
        }
    }
}

/// The spans of a removed and an added text with the words each changed
/// marked.
fn word_marks(old: &str, new: &str) -> (Vec<Span>, Vec<Span>) {
    let indent = old
        .chars()
        .zip(new.chars())
        .take_while(|(a, b)| a == b && a.is_whitespace())
        .map(|(a, _)| a.len_utf8())
        .sum::<usize>();
    let diff = TextDiff::configure()
        .timeout(DIFF_TIME)
        .diff_words(&old[indent..], &new[indent..]);
    let mut del = vec![Span::clean(old[..indent].to_string(), Class::DiffDel)];
    let mut add = vec![Span::clean(new[..indent].to_string(), Class::DiffAdd)];
    let marked = |text: &str, class: Class, first: &mut bool, out: &mut Vec<Span>| {
        let mut text = text;
        if std::mem::take(first) {
            let lead = text.len() - text.trim_start().len();
            out.push(Span::clean(text[..lead].to_string(), class));
            text = &text[lead..];
        }
        if !text.is_empty() {
            let mut s = Span::clean(text.to_string(), class);
            s.style.inverse = true;
            out.push(s);
        }
    };
    let (mut first_del, mut first_add) = (true, true);
    for change in diff.iter_all_changes() {
        let text = change.value();
        match change.tag() {
            similar::ChangeTag::Equal => {
                del.push(Span::clean(text.to_string(), Class::DiffDel));
                add.push(Span::clean(text.to_string(), Class::DiffAdd));
            }
            similar::ChangeTag::Delete => marked(text, Class::DiffDel, &mut first_del, &mut del),
            similar::ChangeTag::Insert => marked(text, Class::DiffAdd, &mut first_add, &mut add),
        }
    }
    let keep =
        |v: Vec<Span>| -> Vec<Span> { v.into_iter().filter(|s| !s.text().is_empty()).collect() };
    (keep(del), keep(add))
}

/// The hunks of one change, their first `room` lines and how many more
/// there are; line numbers count from the snippet's start.
pub fn diff_lines(old: &str, new: &str, room: usize) -> (Vec<CodeLine>, usize) {
    // A last line without its line break is still the same line.
    let ended = |s: &str| {
        if s.is_empty() || s.ends_with('\n') {
            s.to_string()
        } else {
            format!("{s}\n")
        }
    };
    let (old, new) = (ended(old), ended(new));
    let diff = TextDiff::configure()
        .timeout(DIFF_TIME)
        .diff_lines(&old, &new);
    let (mut out, mut more) = (Vec::new(), 0);
    for (n, group) in diff.grouped_ops(CONTEXT).into_iter().enumerate() {
        if out.len() >= room {
            more += usize::from(n > 0)
                + group
                    .iter()
                    .map(|op| diff.iter_changes(op).count())
                    .sum::<usize>();
            continue;
        }
        if n > 0 {
            out.push(gap());
        }
        for op in &group {
            for change in diff.iter_changes(op) {
                if out.len() >= room {
                    more += 1;
                    continue;
                }
                let (sign, kind, class) = match change.tag() {
                    similar::ChangeTag::Delete => ("-", LineKind::Del, Class::DiffDel),
                    similar::ChangeTag::Insert => ("+", LineKind::Add, Class::DiffAdd),
                    similar::ChangeTag::Equal => (" ", LineKind::Plain, Class::DiffContext),
                };
                let text = change.value();
                let text = text.strip_suffix('\n').unwrap_or(text);
                let text = text.strip_suffix('\r').unwrap_or(text);
                let clean = safe_text::clean_block(text).join("␊");
                out.push(CodeLine {
                    kind,
                    spans: vec![Span::clean(format!("{sign} {clean}"), class)],
                });
            }
        }
    }
    (out, more)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::document::line_text;
    use serde_json::json;

    fn text(lines: &[CodeLine]) -> Vec<String> {
        lines.iter().map(|l| line_text(&l.spans)).collect()
    }

    #[test]
    fn one_change_as_pi_draws_a_diff() {
        let pairs =
            edit_pairs(&json!({"path": "a.rs", "oldText": "a\nb\nc\n", "newText": "a\nB\nc\n"}));
        assert_eq!(text(&edit_diff(&pairs).0), vec!["  a", "- b", "+ B", "  c"]);
    }

    #[test]
    fn changes_far_apart_have_a_gap_between_them() {
        let old: String = (0..20).map(|i| format!("{i}\n")).collect();
        let new = old.replace("1\n", "one\n").replace("18\n", "eighteen\n");
        let (lines, _) = diff_lines(&old, &new, usize::MAX);
        assert!(
            text(&lines).contains(&"    ...".to_string()),
            "{:?}",
            text(&lines)
        );
    }

    #[test]
    fn a_last_line_without_a_break_is_the_same_line() {
        let (lines, _) = diff_lines("impl P {", "impl P {\n    fn new() {}", usize::MAX);
        assert_eq!(text(&lines), vec!["  impl P {", "+     fn new() {}"]);
    }

    #[test]
    fn pi_edits_lists_each_change() {
        let args = json!({"path": "x", "edits": [
            {"oldText": "one", "newText": "uno"},
            {"oldText": "two\u{1b}[2J", "newText": 5},
            {"note": "nothing"},
        ]});
        let pairs = edit_pairs(&args);
        assert_eq!(pairs.len(), 2);
        let (lines, more) = edit_diff(&pairs);
        assert_eq!(more, 0);
        assert_eq!(text(&lines), vec!["- one", "+ uno", "    ...", "- two␛[2J"]);
        assert_eq!(lines[0].kind, LineKind::Del);
        assert_eq!(lines[1].kind, LineKind::Add);
        assert_eq!(lines[2].kind, LineKind::Hunk);
    }

    #[test]
    fn a_long_diff_is_drawn_to_its_cap_and_the_rest_counted() {
        let new = "b\n".repeat(3 * MAX_DIFF_LINES);
        let pairs = vec![("a\n".to_string(), new)];
        let (lines, more) = edit_diff(&pairs);
        assert_eq!(lines.len(), MAX_DIFF_LINES);
        // One line removed, every line added.
        assert_eq!(lines.len() + more, 1 + 3 * MAX_DIFF_LINES);
    }

    #[test]
    fn a_changed_line_marks_the_words_it_changed() {
        let told = "   1 a\n-  2     let strict = false;\n+  2     let strict = true;\n";
        let (lines, _) = told_diff(told);
        let marked = |l: &CodeLine| -> Vec<String> {
            l.spans
                .iter()
                .filter(|s| s.style.inverse)
                .map(|s| s.text().to_string())
                .collect()
        };
        assert_eq!(marked(&lines[1]), vec!["false;"]);
        assert_eq!(marked(&lines[2]), vec!["true;"]);
        assert_eq!(text(&lines)[1], "-  2     let strict = false;");
        assert_eq!(text(&lines)[2], "+  2     let strict = true;");
        // Two lines replaced by one: shown as they are.
        let (lines, _) = told_diff("-1 a\n-2 b\n+1 c\n");
        assert!(lines.iter().all(|l| marked(l).is_empty()));
    }

    #[test]
    fn the_tools_own_diff_keeps_its_line_numbers() {
        let told = "      ...\n   83   get state();\n-  87   get messages();\n+  87   get all();\n      ...\n";
        let (lines, more) = told_diff(told);
        assert_eq!(more, 0);
        assert_eq!(
            text(&lines),
            vec![
                "      ...",
                "   83   get state();",
                "-  87   get messages();",
                "+  87   get all();",
                "      ..."
            ]
        );
        let kinds: Vec<LineKind> = lines.iter().map(|l| l.kind).collect();
        assert_eq!(
            kinds,
            vec![
                LineKind::Hunk,
                LineKind::Plain,
                LineKind::Del,
                LineKind::Add,
                LineKind::Hunk
            ]
        );
    }
}
