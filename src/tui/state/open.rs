//! The open session as the app tracks it: which file, the generation of
//! each read asked for (an older answer is dropped), the preview asked for,
//! and an entry to select once its session is read.

use crate::tui::model::preview_doc::PreviewKey;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

#[derive(Debug, Default)]
pub struct OpenSession {
    /// The session shown in (or being read for) the tree.
    pub(in crate::tui) path: Option<PathBuf>,
    /// Counts the reads asked for; only the newest one's answer is taken.
    pub(in crate::tui) generation: u64,
    /// The generation of the session the tree shows.
    pub(in crate::tui) tree_generation: u64,
    /// The newest preview asked for, seen by the workers (older builds stop).
    pub(in crate::tui) preview_latest: Arc<AtomicU64>,
    pub(in crate::tui) preview_requested: Option<PreviewKey>,
    /// An entry to select once its session is open (a deep-search hit).
    pub(in crate::tui) pending_entry: Option<(PathBuf, String)>,
    /// Select the pending entry's row as the filter shows it (a branch's
    /// new leaf), rather than changing the filter to show the entry.
    pub(in crate::tui) pending_keeps_filter: bool,
}

impl OpenSession {
    /// The session shown in (or being read for) the tree.
    pub fn path(&self) -> Option<&PathBuf> {
        self.path.as_ref()
    }

    /// Whether `path` is the open session.
    pub fn is(&self, path: &Path) -> bool {
        self.path.as_deref() == Some(path)
    }
}
