//! Every key the browser reacts to comes from the keymap, and every text
//! that names a key names the user's: with the tree search, dialog and help
//! keys rebound in a config file, the old keys do nothing there and the
//! hint line, the search line, a dialog, the help screen and the messages
//! name the new ones (drawn into ratatui's test backend).

use crate::support::tui as tui_common;

use piscope::session::Session;
use piscope::tui::clock::Clock;
use piscope::tui::config::Config;
use piscope::tui::harness::{DEMO_NOW_MS, Harness};
use piscope::tui::state::Start;
use piscope::tui::work::workers::JobContext;
use std::path::{Path, PathBuf};
use tui_common::{big_demo, bug_hunt_demo};

const WIDE: (u16, u16) = (160, 40);

/// A config file's text rebinding keys of every kind.
const REBOUND: &str = r#"
[keys.global]
help = "f2"

[keys.tree]
next_hit = "ctrl+j"
previous_hit = "ctrl+k"
filter_default = "alt+d"
label = "ctrl+b"

[keys.search]
keep = "ctrl+y"
cancel = "ctrl+w"
next_hit = "ctrl+j"
previous_hit = "ctrl+k"

[keys.text]
delete_to_start = "ctrl+z"
delete_word_back = "alt+w"
delete_to_end = "alt+k"

[keys.dialog]
confirm = "ctrl+o"
cancel = "ctrl+w"

[keys.help]
close = "ctrl+w"
"#;

fn rebound() -> Config {
    let config = Config::from_text(REBOUND, false);
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    config
}

fn open(path: &Path, config: Config) -> Harness {
    Harness::new(
        Start::File(path.to_path_buf()),
        JobContext::new(None, None, false, PathBuf::from("/")),
        config,
        Clock::fixed(DEMO_NOW_MS, 0),
        WIDE,
    )
}

/// The screen's last row: the hint line.
fn hint_line(h: &mut Harness) -> String {
    h.screen().lines().last().unwrap_or_default().to_string()
}

#[test]
fn the_tree_search_keys_and_their_hints_follow_the_keymap() {
    let mut h = open(&big_demo(), rebound());
    // Typing in the tree searches it.
    h.type_text("cart");
    let hints = hint_line(&mut h);
    assert!(hints.contains("Ctrl+Y keep"), "{hints}");
    assert!(hints.contains("Ctrl+W cancel"), "{hints}");
    assert!(hints.contains("Ctrl+J/Ctrl+K next/previous hit"), "{hints}");
    assert!(!hints.contains("Enter"), "{hints}");
    assert!(!hints.contains("Ctrl+N"), "{hints}");

    // Enter is no longer the search's: it is the tree's (branching from
    // the first hit, which the search lands on, as in pi), and once its
    // question is cancelled the query is still being typed.
    h.key("enter");
    assert!(h.app.dialog().is_some(), "{}", h.screen());
    h.key("ctrl+c");
    h.type_text("x");
    assert!(
        h.screen().contains("Type to search: cartx▏"),
        "{}",
        h.screen()
    );
    h.key("backspace");
    h.key("ctrl+y");
    let screen = h.screen();
    assert!(screen.contains("Type to search: cart "), "{screen}");
    assert!(!screen.contains("cart▏"), "kept, no longer typed: {screen}");
    assert!(screen.contains("(Ctrl+J / Ctrl+K)"), "{screen}");
    assert!(!screen.contains("Ctrl+N / Ctrl+P"), "{screen}");

    // The rebound hit keys step through the hits; Ctrl+N is no key now.
    let first = h.app.tree().selected_row();
    h.key("ctrl+n");
    assert_eq!(h.app.tree().selected_row(), first, "Ctrl+N does nothing");
    h.key("ctrl+j");
    assert_ne!(
        h.app.tree().selected_row(),
        first,
        "Ctrl+J goes to the next hit"
    );
    h.key("ctrl+k");
    assert_eq!(h.app.tree().selected_row(), first, "Ctrl+K goes back");
}

#[test]
fn the_default_keys_are_named_as_bound() {
    let mut h = open(&big_demo(), Config::defaults(false));
    h.type_text("cart");
    let hints = hint_line(&mut h);
    assert!(
        hints.contains("F1 help · Enter keep · Esc cancel · ↓/↑ next/previous hit"),
        "{hints}"
    );
    h.key("enter");
    assert!(h.screen().contains("(Ctrl+N / Ctrl+P)"), "{}", h.screen());
    let hints = hint_line(&mut h);
    assert!(hints.starts_with(" F1 help · Esc clear search"), "{hints}");
    assert!(hints.contains("Ctrl+N/Ctrl+P hits"), "{hints}");
}

/// The default keys of the tree, none a lower-case character or a symbol:
/// typing searches. The capitals are pi's Shift+L and Shift+T.
#[test]
fn no_tree_key_is_a_character_typed() {
    let keymap = piscope::tui::input::keymap::Keymap::defaults();
    let mut capitals = Vec::new();
    for info in piscope::tui::input::keymap::ACTIONS
        .iter()
        .filter(|i| i.scope == piscope::tui::input::keymap::Scope::Tree)
    {
        for key in keymap.keys(info.scope, info.action) {
            match key.typed_char() {
                None => {}
                Some(c) if c.is_ascii_uppercase() => capitals.push((info.name, c)),
                Some(_) => panic!("tree.{} is bound to {key}, which types", info.name),
            }
        }
    }
    capitals.sort();
    assert_eq!(capitals, [("label", 'L'), ("label_times", 'T')]);
}

#[test]
fn a_dialog_takes_and_names_its_rebound_keys() {
    let dir = tempfile::Builder::new()
        .prefix("piscope-test-")
        .tempdir()
        .unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::copy(big_demo(), &path).unwrap();
    crate::support::age(&path);
    let mut h = open(&path, rebound());
    let target = h
        .app
        .tree()
        .loaded()
        .and_then(|t| {
            let node = h.app.tree().selected_node()?;
            t.entry(node).id_str().map(str::to_string)
        })
        .unwrap();
    h.key("ctrl+b");
    assert!(h.app.dialog().is_some(), "the rebound label key asks");
    let screen = h.screen();
    assert!(screen.contains("Ctrl+O label · Ctrl+W cancel"), "{screen}");
    assert!(!screen.contains("Enter label"), "{screen}");
    assert!(!screen.contains("Esc cancel"), "{screen}");

    // Esc and Enter are not the dialog's keys any more; Ctrl+U no longer
    // deletes to the field's start (Ctrl+Z does).
    h.key("esc");
    h.key("enter");
    assert!(h.app.dialog().is_some(), "still asking");
    h.type_text("first");
    h.key("ctrl+z");
    h.type_text("kept");
    h.key("ctrl+u");
    h.key("ctrl+o");
    assert!(h.app.dialog().is_none(), "Ctrl+O went ahead");
    let s = Session::open(&path).unwrap();
    let label = s
        .label_of(s.find(&target).unwrap())
        .map(|l| l.label.clone());
    assert_eq!(label.as_deref(), Some("kept"));

    h.key("ctrl+b");
    h.key("ctrl+w");
    assert!(h.app.dialog().is_none(), "Ctrl+W cancelled");
}

#[test]
fn the_help_screen_lists_and_takes_the_rebound_keys() {
    let mut h = open(&big_demo(), rebound());
    h.key("f1");
    assert!(h.app.help().is_none(), "F1 is not the help key now");
    h.key("f2");
    assert!(h.app.help().is_some());
    let screen = h.screen();
    assert!(screen.contains("↑↓ scroll · Ctrl+W close"), "{screen}");
    assert!(!screen.contains("Esc close"), "{screen}");
    let help: Vec<String> = h
        .app
        .help_lines()
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    let has = |key: &str, what: &str| {
        help.iter()
            .any(|l| l.trim_start().starts_with(key) && l.contains(what))
    };
    assert!(has("Ctrl+Y", "Keep the query"), "{help:#?}");
    assert!(has("Ctrl+W", "Drop the query"), "{help:#?}");
    assert!(has("Ctrl+O", "Go ahead"), "{help:#?}");
    assert!(has("Ctrl+Z", "Delete to the start"), "{help:#?}");
    assert!(has("Ctrl+W", "Close"), "{help:#?}");
    assert!(has("F2", "Show this help"), "{help:#?}");
    assert!(!has("Ctrl+U", "Delete to the start"), "{help:#?}");
    assert!(!help.iter().any(|l| l.contains("n / N")), "{help:#?}");
    // Scrolling is still ↓; the close key closes.
    h.key("down");
    assert!(h.app.help().is_some());
    h.key("ctrl+w");
    assert!(h.app.help().is_none());
}

#[test]
fn messages_name_the_rebound_keys() {
    // A filter that hides every entry says how to get back.
    let mut h = open(&bug_hunt_demo(), rebound());
    h.key("ctrl+l");
    let screen = h.screen();
    assert!(
        screen.contains("(Alt+D shows the default view)"),
        "{screen}"
    );
    assert!(!screen.contains("Ctrl+D"), "{screen}");

    // The config report sends to the help key as bound.
    let config = Config::from_text(
        &format!("{REBOUND}\n[theme]\nlabel = \"nocolour\"\nuser = \"nocolour\"\n"),
        false,
    );
    let report = config.report().expect("the theme is reported");
    assert!(report.contains("see F2"), "{report}");
    assert!(!report.contains("F1"), "{report}");
}

#[test]
fn the_sessions_pane_names_its_rebound_keys() {
    let (_dir, folder) = tui_common::demo_folder("/somewhere/else");
    let config = Config::from_text(
        "[keys.picker]\nback = \"ctrl+g\"\ndeep_search = \"ctrl+o\"\nscope = \"ctrl+y\"\n",
        false,
    );
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let cwd = folder.cwd.clone();
    let mut h = Harness::new(
        Start::Catalog { demo: false },
        JobContext::new(Some("/home/ada".into()), Some(folder), false, cwd),
        config,
        Clock::fixed(DEMO_NOW_MS, 0),
        WIDE,
    );
    h.key("ctrl+o");
    let screen = h.screen();
    assert!(
        screen.contains("Type a query first; Ctrl+O then searches"),
        "{screen}"
    );
    h.type_text("zzqqxx");
    let screen = h.screen();
    assert!(
        screen.contains("Ctrl+G clears the search; Ctrl+O searches"),
        "{screen}"
    );
    assert!(!screen.contains("Ctrl+F"), "{screen}");
    assert!(!screen.contains("Esc clears"), "{screen}");
    h.key("ctrl+g");
    h.key("ctrl+y");
    let screen = h.screen();
    assert!(
        screen.contains("No sessions in this folder. Ctrl+Y shows"),
        "{screen}"
    );
}

/// A session of `n` messages in one chain, user and assistant in turn.
fn long_chain(dir: &Path, n: usize) -> PathBuf {
    let mut text = String::from(
        r#"{"type":"session","version":3,"id":"019bae23-ee4c-715b-95c5-f4e0500bf8c1","timestamp":"2026-01-11T17:39:09.004Z","cwd":"/home/ada/notes"}"#,
    );
    text.push('\n');
    for i in 0..n {
        let parent = match i {
            0 => "null".to_string(),
            _ => format!("\"m{:07}\"", i - 1),
        };
        let message = if i % 2 == 0 {
            format!(r#"{{"role":"user","content":"question {i}","timestamp":1768153187060}}"#)
        } else {
            format!(
                r#"{{"role":"assistant","content":[{{"type":"text","text":"answer {i}"}}],"provider":"google","model":"gemini-2.5-pro","timestamp":1768153187060}}"#
            )
        };
        text.push_str(&format!(
            r#"{{"type":"message","id":"m{i:07}","parentId":{parent},"timestamp":"2026-01-11T17:39:47.060Z","message":{message}}}"#
        ));
        text.push('\n');
    }
    let path = dir.join("long.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_preview_names_the_expand_key_the_keymap_binds() {
    let config = Config::from_text("[keys.preview]\nexpand = \"ctrl+e\"\n", false);
    assert!(config.problems.is_empty(), "{:?}", config.problems);

    // A folded block says which key shows the rest.
    let mut h = open(&big_demo(), config.clone());
    let screen = h.screen();
    assert!(screen.contains(" lines (Ctrl+E unfolds)"), "{screen}");
    assert!(!screen.contains("(o unfolds)"), "{screen}");

    // A context too long to show whole says which key shows all of it.
    let dir = tempfile::Builder::new()
        .prefix("piscope-test-")
        .tempdir()
        .unwrap();
    let mut h = Harness::new(
        Start::File(long_chain(dir.path(), 420)),
        JobContext::new(None, None, false, PathBuf::from("/")),
        config,
        Clock::fixed(DEMO_NOW_MS, 0),
        (240, 30),
    );
    h.keys(&["tab", "home"]);
    let screen = h.screen();
    assert!(
        screen.contains("before these are in the context too (Ctrl+E shows everything)"),
        "{screen}"
    );
    assert!(!screen.contains("(o shows everything)"), "{screen}");
    // The key does what the text says.
    h.key("ctrl+e");
    h.key("home");
    let screen = h.screen();
    assert!(!screen.contains("shows everything"), "{screen}");
    assert!(screen.contains("question 0"), "{screen}");
}

/// The keys one cell of the README's key table names: groups parted by
/// ` · ` or `, `; in a group, `Ctrl+D / T / U` is three keys (the bare
/// ones take the modifiers of the one before), `(Alt+L)` an alternative,
/// `(or Alt)` the same keys with Alt; `type` is typing, no key.
fn readme_keys(cell: &str) -> Vec<String> {
    let arrows = |t: &str| {
        t.replace('←', "left")
            .replace('→', "right")
            .replace('↑', "up")
            .replace('↓', "down")
    };
    let mut out = Vec::new();
    for group in cell.split(" · ").flat_map(|g| g.split(", ")) {
        let or_alt = group.contains("(or Alt)");
        let group = group.replace("(or Alt)", "");
        let mut prefix = String::new();
        for token in group.split_whitespace() {
            let token = token.trim_matches(['(', ')']);
            if token == "/" || token == "type" || token.is_empty() {
                continue;
            }
            let key = match token.rfind('+') {
                Some(at) if token.len() > 1 => {
                    prefix = token[..=at].to_string();
                    token.to_string()
                }
                _ => format!("{prefix}{token}"),
            };
            let mut key = arrows(&key);
            // `Ctrl+C` is written with a capital, and is Ctrl and c.
            if !key.contains("Shift+") && key.contains('+') {
                key = key.to_lowercase();
            }
            if or_alt {
                out.push(key.replace("ctrl+", "alt+"));
            }
            out.push(key);
        }
    }
    out
}

#[test]
fn the_readmes_key_table_is_the_keymaps() {
    use piscope::tui::input::keymap::{ACTIONS, Action, Key, Keymap, Scope};
    let readme = std::fs::read_to_string(crate::support::repo().join("README.md")).unwrap();
    let table = readme
        .split("## Keys at a glance")
        .nth(1)
        .and_then(|t| t.split("\n## ").next())
        .expect("the README's key table");
    let keymap = Keymap::defaults();
    // Where a row's keys act, by the table's first column.
    let scopes = |place: &str| -> Vec<Scope> {
        match place {
            "anywhere" => Scope::ALL.to_vec(),
            "sessions" => vec![Scope::Picker, Scope::Global, Scope::Text],
            "entry tree" => vec![Scope::Tree, Scope::Search, Scope::Global],
            "preview" => vec![Scope::Preview, Scope::Global],
            "text fields" => vec![Scope::Text],
            "dialogs" => vec![Scope::Dialog, Scope::Global],
            other => panic!("a place the table names: {other:?}"),
        }
    };
    let mut place = String::new();
    let mut named: Vec<(Scope, Key)> = Vec::new();
    let mut errors = Vec::new();
    for row in table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| where"))
    {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        if !cells[1].is_empty() {
            place = cells[1].to_string();
        }
        for text in readme_keys(cells[2]) {
            let key = Key::parse(&text).unwrap_or_else(|e| panic!("{row}: {e}"));
            let bound: Vec<Scope> = scopes(&place)
                .into_iter()
                .filter(|s| keymap.own_action(*s, key).is_some())
                .collect();
            if bound.is_empty() {
                errors.push(format!("{place}: {text} is no key of the keymap there"));
            }
            named.extend(bound.into_iter().map(|s| (s, key)));
        }
    }
    // Every action of the panes but the plain moves is in the table.
    let moves = [
        Action::Up,
        Action::Down,
        Action::PageUp,
        Action::PageDown,
        Action::First,
        Action::Last,
    ];
    for info in ACTIONS.iter().filter(|i| {
        matches!(
            i.scope,
            Scope::Global | Scope::Picker | Scope::Tree | Scope::Preview
        ) && !moves.contains(&i.action)
    }) {
        let keys = keymap.keys(info.scope, info.action);
        if !keys.iter().any(|k| named.contains(&(info.scope, *k))) {
            errors.push(format!(
                "[{}] {} ({}) is not in the README's table",
                info.scope.table(),
                info.name,
                keymap.label(info.scope, info.action)
            ));
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
