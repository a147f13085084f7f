//! Pruning a legacy session (pi's version 2, which piscope migrates in
//! memory): the real trash (a temporary XDG_DATA_HOME) receives the file's
//! bytes exactly as they were on disk, never a migrated copy; the pruned
//! file is the migrated session without the branch, as pi reads it (checked
//! with pi's own code); and restore brings the legacy bytes back.

use crate::support as common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Version 2: ids and parents, a `hookMessage` (v3 calls it `custom`), a
/// side branch off the resume path (u2, h2, and a label on a1 set there)
/// and CRLF on one line.
const LEGACY: &str = concat!(
    r#"{"type":"session","version":2,"id":"legacy-v2","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/home/ada/proj"}"#,
    "\n",
    r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2025-06-01T10:00:01.000Z","message":{"role":"user","content":"first question","timestamp":1748772001000}}"#,
    "\n",
    r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2025-06-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"first answer"}],"timestamp":1748772002000,"provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop"}}"#,
    "\r\n",
    r#"{"type":"message","id":"u2","parentId":"a1","timestamp":"2025-06-01T10:00:03.000Z","message":{"role":"user","content":"a question on the side","timestamp":1748772003000}}"#,
    "\n",
    r#"{"type":"message","id":"h2","parentId":"u2","timestamp":"2025-06-01T10:00:04.000Z","message":{"role":"hookMessage","content":"a hook on the side","timestamp":1748772004000,"customType":"note","display":true}}"#,
    "\n",
    r#"{"type":"label","id":"l1","parentId":"h2","timestamp":"2025-06-01T10:00:05.000Z","targetId":"a1","label":"kept"}"#,
    "\n",
    r#"{"type":"message","id":"u3","parentId":"a1","timestamp":"2025-06-01T10:00:06.000Z","message":{"role":"user","content":"the main question","timestamp":1748772006000}}"#,
    "\n",
    r#"{"type":"message","id":"h3","parentId":"u3","timestamp":"2025-06-01T10:00:07.000Z","message":{"role":"hookMessage","content":"a hook on the main path","timestamp":1748772007000,"customType":"note","display":true}}"#,
    "\n",
    r#"{"type":"message","id":"a3","parentId":"h3","timestamp":"2025-06-01T10:00:08.000Z","message":{"role":"assistant","content":[{"type":"text","text":"the main answer"}],"timestamp":1748772008000,"provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":20,"output":7,"cacheRead":0,"cacheWrite":0,"totalTokens":27,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop"}}"#,
    "\n",
);

struct Setup {
    _tmp: tempfile::TempDir,
    data: PathBuf,
    file: PathBuf,
}

fn setup() -> Setup {
    let tmp = tempfile::tempdir().expect("temp dir");
    let data = tmp.path().join("data");
    let dir = tmp.path().join("sessions/--home-ada-proj--");
    std::fs::create_dir_all(&data).expect("mkdir");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let file = dir.join("2025-06-01T10-00-00-000Z_legacy-v2.jsonl");
    std::fs::write(&file, LEGACY).expect("write");
    Setup {
        _tmp: tmp,
        data,
        file,
    }
}

fn piscope(s: &Setup, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(args)
        .env("XDG_DATA_HOME", &s.data)
        .env("HOME", &s.data)
        .stdin(Stdio::null())
        .output()
        .expect("run piscope")
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn trashed(data: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(data.join("Trash/files"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

#[test]
fn the_trash_gets_the_legacy_bytes_and_the_file_reads_as_before() {
    let s = setup();
    let path = s.file.to_string_lossy().to_string();
    let o = piscope(&s, &["prune", &path, "u2", "--yes"]);
    ok(&o);

    // The trash holds the file as it was on disk: version 2, hookMessage,
    // CRLF.
    let trashed = trashed(&s.data);
    assert_eq!(trashed.len(), 1, "{trashed:?}");
    assert_eq!(trashed[0].file_name(), s.file.file_name());
    assert_eq!(
        std::fs::read(&trashed[0]).expect("read"),
        LEGACY.as_bytes(),
        "the trash holds the original bytes, not a migrated copy"
    );

    // What is left is the migrated session without the branch; the label
    // set on the branch stays, hung from its parent.
    let now = std::fs::read_to_string(&s.file).expect("read");
    let lines: Vec<Value> = now
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(lines[0]["version"], 3);
    let ids: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["u1", "a1", "l1", "u3", "h3", "a3"]);
    assert_eq!(lines[3]["parentId"], "a1");
    assert_eq!(lines[5]["message"]["role"], "custom");
    assert!(now.contains("}\r\n"), "line ends kept");

    // The journal names the prune, and restore puts the legacy bytes back.
    let o = piscope(&s, &["restore", "--list", "--json"]);
    ok(&o);
    let list: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(list[0]["reason"], "prune", "{list}");
    ok(&piscope(&s, &["restore", "--last"]));
    assert_eq!(std::fs::read(&s.file).expect("read"), LEGACY.as_bytes());
}

/// pi's own reading of the legacy file and of the pruned one: the context
/// at every kept entry and at the leaf, the name and labels.
#[test]
fn pi_reads_the_pruned_legacy_file_as_it_read_the_original() {
    if !common::have_node() {
        return;
    }
    let s = setup();
    let path = s.file.to_string_lossy().to_string();
    let kept = ["u1", "a1", "u3", "h3", "a3"];
    let view = |file: &str| {
        let mut v: Vec<Value> = kept
            .iter()
            .map(|id| common::oracle(&["context", file, "--leaf", id]))
            .collect();
        v.push(common::oracle(&["context", file]));
        let info = common::oracle(&["info", file]);
        v.push(info["labels"].clone());
        v.push(info["leafId"].clone());
        v
    };
    let before = view(&path);
    ok(&piscope(&s, &["prune", &path, "u2", "--yes"]));
    assert_eq!(view(&path), before);
    let tree = common::oracle(&["tree", &path]);
    let ids: Vec<&str> = tree
        .as_array()
        .expect("tree")
        .iter()
        .map(|n| n["id"].as_str().expect("id"))
        .collect();
    assert!(!ids.contains(&"u2") && !ids.contains(&"h2"), "{ids:?}");
}
