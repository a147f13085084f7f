//! Label an entry: the dialog with the entry's label, written by the
//! workers as a label entry (empty clears it).

use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};

impl App {
    /// Asks for the selected entry's new label.
    pub(in crate::tui) fn ask_label(&mut self) {
        if let Some((path, id, what)) = self.selected_entry() {
            let label = self
                .tree
                .loaded()
                .and_then(|t| t.session.tree.label(&id).map(|l| l.label.clone()))
                .unwrap_or_default();
            self.ask(Dialog::ask(
                strings::LABEL_TITLE,
                strings::label_body(&what),
                &label,
                "label",
                Then::Label { path, target: id },
            ));
        }
    }
}
