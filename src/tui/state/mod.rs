//! The application state as data: the panes, the open session and its
//! generations (`open.rs`), live reload's bookkeeping (`live.rs`), the
//! sessions list's own (`CatalogView`), the overlay over the panes
//! (`overlay.rs`), and what happens once the screen is left. `update/`
//! changes it.

pub mod live;
pub mod open;
pub mod overlay;
mod then;

use crate::catalog::delete::DeleteMode;
use crate::tui::clock::Clock;
use crate::tui::config::Config;
use crate::tui::input::keymap::Scope;
use crate::tui::look::layout::{Layout, Pane};
use crate::tui::overlays::dialog::Dialog;
use crate::tui::overlays::help::{self, Help};
use crate::tui::panes::picker::PickerPane;
use crate::tui::panes::preview::PreviewPane;
use crate::tui::panes::tree::{Content, TreePane};
use crate::tui::work::resume::Resume;
use live::LiveReload;
use open::OpenSession;
use overlay::Overlay;
use ratatui::layout::Rect;
use std::path::PathBuf;
pub use then::Then;

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

/// What piscope does once the screen is left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// Become pi on this session.
    Resume(Resume),
    /// Print the chosen session's path (`--print`).
    Print(PathBuf),
}

/// Bookkeeping of the sessions list the pane itself does not keep.
#[derive(Debug, Default)]
pub struct CatalogView {
    /// Counts the deep searches asked for; only the newest one's hits count.
    pub(in crate::tui) deep_generation: u64,
    /// How the last delete asked for goes (the message says "for good").
    pub(in crate::tui) last_delete_mode: Option<DeleteMode>,
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
    /// The help screen or a dialog over the panes.
    pub(in crate::tui) overlay: Overlay,
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
    pub(in crate::tui) open: OpenSession,
    pub(in crate::tui) live: LiveReload,
    pub(in crate::tui) catalog: CatalogView,
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
            && self.open.tree_generation != self.open.generation
    }

    /// The session shown in (or being read for) the tree.
    pub fn open_path(&self) -> Option<&PathBuf> {
        self.open.path()
    }

    /// Whether changes are noticed by polling.
    pub fn polling(&self) -> bool {
        self.live.polling()
    }

    /// The dialog over the panes, if one is open.
    pub fn dialog(&self) -> Option<&Dialog<Then>> {
        match &self.overlay {
            Overlay::Dialog(d) => Some(d),
            _ => None,
        }
    }

    /// The help screen, if it is shown.
    pub fn help(&self) -> Option<Help> {
        match self.overlay {
            Overlay::Help(h) => Some(h),
            _ => None,
        }
    }

    /// Opens a dialog over the panes (over the help screen too).
    pub(in crate::tui) fn ask(&mut self, dialog: Dialog<Then>) {
        self.overlay = Overlay::Dialog(Box::new(dialog));
    }

    /// Closes the dialog and hands it over.
    pub(in crate::tui) fn take_dialog(&mut self) -> Option<Dialog<Then>> {
        match std::mem::take(&mut self.overlay) {
            Overlay::Dialog(d) => Some(*d),
            other => {
                self.overlay = other;
                None
            }
        }
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
