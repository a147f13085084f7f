//! Appending to a session the way pi does: one complete line per write,
//! opened for append, under piscope's write lock (see `lock`) and checked
//! in the file afterwards; legacy files are first migrated by an atomic
//! rewrite that keeps owner, mode and symlinks.

use crate::jstext::date as jsdate;
use crate::session::line::entry::{Kind, Role};
use crate::session::line::raw_json::RawObject;
use crate::session::read::index_pass::{self, Detail};
use crate::session::write::ids::random_hex_id;
use crate::session::write::lock::{self, WriteLock};
use crate::session::write::migrate;
use crate::session::write::temp::{self, TempFile};
use crate::session::{Session, SessionError};
use compact_str::CompactString;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
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
    let label = label.filter(|l| !l.is_empty());
    append_on_leaf(path, Some(target), |o, leaf| {
        o.set("type", "label");
        o.set("id", "");
        o.set("parentId", &leaf);
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
    let name = collapse_newlines(name);
    append_on_leaf(path, None, |o, leaf| {
        o.set("type", "session_info");
        o.set("id", "");
        o.set("parentId", &leaf);
        o.set("timestamp", &now());
        o.set("name", crate::jstext::trim(&name));
    })
}

/// What an append after the leaf needs of a file, read in one scan that
/// keeps no entry: the leaf's id, and whether `target` and the id about to
/// be written name an entry.
struct Tail {
    version: u32,
    leaf: Option<CompactString>,
    target_found: bool,
    candidate_taken: bool,
}

/// Scans the file for [`Tail`]: pi's leaf is the last entry's id, and an id
/// names an entry when any live entry has it (entries without an id share
/// pi's `undefined` key, as in the tree).
fn scan_tail(path: &Path, target: Option<&str>, candidate: &str) -> Result<Tail, SessionError> {
    let mut leaf = None;
    let (mut target_found, mut candidate_taken) = (false, false);
    let scanned = index_pass::scan_entries(path, Detail::Outline, |e, _| {
        if e.kind() == Kind::Header {
            return;
        }
        let key =
            e.id.as_deref()
                .unwrap_or(crate::session::line::jskey::UNDEFINED);
        target_found |= target == Some(key);
        candidate_taken |= key == candidate;
        leaf = e.id.as_deref().map(CompactString::from);
    })?;
    Ok(Tail {
        version: scanned.header.version,
        leaf,
        target_found,
        candidate_taken,
    })
}

/// Appends one entry after pi's leaf without reading the session into
/// memory: under the write lock, one scan finds the leaf and checks
/// `target` (when given) and a random id; the rare id already taken is
/// replaced and checked by scanning again. A legacy file is migrated first,
/// with the full reader. `fill` gets the leaf's id.
fn append_on_leaf(
    path: &Path,
    target: Option<&str>,
    fill: impl FnOnce(&mut RawObject, Option<&str>),
) -> Result<String, SessionError> {
    let mut lock = lock_for_append(path)?;
    let mut id = random_hex_id();
    let mut tail = scan_tail(path, target, &id)?;
    if tail.version < migrate::CURRENT_VERSION {
        migrate_in_place(path, &mut lock)?;
        tail = scan_tail(path, target, &id)?;
    }
    if let Some(target) = target.filter(|_| !tail.target_found) {
        return Err(no_such_entry(path, target));
    }
    while tail.candidate_taken {
        id = random_hex_id();
        tail = scan_tail(path, None, &id)?;
    }
    append_line(&lock, path, id, |o| fill(o, tail.leaf.as_deref()))
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
    let w = prepare(path)?;
    let session = &w.session;
    let idx = session
        .find(target)
        .ok_or_else(|| no_such_entry(path, target))?;
    let new_leaf = branch_leaf(session, idx);
    let old_leaf = session.leaf_id().map(str::to_string);
    if summary.is_none() && already_there(session, idx) {
        return Ok(BranchOutcome::AlreadyThere);
    }
    let appended = append_with(&w, |o| match summary {
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
            o.set("customType", BRANCH_MARKER);
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
    if resumes_before(session, idx) {
        session
            .tree
            .parent(idx)
            .and_then(|p| session.entry(p).id.as_deref().map(CompactString::from))
    } else {
        entry.id.as_deref().map(CompactString::from)
    }
}

/// pi's `/tree` rule: branching to a user or custom message resumes just
/// before it (its text goes back to the editor). The role as the session
/// keeps it, at any depth.
pub fn resumes_before(session: &Session, idx: u32) -> bool {
    session.role_of(idx) == Some(&Role::User) || session.entry(idx).kind() == Kind::CustomMessage
}

/// Whether branching to entry `idx` would leave pi where it already
/// resumes ("Already at this point"): the two points are the same once
/// entries that change nothing pi resumes with are passed over upwards (a
/// label, a session name, piscope's own branch marker), so a label as the
/// leaf, or a second marker, never makes a write.
pub fn already_there(session: &Session, idx: u32) -> bool {
    let target = branch_leaf(session, idx).and_then(|id| session.find(&id));
    settled(session, target) == settled(session, session.leaf())
}

/// The first entry at or above `idx` that is not a label, a session name
/// or piscope's branch marker (`None`: before the first entry).
fn settled(session: &Session, mut idx: Option<u32>) -> Option<u32> {
    // A chain of such entries is as long as the file at most.
    for _ in 0..=session.entries.len() {
        let i = idx?;
        let e = session.entry(i);
        if !(matches!(e.kind(), Kind::Label | Kind::SessionInfo) || is_branch_marker(e)) {
            return Some(i);
        }
        idx = session.tree.parent(i);
    }
    idx
}

/// The `customType` of the entry piscope writes to move pi's leaf.
pub const BRANCH_MARKER: &str = "piscope.branch";

/// Whether `entry` is piscope's own branch marker (a `custom` entry pi
/// keeps out of the context).
pub fn is_branch_marker(entry: &crate::session::line::entry::Entry) -> bool {
    matches!(&entry.info, crate::session::line::entry::Info::Custom { custom_type: Some(t) } if t == BRANCH_MARKER)
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
    crate::jstext::replace_runs_with_space(s, |c| c == '\r' || c == '\n')
}

/// A session open for writing: piscope's write lock held, the last line
/// finished, a legacy file already migrated.
struct Writing {
    lock: WriteLock,
    session: Session,
}

/// Opens a session for writing: takes the write lock, sweeps stale temps
/// beside it, refuses a read-only file or a half-written last line, and
/// migrates a legacy file to version 3 first. Everything is read after the
/// lock is taken, so a writer that waited sees what the one before it wrote.
fn prepare(path: &Path) -> Result<Writing, SessionError> {
    let mut lock = lock_for_append(path)?;
    // A branch needs ids, parents, types and roles: the outline has them.
    // It looks up an id or three: the table of ids need not stay.
    let session = Session::open_once(path, Detail::Outline)?;
    if session.is_legacy() {
        drop(session);
        migrate_in_place(path, &mut lock)?;
        let session = Session::open_once(path, Detail::Outline)?;
        return Ok(Writing { lock, session });
    }
    Ok(Writing { lock, session })
}

/// Takes the write lock, sweeps stale temps beside the file, and refuses a
/// read-only file or a half-written last line.
pub(crate) fn lock_for_append(path: &Path) -> Result<WriteLock, SessionError> {
    let lock = WriteLock::acquire(path)?;
    if let Some(dir) = lock.real.parent() {
        temp::sweep_stale_temps(dir);
    }
    let meta = lock
        .original()
        .metadata()
        .map_err(|e| SessionError::io(path, e))?;
    lock::refuse_read_only(path, &lock.real, &meta)?;
    wait_for_line_end(path, lock.original())?;
    Ok(lock)
}

/// Rewrites a legacy file as version 3 (the caller holds the write lock).
pub(crate) fn migrate_in_place(path: &Path, lock: &mut WriteLock) -> Result<(), SessionError> {
    let meta = lock
        .original()
        .metadata()
        .map_err(|e| SessionError::io(path, e))?;
    lock::refuse_hard_links(path, &meta)?;
    let session = Session::open(path)?;
    rewrite_migrated(&session, lock)
}

/// Waits briefly for the file to end with a newline (pi may be mid-write).
fn wait_for_line_end(path: &Path, file: &File) -> Result<(), SessionError> {
    let deadline = std::time::Instant::now() + UNFINISHED_LINE_WAIT;
    loop {
        if ends_with_newline(file).map_err(|e| SessionError::io(path, e))? {
            return Ok(());
        }
        if std::time::Instant::now() >= deadline {
            return Err(SessionError::UnfinishedLastLine {
                path: path.to_path_buf(),
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn ends_with_newline(file: &File) -> std::io::Result<bool> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(true);
    }
    let mut b = [0u8; 1];
    read_at(file, &mut b, len - 1)?;
    Ok(b[0] == b'\n')
}

/// Reads exactly `buf.len()` bytes at `offset`.
fn read_at(mut file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}

/// Builds an entry with `fill`, gives it a fresh id unique in the file, and
/// appends it as one line in one write, then checks that it landed whole at
/// a line start of the file the path names. Returns the new id.
fn append_with(w: &Writing, fill: impl FnOnce(&mut RawObject)) -> Result<String, SessionError> {
    append_line(&w.lock, &w.session.path, fresh_id(&w.session), fill)
}

/// Builds an entry with `fill` and id `id` (unique in the file), appends it
/// as one line in one write under `lock`, then checks that it landed whole
/// at a line start of the file the path names. Returns the id.
fn append_line(
    lock: &WriteLock,
    shown: &Path,
    id: String,
    fill: impl FnOnce(&mut RawObject),
) -> Result<String, SessionError> {
    let mut o = RawObject::new();
    fill(&mut o);
    o.set("id", id.as_str());
    let mut line = o.to_json();
    line.push('\n');
    let io = |e| SessionError::io(shown, e);
    let mut options = OpenOptions::new();
    options.read(true).append(true);
    // Never blocks on a FIFO swapped in since the lock was taken; the
    // same-file check below then refuses it.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let mut f = options.open(&lock.real).map_err(io)?;
    let locked = lock.current().metadata().map_err(io)?;
    if !lock::same_file(&f.metadata().map_err(io)?, &locked) {
        return Err(replaced(shown));
    }
    // Last look at the tail, right before the one write: another program
    // may have begun a line since the file was read.
    wait_for_line_end(shown, &f)?;
    let written = f.write(line.as_bytes()).map_err(io)?;
    if written != line.len() {
        return Err(SessionError::Invalid {
            path: shown.to_path_buf(),
            message: format!("only {written} of {} bytes could be appended", line.len()),
        });
    }
    // With O_APPEND the offset is now just past the bytes this write put
    // wherever the end of the file was at that moment.
    let end = f.stream_position().map_err(io)?;
    verify_landed(shown, &f, end, line.as_bytes())?;
    let now = fs::metadata(&lock.real).map_err(io)?;
    if !lock::same_file(&now, &locked) {
        return Err(replaced(shown));
    }
    Ok(id)
}

fn replaced(path: &Path) -> SessionError {
    SessionError::Refused {
        path: path.to_path_buf(),
        reason: "another program replaced the file while piscope was writing to it; \
                 piscope's entry may be missing, try again"
            .to_string(),
    }
}

/// Checks that `line` is in `file` whole, ending at `end`, and starts a
/// line: another program may have written the first part of a line just
/// before it (the part after then follows piscope's line).
fn verify_landed(path: &Path, file: &File, end: u64, line: &[u8]) -> Result<(), SessionError> {
    let io = |e| SessionError::io(path, e);
    let start = end.checked_sub(line.len() as u64).ok_or_else(|| {
        io(std::io::Error::other(
            "the file is shorter than the line just appended",
        ))
    })?;
    let from = start.saturating_sub(1);
    let mut buf = vec![0u8; (end - from) as usize];
    read_at(file, &mut buf, from).map_err(io)?;
    let (before, landed) = if start == 0 {
        (b'\n', &buf[..])
    } else {
        (buf[0], &buf[1..])
    };
    if landed != line {
        return Err(SessionError::AppendNotVerified {
            path: path.to_path_buf(),
            line: line_number_at(file, start).map_err(io)?,
            reason: "piscope's entry is not in the file as it was written (another program \
                     changed the file meanwhile); check the file"
                .to_string(),
        });
    }
    if before != b'\n' {
        return Err(SessionError::AppendNotVerified {
            path: path.to_path_buf(),
            line: line_number_at(file, start).map_err(io)?,
            reason: "piscope's entry was appended inside a line another program was writing, \
                     so that line is now split around it (pi skips both halves); check the file"
                .to_string(),
        });
    }
    Ok(())
}

/// The 1-based number of the line holding byte `offset`.
fn line_number_at(mut file: &File, offset: u64) -> std::io::Result<u64> {
    file.seek(SeekFrom::Start(0))?;
    let mut left = offset;
    let mut lines = 1;
    let mut buf = vec![0u8; 64 * 1024];
    while left > 0 {
        let want = buf.len().min(left as usize);
        let n = file.read(&mut buf[..want])?;
        if n == 0 {
            break;
        }
        lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        left -= n as u64;
    }
    Ok(lines)
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

/// Creates a new file with the bytes `write` writes (buffered), whole or
/// not at all: written to a temporary file in the same folder, synced, then
/// linked in under its name (which fails rather than replace a file that
/// already exists). The new file gets the owner and group in `owner` when
/// this process may give it them (a fork made by root stays its session
/// owner's). When `write` fails, nothing is created.
pub(crate) fn write_new_file_with(
    path: &Path,
    owner: Option<&fs::Metadata>,
    write: impl FnOnce(&mut dyn Write) -> Result<(), SessionError>,
) -> Result<(), SessionError> {
    let io = |e| SessionError::io(path, e);
    if let Some(dir) = path.parent() {
        temp::sweep_stale_temps(dir);
    }
    let mut tmp = TempFile::beside(path, 0o666).map_err(io)?;
    {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, tmp.file());
        write(&mut out)?;
        out.flush().map_err(io)?;
    }
    if let Some(owner) = owner {
        // Best effort: a new file takes nothing from anyone.
        let _ = lock::give_owner_of(tmp.file(), owner);
    }
    tmp.file().sync_all().map_err(io)?;
    tmp.link_as(path).map_err(io)?;
    sync_dir(path);
    Ok(())
}

pub(crate) fn sync_dir(path: &Path) {
    if let Some(dir) = path.parent() {
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

/// Rewrites a legacy file as version 3: every line migrated as pi migrates
/// it, lines that do not parse carried over unchanged. The new text goes to
/// a locked temporary file beside the real file (symlinks resolved, so a
/// link stays a link and pi's target is what changes), gets the original's
/// owner, group and mode, is synced, and is renamed over the original. The
/// caller holds the write lock; it then also holds the new file's.
fn rewrite_migrated(session: &Session, lock: &mut WriteLock) -> Result<(), SessionError> {
    let shown = &session.path;
    let io = |e| SessionError::io(shown, e);
    let real = lock.real.clone();
    let original = fs::read(&real).map_err(io)?;
    let out = migrated_text(session, &original);
    let meta = lock.original().metadata().map_err(io)?;
    let mut tmp = TempFile::beside(&real, 0o600).map_err(io)?;
    // The owner first: a file piscope cannot give back stays as it was.
    lock::give_owner_of(tmp.file(), &meta).map_err(|e| SessionError::Refused {
        path: shown.clone(),
        reason: format!(
            "the file belongs to {}; piscope cannot give its migrated version the same owner \
             ({e}), so it changes nothing (run piscope as that user)",
            lock::owner_text(&meta)
        ),
    })?;
    tmp.file().write_all(&out).map_err(io)?;
    tmp.file().set_permissions(meta.permissions()).map_err(io)?;
    tmp.file().sync_all().map_err(io)?;
    // Lines pi appended while we worked would be lost by the rename.
    let now = fs::metadata(&real).map_err(io)?;
    let unchanged = lock::same_file(&now, &meta) && now.len() == original.len() as u64;
    if !unchanged {
        return Err(io(std::io::Error::other(
            "the file changed while it was being migrated; try again",
        )));
    }
    let new = tmp.rename_over(&real).map_err(io)?;
    lock.adopt(new);
    sync_dir(&real);
    Ok(())
}

/// The text of a legacy file migrated to version 3, line by line, each line
/// ending as it did (one line out for each line in).
pub(crate) fn migrated_text(session: &Session, original: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(original.len() + session.entries.len() * 40);
    let mut by_offset = session
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.span().offset, i))
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
                    Some(migrate::migrated_line(
                        &session.entries[i],
                        session.header.version,
                        text,
                    ))
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan that keeps no entry finds what the full reader finds: pi's
    /// leaf, and which ids name an entry (a missing id, an id in the file,
    /// and the key entries without an id share).
    #[test]
    fn the_tail_scan_reads_like_the_session() {
        let mut checked = 0;
        for path in crate::session::read::file::test_session_files() {
            let Ok(session) = Session::open(&path) else {
                assert!(scan_tail(&path, None, "x").is_err(), "{}", path.display());
                continue;
            };
            // A legacy file is migrated before its tail is read.
            if session.is_legacy() {
                continue;
            }
            let mut probes = vec!["no-such-id-here".to_string(), jskey_undefined()];
            probes.extend(
                session
                    .entries
                    .iter()
                    .filter_map(|e| e.id.as_deref().map(str::to_string))
                    .step_by(7),
            );
            for probe in &probes {
                let tail = scan_tail(&path, Some(probe), probe).unwrap();
                let found = session.find(probe).is_some();
                assert_eq!(tail.target_found, found, "{} {probe:?}", path.display());
                assert_eq!(tail.candidate_taken, found, "{} {probe:?}", path.display());
                assert_eq!(
                    tail.leaf.as_deref(),
                    session.leaf_id(),
                    "{}",
                    path.display()
                );
                assert_eq!(tail.version, session.header.version);
            }
            checked += 1;
        }
        assert!(checked > 50, "{checked}");
    }

    fn jskey_undefined() -> String {
        crate::session::line::jskey::UNDEFINED.to_string()
    }
}
