//! Drives the app without a terminal, for tests and benchmarks: events go
//! in, the work they ask for runs at once on this thread, frames are drawn
//! into ratatui's test backend.

use crate::catalog::SessionsFolder;
use crate::tui::clock::Clock;
use crate::tui::config::Config;
use crate::tui::draw::draw;
use crate::tui::event::{AppEvent, Command};
use crate::tui::input::keymap::Key;
use crate::tui::state::{App, Start};
use crate::tui::work::workers::JobContext;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyEvent, KeyEventKind, KeyEventState, MouseEvent};
use ratatui::layout::Rect;
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// 2026-01-24T11:30:00Z: an hour after the newest demo session.
pub const DEMO_NOW_MS: i64 = 1_769_254_200_000;

pub struct Harness {
    pub app: App,
    context: JobContext,
    terminal: Terminal<TestBackend>,
}

impl Harness {
    /// An app of `width` × `height` started on `start`.
    pub fn new(
        start: Start,
        context: JobContext,
        config: Config,
        clock: Clock,
        size: (u16, u16),
    ) -> Harness {
        let mut context = context;
        context.clock = clock;
        let area = Rect::new(0, 0, size.0, size.1);
        let (app, first) = App::new(start, config, clock, context.home.clone(), area);
        let backend = TestBackend::new(size.0, size.1);
        let terminal = match Terminal::new(backend) {
            Ok(t) => t,
            Err(e) => match e {},
        };
        let mut h = Harness {
            app,
            context,
            terminal,
        };
        h.run_all(first);
        h
    }

    /// One session file, with the default colours, a frozen clock and no home.
    pub fn file(path: &Path, size: (u16, u16)) -> Harness {
        Harness::new(
            Start::File(path.to_path_buf()),
            JobContext::new(None, None, false, PathBuf::from("/")),
            Config::defaults(false),
            Clock::fixed(DEMO_NOW_MS, 0),
            size,
        )
    }

    /// The sessions of `folder` (no cache), default colours, frozen clock.
    pub fn folder(folder: SessionsFolder, size: (u16, u16)) -> Harness {
        let cwd = folder.cwd.clone();
        Harness::new(
            Start::Catalog { demo: false },
            JobContext::new(Some("/home/ada".into()), Some(folder), false, cwd),
            Config::defaults(false),
            Clock::fixed(DEMO_NOW_MS, 0),
            size,
        )
    }

    /// As [`Harness::folder`], with the caches kept in `cache`.
    pub fn folder_cached(folder: SessionsFolder, size: (u16, u16), cache: &Path) -> Harness {
        let cwd = folder.cwd.clone();
        let mut context = JobContext::new(Some("/home/ada".into()), Some(folder), true, cwd);
        context.cache_dir = Some(cache.to_path_buf());
        Harness::new(
            Start::Catalog { demo: false },
            context,
            Config::defaults(false),
            Clock::fixed(DEMO_NOW_MS, 0),
            size,
        )
    }

    /// Feeds one event and runs all the work it causes.
    pub fn send(&mut self, event: AppEvent) {
        let cmds = self.app.update(event);
        self.run_all(cmds);
    }

    fn run_all(&mut self, mut cmds: Vec<Command>) {
        while !cmds.is_empty() {
            let events = RefCell::new(Vec::new());
            for cmd in cmds.drain(..) {
                self.context.run(cmd, &|ev| events.borrow_mut().push(ev));
            }
            for ev in events.into_inner() {
                cmds.extend(self.app.update(ev));
            }
        }
    }

    /// Presses a key given as in the keymap (`down`, `ctrl+d`, `N`, `/`).
    pub fn key(&mut self, spec: &str) {
        let k = Key::parse(spec).unwrap_or_else(|e| panic!("a key the keymap knows: {spec}: {e}"));
        self.send(AppEvent::Key(KeyEvent {
            code: k.code,
            modifiers: k.mods,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }));
    }

    pub fn keys(&mut self, specs: &[&str]) {
        for s in specs {
            self.key(s);
        }
    }

    /// Types text, one key per character.
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            let spec = if c == ' ' {
                "space".to_string()
            } else {
                c.to_string()
            };
            self.key(&spec);
        }
    }

    pub fn mouse(&mut self, m: MouseEvent) {
        self.send(AppEvent::Mouse(m));
    }

    pub fn resize(&mut self, width: u16, height: u16) {
        self.terminal.backend_mut().resize(width, height);
        self.send(AppEvent::Resize(width, height));
    }

    /// Draws a frame and returns it.
    pub fn frame(&mut self) -> Buffer {
        let app = &self.app;
        match self.terminal.draw(|f| draw(f, app)) {
            Ok(done) => done.buffer.clone(),
            Err(e) => match e {},
        }
    }

    /// Draws a frame and returns its text, one line per row, right-trimmed.
    pub fn screen(&mut self) -> String {
        buffer_text(&self.frame())
    }
}

/// A buffer's text, one line per row, right-trimmed.
pub fn buffer_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        for x in 0..area.width {
            line.push_str(buf[(area.x + x, area.y + y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
