//! The sessions pane's archived scope, on the real archive folder (a
//! temporary XDG_DATA_HOME, set for a run of this test alone in a process
//! of its own): Alt+A archives a session out of pi's folder; Ctrl+A goes to
//! the archived scope, which lists it (and "all" no longer does), searches
//! it (quick and deep), refuses to write to it, and its Alt+A puts it back
//! in pi's folder byte for byte, listed again in "all".

use crate::support::age;
use crate::support::tui::{demo_copies, demo_folder};
use piscope::tui::harness::Harness;
use std::path::{Path, PathBuf};
use std::process::Command;

const WIDE: (u16, u16) = (160, 40);

/// Set in the process that runs the test itself.
const CHILD: &str = "PISCOPE_TEST_ARCHIVED_SCOPE";

#[test]
fn the_archived_scope_lists_searches_and_puts_back() {
    if std::env::var_os(CHILD).is_some() {
        return in_the_browser();
    }
    // The data folder is the process's: this test runs in one of its own.
    let home = tempfile::tempdir().expect("home");
    // The harness names a test by its module path without the crate's name.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let name = format!("{module}::the_archived_scope_lists_searches_and_puts_back");
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args([name.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .env("HOME", home.path())
        .output()
        .expect("run the test binary");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    assert!(said.contains("1 passed"), "the test did not run: {said}");
}

fn listed(h: &Harness) -> Vec<PathBuf> {
    h.app
        .picker()
        .listed_sessions()
        .into_iter()
        .map(|s| s.path)
        .collect()
}

fn message(h: &Harness) -> String {
    h.app.message().map(|m| m.text.clone()).unwrap_or_default()
}

fn title(h: &mut Harness) -> String {
    h.screen().lines().next().unwrap_or_default().to_string()
}

fn in_the_browser() {
    let data = PathBuf::from(std::env::var_os("XDG_DATA_HOME").expect("a data folder"));
    let archive = data.join("piscope/archive/sessions");
    let (_dir, folder) = demo_folder("/home/ada/dotfiles");
    for f in demo_copies(&folder) {
        age(&f); // long quiet: no pi is writing them
    }
    let mut h = Harness::folder(folder.clone(), WIDE);
    let chosen = h
        .app
        .picker()
        .selected_session()
        .expect("a session is selected")
        .clone();
    let original = std::fs::read(&chosen.path).expect("the session");
    let project = chosen
        .path
        .parent()
        .and_then(Path::file_name)
        .expect("project");
    let archived = archive
        .join(project)
        .join(chosen.path.file_name().expect("name"));
    let word = chosen
        .title()
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| w.len() > 3)
        .expect("a word of the title")
        .to_string();

    // Archived from "all": off pi's folder and the list, into the archive.
    h.key("alt+a");
    assert!(h.app.dialog().is_some(), "the archive key asks");
    h.key("enter");
    assert!(!chosen.path.exists(), "{}", message(&h));
    assert_eq!(std::fs::read(&archived).expect("archived"), original);
    assert!(!listed(&h).contains(&chosen.path));

    // Ctrl+A: this folder, then the archive.
    h.key("ctrl+a");
    assert!(title(&mut h).contains("this folder (Ctrl+A: archived)"));
    h.key("ctrl+a");
    assert!(
        title(&mut h).contains("archived (Ctrl+A: all)"),
        "{}",
        h.screen()
    );
    assert_eq!(listed(&h), vec![archived.clone()]);
    assert!(h.screen().contains(&word), "{}", h.screen());

    // Nothing writes to an archived file: the refusal names the way back.
    h.key("ctrl+r");
    assert!(h.app.dialog().is_none());
    assert_eq!(
        message(&h),
        "Archived sessions are not changed: Alt+A puts the session back in pi's folder first"
    );

    // The quick search and the deep search find it in the archive.
    h.type_text(&word);
    assert_eq!(listed(&h), vec![archived.clone()]);
    h.key("ctrl+f");
    let deep = h.app.picker().deep_search().expect("a deep search");
    assert!(!deep.hits().is_empty(), "the deep search finds {word}");
    assert!(deep.hits().iter().all(|d| *d.path == *archived));
    h.keys(&["esc", "esc"]);
    assert_eq!(h.app.picker().query(), "");

    // Alt+A here puts it back, byte for byte, and the archive says how to fill it.
    h.key("alt+a");
    let dialog = h.app.dialog().expect("the put-back question");
    assert_eq!(dialog.title, "Put back");
    h.key("enter");
    assert_eq!(message(&h), "Put 1 session back in pi's sessions folder");
    assert!(!archived.exists());
    assert_eq!(std::fs::read(&chosen.path).expect("put back"), original);
    assert!(listed(&h).is_empty());
    assert!(
        h.screen()
            .contains("Nothing is archived. Alt+A in the other scopes (Ctrl+A) moves"),
        "{}",
        h.screen()
    );

    // Back in "all", listed again.
    h.key("ctrl+a");
    assert!(title(&mut h).contains("all (Ctrl+A: this folder)"));
    assert!(listed(&h).contains(&chosen.path));
    assert_eq!(listed(&h).len(), demo_copies(&folder).len());
}
