//! piscope's writers take turns: concurrent writes to one legacy file all
//! land (none is lost to another's migration), and an append that lands
//! inside a line another program is writing in two parts is reported as an
//! error naming the file and line, never as a silent success.

use crate::support as common;

use piscope::session::Session;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

fn piscope() -> Command {
    Command::new(env!("CARGO_BIN_EXE_piscope"))
}

fn legacy_copy(dir: &Path, name: &str) -> PathBuf {
    let src = common::pi_mono("large-session.jsonl");
    let dst = dir.join(name);
    std::fs::write(&dst, std::fs::read(&src).expect("fixture")).expect("copy");
    dst
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Four `piscope label` processes started together on one version 1 file,
/// twelve times over: every label is in the file afterwards, as piscope and
/// as pi's own code read it.
#[test]
fn concurrent_labels_on_a_legacy_file_all_land() {
    const ROUNDS: usize = 12;
    const WRITERS: usize = 4;
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut requests = Vec::new();
    let mut expected: Vec<(PathBuf, Vec<(String, String)>)> = Vec::new();
    for round in 0..ROUNDS {
        let file = legacy_copy(tmp.path(), &format!("round{round}.jsonl"));
        let before = Session::open(&file).expect("open");
        assert!(before.is_legacy(), "the fixture is a version 1 file");
        let targets: Vec<String> = (0..WRITERS)
            .map(|i| {
                let idx = before.branch()[i * 7 + 1];
                before.entry(idx).id.clone().expect("an id").to_string()
            })
            .collect();
        let children: Vec<_> = targets
            .iter()
            .enumerate()
            .map(|(i, target)| {
                piscope()
                    .args(["label", "--yes"])
                    .arg(&file)
                    .arg(target)
                    .arg(format!("writer {i}"))
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("spawn piscope")
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().expect("wait");
            assert!(out.status.success(), "round {round}: {}", stderr(&out));
        }
        let after = Session::open(&file).expect("reopen");
        assert!(!after.is_legacy(), "round {round}: the file was migrated");
        assert_eq!(
            after.entries.len(),
            before.entries.len() + WRITERS,
            "round {round}: every writer's line is in the file"
        );
        let mut labels = Vec::new();
        for (i, target) in targets.iter().enumerate() {
            let idx = after
                .find(target)
                .unwrap_or_else(|| panic!("round {round}: entry {target} keeps its id"));
            let label = after.label_of(idx).map(|l| l.label.to_string());
            assert_eq!(
                label.as_deref(),
                Some(format!("writer {i}").as_str()),
                "round {round}: writer {i}'s label on {target}"
            );
            labels.push((target.clone(), format!("writer {i}")));
        }
        requests.push(serde_json::json!(["info", file]).to_string());
        expected.push((file, labels));
    }

    // pi reads the same labels.
    let answers = common::oracle_batch_lines(&requests);
    assert_eq!(answers.len(), expected.len());
    for (info, (file, labels)) in answers.iter().zip(&expected) {
        for (target, label) in labels {
            assert_eq!(
                info["labels"][target].as_str(),
                Some(label.as_str()),
                "{}: pi sees {label:?} on {target}",
                file.display()
            );
        }
    }
}

/// Another program appends lines in two `write()` calls with a pause
/// between them while piscope labels the session again and again. Every
/// label piscope reports as done is a whole line at a line start; a label
/// that landed inside the other program's line is reported as an error
/// naming the file and the line; no line is glued without such a report.
#[test]
fn an_append_inside_a_line_being_written_is_reported_never_silent() {
    const TRIES: usize = 150;
    let tmp = tempfile::tempdir().expect("temp dir");
    let file = tmp.path().join("busy.jsonl");
    let src = common::repo().join("tests/data/golden/corpus/sessions");
    let any = std::fs::read_dir(&src)
        .expect("corpus")
        .flatten()
        .flat_map(|p| std::fs::read_dir(p.path()).expect("project").flatten())
        .map(|f| f.path())
        .max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .expect("a corpus session");
    std::fs::copy(&any, &file).expect("copy");
    let s = Session::open(&file).expect("open");
    let target = s.leaf_id().expect("a leaf").to_string();

    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        let file = file.clone();
        let target = target.clone();
        std::thread::spawn(move || {
            let mut n = 0u32;
            while !stop.load(Ordering::Relaxed) {
                let line = format!(
                    "{{\"type\":\"label\",\"id\":\"w{n:07x}\",\"parentId\":\"{target}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"targetId\":\"{target}\",\"label\":\"other writer {n}\"}}\n"
                );
                let (a, b) = line.split_at(40);
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&file)
                    .expect("open for append");
                f.write_all(a.as_bytes()).expect("first part");
                std::thread::sleep(Duration::from_micros(700));
                f.write_all(b.as_bytes()).expect("second part");
                drop(f);
                std::thread::sleep(Duration::from_micros(700));
                n += 1;
            }
        })
    };

    let mut done: Vec<String> = Vec::new();
    let mut glued_lines: Vec<usize> = Vec::new();
    let mut unfinished = 0;
    for i in 0..TRIES {
        let out = piscope()
            .args(["label", "--yes"])
            .arg(&file)
            .arg(&target)
            .arg(format!("try {i}"))
            .output()
            .expect("run piscope");
        let err = stderr(&out);
        if out.status.success() {
            done.push(format!("try {i}"));
        } else if err.contains("the last line has no line end") {
            unfinished += 1;
        } else {
            // FILE: line N: ... inside a line another program was writing ...
            let prefix = format!("{}: line ", file.display());
            let rest = err
                .split_once(&prefix)
                .map(|(_, rest)| rest)
                .unwrap_or_else(|| panic!("try {i}: an unexpected failure: {err}"));
            assert!(
                rest.contains("inside a line another program was writing"),
                "try {i}: {err}"
            );
            let line: usize = rest
                .split(':')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("try {i}: no line number in {err}"));
            glued_lines.push(line);
        }
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().expect("writer thread");

    let text = std::fs::read_to_string(&file).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    for label in &done {
        let whole = lines.iter().any(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .is_ok_and(|v| v["type"] == "label" && v["label"] == label.as_str())
        });
        assert!(
            whole,
            "piscope said {label:?} was written, but no whole line of the file holds it"
        );
    }
    // A reported line holds the first part of the other program's line,
    // then piscope's; the rest of the other program's line follows on a
    // line of its own, after as many of piscope's later lines as were
    // appended before it came (on a busy machine the other program's
    // pause can outlast several of piscope's runs). Every damaged line is
    // a reported one or such a rest, whose first part a reported one holds.
    let parses = |l: &str| serde_json::from_str::<serde_json::Value>(l).is_ok();
    let mut heads: Vec<&str> = Vec::new();
    for (n, l) in lines.iter().enumerate() {
        if parses(l) {
            continue;
        }
        if glued_lines.contains(&(n + 1)) {
            heads.push(l.get(..40).unwrap_or(l));
            continue;
        }
        let head = heads
            .iter()
            .position(|h| parses(&format!("{h}{l}")))
            .unwrap_or_else(|| {
                panic!(
                    "line {} is damaged and no error reported it (nor the start of its line): {l}",
                    n + 1
                )
            });
        heads.remove(head);
    }
    eprintln!(
        "{} done, {} reported as landing inside another line, {unfinished} refused while a line was unfinished",
        done.len(),
        glued_lines.len()
    );
    assert!(done.len() > TRIES / 2, "most tries find a moment to write");
}
