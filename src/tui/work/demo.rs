//! The demo sessions bundled in the binary (`assets/demo/sessions`), copied
//! into a temporary sessions folder so they can be browsed and edited freely,
//! and the life of that copy: removed on every way out of the browser but a
//! resume into pi (pi opens the file), and swept at a later start once the
//! process that made it is gone.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

/// The start of a copy's folder name in the temp folder. The process id
/// follows (`piscope-demo-<pid>-<random>`): a resumed pi keeps piscope's
/// process id, so a copy is in use exactly while its process lives.
const COPY_PREFIX: &str = "piscope-demo-";
/// Copies named without a process id (`piscope-demo-<random>`, made by
/// earlier versions) count as stale after this long untouched.
const UNNAMED_COPY_STALE_AFTER: Duration = Duration::from_secs(24 * 3600);

/// The copies this process made and has not removed.
static COPIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Whether a [`RemoveCopiesOnExit`] owns the removal (the browser runs).
static GUARDED: AtomicBool = AtomicBool::new(false);

/// A copy of the demo sessions in the temp folder.
#[derive(Debug)]
pub struct DemoCopy {
    dir: PathBuf,
}

impl DemoCopy {
    /// Sweeps stale copies from the temp folder, then makes a new one.
    pub fn create() -> io::Result<DemoCopy> {
        let tmp = std::env::temp_dir();
        sweep_stale_copies(&tmp);
        let dir = tempfile::Builder::new()
            .prefix(&format!("{COPY_PREFIX}{}-", std::process::id()))
            .tempdir_in(&tmp)?
            .keep();
        lock_copies().push(dir.clone());
        // Made first, so a failed write still removes it.
        let copy = DemoCopy { dir };
        write_demo_sessions(&copy.dir)?;
        Ok(copy)
    }

    /// The sessions folder of the copy.
    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for DemoCopy {
    fn drop(&mut self) {
        // While the browser runs, its guard removes the copy on the way out:
        // the worker threads holding this may outlive it, and a resume into
        // pi must find the file.
        if !GUARDED.load(Ordering::SeqCst) {
            remove_copy(&self.dir);
        }
    }
}

/// Removes this process's demo copies when dropped: on quit, on an error,
/// while a panic unwinds, and when pi could not be started. A resume that
/// becomes pi never drops it, so pi's file stays (until a later start finds
/// that pi gone). A process killed outright leaves its copy to that sweep.
#[derive(Debug)]
pub struct RemoveCopiesOnExit(());

impl RemoveCopiesOnExit {
    pub fn new() -> RemoveCopiesOnExit {
        GUARDED.store(true, Ordering::SeqCst);
        RemoveCopiesOnExit(())
    }
}

impl Default for RemoveCopiesOnExit {
    fn default() -> RemoveCopiesOnExit {
        RemoveCopiesOnExit::new()
    }
}

impl Drop for RemoveCopiesOnExit {
    fn drop(&mut self) {
        let copies = std::mem::take(&mut *lock_copies());
        for dir in copies {
            let _ = std::fs::remove_dir_all(&dir);
        }
        GUARDED.store(false, Ordering::SeqCst);
    }
}

fn lock_copies() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A list of paths stays valid whatever panicked while holding it.
    COPIES.lock().unwrap_or_else(|e| e.into_inner())
}

fn remove_copy(dir: &Path) {
    lock_copies().retain(|d| d != dir);
    let _ = std::fs::remove_dir_all(dir);
}

/// Removes the demo copies in `tmp` that nobody uses any more: those whose
/// process has ended, and those of earlier versions (no process id in the
/// name) untouched for a day. Only folders named as copies are looked at;
/// whatever cannot be removed (another user's) is left alone.
pub fn sweep_stale_copies(tmp: &Path) {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(COPY_PREFIX)) else {
            continue;
        };
        // Never through a link: only a real folder is a copy.
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        let stale = match rest.split_once('-') {
            Some((pid, random)) if is_number(pid) && !random.is_empty() => {
                pid.parse::<u32>().is_ok_and(|pid| !process_alive(pid))
            }
            Some(_) => false,
            None => meta
                .modified()
                .ok()
                .and_then(|m| SystemTime::now().duration_since(m).ok())
                .is_some_and(|age| age > UNNAMED_COPY_STALE_AFTER),
        };
        if stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Whether a process with this id exists (ours, or another user's).
#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    // Ids no process can have are left alone, never guessed at.
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    if pid <= 0 {
        return true;
    }
    // SAFETY: signal 0 sends nothing; it only asks whether `pid` exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Without a way to ask, every process counts as alive: nothing is swept.
#[cfg(not(unix))]
fn process_alive(_pid: u32) -> bool {
    true
}

/// Every demo file: its path under the sessions folder, and its bytes.
pub const DEMO_SESSIONS: &[(&str, &[u8])] = &[
    (
        "--home-ada-notes--/2026-01-11T17-39-09-004Z_019bae23-ee4c-715b-95c5-f4e0500bf8c1.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-notes--/2026-01-11T17-39-09-004Z_019bae23-ee4c-715b-95c5-f4e0500bf8c1.jsonl"
        ),
    ),
    (
        "--home-ada-notes--/2026-01-11T17-57-34-170Z_019bae34-cb5a-715b-95c5-f4e28d5e7631.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-notes--/2026-01-11T17-57-34-170Z_019bae34-cb5a-715b-95c5-f4e28d5e7631.jsonl"
        ),
    ),
    (
        "--home-ada-notes--/2026-01-11T18-16-13-962Z_019bae45-e18a-715b-95c5-f4e82ed849e3.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-notes--/2026-01-11T18-16-13-962Z_019bae45-e18a-715b-95c5-f4e82ed849e3.jsonl"
        ),
    ),
    (
        "--home-ada-src-compiler--/2026-01-11T17-57-34-170Z_019bae34-cb5a-715b-95c5-f4e577f37b3f.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-compiler--/2026-01-11T17-57-34-170Z_019bae34-cb5a-715b-95c5-f4e577f37b3f.jsonl"
        ),
    ),
    (
        "--home-ada-src-compiler--/2026-01-11T18-12-39-089Z_019bae42-9a31-715b-95c5-f4e70205176a.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-compiler--/2026-01-11T18-12-39-089Z_019bae42-9a31-715b-95c5-f4e70205176a.jsonl"
        ),
    ),
    (
        "--home-ada-src-web-shop--/2026-01-11T16-51-46-133Z_019badf8-8d55-715b-95c5-f4d8f8b72a16.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-web-shop--/2026-01-11T16-51-46-133Z_019badf8-8d55-715b-95c5-f4d8f8b72a16.jsonl"
        ),
    ),
    (
        "--home-ada-src-web-shop--/2026-01-11T16-56-55-516Z_019badfd-45dc-715b-95c5-f4dad3a6af53.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-web-shop--/2026-01-11T16-56-55-516Z_019badfd-45dc-715b-95c5-f4dad3a6af53.jsonl"
        ),
    ),
    (
        "--home-ada-src-web-shop--/2026-01-11T17-03-56-488Z_019bae03-b248-715b-95c5-f4dd930962a1.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-web-shop--/2026-01-11T17-03-56-488Z_019bae03-b248-715b-95c5-f4dd930962a1.jsonl"
        ),
    ),
    (
        "--srv-work-infra- prod--/2026-01-11T17-21-27-556Z_019bae13-bc04-715b-95c5-f4dfd2fe7521.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--srv-work-infra- prod--/2026-01-11T17-21-27-556Z_019bae13-bc04-715b-95c5-f4dfd2fe7521.jsonl"
        ),
    ),
];

/// Writes the demo sessions into `dir` (pi's per-project layout).
pub fn write_demo_sessions(dir: &Path) -> io::Result<()> {
    for (rel, bytes) in DEMO_SESSIONS {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)?;
        // Fresh copies are not sessions a running pi is writing: dated back,
        // editing them does not ask about a running pi.
        let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&path)?
            .set_modified(an_hour_ago)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_demo_file_is_bundled() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/sessions");
        let mut on_disk = Vec::new();
        for project in std::fs::read_dir(&root).unwrap() {
            let project = project.unwrap();
            for file in std::fs::read_dir(project.path()).unwrap() {
                let file = file.unwrap();
                on_disk.push(format!(
                    "{}/{}",
                    project.file_name().to_string_lossy(),
                    file.file_name().to_string_lossy()
                ));
            }
        }
        on_disk.sort();
        let mut bundled: Vec<String> = DEMO_SESSIONS.iter().map(|(p, _)| p.to_string()).collect();
        bundled.sort();
        assert_eq!(bundled, on_disk);
    }
}
