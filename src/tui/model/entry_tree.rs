//! The entry tree as pi's `/tree` lays it out: active branch first, nesting
//! only at branch points, pi's filters and folds; rows computed here, drawn elsewhere.

use crate::session::entry::{Kind, Role};
pub use crate::tui::model::loaded::{LoadedSession, RowKind};
use std::collections::HashSet;

/// Deeper forks than this are drawn at this depth: a hostile file with
/// thousands of nested forks stays readable and cheap to draw.
pub const MAX_DEPTH: u16 = 48;

const NO_ROW: u32 = u32::MAX;

/// pi's tree filters, in the order Ctrl+O cycles through them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Filter {
    #[default]
    Default,
    NoTools,
    UserOnly,
    LabeledOnly,
    All,
}

impl Filter {
    const CYCLE: [Filter; 5] = [
        Filter::Default,
        Filter::NoTools,
        Filter::UserOnly,
        Filter::LabeledOnly,
        Filter::All,
    ];

    pub fn next(self) -> Filter {
        let i = Filter::CYCLE.iter().position(|f| *f == self).unwrap_or(0);
        Filter::CYCLE[(i + 1) % Filter::CYCLE.len()]
    }

    pub fn previous(self) -> Filter {
        let i = Filter::CYCLE.iter().position(|f| *f == self).unwrap_or(0);
        Filter::CYCLE[(i + Filter::CYCLE.len() - 1) % Filter::CYCLE.len()]
    }

    /// pi's toggle: choosing the filter in force goes back to the default.
    pub fn toggle(self, chosen: Filter) -> Filter {
        if self == chosen {
            Filter::Default
        } else {
            chosen
        }
    }

    /// Whether pi's `/tree` shows the entry of `t` under this filter.
    pub fn shows(self, t: &LoadedSession, node: u32) -> bool {
        let e = t.entry(node);
        if e.kind == Kind::Usage {
            return false;
        }
        if let Some(m) = e.message() {
            // Tool-call-only assistant turns clutter the tree; pi keeps the
            // leaf, errors and aborts.
            if m.role == Role::Assistant && Some(node) != t.leaf {
                let failed = m
                    .stop_reason
                    .as_deref()
                    .is_some_and(|r| r != "stop" && r != "toolUse");
                if !m.content.text.has_text && !failed {
                    return false;
                }
            }
        }
        let setting = matches!(
            e.kind,
            Kind::Label
                | Kind::ContextEdit
                | Kind::Custom
                | Kind::ModelChange
                | Kind::ThinkingLevelChange
                | Kind::SessionInfo
        );
        match self {
            Filter::Default => !setting,
            Filter::NoTools => !setting && !e.is_role(Role::ToolResult),
            Filter::UserOnly => e.is_role(Role::User),
            Filter::LabeledOnly => t.session.label_of(node).is_some(),
            Filter::All => true,
        }
    }

    /// The tag pi shows after the position (`[no-tools]`); none for the default.
    pub fn tag(self) -> Option<&'static str> {
        match self {
            Filter::Default => None,
            Filter::NoTools => Some("no-tools"),
            Filter::UserOnly => Some("user"),
            Filter::LabeledOnly => Some("labeled"),
            Filter::All => Some("all"),
        }
    }
}

/// One visible row of the tree pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub node: u32,
    /// Indentation level: grows at forks only.
    pub depth: u16,
    /// The row this one nests under in the drawn tree.
    pub container: Option<u32>,
    /// The nearest visible ancestor's row.
    pub visible_parent: Option<u32>,
    /// How many rows have this one as their visible parent.
    pub visible_children: u32,
    /// pi's rule: a root or the first entry of a branch, with something under it.
    pub foldable: bool,
    pub folded: bool,
}

/// The rows for one filter and set of folds.
#[derive(Debug, Clone, Default)]
pub struct Rows {
    pub rows: Vec<Row>,
    /// Per entry index: its row, or `NO_ROW`.
    row_of: Vec<u32>,
}

impl Rows {
    /// Lays out the visible entries: pi's filter, then folds (a folded
    /// entry hides everything below it), then nesting at forks.
    pub fn build(t: &LoadedSession, filter: Filter, folded: &HashSet<u32>) -> Rows {
        let n = t.session.entries.len();
        let mut hidden = vec![false; n];
        let mut visible = vec![false; n];
        let mut nearest: Vec<Option<u32>> = vec![None; n];
        let mut child_count = vec![0u32; n];
        let mut visible_roots = 0usize;
        for &node in &t.order {
            let i = node as usize;
            let p = t.parent[i];
            hidden[i] = p.is_some_and(|p| folded.contains(&p) || hidden[p as usize]);
            visible[i] = !hidden[i] && filter.shows(t, node);
            nearest[i] = p.and_then(|p| {
                if visible[p as usize] {
                    Some(p)
                } else {
                    nearest[p as usize]
                }
            });
            if visible[i] {
                match nearest[i] {
                    Some(vp) => child_count[vp as usize] += 1,
                    None => visible_roots += 1,
                }
            }
        }
        let mut rows: Vec<Row> = Vec::new();
        let mut heads: Vec<bool> = Vec::new();
        let mut row_of = vec![NO_ROW; n];
        for &node in &t.order {
            let i = node as usize;
            if !visible[i] {
                continue;
            }
            let (container, depth, head, visible_parent) = match nearest[i] {
                None => (None, 0, visible_roots > 1, None),
                Some(vp) => {
                    let prow = row_of[vp as usize];
                    let p = rows[prow as usize];
                    let fork = child_count[vp as usize] > 1;
                    let nest = fork || heads[prow as usize];
                    if nest && p.depth < MAX_DEPTH {
                        (Some(prow), p.depth + 1, fork, Some(prow))
                    } else {
                        (p.container, p.depth, fork, Some(prow))
                    }
                }
            };
            row_of[i] = rows.len() as u32;
            heads.push(head);
            let children = child_count[i];
            let is_folded = folded.contains(&node);
            rows.push(Row {
                node,
                depth,
                container,
                visible_parent,
                visible_children: children,
                foldable: is_folded || (children > 0 && (visible_parent.is_none() || head)),
                folded: is_folded,
            });
        }
        Rows { rows, row_of }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn get(&self, row: usize) -> Option<&Row> {
        self.rows.get(row)
    }

    /// The row showing `node`, if it is visible.
    pub fn row_of(&self, node: u32) -> Option<usize> {
        match self.row_of.get(node as usize) {
            Some(&r) if r != NO_ROW => Some(r as usize),
            _ => None,
        }
    }

    /// The row of `node` or, when it is hidden, of its nearest visible
    /// ancestor (pi keeps the cursor this way); else the last row.
    pub fn nearest_row(&self, t: &LoadedSession, node: u32) -> Option<usize> {
        let mut cur = Some(node);
        let mut steps = 0;
        while let Some(n) = cur {
            if let Some(r) = self.row_of(n) {
                return Some(r);
            }
            cur = t.parent.get(n as usize).copied().flatten();
            steps += 1;
            if steps > t.parent.len() {
                break;
            }
        }
        self.rows.len().checked_sub(1)
    }

    /// The row of the branch start above `row` (pi's fold-or-up when the row
    /// cannot fold): the first entry of the current branch, or of the one above.
    pub fn segment_start_up(&self, row: usize) -> usize {
        let mut cur = row;
        loop {
            let Some(parent) = self.rows[cur].visible_parent else {
                return cur;
            };
            let p = parent as usize;
            if self.rows[p].visible_children > 1 && cur < row {
                return cur;
            }
            cur = p;
        }
    }

    /// The next branch point's first child below `row`, following first
    /// children (pi's unfold-or-down when the row is not folded).
    pub fn segment_start_down(&self, row: usize) -> usize {
        let mut cur = row;
        loop {
            let r = &self.rows[cur];
            match r.visible_children {
                0 => return cur,
                1 => cur += 1,
                _ => return cur + 1,
            }
        }
    }

    /// Rows whose search text holds every token of `query`.
    pub fn search(&self, t: &LoadedSession, query: &str) -> Vec<u32> {
        // pi's `toLowerCase().split(/\s+/).filter(Boolean)`.
        let lower = crate::jstext::to_lower(query);
        let tokens: Vec<&str> = lower
            .split(crate::jstext::is_space)
            .filter(|w| !w.is_empty())
            .collect();
        if tokens.is_empty() {
            return Vec::new();
        }
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                let hay = t.search_text(r.node);
                tokens.iter().all(|tok| hay.contains(tok))
            })
            .map(|(i, _)| i as u32)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;
    use std::io::Write;

    /// A session file from JSON lines after a header.
    fn session(lines: &[&str]) -> LoadedSession {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        writeln!(
            f,
            r#"{{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}}"#
        )
        .unwrap();
        for l in lines {
            writeln!(f, "{l}").unwrap();
        }
        let s = Session::open(f.path()).unwrap();
        LoadedSession::new(s, None)
    }

    fn msg(id: &str, parent: Option<&str>, t: u32, role: &str, text: &str) -> String {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:{t:02}.000Z","message":{{"role":"{role}","content":"{text}"}}}}"#
        )
    }

    fn layout(t: &LoadedSession, filter: Filter, folded: &HashSet<u32>) -> Vec<String> {
        let rows = Rows::build(t, filter, folded);
        rows.rows
            .iter()
            .map(|r| {
                format!(
                    "{}{}{}",
                    "  ".repeat(r.depth as usize),
                    if r.foldable { "+" } else { "" },
                    t.text(r.node)
                )
            })
            .collect()
    }

    /// a → b → {c → d, e → f}; the leaf is f (written last), so e's branch
    /// comes first although c is older.
    fn forked() -> LoadedSession {
        let lines = [
            msg("a", None, 1, "user", "one"),
            msg("b", Some("a"), 2, "assistant", "two"),
            msg("c", Some("b"), 3, "user", "left"),
            msg("d", Some("c"), 4, "assistant", "left answer"),
            msg("e", Some("b"), 5, "user", "right"),
            msg("f", Some("e"), 6, "assistant", "right answer"),
        ];
        session(&lines.iter().map(String::as_str).collect::<Vec<_>>())
    }

    #[test]
    fn nests_only_at_forks_with_the_active_branch_first() {
        let t = forked();
        assert_eq!(
            layout(&t, Filter::Default, &HashSet::new()),
            vec![
                "+user: one",
                "assistant: two",
                "  +user: right",
                "    assistant: right answer",
                "  +user: left",
                "    assistant: left answer",
            ]
        );
    }

    #[test]
    fn folding_hides_descendants_and_keeps_the_fold_mark() {
        let t = forked();
        let e = t.session.find("e").unwrap();
        let folded: HashSet<u32> = [e].into();
        let rows = Rows::build(&t, Filter::Default, &folded);
        let r = rows.row_of(e).unwrap();
        assert!(rows.rows[r].folded && rows.rows[r].foldable);
        assert_eq!(rows.row_of(t.session.find("f").unwrap()), None);
        assert_eq!(rows.nearest_row(&t, t.session.find("f").unwrap()), Some(r));
    }

    #[test]
    fn user_only_filter_reattaches_to_visible_ancestors() {
        let t = forked();
        assert_eq!(
            layout(&t, Filter::UserOnly, &HashSet::new()),
            vec!["+user: one", "  user: right", "  user: left"]
        );
    }

    #[test]
    fn branch_points_are_found_up_and_down() {
        let t = forked();
        let rows = Rows::build(&t, Filter::Default, &HashSet::new());
        // From the root, down goes to the first child of the fork.
        assert_eq!(rows.segment_start_down(0), 2);
        // From the answer under "right", up goes to "right".
        assert_eq!(rows.segment_start_up(3), 2);
        // From "right" itself, up goes on to the root.
        assert_eq!(rows.segment_start_up(2), 0);
    }

    #[test]
    fn tool_only_turns_hide_unless_they_are_the_leaf() {
        let call = r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"x.rs"}}],"stopReason":"toolUse"}}"#;
        let result = r#"{"type":"message","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"fn main"}]}}"#;
        let a = msg("a", None, 1, "user", "go");
        let t = session(&[&a, call, result]);
        assert_eq!(
            layout(&t, Filter::Default, &HashSet::new()),
            vec!["+user: go", "[read: x.rs]"]
        );
        assert_eq!(
            layout(&t, Filter::NoTools, &HashSet::new()),
            vec!["user: go"]
        );
        let t = session(&[&a, call]);
        assert_eq!(
            layout(&t, Filter::Default, &HashSet::new()),
            vec!["+user: go", "assistant: (no content)"]
        );
    }

    #[test]
    fn search_matches_every_token() {
        let t = forked();
        let rows = Rows::build(&t, Filter::Default, &HashSet::new());
        assert_eq!(rows.search(&t, "RIGHT answer"), vec![3]);
        assert_eq!(rows.search(&t, "user"), vec![0, 2, 4]);
        assert!(rows.search(&t, "  ").is_empty());
    }
}
