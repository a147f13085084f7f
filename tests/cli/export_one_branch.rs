//! `piscope export` prints one branch: as Markdown (what was said on that
//! branch only, in order) or as a session file pi reads as that branch.

use crate::support as common;

use std::process::Command;

fn export(file: &str, args: &[&str]) -> String {
    common::stdout_ok(
        Command::new(env!("CARGO_BIN_EXE_piscope"))
            .args(["export", file])
            .args(args),
    )
}

#[test]
fn markdown_and_jsonl_hold_exactly_the_branch() {
    if !common::have_node() {
        return;
    }
    let corpus = common::repo().join("tests/data/golden/corpus/sessions");
    let mut files: Vec<_> = std::fs::read_dir(&corpus)
        .expect("corpus")
        .flat_map(|p| std::fs::read_dir(p.expect("dir").path()).expect("project"))
        .map(|f| f.expect("file").path().to_string_lossy().to_string())
        .collect();
    files.sort();
    // The first session with more than one branch.
    let (file, info) = files
        .iter()
        .find_map(|f| {
            let info = common::oracle(&["info", f]);
            let tree = common::oracle(&["tree", f]);
            let sizes = (info["branch"].as_array()?.len(), tree.as_array()?.len());
            (sizes.0 + 5 < sizes.1).then(|| (f.clone(), info))
        })
        .expect("a session with branches");
    let branch: Vec<&str> = info["branch"]
        .as_array()
        .expect("branch")
        .iter()
        .map(|v| v.as_str().expect("id"))
        .collect();
    // JSONL: pi reads it as the same branch (labels re-chained after it).
    let jsonl = export(&file, &["--format", "jsonl"]);
    let tmp = tempfile::tempdir().expect("dir");
    let copy = tmp.path().join("branch.jsonl");
    std::fs::write(&copy, &jsonl).expect("write");
    let exported = common::oracle(&["context", &copy.to_string_lossy()]);
    assert_eq!(
        exported,
        common::oracle(&["context", &file]),
        "same context"
    );

    // Markdown: every user message of the branch, in order, and a heading per turn.
    let md = export(&file, &[]);
    assert!(md.starts_with("# "));
    let users = md.matches("### User").count();
    let ctx = common::oracle(&["context", &file]);
    let user_msgs = ctx["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "user")
        .count();
    assert!(
        users >= user_msgs && users > 0,
        "{users} user headings, {user_msgs} user messages in context"
    );
    assert!(
        !md.chars().any(|c| c.is_control() && c != '\n'),
        "no raw control characters"
    );
    // An inner leaf gives a shorter branch.
    let inner = branch[branch.len() / 2];
    let shorter = export(&file, &["--leaf", inner]);
    assert!(shorter.len() < md.len());
}
