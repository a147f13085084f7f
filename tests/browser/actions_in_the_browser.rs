//! The editing actions and live reload, driven through the app's one
//! `update` on copies of real pi-written sessions: what each key asks, what
//! lands in the file, and how the panes follow.

use crate::support::tui as tui_common;

use crate::support::age;
use piscope::catalog::housekeeping::delete::check_deletable;
use piscope::session::Session;
use piscope::tui::event::AppEvent;
use piscope::tui::harness::Harness;
use piscope::tui::look::layout::Pane;
use piscope::tui::state::{Exit, Then};
use piscope::tui::work::jobs::ActionOutcome;
use piscope::tui::work::resume::PiCommand;
use std::io::Write;
use std::path::{Path, PathBuf};
use tui_common::{big_demo, demo_folder};

const WIDE: (u16, u16) = (160, 40);

/// A temporary folder whose name the snapshot filters blank out.
fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("piscope-test-")
        .tempdir()
        .unwrap()
}

/// A copy of the big demo session, last changed long ago (no pi running).
fn quiet_copy(dir: &Path) -> PathBuf {
    let path = dir.join("s.jsonl");
    std::fs::copy(big_demo(), &path).unwrap();
    age(&path);
    path
}

fn selected_id(h: &Harness) -> String {
    let t = h.app.tree().loaded().expect("a session is shown");
    let node = h.app.tree().selected_node().expect("a row is selected");
    t.entry(node).id_str().unwrap_or("").to_string()
}

fn leaf_id(h: &Harness) -> String {
    let t = h.app.tree().loaded().unwrap();
    t.entry(t.view.leaf.unwrap()).id_str().unwrap().to_string()
}

fn message(h: &Harness) -> String {
    h.app.message().map(|m| m.text.clone()).unwrap_or_default()
}

#[test]
fn a_label_is_written_prefilled_and_cleared() {
    let dir = tmp();
    let path = quiet_copy(dir.path());
    let mut h = Harness::file(&path, WIDE);
    h.keys(&["up", "up"]);
    let target = selected_id(&h);
    h.key("alt+l");
    assert!(h.app.dialog().is_some());
    h.type_text("keep me");
    h.key("enter");
    assert!(h.app.dialog().is_none());
    let s = Session::open(&path).unwrap();
    let node = s.find(&target).unwrap();
    assert_eq!(s.label_of(node).unwrap().label, "keep me");
    assert!(h.screen().contains("[keep me]"), "the tree shows it");
    assert_eq!(selected_id(&h), target, "the selection stayed");
    // Pre-filled with the label; emptied, it clears.
    h.key("alt+l");
    let field = h.app.dialog().unwrap().input.clone().unwrap();
    assert_eq!(field.text, "keep me");
    h.keys(&["ctrl+u", "enter"]);
    let s = Session::open(&path).unwrap();
    assert!(s.label_of(s.find(&target).unwrap()).is_none());
    assert_eq!(message(&h), "Label cleared");
}

#[test]
fn branching_moves_the_leaf_and_the_marks() {
    let dir = tmp();
    let path = quiet_copy(dir.path());
    let mut h = Harness::file(&path, WIDE);
    // On the leaf: nothing to do.
    h.key("ctrl+g");
    h.key("enter");
    assert!(h.app.dialog().is_none());
    assert_eq!(message(&h), "Already at this point");
    // An assistant entry further up: pi resumes from it.
    h.keys(&["up", "up", "up"]);
    let t = h.app.tree().loaded().unwrap().clone();
    let node = h.app.tree().selected_node().unwrap();
    assert_ne!(
        t.session.role_of(node),
        Some(&piscope::session::line::entry::Role::User)
    );
    let target = selected_id(&h);
    let old_leaf = leaf_id(&h);
    h.key("enter");
    h.type_text("tried the other way");
    h.key("enter");
    let s = Session::open(&path).unwrap();
    let leaf = s.leaf().unwrap();
    assert_eq!(s.tree.parent(leaf), s.find(&target));
    assert_ne!(leaf_id(&h), old_leaf, "the leaf mark moved");
    assert_eq!(leaf_id(&h), s.leaf_id().unwrap());
    let t = h.app.tree().loaded().unwrap();
    assert!(t.view.on_path(s.find(&target).unwrap()), "on the path");
    assert!(
        h.screen()
            .contains("◉ [branch summary]: tried the other way")
    );
    assert!(message(&h).starts_with("pi now resumes at"));
}

#[test]
fn writing_next_to_a_running_pi_asks_first() {
    let dir = tmp();
    let path = dir.path().join("s.jsonl");
    std::fs::copy(big_demo(), &path).unwrap();
    let before = std::fs::read(&path).unwrap();
    let mut h = Harness::file(&path, WIDE);
    h.keys(&["ctrl+r", "ctrl+u"]);
    h.type_text("fresh");
    h.key("enter");
    let d = h.app.dialog().expect("asked first");
    assert!(
        d.body.join(" ").contains("pi may have it open"),
        "{:?}",
        d.body
    );
    screen_snapshot!("dialog_running_pi", h);
    h.key("esc");
    assert_eq!(std::fs::read(&path).unwrap(), before, "nothing written");
    h.keys(&["ctrl+r", "ctrl+u"]);
    h.type_text("fresh");
    h.keys(&["enter", "y"]);
    assert_eq!(
        Session::open(&path).unwrap().name().as_deref(),
        Some("fresh")
    );
    // Our own write is no sign of pi: the next one goes straight through.
    h.key("ctrl+r");
    h.keys(&["ctrl+u", "enter"]);
    assert!(h.app.dialog().is_none());
    assert_eq!(Session::open(&path).unwrap().name(), None);
}

#[test]
fn fork_writes_a_new_session_and_selects_it() {
    let (_d, folder) = demo_folder("/home/ada/src/web-shop");
    let mut h = Harness::folder(folder, WIDE);
    let original = h.app.open_path().cloned().unwrap();
    let count = h.app.picker().sessions().len();
    h.key("tab");
    h.keys(&["ctrl+g", "up"]);
    let leaf = selected_id(&h);
    h.key("alt+f");
    assert_eq!(h.app.picker().sessions().len(), count + 1);
    let fork = h.app.open_path().cloned().unwrap();
    assert_ne!(fork, original);
    assert_eq!(fork.parent(), original.parent(), "beside the original");
    assert_eq!(
        h.app.picker().selected_session().map(|s| s.path.clone()),
        Some(fork.clone())
    );
    let s = Session::open(&fork).unwrap();
    assert_eq!(s.leaf_id(), Some(leaf.as_str()));
    assert!(message(&h).starts_with("Forked into"));
}

#[test]
fn export_writes_markdown_where_the_user_confirms() {
    let dir = tmp();
    let path = quiet_copy(dir.path());
    let mut h = Harness::file(&path, WIDE);
    // Into the folder piscope runs in, as pi's /export, by its whole path.
    let here = tmp();
    h.app.set_here(here.path().to_path_buf());
    let to = here.path().join("s.md");
    h.key("ctrl+e");
    let field = h.app.dialog().unwrap().input.clone().unwrap();
    assert_eq!(PathBuf::from(&field.text), to);
    screen_snapshot!("dialog_export", h);
    h.key("enter");
    let md = std::fs::read_to_string(&to).unwrap();
    assert!(md.starts_with("# "), "{md}");
    assert_eq!(message(&h), format!("Exported to {}", to.display()));
    // It counts the messages as the preview's header counts them (wide
    // enough to give the count).
    h.resize(250, 40);
    let header = h.screen();
    let count = header
        .split(" · ")
        .find_map(|p| p.strip_suffix(" messages"))
        .and_then(|n| n.rsplit(' ').next())
        .unwrap_or_else(|| panic!("the preview counts its messages:\n{header}"))
        .to_string();
    assert!(
        md.contains(&format!("{count} messages")),
        "{count}: {md:.600}"
    );
    // An existing file is never replaced.
    h.keys(&["ctrl+e", "enter"]);
    assert!(h.app.message().unwrap().error);
    assert_eq!(std::fs::read_to_string(&to).unwrap(), md);
}

#[test]
fn export_offers_an_html_page_of_the_branch_or_of_every_branch() {
    let dir = tmp();
    let path = quiet_copy(dir.path());
    let mut h = Harness::file(&path, WIDE);
    h.app.set_here(dir.path().to_path_buf());
    let field = |h: &Harness| h.app.dialog().unwrap().input.clone().unwrap().text;
    let body = |h: &Harness| h.app.dialog().unwrap().body.join("\n");
    h.key("ctrl+e");
    assert!(body(&h).contains("[Markdown] · HTML page · HTML, every branch  (Ctrl+F switches)"));
    // Ctrl+F goes to an HTML page of the branch; the name follows.
    h.key("ctrl+f");
    assert_eq!(PathBuf::from(field(&h)), path.with_extension("html"));
    assert!(
        body(&h).contains("Markdown · [HTML page] ·"),
        "{}",
        body(&h)
    );
    h.key("enter");
    let page = std::fs::read_to_string(path.with_extension("html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"), "{page:.200}");
    assert!(
        !page.contains("<script"),
        "a self-contained page runs nothing"
    );
    assert!(
        page.contains("Cart badge") || page.contains("cart"),
        "the branch's text"
    );
    assert!(!page.contains("class=\"branches\""), "one branch only");
    assert!(message(&h).contains("s.html"), "{}", message(&h));
    // Twice: every branch, beside it under its own name.
    h.keys(&["ctrl+e", "ctrl+f", "ctrl+f"]);
    let all = dir.path().join("s.branches.html");
    assert_eq!(PathBuf::from(field(&h)), all);
    h.key("enter");
    let page = std::fs::read_to_string(&all).unwrap();
    assert!(page.contains("<h2>Branches</h2>"), "{page:.300}");
    assert_eq!(
        page.matches("class=\"branch-title\"").count(),
        2,
        "both branches"
    );
    assert!(message(&h).contains("s.branches.html"));
    // A name the user typed keeps its stem as the format changes, and the
    // third switch comes back to Markdown.
    h.keys(&["ctrl+e", "ctrl+u"]);
    h.type_text(&dir.path().join("mine.md").to_string_lossy());
    h.key("ctrl+f");
    assert_eq!(PathBuf::from(field(&h)), dir.path().join("mine.html"));
    h.keys(&["ctrl+f", "ctrl+f"]);
    assert_eq!(PathBuf::from(field(&h)), dir.path().join("mine.md"));
    h.key("enter");
    assert!(
        std::fs::read_to_string(dir.path().join("mine.md"))
            .unwrap()
            .starts_with("# ")
    );
}

#[test]
fn copy_takes_the_entrys_full_text() {
    let dir = tmp();
    let path = quiet_copy(dir.path());
    let mut h = Harness::file(&path, WIDE);
    let t = h.app.tree().loaded().unwrap().clone();
    let node = h.app.tree().selected_node().unwrap();
    let text = piscope::tui::operations::copy::entry_text(&t.session, node).unwrap();
    assert!(!text.is_empty());
    h.key("ctrl+x");
    assert!(message(&h).starts_with("Copied"), "{}", message(&h));
}

#[test]
fn resume_hands_over_to_pi_or_says_why_not() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder, WIDE);
    let chosen = h.app.picker().selected_session().unwrap().clone();
    // Named so that the snapshot blanks it: the command by hand starts here.
    let here = tempfile::Builder::new()
        .prefix("piscope-test-")
        .tempdir()
        .unwrap();
    h.app.set_here(here.path().to_path_buf());
    // pi is not installed.
    h.app
        .set_pi_command(PiCommand::parse("no-such-pi-here --fast").unwrap());
    h.key("enter");
    screen_snapshot!("dialog_pi_missing", h);
    h.key("enter");
    assert!(!h.app.quits());
    // The demo's folders do not exist here: ask, then use the current one.
    h.app
        .set_pi_command(PiCommand::parse("sh -c true").unwrap());
    h.key("enter");
    let d = h.app.dialog().expect("asked about the folder");
    assert!(d.body[0].contains("/home/ada/dotfiles"));
    h.key("enter");
    match h.app.exit().cloned() {
        Some(Exit::Resume(r)) => {
            assert_eq!(r.cwd, here.path());
            let argv: Vec<String> = r
                .argv
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            assert_eq!(
                argv,
                vec![
                    "sh".to_string(),
                    "-c".into(),
                    "true".into(),
                    "--session".into(),
                    chosen.path.display().to_string()
                ]
            );
        }
        other => panic!("no resume: {other:?}"),
    }
    assert!(h.app.quits());
}

#[test]
fn print_mode_prints_the_chosen_session() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder, WIDE);
    h.app.set_print_mode(true);
    h.key("down");
    let chosen = h.app.picker().selected_session().unwrap().path.clone();
    h.key("enter");
    assert_eq!(h.app.exit(), Some(&Exit::Print(chosen)));
    assert!(h.app.quits());
}

#[test]
fn deleting_names_each_session_and_offers_for_good_only_when_the_trash_fails() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder.clone(), WIDE);
    h.keys(&["ctrl+space", "down", "ctrl+space"]);
    assert_eq!(h.app.picker().marked().len(), 2);
    h.key("ctrl+d");
    let body = h.app.dialog().unwrap().body.clone();
    assert_eq!(body.len(), 3, "{body:?}");
    screen_snapshot!("dialog_delete_marked", h);
    h.key("esc");
    // The trash failed (as reported by the work): a second, explicit question.
    let paths: Vec<PathBuf> = h.app.picker().marked().iter().cloned().collect();
    h.send(AppEvent::ActionDone(ActionOutcome::Deleted {
        paths: Vec::new(),
        to_trash: true,
        trash_failed: paths
            .iter()
            .map(|p| {
                let checked = check_deletable(&folder, p).unwrap();
                (checked, "no trash folder on this device".to_string())
            })
            .collect(),
        errors: Vec::new(),
    }));
    screen_snapshot!("dialog_delete_for_good", h);
    h.key("enter");
    assert!(h.app.dialog().is_some(), "Enter alone does not delete");
    h.type_text("delete");
    h.key("enter");
    for p in &paths {
        assert!(!p.exists(), "{} deleted for good", p.display());
    }
    assert_eq!(message(&h), "Deleted 2 sessions for good");
    assert!(
        h.app
            .picker()
            .sessions()
            .iter()
            .all(|s| !paths.contains(&s.path))
    );
}

#[test]
fn delete_empty_sessions_is_one_reviewed_batch() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let empty = folder
        .dir
        .join("--home-ada-dotfiles--")
        .join("2026-01-12T00-00-00-000Z_e.jsonl");
    std::fs::write(
        &empty,
        "{\"type\":\"session\",\"version\":3,\"id\":\"e\",\"timestamp\":\"2026-01-12T00:00:00.000Z\",\"cwd\":\"/home/ada/dotfiles\"}\n",
    )
    .unwrap();
    let mut h = Harness::folder(folder, WIDE);
    h.key("ctrl+e");
    let body = h
        .app
        .dialog()
        .as_ref()
        .expect("reviewed first")
        .body
        .clone();
    assert_eq!(body.len(), 2, "only the empty one: {body:?}");
    assert!(body[1].contains("2026-01-12T00-00-00-000Z_e.jsonl"));
}

#[test]
fn rename_from_the_sessions_list_is_prefilled() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder, WIDE);
    let named = h
        .app
        .picker()
        .sessions()
        .iter()
        .position(|s| s.name.is_some())
        .unwrap();
    let s = h.app.picker().sessions()[named].clone();
    age(&s.path);
    // Down to it (a bounded walk: a key that stopped moving fails here
    // rather than hanging).
    for _ in 0..h.app.picker().sessions().len() * 2 {
        if h.app.picker().selected_session().map(|x| &x.path) == Some(&s.path) {
            break;
        }
        h.key("down");
    }
    assert_eq!(
        h.app.picker().selected_session().map(|x| &x.path),
        Some(&s.path)
    );
    h.key("ctrl+r");
    let field = h.app.dialog().unwrap().input.clone().unwrap();
    assert_eq!(Some(field.text), s.name);
    screen_snapshot!("dialog_rename", h);
    h.keys(&["ctrl+u"]);
    h.type_text("renamed here");
    h.key("enter");
    assert_eq!(
        Session::open(&s.path).unwrap().name().as_deref(),
        Some("renamed here")
    );
    let listed = h.app.picker().selected_session().unwrap();
    assert_eq!(
        listed.name.as_deref(),
        Some("renamed here"),
        "the list follows"
    );
}

#[test]
fn live_reload_reads_on_and_follows_the_leaf() {
    let dir = tmp();
    let path = quiet_copy(dir.path());
    let mut h = Harness::file(&path, WIDE);
    h.key("home");
    let chosen = selected_id(&h);
    let leaf = leaf_id(&h);
    let line = |text: &str, id: &str, parent: &str| {
        format!(
            "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":\"{parent}\",\"timestamp\":\"2026-01-11T18:30:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"{text}\"}}}}\n"
        )
    };
    let append = |bytes: &str| {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(bytes.as_bytes()).unwrap();
    };
    // A half-written line waits for the rest.
    let first = line("first new", "feed0001", &leaf);
    let (head, tail) = first.split_at(first.len() / 2);
    append(head);
    h.send(AppEvent::FileChanged(path.clone()));
    assert_eq!(leaf_id(&h), leaf);
    append(tail);
    h.send(AppEvent::FileChanged(path.clone()));
    assert_eq!(leaf_id(&h), "feed0001");
    assert_eq!(selected_id(&h), chosen, "selection kept");
    // Follow: the cursor goes with the leaf.
    h.key("alt+w");
    assert_eq!(selected_id(&h), "feed0001");
    append(&line("second new", "feed0002", "feed0001"));
    h.send(AppEvent::FileChanged(path.clone()));
    assert_eq!(selected_id(&h), "feed0002");
    assert!(h.screen().contains("[follow]"));
    // Rewritten shorter (pi migrating it): read again in full.
    std::fs::copy(big_demo(), &path).unwrap();
    h.send(AppEvent::FileChanged(path.clone()));
    assert_eq!(leaf_id(&h), leaf);
    // Deleted: said, nothing crashes.
    std::fs::remove_file(&path).unwrap();
    h.send(AppEvent::FileChanged(path.clone()));
    assert!(h.screen().contains("This session was deleted."));
    h.keys(&["down", "enter", "alt+l", "esc"]);
}

#[test]
fn new_and_deleted_session_files_come_and_go_in_the_list() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder.clone(), WIDE);
    let count = h.app.picker().sessions().len();
    let open = h.app.open_path().cloned().unwrap();
    let new = open.with_file_name("2026-01-12T09-00-00-000Z_new.jsonl");
    std::fs::copy(big_demo(), &new).unwrap();
    h.send(AppEvent::FileChanged(new.clone()));
    assert_eq!(h.app.picker().sessions().len(), count + 1);
    std::fs::remove_file(&open).unwrap();
    h.send(AppEvent::FileChanged(open.clone()));
    assert_eq!(h.app.picker().sessions().len(), count);
    assert!(h.app.picker().sessions().iter().all(|s| s.path != open));
    assert_ne!(h.app.open_path(), Some(&open), "another session is shown");
    assert_eq!(h.app.focus(), Pane::Picker);
}

#[test]
fn polling_is_said_in_the_status_bar() {
    let dir = tmp();
    let path = quiet_copy(dir.path());
    let mut h = Harness::file(&path, WIDE);
    h.send(AppEvent::Watching(piscope::watch::WatchMode::Polling {
        reason: "asked for with --poll".into(),
    }));
    let s = h.screen();
    assert!(
        s.contains("Watching for changes by polling: asked for with --poll"),
        "{s}"
    );
    assert!(s.contains("polling"));
}

#[test]
fn branch_here_says_what_pi_does_keeps_the_filter_and_never_writes_twice() {
    let dir = tmp();
    let path = quiet_copy(dir.path());
    let mut h = Harness::file(&path, WIDE);
    // On a user message pi resumes just before it, to send it again.
    h.key("ctrl+u");
    h.key("up");
    let t = h.app.tree().loaded().unwrap().clone();
    let node = h.app.tree().selected_node().unwrap();
    assert_eq!(
        t.session.role_of(node),
        Some(&piscope::session::line::entry::Role::User)
    );
    h.key("enter");
    let screen = h.screen();
    assert!(screen.contains("pi will resume just before:"), "{screen}");
    assert!(screen.contains("send it again"), "{screen}");
    h.key("esc");
    h.key("ctrl+u");

    // An assistant entry: branched to without a summary, pi's leaf becomes
    // piscope's marker under it, which the default filter hides.
    h.key("home");
    for _ in 0..20 {
        h.key("down");
        let t = h.app.tree().loaded().unwrap();
        let node = h.app.tree().selected_node().unwrap();
        if t.session.role_of(node) == Some(&piscope::session::line::entry::Role::Assistant) {
            break;
        }
    }
    let target = selected_id(&h);
    h.key("enter");
    assert!(
        h.screen().contains("pi will resume from:"),
        "{}",
        h.screen()
    );
    h.key("enter");
    let s = Session::open(&path).unwrap();
    let marker = s.leaf().unwrap();
    assert_eq!(s.tree.parent(marker), s.find(&target));
    assert!(
        !h.app.tree().position().contains("[all]"),
        "the filter stays: {}",
        h.app.tree().position()
    );
    assert_eq!(selected_id(&h), target, "the row where pi now resumes");
    assert!(h.screen().contains("◉ assistant:"), "{}", h.screen());

    // Branching there again would only write a second marker: nothing is
    // written.
    let before = std::fs::read(&path).unwrap();
    h.key("enter");
    assert!(h.app.dialog().is_none());
    assert_eq!(message(&h), "Already at this point");
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// The sessions the clean-up dialog lists (what Enter would trash).
fn clean_listed(h: &Harness) -> Vec<PathBuf> {
    match &h.app.dialog().expect("the clean-up dialog").then {
        Then::Clean { picked, .. } => picked.clone(),
        other => panic!("not the clean-up dialog: {other:?}"),
    }
}

#[test]
fn the_clean_up_dialog_lists_what_the_rules_pick_as_they_are_typed() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let files = tui_common::demo_copies(&folder);
    let mut h = Harness::folder(folder, WIDE);
    h.key("alt+c");
    // The usual rules pick none of the demo sessions: Enter does nothing.
    let d = h.app.dialog().expect("the clean-up dialog");
    assert_eq!(d.input.as_ref().unwrap().text, "--empty --older-than 30d");
    assert!(
        d.body
            .iter()
            .any(|l| l == "No listed session matches these rules."),
        "{:?}",
        d.body
    );
    assert!(clean_listed(&h).is_empty());
    h.key("enter");
    assert!(h.app.dialog().is_some(), "nothing to confirm");

    // Typed anew, the list follows at every key: an unfinished rule says
    // why, then the sessions the rules pick, by `piscope clean`'s own code.
    h.key("ctrl+u");
    h.type_text("--older-than 1");
    let body = h.app.dialog().unwrap().body.join("\n");
    assert!(body.contains("Rules: \"1\": unknown unit"), "{body}");
    assert!(clean_listed(&h).is_empty());
    h.type_text("0d");
    let ten_days = clean_listed(&h);
    assert_eq!(ten_days.len(), 5, "{ten_days:?}");
    screen_snapshot!("dialog_clean_live", h);
    let rules = piscope::catalog::housekeeping::clean::parse_rules("--older-than 10d").unwrap();
    let summaries: Vec<_> = h.app.picker().listed_sessions();
    let expected: Vec<PathBuf> = rules
        .pick(&summaries, piscope::tui::harness::DEMO_NOW_MS)
        .iter()
        .map(|p| p.summary.path.clone())
        .collect();
    assert_eq!(
        ten_days, expected,
        "the rules' own pick, in the list's order"
    );
    for p in &ten_days {
        let s = h.app.picker().sessions().iter().find(|s| &s.path == p);
        let title: String = piscope::safe_text::clean_line(s.unwrap().title())
            .chars()
            .take(20)
            .collect();
        assert!(
            h.screen().contains(&title),
            "{title} is shown:\n{}",
            h.screen()
        );
    }
    // One more day: the list shrinks at once.
    h.keys(&["backspace", "backspace"]);
    h.type_text("2d");
    let twelve_days = clean_listed(&h);
    assert_eq!(twelve_days.len(), 4);
    assert!(twelve_days.iter().all(|p| ten_days.contains(p)));
    // Another rule combined with it: all must hold.
    h.type_text(" --larger-than 1G");
    assert!(clean_listed(&h).is_empty());
    assert!(
        h.screen()
            .contains("No listed session matches these rules.")
    );
    // Esc: nothing was touched.
    h.key("esc");
    assert!(h.app.dialog().is_none());
    assert!(files.iter().all(|f| f.exists()));
}

/// Undo that passed over a damaged journal line or a trash entry that does
/// not read says so beside what came back, and is no failure.
#[test]
fn undo_says_what_it_passed_over() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder, WIDE);
    let path = h.app.picker().sessions()[0].path.clone();
    h.send(AppEvent::ActionDone(ActionOutcome::Restored {
        paths: vec![path],
        errors: Vec::new(),
        skipped: vec![
            "/t/info/odd.trashinfo: not a trash record (a malformed percent-encoding in its Path); skipped".to_string(),
            "/d/journal.jsonl: line 2: not a journal record (EOF); skipped".to_string(),
        ],
    }));
    let said = message(&h);
    assert!(said.starts_with("Restored "), "{said}");
    assert!(
        said.contains("passed over /t/info/odd.trashinfo") && said.contains("(and 1 more)"),
        "{said}"
    );
    assert!(!h.app.message().is_some_and(|m| m.error), "{said}");
}

/// After a delete to the trash, the message names the key that undoes it,
/// as the keymap binds it.
#[test]
fn after_a_delete_the_undo_key_is_named() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder, WIDE);
    let gone = h
        .app
        .picker()
        .selected_session()
        .map(|s| s.path.clone())
        .expect("a session selected");
    h.send(AppEvent::ActionDone(ActionOutcome::Deleted {
        paths: vec![gone.clone()],
        to_trash: true,
        trash_failed: Vec::new(),
        errors: Vec::new(),
    }));
    assert_eq!(message(&h), "Moved 1 session to the trash (Alt+U undoes)");
    assert!(h.app.picker().sessions().iter().all(|s| s.path != gone));
}

#[test]
fn after_a_delete_the_cursor_stays_at_the_neighbour() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder, WIDE);
    let selected = |h: &Harness| h.app.picker().selected_session().map(|s| s.path.clone());
    let listed = |h: &Harness| -> Vec<PathBuf> {
        h.app
            .picker()
            .listed_sessions()
            .iter()
            .map(|s| s.path.clone())
            .collect()
    };
    // A session in the middle of the list: its neighbour below takes its
    // place; the last one's neighbour is the one above.
    h.keys(&["home", "down", "down", "down", "down"]);
    for _ in 0..2 {
        let gone = selected(&h).expect("a session selected");
        let list = listed(&h);
        let at = list.iter().position(|p| *p == gone).unwrap();
        let neighbour = list.get(at + 1).or(list.get(at.wrapping_sub(1))).cloned();
        h.send(AppEvent::ActionDone(ActionOutcome::Deleted {
            paths: vec![gone.clone()],
            to_trash: true,
            trash_failed: Vec::new(),
            errors: Vec::new(),
        }));
        assert_eq!(selected(&h), neighbour, "{}", h.screen());
        h.key("end");
    }
}
