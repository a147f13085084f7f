//! Live reload's bookkeeping: how changes are noticed, what is watched,
//! piscope's own writes (not mistaken for pi's), and the summaries under way.
//! The fields are private; the app says what happened and asks what to do.

use crate::watch::WatchMode;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

#[derive(Debug, Default)]
pub struct LiveReload {
    /// How file changes are noticed, once watching started.
    mode: Option<WatchMode>,
    /// The folder (or file) being watched.
    watching: Option<PathBuf>,
    /// Each file's time after piscope's own last write to it.
    own_writes: HashMap<PathBuf, SystemTime>,
    /// Files being summarised again; true when they changed meanwhile.
    summarising: HashMap<PathBuf, bool>,
    /// Idle ticks so far (the slow look at the open file counts them).
    ticks: u64,
}

impl LiveReload {
    /// Whether changes are noticed by polling.
    pub fn polling(&self) -> bool {
        matches!(self.mode, Some(WatchMode::Polling { .. }))
    }

    /// The folder (or file) being watched.
    pub fn watching(&self) -> Option<&PathBuf> {
        self.watching.as_ref()
    }

    /// Watches `target` from now on; false when it already was.
    pub(in crate::tui) fn watch(&mut self, target: &Path) -> bool {
        if self.watching.as_deref() == Some(target) {
            return false;
        }
        self.watching = Some(target.to_path_buf());
        true
    }

    /// How changes are noticed now (`None`: not yet known).
    pub(in crate::tui) fn set_mode(&mut self, mode: Option<WatchMode>) {
        self.mode = mode;
    }

    /// One idle tick; whether it is time for the slow look, every `every`.
    pub(in crate::tui) fn tick(&mut self, every: u64) -> bool {
        self.ticks += 1;
        self.ticks.is_multiple_of(every)
    }

    /// piscope itself wrote `path`, which then had time `mtime`.
    pub(in crate::tui) fn wrote(&mut self, path: PathBuf, mtime: SystemTime) {
        self.own_writes.insert(path, mtime);
    }

    /// The file's time after piscope's own last write to it.
    pub(in crate::tui) fn own_write(&self, path: &Path) -> Option<SystemTime> {
        self.own_writes.get(path).copied()
    }

    /// `path` changed: whether to summarise it now (false when a summary
    /// is under way; one more follows it).
    pub(in crate::tui) fn summary_wanted(&mut self, path: &Path) -> bool {
        match self.summarising.get_mut(path) {
            Some(again) => {
                *again = true;
                false
            }
            None => {
                self.summarising.insert(path.to_path_buf(), false);
                true
            }
        }
    }

    /// A summary of `path` arrived: whether to summarise it once more
    /// (it changed meanwhile).
    pub(in crate::tui) fn summary_done(&mut self, path: &Path) -> bool {
        if self.summarising.remove(path) == Some(true) {
            self.summarising.insert(path.to_path_buf(), false);
            return true;
        }
        false
    }
}
