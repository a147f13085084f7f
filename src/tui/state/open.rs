//! The open session as the app tracks it: which file, the generation of
//! each read asked for (an older answer is dropped), the preview asked for,
//! and an entry to select once its session is read. The fields are private:
//! the app asks for a read, takes an answer, or notes an entry to select.

use crate::tui::model::preview_doc::PreviewKey;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Debug, Default)]
pub struct OpenSession {
    /// The session shown in (or being read for) the tree.
    path: Option<PathBuf>,
    /// Counts the reads asked for; only the newest one's answer is taken.
    generation: u64,
    /// The generation of the session the tree shows.
    tree_generation: u64,
    /// The newest preview asked for, seen by the workers (older builds stop).
    preview_latest: Arc<AtomicU64>,
    preview_requested: Option<PreviewKey>,
    /// An entry to select once its session is open (a deep-search hit).
    pending: Option<Pending>,
}

/// An entry to select once its session's read arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub path: PathBuf,
    pub id: String,
    /// Select the entry's row as the filter shows it (a branch's new leaf),
    /// rather than changing the filter to show the entry.
    pub keeps_filter: bool,
}

/// A preview build asked for: its generation and the counter that tells
/// the worker when a newer one superseded it.
pub struct PreviewTicket {
    pub generation: u64,
    pub latest: Arc<AtomicU64>,
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

    /// Shows `path` from now on; the generation of the read to ask for.
    pub(in crate::tui) fn open(&mut self, path: PathBuf) -> u64 {
        self.path = Some(path);
        self.reread()
    }

    /// A new read of the same file; the generation to ask with.
    pub(in crate::tui) fn reread(&mut self) -> u64 {
        self.generation += 1;
        self.generation
    }

    /// Shows no session; a read under way is dropped when it arrives.
    pub(in crate::tui) fn close(&mut self) {
        if self.path.take().is_some() {
            self.generation += 1;
        }
        self.pending = None;
    }

    /// The generation of the newest read asked for.
    pub(in crate::tui) fn generation(&self) -> u64 {
        self.generation
    }

    /// Whether an answer of `generation` is the newest; it is then the one
    /// the tree shows.
    pub(in crate::tui) fn take_answer(&mut self, generation: u64) -> bool {
        let newest = generation == self.generation;
        if newest {
            self.tree_generation = generation;
        }
        newest
    }

    /// The generation of the session the tree shows.
    pub(in crate::tui) fn shown_generation(&self) -> u64 {
        self.tree_generation
    }

    /// Whether a newer read was asked for than the one shown.
    pub(in crate::tui) fn is_behind(&self) -> bool {
        self.tree_generation != self.generation
    }

    /// Selects `id` in `path` once its read arrives.
    pub(in crate::tui) fn select_later(&mut self, path: PathBuf, id: String, keeps_filter: bool) {
        self.pending = Some(Pending {
            path,
            id,
            keeps_filter,
        });
    }

    /// The entry waiting to be selected, once.
    pub(in crate::tui) fn take_pending(&mut self) -> Option<Pending> {
        self.pending.take()
    }

    /// Whether this preview is the one last asked for.
    pub(in crate::tui) fn preview_asked(&self, key: Option<PreviewKey>) -> bool {
        self.preview_requested == key
    }

    /// Asks for the preview `key`; older builds under way stop.
    pub(in crate::tui) fn ask_preview(&mut self, key: PreviewKey) -> PreviewTicket {
        let generation = self.preview_latest.fetch_add(1, Ordering::Relaxed) + 1;
        self.preview_requested = Some(key);
        PreviewTicket {
            generation,
            latest: self.preview_latest.clone(),
        }
    }
}
