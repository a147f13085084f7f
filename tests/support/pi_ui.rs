//! pi's own interactive mode in a real terminal: `tests/pi/pi-ui.sh`
//! starts pi's session picker (`pi --resume`) or its chat on one session
//! (`pi --session FILE`) in a tmux server of its own,
//! on the node the tests run (22.19 or newer, as pi's command line wants),
//! so that piscope's screens can be put beside pi's.

use crate::support as common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// pi's interactive mode in a tmux server of its own.
pub struct PiUi {
    tmpdir: tempfile::TempDir,
}

impl PiUi {
    /// Starts pi's session picker on the sessions under `agent`.
    pub fn start(agent: &Path) -> PiUi {
        let work = common::repo().join("target/pi-ui");
        PiUi::run(&[agent.as_os_str(), "pi".as_ref(), work.as_os_str()], &[])
    }

    /// Starts pi's interactive chat on the session `file` (pi's home in
    /// `work`), `width` columns wide.
    pub fn chat(file: &Path, work: &Path, width: u16) -> PiUi {
        let size = format!("{width}x50");
        PiUi::run(
            &[
                "--session".as_ref(),
                file.as_os_str(),
                "pi".as_ref(),
                work.as_os_str(),
            ],
            &[("PI_UI_SIZE", &size)],
        )
    }

    /// `tests/pi/pi-ui.sh ARGS` with `env`, in a tmux server of its own.
    fn run(args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> PiUi {
        let tmpdir = tempfile::tempdir().expect("temp dir");
        let script = common::harness("pi-ui.sh");
        let node = common::tools::node_program().unwrap_or_else(|e| panic!("{e}"));
        let out = Command::new("bash")
            .arg(&script)
            .args(args)
            .env("TMUX_TMPDIR", tmpdir.path())
            .env("PI_NODE", node)
            .env("PI_REF_DIR", common::pi_reference())
            .envs(env.iter().copied())
            .output()
            .expect("run pi-ui.sh");
        assert!(
            out.status.success(),
            "pi-ui.sh failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        PiUi { tmpdir }
    }

    pub fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(args)
            .env("TMUX_TMPDIR", self.tmpdir.path())
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.tmux(&["send-keys", "-t", "pi", k]);
        }
    }

    pub fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.tmux(&["capture-pane", "-p", "-t", "pi"]);
            if ok(&s) {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "timed out waiting for {what} in pi; the screen was:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Like `wait_for`, and then until the screen holds still: pi redraws
    /// in pieces on a busy machine.
    pub fn wait_for_steady(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        crate::support::tmux::steady(
            &format!("{what} in pi"),
            Duration::from_secs(60),
            || self.tmux(&["capture-pane", "-p", "-t", "pi"]),
            ok,
        )
    }
}

impl Drop for PiUi {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
    }
}
