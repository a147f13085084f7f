//! Rename a session (the listed one or the open one): the key asks for the
//! name in a dialog, Enter has the worker append a session-info entry (an
//! empty name clears it), and the outcome says so.

use super::quote;
use crate::session;
use crate::tui::event::Command;
use crate::tui::look::strings;
use crate::tui::look::strings::file_name;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::{self, ActionOutcome, Job};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

impl App {
    /// The rename key in the sessions pane: asks for the selected listed
    /// session's new name.
    pub(in crate::tui) fn ask_rename_listed(&mut self) {
        if let Some(s) = self.catalog.picker().selected_session() {
            let title = quote(s.title());
            let name = s.name.clone().unwrap_or_default();
            let path = s.path.clone();
            self.rename(path, &title, &name);
        }
    }

    /// The rename key in the tree: asks for the open session's new name.
    pub(in crate::tui) fn ask_rename_open(&mut self) {
        if let Some(t) = self.tree.loaded() {
            let path = t.session.path.clone();
            let name = t.session.name().unwrap_or_default();
            let title = t.name.clone().unwrap_or_else(|| file_name(&path));
            self.rename(path, &quote(&title), &name);
        }
    }

    fn rename(&mut self, path: PathBuf, title: &str, name: &str) {
        self.ask(Dialog::ask(
            strings::RENAME_TITLE,
            strings::rename_body(title),
            name,
            strings::RENAME_YES,
            Then::Rename { path },
        ));
    }

    /// Enter in the dialog: the worker appends the session-info entry.
    pub(in crate::tui) fn rename_job(&self, path: PathBuf, name: String) -> Job {
        self.writing("rename", path, move |path| {
            match session::append_name(path, &name) {
                Ok(_) => ActionOutcome::Renamed {
                    path: path.to_path_buf(),
                    name: name.clone(),
                    mtime: jobs::modified(path),
                },
                Err(e) => ActionOutcome::Failed(e.to_string()),
            }
        })
    }

    /// The session-info entry is written.
    pub(in crate::tui) fn on_renamed(
        &mut self,
        path: &Path,
        name: &str,
        mtime: Option<SystemTime>,
        cmds: &mut Vec<Command>,
    ) {
        // Trimmed as pi trims it when it reads the name.
        let name = crate::jstext::trim(name);
        let said = if name.is_empty() {
            strings::NAME_CLEARED.to_string()
        } else {
            strings::renamed(name)
        };
        self.say(said, false);
        self.wrote(path, mtime, cmds);
    }
}
