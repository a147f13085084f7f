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
    piscope::tui::work::demo::write_demo_sessions(dir.path()).expect("demo sessions written");
    let folder = SessionsFolder {
        dir: dir.path().to_path_buf(),
        layout: Layout::PerProject,
        source: FolderSource::Default,
        cwd: PathBuf::from(cwd),
    };
    (dir, folder)
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

/// The web-shop session with forks, labels, a compaction and hostile text.
pub fn big_demo() -> PathBuf {
    demo_file("2026-01-11T17-03-56")
}

/// A committed file from the damaged-file corpus.
pub fn damaged(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/damaged")
        .join(name)
}

/// Temporary folders and the manifest folder blanked out of snapshots.
pub fn filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (r"/[^ ]*piscope-(test|demo)-[A-Za-z0-9_-]+", "[TMP]"),
        (r"[^ ]*/assets/demo/sessions/", "[DEMO]/"),
        // The repository's own files, wherever it is checked out (the
        // padding after a path depends on its length).
        (r"(?:/[^/ ┃│]+)+/(tests/damaged/[^┃│]*?) *┃", "[REPO]/$1┃"),
        // How long ago a file changed depends on how fast the test ran.
        (r"changed \d+ s ago", "changed [N] s ago"),
    ]
}

/// Takes a snapshot of the screen with the filters applied.
#[macro_export]
macro_rules! screen_snapshot {
    ($name:expr, $harness:expr) => {{
        let screen = $harness.screen();
        insta::with_settings!({filters => $crate::tui_common::filters()}, {
            insta::assert_snapshot!($name, screen);
        });
    }};
}

/// The screen's text.
pub fn screen(h: &mut Harness) -> String {
    h.screen()
}
