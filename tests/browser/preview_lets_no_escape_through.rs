//! Escape sequences in a session (ESC, CSI, OSC 8 links, OSC 52 clipboard
//! writes, C1 controls, bidi overrides) fed through every way the browser's
//! preview renders text (markdown, fenced code, edit diffs, bash output in
//! its colours, thinking, what a compaction replaced): none reaches the
//! screen's cells, and the bytes written to a terminal hold no sequence but
//! the drawer's own colour and cursor moves.

use piscope::tui::draw::draw;
use piscope::tui::harness::Harness;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;

/// What the terminal backend writes, kept to be read.
#[derive(Clone, Default)]
struct Written(Rc<RefCell<Vec<u8>>>);

impl std::io::Write for Written {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every kind of hostile text at once.
const EVIL: &str = "E\u{1b}[2J\u{1b}[31mred\u{1b}]8;;https://evil.example/\u{7}link\u{1b}]8;;\u{7} \
     \u{1b}]52;c;cHduZWQ=\u{7}clip \u{1b}]0;title\u{1b}\\ \u{9b}31m c1 \u{9d}0;t\u{9c} \u{85}nel \
     \u{202e}reversed\u{202c} \u{2066}iso\u{2069} \u{200f}rlm \u{7}bell \u{8}bs \r cr";

fn session(dir: &std::path::Path) -> std::path::PathBuf {
    let mut lines = vec![json!({
        "type": "session", "version": 3, "id": "evil-session",
        "timestamp": "2026-01-11T00:00:00.000Z", "cwd": "/home/ada/evil"
    })];
    let mut parent: Option<String> = None;
    let mut n = 0;
    let mut push = |message: serde_json::Value, lines: &mut Vec<serde_json::Value>| {
        n += 1;
        let id = format!("{n:08x}");
        lines.push(json!({
            "type": "message", "id": id, "parentId": parent,
            "timestamp": "2026-01-11T00:00:01.000Z", "message": message
        }));
        parent = Some(id);
    };
    let markdown = format!(
        "# Head {EVIL}\n\n**bold {EVIL}** _it {EVIL}_ `code {EVIL}` [text {EVIL}](https://x.example/{EVIL})\n\n\
         - item {EVIL}\n\n> quote {EVIL}\n\n| a {EVIL} | b |\n|---|---|\n| {EVIL} | 1 |\n\n\
         ```rust\nfn main() {{ let s = \"{EVIL}\"; }}\n```\n\n```\n{EVIL}\n```\n"
    );
    push(
        json!({"role": "user", "content": markdown, "timestamp": 1}),
        &mut lines,
    );
    push(
        json!({
            "role": "assistant", "provider": "p", "model": "m", "stopReason": "toolUse",
            "timestamp": 2,
            "content": [
                {"type": "thinking", "thinking": format!("thinking {EVIL}")},
                {"type": "text", "text": markdown},
                {"type": "toolCall", "id": "e1", "name": "edit", "arguments": {
                    "path": format!("src/{EVIL}.rs"),
                    "oldText": format!("old {EVIL}\nsame"),
                    "newText": format!("new {EVIL}\nsame")
                }},
                {"type": "toolCall", "id": "b1", "name": "bash", "arguments": {
                    "command": format!("echo {EVIL}")
                }},
                {"type": "toolCall", "id": "w1", "name": "write", "arguments": {
                    "path": "a.py", "content": format!("print('{EVIL}')\n")
                }},
                {"type": "toolCall", "id": "r1", "name": "read", "arguments": {
                    "path": format!("{EVIL}.md")
                }}
            ]
        }),
        &mut lines,
    );
    for (id, name, text) in [
        ("e1", "edit", format!("edited {EVIL}")),
        (
            "b1",
            "bash",
            format!("\u{1b}[1;32mok\u{1b}[0m {EVIL}\nline two {EVIL}"),
        ),
        ("w1", "write", "written".to_string()),
        ("r1", "read", format!("# read {EVIL}\n")),
    ] {
        push(
            json!({"role": "toolResult", "toolCallId": id, "toolName": name,
                   "content": [{"type": "text", "text": text}], "isError": false, "timestamp": 3}),
            &mut lines,
        );
    }
    push(
        json!({"role": "bashExecution", "command": format!("ls {EVIL}"),
               "output": format!("\u{1b}[34mblue\u{1b}[0m {EVIL}"), "exitCode": 1, "timestamp": 4}),
        &mut lines,
    );
    push(
        json!({"role": "assistant", "provider": "p", "model": "m", "stopReason": "stop",
               "timestamp": 5, "content": [{"type": "text", "text": format!("done {EVIL}")}]}),
        &mut lines,
    );
    // A compaction that replaces all of it, then one more turn: the
    // replaced messages are drawn too, inside it.
    let last = parent.clone();
    lines.push(json!({
        "type": "compaction", "id": "c0mpac70", "parentId": last,
        "timestamp": "2026-01-11T00:00:02.000Z",
        "summary": format!("## Summary {EVIL}\n\n- {EVIL}"),
        "firstKeptEntryId": "c0mpac70", "tokensBefore": 1000
    }));
    lines.push(json!({
        "type": "message", "id": "aftr0001", "parentId": "c0mpac70",
        "timestamp": "2026-01-11T00:00:03.000Z",
        "message": {"role": "user", "content": format!("after {EVIL}"), "timestamp": 6}
    }));
    let path = dir.join("evil.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).expect("session written");
    path
}

/// A character that must never reach a terminal.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// The escape sequences in bytes written to a terminal, each as its first
/// bytes: only the drawer's own `ESC [` (colours, cursor moves) may be.
fn foreign_sequences(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut bad = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek().map(|&(_, n)| n) != Some('[') {
                bad.push(format!("{:?}", &text[i..(i + 6).min(text.len())]));
            }
        } else if unsafe_char(c) && c != '\u{1b}' {
            bad.push(format!("{c:?}"));
        }
    }
    bad
}

fn check(h: &mut Harness, what: &str) {
    let frame = h.frame();
    for cell in frame.content() {
        let bad: Vec<char> = cell.symbol().chars().filter(|&c| unsafe_char(c)).collect();
        assert!(
            bad.is_empty(),
            "{what}: {bad:?} in a cell of\n{}",
            h.screen()
        );
    }
    // A fresh terminal each time: everything on screen is written.
    let written = Written::default();
    let area = frame.area;
    let mut term = Terminal::with_options(
        CrosstermBackend::new(written.clone()),
        ratatui::TerminalOptions {
            viewport: ratatui::Viewport::Fixed(area),
        },
    )
    .expect("terminal");
    term.draw(|f| draw(f, &h.app)).expect("drawn");
    let bad = foreign_sequences(&written.0.borrow());
    assert!(bad.is_empty(), "{what}: written to the terminal: {bad:?}");
}

#[test]
fn no_escape_sequence_reaches_the_terminal_from_the_preview() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = session(dir.path());
    let size = (120, 40);
    for (mode, keys) in [
        ("as it opens", &[][..]),
        ("every block open", &["O"][..]),
        ("raw JSON", &["r"][..]),
    ] {
        let mut h = Harness::file(&path, size);
        h.keys(&["end", "tab"]);
        h.keys(keys);
        // The leaf, then the entry before the compaction (what it replaced
        // as the context itself).
        for round in 0..2 {
            if round == 1 {
                h.keys(&["tab", "up", "up", "tab"]);
            }
            check(&mut h, mode);
            // Every block marked and opened in turn, the view scrolled
            // through all of it.
            for _ in 0..60 {
                h.key("p");
                h.key("o");
                check(&mut h, mode);
            }
            for _ in 0..200 {
                h.key("down");
                check(&mut h, mode);
            }
        }
    }
    // The hostile text is there, shown: its escapes as visible symbols.
    let mut h = Harness::file(&path, size);
    h.keys(&["tab", "O"]);
    let screen = h.screen();
    assert!(screen.contains('␛'), "{screen}");
}
