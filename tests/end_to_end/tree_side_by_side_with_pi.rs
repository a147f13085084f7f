//! The browser's entry tree beside pi's own `/tree`, both in a real
//! terminal (tmux): a branched session written by pi's session code, every
//! filter, every row. Both must show the same rows in the same order, with
//! the same nesting and the same connectors (`├─`, `│`, `└─`, `⊟`).
//! pi runs as pi users run it (`tests/pi/pi-ui.sh`, on the node the tests
//! run: 22.19 or newer, as pi's command line wants).

use crate::support as common;
use crate::support::tmux;

use crate::support::pi_ui::PiUi;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use tmux::{Tmux, have_tmux};

/// pi's filter keys (the same in piscope) and the tag each shows.
const FILTERS: [(&str, &str); 5] = [
    ("C-d", ""),
    ("C-t", "[no-tools]"),
    ("C-u", "[user]"),
    ("C-l", "[labeled]"),
    ("C-a", "[all]"),
];

/// pi's tree rows on its screen, after the cursor's two columns.
fn pi_rows(screen: &str) -> Vec<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let Some(search) = lines.iter().rposition(|l| l.contains("Type to search:")) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    // The search line, a border, a blank line, then the rows up to the
    // position line `(8/16)`.
    for line in &lines[search + 2..] {
        let t = line.trim_start();
        if t.starts_with('(') && t.contains('/') {
            break;
        }
        if t.is_empty() || t.starts_with("No entries found") {
            continue;
        }
        rows.push(
            line.chars()
                .skip(2)
                .collect::<String>()
                .trim_end()
                .to_string(),
        );
    }
    rows
}

/// piscope's tree pane rows on its screen, after the cursor's two columns:
/// its own `◉` marks (the leaf, and the row standing for a leaf the filter
/// hides, with its note) read as pi's path mark `•`.
fn piscope_rows(screen: &str) -> Vec<String> {
    let mut rows = Vec::new();
    for line in screen.lines().skip(1) {
        let Some(inner) = line.strip_prefix('┃') else {
            break;
        };
        let inner = inner.split('┃').next().unwrap_or("");
        let row: String = inner.chars().skip(2).collect();
        if row.trim().is_empty() || inner.starts_with("No entries match") {
            break;
        }
        let mut row = row.trim_end().to_string();
        if let (Some(a), Some(b)) = (row.find("◉ ‹"), row.find("› ")) {
            row.replace_range(a..b + "› ".len(), "• ");
        }
        rows.push(row.replacen("◉ ", "• ", 1));
    }
    rows
}

/// The part of two rows both terminals can show alike: up to the shorter
/// one's end (each cuts at its own width) and to the first character piscope
/// makes visible and pi sends raw (escape sequences, bidi controls).
fn comparable(pi: &str, piscope: &str) -> (String, String) {
    let cut = piscope
        .chars()
        .position(|c| ('\u{2400}'..='\u{2421}').contains(&c) || c == '\u{fffd}')
        .unwrap_or(usize::MAX);
    let n = cut.min(pi.chars().count()).min(piscope.chars().count());
    (
        pi.chars().take(n).collect(),
        piscope.chars().take(n).collect(),
    )
}

/// Runs piscope's command line; its output.
fn piscope(args: &[&str]) -> String {
    let out = Command::new(tmux::BIN)
        .args(args)
        .output()
        .expect("piscope runs");
    assert!(
        out.status.success(),
        "piscope {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A branched session written by pi's own session code.
fn branched_session(dir: &Path) -> PathBuf {
    common::pi_corpus(dir, 56, 1, 20);
    let sessions = dir.join("sessions");
    for project in std::fs::read_dir(&sessions).expect("sessions") {
        for f in std::fs::read_dir(project.expect("entry").path()).expect("project") {
            let f = f.expect("entry").path();
            if f.extension().is_some_and(|e| e == "jsonl") {
                return f;
            }
        }
    }
    panic!("the generator wrote no session");
}

#[test]
fn every_row_of_a_branched_session_reads_as_in_pi_tree() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let file = branched_session(dir.path());
    // Labels on two branches, and piscope's own branch marker: a fork
    // whose new child is hidden in every filter but "all".
    let ids: Vec<String> = piscope(&["tree", &file.to_string_lossy(), "--filter", "all"])
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
        .collect();
    assert!(ids.len() > 14 && ids.len() < 40, "{ids:?}");
    let f = file.to_string_lossy().to_string();
    piscope(&["label", "--yes", &f, &ids[1], "first answer"]);
    piscope(&["label", "--yes", &f, &ids[11], "other way"]);
    piscope(&["branch", "--yes", &f, &ids[12]]);

    let pi = PiUi::start(dir.path());
    // Tall enough for every row (pi's tree shows half the terminal).
    pi.tmux(&["resize-window", "-t", "pi", "-x", "200", "-y", "90"]);
    pi.wait_for("pi's picker", |s| s.contains("Resume Session"));
    pi.keys(&["Tab"]);
    // The title changes before the list of all projects is drawn: an Enter
    // sent in between opens nothing. Wait for the selected row, steady.
    pi.wait_for_steady("all projects", |s| {
        s.contains("Resume Session (All)") && s.lines().any(|l| l.trim_start().starts_with('›'))
    });
    pi.keys(&["Enter"]);
    // The session's folder does not exist here: pi offers to go on.
    pi.wait_for("the folder question", |s| s.contains("Continue in"));
    pi.keys(&["Enter"]);
    // The footer names the folder once the session is open.
    pi.wait_for("the session", |s| s.lines().any(|l| l.trim() == "/tmp"));
    let start = Instant::now();
    loop {
        pi.tmux(&["send-keys", "-t", "pi", "-l", "/tree"]);
        pi.keys(&["Enter"]);
        std::thread::sleep(Duration::from_millis(500));
        let s = pi.tmux(&["capture-pane", "-p", "-t", "pi"]);
        if s.contains("Session Tree") {
            break;
        }
        // Typed before the editor was ready: clear the line and try again.
        pi.keys(&["C-u"]);
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "pi's /tree did not open:\n{s}"
        );
    }

    let piscope = Tmux::start(&[&f], &[], (320, 70));
    piscope.wait_for("piscope's tree", |s| {
        s.contains("Entries") && s.contains('◉')
    });

    let mut forks = 0;
    let mut compared = 0;
    let mut labelled = 0;
    for (key, tag) in FILTERS {
        // Each filter from the default view (their keys toggle).
        pi.keys(&["C-d"]);
        piscope.keys(&["C-d"]);
        if key != "C-d" {
            pi.keys(&[key]);
            piscope.keys(&[key]);
        }
        let shown = |s: &str| {
            if tag.is_empty() {
                !FILTERS.iter().any(|(_, t)| !t.is_empty() && s.contains(t))
            } else {
                s.contains(tag)
            }
        };
        let pi_screen = pi.wait_for_steady(&format!("pi's {key} filter"), |s| {
            s.contains("Type to search:") && shown(s)
        });
        let want = pi_rows(&pi_screen);
        // The default filter's screen looks like the one before it: wait
        // for the rows to settle to pi's count (a different count still
        // fails below, once the wait gives up).
        let ours = piscope.wait_for(&format!("piscope's {key} filter"), |s| {
            shown(s) && piscope_rows(s).len() == want.len()
        });
        let got = piscope_rows(&ours);
        assert_eq!(
            got.len(),
            want.len(),
            "{key}: rows\npi:\n{}\npiscope:\n{}",
            want.join("\n"),
            got.join("\n")
        );
        for (n, (w, g)) in want.iter().zip(&got).enumerate() {
            let (w, g) = comparable(w, g);
            assert!(!g.trim().is_empty(), "{key}, row {n}: nothing to compare");
            assert_eq!(g, w, "{key}, row {n}");
            compared += 1;
        }
        forks += want.iter().filter(|r| r.contains("├")).count();
        if tag == "[labeled]" {
            labelled = got.len();
        }
    }
    assert_eq!(labelled, 2, "both labels listed");
    assert!(forks >= 3, "the session has forks in the filters ({forks})");
    assert!(compared > 30, "{compared} rows compared");
    piscope.quit_with("C-c");
}
