//! Child sessions that subagent extensions write outside pi's own list,
//! each found under the session that dispatched it.
//!
//! Three shapes are looked for here:
//!
//! - **nested**: a folder beside the parent's file, named as that file
//!   without `.jsonl`, holding the children at any depth below it (a folder
//!   per dispatch with `run-<n>/session.jsonl` per task, a `forks/` folder
//!   of branched copies, ...). A child's parent is the nearest such file
//!   above it, so a child's own children sit under it.
//! - **agent folder**: `subagent-sessions/` in the agent folder (beside
//!   `sessions/`), its files flat or one folder down. A child's parent is
//!   the session its header's `parentSession` names; else the session whose
//!   id names the child's folder; else, as the last resort, the session of
//!   the same project that was active when the child started.
//! - **top level**: a session of pi's own list whose header's
//!   `parentSession` names a listed session, started while one of that
//!   session's tool calls ran. A fork has the same header but is made
//!   between turns, by the user: one started when no call of its parent was
//!   running stays a fork (see [`call_windows`]).
//!
//! pi's `/resume` never lists the first two (it reads only the files
//! directly in a project folder), and lists the third among the others. The children's summaries are kept in a cache of their
//! own, beside the catalog's, so a warm run reads none of them again; and
//! the folders walked are remembered with their stamps, so a warm run only
//! stats them, and lists again only a folder that changed.

pub(crate) mod call_line;

pub use call_line::ReadCalls;
pub use call_line::call_windows;

use super::cache::envelope::Envelope;
use super::discover::{Candidate, FileStamp, Layout, Scope, SessionsFolder};
use super::summary::SessionSummary;
use super::{Cache, CatalogProblem, Files, LoadOptions};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The folder of the agent folder where child sessions may be kept.
pub const AGENT_FOLDER: &str = "subagent-sessions";

/// How long after its parent's last message a child may start while a
/// call of that message still runs, as far as [`top_level`] looks.
const CALL_RUNS: i64 = 3_600_000;

/// How deep below a root children are looked for.
const DEPTH: usize = 5;

/// Where a child session was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChildLayout {
    /// In a folder beside its parent's file, named as that file.
    Nested,
    /// In `subagent-sessions/` of the agent folder.
    AgentFolder,
    /// In pi's own list, beside its parent (header `parentSession`).
    TopLevel,
}

impl ChildLayout {
    /// The name `ls --json` gives it.
    pub fn name(self) -> &'static str {
        match self {
            ChildLayout::Nested => "nested",
            ChildLayout::AgentFolder => "agent-folder",
            ChildLayout::TopLevel => "top-level",
        }
    }
}

/// How a child's parent was told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParentBy {
    /// The folder it is in is named as its parent's file.
    Folder,
    /// Its header's `parentSession`.
    Header,
    /// The folder it is in is named by its parent's session id.
    FolderId,
    /// Its parent, of the same project, was active when it started.
    Time,
}

impl ParentBy {
    /// The name `ls --json` gives it.
    pub fn name(by: Option<ParentBy>) -> &'static str {
        match by {
            Some(ParentBy::Folder) => "folder",
            Some(ParentBy::Header) => "header",
            Some(ParentBy::FolderId) => "folder-id",
            Some(ParentBy::Time) => "time",
            None => "none",
        }
    }
}

/// One child session.
#[derive(Debug, Clone)]
pub struct Child {
    pub summary: SessionSummary,
    /// The dispatching session's file; `None` when none could be told.
    pub parent: Option<PathBuf>,
    pub parent_by: Option<ParentBy>,
    pub layout: ChildLayout,
}

/// The child sessions found, and what stood in the way.
#[derive(Debug, Default)]
pub struct Children {
    /// In the order found.
    pub children: Vec<Child>,
    pub problems: Vec<CatalogProblem>,
    /// Each parent's children (indices into `children`), newest first.
    by_parent: HashMap<PathBuf, Vec<usize>>,
    /// The children that are sessions of pi's own list (top level), each
    /// with its parent.
    listed: HashMap<PathBuf, PathBuf>,
}

impl Children {
    fn new(children: Vec<Child>, problems: Vec<CatalogProblem>) -> Children {
        let mut by_parent: HashMap<PathBuf, Vec<usize>> = HashMap::new();
        for (i, c) in children.iter().enumerate() {
            if let Some(p) = &c.parent {
                by_parent.entry(p.clone()).or_default().push(i);
            }
        }
        for list in by_parent.values_mut() {
            list.sort_by_key(|&i| std::cmp::Reverse(children[i].summary.modified_ms));
        }
        let listed = children
            .iter()
            .filter(|c| c.layout == ChildLayout::TopLevel)
            .filter_map(|c| Some((c.summary.path.clone(), c.parent.clone()?)))
            .collect();
        Children {
            children,
            problems,
            by_parent,
            listed,
        }
    }

    /// The parent of `path` when it is a session of pi's own list that is
    /// a child, shown under its parent rather than among the top level.
    pub fn listed_parent(&self, path: &Path) -> Option<&Path> {
        self.listed.get(path).map(PathBuf::as_path)
    }

    /// The children outside pi's list (the ones a list of pi's sessions
    /// does not hold already).
    pub fn outside(&self) -> impl Iterator<Item = &Child> {
        self.children
            .iter()
            .filter(|c| c.layout != ChildLayout::TopLevel)
    }

    /// The children whose parent is `parent`, newest first.
    pub fn of(&self, parent: &Path) -> Vec<&Child> {
        self.by_parent
            .get(parent)
            .into_iter()
            .flatten()
            .map(|&i| &self.children[i])
            .collect()
    }

    /// Every session below `parent`, at any depth (each once, even round
    /// a loop).
    pub fn below(&self, parent: &Path) -> Vec<&Child> {
        let mut out: Vec<&Child> = Vec::new();
        let mut seen: HashSet<&Path> = HashSet::from([parent]);
        let mut todo = vec![parent];
        while let Some(p) = todo.pop() {
            for c in self.of(p) {
                if seen.insert(&c.summary.path) {
                    out.push(c);
                    todo.push(&c.summary.path);
                }
            }
        }
        out
    }
}

/// The agent folder's `subagent-sessions/`, when the sessions folder is the
/// agent folder's own `sessions/`.
pub fn agent_folder(folder: &SessionsFolder) -> Option<PathBuf> {
    (folder.dir.file_name()? == "sessions")
        .then(|| folder.dir.parent().map(|a| a.join(AGENT_FOLDER)))?
}

/// The children of the `sessions` listed (pi's list of `folder`, in
/// `scope`), found from the `subfolders` the listing saw (see
/// [`Files::subfolders`]), read through their own cache in `cache_dir`
/// (none: read every time); `calls` are the calls of listed sessions read
/// already.
pub fn load(
    folder: &SessionsFolder,
    scope: Scope,
    subfolders: &[PathBuf],
    sessions: &[SessionSummary],
    calls: &ReadCalls,
    cache_dir: Option<&Path>,
) -> Children {
    let mut problems = Vec::new();
    let listed: HashMap<&Path, &SessionSummary> =
        sessions.iter().map(|s| (s.path.as_path(), s)).collect();
    let mut children = match may_have(folder, subfolders) {
        true => outside(
            folder,
            scope,
            subfolders,
            sessions,
            &listed,
            cache_dir,
            &mut problems,
        ),
        false => Vec::new(),
    };
    let last = |p: &Path| listed.get(p).map(|s| s.modified_ms);
    children.extend(top_level(
        sessions,
        &last,
        calls,
        scope,
        cache_dir,
        &mut problems,
    ));
    Children::new(children, problems)
}

/// The children among `headed` (sessions of pi's list whose header names a
/// parent), where `listed` gives a listed session's last activity (see
/// [`SessionSummary::modified_ms`]) and `None` for a path not listed: what
/// [`load`] finds when the folder has no subagent folders (see
/// [`may_have`]).
pub fn load_top_level(
    headed: &[SessionSummary],
    listed: &dyn Fn(&Path) -> Option<Option<i64>>,
    scope: Scope,
    cache_dir: Option<&Path>,
) -> Children {
    let mut problems = Vec::new();
    let children = top_level(
        headed,
        listed,
        &ReadCalls::default(),
        scope,
        cache_dir,
        &mut problems,
    );
    Children::new(children, problems)
}

/// The children outside pi's list (see [`load`]).
fn outside(
    folder: &SessionsFolder,
    scope: Scope,
    subfolders: &[PathBuf],
    sessions: &[SessionSummary],
    listed: &HashMap<&Path, &SessionSummary>,
    cache_dir: Option<&Path>,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<Child> {
    let found = find_files(
        folder,
        subfolders,
        &|p| listed.contains_key(p),
        cache_dir,
        problems,
    );
    let candidates: Vec<Candidate> = found
        .iter()
        .map(|(path, _)| Candidate {
            path: path.clone(),
            meta: std::fs::metadata(path)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| FileStamp::of(&m)),
        })
        .collect();
    let layouts: HashMap<PathBuf, ChildLayout> = found.into_iter().collect();
    let mut cache = match cache_dir {
        Some(d) if std::fs::create_dir_all(d).is_ok() => Cache::open(d.to_path_buf()),
        _ => Cache::disabled(),
    };
    cache.read_summaries();
    let files = Files {
        candidates,
        problems: Vec::new(),
        scope: Scope::All,
        subfolders: Vec::new(),
    };
    // The children's folder: the catalog's own, listed whole, so a child
    // of any project is read (its parent decides whether it is in scope).
    let whole = SessionsFolder {
        layout: Layout::PerProject,
        ..folder.clone()
    };
    let options = LoadOptions {
        scope: Scope::All,
        with_text: false,
        with_usage: true,
    };
    let loaded = super::load_listed(&whole, files, options, &mut cache, &mut |_| {});
    problems.extend(loaded.problems);
    let summaries = loaded.sessions;
    let known: HashSet<&Path> = summaries
        .iter()
        .map(|s| s.path.as_path())
        .chain(listed.keys().copied())
        .collect();
    let by_id: HashMap<&str, &Path> = sessions
        .iter()
        .map(|s| (s.id.as_str(), s.path.as_path()))
        .collect();
    let mut children: Vec<Child> = Vec::with_capacity(summaries.len());
    for s in &summaries {
        let layout = layouts.get(&s.path).copied().unwrap_or(ChildLayout::Nested);
        let (parent, by) = match layout {
            ChildLayout::AgentFolder => agent_folder_parent(s, &by_id, sessions),
            _ => (nearest_named(&s.path, &known), Some(ParentBy::Folder)),
        };
        let by = parent.as_ref().and(by);
        children.push(Child {
            summary: s.clone(),
            parent,
            parent_by: by,
            layout,
        });
    }
    // In scope: a child under a listed session, or under another child
    // that is; with every project listed, a child of no known parent too.
    let mut keep: HashSet<PathBuf> = listed.keys().map(|p| p.to_path_buf()).collect();
    let mut kept = vec![false; children.len()];
    loop {
        let mut grew = false;
        for (i, c) in children.iter().enumerate() {
            if !kept[i] && c.parent.as_ref().is_some_and(|p| keep.contains(p)) {
                kept[i] = true;
                keep.insert(c.summary.path.clone());
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let all = scope == Scope::All;
    children
        .into_iter()
        .zip(kept)
        .filter(|(c, k)| *k || (all && c.parent.is_none()))
        .map(|(c, _)| c)
        .collect()
}

/// The sessions of pi's list that are children of another listed session
/// (see the module's notes): header-linked, and started while one of the
/// parent's tool calls ran. `listed` gives a listed session's last
/// activity (`Some(None)` when it has none), `None` for a path not listed;
/// `calls` are the calls of listed sessions read already.
///
/// Reading a parent's calls is the one cost here, so it is read only for
/// a session started before its parent's last activity or within
/// [`CALL_RUNS`] after it (a fork the user made of a session long left is
/// told from the summaries alone), and
/// each verdict read is kept in `cache_dir`: it cannot change once the
/// child exists, as the call was written before the child started and a
/// parent only grows after. How a header's path resolved is kept too.
fn top_level(
    sessions: &[SessionSummary],
    listed: &dyn Fn(&Path) -> Option<Option<i64>>,
    calls: &ReadCalls,
    scope: Scope,
    cache_dir: Option<&Path>,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<Child> {
    if !sessions.iter().any(|s| s.parent_session_path.is_some()) {
        return Vec::new();
    }
    let mut verdicts = Verdicts::open(cache_dir);
    let mut out = Vec::new();
    // Per parent, the header-linked sessions to read its calls for.
    let mut unknown: HashMap<PathBuf, Vec<&SessionSummary>> = HashMap::new();
    for s in sessions {
        let Some(named) = s.parent_session_path.as_deref().filter(|p| !p.is_empty()) else {
            continue;
        };
        let Some(started) = s.created_ms else {
            continue;
        };
        let Some(parent) = verdicts.parent(&s.path, started, named, listed) else {
            continue;
        };
        if parent == s.path {
            continue;
        }
        match verdicts.child(&s.path) {
            Some(true) => out.push(top_level_child(s, parent)),
            Some(false) => {}
            // Active after the child started, or not long before: maybe a
            // call ran then (one still running has no answer after it).
            None if listed(&parent)
                .flatten()
                .is_some_and(|last| started < last.saturating_add(CALL_RUNS)) =>
            {
                unknown.entry(parent).or_default().push(s);
            }
            None => {}
        }
    }
    // Each parent's calls read on every core, where the catalog's read did
    // not gather them.
    let unknown: Vec<(PathBuf, Vec<&SessionSummary>)> = unknown.into_iter().collect();
    let windows = crate::par::map(unknown.len(), 1, |i| match calls.get(&unknown[i].0) {
        Some(read) => Ok(std::borrow::Cow::Borrowed(read)),
        None => call_windows(&unknown[i].0).map(std::borrow::Cow::Owned),
    });
    for ((parent, kids), windows) in unknown.into_iter().zip(windows) {
        match windows {
            Ok(windows) => {
                for s in kids {
                    let started = s.created_ms.unwrap_or_default();
                    let child = windows.iter().any(|&(a, b)| a <= started && started < b);
                    verdicts.set_child(&s.path, child);
                    if child {
                        out.push(top_level_child(s, parent.clone()));
                    }
                }
            }
            Err(e) => problems.push(CatalogProblem::new(&parent, e.to_string())),
        }
    }
    if scope == Scope::All {
        verdicts.forget_all_but(&|p| listed(p).is_some());
    }
    if let Err(e) = verdicts.save() {
        if let Some(d) = cache_dir {
            problems.push(CatalogProblem::new(
                d,
                format!("could not save the cache: {e}"),
            ));
        }
    }
    out
}

fn top_level_child(s: &SessionSummary, parent: PathBuf) -> Child {
    Child {
        summary: s.clone(),
        parent: Some(parent),
        parent_by: Some(ParentBy::Header),
        layout: ChildLayout::TopLevel,
    }
}

/// The tool call ids of a session line (parsed): an assistant message's
/// calls, or the call a tool result answers; none for any other line.
pub fn call_ids(line: &serde_json::Value) -> Vec<String> {
    let message = &line["message"];
    match message["role"].as_str() {
        Some("assistant") => message["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["type"] == "toolCall")
            .filter_map(|c| c["id"].as_str().map(str::to_string))
            .collect(),
        Some("toolResult") => message["toolCallId"]
            .as_str()
            .map(|id| vec![id.to_string()])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// What is known of each header-linked session (see [`top_level`]): when
/// it started and the parent its header names, as the header says and as
/// it resolved (`None`: to no listed session), and whether it is that
/// parent's child once its calls were read. Kept in the subagents' cache
/// folder.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Verdicts {
    kept: HashMap<PathBuf, Verdict>,
    #[serde(skip)]
    dir: Option<PathBuf>,
    #[serde(skip)]
    changed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Verdict {
    started: i64,
    named: String,
    parent: Option<PathBuf>,
    child: Option<bool>,
}

const VERDICTS_FILE: &str = "top-level-children.bin";
/// The verdicts file's frame; bump the format when [`Verdicts`] changes.
const VERDICTS_FRAME: Envelope = Envelope {
    magic: b"piscopeV",
    format: 2,
};

impl Verdicts {
    /// The verdicts kept in `dir`; none when there is no folder, or the
    /// file is missing, damaged or of another format.
    fn open(dir: Option<&Path>) -> Verdicts {
        let kept = dir.and_then(|d| read_kept(&VERDICTS_FRAME, &d.join(VERDICTS_FILE)));
        Verdicts {
            dir: dir.map(Path::to_path_buf),
            ..kept.unwrap_or_default()
        }
    }

    /// The listed session the header of `path` (started at `started`)
    /// names as `named`: the same path when listed, else as kept, else
    /// resolved now (links resolved, as pi compares paths) and kept.
    fn parent(
        &mut self,
        path: &Path,
        started: i64,
        named: &str,
        listed: &dyn Fn(&Path) -> Option<Option<i64>>,
    ) -> Option<PathBuf> {
        let same = |v: &Verdict| v.started == started && v.named == named;
        let resolved = match self.kept.get(path).filter(|v| same(v)) {
            _ if listed(Path::new(named)).is_some() => Some(PathBuf::from(named)),
            Some(v) => match &v.parent {
                Some(p) if listed(p).is_some() => Some(p.clone()),
                Some(_) => None,
                None => return None,
            },
            None => None,
        };
        let resolved = resolved.or_else(|| {
            let key = super::search::query::path_key(Path::new(named));
            listed(&key).is_some().then_some(key)
        });
        let kept = self.kept.get(path).filter(|v| same(v));
        if kept.is_none_or(|v| v.parent != resolved) {
            let v = Verdict {
                started,
                named: named.to_string(),
                parent: resolved.clone(),
                child: None,
            };
            self.kept.insert(path.to_path_buf(), v);
            self.changed = true;
        }
        resolved
    }

    /// Whether `path` is its parent's child, when its calls were read.
    fn child(&self, path: &Path) -> Option<bool> {
        self.kept.get(path)?.child
    }

    fn set_child(&mut self, path: &Path, child: bool) {
        if let Some(v) = self.kept.get_mut(path) {
            self.changed |= v.child.replace(child) != Some(child);
        }
    }

    /// Drops the verdicts on sessions no longer listed.
    fn forget_all_but(&mut self, is_listed: &dyn Fn(&Path) -> bool) {
        let before = self.kept.len();
        self.kept.retain(|p, _| is_listed(p));
        self.changed |= self.kept.len() != before;
    }

    fn save(&self) -> std::io::Result<()> {
        let Some(dir) = self.dir.as_deref().filter(|_| self.changed) else {
            return Ok(());
        };
        std::fs::create_dir_all(dir)?;
        write_kept(&VERDICTS_FRAME, &dir.join(VERDICTS_FILE), self)
    }
}

/// What a file this module keeps holds; `None` when it is missing, damaged
/// or of another format (it is then rebuilt, never believed).
fn read_kept<T: serde::de::DeserializeOwned>(frame: &Envelope, path: &Path) -> Option<T> {
    let bytes = std::fs::read(path).ok()?;
    postcard::from_bytes(frame.payload(&bytes)?).ok()
}

fn write_kept<T: Serialize>(frame: &Envelope, path: &Path, value: &T) -> std::io::Result<()> {
    let payload = postcard::to_stdvec(value).map_err(std::io::Error::other)?;
    frame.write(path, &payload)
}

/// The child session files of `folder`, each with its layout: below each
/// of the `subfolders` named as a session file that `is_session` accepts,
/// and in the agent folder's `subagent-sessions/`. The folders walked are
/// kept in `cache_dir` (none: walked every time).
pub fn find_files(
    folder: &SessionsFolder,
    subfolders: &[PathBuf],
    is_session: &dyn Fn(&Path) -> bool,
    cache_dir: Option<&Path>,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<(PathBuf, ChildLayout)> {
    let mut roots: Vec<(PathBuf, ChildLayout)> = subfolders
        .iter()
        .filter(|d| is_session(&with_jsonl(d)))
        .map(|d| (d.clone(), ChildLayout::Nested))
        .collect();
    if let Some(dir) = agent_folder(folder) {
        roots.push((dir, ChildLayout::AgentFolder));
    }
    let mut walks = match cache_dir {
        Some(d) => Walks::open(d),
        None => Walks::default(),
    };
    let mut found = Vec::new();
    for (root, layout) in &roots {
        for f in walks.files(root, problems) {
            found.push((f, *layout));
        }
    }
    if let Some(d) = cache_dir {
        let saved = std::fs::create_dir_all(d).and_then(|()| walks.save(d));
        if let Err(e) = saved {
            problems.push(CatalogProblem::new(
                d,
                format!("could not save the cache: {e}"),
            ));
        }
    }
    found
}

/// The folder in the user's cache folder where the children's summaries
/// and the folders walked are kept.
pub fn cache_dir(catalog_cache: &Path) -> PathBuf {
    catalog_cache.join("subagents")
}

/// Whether `folder` may hold children at all: its listing saw folders
/// named as session files inside the project folders, or the agent folder
/// has `subagent-sessions/` (one stat). When not, nothing is walked or read.
pub fn may_have(folder: &SessionsFolder, subfolders: &[PathBuf]) -> bool {
    !subfolders.is_empty() || agent_folder(folder).is_some_and(|d| d.is_dir())
}

/// `dir` with `.jsonl` added to its name.
fn with_jsonl(dir: &Path) -> PathBuf {
    let mut name = dir.as_os_str().to_os_string();
    name.push(".jsonl");
    PathBuf::from(name)
}

/// The nearest `<folder>.jsonl` above `path` that is a known session.
fn nearest_named(path: &Path, known: &HashSet<&Path>) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .map(with_jsonl)
        .find(|p| known.contains(p.as_path()))
}

/// The parent of a child in the agent folder, and how it was told.
fn agent_folder_parent(
    s: &SessionSummary,
    by_id: &HashMap<&str, &Path>,
    sessions: &[SessionSummary],
) -> (Option<PathBuf>, Option<ParentBy>) {
    if let Some(p) = s.parent_session_path.as_deref().filter(|p| !p.is_empty()) {
        return (Some(PathBuf::from(p)), Some(ParentBy::Header));
    }
    let folder_name = s.path.parent().and_then(Path::file_name);
    if let Some(p) = folder_name.and_then(|n| by_id.get(n.to_str()?)) {
        return (Some(p.to_path_buf()), Some(ParentBy::FolderId));
    }
    // The session of the same project active when the child started: the
    // one started last before it, among those whose activity reaches it.
    let started = s.created_ms;
    let parent = sessions
        .iter()
        .filter(|p| p.cwd == s.cwd && p.path != s.path)
        .filter(|p| match (p.created_ms, p.modified_ms, started) {
            (Some(a), Some(b), Some(t)) => a <= t && t <= b,
            _ => false,
        })
        .max_by_key(|p| p.created_ms)
        .map(|p| p.path.clone());
    (parent, Some(ParentBy::Time))
}

/// The folders walked for children, each with its stamp when listed, its
/// session files and its folders; kept between runs so that a folder whose
/// stamp is unchanged is not listed again.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Walks {
    folders: HashMap<PathBuf, Walked>,
    #[serde(skip)]
    changed: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Walked {
    stamp: FileStamp,
    files: Vec<PathBuf>,
    folders: Vec<PathBuf>,
}

const WALKS_FILE: &str = "subagent-folders.bin";
/// The walks file's frame; bump the format when [`Walks`] changes shape.
const WALKS_FRAME: Envelope = Envelope {
    magic: b"piscopeW",
    format: 1,
};

impl Walks {
    /// The walks kept in `dir`; none when the file is missing, damaged or
    /// of another format (it is then rebuilt, never believed).
    fn open(dir: &Path) -> Walks {
        read_kept(&WALKS_FRAME, &dir.join(WALKS_FILE)).unwrap_or_default()
    }

    fn save(&self, dir: &Path) -> std::io::Result<()> {
        if !self.changed {
            return Ok(());
        }
        write_kept(&WALKS_FRAME, &dir.join(WALKS_FILE), self)
    }

    /// The `.jsonl` files below `root` (to [`DEPTH`]), listing again only
    /// the folders whose stamp moved since they were listed.
    fn files(&mut self, root: &Path, problems: &mut Vec<CatalogProblem>) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut todo = vec![(root.to_path_buf(), 0usize)];
        let mut seen = HashSet::new();
        while let Some((dir, depth)) = todo.pop() {
            if !seen.insert(dir.clone()) {
                continue;
            }
            let Some(w) = self.walked(&dir, dir == root, problems) else {
                continue;
            };
            out.extend(w.files.iter().cloned());
            if depth + 1 < DEPTH {
                todo.extend(w.folders.iter().map(|f| (f.clone(), depth + 1)));
            }
        }
        out
    }

    /// What `dir` holds: as kept, when its stamp is the one kept; else
    /// listed now (and kept). `None` when it is not a folder.
    fn walked(
        &mut self,
        dir: &Path,
        is_root: bool,
        problems: &mut Vec<CatalogProblem>,
    ) -> Option<Walked> {
        let stamp = match std::fs::symlink_metadata(dir) {
            Ok(m) if m.is_dir() => FileStamp::of(&m),
            Ok(_) => return None,
            Err(e) => {
                if !(is_root && e.kind() == std::io::ErrorKind::NotFound) {
                    problems.push(CatalogProblem::new(dir, e.to_string()));
                }
                self.changed |= self.folders.remove(dir).is_some();
                return None;
            }
        };
        if let Some(w) = self.folders.get(dir).filter(|w| w.stamp == stamp) {
            return Some(w.clone());
        }
        let mut w = Walked {
            stamp,
            files: Vec::new(),
            folders: Vec::new(),
        };
        match std::fs::read_dir(dir) {
            Ok(rd) => {
                for e in rd.flatten() {
                    let Ok(t) = e.file_type() else { continue };
                    if t.is_dir() {
                        w.folders.push(e.path());
                    } else if e.file_name().as_encoded_bytes().ends_with(b".jsonl") {
                        w.files.push(e.path());
                    }
                }
            }
            Err(e) => {
                problems.push(CatalogProblem::new(dir, e.to_string()));
                return None;
            }
        }
        w.files.sort();
        w.folders.sort();
        self.folders.insert(dir.to_path_buf(), w.clone());
        self.changed = true;
        Some(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(second: u32, message: &str) -> String {
        format!(
            r#"{{"type":"message","id":"e{second}","parentId":null,"timestamp":"2026-01-01T00:00:{second:02}.000Z","message":{message}}}"#
        )
    }

    fn call(id: &str) -> String {
        format!(
            r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"{id}","name":"subagent","arguments":{{}}}}]}}"#
        )
    }

    fn result(id: &str) -> String {
        format!(r#"{{"role":"toolResult","toolCallId":"{id}","content":[]}}"#)
    }

    const AT: i64 = 1_767_225_600_000;

    #[test]
    fn a_call_runs_from_its_message_to_its_result_or_the_next_prompt() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("parent.jsonl");
        let lines = [
            r#"{"type":"session","version":3,"id":"p","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#.to_string(),
            line(1, &call("a")),
            "not json, passed over".to_string(),
            line(5, &result("a")),
            line(6, &call("b")),
            line(9, r#"{"role":"user","content":"stop"}"#),
            line(10, &call("c")),
        ];
        std::fs::write(&path, lines.join("\n") + "\n").expect("write");
        let windows = call_windows(&path).expect("read");
        assert_eq!(
            windows,
            vec![
                (AT + 1000, AT + 5000),
                (AT + 6000, AT + 9000),
                (AT + 10_000, i64::MAX)
            ]
        );
    }

    /// A call made with the id of one still running ends that one's
    /// window; an answer ends the call of its id; many calls at once, each
    /// answered, take their windows in a read whose time does not grow
    /// with their square (each answer finds its call by id).
    #[test]
    fn calls_are_found_by_id() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("parent.jsonl");
        let header = r#"{"type":"session","version":3,"id":"p","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;
        let lines = [
            header.to_string(),
            line(1, &call("a")),
            line(2, &call("a")),
            line(3, &result("a")),
            line(4, &result("a")),
        ];
        std::fs::write(&path, lines.join("\n") + "\n").expect("write");
        assert_eq!(
            call_windows(&path).expect("read"),
            vec![(AT + 1000, AT + 2000), (AT + 2000, AT + 3000)]
        );
        let n = 50_000;
        let blocks: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"type":"toolCall","id":"c{i}","name":"read","arguments":{{}}}}"#))
            .collect();
        let mut lines = vec![
            header.to_string(),
            line(
                1,
                &format!(r#"{{"role":"assistant","content":[{}]}}"#, blocks.join(",")),
            ),
        ];
        lines.extend((0..n).map(|i| line(2, &result(&format!("c{i}")))));
        std::fs::write(&path, lines.join("\n") + "\n").expect("write");
        let windows = call_windows(&path).expect("read");
        assert_eq!(windows.len(), n);
        assert!(windows.iter().all(|&w| w == (AT + 1000, AT + 2000)));
    }
}
