//! Rename a session (the listed one or the open one): the dialog with its
//! name, written by the workers as a session-info entry.

use super::quote;
use crate::tui::look::strings;
use crate::tui::look::strings::file_name;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};
use std::path::PathBuf;

impl App {
    /// Asks for the selected listed session's new name.
    pub(in crate::tui) fn ask_rename_listed(&mut self) {
        if let Some(s) = self.catalog.picker().selected_session() {
            let title = quote(s.title());
            let name = s.name.clone().unwrap_or_default();
            let path = s.path.clone();
            self.rename(path, &title, &name);
        }
    }

    /// Asks for the open session's new name.
    pub(in crate::tui) fn ask_rename_open(&mut self) {
        if let Some(t) = self.tree.loaded() {
            let path = t.session.path.clone();
            let name = t.session.name().unwrap_or_default();
            let title = t.name.clone().unwrap_or_else(|| file_name(&path));
            self.rename(path, &quote(&title), &name);
        }
    }

    pub(in crate::tui) fn rename(&mut self, path: PathBuf, title: &str, name: &str) {
        self.ask(Dialog::ask(
            strings::RENAME_TITLE,
            strings::rename_body(title),
            name,
            "rename",
            Then::Rename { path },
        ));
    }
}
