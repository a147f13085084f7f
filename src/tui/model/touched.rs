//! The files sessions touched, as the browser asks for them: one session's
//! files (the tree's list), every file the sessions in scope touched (the
//! sessions pane's list to pick from), and the sessions that touched a
//! path or glob (the sessions pane's filter); and the lists' rows.

use crate::catalog::SessionSummary;
use crate::catalog::search::touched::{FilePattern, Tool, shown_path};
use crate::catalog::search::touched_index::{
    SessionTouches, Touch, TouchedIndex, files_touched, newest_first, sessions_touching,
};
use std::collections::HashSet;
use std::path::PathBuf;

/// What the touched-files worker is asked.
#[derive(Debug, Clone)]
pub enum TouchedAsk {
    /// Everything one session touched.
    Session(PathBuf),
    /// Every file these sessions touched.
    Scope(Vec<SessionSummary>),
    /// Which of these sessions touched a file `pattern` matches.
    Filter {
        pattern: String,
        sessions: Vec<SessionSummary>,
    },
}

/// The worker's answer.
#[derive(Debug)]
pub enum TouchedAnswer {
    Session {
        path: PathBuf,
        result: Result<SessionTouches, String>,
    },
    Scope(Vec<(String, usize)>),
    Filter {
        pattern: String,
        result: Result<HashSet<PathBuf>, String>,
    },
}

/// Answers `ask` from `index` (built or extended there as needed).
pub fn answer(ask: TouchedAsk, index: &TouchedIndex) -> TouchedAnswer {
    match ask {
        TouchedAsk::Session(path) => {
            let result = index
                .serve(&path)
                .map_err(|e| e.to_string())
                .and_then(|s| s.all().ok_or_else(|| "damaged index".to_string()));
            TouchedAnswer::Session { path, result }
        }
        TouchedAsk::Scope(sessions) => TouchedAnswer::Scope(files_touched(&sessions, index)),
        TouchedAsk::Filter { pattern, sessions } => {
            let result = FilePattern::new(&pattern).map(|p| {
                let (found, _) = sessions_touching(&sessions, &p, index);
                found
                    .into_iter()
                    .filter_map(|t| sessions.get(t.index).map(|s| s.path.clone()))
                    .collect()
            });
            TouchedAnswer::Filter { pattern, result }
        }
    }
}

/// One row of a list of files to choose from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileItem {
    /// The file (absolute).
    pub file: String,
    /// As shown: relative to the session's cwd when inside it.
    pub shown: String,
    /// What touched it: `2 edit · 1 read`, or `3 sessions`.
    pub detail: String,
}

/// A session's touched files, those a tool changed first (most changes
/// first), then the others (most touches first); files only a bash command
/// named last, marked so.
pub fn session_items(t: &SessionTouches) -> Vec<FileItem> {
    let cwd = t.cwd.as_deref().unwrap_or("");
    let mut items: Vec<(usize, usize, usize, FileItem)> = t
        .files
        .iter()
        .map(|file| {
            let mine: Vec<&Touch> = t.touches.iter().filter(|x| &x.file == file).collect();
            let mut kinds: Vec<(Tool, usize)> = Vec::new();
            for x in &mine {
                match kinds.iter_mut().find(|(k, _)| *k == x.tool) {
                    Some((_, n)) => *n += 1,
                    None => kinds.push((x.tool, 1)),
                }
            }
            kinds.sort();
            let detail = kinds
                .iter()
                .map(|(k, n)| format!("{n} {}{}", k.name(), if k.weak() { "?" } else { "" }))
                .collect::<Vec<_>>()
                .join(" · ");
            let changes = mine.iter().filter(|x| x.tool.changes()).count();
            let strong = mine.iter().filter(|x| !x.tool.weak()).count();
            let item = FileItem {
                file: file.clone(),
                shown: shown_path(file, cwd).to_string(),
                detail,
            };
            (usize::from(strong == 0), changes, mine.len(), item)
        })
        .collect();
    items.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(b.1.cmp(&a.1))
            .then(b.2.cmp(&a.2))
            .then_with(|| a.3.shown.cmp(&b.3.shown))
    });
    items.into_iter().map(|i| i.3).collect()
}

/// Every file the sessions in scope touched, most sessions first.
pub fn scope_items(files: &[(String, usize)], home: Option<&str>) -> Vec<FileItem> {
    files
        .iter()
        .map(|(file, n)| FileItem {
            file: file.clone(),
            shown: crate::session::tree::entry_line::shorten_home(file, home),
            detail: if *n == 1 {
                "1 session".to_string()
            } else {
                format!("{n} sessions")
            },
        })
        .collect()
}

/// The entries to step through for `file`: those that changed it (edits
/// and writes), newest first; when none did, every entry that touched it.
/// Each entry once.
pub fn walk_entries(t: &SessionTouches, file: &str) -> Vec<String> {
    let mut mine: Vec<Touch> = t
        .touches
        .iter()
        .filter(|x| x.file == file)
        .cloned()
        .collect();
    newest_first(&mut mine);
    let changed = mine.iter().any(|x| x.tool.changes());
    let mut out: Vec<String> = Vec::new();
    for x in mine {
        if changed && !x.tool.changes() {
            continue;
        }
        if let Some(id) = x.entry_id
            && !out.contains(&id)
        {
            out.push(id);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(line: u64, tool: Tool, file: &str) -> Touch {
        Touch {
            line,
            entry_id: Some(format!("e{line}")),
            time_ms: Some(line as i64 * 1000),
            tool,
            file: file.to_string(),
            failed: false,
        }
    }

    #[test]
    fn changed_files_come_first_and_walks_step_through_changes_newest_first() {
        let t = SessionTouches {
            cwd: Some("/w".into()),
            files: vec!["/w/a.rs".into(), "/w/b.rs".into(), "/w/c.rs".into()],
            touches: vec![
                touch(1, Tool::Read, "/w/a.rs"),
                touch(2, Tool::Edit, "/w/b.rs"),
                touch(3, Tool::Bash, "/w/c.rs"),
                touch(4, Tool::Write, "/w/b.rs"),
                touch(5, Tool::Read, "/w/b.rs"),
            ],
        };
        let items = session_items(&t);
        let shown: Vec<&str> = items.iter().map(|i| i.shown.as_str()).collect();
        assert_eq!(shown, ["b.rs", "a.rs", "c.rs"]);
        assert_eq!(items[0].detail, "1 edit · 1 write · 1 read");
        assert_eq!(items[2].detail, "1 bash?");
        assert_eq!(walk_entries(&t, "/w/b.rs"), ["e4", "e2"]);
        assert_eq!(walk_entries(&t, "/w/a.rs"), ["e1"]);
    }
}
