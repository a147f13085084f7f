//! Snapshots of every pane and state of the browser, drawn into ratatui's
//! test backend from real pi-written sessions (the bundled demo sessions).

use crate::support::tui as tui_common;

use piscope::tui::config::Config;
use piscope::tui::event::AppEvent;
use piscope::tui::harness::Harness;
use piscope::tui::model::sessions::CatalogUpdate;
use tui_common::{big_demo, bug_hunt_demo, compaction_demo, damaged, demo_folder, labelled_demo};

const WIDE: (u16, u16) = (160, 40);

fn catalog(cwd: &str) -> (tempfile::TempDir, Harness) {
    let (dir, folder) = demo_folder(cwd);
    let h = Harness::folder(folder, WIDE);
    (dir, h)
}

// --- Sessions pane -------------------------------------------------------

#[test]
fn three_panes_open_on_the_current_folders_project() {
    let (_d, mut h) = catalog("/home/ada/src/web-shop");
    screen_snapshot!("sessions_alone", h);
    // The tree focused: the sessions beside the entries and the context.
    h.key("tab");
    screen_snapshot!("three_panes", h);
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
        archived: false,
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

/// pi's `/tree` keys: Shift+L labels the selected entry and Shift+T shows
/// label times; while a search is typed, capitals are typed into it.
#[test]
fn shift_l_and_shift_t_act_as_in_pi() {
    let mut h = file(&labelled_demo());
    let plain = h.screen();
    h.key("T");
    let timed = h.screen();
    assert_ne!(timed, plain, "Shift+T shows label times");
    assert_eq!(h.app.tree().search_state().0, "", "nothing typed");
    h.key("T");
    assert_eq!(h.screen(), plain, "and hides them again");
    h.key("L");
    assert!(h.app.dialog().is_some(), "Shift+L asks for a label");
    h.key("esc");
    h.type_text("cart");
    h.type_text("LT");
    assert_eq!(h.app.tree().search_state().0, "cartLT");
    assert!(h.app.dialog().is_none());
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
    h.key("O");
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

// --- Sessions pane: searching, paths, headings ----------------------------

/// The sessions pane's rows (the left pane's text inside its border).
/// The sessions pane's rows (search box and settings first): inside its
/// side borders beside other panes, whole lines when it is alone.
fn picker_rows(screen: &str) -> Vec<String> {
    let body = screen.lines().skip(1);
    if screen.starts_with(" Sessions") {
        return body
            .take_while(|l| !l.starts_with('━'))
            .map(str::to_string)
            .collect();
    }
    body.filter_map(|l| {
        let l = l.strip_prefix('┃')?;
        let end = l.find('┃')?;
        Some(l[..end].to_string())
    })
    .collect()
}

#[test]
fn a_query_lists_one_flat_list_in_pis_order() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.type_text("emoji");
    let screen = h.screen();
    let rows = picker_rows(&screen);
    assert!(
        rows.iter().all(|r| !r.contains('▾') && !r.contains('▸')),
        "no project headings while searching:\n{screen}"
    );
    // pi's order for the same query over the same sessions.
    let sessions = h.app.picker().sessions().to_vec();
    let query = piscope::catalog::Query::parse("emoji").unwrap();
    let want: Vec<String> = piscope::catalog::filter_and_sort(
        &sessions,
        &query,
        piscope::catalog::SortMode::Threaded,
        false,
    )
    .into_iter()
    .map(|i| sessions[i].path.display().to_string())
    .collect();
    let got: Vec<String> = h
        .app
        .picker()
        .listed_sessions()
        .iter()
        .map(|s| s.path.display().to_string())
        .collect();
    assert_eq!(got, want);
    screen_snapshot!("picker_query", h);
}

#[test]
fn deep_search_centres_and_counts_the_matches_at_any_width() {
    for width in [150u16, 220] {
        let (_d, mut h) = catalog("/home/ada/src/web-shop");
        h.resize(width, 30);
        h.type_text("cart");
        h.key("ctrl+f");
        let screen = h.screen();
        let rows = picker_rows(&screen);
        let hits: Vec<&String> = rows.iter().skip(3).filter(|r| r.contains(':')).collect();
        assert!(hits.len() > 3, "{screen}");
        for r in &hits {
            assert!(
                r.to_lowercase().contains("cart"),
                "the match is in view at {width}: {r:?}\n{screen}"
            );
        }
        // Each session's first hit names it with its number of hits.
        assert!(rows.iter().any(|r| r.contains("(5)")), "{screen}");
        if width == 220 {
            screen_snapshot!("picker_deep_search_wide", h);
        }
    }
}

#[test]
fn deep_search_highlights_the_matched_words() {
    let (_d, mut h) = catalog("/home/ada/src/web-shop");
    h.type_text("cart");
    h.key("ctrl+f");
    let buf = h.frame();
    let theme = piscope::tui::look::theme::Theme::defaults(false);
    // Row 4 is the first hit; its "cart" cells carry the hit style (the
    // sessions pane, focused, has the whole width).
    let row: String = (0..buf.area.width)
        .map(|x| buf[(x, 4)].symbol().to_string())
        .collect();
    let at = row.rfind("cart").expect("cart in the first hit");
    let x = row[..at].chars().count() as u16;
    assert_eq!(buf[(x, 4)].bg, theme.hit.bg.unwrap(), "{row}");
    assert_ne!(buf[(x - 2, 4)].bg, theme.hit.bg.unwrap(), "{row}");
}

#[test]
fn paths_tell_the_sessions_apart_in_aligned_columns() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.resize(220, 30);
    h.type_text("e");
    h.key("ctrl+p");
    let screen = h.screen();
    let rows: Vec<String> = picker_rows(&screen).into_iter().skip(2).collect();
    // A label: the folder (its tail, from a "…", when cut), then "/…" and
    // the file name.
    let label_start = |r: &str| -> Option<usize> {
        let slash = r.find("/…")?;
        r[..slash].rfind(' ').map(|i| i + 1)
    };
    let labels: Vec<&str> = rows
        .iter()
        .filter_map(|r| {
            let start = label_start(r)?;
            let end = r[start..].find("  ").map_or(r.len(), |e| start + e);
            Some(&r[start..end])
        })
        .collect();
    assert!(labels.len() > 3, "{screen}");
    // Each path differs from the others and starts in the same column,
    // counted from the right border (a wide character in a title takes
    // two cells but is one character).
    let mut unique = labels.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), labels.len(), "{labels:?}");
    let cols: Vec<usize> = rows
        .iter()
        .filter_map(|r| Some(r[label_start(r)?..].chars().count()))
        .collect();
    assert!(cols.windows(2).all(|w| w[0] == w[1]), "{cols:?}\n{screen}");
    // No common prefix: the labels start where the file names differ.
    assert!(
        labels.iter().all(|l| !l.contains("2026-01-11")),
        "{labels:?}"
    );
    screen_snapshot!("picker_paths_wide", h);
}

#[test]
fn a_project_heading_or_an_empty_list_shows_no_session() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.key("home");
    let screen = h.screen();
    assert!(picker_rows(&screen)[2].starts_with("› ▾"), "{screen}");
    // The entries and the context, brought in beside the sessions.
    h.key("tab");
    let screen = h.screen();
    assert!(
        screen.contains("Choose a session to see its entries."),
        "{screen}"
    );
    assert!(
        screen.contains("Select an entry to see the context"),
        "{screen}"
    );
    screen_snapshot!("picker_heading_selected", h);
    h.keys(&["shift+tab", "down", "tab"]);
    assert!(!h.screen().contains("Choose a session"));
    h.key("shift+tab");
    h.type_text("zzqqxx");
    h.key("tab");
    let screen = h.screen();
    assert!(
        screen.contains("Choose a session to see its entries."),
        "{screen}"
    );
    assert!(
        screen.contains("Select an entry to see the context"),
        "{screen}"
    );
}

#[test]
fn enter_on_a_folded_heading_keeps_the_selection_in_its_project() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    // The second project: fold it, unfold it with Enter.
    h.keys(&["end", "left"]);
    let folded = h.screen();
    let heading = picker_rows(&folded)
        .into_iter()
        .find(|r| r.starts_with("› ▸"))
        .unwrap_or_else(|| panic!("a folded heading is selected:\n{folded}"));
    h.key("enter");
    let screen = h.screen();
    let rows = picker_rows(&screen);
    let at = rows
        .iter()
        .position(|r| r.starts_with("› ▾"))
        .unwrap_or_else(|| panic!("the unfolded heading is still selected:\n{screen}"));
    assert_eq!(rows[at].replace('▾', "▸"), heading, "{screen}");
    assert!(
        !rows[at + 1].contains('▾'),
        "its sessions follow:\n{screen}"
    );
}

#[test]
fn the_title_names_the_scope_and_its_key() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    let screen = h.screen();
    assert!(
        screen.starts_with(" Sessions · all (Ctrl+A: this folder) "),
        "{screen}"
    );
    h.key("ctrl+a");
    let screen = h.screen();
    assert!(
        screen.starts_with(" Sessions · this folder (Ctrl+A: archived) "),
        "{screen}"
    );
}

// --- Every screen ----------------------------------------------------------

/// A session file of `n` messages in one chain, the last one's text `last`.
fn chain_session(dir: &std::path::Path, n: usize, last: &str) -> std::path::PathBuf {
    let path = dir.join("2026-01-11T10-00-00-000Z_chain.jsonl");
    let mut out = String::from(
        "{\"type\":\"session\",\"version\":3,\"id\":\"chain\",\"timestamp\":\"2026-01-11T10:00:00.000Z\",\"cwd\":\"/nowhere/project\"}\n",
    );
    for i in 0..n {
        let parent = if i == 0 {
            "null".to_string()
        } else {
            format!("\"e{}\"", i - 1)
        };
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let text = if i + 1 == n {
            last.to_string()
        } else {
            format!("message {i}")
        };
        let content = serde_json::json!([{"type": "text", "text": text}]);
        out.push_str(&format!(
            "{{\"type\":\"message\",\"id\":\"e{i}\",\"parentId\":{parent},\"timestamp\":\"2026-01-11T10:00:00.000Z\",\"message\":{{\"role\":\"{role}\",\"content\":{content},\"timestamp\":1768125600000}}}}\n"
        ));
    }
    std::fs::write(&path, out).unwrap();
    path
}

fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("piscope-test-")
        .tempdir()
        .unwrap()
}

/// Presses the default key of an action.
fn press(
    h: &mut Harness,
    scope: piscope::tui::input::keymap::Scope,
    action: piscope::tui::input::keymap::Action,
) {
    let k = piscope::tui::input::keymap::Keymap::defaults()
        .first_key(scope, action)
        .expect("a default key");
    h.send(AppEvent::Key(ratatui::crossterm::event::KeyEvent::new(
        k.code, k.mods,
    )));
}

#[test]
fn the_preview_header_keeps_model_context_and_cost_at_160_columns() {
    let (_d, mut h) = catalog("/home/ada/src/web-shop");
    h.resize(160, 40);
    h.key("tab");
    let screen = h.screen();
    let header = screen.lines().nth(1).unwrap();
    let preview = &header[header.rfind("┃│").unwrap()..];
    // The model whole, the context's size and the cost; what no longer
    // fits (the count of messages, the tokens used) left out.
    assert!(preview.contains("claude-sonnet-4-5 · "), "{preview}");
    assert!(preview.contains("context "), "{preview}");
    assert!(preview.contains(" · $"), "{preview}");
    screen_snapshot!("preview_header_160", h);
}

#[test]
fn a_long_branch_counts_all_its_messages() {
    let dir = tmp();
    let path = chain_session(dir.path(), 450, "the end");
    let mut h = Harness::file(&path, WIDE);
    let screen = h.screen();
    assert!(screen.contains("450 messages"), "{screen}");
}

#[test]
fn expanding_keeps_the_selected_entry_in_view() {
    let mut h = file(&big_demo());
    h.key("tab");
    let theme = piscope::tui::look::theme::Theme::defaults(false);
    let shows_selected = |h: &mut Harness| {
        let buf = h.frame();
        let area = buf.area;
        (2..area.height - 3).any(|y| {
            (area.width / 2..area.width - 2)
                .any(|x| buf[(x, y)].bg == theme.preview_selected.bg.unwrap())
        })
    };
    assert!(shows_selected(&mut h), "{}", h.screen());
    h.key("O");
    assert!(shows_selected(&mut h), "{}", h.screen());
    h.key("O");
    assert!(shows_selected(&mut h), "{}", h.screen());
}

#[test]
fn raw_json_shows_invisible_characters() {
    let dir = tmp();
    let path = chain_session(
        dir.path(),
        2,
        "zero\u{200b}width, bidi\u{202e}rlo, e\u{301}, nb\u{a0}sp",
    );
    let mut h = Harness::file(&path, WIDE);
    h.key("tab");
    h.key("r");
    let screen = h.screen();
    assert!(
        screen.contains(r"zero\u200bwidth, bidi\u202erlo, e\u0301, nb\u00a0sp"),
        "{screen}"
    );
}

#[test]
fn home_and_end_move_in_help_which_stops_at_its_end() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    h.key("f1");
    h.key("end");
    assert!(h.app.help().is_some(), "End keeps the help open");
    let at_end = h.screen();
    assert!(
        at_end.contains("[keys.<pane>] and [theme] tables"),
        "{at_end}"
    );
    for _ in 0..20 {
        h.key("pagedown");
    }
    assert_eq!(h.screen(), at_end, "no scrolling past the end");
    h.key("up");
    assert_ne!(h.screen(), at_end, "one up moves at once");
    h.key("home");
    assert!(h.screen().contains("Everywhere"), "{}", h.screen());
}

#[test]
fn deleting_the_open_session_leaves_no_context_building() {
    let dir = tmp();
    let path = chain_session(dir.path(), 4, "last");
    let mut h = Harness::file(&path, WIDE);
    assert!(h.screen().contains("4 messages"));
    std::fs::remove_file(&path).unwrap();
    h.send(AppEvent::FileChanged(path.clone()));
    let screen = h.screen();
    assert!(!screen.contains("Building the context"), "{screen}");
    assert!(!screen.contains("4 messages"), "{screen}");
}

#[test]
fn unfocused_panes_draw_their_selection_dimmer() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    let theme = piscope::tui::look::theme::Theme::defaults(false);
    let row_bg = |h: &mut Harness, x: u16| {
        let buf = h.frame();
        (1..buf.area.height - 2).map(|y| buf[(x, y)].bg).find(|bg| {
            *bg == theme.selected.bg.unwrap() || *bg == theme.selected_unfocused.bg.unwrap()
        })
    };
    // The sessions pane, focused, alone.
    assert_eq!(row_bg(&mut h, 10), theme.selected.bg);
    assert_eq!(row_bg(&mut h, 60), theme.selected.bg);
    // The tree focused: column 10 is in the sessions pane, 60 in the tree.
    h.key("tab");
    assert_eq!(row_bg(&mut h, 10), theme.selected_unfocused.bg);
    assert_eq!(row_bg(&mut h, 60), theme.selected.bg);
    assert_ne!(theme.selected, theme.selected_unfocused);
}

#[test]
fn toggles_read_without_colour() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let cwd = folder.cwd.clone();
    let mut h = Harness::new(
        piscope::tui::state::Start::Catalog { demo: false },
        piscope::tui::work::workers::JobContext::new(
            Some("/home/ada".into()),
            Some(folder),
            false,
            cwd,
        ),
        Config::defaults(true),
        piscope::tui::clock::Clock::fixed(piscope::tui::harness::DEMO_NOW_MS, 0),
        WIDE,
    );
    let screen = h.screen();
    assert!(
        screen.contains("sort: threaded · named: off · paths: off"),
        "{screen}"
    );
    assert!(
        screen.contains("Sessions · all (Ctrl+A: this folder)"),
        "{screen}"
    );
    // The selection: reversed where the keys act, underlined elsewhere
    // (the tree focused, with the sessions beside it).
    h.key("tab");
    let buf = h.frame();
    use ratatui::style::Modifier;
    let mods = |x: u16| {
        (1..buf.area.height - 2)
            .map(|y| buf[(x, y)].modifier)
            .find(|m| m.intersects(Modifier::REVERSED | Modifier::UNDERLINED))
    };
    assert!(
        mods(60).is_some_and(|m| m.contains(Modifier::REVERSED)),
        "{:?}",
        (0..40).map(|y| buf[(60, y)].modifier).collect::<Vec<_>>()
    );
    assert!(
        mods(10)
            .is_some_and(|m| m.contains(Modifier::UNDERLINED) && !m.contains(Modifier::REVERSED))
    );
    h.keys(&["shift+tab", "ctrl+n", "ctrl+s", "ctrl+a"]);
    let screen = h.screen();
    assert!(
        screen.contains("sort: recent · named: on · paths: off"),
        "{screen}"
    );
    assert!(
        screen.contains("Sessions · this folder (Ctrl+A: archived)"),
        "{screen}"
    );
}

#[test]
fn counts_read_right_and_titles_are_cut_with_an_ellipsis() {
    let dir = tmp();
    let project = dir.path().join("--nowhere-project--");
    std::fs::create_dir(&project).unwrap();
    chain_session(&project, 2, &"a long last message ".repeat(20));
    let folder = piscope::catalog::SessionsFolder {
        dir: dir.path().to_path_buf(),
        layout: piscope::catalog::Layout::PerProject,
        source: piscope::catalog::discover::FolderSource::Default,
        cwd: "/nowhere/project".into(),
    };
    let mut h = Harness::folder(folder, WIDE);
    let screen = h.screen();
    assert!(screen.contains("1 session in 1 project"), "{screen}");
    // A long query keeps its end in view, cut in front with "…".
    h.type_text(&"long ".repeat(40));
    let screen = h.screen();
    assert!(
        screen.lines().nth(1).unwrap().starts_with("> …"),
        "{screen}"
    );
}

#[test]
fn a_file_opened_alone_resumes_in_pi_and_says_how_by_hand() {
    use piscope::tui::input::keymap::{Action, Scope};
    let dir = tmp();
    let path = chain_session(dir.path(), 2, "hello");
    let mut h = Harness::file(&path, WIDE);
    let here = tmp();
    h.app.set_here(here.path().to_path_buf());
    h.app
        .set_pi_command(piscope::tui::work::resume::PiCommand::parse("no-such-pi-here").unwrap());
    press(&mut h, Scope::Tree, Action::Resume);
    let d = h.app.dialog().expect("pi is not installed");
    let by_hand = d.body.last().unwrap().clone();
    // The session's folder is gone: the command starts in one that exists.
    assert!(
        by_hand.starts_with(&format!(
            "cd {} && no-such-pi-here --session ",
            here.path().display()
        )),
        "{by_hand}"
    );
    let screen = h.screen();
    assert!(
        screen.lines().any(|l| l.contains(&by_hand)),
        "on one row:\n{screen}"
    );
    screen_snapshot!("dialog_pi_missing_file", h);
}

#[test]
fn a_fork_of_a_file_opened_alone_is_watched_at_once() {
    use piscope::tui::input::keymap::{Action, Scope};
    let dir = tmp();
    let path = chain_session(dir.path(), 4, "last");
    let mut h = Harness::file(&path, WIDE);
    assert_eq!(h.app.watched(), Some(&path));
    press(&mut h, Scope::Tree, Action::Fork);
    let fork = h.app.open_path().cloned().expect("the fork is open");
    assert_ne!(fork, path);
    assert_eq!(h.app.watched(), Some(&fork));
}

// --- The tree: what the model remembers -----------------------------------

/// The tree pane's rows, each after `░ ` when it is drawn as forgotten (in
/// the theme's forgotten colour and italic) and `  ` when not.
fn tree_memory(h: &mut Harness, no_color: bool) -> String {
    use ratatui::style::Modifier;
    let buf = h.frame();
    let forgotten = piscope::tui::look::theme::Theme::defaults(no_color).forgotten;
    let right = (1..buf.area.width)
        .find(|&x| buf[(x, 0)].symbol() == "┓")
        .expect("the tree pane's corner");
    let mut out = String::new();
    for y in 1..buf.area.height {
        if buf[(0, y)].symbol() != "┃" {
            break;
        }
        let cells: Vec<_> = (1..right).map(|x| &buf[(x, y)]).collect();
        let text: String = cells.iter().map(|c| c.symbol()).collect();
        if text.trim().is_empty() {
            continue;
        }
        let dim = cells.iter().any(|c| {
            c.symbol().trim() != ""
                && c.modifier.contains(Modifier::ITALIC)
                && c.fg == forgotten.fg.unwrap_or(ratatui::style::Color::Reset)
        });
        out.push_str(if dim { "░ " } else { "  " });
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

#[test]
fn the_tree_dims_what_the_model_no_longer_sees() {
    let mut h = file(&compaction_demo());
    // At the leaf: what the compaction cut away is dimmed, the entries it
    // kept and everything after it are not.
    let at_leaf = tree_memory(&mut h, false);
    insta::assert_snapshot!("tree_memory_at_leaf", at_leaf);
    let rows: Vec<&str> = at_leaf.lines().collect();
    let cut = rows
        .iter()
        .position(|r| r.contains("[compaction:"))
        .unwrap();
    assert!(rows[cut].contains("· replaced "), "{at_leaf}");
    assert!(
        rows[0].starts_with("░ "),
        "the start was compacted away: {at_leaf}"
    );
    assert!(rows[cut..].iter().all(|r| r.starts_with("  ")), "{at_leaf}");
    // Above the compaction nothing was cut yet: only what lies below the
    // selection, off its path, is dimmed.
    let before = dimmed_below_folding_works(&mut h);
    insta::assert_snapshot!("tree_memory_before_the_compaction", before);
}

/// Selects the entry before the compaction of [`compaction_demo`] and
/// checks that the rows below it, and only those, are dimmed; the rows.
fn dimmed_below_folding_works(h: &mut Harness) -> String {
    h.type_text("Folding works");
    h.key("enter");
    let before = tree_memory(h, false);
    let rows: Vec<&str> = before
        .lines()
        .filter(|r| !r.contains("Type to search"))
        .collect();
    let sel = rows.iter().position(|r| r.contains("› ")).unwrap();
    assert!(rows[..=sel].iter().all(|r| r.starts_with("  ")), "{before}");
    assert!(sel + 1 < rows.len(), "{before}");
    assert!(
        rows[sel + 1..].iter().all(|r| r.starts_with("░ ")),
        "{before}"
    );
    before
}

/// A session too long for the screen's thread to work out what the model
/// remembers at each move: it comes with the preview, and the rows are
/// dimmed as a short session's are.
#[test]
fn a_long_sessions_tree_dims_what_the_model_no_longer_sees() {
    let dir = tempfile::tempdir().unwrap();
    let path = long_session(dir.path());
    dimmed_below_folding_works(&mut file(&path));
}

/// The compaction demo with [`REMEMBERED_WITH_PREVIEW`] more turns after
/// it, written into `dir`: a session the browser treats as long.
///
/// [`REMEMBERED_WITH_PREVIEW`]: piscope::tui::model::preview_doc::REMEMBERED_WITH_PREVIEW
pub(crate) fn long_session(dir: &std::path::Path) -> std::path::PathBuf {
    use piscope::tui::model::preview_doc::REMEMBERED_WITH_PREVIEW;
    let path = dir.join("long.jsonl");
    let mut text = std::fs::read_to_string(compaction_demo()).unwrap();
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let mut parent = last["id"].as_str().unwrap().to_string();
    for i in 0..REMEMBERED_WITH_PREVIEW {
        let id = format!("{i:08x}");
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        text.push_str(&format!(
            r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-20T10:00:00.000Z","message":{{"role":"{role}","content":[{{"type":"text","text":"turn {i}"}}],"timestamp":1}}}}"#
        ));
        text.push('\n');
        parent = id;
    }
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn without_colour_what_the_model_forgot_is_italic() {
    let mut h = Harness::new(
        piscope::tui::state::Start::File(compaction_demo()),
        piscope::tui::work::workers::JobContext::new(None, None, false, "/".into()),
        Config::defaults(true),
        piscope::tui::clock::Clock::fixed(piscope::tui::harness::DEMO_NOW_MS, 0),
        WIDE,
    );
    let with_colour = tree_memory(&mut file(&compaction_demo()), false);
    assert_eq!(tree_memory(&mut h, true), with_colour);
    assert!(with_colour.contains("░ "));
}

// --- The context preview, block by block ---------------------------------

use piscope::render::{BlockKind, Node};
use piscope::tui::look::layout::Pane;
use piscope::tui::look::theme::Theme;
use piscope::tui::model::preview_doc::PreviewBlock;

/// A pi-written session with every kind of block (`tests/data/render/`).
fn every_block() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/render/every-block.jsonl")
}

/// The preview pane's text inside its border, and where that starts.
fn preview_pane(h: &mut Harness) -> String {
    let rect = h.app.layout().rect(Pane::Preview).expect("a preview pane");
    let buf = h.frame();
    let mut out = String::new();
    for y in rect.y + 1..rect.y + rect.height - 1 {
        let mut row = String::new();
        for x in rect.x + 1..rect.x + rect.width - 1 {
            row.push_str(buf[(x, y)].symbol());
        }
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

/// The colour of the first cell of the preview's row that starts (after
/// the gutter and the code bar) with `start`.
fn colour_of_row(h: &mut Harness, start: &str) -> Option<ratatui::style::Color> {
    let rect = h.app.layout().rect(Pane::Preview)?;
    let buf = h.frame();
    for y in rect.y + 1..rect.y + rect.height - 1 {
        let mut row = String::new();
        let mut xs = Vec::new();
        for x in rect.x + 1..rect.x + rect.width - 1 {
            row.push_str(buf[(x, y)].symbol());
            xs.push(x);
        }
        let trimmed = row.trim_start_matches(['▌', ' ', '│']);
        if trimmed.starts_with(start) {
            let skip = row.chars().count() - trimmed.chars().count();
            return Some(buf[(xs[skip], y)].fg);
        }
    }
    None
}

/// The session open at the entry right before its compaction (so what it
/// replaced is the context, drawn as it is), the preview focused.
fn before_the_compaction() -> Harness {
    let mut h = Harness::file(&every_block(), (120, 40));
    h.type_text("Done: the test");
    h.key("enter");
    h.key("tab");
    h
}

/// Moves the block cursor up until it is on a block `pick` accepts.
fn cursor_to(h: &mut Harness, what: &str, pick: impl Fn(&PreviewBlock) -> bool) {
    for _ in 0..200 {
        if h.app.preview().cursor_block().is_some_and(&pick) {
            return;
        }
        h.key("p");
    }
    panic!("no {what} block:\n{}", h.screen());
}

fn title_of(b: &PreviewBlock) -> String {
    piscope::render::document::line_text(&b.block.title)
}

#[test]
fn preview_renders_markdown() {
    let mut h = before_the_compaction();
    cursor_to(&mut h, "markdown", |b| {
        b.block.kind == BlockKind::User
            && b.block.body.iter().any(|n| matches!(n, Node::Table { .. }))
    });
    let pane = preview_pane(&mut h);
    // No markdown syntax left; a link shows its target.
    assert!(pane.contains("▌User"), "{pane}");
    assert!(!pane.contains("**fix**"), "{pane}");
    assert!(pane.contains("(https://example.com/docs)"), "{pane}");
    // A first-level heading as pi shows it: its text, styled.
    assert!(!pane.contains("# Plan"), "{pane}");
    assert_eq!(
        colour_of_row(&mut h, "Plan"),
        Theme::defaults(false).heading.fg
    );
    insta::assert_snapshot!("preview_markdown", pane);
}

#[test]
fn preview_highlights_a_code_block() {
    let mut h = before_the_compaction();
    cursor_to(&mut h, "code", |b| {
        b.block.kind == BlockKind::Assistant
            && b.block.body.iter().any(|n| matches!(n, Node::Code { .. }))
    });
    let theme = Theme::defaults(false);
    assert_eq!(colour_of_row(&mut h, "fn parse"), theme.code_keyword.fg);
    insta::assert_snapshot!("preview_code", preview_pane(&mut h));
}

#[test]
fn preview_shows_an_edit_as_a_coloured_diff() {
    let mut h = before_the_compaction();
    cursor_to(&mut h, "edit", |b| title_of(b).starts_with("edit"));
    let theme = Theme::defaults(false);
    // (A removed line's colour is checked in a real terminal, in
    // `tui_end_to_end`; this edit only adds.)
    let add = colour_of_row(&mut h, "+     pos: usize,");
    assert_eq!(add, theme.diff_add.fg);
    assert_ne!(add, theme.diff_del.fg);
    let pane = preview_pane(&mut h);
    // pi's title: the tool and the path (the diff says what changed).
    assert!(pane.contains("edit src/lib.rs "), "{pane}");
    assert!(!pane.contains("+2 -0"), "{pane}");
    insta::assert_snapshot!("preview_edit_diff", pane);
}

#[test]
fn preview_keeps_the_colours_of_bash_output() {
    let mut h = before_the_compaction();
    cursor_to(&mut h, "bash", |b| title_of(b).starts_with("$ cargo"));
    // Folded: the last rows of the output (as pi shows them: the end is
    // what matters), its own colours kept, the command once.
    assert_eq!(
        colour_of_row(&mut h, "error"),
        Some(ratatui::style::Color::Indexed(1))
    );
    let folded = preview_pane(&mut h);
    assert!(folded.contains("test result: FAILED"), "{folded}");
    assert!(!folded.contains("│ cargo test --color"), "{folded}");
    assert!(!folded.contains("owned title"), "{folded}");
    insta::assert_snapshot!("preview_bash_folded", folded);
    h.key("o");
    insta::assert_snapshot!("preview_bash_open", preview_pane(&mut h));
}

/// The fold marks (`▸` folded, `▾` open) of the shown blocks' titles.
fn marks(h: &mut Harness) -> Vec<String> {
    let p = h.app.preview();
    let doc = p.doc().expect("a preview");
    p.shown()
        .iter()
        .map(|&k| &doc.blocks[k])
        .filter(|b| b.foldable())
        .map(|b| {
            let open = piscope::tui::model::preview_doc::is_open(b, p.folds(), p.mode());
            format!("{}{}", if open { "▾" } else { "▸" }, title_of(b))
        })
        .collect()
}

#[test]
fn thinking_is_dimmed_and_open_and_o_folds_that_block_only() {
    let mut h = before_the_compaction();
    cursor_to(&mut h, "thinking", |b| b.block.kind == BlockKind::Thinking);
    let before = marks(&mut h);
    // Open, as pi shows thinking; its text in the theme's thinking style.
    let open = preview_pane(&mut h);
    assert!(open.contains("▌▾ Thinking"), "{open}");
    assert!(open.contains("Start by reading"), "{open}");
    let theme = Theme::defaults(false);
    assert_eq!(
        colour_of_row(&mut h, "The user wants a fix."),
        theme.thinking.fg
    );
    insta::assert_snapshot!("preview_thinking_open", open);
    h.key("o");
    let folded = preview_pane(&mut h);
    assert!(folded.contains("▌▸ Thinking"), "{folded}");
    assert!(!folded.contains("Start by reading"), "{folded}");
    insta::assert_snapshot!("preview_thinking_folded", folded);
    // Only the marked block changed.
    let after = marks(&mut h);
    let changed: Vec<_> = before.iter().zip(&after).filter(|(a, b)| a != b).collect();
    assert_eq!(changed.len(), 1, "{before:?}\n{after:?}");
    assert!(changed[0].1.starts_with("▸Thinking"), "{changed:?}");
}

#[test]
fn a_compaction_shows_what_it_replaced_marked_compacted_away() {
    let mut h = Harness::file(&every_block(), (120, 40));
    h.type_text("Back on the first");
    h.key("enter");
    h.key("tab");
    cursor_to(&mut h, "compaction", |b| {
        b.block.kind == BlockKind::Compaction
    });
    // Folded as pi shows a compaction: its title, the summary and what
    // it replaced a key away.
    let folded = preview_pane(&mut h);
    assert!(folded.contains("replaced 12 entries"), "{folded}");
    assert!(folded.contains("tokens before"), "{folded}");
    assert!(!folded.contains("Fix the parser."), "{folded}");
    assert!(
        folded.contains("What it replaced, compacted away (o shows it)"),
        "{folded}"
    );
    h.key("o");
    let open = preview_pane(&mut h);
    assert!(open.contains("Fix the parser."), "{open}");
    assert!(open.contains("compacted away · User"), "{open}");
    insta::assert_snapshot!("preview_compaction_open", open);
    // Each replaced message is a block of its own, dimmed, that folds.
    h.key("n");
    let b = h.app.preview().cursor_block().expect("a block").clone();
    assert!(b.block.hidden && b.depth == 1, "{b:?}");
    let buf = h.frame();
    assert!(
        buf.content()
            .iter()
            .any(|c| c.modifier.contains(ratatui::style::Modifier::DIM)),
        "dimmed"
    );
}

#[test]
fn folds_stay_across_reselection_and_live_reloads() {
    let dir = tmp();
    let path = dir.path().join("every-block.jsonl");
    std::fs::copy(every_block(), &path).unwrap();
    let mut h = Harness::file(&path, (120, 40));
    h.type_text("Done: the test");
    h.key("enter");
    h.key("tab");
    cursor_to(&mut h, "thinking", |b| b.block.kind == BlockKind::Thinking);
    assert!(preview_pane(&mut h).contains("The user wants a fix."));
    h.key("o");
    assert!(!preview_pane(&mut h).contains("The user wants a fix."));
    // Another entry, then back.
    h.keys(&["tab", "up", "down", "tab"]);
    cursor_to(&mut h, "thinking", |b| b.block.kind == BlockKind::Thinking);
    assert!(!preview_pane(&mut h).contains("The user wants a fix."));
    // pi appends an entry: the session is read on, the fold stays.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(
        &mut f,
        b"{\"type\":\"message\",\"id\":\"aa11bb22\",\"parentId\":\"0e1f2dd5\",\"timestamp\":\"2026-12-01T11:02:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"one more\",\"timestamp\":1767345600000}}\n",
    )
    .unwrap();
    h.send(AppEvent::FileChanged(path.clone()));
    cursor_to(&mut h, "thinking", |b| b.block.kind == BlockKind::Thinking);
    let pane = preview_pane(&mut h);
    assert!(!pane.contains("The user wants a fix."), "{pane}");
}

#[test]
fn the_span_key_cycles_the_time_span_in_the_title() {
    let (_d, mut h) = catalog("/home/ada/dotfiles");
    let clock = piscope::tui::clock::Clock::fixed(piscope::tui::harness::DEMO_NOW_MS, 0);
    // Each span lists the sessions last active in it, as worked out here
    // from their times.
    let in_span = |h: &Harness, since: Option<i64>| -> (usize, usize) {
        let all = h.app.picker().sessions();
        let want = all
            .iter()
            .filter(|s| since.is_none_or(|t| s.modified_ms.is_some_and(|m| m >= t)))
            .count();
        (h.app.picker().listed_sessions().len(), want)
    };
    let day = 86_400_000;
    let spans = [
        ("today", Some(clock.start_of_day(clock.now_ms))),
        ("7 days", Some(clock.now_ms - 7 * day)),
        ("30 days", Some(clock.now_ms - 30 * day)),
        ("", None),
    ];
    let mut counts = Vec::new();
    for (label, since) in spans {
        h.key("ctrl+t");
        let screen = h.screen();
        let title = screen.lines().next().unwrap_or_default().to_string();
        if label.is_empty() {
            assert!(title.starts_with(" Sessions · all (Ctrl+A"), "{title}");
        } else {
            assert!(title.contains(&format!("all · {label} (")), "{title}");
        }
        let (listed, want) = in_span(&h, since);
        assert_eq!(listed, want, "{label}: {screen}");
        counts.push(listed);
    }
    // The demo's sessions span weeks: the spans list more and more.
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
    assert!(counts[0] < counts[3], "{counts:?}");
}

// --- Files sessions touched ----------------------------------------------

#[test]
fn picker_lists_the_files_touched_in_scope_and_filters_by_one() {
    let (_d, mut h) = catalog("/home/ada/src/compiler");
    h.key("alt+t");
    screen_snapshot!("picker_touched_files", h);
    h.type_text("src/*.rs");
    h.key("enter");
    screen_snapshot!("picker_touched_filter", h);
}

#[test]
fn tree_lists_the_files_the_session_touched_and_steps_through_their_edits() {
    let (_d, mut h) = catalog("/home/ada/src/compiler");
    h.key("tab");
    h.key("ctrl+f");
    screen_snapshot!("tree_touched_files", h);
    h.key("enter");
    screen_snapshot!("tree_touched_first_edit", h);
}
