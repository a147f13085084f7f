//! The outside tools some tests need (tmux, node with npm): a test whose
//! tool is missing fails with what to install, unless the run opts out with
//! `PISCOPE_ALLOW_MISSING_TOOLS=1`; then it is reported as skipped, on the
//! run's output and in a count when its test binary ends.

#![allow(dead_code)]

use std::io::Write as _;
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Set to `1` to let tests whose tool is missing pass as skipped.
pub const OPT_OUT: &str = "PISCOPE_ALLOW_MISSING_TOOLS";

/// A tool a test runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// The real terminal of the end-to-end tests.
    Tmux,
    /// node and npm, for pi's own code (the reference package).
    Node,
    /// A headless Chromium and playwright-core to drive it (node too), for
    /// the exported HTML page.
    Browser,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Tmux => "tmux",
            Tool::Node => "node",
            Tool::Browser => "chromium",
        }
    }

    fn is_missing(self) -> &'static str {
        match self {
            Tool::Tmux => "tmux is missing",
            Tool::Node => "node or npm is missing",
            Tool::Browser => "chromium, node or playwright-core (in target/browser) is missing",
        }
    }

    fn how_to_install(self) -> &'static str {
        match self {
            Tool::Tmux => "install tmux (Debian: apt-get install tmux)",
            Tool::Node => {
                "install node 22.19 or newer with npm (.ci/run downloads one into target/node: \
                 put target/node/node_modules/.bin first on PATH)"
            }
            Tool::Browser => {
                "install Debian's chromium (apt-get install chromium) and playwright-core \
                 (npm install --prefix target/browser playwright-core@1), as .ci/run does; \
                 CHROMIUM names another browser"
            }
        }
    }

    /// Whether the tool runs here (asked once per test binary).
    pub fn present(self) -> bool {
        static SEEN: Mutex<[Option<bool>; 3]> = Mutex::new([None, None, None]);
        let slot = self as usize;
        let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        *seen[slot].get_or_insert_with(|| match self {
            Tool::Tmux => runs("tmux", &["-V"]),
            Tool::Node => runs("node", &["--version"]) && runs("npm", &["--version"]),
            Tool::Browser => {
                runs(&chromium(), &["--version"])
                    && runs("node", &["--version"])
                    && playwright_dir()
                        .join("node_modules/playwright-core/package.json")
                        .is_file()
            }
        })
    }
}

/// The browser the page test opens: `CHROMIUM`, else Debian's.
pub fn chromium() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_string())
}

/// Where `.ci/run` installs playwright-core.
pub fn playwright_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/browser")
}

fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether the run allows tests to skip for a missing tool.
pub fn opted_out() -> bool {
    std::env::var_os(OPT_OUT).is_some_and(|v| v == "1")
}

/// True when `tool` is here. When it is not, the calling test fails with
/// what is missing and how to install it; with the opt-out it is reported
/// skipped and false is returned, so the test returns at once.
pub fn have(tool: Tool) -> bool {
    if tool.present() {
        return true;
    }
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    if !opted_out() {
        panic!(
            "{}, so {test} cannot run: {}. To skip such tests instead, run with {OPT_OUT}=1.",
            tool.is_missing(),
            tool.how_to_install()
        );
    }
    skipped(tool, &test);
    false
}

/// How many tests of this binary were skipped.
static SKIPPED: AtomicUsize = AtomicUsize::new(0);

fn skipped(tool: Tool, test: &str) {
    if SKIPPED.fetch_add(1, Ordering::SeqCst) == 0 {
        count_at_exit();
    }
    // Straight to the process's stderr: the test harness captures only the
    // print macros, and a skip must show even when the test passes.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED ({} missing): {test}",
        tool.name()
    );
}

/// After the harness's summary, says how many tests it counted as passed
/// were skipped.
fn count_at_exit() {
    extern "C" fn report() {
        let n = SKIPPED.load(Ordering::SeqCst);
        let binary = std::env::args()
            .next()
            .and_then(|a| {
                std::path::Path::new(&a)
                    .file_name()
                    .map(|f| f.to_string_lossy().to_string())
            })
            .unwrap_or_default();
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {n} test(s) of {binary} did not run, a tool was missing ({OPT_OUT}=1)"
        );
    }
    // SAFETY: `report` is a plain function that only reads an atomic and
    // writes to stderr; registering it has no other effect.
    #[cfg(unix)]
    unsafe {
        libc::atexit(report);
    }
}
