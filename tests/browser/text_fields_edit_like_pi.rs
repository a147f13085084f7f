//! Every text field edits with pi's editor keys (the keymap's text scope):
//! Ctrl+U, Ctrl+W, Ctrl+A, Ctrl+E, Ctrl+K, Alt+B, Alt+F, Alt+D, Home and
//! End in the label, rename and clean-up fields; in the sessions search box
//! and the tree's search line, the ones their pane leaves free (there the
//! pane's own keys act: Home goes to the first row, Ctrl+U filters the
//! tree, as in pi).

use crate::support::tui as tui_common;

use piscope::tui::harness::Harness;
use std::path::Path;
use tui_common::{big_demo, demo_folder};

const WIDE: (u16, u16) = (160, 40);

/// What the open dialog's field holds, the cursor marked with `|`.
fn dialog_field(h: &Harness) -> String {
    let d = h.app.dialog().expect("a dialog");
    let (before, after) = d.input.as_ref().expect("a field").split();
    format!("{before}|{after}")
}

/// Word and line edits, the same in every field: the field holds `start`
/// (its cursor at the end) when this runs; `field` reads it back with the
/// cursor marked `|` where the field shows one, else the text alone.
fn word_and_line_edits(h: &mut Harness, field: &dyn Fn(&Harness) -> String, cursor: bool) {
    let shown = |s: &str| {
        if cursor {
            s.to_string()
        } else {
            s.replace('|', "")
        }
    };
    h.keys(&["alt+b", "ctrl+w"]);
    assert_eq!(field(h), shown("fix the |now"), "Alt+B, then Ctrl+W");
    h.key("alt+d");
    assert_eq!(field(h), shown("fix the |"), "Alt+D");
    h.keys(&["alt+b", "alt+b"]);
    h.type_text("X");
    assert_eq!(field(h), shown("X|fix the "), "Alt+B twice, then typing");
    h.keys(&["alt+f", "ctrl+k"]);
    assert_eq!(field(h), shown("Xfix|"), "Alt+F, then Ctrl+K");
    h.keys(&["ctrl+left", "ctrl+right", "alt+backspace"]);
    assert_eq!(field(h), shown("|"), "Ctrl+←, Ctrl+→, Alt+Backspace");
    h.type_text("fix the parser");
    h.keys(&["alt+b", "alt+b", "ctrl+u"]);
    assert_eq!(
        field(h),
        shown("|the parser"),
        "Ctrl+U deletes to the start"
    );
}

/// Every editing key, in a dialog's field emptied beforehand; the dialog
/// is then left open.
fn edit_a_dialog_field(h: &mut Harness) {
    h.type_text("fix the parser now");
    word_and_line_edits(h, &dialog_field, true);
    line_ends(h);
}

/// Home, End, Ctrl+A and Ctrl+E, in a field that has them.
fn line_ends(h: &mut Harness) {
    h.key("home");
    h.type_text("1");
    h.key("end");
    h.type_text("2");
    h.key("ctrl+a");
    h.type_text("0");
    h.key("ctrl+e");
    h.type_text("3");
    assert_eq!(dialog_field(h), "01the parser23|");
    h.keys(&["left", "left", "delete", "backspace", "right"]);
    assert_eq!(dialog_field(h), "01the parse3|");
}

#[test]
fn dialog_fields_take_every_editing_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::copy(big_demo(), &path).unwrap();
    crate::support::age(&path);
    let mut h = Harness::file(&path, WIDE);
    // The label field (Shift+L, as in pi).
    h.keys(&["up", "shift+l"]);
    h.keys(&["ctrl+a", "ctrl+k"]);
    edit_a_dialog_field(&mut h);
    h.key("enter");
    assert!(h.app.dialog().is_none());
    assert!(h.screen().contains("[01the parse3]"), "{}", h.screen());

    // The rename field.
    h.key("ctrl+r");
    h.keys(&["end", "ctrl+u"]);
    edit_a_dialog_field(&mut h);
    h.key("esc");
}

#[test]
fn the_clean_up_rules_field_takes_every_editing_key() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder, WIDE);
    h.key("alt+c");
    assert_eq!(dialog_field(&h), "--empty --older-than 30d|");
    // Punctuation is a word of its own, as in pi's editor.
    h.keys(&["alt+b", "alt+b"]);
    assert_eq!(dialog_field(&h), "--empty --older-|than 30d");
    h.key("ctrl+w");
    assert_eq!(dialog_field(&h), "--empty --older|than 30d");
    h.keys(&["ctrl+e", "ctrl+u"]);
    edit_a_dialog_field(&mut h);
    h.key("esc");
}

#[test]
fn the_sessions_search_box_edits_with_the_keys_its_pane_leaves_free() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder, WIDE);
    h.type_text("fix the parser now");
    let query = |h: &Harness| h.app.picker().query().to_string();
    word_and_line_edits(&mut h, &query, false);
    // The cursor shows where it is.
    h.type_text("a ");
    assert!(h.screen().contains("> a ▏the parser"), "{}", h.screen());
    // Home is the list's: the first row, the query kept.
    h.key("home");
    assert_eq!(query(&h), "a the parser");
}

#[test]
fn the_tree_search_line_edits_and_the_trees_keys_act() {
    let mut h = Harness::file(Path::new(&big_demo()), WIDE);
    h.type_text("fix the parser now");
    let query = |h: &Harness| h.app.tree().search_state().0.to_string();
    assert_eq!(query(&h), "fix the parser now");
    h.keys(&["alt+b", "ctrl+w"]);
    assert_eq!(query(&h), "fix the now");
    h.key("alt+d");
    assert_eq!(query(&h), "fix the ");
    h.keys(&["alt+b", "ctrl+k"]);
    assert_eq!(query(&h), "fix ");
    h.type_text("it");
    assert!(h.screen().contains("fix it▏"), "{}", h.screen());
    // Ctrl+U is the tree's user-only filter, as in pi's /tree; the query
    // stays.
    h.key("ctrl+u");
    assert_eq!(query(&h), "fix it");
    assert!(h.screen().contains("[user]"), "{}", h.screen());
}
