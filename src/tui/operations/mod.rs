//! The things a user does to sessions, one file each (label, rename,
//! branch, fork, export, delete, clean, prune and undo, copy, resume): the
//! key that starts one, its dialog, the job it hands the workers and what
//! its outcome changes.
//! This file routes actions, dialog answers and outcomes to them; the jobs
//! themselves run in `work/jobs.rs`, below the app's state.

mod branch;
mod clean;
mod copy;
mod delete;
mod export;
mod fork;
mod label;
mod prune;
mod rename;
mod resume;

use crate::catalog::housekeeping::delete::DeleteMode;
use crate::catalog::housekeeping::journal::Reason;
use crate::safe_text as text;
use crate::tui::event::Command;
use crate::tui::input::keymap::{Action, Key};
use crate::tui::look::layout::Pane;
use crate::tui::look::strings::{self, file_name};
use crate::tui::overlays::dialog::{Dialog, DialogKey};
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::{ActionOutcome, Edit, Job};
use std::path::{Path, PathBuf};

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
        match (self.focus(), action) {
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
            (Pane::Picker, Action::Clean) => self.ask_clean(),
            (Pane::Tree, Action::Branch) => self.ask_branch(),
            (Pane::Tree, Action::Resume) => {
                if !self.resume_open(cmds) {
                    self.say(strings::NO_ENTRY.to_string(), true);
                }
            }
            (Pane::Tree, Action::Label) => self.ask_label(),
            (Pane::Tree | Pane::Preview, Action::Copy) => self.copy(cmds),
            (Pane::Tree, Action::Fork) => self.fork(cmds),
            (Pane::Tree, Action::Export) => self.ask_export(),
            (Pane::Tree, Action::Prune) => self.ask_prune(),
            (_, Action::Undo) => cmds.push(Command::Act(Box::new(Job::Undo))),
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
            DialogKey::Quit => self.quit(),
            DialogKey::Cancel => self.overlay.close(),
            DialogKey::Submit(text) => {
                if let Some(d) = self.overlay.take_dialog() {
                    self.proceed(d.then, text, cmds);
                }
            }
        }
    }

    pub(in crate::tui) fn proceed(
        &mut self,
        then: Then,
        text: Option<String>,
        cmds: &mut Vec<Command>,
    ) {
        let given = text.filter(|t| !t.trim().is_empty());
        let job = match then {
            Then::Close => return,
            Then::Label { path, target } => self.write(
                path,
                Edit::Label {
                    target,
                    label: given,
                },
            ),
            Then::Rename { path } => self.write(
                path,
                Edit::Rename {
                    name: given.unwrap_or_default(),
                },
            ),
            Then::Branch { path, target } => self.write(
                path,
                Edit::Branch {
                    target,
                    summary: given,
                },
            ),
            Then::Export { path, leaf, kind } => match given {
                Some(to) => Job::Export {
                    path,
                    leaf,
                    to: PathBuf::from(to.trim()),
                    kind,
                },
                None => return,
            },
            Then::Delete { files } => self.delete_job(files, DeleteMode::Trash, Reason::Delete),
            Then::DeleteForGood { files } => {
                self.delete_job(files, DeleteMode::Permanent, Reason::Delete)
            }
            Then::Prune { plan } => Job::Prune { plan },
            Then::Clean { picked, .. } => match self.clean_job(&picked) {
                Some(job) => job,
                None => return,
            },
            Then::Run(job) => *job,
            Then::ResumeHere { session } => self.resume_here_job(session),
        };
        cmds.push(Command::Act(Box::new(job)));
    }

    pub(in crate::tui) fn write(&self, path: PathBuf, edit: Edit) -> Job {
        let own_mtime = self.live.own_write(&path);
        Job::Write {
            path,
            edit,
            confirmed: false,
            own_mtime,
        }
    }

    /// The work of an action is done.
    pub(in crate::tui) fn on_outcome(&mut self, outcome: ActionOutcome, cmds: &mut Vec<Command>) {
        match outcome {
            ActionOutcome::Written {
                path,
                message,
                select,
                mtime,
            } => {
                if let Some(m) = mtime {
                    self.live.wrote(path.clone(), m);
                }
                self.say(message, false);
                if let Some(id) = select {
                    // The new leaf may be piscope's branch marker, which the
                    // filter hides: its row is where pi resumes, as shown.
                    self.open.select_later(path.clone(), id, true);
                }
                self.file_changed(&path, cmds);
            }
            ActionOutcome::MayBeOpenInPi {
                job,
                seconds,
                deletes,
            } => {
                let (body, yes) = if deletes {
                    (strings::running_pi_delete_body(seconds), "delete anyway")
                } else {
                    (strings::running_pi_body(seconds), "write anyway")
                };
                self.ask(Dialog::confirm(
                    strings::RUNNING_PI_TITLE,
                    body,
                    yes,
                    Then::Run(job),
                ));
            }
            ActionOutcome::Forked { from: _, to } => self.on_forked(to, cmds),
            ActionOutcome::Exported { to } => self.on_exported(&to),
            ActionOutcome::Deleted {
                deleted,
                trash_failed,
                errors,
            } => self.on_deleted(deleted, trash_failed, errors, cmds),
            ActionOutcome::Copied { chars } => self.on_copied(chars),
            ActionOutcome::CopyThroughTerminal { text } => self.copy_through_terminal(&text, cmds),
            ActionOutcome::ResumeReady(resume) => self.on_resume_ready(resume),
            ActionOutcome::CwdMissing { session, cwd, here } => {
                self.ask_resume_here(session, &cwd, &here)
            }
            ActionOutcome::PiMissing { program, by_hand } => self.on_pi_missing(&program, &by_hand),
            ActionOutcome::Pruned { path, removed } => self.on_pruned(&path, removed, cmds),
            ActionOutcome::Restored { paths, errors } => self.on_restored(&paths, &errors, cmds),
            ActionOutcome::Failed(e) => self.say(e, true),
        }
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
            Some(s) => format!("{} ({file})", quote(s.title())),
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
