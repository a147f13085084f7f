//! The sessions list as the app keeps it: the sessions pane, with the deep
//! searches it asked for.

use crate::tui::event::Command;
use crate::tui::panes::picker::PickerPane;

#[derive(Debug, Default)]
pub struct CatalogView {
    picker: PickerPane,
}

impl CatalogView {
    /// The sessions pane.
    pub fn picker(&self) -> &PickerPane {
        &self.picker
    }

    /// The sessions pane, to hand it what happened.
    pub fn picker_mut(&mut self) -> &mut PickerPane {
        &mut self.picker
    }

    /// Starts a deep search for `query` over every session in the list's
    /// scope (not only those the quick search lists, as `piscope ls
    /// --deep` searches them all); the work it needs.
    pub fn start_deep_search(&mut self, query: String) -> Command {
        let stamp = self.picker.begin_deep(query.clone());
        Command::DeepSearch {
            stamp,
            query,
            sessions: self.picker.sessions_in_scope(),
        }
    }
}
