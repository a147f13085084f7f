//! Whether pi may have a session open: the one rule every writer asks, in
//! the browser and on the command line alike. The signs are a recent write
//! and (on Linux) a process holding the file open; pi opens its file only
//! for each append, so the second sign is rare, and the first is the one
//! that usually tells. A file that shows neither is quiet: clean-up takes
//! only quiet files.

use std::path::Path;
use std::time::{Duration, SystemTime};

/// A file written more recently than this may belong to a running pi.
pub const RECENT: Duration = Duration::from_secs(60);

/// Why pi may have the session open, for a warning; `None` when nothing
/// suggests it.
pub fn pi_may_have_open(path: &Path) -> Option<String> {
    let mut why = Vec::new();
    if let Some(secs) = changed_recently(path, None) {
        why.push(format!("it changed {secs}s ago"));
    }
    // Another piscope is no sign of pi: its writes take turns with ours
    // under the write lock.
    let me = own_name();
    let holders: Vec<String> = processes_holding(path)
        .iter()
        .filter(|(_, name)| me.as_deref() != Some(name.as_str()))
        .map(|(pid, name)| format!("{name} (pid {pid})"))
        .collect();
    if !holders.is_empty() {
        why.push(format!("{} has it open", holders.join(", ")));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// Seconds since the file changed, when that is less than [`RECENT`] and
/// the change is not the one that left the file with the time `own` (a
/// write of our own is no sign of pi).
pub fn changed_recently(path: &Path, own: Option<SystemTime>) -> Option<u64> {
    let (mtime, age) = last_change(path)?;
    if Some(mtime) == own {
        return None;
    }
    (age < RECENT).then_some(age.as_secs())
}

/// The file has not changed for [`RECENT`]; false when it cannot be
/// looked at.
pub fn is_quiet(path: &Path) -> bool {
    last_change(path).is_some_and(|(_, age)| age >= RECENT)
}

/// When the file last changed, and how long ago (none for a time ahead of
/// the clock); `None` when it cannot be looked at.
fn last_change(path: &Path) -> Option<(SystemTime, Duration)> {
    let mtime = std::fs::metadata(path).ok()?.modified().ok()?;
    Some((
        mtime,
        SystemTime::now().duration_since(mtime).unwrap_or_default(),
    ))
}

/// This program's command name as `/proc` gives it (what
/// [`processes_holding`] names a process by); `None` elsewhere.
fn own_name() -> Option<String> {
    std::fs::read_to_string("/proc/self/comm")
        .ok()
        .map(|s| s.trim().to_string())
}

/// Processes (pid, command name) with `path` open, as far as `/proc` tells
/// this user; none elsewhere.
pub fn processes_holding(path: &Path) -> Vec<(u32, String)> {
    let Ok(real) = std::fs::canonicalize(path) else {
        return Vec::new();
    };
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let me = std::process::id();
    let mut out = Vec::new();
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(p.path().join("fd")) else {
            continue;
        };
        let holds = fds
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|t| t == real));
        if holds {
            let name = std::fs::read_to_string(p.path().join("comm"))
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|_| "?".to_string());
            out.push((pid, name));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_process_holding_the_file_is_found() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("s.jsonl");
        std::fs::write(&file, "x\n").expect("write");
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg("exec 3<\"$0\"; sleep 5")
            .arg(&file)
            .spawn()
            .expect("sh");
        let mut found = false;
        for _ in 0..100 {
            if processes_holding(&file)
                .iter()
                .any(|(pid, _)| *pid == child.id())
            {
                found = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
        assert!(found, "the shell holding the file was not found");
        assert!(pi_may_have_open(&file).is_some_and(|w| w.contains("changed")));
    }
}
