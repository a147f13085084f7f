//! Branch from an entry: the dialog for an optional summary, written by
//! the workers as the new leaf (with a branch summary when given).

use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};

impl App {
    pub(in crate::tui) fn ask_branch(&mut self) {
        let Some((path, target, what)) = self.selected_entry() else {
            return;
        };
        let (there, resubmit) = match (self.tree.loaded(), self.tree.selected_node()) {
            (Some(t), Some(node)) => {
                let e = t.entry(node);
                (
                    crate::session::already_there(&t.session, node),
                    crate::session::write::append::resumes_before(e),
                )
            }
            _ => (false, false),
        };
        if there {
            self.say(strings::ALREADY_THERE.to_string(), false);
            return;
        }
        self.ask(Dialog::ask(
            strings::BRANCH_TITLE,
            strings::branch_body(&what, resubmit),
            "",
            "branch",
            Then::Branch { path, target },
        ));
    }
}
