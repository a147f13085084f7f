//! The entry tree's rows for the pane: pi's `/tree` layout comes from
//! `session::tree_view`; here only what the browser adds, the `/` search.

pub use crate::session::tree_view::{Filter, MAX_DEPTH, Mark, Row, Rows, TreeView};
pub use crate::tui::model::loaded::{LoadedSession, RowKind};
use std::collections::HashSet;

/// The rows of `t` for one filter and set of folds.
pub fn rows(t: &LoadedSession, filter: Filter, folded: &HashSet<u32>) -> Rows {
    t.view.rows(&t.session, filter, folded)
}

/// Rows whose search text holds every token of `query`.
pub fn search(rows: &Rows, t: &LoadedSession, query: &str) -> Vec<u32> {
    // pi's `toLowerCase().split(/\s+/).filter(Boolean)`.
    let lower = crate::jstext::to_lower(query);
    let tokens: Vec<&str> = lower
        .split(crate::jstext::is_space)
        .filter(|w| !w.is_empty())
        .collect();
    if tokens.is_empty() {
        return Vec::new();
    }
    rows.rows
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            let hay = t.search_text(r.node);
            tokens.iter().all(|tok| hay.contains(tok))
        })
        .map(|(i, _)| i as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_matches_every_token() {
        // a → b → {c → d, e → f}, the leaf f.
        let t = LoadedSession::new(crate::session::tree_view::tests::forked(), None);
        let rows = rows(&t, Filter::Default, &HashSet::new());
        assert_eq!(search(&rows, &t, "RIGHT answer"), vec![3]);
        assert_eq!(search(&rows, &t, "user"), vec![0, 2, 4]);
        assert!(search(&rows, &t, "  ").is_empty());
    }
}
