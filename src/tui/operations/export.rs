//! Export one branch as Markdown: the dialog for the file to write, which
//! the workers write; the outcome names it.

use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};

impl App {
    /// Asks where to export the branch ending at the selected entry.
    pub(in crate::tui) fn ask_export(&mut self) {
        if let Some((path, leaf, what)) = self.selected_entry() {
            let to = path.with_extension("md");
            self.ask(Dialog::ask(
                strings::EXPORT_TITLE,
                strings::export_body(&what),
                &to.to_string_lossy(),
                "export",
                Then::Export { path, leaf },
            ));
        }
    }

    /// The branch is written.
    pub(in crate::tui) fn on_exported(&mut self, to: &std::path::Path) {
        self.say(strings::exported(to), false);
    }
}
