//! `archive`, `unarchive` and `clean --archive` on a real flat sessions
//! folder (`--session-dir`) and a real data folder: what a rule picks goes
//! to the archive under its project's folder and comes back byte for byte;
//! nothing outside the sessions folder is taken, nothing in the way is
//! replaced, and a usage mistake is a usage error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

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
    for (from, to) in [
        ("2026-02-01T10-00-00-001Z_plain.jsonl", "plain.jsonl"),
        ("2026-02-01T10-00-00-018Z_no-messages.jsonl", "empty.jsonl"),
    ] {
        let to = sessions.join(to);
        std::fs::copy(crate::support::catalog_flat(from), &to).expect("copy");
        std::fs::File::options()
            .write(true)
            .open(&to)
            .expect("open")
            .set_modified(SystemTime::now() - Duration::from_secs(3600))
            .expect("mtime");
    }
    Setup {
        _tmp: tmp,
        root,
        sessions,
        data,
    }
}

fn piscope(s: &Setup, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(args)
        .arg("--session-dir")
        .arg(&s.sessions)
        .env("XDG_DATA_HOME", &s.data)
        .env("HOME", &s.data)
        .output()
        .expect("run piscope")
}

fn archived(s: &Setup) -> Vec<PathBuf> {
    let root = s.data.join("piscope/archive/sessions");
    let mut out = Vec::new();
    for d in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(d.path()).expect("folder").flatten() {
            out.push(f.path());
        }
    }
    out
}

fn cwd_of(file: &Path) -> String {
    let text = std::fs::read_to_string(file).expect("read");
    let header: serde_json::Value =
        serde_json::from_str(text.lines().next().expect("header")).expect("json");
    header["cwd"].as_str().expect("cwd").to_string()
}

#[test]
fn clean_archive_takes_what_the_rules_pick_and_unarchive_brings_it_back() {
    let s = setup();
    let empty = s.sessions.join("empty.jsonl");
    let bytes = std::fs::read(&empty).expect("read");
    let out = piscope(&s, &["clean", "--empty", "--all", "--archive", "--yes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!empty.exists());
    assert!(
        s.sessions.join("plain.jsonl").exists(),
        "the rule did not pick it"
    );
    let [moved] = archived(&s).try_into().expect("one archived session");
    // In the folder pi gives its project.
    let project = moved.parent().and_then(Path::file_name).expect("project");
    let cwd = cwd_of(&moved);
    let expected = format!(
        "--{}--",
        cwd.trim_start_matches('/').replace(['/', '\\', ':'], "-")
    );
    assert_eq!(project.to_string_lossy(), expected);
    assert_eq!(std::fs::read(&moved).expect("read"), bytes);
    let out = piscope(&s, &["unarchive", "--last"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&empty).expect("back"), bytes);
    assert!(archived(&s).is_empty());
}

#[test]
fn nothing_outside_the_folder_and_nothing_in_the_way() {
    let s = setup();
    // Outside the sessions folder: refused, untouched.
    let outside = s.root.join("outside.jsonl");
    std::fs::copy(
        crate::support::catalog_flat("2026-02-01T10-00-00-001Z_plain.jsonl"),
        &outside,
    )
    .expect("copy");
    let out = piscope(&s, &["archive", &outside.to_string_lossy(), "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not inside the folder") && err.contains("not archived"),
        "{err}"
    );
    assert!(outside.exists() && archived(&s).is_empty());

    // A different file already under the archived name: nothing replaced.
    let plain = s.sessions.join("plain.jsonl");
    let bytes = std::fs::read(&plain).expect("read");
    let project = s.data.join("piscope/archive/sessions").join(format!(
        "--{}--",
        cwd_of(&plain).trim_start_matches('/').replace('/', "-")
    ));
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::write(project.join("plain.jsonl"), "in the way\n").expect("write");
    let out = piscope(&s, &["archive", &plain.to_string_lossy(), "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("a file is there already"), "{err}");
    assert_eq!(std::fs::read(&plain).expect("kept"), bytes);
    assert_eq!(
        std::fs::read(project.join("plain.jsonl")).expect("kept"),
        b"in the way\n"
    );
    std::fs::remove_file(project.join("plain.jsonl")).expect("rm");

    // Archived, then a new file where it lived: unarchive replaces nothing.
    let out = piscope(&s, &["archive", &plain.to_string_lossy(), "--yes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(&plain, "new\n").expect("write");
    let out = piscope(&s, &["unarchive", &plain.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(&plain).expect("kept"), b"new\n");
    assert_eq!(
        std::fs::read(project.join("plain.jsonl")).expect("still archived"),
        bytes
    );

    // --branch is for one session.
    let out = piscope(
        &s,
        &["archive", "a.jsonl", "b.jsonl", "--branch", "x", "--yes"],
    );
    assert_eq!(out.status.code(), Some(2));
}

/// The archive's listing keeps a cache of its own: the sessions folder's
/// cache holds only the sessions folder's files (a warm list counts on
/// that), and each lists what it should.
#[test]
fn the_archive_is_cached_apart_from_the_sessions_folder() {
    let s = setup();
    let plain = s.sessions.join("plain.jsonl");
    let out = piscope(&s, &["archive", plain.to_str().expect("path"), "--yes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let [moved] = archived(&s).try_into().expect("one archived session");
    let listed = |archived: bool| {
        let out = if archived {
            // The archive is piscope's own, whatever the sessions folder.
            Command::new(env!("CARGO_BIN_EXE_piscope"))
                .args(["ls", "--all", "--json", "--archived"])
                .env("XDG_DATA_HOME", &s.data)
                .env("HOME", &s.data)
                .output()
                .expect("run piscope")
        } else {
            piscope(&s, &["ls", "--all", "--json"])
        };
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let name = moved.to_str().expect("path");
    for _ in 0..2 {
        assert!(listed(true).contains(name));
        assert!(!listed(false).contains(name));
    }
    let holds = |file: &Path| {
        let bytes = std::fs::read(file).expect("cache file");
        bytes.windows(name.len()).any(|w| w == name.as_bytes())
    };
    let cache = s.data.join(".cache/piscope");
    assert!(!holds(&cache.join("catalog-summaries.bin")));
    assert!(holds(&cache.join("archive/catalog-summaries.bin")));
}
