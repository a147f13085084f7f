//! What the browser benches share: key presses as the terminal sends them,
//! and generated sessions.

#![allow(dead_code)]

use piscope::tui::event::{AppEvent, Command};
use piscope::tui::input::keymap::Key;
use piscope::tui::state::App;
use piscope::tui::work::workers::JobContext;
use ratatui::crossterm::event::{KeyEvent, KeyEventKind, KeyEventState};
use std::io::Write;
use std::path::Path;

/// A key press, written as the keymap writes keys (`ctrl+f`).
pub fn key(spec: &str) -> AppEvent {
    let k = Key::parse(spec).expect("a key");
    AppEvent::Key(KeyEvent {
        code: k.code,
        modifiers: k.mods,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    })
}

/// Runs `cmds` and the commands their answers bring, one after the other
/// on this thread (as workers would run them), those `wanted` accepts;
/// the others are dropped.
pub fn settle(
    app: &mut App,
    cmds: Vec<Command>,
    cx: &JobContext,
    wanted: &dyn Fn(&Command) -> bool,
) {
    let mut cmds = cmds;
    while let Some(cmd) = cmds.pop() {
        if !wanted(&cmd) {
            continue;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        cx.run(cmd, &|ev| {
            let _ = tx.send(ev);
        });
        for ev in rx.try_iter() {
            cmds.extend(app.update(ev));
        }
    }
}

/// One message line.
pub fn message(id: usize, parent: Option<usize>, t: usize, role: &str, text: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p:08x}\""));
    let secs = t % 60;
    let mins = (t / 60) % 60;
    let hours = (t / 3600) % 24;
    format!(
        r#"{{"type":"message","id":"{id:08x}","parentId":{parent},"timestamp":"2026-01-11T{hours:02}:{mins:02}:{secs:02}.000Z","message":{{"role":"{role}","content":[{{"type":"text","text":"{text}"}}],"timestamp":{t}}}}}"#
    )
}

/// 2,000 sessions in 40 projects, each one conversation of `entries`
/// messages, message `i` saying `text(i)`.
pub fn write_catalog(root: &Path, entries: usize, text: &dyn Fn(usize) -> &'static str) {
    for s in 0..2000 {
        let project = root.join(format!("--home-ada-p{}--", s % 40));
        std::fs::create_dir_all(&project).expect("project folder");
        let path = project.join(format!("2026-01-11T00-00-00-000Z_{s:08}.jsonl"));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).expect("file"));
        writeln!(
            out,
            r#"{{"type":"session","version":3,"id":"s{s}","timestamp":"2026-01-11T00:00:00.000Z","cwd":"/home/ada/p{}"}}"#,
            s % 40
        )
        .expect("write");
        let mut parent = None;
        for i in 1..=entries {
            let role = if i % 2 == 1 { "user" } else { "assistant" };
            let id = s * 100 + i;
            writeln!(out, "{}", message(id, parent, s + i, role, text(i))).expect("write");
            parent = Some(id);
        }
    }
}
