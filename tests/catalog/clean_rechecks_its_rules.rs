//! A clean-up trashes a session only if, at that moment, every rule that
//! picked it still holds and it is still quiet: pi writing a user message
//! into a listed empty session while the question waits keeps it, on the
//! command line (its question answered on a real terminal) and in the
//! browser's clean-up dialog (through the app's own dialog and job).

use super::delete_rechecks_at_the_moment::{answering_yes, own_trash, setup, trashed};
use crate::support::age;
use crate::support::tui as tui_common;

use piscope::tui::harness::Harness;
use piscope::tui::state::Then;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

const EMPTY: &str = "{\"type\":\"session\",\"version\":3,\"id\":\"e1\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/home/ada/flat\"}\n";

const USER: &str = "{\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:01:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"one more thing\",\"timestamp\":1767225660000}}\n";

/// What pi does on a user's first message: appends it to the file.
fn pi_writes_a_user_message(path: &Path) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open");
    f.write_all(USER.as_bytes()).expect("append");
}

fn clean_empty() -> Vec<OsString> {
    ["clean", "--empty", "--all"]
        .iter()
        .map(OsString::from)
        .collect()
}

/// An empty session in the (flat) sessions folder, quiet for two hours.
fn empty_session(s: &super::delete_rechecks_at_the_moment::Setup) -> PathBuf {
    let path = s.sessions.join("e.jsonl");
    std::fs::write(&path, EMPTY).expect("write");
    age(&path);
    path
}

#[test]
fn clean_trashes_an_unchanged_empty_session() {
    let s = setup();
    let file = empty_session(&s);
    let ran = answering_yes(&s, &clean_empty(), || {});
    assert_eq!(ran.code, Some(0), "{}\n{}", ran.stdout, ran.stderr);
    assert!(!file.exists());
    assert_eq!(trashed(&s.data), ["e.jsonl"]);
}

#[test]
fn clean_keeps_a_session_that_got_a_user_message_while_it_asked() {
    let s = setup();
    let file = empty_session(&s);
    // The message lands, and the file's time is put back: the rules alone
    // must catch it.
    let ran = answering_yes(&s, &clean_empty(), || {
        pi_writes_a_user_message(&file);
        age(&file);
    });
    assert_eq!(ran.code, Some(1), "{}\n{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr
            .contains("changed since it was confirmed (the clean-up rules no longer pick it)"),
        "{}",
        ran.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("kept"),
        format!("{EMPTY}{USER}")
    );
    assert!(trashed(&s.data).is_empty(), "{:?}", trashed(&s.data));
}

#[test]
fn clean_keeps_a_session_written_within_the_last_minute() {
    let s = setup();
    let file = empty_session(&s);
    // Written just now, still without a user message: pi may be writing it.
    let ran = answering_yes(&s, &clean_empty(), || {
        std::fs::write(&file, EMPTY).expect("write");
    });
    assert_eq!(ran.code, Some(1), "{}\n{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains("pi may be writing it"),
        "{}",
        ran.stderr
    );
    assert!(file.exists());
    assert!(trashed(&s.data).is_empty(), "{:?}", trashed(&s.data));
}

const WIDE: (u16, u16) = (150, 40);

fn clean_listed(h: &Harness) -> Vec<PathBuf> {
    match &h.app.dialog().expect("the clean-up dialog").then {
        Then::Clean { picked, .. } => picked.clone(),
        other => panic!("not the clean-up dialog: {other:?}"),
    }
}

#[test]
fn the_browser_keeps_a_session_that_got_a_user_message_while_it_asked() {
    let data = own_trash();
    let (_d, folder) = tui_common::demo_folder("/home/ada/dotfiles");
    // An empty session beside the first listed one, with its project.
    let h = Harness::folder(folder.clone(), WIDE);
    let beside = h
        .app
        .picker()
        .selected_session()
        .expect("a session")
        .path
        .clone();
    drop(h);
    let first = std::fs::read_to_string(&beside).expect("read");
    let header: serde_json::Value =
        serde_json::from_str(first.lines().next().expect("a header")).expect("json");
    let mut header = header;
    header["id"] = serde_json::Value::from("empty-one");
    let file = beside.with_file_name("2026-01-01T00-00-00-000Z_empty.jsonl");
    std::fs::write(&file, format!("{header}\n")).expect("write");
    age(&file);
    let mut h = Harness::folder(folder, WIDE);
    h.key("alt+c");
    h.key("ctrl+u");
    h.type_text("--empty");
    assert!(clean_listed(&h).contains(&file), "{:?}", clean_listed(&h));
    let before = trashed(data);
    // While the dialog waits, pi writes the session's first user message.
    pi_writes_a_user_message(&file);
    age(&file);
    h.key("enter");
    let said = h.app.message().map(|m| m.text.clone()).unwrap_or_default();
    assert!(
        said.contains("the clean-up rules no longer pick it"),
        "{said}"
    );
    assert!(file.exists(), "kept");
    assert!(
        trashed(data)
            .iter()
            .all(|n| before.contains(n) || !n.contains("_empty")),
        "{:?}",
        trashed(data)
    );
}
