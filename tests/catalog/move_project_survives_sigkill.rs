//! Killed with SIGKILL at any moment of `move-project` (20 times), the
//! session at its old place is the original or gone to the trash, the one
//! at its new place is absent or complete, and never both are missing.

use crate::support as common;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

const TRIALS: usize = 20;
const OLD: &str = "/Users/badlogic/workspaces/pi-mono";
/// Where the project went (it need not exist for the sessions to follow).
const NEW: &str = "/srv/piscope-test/moved";

fn piscope(data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_piscope"));
    c.env("XDG_DATA_HOME", data).env("HOME", data);
    c
}

struct Layout {
    old: std::path::PathBuf,
    new: std::path::PathBuf,
    root: std::path::PathBuf,
}

fn layout(at: &Path, original: &[u8]) -> Layout {
    let root = at.join("sessions");
    let old_dir = root.join("--Users-badlogic-workspaces-pi-mono--");
    std::fs::create_dir_all(&old_dir).expect("mkdir");
    let old = old_dir.join("2025-11-20T23-33-50-805Z_d703a1a9.jsonl");
    std::fs::write(&old, original).expect("copy");
    let new = root
        .join("--srv-piscope-test-moved--")
        .join(old.file_name().expect("name"));
    Layout { old, new, root }
}

fn move_project(data: &Path, l: &Layout) -> Command {
    let mut c = piscope(data);
    c.arg("move-project")
        .arg(OLD)
        .arg(NEW)
        .arg("--yes")
        // pi's own layout: one folder per project under the agent folder.
        .env("PI_CODING_AGENT_DIR", l.root.parent().expect("agent dir"))
        .stdout(std::process::Stdio::null());
    c
}

#[test]
fn sigkill_during_move_project_leaves_original_or_complete_files() {
    let fixture = common::pi_mono("large-session.jsonl");
    let original = std::fs::read(&fixture).expect("fixture");
    let tmp = tempfile::tempdir().expect("temp dir");

    let at = tmp.path().join("reference");
    let data = tmp.path().join("reference-data");
    let l = layout(&at, &original);
    let started = Instant::now();
    let out = move_project(&data, &l)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("move");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let full_run = started.elapsed();
    assert!(!l.old.exists());
    let complete = std::fs::read(&l.new).expect("moved");
    let header: serde_json::Value =
        serde_json::from_slice(complete.split(|&b| b == b'\n').next().expect("line"))
            .expect("header");
    assert_eq!(header["cwd"], NEW);

    let (mut before, mut after) = (0, 0);
    let mut window = common::KillWindow::new(full_run, 0.125, TRIALS, 0x5eed_9abc);
    while let Some(trial) = window.next_trial(before, after) {
        let at = tmp.path().join(format!("t{trial}"));
        let data = tmp.path().join(format!("d{trial}"));
        let l = layout(&at, &original);
        let mut child = move_project(&data, &l).spawn().expect("spawn");
        std::thread::sleep(window.wait());
        let _ = child.kill();
        let _ = child.wait();
        let old = std::fs::read(&l.old).ok();
        let new = std::fs::read(&l.new).ok();
        assert!(
            old.as_deref().is_none_or(|b| b == original),
            "trial {trial}: the old file is not the original"
        );
        assert!(
            new.as_deref().is_none_or(|b| b == complete),
            "trial {trial}: the new file is not complete"
        );
        assert!(
            old.is_some() || new.is_some(),
            "trial {trial}: the session is gone"
        );
        if new.is_none() {
            before += 1;
        } else {
            after += 1;
        }
        // A second run finishes what the killed one began.
        let out = move_project(&data, &l)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("move");
        assert!(
            out.status.success(),
            "trial {trial}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!l.old.exists(), "trial {trial}");
        assert_eq!(
            std::fs::read(&l.new).expect("moved"),
            complete,
            "trial {trial}"
        );
    }
    eprintln!("{before} before the new file, {after} after; a full run takes {full_run:?}");
    assert!(
        before > 0 && after > 0,
        "kills should land before and after the new file"
    );
}
