//! Screens drawn over the panes: the help screen, and the dialogs of the
//! editing actions (a question, optionally with a text field), the list
//! of files sessions touched, the review of the secrets an export or a
//! copy would carry.

pub mod dialog;
pub mod file_list;
pub mod help;
pub mod secret_review;
pub mod text_input;
pub mod usage;
