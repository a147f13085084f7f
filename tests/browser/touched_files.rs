//! The files sessions touched, in the browser, on sessions pi's own
//! SessionManager wrote (`tests/pi/pi-touched.mjs`): the sessions pane's
//! filter keeps the sessions `piscope ls --touched` lists, for a glob typed
//! or a file picked, and says so in the pane's title; the tree's list of
//! the session's files steps through the entries that changed the one
//! chosen, newest first, with the edit's diff in the preview.

use piscope::catalog::SessionsFolder;
use piscope::catalog::discover::FolderSource;
use piscope::tui::harness::Harness;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const WIDE: (u16, u16) = (160, 40);

fn corpus(agent: &Path) {
    let script = crate::support::harness("pi-touched.mjs");
    let o = crate::support::node(&script)
        .arg(agent)
        .args(["7", "24"])
        .output()
        .expect("run pi-touched.mjs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn browser(agent: &Path) -> Harness {
    Harness::folder(
        SessionsFolder {
            dir: agent.join("sessions"),
            layout: piscope::catalog::Layout::PerProject,
            source: FolderSource::Default,
            cwd: PathBuf::from("/nowhere"),
        },
        WIDE,
    )
}

/// `ls --touched PATTERN --json`: each session's path and its touches.
fn cli(agent: &Path, pattern: &str) -> Vec<(PathBuf, Vec<serde_json::Value>)> {
    crate::support::ls_json(agent, &["--touched", pattern])
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                PathBuf::from(s["path"].as_str().unwrap()),
                s["touches"].as_array().unwrap().clone(),
            )
        })
        .collect()
}

fn listed(h: &Harness) -> BTreeSet<PathBuf> {
    h.app
        .picker()
        .listed_sessions()
        .into_iter()
        .map(|s| s.path)
        .collect()
}

#[test]
fn the_sessions_filter_keeps_what_ls_touched_lists() {
    if !crate::support::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let agent = tmp.path().join("agent");
    corpus(&agent);
    let mut h = browser(&agent);
    let all = listed(&h);
    // A glob typed: resolved against each session's cwd, as ls does.
    h.key("alt+t");
    assert!(
        h.screen().contains("Sessions that touched a file"),
        "{}",
        h.screen()
    );
    h.type_text("src/*.rs");
    h.key("enter");
    let want: BTreeSet<PathBuf> = cli(&agent, "src/*.rs").into_iter().map(|s| s.0).collect();
    assert!(!want.is_empty() && want.len() < all.len(), "{want:?}");
    assert_eq!(listed(&h), want);
    let title = |h: &mut Harness| h.screen().lines().next().unwrap_or_default().to_string();
    assert!(
        title(&mut h).contains("touched src/*.rs"),
        "{}",
        title(&mut h)
    );
    // The same key lists every session again.
    h.key("alt+t");
    assert_eq!(listed(&h), all);
    assert!(!title(&mut h).contains("touched"), "{}", title(&mut h));
    // A file picked from those the sessions touched (narrowed by typing).
    h.key("alt+t");
    h.type_text("/work/shop/api/routes");
    assert!(
        h.screen().contains("/work/shop/api/routes.ts"),
        "{}",
        h.screen()
    );
    h.key("enter");
    let want: BTreeSet<PathBuf> = cli(&agent, "/work/shop/api/routes.ts")
        .into_iter()
        .map(|s| s.0)
        .collect();
    assert!(!want.is_empty());
    assert_eq!(listed(&h), want);
}

#[test]
fn the_trees_list_steps_through_the_entries_that_changed_a_file() {
    if !crate::support::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let agent = tmp.path().join("agent");
    corpus(&agent);
    // A file some session changed more than once, by ls's word.
    let json = crate::support::ls_json(&agent, &["--touched", "/**"]);
    let (path, cwd, file, changed) = json
        .as_array()
        .unwrap()
        .iter()
        .find_map(|s| {
            let touches = s["touches"].as_array().unwrap();
            let files: BTreeSet<&str> = touches
                .iter()
                .map(|t| t["file"].as_str().unwrap())
                .collect();
            files.into_iter().find_map(|f| {
                let mut ids: Vec<String> = Vec::new();
                for t in touches
                    .iter()
                    .filter(|t| t["file"] == f && (t["tool"] == "edit" || t["tool"] == "write"))
                {
                    let id = t["entryId"].as_str().unwrap().to_string();
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
                (ids.len() >= 2).then(|| {
                    (
                        PathBuf::from(s["path"].as_str().unwrap()),
                        s["cwd"].as_str().unwrap().to_string(),
                        f.to_string(),
                        ids,
                    )
                })
            })
        })
        .expect("a file changed twice in one session");
    let shown = file
        .strip_prefix(&format!("{cwd}/"))
        .unwrap_or(&file)
        .to_string();
    let touches = &cli(&agent, &file)
        .into_iter()
        .find(|s| s.0 == path)
        .expect("the session")
        .1;
    let path = &path;
    let mut h = browser(&agent);
    // Show that session: filter by its file, then move to it.
    h.key("alt+t");
    h.type_text(&file);
    h.key("enter");
    while h.app.picker().selected_session().map(|s| &s.path) != Some(path) {
        let before = h.app.picker().selected_session().map(|s| s.path.clone());
        h.key("down");
        assert_ne!(
            h.app.picker().selected_session().map(|s| s.path.clone()),
            before,
            "the session is not listed"
        );
    }
    h.key("tab");
    h.key("ctrl+f");
    let screen = h.screen();
    assert!(screen.contains("Files this session touched"), "{screen}");
    h.type_text(&shown);
    h.key("enter");
    let selected = |h: &Harness| {
        let t = h.app.tree().loaded().expect("a session is shown");
        let node = h.app.tree().selected_node().expect("a row");
        t.entry(node).id_str().unwrap_or("").to_string()
    };
    assert_eq!(selected(&h), changed[0]);
    assert!(
        h.screen().contains(&format!("changed {shown}")),
        "{}",
        h.screen()
    );
    for id in changed.iter().skip(1) {
        h.key("alt+n");
        assert_eq!(&selected(&h), id);
    }
    // Round to the newest, and back.
    h.key("alt+n");
    assert_eq!(selected(&h), changed[0]);
    h.key("alt+shift+n");
    assert_eq!(&selected(&h), changed.last().unwrap());
    // An edit's diff is in the preview.
    let first_edit = touches
        .iter()
        .find(|x| x["tool"] == "edit" && x["failed"] == false)
        .and_then(|x| x["entryId"].as_str());
    if let Some(id) = first_edit {
        while selected(&h) != id {
            h.key("alt+n");
        }
        // The tool's own diff, or (a legacy call left without a result)
        // one made from its arguments.
        let screen = h.screen();
        assert!(
            screen.contains("+1 fn new()")
                || screen.contains("+ fn new()")
                || screen.contains("+ b"),
            "{screen}"
        );
    }
}
