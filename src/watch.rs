//! Live reload: one watcher for the sessions folder (or the folder of the
//! one open file), debounced, sending its own [`WatchEvent`]s; polling
//! instead when the system's watcher cannot start or polling was asked for.
//! It knows no front end: events go into any channel whose event type can
//! be made from a [`WatchEvent`].

use notify::{EventKind, RecursiveMode, Watcher as _};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant, SystemTime};

/// A burst of changes is reported once it has been quiet this long ...
const QUIET: Duration = Duration::from_millis(30);
/// ... or once its first change is this old, so a steady stream of appends
/// still shows up (well within the 200 ms a new entry may take).
const MAX_DELAY: Duration = Duration::from_millis(100);
/// How often the folder is looked at when polling.
pub const POLL_EVERY: Duration = Duration::from_millis(500);
/// Folders deeper than this below the root are not polled (pi's layout is
/// one folder per project).
const POLL_DEPTH: usize = 3;

/// What to watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub root: PathBuf,
    /// Sub-folders too (the sessions folder); not for one file's folder.
    pub recursive: bool,
    /// Report only this file (one session opened by name).
    pub only: Option<PathBuf>,
}

impl Target {
    /// The sessions folder and everything below it.
    pub fn folder(root: &Path) -> Target {
        Target {
            root: root.to_path_buf(),
            recursive: true,
            only: None,
        }
    }

    /// One session file: its folder is watched (a watch on the file itself
    /// would be lost when the file is replaced by a rename).
    pub fn file(path: &Path) -> Target {
        let root = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Target {
            root,
            recursive: false,
            only: Some(path.to_path_buf()),
        }
    }

    fn wants(&self, path: &Path) -> bool {
        match &self.only {
            Some(only) => path == only || path.file_name() == only.file_name(),
            None => is_session_file(path),
        }
    }
}

/// How changes are noticed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchMode {
    /// The system tells us (inotify, FSEvents, ...).
    Events,
    /// The folder is looked at every [`POLL_EVERY`]; `reason` says why.
    Polling { reason: String },
}

/// What the watcher reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent {
    /// How changes are noticed (sent once, first).
    Watching(WatchMode),
    /// A session file changed, appeared or disappeared.
    FileChanged(PathBuf),
}

/// A running watcher; dropping it stops it.
pub struct Watch {
    _watcher: Option<notify::RecommendedWatcher>,
    stop: Arc<AtomicBool>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Starts watching `target`, by events unless `poll` is set or the system's
/// watcher fails. Reports the mode as [`WatchEvent::Watching`], then each
/// changed, new or deleted session file as [`WatchEvent::FileChanged`],
/// into `tx` (whose events are made from watch events).
pub fn start<E>(target: Target, poll: bool, tx: Sender<E>) -> Watch
where
    E: From<WatchEvent> + Send + 'static,
{
    let stop = Arc::new(AtomicBool::new(false));
    let (raw_tx, raw_rx) = mpsc::channel::<PathBuf>();
    let watcher = if poll {
        Err("asked for with --poll".to_string())
    } else {
        start_events(&target, raw_tx.clone())
    };
    let (watcher, mode) = match watcher {
        Ok(w) => (Some(w), WatchMode::Events),
        Err(reason) => {
            spawn_poller(target.clone(), raw_tx, stop.clone());
            (None, WatchMode::Polling { reason })
        }
    };
    let _ = tx.send(WatchEvent::Watching(mode).into());
    spawn_debouncer(target, raw_rx, tx, stop.clone());
    Watch {
        _watcher: watcher,
        stop,
    }
}

fn start_events(
    target: &Target,
    raw: Sender<PathBuf>,
) -> Result<notify::RecommendedWatcher, String> {
    let handler = move |res: notify::Result<notify::Event>| {
        let Ok(event) = res else { return };
        // Reads (ours included) are no change; reacting to them would loop.
        if matches!(event.kind, EventKind::Access(_)) {
            return;
        }
        for p in event.paths {
            let _ = raw.send(p);
        }
    };
    let mut w = notify::recommended_watcher(handler).map_err(|e| e.to_string())?;
    let mode = if target.recursive {
        RecursiveMode::Recursive
    } else {
        RecursiveMode::NonRecursive
    };
    w.watch(&target.root, mode)
        .map_err(|e| format!("{}: {e}", target.root.display()))?;
    Ok(w)
}

/// Gathers raw paths into bursts and reports each wanted file once per burst.
fn spawn_debouncer<E>(
    target: Target,
    raw: mpsc::Receiver<PathBuf>,
    tx: Sender<E>,
    stop: Arc<AtomicBool>,
) where
    E: From<WatchEvent> + Send + 'static,
{
    let _ = std::thread::Builder::new()
        .name("piscope-watch".into())
        .spawn(move || {
            while let Ok(first) = raw.recv() {
                let started = Instant::now();
                let mut burst: HashSet<PathBuf> = HashSet::from([first]);
                loop {
                    let left = MAX_DELAY.saturating_sub(started.elapsed());
                    if left.is_zero() {
                        break;
                    }
                    match raw.recv_timeout(QUIET.min(left)) {
                        Ok(p) => {
                            burst.insert(p);
                        }
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                }
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                let mut files: Vec<PathBuf> = Vec::new();
                for p in burst {
                    if target.only.is_none() && p.is_dir() {
                        // A new project folder: its files may have been
                        // written before the watch on it began.
                        files.extend(session_files_in(&p));
                    } else if target.wants(&p) {
                        // The one file under the name the app knows it by.
                        files.push(target.only.clone().unwrap_or(p));
                    }
                }
                files.sort();
                files.dedup();
                for f in files {
                    if tx.send(WatchEvent::FileChanged(f).into()).is_err() {
                        return;
                    }
                }
            }
        });
}

/// Looks at the folder every [`POLL_EVERY`] and reports what changed.
fn spawn_poller(target: Target, raw: Sender<PathBuf>, stop: Arc<AtomicBool>) {
    let _ = std::thread::Builder::new()
        .name("piscope-poll".into())
        .spawn(move || {
            let mut before = snapshot(&target);
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(POLL_EVERY);
                let now = snapshot(&target);
                for (path, stamp) in &now {
                    if before.get(path) != Some(stamp) && raw.send(path.clone()).is_err() {
                        return;
                    }
                }
                for path in before.keys().filter(|p| !now.contains_key(*p)) {
                    if raw.send(path.clone()).is_err() {
                        return;
                    }
                }
                before = now;
            }
        });
}

type Stamp = (u64, Option<SystemTime>);

fn snapshot(target: &Target) -> HashMap<PathBuf, Stamp> {
    let mut out = HashMap::new();
    let stamp = |p: &Path| {
        std::fs::metadata(p)
            .ok()
            .map(|m| (m.len(), m.modified().ok()))
    };
    if let Some(only) = &target.only {
        if let Some(s) = stamp(only) {
            out.insert(only.clone(), s);
        }
        return out;
    }
    let depth = if target.recursive { POLL_DEPTH } else { 0 };
    let mut folders = vec![(target.root.clone(), 0)];
    while let Some((dir, level)) = folders.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in read.flatten() {
            let p = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && level < depth {
                folders.push((p, level + 1));
            } else if is_session_file(&p) {
                if let Some(s) = stamp(&p) {
                    out.insert(p, s);
                }
            }
        }
    }
    out
}

fn session_files_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|read| {
            read.flatten()
                .map(|e| e.path())
                .filter(|p| is_session_file(p))
                .collect()
        })
        .unwrap_or_default()
}

/// A `.jsonl` file that is not one of our own temporary files.
fn is_session_file(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "jsonl")
        && !p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(rx: &mpsc::Receiver<WatchEvent>, want: &Path) -> Duration {
        let start = Instant::now();
        loop {
            match rx.recv_timeout(Duration::from_secs(5)) {
                Ok(WatchEvent::FileChanged(p)) if p == want => return start.elapsed(),
                Ok(_) => {}
                Err(e) => panic!("no change reported for {}: {e}", want.display()),
            }
        }
    }

    fn run(poll: bool) {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("--w--");
        std::fs::create_dir(&project).unwrap();
        let file = project.join("a.jsonl");
        std::fs::write(&file, "{}\n").unwrap();
        let (tx, rx) = mpsc::channel();
        let _w = start(Target::folder(dir.path()), poll, tx);
        match rx.recv_timeout(Duration::from_secs(5)).unwrap() {
            WatchEvent::Watching(WatchMode::Polling { .. }) => assert!(poll),
            WatchEvent::Watching(WatchMode::Events) => assert!(!poll),
            _ => panic!("the mode comes first"),
        }
        // Appends, new files in new folders, deletions.
        std::thread::sleep(Duration::from_millis(50));
        std::fs::write(&file, "{}\n{}\n").unwrap();
        changes(&rx, &file);
        let other = dir.path().join("--v--");
        std::fs::create_dir(&other).unwrap();
        let new = other.join("b.jsonl");
        std::fs::write(&new, "{}\n").unwrap();
        changes(&rx, &new);
        std::fs::remove_file(&file).unwrap();
        changes(&rx, &file);
    }

    #[test]
    fn events_report_appends_new_files_and_deletions() {
        run(false);
    }

    #[test]
    fn polling_reports_the_same() {
        run(true);
    }
}
