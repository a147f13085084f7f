//! The real binary in a real terminal (tmux): it starts, browses, quits
//! cleanly from every exit, and hostile text in sessions never changes the
//! terminal's title or colours. Fails where tmux is missing, unless the run
//! allows skipping (`PISCOPE_ALLOW_MISSING_TOOLS=1`).

use crate::support as common;
use crate::support::tmux;
use crate::support::tui as tui_common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use tmux::{EXIT_MARK, TIMEOUT, Tmux, have_tmux};

fn copy_of(path: &Path, dir: &Path) -> PathBuf {
    let to = dir.join(path.file_name().expect("a file name"));
    std::fs::copy(path, &to).expect("copied");
    to
}

#[test]
fn a_file_opens_and_esc_steps_back_then_quits_cleanly() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = copy_of(&tui_common::big_demo(), dir.path());
    let t = Tmux::start(&[file.to_str().unwrap()], &[], (140, 36));
    t.wait_for("the tree", |s| s.contains("Entries") && s.contains('◉'));
    t.keys(&["Tab"]);
    t.wait_for("the preview focused", |s| s.contains("o fold"));
    // Esc: from the preview back to the tree, then (no sessions pane) out.
    t.keys(&["Escape"]);
    t.wait_for("the tree focused", |s| s.contains("Esc quit"));
    t.keys(&["Escape"]);
    assert_eq!(t.wait_for_exit(), format!("{EXIT_MARK}0"));
    let after = t.screen();
    assert!(
        !after.contains("Entries"),
        "the alternate screen was left:\n{after}"
    );
}

/// In a real terminal: Ctrl+C while a search is typed cancels it (as in
/// pi); a second, from the pane, quits cleanly.
#[test]
fn ctrl_c_cancels_a_search_then_quits_cleanly() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = copy_of(&tui_common::big_demo(), dir.path());
    let t = Tmux::start(&[file.to_str().unwrap()], &[], (120, 30));
    t.wait_for("the tree", |s| s.contains('◉'));
    t.keys(&["r", "e"]);
    t.wait_for("the search box", |s| s.contains("Type to search: re"));
    t.keys(&["C-c"]);
    t.wait_for("the search cancelled", |s| {
        !s.contains("Type to search: re")
    });
    t.keys(&["C-c"]);
    assert_eq!(t.wait_for_exit(), format!("{EXIT_MARK}0"));
}

#[test]
fn a_missing_file_is_an_error_before_the_screen_changes() {
    if !have_tmux() {
        return;
    }
    let t = Tmux::start(&["/no/such/session.jsonl"], &[], (100, 20));
    assert_eq!(t.wait_for_exit(), format!("{EXIT_MARK}1"));
    assert!(t.screen().contains("/no/such/session.jsonl"));
}

/// SGR parameters that set a colour: 30–37, 39–47, 49, 90–107, 38;…, 48;…
fn colour_codes(screen: &str) -> Vec<String> {
    let mut out = Vec::new();
    for seq in screen.split('\u{1b}').skip(1) {
        let Some(body) = seq.strip_prefix('[') else {
            continue;
        };
        let Some(end) = body.find('m') else { continue };
        for p in body[..end].split(';') {
            if let Ok(n) = p.parse::<u32>() {
                if matches!(n, 30..=38 | 40..=48 | 90..=97 | 100..=107) {
                    out.push(body[..end].to_string());
                }
            }
        }
    }
    out
}

#[test]
fn the_pane_title_check_is_real() {
    if !have_tmux() {
        return;
    }
    // A program that prints the demo's escape sequence raw does change the
    // title: the next test's check would catch piscope doing so.
    let socket = format!("piscope-e2e-control-{}", std::process::id());
    let run = |args: &[&str]| {
        Command::new("tmux")
            .arg("-L")
            .arg(&socket)
            .args(args)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    };
    run(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "sh",
        "-c",
        "printf '\\033]0;title\\007\\033[31mred\\033[0m\\n'; sleep 600",
    ]);
    let start = Instant::now();
    let mut title = String::new();
    while start.elapsed() < TIMEOUT {
        title = run(&["display-message", "-p", "#{pane_title}"]);
        if title.trim() == "title" {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let colours = run(&["capture-pane", "-p", "-e"]);
    run(&["kill-server"]);
    assert_eq!(title.trim(), "title");
    assert!(!colour_codes(&colours).is_empty(), "{colours:?}");
}

#[test]
fn hostile_text_never_changes_the_title_or_the_colours() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    // The user's sessions: a corpus written by pi's own code, with escape
    // sequences in its texts, in pi's default folder.
    let home = tempfile::tempdir().expect("temp home");
    let sessions = home.path().join("agent").join("sessions");
    generate_corpus(&sessions);
    // Wide enough for the sessions beside the entries and the context.
    let t = Tmux::start_in(home, &[], &[("NO_COLOR", "1")], (160, 40));
    let before = t.title();
    let s = t.wait_for("the sessions", |s| {
        s.contains(" sessions") && !s.contains("loading")
    });
    assert!(
        !s.contains("Demo sessions"),
        "the user's sessions are listed:\n{s}"
    );
    let mut seen_escape = false;
    // In each session, every entry (the "all" filter), jumping to the
    // entries that hold escape sequences ("ansi" in the corpus).
    for _ in 0..12 {
        t.keys(&["Tab", "C-a", "End", "a", "n", "s", "i", "Enter"]);
        for _ in 0..3 {
            let s = t.wait_for("the tree", |s| s.contains("Entries"));
            seen_escape |= s.contains('␛');
            let attrs = t.screen_with_attributes();
            assert_eq!(
                colour_codes(&attrs),
                Vec::<String>::new(),
                "colour on screen:\n{attrs}"
            );
            assert_eq!(t.title(), before, "the pane title changed");
            t.keys(&["C-n"]);
        }
        t.keys(&["Tab", "Tab", "Down", "Down"]);
    }
    assert!(seen_escape, "the hostile text was on screen as ␛");
    t.keys(&["C-q"]);
    assert_eq!(t.wait_for_exit(), format!("{EXIT_MARK}0"));
    assert_eq!(t.title(), before);
}

/// Writes a small corpus with pi's own session code.
fn generate_corpus(sessions: &Path) {
    let agent = sessions.parent().expect("agent folder");
    common::pi_corpus(agent, 7, 10, 12);
    assert!(sessions.is_dir(), "no sessions in {}", sessions.display());
}

#[test]
fn demo_mode_shows_the_banner_and_adapts_to_the_width() {
    if !have_tmux() {
        return;
    }
    let t = Tmux::start(&["--demo"], &[], (160, 40));
    // The sessions alone, with the key that brings the entries in. Each
    // wait takes the whole frame (its last line is drawn last): a check on
    // a frame caught half drawn would fail for nothing.
    let s = t.wait_for("the demo", |s| {
        s.contains("Demo sessions") && s.contains("8 sessions") && s.contains("Tab entries")
    });
    assert!(s.contains("Sessions") && !s.contains("Entries"), "{s}");
    t.keys(&["v", "a", "t"]);
    t.wait_for("the search", |s| {
        s.lines()
            .any(|l| l.contains("> vat") && l.contains(" sessions") && !l.contains("8 sessions"))
    });
    // The entries focused: all three panes at 160 columns.
    t.keys(&["Tab"]);
    t.wait_for("three panes", |s| {
        s.contains("> vat") && s.contains("Entries") && s.contains("Context")
    });
    t.tmux(&["resize-window", "-x", "120", "-y", "30"]);
    t.wait_for("the entries and the context", |s| {
        s.contains("Entries") && s.contains("Context") && !s.contains("> vat")
    });
    t.tmux(&["resize-window", "-x", "90", "-y", "30"]);
    t.wait_for("one pane, and the key to the context", |s| {
        s.contains("Entries") && !s.contains("Context") && s.contains("Tab context")
    });
    t.keys(&["Tab"]);
    t.wait_for("the context alone", |s| {
        s.contains("Context") && !s.contains("Entries")
    });
    t.keys(&["F1"]);
    t.wait_for("the help", |s| {
        s.contains("Help") && s.contains("Next pane")
    });
    // One key at a time: an Escape read together with the next key is
    // that key with Alt.
    t.keys(&["Escape"]);
    t.wait_for("the help closed", |s| !s.contains("Next pane"));
    t.keys(&["C-c"]);
    assert_eq!(t.wait_for_exit(), format!("{EXIT_MARK}0"));
}

#[test]
fn with_no_sessions_the_demo_reads_like_a_real_history_and_says_what_it_watches() {
    if !have_tmux() {
        return;
    }
    // A home without pi's sessions folder: piscope falls back to the demo.
    let t = Tmux::start(&[], &[], (150, 40));
    // The list fills as the sessions are read: on a busy machine the footer
    // is up while the picker still says `loading 1/8`.
    let s = t.wait_for("the demo, loaded, and what it watches", |s| {
        s.contains("Demo sessions")
            && s.contains("Watching the demo copies in")
            && !s.contains("loading")
    });
    assert!(!s.contains("No path was found"), "{s}");
    assert!(!s.contains("~/.pi/agent/sessions"), "{s}");
    // Dated back from now: the newest minutes ago, the oldest weeks ago.
    // The ages: the words of the rows that end in a number and a unit.
    let ages: Vec<&str> = s
        .split_whitespace()
        .filter(|w| {
            w.strip_suffix(['m', 'h', 'd', 'w'])
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect();
    let minutes = |a: &str| a.strip_suffix('m').and_then(|n| n.parse::<u32>().ok());
    assert!(
        ages.iter()
            .any(|a| minutes(a).is_some_and(|m| (5..=8).contains(&m))),
        "{ages:?}\n{s}"
    );
    assert!(ages.contains(&"2w"), "{ages:?}\n{s}");
    t.keys(&["C-c"]);
    assert_eq!(t.wait_for_exit(), format!("{EXIT_MARK}0"));
}

/// The foreground colour in effect where `needle` starts on a line
/// captured with its attributes (`capture-pane -e`): `None` for the
/// default.
fn fg_at(line: &str, needle: &str) -> Option<String> {
    let end = line.find(needle)?;
    let mut fg: Option<String> = None;
    for seq in line[..end].split('\u{1b}').skip(1) {
        let Some(body) = seq.strip_prefix('[') else {
            continue;
        };
        let Some(stop) = body.find('m') else { continue };
        let params: Vec<&str> = body[..stop].split(';').collect();
        let mut k = 0;
        while k < params.len() {
            match params[k].parse::<u32>().unwrap_or(0) {
                0 | 39 => fg = None,
                n @ (30..=37 | 90..=97) => fg = Some(n.to_string()),
                38 => {
                    let take = if params.get(k + 1) == Some(&"5") {
                        2
                    } else {
                        4
                    };
                    fg = Some(params[k..(k + 1 + take).min(params.len())].join(";"));
                    k += take;
                }
                _ => {}
            }
            k += 1;
        }
    }
    fg
}

/// The captured line holding `needle`.
fn line_with<'a>(screen: &'a str, needle: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?}:\n{screen}"))
}

#[test]
fn the_preview_colours_code_and_diffs_and_o_folds_only_the_marked_block() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("code-and-diff.jsonl");
    let lines = [
        serde_json::json!({"type": "session", "version": 3, "id": "e2e-code",
            "timestamp": "2026-01-11T00:00:00.000Z", "cwd": "/home/ada/code"}),
        serde_json::json!({"type": "message", "id": "00000001", "parentId": null,
            "timestamp": "2026-01-11T00:00:01.000Z", "message": {"role": "user", "timestamp": 1,
            "content": "Look:\n\n```rust\nfn main() {\n    let x = 1;\n}\n```\n"}}),
        serde_json::json!({"type": "message", "id": "00000002", "parentId": "00000001",
        "timestamp": "2026-01-11T00:00:02.000Z", "message": {"role": "assistant",
        "provider": "p", "model": "m", "stopReason": "toolUse", "timestamp": 2,
        "content": [
            {"type": "thinking", "thinking": "Change the one to a two.\nSecret plan."},
            {"type": "toolCall", "id": "t1", "name": "edit", "arguments": {
                "path": "src/main.rs", "oldText": "    let x = 1;", "newText": "    let x = 2;"}}
        ]}}),
        serde_json::json!({"type": "message", "id": "00000003", "parentId": "00000002",
            "timestamp": "2026-01-11T00:00:03.000Z", "message": {"role": "toolResult",
            "toolCallId": "t1", "toolName": "edit", "isError": false, "timestamp": 3,
            "content": [{"type": "text", "text": "Successfully replaced 1 block(s)."}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let t = Tmux::start(&[path.to_str().unwrap()], &[], (150, 40));
    t.wait_for("the preview", |s| {
        s.contains("-     let x") && s.contains("fn main")
    });
    t.keys(&["Tab"]);
    t.wait_for("the preview focused", |s| s.contains("o fold"));
    let attrs = t.screen_with_attributes();
    // The code is highlighted: its keyword in a colour of its own.
    // The preview's code row (the tree's row of the message holds the text
    // too, in one line); highlighting puts sequences between its words.
    let plain = |l: &str| {
        let mut out = String::new();
        let mut rest = l;
        while let Some(at) = rest.find('\u{1b}') {
            out.push_str(&rest[..at]);
            let seq = &rest[at..];
            rest = seq.find('m').map_or("", |m| &seq[m + 1..]);
        }
        out + rest
    };
    let code = attrs
        .lines()
        .find(|l| plain(l).contains("│ fn main() {"))
        .unwrap_or_else(|| panic!("no code line:\n{attrs}"));
    let keyword = &code[code.find("fn").expect("the keyword")..];
    assert!(fg_at(code, "fn").is_some(), "no colour on {keyword:?}");
    // Added and removed lines in two different colours (as pi draws a
    // diff: the sign, a space, the line; the changed word marked apart).
    let add = fg_at(line_with(&attrs, "+     let x"), "+     let x");
    let del = fg_at(line_with(&attrs, "-     let x"), "-     let x");
    assert!(add.is_some() && del.is_some(), "{add:?} {del:?}\n{attrs}");
    assert_ne!(add, del, "{attrs}");
    // `o` folds the marked block (the edit, the selected entry's) and
    // nothing else: the thinking stays open (as pi shows it), the code
    // stays shown.
    let before = t.screen();
    assert!(
        before.contains("▾ Thinking") && before.contains("Secret plan"),
        "{before}"
    );
    assert!(before.contains("▌▾ edit src/main.rs"), "{before}");
    t.keys(&["o"]);
    let after = t.wait_for("the edit folded", |s| s.contains("▌▸ edit src/main.rs"));
    // Folded, a diff keeps its first rows: this one's two.
    assert!(after.contains("+     let x"), "{after}");
    assert!(
        after.contains("fn main") && after.contains("▾ Thinking"),
        "{after}"
    );
    assert!(after.contains("Secret plan"), "{after}");
    // Another block, another fold: the thinking folds, the edit stays folded.
    t.keys(&["p", "o"]);
    let folded = t.wait_for("the thinking folded", |s| !s.contains("Secret plan"));
    assert!(folded.contains("▸ edit src/main.rs"), "{folded}");
    t.keys(&["C-q"]);
    assert_eq!(t.wait_for_exit(), format!("{EXIT_MARK}0"));
}
