//! The application state as data: the panes, the open session and its
//! generations, live reload's bookkeeping, the overlay over the panes, and
//! what happens once the screen is left. `update/` changes it.

use crate::catalog::delete::{Deletable, DeleteMode};
use crate::tui::clock::Clock;
use crate::tui::config::Config;
use crate::tui::input::keymap::Scope;
use crate::tui::look::layout::{Layout, Pane};
use crate::tui::model::preview_doc::PreviewKey;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::overlays::help::{self, Help};
use crate::tui::panes::picker::PickerPane;
use crate::tui::panes::preview::PreviewPane;
use crate::tui::panes::tree::{Content, TreePane};
use crate::tui::work::jobs::Job;
use crate::tui::work::resume::Resume;
use crate::watch::WatchMode;
use ratatui::layout::Rect;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::SystemTime;

/// How long a transient message stays in the status bar.
const MESSAGE_MS: i64 = 6_000;

/// What the app was started on.
#[derive(Debug, Clone)]
pub enum Start {
    /// One session file: no sessions pane.
    File(PathBuf),
    /// The sessions folder (or the demo sessions).
    Catalog { demo: bool },
}

/// A message in the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub text: String,
    pub error: bool,
    /// When it disappears (ms); `None` keeps it until replaced.
    pub until: Option<i64>,
}

/// What a dialog's Enter leads to.
#[derive(Debug, Clone)]
pub enum Then {
    Close,
    Label {
        path: PathBuf,
        target: String,
    },
    Rename {
        path: PathBuf,
    },
    Branch {
        path: PathBuf,
        target: String,
    },
    Export {
        path: PathBuf,
        leaf: String,
    },
    /// The sessions as checked when the question was asked.
    Delete {
        files: Vec<Deletable>,
    },
    DeleteForGood {
        files: Vec<Deletable>,
    },
    /// Work already described (a write the user agreed to do next to pi).
    Run(Box<Job>),
    /// Resume in the folder piscope runs in, the session's own being gone.
    ResumeHere {
        session: PathBuf,
    },
}

/// What piscope does once the screen is left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// Become pi on this session.
    Resume(Resume),
    /// Print the chosen session's path (`--print`).
    Print(PathBuf),
}

pub struct App {
    pub config: Config,
    pub clock: Clock,
    pub home: Option<String>,
    pub size: Rect,
    /// The panes of this run, left to right.
    pub panes: Vec<Pane>,
    pub focus: Pane,
    pub picker: PickerPane,
    pub tree: TreePane,
    pub preview: PreviewPane,
    pub help: Option<Help>,
    /// A question over the panes (an editing action's dialog).
    pub dialog: Option<Dialog<Then>>,
    /// A line above the panes (the demo notice).
    pub banner: Option<String>,
    pub message: Option<Message>,
    pub quit: bool,
    /// What to do once the screen is left (resume in pi, print a path).
    pub exit: Option<Exit>,
    /// Enter prints the chosen session's path instead of resuming it (`--print`).
    pub print_mode: bool,
    /// The folder piscope runs in (pi starts here when a session's is gone).
    pub here: PathBuf,
    /// How file changes are noticed, once watching started.
    pub watch_mode: Option<WatchMode>,
    /// The session shown in (or being read for) the tree.
    pub open_path: Option<PathBuf>,
    pub(in crate::tui) open_generation: u64,
    /// The generation of the session the tree shows.
    pub(in crate::tui) tree_generation: u64,
    pub(in crate::tui) preview_latest: Arc<AtomicU64>,
    pub(in crate::tui) preview_requested: Option<PreviewKey>,
    pub(in crate::tui) deep_generation: u64,
    /// An entry to select once its session is open (a deep-search hit).
    pub(in crate::tui) pending_entry: Option<(PathBuf, String)>,
    /// The folder being watched.
    pub(in crate::tui) watching: Option<PathBuf>,
    /// Each file's time after piscope's own last write to it.
    pub(in crate::tui) own_writes: HashMap<PathBuf, SystemTime>,
    /// Files being summarised again; true when they changed meanwhile.
    pub(in crate::tui) summarising: HashMap<PathBuf, bool>,
    pub(in crate::tui) last_delete_mode: Option<DeleteMode>,
    pub(in crate::tui) ticks: u64,
}

impl App {
    pub fn layout(&self) -> Layout {
        Layout::compute(self.size, &self.panes, self.focus, self.banner.is_some())
    }

    /// The keymap scope of the focused pane.
    pub fn scope(&self) -> Scope {
        match self.focus {
            Pane::Picker => Scope::Picker,
            Pane::Tree => Scope::Tree,
            Pane::Preview => Scope::Preview,
        }
    }

    pub(in crate::tui) fn say(&mut self, text: String, error: bool) {
        self.message = Some(Message {
            text,
            error,
            until: Some(self.clock.now_ms + MESSAGE_MS),
        });
    }

    /// Whether the tree is still showing an older session than the one chosen.
    pub fn tree_is_behind(&self) -> bool {
        matches!(self.tree.content, Content::Ready(_))
            && self.tree_generation != self.open_generation
    }

    /// The scopes the help screen lists for this run.
    pub fn help_scopes(&self) -> Vec<Scope> {
        let mut v = vec![Scope::Global];
        for p in &self.panes {
            v.push(match p {
                Pane::Picker => Scope::Picker,
                Pane::Tree => Scope::Tree,
                Pane::Preview => Scope::Preview,
            });
        }
        if self.panes.contains(&Pane::Tree) {
            v.push(Scope::Search);
        }
        v.extend([Scope::Text, Scope::Dialog, Scope::Help]);
        v
    }

    /// The help screen's lines (for tests and drawing).
    pub fn help_lines(&self) -> Vec<ratatui::text::Line<'static>> {
        help::lines(&self.config, &self.help_scopes())
    }
}
