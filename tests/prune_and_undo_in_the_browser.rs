//! In the browser, in a real terminal (tmux): the tree's prune key asks,
//! counting what goes, then prunes the branch of a pi-written session (the
//! original to the real trash, a temporary XDG_DATA_HOME); the undo key
//! puts the original back. Fails where tmux or node is missing, unless the
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
