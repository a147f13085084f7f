//! Live reload's bookkeeping: how changes are noticed, what is watched,
//! piscope's own writes (not mistaken for pi's), and the summaries under way.

use crate::watch::WatchMode;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::SystemTime;

#[derive(Debug, Default)]
pub struct LiveReload {
    /// How file changes are noticed, once watching started.
    pub(in crate::tui) mode: Option<WatchMode>,
    /// The folder (or file) being watched.
    pub(in crate::tui) watching: Option<PathBuf>,
    /// Each file's time after piscope's own last write to it.
    pub(in crate::tui) own_writes: HashMap<PathBuf, SystemTime>,
    /// Files being summarised again; true when they changed meanwhile.
    pub(in crate::tui) summarising: HashMap<PathBuf, bool>,
    /// Idle ticks so far (the slow look at the open file counts them).
    pub(in crate::tui) ticks: u64,
}

impl LiveReload {
    /// Whether changes are noticed by polling.
    pub fn polling(&self) -> bool {
        matches!(self.mode, Some(WatchMode::Polling { .. }))
    }
}
