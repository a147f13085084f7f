//! Forking: a new session file beside the original holding one branch (the
//! path from the root to a leaf), as pi's `createBranchedSession` writes it.

use super::raw::RawObject;
use super::{Detail, Kind, Session, SessionError, migrate};
use crate::jstext::date as jsdate;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Writes the path to `leaf` (the current leaf when `None`) of the session
/// at `path` into a new session file in the same folder and returns its
/// path. Labels on the path are carried over, `parentSession` names the
/// original; the original is not changed. The session is read at outline
/// depth and the kept lines are streamed from the original to the new file,
/// so a fork costs the tree's memory, not the session's.
pub fn fork_session(path: &Path, leaf: Option<&str>) -> Result<PathBuf, SessionError> {
    let session = Session::open_with(path, Detail::Outline)?;
    let leaf = resolve_leaf(&session, leaf)?;
    let head = ForkHead::new();
    let name = format!(
        "{}_{}.jsonl",
        head.timestamp.replace([':', '.'], "-"),
        head.id
    );
    let new_path = path.with_file_name(name);
    let owner = std::fs::metadata(path).ok();
    super::write::write_new_file_with(&new_path, owner.as_ref(), |out| {
        write_fork(&session, leaf, &head, out)
    })?;
    Ok(new_path)
}

/// A new session's text.
pub(crate) struct ForkText {
    pub text: String,
}

/// A new session's id and creation time.
pub(crate) struct ForkHead {
    pub id: String,
    pub timestamp: String,
}

impl ForkHead {
    fn new() -> ForkHead {
        ForkHead {
            id: uuid::Uuid::now_v7().to_string(),
            timestamp: jsdate::format_iso(jsdate::now_ms()),
        }
    }
}

/// The text of a new session holding the branch to `leaf`.
pub(crate) fn fork_text(session: &Session, leaf: Option<&str>) -> Result<ForkText, SessionError> {
    let leaf = resolve_leaf(session, leaf)?;
    let head = ForkHead::new();
    let mut out = Vec::new();
    write_fork(session, leaf, &head, &mut out)?;
    Ok(ForkText {
        // Every line is JSON this module wrote.
        text: String::from_utf8_lossy(&out).into_owned(),
    })
}

/// The entry a fork ends at: `leaf`'s, or the session's leaf.
fn resolve_leaf(session: &Session, leaf: Option<&str>) -> Result<u32, SessionError> {
    let path = session.path.as_path();
    match leaf {
        Some(id) => session.find(id).ok_or_else(|| SessionError::NoSuchEntry {
            path: path.to_path_buf(),
            id: id.to_string(),
        }),
        None => session.leaf().ok_or_else(|| SessionError::NoSuchEntry {
            path: path.to_path_buf(),
            id: "(the leaf of an empty session)".to_string(),
        }),
    }
}

/// Reads entries' lines from a session file in any order, buffered: a fork
/// reads them mostly forward, so most reads need no system call.
struct Lines {
    file: std::io::BufReader<std::fs::File>,
    /// Where the reader is in the file.
    at: u64,
    buf: Vec<u8>,
}

impl Lines {
    fn new(file: std::fs::File) -> Lines {
        Lines {
            file: std::io::BufReader::with_capacity(1 << 16, file),
            at: 0,
            buf: Vec::new(),
        }
    }

    /// The text of entry `idx`'s line.
    fn text(&mut self, session: &Session, idx: u32) -> std::io::Result<std::borrow::Cow<'_, str>> {
        let span = session.entry(idx).span;
        match span.offset.checked_sub(self.at) {
            // Forward within reach: skip, keeping what is buffered.
            Some(ahead) if ahead <= 1 << 20 => self.file.seek_relative(ahead as i64)?,
            _ => {
                self.file.seek(SeekFrom::Start(span.offset))?;
            }
        }
        self.buf.resize(span.len as usize, 0);
        self.file.read_exact(&mut self.buf)?;
        self.at = span.offset + span.len;
        Ok(super::read::decode_span(&self.buf, span.offset))
    }
}

/// Writes the new session holding the path to entry `leaf` to `out`: its
/// header, the path's entries re-linked without labels, then the labels of
/// the kept entries.
fn write_fork(
    session: &Session,
    leaf: u32,
    head: &ForkHead,
    out: &mut dyn Write,
) -> Result<(), SessionError> {
    let path = session.path.as_path();
    let io = |e| SessionError::io(path, e);
    let mut lines = Lines::new(session.open_file()?);
    let line = |lines: &mut Lines, idx: u32| -> Result<RawObject, SessionError> {
        let text = lines.text(session, idx).map_err(io)?;
        let parsed = if session.is_legacy() {
            RawObject::parse(&migrate::migrated_line(session, idx as usize, &text))
        } else {
            RawObject::parse(&text)
        };
        parsed.map_err(|e| SessionError::Invalid {
            path: path.to_path_buf(),
            message: format!("line {}: {e}", session.entry(idx).line),
        })
    };

    let source = std::path::absolute(path).map_err(io)?;
    let mut header = RawObject::new();
    header.set("type", "session");
    header.set("version", &3);
    header.set("id", head.id.as_str());
    header.set("timestamp", head.timestamp.as_str());
    // pi keeps the header's cwd as it is (any JSON), else its own folder.
    let original = RawObject::parse(&session.header.raw).ok();
    match original.as_ref().and_then(|o| o.get("cwd")) {
        Some(cwd) => header.set_raw("cwd", cwd),
        None => header.set("cwd", &std::env::current_dir().unwrap_or_default()),
    }
    header.set("parentSession", &source);
    let mut text = header.to_json();
    text.push('\n');
    out.write_all(text.as_bytes()).map_err(io)?;

    // The path without its labels; entries after a label hang on the entry
    // before it, and a compaction kept from a label keeps from the next entry.
    let mut kept_ids: HashSet<&str> = HashSet::default();
    let mut pending_labels: Vec<&str> = Vec::new();
    let mut replaced: HashMap<&str, &str> = HashMap::default();
    let mut parent: Option<String> = None;
    for idx in session.tree.path_to(leaf) {
        let entry = session.entry(idx);
        let id = entry.id_str().unwrap_or_default();
        if entry.kind == Kind::Label {
            pending_labels.push(id);
            continue;
        }
        for label in pending_labels.drain(..) {
            replaced.insert(label, id);
        }
        let mut o = line(&mut lines, idx)?;
        o.set("parentId", &parent.as_deref());
        if entry.kind == Kind::Compaction {
            if let Some(first) = o.get_str("firstKeptEntryId") {
                if first != id {
                    if let Some(next) = replaced.get(first.as_str()) {
                        o.set("firstKeptEntryId", *next);
                    }
                }
            }
        }
        kept_ids.insert(id);
        let mut text = o.to_json();
        text.push('\n');
        out.write_all(text.as_bytes()).map_err(io)?;
        parent = Some(id.to_string());
    }
    drop(replaced);

    // pi's label map: file order, re-labelling keeps the first place, a
    // clear removes.
    type Raw = Box<serde_json::value::RawValue>;
    let mut labels: indexmap::IndexMap<String, (Raw, Option<Raw>)> = Default::default();
    for (idx, entry) in session.live_entries() {
        if entry.kind != Kind::Label {
            continue;
        }
        let o = line(&mut lines, idx)?;
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

    let mut new_ids: HashSet<String> = HashSet::default();
    for (target, (label, time)) in labels.iter().filter(|(t, _)| kept_ids.contains(t.as_str())) {
        let label_id = loop {
            let candidate = super::ids::random_hex_id();
            if !kept_ids.contains(candidate.as_str()) && new_ids.insert(candidate.clone()) {
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
        let mut text = o.to_json();
        text.push('\n');
        out.write_all(text.as_bytes()).map_err(io)?;
        parent = Some(label_id);
    }
    Ok(())
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
