//! `piscope label`, `rename` and `branch` ask first, as the browser does,
//! when pi may have the session open (it changed within the last minute,
//! or another process holds it open): the reason on stderr, then the
//! question, and without a terminal to ask on they refuse (exit 2) unless
//! given `--yes`, which writes without asking. A quiet file is written
//! without a word.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, SystemTime};

const SESSION: &str = concat!(
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/ada/proj"}"#,
    "\n",
    r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"first","timestamp":1767225601000}}"#,
    "\n",
    r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"one"}],"timestamp":1767225602000,"stopReason":"stop"}}"#,
    "\n",
);

/// A session file in a fresh folder, changed just now.
fn fresh_session() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("s.jsonl");
    std::fs::write(&file, SESSION).expect("write");
    (dir, file)
}

/// The file last changed an hour ago: no pi is writing it.
fn make_quiet(file: &Path) {
    std::fs::File::options()
        .write(true)
        .open(file)
        .expect("open")
        .set_modified(SystemTime::now() - Duration::from_secs(3600))
        .expect("mtime");
}

/// Runs piscope with no terminal on stdin.
fn piscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run piscope")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every append command, on `file`.
fn appends(file: &str) -> [Vec<&str>; 3] {
    [
        vec!["label", file, "a1", "kept"],
        vec!["rename", file, "a name"],
        vec!["branch", file, "u1"],
    ]
}

#[test]
fn a_session_changed_seconds_ago_is_not_written_unasked() {
    let (_dir, file) = fresh_session();
    let path = file.to_str().expect("utf-8 path");
    for args in appends(path) {
        let out = piscope(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("pi may have") && err.contains("it changed"),
            "{args:?}: no warning in {err}"
        );
        assert!(err.contains("--yes"), "{args:?}: {err}");
        assert_eq!(
            std::fs::read_to_string(&file).expect("read"),
            SESSION,
            "{args:?} changed the file"
        );
    }
}

#[test]
fn yes_writes_without_asking() {
    let (_dir, file) = fresh_session();
    let path = file.to_str().expect("utf-8 path");
    let mut lines = SESSION.lines().count();
    for args in appends(path) {
        let mut args = args.clone();
        args.push("--yes");
        let out = piscope(&args);
        let err = stderr(&out);
        assert!(out.status.success(), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
        lines += 1;
        let text = std::fs::read_to_string(&file).expect("read");
        assert_eq!(text.lines().count(), lines, "{args:?}: one line appended");
    }
}

#[test]
fn a_quiet_session_is_written_without_a_word() {
    let (_dir, file) = fresh_session();
    let path = file.to_str().expect("utf-8 path");
    for args in appends(path) {
        make_quiet(&file);
        let out = piscope(&args);
        let err = stderr(&out);
        assert!(out.status.success(), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_session_another_program_holds_open_is_not_written_unasked() {
    let (_dir, file) = fresh_session();
    make_quiet(&file);
    let mut holder = Command::new("sh")
        .arg("-c")
        .arg("exec 3<\"$0\"; sleep 30")
        .arg(&file)
        .spawn()
        .expect("sh");
    // Until the shell has opened the file, nothing tells.
    let fd_open = |pid: u32| {
        std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
            fds.flatten()
                .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|t| t == file))
        })
    };
    let started = std::time::Instant::now();
    while !fd_open(holder.id()) && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let path = file.to_str().expect("utf-8 path");
    let out = piscope(&["label", path, "a1", "kept"]);
    let _ = holder.kill();
    let _ = holder.wait();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("pi may have") && err.contains(&format!("(pid {})", holder.id())),
        "no warning naming the holder in {err}"
    );
    assert_eq!(std::fs::read_to_string(&file).expect("read"), SESSION);
}
