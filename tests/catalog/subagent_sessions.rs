//! Child sessions written as subagent extensions write them
//! (`tests/pi/pi-subagents.mjs`, pi's own SessionManager): a folder beside
//! the parent's file, `subagent-sessions/` of the agent folder (flat and
//! by the parent's id), and a top-level session headed with
//! `parentSession`, beside two forks headed alike but made between turns.
//! `ls --json` keeps pi's own list exactly (pi's `listAll()` is the oracle)
//! and gives the children in a field of their own, under their parent; the
//! table folds them under it and adds their spend to the parent's, and
//! leaves the forks where pi's threaded list puts them; a warm run finds a
//! child added since from the folders' stamps.

use crate::support as common;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn ls(agent: &Path, cache: &Path, args: &[&str]) -> String {
    common::stdout_ok(
        Command::new(env!("CARGO_BIN_EXE_piscope"))
            .args(["ls", "--all"])
            .args(args)
            .env("PI_CODING_AGENT_DIR", agent)
            .env("XDG_CACHE_HOME", cache)
            .env("HOME", cache),
    )
}

/// Each row's `subagents` taken out, gathered by path with its layout and
/// how its parent was told, and the parent it sits under.
fn take_children(rows: &mut [Value], out: &mut BTreeMap<String, (String, String, String)>) {
    for row in rows {
        let path = row["path"].as_str().expect("path").to_string();
        let Some(Value::Array(mut kids)) = row.as_object_mut().and_then(|o| o.remove("subagents"))
        else {
            continue;
        };
        for k in kids.iter_mut() {
            let o = k.as_object_mut().expect("a child row");
            let layout = o
                .remove("layout")
                .expect("layout")
                .as_str()
                .expect("text")
                .to_string();
            let by = o
                .remove("parentBy")
                .expect("parentBy")
                .as_str()
                .expect("text")
                .to_string();
            out.insert(
                k["path"].as_str().expect("path").to_string(),
                (path.clone(), layout, by),
            );
        }
        take_children(&mut kids, out);
    }
}

/// `ls --all --json`'s rows with their children taken out, and the
/// children (see [`take_children`]).
type Found = BTreeMap<String, (String, String, String)>;
fn ls_json_children(agent: &Path, cache: &Path) -> (Vec<Value>, Found) {
    let mut rows: Vec<Value> = serde_json::from_str::<Value>(&ls(agent, cache, &["--json"]))
        .expect("ls --json")
        .as_array()
        .expect("a list")
        .clone();
    let mut found = BTreeMap::new();
    take_children(&mut rows, &mut found);
    (rows, found)
}

#[test]
fn children_are_found_in_every_layout_and_pis_list_stays_pis() {
    if !common::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let agent = tmp.path().join("agent");
    let cache = tmp.path().join("cache");
    let (parent, children) = common::pi_subagents(&agent, "layout");

    // pi's own list: the parent, the top-level child and the two forks,
    // nothing nested.
    let pi = common::oracle(&["list-root", &agent.join("sessions").to_string_lossy()]);
    let pi_paths: Vec<&str> = pi
        .as_array()
        .expect("list")
        .iter()
        .map(|r| r["path"].as_str().expect("path"))
        .collect();
    assert_eq!(
        pi_paths.len(),
        4,
        "pi lists the parent, the top-level child and the forks: {pi_paths:?}"
    );

    for run in ["cold", "warm"] {
        let (got, found) = ls_json_children(&agent, &cache);
        assert_eq!(
            Value::Array(got),
            pi,
            "{run}: without the children's field, pi's own list"
        );
        let mut want = BTreeMap::new();
        for (path, layout) in &children {
            if layout == "fork" || layout == "orphan" {
                continue;
            }
            // Nested: by its folder; in the agent folder, one folder down:
            // by the parent's id; flat, or top level: by its header.
            let by = match (
                layout.as_str(),
                path.parent() == Some(&agent.join("subagent-sessions")),
            ) {
                ("nested", _) => "folder",
                ("top-level", _) | (_, true) => "header",
                (_, false) => "folder-id",
            };
            want.insert(
                path.to_string_lossy().into_owned(),
                (
                    parent.to_string_lossy().into_owned(),
                    layout.clone(),
                    by.to_string(),
                ),
            );
        }
        assert_eq!(found, want, "{run}: each child under its parent, once");
    }

    // A child of a new dispatch appears on the next (warm) run: the nested
    // folder's stamp moved, so it is listed again.
    let stem = parent.with_extension("");
    let copy_from = &children[0].0;
    let new_child = stem.join("9a9a9a9a/run-0/session.jsonl");
    std::fs::create_dir_all(new_child.parent().expect("run folder")).expect("mkdir");
    std::fs::copy(copy_from, &new_child).expect("copy a child");
    let (_, found) = ls_json_children(&agent, &cache);
    assert!(
        found.contains_key(&*new_child.to_string_lossy()),
        "the new child is found warm"
    );
    assert_eq!(found.len(), 7);

    // The table: the parent's own cost, and with its subagents' (each
    // child's own spend: the fork's copied turns stay the parent's).
    let table = ls(&agent, &cache, &[]);
    let parent_line = table
        .lines()
        .find(|l| l.starts_with("Survey the parser"))
        .unwrap_or_else(|| panic!("the parent's row in\n{table}"));
    let dollars: Vec<&str> = parent_line
        .split_whitespace()
        .filter(|w| w.starts_with('$'))
        .collect();
    // Own: two answers and five calls ($0.02 + $0.02 + 5 × $0.01);
    // children: 0.1 + 0.2 (runs), 0.5 (fork), 0.3, 0.2 (agent folder),
    // 0.4 (top level), the copy of the first run holds the same turns:
    // counted once. The user's forks are not the parent's subagents.
    assert_eq!(dollars, ["$0.09", "$1.79"], "{table}");
    assert_eq!(table.matches("↳ ").count(), 8, "{table}");
    // The top-level child is folded under its parent (once, as a child);
    // the forks stay in pi's threaded list, under the parent as pi nests
    // them.
    let rows: Vec<&str> = table.lines().collect();
    let of = |title: &str| -> Vec<&str> {
        rows.iter()
            .filter(|l| l.contains(title))
            .copied()
            .collect::<Vec<_>>()
    };
    let top = of("write the plan down");
    assert_eq!(top.len(), 1, "{table}");
    assert!(top[0].trim_start().starts_with("↳ "), "{table}");
    // (The branch copies the parent's first message, its title.)
    let forks: Vec<&str> = rows
        .iter()
        .filter(|l| l.starts_with("├─ ") || l.starts_with("└─ "))
        .copied()
        .collect();
    assert_eq!(forks.len(), 2, "the forks in pi's threaded list:\n{table}");
    assert!(forks.iter().any(|l| l.contains("start over")), "{table}");
    assert!(
        forks.iter().any(|l| l.contains("Survey the parser")),
        "{table}"
    );
    // The child whose parent cannot be told: listed last, on its own.
    let (_, last) = table
        .split_once("subagent sessions of no known parent:\n")
        .unwrap_or_else(|| panic!("the children of no known parent in\n{table}"));
    assert!(last.starts_with("↳ a task of unknown origin"), "{table}");
}
