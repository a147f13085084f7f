//! A legacy (version 1) file is migrated before piscope's first write to it.
//! Killed with SIGKILL at any moment of that, the file is always either the
//! original or the complete migrated version (with or without the new line).

use crate::support as common;

use std::process::Command;
use std::time::Instant;

const TRIALS: usize = 50;

fn piscope() -> Command {
    Command::new(env!("CARGO_BIN_EXE_piscope"))
}

#[test]
fn sigkill_during_migration_leaves_original_or_complete_file() {
    let fixture = common::pi_mono("large-session.jsonl");
    let original = std::fs::read(&fixture).expect("fixture");
    let tmp = tempfile::tempdir().expect("temp dir");

    // The finished result, and how long it takes.
    let reference = tmp.path().join("reference.jsonl");
    std::fs::write(&reference, &original).expect("copy");
    let tree = piscope()
        .args(["tree"])
        .arg(&reference)
        .arg("--json")
        .output()
        .expect("tree");
    let tree: serde_json::Value = serde_json::from_slice(&tree.stdout).expect("tree JSON");
    let target = tree[tree.as_array().expect("list").len() / 2]["id"]
        .as_str()
        .expect("an id")
        .to_string();
    let started = Instant::now();
    let done = piscope()
        .args(["label", "--yes"])
        .arg(&reference)
        .args([&target, "killed?"])
        .output()
        .expect("label");
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let full_run = started.elapsed();
    let complete = std::fs::read(&reference).expect("read");
    assert_ne!(complete, original, "the write migrated the file");
    let cut = complete[..complete.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .expect("lines")
        + 1;
    let migrated = &complete[..cut];
    assert!(is_label_after(&complete, migrated, &target));

    let (mut kept, mut finished) = (0, 0);
    let mut window = common::KillWindow::new(full_run, 0.0, TRIALS, 0x5eed_1234);
    while let Some(trial) = window.next_trial(kept, finished) {
        let dir = tmp.path().join(format!("t{trial}"));
        std::fs::create_dir(&dir).expect("mkdir");
        let file = dir.join("session.jsonl");
        std::fs::write(&file, &original).expect("copy");
        let mut child = piscope()
            .args(["label", "--yes"])
            .arg(&file)
            .args([&target, "killed?"])
            .spawn()
            .expect("spawn");
        std::thread::sleep(window.wait());
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read(&file).expect("read");
        if now == original {
            kept += 1;
        } else if now == migrated || is_label_after(&now, migrated, &target) {
            finished += 1;
        } else {
            panic!(
                "trial {trial}: the file is neither the original nor the migrated version ({} bytes)",
                now.len()
            );
        }
        // No session file other than the original name is left behind.
        let sessions = std::fs::read_dir(&dir)
            .expect("dir")
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".jsonl"))
            })
            .count();
        assert_eq!(sessions, 1, "trial {trial}");
    }
    eprintln!("{kept} kept the original, {finished} completed; a full run takes {full_run:?}");
    assert!(
        kept > 0 && finished > 0,
        "kills should land both before and after the rename"
    );
}

/// `file` is `migrated` plus one complete label line on `target` (its id
/// and time are new on every run).
fn is_label_after(file: &[u8], migrated: &[u8], target: &str) -> bool {
    let Some(rest) = file.strip_prefix(migrated) else {
        return false;
    };
    let Some(line) = rest.strip_suffix(b"\n") else {
        return false;
    };
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
        return false;
    };
    !line.contains(&b'\n')
        && v["type"] == "label"
        && v["targetId"] == target
        && v["label"] == "killed?"
}
