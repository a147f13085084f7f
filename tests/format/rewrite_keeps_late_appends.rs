//! A rewrite never loses a line pi appends while it runs: a writer thread
//! appends whole lines by path (as pi does, each on its own open) in a
//! tight loop while a prune runs on the same file, its start moved a little
//! each round; every line it wrote is in the file afterwards, exactly once,
//! whether the prune went through, was refused, or had lines land between
//! its last check and its rename.

use piscope::session::write::prune;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

fn message(id: &str, parent: Option<&str>, role: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{parent},\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{{\"role\":\"{role}\",\"content\":\"{id}\",\"timestamp\":1767225600000}}}}\n"
    )
}

/// A main branch (u1 a1 u3 a3) and a side branch (u2 a2) off u1.
fn session() -> String {
    let mut s = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n".to_string();
    for (id, parent, role) in [
        ("u1", None, "user"),
        ("a1", Some("u1"), "assistant"),
        ("u2", Some("u1"), "user"),
        ("a2", Some("u2"), "assistant"),
        ("u3", Some("a1"), "user"),
        ("a3", Some("u3"), "assistant"),
    ] {
        s.push_str(&message(id, parent, role));
    }
    s
}

/// After `delay` (spun, for precision), appends `n` lines chained from a3
/// in a tight loop, each by its own open of the path; returns the lines.
fn writer(path: &Path, round: usize, delay: Duration, n: usize) -> Vec<String> {
    let until = Instant::now() + delay;
    while Instant::now() < until {
        std::hint::spin_loop();
    }
    let mut lines = Vec::new();
    let mut parent = "a3".to_string();
    for i in 0..n {
        let id = format!("w{round}-{i}");
        let line = message(&id, Some(&parent), "user");
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .expect("open");
        f.write_all(line.as_bytes()).expect("append");
        lines.push(line);
        parent = id;
    }
    lines
}

/// Starts [`writer`] on its own thread, its burst `delay` after both
/// sides are ready; joined, it gives the lines it wrote.
fn start_writer(
    path: &Path,
    round: usize,
    delay: Duration,
) -> std::thread::JoinHandle<Vec<String>> {
    let go = Arc::new(Barrier::new(2));
    let w = {
        let (path, go) = (path.to_path_buf(), go.clone());
        std::thread::spawn(move || {
            go.wait();
            writer(&path, round, delay, 8)
        })
    };
    go.wait();
    w
}

/// Every line the writer wrote is in `text` exactly once.
fn each_once(text: &str, lines: &[String], round: usize) {
    for line in lines {
        assert_eq!(
            text.matches(line.as_str()).count(),
            1,
            "round {round}: a line pi appended is lost or doubled: {line}"
        );
    }
}

#[test]
fn no_line_appended_during_a_rewrite_is_lost() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (mut pruned, mut refused) = (0, 0);
    // The writer's burst starts a little later each round, so that over
    // the rounds it lands at every moment of a prune, the last check and
    // the rename among them.
    let rounds = 1000;
    for round in 0..rounds {
        let path = tmp.path().join(format!("r{round}.jsonl"));
        std::fs::write(&path, session()).expect("write");
        let w = start_writer(
            &path,
            round,
            Duration::from_micros((round as u64 * 3) % 4000),
        );
        let mut went = false;
        for _ in 0..1000 {
            let Ok(plan) = prune::plan_prune(&path, "u2") else {
                continue;
            };
            match prune::prune(&plan, &mut |o| {
                // The second name is taken away, as the trash would.
                std::fs::remove_file(o.link).map_err(|e| e.to_string())
            }) {
                Ok(_) => {
                    went = true;
                    break;
                }
                Err(_) => refused += 1,
            }
        }
        let lines = w.join().expect("writer");
        if went {
            pruned += 1;
        }
        let text = std::fs::read_to_string(&path).expect("read");
        each_once(&text, &lines, round);
        if went {
            assert!(!text.contains("\"id\":\"u2\""), "the branch went");
        }
        let _ = std::fs::remove_file(&path);
    }
    assert!(
        pruned > rounds / 2,
        "{pruned} of {rounds} prunes went through"
    );
    eprintln!("{rounds} rounds: {pruned} prunes went through, {refused} refused");
}

/// Undoing a prune puts the original back over the pruned file, a rewrite
/// too: a writer appending to the pruned file in a tight loop while the
/// restore runs loses no line either, restored or refused.
#[test]
fn no_line_appended_during_a_restore_is_lost() {
    use piscope::catalog::housekeeping::journal::{self, InTrash, Left, Reason};
    let tmp = tempfile::tempdir().expect("temp dir");
    let trash = tmp.path().join("trash");
    std::fs::create_dir(&trash).expect("trash");
    let (mut restored, mut refused) = (0, 0);
    let rounds = 300;
    for round in 0..rounds {
        let path = tmp.path().join(format!("r{round}.jsonl"));
        std::fs::write(&path, session()).expect("write");
        let mut record = journal::describe(&path, Reason::Prune, None).expect("describe");
        let kept = trash.join(format!("r{round}.jsonl"));
        let plan = prune::plan_prune(&path, "u2").expect("plan");
        prune::prune(&plan, &mut |o| {
            std::fs::rename(o.link, &kept).map_err(|e| e.to_string())
        })
        .expect("prune");
        let left = std::fs::read(&path).expect("pruned");
        record.left = Some(Left {
            size: left.len() as u64,
            xxh3: format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&left)),
        });
        let info = trash.join(format!("r{round}.jsonl.trashinfo"));
        std::fs::write(&info, "[Trash Info]\n").expect("info");
        let item = InTrash {
            record,
            file: kept.clone(),
            info,
        };
        let w = start_writer(
            &path,
            round,
            Duration::from_micros((round as u64 * 7) % 3000),
        );
        let went = journal::restore(&item).is_ok();
        let lines = w.join().expect("writer");
        let text = std::fs::read_to_string(&path).expect("read");
        each_once(&text, &lines, round);
        if went {
            restored += 1;
            assert!(text.contains("\"id\":\"u2\""), "the branch is back");
            assert!(!kept.exists(), "the trashed original was used up");
        } else {
            refused += 1;
            assert!(kept.exists(), "a refused restore leaves the trash alone");
        }
    }
    assert!(restored > 0, "no restore went through");
    eprintln!("{rounds} rounds: {restored} restores went through, {refused} refused");
}
