//! Open a subagent's session from the tool call that started it: on a tool
//! call of the open session (the assistant message that made it, or its
//! result), the key has the worker read the call and its results and tell
//! which of the sessions started from this one it started; the first is
//! opened (its parent's children shown in the sessions list, so the others
//! are beside it).
//!
//! A session is the call's when the call's result names its file, its
//! session id, or the run folder it is in (nested under the parent's
//! folder); failing that, when it was started between the call and its
//! result.

use crate::catalog::subagents::call_ids;
use crate::session::Session;
use crate::tui::event::Command;
use crate::tui::look::layout::Pane;
use crate::tui::look::strings;
use crate::tui::panes::picker::PickerOutcome;
use crate::tui::state::App;
use crate::tui::work::jobs::{ActionOutcome, Job};
use std::path::PathBuf;
use std::sync::Arc;

/// A session started from the open one, as the job matches it.
#[derive(Debug, Clone)]
pub struct Started {
    pub path: PathBuf,
    pub id: String,
    pub created_ms: Option<i64>,
}

impl App {
    /// The open-subagent key on the tree's selected entry.
    pub(in crate::tui) fn open_subagent(&mut self, cmds: &mut Vec<Command>) {
        let (Some(t), Some(node)) = (self.tree.loaded(), self.tree.selected_node()) else {
            self.say(strings::NO_ENTRY.to_string(), true);
            return;
        };
        let session = Arc::clone(&t.session);
        let started: Vec<Started> = self
            .catalog
            .picker()
            .started_from(&session.path)
            .into_iter()
            .map(|s| Started {
                path: s.path.clone(),
                id: s.id.clone(),
                created_ms: s.created_ms,
            })
            .collect();
        if started.is_empty() {
            self.say(strings::NO_SUBAGENTS.to_string(), true);
            return;
        }
        cmds.push(Command::Act(Job::new(
            "open subagent",
            move || match started_by_call(&session, node, &started) {
                Ok(paths) => ActionOutcome::SubagentsOfCall { paths },
                Err(e) => ActionOutcome::Failed(e),
            },
        )));
    }

    /// The sessions the call started: the first opened.
    pub(in crate::tui) fn on_subagents_of_call(
        &mut self,
        paths: Vec<PathBuf>,
        cmds: &mut Vec<Command>,
    ) {
        let Some(first) = paths.first().cloned() else {
            self.say(strings::NO_SUBAGENT_OF_CALL.to_string(), true);
            return;
        };
        let outcome = self.catalog.picker_mut().select(&first);
        if outcome != PickerOutcome::Nothing {
            self.on_picker(outcome, cmds);
        }
        self.open_session(first.clone(), cmds);
        if self.screen.has(Pane::Tree) {
            self.screen.focus_on(Pane::Tree);
        }
        self.say(strings::opened_subagent(&first, paths.len()), false);
    }
}

/// Which of `started` the tool call at `node` started, in `started`'s
/// order.
pub fn started_by_call(
    session: &Session,
    node: u32,
    started: &[Started],
) -> Result<Vec<PathBuf>, String> {
    let parse = |idx: u32| -> Result<serde_json::Value, String> {
        let line = session.line_text(idx).map_err(|e| e.to_string())?;
        serde_json::from_str(&line).map_err(|e| e.to_string())
    };
    let ids = call_ids(&parse(node)?);
    if ids.is_empty() {
        return Err(strings::NOT_A_TOOL_CALL.to_string());
    }
    // The call's time (the entry that made it) and its results', with
    // their text.
    let mut called: Option<i64> = None;
    let mut answered: Option<i64> = None;
    let mut results = String::new();
    for (idx, entry) in session.live_entries() {
        let line = match session.line_text(idx) {
            Ok(l) => l,
            Err(_) => continue,
        };
        if !ids.iter().any(|id| line.contains(id.as_str())) {
            continue;
        }
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let mine = call_ids(&v);
        if !mine.iter().any(|m| ids.contains(m)) {
            continue;
        }
        match v["message"]["role"].as_str() {
            Some("assistant") => called = called.or(entry.time_ms()),
            Some("toolResult") => {
                answered = answered.max(entry.time_ms());
                results.push_str(&line);
                results.push('\n');
            }
            _ => {}
        }
    }
    let parent_folder = &session.path.with_extension("");
    // Where the results name a session first: its file, its id, or the
    // run folder it is in below the parent's folder.
    let named = |s: &Started| -> Option<usize> {
        let run = s
            .path
            .strip_prefix(parent_folder)
            .ok()
            .and_then(|rel| rel.components().next())
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .filter(|c| c != "forks" && s.path.parent() != Some(parent_folder.as_path()));
        let path = json_escaped(&s.path.to_string_lossy());
        [
            results.find(&*path),
            (!s.id.is_empty()).then(|| results.find(&s.id)).flatten(),
            run.and_then(|r| {
                results
                    .find(&format!("\"{r}\""))
                    .or_else(|| results.find(&format!("/{r}/")))
            }),
        ]
        .into_iter()
        .flatten()
        .min()
    };
    // In the order the results name them (tasks of one run by their file).
    let mut found: Vec<(usize, &PathBuf)> = started
        .iter()
        .filter_map(|s| Some((named(s)?, &s.path)))
        .collect();
    found.sort();
    let mut paths: Vec<PathBuf> = found.into_iter().map(|(_, p)| p.clone()).collect();
    if paths.is_empty() {
        let from = called.unwrap_or(i64::MIN);
        let to = answered.unwrap_or(i64::MAX);
        paths = started
            .iter()
            .filter(|s| s.created_ms.is_some_and(|t| from <= t && t < to))
            .map(|s| s.path.clone())
            .collect();
    }
    Ok(paths)
}

/// `text` as it reads inside a JSON string.
fn json_escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted.trim_matches('"').to_string()
}
