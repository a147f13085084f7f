//! Every destructive command (`rm`, `prune`, `clean`, `move-project`) on the
//! same sessions folder: `--dry-run` changes nothing; without `--yes` and
//! without a terminal it refuses (exit 2); a trash that cannot be used
//! fails (exit 1) and changes nothing; `--yes` does it (exit 0), the
//! original in the real trash (a temporary XDG_DATA_HOME). Then `restore`'s
//! exit codes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, SystemTime};

/// A side branch (u2, a2) off the path pi resumes on (u1, a1, u3, a3).
const BRANCHED: &str = concat!(
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/ada/proj"}"#,
    "\n",
    r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"first","timestamp":1767225601000}}"#,
    "\n",
    r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"one"}],"timestamp":1767225602000,"stopReason":"stop"}}"#,
    "\n",
    r#"{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"aside","timestamp":1767225603000}}"#,
    "\n",
    r#"{"type":"message","id":"a2","parentId":"u2","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"two"}],"timestamp":1767225604000,"stopReason":"stop"}}"#,
    "\n",
    r#"{"type":"message","id":"u3","parentId":"a1","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"main","timestamp":1767225605000}}"#,
    "\n",
    r#"{"type":"message","id":"a3","parentId":"u3","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"assistant","content":[{"type":"text","text":"three"}],"timestamp":1767225606000,"stopReason":"stop"}}"#,
    "\n",
);

const EMPTY: &str = "{\"type\":\"session\",\"version\":3,\"id\":\"e1\",\"timestamp\":\"2026-01-02T00:00:00.000Z\",\"cwd\":\"/home/ada/other\"}\n";

struct Setup {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    sessions: PathBuf,
    data: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().to_path_buf();
        let sessions = root.join("sessions");
        std::fs::create_dir_all(&sessions).expect("mkdir");
        for (name, text) in [
            ("s.jsonl", BRANCHED),
            ("empty.jsonl", EMPTY),
            ("notes.jsonl", "not a session\n"),
        ] {
            let f = sessions.join(name);
            std::fs::write(&f, text).expect("write");
            // Quiet for an hour: no pi is writing them.
            std::fs::File::options()
                .write(true)
                .open(&f)
                .expect("open")
                .set_modified(SystemTime::now() - Duration::from_secs(3600))
                .expect("mtime");
        }
        Setup {
            data: root.join("data"),
            _tmp: tmp,
            root,
            sessions,
        }
    }

    fn file(&self, name: &str) -> String {
        self.sessions.join(name).to_string_lossy().into_owned()
    }

    fn run(&self, args: &[String], data: &Path) -> Output {
        Command::new(env!("CARGO_BIN_EXE_piscope"))
            .args(args)
            .env("XDG_DATA_HOME", data)
            .env("HOME", &self.root)
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .output()
            .expect("run piscope")
    }

    /// Every file under the sessions folder (hidden ones too), and its bytes.
    fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
            for e in std::fs::read_dir(dir).expect("dir").flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else {
                    out.insert(p.clone(), std::fs::read(&p).expect("read"));
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.sessions, &mut out);
        out
    }
}

fn says(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// One destructive command, given its arguments and the file it changes.
struct Case {
    name: &'static str,
    args: fn(&Setup) -> Vec<String>,
    /// The session file it takes to the trash (or rewrites).
    target: &'static str,
    /// What the file holds afterwards (`None`: it is gone).
    after: fn(&str) -> Option<bool>,
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "rm",
            args: |s| {
                let dir = s.sessions.to_string_lossy().into_owned();
                strings(&["rm", &s.file("s.jsonl"), "--session-dir", &dir])
            },
            target: "s.jsonl",
            after: |_| None,
        },
        Case {
            name: "prune",
            args: |s| strings(&["prune", &s.file("s.jsonl"), "u2"]),
            target: "s.jsonl",
            after: |text| Some(!text.contains("\"aside\"") && text.contains("\"main\"")),
        },
        Case {
            name: "clean",
            args: |s| {
                let dir = s.sessions.to_string_lossy().into_owned();
                strings(&["clean", "--empty", "--all", "--session-dir", &dir])
            },
            target: "empty.jsonl",
            after: |_| None,
        },
        Case {
            name: "move-project",
            args: |s| {
                let dir = s.sessions.to_string_lossy().into_owned();
                strings(&[
                    "move-project",
                    "/home/ada/proj",
                    "/home/ada/moved",
                    "--session-dir",
                    &dir,
                ])
            },
            target: "s.jsonl",
            after: |text| Some(text.contains("\"cwd\":\"/home/ada/moved\"")),
        },
    ]
}

fn with(args: &[String], more: &[&str]) -> Vec<String> {
    let mut v = args.to_vec();
    v.extend(more.iter().map(|s| s.to_string()));
    v
}

#[test]
fn each_destructive_command_dry_runs_asks_fails_and_does_with_its_exit_status() {
    for case in cases() {
        let s = Setup::new();
        let name = case.name;
        let args = (case.args)(&s);
        let before = s.snapshot();
        let unchanged = |why: &str| {
            assert_eq!(s.snapshot(), before, "{name}: {why} changed a file");
            assert!(
                !s.data.join("Trash").exists(),
                "{name}: {why} used the trash"
            );
        };

        let o = s.run(&with(&args, &["--dry-run"]), &s.data);
        assert_eq!(o.status.code(), Some(0), "{name} --dry-run: {}", says(&o));
        unchanged("--dry-run");
        assert!(
            !s.data.join("piscope/journal.jsonl").exists(),
            "{name}: a dry run journals nothing"
        );

        let o = s.run(&args, &s.data);
        assert_eq!(o.status.code(), Some(2), "{name} unasked: {}", says(&o));
        assert!(says(&o).contains("--yes"), "{name}: {}", says(&o));
        unchanged("asking without a terminal");

        let o = s.run(&with(&args, &["--no-such-option"]), &s.data);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", says(&o));
        unchanged("a usage error");

        // The trash folder cannot be made under a plain file.
        let blocker = s.root.join("blocker");
        std::fs::write(&blocker, "").expect("write");
        let o = s.run(&with(&args, &["--yes"]), &blocker.join("data"));
        assert_eq!(o.status.code(), Some(1), "{name}, no trash: {}", says(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(&s.file(case.target)),
            "{name}: the error names the file: {}",
            says(&o)
        );
        unchanged("a trash that fails");

        let original = before[&s.sessions.join(case.target)].clone();
        let o = s.run(&with(&args, &["--yes"]), &s.data);
        assert_eq!(o.status.code(), Some(0), "{name} --yes: {}", says(&o));
        let target = s.sessions.join(case.target);
        match (case.after)(&std::fs::read_to_string(&target).unwrap_or_default()) {
            None => assert!(!target.exists(), "{name}: the file went"),
            Some(ok) => assert!(ok, "{name}: the file is as it should be"),
        }
        let trashed = s.data.join("Trash/files").join(case.target);
        assert_eq!(
            std::fs::read(&trashed).expect("in the trash"),
            original,
            "{name}: the original is in the trash"
        );
        for (path, bytes) in &before {
            if *path != target {
                assert_eq!(
                    std::fs::read(path).ok().as_ref(),
                    Some(bytes),
                    "{name}: {} untouched",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn restore_says_ok_failure_and_usage_apart() {
    let s = Setup::new();
    let run = |args: &[&str]| s.run(&strings(args), &s.data);
    assert_eq!(run(&["restore", "--list"]).status.code(), Some(0));
    assert_eq!(run(&["restore", "--list", "--json"]).status.code(), Some(0));
    assert_eq!(run(&["restore"]).status.code(), Some(2));
    assert_eq!(run(&["restore", "--json"]).status.code(), Some(2));
    assert_eq!(run(&["restore", "--last", "--list"]).status.code(), Some(2));
    let o = run(&["restore", &s.file("s.jsonl")]);
    assert_eq!(o.status.code(), Some(1), "{}", says(&o));
    assert!(says(&o).contains("s.jsonl"), "{}", says(&o));
}
