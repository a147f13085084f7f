//! Forking: a new session file beside the original holding one branch (the
//! path from the root to a leaf), as pi's `createBranchedSession` writes it.

use super::raw::RawObject;
use super::{Kind, Session, SessionError, migrate};
use crate::jstext::date as jsdate;
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Writes the path to `leaf` (the current leaf when `None`) of the session
/// at `path` into a new session file in the same folder and returns its
/// path. Labels on the path are carried over, `parentSession` names the
/// original; the original is not changed.
pub fn fork_session(path: &Path, leaf: Option<&str>) -> Result<PathBuf, SessionError> {
    let session = Session::open(path)?;
    let fork = fork_text(&session, leaf)?;
    let name = format!(
        "{}_{}.jsonl",
        fork.timestamp.replace([':', '.'], "-"),
        fork.id
    );
    let new_path = path.with_file_name(name);
    let owner = std::fs::metadata(path).ok();
    super::write::write_new_file(&new_path, fork.text.as_bytes(), owner.as_ref())
        .map_err(|e| SessionError::io(&new_path, e))?;
    Ok(new_path)
}

/// A new session's text, with its id and creation time.
pub(crate) struct ForkText {
    pub text: String,
    pub id: String,
    pub timestamp: String,
}

/// The text of a new session holding the branch to `leaf`.
pub(crate) fn fork_text(session: &Session, leaf: Option<&str>) -> Result<ForkText, SessionError> {
    let path = session.path.as_path();
    let leaf = match leaf {
        Some(id) => session.find(id).ok_or_else(|| SessionError::NoSuchEntry {
            path: path.to_path_buf(),
            id: id.to_string(),
        })?,
        None => session.leaf().ok_or_else(|| SessionError::NoSuchEntry {
            path: path.to_path_buf(),
            id: "(the leaf of an empty session)".to_string(),
        })?,
    };
    let mut file = session.open_file()?;
    let line = |file: &mut std::fs::File, idx: u32| -> Result<RawObject, SessionError> {
        let text = session.line_text_in(file, idx)?;
        let text = if session.is_legacy() {
            migrate::migrated_line(session, idx as usize, &text)
        } else {
            text
        };
        RawObject::parse(&text).map_err(|e| SessionError::Invalid {
            path: path.to_path_buf(),
            message: format!("line {}: {e}", session.entry(idx).line),
        })
    };

    // The path without its labels; entries after a label hang on the entry
    // before it, and a compaction kept from a label keeps from the next entry.
    let mut kept: Vec<RawObject> = Vec::new();
    let mut kept_ids: HashSet<String> = HashSet::new();
    let mut pending_labels: Vec<String> = Vec::new();
    let mut replaced: std::collections::HashMap<String, String> = Default::default();
    let mut parent: Option<String> = None;
    for idx in session.tree.path_to(leaf) {
        let entry = session.entry(idx);
        let id = entry.id_str().unwrap_or_default().to_string();
        if entry.kind == Kind::Label {
            pending_labels.push(id);
            continue;
        }
        for label in pending_labels.drain(..) {
            replaced.insert(label, id.clone());
        }
        let mut o = line(&mut file, idx)?;
        o.set("parentId", &parent.as_deref());
        if entry.kind == Kind::Compaction {
            if let Some(first) = o.get_str("firstKeptEntryId") {
                if first != id {
                    if let Some(next) = replaced.get(&first) {
                        o.set("firstKeptEntryId", next.as_str());
                    }
                }
            }
        }
        kept_ids.insert(id.clone());
        kept.push(o);
        parent = Some(id);
    }

    // pi's label map: file order, re-labelling keeps the first place, a
    // clear removes.
    type Raw = Box<serde_json::value::RawValue>;
    let mut labels: indexmap::IndexMap<String, (Raw, Option<Raw>)> = Default::default();
    for (idx, entry) in session.live_entries() {
        if entry.kind != Kind::Label {
            continue;
        }
        let o = line(&mut file, idx)?;
        let Some(target) = o.get_str("targetId") else {
            continue;
        };
        let label = o.get("label").filter(|raw| truthy(raw.get()));
        match label {
            Some(raw) => {
                let time = o.get("timestamp").map(|t| t.to_owned());
                labels.insert(target, (raw.to_owned(), time));
            }
            None => {
                labels.shift_remove(&target);
            }
        }
    }

    let id = uuid::Uuid::now_v7().to_string();
    let now = jsdate::format_iso(jsdate::now_ms());
    let source = std::path::absolute(path).map_err(|e| SessionError::io(path, e))?;
    let mut header = RawObject::new();
    header.set("type", "session");
    header.set("version", &3);
    header.set("id", id.as_str());
    header.set("timestamp", now.as_str());
    // pi keeps the header's cwd as it is (any JSON), else its own folder.
    let original = RawObject::parse(&session.header.raw).ok();
    match original.as_ref().and_then(|o| o.get("cwd")) {
        Some(cwd) => header.set_raw("cwd", cwd),
        None => header.set("cwd", &std::env::current_dir().unwrap_or_default()),
    }
    header.set("parentSession", &source);

    let mut out = String::new();
    out.push_str(&header.to_json());
    out.push('\n');
    for o in &kept {
        out.push_str(&o.to_json());
        out.push('\n');
    }
    let mut used: HashSet<String> = kept_ids.clone();
    for (target, (label, time)) in labels.iter().filter(|(t, _)| kept_ids.contains(*t)) {
        let label_id = loop {
            let candidate = super::ids::random_hex_id();
            if used.insert(candidate.clone()) {
                break candidate;
            }
        };
        let mut o = RawObject::new();
        o.set("type", "label");
        o.set("id", label_id.as_str());
        o.set("parentId", &parent.as_deref());
        if let Some(t) = time {
            o.set_raw("timestamp", t);
        }
        o.set("targetId", target.as_str());
        o.set_raw("label", label);
        out.push_str(&o.to_json());
        out.push('\n');
        parent = Some(label_id);
    }

    Ok(ForkText {
        text: out,
        id,
        timestamp: now,
    })
}

/// JavaScript truthiness of a JSON value.
fn truthy(raw: &str) -> bool {
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Null) | Err(_) => false,
        Ok(Value::Bool(b)) => b,
        Ok(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Ok(Value::String(s)) => !s.is_empty(),
        Ok(_) => true,
    }
}
