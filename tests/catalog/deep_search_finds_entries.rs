//! `ls --deep` searches what pi's search does not (tool output, bash output,
//! summaries, custom messages) and names the entry of each hit.

use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

fn setup() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("flat");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/catalog-flat/2026-02-01T10-00-00-001Z_plain.jsonl");
    let file = dir.join("s.jsonl");
    std::fs::copy(src, &file).expect("copy");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .expect("open");
    for line in [
        r#"{"type":"message","id":"t1","parentId":"a3","timestamp":"2026-02-01T10:04:00.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"line one\nthe Xylophone broke\nline three"}]}}"#,
        r#"{"type":"message","id":"t2","parentId":"t1","timestamp":"2026-02-01T10:05:00.000Z","message":{"role":"bashExecution","command":"make","output":"build ok: marimba"}}"#,
        r#"{"type":"compaction","id":"t3","parentId":"t2","timestamp":"2026-02-01T10:06:00.000Z","summary":"We discussed the xylophone at length","firstKeptEntryId":"t2","tokensBefore":10}"#,
        r#"{"type":"custom_message","id":"t4","parentId":"t3","timestamp":"2026-02-01T10:07:00.000Z","customType":"note","content":"a \u0078ylophone in escapes","display":true}"#,
    ] {
        writeln!(f, "{line}").expect("append");
    }
    (tmp, dir)
}

fn ls(dir: &PathBuf, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(["ls", "--all", "--json", "--no-cache", "--session-dir"])
        .arg(dir)
        .args(args)
        .output()
        .expect("run piscope");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn deep_hits_name_the_entry_and_show_a_snippet() {
    let (_tmp, dir) = setup();
    // pi's search does not look at tool output or summaries.
    assert_eq!(ls(&dir, &["--query", "xylophone"]), Value::Array(vec![]));
    let hits = ls(&dir, &["--deep", "--query", "xylophone"]);
    let hits = hits.as_array().expect("hits");
    let ids: Vec<&str> = hits
        .iter()
        .map(|h| h["entryId"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["t1", "t3", "t4"]);
    assert_eq!(hits[0]["kind"], "toolResult");
    assert_eq!(hits[0]["line"], 5);
    let snippet = hits[0]["snippet"].as_str().expect("snippet");
    assert!(
        snippet.contains("the Xylophone broke") && !snippet.contains('\n'),
        "{snippet}"
    );
    assert_eq!(hits[1]["kind"], "compaction");
    let bash = ls(&dir, &["--deep", "--query", "marimba"]);
    assert_eq!(bash[0]["kind"], "bashExecution");
    assert_eq!(bash[0]["entryId"], "t2");
    // Phrases and regexes work too; all words must match in one entry.
    let count = |q: &str| ls(&dir, &["--deep", "--query", q]).as_array().map(Vec::len);
    assert_eq!(count("\"xylophone broke\""), Some(1));
    assert_eq!(count("\"the xylophone\""), Some(2));
    // A phrase matches across a line break (white space is normalised).
    assert_eq!(count("\"one the   xylophone\""), Some(1));
    assert_eq!(count("re:xylo\\w+ (broke|at)"), Some(2));
    assert_eq!(count("xylophone marimba"), Some(0));
}

/// Sessions of `n` hits each, in a flat folder, named so that the newest
/// comes first in the list.
fn many_sessions(dir: &std::path::Path, sessions: usize, hits: usize) {
    for s in 0..sessions {
        let mut lines = vec![format!(
            r#"{{"type":"session","version":3,"id":"s{s}","timestamp":"2026-02-01T10:00:00.000Z","cwd":"/p"}}"#
        )];
        let mut parent = "null".to_string();
        for h in 0..hits {
            lines.push(format!(
                r#"{{"type":"message","id":"e{s}x{h}","parentId":{parent},"timestamp":"2026-02-{:02}T10:{:02}:00.000Z","message":{{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{{"type":"text","text":"out {h}: the Gadget said hi"}}]}}}}"#,
                1 + s % 27,
                h % 60
            ));
            parent = format!("\"e{s}x{h}\"");
        }
        std::fs::write(
            dir.join(format!("2026-02-01T10-00-00-{s:03}Z_s.jsonl")),
            lines.join("\n") + "\n",
        )
        .expect("write session");
    }
}

/// Hits are handed over session by session in the list's order (newest
/// first) while the search goes on, each session's in file order, the same
/// hits as the whole search gives; asking it to stop stops it.
#[test]
fn deep_hits_stream_in_list_order_and_can_be_stopped() {
    use piscope::catalog::{self, Cache, Layout, LoadOptions, Query, Scope, SessionsFolder};
    let tmp = tempfile::tempdir().expect("temp dir");
    many_sessions(tmp.path(), 40, 25);
    let folder = SessionsFolder::at(tmp.path().into(), Layout::Flat, tmp.path().into());
    let options = LoadOptions {
        scope: Scope::All,
        with_text: false,
        with_usage: true,
    };
    let cat = catalog::load(&folder, options, &mut Cache::disabled(), &mut |_| {});
    assert_eq!(cat.sessions.len(), 40);
    let q = Query::parse("gadget").expect("query");
    let (all, problems) = catalog::search::deep::deep_search(&cat.sessions, &q);
    assert!(problems.is_empty());
    assert_eq!(all.len(), 40 * 25);
    let mut batches = Vec::new();
    let index = catalog::search::deep_index::DeepIndex::open(tmp.path().join("cache"));
    catalog::search::deep::deep_search_each(&cat.sessions, &q, &index, &mut |hits| {
        batches.push(hits.to_vec());
        true
    });
    // One batch per session, in the list's order.
    let order: Vec<_> = batches.iter().map(|b| b[0].path.to_path_buf()).collect();
    let listed: Vec<_> = cat.sessions.iter().map(|s| s.path.clone()).collect();
    assert_eq!(order, listed);
    assert_eq!(batches.concat(), all);
    let lines: Vec<u64> = batches[0].iter().map(|h| h.line).collect();
    assert_eq!(lines, (2..27).collect::<Vec<u64>>());
    // Stopped after the first session: no more hits are handed over.
    let mut calls = 0;
    catalog::search::deep::deep_search_each(&cat.sessions, &q, &index, &mut |_| {
        calls += 1;
        false
    });
    assert_eq!(calls, 1);
    // From the shell, the hits come in the same order.
    let shell = ls(&tmp.path().to_path_buf(), &["--deep", "--query", "gadget"]);
    let ids: Vec<&str> = shell
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["entryId"].as_str().expect("id"))
        .collect();
    let want: Vec<&str> = all
        .iter()
        .map(|h| h.entry_id.as_deref().expect("id"))
        .collect();
    assert_eq!(ids, want);
}

#[test]
fn deep_hits_the_model_no_longer_sees_are_marked_compacted_away() {
    let (_tmp, dir) = setup();
    // t1 lies before the compaction's first kept entry (t2): where pi
    // resumes (t4), the model sees t3's summary of it, not t1 itself.
    let hits = ls(&dir, &["--deep", "--query", "xylophone"]);
    let cut: Vec<(&str, bool)> = hits
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| {
            (
                h["entryId"].as_str().expect("id"),
                h["compactedAway"].as_bool().expect("a flag"),
            )
        })
        .collect();
    assert_eq!(cut, [("t1", true), ("t3", false), ("t4", false)]);
    // The text listing says so after the kind.
    let out = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args([
            "ls",
            "--all",
            "--no-cache",
            "--deep",
            "--query",
            "xylophone",
        ])
        .arg("--session-dir")
        .arg(&dir)
        .output()
        .expect("run piscope");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].contains("  t1  toolResult (compacted away): "),
        "{text}"
    );
    assert!(lines[1].contains("  t3  compaction: "), "{text}");
    assert!(!text[lines[0].len()..].contains("compacted away"), "{text}");
}
