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
    let mut checked = 0;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("corpus")
        .flat_map(|p| std::fs::read_dir(p.expect("dir").path()).expect("project"))
        .map(|f| f.expect("file").path())
        .collect();
    files.sort();
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
            if forks_like_pi(&src, leaf) {
                checked += 1;
            }
        }
    }
    assert!(checked >= 3, "only {checked} forks compared");
}

/// Forks a copy of `src` at `leaf` (the session's leaf when `None`) as
/// piscope and as pi, and checks the two new files say the same; false when
/// pi wrote none (a branch without a conversation).
fn forks_like_pi(src: &Path, leaf: Option<&str>) -> bool {
    let appender = common::harness("pi-appender.mjs");
    let ours_dir = tempfile::tempdir().expect("dir");
    let pis_dir = tempfile::tempdir().expect("dir");
    let ours_src = ours_dir.path().join("s.jsonl");
    let pis_src = pis_dir.path().join("s.jsonl");
    std::fs::copy(src, &ours_src).expect("copy");
    std::fs::copy(src, &pis_src).expect("copy");
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
        return false;
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
        std::fs::read(src).expect("read")
    );
    let forked = common::oracle(&["info", &ours.to_string_lossy()]);
    let pis_info = common::oracle(&["info", &pis.to_string_lossy()]);
    assert_eq!(forked["name"], pis_info["name"]);
    assert_eq!(forked["labels"], pis_info["labels"]);
    assert_eq!(
        forked["branch"].as_array().map(Vec::len),
        pis_info["branch"].as_array().map(Vec::len)
    );
    true
}

/// A session's lines from entries given as JSON values, each after a
/// header, with a timestamp.
fn session_file(dir: &Path, entries: &[Value]) -> PathBuf {
    let path = dir.join("edges.jsonl");
    let mut text = serde_json::json!({"type": "session", "version": 3, "id": "s1",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/tmp/project"})
    .to_string();
    for (i, e) in entries.iter().enumerate() {
        let mut e = e.clone();
        e["timestamp"] = Value::from(format!("2026-01-01T00:00:{:02}.000Z", i % 60));
        text.push('\n');
        text.push_str(&e.to_string());
    }
    text.push('\n');
    std::fs::write(&path, text).expect("write");
    path
}

/// The cases the corpus does not hold, each against pi: a compaction that
/// keeps from a dropped label (by a string id and by a number), a label
/// set again (keeping its place), cleared and set again (coming last), a
/// label without a target, a label of an entry off the branch, ids that
/// are numbers, an entry without an id.
#[test]
fn forks_like_pi_where_labels_and_compactions_meet() {
    use serde_json::json;
    if !common::have_node() {
        return;
    }
    let user = |id: Value, parent: Value| {
        json!({"type": "message", "id": id, "parentId": parent,
            "message": {"role": "user", "content": "question", "timestamp": 1}})
    };
    let assistant = |id: Value, parent: Value| {
        json!({"type": "message", "id": id, "parentId": parent,
            "message": {"role": "assistant", "content": [{"type": "text", "text": "answer"}],
                "provider": "p", "model": "m", "stopReason": "stop", "timestamp": 2,
                "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0,
                    "totalTokens": 2, "cost": {"total": 0.001}}}})
    };
    let label = |id: Value, parent: Value, target: Option<Value>, text: Option<&str>| {
        let mut l = json!({"type": "label", "id": id, "parentId": parent});
        if let Some(t) = target {
            l["targetId"] = t;
        }
        if let Some(text) = text {
            l["label"] = Value::from(text);
        }
        l
    };
    let compaction = |id: Value, parent: Value, first: Value| {
        json!({"type": "compaction", "id": id, "parentId": parent, "summary": "earlier",
            "firstKeptEntryId": first, "tokensBefore": 10})
    };
    let s = |t: &str| Value::from(t);
    let strings = vec![
        user(s("m1"), Value::Null),
        assistant(s("m2"), s("m1")),
        label(s("L1"), s("m2"), Some(s("m1")), Some("first")),
        label(s("L2"), s("L1"), Some(s("m2")), Some("second")),
        user(s("m3"), s("L2")),
        label(s("L3"), s("m3"), Some(s("m1")), Some("again")),
        label(s("L4"), s("L3"), Some(s("m2")), None),
        label(s("L5"), s("L4"), Some(s("m2")), Some("back")),
        compaction(s("c1"), s("L5"), s("L1")),
        assistant(s("m4"), s("c1")),
        user(s("m5"), s("m1")),
        label(s("L6"), s("m4"), Some(s("m5")), Some("off the branch")),
        label(s("L7"), s("L6"), None, Some("no target")),
        user(s("m6"), s("L7")),
        compaction(s("c2"), s("m6"), s("c2")),
        label(s("L8"), s("c2"), Some(s("c1")), Some("compacted")),
        compaction(s("c3"), s("L8"), s("L8")),
        assistant(s("m7"), s("c3")),
    ];
    let n = |v: u64| Value::from(v);
    let numbers = vec![
        user(n(1), Value::Null),
        assistant(n(2), n(1)),
        label(n(5), n(2), Some(n(1)), Some("one")),
        label(s("5"), n(5), Some(s("1")), Some("not one")),
        user(n(3), s("5")),
        compaction(n(4), n(3), n(5)),
        compaction(s("c"), n(4), s("5")),
        json!({"type": "message", "parentId": s("c"),
            "message": {"role": "user", "content": "no id", "timestamp": 3}}),
        label(n(6), s("c"), None, Some("undefined target")),
        assistant(s("last"), n(6)),
    ];
    let dir = tempfile::tempdir().expect("dir");
    for (entries, leaves) in [
        (strings, vec![None, Some("m4"), Some("m6")]),
        (numbers, vec![None]),
    ] {
        let src = session_file(dir.path(), &entries);
        for leaf in leaves {
            assert!(forks_like_pi(&src, leaf), "{leaf:?}");
        }
    }
}
