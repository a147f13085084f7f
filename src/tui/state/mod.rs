//! The application state as data: the panes (each keeps its own state),
//! the screen they are drawn in (`screen.rs`), the sessions list with its
//! pane (`catalog.rs`), the open session and the reads asked for (`open.rs`),
//! live reload's bookkeeping (`live.rs`), the overlay over the panes
//! (`overlay.rs`), the files sessions touched (`touched.rs`), and how the
//! run ends. `update/` changes it.

pub mod catalog;
pub mod live;
pub mod open;
pub mod overlay;
pub mod screen;
mod then;
pub mod touched;

use crate::tui::clock::Clock;
use crate::tui::config::Config;
use crate::tui::input::keymap::Scope;
use crate::tui::look::layout::{Layout, Pane};
use crate::tui::overlays::dialog::Dialog;
use crate::tui::overlays::help::{self, Help};
use crate::tui::panes::picker::PickerPane;
use crate::tui::panes::preview::PreviewPane;
use crate::tui::panes::status::{Message, StatusPane};
use crate::tui::panes::tree::TreePane;
use crate::tui::work::resume::Resume;
pub use catalog::CatalogView;
use live::LiveReload;
use open::OpenSession;
use overlay::Overlay;
use screen::Screen;
use std::path::PathBuf;
pub use then::{ExportKind, Then};

/// What the app was started on.
#[derive(Debug, Clone)]
pub enum Start {
    /// One session file: no sessions pane.
    File(PathBuf),
    /// The sessions folder (or the demo sessions).
    Catalog { demo: bool },
}

/// What piscope does once the screen is left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// Become pi on this session.
    Resume(Resume),
    /// Print the chosen session's path (`--print`).
    Print(PathBuf),
}

/// How this run ends: whether the screen is to be left, what follows,
/// and what that depends on.
#[derive(Debug)]
pub struct Leaving {
    quit: bool,
    exit: Option<Exit>,
    /// Enter prints the chosen session's path instead of resuming it (`--print`).
    print_mode: bool,
    /// The folder piscope runs in (pi starts here when a session's is gone).
    here: PathBuf,
}

impl Default for Leaving {
    fn default() -> Leaving {
        Leaving {
            quit: false,
            exit: None,
            print_mode: false,
            here: PathBuf::from("."),
        }
    }
}

/// The app as data: the panes, what they are drawn in, and the bookkeeping
/// of the work under way for them.
pub struct App {
    /// The user's keymap, theme and pi command.
    pub(in crate::tui) config: Config,
    pub(in crate::tui) clock: Clock,
    pub(in crate::tui) screen: Screen,
    /// The sessions list, its pane within.
    pub(in crate::tui) catalog: CatalogView,
    pub(in crate::tui) tree: TreePane,
    pub(in crate::tui) preview: PreviewPane,
    pub(in crate::tui) status: StatusPane,
    /// The help screen or a dialog over the panes.
    pub(in crate::tui) overlay: Overlay,
    pub(in crate::tui) open: OpenSession,
    pub(in crate::tui) live: LiveReload,
    /// The files sessions touched: what was asked, the tree's step
    /// through one file's entries.
    pub(in crate::tui) touched: touched::Touched,
    leaving: Leaving,
}

impl App {
    /// An app of these parts, not quitting yet.
    pub(in crate::tui) fn assemble(
        config: Config,
        clock: Clock,
        screen: Screen,
        status: StatusPane,
    ) -> App {
        App {
            config,
            clock,
            screen,
            catalog: CatalogView::default(),
            tree: TreePane::default(),
            preview: PreviewPane::default(),
            status,
            overlay: Overlay::default(),
            open: OpenSession::default(),
            live: LiveReload::default(),
            touched: touched::Touched::default(),
            leaving: Leaving::default(),
        }
    }

    pub fn layout(&self) -> Layout {
        self.screen.layout()
    }

    /// The keymap scope of the focused pane.
    pub fn scope(&self) -> Scope {
        self.screen.scope()
    }

    /// The focused pane.
    pub fn focus(&self) -> Pane {
        self.screen.focus()
    }

    /// The sessions pane (empty when the run shows one file).
    pub fn picker(&self) -> &PickerPane {
        self.catalog.picker()
    }

    pub fn tree(&self) -> &TreePane {
        &self.tree
    }

    /// The usage view, when it is shown.
    pub fn usage_view(&self) -> Option<&crate::tui::overlays::usage::UsageView> {
        self.overlay.usage()
    }

    pub fn preview(&self) -> &PreviewPane {
        &self.preview
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The status bar's message, if any.
    pub fn message(&self) -> Option<&Message> {
        self.status.message()
    }

    pub(in crate::tui) fn say(&mut self, text: String, error: bool) {
        self.status.say(text, error, self.clock.now_ms);
    }

    /// Whether the screen is to be left.
    pub fn quits(&self) -> bool {
        self.leaving.quit
    }

    /// Leaves the screen (once this event is handled).
    pub(in crate::tui) fn quit(&mut self) {
        self.leaving.quit = true;
    }

    /// Leaves the screen, then does `exit`.
    pub(in crate::tui) fn leave(&mut self, exit: Exit) {
        self.leaving.exit = Some(exit);
        self.leaving.quit = true;
    }

    /// What follows once the screen is left.
    pub fn exit(&self) -> Option<&Exit> {
        self.leaving.exit.as_ref()
    }

    pub fn take_exit(&mut self) -> Option<Exit> {
        self.leaving.exit.take()
    }

    /// Enter prints the chosen session's path instead of resuming it.
    pub fn set_print_mode(&mut self, on: bool) {
        self.leaving.print_mode = on;
    }

    pub(in crate::tui) fn print_mode(&self) -> bool {
        self.leaving.print_mode
    }

    /// The folder piscope runs in (pi starts here when a session's is gone).
    pub fn set_here(&mut self, here: PathBuf) {
        self.leaving.here = here;
    }

    pub(in crate::tui) fn here(&self) -> &PathBuf {
        &self.leaving.here
    }

    /// The command that starts pi (tests point it elsewhere).
    pub fn set_pi_command(&mut self, command: crate::tui::work::resume::PiCommand) {
        self.config.pi_command = command;
    }

    /// Draws the preview's images as pictures with `graphics` (`None`: as
    /// placeholders); set once, when the terminal has said what it draws.
    pub fn set_graphics(&mut self, graphics: Option<crate::tui::model::preview_images::Graphics>) {
        self.preview.set_graphics(graphics);
    }

    /// Whether the tree is still showing an older session than the one chosen.
    pub fn tree_is_behind(&self) -> bool {
        self.tree.is_ready() && self.open.is_behind()
    }

    /// The session shown in (or being read for) the tree.
    pub fn open_path(&self) -> Option<&PathBuf> {
        self.open.path()
    }

    /// Whether changes are noticed by polling.
    pub fn polling(&self) -> bool {
        self.live.polling()
    }

    /// The folder (or file) whose changes are watched.
    pub fn watched(&self) -> Option<&PathBuf> {
        self.live.watching()
    }

    /// The dialog over the panes, if one is open.
    pub fn dialog(&self) -> Option<&Dialog<Then>> {
        self.overlay.dialog()
    }

    /// The review of the secrets an export or a copy would carry, if shown.
    pub fn review(
        &self,
    ) -> Option<&crate::tui::overlays::secret_review::SecretReview<crate::tui::work::jobs::Reviewed>>
    {
        self.overlay.review()
    }

    /// The help screen, if it is shown.
    pub fn help(&self) -> Option<Help> {
        self.overlay.help()
    }

    /// Opens a dialog over the panes (over the help screen too).
    pub(in crate::tui) fn ask(&mut self, dialog: Dialog<Then>) {
        self.overlay.ask(dialog);
    }

    /// The scopes the help screen lists for this run.
    pub fn help_scopes(&self) -> Vec<Scope> {
        let mut v = vec![Scope::Global];
        v.extend(self.screen.panes().iter().map(|&p| screen::scope_of(p)));
        if self.screen.has(Pane::Tree) {
            v.push(Scope::Search);
        }
        v.extend([Scope::Text, Scope::Dialog, Scope::Help, Scope::Usage]);
        v
    }

    /// The help screen's lines, unwrapped (for tests).
    pub fn help_lines(&self) -> Vec<ratatui::text::Line<'static>> {
        help::lines(&self.config, &self.help_scopes(), usize::MAX)
    }
}
