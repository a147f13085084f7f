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
    (out, more)
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
