//! Archive sessions (the marked ones, or the selected one): the key asks in
//! a dialog naming each, Enter has the worker move them to piscope's
//! archive (each checked again as it goes, one batch in the journal, see
//! `catalog::housekeeping::archive`), and the outcome takes them off the
//! list; the undo key puts the latest archive back (`operations/undo.rs`).
//! In the archived scope the same key puts the marked or selected archived
//! sessions back in pi's folder, asked and journalled alike; and the
//! actions that would write to an archived file are refused there.

use crate::catalog::housekeeping::archive::{self, Movable};
use crate::catalog::housekeeping::journal::{Batch, Reason};
use crate::tui::event::Command;
use crate::tui::input::keymap::{Action, Scope};
use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::{ActionOutcome, Job};
use std::path::PathBuf;

impl App {
    /// The archive key: asks before moving the marked sessions (or the
    /// selected one) to piscope's archive.
    pub(in crate::tui) fn ask_archive(&mut self) {
        if self.picker().is_archived() {
            return self.ask_unarchive();
        }
        let Some(paths) = self.marked_or_selected(strings::NOTHING_TO_ARCHIVE) else {
            return;
        };
        let Some(folder) = self.picker().folder().cloned() else {
            return;
        };
        let Some((files, listed)) = self.checked(&paths, |p| archive::check_archivable(&folder, p))
        else {
            return;
        };
        self.ask(Dialog::confirm(
            strings::ARCHIVE_TITLE,
            strings::with_sessions(strings::archive_question(files.len()), &listed),
            strings::ARCHIVE_YES,
            Then::Archive { files },
        ));
    }

    /// Enter in the archive dialog: the marks are used up, and the worker
    /// archives the files as checked.
    pub(in crate::tui) fn archive_job(&mut self, files: Vec<Movable>) -> Job {
        self.catalog.picker_mut().clear_marks();
        let paths = files.iter().map(|f| f.path().to_path_buf()).collect();
        Job::new("archive", move || archiving(&files)).unless_pi_may_have(paths, None, true)
    }

    /// Sessions went to the archive: off the list at once.
    pub(in crate::tui) fn on_archived(
        &mut self,
        paths: Vec<PathBuf>,
        errors: Vec<String>,
        cmds: &mut Vec<Command>,
    ) {
        self.sessions_gone(&paths, cmds);
        match errors.first() {
            Some(e) => self.say(strings::first_of(e, errors.len()), true),
            None if !paths.is_empty() => {
                let undo = self.undo_key();
                self.say(strings::archived(paths.len(), undo.as_deref()), false)
            }
            None => {}
        }
    }
}

impl App {
    /// The archive key in the archived scope: asks before putting the
    /// marked archived sessions (or the selected one) back in pi's folder.
    fn ask_unarchive(&mut self) {
        let Some(paths) = self.marked_or_selected(strings::NOTHING_TO_UNARCHIVE) else {
            return;
        };
        // Back into pi's folder: the one the other scopes list.
        let Some(folder) = self.picker().folder().cloned() else {
            self.say(strings::NO_SESSIONS_FOLDER.to_string(), true);
            return;
        };
        let Some((files, listed)) =
            self.checked(&paths, |p| archive::check_unarchivable(&folder, p))
        else {
            return;
        };
        self.ask(Dialog::confirm(
            strings::UNARCHIVE_TITLE,
            strings::with_sessions(strings::unarchive_question(files.len()), &listed),
            strings::UNARCHIVE_YES,
            Then::Unarchive { files },
        ));
    }

    /// Enter in the put-back dialog: the marks are used up, and the worker
    /// moves the files back as checked (pi does not write in the archive).
    pub(in crate::tui) fn unarchive_job(&mut self, files: Vec<Movable>) -> Job {
        self.catalog.picker_mut().clear_marks();
        Job::new("unarchive", move || putting_back(&files))
    }

    /// Archived sessions went back to pi's folder: off the archive's list.
    pub(in crate::tui) fn on_put_back(
        &mut self,
        from: Vec<PathBuf>,
        errors: Vec<String>,
        cmds: &mut Vec<Command>,
    ) {
        self.sessions_gone(&from, cmds);
        match errors.first() {
            Some(e) => self.say(strings::first_of(e, errors.len()), true),
            None if !from.is_empty() => self.say(strings::put_back(from.len()), false),
            None => {}
        }
    }

    /// Whether `action` would write to an archived session: in the archived
    /// scope, every action that changes a session file or writes beside it
    /// (rename, label, branch, fork, prune, delete, clean-up, resume in pi).
    /// Said, with the key that puts it back first; true when refused.
    pub(in crate::tui) fn refused_in_archive(&mut self, action: Action) -> bool {
        let writes = matches!(
            action,
            Action::Rename
                | Action::Label
                | Action::Branch
                | Action::Fork
                | Action::Prune
                | Action::Delete
                | Action::DeleteEmpty
                | Action::Clean
        ) || (action == Action::Resume
            && self.focus() == crate::tui::look::layout::Pane::Tree);
        let archived = self.picker().is_archived()
            || self
                .open
                .path()
                .is_some_and(|p| archive::sessions_root().is_some_and(|root| p.starts_with(root)));
        if !(writes && archived) {
            return false;
        }
        let key = self.config.keymap.keys_for(Scope::Picker, Action::Archive);
        self.say(strings::archived_is_read_only(&key), true);
        true
    }
}

impl App {
    /// Each of `paths` checked by `check`: the ones that may move, with
    /// how each is named in the question; the first refusal said. `None`
    /// when none may.
    fn checked<E: std::fmt::Display>(
        &mut self,
        paths: &[PathBuf],
        check: impl Fn(&std::path::Path) -> Result<Movable, E>,
    ) -> Option<(Vec<Movable>, Vec<String>)> {
        let (mut files, mut refused) = (Vec::new(), Vec::new());
        for p in paths {
            match check(p) {
                Ok(m) => files.push(m),
                Err(e) => refused.push(e.to_string()),
            }
        }
        if let Some(e) = refused.first() {
            self.say(strings::first_of(e, refused.len()), true);
        }
        if files.is_empty() {
            return None;
        }
        let listed = files
            .iter()
            .map(|f| self.describe_session(f.path()))
            .collect();
        Some((files, listed))
    }
}

/// The worker's part: each archived session checked again and moved back,
/// one batch in the journal.
fn putting_back(files: &[Movable]) -> ActionOutcome {
    let (from, errors) = moving(files, Reason::Unarchive, archive::unarchive_checked);
    ActionOutcome::PutBack { from, errors }
}

/// The worker's part: each session checked again and moved, one batch.
fn archiving(files: &[Movable]) -> ActionOutcome {
    let (paths, errors) = moving(files, Reason::Archive, archive::archive_checked);
    ActionOutcome::Archived { paths, errors }
}

/// Each of `files` moved by `act`, all in one journal batch for `reason`:
/// the paths moved, and what refused the others.
fn moving<T, E: std::fmt::Display>(
    files: &[Movable],
    reason: Reason,
    act: impl Fn(&Movable, &Batch) -> Result<T, E>,
) -> (Vec<PathBuf>, Vec<String>) {
    let batch = Batch::new(reason);
    let (mut moved, mut errors) = (Vec::new(), Vec::new());
    for f in files {
        match act(f, &batch) {
            Ok(_) => moved.push(f.path().to_path_buf()),
            Err(e) => errors.push(e.to_string()),
        }
    }
    (moved, errors)
}
