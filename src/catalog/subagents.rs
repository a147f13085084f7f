//! Child sessions that subagent extensions write outside pi's own list,
//! each found under the session that dispatched it.
//!
//! Two shapes are looked for here (a third, a top-level session whose header
//! `parentSession` names the dispatcher, is in pi's list already and is put
//! under its parent by the threaded order):
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
//!
//! pi's `/resume` never lists either (it reads only the files directly in a
//! project folder). The children's summaries are kept in a cache of their
//! own, beside the catalog's, so a warm run reads none of them again; and
//! the folders walked are remembered with their stamps, so a warm run only
//! stats them, and lists again only a folder that changed.

use super::cache::envelope::Envelope;
use super::discover::{Candidate, FileStamp, Layout, Scope, SessionsFolder};
use super::summary::SessionSummary;
use super::{Cache, CatalogProblem, Files, LoadOptions};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The folder of the agent folder where child sessions may be kept.
pub const AGENT_FOLDER: &str = "subagent-sessions";

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
        Children {
            children,
            problems,
            by_parent,
        }
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
/// (none: read every time).
pub fn load(
    folder: &SessionsFolder,
    scope: Scope,
    subfolders: &[PathBuf],
    sessions: &[SessionSummary],
    cache_dir: Option<&Path>,
) -> Children {
    let mut problems = Vec::new();
    let listed: HashMap<&Path, &SessionSummary> =
        sessions.iter().map(|s| (s.path.as_path(), s)).collect();
    let found = find_files(
        folder,
        subfolders,
        &|p| listed.contains_key(p),
        cache_dir,
        &mut problems,
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
            ChildLayout::Nested => (nearest_named(&s.path, &known), Some(ParentBy::Folder)),
            ChildLayout::AgentFolder => agent_folder_parent(s, &by_id, sessions),
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
    let children = children
        .into_iter()
        .zip(kept)
        .filter(|(c, k)| *k || (all && c.parent.is_none()))
        .map(|(c, _)| c)
        .collect();
    Children::new(children, problems)
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
        std::fs::read(dir.join(WALKS_FILE))
            .ok()
            .and_then(|b| postcard::from_bytes::<Walks>(WALKS_FRAME.payload(&b)?).ok())
            .unwrap_or_default()
    }

    fn save(&self, dir: &Path) -> std::io::Result<()> {
        if !self.changed {
            return Ok(());
        }
        let payload = postcard::to_stdvec(self).map_err(std::io::Error::other)?;
        WALKS_FRAME.write(&dir.join(WALKS_FILE), &payload)
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
