//! A context edit's replacement goes into the context as pi's reader gives
//! it: a number beyond f64, which JavaScript reads as an infinity, is
//! written as `JSON.stringify` writes it (`null`), as it is in a message.
//! The expected answers are pi's own (its `buildSessionContext`, through
//! the reference oracle, on these very lines).

use crate::support as common;

use std::process::Command;

const HEADER: &str = r#"{"type":"session","version":3,"id":"sess-ce","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp/proj"}"#;
const MESSAGE: &str = r#"{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hello","timestamp":1735689601000}}"#;

fn context(lines: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").expect("session file");
    common::stdout_ok(
        Command::new(env!("CARGO_BIN_EXE_piscope"))
            .arg("context")
            .arg(&path)
            .arg("--json"),
    )
}

#[test]
fn a_replacement_beyond_f64_reads_as_null() {
    let edit = r#"{"type":"context_edit","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2025-01-01T00:00:02.000Z","targetId":"aaaa0001","replacement":{"content":-1e400}}"#;
    let got = context(&[HEADER, MESSAGE, edit]);
    assert_eq!(
        got.trim_end(),
        r#"{"messages":[{"role":"user","content":null,"timestamp":1735689601000}],"thinkingLevel":"off","model":null}"#
    );
}

#[test]
fn a_replacement_inside_range_is_copied_as_written() {
    let edit = r#"{"type":"context_edit","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2025-01-01T00:00:02.000Z","targetId":"aaaa0001","replacement":{"content":[{"type":"text","text":"big 1e999"}],"n":1e999}}"#;
    let got = context(&[HEADER, MESSAGE, edit]);
    assert_eq!(
        got.trim_end(),
        r#"{"messages":[{"role":"user","content":[{"type":"text","text":"big 1e999"}],"timestamp":1735689601000}],"thinkingLevel":"off","model":null}"#
    );
}
