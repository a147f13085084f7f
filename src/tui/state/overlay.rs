//! What is drawn over the panes: nothing, the help screen, or a dialog
//! (one at a time: a dialog that opens replaces the help screen).

use super::then::Then;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::overlays::help::Help;

#[derive(Debug, Default)]
pub enum Overlay {
    #[default]
    None,
    Help(Help),
    Dialog(Box<Dialog<Then>>),
}
