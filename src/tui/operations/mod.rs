//! The things a user does to sessions, one file each (label, rename,
//! branch, fork, export, delete, archive, clean, prune, undo, copy, resume,
//! the files sessions touched, the review of secrets before an export or a
//! copy, a subagent's session from its tool call): the
//! key that starts one, its dialog, the job it hands the actions worker
//! (the call into the engine) and what its outcome changes and says.
//! This file only routes: actions to the operation they start, a dialog's
//! Enter to the operation that asked, an outcome to the operation it
//! answers; and it asks, for every job alike, before writing next to a
//! running pi. Jobs run in `work/jobs.rs`, below the app's state.

pub mod archive;
pub mod branch;
pub mod clean;
pub mod copy;
pub mod delete;
pub mod export;
pub mod fork;
pub mod label;
pub mod prune;
pub mod rename;
pub mod resume;
pub mod review;
pub mod subagent;
pub mod touched;
pub mod undo;

use crate::catalog::housekeeping::delete::DeleteMode;
use crate::catalog::housekeeping::journal::Reason;
use crate::safe_text as text;
use crate::tui::event::Command;
use crate::tui::input::keymap::{Action, Key};
use crate::tui::look::layout::Pane;
use crate::tui::look::strings::{self, file_name};
use crate::tui::overlays::dialog::{Dialog, DialogKey};
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::{ActionOutcome, Job};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Widest an entry or session is quoted in a dialog.
const QUOTE_WIDTH: usize = 60;

impl App {
    /// Handles an editing action of the focused pane; false when `action`
    /// is none (the pane handles it).
    pub(in crate::tui) fn on_edit_action(
        &mut self,
        action: Action,
        cmds: &mut Vec<Command>,
    ) -> bool {
        if self.refused_in_archive(action) {
            return true;
        }
        match (self.focus(), action) {
            // An archived session opens in the tree; pi would write to it.
            (Pane::Picker, Action::Resume) if self.picker().is_archived() => return false,
            (Pane::Picker, Action::Resume) => {
                if !self.resume_selected(cmds) {
                    // A project heading folds; a deep-search hit goes to the tree.
                    return false;
                }
            }
            (Pane::Picker, Action::Rename) => self.ask_rename_listed(),
            (Pane::Tree, Action::Rename) => self.ask_rename_open(),
            (Pane::Picker, Action::Mark) => self.catalog.picker_mut().toggle_mark(),
            (Pane::Picker, Action::Delete) => self.ask_delete(),
            (Pane::Picker, Action::DeleteEmpty) => self.ask_delete_empty(),
            (Pane::Picker, Action::Archive) => self.ask_archive(),
            (Pane::Picker, Action::Clean) => self.ask_clean(),
            (Pane::Tree, Action::Branch) => self.ask_branch(),
            (Pane::Tree, Action::Resume) => {
                if !self.resume_open(cmds) {
                    self.say(strings::NO_ENTRY.to_string(), true);
                }
            }
            (Pane::Tree, Action::TreeTouchedFiles) => self.ask_touched_files(cmds),
            (Pane::Tree, Action::TreeNextTouch) => self.step_touch(true),
            (Pane::Tree, Action::TreePreviousTouch) => self.step_touch(false),
            (Pane::Picker, Action::PickerTouched) => self.toggle_touched_filter(cmds),
            (Pane::Tree, Action::Label) => self.ask_label(),
            (Pane::Tree | Pane::Preview, Action::Copy) => self.copy(cmds),
            (Pane::Tree, Action::Fork) => self.fork(cmds),
            (Pane::Tree, Action::Export) => self.ask_export(),
            (Pane::Tree, Action::Prune) => self.ask_prune(),
            (_, Action::Undo) => self.undo(cmds),
            (Pane::Tree, Action::OpenSubagent) => self.open_subagent(cmds),
            (Pane::Tree, Action::Follow) => {
                if self.tree.toggle_follow() {
                    self.say(strings::FOLLOW_ON.to_string(), false);
                } else {
                    self.say(strings::FOLLOW_OFF.to_string(), false);
                }
            }
            _ => return false,
        }
        true
    }

    /// A key while a dialog is open.
    pub(in crate::tui) fn on_dialog_key(&mut self, k: Key, cmds: &mut Vec<Command>) {
        let Some(answer) = self.overlay.dialog_key(k, &self.config.keymap) else {
            return;
        };
        match answer {
            DialogKey::Stay => self.refresh_clean(),
            DialogKey::Switch => self.switch_export(),
            DialogKey::Cancel => self.overlay.close(),
            DialogKey::Submit(text) => {
                if let Some(d) = self.overlay.take_dialog() {
                    self.proceed(d.then, text, cmds);
                }
            }
        }
    }

    /// Enter in a dialog: the job of the operation that asked, with what
    /// was typed (blank counts as nothing).
    pub(in crate::tui) fn proceed(
        &mut self,
        then: Then,
        text: Option<String>,
        cmds: &mut Vec<Command>,
    ) {
        let given = text.filter(|t| !t.trim().is_empty());
        let job = match then {
            Then::Close => None,
            Then::Label { path, target } => Some(self.label_job(path, target, given)),
            Then::Rename { path } => Some(self.rename_job(path, given.unwrap_or_default())),
            Then::Branch { path, target } => Some(self.branch_job(path, target, given)),
            Then::Export { path, leaf, kind } => {
                given.map(|to| export::export_job(path, leaf, PathBuf::from(to.trim()), kind))
            }
            Then::Delete { files } => {
                Some(self.delete_job(files, DeleteMode::Trash, Reason::Delete))
            }
            Then::DeleteForGood { files } => {
                Some(self.delete_job(files, DeleteMode::Permanent, Reason::Delete))
            }
            Then::Prune { plan } => {
                let sessions = self.picker().folder().map(|f| f.dir.clone());
                Some(prune::prune_job(plan, sessions))
            }
            Then::Clean { rules, picked } => self.clean_job(&rules, &picked),
            Then::Archive { files } => Some(self.archive_job(files)),
            Then::Unarchive { files } => Some(self.unarchive_job(files)),
            Then::Run(job) => Some(*job),
            Then::ResumeHere { session } => Some(self.resume_here_job(session)),
        };
        if let Some(job) = job {
            cmds.push(Command::Act(job));
        }
    }

    /// The work of an action is done: the operation it answers takes it.
    pub(in crate::tui) fn on_outcome(&mut self, outcome: ActionOutcome, cmds: &mut Vec<Command>) {
        match outcome {
            ActionOutcome::Labelled { path, label, mtime } => {
                self.on_labelled(&path, label, mtime, cmds)
            }
            ActionOutcome::Renamed { path, name, mtime } => {
                self.on_renamed(&path, &name, mtime, cmds)
            }
            ActionOutcome::Branched { path, to, mtime } => self.on_branched(path, to, mtime, cmds),
            ActionOutcome::Forked { from: _, to } => self.on_forked(to, cmds),
            ActionOutcome::Exported { to, redacted, kept } => self.on_exported(&to, redacted, kept),
            ActionOutcome::ReviewSecrets { findings, then } => self.review_secrets(findings, *then),
            ActionOutcome::Deleted {
                paths,
                to_trash,
                trash_failed,
                errors,
            } => self.on_deleted(paths, to_trash, trash_failed, errors, cmds),
            ActionOutcome::Pruned { path, removed } => self.on_pruned(&path, removed, cmds),
            ActionOutcome::Archived { paths, errors } => self.on_archived(paths, errors, cmds),
            ActionOutcome::PutBack { from, errors } => self.on_put_back(from, errors, cmds),
            ActionOutcome::Restored {
                paths,
                errors,
                skipped,
            } => self.on_restored(&paths, &errors, &skipped, cmds),
            ActionOutcome::Unarchived { paths, errors } => {
                self.on_unarchived(&paths, &errors, cmds)
            }
            ActionOutcome::NothingToUndo => self.say(strings::NOTHING_TO_UNDO.to_string(), true),
            ActionOutcome::Copied {
                chars,
                redacted,
                kept,
            } => self.on_copied(chars, redacted, kept),
            ActionOutcome::CopyThroughTerminal {
                text,
                redacted,
                kept,
            } => self.copy_through_terminal(&text, redacted, kept, cmds),
            ActionOutcome::SubagentsOfCall { paths } => self.on_subagents_of_call(paths, cmds),
            ActionOutcome::ResumeReady(resume) => self.on_resume_ready(resume),
            ActionOutcome::CwdMissing { session, cwd, here } => {
                self.ask_resume_here(session, &cwd, &here)
            }
            ActionOutcome::PiMissing { program, by_hand } => self.on_pi_missing(&program, &by_hand),
            ActionOutcome::MayBeOpenInPi {
                job,
                seconds,
                deletes,
            } => self.ask_near_pi(job, seconds, deletes),
            ActionOutcome::Failed(e) => self.say(e, true),
        }
    }

    /// A job would write (or delete) a file pi may have open: ask first;
    /// Enter runs it as it is.
    fn ask_near_pi(&mut self, job: Box<Job>, seconds: u64, deletes: bool) {
        let (body, yes) = if deletes {
            (
                strings::running_pi_delete_body(seconds),
                strings::DELETE_ANYWAY,
            )
        } else {
            (strings::running_pi_body(seconds), strings::WRITE_ANYWAY)
        };
        self.ask(Dialog::confirm(
            strings::RUNNING_PI_TITLE,
            body,
            yes,
            Then::Run(job),
        ));
    }

    /// The job that writes to the session at `path` with `work`, asking
    /// first when pi may have the file open.
    pub(in crate::tui) fn writing(
        &self,
        what: &'static str,
        path: PathBuf,
        work: impl Fn(&Path) -> ActionOutcome + Send + Sync + 'static,
    ) -> Job {
        let own_mtime = self.live.own_write(&path);
        let at = path.clone();
        Job::new(what, move || work(&at)).unless_pi_may_have(vec![path], own_mtime, false)
    }

    /// A write is done: its change is piscope's own, seen at once.
    pub(in crate::tui) fn wrote(
        &mut self,
        path: &Path,
        mtime: Option<SystemTime>,
        cmds: &mut Vec<Command>,
    ) {
        if let Some(m) = mtime {
            self.live.wrote(path.to_path_buf(), m);
        }
        self.file_changed(path, cmds);
    }

    /// The open session's path, the selected entry's id and its row text.
    pub(in crate::tui) fn selected_entry(&mut self) -> Option<(PathBuf, String, String)> {
        let found = match (self.tree.loaded(), self.tree.selected_node()) {
            (Some(t), Some(node)) => t
                .entry(node)
                .id_str()
                .map(|id| (t.session.path.clone(), id.to_string(), quote(t.text(node)))),
            _ => None,
        };
        if found.is_none() {
            self.say(strings::NO_ENTRY.to_string(), true);
        }
        found
    }

    /// A session as a dialog names it: its title and file name.
    pub(in crate::tui) fn describe_session(&self, path: &Path) -> String {
        let file = text::clean_line(&file_name(path));
        match self.picker().sessions().iter().find(|s| s.path == path) {
            Some(s) => strings::session_named(&quote(s.title()), &file),
            None => file,
        }
    }
}

/// Text from a session, made safe and cut to fit a dialog line.
pub(in crate::tui) fn quote(s: &str) -> String {
    text::truncate(
        &text::clean_line(&crate::session::tree::entry_line::normalize(s)),
        QUOTE_WIDTH,
    )
}
