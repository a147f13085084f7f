//! Pruning a branch: the entry a user picks and every entry below it leave
//! the file; everything else stays byte for byte, in order.
//!
//! What pi reads of a session outside one path is little: its name is the
//! latest `session_info` in file order, and each entry's label is the latest
//! `label` entry naming it, wherever those lines sit in the tree. Both are
//! often written while pi was on another branch, so they can live on the
//! branch being pruned. Those lines are carried over: kept where they are in
//! the file, re-hung from the pruned branch's parent (only their `parentId`
//! changes). Everything else pi reads (model, thinking level, compactions,
//! context edits) it reads along one path, root to leaf; no path to an entry
//! outside the branch passes through it, so nothing else is needed. pi's
//! resume point is the last entry in file order: a branch that holds it is
//! refused, as is a file whose ids are not unique (a prune could not say
//! which entry it meant). A legacy file (version 1 or 2) is not migrated on
//! disk first: its bytes as they are go to the trash, and the pruned file
//! is what pi's migration makes of it, without the branch.

use crate::session::error::ProblemKind;
use crate::session::line::entry::{Info, Kind, Parent};
use crate::session::line::raw_json::RawObject;
use crate::session::tree::{Bits, LabelTargets};
use crate::session::write::branch_archive::{ArchivedLine, Archiver};
use crate::session::{Detail, Session, SessionError};
use rustc_hash::FxHashSet as HashSet;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// What pruning a branch takes away, as checked when planned.
#[derive(Debug, Clone, PartialEq)]
pub struct PrunePlan {
    pub path: PathBuf,
    /// The entry the branch starts at.
    pub entry: String,
    /// The pruned entries' ids, in file order: how many, and a digest the
    /// prune checks again under the lock (ten million ids are not kept).
    pub removed: RemovedIds,
    /// Entries on the branch that are kept (the name, labels of kept
    /// entries), re-hung from the branch's parent.
    pub carried: Vec<String>,
    /// Message entries among the removed ones.
    pub messages: u64,
    /// Tokens and cost of the removed entries (assistant usage, usage
    /// entries, summaries).
    pub tokens: f64,
    pub cost: f64,
    /// The branch's parent id (`None`: it was a root).
    pub parent: Option<String>,
}

/// The ids a prune takes (see [`PrunePlan::removed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemovedIds {
    count: usize,
    digest: u64,
}

impl RemovedIds {
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// What a prune did.
#[derive(Debug, Clone)]
pub struct Pruned {
    pub plan: PrunePlan,
    /// Size and xxh3 of the original and of the new file.
    pub old_size: u64,
    pub old_hash: u64,
    pub new_size: u64,
    pub new_hash: u64,
}

fn refused(path: &Path, reason: impl Into<String>) -> SessionError {
    SessionError::Refused {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// Works out what pruning the branch at `entry` would do, refusing what it
/// must (the branch holds pi's resume point, ids are not unique).
pub fn plan_prune(path: &Path, entry: &str) -> Result<PrunePlan, SessionError> {
    // The outline has the tree; the usage is read in a scan of its own.
    // The entry and the labels' targets are found by scans: no table of
    // ids is kept.
    let mut session = Session::open_once(path, Detail::Outline)?;
    // (The labels' targets are found by their entries: see `carried_entries`.)
    session.tree.forget_labels();
    plan_of(&session, entry)
}

/// The plan for an open session.
pub fn plan_of(session: &Session, entry: &str) -> Result<PrunePlan, SessionError> {
    branch_of(session, entry, Usage::Sum).map(|(plan, _)| plan)
}

/// What a plan names, by entry: the entries that go (`removed`, by index)
/// and those carried over (re-hung), in file order.
struct Marks {
    /// The entry the branch starts at.
    start: u32,
    removed: Bits,
    carried: Vec<u32>,
}

/// Whether a plan sums the usage of what goes (the tokens and cost it
/// shows), which reads the file again at full depth.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Usage {
    Sum,
    Skip,
}

/// The plan for an open session, with the entries it names.
fn branch_of(
    session: &Session,
    entry: &str,
    usage: Usage,
) -> Result<(PrunePlan, Marks), SessionError> {
    let path = &session.path;
    let start = session
        .find(entry)
        .ok_or_else(|| SessionError::NoSuchEntry {
            path: path.clone(),
            id: entry.to_string(),
        })?;
    // Every entry has an id, each its own: the first line that says
    // otherwise (the tree found the ids used again).
    let without_id = session.live_entries().find(|(_, e)| e.id.is_none());
    let again = session.problems.iter().find_map(|p| match &p.kind {
        ProblemKind::DuplicateId { id, .. } => Some((p.line, id)),
        _ => None,
    });
    match (without_id, again) {
        (Some((_, e)), again) if again.is_none_or(|(line, _)| e.line < line) => {
            return Err(refused(
                path,
                format!(
                    "line {}: an entry without an id; piscope prunes only files whose entries all have one",
                    e.line
                ),
            ));
        }
        (_, Some((line, id))) => {
            return Err(refused(
                path,
                format!(
                    "line {line}: the id {id} is used twice, so a prune could not tell which entry it meant"
                ),
            ));
        }
        _ => {}
    }
    // The branch: the entry and everything below it.
    let mut inside = Bits::new(session.entries.len());
    let mut stack = vec![start];
    while let Some(n) = stack.pop() {
        if !inside.insert(n) {
            continue;
        }
        stack.extend_from_slice(session.tree.children(n));
    }
    if let Some(leaf) = session.tree.last() {
        if inside.get(leaf) {
            let leaf_id = session.entry(leaf).id_str().unwrap_or("?");
            let parent = session.entry(start).parent_id().unwrap_or("another entry");
            return Err(refused(
                path,
                format!(
                    "pi resumes inside this branch (at {leaf_id}); branch away first (`piscope branch \
                     FILE {parent}`, Enter on another entry in the browser, or /tree in pi), then prune"
                ),
            ));
        }
    }
    let carried_set = carried_entries(session, &inside);
    let mut plan = PrunePlan {
        path: path.clone(),
        entry: entry.to_string(),
        removed: RemovedIds {
            count: 0,
            digest: 0,
        },
        carried: Vec::new(),
        messages: 0,
        tokens: 0.0,
        cost: 0.0,
        parent: session.entry(start).parent_id().map(str::to_string),
    };
    let mut carried = Vec::new();
    let mut digest = xxhash_rust::xxh3::Xxh3::new();
    for (i, e) in session.live_entries() {
        if !inside.get(i) {
            continue;
        }
        let id = e.id_str().unwrap_or_default();
        if carried_set.contains(&i) {
            plan.carried.push(id.to_string());
            carried.push(i);
            // Left inside only what goes.
            inside.clear(i);
            continue;
        }
        digest.update(&(id.len() as u64).to_le_bytes());
        digest.update(id.as_bytes());
        plan.removed.count += 1;
        if e.kind() == Kind::Message {
            plan.messages += 1;
        }
    }
    plan.removed.digest = digest.digest();
    if usage == Usage::Sum {
        (plan.tokens, plan.cost) = usage_of(session, &inside)?;
    }
    if plan.removed.is_empty() {
        return Err(refused(
            path,
            "nothing to prune: every entry on this branch is a name or a label that pi reads for \
             the rest of the session",
        ));
    }
    let marks = Marks {
        start,
        removed: inside,
        carried,
    };
    Ok((plan, marks))
}

/// Tokens and cost of the entries marked in `removed` (by entry index),
/// summed in file order. Usage is read at full depth only: a session read
/// at another depth is read again in a scan that keeps no entry, each
/// entry matched to the session's by where its line starts.
fn usage_of(session: &Session, removed: &Bits) -> Result<(f64, f64), SessionError> {
    let (mut tokens, mut cost) = (0.0, 0.0);
    let mut add = |i: usize, e: &crate::session::line::entry::Entry| {
        if removed.get(i as u32) {
            if let Some(u) = e.usage() {
                tokens += u.tokens;
                cost += u.cost;
            }
        }
    };
    if session.detail == Detail::Full {
        for (i, e) in session.live_entries() {
            add(i as usize, e);
        }
    } else {
        let mut i = 0;
        crate::session::read::index_pass::scan_entries(&session.path, Detail::Full, |e, _| {
            let same = session
                .entries
                .get(i)
                .is_some_and(|s| s.span().offset == e.span().offset && s.kind() != Kind::Header);
            if same {
                add(i, &e);
            }
            i += 1;
        })?;
    }
    Ok((tokens, cost))
}

/// The entries on the branch that pi reads from elsewhere: the latest
/// `session_info` in the file, and for each kept entry the latest `label`
/// naming it (a carried entry is kept too, so its labels count).
fn carried_entries(session: &Session, inside: &Bits) -> HashSet<u32> {
    let mut carried: HashSet<u32> = HashSet::default();
    if let Some((i, _)) = session
        .live_entries()
        .rev()
        .find(|(_, e)| matches!(e.info, Info::SessionInfo { .. }))
    {
        if inside.get(i) {
            carried.insert(i);
        }
    }
    // The latest label entry per target, by the target's entry (ids are
    // unique here: one entry a target's text), found without a table of
    // every id.
    let targets = LabelTargets::of(&session.entries);
    loop {
        let before = carried.len();
        for (label, t) in targets.latest() {
            let kept = !inside.get(t) || carried.contains(&t);
            if kept && inside.get(label) {
                carried.insert(label);
            }
        }
        if carried.len() == before {
            return carried;
        }
    }
}

/// Prunes the branch `plan` describes, if the file still gives the same
/// plan under piscope's write lock (else nothing changes and the error says
/// so). `keep_original` gets a second name of the original file, before
/// anything changes, to put in the trash.
pub fn prune(
    plan: &PrunePlan,
    keep_original: &mut dyn FnMut(
        crate::session::write::rewrite::Original<'_>,
    ) -> Result<(), String>,
) -> Result<Pruned, SessionError> {
    prune_with(&plan.path, Ask::Same(plan), None, keep_original)
}

/// Prunes the branch at `entry` at once, for a prune agreed to ahead
/// (`--yes`): the plan is made under piscope's write lock, from the one
/// read of the file the new one is then written from, and handed to
/// `shown` before anything changes (an error there changes nothing).
/// One read of the file where [`plan_prune`] then [`prune`] make two.
pub fn prune_now(
    path: &Path,
    entry: &str,
    shown: &mut dyn FnMut(&PrunePlan) -> Result<(), String>,
    keep_original: &mut dyn FnMut(
        crate::session::write::rewrite::Original<'_>,
    ) -> Result<(), String>,
) -> Result<Pruned, SessionError> {
    prune_with(path, Ask::Now(entry, shown), None, keep_original)
}

/// What a prune acts on: a plan confirmed before, the file checked to
/// give the same one under the lock; or an entry, its plan made then.
enum Ask<'a> {
    Same(&'a PrunePlan),
    Now(&'a str, &'a mut dyn FnMut(&PrunePlan) -> Result<(), String>),
}

/// Keeps the lines a prune takes away (see [`prune_keeping`]).
pub type KeepBranch<'a> = dyn FnMut(&[ArchivedLine]) -> Result<(), String> + 'a;

/// [`prune`], handing `keep_branch` the lines that go (and the re-hung
/// ones as they were), each with its place, before anything changes: an
/// archive writes them away first. If it fails, nothing changes. The file
/// is read and the new one written a line at a time: a prune of ten
/// million entries holds their tree, not their text.
pub fn prune_keeping(
    plan: &PrunePlan,
    keep_branch: &mut KeepBranch<'_>,
    keep_original: &mut dyn FnMut(
        crate::session::write::rewrite::Original<'_>,
    ) -> Result<(), String>,
) -> Result<Pruned, SessionError> {
    prune_with(
        &plan.path,
        Ask::Same(plan),
        Some(keep_branch),
        keep_original,
    )
}

fn prune_with(
    path: &Path,
    ask: Ask<'_>,
    mut keep_branch: Option<&mut KeepBranch<'_>>,
    keep_original: &mut dyn FnMut(
        crate::session::write::rewrite::Original<'_>,
    ) -> Result<(), String>,
) -> Result<Pruned, SessionError> {
    let io = |e| SessionError::io(path, e);
    let mut lock = crate::session::write::append::lock_for_append(path)?;
    // Lines are copied or re-hung as they are: the outline finds them
    // (and no table of ids is kept: see `plan_prune`).
    let mut session = Session::open_once(path, Detail::Outline)?;
    session.tree.forget_labels();
    let (now, marks) = match ask {
        Ask::Same(plan) => {
            // What is checked is what goes and what stays, not its usage
            // (a read of the whole file again).
            let (now, marks) = branch_of(&session, &plan.entry, Usage::Skip)?;
            if now.removed != plan.removed || now.carried != plan.carried {
                return Err(refused(
                    path,
                    "the session changed since the prune was confirmed; nothing changed, look again",
                ));
            }
            (now, marks)
        }
        Ask::Now(entry, shown) => {
            let (now, marks) = branch_of(&session, entry, Usage::Sum)?;
            shown(&now).map_err(|why| refused(path, format!("{why}; nothing changed")))?;
            (now, marks)
        }
    };
    let changed = || {
        refused(
            path,
            "the file changed while piscope was reading it (pi may be writing); nothing changed, \
             try again",
        )
    };
    let old_size = lock.original().metadata().map_err(io)?.len();
    if old_size != session.read_to {
        return Err(changed());
    }
    let lock_path = lock.real.clone();
    let mut old_hash = xxhash_rust::xxh3::Xxh3::new();
    let mut pruner = Pruner::new(&session, &marks);
    let mut archive = keep_branch.is_some().then(|| Archiver::new(path));
    let mut write = |out: &mut dyn Write| -> Result<(), SessionError> {
        let mut each = |at: u64, read: &[u8], line: &[u8]| -> Result<(), SessionError> {
            old_hash.update(read);
            let kept = pruner.line(at, line)?;
            if let Some(archive) = &mut archive {
                archive.line(line, kept.as_deref())?;
            }
            if let Some(kept) = kept {
                out.write_all(&kept).map_err(io)?;
            }
            Ok(())
        };
        // A handle of its own, closed before the rename: one left open
        // would look like a writer holding the original.
        let mut file = std::fs::File::open(&lock_path).map_err(io)?;
        let read = each_line(&session, &mut file, &mut each)?;
        drop(file);
        if read != old_size {
            return Err(changed());
        }
        pruner.finished(now.removed.len())?;
        if let (Some(keep), Some(archive)) = (keep_branch.as_mut(), &archive) {
            keep(&archive.lines).map_err(|why| {
                refused(
                    path,
                    format!("the branch could not be kept ({why}); nothing changed"),
                )
            })?;
        }
        Ok(())
    };
    let new = crate::session::write::rewrite::replace_locked_with(
        &mut lock,
        path,
        old_size,
        &mut write,
        keep_original,
    )?;
    Ok(Pruned {
        plan: now,
        old_size,
        old_hash: old_hash.digest(),
        new_size: new.len,
        new_hash: new.xxh3,
    })
}

/// Takes a line's start, the line as read and as the prune reads it.
type EachLine<'a> = dyn FnMut(u64, &[u8], &[u8]) -> Result<(), SessionError> + 'a;

/// Hands each line of the session's file (read from `file`, from its
/// start) to `each` with where it starts, as read and as the prune reads
/// it: the same for a current file; pi's migration of it for a legacy one
/// (which keeps one line for each line, and is made whole in memory).
/// Returns the bytes read.
fn each_line(
    session: &Session,
    file: &mut std::fs::File,
    each: &mut EachLine<'_>,
) -> Result<u64, SessionError> {
    use std::io::{Read, Seek};
    let io = |e| SessionError::io(&session.path, e);
    file.rewind().map_err(io)?;
    let mut at = 0u64;
    if session.is_legacy() {
        let mut original = Vec::new();
        file.read_to_end(&mut original).map_err(io)?;
        let text = crate::session::write::append::migrated_text(session, &original);
        let lines_of = |b: &[u8]| b.split_inclusive(|&c| c == b'\n').count();
        if lines_of(&text) != lines_of(&original) {
            return Err(refused(
                &session.path,
                "the migrated text does not have the file's lines; nothing changed",
            ));
        }
        let lines = original
            .split_inclusive(|&b| b == b'\n')
            .zip(text.split_inclusive(|&b| b == b'\n'));
        for (read, line) in lines {
            each(at, read, line)?;
            at += read.len() as u64;
        }
        return Ok(at);
    }
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(io)?;
        if n == 0 {
            return Ok(at);
        }
        each(at, &line, &line)?;
        at += n as u64;
    }
}

/// What a prune makes of each line: dropped, re-hung from the branch's
/// parent, or kept as it is. Lines are matched to the session's entries by
/// where they start, in file order.
struct Pruner<'s> {
    session: &'s Session,
    marks: &'s Marks,
    parent_json: String,
    /// The first entry whose line is not behind us.
    next: usize,
    /// The next carried entry, in `marks.carried`.
    next_carried: usize,
    dropped: usize,
    rehung: usize,
}

impl<'s> Pruner<'s> {
    fn new(session: &'s Session, marks: &'s Marks) -> Pruner<'s> {
        // Carried lines hang from the branch's parent.
        let parent_json = match &session.entry(marks.start).parent {
            Parent::Id(p) => crate::session::line::raw_json::json_string(p),
            _ => "null".to_string(),
        };
        Pruner {
            session,
            marks,
            parent_json,
            next: 0,
            next_carried: 0,
            dropped: 0,
            rehung: 0,
        }
    }

    /// The line that starts at `at` (`line`, with its ending) as the
    /// pruned file has it: `None` when it goes.
    fn line<'l>(
        &mut self,
        at: u64,
        line: &'l [u8],
    ) -> Result<Option<std::borrow::Cow<'l, [u8]>>, SessionError> {
        let entries = &self.session.entries;
        let offset = |i: usize| entries.get(i).map(|e| e.span().offset);
        while offset(self.next).is_some_and(|o| o < at) {
            self.next += 1;
        }
        let here = self.next;
        if offset(here) != Some(at) {
            return Ok(Some(line.into()));
        }
        if self.marks.removed.get(here as u32) {
            self.dropped += 1;
            return Ok(None);
        }
        if self.marks.carried.get(self.next_carried) != Some(&(here as u32)) {
            return Ok(Some(line.into()));
        }
        self.next_carried += 1;
        let e = self.session.entry(here as u32);
        let body = &line[..line.len()
            - line
                .iter()
                .rev()
                .take_while(|b| **b == b'\n' || **b == b'\r')
                .count()];
        let ending = &line[body.len()..];
        let json = std::str::from_utf8(body).map_err(|_| invalid(self.session, e.line))?;
        let (bom, json) = match json.strip_prefix('\u{FEFF}') {
            Some(t) => ("\u{FEFF}", t),
            None => ("", json),
        };
        let mut o = RawObject::parse(json).map_err(|_| invalid(self.session, e.line))?;
        o.set_json("parentId", self.parent_json.clone());
        let mut out = Vec::with_capacity(line.len() + 16);
        out.extend_from_slice(bom.as_bytes());
        out.extend_from_slice(o.to_json().as_bytes());
        out.extend_from_slice(ending);
        self.rehung += 1;
        Ok(Some(out.into()))
    }

    /// Every line the plan names was met: the `removed` it counted, and
    /// every carried one.
    fn finished(&self, removed: usize) -> Result<(), SessionError> {
        if self.dropped != removed || self.rehung != self.marks.carried.len() {
            return Err(refused(
                &self.session.path,
                "the file's lines do not match what was read; nothing changed, try again",
            ));
        }
        Ok(())
    }
}

fn invalid(session: &Session, line: u32) -> SessionError {
    SessionError::Invalid {
        path: session.path.clone(),
        message: format!("line {line}: cannot re-hang this entry (not UTF-8 JSON)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session file of a header and `lines`, in `dir`.
    fn session_of(dir: &Path, name: &str, lines: &[&str]) -> PathBuf {
        let path = dir.join(name);
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;
        let mut text = format!("{header}\n");
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        std::fs::write(&path, text).expect("write");
        path
    }

    fn plan_for(lines: &[&str]) -> Result<PrunePlan, SessionError> {
        let dir = tempfile::tempdir().expect("dir");
        plan_prune(&session_of(dir.path(), "s.jsonl", lines), "b")
    }

    fn entry(id: Option<&str>, parent: Option<&str>) -> String {
        let mut v = serde_json::json!({"type": "message", "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "hi", "timestamp": 1}});
        if let Some(id) = id {
            v["id"] = id.into();
        }
        v["parentId"] = parent.map_or(serde_json::Value::Null, Into::into);
        v.to_string()
    }

    /// A file whose ids are not each an entry's own is refused, naming the
    /// first line that says so: an entry without an id, or an id used again.
    #[test]
    fn ids_not_unique_are_refused_at_their_first_line() {
        let a = entry(Some("a"), None);
        let b = entry(Some("b"), Some("a"));
        let c = entry(Some("c"), Some("a"));
        let again = entry(Some("c"), Some("a"));
        let none = entry(None, Some("a"));
        let reason = |lines: &[&str]| match plan_for(lines) {
            Err(SessionError::Refused { reason, .. }) => reason,
            other => panic!("{other:?}"),
        };
        assert!(plan_for(&[&a, &b, &c]).is_ok());
        let r = reason(&[&a, &b, &c, &again]);
        assert!(r.starts_with("line 5: the id c is used twice"), "{r}");
        let r = reason(&[&a, &b, &none, &c, &again]);
        assert!(r.starts_with("line 4: an entry without an id"), "{r}");
        let r = reason(&[&a, &b, &c, &again, &none]);
        assert!(r.starts_with("line 5: the id c is used twice"), "{r}");
    }

    /// What the plan counts, and that a different branch of the same size
    /// gives another digest (the prune's check under the lock).
    #[test]
    fn the_plan_counts_the_branch_and_tells_branches_apart() {
        let a = entry(Some("a"), None);
        let b = entry(Some("b"), Some("a"));
        let b1 = entry(Some("b1"), Some("b"));
        let b2 = entry(Some("b2"), Some("b"));
        let c = entry(Some("c"), Some("a"));
        let plan = plan_for(&[&a, &b, &b1, &c]).expect("plan");
        assert_eq!((plan.removed.len(), plan.messages), (2, 2));
        let other = plan_for(&[&a, &b, &b2, &c]).expect("plan");
        assert_eq!(other.removed.len(), 2);
        assert_ne!(plan.removed, other.removed);
        assert_eq!(
            plan_for(&[&a, &b, &b1, &c]).expect("plan").removed,
            plan.removed
        );
    }

    /// A prune made at once plans what a plan made before would, shows it
    /// before acting, and leaves the same file; refused where it is shown,
    /// it changes nothing.
    #[test]
    fn pruned_at_once_as_planned_before() {
        let a = entry(Some("a"), None);
        let b = entry(Some("b"), Some("a"));
        let b1 = entry(Some("b1"), Some("b"));
        let label = r#"{"type":"label","id":"l","parentId":"b1","timestamp":"2026-01-01T00:00:02.000Z","targetId":"a","label":"kept"}"#;
        let c = entry(Some("c"), Some("a"));
        let lines = [a.as_str(), &b, &b1, label, &c];
        let dir = tempfile::tempdir().expect("dir");
        let before = session_of(dir.path(), "before.jsonl", &lines);
        let now = session_of(dir.path(), "now.jsonl", &lines);
        let plan = plan_prune(&before, "b").expect("plan");
        prune(&plan, &mut |_| Ok(())).expect("prune");

        let original = std::fs::read(&now).expect("read");
        let refused = prune_now(&now, "b", &mut |_| Err("not now".into()), &mut |_| Ok(()));
        match refused {
            Err(SessionError::Refused { reason, .. }) => {
                assert_eq!(reason, "not now; nothing changed")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(std::fs::read(&now).expect("read"), original);

        let mut shown = None;
        let done = prune_now(
            &now,
            "b",
            &mut |p| {
                shown = Some((p.removed, p.carried.clone(), p.messages));
                Ok(())
            },
            &mut |_| Ok(()),
        )
        .expect("prune now");
        let want = (plan.removed, plan.carried.clone(), plan.messages);
        assert_eq!(shown, Some(want));
        assert_eq!(plan.carried, vec!["l".to_string()]);
        assert_eq!(done.plan.removed.len(), 2);
        assert_eq!(
            std::fs::read(&now).expect("read"),
            std::fs::read(&before).expect("read")
        );
    }
}
