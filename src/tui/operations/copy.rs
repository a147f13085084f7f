//! Copy an entry's full text: the key has the worker read the entry and put
//! its text on the system clipboard, or hand it back when there is none,
//! to be sent through the terminal (OSC 52); the outcome says how much.

use crate::session::{self, Session};
use crate::tui::event::Command;
use crate::tui::look::strings;
use crate::tui::state::App;
use crate::tui::work::clipboard;
use crate::tui::work::jobs::{ActionOutcome, Job};

impl App {
    /// The copy key: the worker copies the selected entry's text.
    pub(in crate::tui) fn copy(&mut self, cmds: &mut Vec<Command>) {
        match (self.tree.loaded(), self.tree.selected_node()) {
            (Some(t), Some(node)) => {
                let session = t.session.clone();
                cmds.push(Command::Act(Job::new("copy", move || {
                    match entry_text(&session, node) {
                        Ok(text) if clipboard::copy_to_system(&text) => ActionOutcome::Copied {
                            chars: text.chars().count(),
                        },
                        Ok(text) => ActionOutcome::CopyThroughTerminal { text },
                        Err(e) => ActionOutcome::Failed(e),
                    }
                })))
            }
            _ => self.say(strings::NO_ENTRY.to_string(), true),
        }
    }

    /// The clipboard took the text.
    pub(in crate::tui) fn on_copied(&mut self, chars: usize) {
        self.say(strings::copied(chars, false), false);
    }

    /// No clipboard: the text goes through the terminal.
    pub(in crate::tui) fn copy_through_terminal(&mut self, text: &str, cmds: &mut Vec<Command>) {
        cmds.push(Command::Terminal(clipboard::osc52(text)));
        self.say(strings::copied(text.chars().count(), true), false);
    }
}

/// The full text of an entry: a message's text (thinking and tool calls
/// marked), a summary's text, else the entry's JSON, pretty-printed.
pub fn entry_text(session: &Session, node: u32) -> Result<String, String> {
    let line = session.line_text(node).map_err(|e| e.to_string())?;
    let v: serde_json::Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
    let text = session::content::readable_entry(&v);
    Ok(match text.filter(|t| !t.is_empty()) {
        Some(t) => t,
        None => serde_json::to_string_pretty(&v).unwrap_or(line),
    })
}
