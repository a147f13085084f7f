//! The archive on real folders, checked with pi's own code: archived
//! sessions leave pi's list (pi's `listAll()` over the folder) and are
//! listed and searched by `ls --archived`; `unarchive` puts them back byte
//! for byte (on one file system and across two: the data folder on
//! /dev/shm). An archived branch leaves the session and, grafted back, pi
//! reads the session as it was, entry for entry (its tree, the context at
//! every entry, its info), also with entries pi appended meanwhile. A
//! SIGKILL at any moment of an archive across file systems leaves the
//! session whole in one place or both, and a second run finishes it.

use crate::support as common;

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn piscope(data: &Path, agent: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_piscope"));
    c.env("XDG_DATA_HOME", data)
        .env("HOME", data)
        .env("PI_CODING_AGENT_DIR", agent);
    c
}

/// A data folder on another file system than `other` (tmpfs at /dev/shm).
fn data_elsewhere(other: &Path) -> tempfile::TempDir {
    use std::os::unix::fs::MetadataExt;
    let d = tempfile::tempdir_in("/dev/shm")
        .expect("a folder in /dev/shm (a tmpfs, for the move across file systems)");
    let dev = |p: &Path| std::fs::metadata(p).expect("stat").dev();
    assert_ne!(
        dev(d.path()),
        dev(other),
        "/dev/shm must be another file system than the temp folder"
    );
    d
}

fn pi_listed(sessions: &Path) -> BTreeSet<PathBuf> {
    common::oracle(&["list-root", &sessions.to_string_lossy()])
        .as_array()
        .expect("list")
        .iter()
        .map(|s| PathBuf::from(s["path"].as_str().expect("path")))
        .collect()
}

fn archived_at(data: &Path, file: &Path) -> PathBuf {
    let project = file.parent().and_then(Path::file_name).expect("project");
    data.join("piscope/archive/sessions")
        .join(project)
        .join(file.file_name().expect("name"))
}

#[test]
fn archived_sessions_leave_pis_list_and_come_back_byte_for_byte() {
    use std::os::unix::fs::MetadataExt;
    if !common::have_node() {
        return;
    }
    for across in [true, false] {
        let (tmp, sessions) = common::copy_corpus();
        let agent = tmp.path();
        let data = if across {
            data_elsewhere(agent)
        } else {
            tempfile::tempdir().expect("temp dir")
        };
        let data = data.path();
        let all = pi_listed(&sessions);
        let files: Vec<PathBuf> = common::session_files(&sessions.join("--home-ada-notes--"))
            .into_iter()
            .take(2)
            .collect();
        assert_eq!(files.len(), 2);
        let before: Vec<(Vec<u8>, std::fs::Metadata)> = files
            .iter()
            .map(|f| {
                (
                    std::fs::read(f).expect("read"),
                    std::fs::metadata(f).expect("stat"),
                )
            })
            .collect();
        common::run_ok(
            piscope(data, agent)
                .arg("archive")
                .args(&files)
                .arg("--yes"),
        );
        let archived: Vec<PathBuf> = files.iter().map(|f| archived_at(data, f)).collect();
        for ((f, a), (bytes, _)) in files.iter().zip(&archived).zip(&before) {
            assert!(!f.exists(), "{} left pi's folder", f.display());
            assert_eq!(&std::fs::read(a).expect("archived"), bytes);
        }
        // pi lists everything but them; piscope's archive lists them.
        let now = pi_listed(&sessions);
        let expected: BTreeSet<PathBuf> =
            all.iter().filter(|p| !files.contains(p)).cloned().collect();
        assert_eq!(now, expected);
        let listed = common::stdout_ok(piscope(data, agent).args([
            "ls",
            "--archived",
            "--all",
            "--json",
            "--no-cache",
        ]));
        let listed: Vec<Value> = serde_json::from_str(&listed).expect("json");
        let paths: BTreeSet<PathBuf> = listed
            .iter()
            .map(|s| PathBuf::from(s["path"].as_str().expect("path")))
            .collect();
        assert_eq!(paths, archived.iter().cloned().collect());
        // Deep search reaches inside them.
        let word = first_user_word(&before[0].0);
        let hits = common::stdout_ok(piscope(data, agent).args([
            "ls",
            "--archived",
            "--all",
            "--json",
            "--no-cache",
            "--deep",
            "-q",
            &word,
        ]));
        assert!(
            hits.contains(&*archived[0].to_string_lossy()),
            "{word}: {hits}"
        );
        // Back, byte for byte, with their mode and time (and, on one file
        // system, as the very same file).
        common::run_ok(piscope(data, agent).args(["unarchive", "--last"]));
        for (f, (bytes, meta)) in files.iter().zip(&before) {
            let back = std::fs::metadata(f).expect("back");
            assert_eq!(&std::fs::read(f).expect("read"), bytes);
            assert_eq!(back.mode(), meta.mode());
            assert_eq!(back.modified().ok(), meta.modified().ok());
            if !across {
                assert_eq!(back.ino(), meta.ino());
            }
        }
        assert!(archived.iter().all(|a| !a.exists()));
        assert_eq!(pi_listed(&sessions), all);
    }
}

/// A word of the first user message's text.
fn first_user_word(bytes: &[u8]) -> String {
    for line in bytes.split(|&b| b == b'\n') {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if v["message"]["role"] == "user" {
            let text = match &v["message"]["content"] {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| p["text"].as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => continue,
            };
            if let Some(w) = text
                .split_whitespace()
                .find(|w| w.len() > 4 && w.chars().all(char::is_alphanumeric))
            {
                return w.to_string();
            }
        }
    }
    panic!("no user message with a word");
}

fn scene(sessions: &Path) -> (PathBuf, String) {
    let project = sessions.join("--p--");
    std::fs::create_dir_all(&project).expect("mkdir");
    let out = common::stdout_ok(
        common::node(&common::harness("pi-prune-scene.mjs"))
            .arg(&project)
            .arg("/p"),
    );
    let v: Value = serde_json::from_str(&out).expect("scene");
    (
        PathBuf::from(v["file"].as_str().expect("file")),
        v["side"].as_str().expect("side").to_string(),
    )
}

fn archive_branch(data: &Path, agent: &Path, file: &Path, entry: &str) -> PathBuf {
    common::run_ok(
        piscope(data, agent)
            .arg("archive")
            .arg(file)
            .args(["--branch", entry, "--yes"]),
    );
    let listed = common::stdout_ok(piscope(data, agent).args(["unarchive", "--list", "--json"]));
    let v: Value = serde_json::from_str(&listed).expect("json");
    let branches = v["branches"].as_array().expect("branches");
    assert_eq!(branches.len(), 1, "{v}");
    PathBuf::from(branches[0]["file"].as_str().expect("file"))
}

fn ids(reading: &Value) -> BTreeSet<String> {
    reading["tree"]
        .as_array()
        .expect("tree")
        .iter()
        .map(|n| n["id"].as_str().expect("id").to_string())
        .collect()
}

#[test]
fn an_archived_branch_grafted_back_reads_in_pi_as_before() {
    if !common::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let agent = tmp.path().join("agent");
    let sessions = agent.join("sessions");
    let data = tmp.path().join("data");
    let (file, side) = scene(&sessions);
    let original = std::fs::read(&file).expect("read");
    let before = common::pi_reading(&file);

    // Out and back with nothing in between: the same bytes, the same reading.
    let kept = archive_branch(&data, &agent, &file, &side);
    let pruned = common::pi_reading(&file);
    assert!(!ids(&pruned).contains(&side));
    assert!(ids(&pruned).is_subset(&ids(&before)));
    assert_eq!(pruned["leaf"], before["leaf"], "pi resumes where it did");
    common::run_ok(piscope(&data, &agent).arg("unarchive").arg(&kept));
    assert!(!kept.exists());
    assert_eq!(std::fs::read(&file).expect("read"), original);
    assert_eq!(common::pi_reading(&file), before);

    // Out, pi goes on in the session, back: every entry as pi read it
    // before (tree node, children in order, label, context), the new
    // entries after them, pi resuming at the newest.
    let kept = archive_branch(&data, &agent, &file, &side);
    common::run_ok(
        common::node(&common::harness("pi-appender.mjs"))
            .arg("append")
            .arg(&file)
            .arg("2"),
    );
    common::run_ok(piscope(&data, &agent).arg("unarchive").arg(&kept));
    let after = common::pi_reading(&file);
    let text = std::fs::read(&file).expect("read");
    assert!(text.starts_with(&original), "the old lines in their places");
    let new_ids: Vec<String> = ids(&after).difference(&ids(&before)).cloned().collect();
    assert_eq!(new_ids.len(), 2);
    assert!(ids(&before).is_subset(&ids(&after)));
    let nodes = |r: &Value| -> std::collections::BTreeMap<String, Value> {
        r["tree"]
            .as_array()
            .expect("tree")
            .iter()
            .map(|n| (n["id"].as_str().expect("id").to_string(), n.clone()))
            .collect()
    };
    let (old, new) = (nodes(&before), nodes(&after));
    let old_leaf = before["info"]["leafId"].as_str().expect("leaf");
    for (id, n) in &old {
        let mut m = new[id].clone();
        if id == old_leaf {
            // The appended entries hang below the old leaf.
            let children = m["children"].as_array().expect("children").clone();
            m["children"] = Value::Array(
                children
                    .into_iter()
                    .filter(|c| !new_ids.contains(&c.as_str().expect("id").to_string()))
                    .collect(),
            );
        }
        assert_eq!(&m, n, "entry {id}");
        assert_eq!(
            after["contexts"][id], before["contexts"][id],
            "context at {id}"
        );
    }
    let leaf = after["info"]["leafId"].as_str().expect("leaf");
    assert!(new_ids.iter().any(|i| i == leaf));
    assert_eq!(after["info"]["name"], before["info"]["name"]);
    assert_eq!(after["info"]["labels"], before["info"]["labels"]);
}

#[test]
fn a_sigkill_during_an_archive_leaves_the_session_whole() {
    const TRIALS: usize = 6;
    // pi's large session, its entries written out again until the copy
    // across file systems takes most of a run, so that kills land in it.
    let one = std::fs::read(common::pi_mono("large-session.jsonl")).expect("fixture");
    let header_end = one.iter().position(|&b| b == b'\n').expect("a header line") + 1;
    let mut fixture = one.clone();
    for _ in 0..15 {
        fixture.extend_from_slice(&one[header_end..]);
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let shm = data_elsewhere(tmp.path());
    let setup = |name: &str| {
        let agent = tmp.path().join(name);
        let dir = agent.join("sessions/--Users-badlogic-workspaces-pi-mono--");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let file = dir.join("2025-11-20T23-33-50-805Z_d703a1a9.jsonl");
        std::fs::write(&file, &fixture).expect("write");
        let data = shm.path().join(name);
        let archived = archived_at(&data, &file);
        (agent, data, file, archived)
    };
    let archive = |agent: &Path, data: &Path, file: &Path| {
        let mut c = piscope(data, agent);
        c.arg("archive")
            .arg(file)
            .arg("--yes")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        c
    };
    let (agent, data, file, archived) = setup("reference");
    let started = std::time::Instant::now();
    assert!(
        archive(&agent, &data, &file)
            .status()
            .expect("run")
            .success()
    );
    let full_run = started.elapsed();
    assert!(!file.exists());
    assert_eq!(std::fs::read(&archived).expect("archived"), fixture);

    let (mut before, mut after) = (0, 0);
    let mut window = common::KillWindow::new(full_run, 0.125, TRIALS, 0xa7c4_1e55);
    while let Some(trial) = window.next_trial(before, after) {
        let (agent, data, file, archived) = setup(&format!("t{trial}"));
        let mut child = archive(&agent, &data, &file).spawn().expect("spawn");
        std::thread::sleep(window.wait());
        let _ = child.kill();
        let _ = child.wait();
        let old = std::fs::read(&file).ok();
        let new = std::fs::read(&archived).ok();
        assert!(
            old.as_deref().is_none_or(|b| b == fixture),
            "trial {trial}: the session is torn"
        );
        assert!(
            new.as_deref().is_none_or(|b| b == fixture),
            "trial {trial}: the archived copy is torn"
        );
        assert!(
            old.is_some() || new.is_some(),
            "trial {trial}: the session is gone"
        );
        // Nothing but the whole session has a session's name in the archive.
        if let Some(dir) = archived.parent().filter(|d| d.exists()) {
            let named: Vec<PathBuf> = common::session_files(dir);
            assert!(
                named.iter().all(|p| *p == archived),
                "trial {trial}: {named:?}"
            );
        }
        if new.is_none() {
            before += 1;
        } else {
            after += 1;
        }
        // A second run finishes what the killed one began.
        if old.is_some() {
            assert!(
                archive(&agent, &data, &file)
                    .status()
                    .expect("run")
                    .success(),
                "trial {trial}"
            );
        }
        assert!(!file.exists(), "trial {trial}");
        assert_eq!(
            std::fs::read(&archived).expect("archived"),
            fixture,
            "trial {trial}"
        );
        // The copies are large, and /dev/shm is memory.
        let _ = std::fs::remove_dir_all(&data);
        let _ = std::fs::remove_dir_all(&agent);
    }
    eprintln!("{before} before the archived copy, {after} after; a full run takes {full_run:?}");
    assert!(
        before > 0 && after > 0,
        "kills should land before and after the copy"
    );
}
