//! Screens drawn over the panes. Today the help screen; the confirmation
//! and text-input dialogs of the editing actions belong here too.

pub mod help;
