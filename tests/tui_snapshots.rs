//! Snapshots of every pane and state of the browser, drawn into ratatui's
//! test backend from real pi-written sessions (the bundled demo sessions).

mod tui_common;

use piscope::tui::config::Config;
use piscope::tui::event::AppEvent;
use piscope::tui::harness::Harness;
use piscope::tui::model::sessions::CatalogUpdate;
use tui_common::{big_demo, bug_hunt_demo, compaction_demo, damaged, demo_folder, labelled_demo};

const WIDE: (u16, u16) = (150, 40);

fn catalog(cwd: &str) -> (tempfile::TempDir, Harness) {
    let (dir, folder) = demo_folder(cwd);
    let h = Harness::folder(folder, WIDE);
    (dir, h)
}

// --- Sessions pane -------------------------------------------------------

#[test]
fn three_panes_open_on_the_current_folders_project() {
    let (_d, mut h) = catalog("/home/ada/src/web-shop");
    screen_snapshot!("three_panes", h);
}

#[test]
fn picker_filters_as_you_type() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.type_text("vat");
    screen_snapshot!("picker_query", h);
}

#[test]
fn picker_says_when_nothing_matches() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.type_text("zzqqxx");
    screen_snapshot!("picker_no_match", h);
}

#[test]
fn picker_reports_an_invalid_pattern() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.type_text("re:(");
    screen_snapshot!("picker_invalid_regex", h);
}

#[test]
fn picker_named_only() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.key("ctrl+n");
    screen_snapshot!("picker_named_only", h);
}

#[test]
fn picker_current_folder_scope() {
    let (_d, mut h) = catalog("/home/ada/src/compiler");
    h.key("ctrl+a");
    screen_snapshot!("picker_scope_current", h);
}

#[test]
fn picker_current_folder_scope_when_empty() {
    let (_d, mut h) = catalog("/somewhere/else");
    h.key("ctrl+a");
    screen_snapshot!("picker_scope_current_empty", h);
}

#[test]
fn picker_sort_recent_and_paths() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.keys(&["ctrl+s", "ctrl+p"]);
    screen_snapshot!("picker_recent_paths", h);
}

#[test]
fn picker_collapses_a_project() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.key("left");
    screen_snapshot!("picker_collapsed", h);
}

#[test]
fn picker_while_loading() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    let folder = h.app.picker().folder().cloned().expect("folder");
    h.send(AppEvent::Catalog(CatalogUpdate::Started {
        folder,
        total: 2000,
        demo: false,
    }));
    screen_snapshot!("picker_loading", h);
}

#[test]
fn picker_deep_search_lists_entries() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.type_text("cargo test");
    h.key("ctrl+f");
    screen_snapshot!("picker_deep_search", h);
}

#[test]
fn no_sessions_at_all_opens_the_demo_with_a_banner() {
    let empty = tempfile::Builder::new()
        .prefix("piscope-test-")
        .tempdir()
        .expect("temp dir");
    let folder = piscope::catalog::SessionsFolder {
        dir: empty.path().to_path_buf(),
        layout: piscope::catalog::Layout::PerProject,
        source: piscope::catalog::discover::FolderSource::Default,
        cwd: "/home/ada/dotfiles".into(),
    };
    let mut h = Harness::folder(folder, WIDE);
    assert!(h.app.picker().is_demo());
    // The copies are watched, not the missing folder of the user's.
    h.send(AppEvent::Watching(piscope::watch::WatchMode::Events));
    let screen = h.screen();
    assert!(screen.contains("Watching the demo copies in"), "{screen}");
    screen_snapshot!("demo_fallback", h);
}

// --- Layouts and overlays ------------------------------------------------

#[test]
fn two_panes_on_a_medium_terminal() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.resize(100, 30);
    screen_snapshot!("two_panes_picker", h);
    h.key("tab");
    screen_snapshot!("two_panes_tree", h);
}

#[test]
fn one_pane_on_a_narrow_terminal() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.resize(70, 24);
    screen_snapshot!("one_pane_picker", h);
    h.keys(&["tab", "tab"]);
    screen_snapshot!("one_pane_preview", h);
}

#[test]
fn help_lists_every_binding() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.key("f1");
    screen_snapshot!("help", h);
}

#[test]
fn tiny_terminal_says_so() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.resize(16, 4);
    screen_snapshot!("too_small", h);
}

#[test]
fn bad_config_is_reported_in_the_status_bar() {
    let config = Config::from_text("[keys.tree]\nfold_or_up = \"n\"\n", false);
    let mut h = Harness::new(
        piscope::tui::state::Start::File(big_demo()),
        piscope::tui::work::workers::JobContext::new(None, None, false, "/".into()),
        config,
        piscope::tui::clock::Clock::fixed(piscope::tui::harness::DEMO_NOW_MS, 0),
        WIDE,
    );
    let screen = h.screen();
    assert!(screen.contains("using the defaults"), "{screen}");
    screen_snapshot!("bad_config", h);
}

// --- Entry tree ----------------------------------------------------------

fn file(path: &std::path::Path) -> Harness {
    Harness::file(path, WIDE)
}

#[test]
fn tree_default_view() {
    let mut h = file(&big_demo());
    screen_snapshot!("tree_default", h);
}

#[test]
fn tree_filters() {
    for (key, name) in [
        ("ctrl+t", "tree_no_tools"),
        ("ctrl+u", "tree_user_only"),
        ("ctrl+l", "tree_labeled_only"),
        ("ctrl+a", "tree_all"),
    ] {
        // The labels are in the named session.
        let demo = if key == "ctrl+l" {
            labelled_demo()
        } else {
            big_demo()
        };
        let mut h = file(&demo);
        h.key(key);
        screen_snapshot!(name, h);
    }
}

#[test]
fn tree_filter_that_hides_everything() {
    let mut h = file(&bug_hunt_demo());
    h.key("ctrl+l");
    screen_snapshot!("tree_labeled_only_empty", h);
}

#[test]
fn tree_fold_and_unfold() {
    let mut h = file(&big_demo());
    h.keys(&["home", "ctrl+right"]);
    h.key("ctrl+left");
    screen_snapshot!("tree_folded", h);
    h.key("ctrl+right");
    let unfolded = h.screen();
    assert!(!unfolded.contains('⊞'), "{unfolded}");
}

#[test]
fn tree_search_with_hits() {
    let mut h = file(&big_demo());
    h.type_text("cart");
    h.key("enter");
    h.key("ctrl+n");
    screen_snapshot!("tree_search", h);
}

#[test]
fn tree_label_times() {
    let mut h = file(&labelled_demo());
    h.keys(&["ctrl+l", "T"]);
    screen_snapshot!("tree_label_times", h);
}

#[test]
fn tree_of_a_file_that_is_not_a_session() {
    // A copy in a temporary folder: the message wraps by the path's length,
    // which must not depend on where the repository is checked out.
    let dir = tempfile::Builder::new()
        .prefix("piscope-test-")
        .tempdir()
        .unwrap();
    let copy = dir.path().join("not_a_session.jsonl");
    std::fs::copy(damaged("not_a_session.jsonl"), &copy).unwrap();
    let mut h = file(&copy);
    screen_snapshot!("tree_not_a_session", h);
}

#[test]
fn tree_of_a_header_only_session() {
    let mut h = file(&damaged("header_only.jsonl"));
    screen_snapshot!("tree_header_only", h);
}

// --- Context preview -----------------------------------------------------

#[test]
fn preview_expanded_and_raw() {
    let mut h = file(&big_demo());
    h.key("tab");
    h.key("o");
    screen_snapshot!("preview_expanded", h);
    h.key("r");
    screen_snapshot!("preview_raw", h);
}

#[test]
fn preview_of_a_compaction() {
    let mut h = file(&compaction_demo());
    h.type_text("compaction:");
    h.key("enter");
    let screen = h.screen();
    assert!(screen.contains("replaced"), "{screen}");
    screen_snapshot!("preview_compaction", h);
}

#[test]
fn preview_of_an_entry_that_adds_nothing() {
    let mut h = file(&big_demo());
    h.key("ctrl+a");
    h.type_text("[model:");
    h.key("enter");
    let screen = h.screen();
    assert!(screen.contains("adds nothing"), "{screen}");
}
