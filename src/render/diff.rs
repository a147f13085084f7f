//! An `edit` tool call shown as the change it makes: a unified diff of each
//! `oldText` → `newText` (pi's `edits` list, or the older single pair),
//! with hunk headers and added, removed and context lines classed.

use super::document::{Class, CodeLine, LineKind, Span};
use crate::safe_text;
use serde_json::Value;
use similar::TextDiff;

/// Lines of context around each change.
const CONTEXT: usize = 3;

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

/// The unified diff of the pairs, under `--- path` / `+++ path`.
pub fn edit_diff(path: &str, pairs: &[(String, String)]) -> Vec<CodeLine> {
    let mut out = Vec::new();
    let header = |sign: &str| CodeLine {
        kind: LineKind::Header,
        spans: vec![Span::new(&format!("{sign} {path}"), Class::DiffHeader)],
    };
    out.push(header("---"));
    out.push(header("+++"));
    for (n, (old, new)) in pairs.iter().enumerate() {
        if pairs.len() > 1 {
            out.push(CodeLine {
                kind: LineKind::Hunk,
                spans: vec![Span::new(
                    &format!("@@ edit {} of {} @@", n + 1, pairs.len()),
                    Class::DiffHunk,
                )],
            });
        }
        out.extend(diff_lines(old, new));
    }
    out
}

/// The hunks of one change; line numbers count from the snippet's start.
pub fn diff_lines(old: &str, new: &str) -> Vec<CodeLine> {
    // A last line without its line break is still the same line.
    let ended = |s: &str| {
        if s.is_empty() || s.ends_with('\n') {
            s.to_string()
        } else {
            format!("{s}\n")
        }
    };
    let (old, new) = (ended(old), ended(new));
    let diff = TextDiff::from_lines(&old, &new);
    let mut out = Vec::new();
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (o, n) = (first.old_range().start, first.new_range().start);
        let (o_end, n_end) = (last.old_range().end, last.new_range().end);
        out.push(CodeLine {
            kind: LineKind::Hunk,
            spans: vec![Span::new(
                &format!("@@ -{},{} +{},{} @@", o + 1, o_end - o, n + 1, n_end - n),
                Class::DiffHunk,
            )],
        });
        for op in &group {
            for change in diff.iter_changes(op) {
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
                    spans: vec![Span::clean(format!("{sign}{clean}"), class)],
                });
            }
        }
    }
    out
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
    fn one_change_as_a_unified_diff() {
        let pairs =
            edit_pairs(&json!({"path": "a.rs", "oldText": "a\nb\nc\n", "newText": "a\nB\nc\n"}));
        assert_eq!(
            text(&edit_diff("a.rs", &pairs)),
            vec![
                "--- a.rs",
                "+++ a.rs",
                "@@ -1,3 +1,3 @@",
                " a",
                "-b",
                "+B",
                " c"
            ]
        );
    }

    #[test]
    fn a_last_line_without_a_break_is_the_same_line() {
        let lines = diff_lines("impl P {", "impl P {\n    fn new() {}");
        assert_eq!(
            text(&lines),
            vec!["@@ -1,1 +1,2 @@", " impl P {", "+    fn new() {}"]
        );
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
        let lines = edit_diff("x", &pairs);
        assert_eq!(
            text(&lines),
            vec![
                "--- x",
                "+++ x",
                "@@ edit 1 of 2 @@",
                "@@ -1,1 +1,1 @@",
                "-one",
                "+uno",
                "@@ edit 2 of 2 @@",
                "@@ -1,1 +1,0 @@",
                "-two␛[2J",
            ]
        );
        assert_eq!(lines[4].kind, LineKind::Del);
        assert_eq!(lines[5].kind, LineKind::Add);
    }
}
