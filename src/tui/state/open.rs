//! The open session as the app tracks it: which file, the reads asked for
//! (a newest-wins slot: an older answer is dropped), the preview asked for,
//! and an entry to select once its session is read. The fields are private:
//! the app asks for a read, takes an answer, or notes an entry to select.

use crate::tui::model::preview_doc::PreviewKey;
use crate::tui::work::newest::{Answer, Newest, Stamp};
use std::path::{Path, PathBuf};

#[derive(Debug, Default)]
pub struct OpenSession {
    /// The session shown in (or being read for) the tree.
    path: Option<PathBuf>,
    /// The reads asked for; only the newest one's answer is taken.
    reads: Newest,
    /// The previews asked for (older builds stop).
    previews: Newest,
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

impl OpenSession {
    /// The session shown in (or being read for) the tree.
    pub fn path(&self) -> Option<&PathBuf> {
        self.path.as_ref()
    }

    /// Whether `path` is the open session.
    pub fn is(&self, path: &Path) -> bool {
        self.path.as_deref() == Some(path)
    }

    /// Shows `path` from now on; the stamp of the read to ask for.
    pub(in crate::tui) fn open(&mut self, path: PathBuf) -> Stamp {
        self.path = Some(path);
        self.reread()
    }

    /// A new read of the same file; the stamp to ask with.
    pub(in crate::tui) fn reread(&mut self) -> Stamp {
        self.reads.stamp()
    }

    /// Shows no session; a read under way is dropped when it arrives.
    pub(in crate::tui) fn close(&mut self) {
        if self.path.take().is_some() {
            self.reads.cancel();
        }
        self.pending = None;
    }

    /// The newest read once more: reading the shown file on answers it too.
    pub(in crate::tui) fn read_on(&self) -> Stamp {
        self.reads.again()
    }

    /// The read answered, when it answers the newest read asked for; it is
    /// then the one the tree shows.
    pub(in crate::tui) fn take_answer<T>(&mut self, answer: Answer<T>) -> Option<T> {
        self.reads.take(answer)
    }

    /// How far the newest read has come, when `report` is about it.
    pub(in crate::tui) fn progress<T>(&self, report: Answer<T>) -> Option<T> {
        self.reads.peek(report)
    }

    /// Tells apart the reads the tree showed one after another.
    pub(in crate::tui) fn shown_read(&self) -> u64 {
        self.reads.taken()
    }

    /// Whether a newer read was asked for than the one shown.
    pub(in crate::tui) fn is_behind(&self) -> bool {
        self.reads.is_waiting()
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
    pub(in crate::tui) fn ask_preview(&mut self, key: PreviewKey) -> Stamp {
        self.preview_requested = Some(key);
        self.previews.stamp()
    }
}
