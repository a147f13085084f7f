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
    use crate::session::Session;
    use std::io::Write;

    fn msg(id: &str, parent: Option<&str>, t: u32, role: &str, text: &str) -> String {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:{t:02}.000Z","message":{{"role":"{role}","content":"{text}"}}}}"#
        )
    }

    /// a → b → {c → d, e → f}, the leaf f.
    fn forked() -> LoadedSession {
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        writeln!(
            f,
            r#"{{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}}"#
        )
        .expect("write");
        for l in [
            msg("a", None, 1, "user", "one"),
            msg("b", Some("a"), 2, "assistant", "two"),
            msg("c", Some("b"), 3, "user", "left"),
            msg("d", Some("c"), 4, "assistant", "left answer"),
            msg("e", Some("b"), 5, "user", "right"),
            msg("f", Some("e"), 6, "assistant", "right answer"),
        ] {
            writeln!(f, "{l}").expect("write");
        }
        LoadedSession::new(Session::open(f.path()).expect("a session"), None)
    }

    #[test]
    fn search_matches_every_token() {
        let t = forked();
        let rows = rows(&t, Filter::Default, &HashSet::new());
        assert_eq!(search(&rows, &t, "RIGHT answer"), vec![3]);
        assert_eq!(search(&rows, &t, "user"), vec![0, 2, 4]);
        assert!(search(&rows, &t, "  ").is_empty());
    }
}
