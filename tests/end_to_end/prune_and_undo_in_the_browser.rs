//! In the browser, in a real terminal (tmux): the tree's prune key asks,
//! counting what goes, then prunes the branch of a pi-written session (the
//! original to the real trash, a temporary XDG_DATA_HOME); the clean-up
//! dialog takes rules and trashes the sessions they pick; the undo key
//! puts back what went last. Fails where tmux or node is missing, unless the
//! run allows skipping (`PISCOPE_ALLOW_MISSING_TOOLS=1`).

use crate::support as common;
use crate::support::tmux;

use tmux::{Tmux, have_tmux};

#[test]
fn prune_then_undo_in_the_tree() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let home = tempfile::tempdir().expect("home");
    let sessions = home.path().join("sessions");
    let out = common::run_ok(
        common::node(&common::harness("pi-prune-scene.mjs"))
            .arg(&sessions)
            .arg("/home/ada/proj"),
    );
    let scene: serde_json::Value = serde_json::from_slice(&out.stdout).expect("scene JSON");
    let file = std::path::PathBuf::from(scene["file"].as_str().expect("file"));
    let original = std::fs::read(&file).expect("read");
    let trash = home.path().join("data/Trash/files");

    let t = Tmux::start_in(home, &[file.to_str().expect("path")], &[], (140, 40));
    t.wait_for("the tree", |s| {
        s.contains('◉') && s.contains("a question on the side")
    });
    // Typing searches the tree; Enter keeps the hit selected.
    t.type_text("question on the side");
    t.wait_for("the search", |s| {
        s.contains("Type to search: question on the side")
    });
    t.keys(&["Enter"]);
    t.keys(&["M-p"]);
    let dialog = t.wait_for("the prune dialog", |s| s.contains("Prune a branch"));
    assert!(
        dialog.contains("8 entries go: 5 messages, 90 tokens"),
        "{dialog}"
    );
    assert!(dialog.contains("3 kept"), "{dialog}");
    assert!(dialog.contains("pi may have this session open"), "{dialog}");
    t.keys(&["Enter"]);
    t.wait_for("the prune done", |s| {
        s.contains("Pruned 8 entries") && s.contains("Alt+U undoes")
    });
    t.wait_for("the tree without the branch", |s| {
        !s.contains("a question on the side")
    });
    let pruned = std::fs::read(&file).expect("read");
    assert!(pruned.len() < original.len());
    assert!(!String::from_utf8_lossy(&pruned).contains("a question on the side"));
    assert_eq!(
        std::fs::read(trash.join(file.file_name().expect("name"))).expect("trashed"),
        original
    );

    // Undo: the original is back, and the tree shows the branch again.
    t.keys(&["M-u"]);
    t.wait_for("the undo", |s| s.contains("Restored"));
    t.wait_for("the branch back", |s| s.contains("a question on the side"));
    assert_eq!(std::fs::read(&file).expect("read"), original);
    assert!(std::fs::read_dir(&trash).expect("trash").next().is_none());
    t.quit_with("C-c");
}

/// A session without messages, as pi writes one, with an id of its own,
/// started an hour ago.
fn empty_session(path: &std::path::Path, id: &str) {
    let started = piscope::jstext::date::format_iso(piscope::jstext::date::now_ms() - 3_600_000);
    std::fs::write(
        path,
        format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"{started}\",\"cwd\":\"/home/ada/flat\"}}\n"
        ),
    )
    .expect("write");
}

#[test]
fn clean_up_by_rule_then_undo_in_the_sessions_pane() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let home = tempfile::tempdir().expect("home");
    let here = std::fs::canonicalize(home.path()).expect("home");
    let project = here.join("agent/sessions").join(format!(
        "--{}--",
        here.to_string_lossy()
            .trim_start_matches('/')
            .replace('/', "-")
    ));
    let kept = common::pi_create(&project, &here.to_string_lossy());
    let empty_a = project.join("2026-03-01T00-00-00-000Z_empty-a.jsonl");
    let empty_b = project.join("2026-03-02T00-00-00-000Z_empty-b.jsonl");
    let fresh = project.join("2026-03-03T00-00-00-000Z_fresh.jsonl");
    empty_session(&empty_a, "empty-a");
    empty_session(&empty_b, "empty-b");
    empty_session(&fresh, "fresh");
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for f in [&kept, &empty_a, &empty_b] {
        std::fs::File::options()
            .write(true)
            .open(f)
            .expect("open")
            .set_modified(hour_ago)
            .expect("mtime");
    }
    let originals: Vec<Vec<u8>> = [&empty_a, &empty_b]
        .iter()
        .map(|f| std::fs::read(f).expect("read"))
        .collect();
    let data = here.join("data");
    let t = Tmux::start_in(home, &[], &[], (140, 40));
    t.wait_for("the sessions", |s| {
        s.contains("(no messages)") && s.contains("question 0") && s.contains("4 sessions")
    });
    t.keys(&["M-c"]);
    let d = t.wait_for("the clean-up dialog", |s| {
        s.contains("Clean up") && s.contains("--empty --older-than 30d")
    });
    assert!(d.contains("all of which must hold"), "{d}");
    assert!(d.contains("No listed session matches these rules."), "{d}");
    // The list follows the rules as they are typed.
    t.keys(&["C-u"]);
    t.type_text("--empty");
    // (The whole frame: the list and the key that acts on it.)
    let d = t.wait_for("the empty ones listed", |s| {
        s.contains("2 of the 4 listed sessions match:")
            && s.contains("Enter move 2 sessions to the trash")
    });
    assert_eq!(d.matches("• (no messages)").count(), 2, "{d}");
    assert!(!d.contains("• question 0"), "{d}");
    assert!(d.contains("Enter move 2 sessions to the trash"), "{d}");
    t.type_text(" --older-than 2h");
    t.wait_for("none older than two hours", |s| {
        s.contains("No listed session matches these rules.")
    });
    t.keys(&["BSpace", "BSpace"]);
    t.type_text("30m");
    t.wait_for("the two again", |s| {
        s.contains("2 of the 4 listed sessions match:") && s.contains("--older-than 30m")
    });
    // Enter trashes exactly the list shown, and says so.
    t.keys(&["Enter"]);
    t.wait_for("the clean-up done", |s| {
        s.contains("Moved 2 sessions to the trash")
    });
    assert!(!empty_a.exists() && !empty_b.exists());
    assert!(kept.exists() && fresh.exists());
    let mut trashed: Vec<String> = std::fs::read_dir(data.join("Trash/files"))
        .expect("trash")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    trashed.sort();
    assert_eq!(
        trashed,
        [
            "2026-03-01T00-00-00-000Z_empty-a.jsonl",
            "2026-03-02T00-00-00-000Z_empty-b.jsonl"
        ]
    );
    // The journal calls it a clean-up, as `restore --list` shows.
    let listed = std::process::Command::new(tmux::BIN)
        .args(["restore", "--list", "--json"])
        .env("XDG_DATA_HOME", &data)
        .env("HOME", &here)
        .output()
        .expect("restore --list");
    let records: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("json");
    let records = records.as_array().expect("records");
    assert_eq!(records.len(), 2, "{records:?}");
    assert!(
        records.iter().all(|r| r["reason"] == "clean"),
        "{records:?}"
    );
    let table = std::process::Command::new(tmux::BIN)
        .args(["restore", "--list"])
        .env("XDG_DATA_HOME", &data)
        .env("HOME", &here)
        .output()
        .expect("restore --list");
    let table = String::from_utf8_lossy(&table.stdout);
    assert_eq!(table.matches("  clean  ").count(), 2, "{table}");

    // Undo puts back the whole clean-up.
    t.keys(&["M-u"]);
    t.wait_for("the undo", |s| {
        s.contains("Restored 2 sessions from the trash")
    });
    assert_eq!(std::fs::read(&empty_a).expect("restored"), originals[0]);
    assert_eq!(std::fs::read(&empty_b).expect("restored"), originals[1]);
    t.wait_for("the sessions listed again", |s| {
        s.matches("(no messages)").count() >= 3 && s.contains("4 sessions")
    });
    t.quit_with("C-c");
}

/// The sessions pane's archive key asks, naming the session, then moves it
/// to piscope's archive (a temporary XDG_DATA_HOME) and off the list; the
/// undo key puts it back, byte for byte.
#[test]
fn archive_then_undo_in_the_sessions_pane() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let home = tempfile::tempdir().expect("home");
    let here = std::fs::canonicalize(home.path()).expect("home");
    let folder_name = format!(
        "--{}--",
        here.to_string_lossy()
            .trim_start_matches('/')
            .replace('/', "-")
    );
    let project = here.join("agent/sessions").join(&folder_name);
    let file = common::pi_create(&project, &here.to_string_lossy());
    std::fs::File::options()
        .write(true)
        .open(&file)
        .expect("open")
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .expect("mtime");
    let original = std::fs::read(&file).expect("read");
    let archived = here
        .join("data/piscope/archive/sessions")
        .join(&folder_name)
        .join(file.file_name().expect("name"));
    let t = Tmux::start_in(home, &[], &[], (140, 40));
    t.wait_for("the session", |s| s.contains("question 0"));
    t.keys(&["M-a"]);
    let d = t.wait_for("the archive dialog", |s| {
        s.contains("to piscope's archive?")
    });
    assert!(d.contains("question 0"), "{d}");
    t.keys(&["Enter"]);
    t.wait_for("the archive done", |s| {
        s.contains("Archived 1 session (Alt+U undoes)")
    });
    t.wait_for("the session off the list", |s| !s.contains("question 0"));
    assert!(!file.exists());
    assert_eq!(std::fs::read(&archived).expect("archived"), original);

    t.keys(&["M-u"]);
    t.wait_for("the undo", |s| s.contains("back from the archive"));
    t.wait_for("the session listed again", |s| s.contains("question 0"));
    assert_eq!(std::fs::read(&file).expect("back"), original);
    assert!(!archived.exists());
    t.quit_with("C-c");
}
