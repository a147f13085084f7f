//! The entry tree's rows for the pane: pi's `/tree` layout comes from
//! `session::tree::view`; here only what the browser adds, the search and
//! where its words show in a row's drawn text.

pub use crate::session::tree::view::{Filter, MAX_DEPTH, Mark, ResumePoint, Row, Rows, TreeView};
pub use crate::tui::model::loaded::{LoadedSession, RowKind};
use std::collections::HashSet;
use std::ops::Range;

/// The rows of `t` for one filter and set of folds, in the memory of the
/// rows made before (`room`) when it is large enough.
pub fn rows(t: &LoadedSession, filter: Filter, folded: &HashSet<u32>, room: Rows) -> Rows {
    t.rows_in(filter, folded, room)
}

/// A query's words, lower case (pi splits its tree search on white space).
pub fn tokens(query: &str) -> Vec<String> {
    query
        .split(crate::jstext::is_space)
        .filter(|w| !w.is_empty())
        .map(lower)
        .collect()
}

/// Lower case, one character at a time, so a place in the result maps back
/// to a place in the text.
fn lower(s: &str) -> String {
    s.chars().flat_map(char::to_lowercase).collect()
}

/// Where the words occur in `text`, as byte ranges of `text`, in order and
/// without overlaps.
pub fn find_all(text: &str, tokens: &[String]) -> Vec<Range<usize>> {
    if tokens.is_empty() {
        return Vec::new();
    }
    let mut lowered = String::with_capacity(text.len());
    // Per byte of `lowered`: the start of the character of `text` it came from.
    let mut from: Vec<usize> = Vec::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        for l in c.to_lowercase() {
            lowered.push(l);
            from.extend(std::iter::repeat_n(at, l.len_utf8()));
        }
    }
    let back = |i: usize| from.get(i).copied().unwrap_or(text.len());
    let mut found: Vec<Range<usize>> = Vec::new();
    for tok in tokens {
        for (i, m) in lowered.match_indices(tok.as_str()) {
            let r = back(i)..back(i + m.len());
            if !r.is_empty() {
                found.push(r);
            }
        }
    }
    found.sort_by_key(|r| (r.start, r.end));
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(found.len());
    for r in found {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

/// The texts a row draws that a search looks at: its label and its line.
pub fn drawn_texts(t: &LoadedSession, node: u32) -> (Option<String>, &str) {
    (t.label(node), t.text(node))
}

/// Whether every word shows in the row's drawn text.
fn row_matches(t: &LoadedSession, node: u32, tokens: &[String]) -> bool {
    let (label, text) = drawn_texts(t, node);
    let text = lower(text);
    let label = label.as_deref().map(lower).unwrap_or_default();
    tokens
        .iter()
        .all(|tok| text.contains(tok.as_str()) || label.contains(tok.as_str()))
}

/// Rows whose drawn text shows every word of `query`.
pub fn search(rows: &Rows, t: &LoadedSession, query: &str) -> Vec<u32> {
    let tokens = tokens(query);
    if tokens.is_empty() {
        return Vec::new();
    }
    rows.rows
        .iter()
        .enumerate()
        .filter(|(_, r)| row_matches(t, r.node, &tokens))
        .map(|(i, _)| i as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_matches_every_token() {
        // a → b → {c → d, e → f}, the leaf f.
        let t = LoadedSession::new(crate::session::tree::view::tests::forked(), None);
        let rows = rows(&t, Filter::Default, &HashSet::new(), Rows::default());
        assert_eq!(search(&rows, &t, "RIGHT answer"), vec![3]);
        assert_eq!(search(&rows, &t, "user"), vec![0, 2, 4]);
        assert!(search(&rows, &t, "  ").is_empty());
    }

    #[test]
    fn matches_are_found_where_the_text_shows_them() {
        let toks = tokens("PARSER fix");
        let text = "user: Fix the Parser, fix it";
        let ranges = find_all(text, &toks);
        let shown: Vec<&str> = ranges.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(shown, vec!["Fix", "Parser", "fix"]);
        // A character whose lower case is longer keeps the ranges on
        // character boundaries of the text.
        let text = "İstanbul parser";
        let ranges = find_all(text, &tokens("parser"));
        assert_eq!(&text[ranges[0].clone()], "parser");
        assert!(find_all(text, &[]).is_empty());
    }
}
