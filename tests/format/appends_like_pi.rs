//! Writing: every edit is one complete line appended to the file, shaped as
//! pi writes it; legacy files are migrated atomically first; bad requests
//! change nothing.

use piscope::session::{self, BranchOutcome, LeafSelector, Refresh, Session, SessionError};
use serde_json::Value;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A pi-written session from the golden corpus, copied to a temp folder.
fn corpus_copy(dir: &Path) -> PathBuf {
    let mut best: Option<(u64, PathBuf)> = None;
    for project in fs::read_dir("tests/data/golden/corpus/sessions").unwrap() {
        for f in fs::read_dir(project.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            let len = fs::metadata(&p).unwrap().len();
            if best.as_ref().is_none_or(|(l, _)| len > *l) {
                best = Some((len, p));
            }
        }
    }
    let src = best.unwrap().1;
    let dst = dir.join(src.file_name().unwrap());
    fs::copy(&src, &dst).unwrap();
    dst
}

fn last_line(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn label_is_one_appended_line_after_the_old_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let file = corpus_copy(dir.path());
    let before = fs::read(&file).unwrap();
    let s = Session::open(&file).unwrap();
    let target = s.entry(s.branch()[0]).id.clone().unwrap();
    let old_leaf = s.leaf_id().unwrap().to_string();
    let id = session::append_label(&file, &target, Some("checkpoint")).unwrap();
    let after = fs::read(&file).unwrap();
    assert!(
        after.starts_with(&before),
        "the old bytes must stay as they were"
    );
    let added = &after[before.len()..];
    assert_eq!(added.iter().filter(|&&b| b == b'\n').count(), 1);
    assert!(added.ends_with(b"\n"));
    let e = last_line(&file);
    assert_eq!(
        keys(&e),
        ["type", "id", "parentId", "timestamp", "targetId", "label"]
    );
    assert_eq!(e["id"], id.as_str());
    assert_eq!(e["parentId"], old_leaf.as_str());
    assert_eq!(e["targetId"], target.as_str());
    assert!(id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(s.find(&id), None, "the new id was not used before");
    let again = Session::open(&file).unwrap();
    let idx = again.find(&target).unwrap();
    assert_eq!(again.label_of(idx).unwrap().label, "checkpoint");
    assert_eq!(again.leaf_id(), Some(id.as_str()));
}

#[test]
fn clearing_a_label_omits_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let file = corpus_copy(dir.path());
    let s = Session::open(&file).unwrap();
    let target = s.entry(s.branch()[1]).id.clone().unwrap();
    session::append_label(&file, &target, Some("x")).unwrap();
    session::append_label(&file, &target, None).unwrap();
    assert!(last_line(&file).get("label").is_none());
    let s = Session::open(&file).unwrap();
    assert!(s.label_of(s.find(&target).unwrap()).is_none());
}

#[test]
fn rename_collapses_newlines_and_trims() {
    let dir = tempfile::tempdir().unwrap();
    let file = corpus_copy(dir.path());
    session::append_name(&file, "  Refactor\r\n\nauth module  ").unwrap();
    assert_eq!(last_line(&file)["name"], "Refactor auth module");
    assert_eq!(
        Session::open(&file).unwrap().name().as_deref(),
        Some("Refactor auth module")
    );
    session::append_name(&file, "   ").unwrap();
    assert_eq!(Session::open(&file).unwrap().name(), None);
}

#[test]
fn branch_follows_pis_tree_rule() {
    let dir = tempfile::tempdir().unwrap();
    let file = corpus_copy(dir.path());
    let s = Session::open(&file).unwrap();
    let path = s.branch();
    // A user message: pi resumes at its parent, ready to edit and resend it.
    let user = *path
        .iter()
        .skip(1)
        .find(|&&i| {
            s.entry(i)
                .is_role(piscope::session::line::entry::Role::User)
        })
        .expect("a user message with a parent");
    let user_id = s.entry(user).id.clone().unwrap();
    let parent = s
        .tree
        .parent(user)
        .map(|p| s.entry(p).id.clone().unwrap().to_string());
    let old_leaf = s.leaf_id().unwrap().to_string();
    let outcome = session::branch_to(&file, &user_id, None).unwrap();
    let BranchOutcome::Moved { leaf, appended } = outcome else {
        panic!("did not move")
    };
    assert_eq!(leaf, parent);
    let e = last_line(&file);
    assert_eq!(
        keys(&e),
        ["type", "customType", "data", "id", "parentId", "timestamp"]
    );
    assert_eq!(e["customType"], "piscope.branch");
    assert_eq!(e["data"]["fromId"], old_leaf.as_str());
    assert_eq!(e["id"], appended.as_str());
    // pi resumes at the custom entry, whose context is the parent's.
    let s2 = Session::open(&file).unwrap();
    let mut at_leaf = Vec::new();
    s2.write_context_json(&s2.context(&LeafSelector::Last), &mut at_leaf)
        .unwrap();
    let mut at_parent = Vec::new();
    let sel = parent.clone().map_or(LeafSelector::Null, LeafSelector::Id);
    s2.write_context_json(&s2.context(&sel), &mut at_parent)
        .unwrap();
    assert_eq!(at_leaf, at_parent);

    // Anything else: the entry itself; with a summary, a branch_summary.
    let other = s.leaf().unwrap();
    let other_id = s.entry(other).id.clone().unwrap();
    let before_leaf = s2.leaf_id().unwrap().to_string();
    session::branch_to(&file, &other_id, Some("tried another way")).unwrap();
    let e = last_line(&file);
    assert_eq!(e["type"], "branch_summary");
    assert_eq!(e["parentId"], other_id.as_str());
    assert_eq!(e["fromId"], before_leaf.as_str());
    assert_eq!(e["summary"], "tried another way");
}

#[test]
fn branching_to_where_pi_already_resumes_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = corpus_copy(dir.path());
    let s = Session::open(&file).unwrap();
    let leaf = s.leaf_id().unwrap().to_string();
    let before = fs::read(&file).unwrap();
    let is_user = s
        .entry(s.leaf().unwrap())
        .is_role(piscope::session::line::entry::Role::User);
    if !is_user {
        assert_eq!(
            session::branch_to(&file, &leaf, None).unwrap(),
            BranchOutcome::AlreadyThere
        );
        assert_eq!(fs::read(&file).unwrap(), before);
    }
}

/// A label or a name as the leaf (entries the tree's default filter hides)
/// changes nothing pi resumes with: branching to the entry under them, or
/// to themselves, writes nothing.
#[test]
fn a_label_or_a_name_as_the_leaf_is_already_there() {
    let dir = tempfile::tempdir().unwrap();
    let file = corpus_copy(dir.path());
    let s = Session::open(&file).unwrap();
    let under = s.leaf().unwrap();
    assert!(
        !s.entry(under)
            .is_role(piscope::session::line::entry::Role::User),
        "the corpus ends on an answer"
    );
    let under_id = s.entry(under).id.clone().unwrap().to_string();
    session::append_label(&file, &under_id, Some("keep")).unwrap();
    session::append_name(&file, "a name").unwrap();
    let before = fs::read(&file).unwrap();
    let s = Session::open(&file).unwrap();
    let last = s.leaf_id().unwrap().to_string();
    for target in [&under_id, &last] {
        assert_eq!(
            session::branch_to(&file, target, None).unwrap(),
            BranchOutcome::AlreadyThere,
            "branching to {target}"
        );
        assert_eq!(fs::read(&file).unwrap(), before, "nothing written");
    }
}

#[test]
fn bad_requests_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = corpus_copy(dir.path());
    let before = fs::read(&file).unwrap();
    assert!(matches!(
        session::append_label(&file, "nope1234", Some("x")),
        Err(SessionError::NoSuchEntry { .. })
    ));
    assert!(matches!(
        session::branch_to(&file, "nope1234", None),
        Err(SessionError::NoSuchEntry { .. })
    ));
    assert_eq!(fs::read(&file).unwrap(), before);

    let not_session = dir.path().join("other.jsonl");
    fs::write(&not_session, "{\"type\":\"message\",\"id\":\"a\"}\n").unwrap();
    let err = session::append_name(&not_session, "x").unwrap_err();
    assert!(err.to_string().contains("not a pi session"), "{err}");
    assert_eq!(
        fs::read_to_string(&not_session).unwrap(),
        "{\"type\":\"message\",\"id\":\"a\"}\n"
    );
}

#[test]
fn a_half_written_last_line_is_never_glued_to() {
    let dir = tempfile::tempdir().unwrap();
    let file = corpus_copy(dir.path());
    let mut f = fs::OpenOptions::new().append(true).open(&file).unwrap();
    f.write_all(b"{\"type\":\"message\",\"id\":\"half").unwrap();
    drop(f);
    let before = fs::read(&file).unwrap();
    let s = Session::open(&file).unwrap();
    assert!(
        s.problems
            .iter()
            .any(|p| p.kind == piscope::session::ProblemKind::Unfinished)
    );
    assert_eq!(s.damaged_lines(), 0, "a line being written is not damage");
    let target = s.leaf_id().unwrap().to_string();
    let err = session::append_label(&file, &target, Some("x")).unwrap_err();
    assert!(
        matches!(err, SessionError::UnfinishedLastLine { .. }),
        "{err}"
    );
    assert_eq!(fs::read(&file).unwrap(), before);
}

#[test]
fn refresh_reads_only_what_was_appended() {
    let dir = tempfile::tempdir().unwrap();
    let file = corpus_copy(dir.path());
    let mut s = Session::open(&file).unwrap();
    let n = s.entries.len();
    let leaf = s.leaf_id().unwrap().to_string();
    // Half a line first: it waits for the rest.
    let line = format!(
        "{{\"type\":\"label\",\"id\":\"abcd0123\",\"parentId\":\"{leaf}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"targetId\":\"{leaf}\",\"label\":\"live\"}}\n"
    );
    let (a, b) = line.split_at(30);
    fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap()
        .write_all(a.as_bytes())
        .unwrap();
    assert_eq!(s.refresh().unwrap(), Refresh::Unchanged);
    assert_eq!(s.entries.len(), n);
    fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap()
        .write_all(b.as_bytes())
        .unwrap();
    assert_eq!(s.refresh().unwrap(), Refresh::Appended(1));
    assert_eq!(s.leaf_id(), Some("abcd0123"));
    assert_eq!(s.label_of(s.find(&leaf).unwrap()).unwrap().label, "live");
    assert!(
        s.problems
            .iter()
            .all(|p| p.kind != piscope::session::ProblemKind::Unfinished)
    );
    // A rewritten (shorter) file is read again in full.
    let text = fs::read_to_string(&file).unwrap();
    let shorter: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    fs::write(&file, shorter).unwrap();
    assert_eq!(s.refresh().unwrap(), Refresh::Reloaded);
    assert_eq!(s.entries.len(), 2);
}

#[test]
fn legacy_files_are_migrated_atomically_with_the_ids_shown() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new("tests/data/pi-mono/before-compaction.jsonl");
    let file = dir.path().join("legacy.jsonl");
    fs::copy(src, &file).unwrap();
    // A damaged line survives the rewrite verbatim.
    let mut text = fs::read_to_string(&file).unwrap();
    text.push_str("{not json at all\n");
    fs::write(&file, &text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    }
    let first = Session::open(&file).unwrap();
    let second = Session::open(&file).unwrap();
    assert!(first.is_legacy());
    let ids = |s: &Session| s.entries.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
    assert_eq!(
        ids(&first),
        ids(&second),
        "a legacy file reads with the same ids every time"
    );
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        text,
        "reading never writes"
    );

    let target = first.entry(first.branch()[2]).id.clone().unwrap();
    session::append_label(&file, &target, Some("kept")).unwrap();
    let migrated = Session::open(&file).unwrap();
    assert!(!migrated.is_legacy());
    assert_eq!(migrated.header.version, 3);
    let mut migrated_ids = ids(&migrated);
    migrated_ids.pop();
    assert_eq!(
        migrated_ids,
        ids(&first),
        "the write makes the shown ids permanent"
    );
    assert_eq!(
        migrated
            .label_of(migrated.find(&target).unwrap())
            .unwrap()
            .label,
        "kept"
    );
    let new_text = fs::read_to_string(&file).unwrap();
    assert!(
        new_text.contains("\n{not json at all\n"),
        "damaged lines are carried over"
    );
    assert_eq!(new_text.lines().count(), text.lines().count() + 1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }
    // Nothing else was left in the folder.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    // The compaction's firstKeptEntryIndex became an id.
    assert!(!new_text.contains("\"firstKeptEntryIndex\":"));
    assert_eq!(new_text.matches("\"firstKeptEntryId\":").count(), 2);
}
