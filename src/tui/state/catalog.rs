//! The sessions list as the app keeps it: the sessions pane (with the deep
//! searches it asked for) and how the last delete asked for goes.

use crate::catalog::delete::DeleteMode;
use crate::tui::event::Command;
use crate::tui::panes::picker::PickerPane;

#[derive(Debug, Default)]
pub struct CatalogView {
    picker: PickerPane,
    /// How the last delete asked for goes (the message says "for good").
    last_delete_mode: Option<DeleteMode>,
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

    /// Starts a deep search for `query` over the listed sessions; the
    /// work it needs.
    pub fn start_deep_search(&mut self, query: String) -> Command {
        let stamp = self.picker.begin_deep(query.clone());
        Command::DeepSearch {
            stamp,
            query,
            sessions: self.picker.listed_sessions(),
        }
    }

    /// A delete was agreed to: its marks are used up, its mode kept for
    /// the message once it is done.
    pub fn begin_delete(&mut self, mode: DeleteMode) {
        self.picker.clear_marks();
        self.last_delete_mode = Some(mode);
    }

    /// Whether the delete that is done went for good.
    pub fn delete_done(&mut self) -> Option<DeleteMode> {
        self.last_delete_mode.take()
    }
}
