//! The sessions list as the app keeps it: the sessions pane, the deep
//! searches asked for (only the newest one's hits count) and how the last
//! delete asked for goes.

use crate::catalog::housekeeping::delete::DeleteMode;
use crate::tui::event::Command;
use crate::tui::panes::picker::PickerPane;

#[derive(Debug, Default)]
pub struct CatalogView {
    picker: PickerPane,
    /// Counts the deep searches asked for.
    deep_generation: u64,
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
        self.deep_generation += 1;
        self.picker.begin_deep(self.deep_generation, query.clone());
        Command::DeepSearch {
            generation: self.deep_generation,
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
