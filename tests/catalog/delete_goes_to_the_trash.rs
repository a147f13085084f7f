//! `piscope rm` moves sessions to the real trash (a temporary
//! `XDG_DATA_HOME`), deletes for good only when told, and refuses anything
//! that is not a pi session inside the sessions folder, symlinks included.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

struct Setup {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    sessions: PathBuf,
    data: PathBuf,
}

fn setup() -> Setup {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().to_path_buf();
    let sessions = root.join("sessions");
    let data = root.join("data");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    std::fs::create_dir_all(&data).expect("mkdir");
    for (from, to) in [
        ("2026-02-01T10-00-00-001Z_plain.jsonl", "a.jsonl"),
        ("2026-02-01T10-00-00-009Z_damaged.jsonl", "b.jsonl"),
        ("2026-02-01T10-00-00-018Z_no-messages.jsonl", "empty.jsonl"),
        ("2026-02-01T10-00-00-006Z_not-a-session.jsonl", "junk.jsonl"),
    ] {
        std::fs::copy(crate::support::catalog_flat(from), sessions.join(to)).expect("copy");
    }
    Setup {
        _tmp: tmp,
        root,
        sessions,
        data,
    }
}

fn rm(s: &Setup, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_piscope"))
        .arg("rm")
        .args(args)
        .arg("--session-dir")
        .arg(&s.sessions)
        .env("XDG_DATA_HOME", &s.data)
        .env("HOME", &s.root)
        .stdin(Stdio::null())
        .output()
        .expect("run piscope")
}

fn trashed(s: &Setup) -> Vec<String> {
    let files = s.data.join("Trash/files");
    let mut names: Vec<String> = std::fs::read_dir(&files)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

#[test]
fn moves_to_the_trash_with_its_info() {
    let s = setup();
    let a = s.sessions.join("a.jsonl");
    let original = std::fs::read(&a).expect("read");
    let out = rm(&s, &[p(&a), "--yes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!a.exists());
    assert_eq!(trashed(&s), ["a.jsonl"]);
    assert_eq!(
        std::fs::read(s.data.join("Trash/files/a.jsonl")).expect("trashed"),
        original
    );
    let info = std::fs::read_to_string(s.data.join("Trash/info/a.jsonl.trashinfo")).expect("info");
    assert!(info.contains(&format!("Path={}", a.display())), "{info}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Parser work"),
        "names the session"
    );
}

#[test]
fn asks_first_and_refuses_without_a_terminal() {
    let s = setup();
    let a = s.sessions.join("a.jsonl");
    let out = rm(&s, &[p(&a)]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--yes"));
    assert!(a.exists());
    assert!(trashed(&s).is_empty());
}

#[test]
fn permanent_deletes_skip_the_trash() {
    let s = setup();
    let b = s.sessions.join("b.jsonl");
    let out = rm(&s, &[p(&b), "--yes", "--permanent"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!b.exists());
    assert!(trashed(&s).is_empty());
}

#[test]
fn refuses_anything_outside_the_folder_or_not_a_session() {
    let s = setup();
    let outside = s.root.join("outside.jsonl");
    std::fs::copy(
        crate::support::catalog_flat("2026-02-01T10-00-00-001Z_plain.jsonl"),
        &outside,
    )
    .expect("copy");
    let link = s.sessions.join("link.jsonl");
    std::os::unix::fs::symlink(&outside, &link).expect("symlink");
    let junk = s.sessions.join("junk.jsonl");
    let sneaky = s.sessions.join("../outside.jsonl");
    for (path, why) in [
        (&outside, "not inside the sessions folder"),
        (&link, "not inside the sessions folder"),
        (&sneaky, "not inside the sessions folder"),
        (&junk, "not a pi session"),
    ] {
        let out = rm(&s, &[p(path), "--yes", "--permanent"]);
        assert!(!out.status.success(), "{}", path.display());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(why),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(outside.exists() && link.exists() && junk.exists());
    assert!(trashed(&s).is_empty());
}

#[test]
fn empty_sessions_go_as_one_batch() {
    let s = setup();
    let out = rm(&s, &["--empty", "--all", "--yes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(trashed(&s), ["empty.jsonl"]);
    assert!(s.sessions.join("a.jsonl").exists() && s.sessions.join("b.jsonl").exists());
}

fn piscope(s: &Setup, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(args)
        .env("XDG_DATA_HOME", &s.data)
        .env("HOME", &s.root)
        .stdin(Stdio::null())
        .output()
        .expect("run piscope")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Another program's `.trashinfo` with a malformed percent-encoding is
/// skipped and named; what piscope trashed still comes back.
#[test]
fn a_foreign_trashinfo_that_does_not_read_is_skipped() {
    let s = setup();
    let a = s.sessions.join("a.jsonl");
    ok(&rm(&s, &[p(&a), "--yes"]));
    let trash = s.data.join("Trash");
    std::fs::write(
        trash.join("info/odd.trashinfo"),
        "[Trash Info]\nPath=/tmp/50%a\u{e9}\nDeletionDate=2026-01-01T00:00:00\n",
    )
    .expect("write");
    std::fs::write(trash.join("files/odd"), "x").expect("write");
    let listed = piscope(&s, &["restore", "--list"]);
    let stderr = ok(&listed);
    assert!(stderr.contains("odd.trashinfo"), "{stderr}");
    assert!(String::from_utf8_lossy(&listed.stdout).contains("a.jsonl"));
    let stderr = ok(&piscope(&s, &["restore", "--last"]));
    assert!(stderr.contains("odd.trashinfo"), "{stderr}");
    assert!(a.exists(), "restored");
    assert!(trash.join("files/odd").exists(), "the foreign item stays");
}

/// A torn journal line (a crash mid-write) costs only itself: the record
/// appended after it starts a line of its own, and every whole record
/// restores.
#[test]
fn a_torn_journal_line_costs_only_itself() {
    let s = setup();
    let a = s.sessions.join("a.jsonl");
    let c = s.sessions.join("c.jsonl");
    std::fs::copy(&a, &c).expect("copy");
    ok(&rm(&s, &[p(&a), "--yes"]));
    let journal = s.data.join("piscope/journal.jsonl");
    let mut bytes = std::fs::read(&journal).expect("journal");
    let whole = bytes.clone();
    bytes.extend_from_slice(&whole[..whole.len() / 2]);
    std::fs::write(&journal, bytes).expect("tear");
    ok(&rm(&s, &[p(&c), "--yes"]));
    let stderr = ok(&piscope(&s, &["restore", "--last"]));
    assert!(
        stderr.contains("journal.jsonl") && stderr.contains("line 2"),
        "{stderr}"
    );
    assert!(c.exists(), "the latest restores");
    ok(&piscope(&s, &["restore", p(&a)]));
    assert!(a.exists(), "the one before the torn line restores");
}
