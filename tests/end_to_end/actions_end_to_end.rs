//! Every editing action of the browser in a real terminal (tmux), on real
//! files: resume with a stub `pi` that records how it was started, label /
//! rename / branch read back by pi's own code, delete into a real trash, copy
//! through the terminal, and live reload while pi's SessionManager appends.

use crate::support as common;
use crate::support::age;
use crate::support::tmux;

use piscope::session::Session;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tmux::{EXIT_MARK, Tmux, have_tmux};

const SIZE: (u16, u16) = (150, 40);

fn home() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("piscope-e2e-")
        .tempdir()
        .expect("temp home")
}

/// A session pi's own SessionManager wrote: "question N" / "answer N"
/// messages, `extra` more after the first two.
fn pi_session(dir: &Path, cwd: &str, extra: usize) -> PathBuf {
    std::fs::create_dir_all(dir).expect("folder");
    let file = common::pi_create(dir, cwd);
    if extra > 0 {
        append_with_pi(&file, extra, 0);
    }
    age(&file);
    file
}

fn append_with_pi(file: &Path, n: usize, pause_ms: u64) {
    let appender = common::harness("pi-appender.mjs");
    let out = common::node(&appender)
        .args([
            "append",
            &file.to_string_lossy(),
            &n.to_string(),
            &pause_ms.to_string(),
        ])
        .output()
        .expect("append with pi");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The id of the entry whose line holds `text`.
fn id_of(file: &Path, text: &str) -> String {
    let s = Session::open(file).expect("a session");
    for (i, e) in s.live_entries() {
        if s.line_text(i).expect("line").contains(text) {
            return e.id_str().expect("an id").to_string();
        }
    }
    panic!("no entry holds {text:?}");
}

/// A stub `pi` in `home/bin` that writes its folder and arguments to
/// `home/pi-called`, one per line.
fn stub_pi(home: &Path) -> String {
    let bin = home.join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let pi = bin.join("pi");
    std::fs::write(
        &pi,
        "#!/bin/sh\n{ pwd; for a in \"$@\"; do printf '%s\\n' \"$a\"; done; } > \"$HOME/pi-called\"\n",
    )
    .expect("stub");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&pi, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn pi_called(home: &Path) -> Vec<String> {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(home.join("pi-called")) {
            if text.ends_with('\n') {
                return text.lines().map(str::to_string).collect();
            }
        }
        assert!(start.elapsed() < tmux::TIMEOUT, "the stub pi never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn resume_becomes_pi_in_the_sessions_folder() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let h = home();
    let project = h.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let sessions = h.path().join("agent/sessions/--project--");
    let file = pi_session(&sessions, &project.to_string_lossy(), 0);
    let path = stub_pi(h.path());
    let t = Tmux::start_in(h, &[], &[("PATH", &path)], SIZE);
    t.wait_for("the session", |s| s.contains("question 0"));
    t.keys(&["Enter"]);
    let called = pi_called(t.home());
    assert_eq!(
        called,
        vec![
            std::fs::canonicalize(&project)
                .unwrap()
                .display()
                .to_string(),
            "--session".to_string(),
            file.display().to_string()
        ]
    );
    // pi replaced piscope: its status is pi's, and the terminal is back.
    assert_eq!(t.wait_for_exit(), format!("{EXIT_MARK}0"));
}

#[test]
fn resume_in_a_missing_folder_asks_then_uses_the_current_one() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let h = home();
    let sessions = h.path().join("agent/sessions/--gone--");
    pi_session(&sessions, "/no/such/folder/anymore", 0);
    let path = stub_pi(h.path());
    let here = std::fs::canonicalize(h.path()).unwrap();
    let t = Tmux::start_in(h, &[], &[("PATH", &path)], SIZE);
    t.wait_for("the session", |s| s.contains("question 0"));
    t.keys(&["Enter"]);
    t.wait_for("the question", |s| s.contains("no longer exists"));
    t.keys(&["Enter"]);
    assert_eq!(pi_called(t.home())[0], here.display().to_string());
    assert_eq!(t.wait_for_exit(), format!("{EXIT_MARK}0"));
}

#[test]
fn without_pi_the_command_to_run_is_shown() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let h = home();
    let sessions = h.path().join("agent/sessions/--w--");
    pi_session(&sessions, "/", 0);
    let t = Tmux::start_in(h, &[], &[("PISCOPE_PI_COMMAND", "no-such-pi")], SIZE);
    t.wait_for("the session", |s| s.contains("question 0"));
    t.keys(&["Enter"]);
    t.wait_for("the explanation", |s| {
        s.contains("no-such-pi was not found on PATH") && s.contains("no-such-pi --session")
    });
    t.keys(&["Escape"]);
    t.wait_for("the dialog closed", |s| !s.contains("was not found"));
    t.quit_with("C-c");
}

#[test]
fn print_gives_the_chosen_file_to_the_shell() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let h = home();
    let sessions = h.path().join("agent/sessions/--w--");
    let file = pi_session(&sessions, "/", 0);
    let t = Tmux::start_command(h, r#"p=$("$PISCOPE" --print); echo "CHOSEN:$p""#, &[], SIZE);
    t.wait_for("the session", |s| s.contains("question 0"));
    t.keys(&["Enter"]);
    let want = format!("CHOSEN:{}", file.display());
    t.wait_for("the path", |s| s.replace('\n', "").contains(&want));
    assert_eq!(t.wait_for_exit(), format!("{EXIT_MARK}0"));
}

#[test]
fn label_rename_and_branch_are_what_pi_reads() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let h = home();
    let file = pi_session(&h.path().join("s"), "/", 6);
    let answer3 = id_of(&file, "\"answer 3\"");
    let answer5 = id_of(&file, "\"answer 5\"");
    let f = file.to_string_lossy().to_string();
    let t = Tmux::start_in(h, &[&f], &[], SIZE);
    t.wait_for("the tree", |s| s.contains("answer 5"));
    // Typing in the tree searches it; Enter keeps the hit selected.
    t.type_text("answer 3");
    t.keys(&["Enter"]);
    t.keys(&["M-l"]);
    t.wait_for("the label dialog", |s| {
        s.contains("An empty label removes it")
    });
    t.type_text("keep");
    t.keys(&["Enter"]);
    t.wait_for("the label", |s| s.contains("[keep] assistant: answer 3"));
    t.keys(&["C-r"]);
    t.wait_for("the rename dialog", |s| {
        s.contains("An empty name removes it")
    });
    t.type_text("e2e name");
    t.keys(&["Enter"]);
    t.wait_for("the name", |s| s.contains("Entries · e2e name"));
    t.keys(&["Enter"]);
    t.wait_for("the branch dialog", |s| s.contains("pi will resume from"));
    t.type_text("went back");
    t.keys(&["Enter"]);
    t.wait_for("the new leaf", |s| {
        s.contains("◉ [branch summary]: went back")
    });
    t.quit_with("C-c");

    let info = common::oracle(&["info", &f]);
    assert_eq!(info["labels"][&answer3], "keep", "{info}");
    assert_eq!(info["name"], "e2e name");
    let branch: Vec<&str> = info["branch"]
        .as_array()
        .expect("branch")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    let n = branch.len();
    assert_eq!(
        branch[n - 2],
        answer3,
        "pi resumes after answer 3: {branch:?}"
    );
    assert!(!branch.contains(&answer5.as_str()));
    assert_eq!(Some(branch[n - 1]), info["leafId"].as_str());
}

#[test]
fn delete_moves_marked_sessions_to_a_real_trash() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let h = home();
    let sessions = h.path().join("agent/sessions/--w--");
    let a = pi_session(&sessions, "/", 0);
    let b = pi_session(&sessions, "/", 2);
    let keep = pi_session(&sessions, "/", 4);
    let data = h.path().join("data");
    let t = Tmux::start_in(h, &[], &[], SIZE);
    t.wait_for("the sessions", |s| s.contains("3 sessions"));
    // The list is newest first: mark the first two.
    t.keys(&["C-Space", "Down", "C-Space", "C-d"]);
    t.wait_for("the confirmation", |s| {
        s.contains("Move 2 sessions to the trash?")
    });
    t.keys(&["Enter"]);
    t.wait_for("the result", |s| {
        s.contains("Moved 2 sessions to the trash") && s.contains("1 session in 1 project")
    });
    let gone: Vec<&PathBuf> = [&a, &b, &keep]
        .into_iter()
        .filter(|p| !p.exists())
        .collect();
    assert_eq!(gone.len(), 2);
    for p in gone {
        let name = p.file_name().unwrap();
        assert!(
            data.join("Trash/files").join(name).exists(),
            "{name:?} in the trash"
        );
    }
    t.quit_with("C-c");
}

#[test]
fn when_the_trash_fails_deleting_for_good_needs_the_word() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let h = home();
    let sessions = h.path().join("agent/sessions/--w--");
    let file = pi_session(&sessions, "/", 0);
    // The trash folder cannot be made under a plain file.
    let blocker = h.path().join("blocker");
    std::fs::write(&blocker, "").unwrap();
    let data = blocker.join("data").display().to_string();
    let t = Tmux::start_in(h, &[], &[("XDG_DATA_HOME", &data)], SIZE);
    t.wait_for("the session", |s| s.contains("question 0"));
    t.keys(&["C-d"]);
    t.wait_for("the confirmation", |s| {
        s.contains("Move 1 session to the trash?")
    });
    t.keys(&["Enter"]);
    t.wait_for("the second question", |s| {
        s.contains("could not be moved to the trash") && s.contains("Not a directory")
    });
    t.keys(&["Enter"]);
    assert!(file.exists(), "Enter alone deletes nothing");
    t.type_text("delete");
    t.keys(&["Enter"]);
    t.wait_for("the result", |s| s.contains("Deleted 1 session for good"));
    assert!(!file.exists());
    t.quit_with("C-c");
}

#[test]
fn copy_reaches_the_terminal_clipboard() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let h = home();
    let file = pi_session(&h.path().join("s"), "/", 2);
    let f = file.to_string_lossy().to_string();
    let t = Tmux::start_in(h, &[&f], &[("PISCOPE_NO_SYSTEM_CLIPBOARD", "1")], SIZE);
    // tmux takes an OSC 52 copy into its buffer.
    t.tmux(&["set", "-g", "set-clipboard", "on"]);
    t.wait_for("the tree", |s| s.contains("◉ assistant: answer 1"));
    t.keys(&["C-x"]);
    t.wait_for("the message", |s| s.contains("Copied 8 characters"));
    let start = Instant::now();
    while t.tmux(&["show-buffer"]) != "answer 1" {
        assert!(start.elapsed() < tmux::TIMEOUT, "nothing in tmux's buffer");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Esc steps out; with nothing to step out of, it quits.
    t.quit_with("Escape");
}

#[test]
fn fork_writes_beside_the_session_and_export_into_the_current_folder() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let h = home();
    let dir = h.path().join("s");
    let file = pi_session(&dir, "/", 2);
    let f = file.to_string_lossy().to_string();
    let t = Tmux::start_in(h, &[&f], &[], SIZE);
    t.wait_for("the tree", |s| s.contains("◉ assistant: answer 1"));
    t.keys(&["C-e"]);
    t.wait_for("the export dialog", |s| {
        s.contains("[Markdown] · HTML page")
    });
    t.keys(&["Enter"]);
    t.wait_for("the result", |s| s.contains("Exported to"));
    // Into the folder piscope was started in (its home here), as pi's
    // /export writes.
    let stem = file
        .file_stem()
        .expect("a stem")
        .to_string_lossy()
        .to_string();
    let here = t.home().to_path_buf();
    let md = std::fs::read_to_string(here.join(format!("{stem}.md"))).expect("the export");
    assert!(md.contains("answer 1"));
    // Ctrl+F in the dialog: an HTML page instead, beside it.
    t.keys(&["C-e", "C-f"]);
    t.wait_for("the HTML choice", |s| s.contains("Markdown · [HTML page]"));
    t.keys(&["Enter"]);
    // The dialog's own field names the .html file too: wait for the outcome.
    t.wait_for("the result", |s| {
        s.lines()
            .any(|l| l.contains("Exported to") && l.contains(".html"))
    });
    let page = std::fs::read_to_string(here.join(format!("{stem}.html"))).expect("the page");
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("answer 1"));
    t.keys(&["Up", "M-f"]);
    t.wait_for("the fork", |s| s.contains("Forked into"));
    let sessions: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    let fork = sessions.iter().find(|p| **p != file).unwrap();
    let info = common::oracle(&["info", &fork.to_string_lossy()]);
    assert_eq!(info["header"]["parentSession"], f.as_str(), "{info}");
    // Esc steps out; with nothing to step out of, it quits.
    t.quit_with("Escape");
}

/// Appends `n` (even) messages through pi while the screen is watched:
/// returns how long after pi finished the last one was on screen.
fn last_entry_seen_after(t: &Tmux, file: &Path, n: usize) -> Duration {
    append_with_pi(file, n, 10);
    let done = Instant::now();
    let last = format!("◉ assistant: answer {}", n - 1);
    t.wait_for("the appended entries", |s| s.contains(&last));
    done.elapsed()
}

#[test]
fn live_reload_shows_what_pi_appends() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let h = home();
    let file = pi_session(&h.path().join("s"), "/", 0);
    let f = file.to_string_lossy().to_string();
    let t = Tmux::start_in(h, &[&f], &[], SIZE);
    t.wait_for("the tree", |s| s.contains("◉ assistant: answer 1"));
    let seen = last_entry_seen_after(&t, &file, 10);
    eprintln!("live reload: the last entry was on screen {seen:?} after pi wrote it");
    assert!(seen < Duration::from_secs(2), "{seen:?}");
    // Esc steps out; with nothing to step out of, it quits.
    t.quit_with("Escape");
}

#[test]
fn polling_also_shows_what_pi_appends() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let h = home();
    let file = pi_session(&h.path().join("s"), "/", 0);
    let f = file.to_string_lossy().to_string();
    let t = Tmux::start_in(h, &["--poll", &f], &[], SIZE);
    t.wait_for("the tree, polling", |s| {
        s.contains("◉ assistant: answer 1") && s.contains("polling")
    });
    last_entry_seen_after(&t, &file, 6);
    // Esc steps out; with nothing to step out of, it quits.
    t.quit_with("Escape");
}

#[test]
fn new_sessions_appear_and_deleted_ones_go() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let h = home();
    let sessions = h.path().join("agent/sessions/--w--");
    pi_session(&sessions, "/", 0);
    let t = Tmux::start_in(h, &[], &[], SIZE);
    t.wait_for("one session", |s| s.contains("1 session in 1 project"));
    let other = pi_session(&t.home().join("agent/sessions/--v--"), "/v", 2);
    t.wait_for("two sessions", |s| s.contains("2 sessions in 2 projects"));
    std::fs::remove_file(&other).unwrap();
    t.wait_for("one again", |s| s.contains("1 session in 1 project"));
    t.quit_with("C-c");
}
