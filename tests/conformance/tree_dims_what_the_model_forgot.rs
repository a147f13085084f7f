//! What the tree draws as remembered at a selected entry is what pi sends:
//! on pi-written sessions with compactions and branches, the messages of
//! the entries piscope counts as seen, with that entry as the leaf, are
//! exactly the messages of pi's `buildSessionContext`; and a compaction's
//! count of replaced entries is what pi's context lost at it.

use crate::support as common;
use common::oracle_batch_lines as oracle_batch;

use piscope::session::line::entry::Kind;
use piscope::session::{ContextItem, LeafSelector, Memory, Session};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// pi-written sessions holding compactions: the golden corpus's, the demo's,
/// and pi's own legacy fixture, migrated by piscope (so both read the same ids).
fn sessions(tmp: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for project in std::fs::read_dir(common::corpus()).expect("corpus") {
        for f in std::fs::read_dir(project.expect("project").path()).expect("files") {
            let f = f.expect("file").path();
            if std::fs::read_to_string(&f)
                .expect("text")
                .contains("\"type\":\"compaction\"")
            {
                out.push(f);
            }
        }
    }
    out.sort();
    let demo = common::repo().join(
        "assets/demo/sessions/--home-ada-src-compiler--/2026-01-19T13-02-00-866Z_019bd659-14a2-70b4-8a8b-effb2f1cf33d.jsonl",
    );
    out.push(demo);
    let legacy = tmp.join("before-compaction.jsonl");
    // Its bytes, not its read-only mode.
    let bytes = std::fs::read(common::pi_mono("before-compaction.jsonl")).expect("fixture");
    std::fs::write(&legacy, bytes).expect("copy");
    // Any write migrates a legacy file first, ids and all.
    piscope::session::append_name(&legacy, "migrated").expect("migrate");
    out.push(legacy);
    out
}

/// Entries worth selecting: every compaction and its neighbours, entries
/// off the current branch, the last entry and some in between.
fn leaves(s: &Session) -> Vec<u32> {
    let n = s.entries.len() as u32;
    let branch: std::collections::HashSet<u32> = s.branch().into_iter().collect();
    let mut out = Vec::new();
    for i in 0..n {
        let e = s.entry(i);
        if e.id_str().is_none() || e.kind() == Kind::Header {
            continue;
        }
        let near_compaction = (i.saturating_sub(1)..=(i + 1).min(n - 1))
            .any(|k| s.entry(k).kind() == Kind::Compaction);
        if near_compaction || (!branch.contains(&i) && i % 3 == 0) || i % 97 == 0 || i == n - 1 {
            out.push(i);
        }
    }
    out
}

/// Messages in a fixed order, for comparing as multisets.
fn sorted(mut v: Vec<Value>) -> Vec<String> {
    let mut out: Vec<String> = v.drain(..).map(|m| m.to_string()).collect();
    out.sort();
    out
}

/// The messages of the entries `leaf`'s memory says the model sees, taken
/// in file order (not from the context's own list).
fn seen_messages(s: &Session, leaf: u32) -> (Vec<Value>, [usize; 3]) {
    let id = s.entry(leaf).id_str().expect("an id").to_string();
    let ctx = s.context(&LeafSelector::Id(id));
    let memory = s.remembered(&ctx);
    assert_eq!(memory, s.remembered_at(Some(leaf)));
    let mut file = s.open_file().expect("open");
    let mut out = Vec::new();
    let mut counts = [0; 3];
    for i in 0..s.entries.len() as u32 {
        let m = memory.memory(i);
        counts[m as usize] += 1;
        if m != Memory::Seen {
            continue;
        }
        let edit = ctx
            .items
            .iter()
            .find(|it| it.entry() == i)
            .and_then(|it| it.edit());
        let item = ContextItem::new(i, edit, true);
        for m in s.context_messages(item, &mut file).expect("messages") {
            out.push(serde_json::from_str(&m).expect("JSON"));
        }
    }
    (out, counts)
}

#[test]
fn the_entries_seen_at_a_selection_send_exactly_pi_s_context() {
    if !common::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let files = sessions(tmp.path());
    let mut asks = Vec::new();
    let mut cases = Vec::new();
    for f in &files {
        let s = Session::open(f).expect("a session");
        for leaf in leaves(&s) {
            let id = s.entry(leaf).id_str().expect("an id");
            asks.push(
                serde_json::json!(["context", f.to_string_lossy(), "--leaf", id]).to_string(),
            );
            cases.push((f.clone(), leaf));
        }
    }
    let answers = oracle_batch(&asks);
    let mut cut_seen = 0;
    let mut off_seen = 0;
    let mut sessions: std::collections::HashMap<PathBuf, Session> = Default::default();
    for ((f, leaf), pi) in cases.iter().zip(answers) {
        let s = sessions
            .entry(f.clone())
            .or_insert_with(|| Session::open(f).expect("a session"));
        let (ours, counts) = seen_messages(s, *leaf);
        let want = pi["messages"].as_array().expect("messages").clone();
        assert_eq!(
            sorted(ours),
            sorted(want),
            "{}: the model's memory at line {}",
            f.display(),
            s.entry(*leaf).line
        );
        cut_seen += counts[Memory::CompactedAway as usize];
        off_seen += counts[Memory::OffPath as usize];
    }
    // The sessions hold both kinds of forgetting: the test can tell a rule
    // that dims only other branches from pi's.
    assert!(cut_seen > 100, "compacted away: {cut_seen}");
    assert!(off_seen > 100, "off the path: {off_seen}");
}

#[test]
fn a_compaction_replaced_what_pi_s_context_lost_at_it() {
    if !common::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut asks = Vec::new();
    let mut cases = Vec::new();
    for f in sessions(tmp.path()) {
        let s = Session::open(&f).expect("a session");
        for i in 0..s.entries.len() as u32 {
            if s.entry(i).kind() != Kind::Compaction {
                continue;
            }
            let Some(parent) = s.tree.parent(i) else {
                continue;
            };
            for at in [parent, i] {
                let id = s.entry(at).id_str().expect("an id");
                asks.push(
                    serde_json::json!(["context", f.to_string_lossy(), "--leaf", id]).to_string(),
                );
            }
            cases.push((s.replaced_by(i), f.clone(), s.entry(i).line));
        }
    }
    assert!(cases.len() >= 7, "{} compactions", cases.len());
    let answers = oracle_batch(&asks);
    for ((replaced, f, line), pair) in cases.iter().zip(answers.chunks(2)) {
        let after = sorted(pair[1]["messages"].as_array().expect("messages").clone());
        let lost = pair[0]["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter(|m| after.binary_search(&m.to_string()).is_err())
            .count();
        assert!(lost > 0, "{}: line {line} replaced nothing", f.display());
        assert_eq!(
            *replaced,
            lost,
            "{}: the compaction at line {line}",
            f.display()
        );
    }
}
