//! The bookkeeping of the files sessions touched: the one request under way
//! (a session's files, the files in scope, a filter), and the tree's step
//! through the entries that changed the file chosen.

use crate::catalog::search::touched_index::SessionTouches;
use crate::tui::work::newest::Newest;
use std::path::PathBuf;

#[derive(Debug, Default)]
pub struct Touched {
    /// The newest request; answers to older ones are dropped.
    pub asked: Newest,
    /// What the open session touched, as last read (the list chosen from).
    pub session: Option<(PathBuf, SessionTouches)>,
    /// The step through one file's entries in the tree.
    pub walk: Option<Walk>,
}

/// The entries (ids) that changed one file of one session, newest first,
/// and which of them the tree was last moved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walk {
    pub session: PathBuf,
    /// As shown (relative to the session's cwd when inside it).
    pub file: String,
    pub entries: Vec<String>,
    /// Whether they changed the file (else they only touched it).
    pub changed: bool,
    pub at: usize,
}
