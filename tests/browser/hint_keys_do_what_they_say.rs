//! Every key in every pane's hint line is pressed, each from a fresh start,
//! and does what its word says: the hint lines are read off the screen (at
//! a width where every hint fits), so a hint added without a check here
//! fails the test.

use crate::support::tui as tui_common;

use piscope::tui::harness::Harness;
use piscope::tui::look::layout::Pane;
use std::path::PathBuf;
use tui_common::demo_folder;

const SIZE: (u16, u16) = (400, 40);

/// Where the keys are pressed: a pane (or the tree's search line) reached
/// from a fresh start by `keys`.
struct Place {
    name: &'static str,
    keys: &'static [&'static str],
}

const PLACES: [Place; 5] = [
    Place {
        name: "the sessions list",
        keys: &[],
    },
    Place {
        name: "the entry tree",
        keys: &["tab"],
    },
    Place {
        name: "the context",
        keys: &["tab", "tab", "home", "down"],
    },
    Place {
        name: "the tree's search, typed",
        keys: &["tab", "e"],
    },
    Place {
        name: "the tree's search, kept",
        keys: &["tab", "e", "enter"],
    },
];

/// What a key press can change, read before and after it.
#[derive(Debug, Clone, PartialEq)]
struct State {
    focus: Pane,
    screen: String,
    dialog: Option<String>,
    help: bool,
    quits: bool,
    message: Option<String>,
    query: String,
    session: Option<PathBuf>,
    deep: bool,
    row: usize,
    search: String,
    typing: bool,
    scroll: (usize, usize),
    cursor: usize,
    mode: String,
}

fn state(h: &mut Harness) -> State {
    let screen = h.screen();
    let app = &h.app;
    State {
        focus: app.focus(),
        screen,
        dialog: app.dialog().map(|d| d.title.clone()),
        help: app.help().is_some(),
        quits: app.quits() || app.exit().is_some(),
        message: app.message().map(|m| m.text.clone()),
        query: app.picker().query().to_string(),
        session: app.picker().selected_session().map(|s| s.path.clone()),
        deep: app.picker().deep_search().is_some(),
        row: app.tree().selected_row(),
        search: app.tree().search_state().0.to_string(),
        typing: app.tree().is_typing_search(),
        scroll: app.preview().scroll(),
        cursor: app.preview().cursor(),
        mode: format!("{:?}", app.preview().mode()),
    }
}

/// The hint line's `(keys, word)` pairs.
fn hints(screen: &str) -> Vec<(String, String)> {
    let line = screen.lines().last().unwrap_or_default();
    line.split(" · ")
        .filter_map(|h| {
            let h = h.trim();
            // The key is the first word, the rest says what it does
            // ("type to search" types).
            let (key, word) = h.split_once(' ')?;
            Some((key.to_string(), word.to_string()))
        })
        .collect()
}

/// The keys a hint's key text stands for, in the keymap's spelling:
/// `Ctrl+D/T/U/L/A` is five keys, `↑↓` two, `T` is Shift+T.
fn keys_of(text: &str) -> Vec<String> {
    let name = |k: &str| -> String {
        let k = k
            .replace('↑', "up")
            .replace('↓', "down")
            .replace('←', "left")
            .replace('→', "right");
        let mut chars = k.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_uppercase() => {
                format!("shift+{}", c.to_ascii_lowercase())
            }
            _ => k.to_lowercase(),
        }
    };
    if text == "↑↓" {
        return vec!["up".into(), "down".into()];
    }
    if text == "type" {
        return vec!["type".into()];
    }
    let mut out = Vec::new();
    let mut prefix = String::new();
    for (i, part) in text.split('/').enumerate() {
        if i == 0 {
            if let Some(at) = part.rfind('+') {
                prefix = part[..=at].to_string();
            }
            out.push(name(part));
        } else if part.contains('+') {
            out.push(name(part));
        } else {
            out.push(name(&format!("{prefix}{part}")));
        }
    }
    out
}

/// Whether pressing `key` (one of the hint's keys) did what `word` says.
fn did(word: &str, key: &str, before: &State, after: &State) -> Result<(), String> {
    let ok = match word {
        "help" => after.help,
        "quit" => after.quits,
        "back" => after.focus != before.focus,
        "clear search" | "cancel" => after.search.is_empty() && !before.search.is_empty(),
        "keep" => !after.typing && after.search == before.search && !after.search.is_empty(),
        "move" => after.session != before.session || after.row != before.row,
        "scroll" => after.scroll != before.scroll,
        "to search" => after.query == "x" || after.search.ends_with('x'),
        "block" => after.cursor != before.cursor,
        "hits" | "next/previous hit" | "leaf" => after.row != before.row,
        "usage" => after.screen.contains("Usage ·") && !before.screen.contains("Usage ·"),
        "pane" | "entries" | "context" | "sessions" => after.focus != before.focus,
        "resume" | "branch" | "copy" | "fork" | "deep" => {
            after.quits
                || after.dialog.is_some()
                || after.deep
                || (after.message.is_some() && after.message != before.message)
        }
        "rename" | "delete" | "label" | "export" => after.dialog.is_some(),
        "scope" | "sort" | "named" | "span" | "path" | "filters" | "fold" | "label time" => {
            after.screen != before.screen
        }
        "raw" => after.mode != before.mode,
        "selected" => after.scroll != before.scroll,
        _ => return Err(format!("no check for the hint {key:?} {word:?}")),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{key} did not {word}"))
    }
}

/// Keys pressed before a hint's key, so that it has something to act on.
fn set_up(word: &str, key: &str) -> &'static [&'static str] {
    match (word, key) {
        // The default filter, from another one.
        ("filters", "ctrl+d") => &["ctrl+a"],
        // Up, from a row below the top.
        ("move", "up") => &["down", "down"],
        // Unfolding, of a fold; a block that folds (the second: a tool's).
        ("fold", "ctrl+right") => &["ctrl+left"],
        ("fold", "o") => &["n"],
        // The previous block, from the third.
        ("block", "p") => &["n", "n"],
        // The leaf key, from another row.
        ("leaf", _) => &["up", "up", "up"],
        // Back to the selected entry, from the top.
        ("selected", _) => &["home"],
        // Label times show on the labels: one written first.
        ("label time", _) => &["shift+l", "x", "enter"],
        _ => &[],
    }
}

#[test]
fn every_hinted_key_does_what_its_hint_says() {
    let mut failures = Vec::new();
    let mut pressed = 0;
    for place in PLACES {
        let fresh = || {
            let (dir, folder) = demo_folder("/home/ada/src/web-shop");
            let mut h = Harness::folder(folder, SIZE);
            h.keys(place.keys);
            (dir, h)
        };
        let (_d, mut h) = fresh();
        let line = hints(&h.screen());
        assert!(line.len() > 3, "{}: {line:?}", place.name);
        for (text, word) in line {
            for key in keys_of(&text) {
                let (_d, mut h) = fresh();
                h.keys(set_up(&word, &key));
                let before = state(&mut h);
                if key == "type" {
                    h.type_text("x");
                } else {
                    h.key(&key);
                }
                let after = state(&mut h);
                pressed += 1;
                if let Err(e) = did(&word, &key, &before, &after) {
                    failures.push(format!("{}: {e}", place.name));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(pressed > 40, "{pressed} keys pressed");
}
