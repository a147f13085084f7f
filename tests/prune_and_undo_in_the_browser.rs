//! In the browser, in a real terminal (tmux): the tree's prune key asks,
//! counting what goes, then prunes the branch of a pi-written session (the
//! original to the real trash, a temporary XDG_DATA_HOME); the clean-up
//! dialog takes rules and trashes the sessions they pick; the undo key
//! puts back what went last. Fails where tmux or node is missing, unless the
//! run allows skipping (`PISCOPE_ALLOW_MISSING_TOOLS=1`).

mod common;
mod tmux;

use tmux::{Tmux, have_tmux};

#[test]
fn prune_then_undo_in_the_tree() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let home = tempfile::tempdir().expect("home");
    let sessions = home.path().join("sessions");
    let out = common::node(&common::repo().join("tests/conformance/pi-prune-scene.mjs"))
        .arg(&sessions)
        .arg("/home/ada/proj")
        .output()
        .expect("scene");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
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
    let empty = project.join("2026-03-01T00-00-00-000Z_empty.jsonl");
    std::fs::copy(
        common::repo().join("tests/catalog/flat/2026-02-01T10-00-00-018Z_no-messages.jsonl"),
        &empty,
    )
    .expect("copy");
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for f in [&kept, &empty] {
        std::fs::File::options()
            .write(true)
            .open(f)
            .expect("open")
            .set_modified(hour_ago)
            .expect("mtime");
    }
    let original = std::fs::read(&empty).expect("read");
    let t = Tmux::start_in(home, &[], &[], (140, 40));
    t.wait_for("the sessions", |s| {
        s.contains("(no messages)") && s.contains("question 0")
    });
    t.keys(&["M-c"]);
    let d = t.wait_for("the clean-up dialog", |s| {
        s.contains("Clean up") && s.contains("--empty --older-than 30d")
    });
    assert!(d.contains("all of which must hold"), "{d}");
    t.keys(&["Enter"]);
    let review = t.wait_for("the review", |s| {
        s.contains("Move these 1 session(s) to the trash?")
    });
    assert!(
        review.contains("• (no messages)") && !review.contains("• question 0"),
        "{review}"
    );
    t.keys(&["Enter"]);
    t.wait_for("the clean-up done", |s| {
        s.contains("Moved 1 session to the trash")
    });
    assert!(!empty.exists() && kept.exists());
    t.keys(&["M-u"]);
    t.wait_for("the undo", |s| s.contains("Restored"));
    assert_eq!(std::fs::read(&empty).expect("restored"), original);
    t.wait_for("the session listed again", |s| s.contains("(no messages)"));
    t.quit_with("C-c");
}
