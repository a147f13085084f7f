//! The application state and its one `update`: every event changes state
//! here, and the work it needs comes back out as commands for the workers.

use crate::catalog::delete::DeleteMode;
use crate::tui::clock::Clock;
use crate::tui::config::Config;
use crate::tui::event::{AppEvent, Command};
use crate::tui::input::keymap::{Action, Key, Scope};
use crate::tui::look::layout::{Layout, Pane};
use crate::tui::model::preview_doc::{PreviewKey, PreviewRequest};
use crate::tui::model::sessions::CatalogUpdate;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::overlays::help::{self, Help};
use crate::tui::panes::picker::{self, PickerOutcome, PickerPane};
use crate::tui::panes::preview::{self, PreviewPane};
use crate::tui::panes::tree::{Content, TreePane};
use crate::tui::work::jobs::Job;
use crate::tui::work::resume::Resume;
use crate::watch::{Target, WatchMode};
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

/// How long a transient message stays in the status bar.
const MESSAGE_MS: i64 = 6_000;
/// Idle ticks (seconds) between two looks at the open session's file.
const SLOW_POLL_TICKS: u64 = 3;

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
    Delete {
        paths: Vec<PathBuf>,
    },
    DeleteForGood {
        paths: Vec<PathBuf>,
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
        let message = config.report().map(|text| Message {
            text,
            error: true,
            until: None,
        });
        let mut app = App {
            config,
            clock,
            home,
            size,
            panes,
            focus,
            picker: PickerPane::default(),
            tree: TreePane::default(),
            preview: PreviewPane::default(),
            help: None,
            dialog: None,
            banner: None,
            message,
            quit: false,
            exit: None,
            print_mode: false,
            here: PathBuf::from("."),
            watch_mode: None,
            open_path: None,
            open_generation: 0,
            tree_generation: 0,
            preview_latest: Arc::new(AtomicU64::new(0)),
            preview_requested: None,
            deep_generation: 0,
            pending_entry: None,
            watching: None,
            own_writes: HashMap::new(),
            summarising: HashMap::new(),
            last_delete_mode: None,
            ticks: 0,
        };
        let mut cmds = Vec::new();
        match start {
            Start::File(path) => {
                app.watching = Some(path.clone());
                cmds.push(Command::Watch(Target::file(&path)));
                app.open_session(path, &mut cmds);
            }
            Start::Catalog { demo } => cmds.push(Command::LoadCatalog { demo }),
        }
        app.sync_view(&mut cmds);
        (app, cmds)
    }

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

    /// Changes state for one event; returns the work it needs done.
    pub fn update(&mut self, event: AppEvent) -> Vec<Command> {
        let mut cmds = Vec::new();
        match event {
            AppEvent::Key(k) => self.on_key(k, &mut cmds),
            AppEvent::Mouse(m) => self.on_mouse(m, &mut cmds),
            AppEvent::Resize(w, h) => self.size = Rect::new(0, 0, w, h),
            AppEvent::Tick => {
                self.clock = self.clock.tick();
                // A slow look at the open session besides the watcher, which
                // can miss changes (some network file systems).
                self.ticks += 1;
                if self.ticks.is_multiple_of(SLOW_POLL_TICKS)
                    && matches!(self.tree.content, Content::Ready(_))
                {
                    self.refresh_open(&mut cmds);
                }
                if let Some(until) = self.message.as_ref().and_then(|m| m.until) {
                    if self.clock.now_ms >= until {
                        self.message = None;
                    }
                }
            }
            AppEvent::SessionOpened {
                generation,
                path,
                result,
            } => {
                if generation == self.open_generation {
                    match result {
                        Ok(loaded) => {
                            let damaged = loaded.session.damaged_lines();
                            self.tree.set_session(loaded);
                            self.tree_generation = generation;
                            if let Some((p, id)) = self.pending_entry.take() {
                                if p == path && !self.tree.select_id(&id) {
                                    self.say(format!("Entry {id} is not in this session"), true);
                                }
                            }
                            if damaged > 0 {
                                self.say(
                                    format!(
                                        "{damaged} damaged line{} skipped, as pi skips them",
                                        if damaged == 1 { "" } else { "s" }
                                    ),
                                    false,
                                );
                            }
                        }
                        Err(error) => {
                            if error == crate::tui::look::strings::SESSION_DELETED {
                                self.say(error.clone(), true);
                            }
                            self.tree.content = Content::Failed { path, error };
                            self.tree.rows = Default::default();
                        }
                    }
                }
            }
            AppEvent::PreviewReady(doc) => {
                if Some(doc.key) == self.preview.wanted {
                    self.preview.set_doc(doc);
                }
            }
            AppEvent::Catalog(update) => self.on_catalog(update, &mut cmds),
            AppEvent::DeepSearchDone {
                generation,
                query: _,
                result,
            } => {
                let outcome = self.picker.deep_done(generation, result);
                self.on_picker(outcome, &mut cmds);
            }
            AppEvent::FileChanged(path) => self.file_changed(&path, &mut cmds),
            AppEvent::Watching(mode) => self.on_watching(mode),
            AppEvent::SessionChanged { path, summary } => {
                self.on_session_changed(path, summary, &mut cmds)
            }
            AppEvent::ActionDone(outcome) => self.on_outcome(outcome, &mut cmds),
        }
        self.sync_view(&mut cmds);
        cmds
    }

    pub(in crate::tui) fn say(&mut self, text: String, error: bool) {
        self.message = Some(Message {
            text,
            error,
            until: Some(self.clock.now_ms + MESSAGE_MS),
        });
    }

    pub(in crate::tui) fn open_session(&mut self, path: PathBuf, cmds: &mut Vec<Command>) {
        let failed = matches!(self.tree.content, Content::Failed { .. });
        if self.open_path.as_ref() == Some(&path) && !failed {
            return;
        }
        self.open_generation += 1;
        self.open_path = Some(path.clone());
        // The previous tree stays on screen until the new one is read.
        if !matches!(self.tree.content, Content::Ready(_)) {
            self.tree.content = Content::Loading(path.clone());
        }
        cmds.push(Command::OpenSession {
            generation: self.open_generation,
            path,
        });
    }

    /// Whether the tree is still showing an older session than the one chosen.
    pub fn tree_is_behind(&self) -> bool {
        matches!(self.tree.content, Content::Ready(_))
            && self.tree_generation != self.open_generation
    }

    pub(in crate::tui) fn on_catalog(&mut self, update: CatalogUpdate, cmds: &mut Vec<Command>) {
        let done = matches!(update, CatalogUpdate::Done { .. });
        let demo_started = match &update {
            CatalogUpdate::Started {
                demo: true, folder, ..
            } => Some(folder.dir.clone()),
            _ => None,
        };
        if let CatalogUpdate::Started { folder, .. } = &update {
            if self.watching.as_ref() != Some(&folder.dir) {
                self.watching = Some(folder.dir.clone());
                cmds.push(Command::Watch(Target::folder(&folder.dir)));
            }
        }
        if let Some(dir) = demo_started {
            self.banner = Some(format!(
                "Demo sessions: copies in {}, yours to edit. Your own sessions appear once pi has written some.",
                dir.display()
            ));
        }
        if let Some(path) = self.picker.on_catalog(update) {
            self.open_session(path, cmds);
        }
        if done {
            if self.picker.sessions.is_empty() && !self.picker.demo {
                // Nothing at all: show the bundled demo sessions instead.
                cmds.push(Command::LoadCatalog { demo: true });
            } else if let Some(p) = self.picker.problems.first().cloned() {
                let more = self.picker.problems.len() - 1;
                let tail = if more > 0 {
                    format!(" (and {more} more)")
                } else {
                    String::new()
                };
                self.say(format!("{p}{tail}"), true);
            }
        }
    }

    pub(in crate::tui) fn on_key(&mut self, key: KeyEvent, cmds: &mut Vec<Command>) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        let k = Key::from_event(&key);
        if let Some(h) = self.help.as_mut() {
            match k.code {
                KeyCode::Up => h.scroll = h.scroll.saturating_sub(1),
                KeyCode::Down => h.scroll += 1,
                KeyCode::PageUp => h.scroll = h.scroll.saturating_sub(10),
                KeyCode::PageDown => h.scroll += 10,
                KeyCode::Char('c') if k.mods == KeyModifiers::CONTROL => self.quit = true,
                _ => self.help = None,
            }
            return;
        }
        if self.dialog.is_some() {
            self.on_dialog_key(k, cmds);
            return;
        }
        if self.focus == Pane::Tree && self.tree.search.editing {
            match (k.code, k.typed_char()) {
                (KeyCode::Enter, _) => self.tree.finish_search(true),
                (KeyCode::Esc, _) => self.tree.finish_search(false),
                (KeyCode::Backspace, _) => {
                    self.tree.edit_search(None);
                }
                (_, Some(c)) => {
                    self.tree.edit_search(Some(c));
                }
                (KeyCode::Char('c'), None) if k.mods == KeyModifiers::CONTROL => self.quit = true,
                _ => {}
            }
            return;
        }
        let scope = self.scope();
        match self.config.keymap.action(scope, k) {
            Some(Action::Quit) => self.quit = true,
            Some(Action::Help) => self.help = Some(Help::default()),
            Some(Action::FocusNext) => self.cycle_focus(true),
            Some(Action::FocusPrev) => self.cycle_focus(false),
            Some(action) if self.on_edit_action(action, cmds) => {}
            Some(action) => match self.focus {
                Pane::Picker => {
                    let outcome = self.picker.on_action(action);
                    self.on_picker(outcome, cmds);
                }
                Pane::Tree => {
                    if action == Action::TreeSearch {
                        self.tree.search.query.clear();
                    }
                    self.tree.on_action(action);
                }
                Pane::Preview => {
                    self.preview.on_action(action);
                }
            },
            None => {
                if self.focus == Pane::Picker {
                    let outcome = match (k.code, k.typed_char()) {
                        (KeyCode::Backspace, _) => self.picker.type_char(None),
                        (_, Some(c)) => self.picker.type_char(Some(c)),
                        _ => PickerOutcome::Nothing,
                    };
                    self.on_picker(outcome, cmds);
                } else if k.code == KeyCode::Esc && !self.tree.search.query.is_empty() {
                    self.tree.finish_search(false);
                }
            }
        }
    }

    pub(in crate::tui) fn on_picker(&mut self, outcome: PickerOutcome, cmds: &mut Vec<Command>) {
        match outcome {
            PickerOutcome::Nothing => {}
            PickerOutcome::Show(path) => self.open_session(path, cmds),
            PickerOutcome::ShowEntry { path, entry } => {
                let here = self.open_path.as_ref() == Some(&path) && !self.tree_is_behind();
                if let Some(id) = entry {
                    let found = here && self.tree.select_id(&id);
                    if here && !found {
                        self.say(format!("Entry {id} is not in this session"), true);
                    } else if !here {
                        self.pending_entry = Some((path.clone(), id));
                    }
                }
                self.open_session(path, cmds);
            }
            PickerOutcome::FocusTree => self.focus = Pane::Tree,
            PickerOutcome::StartDeepSearch(query) => {
                self.deep_generation += 1;
                self.picker.begin_deep(self.deep_generation, query.clone());
                let sessions = self
                    .picker
                    .rows
                    .iter()
                    .filter_map(|r| match r {
                        crate::tui::model::sessions::PickerRow::Session { index, .. } => {
                            self.picker.sessions.get(*index).cloned()
                        }
                        _ => None,
                    })
                    .collect();
                cmds.push(Command::DeepSearch {
                    generation: self.deep_generation,
                    query,
                    sessions,
                });
            }
            PickerOutcome::Say(text) => self.say(text, false),
        }
    }

    pub(in crate::tui) fn cycle_focus(&mut self, forward: bool) {
        let n = self.panes.len();
        let at = self
            .panes
            .iter()
            .position(|p| *p == self.focus)
            .unwrap_or(0);
        let next = if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        };
        self.focus = self.panes[next];
    }

    pub(in crate::tui) fn on_mouse(&mut self, m: MouseEvent, cmds: &mut Vec<Command>) {
        if self.dialog.is_some() {
            return;
        }
        if self.help.is_some() {
            if let MouseEventKind::Down(_) = m.kind {
                self.help = None;
            }
            return;
        }
        let layout = self.layout();
        let Some(pane) = layout.pane_at(m.column, m.row) else {
            return;
        };
        let Some(rect) = layout.rect(pane) else {
            return;
        };
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = m.kind == MouseEventKind::ScrollDown;
                match pane {
                    Pane::Picker => {
                        let action = if down { Action::Down } else { Action::Up };
                        let outcome = self.picker.on_action(action);
                        self.on_picker(outcome, cmds);
                    }
                    Pane::Tree => {
                        self.tree.wheel(down);
                    }
                    Pane::Preview => self.preview.wheel(down),
                }
            }
            MouseEventKind::Down(MouseButton::Left) => {
                self.focus = pane;
                // Rows start below the border (and the picker's search lines).
                let top = rect.y
                    + 1
                    + if pane == Pane::Picker {
                        picker::HEADER_LINES
                    } else {
                        0
                    };
                if m.row < top {
                    return;
                }
                let y = usize::from(m.row - top);
                match pane {
                    Pane::Picker => {
                        let outcome = self.picker.click(y);
                        self.on_picker(outcome, cmds);
                    }
                    Pane::Tree => {
                        self.tree.click(y);
                    }
                    Pane::Preview => {}
                }
            }
            _ => {}
        }
    }

    /// Fits the panes to the layout and asks for the preview the tree's
    /// selection needs.
    pub(in crate::tui) fn sync_view(&mut self, cmds: &mut Vec<Command>) {
        let layout = self.layout();
        let inner = |r: Rect| Rect {
            x: r.x + 1,
            y: r.y + 1,
            width: r.width.saturating_sub(2),
            height: r.height.saturating_sub(2),
        };
        if let Some(r) = layout.rect(Pane::Picker) {
            let h = inner(r).height.saturating_sub(picker::HEADER_LINES);
            self.picker.set_height(usize::from(h));
        }
        if let Some(r) = layout.rect(Pane::Tree) {
            let search = self.tree.search.editing || !self.tree.search.query.is_empty();
            let h = inner(r).height.saturating_sub(u16::from(search));
            self.tree.set_height(usize::from(h));
        }
        let preview_rect = layout
            .rect(Pane::Preview)
            .map(|r| preview::text_area(inner(r)));
        if let Some(r) = preview_rect {
            self.preview.set_height(usize::from(r.height));
        }
        let node = self.tree.selected_node();
        let width = preview_rect.map(|r| r.width);
        self.preview.wanted = match (node, width) {
            (Some(node), Some(width)) => Some(PreviewKey {
                session: self.tree_generation,
                node,
                mode: self.preview.mode,
                width,
            }),
            (Some(node), None) => self.preview.wanted.filter(|w| w.node == node),
            _ => None,
        };
        if !self.preview.is_stale() || self.preview_requested == self.preview.wanted {
            return;
        }
        let (Some(key), Some(loaded)) = (self.preview.wanted, self.tree.loaded().cloned()) else {
            return;
        };
        let generation = self.preview_latest.fetch_add(1, Ordering::Relaxed) + 1;
        self.preview_requested = Some(key);
        cmds.push(Command::BuildPreview(Box::new(PreviewRequest {
            generation,
            key,
            loaded,
            theme: self.config.theme.clone(),
            clock: self.clock,
            latest: self.preview_latest.clone(),
        })));
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
        v
    }

    /// The help screen's lines (for tests and drawing).
    pub fn help_lines(&self) -> Vec<ratatui::text::Line<'static>> {
        help::lines(&self.config, &self.help_scopes())
    }
}
