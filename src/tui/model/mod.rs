//! What the panes show, as data built off the UI thread: a session read for
//! the tree and its rows, the sessions list, the preview's document and
//! its pictures, the usage view's charts, the files sessions touched.

pub mod entry_tree;
pub mod loaded;
pub mod preview_doc;
pub mod preview_images;
pub mod session_index;
pub mod sessions;
pub mod touched;
pub mod usage_charts;
