//! Delete sessions (the marked ones, the selected one, or every empty one
//! listed): the dialogs naming each, the workers' move to the trash, and
//! deleting for good only when asked again after the trash failed.

use crate::catalog::SessionSummary;
use crate::catalog::delete::{DeleteMode, empty_sessions};
use crate::tui::event::Command;
use crate::tui::look::strings;
use crate::tui::look::text;
use crate::tui::model::sessions::PickerRow;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::panes::tree::Content;
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::Job;
use std::path::PathBuf;

impl App {
    pub(in crate::tui) fn ask_delete(&mut self) {
        let mut paths: Vec<PathBuf> = self.picker.marked.iter().cloned().collect();
        if paths.is_empty() {
            match self.picker.selected_session() {
                Some(s) => paths.push(s.path.clone()),
                None => {
                    self.say(strings::NOTHING_TO_DELETE.to_string(), true);
                    return;
                }
            }
        }
        let question = strings::delete_question(paths.len());
        self.confirm_delete(strings::DELETE_TITLE, question, "move to the trash", paths);
    }

    pub(in crate::tui) fn ask_delete_empty(&mut self) {
        let listed: Vec<SessionSummary> = self
            .picker
            .rows
            .iter()
            .filter_map(|r| match r {
                PickerRow::Session { index, .. } => self.picker.sessions.get(*index).cloned(),
                PickerRow::Project { .. } => None,
            })
            .collect();
        let empty: Vec<PathBuf> = empty_sessions(&listed)
            .into_iter()
            .map(|s| s.path.clone())
            .collect();
        if empty.is_empty() {
            self.say(strings::NO_EMPTY_SESSIONS.to_string(), false);
            return;
        }
        let question = strings::delete_empty_question(empty.len());
        self.confirm_delete(
            strings::DELETE_EMPTY_TITLE,
            question,
            "move them to the trash",
            empty,
        );
    }

    /// Asks before moving `paths` to the trash, naming each session.
    pub(in crate::tui) fn confirm_delete(
        &mut self,
        title: &str,
        question: String,
        yes: &str,
        paths: Vec<PathBuf>,
    ) {
        let listed: Vec<String> = paths.iter().map(|p| self.describe_session(p)).collect();
        self.dialog = Some(Dialog::confirm(
            title,
            strings::with_sessions(question, &listed),
            yes,
            Then::Delete { paths },
        ));
    }

    pub(in crate::tui) fn delete_job(
        &mut self,
        paths: Vec<PathBuf>,
        mode: DeleteMode,
    ) -> Option<Job> {
        let folder = self.picker.folder.clone()?;
        self.picker.marked.clear();
        self.last_delete_mode = Some(mode);
        Some(Job::Delete {
            folder,
            paths,
            mode,
            confirmed: false,
        })
    }

    pub(in crate::tui) fn on_deleted(
        &mut self,
        deleted: Vec<PathBuf>,
        trash_failed: Vec<(PathBuf, String)>,
        errors: Vec<String>,
        cmds: &mut Vec<Command>,
    ) {
        let for_good = matches!(self.last_delete_mode.take(), Some(DeleteMode::Permanent));
        if self.open_path.as_ref().is_some_and(|o| deleted.contains(o)) {
            // Deleted here, on purpose: no "this session was deleted" alarm.
            self.open_path = None;
            self.tree.content = Content::Empty;
            self.tree.rows = Default::default();
        }
        for p in &deleted {
            // Gone from the list at once (the watcher may tell us later).
            if let Some(next) = self.picker.on_session_changed(p.clone(), None) {
                self.open_session(next, cmds);
            }
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
                .map(|(p, why)| (self.describe_session(p), text::clean_line(why)))
                .collect();
            let paths = trash_failed.into_iter().map(|(p, _)| p).collect();
            self.dialog = Some(
                Dialog::confirm(
                    strings::DELETE_FOR_GOOD_TITLE,
                    strings::delete_for_good_body(&listed),
                    "delete for good",
                    Then::DeleteForGood { paths },
                )
                .dangerous(strings::DELETE_WORD),
            );
        }
    }
}
