//! Copy an entry's full text: the key has the worker read the entry and
//! scan it for secrets; with none, put it on the system clipboard, or hand
//! it back when there is none, to be sent through the terminal (OSC 52).
//! With secrets, the review lists them first (each redacted unless kept)
//! and its Enter copies the text so. The outcome says how much, and what
//! was redacted.

use crate::render::redact::text_findings;
use crate::secrets::{self, Hit, Scanner};
use crate::session::{self, Session};
use crate::tui::event::Command;
use crate::tui::look::strings;
use crate::tui::state::App;
use crate::tui::work::clipboard;
use crate::tui::work::jobs::{ActionOutcome, Job, Reviewed};
use std::sync::Arc;

impl App {
    /// The copy key: the worker copies the selected entry's text.
    pub(in crate::tui) fn copy(&mut self, cmds: &mut Vec<Command>) {
        match (self.tree.loaded(), self.tree.selected_node()) {
            (Some(t), Some(node)) => cmds.push(Command::Act(copy_job(t.session.clone(), node))),
            _ => self.say(strings::NO_ENTRY.to_string(), true),
        }
    }

    /// The clipboard took the text.
    pub(in crate::tui) fn on_copied(&mut self, chars: usize, redacted: usize, kept: usize) {
        self.say(strings::copied(chars, false, redacted, kept), false);
    }

    /// No clipboard: the text goes through the terminal.
    pub(in crate::tui) fn copy_through_terminal(
        &mut self,
        text: &str,
        redacted: usize,
        kept: usize,
        cmds: &mut Vec<Command>,
    ) {
        cmds.push(Command::Terminal(clipboard::osc52(text)));
        self.say(
            strings::copied(text.chars().count(), true, redacted, kept),
            false,
        );
    }
}

/// The worker's part of the copy key: the entry's text, scanned; copied
/// at once when it holds no secret, else handed back for review.
pub fn copy_job(session: Arc<Session>, node: u32) -> Job {
    Job::new("copy", move || {
        let text = match entry_text(&session, node) {
            Ok(text) => text,
            Err(e) => return ActionOutcome::Failed(e),
        };
        let role = entry_role(&session, node);
        let id = session.entry(node).id_str();
        let (hits, findings) = text_findings(Scanner::builtin(), &text, id, &role);
        if findings.is_empty() {
            copied(text, 0, 0)
        } else {
            ActionOutcome::ReviewSecrets {
                findings,
                then: Box::new(Reviewed::Copy { text, hits }),
            }
        }
    })
}

/// Enter in the review: the worker copies `text`, each secret redacted
/// unless `keep` says.
pub(in crate::tui) fn reviewed_copy_job(text: String, hits: Vec<Hit>, keep: Vec<bool>) -> Job {
    Job::new("copy", move || {
        let (text, redacted, kept) = redacted_copy(&text, &hits, &keep);
        copied(text, redacted, kept)
    })
}

/// The text a reviewed copy puts on the clipboard: each hit replaced by
/// its marker unless `keep` says; with how many were redacted and kept.
pub fn redacted_copy(text: &str, hits: &[Hit], keep: &[bool]) -> (String, usize, usize) {
    let mut n = 0;
    let out = secrets::redact(Scanner::builtin(), text, hits, |_| {
        let kept = keep.get(n).copied().unwrap_or(false);
        n += 1;
        !kept
    });
    let kept = hits
        .iter()
        .enumerate()
        .filter(|(i, _)| keep.get(*i).copied().unwrap_or(false))
        .count();
    (out, hits.len() - kept, kept)
}

/// `text` on the system clipboard, or handed back for the terminal.
fn copied(text: String, redacted: usize, kept: usize) -> ActionOutcome {
    if clipboard::copy_to_system(&text) {
        ActionOutcome::Copied {
            chars: text.chars().count(),
            redacted,
            kept,
        }
    } else {
        ActionOutcome::CopyThroughTerminal {
            text,
            redacted,
            kept,
        }
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

/// What an entry is, for the review: its message's role, else its type.
fn entry_role(session: &Session, node: u32) -> String {
    let v: Option<serde_json::Value> = session
        .line_text(node)
        .ok()
        .and_then(|l| serde_json::from_str(&l).ok());
    v.as_ref()
        .and_then(|v| v.pointer("/message/role").or_else(|| v.get("type")))
        .and_then(serde_json::Value::as_str)
        .unwrap_or("entry")
        .to_string()
}
