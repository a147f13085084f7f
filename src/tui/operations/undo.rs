//! Undo: the key has the worker put back every file of the last delete,
//! clean-up or prune piscope journalled (from the trash), or of the last
//! archive when that came later (from the archive); the outcome reads the
//! files again and says what came back.

use crate::catalog::SessionsFolder;
use crate::catalog::housekeeping::archive;
use crate::catalog::housekeeping::confine;
use crate::catalog::housekeeping::journal::{self, Reason};
use crate::safe_text as text;
use crate::tui::event::Command;
use crate::tui::look::{format, strings};
use crate::tui::state::App;
use crate::tui::work::jobs::{ActionOutcome, Job};
use std::path::PathBuf;

impl App {
    /// The undo key (in any pane).
    pub(in crate::tui) fn undo(&mut self, cmds: &mut Vec<Command>) {
        let folder = self.picker().folder().cloned();
        cmds.push(Command::Act(Job::new("undo", move || {
            restore_latest(folder.as_ref())
        })));
    }

    /// Files undo put back: each looked at again; the first error said
    /// (then `None`), else how they are named.
    fn put_back(
        &mut self,
        paths: &[PathBuf],
        errors: &[String],
        cmds: &mut Vec<Command>,
    ) -> Option<String> {
        for p in paths {
            self.file_changed(p, cmds);
        }
        if let Some(e) = errors.first() {
            self.say(strings::first_of(&text::clean_line(e), errors.len()), true);
            return None;
        }
        Some(match paths {
            [one] => text::clean_line(&strings::file_name(one)),
            many => format::count(many.len(), "session", "sessions"),
        })
    }

    /// Undo put `paths` back from the archive.
    pub(in crate::tui) fn on_unarchived(
        &mut self,
        paths: &[PathBuf],
        errors: &[String],
        cmds: &mut Vec<Command>,
    ) {
        if let Some(what) = self.put_back(paths, errors, cmds) {
            self.say(strings::unarchived(&what), false);
        }
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
        let Some(what) = self.put_back(paths, errors, cmds) else {
            return;
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
fn restore_latest(folder: Option<&SessionsFolder>) -> ActionOutcome {
    let sessions = folder.map(|f| f.dir.as_path());
    let found = match journal::in_trash() {
        Ok(found) => found,
        Err(e) => return ActionOutcome::Failed(e.to_string()),
    };
    let last = journal::latest_operation(
        &found.items,
        &[Reason::Delete, Reason::Clean, Reason::Prune],
    );
    // An archive after the last trashing is what undo puts back.
    let trashed_at = last.iter().map(|i| i.record.time_ms).max();
    if let (Some(folder), Ok((at, moved))) = (folder, archive::latest_archive()) {
        if !moved.is_empty() && trashed_at.is_none_or(|t| at > t) {
            return unarchive_latest(folder, &moved);
        }
    }
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

/// Puts back every session of the latest archive that is still there.
fn unarchive_latest(folder: &SessionsFolder, moved: &[(PathBuf, PathBuf)]) -> ActionOutcome {
    let batch = journal::Batch::new(Reason::Unarchive);
    let mut paths = Vec::new();
    let mut errors = Vec::new();
    for (archived, _) in moved {
        let back = archive::check_unarchivable(folder, archived)
            .and_then(|m| archive::unarchive_checked(&m, &batch));
        match back {
            Ok(to) => paths.push(to),
            Err(e) => errors.push(e.to_string()),
        }
    }
    ActionOutcome::Unarchived { paths, errors }
}
