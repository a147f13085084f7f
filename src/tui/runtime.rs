//! The terminal and the event loop: raw mode and the alternate screen,
//! restored exactly once on every exit (quit, error, panic); input on its
//! own thread; one frame drawn per burst of events.

use crate::tui::draw::draw;
use crate::tui::event::{AppEvent, Command};
use crate::tui::state::{App, Exit};
use crate::tui::work::workers::Workers;
use anyhow::{Context as _, Result};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use std::io::{Stdout, Write as _, stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Once, OnceLock};
use std::time::{Duration, Instant};

/// How often time moves on when nothing happens (messages expire, ages).
const TICK: Duration = Duration::from_secs(1);
/// Events taken in before a frame is drawn, at most: a flood of input
/// still gets a frame now and then.
const MAX_BATCH: Duration = Duration::from_millis(12);

/// Whether the terminal is in the app's mode, and so needs restoring.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Puts the terminal back: leaves the alternate screen and raw mode, stops
/// mouse capture, shows the cursor. Safe to call more than once; only the
/// first call after entering does anything.
pub fn restore_terminal() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = stdout();
    let _ = execute!(
        out,
        DisableMouseCapture,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}

/// The terminal in the app's mode; dropping it restores the terminal.
struct TerminalGuard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl TerminalGuard {
    fn enter() -> Result<TerminalGuard> {
        install_panic_hook();
        enable_raw_mode().context("switching the terminal to raw mode")?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = stdout();
        execute!(out, EnterAlternateScreen, EnableMouseCapture)
            .context("entering the alternate screen")?;
        let terminal = Terminal::new(CrosstermBackend::new(out)).context("opening the terminal")?;
        Ok(TerminalGuard { terminal })
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// A panic restores the terminal first, so its message is readable.
fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // A picture's decoder failing is caught, and reported on the
            // picture: the screen stays.
            if crate::tui::model::preview_images::decoding_here() {
                return;
            }
            restore_terminal();
            previous(info);
        }));
    });
}

/// Runs the app until it quits; returns what to do next (the terminal is
/// already restored by then).
pub fn run(
    mut app: App,
    first: Vec<Command>,
    workers: impl FnOnce(mpsc::Sender<AppEvent>) -> Workers,
) -> Result<Option<Exit>> {
    let mut guard = TerminalGuard::enter()?;
    // Before the input thread: the terminal's answers arrive as input.
    let graphics = crate::tui::work::graphics::detect(app.config().images);
    // Whatever a terminal that does not understand the question printed.
    let _ = execute!(
        guard.terminal.backend_mut(),
        ratatui::crossterm::terminal::Clear(ratatui::crossterm::terminal::ClearType::All)
    );
    app.set_graphics(graphics);
    let (tx, rx) = mpsc::channel::<AppEvent>();
    spawn_input(tx.clone());
    let workers = workers(tx.clone());
    let size = guard.terminal.size().context("reading the terminal size")?;
    let dispatch = |guard: &mut TerminalGuard, cmd: Command| match cmd {
        Command::Terminal(bytes) => {
            // Between frames, so it never lands inside one.
            let out = guard.terminal.backend_mut();
            let _ = out.write_all(&bytes);
            let _ = out.flush();
        }
        other => workers.run(other),
    };
    for cmd in app.update(AppEvent::Resize(size.width, size.height)) {
        dispatch(&mut guard, cmd);
    }
    for cmd in first {
        dispatch(&mut guard, cmd);
    }
    let mut dirty = true;
    while !app.quits() {
        if dirty {
            guard
                .terminal
                .draw(|f| draw(f, &app))
                .context("drawing the screen")?;
            dirty = false;
        }
        let first = match rx.recv_timeout(TICK) {
            Ok(ev) => ev,
            Err(RecvTimeoutError::Timeout) => AppEvent::Tick,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let started = Instant::now();
        let mut next = Some(first);
        while let Some(ev) = next.take() {
            // A new preview is drawn before anything after it is handled.
            let preview = matches!(ev, AppEvent::PreviewReady(_));
            for cmd in app.update(ev) {
                dispatch(&mut guard, cmd);
            }
            dirty = true;
            if app.quits() || preview || started.elapsed() > MAX_BATCH {
                break;
            }
            next = rx.try_recv().ok();
        }
    }
    drop(guard);
    Ok(app.take_exit())
}

/// Reads terminal input on its own thread, so the UI never waits for it.
fn spawn_input(tx: mpsc::Sender<AppEvent>) {
    static STARTED: OnceLock<()> = OnceLock::new();
    if STARTED.set(()).is_err() {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("piscope-input".into())
        .spawn(move || {
            loop {
                let ev = match event::read() {
                    Ok(Event::Key(k)) => AppEvent::Key(k),
                    Ok(Event::Mouse(m)) => AppEvent::Mouse(m),
                    Ok(Event::Resize(w, h)) => AppEvent::Resize(w, h),
                    Ok(_) => continue,
                    Err(_) => {
                        // A broken terminal: stop rather than spin.
                        std::thread::sleep(Duration::from_millis(50));
                        continue;
                    }
                };
                if tx.send(ev).is_err() {
                    return;
                }
            }
        });
}
