//! `export --format md`, and `html` of one branch, write a stretch of the
//! context at a time, each scanned for secrets before it is written. What it writes
//! must be what the whole document gives (the browser's export renders it
//! whole, for its review of the findings): the same text and the same
//! findings, on every test session (pi-written, damaged, odd) at every
//! leaf, and on a long session whose stretches end between turns.

use crate::support as common;

use piscope::render::{self, Export, Shape};
use piscope::secrets::Scanner;
use piscope::session::{Detail, Session};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// The export's text with the moment it was made taken out.
fn undated(text: &str) -> String {
    text.lines()
        .map(|l| {
            let at = l
                .find(", exported ")
                .or_else(|| l.find("Exported by piscope on "));
            match at {
                Some(i) => &l[..i],
                None => l,
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The streamed exports and the whole documents agree on `path` at `leaf`.
fn same(path: &Path, leaf: Option<u32>) {
    // Streamed from the outline the command reads, as `export` does.
    let s = Session::open_with(path, Detail::Outline).expect("a session");
    let scanner = Scanner::builtin();
    let shapes: [(Shape, render::WriteExport); 2] = [
        (Shape::Markdown, render::write_markdown),
        (Shape::Html, render::write_html),
    ];
    let whole_session = Arc::new(Session::open(path).expect("a session"));
    for (shape, write) in shapes {
        let rendered = Export::new(whole_session.clone(), leaf, shape).expect("rendered");
        for redact in [true, false] {
            let mut streamed = Vec::new();
            let ctx = render::context_at(&s, leaf);
            let found = write(&s, &ctx, scanner, redact, &mut streamed).expect("streamed");
            let mut whole = rendered.clone();
            let want = whole.redact(scanner, &|_| redact);
            assert_eq!(
                undated(&String::from_utf8(streamed).expect("UTF-8")),
                undated(&whole.write()),
                "{shape:?} of {} at {leaf:?}",
                path.display()
            );
            let describe =
                |f: &[render::Finding]| f.iter().map(|f| f.describe()).collect::<Vec<_>>();
            assert_eq!(describe(&found), describe(&want), "{}", path.display());
        }
    }
}

#[test]
fn every_test_session_at_every_leaf_streams_as_it_renders_whole() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let files = common::session_files(&data);
    assert!(files.len() > 80, "the test sessions are there");
    let mut read = 0;
    for path in files {
        // Damaged files pi refuses are read by neither.
        let Ok(s) = Session::open(&path) else {
            continue;
        };
        read += 1;
        same(&path, None);
        let leaves = s
            .live_entries()
            .map(|(i, _)| i)
            .filter(|&i| s.tree.children(i).is_empty())
            .take(6);
        for leaf in leaves.collect::<Vec<_>>() {
            same(&path, Some(leaf));
        }
    }
    assert!(read > 60, "{read} sessions read");
}

/// A session of `turns` turns of a question, a tool call and its result,
/// and an answer, a compaction after turn 300 (what it replaced is one
/// block, rendered whole), a secret here and there, at `path`.
fn long_session(path: &Path, turns: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    writeln!(
        f,
        r#"{{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}}"#
    )
    .expect("write");
    // Each line's entry follows the one before.
    let mut parent = "null".to_string();
    let mut n = 0;
    let mut line = |f: &mut dyn Write, parent: &mut String, body: String| {
        let id = format!("e{n}");
        writeln!(
            f,
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{body}}}"#
        )
        .expect("write");
        *parent = format!(r#""{id}""#);
        n += 1;
    };
    for t in 0..turns {
        let secret = if t % 500 == 7 {
            " with ghp_0123456789abcdefghijABCDEFGHIJ012345"
        } else {
            ""
        };
        let bodies = [
            format!(r#"{{"role":"user","content":"question {t}{secret}","timestamp":1}}"#),
            format!(
                r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"c{t}","name":"bash","arguments":{{"command":"echo {t}"}}}}],"stopReason":"toolUse","timestamp":1}}"#
            ),
            format!(
                r#"{{"role":"toolResult","toolCallId":"c{t}","toolName":"bash","content":[{{"type":"text","text":"{t}"}}],"isError":false,"timestamp":1}}"#
            ),
            format!(
                r#"{{"role":"assistant","content":[{{"type":"text","text":"answer {t}"}}],"stopReason":"stop","timestamp":1}}"#
            ),
        ];
        for body in bodies {
            line(&mut f, &mut parent, body);
        }
        if t == 300 {
            // Kept from an answer: the items after it no longer come in
            // fours, and a stretch cut by count alone would part a call
            // from its result.
            let kept = 4 * (t - 2) + 3;
            writeln!(
                f,
                r#"{{"type":"compaction","id":"k","parentId":{parent},"timestamp":"2026-01-01T00:00:02.000Z","summary":"what came before","firstKeptEntryId":"e{kept}","tokensBefore":5000}}"#
            )
            .expect("write");
            parent = r#""k""#.to_string();
        }
    }
}

#[test]
fn a_long_session_streams_across_its_stretches() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("long.jsonl");
    long_session(&path, 3000);
    same(&path, None);
}

#[test]
fn a_long_branch_is_exported_in_the_memory_of_a_stretch() {
    // 200,000 entries: the whole document took over 2 KB a message.
    if !Path::new("/proc/self/status").exists() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("long.jsonl");
    long_session(&path, 50_000);
    let input_kb = std::fs::metadata(&path).expect("written").len() / 1024;
    for format in ["md", "html"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_piscope"))
            .args(["export", &path.to_string_lossy(), "--format", format])
            .env("PISCOPE_PEAK_MEMORY", "1")
            .output()
            .expect("piscope runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{format}: {stderr}");
        let peak_kb: u64 = stderr
            .lines()
            .find_map(|l| l.strip_prefix("peak memory: "))
            .and_then(|l| l.trim_end_matches(" kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("no peak memory reported: {stderr}"));
        assert!(
            peak_kb < 2 * input_kb + 64 * 1024,
            "{format}: {peak_kb} kB at the peak for {input_kb} kB of session"
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("answer 49999"),
            "{format}: written to the end"
        );
    }
}

/// Markdown writes code as text: it is not highlighted, so a block past
/// the highlighter's budget carries no note of where highlighting gave up
/// (the HTML page, which is highlighted, does).
#[test]
fn markdown_code_is_written_as_text_without_a_highlighting_note() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("code.jsonl");
    let long_line = "let a = 1; ".repeat(600);
    let text = format!("Here:\n\n```rust\nfn main() {{}}\n{long_line}\n```\n");
    let message = serde_json::json!({"role": "assistant", "content": [{"type": "text", "text": text}],
        "stopReason": "stop", "timestamp": 1});
    let lines = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#.to_string(),
        serde_json::json!({"type": "message", "id": "a1", "parentId": null,
            "timestamp": "2026-01-01T00:00:01.000Z", "message": message})
        .to_string(),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let export = |format: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_piscope"))
            .args(["export", &path.to_string_lossy(), "--format", format])
            .output()
            .expect("piscope runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    let md = export("md");
    assert!(md.contains(long_line.trim_end()), "the code is written");
    assert!(!md.contains("highlighting stopped"), "{md}");
    let html = export("html");
    assert!(
        html.contains("highlighting stopped at line 2"),
        "the page says where"
    );
}
