//! Where pi keeps its sessions (pi's precedence of flag, environment and
//! settings) and which files in there are candidates, newest first.

use super::problem::CatalogProblem;
use std::cmp::Ordering;
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

/// How session files are laid out in the sessions folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// pi's default: one `--<encoded cwd>--` sub-folder per project.
    PerProject,
    /// A custom folder: session files side by side.
    Flat,
}

/// What chose the sessions folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FolderSource {
    Flag,
    Environment,
    ProjectSettings,
    AgentSettings,
    Default,
}

/// The sessions folder in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionsFolder {
    pub dir: PathBuf,
    pub layout: Layout,
    pub source: FolderSource,
    /// The folder the user is in (it picks the current project).
    pub cwd: PathBuf,
}

impl SessionsFolder {
    /// A folder named directly (as `--session-dir` does), seen from `cwd`.
    pub fn at(dir: PathBuf, layout: Layout, cwd: PathBuf) -> SessionsFolder {
        SessionsFolder {
            dir,
            layout,
            source: FolderSource::Flag,
            cwd,
        }
    }
}

/// Reads one environment variable.
pub type EnvLookup = Box<dyn Fn(&str) -> Option<String>>;

/// What discovery reads from the outside world, so tests can set it.
pub struct Surroundings {
    pub session_dir_flag: Option<String>,
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    pub env: EnvLookup,
}

impl Surroundings {
    /// The real process: its environment, folder and home.
    pub fn of_process(session_dir_flag: Option<String>) -> Surroundings {
        Surroundings {
            session_dir_flag,
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            home: directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()),
            env: Box::new(|k| std::env::var(k).ok().filter(|v| !v.is_empty())),
        }
    }

    /// `~` and `~/…` expanded with the home folder, as pi does.
    fn expand(&self, p: &str) -> PathBuf {
        match (&self.home, p) {
            (Some(h), "~") => h.clone(),
            (Some(h), p) if p.starts_with("~/") => h.join(&p[2..]),
            _ => PathBuf::from(p),
        }
    }

    fn absolute(&self, p: PathBuf) -> PathBuf {
        normalize(&if p.is_absolute() { p } else { self.cwd.join(p) })
    }

    /// A folder as given, lexically normalised: pi keeps relative paths
    /// relative, and prints session paths the same way.
    fn as_given(&self, p: PathBuf) -> PathBuf {
        normalize(&p)
    }

    /// pi's agent folder: `PI_CODING_AGENT_DIR` or `~/.pi/agent`.
    pub fn agent_dir(&self) -> PathBuf {
        match (self.env)("PI_CODING_AGENT_DIR") {
            Some(d) => self.as_given(self.expand(&d)),
            None => self
                .home
                .clone()
                .unwrap_or_else(|| PathBuf::from("/"))
                .join(".pi")
                .join("agent"),
        }
    }
}

/// Finds the sessions folder with pi's precedence: `--session-dir` >
/// `PI_CODING_AGENT_SESSION_DIR` > `sessionDir` in the project's
/// `.pi/settings.json` over the agent's `settings.json` > `<agent>/sessions`.
pub fn locate(s: &Surroundings, problems: &mut Vec<CatalogProblem>) -> SessionsFolder {
    let default = s.agent_dir().join("sessions");
    let chosen = if let Some(flag) = &s.session_dir_flag {
        Some((s.expand(flag), FolderSource::Flag))
    } else if let Some(env) = (s.env)("PI_CODING_AGENT_SESSION_DIR") {
        Some((s.expand(&env), FolderSource::Environment))
    } else {
        let project = s.cwd.join(".pi").join("settings.json");
        let agent = s.agent_dir().join("settings.json");
        setting_session_dir(&project, problems)
            .map(|d| (s.expand(&d), FolderSource::ProjectSettings))
            .or_else(|| {
                setting_session_dir(&agent, problems)
                    .map(|d| (s.expand(&d), FolderSource::AgentSettings))
            })
    };
    let (dir, source) = match chosen {
        Some((d, source)) => (s.as_given(d), source),
        None => (default.clone(), FolderSource::Default),
    };
    let layout = if s.absolute(dir.clone()) == s.absolute(default.clone()) {
        Layout::PerProject
    } else {
        Layout::Flat
    };
    SessionsFolder {
        dir,
        layout,
        source,
        cwd: s.absolute(s.cwd.clone()),
    }
}

/// `sessionDir` of one settings file, if it sets one.
fn setting_session_dir(path: &Path, problems: &mut Vec<CatalogProblem>) -> Option<String> {
    let text = match crate::session::read::file::read_regular_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            problems.push(CatalogProblem::new(path, e.to_string()));
            return None;
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => match v.get("sessionDir") {
            Some(serde_json::Value::String(d)) if !d.is_empty() => Some(d.clone()),
            Some(serde_json::Value::String(_) | serde_json::Value::Null) | None => None,
            Some(_) => {
                problems.push(CatalogProblem::new(path, "sessionDir is not text; ignored"));
                None
            }
        },
        Err(e) => {
            problems.push(CatalogProblem::new(
                path,
                format!("line {}: not valid JSON ({e}); ignored", e.line()),
            ));
            None
        }
    }
}

/// pi's folder name for a project: `/home/a/b` → `--home-a-b--`.
pub fn project_folder_name(cwd: &Path) -> String {
    let s = cwd.to_string_lossy();
    let s = s.strip_prefix(['/', '\\']).unwrap_or(&s);
    format!("--{}--", s.replace(['/', '\\', ':'], "-"))
}

/// The folder every session file a list of `scope` finds in `folder` is
/// under, spelled as their paths are.
pub fn listed_root(folder: &SessionsFolder, scope: Scope) -> PathBuf {
    match (folder.layout, scope) {
        (Layout::PerProject, Scope::Current) => {
            normalize(&folder.dir.join(project_folder_name(&folder.cwd)))
        }
        _ => normalize(&folder.dir),
    }
}

/// A candidate session file with what `stat` said.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub path: PathBuf,
    pub meta: Option<FileStamp>,
}

/// What identifies one version of a file. The mtime can be set back
/// (`cp -p`, `touch -r`, `rsync -t`) and an inode reused, so neither tells
/// a rewritten file from the one a cache read; the ctime (status change)
/// moves on every write and no user call can set it, so it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileStamp {
    pub size: u64,
    pub mtime_ns: i128,
    pub inode: u64,
    pub device: u64,
    pub ctime_ns: i128,
}

impl FileStamp {
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| match t.duration_since(SystemTime::UNIX_EPOCH) {
                Ok(d) => i128::try_from(d.as_nanos()).ok(),
                Err(e) => i128::try_from(e.duration().as_nanos()).ok().map(|n| -n),
            })
            .unwrap_or(0);
        #[cfg(unix)]
        let (inode, device, ctime_ns) = {
            use std::os::unix::fs::MetadataExt;
            let ctime_ns = i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec());
            (meta.ino(), meta.dev(), ctime_ns)
        };
        #[cfg(not(unix))]
        let (inode, device, ctime_ns) = (0, 0, 0);
        FileStamp {
            size: meta.len(),
            mtime_ns,
            inode,
            device,
            ctime_ns,
        }
    }

    /// The modification time in whole milliseconds as pi's `stats.mtime`
    /// has it: `mtimeMs` (seconds and nanoseconds summed as a float), rounded
    /// to the nearest millisecond.
    pub fn mtime_ms(&self) -> i64 {
        let secs = self.mtime_ns.div_euclid(1_000_000_000);
        let nanos = self.mtime_ns.rem_euclid(1_000_000_000);
        let ms = secs as f64 * 1e3 + nanos as f64 / 1e6;
        (ms + 0.5).floor() as i64
    }
}

/// Which part of the sessions folder to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The current folder's project.
    Current,
    All,
}

/// The session file candidates of `folder`, in the order pi reads them:
/// per-project layout newest mtime first; flat layout by name, last first.
pub fn candidates(
    folder: &SessionsFolder,
    scope: Scope,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<Candidate> {
    let listing = Listing::of(folder, scope);
    let found = listing.work();
    listing.finish(vec![found], problems)
}

/// The `.jsonl` files of the folders to list, shared by several threads
/// (a warm list spends most of its time stat'ing them): each calls
/// [`Listing::work`]. The first one finds the folders; then each lists the
/// next folder no other caller has taken, and stats the next few files of
/// a listed folder no other caller has (a caller free before any folder is
/// listed, such as one that read the cache first, lists too); and
/// [`Listing::finish`] puts their finds together in one order.
pub struct Listing<'f> {
    folder: &'f SessionsFolder,
    scope: Scope,
    folders: std::sync::OnceLock<Folders>,
}

/// The folders to list: each normalised once (a file name is one plain
/// component), with the problems finding them.
struct Folders {
    /// Each folder, whether a missing one is a problem, and its listing.
    each: Vec<Folder>,
    problems: Vec<CatalogProblem>,
    /// The next folder to list.
    next: std::sync::atomic::AtomicUsize,
}

struct Folder {
    dir: PathBuf,
    base: PathBuf,
    report_missing: bool,
    listed: std::sync::OnceLock<Listed>,
    /// The next of its files to stat.
    next: std::sync::atomic::AtomicUsize,
}

/// One folder listed: its `.jsonl` entries, the problems listing it, and
/// the folders inside it (where subagent extensions put child sessions),
/// seen in the same listing at no extra cost.
#[derive(Default)]
struct Listed {
    entries: Vec<FileFound>,
    problems: Vec<CatalogProblem>,
    subfolders: Vec<PathBuf>,
}

impl Folder {
    /// Its listing (this folder numbered `d`): made by the first caller to
    /// ask, the others waiting for it (or making it, should that caller
    /// have failed).
    fn listing(&self, d: usize) -> &Listed {
        self.listed.get_or_init(|| {
            let mut listed = Listed::default();
            let mut inner = Vec::new();
            jsonl_entries(&self.dir, d, &mut listed, self.report_missing, &mut inner);
            listed.subfolders = inner.into_iter().map(|n| self.base.join(n)).collect();
            listed
        })
    }
}

/// One file found. An entry holds its folder open (to stat the file
/// through it, so the kernel does not walk the whole path again): the
/// first [`FOLDERS_HELD_OPEN`] folders' files are kept so, the rest by
/// name, so that thousands of project folders never run the process out
/// of file descriptors.
enum FileFound {
    Held(std::fs::DirEntry),
    Named(std::ffi::OsString),
}

const FOLDERS_HELD_OPEN: usize = 64;

impl FileFound {
    fn name(&self) -> std::borrow::Cow<'_, std::ffi::OsStr> {
        match self {
            FileFound::Held(e) => e.file_name().into(),
            FileFound::Named(name) => name.as_os_str().into(),
        }
    }
}

/// What one [`Listing::work`] found: each file by its folder and place in
/// the folder's listing, its path and what `stat` says of it.
pub struct Found(Vec<(u32, u32, PathBuf, Stat)>);

/// What `stat` said of a listed file, taken down where it was asked.
enum Stat {
    File(FileStamp),
    NotRegular(crate::session::read::file::FileKind),
    /// Gone, or not to be asked: reading it says why.
    Failed,
}

impl Stat {
    fn of(meta: std::io::Result<std::fs::Metadata>) -> Stat {
        use crate::session::read::file::FileKind;
        match meta {
            Ok(m) if m.is_file() => Stat::File(FileStamp::of(&m)),
            Ok(m) => Stat::NotRegular(FileKind::of(m.file_type()).unwrap_or(FileKind::Other)),
            Err(_) => Stat::Failed,
        }
    }
}

/// Files a [`Listing::work`] takes at a time: enough that taking them costs
/// nothing, few enough that two threads finish together.
const FILES_AT_A_TIME: usize = 32;

impl<'f> Listing<'f> {
    pub fn of(folder: &'f SessionsFolder, scope: Scope) -> Listing<'f> {
        Listing {
            folder,
            scope,
            folders: std::sync::OnceLock::new(),
        }
    }

    /// The folders to list, not yet listed.
    fn folders(&self) -> Folders {
        let (folder, mut problems) = (self.folder, Vec::new());
        let mut dirs = Vec::new();
        match (folder.layout, self.scope) {
            (Layout::Flat, _) => dirs.push((folder.dir.clone(), true)),
            (Layout::PerProject, Scope::Current) => {
                dirs.push((folder.dir.join(project_folder_name(&folder.cwd)), false));
            }
            (Layout::PerProject, Scope::All) => match std::fs::read_dir(&folder.dir) {
                Ok(rd) => {
                    for entry in rd.flatten() {
                        let is_dir = entry
                            .file_type()
                            .is_ok_and(|t| t.is_dir() || t.is_symlink());
                        if is_dir {
                            dirs.push((entry.path(), false));
                        }
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => problems.push(CatalogProblem::new(&folder.dir, e.to_string())),
            },
        }
        let each = dirs
            .into_iter()
            .map(|(dir, report_missing)| Folder {
                base: normalize(&dir),
                dir,
                report_missing,
                listed: std::sync::OnceLock::new(),
                next: std::sync::atomic::AtomicUsize::new(0),
            })
            .collect();
        Folders {
            each,
            problems,
            next: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Lists folders and stats files no other caller has taken yet, until
    /// none is left: first each folder no caller has taken, listed and its
    /// files stat'ed; then, once every folder is taken, the files other
    /// callers have not stat'ed yet, folder by folder (one still being
    /// listed is waited for). Each folder is looked at twice at most,
    /// however many there are.
    pub fn work(&self) -> Found {
        let folders = self.folders.get_or_init(|| self.folders());
        let mut found = Vec::new();
        loop {
            let d = folders
                .next
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(f) = folders.each.get(d) else {
                break;
            };
            stat_files(d, f, f.listing(d), &mut found);
        }
        for (d, f) in folders.each.iter().enumerate() {
            stat_files(d, f, f.listing(d), &mut found);
        }
        Found(found)
    }

    /// Every caller's finds, in pi's order; the problems listing the
    /// folders, in their order, then one for each file that is not a
    /// regular one.
    pub fn finish(self, founds: Vec<Found>, problems: &mut Vec<CatalogProblem>) -> Vec<Candidate> {
        self.finish_with_subfolders(founds, problems).0
    }

    /// [`Listing::finish`], with the folders found inside the listed ones
    /// (not followed through links).
    pub fn finish_with_subfolders(
        self,
        founds: Vec<Found>,
        problems: &mut Vec<CatalogProblem>,
    ) -> (Vec<Candidate>, Vec<PathBuf>) {
        let mut subfolders = Vec::new();
        // Each folder's files take their places after the folders' before.
        let mut starts = Vec::new();
        if let Some(folders) = self.folders.into_inner() {
            problems.extend(folders.problems);
            let mut start = 0;
            for f in folders.each {
                let listed = f.listed.into_inner().unwrap_or_default();
                starts.push(start);
                start += listed.entries.len();
                problems.extend(listed.problems);
                subfolders.extend(listed.subfolders);
            }
        }
        let (folder, scope) = (self.folder, self.scope);
        let total = founds.iter().map(|f| f.0.len()).sum();
        let (mut files, mut places) = (Vec::with_capacity(total), Vec::with_capacity(total));
        let mut not_regular = Vec::new();
        for (d, i, path, stat) in founds.into_iter().flat_map(|f| f.0) {
            let at = starts.get(d as usize).copied().unwrap_or(0) + i as usize;
            let meta = match stat {
                Stat::NotRegular(kind) => {
                    not_regular.push((at, path, kind));
                    continue;
                }
                Stat::File(stamp) => Some(stamp),
                Stat::Failed => None,
            };
            files.push(Candidate { path, meta });
            places.push(at as u32);
        }
        // A FIFO, socket or device would block the read; a folder has
        // nothing to read. Each is named, never read, in listing order.
        not_regular.sort_unstable_by_key(|(at, ..)| *at);
        for (_, path, kind) in not_regular {
            let why = crate::session::read::file::NotRegular { kind };
            problems.push(CatalogProblem::new(&path, why.to_string()));
        }
        // pi lists one project folder, or a flat one, by name, last first;
        // every project newest first, then by name.
        let by_time = folder.layout != Layout::Flat && scope == Scope::All;
        (in_pis_order(files, &places, by_time), subfolders)
    }
}

/// `files` in pi's order: newest first when `by_time` (files of the same
/// time, and all of them otherwise, by name, last first), files alike in
/// both by their `places` in the listing (one each, all different). A
/// small key per file is sorted, by time and place, then each run of one
/// time by name (names are compared only where times tie); the files
/// then move into their places in one pass.
fn in_pis_order(mut files: Vec<Candidate>, places: &[u32], by_time: bool) -> Vec<Candidate> {
    // Borrowed, not copied: a sort compares names thousands of times.
    fn name(c: &Candidate) -> std::borrow::Cow<'_, str> {
        c.path.file_name().unwrap_or_default().to_string_lossy()
    }
    let mut order: Vec<(Option<i128>, u32, u32)> = files
        .iter()
        .zip(places)
        .enumerate()
        .map(|(i, (c, &at))| (c.meta.filter(|_| by_time).map(|m| m.mtime_ns), at, i as u32))
        .collect();
    order.sort_unstable_by(|(ta, a, _), (tb, b, _)| tb.cmp(ta).then(a.cmp(b)));
    for run in order.chunk_by_mut(|x, y| x.0 == y.0) {
        if run.len() > 1 {
            let file = |i: u32| &files[i as usize];
            run.sort_unstable_by(|(_, xa, x), (_, ya, y)| {
                locale_cmp(&name(file(*y)), &name(file(*x))).then(xa.cmp(ya))
            });
        }
    }
    // Place k takes the file at `order[k]`: each cycle of the permutation
    // is followed by swaps, its places marked done.
    const DONE: u32 = u32::MAX;
    let mut from: Vec<u32> = order.into_iter().map(|(.., i)| i).collect();
    for start in 0..from.len() {
        let mut k = start;
        while from[k] != DONE {
            let next = from[k] as usize;
            from[k] = DONE;
            if next == start {
                break;
            }
            files.swap(k, next);
            k = next;
        }
    }
    files
}

/// Stats the files of folder `d` (`f`, listed as `listed`) no other caller
/// has taken yet, a few at a time, into `found`.
fn stat_files(d: usize, f: &Folder, listed: &Listed, found: &mut Vec<(u32, u32, PathBuf, Stat)>) {
    loop {
        let start = f
            .next
            .fetch_add(FILES_AT_A_TIME, std::sync::atomic::Ordering::Relaxed);
        let Some(taken) = listed.entries.get(start..) else {
            return;
        };
        for (i, e) in taken.iter().take(FILES_AT_A_TIME).enumerate() {
            let path = f.base.join(e.name());
            let meta = match e {
                // Asked of the open folder; a link is followed by its path.
                FileFound::Held(e) => match e.metadata() {
                    Ok(m) if m.file_type().is_symlink() => std::fs::metadata(&path),
                    other => other,
                },
                FileFound::Named(_) => std::fs::metadata(&path),
            };
            found.push((d as u32, (start + i) as u32, path, Stat::of(meta)));
        }
    }
}

/// The `.jsonl` entries of `dir` (the folder numbered `at`), to be stat'ed
/// following links, as reading them does, into `listed`, with the problems
/// listing it; the names of the folders in it into `subfolders`.
fn jsonl_entries(
    dir: &Path,
    at: usize,
    listed: &mut Listed,
    report_missing: bool,
    subfolders: &mut Vec<std::ffi::OsString>,
) {
    let problems = &mut listed.problems;
    match std::fs::read_dir(dir) {
        Ok(rd) => {
            for entry in rd {
                match entry {
                    Ok(e) if e.file_name().as_encoded_bytes().ends_with(b".jsonl") => {
                        let e = if at < FOLDERS_HELD_OPEN {
                            FileFound::Held(e)
                        } else {
                            FileFound::Named(e.file_name())
                        };
                        listed.entries.push(e);
                    }
                    // A killed piscope writer's leftover: never a session.
                    Ok(e) if crate::session::write::temp::is_piscope_temp(&e.file_name()) => {
                        crate::session::write::temp::remove_if_stale(&e.path());
                    }
                    // The entry's type as the folder listing gave it: no stat.
                    Ok(e) if e.file_type().is_ok_and(|t| t.is_dir()) => {
                        subfolders.push(e.file_name());
                    }
                    Ok(_) => {}
                    Err(e) => problems.push(CatalogProblem::new(dir, e.to_string())),
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !report_missing => {}
        Err(e) => problems.push(CatalogProblem::new(dir, e.to_string())),
    }
}

/// Close to `localeCompare` for file names: punctuation before digits
/// before letters, letters case-blind first, lower case first on a tie.
pub fn locale_cmp(a: &str, b: &str) -> Ordering {
    fn primary(c: char) -> (u8, char) {
        let class = if c.is_alphabetic() {
            2
        } else if c.is_numeric() {
            1
        } else {
            0
        };
        (class, c.to_lowercase().next().unwrap_or(c))
    }
    // What both start with compares equal in every pass: only the rest is
    // compared (file names that differ late, as dated ones do, cost little).
    let same = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let cut = (0..=same)
        .rev()
        .find(|&i| a.is_char_boundary(i))
        .unwrap_or(0);
    let (a, b) = (&a[cut..], &b[cut..]);
    let pa = a.chars().map(primary);
    let pb = b.chars().map(primary);
    pa.cmp(pb)
        .then_with(|| {
            let case = |s: &str| s.chars().map(|c| c.is_uppercase()).collect::<Vec<_>>();
            case(a).cmp(&case(b))
        })
        .then_with(|| a.cmp(b))
}

/// Lexical normalisation like node's `path.resolve` on an absolute path:
/// no `.` parts, `..` taken back, no trailing slash.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() && !p.is_absolute() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(OsStr::new("."));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_stated_by_two_threads_come_in_one_order() {
        let root = tempfile::tempdir().expect("temp dir");
        let sessions = root.path().join("sessions");
        for d in 0..40 {
            let dir = sessions.join(format!("--p{d}--"));
            std::fs::create_dir_all(&dir).expect("project folder");
            for f in 0..3 {
                // Equal times across folders: only the order of finds tells them apart.
                let path = dir.join(format!("s{}.jsonl", f % 2));
                std::fs::write(&path, "{}\n").expect("session file");
                let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000 + f);
                let file = std::fs::File::options()
                    .write(true)
                    .open(&path)
                    .expect("open");
                file.set_modified(t).expect("set time");
            }
        }
        let folder = SessionsFolder {
            dir: sessions,
            layout: Layout::PerProject,
            source: FolderSource::Default,
            cwd: PathBuf::from("/"),
        };
        let alone = candidates(&folder, Scope::All, &mut Vec::new());
        assert_eq!(alone.len(), 80);
        let listing = Listing::of(&folder, Scope::All);
        let founds = std::thread::scope(|s| {
            let other = s.spawn(|| listing.work());
            let mine = listing.work();
            vec![mine, other.join().expect("worker")]
        });
        let shared = listing.finish(founds, &mut Vec::new());
        let paths = |c: &[Candidate]| c.iter().map(|c| c.path.clone()).collect::<Vec<_>>();
        assert_eq!(paths(&shared), paths(&alone));
        // Finds handed in out of order, as two threads may leave them.
        let listing = Listing::of(&folder, Scope::All);
        let Found(all) = listing.work();
        let (even, odd) = all.into_iter().partition(|(at, ..)| at % 2 == 0);
        let shuffled = listing.finish(vec![Found(odd), Found(even)], &mut Vec::new());
        assert_eq!(paths(&shuffled), paths(&alone));
    }

    /// Open file descriptors of this process.
    #[cfg(target_os = "linux")]
    fn open_fds() -> usize {
        std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count)
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn many_project_folders_hold_few_open() {
        let root = tempfile::tempdir().expect("temp dir");
        let sessions = root.path().join("sessions");
        let folders = 4 * FOLDERS_HELD_OPEN;
        for d in 0..folders {
            let dir = sessions.join(format!("--p{d}--"));
            std::fs::create_dir_all(&dir).expect("project folder");
            std::fs::write(dir.join("s.jsonl"), "{}\n").expect("session file");
        }
        let folder = SessionsFolder {
            dir: sessions,
            layout: Layout::PerProject,
            source: FolderSource::Default,
            cwd: PathBuf::from("/"),
        };
        let before = open_fds();
        let listing = Listing::of(&folder, Scope::All);
        let found = listing.work();
        // Listed and stat'ed, not finished yet: the held folders are open.
        // (Other tests open files meanwhile: the margin is theirs.)
        let held = open_fds().saturating_sub(before);
        assert!(held < FOLDERS_HELD_OPEN + folders / 2, "{held} open");
        let all = listing.finish(vec![found], &mut Vec::new());
        assert_eq!(all.len(), folders);
        assert!(all.iter().all(|c| c.meta.is_some_and(|m| m.size == 3)));
    }

    #[test]
    fn folder_name_like_pi() {
        assert_eq!(project_folder_name(Path::new("/home/a/b")), "--home-a-b--");
        assert_eq!(project_folder_name(Path::new("/x:y")), "--x-y--");
    }

    #[test]
    fn mtime_rounds_as_pi_sees_it() {
        let at = |mtime_ns| FileStamp {
            size: 0,
            mtime_ns,
            inode: 0,
            device: 0,
            ctime_ns: 0,
        };
        // Node gives this file's `mtimeMs` as 1796114921312.627 and its
        // `mtime` as 08:48:41.313.
        assert_eq!(at(1_796_114_921_312_626_944).mtime_ms(), 1_796_114_921_313);
        assert_eq!(at(1_796_114_921_312_499_000).mtime_ms(), 1_796_114_921_312);
        assert_eq!(at(5_000_000).mtime_ms(), 5);
    }

    #[test]
    fn locale_order() {
        assert_eq!(locale_cmp("a", "B"), Ordering::Less);
        assert_eq!(locale_cmp("_a", "1"), Ordering::Less);
        assert_eq!(locale_cmp("2025-01", "2025-02"), Ordering::Less);
    }

    /// A start both names share changes no comparison, whatever follows
    /// it: a case, punctuation against letters, characters that differ
    /// only in their last byte, one name the start of the other.
    #[test]
    fn a_shared_start_leaves_the_order_alone() {
        let rests = [
            "", "a", "A", "b", "_", "1", "é", "è", "É", "ab", "aB", "a_", "Ω", "x.jsonl",
        ];
        for start in ["", "2026-01-05T13-49-10_", "é", "Ab-"] {
            for x in rests {
                for y in rests {
                    let (a, b) = (format!("{start}{x}"), format!("{start}{y}"));
                    assert_eq!(locale_cmp(&a, &b), locale_cmp(x, y), "{a:?} against {b:?}");
                }
            }
        }
        assert_eq!(locale_cmp("ab", "aB"), Ordering::Less);
        assert_eq!(locale_cmp("xé", "xè"), locale_cmp("é", "è"));
    }
}
