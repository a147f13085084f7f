//! `piscope tree` prints pi's `/tree`: the rows pi's own tree component
//! draws (order, filters, connectors, one-line texts, path marks), and the
//! browser's tree pane shows the same rows in the same order.

use crate::support as common;
use crate::support::tui as tui_common;

use piscope::tui::harness::Harness;
use std::path::{Path, PathBuf};
use std::process::Command;

/// pi's filter modes and piscope's names for them, with the browser's key.
const FILTERS: [(&str, &str, &str); 5] = [
    ("default", "default", "ctrl+d"),
    ("no-tools", "no-tools", "ctrl+t"),
    ("user-only", "user", "ctrl+u"),
    ("labeled-only", "labeled", "ctrl+l"),
    ("all", "all", "ctrl+a"),
];

fn piscope_tree(file: &Path, filter: &str) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .arg("tree")
        .arg(file)
        .args(["--filter", filter])
        .output()
        .expect("run piscope");
    assert!(
        out.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(str::to_string)
        .collect()
}

/// A row of `piscope tree` without its id column.
fn body(row: &str) -> &str {
    // Ids in these files are pi's: eight characters, no spaces.
    row.split_once("  ").map_or("", |(_, rest)| rest)
}

/// Text as both sides can agree on it: escape sequences and other controls
/// gone. pi prints a file's escapes raw (among its own colours); piscope
/// shows them as visible symbols, turned back here.
fn plain(s: &str, from_piscope: bool) -> String {
    let chars: Vec<char> = s
        .chars()
        .map(|c| match c as u32 {
            0x2400..=0x241F if from_piscope => char::from_u32(c as u32 - 0x2400).unwrap_or(c),
            0x2421 if from_piscope => '\u{7f}',
            _ => c,
        })
        .collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\u{1b}' && chars.get(i + 1) == Some(&'[') {
            i += 2;
            while i < chars.len() && !('@'..='~').contains(&chars[i]) {
                i += 1;
            }
        } else if c == '\u{1b}' && chars.get(i + 1) == Some(&']') {
            i += 2;
            while i < chars.len() && chars[i] != '\u{7}' && chars[i] != '\u{1b}' {
                i += 1;
            }
        } else if !(c.is_control()
            || c == '\u{fffd}'
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c))
        {
            out.push(c);
        }
        i += 1;
    }
    out
}

/// pi's rows as piscope writes them: no cursor gutter, no fold marks in
/// the connectors (a listing does not fold).
fn pi_row(row: &str) -> String {
    let row = plain(row, false);
    // The cursor's gutter: `› ` on the selected row (the leaf), else blank.
    let row = row
        .strip_prefix("  ")
        .or_else(|| row.strip_prefix("› "))
        .unwrap_or_default();
    row.replace("├⊟", "├─")
        .replace("└⊟", "└─")
        .replace("├⊞", "├─")
        .replace("└⊞", "└─")
}

fn piscope_row(row: &str) -> String {
    plain(body(row), true).replacen("◉ ", "• ", 1)
}

/// pi's own rows for `files` under `filter`.
fn pi_tree(filter: &str, files: &[PathBuf]) -> serde_json::Value {
    let script = common::harness("pi-tree-view.mjs");
    let out = common::node(&script)
        .arg(filter)
        .args(files)
        .output()
        .expect("run pi's tree view");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// The demo sessions and a corpus written by pi's own session code.
fn pi_written(dir: &Path) -> Vec<PathBuf> {
    common::pi_corpus(dir, 11, 8, 30);
    let mut files = Vec::new();
    for root in [
        dir.join("sessions"),
        common::repo().join("assets/demo/sessions"),
    ] {
        for project in std::fs::read_dir(&root).expect("sessions folder") {
            for f in std::fs::read_dir(project.expect("entry").path()).expect("project") {
                let f = f.expect("entry").path();
                if f.extension().is_some_and(|e| e == "jsonl") {
                    files.push(f);
                }
            }
        }
    }
    files.sort();
    files
}

#[test]
fn piscope_tree_prints_the_rows_pi_tree_draws() {
    if !common::have_node() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let files = pi_written(dir.path());
    assert!(files.len() > 10, "{files:?}");
    let mut forks = 0;
    for (pi_filter, filter, _) in FILTERS {
        let pi = pi_tree(pi_filter, &files);
        for file in &files {
            let want: Vec<String> = pi[file.to_string_lossy().as_ref()]
                .as_array()
                .unwrap_or_else(|| panic!("pi drew no tree for {}", file.display()))
                .iter()
                .map(|r| pi_row(r.as_str().expect("a row")))
                .collect();
            let got: Vec<String> = piscope_tree(file, filter)
                .iter()
                .map(|r| piscope_row(r))
                .collect();
            for (n, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{} --filter {filter}, row {n}", file.display());
            }
            assert_eq!(
                got.len(),
                want.len(),
                "{} --filter {filter}: rows",
                file.display()
            );
            forks += got.iter().filter(|r| r.contains("├─")).count();
        }
    }
    assert!(forks > 10, "the files have forks to draw ({forks})");
}

/// The tree pane's rows on screen, after the cursor's column, each cut
/// at the pane's edge.
fn pane_rows(screen: &str) -> Vec<String> {
    let mut rows = Vec::new();
    for line in screen.lines().skip(1) {
        let Some(inner) = line.strip_prefix('┃') else {
            break;
        };
        let inner = inner.split('┃').next().unwrap_or("");
        let Some(row) = inner
            .strip_prefix("› ")
            .or_else(|| inner.strip_prefix("  "))
        else {
            break;
        };
        if row.trim().is_empty() {
            break;
        }
        rows.push(cells_to_text(row.trim_end()));
    }
    rows
}

/// A screen row as text: the screen holds a blank after each wide
/// character, in the cell it covers.
fn cells_to_text(cells: &str) -> String {
    let mut out = String::new();
    let mut skip = false;
    for c in cells.chars() {
        if std::mem::take(&mut skip) && c == ' ' {
            continue;
        }
        skip = piscope::safe_text::width(c.encode_utf8(&mut [0; 4])) == 2;
        out.push(c);
    }
    out
}

#[test]
fn browser_and_command_line_show_the_same_rows() {
    let mut forks = 0;
    let mut resume_marks = 0;
    for file in [tui_common::big_demo(), tui_common::labelled_demo()] {
        for (_, filter, key) in FILTERS {
            let cli = piscope_tree(&file, filter);
            if cli.is_empty() {
                // No rows: the pane says so instead (see the snapshot tests).
                continue;
            }
            let mut h = Harness::file(&file, (150, cli.len() as u16 + 8));
            h.key(key);
            let shown = pane_rows(&h.screen());
            assert_eq!(shown.len(), cli.len(), "--filter {filter}: rows");
            for (n, (row, line)) in shown.iter().zip(&cli).enumerate() {
                // The same gutter, mark and text from the one layout; the
                // pane marks folds in the connectors as pi does.
                let mut row = row.replace("├⊟", "├─").replace("└⊟", "└─");
                let want = body(line);
                // Where the filter hides the leaf, the pane marks its nearest
                // row `◉` with a note of what lies hidden; pi marks it `•`.
                if let (Some(a), Some(b)) = (row.find("◉ ‹"), row.find("› ")) {
                    if !want.contains('◉') {
                        row.replace_range(a..b + "› ".len(), "• ");
                        resume_marks += 1;
                    }
                }
                assert!(
                    !row.is_empty() && want.starts_with(row.as_str()),
                    "--filter {filter}, row {n}: the pane shows {row:?}, the command line {want:?}"
                );
                forks += usize::from(row.contains("├─"));
            }
        }
    }
    assert!(forks > 0, "the rows have forks to compare");
    assert!(resume_marks > 0, "a filter hides the leaf somewhere");
}

/// pi's tree shows a branch summary, a custom message, a bash run and an
/// error message whole (and a bash call's command from its first visible
/// character), however long: rows of a pi-written session with texts far
/// longer than the index keeps of a message's text.
#[test]
fn long_texts_show_as_pi_shows_them() {
    if !common::have_node() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let out = common::node(&common::harness("pi-appender.mjs"))
        .args(["long-texts", &dir.path().to_string_lossy(), "/proj"])
        .output()
        .expect("write a session with pi");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    for (pi_filter, filter, _) in FILTERS {
        let pi = pi_tree(pi_filter, std::slice::from_ref(&file));
        let want: Vec<String> = pi[file.to_string_lossy().as_ref()]
            .as_array()
            .expect("pi's rows")
            .iter()
            .map(|r| pi_row(r.as_str().expect("a row")))
            .collect();
        let got: Vec<String> = piscope_tree(&file, filter)
            .iter()
            .map(|r| piscope_row(r))
            .collect();
        assert_eq!(got, want, "--filter {filter}");
    }
    let rows = piscope_tree(&file, "all").join("\n");
    assert!(
        rows.contains("summary-59\tend.".replace('\t', " ").as_str()),
        "{rows}"
    );
    assert!(
        rows.contains("custom-59 more-0") && rows.contains("more-59"),
        "{rows}"
    );
    assert!(
        rows.contains("echo-59") && rows.contains("failed-0"),
        "{rows}"
    );
}
