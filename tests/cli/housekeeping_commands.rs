//! `clean`, `restore`, `move-project` and the command line's basics on
//! pi-written sessions, with the real trash (a temporary XDG_DATA_HOME) and
//! pi's own code: what clean picks against pi's session list, and for
//! move-project pi's list under the new folder and its reading of every
//! moved session (tree, context at every entry) unchanged.

use crate::support as common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, SystemTime};

struct Setup {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    sessions: PathBuf,
    data: PathBuf,
}

fn age(path: &Path, by: Duration) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open")
        .set_modified(SystemTime::now() - by)
        .expect("mtime");
}

/// A flat sessions folder: a plain session, one without messages, and one
/// just written (within the quiet minute).
fn setup() -> Setup {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().to_path_buf();
    let sessions = root.join("sessions");
    let data = root.join("data");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    std::fs::create_dir_all(&data).expect("mkdir");
    for (from, to) in [
        ("2026-02-01T10-00-00-001Z_plain.jsonl", "plain.jsonl"),
        ("2026-02-01T10-00-00-018Z_no-messages.jsonl", "empty.jsonl"),
        ("2026-02-01T10-00-00-018Z_no-messages.jsonl", "fresh.jsonl"),
    ] {
        std::fs::copy(crate::support::catalog_flat(from), sessions.join(to)).expect("copy");
    }
    age(&sessions.join("plain.jsonl"), Duration::from_secs(3600));
    age(&sessions.join("empty.jsonl"), Duration::from_secs(3600));
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
        .env("XDG_DATA_HOME", &s.data)
        .env("HOME", &s.root)
        .env_remove("PI_CODING_AGENT_DIR")
        .current_dir(&s.root)
        .stdin(Stdio::null())
        .output()
        .expect("run piscope")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn clean_lists_asks_and_trashes_only_what_every_rule_picks() {
    let s = setup();
    let dir = s.sessions.to_string_lossy().to_string();
    let base = ["clean", "--all", "--session-dir", &dir];
    // No rule: a usage error.
    let o = piscope(&s, &base);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    // The dry run: the empty session, not the fresh one (changed within the
    // minute), not the plain one.
    let o = piscope(
        &s,
        &[&base[..], &["--empty", "--dry-run", "--json"]].concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let list: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let list = list.as_array().expect("list");
    assert_eq!(list.len(), 1, "{list:?}");
    assert!(
        list[0]["path"]
            .as_str()
            .expect("path")
            .ends_with("empty.jsonl")
    );
    assert_eq!(list[0]["why"][0], "no user message");
    let o = piscope(&s, &[&base[..], &["--empty", "--dry-run"]].concat());
    assert!(text(&o).contains("no user message") && text(&o).contains("1 session(s)"));
    // Rules combine: empty and larger than a megabyte picks nothing.
    let o = piscope(
        &s,
        &[
            &base[..],
            &["--empty", "--larger-than", "1M", "--dry-run", "--json"],
        ]
        .concat(),
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "[]");
    // Without --yes and without a terminal: refused, exit 2, nothing moved.
    let o = piscope(&s, &[&base[..], &["--empty"]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--yes"));
    assert!(s.sessions.join("empty.jsonl").exists());
    let o = piscope(&s, &[&base[..], &["--empty", "--yes"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    assert!(!s.sessions.join("empty.jsonl").exists());
    assert!(s.sessions.join("fresh.jsonl").exists() && s.sessions.join("plain.jsonl").exists());
    assert!(s.data.join("Trash/files/empty.jsonl").exists());

    // The journal knows it; restore puts it back, once.
    let o = piscope(&s, &["restore", "--list", "--json"]);
    let list: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(list[0]["reason"], "clean");
    assert!(
        list[0]["path"]
            .as_str()
            .expect("path")
            .ends_with("empty.jsonl")
    );
    assert!(s.data.join("piscope/journal.jsonl").is_file());
    let o = piscope(&s, &["restore", "--last"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(s.sessions.join("empty.jsonl").exists());
    assert!(!s.data.join("Trash/files/empty.jsonl").exists());
    let o = piscope(&s, &["restore", "--list"]);
    assert!(
        text(&o).contains("nothing piscope trashed is in the trash"),
        "{}",
        text(&o)
    );
}

/// On pi-written sessions (the golden corpus, pi's layout), plus one pi
/// lists as "(no messages)": `clean --older-than` picks exactly the ones
/// pi's own list says were last active before then, `--empty` exactly the
/// ones pi lists without a message, and rules combine.
#[test]
fn clean_picks_what_pis_own_list_says() {
    if !common::have_node() {
        return;
    }
    let (tmp, root) = common::copy_corpus();
    let empty = root.join("--home-ada-notes--/2026-01-10T00-00-00-000Z_empty.jsonl");
    std::fs::write(
        &empty,
        "{\"type\":\"session\",\"version\":3,\"id\":\"empty-1\",\"timestamp\":\"2026-01-10T00:00:00.000Z\",\"cwd\":\"/home/ada/notes\"}\n",
    )
    .expect("write");
    let mut files = Vec::new();
    for project in std::fs::read_dir(&root).expect("root").flatten() {
        for f in std::fs::read_dir(project.path())
            .expect("project")
            .flatten()
        {
            age(&f.path(), Duration::from_secs(3600));
            files.push(f.path());
        }
    }
    let listed = common::oracle(&["list-root", &root.to_string_lossy()]);
    let listed = listed.as_array().expect("list");
    assert_eq!(listed.len(), files.len(), "pi lists every file");
    let modified = |s: &serde_json::Value| {
        piscope::jstext::date::parse_ms(s["modified"].as_str().expect("modified")).expect("a date")
    };
    // A moment in the widest gap between two sessions' last activity.
    let mut times: Vec<i64> = listed.iter().map(modified).collect();
    times.sort();
    let (gap, at) = times
        .windows(2)
        .map(|w| (w[1] - w[0], w[0] + (w[1] - w[0]) / 2))
        .max()
        .expect("sessions");
    assert!(gap > 120_000, "a gap of minutes between sessions");
    let secs = (piscope::jstext::date::now_ms() - at) / 1000;
    let pick = |rules: &[&str]| -> std::collections::BTreeSet<String> {
        let o = Command::new(env!("CARGO_BIN_EXE_piscope"))
            .arg("clean")
            .args(rules)
            .args(["--all", "--dry-run", "--json"])
            .env("PI_CODING_AGENT_DIR", tmp.path())
            .env("HOME", tmp.path())
            .env("XDG_DATA_HOME", tmp.path().join("data"))
            .current_dir(tmp.path())
            .output()
            .expect("clean");
        assert!(o.status.success(), "{}", text(&o));
        let list: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        list.as_array()
            .expect("list")
            .iter()
            .map(|p| p["path"].as_str().expect("path").to_string())
            .collect()
    };
    let pis = |keep: &dyn Fn(&serde_json::Value) -> bool| -> std::collections::BTreeSet<String> {
        listed
            .iter()
            .filter(|s| keep(s))
            .map(|s| s["path"].as_str().expect("path").to_string())
            .collect()
    };
    let older = format!("{secs}s");
    let old = pis(&|s| modified(s) < at);
    assert!(!old.is_empty() && old.len() < files.len(), "{old:?}");
    assert_eq!(pick(&["--older-than", &older]), old);
    let no_messages = pis(&|s| s["firstMessage"] == "(no messages)");
    assert_eq!(no_messages.len(), 1);
    assert_eq!(pick(&["--empty"]), no_messages);
    // Both: the empty one is older than the moment too.
    assert_eq!(pick(&["--empty", "--older-than", &older]), no_messages);
    let big = 40 * 1024;
    let large = pis(&|s| {
        std::fs::metadata(s["path"].as_str().expect("path"))
            .expect("size")
            .len()
            > big
    });
    let both: std::collections::BTreeSet<String> = large.intersection(&old).cloned().collect();
    assert!(!large.is_empty(), "some session is over 40 KB");
    assert_eq!(
        pick(&["--older-than", &older, "--larger-than", "40K"]),
        both
    );
    assert!(files.iter().all(|f| f.exists()), "a dry run keeps all");
}

#[test]
fn restore_never_replaces_a_file_that_is_there_now() {
    let s = setup();
    let dir = s.sessions.to_string_lossy().to_string();
    let plain = s.sessions.join("plain.jsonl");
    let original = std::fs::read(&plain).expect("read");
    let o = piscope(
        &s,
        &[
            "rm",
            &plain.to_string_lossy(),
            "--yes",
            "--session-dir",
            &dir,
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(!plain.exists());
    // Something new took the name meanwhile.
    std::fs::write(&plain, "new\n").expect("write");
    let o = piscope(&s, &["restore", &plain.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("a file is there now"), "{}", text(&o));
    assert_eq!(std::fs::read(&plain).expect("read"), b"new\n");
    std::fs::remove_file(&plain).expect("rm");
    let o = piscope(&s, &["restore", &plain.to_string_lossy()]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(std::fs::read(&plain).expect("read"), original);
    // Nothing left to restore: says so, fails.
    let o = piscope(&s, &["restore", &plain.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    // No argument at all: a usage error.
    assert_eq!(piscope(&s, &["restore"]).status.code(), Some(2));
}

#[test]
fn move_project_makes_pi_list_the_sessions_under_the_new_folder() {
    if !common::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let agent = tmp.path().join("agent");
    let root = agent.join("sessions");
    let old = tmp.path().join("old/proj");
    let new = tmp.path().join("new/proj");
    std::fs::create_dir_all(&new).expect("mkdir");
    let old_dir = root.join(format!(
        "--{}--",
        old.to_string_lossy()
            .trim_start_matches('/')
            .replace('/', "-")
    ));
    let first = common::pi_create(&old_dir, &old.to_string_lossy());
    let sub = common::pi_create(&old_dir, &old.join("sub").to_string_lossy());
    // A fork of the first (its header names the first's file).
    let out = common::node(&common::harness("pi-appender.mjs"))
        .arg("fork")
        .arg(&first)
        .arg(
            common::oracle(&["info", &first.to_string_lossy()])["leafId"]
                .as_str()
                .expect("leaf"),
        )
        .output()
        .expect("fork");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fork = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    // A sibling folder whose name starts the same stays where it is.
    let sibling = common::pi_create(
        &root.join("--elsewhere--"),
        &tmp.path().join("old/project").to_string_lossy(),
    );
    let data = tmp.path().join("data");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_piscope"))
            .arg("move-project")
            .arg(&old)
            .arg(&new)
            .args(extra)
            .env("PI_CODING_AGENT_DIR", &agent)
            .env("XDG_DATA_HOME", &data)
            .env("HOME", tmp.path())
            .stdin(Stdio::null())
            .output()
            .expect("move-project")
    };
    let before = std::fs::read(&first).expect("read");
    let read_before: Vec<serde_json::Value> = [&first, &sub, &fork]
        .iter()
        .map(|f| common::pi_reading(f))
        .collect();
    assert!(
        read_before.iter().all(|r| r["leaf"]["messages"]
            .as_array()
            .is_some_and(|m| m.len() >= 2)),
        "pi reads messages in each: {read_before:?}"
    );
    let dry = run(&["--dry-run"]);
    assert!(dry.status.success(), "{}", text(&dry));
    assert!(text(&dry).contains("Move 3 session(s)"), "{}", text(&dry));
    assert_eq!(
        std::fs::read(&first).expect("read"),
        before,
        "a dry run changes nothing"
    );
    assert_eq!(run(&[]).status.code(), Some(2), "no terminal, no --yes");
    let done = run(&["--yes"]);
    assert!(done.status.success(), "{}", text(&done));

    let listed = common::oracle(&["list-root", &root.to_string_lossy()]);
    let mut cwds: Vec<(String, String)> = listed
        .as_array()
        .expect("list")
        .iter()
        .map(|s| {
            (
                s["cwd"].as_str().expect("cwd").to_string(),
                s["path"].as_str().expect("path").to_string(),
            )
        })
        .collect();
    cwds.sort();
    let new_dir = root.join(format!(
        "--{}--",
        new.to_string_lossy()
            .trim_start_matches('/')
            .replace('/', "-")
    ));
    let sub_dir = root.join(format!(
        "--{}--",
        new.join("sub")
            .to_string_lossy()
            .trim_start_matches('/')
            .replace('/', "-")
    ));
    let name = |p: &Path| p.file_name().expect("name").to_string_lossy().to_string();
    let expect = |cwd: &Path, dir: &Path, f: &Path| {
        (
            cwd.to_string_lossy().to_string(),
            dir.join(name(f)).to_string_lossy().to_string(),
        )
    };
    let mut wanted = vec![
        expect(&new, &new_dir, &first),
        expect(&new, &new_dir, &fork),
        expect(&new.join("sub"), &sub_dir, &sub),
        (
            common::oracle(&["info", &sibling.to_string_lossy()])["header"]["cwd"]
                .as_str()
                .expect("cwd")
                .to_string(),
            sibling.to_string_lossy().to_string(),
        ),
    ];
    wanted.sort();
    assert_eq!(cwds, wanted, "pi lists the sessions under NEW");
    // The fork names its parent where the parent went.
    let fork_info = common::oracle(&["info", &new_dir.join(name(&fork)).to_string_lossy()]);
    assert_eq!(
        fork_info["header"]["parentSession"],
        new_dir.join(name(&first)).to_string_lossy().as_ref()
    );
    // pi reads every moved session as before: the same tree, the same
    // context at every entry and at the leaf, the same info but the header.
    let read_after: Vec<serde_json::Value> = [
        new_dir.join(name(&first)),
        sub_dir.join(name(&sub)),
        new_dir.join(name(&fork)),
    ]
    .iter()
    .map(|f| common::pi_reading(f))
    .collect();
    assert_eq!(
        read_after, read_before,
        "pi reads the moved sessions as before"
    );
    // Every other byte as it was; the originals in the trash.
    let moved = std::fs::read(new_dir.join(name(&first))).expect("read");
    let tail = |b: &[u8]| b[b.iter().position(|&c| c == b'\n').expect("line")..].to_vec();
    assert_eq!(tail(&moved), tail(&before));
    assert!(!first.exists() && !sub.exists() && !fork.exists());
    assert_eq!(
        std::fs::read(data.join("Trash/files").join(name(&first))).expect("trashed"),
        before
    );
}

#[test]
fn version_completions_and_man_page() {
    let s = setup();
    let o = piscope(&s, &["--version"]);
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        format!(
            "piscope {} (follows pi {})",
            env!("CARGO_PKG_VERSION"),
            piscope::session::PI_VERSION
        )
    );
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = piscope(&s, &["completions", shell]);
        assert!(o.status.success(), "{shell}");
        let script = String::from_utf8_lossy(&o.stdout);
        assert!(
            script.contains("move-project") && script.contains("prune"),
            "{shell}"
        );
    }
    assert_eq!(piscope(&s, &["completions", "tcsh"]).status.code(), Some(2));
    let o = piscope(&s, &["man"]);
    assert!(o.status.success());
    let man = String::from_utf8_lossy(&o.stdout);
    assert!(
        man.starts_with(".ie") || man.contains(".TH piscope"),
        "{}",
        &man[..200.min(man.len())]
    );
    assert!(man.contains("restore"));
}

/// Every malformed date, time zone, period or size is a usage error: exit
/// 2, before anything is read, with a first line naming the argument.
/// Well-formed values of the same arguments still run.
#[test]
fn malformed_arguments_are_usage_errors() {
    let s = setup();
    let dir = s.sessions.to_string_lossy().to_string();
    let cases: &[(&[&str], &str, &[&str])] = &[
        (
            &["stats"],
            "--since",
            &[
                "2026-02-30",
                "2026-13-01",
                "2026-00-10",
                "2026-1-1",
                "yesterday",
                "",
                "202\u{e9}--01-0",
                "99999999",
            ],
        ),
        (
            &["stats"],
            "--until",
            &["2025-02-29", "2026/01/01", "2026-01-32"],
        ),
        (
            &["stats"],
            "--tz",
            &["+05:30", "Mars/Olympus", "", "../../etc/passwd", "UTC+1"],
        ),
        (
            &["clean", "--dry-run"],
            "--older-than",
            &["30", "d", "-1d", "30x", "1.5d", "99999999999999999999d"],
        ),
        (
            &["clean", "--dry-run"],
            "--larger-than",
            &["M", "-1", "10X", "1.5M", "99999999999T"],
        ),
    ];
    for (command, flag, values) in cases {
        for value in *values {
            // `--flag=value`: a value that starts with `-` is still its value.
            let given = format!("{flag}={value}");
            let mut args: Vec<&str> = command.to_vec();
            args.extend(["--session-dir", &dir, &given]);
            let o = piscope(&s, &args);
            let err = String::from_utf8_lossy(&o.stderr).into_owned();
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
            let first = err.lines().next().unwrap_or_default();
            assert!(first.contains(flag), "{args:?}: {err}");
        }
    }
    for args in [
        &[
            "stats",
            "--since",
            "2024-02-29",
            "--until",
            "20261231",
            "--tz",
            "Asia/Kolkata",
        ][..],
        &["stats", "--tz", "local"],
        &[
            "clean",
            "--dry-run",
            "--older-than",
            "30d",
            "--larger-than",
            "1M",
        ],
    ] {
        let mut args = args.to_vec();
        args.extend(["--session-dir", &dir]);
        let o = piscope(&s, &args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o));
    }
}

/// Every trashed name under the test's trash (none when it was never made).
fn trash_names(data: &Path) -> Vec<String> {
    std::fs::read_dir(data.join("Trash/files"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn move_project_refuses_a_session_that_is_a_symlink_out_of_the_sessions_folder() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(tmp.path()).expect("resolve");
    let agent = root.join("agent");
    let project = agent.join("sessions/--home-ada-old--");
    let outside = root.join("outside");
    let data = root.join("data");
    for d in [&project, &outside, &data] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    let text = std::fs::read_to_string(crate::support::catalog_flat(
        "2026-02-01T10-00-00-001Z_plain.jsonl",
    ))
    .expect("read")
    .replace("/home/ada/flat", "/home/ada/old");
    let target = outside.join("s.jsonl");
    std::fs::write(&target, &text).expect("write");
    age(&target, Duration::from_secs(3600));
    let link = project.join("s.jsonl");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    let o = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(["move-project", "/home/ada/old", "/home/ada/new", "--yes"])
        .env("PI_CODING_AGENT_DIR", &agent)
        .env("XDG_DATA_HOME", &data)
        .env("HOME", &root)
        .current_dir(&root)
        .stdin(Stdio::null())
        .output()
        .expect("move-project");
    assert_eq!(o.status.code(), Some(1), "{}", self::text(&o));
    assert!(
        self::text(&o).contains("outside the sessions folder"),
        "{}",
        self::text(&o)
    );
    assert_eq!(
        std::fs::read_to_string(&target).expect("the target is kept"),
        text
    );
    assert_eq!(std::fs::read_link(&link).expect("still a link"), target);
    assert!(trash_names(&data).is_empty(), "{:?}", trash_names(&data));
    assert!(!agent.join("sessions/--home-ada-new--/s.jsonl").exists());
}

#[test]
fn prune_refuses_a_session_that_is_a_symlink_leading_out_of_its_folder() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(tmp.path()).expect("resolve");
    let (folder, outside, data) = (
        root.join("sessions"),
        root.join("outside"),
        root.join("data"),
    );
    for d in [&folder, &outside, &data] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    let line = |id: &str, parent: &str, role: &str| {
        format!(
            "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{parent},\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{{\"role\":\"{role}\",\"content\":\"{id}\",\"timestamp\":1767225600000}}}}\n"
        )
    };
    let text = [
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n".to_string(),
        line("u1", "null", "user"),
        line("a1", "\"u1\"", "assistant"),
        line("u2", "\"u1\"", "user"),
        line("u3", "\"a1\"", "user"),
    ]
    .concat();
    let target = outside.join("s.jsonl");
    std::fs::write(&target, &text).expect("write");
    let link = folder.join("s.jsonl");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    let o = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .arg("prune")
        .arg(&link)
        .args(["u2", "--yes"])
        .env("XDG_DATA_HOME", &data)
        .env("HOME", &root)
        .env_remove("PI_CODING_AGENT_DIR")
        .current_dir(&root)
        .stdin(Stdio::null())
        .output()
        .expect("prune");
    assert_eq!(o.status.code(), Some(1), "{}", self::text(&o));
    assert!(
        self::text(&o).contains("outside the sessions folder"),
        "{}",
        self::text(&o)
    );
    assert_eq!(std::fs::read_to_string(&target).expect("kept"), text);
    assert_eq!(std::fs::read_link(&link).expect("still a link"), target);
    assert!(trash_names(&data).is_empty(), "{:?}", trash_names(&data));
}
