//! `piscope prune` on pi-written sessions, checked with pi's own code: after
//! the prune, `info` is what it was (but for the entry count), `context` at
//! every kept entry is what it was, and `tree` is the old tree without the
//! pruned ids (the entries carried over from the branch hang from its
//! parent). The original goes to a real trash (a temporary XDG_DATA_HOME)
//! and `piscope restore` brings it back.

use crate::support as common;

use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn piscope(data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_piscope"));
    c.env("XDG_DATA_HOME", data).env("HOME", data);
    c
}

/// What pi makes of the file: info, tree, and the context at every entry.
struct PiView {
    info: Value,
    tree: Vec<Value>,
    contexts: HashMap<String, Value>,
}

fn pi_view(file: &Path) -> PiView {
    let f = file.to_string_lossy().to_string();
    let first = common::oracle_batch(&[
        vec!["info".into(), f.clone()],
        vec!["tree".into(), f.clone()],
    ]);
    let tree = first[1].as_array().expect("tree").clone();
    let ids: Vec<String> = tree
        .iter()
        .map(|n| n["id"].as_str().expect("id").to_string())
        .collect();
    let requests: Vec<Vec<String>> = ids
        .iter()
        .map(|id| vec!["context".into(), f.clone(), "--leaf".into(), id.clone()])
        .chain([vec!["context".into(), f.clone()]])
        .collect();
    let answers = common::oracle_batch(&requests);
    let mut contexts: HashMap<String, Value> = ids.into_iter().zip(answers.clone()).collect();
    contexts.insert("(leaf)".into(), answers.last().expect("leaf").clone());
    PiView {
        info: first[0].clone(),
        tree,
        contexts,
    }
}

/// Prunes `entry` of `file` with piscope and checks pi's view against the
/// one before. Returns the ids that went and those carried over; `None`
/// when piscope refused because nothing on the branch could go.
fn prune_and_check(
    data: &Path,
    file: &Path,
    entry: &str,
) -> Option<(HashSet<String>, HashSet<String>)> {
    let before = pi_view(file);
    let bytes_before = std::fs::read(file).expect("read");
    let out = piscope(data)
        .args(["prune"])
        .arg(file)
        .args([entry, "--yes"])
        .output()
        .expect("prune");
    if String::from_utf8_lossy(&out.stderr).contains("nothing to prune") {
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(std::fs::read(file).expect("read"), bytes_before);
        return None;
    }
    assert!(
        out.status.success(),
        "prune {entry}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = pi_view(file);
    let old: HashMap<&str, &Value> = before
        .tree
        .iter()
        .map(|n| (n["id"].as_str().expect("id"), n))
        .collect();
    let new: HashMap<&str, &Value> = after
        .tree
        .iter()
        .map(|n| (n["id"].as_str().expect("id"), n))
        .collect();
    let gone: HashSet<String> = old
        .keys()
        .filter(|id| !new.contains_key(**id))
        .map(|s| s.to_string())
        .collect();
    assert!(new.keys().all(|id| old.contains_key(id)), "no new ids");
    assert!(!gone.is_empty(), "something went");
    // The branch: the entry and everything below it in the old tree.
    let mut branch = HashSet::new();
    let mut stack = vec![entry.to_string()];
    while let Some(id) = stack.pop() {
        for c in old[id.as_str()]["children"].as_array().expect("children") {
            stack.push(c.as_str().expect("id").to_string());
        }
        branch.insert(id);
    }
    assert!(gone.is_subset(&branch), "only the branch went");
    let carried: HashSet<String> = branch.difference(&gone).cloned().collect();
    // The entry itself stays only when pi reads it from elsewhere (a label
    // of a kept entry that pi wrote while on this branch).
    assert!(
        gone.contains(entry)
            || matches!(old[entry]["type"].as_str(), Some("label" | "session_info")),
        "the entry itself went"
    );
    let parent = old[entry]["parentId"].clone();
    for (id, n) in &new {
        let o = old[id];
        if carried.contains(*id) {
            assert_eq!(n["parentId"], parent, "{id} hangs from the branch's parent");
            assert!(
                matches!(n["type"].as_str(), Some("label" | "session_info")),
                "only names and labels are carried: {n}"
            );
            for field in ["type", "label"] {
                assert_eq!(n[field], o[field], "{id}.{field}");
            }
            // Its context is the parent's: it adds no message.
            let at_parent = match parent.as_str() {
                Some(p) => &after.contexts[p],
                None => &before.contexts[entry],
            };
            if parent.is_string() {
                assert_eq!(after.contexts[*id], *at_parent, "context at carried {id}");
            }
            continue;
        }
        for field in ["parentId", "type", "label"] {
            assert_eq!(n[field], o[field], "{id}.{field}");
        }
        let mut children: Vec<&Value> = o["children"]
            .as_array()
            .expect("children")
            .iter()
            .filter(|c| !gone.contains(c.as_str().expect("id")))
            .collect();
        let mut now: Vec<&Value> = n["children"].as_array().expect("children").iter().collect();
        if Some(*id) == parent.as_str() {
            children.retain(|c| c.as_str() != Some(entry));
            let carried_here: Vec<&Value> = now
                .iter()
                .copied()
                .filter(|c| carried.contains(c.as_str().expect("id")))
                .collect();
            assert_eq!(carried_here.len(), carried.len());
            now.retain(|c| !carried.contains(c.as_str().expect("id")));
        }
        assert_eq!(now, children, "children of {id}");
        assert_eq!(
            after.contexts[*id], before.contexts[*id],
            "context at kept entry {id}"
        );
    }
    assert_eq!(after.contexts["(leaf)"], before.contexts["(leaf)"]);
    let mut info_before = before.info.clone();
    let mut info_after = after.info.clone();
    let count = |v: &Value| v["entryCount"].as_u64().expect("count");
    assert_eq!(count(&info_after) + gone.len() as u64, count(&info_before));
    info_before["entryCount"] = Value::Null;
    info_after["entryCount"] = Value::Null;
    // Labels on pruned entries go with them.
    if let Some(labels) = info_before["labels"].as_object_mut() {
        labels.retain(|k, _| !gone.contains(k));
    }
    assert_eq!(info_after, info_before, "info");
    // Byte for byte: the old lines without the pruned ones; carried lines
    // differ only in parentId.
    let bytes_after = std::fs::read(file).expect("read");
    let kept: Vec<&[u8]> = bytes_before
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| {
            let v: Value = serde_json::from_slice(l).unwrap_or(Value::Null);
            !v["id"].as_str().is_some_and(|id| gone.contains(id))
        })
        .collect();
    let now: Vec<&[u8]> = bytes_after.split_inclusive(|&b| b == b'\n').collect();
    assert_eq!(kept.len(), now.len());
    for (k, n) in kept.iter().zip(&now) {
        if k == n {
            continue;
        }
        let mut k: Value = serde_json::from_slice(k).expect("json");
        let n: Value = serde_json::from_slice(n).expect("json");
        assert!(carried.contains(k["id"].as_str().expect("id")), "{k}");
        k["parentId"] = parent.clone();
        assert_eq!(k, n);
    }
    Some((gone, carried))
}

fn trashed_files(data: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(data.join("Trash/files"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

#[test]
fn a_side_branch_goes_and_the_name_and_labels_set_on_it_stay() {
    if !common::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data = tmp.path().join("data");
    let sessions = tmp.path().join("sessions");
    std::fs::create_dir_all(&data).expect("mkdir");
    let out = common::run_ok(
        common::node(&common::harness("pi-prune-scene.mjs"))
            .arg(&sessions)
            .arg("/home/ada/proj"),
    );
    let scene: Value = serde_json::from_slice(&out.stdout).expect("scene JSON");
    let file = PathBuf::from(scene["file"].as_str().expect("file"));
    let original = std::fs::read(&file).expect("read");
    let side = scene["side"].as_str().expect("side");

    // The main branch holds pi's resume point: refused, nothing changed.
    let refused = piscope(&data)
        .arg("prune")
        .arg(&file)
        .args([scene["main"].as_str().expect("main"), "--yes"])
        .output()
        .expect("prune");
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("pi resumes inside this branch") && err.contains("branch away first"),
        "{err}"
    );
    assert_eq!(std::fs::read(&file).expect("read"), original);

    // The dry run counts what goes and changes nothing.
    let dry = piscope(&data)
        .arg("prune")
        .arg(&file)
        .args([side, "--dry-run"])
        .output()
        .expect("dry run");
    let text = String::from_utf8_lossy(&dry.stdout);
    assert!(
        dry.status.success(),
        "{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    assert!(
        text.contains("8 entries go (5 messages, 90 tokens, $0.0300)"),
        "{text}"
    );
    assert!(text.contains("3 kept"), "{text}");
    assert!(
        text.contains("pi may have this session open"),
        "just written: {text}"
    );
    assert_eq!(std::fs::read(&file).expect("read"), original);

    // Without --yes and without a terminal: a usage error.
    let unasked = piscope(&data)
        .arg("prune")
        .arg(&file)
        .arg(side)
        .stdin(Stdio::null())
        .output()
        .expect("prune");
    assert_eq!(unasked.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unasked.stderr).contains("--yes"));

    let (gone, carried) = prune_and_check(&data, &file, side).expect("pruned");
    assert_eq!((gone.len(), carried.len()), (8, 3));

    // The original is in the trash, under the session's own name, and
    // restore puts it back (the pruned file is still what prune wrote).
    let trashed = trashed_files(&data);
    assert_eq!(trashed.len(), 1, "{trashed:?}");
    assert_eq!(trashed[0].file_name(), file.file_name());
    assert_eq!(std::fs::read(&trashed[0]).expect("read"), original);
    let no_hidden_folder = std::fs::read_dir(file.parent().expect("dir"))
        .expect("dir")
        .flatten()
        .all(|e| !e.file_name().to_string_lossy().starts_with(".piscope"));
    assert!(no_hidden_folder);
    let restored = piscope(&data)
        .args(["restore", "--last"])
        .output()
        .expect("restore");
    assert!(
        restored.status.success(),
        "{}",
        String::from_utf8_lossy(&restored.stderr)
    );
    assert_eq!(std::fs::read(&file).expect("read"), original);
    assert!(trashed_files(&data).is_empty());
}

/// Every branch that may be pruned in a pi-written corpus (branches,
/// labels, compactions, summaries, names), each on a fresh copy.
#[test]
fn pruning_any_branch_of_a_pi_corpus_keeps_what_pi_reads() {
    if !common::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let corpus = tmp.path().join("corpus");
    common::pi_corpus(&corpus, 13, 6, 30);
    let mut files = Vec::new();
    for project in std::fs::read_dir(corpus.join("sessions"))
        .expect("sessions")
        .flatten()
    {
        for f in std::fs::read_dir(project.path())
            .expect("project")
            .flatten()
        {
            files.push(f.path());
        }
    }
    files.sort();
    let mut pruned = 0;
    for (n, file) in files.iter().enumerate() {
        let tree = common::oracle(&["tree", &file.to_string_lossy()]);
        let info = common::oracle(&["info", &file.to_string_lossy()]);
        let on_path: HashSet<&str> = info["branch"]
            .as_array()
            .expect("branch")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        // Branch points off the resume path: the first entry of each side branch.
        let starts: Vec<String> = tree
            .as_array()
            .expect("tree")
            .iter()
            .filter(|node| {
                node["parentId"]
                    .as_str()
                    .is_some_and(|p| on_path.contains(p))
            })
            .filter(|node| !on_path.contains(node["id"].as_str().expect("id")))
            .map(|node| node["id"].as_str().expect("id").to_string())
            .collect();
        for (k, start) in starts.iter().take(3).enumerate() {
            let data = tmp.path().join(format!("data{n}-{k}"));
            std::fs::create_dir_all(&data).expect("mkdir");
            let copy = tmp.path().join(format!("copy{n}-{k}"));
            std::fs::create_dir_all(&copy).expect("mkdir");
            let target = copy.join(file.file_name().expect("name"));
            std::fs::copy(file, &target).expect("copy");
            if prune_and_check(&data, &target, start).is_some() {
                pruned += 1;
            }
        }
    }
    assert!(
        pruned >= 5,
        "the corpus should have side branches ({pruned})"
    );
}
