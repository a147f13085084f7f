//! A real terminal for end-to-end tests: one private tmux server per test,
//! a pane running piscope (or a shell line around it) in a private home.
//! Part of the tests' shared support (`crate::support::tmux`).

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_piscope");
pub const TIMEOUT: Duration = Duration::from_secs(20);
/// Printed by the shell after piscope exits.
pub const EXIT_MARK: &str = "PISCOPE-EXIT:";

/// True when tmux is here; without it the test fails, or is reported
/// skipped when the run allows it (see `support::tools`).
pub fn have_tmux() -> bool {
    crate::support::tools::have(crate::support::tools::Tool::Tmux)
}

/// Captures with `capture` until the screen satisfies `ok` and two
/// captures 300 ms apart are the same: on a busy machine a half-redrawn
/// screen can already pass `ok`, as tmux may take in one frame's bytes in
/// several reads. Gives up after `limit`, with the last screen.
pub fn steady(
    what: &str,
    limit: Duration,
    mut capture: impl FnMut() -> String,
    ok: impl Fn(&str) -> bool,
) -> String {
    let start = Instant::now();
    let mut last: Option<String> = None;
    loop {
        let s = capture();
        if ok(&s) {
            if last.as_deref() == Some(s.as_str()) {
                return s;
            }
            last = Some(s);
            std::thread::sleep(Duration::from_millis(300));
            continue;
        }
        last = None;
        assert!(
            start.elapsed() < limit,
            "timed out waiting for {what}; the screen was:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// One tmux server of its own, with one pane running a shell command.
pub struct Tmux {
    socket: String,
    _home: tempfile::TempDir,
}

impl Tmux {
    /// Starts `piscope ARGS` in a `width` × `height` pane with a private
    /// home, config and cache, then prints its exit status and how the
    /// terminal is set (`icanon` when raw mode was left).
    pub fn start(args: &[&str], env: &[(&str, &str)], size: (u16, u16)) -> Tmux {
        Tmux::start_in(tempfile::tempdir().expect("temp home"), args, env, size)
    }

    /// Like [`Tmux::start`], in a home prepared beforehand.
    pub fn start_in(
        home: tempfile::TempDir,
        args: &[&str],
        env: &[(&str, &str)],
        size: (u16, u16),
    ) -> Tmux {
        let argv: Vec<String> = args.iter().map(|a| quote(a)).collect();
        let command = format!("{} {}", quote(BIN), argv.join(" "));
        Tmux::start_command(home, &command, env, size)
    }

    /// Runs a shell command line (`$PISCOPE` names the binary) in the
    /// private home, then prints the exit status and terminal mode as
    /// [`Tmux::start`] does.
    pub fn start_command(
        home: tempfile::TempDir,
        command: &str,
        env: &[(&str, &str)],
        size: (u16, u16),
    ) -> Tmux {
        static N: AtomicUsize = AtomicUsize::new(0);
        let socket = format!(
            "piscope-e2e-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        );
        let h = home.path().display().to_string();
        let mut vars = vec![
            format!("HOME={}", quote(&h)),
            format!("XDG_CONFIG_HOME={}", quote(&format!("{h}/config"))),
            format!("XDG_CACHE_HOME={}", quote(&format!("{h}/cache"))),
            format!("XDG_DATA_HOME={}", quote(&format!("{h}/data"))),
            format!("PI_CODING_AGENT_DIR={}", quote(&format!("{h}/agent"))),
            format!("PISCOPE={}", quote(BIN)),
            "PISCOPE_CONFIG=".to_string(),
        ];
        vars.extend(env.iter().map(|(k, v)| format!("{k}={}", quote(v))));
        let script = format!(
            "cd {home}; export {vars}; {command}; echo {EXIT_MARK}$?; stty -a | tr ' ;' '\\n\\n' | grep -x -- '-\\?icanon'; sleep 600",
            home = quote(&h),
            vars = vars.join(" "),
        );
        let t = Tmux {
            socket,
            _home: home,
        };
        t.tmux(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            &size.0.to_string(),
            "-y",
            &size.1.to_string(),
            "sh",
            "-c",
            &script,
        ]);
        t
    }

    /// The private home the command runs in.
    pub fn home(&self) -> &Path {
        self._home.path()
    }

    pub fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p"])
    }

    /// The screen with its attributes, as SGR sequences.
    pub fn screen_with_attributes(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-e"])
    }

    pub fn title(&self) -> String {
        self.tmux(&["display-message", "-p", "#{pane_title}"])
    }

    /// Types text as it is (no key names; a leading `-` is typed too).
    pub fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-l", "--", text]);
    }

    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.tmux(&["send-keys", k]);
        }
    }

    /// Waits until the screen satisfies `ok`; fails with the last screen.
    pub fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            if start.elapsed() > TIMEOUT {
                panic!("timed out waiting for {what}; the screen was:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Like `wait_for`, and then until the screen holds still (`steady`).
    pub fn wait_for_steady(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        steady(what, TIMEOUT, || self.screen(), ok)
    }

    /// Presses `key` and checks that piscope exits with status 0 and the
    /// terminal back in its normal mode.
    pub fn quit_with(&self, key: &str) {
        self.keys(&[key]);
        assert_eq!(self.wait_for_exit(), format!("{EXIT_MARK}0"));
    }

    /// Waits for piscope to exit; returns its exit status line and checks
    /// that the terminal is back in its normal mode.
    pub fn wait_for_exit(&self) -> String {
        let s = self.wait_for("piscope to exit", |s| {
            s.lines().any(|l| l.starts_with(EXIT_MARK)) && s.lines().any(|l| l.ends_with("icanon"))
        });
        assert!(
            s.lines().any(|l| l == "icanon"),
            "raw mode was not left:\n{s}"
        );
        s.lines()
            .find(|l| l.starts_with(EXIT_MARK))
            .unwrap_or_default()
            .to_string()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
    }
}
