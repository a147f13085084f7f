//! Label an entry: the key asks for the label in a dialog, Enter has the
//! worker append a label entry (an empty label clears it), and the outcome
//! says so.

use crate::session;
use crate::tui::event::Command;
use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::{self, ActionOutcome, Job};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

impl App {
    /// The label key: asks for the selected entry's new label.
    pub(in crate::tui) fn ask_label(&mut self) {
        if let Some((path, id, what)) = self.selected_entry() {
            let label = self
                .tree
                .loaded()
                .and_then(|t| t.session.label_by_id(&id).map(|l| l.label))
                .unwrap_or_default();
            self.ask(Dialog::ask(
                strings::LABEL_TITLE,
                strings::label_body(&what),
                &label,
                strings::LABEL_YES,
                Then::Label { path, target: id },
            ));
        }
    }

    /// Enter in the dialog: the worker appends the label entry on `target`.
    pub(in crate::tui) fn label_job(
        &self,
        path: PathBuf,
        target: String,
        label: Option<String>,
    ) -> Job {
        self.writing("label", path, move |path| {
            match session::append_label(path, &target, label.as_deref()) {
                Ok(_) => ActionOutcome::Labelled {
                    path: path.to_path_buf(),
                    label: label.clone(),
                    mtime: jobs::modified(path),
                },
                Err(e) => ActionOutcome::Failed(e.to_string()),
            }
        })
    }

    /// The label entry is written.
    pub(in crate::tui) fn on_labelled(
        &mut self,
        path: &Path,
        label: Option<String>,
        mtime: Option<SystemTime>,
        cmds: &mut Vec<Command>,
    ) {
        let said = match label.as_deref().filter(|l| !l.is_empty()) {
            Some(l) => strings::labelled(l),
            None => strings::LABEL_CLEARED.to_string(),
        };
        self.say(said, false);
        self.wrote(path, mtime, cmds);
    }
}
