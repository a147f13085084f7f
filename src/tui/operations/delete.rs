//! Delete sessions (the marked ones, the selected one, or every empty one
//! listed): the dialogs naming each, the workers' move to the trash, and
//! deleting for good only when asked again after the trash failed.

use crate::catalog::SessionSummary;
use crate::catalog::housekeeping::delete::{self, Deletable, DeleteMode, empty_sessions};
use crate::catalog::housekeeping::journal::Reason;
use crate::safe_text as text;
use crate::tui::event::Command;
use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::Job;
use std::path::PathBuf;

impl App {
    pub(in crate::tui) fn ask_delete(&mut self) {
        let mut paths: Vec<PathBuf> = self.picker().marked().iter().cloned().collect();
        if paths.is_empty() {
            match self.picker().selected_session() {
                Some(s) => paths.push(s.path.clone()),
                None => {
                    self.say(strings::NOTHING_TO_DELETE.to_string(), true);
                    return;
                }
            }
        }
        self.confirm_delete(
            strings::DELETE_TITLE,
            strings::delete_question,
            "move to the trash",
            paths,
        );
    }

    pub(in crate::tui) fn ask_delete_empty(&mut self) {
        let listed: Vec<SessionSummary> = self.picker().listed_sessions();
        let empty: Vec<PathBuf> = empty_sessions(&listed)
            .into_iter()
            .map(|s| s.path.clone())
            .collect();
        if empty.is_empty() {
            self.say(strings::NO_EMPTY_SESSIONS.to_string(), false);
            return;
        }
        self.confirm_delete(
            strings::DELETE_EMPTY_TITLE,
            strings::delete_empty_question,
            "move them to the trash",
            empty,
        );
    }

    /// Asks before moving `paths` to the trash, naming each session. Each
    /// is checked now, and what the user agrees to is what was checked: the
    /// job checks it again as it deletes.
    pub(in crate::tui) fn confirm_delete(
        &mut self,
        title: &str,
        question: fn(usize) -> String,
        yes: &str,
        paths: Vec<PathBuf>,
    ) {
        let files = self.check_deletable(&paths);
        if files.is_empty() {
            return;
        }
        let question = question(files.len());
        let listed: Vec<String> = files
            .iter()
            .map(|f| self.describe_session(f.path()))
            .collect();
        self.ask(Dialog::confirm(
            title,
            strings::with_sessions(question, &listed),
            yes,
            Then::Delete { files },
        ));
    }

    /// Checks each of `paths` for deletion; those refused are said at once
    /// (the rest still go ahead).
    pub(in crate::tui) fn check_deletable(&mut self, paths: &[PathBuf]) -> Vec<Deletable> {
        let Some(folder) = self.picker().folder().cloned() else {
            return Vec::new();
        };
        let mut files = Vec::new();
        let mut refused = Vec::new();
        for p in paths {
            match delete::check_deletable(&folder, p) {
                Ok(f) => files.push(f),
                Err(e) => refused.push(e.to_string()),
            }
        }
        if let Some(e) = refused.first() {
            let more = match refused.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            self.say(format!("{e}{more}"), true);
        }
        files
    }

    pub(in crate::tui) fn delete_job(
        &mut self,
        files: Vec<Deletable>,
        mode: DeleteMode,
        reason: Reason,
    ) -> Job {
        self.catalog.begin_delete(mode);
        Job::Delete {
            files,
            mode,
            reason,
            confirmed: false,
        }
    }

    pub(in crate::tui) fn on_deleted(
        &mut self,
        deleted: Vec<PathBuf>,
        trash_failed: Vec<(Deletable, String)>,
        errors: Vec<String>,
        cmds: &mut Vec<Command>,
    ) {
        let for_good = matches!(self.catalog.delete_done(), Some(DeleteMode::Permanent));
        if self.open.path().is_some_and(|o| deleted.contains(o)) {
            // Deleted here, on purpose: no "this session was deleted" alarm.
            self.close_session();
        }
        for p in &deleted {
            // Gone from the list at once (the watcher may tell us later).
            let outcome = self
                .catalog
                .picker_mut()
                .on_session_changed(p.clone(), None);
            self.on_picker(outcome, cmds);
        }
        match errors.first() {
            Some(e) => {
                let more = match errors.len() {
                    1 => String::new(),
                    n => format!(" (and {} more)", n - 1),
                };
                self.say(format!("{e}{more}"), true);
            }
            None if !deleted.is_empty() => {
                self.say(strings::deleted(deleted.len(), for_good), false)
            }
            None => {}
        }
        if !trash_failed.is_empty() {
            let listed: Vec<(String, String)> = trash_failed
                .iter()
                .map(|(f, why)| (self.describe_session(f.path()), text::clean_line(why)))
                .collect();
            let files = trash_failed.into_iter().map(|(f, _)| f).collect();
            self.ask(
                Dialog::confirm(
                    strings::DELETE_FOR_GOOD_TITLE,
                    strings::delete_for_good_body(&listed),
                    "delete for good",
                    Then::DeleteForGood { files },
                )
                .dangerous(strings::DELETE_WORD),
            );
        }
    }
}
