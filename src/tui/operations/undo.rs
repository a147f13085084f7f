//! Undo: the key has the worker put back, from the trash, every file of the
//! last delete, clean-up or prune piscope journalled; the outcome reads the
//! files again and says what came back.

use crate::catalog::housekeeping::confine;
use crate::catalog::housekeeping::journal::{self, Reason};
use crate::safe_text as text;
use crate::tui::event::Command;
use crate::tui::look::{format, strings};
use crate::tui::state::App;
use crate::tui::work::jobs::{ActionOutcome, Job};
use std::path::{Path, PathBuf};

impl App {
    /// The undo key (in any pane).
    pub(in crate::tui) fn undo(&mut self, cmds: &mut Vec<Command>) {
        let sessions = self.picker().folder().map(|f| f.dir.clone());
        cmds.push(Command::Act(Job::new("undo", move || {
            restore_latest(sessions.as_deref())
        })));
    }

    /// Undo put `paths` back (all the files of the last operation, but
    /// those `errors` name).
    pub(in crate::tui) fn on_restored(
        &mut self,
        paths: &[PathBuf],
        errors: &[String],
        skipped: &[String],
        cmds: &mut Vec<Command>,
    ) {
        for p in paths {
            self.file_changed(p, cmds);
        }
        if let Some(e) = errors.first() {
            self.say(strings::first_of(&text::clean_line(e), errors.len()), true);
            return;
        }
        let what = match paths {
            [one] => text::clean_line(&strings::file_name(one)),
            many => format::count(many.len(), "session", "sessions"),
        };
        match skipped.first() {
            Some(note) => self.say(
                format!(
                    "{}; passed over {}",
                    strings::restored(&what),
                    strings::first_of(&text::clean_line(note), skipped.len())
                ),
                false,
            ),
            None => self.say(strings::restored(&what), false),
        }
    }
}

/// The worker's part: restores the latest delete, clean-up or prune
/// piscope journalled whose files are still in the trash, every file of it,
/// each only where it stays inside the sessions folder (`sessions`).
fn restore_latest(sessions: Option<&Path>) -> ActionOutcome {
    let found = match journal::in_trash() {
        Ok(found) => found,
        Err(e) => return ActionOutcome::Failed(e.to_string()),
    };
    let last = journal::latest_operation(
        &found.items,
        &[Reason::Delete, Reason::Clean, Reason::Prune],
    );
    if last.is_empty() {
        return match found.skipped.into_iter().next() {
            Some(note) => ActionOutcome::Failed(note),
            None => ActionOutcome::NothingToUndo,
        };
    }
    let mut paths = Vec::new();
    let mut errors = Vec::new();
    for item in last {
        let back = confine::given_file(sessions, &item.record.path)
            .map_err(|e| e.to_string())
            .and_then(|_| journal::restore(item).map_err(|e| e.to_string()));
        match back {
            Ok(path) => paths.push(path),
            Err(e) => errors.push(e),
        }
    }
    ActionOutcome::Restored {
        paths,
        errors,
        skipped: found.skipped,
    }
}
