//! How the app changes: `App::new` and `App::update`, which turn each
//! event into new state and the commands for the workers; one file per kind
//! of event (keys, mouse, worker results, live changes) and the view's fit.

mod keys;
pub mod live;
mod mouse;
mod results;
mod usage;
mod view;

use crate::tui::clock::Clock;
use crate::tui::config::Config;
use crate::tui::event::{AppEvent, Command, SessionRead};
use crate::tui::look::layout::Pane;
use crate::tui::look::strings;
use crate::tui::model::loaded::OpenError;
use crate::tui::panes::status::StatusPane;
use crate::tui::state::screen::Screen;
use crate::tui::state::{App, Start};
use crate::watch::Target;
use ratatui::layout::Rect;
use std::path::PathBuf;

/// Idle ticks (seconds) between two looks at the open session's file.
const SLOW_POLL_TICKS: u64 = 3;

impl App {
    /// A new app; the commands start the first work (reading the file or
    /// the catalog).
    pub fn new(
        start: Start,
        config: Config,
        clock: Clock,
        home: Option<String>,
        size: Rect,
    ) -> (App, Vec<Command>) {
        let (panes, focus) = match start {
            Start::File(_) => (vec![Pane::Tree, Pane::Preview], Pane::Tree),
            Start::Catalog { .. } => (vec![Pane::Picker, Pane::Tree, Pane::Preview], Pane::Picker),
        };
        let status = StatusPane::new(config.report());
        let screen = Screen::new(size, panes, focus, home);
        let mut app = App::assemble(config, clock, screen, status);
        let mut cmds = Vec::new();
        match start {
            Start::File(path) => {
                app.live.watch(&path);
                cmds.push(Command::Watch(Target::file(&path)));
                app.open_session(path, &mut cmds);
            }
            Start::Catalog { demo } => cmds.push(Command::LoadCatalog { demo }),
        }
        app.sync_view(&mut cmds);
        (app, cmds)
    }

    /// Changes state for one event; returns the work it needs done.
    pub fn update(&mut self, event: AppEvent) -> Vec<Command> {
        let mut cmds = Vec::new();
        match event {
            AppEvent::Key(k) => {
                // A key acts on the rows: they are laid out first.
                self.tree.lay_out();
                self.on_key(k, &mut cmds)
            }
            AppEvent::Mouse(m) => {
                self.tree.lay_out();
                self.on_mouse(m, &mut cmds)
            }
            AppEvent::Resize(w, h) => self.screen.resize(w, h),
            AppEvent::Tick => {
                self.clock = self.clock.tick();
                // Rows still waiting for a preview that did not come.
                self.tree.lay_out();
                // A slow look at the open session besides the watcher, which
                // can miss changes (some network file systems).
                if self.live.tick(SLOW_POLL_TICKS) && self.tree.is_ready() {
                    self.refresh_open(&mut cmds);
                }
                self.status.expire(self.clock.now_ms);
            }
            AppEvent::SessionOpened(answer) => {
                if let Some(read) = self.open.take_answer(answer) {
                    self.on_session_read(read, &mut cmds);
                    // Its rows wait for the preview, else are laid out.
                    if !self.tree.is_waiting() {
                        self.ready_for_growth(&mut cmds);
                    }
                }
            }
            // Only while the read is under way: a report never replaces
            // the session it was about.
            AppEvent::SessionReading(report) if self.open.is_behind() => {
                if let (Some(progress), Some(path)) = (self.open.progress(report), self.open.path())
                {
                    self.tree.show_reading(path.clone(), progress);
                }
            }
            AppEvent::SessionReading(_) => {}
            // A long session's rows wait for its first preview to be on
            // screen: the preview is what the user reads first.
            AppEvent::RowsWanted if !self.preview.is_stale() => {
                let waited = self.tree.is_waiting();
                self.tree.lay_out();
                if waited {
                    self.ready_for_growth(&mut cmds);
                }
            }
            AppEvent::RowsWanted => {}
            AppEvent::PreviewReady(mut doc) => {
                if Some(doc.key) == self.preview.wanted() {
                    if let Some(r) = doc.remembered.take() {
                        self.tree.remembered_ready(r);
                    }
                    self.preview.set_doc(doc);
                    if self.tree.is_waiting() {
                        // Answered after this preview is drawn.
                        cmds.push(Command::LayOutRows);
                    }
                }
            }
            AppEvent::PreviewHeader(key, header) => self.preview.sized(key, header),
            AppEvent::PreviewLaidOut(laid) => self.preview.laid_out(*laid),
            AppEvent::PictureReady(p) => self.preview.picture_ready(*p),
            AppEvent::Catalog(update) => self.on_catalog(update, &mut cmds),
            AppEvent::DeepSearchFound(hits) => {
                let outcome = self.catalog.picker_mut().deep_found(hits);
                self.on_picker(outcome, &mut cmds);
            }
            AppEvent::DeepSearchDone(result) => {
                let outcome = self.catalog.picker_mut().deep_done(result);
                self.on_picker(outcome, &mut cmds);
            }
            AppEvent::FileChanged(path) => self.file_changed(&path, &mut cmds),
            AppEvent::Watching(mode) => self.on_watching(mode),
            AppEvent::SessionChanged { path, summary } => {
                self.on_session_changed(path, summary, &mut cmds);
                self.reload_usage(&mut cmds);
            }
            AppEvent::ActionDone(outcome) => self.on_outcome(outcome, &mut cmds),
            AppEvent::UsageLoaded(book) => self.on_usage_loaded(book, &mut cmds),
            AppEvent::UsageReady(charts) => self.on_usage_ready(charts),
            AppEvent::TouchedReady(answer) => self.on_touched(answer, &mut cmds),
        }
        self.sync_view(&mut cmds);
        cmds
    }

    /// Shows no session: the tree and the preview are emptied, and a read
    /// still under way is dropped when it arrives.
    pub(in crate::tui) fn close_session(&mut self) {
        self.open.close();
        self.tree.clear();
        self.preview.want(None);
    }

    pub(in crate::tui) fn open_session(&mut self, path: PathBuf, cmds: &mut Vec<Command>) {
        if self.open.is(&path) && !self.tree.has_failed() {
            return;
        }
        let stamp = self.open.open(path.clone());
        self.tree.show_loading(path.clone());
        cmds.push(Command::OpenSession { stamp, path });
    }

    /// Once the session shown is on screen in full: what its growth needs
    /// (see [`Command::ReadyForGrowth`]), made beside when not made yet.
    fn ready_for_growth(&self, cmds: &mut Vec<Command>) {
        if let Some(loaded) = self.tree.loaded() {
            if !loaded.session.tree.lookups_ready() {
                cmds.push(Command::ReadyForGrowth(loaded.clone()));
            }
        }
    }

    /// The newest read of the open session: the tree shows it, or why it
    /// could not be read.
    fn on_session_read(&mut self, read: SessionRead, cmds: &mut Vec<Command>) {
        let SessionRead { path, result } = read;
        match result {
            Ok(loaded) => {
                let damaged = loaded.session.damaged_lines();
                let pending = self.open.take_pending();
                // An entry to select needs the rows at once.
                if self.tree.set_session(loaded, pending.is_none()) {
                    // Answered as an event handled after this update's
                    // commands, its preview's among them, are under way; the
                    // rows are laid out once the preview is on screen (asked
                    // for again then).
                    cmds.push(Command::LayOutRows);
                }
                if let Some(p) = pending {
                    if p.path == path && !self.tree.select_id(&p.id, p.keeps_filter) {
                        self.say(strings::entry_not_in_session(&p.id), true);
                    }
                }
                if damaged > 0 {
                    self.say(strings::damaged_lines(damaged), false);
                }
            }
            Err(error) => {
                if error == OpenError::Deleted {
                    self.say(error.to_string(), true);
                }
                self.tree.show_failed(path, error);
            }
        }
    }
}
