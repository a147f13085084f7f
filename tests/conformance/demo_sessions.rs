//! The bundled demo sessions: written by pi's own SessionManager (the script
//! regenerates the committed bytes), realistic (the kinds of work the README
//! promises are there), and copied dated back from the moment of the copy
//! (minutes to weeks ago, same spacing) in files pi reads as the originals.

use crate::support as common;
use crate::support::tui as tui_common;
use common::oracle_batch_lines as oracle_batch;

use piscope::jstext::date::{format_iso, parse_ms};
use piscope::tui::work::demo::{DEMO_SESSIONS, write_demo_sessions};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

const MINUTE: i64 = 60_000;
const DAY: i64 = 24 * 60 * MINUTE;

/// Every file under a sessions folder, by its path in it.
fn files_in(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for project in std::fs::read_dir(root).expect("sessions folder") {
        let project = project.expect("entry").path();
        for file in std::fs::read_dir(&project).expect("project folder") {
            let file = file.expect("entry").path();
            let rel = file
                .strip_prefix(root)
                .expect("inside")
                .to_string_lossy()
                .to_string();
            out.insert(rel, std::fs::read(&file).expect("read"));
        }
    }
    out
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    std::str::from_utf8(bytes)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// Every time a line holds: its own `timestamp` and its message's.
fn times(line: &Value) -> Vec<i64> {
    let own = line["timestamp"].as_str().and_then(parse_ms);
    let message = line["message"]["timestamp"].as_i64();
    own.into_iter().chain(message).collect()
}

/// `value` with every `timestamp` (ISO text or ms) moved by `shift`.
fn shifted(value: &Value, shift: i64) -> Value {
    match value {
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("timestamp", Value::String(s)) => match parse_ms(s) {
                            Some(ms) => Value::String(format_iso(ms + shift)),
                            None => v.clone(),
                        },
                        ("timestamp", Value::Number(n)) => match n.as_i64() {
                            Some(ms) => Value::from(ms + shift),
                            None => v.clone(),
                        },
                        _ => shifted(v, shift),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| shifted(v, shift)).collect()),
        other => other.clone(),
    }
}

fn originals() -> BTreeMap<String, Vec<u8>> {
    DEMO_SESSIONS
        .iter()
        .map(|(rel, bytes)| (rel.to_string(), bytes.to_vec()))
        .collect()
}

#[test]
fn the_script_writes_the_committed_demo_with_pis_own_code() {
    if !common::have_node() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("sessions");
    let run = common::node(&common::repo().join("scripts/make-demo-sessions.mjs"))
        .args(["--out", &out.to_string_lossy()])
        .output()
        .expect("run the script");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let written = files_in(&out);
    let committed = files_in(&common::repo().join("assets/demo/sessions"));
    assert_eq!(
        written.keys().collect::<Vec<_>>(),
        committed.keys().collect::<Vec<_>>()
    );
    for (rel, bytes) in &written {
        assert!(
            *bytes == committed[rel],
            "{rel} differs from what the script writes: run it again (see its header)"
        );
    }
    // And the binary bundles exactly these.
    assert_eq!(committed, originals());
}

#[test]
fn the_demo_is_real_work_a_newcomer_recognises() {
    let all: Vec<(String, Vec<Value>)> = originals()
        .into_iter()
        .map(|(rel, bytes)| (rel, lines(&bytes)))
        .collect();
    let projects: std::collections::BTreeSet<&str> = all
        .iter()
        .map(|(rel, _)| rel.split('/').next().unwrap_or(""))
        .collect();
    assert!((2..=3).contains(&projects.len()), "{projects:?}");
    let text = |l: &[Value]| serde_json::to_string(l).expect("JSON");
    let find = |what: &str, ok: &dyn Fn(&[Value]) -> bool| {
        all.iter()
            .find(|(_, l)| ok(l))
            .unwrap_or_else(|| panic!("no demo session with {what}"))
            .1
            .clone()
    };
    let result_text = |l: &Value| {
        l["message"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    let tool_results = |l: &[Value], tool: &str| -> Vec<String> {
        l.iter()
            .filter(|e| e["message"]["role"] == "toolResult" && e["message"]["toolName"] == tool)
            .map(result_text)
            .collect()
    };

    // A bug hunt: reads, an edit, cargo test failing, then passing.
    let hunt = find("a cargo test bug hunt", &|l| {
        let bash = tool_results(l, "bash");
        bash.first()
            .is_some_and(|t| t.contains("test result: FAILED"))
            && bash.last().is_some_and(|t| t.contains("test result: ok"))
    });
    assert!(!tool_results(&hunt, "read").is_empty() && !tool_results(&hunt, "edit").is_empty());
    // A compaction, two branches with a branch summary, a name and labels.
    find("a compaction", &|l| {
        l.iter().any(|e| e["type"] == "compaction")
    });
    let branched = find("a branch summary", &|l| {
        l.iter().any(|e| e["type"] == "branch_summary")
    });
    let mut children: BTreeMap<String, usize> = BTreeMap::new();
    for e in &branched[1..] {
        *children.entry(e["parentId"].to_string()).or_default() += 1;
    }
    assert!(children.values().any(|&n| n == 2), "two branches");
    find("a name and labels", &|l| {
        l.iter().any(|e| e["type"] == "session_info")
            && l.iter().filter(|e| e["type"] == "label").count() >= 2
    });
    // A fork: its header names another demo session as its parent.
    let fork = find("a fork", &|l| l[0]["parentSession"].is_string());
    let parent = fork[0]["parentSession"].as_str().unwrap_or("");
    let parent = parent
        .strip_prefix(piscope::tui::work::demo::DEMO_SESSIONS_HOME)
        .unwrap_or("");
    assert!(all.iter().any(|(rel, _)| rel == parent), "{parent}");
    // A real PNG image.
    let with_image = find("an image", &|l| text(l).contains("\"type\":\"image\""));
    let image = with_image
        .iter()
        .flat_map(|e| {
            e["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .find(|c| c["type"] == "image")
        .expect("the image");
    use base64::Engine as _;
    let png = base64::engine::general_purpose::STANDARD
        .decode(image["data"].as_str().expect("data"))
        .expect("base64");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.ends_with(b"IEND\xaeB`\x82"));
    assert_eq!(&png[12..16], b"IHDR");
    // Hostile text: escapes, a window title, OSC 52, bidi controls, C1.
    let hostile = find("hostile text", &|l| text(l).contains("\\u001b]52;"));
    let raw = text(&hostile);
    for needle in [
        "\\u001b[31m",
        "\\u001b]0;",
        "\\u001b[2J",
        "\u{202e}",
        "\u{2066}",
        "\u{9b}",
        "\\b",
        "\\r",
    ] {
        assert!(raw.contains(needle), "the hostile session lacks {needle}");
    }
    assert!(
        hostile.iter().any(|e| e["type"] == "session_info"
            && e["name"].as_str().is_some_and(|n| n.contains('\u{1b}')))
    );
}

#[test]
fn a_copy_is_dated_back_from_now_keeping_the_spacing() {
    let now = 1_800_000_000_000;
    let dir = tempfile::tempdir().expect("temp dir");
    let written = write_demo_sessions(dir.path(), now).expect("copied");
    assert_eq!(written.len(), DEMO_SESSIONS.len());
    let newest_original = DEMO_SESSIONS
        .iter()
        .flat_map(|(_, b)| lines(b).iter().flat_map(times).collect::<Vec<_>>())
        .max()
        .expect("times");
    let mut all = Vec::new();
    for ((rel, bytes), path) in DEMO_SESSIONS.iter().zip(&written) {
        let copy = lines(&std::fs::read(path).expect("the copy"));
        let original = lines(bytes);
        let copy_times: Vec<i64> = copy.iter().flat_map(times).collect();
        let shift = copy_times[0] - times(&original[0])[0];
        // One shift for every time of every file: the spacing is kept.
        assert_eq!(shift, now - 7 * MINUTE - newest_original, "{rel}");
        for (c, o) in copy.iter().zip(&original) {
            let mut want = shifted(o, shift);
            if let Some(parent) = o["parentSession"].as_str() {
                // The fork's parent is the copied parent.
                let parent_copy = c["parentSession"].as_str().expect("a parent");
                assert!(
                    Path::new(parent_copy).starts_with(dir.path()),
                    "{parent_copy}"
                );
                assert!(Path::new(parent_copy).is_file(), "{parent_copy}");
                assert!(parent.starts_with(piscope::tui::work::demo::DEMO_SESSIONS_HOME));
                want["parentSession"] = c["parentSession"].clone();
            }
            assert_eq!(*c, want, "{rel}: only the times move");
        }
        assert_eq!(copy.len(), original.len(), "{rel}");
        // Named as pi names it: the header's time, then the session id.
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let stamp = copy[0]["timestamp"]
            .as_str()
            .unwrap()
            .replace([':', '.'], "-");
        assert!(name.starts_with(&format!("{stamp}_")), "{name} / {stamp}");
        assert!(
            rel.ends_with(name.split_once('_').unwrap().1),
            "{rel} / {name}"
        );
        // The file changed when its last entry was written.
        let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
        let mtime_ms = mtime.duration_since(UNIX_EPOCH).unwrap().as_millis() as i64;
        assert_eq!(mtime_ms, *copy_times.iter().max().unwrap(), "{rel}");
        all.extend(copy_times);
    }
    let (oldest, newest) = (*all.iter().min().unwrap(), *all.iter().max().unwrap());
    assert_eq!(newest, now - 7 * MINUTE, "the newest is minutes ago");
    assert!(
        now - oldest > 14 * DAY && now - oldest < 35 * DAY,
        "the oldest weeks ago"
    );
    // The originals are what the binary bundles, untouched.
    assert_eq!(
        originals(),
        files_in(&common::repo().join("assets/demo/sessions"))
    );
}

#[test]
fn pi_reads_each_copy_as_the_original() {
    if !common::have_node() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let written: Vec<PathBuf> =
        write_demo_sessions(dir.path(), piscope::jstext::date::now_ms()).expect("copied");
    let root = common::repo().join("assets/demo/sessions");
    // One node for every question: pi's info, tree and context of each
    // original and each copy.
    let mut asks = Vec::new();
    for ((rel, _), copy) in DEMO_SESSIONS.iter().zip(&written) {
        for what in ["info", "tree", "context"] {
            for file in [root.join(rel), copy.clone()] {
                asks.push(serde_json::json!([what, file.to_string_lossy()]).to_string());
            }
        }
    }
    let answers = oracle_batch(&asks);
    let mut answers = answers.chunks(2);
    for ((rel, bytes), copy) in DEMO_SESSIONS.iter().zip(&written) {
        let shift = times(&lines(&std::fs::read(copy).unwrap())[0])[0] - times(&lines(bytes)[0])[0];
        for what in ["info", "tree", "context"] {
            let pair = answers.next().expect("an answer");
            let mut want = shifted(&pair[0], shift);
            let got = pair[1].clone();
            if let Some(parent) = got["header"].get("parentSession") {
                // The copied parent, checked in the dating test.
                want["header"]["parentSession"] = parent.clone();
            }
            assert_eq!(got, want, "{rel}: pi's {what}");
        }
    }
}

#[test]
fn the_snapshot_helpers_name_the_right_sessions() {
    // The tests pick demo sessions by name; each is the kind it says.
    let kind = |p: PathBuf| -> String { String::from_utf8(std::fs::read(p).unwrap()).unwrap() };
    assert!(kind(tui_common::compaction_demo()).contains("\"type\":\"compaction\""));
    assert!(kind(tui_common::big_demo()).contains("\"type\":\"branch_summary\""));
    assert!(kind(tui_common::labelled_demo()).contains("\"type\":\"label\""));
    assert!(kind(tui_common::fork_demo()).contains("\"parentSession\""));
    assert!(kind(tui_common::image_demo()).contains("\"type\":\"image\""));
    assert!(kind(tui_common::hostile_demo()).contains("\\u001b]52;"));
    assert!(kind(tui_common::bug_hunt_demo()).contains("test result: FAILED"));
}
