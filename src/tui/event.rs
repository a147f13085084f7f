//! What flows into and out of `App::update`: every event the app reacts to
//! (`AppEvent`) and every piece of work it asks the runtime to do (`Command`).

use crate::catalog::SessionSummary;
use crate::tui::model::loaded::{LoadedSession, OpenError, ReadProgress};
use crate::tui::model::preview_doc::{
    LaidOut, LayoutRequest, PreviewDoc, PreviewKey, PreviewRequest,
};
use crate::tui::model::preview_images::{ImageRequest, PictureReady};
use crate::tui::model::sessions::{CatalogUpdate, DeepHit};
use crate::tui::model::touched::{TouchedAnswer, TouchedAsk};
use crate::tui::model::usage_charts::{UsageCharts, UsageRequest};
use crate::tui::work::jobs::{ActionOutcome, Job};
use crate::tui::work::newest::{Answer, Stamp, Stamped};
use ratatui::crossterm::event::{KeyEvent, MouseEvent};
use ratatui::text::Line;
use std::path::PathBuf;
use std::sync::Arc;

/// Everything the app reacts to: input, time, and the results of work done
/// off the UI thread.
pub enum AppEvent {
    Key(KeyEvent),
    Mouse(MouseEvent),
    /// The terminal's new size in columns and rows.
    Resize(u16, u16),
    /// Time passed (transient messages expire, ages move on).
    Tick,
    /// A session file was read (or could not be).
    SessionOpened(Answer<SessionRead>),
    /// How far the read of a long session file has come.
    SessionReading(Answer<ReadProgress>),
    PreviewReady(Box<PreviewDoc>),
    /// The tree's rows left for later are to be laid out now (the answer
    /// to [`Command::LayOutRows`]).
    RowsWanted,
    /// The header of the preview of this key, its context's size read
    /// whole (see [`crate::tui::model::preview_doc::sized_header`]).
    PreviewHeader(PreviewKey, Line<'static>),
    /// Blocks of the preview laid out, as the pane asked.
    PreviewLaidOut(Box<LaidOut>),
    /// A picture of the preview decoded (or why it could not be).
    PictureReady(Box<PictureReady>),
    /// The catalog found or summarised more sessions.
    Catalog(CatalogUpdate),
    /// More hits of a running deep search, in order (the first screen's
    /// worth as soon as it is found, then in batches).
    DeepSearchFound(Answer<Vec<DeepHit>>),
    /// A deep search finished, with the hits not sent before.
    DeepSearchDone(Answer<Result<Vec<DeepHit>, String>>),
    /// A session file changed, appeared or disappeared (live reload).
    FileChanged(PathBuf),
    /// How changes are being noticed.
    Watching(crate::watch::WatchMode),
    /// A changed session file summarised again; `None`: it is gone (or is
    /// no session).
    SessionChanged {
        path: PathBuf,
        summary: Option<Box<SessionSummary>>,
    },
    /// An editing action's work finished.
    ActionDone(ActionOutcome),
    /// Every session's usage, read (the cost column, the totals).
    UsageLoaded(Arc<crate::catalog::usage::UsageBook>),
    /// The usage view's charts.
    UsageReady(Answer<Box<UsageCharts>>),
    /// What the touched-files worker was asked.
    TouchedReady(Answer<TouchedAnswer>),
}

/// A session file read, or why it could not be.
pub struct SessionRead {
    pub path: PathBuf,
    pub result: Result<Arc<LoadedSession>, OpenError>,
}

/// Work the app asks for; the runtime runs it on worker threads and sends
/// the outcome back as an [`AppEvent`].
#[derive(Clone)]
pub enum Command {
    OpenSession {
        stamp: Stamp,
        path: PathBuf,
    },
    BuildPreview(Box<PreviewRequest>),
    /// Lay out preview blocks coming into view (answered as
    /// `PreviewLaidOut`).
    LayOutPreview(Box<LayoutRequest>),
    /// Decode the preview's pictures coming into view (answered as one
    /// `PictureReady` each).
    DecodePictures(Box<ImageRequest>),
    /// Summarise the sessions of the sessions folder, or of a fresh copy of
    /// the demo sessions (progress arrives as [`AppEvent::Catalog`]).
    LoadCatalog {
        demo: bool,
    },
    /// Summarise the sessions in piscope's archive (progress arrives as
    /// [`AppEvent::Catalog`], marked as the archive's).
    LoadArchive,
    /// Search inside every entry of these sessions.
    DeepSearch {
        stamp: Stamp,
        query: String,
        sessions: Vec<SessionSummary>,
    },
    /// Make ready what the growth of `loaded` (on screen in full) needs,
    /// when pi is writing it (answered by nothing; see
    /// [`crate::session::Session::ready_for_growth`]).
    ReadyForGrowth(Arc<LoadedSession>),
    /// Read on from where `loaded` stopped (answered as `SessionOpened`).
    RefreshSession {
        stamp: Stamp,
        loaded: Arc<LoadedSession>,
    },
    /// Summarise one session file again (answered as `SessionChanged`).
    Summarise(PathBuf),
    /// An editing action's work (answered as `ActionDone`).
    Act(Job),
    /// Start watching for changes (one watcher at a time).
    Watch(crate::watch::Target),
    /// Bytes for the terminal itself (an OSC 52 copy), written between frames.
    Terminal(Vec<u8>),
    /// Answered at once as [`AppEvent::RowsWanted`]: the rows are laid out
    /// in a later update, once all of this update's commands (the
    /// preview's among them) are under way, and the preview is on screen.
    LayOutRows,
    /// Read every session's usage (answered as `UsageLoaded`).
    LoadUsage {
        demo: bool,
    },
    /// Build the usage view's charts (answered as `UsageReady`).
    BuildUsage(Box<UsageRequest>),
    /// Which files sessions touched (answered as `TouchedReady`).
    Touched {
        stamp: Stamp,
        ask: TouchedAsk,
    },
}

/// The watcher's reports, as the app receives them.
impl From<crate::watch::WatchEvent> for AppEvent {
    fn from(e: crate::watch::WatchEvent) -> AppEvent {
        match e {
            crate::watch::WatchEvent::Watching(mode) => AppEvent::Watching(mode),
            crate::watch::WatchEvent::FileChanged(path) => AppEvent::FileChanged(path),
        }
    }
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::OpenSession { stamp, path } => {
                write!(f, "OpenSession({stamp:?}, {})", path.display())
            }
            Command::BuildPreview(r) => {
                write!(f, "BuildPreview({:?}, node {})", r.stamp, r.key.node)
            }
            Command::LayOutPreview(r) => write!(f, "LayOutPreview({} blocks)", r.wanted.len()),
            Command::DecodePictures(r) => write!(f, "DecodePictures({})", r.wanted.len()),
            Command::LoadCatalog { demo } => write!(f, "LoadCatalog(demo: {demo})"),
            Command::LoadArchive => write!(f, "LoadArchive"),
            Command::DeepSearch { stamp, query, .. } => {
                write!(f, "DeepSearch({stamp:?}, {query:?})")
            }
            Command::RefreshSession { stamp, .. } => write!(f, "RefreshSession({stamp:?})"),
            Command::ReadyForGrowth(l) => {
                write!(f, "ReadyForGrowth({})", l.session.path.display())
            }
            Command::Summarise(p) => write!(f, "Summarise({})", p.display()),
            Command::Act(job) => write!(f, "Act({job:?})"),
            Command::Watch(t) => write!(f, "Watch({})", t.root.display()),
            Command::Terminal(b) => write!(f, "Terminal({} bytes)", b.len()),
            Command::LayOutRows => write!(f, "LayOutRows"),
            Command::LoadUsage { demo } => write!(f, "LoadUsage(demo: {demo})"),
            Command::BuildUsage(r) => write!(f, "BuildUsage({:?})", r.stamp),
            Command::Touched { stamp, .. } => write!(f, "Touched({stamp:?})"),
        }
    }
}

/// The newest-wins slots skip a job whose request was overtaken.
impl Stamped for Command {
    fn stamp(&self) -> Option<&Stamp> {
        match self {
            Command::OpenSession { stamp, .. }
            | Command::RefreshSession { stamp, .. }
            | Command::DeepSearch { stamp, .. }
            | Command::Touched { stamp, .. } => Some(stamp),
            Command::BuildPreview(r) => Some(&r.stamp),
            Command::BuildUsage(r) => Some(&r.stamp),
            _ => None,
        }
    }
}
