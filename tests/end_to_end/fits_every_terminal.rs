//! The browser at the sizes users run it (80x24, 100x30, 120x40, 200x60),
//! in a real terminal (tmux), beside pi's own session picker:
//! - every session title on both screens keeps at least as many characters
//!   in piscope's sessions list as in pi's `/resume`;
//! - the context preview is reachable with the key the hint line names;
//! - in the deepest tree, the selected row's text is on screen at any depth.

use crate::support as common;
use crate::support::pi_ui::PiUi;
use crate::support::tmux::{Tmux, have_tmux};

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

const SIZES: [(u16, u16); 4] = [(80, 24), (100, 30), (120, 40), (200, 60)];

/// The titles a screen shows, with how many of their characters: whole, or
/// cut before a `…`. Rows are the screen's list rows, after the cursor.
fn shown_titles(rows: &[String], titles: &[String]) -> BTreeMap<String, usize> {
    let mut out: BTreeMap<String, usize> = BTreeMap::new();
    for row in rows {
        // The tree prefix of a fork (`└─ `, `├─ `, `│  `) is not the title.
        let row = row.trim_start_matches(['│', '├', '└', '─', ' ']);
        for title in titles {
            let whole = row
                .strip_prefix(title.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '));
            let count = if whole {
                Some(title.chars().count())
            } else {
                row.split_once('…')
                    .map(|(cut, _)| cut)
                    .filter(|cut| !cut.is_empty() && title.starts_with(cut))
                    .map(|cut| cut.chars().count())
            };
            if let Some(n) = count {
                // Two sessions can share a title: the fewer characters.
                let e = out.entry(title.clone()).or_insert(n);
                *e = (*e).min(n);
            }
        }
    }
    out
}

/// pi's picker rows: below the search line's blank, up to the position
/// line `(1/33)` or the closing rule, after the cursor's two columns.
fn pi_rows(screen: &str) -> Vec<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let Some(search) = lines.iter().position(|l| l.trim_end() == ">") else {
        return Vec::new();
    };
    lines[search + 1..]
        .iter()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| {
            let t = l.trim();
            let position = t.starts_with('(') && t.contains('/');
            !(t.is_empty() || t.starts_with('─') || position)
        })
        .map(|l| l.chars().skip(2).collect())
        .collect()
}

/// piscope's sessions rows (alone, focused): below the search box and the
/// settings line, up to the closing rule, project headings left out.
fn piscope_rows(screen: &str) -> Vec<String> {
    screen
        .lines()
        .skip(3)
        .take_while(|l| !l.starts_with('━'))
        .map(|l| l.chars().skip(2).collect::<String>())
        .filter(|r| !r.starts_with("▾ ") && !r.starts_with("▸ "))
        .collect()
}

/// The titles both list (a session's name, else its first message) that
/// both show the same way: no control characters (pi turns them into
/// spaces, piscope into visible symbols), no `…` of their own.
fn plain_titles(agent: &Path) -> Vec<String> {
    let out = common::stdout_ok(
        std::process::Command::new(crate::support::tmux::BIN)
            .args(["ls", "--all", "--json", "--no-cache"])
            .env("PI_CODING_AGENT_DIR", agent),
    );
    let list: serde_json::Value = serde_json::from_str(&out).expect("ls --json");
    let mut titles: Vec<String> = list
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|s| {
            s["name"]
                .as_str()
                .or_else(|| s["firstMessage"].as_str())
                .map(|t| t.trim().to_string())
        })
        .filter(|t| {
            !t.is_empty()
                && !t.contains('…')
                && !t.contains("  ")
                && t.chars()
                    .all(|c| c == ' ' || c.is_ascii_graphic() || c.is_alphabetic())
        })
        .collect();
    titles.sort();
    titles.dedup();
    titles
}

/// The key the hint line names for bringing in `pane` (`Tab entries`).
fn hinted_key(screen: &str, pane: &str) -> Option<String> {
    let hints = screen.lines().rfind(|l| l.contains("help"))?;
    hints.split(" · ").find_map(|h| {
        let (key, word) = h.trim().rsplit_once(' ')?;
        (word == pane).then(|| key.to_string())
    })
}

/// tmux's name for a key as the hint line writes it.
fn tmux_key(key: &str) -> String {
    match key {
        "Tab" => "Tab".into(),
        "Shift+Tab" => "BTab".into(),
        k => k.replace("Ctrl+", "C-").replace("Alt+", "M-"),
    }
}

/// Brings the context in from the sessions list with the keys the hint
/// line names; fails when no hint names one or the context never shows.
fn reach_the_context(t: &Tmux, size: (u16, u16)) {
    let mut screen = t.screen();
    for _ in 0..3 {
        if screen
            .lines()
            .next()
            .is_some_and(|l| l.contains(" Context "))
        {
            return;
        }
        let key = hinted_key(&screen, "entries")
            .or_else(|| hinted_key(&screen, "context"))
            .unwrap_or_else(|| panic!("at {size:?} no hint brings the context in:\n{screen}"));
        let before = screen.clone();
        t.keys(&[&tmux_key(&key)]);
        screen = t.wait_for("the next pane", |s| s != before);
    }
    panic!("at {size:?} the context never showed:\n{screen}");
}

/// Resizes a tmux window and waits until the screen is drawn at that size:
/// its first line (the panes' top rules) as wide as the window.
fn resize(t: &Tmux, (w, h): (u16, u16)) -> String {
    t.tmux(&["resize-window", "-x", &w.to_string(), "-y", &h.to_string()]);
    t.wait_for_steady("the new size", |s| {
        s.lines().count() == usize::from(h)
            && s.lines()
                .next()
                .is_some_and(|l| l.chars().count() == usize::from(w))
    })
}

#[test]
fn titles_keep_as_much_as_pis_picker_and_the_context_is_reachable_at_every_size() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let home = tempfile::tempdir().expect("temp home");
    let agent = home.path().join("agent");
    // A corpus written by pi's own code, and the real sessions pi wrote.
    common::pi_corpus(&agent, 11, 24, 6);
    let fixtures = agent.join("sessions").join("--fixtures--");
    std::fs::create_dir_all(&fixtures).expect("fixtures folder");
    for name in ["before-compaction.jsonl", "large-session.jsonl"] {
        std::fs::copy(common::pi_mono(name), fixtures.join(name)).expect("copy a fixture");
    }
    let titles = plain_titles(&agent);
    assert!(titles.len() > 10, "{titles:?}");

    let pi = PiUi::start(&agent);
    pi.wait_for("pi's picker", |s| s.contains("Resume Session"));
    // Every project's sessions, as piscope lists them from a folder of none.
    pi.keys(&["Tab"]);
    pi.wait_for("all projects", |s| s.contains("Resume Session (All)"));
    let t = Tmux::start_in(home, &[], &[], (80, 24));
    t.wait_for("the sessions", |s| {
        s.contains(" sessions") && !s.contains("loading")
    });

    let mut report = String::new();
    let mut worse = Vec::new();
    for size in SIZES {
        let (w, h) = (size.0.to_string(), size.1.to_string());
        pi.tmux(&["resize-window", "-t", "pi", "-x", &w, "-y", &h]);
        let pi_screen = pi.wait_for_steady("pi at the new size", |s| {
            s.lines()
                .any(|l| l.starts_with('─') && l.chars().count() == usize::from(size.0))
        });
        let ours_screen = resize(&t, size);
        let theirs = shown_titles(&pi_rows(&pi_screen), &titles);
        let ours = shown_titles(&piscope_rows(&ours_screen), &titles);
        let both: Vec<(&String, usize, usize)> = theirs
            .iter()
            .filter_map(|(title, n)| ours.get(title).map(|m| (title, *n, *m)))
            .collect();
        assert!(
            both.len() >= 3,
            "at {size:?} too few titles on both screens to compare:\npi:\n{pi_screen}\npiscope:\n{ours_screen}"
        );
        let (pi_sum, our_sum): (usize, usize) =
            both.iter().fold((0, 0), |(a, b), (_, n, m)| (a + n, b + m));
        let _ = writeln!(
            report,
            "{}x{}: {} titles on both screens; characters shown: pi {pi_sum}, piscope {our_sum}",
            size.0,
            size.1,
            both.len()
        );
        for (title, n, m) in &both {
            if m < n {
                worse.push(format!("{size:?} {title:?}: pi {n}, piscope {m}"));
            }
        }
        reach_the_context(&t, size);
        // Back to the sessions list for the next size.
        for _ in 0..3 {
            if t.screen().starts_with(" Sessions") {
                break;
            }
            let before = t.screen();
            t.keys(&["BTab"]);
            t.wait_for("the previous pane", |s| s != before);
        }
        t.wait_for("the sessions again", |s| s.starts_with(" Sessions"));
    }
    eprintln!("{report}");
    assert!(
        worse.is_empty(),
        "titles cut shorter than pi's:\n{}\n{report}",
        worse.join("\n")
    );
}

/// A session whose every step on the main line is a branch point, so each
/// step's gutter is one level deeper: `levels` levels.
fn deepest_session(dir: &Path, levels: usize) -> std::path::PathBuf {
    let mut out = String::from(
        r#"{"type":"session","version":3,"id":"d0000000-0000-4000-8000-000000000000","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp/deep"}"#,
    );
    out.push('\n');
    let mut n = 0u32;
    let mut entry = |out: &mut String, parent: Option<u32>, text: &str| -> u32 {
        n += 1;
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p:08x}\""));
        let _ = writeln!(
            out,
            r#"{{"type":"message","id":"{n:08x}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":"{text}","timestamp":1767225600000}}}}"#
        );
        n
    };
    let mut parent = None;
    for i in 0..levels {
        let step = entry(&mut out, parent, &format!("step {i} on the main line"));
        let side = entry(&mut out, Some(step), &format!("side branch {i}"));
        entry(&mut out, Some(side), &format!("side branch {i} goes on"));
        parent = Some(step);
    }
    entry(&mut out, parent, "the last step");
    let path = dir.join("2026-01-01T00-00-00-000Z_d0000000-0000-4000-8000-000000000000.jsonl");
    std::fs::write(&path, out).expect("write the deep session");
    path
}

/// The selected row of the entries pane: its part of the line holding `›`.
fn selected_tree_row(screen: &str) -> Option<String> {
    let line = screen.lines().find(|l| l.contains('›'))?;
    Some(match line.split('┃').nth(1) {
        Some(tree) => tree.to_string(),
        None => line.to_string(),
    })
}

#[test]
fn the_selected_rows_text_stays_in_view_in_the_deepest_tree() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let file = deepest_session(dir.path(), 400);
    let file = file.to_string_lossy().to_string();
    let t = Tmux::start(&[&file], &[], (80, 24));
    t.wait_for("the tree", |s| s.contains("the last step"));
    for size in SIZES {
        resize(&t, size);
        // From the root down the main line, each step a level deeper.
        for (moves, want) in [(0, "step 0 "), (60, "step 60 "), (250, "step 250 ")] {
            t.keys(&["Home"]);
            if moves > 0 {
                t.tmux(&["send-keys", "-N", &moves.to_string(), "Down"]);
            }
            let s = t.wait_for(&format!("{want}selected at {size:?}"), |s| {
                selected_tree_row(s).is_some_and(|r| r.contains(want))
            });
            let row = selected_tree_row(&s).unwrap_or_default();
            assert!(row.contains("user: "), "at {size:?}: {row}\n{s}");
        }
        t.keys(&["End"]);
        // The last row, under every level's side branch.
        t.wait_for(&format!("the last row's text at {size:?}"), |s| {
            s.contains("(1201/1201)") && selected_tree_row(s).is_some_and(|r| r.contains("user: "))
        });
    }
}
