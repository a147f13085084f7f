//! Forking a branch into a new session file writes what pi's own
//! `createBranchedSession` writes: the header with `parentSession`, the path
//! re-chained without label entries, and the path's labels after it.

use crate::support as common;

use piscope::session::write::fork::fork_session;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("read")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// Random parts (ids of new entries, the session id, times) blanked.
fn comparable(mut v: Vec<Value>) -> Vec<Value> {
    for (i, line) in v.iter_mut().enumerate() {
        if i == 0 {
            line["id"] = Value::Null;
            line["timestamp"] = Value::Null;
        }
        if line["type"] == "label" {
            line["id"] = Value::Null;
            line["parentId"] = Value::Null;
        }
    }
    v
}

#[test]
fn forks_like_pi_at_the_leaf_and_inside() {
    if !common::have_node() {
        return;
    }
    let corpus = common::repo().join("tests/data/golden/corpus/sessions");
    let appender = common::harness("pi-appender.mjs");
    let mut checked = 0;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("corpus")
        .flat_map(|p| std::fs::read_dir(p.expect("dir").path()).expect("project"))
        .map(|f| f.expect("file").path())
        .collect();
    files.sort();
    {
        for src in files {
            if checked >= 6 {
                break;
            }
            let tree = common::oracle(&["tree", &src.to_string_lossy()]);
            let tree = tree.as_array().expect("tree");
            let labelled = tree.iter().any(|n| !n["label"].is_null());
            if !labelled {
                continue;
            }
            for leaf in [
                None,
                Some(tree[tree.len() * 2 / 3]["id"].as_str().expect("id")),
            ] {
                let ours_dir = tempfile::tempdir().expect("dir");
                let pis_dir = tempfile::tempdir().expect("dir");
                let ours_src = ours_dir.path().join("s.jsonl");
                let pis_src = pis_dir.path().join("s.jsonl");
                std::fs::copy(&src, &ours_src).expect("copy");
                std::fs::copy(&src, &pis_src).expect("copy");
                let info = common::oracle(&["info", &src.to_string_lossy()]);
                let leaf_id = leaf
                    .map(str::to_string)
                    .unwrap_or_else(|| info["leafId"].as_str().expect("leaf").to_string());
                let ours = fork_session(&ours_src, leaf).expect("fork");
                let out = common::node(&appender)
                    .args(["fork", &pis_src.to_string_lossy(), &leaf_id])
                    .output()
                    .expect("pi's fork");
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let pis = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
                if !pis.exists() {
                    // pi writes nothing until the branch has a conversation.
                    continue;
                }
                let (mut a, mut b) = (comparable(lines(&ours)), comparable(lines(&pis)));
                assert_eq!(
                    a[0]["parentSession"],
                    Value::from(ours_src.to_string_lossy().as_ref())
                );
                assert_eq!(
                    b[0]["parentSession"],
                    Value::from(pis_src.to_string_lossy().as_ref())
                );
                a[0]["parentSession"] = Value::Null;
                b[0]["parentSession"] = Value::Null;
                assert_eq!(a, b, "{} at {leaf_id}", src.display());
                // The original is untouched, and pi reads the fork's branch.
                assert_eq!(
                    std::fs::read(&ours_src).expect("read"),
                    std::fs::read(&src).expect("read")
                );
                let forked = common::oracle(&["info", &ours.to_string_lossy()]);
                let pis_info = common::oracle(&["info", &pis.to_string_lossy()]);
                assert_eq!(forked["name"], pis_info["name"]);
                assert_eq!(forked["labels"], pis_info["labels"]);
                assert_eq!(
                    forked["branch"].as_array().map(Vec::len),
                    pis_info["branch"].as_array().map(Vec::len)
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 3, "only {checked} forks compared");
}
