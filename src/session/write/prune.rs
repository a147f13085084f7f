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

use crate::session::line::entry::{Info, Kind, Parent};
use crate::session::line::raw_json::RawObject;
use crate::session::write::branch_archive::{ArchivedLine, archived_lines};
use crate::session::{Detail, Session, SessionError};
use rustc_hash::FxHashSet as HashSet;
use std::path::{Path, PathBuf};

/// What pruning a branch takes away, as checked when planned.
#[derive(Debug, Clone, PartialEq)]
pub struct PrunePlan {
    pub path: PathBuf,
    /// The entry the branch starts at.
    pub entry: String,
    /// Every pruned entry's id, in file order.
    pub removed: Vec<String>,
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
    let session = Session::open_with(path, Detail::Outline)?;
    plan_of(&session, entry)
}

/// The plan for an open session.
pub fn plan_of(session: &Session, entry: &str) -> Result<PrunePlan, SessionError> {
    let path = &session.path;
    let start = session
        .find(entry)
        .ok_or_else(|| SessionError::NoSuchEntry {
            path: path.clone(),
            id: entry.to_string(),
        })?;
    // Freed before the plan is made.
    let mut seen: HashSet<&str> = HashSet::default();
    for (_, e) in session.live_entries() {
        let Some(id) = e.id_str() else {
            return Err(refused(
                path,
                format!(
                    "line {}: an entry without an id; piscope prunes only files whose entries all have one",
                    e.line
                ),
            ));
        };
        if !seen.insert(id) {
            return Err(refused(
                path,
                format!(
                    "line {}: the id {id} is used twice, so a prune could not tell which entry it meant",
                    e.line
                ),
            ));
        }
    }
    drop(seen);
    // The branch: the entry and everything below it.
    let mut inside = vec![false; session.entries.len()];
    let mut stack = vec![start];
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut inside[n as usize], true) {
            continue;
        }
        stack.extend_from_slice(session.tree.children(n));
    }
    if let Some(leaf) = session.tree.last() {
        if inside[leaf as usize] {
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
    let carried = carried_entries(session, &inside);
    let mut plan = PrunePlan {
        path: path.clone(),
        entry: entry.to_string(),
        removed: Vec::new(),
        carried: Vec::new(),
        messages: 0,
        tokens: 0.0,
        cost: 0.0,
        parent: session.entry(start).parent_id().map(str::to_string),
    };
    for (i, e) in session.live_entries() {
        if !inside[i as usize] {
            continue;
        }
        let id = e.id_str().unwrap_or_default().to_string();
        if carried.contains(&i) {
            plan.carried.push(id);
            // Left inside only what goes.
            inside[i as usize] = false;
            continue;
        }
        plan.removed.push(id);
        if e.kind() == Kind::Message {
            plan.messages += 1;
        }
    }
    (plan.tokens, plan.cost) = usage_of(session, &inside)?;
    if plan.removed.is_empty() {
        return Err(refused(
            path,
            "nothing to prune: every entry on this branch is a name or a label that pi reads for \
             the rest of the session",
        ));
    }
    Ok(plan)
}

/// Tokens and cost of the entries marked in `removed` (by entry index),
/// summed in file order. Usage is read at full depth only: a session read
/// at another depth is read again in a scan that keeps no entry, each
/// entry matched to the session's by where its line starts.
fn usage_of(session: &Session, removed: &[bool]) -> Result<(f64, f64), SessionError> {
    let (mut tokens, mut cost) = (0.0, 0.0);
    let mut add = |i: usize, e: &crate::session::line::entry::Entry| {
        if removed.get(i).copied().unwrap_or(false) {
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
fn carried_entries(session: &Session, inside: &[bool]) -> HashSet<u32> {
    let mut carried: HashSet<u32> = HashSet::default();
    if let Some((i, _)) = session
        .live_entries()
        .rev()
        .find(|(_, e)| matches!(e.info, Info::SessionInfo { .. }))
    {
        if inside[i as usize] {
            carried.insert(i);
        }
    }
    // The latest label entry per target, in file order.
    let mut latest: rustc_hash::FxHashMap<&str, u32> = Default::default();
    for (i, e) in session.live_entries() {
        if let Info::Label(l) = &e.info {
            if let Some(t) = l.target.as_deref() {
                latest.insert(t, i);
            }
        }
    }
    loop {
        let before = carried.len();
        for (&target, &label) in &latest {
            let Some(t) = session.find(target) else {
                continue;
            };
            let kept = !inside[t as usize] || carried.contains(&t);
            if kept && inside[label as usize] {
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
    prune_keeping(plan, &mut |_| Ok(()), keep_original)
}

/// [`prune`], handing `keep_branch` the lines that go (and the re-hung
/// ones as they were), each with its place, before anything changes: an
/// archive writes them away first. If it fails, nothing changes.
pub fn prune_keeping(
    plan: &PrunePlan,
    keep_branch: &mut dyn FnMut(&[ArchivedLine]) -> Result<(), String>,
    keep_original: &mut dyn FnMut(
        crate::session::write::rewrite::Original<'_>,
    ) -> Result<(), String>,
) -> Result<Pruned, SessionError> {
    let path = &plan.path;
    let mut lock = crate::session::write::append::lock_for_append(path)?;
    // Lines are copied or re-hung as they are: the outline finds them.
    let session = Session::open_with(path, Detail::Outline)?;
    let now = plan_of(&session, &plan.entry)?;
    if now.removed != plan.removed || now.carried != plan.carried {
        return Err(refused(
            path,
            "the session changed since the prune was confirmed; nothing changed, look again",
        ));
    }
    let original = std::fs::read(&lock.real).map_err(|e| SessionError::io(path, e))?;
    if original.len() as u64 != session.read_to {
        return Err(refused(
            path,
            "the file changed while piscope was reading it (pi may be writing); nothing changed, \
             try again",
        ));
    }
    // A legacy file is not migrated on disk first: the trash must get its
    // bytes as they are. The new file is what pi's migration makes of it,
    // pruned (the migration keeps one line for each line).
    let migrated;
    let text: &[u8] = if session.is_legacy() {
        migrated = crate::session::write::append::migrated_text(&session, &original);
        &migrated
    } else {
        &original
    };
    let new = pruned_text(&session, &now, &original, text)?;
    let kept = kept_lines(text, &new, &session, &now, &original);
    let branch = archived_lines(path, kept.into_iter())?;
    keep_branch(&branch).map_err(|why| {
        refused(
            path,
            format!("the branch could not be kept ({why}); nothing changed"),
        )
    })?;
    crate::session::write::rewrite::replace_locked(
        &mut lock,
        path,
        &original,
        &new,
        keep_original,
    )?;
    Ok(Pruned {
        plan: now,
        old_size: original.len() as u64,
        old_hash: xxhash_rust::xxh3::xxh3_64(&original),
        new_size: new.len() as u64,
        new_hash: xxhash_rust::xxh3::xxh3_64(&new),
    })
}

/// The file without the removed lines; carried lines re-hung from the
/// branch's parent; every other byte as it was. Lines are found by their
/// place in `original` (the file the session was read from) and written
/// from `text`, which has the same lines (the original, or its migration).
fn pruned_text(
    session: &Session,
    plan: &PrunePlan,
    original: &[u8],
    text: &[u8],
) -> Result<Vec<u8>, SessionError> {
    let removed: HashSet<&str> = plan.removed.iter().map(String::as_str).collect();
    let carried: HashSet<&str> = plan.carried.iter().map(String::as_str).collect();
    // Line starts of the entries to drop or re-hang.
    let mut drop_at: HashSet<u64> = HashSet::default();
    let mut rehang_at: rustc_hash::FxHashMap<u64, u32> = Default::default();
    for (i, e) in session.live_entries() {
        let Some(id) = e.id_str() else { continue };
        if removed.contains(id) {
            drop_at.insert(e.span().offset);
        } else if carried.contains(id) {
            rehang_at.insert(e.span().offset, i);
        }
    }
    let start = session.find(&plan.entry);
    let parent_json = match start.map(|s| &session.entry(s).parent) {
        Some(Parent::Id(p)) => crate::session::line::raw_json::json_string(p),
        _ => "null".to_string(),
    };
    let lines_of = |b: &[u8]| b.split_inclusive(|&c| c == b'\n').count();
    if lines_of(text) != lines_of(original) {
        return Err(refused(
            &session.path,
            "the migrated text does not have the file's lines; nothing changed",
        ));
    }
    let mut out = Vec::with_capacity(text.len());
    let mut offset = 0u64;
    let (mut dropped, mut rehung) = (0usize, 0usize);
    let lines = original
        .split_inclusive(|&b| b == b'\n')
        .zip(text.split_inclusive(|&b| b == b'\n'));
    for (read, line) in lines {
        let at = offset;
        offset += read.len() as u64;
        if drop_at.contains(&at) {
            dropped += 1;
            continue;
        }
        let Some(&i) = rehang_at.get(&at) else {
            out.extend_from_slice(line);
            continue;
        };
        let e = session.entry(i);
        let body = &line[..line.len()
            - line
                .iter()
                .rev()
                .take_while(|b| **b == b'\n' || **b == b'\r')
                .count()];
        let ending = &line[body.len()..];
        let json = std::str::from_utf8(body).map_err(|_| invalid(session, e.line))?;
        let (bom, json) = match json.strip_prefix('\u{FEFF}') {
            Some(t) => ("\u{FEFF}", t),
            None => ("", json),
        };
        let mut o = RawObject::parse(json).map_err(|_| invalid(session, e.line))?;
        o.set_json("parentId", parent_json.clone());
        out.extend_from_slice(bom.as_bytes());
        out.extend_from_slice(o.to_json().as_bytes());
        out.extend_from_slice(ending);
        rehung += 1;
    }
    if dropped != drop_at.len() || rehung != rehang_at.len() {
        return Err(refused(
            &session.path,
            "the file's lines do not match what was read; nothing changed, try again",
        ));
    }
    Ok(out)
}

/// Each line of `text` (the original, or its migration) with what the
/// prune made of it: `None` for a line that went, else the line it left
/// (the same, or re-hung). The pruned text `new` holds the kept lines in
/// order, so they are matched one by one.
fn kept_lines<'a>(
    text: &'a [u8],
    new: &'a [u8],
    session: &Session,
    plan: &PrunePlan,
    original: &[u8],
) -> Vec<(&'a [u8], Option<&'a [u8]>)> {
    let removed: HashSet<&str> = plan.removed.iter().map(String::as_str).collect();
    let mut drop_at: HashSet<u64> = HashSet::default();
    for (_, e) in session.live_entries() {
        if e.id_str().is_some_and(|id| removed.contains(id)) {
            drop_at.insert(e.span().offset);
        }
    }
    let mut left = new.split_inclusive(|&b| b == b'\n');
    let mut offset = 0u64;
    original
        .split_inclusive(|&b| b == b'\n')
        .zip(text.split_inclusive(|&b| b == b'\n'))
        .map(|(read, line)| {
            let at = offset;
            offset += read.len() as u64;
            if drop_at.contains(&at) {
                (line, None)
            } else {
                (line, left.next())
            }
        })
        .collect()
}

fn invalid(session: &Session, line: u32) -> SessionError {
    SessionError::Invalid {
        path: session.path.clone(),
        message: format!("line {line}: cannot re-hang this entry (not UTF-8 JSON)"),
    }
}
