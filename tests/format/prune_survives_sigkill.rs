//! Killed with SIGKILL at any moment of a prune (20 times, on a version 3
//! file and on a legacy one), the session is
//! always either the original or the complete pruned file, and the
//! original's bytes are never without a name: the file itself, the trash,
//! or piscope's hidden folder beside it.

use crate::support as common;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

const TRIALS: usize = 20;

fn piscope(data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_piscope"));
    c.env("XDG_DATA_HOME", data).env("HOME", data);
    c
}

fn ok(out: std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every copy of `bytes` kept somewhere under `dir` (recursively).
fn holds(dir: &Path, bytes: &[u8]) -> bool {
    std::fs::read_dir(dir).is_ok_and(|d| {
        d.flatten().any(|e| {
            let p = e.path();
            if p.is_dir() {
                holds(&p, bytes)
            } else {
                std::fs::read(&p).is_ok_and(|b| b == bytes)
            }
        })
    })
}

/// A version 3 copy of pi's large fixture with a long side branch, and the
/// side branch's first entry.
fn branched_base(tmp: &Path) -> (Vec<u8>, String) {
    let fixture = common::pi_mono("large-session.jsonl");
    let data = tmp.join("data");
    std::fs::create_dir(&data).expect("mkdir");
    // A version 3 file with a long side branch: migrated by a first write,
    // then pi is made to resume half-way, which leaves the second half as a
    // branch off the resume path.
    let base_file = tmp.join("base.jsonl");
    std::fs::write(&base_file, std::fs::read(&fixture).expect("fixture")).expect("copy");
    let tree: serde_json::Value = serde_json::from_str(&ok(piscope(&data)
        .arg("tree")
        .arg(&base_file)
        .arg("--json")
        .output()
        .expect("tree")))
    .expect("tree JSON");
    let nodes = tree.as_array().expect("list");
    let mid = nodes[nodes.len() / 2]["id"]
        .as_str()
        .expect("id")
        .to_string();
    let side = nodes[nodes.len() / 2 + 1]["id"]
        .as_str()
        .expect("id")
        .to_string();
    ok(piscope(&data)
        .args(["branch", "--yes"])
        .arg(&base_file)
        .arg(&mid)
        .output()
        .expect("branch"));
    (std::fs::read(&base_file).expect("read"), side)
}

/// Kills a prune of `side` in copies of `base` at moments spread over a
/// whole run.
fn kill_prunes(tmp: &Path, base: &[u8], side: &str, seed: u64) {
    let data = tmp.join("data");
    std::fs::create_dir_all(&data).expect("mkdir");
    let reference = tmp.join("reference.jsonl");
    std::fs::write(&reference, base).expect("copy");
    let started = Instant::now();
    ok(piscope(&data)
        .arg("prune")
        .arg(&reference)
        .args([side, "--yes"])
        .output()
        .expect("prune"));
    let full_run = started.elapsed();
    let complete = std::fs::read(&reference).expect("read");
    assert!(
        complete.len() < base.len() / 2 + base.len() / 4,
        "the side branch went"
    );

    let (mut kept, mut finished) = (0, 0);
    let mut window = common::KillWindow::new(full_run, 0.5, TRIALS, seed);
    while let Some(trial) = window.next_trial(kept, finished) {
        let dir = tmp.join(format!("t{trial}"));
        let trial_data = tmp.join(format!("d{trial}"));
        std::fs::create_dir(&dir).expect("mkdir");
        std::fs::create_dir(&trial_data).expect("mkdir");
        let file = dir.join("session.jsonl");
        std::fs::write(&file, base).expect("copy");
        let mut child = piscope(&trial_data)
            .arg("prune")
            .arg(&file)
            .args([side, "--yes"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        // Kills spread over the whole run, some after it (a run under load
        // takes longer than the one measured).
        std::thread::sleep(window.wait());
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read(&file).expect("read");
        if now == base {
            kept += 1;
        } else if now == complete {
            finished += 1;
            assert!(
                holds(&trial_data.join("Trash"), base) || holds(&dir, base),
                "trial {trial}: the original is neither in the trash nor beside the file"
            );
        } else {
            panic!(
                "trial {trial}: the file is neither the original nor the pruned version ({} bytes)",
                now.len()
            );
        }
        let sessions = std::fs::read_dir(&dir)
            .expect("dir")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".jsonl"))
            .count();
        assert_eq!(sessions, 1, "trial {trial}: no other session file");
    }
    eprintln!("{kept} kept the original, {finished} completed; a full run takes {full_run:?}");
    assert!(
        kept > 0 && finished > 0,
        "kills should land both before and after the rename"
    );
}

#[test]
fn sigkill_during_prune_leaves_original_or_complete_file() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (base, side) = branched_base(tmp.path());
    kill_prunes(tmp.path(), &base, &side, 0x5eed_5678);
}

/// A legacy file (version 2) is pruned without migrating it on disk first:
/// killed at any moment, it is the legacy original or the complete pruned
/// file, and the legacy bytes are never without a name.
#[test]
fn sigkill_during_a_legacy_prune_leaves_original_or_complete_file() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (base, side) = branched_base(tmp.path());
    let text = String::from_utf8(base).expect("UTF-8");
    let (header, rest) = text.split_once('\n').expect("a header line");
    assert!(header.contains("\"version\":3"), "{header}");
    let legacy = format!(
        "{}\n{rest}",
        header.replace("\"version\":3", "\"version\":2")
    );
    let trials = tmp.path().join("legacy");
    std::fs::create_dir(&trials).expect("mkdir");
    kill_prunes(&trials, legacy.as_bytes(), &side, 0x5eed_1234);
}
