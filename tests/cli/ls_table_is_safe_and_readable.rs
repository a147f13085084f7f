//! `piscope ls` as a table: one row per session with name (★) or first
//! message, project, messages, age and cost; hostile text from the files
//! (escape sequences, control characters) never reaches the terminal raw.

use crate::support as common;

use std::path::PathBuf;
use std::process::Command;

fn ls(args: &[&str]) -> String {
    let agent = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden/corpus");
    common::stdout_ok(
        Command::new(env!("CARGO_BIN_EXE_piscope"))
            .arg("ls")
            .args(args)
            .arg("--no-cache")
            .env("PI_CODING_AGENT_DIR", agent)
            .env_remove("PI_CODING_AGENT_SESSION_DIR"),
    )
}

#[test]
fn rows_show_title_project_messages_age_and_cost() {
    let out = ls(&["--all"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("SESSION")
            && lines[0].contains("PROJECT")
            && lines[0].ends_with("COST")
    );
    assert_eq!(lines.len(), 11, "{out}");
    let named = lines
        .iter()
        .find(|l| l.contains("watch label plain text"))
        .expect("a named session");
    assert!(named.starts_with("★ "), "{named}");
    assert!(named.contains("/home/ada/src/compiler"), "{named}");
    assert!(
        named.split_whitespace().any(|w| w.starts_with('$')),
        "{named}"
    );
    // Every row is the same width in terminal columns.
    let widths: Vec<usize> = lines[1..]
        .iter()
        .map(|l| unicode_width::UnicodeWidthStr::width(*l))
        .collect();
    assert!(widths.windows(2).all(|w| w[0] == w[1]), "{widths:?}");
}

#[test]
fn hostile_text_is_neutralised() {
    let out = ls(&["--all"]);
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
    assert!(out.contains("ansi ␛[31mre"), "{out}");
}

#[test]
fn empty_scope_says_what_to_do() {
    // The test's working folder has no project folder in the corpus.
    let out = ls(&[]);
    assert!(out.contains("no sessions here; try --all"), "{out}");
}

#[test]
fn an_empty_listing_never_suggests_what_was_asked_for() {
    let empty = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(empty.path().join("sessions")).expect("sessions folder");
    let out = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(["ls", "--all", "--no-cache"])
        .env("PI_CODING_AGENT_DIR", empty.path())
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .output()
        .expect("run piscope");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("no sessions yet"), "{text}");
    assert!(!text.contains("try --all"), "{text}");
    // A search that finds nothing says so, not where else to look.
    let out = ls(&["--all", "--query", "zzzz-no-such-words"]);
    assert!(out.contains("no session matches"), "{out}");
    assert!(!out.contains("try --all"), "{out}");
}
