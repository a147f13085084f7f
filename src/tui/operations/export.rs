//! Export: the dialog for the format (Markdown, an HTML page of the branch,
//! or one of every branch) and the file to write, which the workers write;
//! the outcome names it.

use crate::tui::input::keymap::{Action, Scope};
use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::ExportKind;

impl App {
    /// Asks where to export the branch ending at the selected entry.
    pub(in crate::tui) fn ask_export(&mut self) {
        if let Some((path, leaf, what)) = self.selected_entry() {
            let kind = ExportKind::default();
            let to = kind.file_name(&path.with_extension("").to_string_lossy());
            let switch = self.config.keymap.keys_for(Scope::Dialog, Action::Switch);
            self.ask(Dialog::ask(
                strings::EXPORT_TITLE,
                strings::export_body(&what, kind.index(), &switch),
                &to,
                "export",
                Then::Export { path, leaf, kind },
            ));
        }
    }

    /// The switch key in the export dialog: the next format, the file's
    /// name following it (a name the user typed keeps its stem).
    pub(in crate::tui) fn switch_export(&mut self) {
        let Some(mut d) = self.overlay.take_dialog() else {
            return;
        };
        if let Then::Export { kind, .. } = &mut d.then {
            *kind = kind.next();
            let switch = self.config.keymap.keys_for(Scope::Dialog, Action::Switch);
            // The first line names the entry; the rest follow the format.
            let what = d.body.first().cloned().unwrap_or_default();
            d.body = strings::export_body_after(what, kind.index(), &switch);
            if let Some(field) = d.input.as_mut() {
                *field =
                    crate::tui::overlays::text_input::TextInput::new(&kind.file_name(&field.text));
            }
        }
        self.ask(d);
    }

    /// The branch is written.
    pub(in crate::tui) fn on_exported(&mut self, to: &std::path::Path) {
        self.say(strings::exported(to), false);
    }
}
