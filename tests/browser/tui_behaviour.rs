//! How the browser behaves, driven through its one `update` on real
//! pi-written sessions: selection by id, reloads, deep-search jumps, mouse,
//! typing, and text that is safe for any terminal.

use crate::support::tui as tui_common;

use piscope::session::line::entry::Role;
use piscope::tui::event::AppEvent;
use piscope::tui::harness::Harness;
use piscope::tui::look::layout::Pane;
use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use std::io::Write;
use tui_common::{big_demo, demo_folder};

const WIDE: (u16, u16) = (160, 40);

fn selected_id(h: &Harness) -> String {
    let t = h.app.tree().loaded().expect("a session is shown");
    let node = h.app.tree().selected_node().expect("a row is selected");
    t.entry(node).id_str().unwrap_or("").to_string()
}

fn search(h: &mut Harness, text: &str) {
    // Typing in the tree searches it, as in pi's /tree.
    h.type_text(text);
    h.key("enter");
}

#[test]
fn a_hidden_selection_moves_to_its_nearest_visible_ancestor() {
    let mut h = Harness::file(&big_demo(), WIDE);
    search(&mut h, "[read: src/cart/useCart.ts");
    let t = h.app.tree().loaded().unwrap().clone();
    let tool = h.app.tree().selected_node().unwrap();
    assert_eq!(t.session.role_of(tool), Some(&Role::ToolResult));
    h.key("ctrl+u");
    let user = h.app.tree().selected_node().unwrap();
    assert_eq!(t.session.role_of(user), Some(&Role::User));
    let path = t.session.tree.path_to(tool);
    let nearest_user = path
        .iter()
        .rev()
        .find(|&&n| t.session.role_of(n) == Some(&Role::User))
        .copied();
    assert_eq!(Some(user), nearest_user);
    // Back to the default view: the cursor stays where it went.
    h.key("ctrl+u");
    assert_eq!(h.app.tree().selected_node(), Some(user));
}

#[test]
fn selection_and_folds_survive_a_reload_and_new_entries_appear() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::copy(big_demo(), &path).unwrap();
    let mut h = Harness::file(&path, WIDE);
    h.keys(&["home", "ctrl+right", "ctrl+left"]);
    let folded_before: Vec<String> = {
        let t = h.app.tree().loaded().unwrap();
        h.app
            .tree()
            .folded()
            .iter()
            .map(|&n| t.entry(n).id_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(folded_before.len(), 1);
    search(&mut h, "Show the number of items");
    let chosen = selected_id(&h);
    let rows_before = h.app.tree().rows().len();
    let leaf = {
        let t = h.app.tree().loaded().unwrap();
        t.entry(t.view.leaf.unwrap()).id_str().unwrap().to_string()
    };
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    writeln!(
        f,
        r#"{{"type":"message","id":"feed0001","parentId":"{leaf}","timestamp":"2026-01-11T18:30:00.000Z","message":{{"role":"user","content":"a new question"}}}}"#
    )
    .unwrap();
    drop(f);
    h.send(AppEvent::FileChanged(path.clone()));
    assert_eq!(selected_id(&h), chosen);
    let t = h.app.tree().loaded().unwrap().clone();
    let folded_after: Vec<String> = h
        .app
        .tree()
        .folded()
        .iter()
        .map(|&n| t.entry(n).id_str().unwrap().to_string())
        .collect();
    assert_eq!(folded_after, folded_before);
    assert_eq!(t.entry(t.view.leaf.unwrap()).id_str(), Some("feed0001"));
    // Choosing a filter clears the folds (as in pi); the new entry is listed.
    h.key("ctrl+d");
    assert!(h.app.tree().rows().len() > rows_before);
    h.key("ctrl+g");
    assert_eq!(selected_id(&h), "feed0001");
    assert!(h.screen().contains("◉ user: a new question"));
}

#[test]
fn a_deep_search_hit_opens_its_session_at_the_entry() {
    let (_d, folder) = demo_folder("/home/ada/src/web-shop");
    let mut h = Harness::folder(folder, WIDE);
    h.type_text("invoice");
    h.key("ctrl+f");
    let hits = h
        .app
        .picker()
        .deep_search()
        .expect("deep search")
        .hits()
        .to_vec();
    assert!(hits.len() > 2, "{hits:?}");
    assert_eq!(h.app.open_path(), Some(&hits[0].path.to_path_buf()));
    assert_eq!(
        Some(selected_id(&h)),
        hits[0].entry_id.as_deref().map(str::to_string)
    );
    h.key("down");
    assert_eq!(h.app.open_path(), Some(&hits[1].path.to_path_buf()));
    assert_eq!(
        Some(selected_id(&h)),
        hits[1].entry_id.as_deref().map(str::to_string)
    );
    // Esc goes back to the list, on the session that was selected.
    h.key("esc");
    assert!(h.app.picker().deep_search().is_none());
}

#[test]
fn plain_keys_type_in_the_sessions_pane_and_in_the_tree() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder, WIDE);
    h.type_text("q?j");
    assert_eq!(h.app.picker().query(), "q?j");
    assert!(!h.app.quits() && h.app.help().is_none());
    h.key("backspace");
    assert_eq!(h.app.picker().query(), "q?");
    h.key("esc");
    assert_eq!(h.app.picker().query(), "");
    h.key("tab");
    assert_eq!(h.app.focus(), Pane::Tree);
    // In the tree, what used to be commands (q quit, ? help, e export,
    // f fork) is typed into the search, as in pi's /tree: nothing runs.
    let file = h.app.open_path().cloned().unwrap();
    let before = std::fs::read(&file).unwrap();
    let files = std::fs::read_dir(file.parent().unwrap()).unwrap().count();
    h.type_text("q?efix");
    assert!(!h.app.quits() && h.app.help().is_none() && h.app.dialog().is_none());
    assert_eq!(h.app.tree().search_state().0, "q?efix");
    assert!(h.screen().contains("Type to search: q?efix"));
    assert_eq!(std::fs::read(&file).unwrap(), before, "nothing written");
    assert_eq!(
        std::fs::read_dir(file.parent().unwrap()).unwrap().count(),
        files,
        "no fork made"
    );
    h.key("backspace");
    assert_eq!(h.app.tree().search_state().0, "q?efi");
    h.key("f1");
    assert!(h.app.help().is_some());
    h.key("esc");
    assert!(h.app.help().is_none());
    h.key("shift+tab");
    assert_eq!(h.app.focus(), Pane::Picker);
}

#[test]
fn esc_steps_back_out_of_search_and_panes_then_quits() {
    let (_d, folder) = demo_folder("/home/ada/notes");
    let mut h = Harness::folder(folder, WIDE);
    let hints = |h: &mut Harness| h.screen().lines().last().unwrap_or_default().to_string();
    h.keys(&["tab", "tab"]);
    assert_eq!(h.app.focus(), Pane::Preview);
    assert!(
        hints(&mut h).contains("Esc back · Ctrl+C quit"),
        "{}",
        hints(&mut h)
    );
    h.key("esc");
    assert_eq!(h.app.focus(), Pane::Tree);
    h.type_text("user");
    assert!(
        hints(&mut h).starts_with(" F1 help · Enter keep · Esc cancel"),
        "{}",
        hints(&mut h)
    );
    h.key("enter");
    assert!(
        hints(&mut h).contains("Esc clear search"),
        "{}",
        hints(&mut h)
    );
    h.key("esc");
    assert!(
        !h.app.tree().has_search_line(),
        "Esc dropped the kept search"
    );
    assert_eq!(h.app.focus(), Pane::Tree);
    h.key("esc");
    assert_eq!(h.app.focus(), Pane::Picker);
    h.type_text("x");
    assert!(hints(&mut h).contains("Esc clear"), "{}", hints(&mut h));
    h.key("esc");
    assert!(!h.app.quits(), "the first Esc clears the query");
    assert!(
        hints(&mut h).starts_with(" F1 help · Esc quit"),
        "{}",
        hints(&mut h)
    );
    h.key("esc");
    assert!(h.app.quits());

    // Without a sessions pane, Esc in the tree quits.
    let mut h = Harness::file(&big_demo(), WIDE);
    h.key("tab");
    h.key("esc");
    assert!(!h.app.quits());
    h.key("esc");
    assert!(h.app.quits());
}

/// As in pi: Ctrl+C cancels the dialog, the overlay or the search it is
/// in, writing nothing; it quits only from the panes.
#[test]
fn ctrl_c_cancels_what_it_is_in_and_quits_from_the_panes() {
    let mut h = Harness::file(&big_demo(), WIDE);
    let file = h.app.open_path().cloned().unwrap();
    let before = std::fs::read(&file).unwrap();
    h.key("r");
    assert!(h.app.tree().is_typing_search());
    h.key("ctrl+c");
    assert!(!h.app.quits() && !h.app.tree().is_typing_search());
    h.key("alt+l");
    assert!(h.app.dialog().is_some(), "the label dialog opens");
    h.type_text("half typed");
    h.key("ctrl+c");
    assert!(!h.app.quits() && h.app.dialog().is_none());
    assert_eq!(std::fs::read(&file).unwrap(), before, "nothing written");
    h.key("f1");
    assert!(h.app.help().is_some());
    h.key("ctrl+c");
    assert!(!h.app.quits() && h.app.help().is_none());
    h.key("ctrl+c");
    assert!(h.app.quits());
}

#[test]
fn the_preview_follows_the_selection() {
    let mut h = Harness::file(&big_demo(), WIDE);
    h.key("up");
    let node = h.app.tree().selected_node().unwrap();
    let p = h.app.preview();
    let doc = p.doc().expect("preview built");
    assert_eq!(doc.key.node, node);
    let first = doc.anchor().expect("the entry's own message is marked");
    // The block cursor is on it, and it is in view.
    assert_eq!(p.shown()[p.cursor()], first);
    let (top, _) = p.scroll();
    assert!(top <= p.cursor());
    assert!(p.cursor_block().is_some_and(|b| b.selected));
}

fn click(h: &mut Harness, column: u16, row: u16) {
    h.send(AppEvent::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column,
        row,
        modifiers: KeyModifiers::NONE,
    }));
}

#[test]
fn mouse_clicks_focus_panes_and_select_rows() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder, WIDE);
    // The sessions pane, focused, is alone; the tree focused shows all three.
    assert!(h.app.layout().rect(Pane::Tree).is_none());
    h.key("tab");
    let layout = h.app.layout();
    let tree = layout.rect(Pane::Tree).unwrap();
    click(&mut h, tree.x + 5, tree.y + 3);
    assert_eq!(h.app.focus(), Pane::Tree);
    assert_eq!(h.app.tree().selected_row(), h.app.tree().offset() + 2);
    let preview = layout.rect(Pane::Preview).unwrap();
    h.send(AppEvent::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollUp,
        column: preview.x + 3,
        row: preview.y + 3,
        modifiers: KeyModifiers::NONE,
    }));
    let scroll = h.app.preview().scroll();
    h.send(AppEvent::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: preview.x + 3,
        row: preview.y + 3,
        modifiers: KeyModifiers::NONE,
    }));
    assert!(h.app.preview().scroll() >= scroll);
    let picker = layout.rect(Pane::Picker).unwrap();
    // The fourth list row (below the search box and settings) is a session.
    let before = h.app.open_path().cloned();
    click(&mut h, picker.x + 5, picker.y + 1 + 2 + 2);
    assert_eq!(h.app.focus(), Pane::Picker);
    assert_ne!(h.app.open_path().cloned(), before);
}

/// Characters that must never reach a terminal: they start escape
/// sequences, move the cursor, or reorder the text around them.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

#[test]
fn hostile_text_never_reaches_the_terminal_raw() {
    let (_d, folder) = demo_folder("/home/ada/dotfiles");
    let sessions = tui_common::demo_copies(&folder);
    assert_eq!(
        sessions.len(),
        piscope::tui::work::demo::DEMO_SESSIONS.len()
    );
    let mut placeholders = 0;
    for path in sessions {
        let mut h = Harness::file(&path, (120, 30));
        h.key("ctrl+a");
        h.key("home");
        for mode in ["", "O", "r"] {
            if !mode.is_empty() {
                h.keys(&["tab", mode, "tab"]);
            }
            let rows = h.app.tree().rows().len();
            for _ in 0..rows {
                let frame = h.frame();
                for cell in frame.content() {
                    let bad: Vec<char> =
                        cell.symbol().chars().filter(|&c| unsafe_char(c)).collect();
                    assert!(bad.is_empty(), "{}: {:?} on screen", path.display(), bad);
                }
                let text = piscope::tui::harness::buffer_text(&frame);
                placeholders += text.matches('␛').count();
                h.key("down");
            }
            h.key("home");
        }
    }
    assert!(placeholders > 0, "the demo's escape sequences show as ␛");
}

/// pi echoes a model id or thinking level of any type; the preview header
/// reads them as values, never as piscope's internal key encoding.
#[test]
fn the_preview_header_reads_odd_model_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#,
            "\n",
            r#"{"type":"model_change","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","provider":"p","modelId":42}"#,
            "\n",
            r#"{"type":"thinking_level_change","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02.000Z","thinkingLevel":true}"#,
            "\n",
            r#"{"type":"message","id":"c","parentId":"b","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"hi","timestamp":1735689603000}}"#,
            "\n",
        ),
    )
    .unwrap();
    let mut h = Harness::file(&path, WIDE);
    let screen = h.screen();
    assert!(screen.contains("42 · thinking true"), "{screen}");
    assert!(
        !screen.contains('\u{0}') && !screen.contains("\\0"),
        "{screen}"
    );
}

/// At 80 columns the help screen wraps its descriptions at spaces: paged
/// through, every description reads whole, no word cut at the frame.
#[test]
fn help_wraps_its_lines_at_80_columns() {
    let mut h = Harness::file(&big_demo(), (80, 24));
    h.key("f1");
    assert!(h.app.help().is_some());
    let mut text = String::new();
    let mut last = String::new();
    for _ in 0..400 {
        let screen = h.screen();
        if screen == last {
            break;
        }
        // The help frame's inside: the columns between its corners.
        let rows: Vec<Vec<char>> = screen.lines().map(|r| r.chars().collect()).collect();
        let top = screen
            .lines()
            .position(|r| r.contains("╭ Help "))
            .expect("the help frame");
        let title: String = rows[top].iter().collect();
        let left = title[..title.find("╭ Help ").unwrap()].chars().count();
        let right = left + rows[top][left..].iter().position(|&c| c == '╮').unwrap();
        for row in &rows[top + 1..] {
            if row.get(left) == Some(&'╰') {
                break;
            }
            text.extend(row.get(left + 1..right).unwrap_or_default());
            text.push(' ');
        }
        last = screen;
        h.key("down");
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let joined = format!(" {} ", words.join(" "));
    let mut checked = 0;
    for info in piscope::tui::input::keymap::ACTIONS {
        let want = format!(
            " {} ",
            info.help.split_whitespace().collect::<Vec<_>>().join(" ")
        );
        if h.app
            .help_lines()
            .iter()
            .any(|l| l.to_string().contains(info.help))
        {
            assert!(
                joined.contains(&want),
                "{:?} is not whole on the help screen",
                info.help
            );
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked} descriptions read");
}

#[test]
fn a_long_context_shows_at_once_and_its_size_follows() {
    // 24,000 messages and no usage reported: pi's size is an estimate of
    // every one, read after the preview is on screen.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("long.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    writeln!(
        f,
        r#"{{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}}"#
    )
    .expect("write");
    let mut parent = "null".to_string();
    for i in 0..24_000 {
        let (role, content) = match i % 2 {
            0 => ("user", format!(r#""question number {i}""#)),
            _ => (
                "assistant",
                format!(r#"[{{"type":"text","text":"answer {i}"}}]"#),
            ),
        };
        writeln!(
            f,
            r#"{{"type":"message","id":"e{i}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"{role}","content":{content},"timestamp":1}}}}"#
        )
        .expect("write");
        parent = format!(r#""e{i}""#);
    }
    drop(f);
    let s = piscope::session::Session::open(&path).expect("a session");
    let ctx = s.context(&piscope::session::LeafSelector::Last);
    let mut file = std::fs::File::open(&path).expect("open");
    let tokens = s
        .context_tokens(&ctx, &mut file)
        .expect("read")
        .expect("a size");
    let want = format!("context {}", piscope::tui::look::format::tokens(tokens));
    let mut h = Harness::file(&path, WIDE);
    let screen = h.screen();
    assert!(screen.contains(&want), "{want} in\n{screen}");
    assert!(!screen.contains("context …"), "{screen}");
}

/// A long session opened at its leaf: the update that shows it asks for the
/// leaf's preview while its rows are still to be laid out (ten million rows
/// take half a second, and the preview need not wait for them). The rows
/// wait for the preview: when it comes they are asked for again, and the
/// update after that (the preview drawn between) lays them out with the
/// leaf selected, and asks for nothing again.
#[test]
fn a_long_sessions_preview_is_asked_for_before_its_rows_are_laid_out() {
    use piscope::tui::clock::Clock;
    use piscope::tui::config::Config;
    use piscope::tui::event::Command;
    use piscope::tui::state::{App, Start};
    use piscope::tui::work::workers::JobContext;
    use std::cell::RefCell;
    let dir = tempfile::tempdir().unwrap();
    let path = super::tui_snapshots::long_session(dir.path());
    let context = JobContext::new(None, None, false, "/".into());
    let (mut app, first) = App::new(
        Start::File(path),
        Config::defaults(false),
        Clock::fixed(piscope::tui::harness::DEMO_NOW_MS, 0),
        None,
        ratatui::layout::Rect::new(0, 0, 160, 48),
    );
    // The events the workers answer `cmds` with, and the commands' names.
    let answers = |cmds: Vec<Command>| {
        let answers = RefCell::new(Vec::new());
        for cmd in cmds {
            context.run(cmd, &|ev| answers.borrow_mut().push(ev));
        }
        answers.into_inner()
    };
    let names =
        |cmds: &[Command]| -> Vec<String> { cmds.iter().map(|c| format!("{c:?}")).collect() };
    let opened = answers(first)
        .into_iter()
        .find(|ev| matches!(ev, AppEvent::SessionOpened(_)))
        .expect("the session was read");
    let sent = app.update(opened);
    let cmds = names(&sent);
    let leaf = app
        .tree()
        .loaded()
        .and_then(|t| t.view.leaf)
        .expect("a leaf");
    assert!(app.tree().rows().is_empty(), "no rows laid out yet");
    assert_eq!(app.tree().preview_node(), Some(leaf));
    let rows_at = cmds.iter().position(|c| c == "LayOutRows");
    let preview_at = cmds
        .iter()
        .position(|c| c.starts_with("BuildPreview") && c.ends_with(&format!("node {leaf})")));
    assert!(
        rows_at.is_some() && preview_at.is_some(),
        "the leaf's preview and the rows asked for: {cmds:?}"
    );
    // The rows' answer comes back as an event of its own; while the
    // preview is not there yet, the rows wait for it.
    let echoed = answers(vec![Command::LayOutRows]);
    assert!(matches!(echoed.as_slice(), [AppEvent::RowsWanted]));
    assert!(app.update(AppEvent::RowsWanted).is_empty());
    assert!(
        app.tree().rows().is_empty(),
        "the rows wait for the preview"
    );
    // The preview comes: the rows are asked for again, and laid out then.
    let build = sent
        .into_iter()
        .find(|c| format!("{c:?}").starts_with("BuildPreview"))
        .expect("the preview asked for");
    let ready = answers(vec![build])
        .into_iter()
        .find(|ev| matches!(ev, AppEvent::PreviewReady(_)))
        .expect("the preview was built");
    let asked = names(&app.update(ready));
    assert!(
        app.tree().rows().is_empty(),
        "not before the preview is drawn"
    );
    assert!(asked.iter().any(|c| c == "LayOutRows"), "{asked:?}");
    let after = names(&app.update(AppEvent::RowsWanted));
    assert!(app.tree().rows().len() > 100_000, "the rows are laid out");
    assert_eq!(app.tree().selected_node(), Some(leaf));
    assert_eq!(app.tree().preview_node(), Some(leaf));
    assert!(
        after.iter().all(|c| !c.starts_with("BuildPreview")),
        "the preview is not asked for again: {after:?}"
    );
}

/// A long session's context at its leaf is worked out as it loads, for its
/// first preview: the same context the preview would work out, given once.
/// A growth of the session while it is shown works out none.
#[test]
fn a_long_sessions_leaf_context_is_worked_out_for_its_first_showing_only() {
    use piscope::tui::model::loaded::LoadedSession;
    let dir = tempfile::tempdir().unwrap();
    let path = super::tui_snapshots::long_session(dir.path());
    let loaded = LoadedSession::open(&path, None).expect("the session reads");
    let s = &loaded.session;
    let leaf = loaded.view.leaf.expect("a leaf");
    let leaf_id = s.leaf_id().expect("a leaf id").to_string();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    writeln!(
        f,
        r#"{{"type":"message","id":"grown01","parentId":"{leaf_id}","timestamp":"2026-01-02T00:00:00.000Z","message":{{"role":"user","content":"one more"}}}}"#
    )
    .unwrap();
    let mut session = (**s).clone();
    session.refresh().expect("read on");
    let grown = LoadedSession::grown(&loaded, session, None).expect("grown");
    let new_leaf = grown.view.leaf.expect("a new leaf");
    assert_ne!(new_leaf, leaf);
    assert!(
        grown.take_leaf_context(new_leaf).is_none(),
        "none for a growth"
    );
    let ctx = loaded
        .take_leaf_context(leaf)
        .expect("worked out as it loaded");
    let again = s.context_for_path(s.tree.path_to(leaf));
    assert_eq!(format!("{ctx:?}"), format!("{again:?}"));
    assert!(loaded.take_leaf_context(leaf).is_none(), "given once");
}

/// A session file of at least `bytes`: a header, then a chain of short
/// user and assistant messages.
fn session_of_size(path: &std::path::Path, bytes: usize) {
    let mut text = String::from(
        r#"{"type":"session","version":3,"id":"019c0000-0000-7000-8000-00000000beef","timestamp":"2026-01-05T09:00:00.000Z","cwd":"/home/ada/src/long"}"#,
    );
    text.push('\n');
    let mut i = 0u32;
    while text.len() < bytes {
        let parent = if i == 0 {
            "null".to_string()
        } else {
            format!("\"m{:07}\"", i - 1)
        };
        let role = if i.is_multiple_of(2) {
            "user"
        } else {
            "assistant"
        };
        text.push_str(&format!(
            r#"{{"type":"message","id":"m{i:07}","parentId":{parent},"timestamp":"2026-01-05T09:00:01.000Z","message":{{"role":"{role}","content":"turn {i} of a long read","timestamp":1767603601000}}}}"#
        ));
        text.push('\n');
        i += 1;
    }
    std::fs::write(path, text).unwrap();
}

/// A 40 MB session (its read reports how far it has come) in a temporary
/// folder, kept while the folder is, and the workers' context to read it.
fn long_read() -> (
    tempfile::TempDir,
    std::path::PathBuf,
    piscope::tui::work::workers::JobContext,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long-read.jsonl");
    session_of_size(&path, 40 << 20);
    let context = piscope::tui::work::workers::JobContext::new(None, None, false, "/".into());
    (dir, path, context)
}

/// A long session's read says in the tree pane how far it has come, each
/// whole percent once, until the session is shown.
#[test]
fn a_long_read_says_how_far_it_has_come() {
    use piscope::tui::clock::Clock;
    use piscope::tui::config::Config;
    use piscope::tui::panes::tree::Content;
    use piscope::tui::state::{App, Start};
    use std::cell::RefCell;
    let (_dir, path, context) = long_read();
    let (mut app, first) = App::new(
        Start::File(path),
        Config::defaults(false),
        Clock::fixed(piscope::tui::harness::DEMO_NOW_MS, 0),
        None,
        ratatui::layout::Rect::new(0, 0, 100, 20),
    );
    let events = RefCell::new(Vec::new());
    for cmd in first {
        context.run(cmd, &|ev| events.borrow_mut().push(ev));
    }
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 20)).unwrap();
    let mut percents = Vec::new();
    let mut shown = None;
    for ev in events.into_inner() {
        let report = matches!(ev, AppEvent::SessionReading(_));
        app.update(ev);
        if !report {
            continue;
        }
        let Content::Loading(_, Some(progress)) = app.tree().content() else {
            panic!("a report shows how far the read has come");
        };
        let percent = progress.percent().expect("the size is known");
        percents.push(percent);
        if percent == 50 {
            let frame = term
                .draw(|f| piscope::tui::draw::draw(f, &app))
                .unwrap()
                .buffer
                .clone();
            shown = Some(piscope::tui::harness::buffer_text(&frame));
        }
    }
    assert!(
        percents.windows(2).all(|w| w[0] < w[1]) && percents.len() >= 90,
        "each whole percent once, rising: {percents:?}"
    );
    assert!(percents.last().is_some_and(|&p| p <= 100));
    let shown = shown.expect("half way reported");
    assert!(shown.contains("Reading long-read.jsonl… 50%"), "{shown}");
    assert!(shown.contains("reading long-read.jsonl 50%"), "{shown}");
    assert!(app.tree().is_ready(), "the session is shown once read");
}

/// Choosing another session while a long one is read stops its read at
/// once: it reports no further and answers nothing, so the next session's
/// read is not kept waiting for it.
#[test]
fn a_long_read_stops_when_another_session_is_chosen() {
    use piscope::tui::event::Command;
    use piscope::tui::work::newest::Newest;
    use std::cell::RefCell;
    let (_dir, path, context) = long_read();
    let reads = RefCell::new(Newest::default());
    let stamp = reads.borrow_mut().stamp();
    let events = RefCell::new(Vec::new());
    context.run(Command::OpenSession { stamp, path }, &|ev| {
        if matches!(ev, AppEvent::SessionReading(_)) {
            // Another session chosen: this read is overtaken.
            reads.borrow_mut().stamp();
        }
        events.borrow_mut().push(ev);
    });
    let events = events.into_inner();
    let reports = events
        .iter()
        .filter(|ev| matches!(ev, AppEvent::SessionReading(_)))
        .count();
    let answered = events
        .iter()
        .any(|ev| matches!(ev, AppEvent::SessionOpened(_)));
    assert_eq!(
        (reports, answered),
        (1, false),
        "stopped at the first report"
    );
}
