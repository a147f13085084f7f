//! The browser's deep search (Ctrl+F) searches every session of the list's
//! scope, whatever the quick search lists, and finds what
//! `piscope ls --all --deep --json` finds: the same hits, in the same
//! order, for queries that hit every kind of entry the demo sessions hold.

use piscope::catalog::SessionsFolder;
use piscope::catalog::discover::FolderSource;
use piscope::tui::harness::{DEMO_NOW_MS, Harness};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const WIDE: (u16, u16) = (160, 40);

/// One hit: the file, the entry and its kind.
type Hit = (PathBuf, Option<String>, String);

fn cli_hits(agent: &Path, query: &str) -> Vec<Hit> {
    crate::support::ls_json(agent, &["--deep", "--query", query])
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                PathBuf::from(h["path"].as_str().unwrap()),
                h["entryId"]
                    .as_str()
                    .or(h["id"].as_str())
                    .map(str::to_string),
                h["kind"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn ctrl_f_finds_what_ls_deep_finds_in_the_whole_scope() {
    let home = tempfile::tempdir().unwrap();
    let agent = home.path().join("agent");
    let dir = agent.join("sessions");
    std::fs::create_dir_all(&dir).unwrap();
    piscope::tui::work::demo::write_demo_sessions(&dir, DEMO_NOW_MS).unwrap();
    let folder = SessionsFolder {
        dir: dir.clone(),
        layout: piscope::catalog::Layout::PerProject,
        source: FolderSource::Default,
        cwd: PathBuf::from("/nowhere"),
    };
    let mut kinds = BTreeSet::new();
    for query in [
        "cart",
        "total",
        "typecheck",
        "lexer",
        "scrollback",
        "npm",
        "tmux",
        "badge",
    ] {
        let mut h = Harness::folder(folder.clone(), WIDE);
        h.type_text(query);
        h.key("ctrl+f");
        let deep = h.app.picker().deep_search().expect("a deep search");
        let ours: Vec<Hit> = deep
            .hits()
            .iter()
            .map(|d| {
                (
                    d.path.to_path_buf(),
                    d.entry_id.as_deref().map(str::to_string),
                    d.kind.to_string(),
                )
            })
            .collect();
        let theirs = cli_hits(&agent, query);
        assert!(!theirs.is_empty(), "{query}: no hit to compare");
        assert_eq!(ours, theirs, "{query}");
        kinds.extend(theirs.into_iter().map(|h| h.2));
    }
    // Text the quick search cannot see (tool output, summaries) is found
    // with a quick search that lists nothing.
    eprintln!("kinds: {kinds:?}");
    assert!(kinds.len() >= 4, "{kinds:?}");
}
