//! piscope writes into a session while pi is appending to it: pi's own
//! SessionManager (in node) appends 1,000 messages while piscope appends 200
//! labels and branches. Afterwards every line is valid JSON, every entry is
//! there, and pi reads the file and sees every label.

use crate::support as common;

use piscope::session::{self, BranchOutcome, Session};
use std::collections::HashMap;
use std::time::{Duration, Instant};

const PI_ENTRIES: usize = 1000;
const OURS: usize = 200;

#[test]
fn a_running_pi_and_piscope_share_a_file() {
    if !common::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let appender = common::harness("pi-appender.mjs");
    let file = common::pi_create(tmp.path(), "/home/ada/app");
    let initial = std::fs::read_to_string(&file)
        .expect("read")
        .lines()
        .count();

    let mut pi = common::node(&appender)
        .args([
            "append",
            &file.to_string_lossy(),
            &PI_ENTRIES.to_string(),
            "3",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start pi's appender");

    let mut labels: HashMap<String, String> = HashMap::new();
    let mut appended = 0;
    let started = Instant::now();
    let mut n = 0;
    while appended < OURS {
        assert!(started.elapsed() < Duration::from_secs(120), "too slow");
        n += 1;
        let s = match Session::open(&file) {
            Ok(s) => s,
            Err(e) => panic!("reading while pi writes: {e}"),
        };
        let ids: Vec<String> = s
            .live_entries()
            .filter_map(|(_, e)| e.id_str().map(str::to_string))
            .collect();
        // Labels go to entries not labelled yet (pi's or our own), so each
        // one must still be there at the end.
        let start = n * 7919 % ids.len();
        let unlabelled = ids[start..]
            .iter()
            .chain(&ids[..start])
            .find(|id| !labels.contains_key(*id));
        let target = unlabelled.unwrap_or(&ids[start]).clone();
        let result = if n % 2 == 0 && !labels.contains_key(&target) {
            let text = format!("label {n}");
            session::append_label(&file, &target, Some(&text)).map(|_| {
                labels.insert(target.clone(), text);
                true
            })
        } else {
            let summary = (n % 3 == 0).then(|| format!("left branch {n}"));
            session::branch_to(&file, &target, summary.as_deref())
                .map(|o| matches!(o, BranchOutcome::Moved { .. }))
        };
        match result {
            Ok(true) => appended += 1,
            Ok(false) => {}
            // pi was half-way through a line: piscope refused to glue onto it.
            Err(session::SessionError::UnfinishedLastLine { .. }) => {}
            Err(e) => panic!("write {n}: {e}"),
        }
    }
    let status = pi.wait().expect("pi's appender");
    assert!(status.success());

    let text = std::fs::read_to_string(&file).expect("read");
    assert!(text.ends_with('\n'));
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("line {}: {e}: {line}", i + 1));
    }
    assert_eq!(lines.len(), initial + PI_ENTRIES + OURS);
    // The two writers really took turns.
    let ours = |l: &&str| !l.contains(r#""type":"message""#);
    let first_ours = lines.iter().skip(1).position(ours).expect("our lines");
    let last_pi = lines.iter().rposition(|l| !ours(l)).expect("pi's lines");
    assert!(first_ours < last_pi, "piscope's lines all came after pi's");

    let info = common::oracle(&["info", &file.to_string_lossy()]);
    assert_eq!(info["entryCount"], initial - 1 + PI_ENTRIES + OURS);
    for (target, text) in &labels {
        assert_eq!(
            info["labels"][target],
            serde_json::json!(text),
            "label on {target}"
        );
    }
    assert!(labels.len() >= OURS / 4, "{} labels", labels.len());
}
