//! Delete sessions (the marked ones, the selected one, or every empty one
//! listed): the keys ask in a dialog naming each session, Enter has the
//! worker move them to the trash (each checked again as it goes, one batch
//! in the journal), and the outcome takes them off the list; when the
//! trash fails, a second dialog offers to delete them for good.

use crate::catalog::SessionSummary;
use crate::catalog::housekeeping::delete::{self, Deletable, DeleteMode, empty_sessions};
use crate::catalog::housekeeping::journal::{Batch, Reason};
use crate::safe_text as text;
use crate::tui::event::Command;
use crate::tui::input::keymap::{Action, Scope};
use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::{ActionOutcome, Job};
use std::path::PathBuf;

impl App {
    /// The delete key: asks before moving the marked sessions (or the
    /// selected one) to the trash.
    pub(in crate::tui) fn ask_delete(&mut self) {
        let Some(paths) = self.marked_or_selected(strings::NOTHING_TO_DELETE) else {
            return;
        };
        self.confirm_delete(
            strings::DELETE_TITLE,
            strings::delete_question,
            strings::DELETE_YES,
            paths,
        );
    }

    /// The delete-empty key: asks before moving every listed session
    /// without a user message to the trash.
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
            strings::DELETE_EMPTY_YES,
            empty,
        );
    }

    /// Asks before moving `paths` to the trash, naming each session. Each
    /// is checked now, and what the user agrees to is what was checked: the
    /// job checks it again as it deletes.
    fn confirm_delete(
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
            self.say(strings::first_of(e, refused.len()), true);
        }
        files
    }

    /// Enter in a delete (or clean-up) dialog: the marks are used up, and
    /// the worker deletes the files as checked.
    pub(in crate::tui) fn delete_job(
        &mut self,
        files: Vec<Deletable>,
        mode: DeleteMode,
        reason: Reason,
    ) -> Job {
        self.catalog.picker_mut().clear_marks();
        deleting(files, mode, reason)
    }

    /// Sessions went: off the list at once; the trash's failures are
    /// offered to be deleted for good.
    pub(in crate::tui) fn on_deleted(
        &mut self,
        paths: Vec<PathBuf>,
        to_trash: bool,
        trash_failed: Vec<(Deletable, String)>,
        errors: Vec<String>,
        cmds: &mut Vec<Command>,
    ) {
        self.sessions_gone(&paths, cmds);
        match errors.first() {
            Some(e) => self.say(strings::first_of(e, errors.len()), true),
            None if !paths.is_empty() => {
                let undo = self.undo_key();
                self.say(
                    strings::deleted(paths.len(), !to_trash, undo.as_deref()),
                    false,
                )
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
                    strings::DELETE_FOR_GOOD_YES,
                    Then::DeleteForGood { files },
                )
                .dangerous(strings::DELETE_WORD),
            );
        }
    }
}

/// The worker's part: deletes the sessions as checked when the user was
/// asked, each checked again as it goes, asking first when pi may have one
/// of them open.
fn deleting(files: Vec<Deletable>, mode: DeleteMode, reason: Reason) -> Job {
    let paths = files.iter().map(|f| f.path().to_path_buf()).collect();
    Job::new("delete", move || delete_checked(&files, mode, reason))
        .unless_pi_may_have(paths, None, true)
}

fn delete_checked(files: &[Deletable], mode: DeleteMode, reason: Reason) -> ActionOutcome {
    let mut paths = Vec::new();
    let mut trash_failed = Vec::new();
    let mut errors = Vec::new();
    // One batch in the journal: undo puts them all back.
    let batch = Batch::new(reason);
    for file in files {
        match delete::delete_checked_for(file, mode, &batch) {
            Ok(()) => paths.push(file.path().to_path_buf()),
            Err(delete::DeleteError::Trash { reason, .. }) => {
                trash_failed.push((file.clone(), reason))
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    ActionOutcome::Deleted {
        paths,
        to_trash: mode == DeleteMode::Trash,
        trash_failed,
        errors,
    }
}

impl App {
    /// The marked sessions, else the selected one; `None` (having said
    /// `nothing`) when there are neither.
    pub(in crate::tui) fn marked_or_selected(&mut self, nothing: &str) -> Option<Vec<PathBuf>> {
        let paths: Vec<PathBuf> = self.picker().marked().iter().cloned().collect();
        if !paths.is_empty() {
            return Some(paths);
        }
        match self.picker().selected_session() {
            Some(s) => Some(vec![s.path.clone()]),
            None => {
                self.say(nothing.to_string(), true);
                None
            }
        }
    }

    /// Sessions that left the folder shown (deleted, archived, put back):
    /// off the list at once (the watcher may tell later), and closed if
    /// open, on purpose: no "this session went" alarm.
    pub(in crate::tui) fn sessions_gone(&mut self, paths: &[PathBuf], cmds: &mut Vec<Command>) {
        if self.open.path().is_some_and(|o| paths.contains(o)) {
            self.close_session();
        }
        for p in paths {
            let outcome = self
                .catalog
                .picker_mut()
                .on_session_changed(p.clone(), None);
            self.on_picker(outcome, cmds);
        }
    }

    /// The first key that undoes, to name in what is said.
    pub(in crate::tui) fn undo_key(&self) -> Option<String> {
        self.config
            .keymap
            .first_key(Scope::Global, Action::Undo)
            .map(|k| k.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Layout, SessionsFolder};
    use std::time::{Duration, SystemTime};

    const SESSION: &str = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n";

    #[test]
    fn deleting_a_session_pi_may_have_open_asks_first() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("s.jsonl");
        std::fs::write(&file, SESSION).expect("write");
        let folder = SessionsFolder::at(
            dir.path().to_path_buf(),
            Layout::Flat,
            dir.path().to_path_buf(),
        );
        let checked = delete::check_deletable(&folder, &file).expect("a session");
        let job = || deleting(vec![checked.clone()], DeleteMode::Permanent, Reason::Delete);
        // Just written: it may be open in pi.
        match job().run() {
            ActionOutcome::MayBeOpenInPi {
                deletes, seconds, ..
            } => assert!(deletes && seconds < 60),
            _ => panic!("expected a question"),
        }
        assert!(file.exists());
        // Quiet for two minutes: deleted without asking.
        let old = SystemTime::now() - Duration::from_secs(120);
        std::fs::File::options()
            .write(true)
            .open(&file)
            .expect("open")
            .set_modified(old)
            .expect("mtime");
        assert!(
            matches!(job().run(), ActionOutcome::Deleted { ref paths, .. } if paths.len() == 1)
        );
        assert!(!file.exists());
    }
}
