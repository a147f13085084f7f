//! The editing actions as the app sees them: a key opens a dialog or asks
//! a worker for the work, and the work's outcome updates the panes.

use crate::catalog::SessionSummary;
use crate::catalog::delete::{DeleteMode, empty_sessions};
use crate::tui::event::Command;
use crate::tui::input::keymap::{Action, Key};
use crate::tui::look::layout::Pane;
use crate::tui::look::strings::{self, file_name};
use crate::tui::look::text;
use crate::tui::model::sessions::PickerRow;
use crate::tui::overlays::dialog::{Dialog, DialogKey};
use crate::tui::panes::tree::Content;
use crate::tui::state::{App, Exit, Then};
use crate::tui::work::clipboard;
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
        match (self.focus, action) {
            (Pane::Picker, Action::Resume) => {
                let chosen = self
                    .picker
                    .deep
                    .is_none()
                    .then(|| self.picker.selected_session().cloned())
                    .flatten();
                match chosen {
                    Some(s) => self.resume(&s, cmds),
                    // A project heading folds; a deep-search hit goes to the tree.
                    None => return false,
                }
            }
            (Pane::Picker, Action::Rename) => {
                if let Some(s) = self.picker.selected_session() {
                    let title = quote(s.title());
                    let name = s.name.clone().unwrap_or_default();
                    let path = s.path.clone();
                    self.rename(path, &title, &name);
                }
            }
            (Pane::Tree, Action::Rename) => {
                if let Some(t) = self.tree.loaded() {
                    let path = t.session.path.clone();
                    let name = t.session.name().unwrap_or_default();
                    let title = t.name.clone().unwrap_or_else(|| file_name(&path));
                    self.rename(path, &quote(&title), &name);
                }
            }
            (Pane::Picker, Action::Mark) => self.picker.toggle_mark(),
            (Pane::Picker, Action::Delete) => self.ask_delete(),
            (Pane::Picker, Action::DeleteEmpty) => self.ask_delete_empty(),
            (Pane::Tree, Action::Branch) => self.ask_branch(),
            (Pane::Tree, Action::Label) => {
                if let Some((path, id, what)) = self.selected_entry() {
                    let label = self
                        .tree
                        .loaded()
                        .and_then(|t| t.session.tree.label(&id).map(|l| l.label.clone()))
                        .unwrap_or_default();
                    self.dialog = Some(Dialog::ask(
                        strings::LABEL_TITLE,
                        strings::label_body(&what),
                        &label,
                        "label",
                        Then::Label { path, target: id },
                    ));
                }
            }
            (Pane::Tree | Pane::Preview, Action::Copy) => {
                match (self.tree.loaded(), self.tree.selected_node()) {
                    (Some(t), Some(node)) => cmds.push(Command::Act(Box::new(Job::Copy {
                        session: t.session.clone(),
                        node,
                    }))),
                    _ => self.say(strings::NO_ENTRY.to_string(), true),
                }
            }
            (Pane::Tree, Action::Fork) => {
                if let Some((path, leaf, _)) = self.selected_entry() {
                    cmds.push(Command::Act(Box::new(Job::Fork { path, leaf })));
                }
            }
            (Pane::Tree, Action::Export) => {
                if let Some((path, leaf, what)) = self.selected_entry() {
                    let to = path.with_extension("md");
                    self.dialog = Some(Dialog::ask(
                        strings::EXPORT_TITLE,
                        strings::export_body(&what),
                        &to.to_string_lossy(),
                        "export",
                        Then::Export { path, leaf },
                    ));
                }
            }
            (Pane::Tree, Action::Follow) => {
                self.tree.follow = !self.tree.follow;
                if self.tree.follow {
                    self.tree.on_action(Action::TreeJumpToLeaf);
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
        let Some(d) = self.dialog.as_mut() else {
            return;
        };
        match d.key(k) {
            DialogKey::Stay => {}
            DialogKey::Quit => self.quit = true,
            DialogKey::Cancel => self.dialog = None,
            DialogKey::Submit(text) => {
                if let Some(d) = self.dialog.take() {
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
            Then::Export { path, leaf } => match given {
                Some(to) => Job::Export {
                    path,
                    leaf,
                    to: PathBuf::from(to.trim()),
                },
                None => return,
            },
            Then::Delete { paths } => match self.delete_job(paths, DeleteMode::Trash) {
                Some(job) => job,
                None => return,
            },
            Then::DeleteForGood { paths } => match self.delete_job(paths, DeleteMode::Permanent) {
                Some(job) => job,
                None => return,
            },
            Then::Run(job) => *job,
            Then::ResumeHere { session } => Job::PrepareResume {
                session,
                cwd: None,
                here: self.here.clone(),
                in_here: true,
                command: self.config.pi_command.clone(),
            },
        };
        cmds.push(Command::Act(Box::new(job)));
    }

    pub(in crate::tui) fn write(&self, path: PathBuf, edit: Edit) -> Job {
        let own_mtime = self.own_writes.get(&path).copied();
        Job::Write {
            path,
            edit,
            confirmed: false,
            own_mtime,
        }
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
                    self.own_writes.insert(path.clone(), m);
                }
                self.say(message, false);
                if let Some(id) = select {
                    self.pending_entry = Some((path.clone(), id));
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
                self.dialog = Some(Dialog::confirm(
                    strings::RUNNING_PI_TITLE,
                    body,
                    yes,
                    Then::Run(job),
                ));
            }
            ActionOutcome::Forked { from: _, to } => {
                self.say(strings::forked(&to), false);
                if self.panes.contains(&Pane::Picker) {
                    self.picker.want = Some(to.clone());
                    self.file_changed(&to, cmds);
                } else {
                    self.open_session(to, cmds);
                }
            }
            ActionOutcome::Exported { to } => self.say(strings::exported(&to), false),
            ActionOutcome::Deleted {
                deleted,
                trash_failed,
                errors,
            } => self.on_deleted(deleted, trash_failed, errors, cmds),
            ActionOutcome::Copied { chars } => self.say(strings::copied(chars, false), false),
            ActionOutcome::CopyThroughTerminal { text } => {
                cmds.push(Command::Terminal(clipboard::osc52(&text)));
                self.say(strings::copied(text.chars().count(), true), false);
            }
            ActionOutcome::ResumeReady(resume) => {
                self.exit = Some(Exit::Resume(resume));
                self.quit = true;
            }
            ActionOutcome::CwdMissing { session, cwd, here } => {
                self.dialog = Some(Dialog::confirm(
                    strings::FOLDER_GONE_TITLE,
                    strings::folder_gone_body(&cwd, &here),
                    "open pi here",
                    Then::ResumeHere { session },
                ));
            }
            ActionOutcome::PiMissing { program, by_hand } => {
                self.dialog = Some(Dialog::confirm(
                    strings::PI_MISSING_TITLE,
                    strings::pi_missing_body(&program, &by_hand),
                    "close",
                    Then::Close,
                ));
            }
            ActionOutcome::Failed(e) => self.say(e, true),
        }
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

    pub(in crate::tui) fn resume(&mut self, s: &SessionSummary, cmds: &mut Vec<Command>) {
        if self.print_mode {
            self.exit = Some(Exit::Print(s.path.clone()));
            self.quit = true;
            return;
        }
        cmds.push(Command::Act(Box::new(Job::PrepareResume {
            session: s.path.clone(),
            cwd: Some(s.cwd.clone()).filter(|c| !c.is_empty()),
            here: self.here.clone(),
            in_here: false,
            command: self.config.pi_command.clone(),
        })));
    }

    pub(in crate::tui) fn rename(&mut self, path: PathBuf, title: &str, name: &str) {
        self.dialog = Some(Dialog::ask(
            strings::RENAME_TITLE,
            strings::rename_body(title),
            name,
            "rename",
            Then::Rename { path },
        ));
    }

    pub(in crate::tui) fn ask_branch(&mut self) {
        let Some((path, target, what)) = self.selected_entry() else {
            return;
        };
        let there = match (self.tree.loaded(), self.tree.selected_node()) {
            (Some(t), Some(node)) => crate::session::already_there(&t.session, node),
            _ => false,
        };
        if there {
            self.say(strings::ALREADY_THERE.to_string(), false);
            return;
        }
        self.dialog = Some(Dialog::ask(
            strings::BRANCH_TITLE,
            strings::branch_body(&what),
            "",
            "branch",
            Then::Branch { path, target },
        ));
    }

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
        match self.picker.sessions.iter().find(|s| s.path == path) {
            Some(s) => format!("{} ({file})", quote(s.title())),
            None => file,
        }
    }
}

/// Text from a session, made safe and cut to fit a dialog line.
fn quote(s: &str) -> String {
    text::truncate(
        &text::clean_line(&crate::session::summary::normalize(s)),
        QUOTE_WIDTH,
    )
}
