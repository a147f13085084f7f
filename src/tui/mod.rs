//! The terminal browser: sessions, entry tree and context preview panes,
//! driven by one `App::update` and drawn by one pure `draw`.
//!
//! Its layers, top to bottom; a file imports only from its own layer or the
//! ones below (`tests/layers_hold.rs` checks that no files import one
//! another round a circle, and that no pane, overlay or worker sees App):
//!
//! ```text
//! mod.rs, runtime.rs   run(): terminal guard, input thread, frame loop;
//! harness.rs           the same loop without a terminal, for tests
//!   │
//! draw.rs              one frame from App, read only; hands each pane its part
//! update/              App::new and App::update: keys, mouse, worker results,
//!                      live changes, the view's fit → new state + commands
//! operations/          one file per thing a user does (label, rename, branch,
//!                      fork, export, delete, clean, prune, undo, copy,
//!                      resume): its key, its dialog, its job (the call into
//!                      the engine), what its outcome changes and says
//!   │
//! state/               App as data, composed of the panes and the
//!                      bookkeeping around them: the screen (size, panes,
//!                      focus), the sessions list holding its pane, the open
//!                      session, live reload, the dialog or help over the
//!                      panes, how the run ends
//!   │
//! panes/               sessions (picker/), tree, preview, status: private
//!                      state changed only through methods that name the
//!                      intent, on_action → outcome, draw(&self); never see App
//! overlays/            dialog, text input, help
//! work/workers.rs      worker threads, a newest-wins one per kind of
//!                      build and queues for the rest: Command in, AppEvent out
//!   │
//! event.rs             AppEvent and Command: what update and workers share
//!   │
//! work/                jobs (running an operation's job, the facts it
//!                      reports), clipboard, starting pi, the demo sessions,
//!                      the terminal's graphics (asked once at start-up)
//! config.rs            the user's keymap, theme and pi command
//!   │
//! model/               data panes and workers share: a loaded session and
//!                      its tree rows, the sessions list, the preview document
//!                      and its pictures
//! input/               keys, keymap, the action table
//!   │
//! look/                theme, strings (every sentence; hints name the user's
//!                      keys), formats, safe text, layout
//! clock.rs             now (fixed in tests)
//! work/newest.rs       newest-wins slots: whoever asks holds one; it stamps
//!                      each request and takes only the newest answer
//!   │
//! watch.rs, catalog/, session/   below the browser; they know nothing of it
//! ```

pub mod clock;
pub mod config;
pub mod draw;
pub mod event;
pub mod harness;
pub mod input;
pub mod look;
pub mod model;
pub mod operations;
pub mod overlays;
pub mod panes;
pub mod runtime;
pub mod state;
mod tty;
pub mod update;
pub mod work;

use anyhow::{Result, bail};
use clock::Clock;
use config::Config;
use state::{App, Start};
use std::io::IsTerminal;
use std::path::PathBuf;
use work::demo;
use work::workers::{JobContext, Workers};

/// How the browser was asked to start.
#[derive(Debug, Clone, Default)]
pub struct TuiArgs {
    /// One session file instead of the sessions folder.
    pub file: Option<PathBuf>,
    /// The bundled demo sessions instead of the user's.
    pub demo: bool,
    pub session_dir: Option<String>,
    pub no_cache: bool,
    /// Enter prints the chosen session's path and exits (`--print`).
    pub print: bool,
    /// Notice changes by polling instead of the system's events (`--poll`).
    pub poll: bool,
}

/// Whether `NO_COLOR` asks for no colours (any non-empty value).
pub fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// Runs the browser until the user quits, then resumes the chosen session
/// in pi or prints its path (`--print`) when asked to.
pub fn run(args: TuiArgs) -> Result<()> {
    model::sessions::limit_heap_arenas();
    // Every way out of here removes the demo's copy; becoming pi does not.
    let _demo_copies = demo::RemoveCopiesOnExit::new();
    // With --print, stdout is usually captured (`$(piscope --print)`): the
    // screen goes to the terminal and only the chosen path to stdout.
    let tty = if args.print && !std::io::stdout().is_terminal() {
        Some(tty::StdoutToTerminal::redirect()?)
    } else {
        None
    };
    let exit = browse(args);
    drop(tty);
    match exit? {
        None => Ok(()),
        Some(state::Exit::Print(path)) => {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            out.write_all(path.as_os_str().as_encoded_bytes())?;
            out.write_all(b"\n")?;
            out.flush()?;
            Ok(())
        }
        Some(state::Exit::Resume(resume)) => {
            let by_hand = resume.by_hand();
            let e = resume.run();
            bail!(
                "could not start pi: {e}; to resume by hand: {}",
                crate::safe_text::sanitize(&by_hand)
            )
        }
    }
}

fn browse(args: TuiArgs) -> Result<Option<state::Exit>> {
    // The file first: a FIFO (which would hang the reader) or a missing
    // file is refused with its name, terminal or not.
    if let Some(file) = &args.file {
        if let Err(e) = crate::session::open_file(file) {
            bail!("{e}");
        }
    }
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        bail!(
            "the browser needs a terminal; for scripts use a command such as `piscope ls` (see piscope --help)"
        );
    }
    let config = Config::load(no_color());
    let home = std::env::var("HOME").ok().filter(|h| !h.is_empty());
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let (start, folder) = match (&args.file, args.demo) {
        (Some(f), _) => (Start::File(f.clone()), None),
        (None, true) => (Start::Catalog { demo: true }, None),
        (None, false) => {
            let mut problems = Vec::new();
            let surroundings = crate::catalog::Surroundings::of_process(args.session_dir.clone());
            (
                Start::Catalog { demo: false },
                Some(crate::catalog::locate(&surroundings, &mut problems)),
            )
        }
    };
    let (mut app, first) = App::new(
        start,
        config,
        Clock::system(),
        home.clone(),
        ratatui::layout::Rect::default(),
    );
    app.set_print_mode(args.print);
    app.set_here(cwd.clone());
    let context = JobContext::new(home, folder, !args.no_cache, cwd).polling(args.poll);
    runtime::run(app, first, move |tx| Workers::new(context, tx))
}
