//! Shared set-up for the TUI tests: the bundled demo sessions in a temporary
//! sessions folder, paths to committed session files, and snapshot filters.

#![allow(dead_code)]

use piscope::catalog::discover::FolderSource;
use piscope::catalog::{Layout, SessionsFolder};
use piscope::tui::harness::Harness;
use std::path::{Path, PathBuf};

/// The demo sessions copied into a fresh sessions folder (pi's layout),
/// with `cwd` as the folder piscope is started in.
pub fn demo_folder(cwd: &str) -> (tempfile::TempDir, SessionsFolder) {
    let dir = tempfile::Builder::new()
        .prefix("piscope-test-")
        .tempdir()
        .expect("temp dir");
    piscope::tui::work::demo::write_demo_sessions(dir.path(), piscope::tui::harness::DEMO_NOW_MS)
        .expect("demo sessions written");
    let folder = SessionsFolder {
        dir: dir.path().to_path_buf(),
        layout: Layout::PerProject,
        source: FolderSource::Default,
        cwd: PathBuf::from(cwd),
    };
    (dir, folder)
}

/// The session files of a demo copy made by [`demo_folder`], sorted.
pub fn demo_copies(folder: &SessionsFolder) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for project in std::fs::read_dir(&folder.dir).expect("demo copy") {
        for file in std::fs::read_dir(project.expect("entry").path()).expect("project folder") {
            files.push(file.expect("entry").path());
        }
    }
    files.sort();
    files
}

/// A committed demo session, by the start of its file name.
pub fn demo_file(prefix: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/sessions");
    for project in std::fs::read_dir(&root).expect("demo folder") {
        let project = project.expect("entry").path();
        for file in std::fs::read_dir(&project).expect("project folder") {
            let file = file.expect("entry").path();
            let name = file
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            if name.starts_with(prefix) {
                return file;
            }
        }
    }
    panic!("no demo session starting with {prefix}");
}

/// The cart-badge session (web-shop): two branches and a branch summary.
pub fn big_demo() -> PathBuf {
    demo_file("2026-01-15T16-20")
}

/// "VAT rounding at checkout" (web-shop): named, three labels, forked.
pub fn labelled_demo() -> PathBuf {
    demo_file("2026-01-08T14-05")
}

/// The fork of [`labelled_demo`]: its header names that file as parent.
pub fn fork_demo() -> PathBuf {
    demo_file("2026-01-09T08-47")
}

/// The bug hunt (compiler): reads, an edit, `cargo test` failing then passing.
pub fn bug_hunt_demo() -> PathBuf {
    demo_file("2026-01-24T10-31")
}

/// Constant folding (compiler): compacted halfway, then a model change.
pub fn compaction_demo() -> PathBuf {
    demo_file("2026-01-19T13-02")
}

/// The layout bug (web-shop): a screenshot in the first message.
pub fn image_demo() -> PathBuf {
    demo_file("2026-01-05T09-12")
}

/// The deploy log (dotfiles): terminal escapes, OSC 52, bidi controls in
/// messages, tool output, a label and the session name.
pub fn hostile_demo() -> PathBuf {
    demo_file("2026-01-11T11-03")
}

/// A committed file from the damaged-file corpus.
pub fn damaged(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/damaged")
        .join(name)
}

/// Temporary folders and the manifest folder blanked out of snapshots.
pub fn filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (r"/[^ ]*piscope-(test|demo)-[A-Za-z0-9_-]+", "[TMP]"),
        (r"[^ ]*/assets/demo/sessions/", "[DEMO]/"),
        // The repository's own files, wherever it is checked out (the
        // padding after a path depends on its length).
        (
            r"(?:/[^/ ┃│]+)+/(tests/data/damaged/[^┃│]*?) *┃",
            "[REPO]/$1┃",
        ),
        // The demo copy's name holds the process id: its length varies, and
        // with it the padding after the status message that names it.
        (
            r"(Watching the demo copies in \[TMP\] for changes) +",
            "$1 ",
        ),
        // How long ago a file changed depends on how fast the test ran.
        (r"changed \d+ s ago", "changed [N] s ago"),
    ]
}

/// Takes a snapshot of the screen with the filters applied.
#[macro_export]
macro_rules! screen_snapshot {
    ($name:expr, $harness:expr) => {{
        let screen = $harness.screen();
        insta::with_settings!({filters => $crate::support::tui::filters()}, {
            insta::assert_snapshot!($name, screen);
        });
    }};
}

/// The screen's text.
pub fn screen(h: &mut Harness) -> String {
    h.screen()
}
