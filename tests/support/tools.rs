//! The outside tools some tests need (tmux; node with pi's package; a
//! headless browser) and where the tests find them: node from `target/node`
//! when `scripts/test` installed one there, else from PATH when it is new
//! enough for pi. A test whose tool is missing fails with what is missing
//! and how to get it, unless the run opts out with
//! `PISCOPE_ALLOW_MISSING_TOOLS=1`; then it is reported as skipped, on the
//! run's output and in a count when its test binary ends.

#![allow(dead_code)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Set to `1` to let tests whose tool is missing pass as skipped.
pub const OPT_OUT: &str = "PISCOPE_ALLOW_MISSING_TOOLS";

/// The oldest node pi's package runs on (its `engines`).
pub const NODE_MIN: (u32, u32) = (22, 19);

/// A tool a test runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// The real terminal of the end-to-end tests.
    Tmux,
    /// node new enough for pi, and pi's package (or npm to install it).
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

    /// What is missing and how to get it; `None` when the tool is here
    /// (asked once per test binary).
    pub fn problem(self) -> Option<String> {
        static SEEN: Mutex<[Option<Option<String>>; 3]> = Mutex::new([None, None, None]);
        let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        seen[self as usize]
            .get_or_insert_with(|| self.look())
            .clone()
    }

    /// Whether the tool runs here.
    pub fn present(self) -> bool {
        self.problem().is_none()
    }

    fn look(self) -> Option<String> {
        match self {
            Tool::Tmux => (!runs(Path::new("tmux"), &["-V"])).then(|| {
                "tmux is missing: install it (Debian: apt-get install tmux), or run \
                 scripts/test as root, which does"
                    .to_string()
            }),
            Tool::Node => {
                if let Err(e) = node_program() {
                    return Some(e);
                }
                let installed = pi_dir()
                    .join("node_modules/@earendil-works/pi-coding-agent/package.json")
                    .is_file();
                (!installed && npm_command().is_none()).then(|| {
                    format!(
                        "pi's package is not in {} and npm, which installs it, is missing: \
                         run scripts/test, which installs node 22 with npm into target/node \
                         and pi's package",
                        pi_dir().display()
                    )
                })
            }
            Tool::Browser => {
                if !runs(Path::new(&chromium()), &["--version"]) {
                    return Some(format!(
                        "chromium ({}) is missing: run scripts/test as root, which installs \
                         Debian's chromium, or apt-get install chromium; CHROMIUM names \
                         another browser",
                        chromium()
                    ));
                }
                if let Err(e) = node_program() {
                    return Some(e);
                }
                let driver = playwright_dir().join("node_modules/playwright-core/package.json");
                (!driver.is_file()).then(|| {
                    format!(
                        "playwright-core is not in {}: run scripts/test, which installs it there",
                        playwright_dir().display()
                    )
                })
            }
        }
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where `scripts/test` installs node 22 and npm: their `.bin` folder.
pub fn local_node_bin() -> PathBuf {
    repo().join("target/node/node_modules/.bin")
}

/// Where pi's package is (`PI_REF_DIR`, else `target/pi-reference`).
pub fn pi_dir() -> PathBuf {
    let dir = std::env::var_os("PI_REF_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/pi-reference"));
    if dir.is_absolute() {
        dir
    } else {
        repo().join(dir)
    }
}

/// The node the tests run: `target/node`'s when there is one, else PATH's
/// when it is new enough for pi; else what is wrong and how to mend it.
pub fn node_program() -> Result<PathBuf, String> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    FOUND.get_or_init(find_node).clone()
}

fn find_node() -> Result<PathBuf, String> {
    let mend = "run scripts/test, which installs node 22 into target/node";
    let local = local_node_bin().join("node");
    if local.exists() {
        return match node_version(&local) {
            Some(v) if new_enough(&v) => Ok(local),
            Some(v) => Err(format!(
                "{} is node {v}, older than pi's {}.{}: remove target/node and {mend}",
                local.display(),
                NODE_MIN.0,
                NODE_MIN.1
            )),
            None => Err(format!(
                "{} does not run: remove target/node and {mend}",
                local.display()
            )),
        };
    }
    match node_version(Path::new("node")) {
        Some(v) if new_enough(&v) => Ok(PathBuf::from("node")),
        Some(v) => Err(format!(
            "node {v} is older than pi's {}.{}: {mend}",
            NODE_MIN.0, NODE_MIN.1
        )),
        None => Err(format!(
            "node is missing (pi's code needs {}.{} or newer): {mend}",
            NODE_MIN.0, NODE_MIN.1
        )),
    }
}

/// `node --version` without its `v`, when it runs.
fn node_version(program: &Path) -> Option<String> {
    let out = Command::new(program).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    out.status
        .success()
        .then(|| text.trim().trim_start_matches('v').to_string())
}

fn new_enough(version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    (major, minor) >= NODE_MIN
}

/// PATH with `target/node`'s programs first, so what a script starts
/// (npm, node) is the same node.
fn path_with_local_node() -> std::ffi::OsString {
    let mut dirs = vec![local_node_bin()];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).unwrap_or_default()
}

/// A command that runs `program` with `target/node` first on PATH.
pub fn with_local_node(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(program);
    cmd.env("PATH", path_with_local_node());
    cmd
}

/// `node` as the tests run it (see [`node_program`]); a test reaches here
/// after [`have`] said node is present, so a missing one fails with why.
pub fn node_command() -> Command {
    match node_program() {
        Ok(node) => with_local_node(node),
        Err(e) => panic!("{e}"),
    }
}

/// `npm` from `target/node`, else from PATH; `None` when neither runs.
pub fn npm_command() -> Option<Command> {
    let local = local_node_bin().join("npm");
    if local.exists() {
        return Some(with_local_node(local));
    }
    runs(Path::new("npm"), &["--version"]).then(|| with_local_node("npm"))
}

/// The browser the page test opens: `CHROMIUM`, else Debian's.
pub fn chromium() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_string())
}

/// Where `scripts/test` installs playwright-core.
pub fn playwright_dir() -> PathBuf {
    repo().join("target/browser")
}

fn runs(program: &Path, args: &[&str]) -> bool {
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
/// what is missing and how to get it; with the opt-out it is reported
/// skipped and false is returned, so the test returns at once.
pub fn have(tool: Tool) -> bool {
    let Some(problem) = tool.problem() else {
        return true;
    };
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    if !opted_out() {
        panic!("{test} cannot run: {problem}. To skip such tests instead, run with {OPT_OUT}=1.");
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
