//! The demo sessions bundled in the binary (`assets/demo/sessions`), copied
//! into a temporary sessions folder so they can be browsed and edited freely
//! (dated back from the moment of the copy, so their ages read like a real
//! history), and the life of that copy: removed on every way out of the browser but a
//! resume into pi (pi opens the file), and swept at a later start once the
//! process that made it is gone.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use crate::jstext::date as jsdate;
use crate::session::line::raw_json::RawObject;

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
    /// Sweeps stale copies from the temp folder, then makes a new one,
    /// dated back from `now_ms`.
    pub fn create(now_ms: i64) -> io::Result<DemoCopy> {
        let tmp = std::env::temp_dir();
        sweep_stale_copies(&tmp);
        let dir = tempfile::Builder::new()
            .prefix(&format!("{COPY_PREFIX}{}-", std::process::id()))
            .tempdir_in(&tmp)?
            .keep();
        lock_copies().push(dir.clone());
        // Made first, so a failed write still removes it.
        let copy = DemoCopy { dir };
        write_demo_sessions(&copy.dir, now_ms)?;
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
/// Written by pi's own session code (`scripts/make-demo-sessions.mjs`).
pub const DEMO_SESSIONS: &[(&str, &[u8])] = &[
    (
        "--home-ada-dotfiles--/2026-01-11T11-03-00-514Z_019bacb9-40a2-70b4-8a8b-eff4513afb84.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-dotfiles--/2026-01-11T11-03-00-514Z_019bacb9-40a2-70b4-8a8b-eff4513afb84.jsonl"
        ),
    ),
    (
        "--home-ada-dotfiles--/2026-01-13T18-40-00-352Z_019bb8a8-5d60-70b4-8a8b-eff65399823a.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-dotfiles--/2026-01-13T18-40-00-352Z_019bb8a8-5d60-70b4-8a8b-eff65399823a.jsonl"
        ),
    ),
    (
        "--home-ada-src-compiler--/2026-01-19T13-02-00-866Z_019bd659-14a2-70b4-8a8b-effb2f1cf33d.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-compiler--/2026-01-19T13-02-00-866Z_019bd659-14a2-70b4-8a8b-effb2f1cf33d.jsonl"
        ),
    ),
    (
        "--home-ada-src-compiler--/2026-01-24T10-31-00-461Z_019bef8e-a06d-70b4-8a8b-effd2b3ab44b.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-compiler--/2026-01-24T10-31-00-461Z_019bef8e-a06d-70b4-8a8b-effd2b3ab44b.jsonl"
        ),
    ),
    (
        "--home-ada-src-web-shop--/2026-01-05T09-12-00-000Z_019b8d6d-7700-70b4-8a8b-efef1c0672c4.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-web-shop--/2026-01-05T09-12-00-000Z_019b8d6d-7700-70b4-8a8b-efef1c0672c4.jsonl"
        ),
    ),
    (
        "--home-ada-src-web-shop--/2026-01-08T14-05-00-757Z_019b9dec-cdd5-70b4-8a8b-eff04a0f6f3a.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-web-shop--/2026-01-08T14-05-00-757Z_019b9dec-cdd5-70b4-8a8b-eff04a0f6f3a.jsonl"
        ),
    ),
    (
        "--home-ada-src-web-shop--/2026-01-09T08-47-00-676Z_019ba1f0-0644-70b4-8a8b-eff2e817884c.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-web-shop--/2026-01-09T08-47-00-676Z_019ba1f0-0644-70b4-8a8b-eff2e817884c.jsonl"
        ),
    ),
    (
        "--home-ada-src-web-shop--/2026-01-15T16-20-00-190Z_019bc274-e83e-70b4-8a8b-eff8039385bf.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-web-shop--/2026-01-15T16-20-00-190Z_019bc274-e83e-70b4-8a8b-eff8039385bf.jsonl"
        ),
    ),
];

/// Where the demo's forks say their parent lives (`parentSession`): the
/// sessions folder of the machine the demo comes from. A copy points them
/// at the copied parent instead.
pub const DEMO_SESSIONS_HOME: &str = "/home/ada/.pi/agent/sessions/";

/// How long before the copy the newest demo entry was written: the history
/// ends minutes ago, the rest keeps its spacing (about three weeks).
const NEWEST_AGE_MS: i64 = 7 * 60 * 1000;

/// Writes the demo sessions into `dir` (pi's per-project layout), dated so
/// the newest entry is minutes before `now_ms`: every time in a file (the
/// header's, each entry's, each message's) moves by the same amount, the
/// files are named after their new header time as pi names them, and each
/// file's modification time is its last entry's. Returns the files written,
/// in [`DEMO_SESSIONS`] order.
pub fn write_demo_sessions(dir: &Path, now_ms: i64) -> io::Result<Vec<PathBuf>> {
    let newest = DEMO_SESSIONS
        .iter()
        .filter_map(|(_, bytes)| times(bytes).max())
        .max()
        .unwrap_or(now_ms);
    let shift = now_ms - NEWEST_AGE_MS - newest;
    // Every file's new name first: forks point at their parent by path.
    let renamed: Vec<(&str, String)> = DEMO_SESSIONS
        .iter()
        .map(|(rel, bytes)| (*rel, shifted_name(rel, bytes, shift)))
        .collect();
    let mut written = Vec::with_capacity(DEMO_SESSIONS.len());
    for ((_, bytes), (_, rel)) in DEMO_SESSIONS.iter().zip(&renamed) {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let text = String::from_utf8_lossy(bytes);
        let mut out = String::with_capacity(text.len());
        for line in text.lines() {
            out.push_str(&shifted_line(line, shift, dir, &renamed));
            out.push('\n');
        }
        std::fs::write(&path, out)?;
        // The file changed when its last entry was written. Dated back by
        // minutes, editing a copy does not ask about a running pi.
        let last = times(bytes)
            .max()
            .map_or(now_ms - NEWEST_AGE_MS, |t| t + shift);
        let modified = std::time::UNIX_EPOCH
            + std::time::Duration::from_millis(u64::try_from(last).unwrap_or(0));
        std::fs::File::options()
            .write(true)
            .open(&path)?
            .set_modified(modified)?;
        written.push(path);
    }
    Ok(written)
}

/// Every time a demo file holds, in ms: the header's and each entry's
/// `timestamp`, and each message's.
fn times(bytes: &[u8]) -> impl Iterator<Item = i64> + '_ {
    std::str::from_utf8(bytes)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| RawObject::parse(line).ok())
        .flat_map(|o| {
            let own = o.get_str("timestamp").and_then(|t| jsdate::parse_ms(&t));
            let message = o
                .get("message")
                .and_then(|m| RawObject::parse(m.get()).ok())
                .and_then(|m| m.get("timestamp").and_then(|t| t.get().parse::<i64>().ok()));
            [own, message]
        })
        .flatten()
}

/// `project/<header time>_<id>.jsonl` with the header time moved by `shift`.
fn shifted_name(rel: &str, bytes: &[u8], shift: i64) -> String {
    let header = std::str::from_utf8(bytes)
        .unwrap_or_default()
        .lines()
        .next()
        .and_then(|l| RawObject::parse(l).ok())
        .and_then(|o| o.get_str("timestamp"))
        .and_then(|t| jsdate::parse_ms(&t));
    let (Some(ms), Some((folder, name))) = (header, rel.split_once('/')) else {
        return rel.to_string();
    };
    let Some((_, tail)) = name.split_once('_') else {
        return rel.to_string();
    };
    let stamp = jsdate::format_iso(ms + shift).replace([':', '.'], "-");
    format!("{folder}/{stamp}_{tail}")
}

/// One line with its times moved by `shift` and a fork's parent pointed at
/// the copy; every other value keeps its exact text.
fn shifted_line(line: &str, shift: i64, dir: &Path, renamed: &[(&str, String)]) -> String {
    let Ok(mut o) = RawObject::parse(line) else {
        return line.to_string();
    };
    if let Some(ms) = o.get_str("timestamp").and_then(|t| jsdate::parse_ms(&t)) {
        o.set("timestamp", jsdate::format_iso(ms + shift).as_str());
    }
    if let Some(mut m) = o
        .get("message")
        .and_then(|m| RawObject::parse(m.get()).ok())
    {
        if let Some(ms) = m.get("timestamp").and_then(|t| t.get().parse::<i64>().ok()) {
            m.set("timestamp", &(ms + shift));
            o.set_json("message", m.to_json());
        }
    }
    let parent = o
        .get_str("parentSession")
        .and_then(|p| p.strip_prefix(DEMO_SESSIONS_HOME).map(str::to_string));
    if let Some(old) = parent {
        if let Some((_, new)) = renamed.iter().find(|(rel, _)| *rel == old) {
            o.set("parentSession", &dir.join(new));
        }
    }
    o.to_json()
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
