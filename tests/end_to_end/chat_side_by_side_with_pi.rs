//! The context preview beside pi's own interactive chat, both in a real
//! terminal (tmux), on sessions that hold every message kind pi draws
//! (written by pi's own SessionManager, `tests/pi/pi-chat-kinds.mjs`) and
//! on real sessions (`tests/data/pi-mono/`).
//!
//! pi opens each session (`pi --session FILE`, `tests/pi/pi-ui.sh`) at the
//! width piscope's preview gives its text, and the whole chat is read from
//! tmux's scrollback. piscope opens the same file, the preview is focused
//! and paged through from its top. Both are stripped of borders, gutters
//! and colours (tmux gives no colours), and of what [`DELIBERATE`] lists:
//! the differences kept on purpose, each with its reason. Then:
//! - the words in the same order: the longest common subsequence of the
//!   two word lists is at least [`MIN_WORDS`] of each;
//! - every hard line break of pi's (a line that would have fit on the line
//!   before it, so pi broke it on purpose) starts a line in piscope's too,
//!   in the same order: at least [`MIN_BREAKS`] of them.
//!
//! The agreement per session is printed (`--nocapture` shows it);
//! `PISCOPE_CHAT_DUMP=DIR` writes both sides' lines there.

use crate::support as common;
use crate::support::pi_ui::PiUi;
use crate::support::tmux::{Tmux, have_tmux};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use unicode_width::UnicodeWidthChar as _;

/// The share of each side's words the other side has in the same order.
const MIN_WORDS: f64 = 0.98;
/// The share of pi's hard line breaks that start a line in piscope's.
const MIN_BREAKS: f64 = 0.98;

/// piscope's terminal: wide, so that the preview gets a width pi's chat
/// is read at every day, and tall, so that few pages hold the chat.
const PISCOPE_SIZE: (u16, u16) = (200, 400);

/// Which side a deliberate difference is on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    Pi,
    Piscope,
}

/// A difference from pi's chat kept on purpose: the lines it drops from
/// one side before the comparison, and why piscope differs there.
struct Deliberate {
    side: Side,
    what: &'static str,
    why: &'static str,
    /// Whether a line (its text with borders, gutter and indent removed)
    /// is this difference.
    line: fn(&str) -> bool,
}

/// The hint of a long context's first block, its older part left out.
const SHOWS_EVERYTHING: &str = "shows everything)";

/// The differences from pi's chat kept on purpose.
const DELIBERATE: &[Deliberate] = &[
    Deliberate {
        side: Side::Piscope,
        what: "a title row per message: its role, model and time",
        why: "pi tells the roles apart by colour alone (the user's messages on a tinted \
              background) and shows no times; the preview is read to find when and by \
              which model something was said, and must read without colour too",
        line: is_role_title,
    },
    Deliberate {
        side: Side::Piscope,
        what: "the header row: model, thinking level, context size, tokens used, cost",
        why: "pi puts these in its footer below the editor, which the preview has not; \
              it is the same facts for the selected entry",
        line: |_| false, // the pane's first row, not part of the pages
    },
    Deliberate {
        side: Side::Piscope,
        what: "fold hints: \"… N more lines (o unfolds)\", \"(o shows it)\"",
        why: "piscope folds and unfolds each block on its own, with its own key; pi's \
              hint names pi's key (ctrl+o) that unfolds every block at once",
        line: |l| l.contains(" unfolds)") || l.contains("(o shows it)"),
    },
    Deliberate {
        side: Side::Pi,
        what: "fold hints: \"... (N more lines, ctrl+o to expand)\", \"(ctrl+o to expand)\"",
        why: "the same hints with pi's key, see above",
        line: |l| l.starts_with("... (") && l.contains("to expand)"),
    },
    Deliberate {
        side: Side::Piscope,
        what: "a long branch shows its last entries: \"… N entries before these are in the \
               context too (o shows everything)\"",
        why: "a preview is built each time an entry is selected, and must be quick on \
              sessions of any length; the older part is a key away. pi's chat is then \
              compared from where the preview starts",
        line: |l| l.contains(SHOWS_EVERYTHING),
    },
    Deliberate {
        side: Side::Piscope,
        what: "times in titles (a bash command the user ran)",
        why: "see the title row above: when something happened is part of what the \
              preview is read for; words that read as a date or a time are left out",
        line: |_| false, // words, see `kept`
    },
    Deliberate {
        side: Side::Piscope,
        what: "the title row of a thinking block: \"Thinking\"",
        why: "pi sets thinking apart in italics and colour alone; the preview names it, \
              so that it can be folded and reads without colour",
        line: |l| l == "Thinking",
    },
    Deliberate {
        side: Side::Piscope,
        what: "custom messages an extension hid from the chat (\"hidden in pi\")",
        why: "pi's chat leaves them out, but the model sees them: the preview shows what \
              the model saw, folded and marked",
        line: |l| l.contains("hidden in pi"),
    },
    Deliberate {
        side: Side::Piscope,
        what: "what a compaction replaced: its title row and its count of entries",
        why: "piscope shows what the model no longer sees (folded under the \
              compaction); pi shows only the summary",
        line: |l| l == "Compaction" || l.starts_with("Compaction ·"),
    },
    Deliberate {
        side: Side::Pi,
        what: "pi's status line under the chat: \"Session compacted 1 time\"",
        why: "a note pi prints on opening a session, not part of the chat; the preview \
              shows each compaction where it is",
        line: |l| l.starts_with("Session compacted "),
    },
    Deliberate {
        side: Side::Piscope,
        what: "\"error\" at the end of a failed tool's title",
        why: "pi marks a failed tool by its red background alone; the preview must read \
              without colour (in a copy, to a reader who cannot tell the colours apart)",
        line: |_| false, // a word, see `kept`
    },
    Deliberate {
        side: Side::Piscope,
        what: "images: \"[image png 70 B]\" (and the picture, where the terminal draws one)",
        why: "pi's chat leaves a user's images out of the transcript; the model saw them, \
              and the preview shows what it saw",
        line: |l| l.starts_with("[image "),
    },
    Deliberate {
        side: Side::Piscope,
        what: "an edit whose result has no diff (`details.diff`): the change drawn from the \
               call's arguments, without line numbers",
        why: "pi, opening a session, draws no diff for it (it would diff against the file \
              on disk, which may have changed since); the change is what the model asked \
              for, so the preview shows it. Counted, not left out: a few words",
        line: |_| false,
    },
    Deliberate {
        side: Side::Piscope,
        what: "\"(no result)\" after a tool call that never got its result",
        why: "pi shows such a call as pending, without a word; the preview says so",
        line: |_| false, // counted, not left out
    },
    Deliberate {
        side: Side::Piscope,
        what: "code, diffs and output cut at the width one or two columns before pi cuts them",
        why: "piscope draws code with a bar down its side; a line cut mid-word is joined \
              again on both sides before the comparison (`uncut`)",
        line: |_| false,
    },
    Deliberate {
        side: Side::Pi,
        what: "the fences of a code block (```rust, ```)",
        why: "piscope draws a code block with a bar down its side and highlights it by \
              its language, as its other code (tool output, files) is drawn",
        line: |l| l.starts_with("```"),
    },
    Deliberate {
        side: Side::Pi,
        what: "the compaction's and the branch summary's own title rows: \"[compaction]\", \
               \"Compacted from N tokens\", \"[branch]\"",
        why: "piscope names them in one title row with what they hold (the tokens \
              before, the entries replaced, what was kept)",
        line: |l| {
            l.starts_with("[compaction]")
                || l.starts_with("[branch]")
                || l.starts_with("Compacted from")
        },
    },
];

/// What a line of either side reads as once borders, gutters and indents
/// are gone: its words.
fn words(line: &str) -> impl Iterator<Item = String> + '_ {
    line.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| is_drawing(c) || matches!(c, '•' | '·' | '…'))
                .to_string()
        })
        .filter(|w| !w.is_empty() && w != "-" && w != "..." && w != "+")
}

/// Box drawing, block elements and the fold marks: never words.
fn is_drawing(c: char) -> bool {
    ('\u{2500}'..='\u{259f}').contains(&c) || matches!(c, '▸' | '▾' | '⏵' | '⎿')
}

/// piscope's title row of a message: "User  2026-…", "Assistant (model)
/// …", "Tool result …".
fn is_role_title(line: &str) -> bool {
    let t = line.trim_start_matches(['▸', '▾', ' ']);
    let first = t.split_whitespace().next().unwrap_or("");
    matches!(first, "User" | "Assistant")
        && t.split_whitespace()
            .any(|w| w.len() == 10 && w.as_bytes()[4] == b'-' && w.as_bytes()[7] == b'-')
}

/// `2026-02-03`, `08:33:41`: a date or a time of piscope's titles.
fn is_date_or_time(w: &str) -> bool {
    let shape: String = w
        .chars()
        .map(|c| if c.is_ascii_digit() { '9' } else { c })
        .collect();
    matches!(shape.as_str(), "9999-99-99" | "99:99:99" | "99:99")
}

/// pi's interactive chat on one session, in a tmux server of its own.
struct PiChat {
    ui: PiUi,
}

impl PiChat {
    fn start(file: &Path, work: &Path, width: u16) -> PiChat {
        PiChat {
            ui: PiUi::chat(file, work, width),
        }
    }

    fn tmux(&self, args: &[&str]) -> String {
        self.ui.tmux(args)
    }

    /// The whole chat, once pi has drawn it and its screen holds still.
    fn chat(&self) -> String {
        let start = Instant::now();
        let mut last = String::new();
        loop {
            let s = self.tmux(&["capture-pane", "-p", "-t", "pi"]);
            // The session's folder does not exist here: pi offers to go on.
            if s.contains("Session cwd does not exist") && s.contains("→ Continue") {
                self.tmux(&["send-keys", "-t", "pi", "Enter"]);
            } else if s.contains("No models available") && s == last {
                return self.tmux(&["capture-pane", "-p", "-t", "pi", "-S", "-"]);
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "timed out waiting for pi's chat; the screen was:\n{s}"
            );
            last = s;
            std::thread::sleep(Duration::from_millis(300));
        }
    }
}

/// pi's chat lines: after its start-up notes, up to the notes it adds
/// once the session is drawn (no model, the terminal's keys), without
/// the one-column padding pi keeps on the left.
fn pi_lines(capture: &str) -> Vec<String> {
    let lines: Vec<&str> = capture.lines().collect();
    let mut start = lines
        .iter()
        .position(|l| l.contains("Pi can explain its own features"))
        .map_or(0, |i| i + 1);
    while start < lines.len() {
        let t = lines[start].trim();
        if t.is_empty() || t.starts_with("Warning:") {
            start += 1;
        } else {
            break;
        }
    }
    let end = lines
        .iter()
        .rposition(|l| l.trim_start().starts_with("Warning: No models available"))
        .unwrap_or(lines.len());
    lines[start..end.max(start)]
        .iter()
        .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end().to_string())
        .collect()
}

/// The preview pane's columns on piscope's screen: its left border's
/// and how many there are inside.
fn preview_columns(screen: &str) -> Option<(usize, usize)> {
    let top = screen.lines().next()?;
    let at = top.find(" Context ")?;
    // The corner before the title; the other corner ends the line.
    let corner = columns(&top[..at]).checked_sub(1)?;
    Some((corner, columns(top).checked_sub(corner + 2)?))
}

/// The terminal columns a string takes.
fn columns(s: &str) -> usize {
    s.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// The characters of a screen line from column `from`, `count` columns
/// of them (the tree pane beside the preview may hold wide characters).
fn cut(line: &str, from: usize, count: usize) -> String {
    let mut col = 0;
    let mut out = String::new();
    for c in line.chars() {
        if col >= from && col < from + count {
            out.push(c);
        }
        col += c.width().unwrap_or(0);
    }
    out
}

/// The rows of the preview's document on one screen: inside the pane's
/// border, under its header row, without the gutter and the scrollbar.
fn preview_rows(screen: &str) -> Vec<String> {
    let Some((left, inner)) = preview_columns(screen) else {
        return Vec::new();
    };
    let lines: Vec<&str> = screen.lines().collect();
    // The pane's top border, its header row; its bottom border and the
    // two status rows under it.
    let body = lines.len().saturating_sub(3);
    lines
        .iter()
        .take(body)
        .skip(2)
        .map(|l| cut(l, left + 2, inner - 2).trim_end().to_string())
        .collect()
}

/// piscope's preview of the session's leaf, paged through from its top,
/// and the columns its text gets.
fn piscope_preview(file: &Path) -> (Vec<String>, usize) {
    let t = Tmux::start(
        &[&file.to_string_lossy()],
        &[],
        (PISCOPE_SIZE.0, PISCOPE_SIZE.1),
    );
    let ready = |s: &str| {
        let header = s.lines().nth(1).unwrap_or("");
        preview_columns(s).is_some()
            && !header.contains("Building the context")
            && !header.contains("Select an entry")
            && header.contains(" · ")
    };
    let s = t.wait_for("the preview", ready);
    let (_, inner) = preview_columns(&s).expect("the preview pane");
    t.keys(&["Tab"]);
    t.wait_for("the preview's focus", |s| s.contains("n/p block"));
    t.keys(&["Home"]);
    let mut pages: Vec<Vec<String>> = Vec::new();
    let mut screen = steady(&t);
    loop {
        pages.push(preview_rows(&screen));
        t.keys(&["PageDown"]);
        let next = steady(&t);
        if next == screen {
            break;
        }
        screen = next;
        assert!(pages.len() < 400, "the preview does not end");
    }
    t.quit_with("C-c");
    (stitch(&pages), inner - 4)
}

/// The screen once it holds still for a while (the preview lays blocks
/// out around the view as it goes; a block not laid out yet shows its
/// title alone).
fn steady(t: &Tmux) -> String {
    let mut last = t.screen();
    let mut same = 0;
    loop {
        std::thread::sleep(Duration::from_millis(150));
        let s = t.screen();
        if s == last {
            same += 1;
            if same == 3 {
                return s;
            }
        } else {
            same = 0;
        }
        last = s;
    }
}

/// One document from its pages: each a whole page below the one before,
/// but the last, which ends at the document's end and so may show again
/// rows the one before showed (the most rows that match).
fn stitch(pages: &[Vec<String>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (n, page) in pages.iter().enumerate() {
        if n + 1 < pages.len() || n == 0 {
            out.extend(page.iter().cloned());
            continue;
        }
        let prev = &pages[n - 1];
        let overlap = (0..page.len())
            .rev()
            .find(|&k| k <= prev.len() && prev[prev.len() - k..] == page[..k])
            .unwrap_or(0);
        out.extend(page[overlap..].iter().cloned());
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

/// Lines as they were before a terminal's width cut them: a line that
/// fills all `full` columns goes on in the next (code and output are cut
/// at the width, mid-word; text wraps at spaces and never fills a line to
/// its last column but by chance). The two sides cut at different columns
/// (piscope's code has a bar down its side), so both are joined.
fn uncut(lines: &[String], full: usize, side: Side) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut joining = false;
    for l in lines {
        if joining {
            let last = out.last_mut().expect("a line to join");
            last.push_str(l.trim_start_matches(|c: char| c == ' ' || is_drawing(c)));
        } else {
            out.push(l.clone());
        }
        // piscope's text never needs it: its code and output rows have
        // the bar.
        joining = columns(l) >= full && (side == Side::Pi || l.trim_start().starts_with('│'));
    }
    out
}

/// The lines of one side with the deliberate differences of that side
/// dropped (and with them the lines pi folds under a bash command's
/// border, which are the same words).
fn kept(lines: &[String], side: Side) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| {
            let title = l.trim_start().starts_with(['▸', '▾']);
            let l = l
                .trim_start_matches(|c: char| c == ' ' || is_drawing(c))
                .trim_end_matches(|c: char| c == ' ' || is_drawing(c));
            if DELIBERATE.iter().any(|d| d.side == side && (d.line)(l)) {
                return None;
            }
            Some(match side {
                // A folded block's hint at the end of its title.
                Side::Pi => l.replace(" (ctrl+o to expand)", ""),
                Side::Piscope => {
                    let l = if title {
                        l.strip_suffix("  error").unwrap_or(l)
                    } else {
                        l
                    };
                    if title {
                        l.split(' ')
                            .filter(|w| !is_date_or_time(w))
                            .collect::<Vec<_>>()
                            .join(" ")
                    } else {
                        l.to_string()
                    }
                }
            })
        })
        .collect()
}

/// How much of each side's words the other has in the same order.
fn word_agreement(pi: &[String], ours: &[String]) -> (f64, f64, Vec<String>) {
    let a: Vec<String> = pi.iter().flat_map(|l| words(l)).collect();
    let b: Vec<String> = ours.iter().flat_map(|l| words(l)).collect();
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b);
    let mut same = 0;
    let mut missing = Vec::new();
    for op in &ops {
        match op {
            similar::DiffOp::Equal { len, .. } => same += len,
            similar::DiffOp::Delete {
                old_index, old_len, ..
            } => missing.push(format!(
                "pi only: {}",
                a[*old_index..old_index + old_len].join(" ")
            )),
            similar::DiffOp::Insert {
                new_index, new_len, ..
            } => missing.push(format!(
                "piscope only: {}",
                b[*new_index..new_index + new_len].join(" ")
            )),
            similar::DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => missing.push(format!(
                "pi: {} | piscope: {}",
                a[*old_index..old_index + old_len].join(" "),
                b[*new_index..new_index + new_len].join(" ")
            )),
        }
    }
    let share = |n: usize| if n == 0 { 1.0 } else { same as f64 / n as f64 };
    (share(a.len()), share(b.len()), missing)
}

/// pi's hard line breaks (a line whose first word would have fit on the
/// line before it, which is not blank) and how many of them start a line
/// of piscope's, in order; the ones that do not.
fn break_agreement(pi: &[String], ours: &[String], width: usize) -> (usize, usize, Vec<String>) {
    let ours: Vec<Vec<String>> = ours.iter().map(|l| words(l).collect()).collect();
    let mut at = 0;
    let (mut total, mut found) = (0, 0);
    let mut lost = Vec::new();
    for pair in pi.windows(2) {
        let (before, line) = (&pair[0], &pair[1]);
        let w: Vec<String> = words(line).collect();
        if before.trim().is_empty()
            || w.is_empty()
            || kept(std::slice::from_ref(line), Side::Pi).is_empty()
        {
            continue;
        }
        let first = line.split_whitespace().next().unwrap_or("");
        if before.chars().count() + 1 + first.chars().count() > width {
            continue;
        }
        total += 1;
        let head = &w[..w.len().min(4)];
        match (at..ours.len())
            .find(|&k| ours[k].len() >= head.len() && ours[k][..head.len()] == *head)
        {
            Some(k) => {
                found += 1;
                at = k + 1;
            }
            None => lost.push(line.clone()),
        }
    }
    (total, found, lost)
}

/// The sessions to compare: the generated ones and copies of the real
/// ones (pi may rewrite a file of an older version when it opens it).
fn sessions(dir: &Path) -> Vec<(String, PathBuf)> {
    let out = common::stdout_ok(
        common::node(&common::harness("pi-chat-kinds.mjs"))
            .arg(dir.join("generated"))
            .arg("/tmp"),
    );
    let mut files: Vec<(String, PathBuf)> = out
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(name, path)| (format!("{name} (generated)"), PathBuf::from(path)))
        .collect();
    assert_eq!(files.len(), 2, "the generator wrote two sessions:\n{out}");
    for name in ["before-compaction.jsonl", "large-session.jsonl"] {
        let to = dir.join(name);
        std::fs::copy(common::pi_mono(name), &to).expect("copy a fixture");
        files.push((name.to_string(), to));
    }
    files
}

/// pi's lines from the last place where piscope's first words (of a
/// preview that shows a long branch's last entries) start: five words in
/// a row, from the first of piscope's twenty that pi has (a title piscope
/// cuts short has none).
fn from_where_ours_starts(pi: &[String], ours: &[String]) -> Vec<String> {
    let b: Vec<String> = ours.iter().flat_map(|l| words(l)).take(25).collect();
    let mut at: Vec<(usize, String)> = Vec::new();
    for (n, l) in pi.iter().enumerate() {
        at.extend(words(l).map(|w| (n, w)));
    }
    for from in 0..b.len().saturating_sub(5) {
        let run = &b[from..from + 5];
        let found = (0..at.len().saturating_sub(run.len()))
            .rev()
            .find(|&k| at[k..k + run.len()].iter().map(|(_, w)| w).eq(run.iter()));
        if let Some(k) = found {
            return pi[at[k].0..].to_vec();
        }
    }
    pi.to_vec()
}

/// One session's agreement: words both ways and hard line breaks.
struct Agreement {
    name: String,
    pi_words: f64,
    piscope_words: f64,
    breaks: (usize, usize),
    differences: Vec<String>,
    lost_breaks: Vec<String>,
}

fn compare(name: &str, file: &Path, work: &Path) -> Agreement {
    let (ours, width) = piscope_preview(file);
    let pi = PiChat::start(file, work, u16::try_from(width + 2).expect("a width"));
    let pi_raw = uncut(&pi_lines(&pi.chat()), width, Side::Pi);
    drop(pi);
    // A row of the preview: the block's indent, then its text.
    let ours = uncut(&ours, width + 2, Side::Piscope);
    if let Some(dump) = std::env::var_os("PISCOPE_CHAT_DUMP") {
        let name = name.replace(' ', "-");
        let dump = Path::new(&dump);
        std::fs::create_dir_all(dump).expect("the dump folder");
        std::fs::write(dump.join(format!("{name}.pi.txt")), pi_raw.join("\n")).expect("dump");
        std::fs::write(dump.join(format!("{name}.piscope.txt")), ours.join("\n")).expect("dump");
    }
    let windowed = ours.iter().any(|l| l.contains(SHOWS_EVERYTHING));
    let ours = kept(&ours, Side::Piscope);
    let pi_raw = if windowed {
        from_where_ours_starts(&pi_raw, &ours)
    } else {
        pi_raw
    };
    let theirs = kept(&pi_raw, Side::Pi);
    let (pi_words, piscope_words, differences) = word_agreement(&theirs, &ours);
    let (total, found, lost_breaks) = break_agreement(&pi_raw, &ours, width);
    Agreement {
        name: name.to_string(),
        pi_words,
        piscope_words,
        breaks: (found, total),
        differences,
        lost_breaks,
    }
}

#[test]
fn the_preview_reads_like_pis_own_chat() {
    if !have_tmux() || !common::have_node() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let files = sessions(dir.path());
    let started = Instant::now();
    // Two at a time: each runs pi and piscope, and the other tests of
    // this binary run beside it.
    let mut results: Vec<Agreement> = Vec::new();
    for (k, pair) in files.chunks(2).enumerate() {
        results.extend(std::thread::scope(|s| {
            let handles: Vec<_> = pair
                .iter()
                .enumerate()
                .map(|(n, (name, f))| {
                    let work = dir.path().join(format!("pi-{k}-{n}"));
                    s.spawn(move || compare(name, f, &work))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a comparison"))
                .collect::<Vec<_>>()
        }));
    }
    let mut failed = Vec::new();
    for d in DELIBERATE {
        println!("deliberate ({:?}): {}: {}", d.side, d.what, d.why);
    }
    for r in &results {
        let breaks = if r.breaks.1 == 0 {
            1.0
        } else {
            r.breaks.0 as f64 / r.breaks.1 as f64
        };
        println!(
            "{}: words {:.1}% of pi's, {:.1}% of piscope's; hard line breaks {}/{} ({:.1}%)",
            r.name,
            r.pi_words * 100.0,
            r.piscope_words * 100.0,
            r.breaks.0,
            r.breaks.1,
            breaks * 100.0
        );
        for d in r.differences.iter().take(40) {
            println!("  {d}");
        }
        for l in r.lost_breaks.iter().take(20) {
            println!("  line break lost before: {l}");
        }
        if r.pi_words < MIN_WORDS || r.piscope_words < MIN_WORDS || breaks < MIN_BREAKS {
            failed.push(r.name.clone());
        }
    }
    println!("compared in {:?}", started.elapsed());
    assert!(
        failed.is_empty(),
        "the preview reads unlike pi's chat in {failed:?} (the differences are above)"
    );
}

/// The preview's header gives the context's share of its model's window
/// from a table made of pi's own model catalog: the table is pi's.
#[test]
fn the_context_windows_are_pis_own() {
    if !common::have_node() {
        return;
    }
    let made = common::stdout_ok(&mut common::node(&common::harness("context-windows.mjs")));
    let kept = std::fs::read_to_string(common::repo().join("src/render/context_windows.tsv"))
        .expect("the table");
    assert!(
        made == kept,
        "src/render/context_windows.tsv is not pi's: regenerate it with \
         `node tests/pi/context-windows.mjs > src/render/context_windows.tsv`"
    );
}
