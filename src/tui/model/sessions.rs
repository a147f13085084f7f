//! The picker's view of the catalog: progress updates from the loading
//! worker, and the rows (projects and sessions) for a query, sort and scope.

use crate::catalog::discover::{normalize, project_folder_name};
pub use crate::catalog::search::deep::DeepHit;
use crate::catalog::{self, Layout, Query, SessionSummary, SessionsFolder, SortMode};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// What the catalog worker reports while it loads.
pub enum CatalogUpdate {
    /// The folder is known and how many files it holds.
    Started {
        folder: SessionsFolder,
        total: usize,
        demo: bool,
        /// The folder is piscope's archive, not pi's sessions folder.
        archived: bool,
    },
    /// The newest sessions as the cache last saw them, shown until the
    /// first batch takes their place (it holds them again).
    Glimpse { sessions: Vec<SessionSummary> },
    /// More sessions were summarised (in the order they finished).
    Batch {
        done: usize,
        total: usize,
        sessions: Vec<SessionSummary>,
    },
    /// Everything is loaded: the final list, newest first (pi's sessions
    /// and the child sessions subagents wrote outside it), and each child
    /// session's file with its parent's.
    Done {
        sessions: Vec<SessionSummary>,
        children: Vec<(PathBuf, PathBuf)>,
        problems: Vec<String>,
        demo: bool,
        archived: bool,
    },
}

/// The child sessions subagents wrote (outside pi's list, or in it with a
/// header naming their parent) and which of their parents show them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Family {
    /// Each child's parent, by path.
    pub parent_of: HashMap<PathBuf, PathBuf>,
    /// Each parent's children, by path, newest first.
    pub children_of: HashMap<PathBuf, Vec<PathBuf>>,
    /// The parents whose children are shown (folded by default).
    pub unfolded: HashSet<PathBuf>,
}

impl Family {
    /// The family of `children` (each child's file with its parent's), all
    /// folded; each parent's children in the order of `sessions` (newest
    /// first).
    pub fn of(children: &[(PathBuf, PathBuf)], sessions: &[SessionSummary]) -> Family {
        let parent_of: HashMap<PathBuf, PathBuf> = children.iter().cloned().collect();
        let mut f = Family::default();
        for s in sessions {
            if let Some(parent) = parent_of.get(&s.path) {
                f.children_of
                    .entry(parent.clone())
                    .or_default()
                    .push(s.path.clone());
            }
        }
        f.parent_of = parent_of;
        f
    }

    /// Whether `path` is a child session.
    pub fn is_child(&self, path: &Path) -> bool {
        self.parent_of.contains_key(path)
    }

    /// The sessions below `path`, at any depth, each once.
    pub fn below(&self, path: &Path) -> Vec<&PathBuf> {
        let mut out = Vec::new();
        let mut seen: HashSet<&Path> = HashSet::from([path]);
        let mut todo: Vec<&PathBuf> = self.children_of.get(path).into_iter().flatten().collect();
        while let Some(c) = todo.pop() {
            if seen.insert(c) {
                out.push(c);
                todo.extend(self.children_of.get(c.as_path()).into_iter().flatten());
            }
        }
        out
    }
}

/// Which sessions the picker lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ListScope {
    /// Every project.
    #[default]
    All,
    /// The sessions of the folder piscope was started in.
    CurrentFolder,
    /// The sessions in piscope's archive (another folder, loaded apart).
    Archived,
}

/// One line of the sessions list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerRow {
    /// A project heading: its `cwd` and how many sessions it shows.
    Project {
        cwd: String,
        count: usize,
        collapsed: bool,
    },
    /// A session (an index into the session list), indented under the
    /// session it was forked from.
    Session { index: usize, prefix: String },
}

/// How the list is filtered and ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ListOptions {
    pub scope: ListScope,
    pub sort: SortMode,
    pub named_only: bool,
    /// Only sessions last active from this moment on (the time span).
    pub since_ms: Option<i64>,
}

/// The sessions pane's time span, over sessions' last activity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeSpan {
    #[default]
    AnyTime,
    Today,
    Week,
    Month,
}

impl TimeSpan {
    /// The span the span key goes to next.
    pub fn next(self) -> TimeSpan {
        match self {
            TimeSpan::AnyTime => TimeSpan::Today,
            TimeSpan::Today => TimeSpan::Week,
            TimeSpan::Week => TimeSpan::Month,
            TimeSpan::Month => TimeSpan::AnyTime,
        }
    }

    /// Its words in the pane's title; none for any time.
    pub fn label(self) -> Option<&'static str> {
        match self {
            TimeSpan::AnyTime => None,
            TimeSpan::Today => Some("today"),
            TimeSpan::Week => Some("7 days"),
            TimeSpan::Month => Some("30 days"),
        }
    }

    /// The moment it starts, seen at `clock`'s now (today: local midnight).
    pub fn since(self, clock: crate::tui::clock::Clock) -> Option<i64> {
        const DAY: i64 = 86_400_000;
        match self {
            TimeSpan::AnyTime => None,
            TimeSpan::Today => Some(clock.start_of_day(clock.now_ms)),
            TimeSpan::Week => Some(clock.now_ms - 7 * DAY),
            TimeSpan::Month => Some(clock.now_ms - 30 * DAY),
        }
    }
}

/// Whether a session is in the list's scope (the folder piscope was
/// started in, when that is the scope) and its time span, whatever the
/// query and the named-only setting.
pub fn in_scope(s: &SessionSummary, folder: Option<&SessionsFolder>, options: ListOptions) -> bool {
    let here = match (options.scope, folder) {
        (ListScope::CurrentFolder, Some(f)) => in_current_folder(f, s),
        _ => true,
    };
    here && options
        .since_ms
        .is_none_or(|t| s.modified_ms.is_some_and(|m| m >= t))
}

/// Whether a session belongs to the folder piscope was started in.
pub fn in_current_folder(folder: &SessionsFolder, s: &SessionSummary) -> bool {
    match folder.layout {
        Layout::PerProject => {
            let project = folder.dir.join(project_folder_name(&folder.cwd));
            s.path.parent() == Some(project.as_path())
        }
        Layout::Flat => {
            !s.cwd.is_empty() && normalize(&folder.cwd.join(Path::new(&s.cwd))) == folder.cwd
        }
    }
}

/// The rows for a query (of the sessions `keep` holds, when given: those
/// that touched a file). Browsing (no query): sessions grouped by project,
/// projects in the order of their newest session, forks under their origin
/// when threaded. Searching: one flat list in pi's order (best match first,
/// or newest first when sorted by recent), as grouping would bury the best
/// hit of another project under a weaker one of the first.
pub fn rows(
    sessions: &[SessionSummary],
    folder: Option<&SessionsFolder>,
    query: &Query,
    options: ListOptions,
    collapsed: &HashSet<String>,
    keep: Option<&HashSet<std::path::PathBuf>>,
    family: &Family,
) -> Vec<PickerRow> {
    let mut picked = catalog::filter_and_sort(sessions, query, options.sort, options.named_only);
    // Child sessions are listed under their parent, and found by a search
    // as any session is.
    let everything = matches!(query, Query::Everything);
    picked.retain(|&i| {
        in_scope(&sessions[i], folder, options)
            && keep.is_none_or(|k| k.contains(&sessions[i].path))
            && !(everything && family.is_child(&sessions[i].path))
    });
    if !matches!(query, Query::Everything) {
        return picked
            .into_iter()
            .map(|index| PickerRow::Session {
                index,
                prefix: String::new(),
            })
            .collect();
    }
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    for i in picked {
        let cwd = sessions[i].cwd.as_str();
        match groups.iter_mut().find(|(c, _)| *c == cwd) {
            Some((_, list)) => list.push(i),
            None => groups.push((cwd, vec![i])),
        }
    }
    let threaded = options.sort == SortMode::Threaded;
    let by_path: HashMap<&Path, usize> = if family.children_of.is_empty() {
        HashMap::new()
    } else {
        sessions
            .iter()
            .enumerate()
            .map(|(i, s)| (s.path.as_path(), i))
            .collect()
    };
    let mut out = Vec::new();
    for (cwd, list) in groups {
        let is_collapsed = collapsed.contains(cwd);
        out.push(PickerRow::Project {
            cwd: cwd.to_string(),
            count: list.len(),
            collapsed: is_collapsed,
        });
        if is_collapsed {
            continue;
        }
        if threaded {
            for r in catalog::threaded(sessions, &list) {
                let prefix = if r.depth == 0 {
                    String::new()
                } else {
                    let mut p: String = r
                        .ancestor_continues
                        .iter()
                        .skip(1)
                        .map(|&c| if c { "│  " } else { "   " })
                        .collect();
                    p.push_str(if r.is_last { "└─ " } else { "├─ " });
                    p
                };
                push_with_children(sessions, family, &by_path, r.index, prefix, &mut out);
            }
        } else {
            for index in list {
                push_with_children(sessions, family, &by_path, index, String::new(), &mut out);
            }
        }
    }
    out
}

/// A session's row, marked `▸N` when it has N child sessions folded and
/// `▾` when they are shown, then (shown) each child's, indented under it.
fn push_with_children(
    sessions: &[SessionSummary],
    family: &Family,
    by_path: &HashMap<&Path, usize>,
    index: usize,
    prefix: String,
    out: &mut Vec<PickerRow>,
) {
    let mut todo = vec![(index, prefix)];
    let mut seen = HashSet::new();
    while let Some((index, prefix)) = todo.pop() {
        let path = sessions[index].path.as_path();
        if !seen.insert(path) {
            continue;
        }
        let kids: Vec<usize> = family
            .children_of
            .get(path)
            .into_iter()
            .flatten()
            .filter_map(|c| by_path.get(c.as_path()).copied())
            .collect();
        let open = family.unfolded.contains(path);
        let mark = match (kids.len(), open) {
            (0, _) => String::new(),
            (_, true) => "▾ ".to_string(),
            (n, false) => format!("▸{n} "),
        };
        out.push(PickerRow::Session {
            index,
            prefix: format!("{prefix}{mark}"),
        });
        if open {
            let under: String = prefix
                .chars()
                .map(|c| {
                    if matches!(c, '├' | '│') {
                        '│'
                    } else {
                        ' '
                    }
                })
                .collect();
            let pad = format!("{under}  ↳ ");
            for &k in kids.iter().rev() {
                todo.push((k, pad.clone()));
            }
        }
    }
}

/// Keeps the heap in at most [`ARENAS`] arenas. The allocator gives each
/// thread that allocates at once with another an arena of its own (up to
/// eight a core), and the free pages each keeps count in the process's
/// memory: the browser's workers (loading, searching, reading sessions,
/// watching) would each hold theirs. Set before any thread starts.
pub fn limit_heap_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` sets a tuning value of the allocator; called before
    // the browser starts a thread, it changes how later allocations are
    // placed, never memory in use.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, ARENAS);
    }
}

/// See [`limit_heap_arenas`].
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const ARENAS: libc::c_int = 1;

/// Hands the heap's free pages back to the system. A first load with an
/// empty cache holds every session's text (a hundred MB and more for a few
/// thousand sessions) until the texts file is written, and a first read of
/// every session's usage its reading state; freed, those small blocks stay
/// in the allocator's heap, counted in the process's memory, unless it is
/// asked to let them go.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only returns free memory to the system; it
    // touches no memory in use.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn summary(path: &str, cwd: &str, modified: i64, name: Option<&str>) -> SessionSummary {
        SessionSummary {
            path: PathBuf::from(path),
            id: path.to_string(),
            cwd: cwd.to_string(),
            name: name.map(str::to_string),
            parent_session_path: None,
            created_ms: Some(modified),
            modified_ms: Some(modified),
            message_count: 2,
            user_messages: 1,
            first_message: format!("hello from {path}"),
            entries: 3,
            leaves: 1,
            size: 100,
            ..SessionSummary::default()
        }
    }

    fn folder() -> SessionsFolder {
        SessionsFolder {
            dir: PathBuf::from("/s"),
            layout: Layout::PerProject,
            source: catalog::discover::FolderSource::Default,
            cwd: PathBuf::from("/w/b"),
        }
    }

    fn sample() -> Vec<SessionSummary> {
        vec![
            summary("/s/--w-a--/3.jsonl", "/w/a", 30, None),
            summary("/s/--w-b--/2.jsonl", "/w/b", 20, Some("named")),
            summary("/s/--w-a--/1.jsonl", "/w/a", 10, None),
        ]
    }

    #[test]
    fn groups_by_project_newest_first() {
        let s = sample();
        let r = rows(
            &s,
            Some(&folder()),
            &Query::Everything,
            ListOptions::default(),
            &HashSet::new(),
            None,
            &Family::default(),
        );
        let project = |cwd: &str, count| PickerRow::Project {
            cwd: cwd.into(),
            count,
            collapsed: false,
        };
        let session = |index| PickerRow::Session {
            index,
            prefix: String::new(),
        };
        assert_eq!(
            r,
            vec![
                project("/w/a", 2),
                session(0),
                session(2),
                project("/w/b", 1),
                session(1)
            ]
        );
    }

    #[test]
    fn scope_named_and_collapse() {
        let s = sample();
        let f = folder();
        let current = ListOptions {
            scope: ListScope::CurrentFolder,
            ..ListOptions::default()
        };
        assert_eq!(
            rows(
                &s,
                Some(&f),
                &Query::Everything,
                current,
                &HashSet::new(),
                None,
                &Family::default()
            )
            .len(),
            2
        );
        let named = ListOptions {
            named_only: true,
            ..ListOptions::default()
        };
        assert_eq!(
            rows(
                &s,
                Some(&f),
                &Query::Everything,
                named,
                &HashSet::new(),
                None,
                &Family::default()
            )
            .len(),
            2
        );
        let collapsed: HashSet<String> = ["/w/a".to_string()].into();
        let r = rows(
            &s,
            Some(&f),
            &Query::Everything,
            ListOptions::default(),
            &collapsed,
            None,
            &Family::default(),
        );
        assert_eq!(r.len(), 3);
    }

    #[test]
    fn a_query_lists_one_flat_list_best_first_across_projects() {
        // The best match (a name hit) is in the second project; the first
        // project holds a newer, weaker (text) hit and an older name hit.
        let mut s = sample();
        s[0].first_message = "about widgets".into();
        s[0].text = Some(std::sync::Arc::new(catalog::MessageText::new(
            "about widgets".into(),
        )));
        s[1].name = Some("widgets".into());
        s[2].name = Some("widget notes".into());
        let q = Query::parse("widget").expect("query");
        let got = rows(
            &s,
            Some(&folder()),
            &q,
            ListOptions::default(),
            &HashSet::new(),
            None,
            &Family::default(),
        );
        let order: Vec<usize> = got
            .iter()
            .map(|r| match r {
                PickerRow::Session { index, .. } => *index,
                PickerRow::Project { .. } => usize::MAX,
            })
            .collect();
        let want: Vec<usize> = catalog::filter_and_sort(&s, &q, SortMode::Threaded, false);
        assert_eq!(order, want, "pi's order, no headings");
        assert_eq!(want.last(), Some(&0), "the text hit ranks last");
        // Grouped, /w/a's text hit would sit between the two name hits.
        assert_ne!(s[want[0]].cwd, s[want[1]].cwd);
    }
}
