//! The three panes (sessions, entry tree, context preview) and the status
//! and hint lines; each pane keeps its own state and draws itself.

pub mod picker;
pub mod preview;
pub mod status;
pub mod tree;
