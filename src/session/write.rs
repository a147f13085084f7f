//! Appending to a session the way pi does: one complete line per write,
//! opened for append; legacy files are first migrated by an atomic rewrite.

use super::entry::{Kind, Role};
use super::raw::RawObject;
use super::{Session, SessionError, migrate};
use crate::jstext::date as jsdate;
use compact_str::CompactString;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long to wait for pi to finish a half-written last line.
const UNFINISHED_LINE_WAIT: Duration = Duration::from_millis(400);

/// What `branch_to` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BranchOutcome {
    /// An entry was appended; pi now resumes at `leaf` (`None`: before the
    /// first entry).
    Moved {
        leaf: Option<String>,
        appended: String,
    },
    /// The session already resumes there.
    AlreadyThere,
}

/// Appends a `label` entry on `target` (`None` clears its label).
pub fn append_label(
    path: &Path,
    target: &str,
    label: Option<&str>,
) -> Result<String, SessionError> {
    let session = prepare(path)?;
    if session.find(target).is_none() {
        return Err(no_such_entry(path, target));
    }
    let label = label.filter(|l| !l.is_empty());
    append_with(&session, |o| {
        o.set("type", "label");
        o.set("id", "");
        o.set("parentId", &session.leaf_id());
        o.set("timestamp", &now());
        o.set("targetId", target);
        if let Some(l) = label {
            o.set("label", l);
        }
    })
}

/// Appends a `session_info` entry naming the session; newlines become
/// spaces, the name is trimmed, and an empty name clears it.
pub fn append_name(path: &Path, name: &str) -> Result<String, SessionError> {
    let session = prepare(path)?;
    let name = collapse_newlines(name);
    append_with(&session, |o| {
        o.set("type", "session_info");
        o.set("id", "");
        o.set("parentId", &session.leaf_id());
        o.set("timestamp", &now());
        o.set("name", crate::jstext::trim(&name));
    })
}

/// Makes pi resume at `target` with pi's `/tree` rule: for a user message or
/// a custom message the new leaf is its parent (so the text can be edited
/// and sent again), otherwise the entry itself. With a summary, a
/// `branch_summary` of the branch left behind is appended; without one, a
/// `custom` entry (`piscope.branch`), which pi keeps out of the context.
pub fn branch_to(
    path: &Path,
    target: &str,
    summary: Option<&str>,
) -> Result<BranchOutcome, SessionError> {
    let session = prepare(path)?;
    let idx = session
        .find(target)
        .ok_or_else(|| no_such_entry(path, target))?;
    let new_leaf = branch_leaf(&session, idx);
    let old_leaf = session.leaf_id().map(str::to_string);
    if summary.is_none() && new_leaf.as_deref() == old_leaf.as_deref() {
        return Ok(BranchOutcome::AlreadyThere);
    }
    let appended = append_with(&session, |o| match summary {
        Some(text) => {
            o.set("type", "branch_summary");
            o.set("id", "");
            o.set("parentId", &new_leaf.as_deref());
            o.set("timestamp", &now());
            o.set("fromId", old_leaf.as_deref().unwrap_or("root"));
            o.set("summary", text);
        }
        None => {
            o.set("type", "custom");
            o.set("customType", "piscope.branch");
            o.set_json(
                "data",
                format!(
                    "{{\"fromId\":{}}}",
                    serde_json::to_string(&old_leaf).unwrap_or_default()
                ),
            );
            o.set("id", "");
            o.set("parentId", &new_leaf.as_deref());
            o.set("timestamp", &now());
        }
    })?;
    Ok(BranchOutcome::Moved {
        leaf: new_leaf.map(|l| l.to_string()),
        appended,
    })
}

/// Where pi resumes after branching to entry `idx` (pi's `/tree` rule): the
/// parent of a user or custom message, so its text can be sent again;
/// otherwise the entry itself. `None`: before the first entry.
pub fn branch_leaf(session: &Session, idx: u32) -> Option<CompactString> {
    let entry = session.entry(idx);
    let resubmit = entry.is_role(Role::User) || entry.kind == Kind::CustomMessage;
    if resubmit {
        session
            .tree
            .parent(idx)
            .and_then(|p| session.entry(p).id.clone())
    } else {
        entry.id.clone()
    }
}

/// Whether branching to entry `idx` would leave pi where it already
/// resumes ("Already at this point").
pub fn already_there(session: &Session, idx: u32) -> bool {
    branch_leaf(session, idx).as_deref() == session.leaf_id()
}

fn now() -> String {
    jsdate::format_iso(jsdate::now_ms())
}

fn no_such_entry(path: &Path, id: &str) -> SessionError {
    SessionError::NoSuchEntry {
        path: path.to_path_buf(),
        id: id.to_string(),
    }
}

/// pi's `name.replace(/[\r\n]+/g, " ")`.
fn collapse_newlines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_run = false;
    for c in s.chars() {
        if c == '\r' || c == '\n' {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

/// Opens a session for writing: refuses a half-written last line, migrates
/// a legacy file to version 3 first.
fn prepare(path: &Path) -> Result<Session, SessionError> {
    let session = Session::open(path)?;
    wait_for_line_end(path)?;
    if session.is_legacy() {
        rewrite_migrated(&session)?;
        return Session::open(path);
    }
    Ok(session)
}

/// Waits briefly for the file to end with a newline (pi may be mid-write).
fn wait_for_line_end(path: &Path) -> Result<(), SessionError> {
    let deadline = std::time::Instant::now() + UNFINISHED_LINE_WAIT;
    loop {
        if ends_with_newline(path)? {
            return Ok(());
        }
        if std::time::Instant::now() >= deadline {
            return Err(SessionError::UnfinishedLastLine {
                path: path.to_path_buf(),
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn ends_with_newline(path: &Path) -> Result<bool, SessionError> {
    let mut f = File::open(path).map_err(|e| SessionError::io(path, e))?;
    let len = f.metadata().map_err(|e| SessionError::io(path, e))?.len();
    if len == 0 {
        return Ok(true);
    }
    f.seek(SeekFrom::Start(len - 1))
        .map_err(|e| SessionError::io(path, e))?;
    let mut b = [0u8; 1];
    f.read_exact(&mut b)
        .map_err(|e| SessionError::io(path, e))?;
    Ok(b[0] == b'\n')
}

/// Builds an entry with `fill`, gives it a fresh id unique in the file, and
/// appends it as one line in one write. Returns the new id.
fn append_with(
    session: &Session,
    fill: impl FnOnce(&mut RawObject),
) -> Result<String, SessionError> {
    let id = fresh_id(session);
    let mut o = RawObject::new();
    fill(&mut o);
    o.set("id", id.as_str());
    let mut line = o.to_json();
    line.push('\n');
    let path = &session.path;
    let mut f = OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| SessionError::io(path, e))?;
    let written = f
        .write(line.as_bytes())
        .map_err(|e| SessionError::io(path, e))?;
    if written != line.len() {
        return Err(SessionError::Invalid {
            path: path.clone(),
            message: format!("only {written} of {} bytes could be appended", line.len()),
        });
    }
    Ok(id)
}

/// A random 8-hex id not used by any entry of the session.
pub fn fresh_id(session: &Session) -> String {
    loop {
        let id = random_hex_id();
        if session.find(&id).is_none() {
            return id;
        }
    }
}

/// Eight random hex digits, as pi's entry ids.
pub(crate) fn random_hex_id() -> String {
    let mut bytes = [0u8; 4];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness: fall back to the clock (callers check for clashes).
        bytes = (jsdate::now_ms() as u32 ^ std::process::id()).to_le_bytes();
    }
    format!("{:08x}", u32::from_le_bytes(bytes))
}

/// Creates a new file with `bytes`, whole or not at all: written to a
/// temporary file in the same folder, synced, then linked in under its name
/// (which fails rather than replace a file that already exists).
pub(crate) fn write_new_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temp_path(path);
    let result = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::hard_link(&tmp, path)?;
        sync_dir(path);
        Ok(())
    })();
    let _ = fs::remove_file(&tmp);
    result
}

fn sync_dir(path: &Path) {
    if let Some(dir) = path.parent() {
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

/// Rewrites a legacy file as version 3: every line migrated as pi migrates
/// it, lines that do not parse carried over unchanged. The new text goes to
/// a temporary file in the same folder, is synced, and renamed over the
/// original (keeping its permissions).
pub fn rewrite_migrated(session: &Session) -> Result<(), SessionError> {
    let path = &session.path;
    let io = |e| SessionError::io(path, e);
    let original = fs::read(path).map_err(io)?;
    let mut out = Vec::with_capacity(original.len() + session.entries.len() * 40);
    let mut by_offset = session
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.span.offset, i))
        .peekable();
    let mut offset = 0usize;
    for raw_line in original.split_inclusive(|&b| b == b'\n') {
        let start = offset as u64;
        offset += raw_line.len();
        let body = raw_line.strip_suffix(b"\n").unwrap_or(raw_line);
        let (body, cr) = match body.strip_suffix(b"\r") {
            Some(b) => (b, true),
            None => (body, false),
        };
        let ending: &[u8] = match (raw_line.ends_with(b"\n"), cr) {
            (true, true) => b"\r\n",
            (true, false) => b"\n",
            (false, true) => b"\r",
            (false, false) => b"",
        };
        let migrated = if start == session.header.span.offset {
            Some(migrate::migrated_header(&session.header))
        } else {
            while by_offset.peek().is_some_and(|&(o, _)| o < start) {
                by_offset.next();
            }
            match by_offset.peek() {
                Some(&(o, i)) if o == start => {
                    let text = String::from_utf8_lossy(body);
                    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
                    Some(migrate::migrated_line(session, i, text))
                }
                _ => None,
            }
        };
        if start == 0 && body.starts_with(b"\xEF\xBB\xBF") {
            out.extend_from_slice(b"\xEF\xBB\xBF");
        }
        match migrated {
            Some(text) => {
                out.extend_from_slice(text.as_bytes());
                out.extend_from_slice(ending);
            }
            None => out.extend_from_slice(raw_line),
        }
    }
    let tmp = temp_path(path);
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(&out)?;
        let perms = fs::metadata(path)?.permissions();
        fs::set_permissions(&tmp, perms)?;
        f.sync_all()?;
        // Lines pi appended while we worked would be lost by the rename.
        if fs::metadata(path)?.len() != original.len() as u64 {
            return Err(std::io::Error::other(
                "the file changed while it was being migrated; try again",
            ));
        }
        fs::rename(&tmp, path)?;
        sync_dir(path);
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(io)
}

fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut bytes = [0u8; 4];
    let _ = getrandom::fill(&mut bytes);
    path.with_file_name(format!(
        ".{name}.{}-{:08x}.tmp",
        std::process::id(),
        u32::from_le_bytes(bytes)
    ))
}
