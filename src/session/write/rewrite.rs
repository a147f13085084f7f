//! Replacing a session file by a new version of itself (a pruned one), whole
//! or not at all, with the original handed over first (to the trash).
//!
//! The new text goes to a locked temporary file beside the real file, gets
//! the original's owner, group and mode, and is synced. The original is then
//! hard-linked, under its own name, into a hidden folder beside it
//! (`.piscope-original-<8 hex>/`) and that link is given to the caller (who
//! moves it to the trash, so the trash shows the session's own name); only
//! then is the temporary file renamed over the original. A kill at any
//! moment leaves the path naming either the original or the new version,
//! and the original's bytes are never without a name: at worst a hidden
//! folder holds a second link to the live file, which the next rewrite in
//! that folder removes.

use crate::session::SessionError;
use crate::session::write::lock::{self, WriteLock};
use crate::session::write::temp::TempFile;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The hidden folders that hold an original on its way to the trash.
const ORIGINAL_DIR: &str = ".piscope-original-";

/// A leftover folder younger than this may belong to a rewrite still at work.
const LEFTOVER_AGE: Duration = Duration::from_secs(60);

/// The original of a file about to be replaced, for the caller to keep.
pub struct Original<'a> {
    /// The file's real path (symlinks resolved).
    pub real: &'a Path,
    /// A second name of it (same inode, same file name) to take away.
    pub link: &'a Path,
    /// What will replace it.
    pub new: Replacement,
}

/// What replaces a file, as a record of it keeps it: its length and xxh3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replacement {
    pub len: u64,
    pub xxh3: u64,
}

impl Replacement {
    pub fn of(bytes: &[u8]) -> Replacement {
        Replacement {
            len: bytes.len() as u64,
            xxh3: xxhash_rust::xxh3::xxh3_64(bytes),
        }
    }
}

/// Writes the new text of a file (see [`replace_locked`]).
pub(crate) type WriteNew<'a> = dyn FnMut(&mut dyn Write) -> Result<(), SessionError> + 'a;

/// Replaces the file `lock` holds (its text was `original` when read under
/// the lock) by `new`. `keep_original` gets a second name of the original
/// file (same inode, same file name) and must take it away (to the trash);
/// if it fails, nothing is changed. The file must still be what was read
/// when the rename happens, or nothing is changed.
pub(crate) fn replace_locked(
    lock: &mut WriteLock,
    shown: &Path,
    original: &[u8],
    new: &[u8],
    keep_original: &mut dyn FnMut(Original<'_>) -> Result<(), String>,
) -> Result<(), SessionError> {
    let io = |e| SessionError::io(shown, e);
    let mut write = |out: &mut dyn Write| out.write_all(new).map_err(io);
    replace_locked_with(
        lock,
        shown,
        original.len() as u64,
        &mut write,
        keep_original,
    )
    .map(|_| ())
}

/// [`replace_locked`] with the new text written by `write` as it is made
/// (to the temporary file, never held whole), the original `original_len`
/// bytes long when read under the lock. If `write` fails, nothing changes.
/// What was written, once it stands in the original's place.
pub(crate) fn replace_locked_with(
    lock: &mut WriteLock,
    shown: &Path,
    original_len: u64,
    write: &mut WriteNew<'_>,
    keep_original: &mut dyn FnMut(Original<'_>) -> Result<(), String>,
) -> Result<Replacement, SessionError> {
    let io = |e| SessionError::io(shown, e);
    let real = lock.real.clone();
    let meta = lock.original().metadata().map_err(io)?;
    lock::refuse_hard_links(shown, &meta)?;
    if let Some(dir) = real.parent() {
        sweep_leftovers(dir);
    }
    let mut tmp = TempFile::beside(&real, 0o600).map_err(io)?;
    lock::give_owner_of(tmp.file(), &meta).map_err(|e| SessionError::Refused {
        path: shown.to_path_buf(),
        reason: format!(
            "the file belongs to {}; piscope cannot give its new version the same owner ({e}), \
             so it changes nothing (run piscope as that user)",
            lock::owner_text(&meta)
        ),
    })?;
    let mut out =
        crate::hashing::Hashing::new(std::io::BufWriter::with_capacity(1 << 20, tmp.file()));
    write(&mut out)?;
    out.flush().map_err(io)?;
    let new = Replacement {
        len: out.len(),
        xxh3: out.digest(),
    };
    drop(out);
    tmp.file().set_permissions(meta.permissions()).map_err(io)?;
    tmp.file().sync_all().map_err(io)?;
    let unchanged = || -> Result<(), SessionError> {
        let now = fs::metadata(&real).map_err(io)?;
        if lock::same_file(&now, &meta) && now.len() == original_len {
            Ok(())
        } else {
            Err(SessionError::Refused {
                path: shown.to_path_buf(),
                reason: "the file changed while piscope was rewriting it (pi may be writing); \
                         nothing changed, try again"
                    .to_string(),
            })
        }
    };
    unchanged()?;
    let held = OriginalLink::make(&real).map_err(io)?;
    if let Err(why) = keep_original(Original {
        real: &real,
        link: &held.link,
        new,
    }) {
        held.undo();
        return Err(SessionError::Refused {
            path: shown.to_path_buf(),
            reason: format!("the original could not be kept ({why}); nothing changed"),
        });
    }
    // Lines pi appended meanwhile would be lost by the rename.
    unchanged()?;
    let new_file = tmp.rename_over(&real).map_err(io)?;
    lock.adopt(new_file);
    crate::session::write::append::sync_dir(&real);
    held.finish();
    // pi appends by path: a line it wrote between the check above and the
    // rename went to the original, which is no longer at the path.
    carry_late_lines(lock.original(), original_len, new.len, &real).map_err(|why| {
        SessionError::Refused {
            path: shown.to_path_buf(),
            reason: why,
        }
    })?;
    Ok(new)
}

/// How long the original is watched for a late append after the rename.
const SETTLE: Duration = Duration::from_millis(2);

/// Lines appended to the `old` file past the `copied` bytes the rewrite
/// read are carried to the new file at `real` (whose text was `new`) when
/// each hangs on the kept tree: its `parentId` is an id of the new file or
/// of a line carried before it. Otherwise the original is put back at
/// `real` whole (with anything appended to the new file since), and the
/// error says so: nothing pi wrote is lost either way.
fn carry_late_lines(old: &fs::File, copied: u64, new_len: u64, real: &Path) -> Result<(), String> {
    let mut carried = copied;
    let mut ids: Option<std::collections::HashSet<String>> = None;
    let mut quiet_rounds = 0;
    let started = std::time::Instant::now();
    while quiet_rounds < 2 {
        let late = read_from(old, carried).map_err(|e| e.to_string())?;
        if late.is_empty() {
            // A writer that opened the original before the rename may not
            // have written yet, however long it was held up.
            if open_elsewhere(old) && started.elapsed() < HELD_OPEN {
                quiet_rounds = 0;
            } else {
                quiet_rounds += 1;
            }
            std::thread::sleep(SETTLE);
            continue;
        }
        quiet_rounds = 0;
        // The new file's own lines (what was written, not what came since).
        let ids = match &mut ids {
            Some(ids) => ids,
            None => {
                let new = fs::File::open(real)
                    .and_then(|f| read_span(&f, 0, new_len))
                    .map_err(|e| e.to_string())?;
                ids.insert(ids_of(&new))
            }
        };
        let whole = late.ends_with(b"\n");
        let chains = whole
            && late
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .all(|line| hangs_on(line, ids));
        if !chains {
            return put_back(old, new_len + (carried - copied), real);
        }
        let mut out = fs::OpenOptions::new()
            .append(true)
            .open(real)
            .map_err(|e| e.to_string())?;
        out.write_all(&late).map_err(|e| e.to_string())?;
        out.sync_all().map_err(|e| e.to_string())?;
        carried += late.len() as u64;
    }
    Ok(())
}

/// How long a rewrite waits, at most, for another program to close the
/// original it opened before the rename (a viewer may hold it for hours;
/// pi holds it for one append).
const HELD_OPEN: Duration = Duration::from_secs(2);

/// Whether the file is open anywhere but in this handle: in another
/// process, or in another of this process's descriptors (pi opens the
/// session for each append, and one that opened it before the rename
/// writes to the original). Read from `/proc`, where this user's
/// processes show their open files.
#[cfg(target_os = "linux")]
fn open_elsewhere(file: &fs::File) -> bool {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = file.metadata() else {
        return false;
    };
    let me = std::process::id().to_string();
    let own = file.as_raw_fd().to_string();
    let Ok(procs) = fs::read_dir("/proc") else {
        return false;
    };
    for p in procs.flatten() {
        let pid = p.file_name();
        let Some(pid) = pid
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Ok(fds) = fs::read_dir(p.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if pid == me && fd.file_name().to_str() == Some(own.as_str()) {
                continue;
            }
            if fs::metadata(fd.path()).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
            {
                return true;
            }
        }
    }
    false
}

#[cfg(not(target_os = "linux"))]
fn open_elsewhere(_file: &fs::File) -> bool {
    false
}

/// The bytes of `file` from `offset` to its end.
fn read_from(file: &fs::File, offset: u64) -> std::io::Result<Vec<u8>> {
    read_span(file, offset, u64::MAX)
}

/// Up to `len` bytes of `file` from `offset`.
fn read_span(file: &fs::File, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file;
    f.seek(SeekFrom::Start(offset))?;
    let mut out = Vec::new();
    f.take(len).read_to_end(&mut out)?;
    Ok(out)
}

/// Every entry id in a session's text.
fn ids_of(text: &[u8]) -> std::collections::HashSet<String> {
    text.split(|&b| b == b'\n')
        .filter_map(|l| serde_json::from_slice::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("id").and_then(|i| i.as_str()).map(str::to_string))
        .collect()
}

/// The line is an entry whose parent is in `ids`; its own id joins them.
fn hangs_on(line: &[u8], ids: &mut std::collections::HashSet<String>) -> bool {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
        return false;
    };
    let (Some(id), Some(parent)) = (
        v.get("id").and_then(|i| i.as_str()),
        v.get("parentId").and_then(|p| p.as_str()),
    ) else {
        return false;
    };
    if !ids.contains(parent) {
        return false;
    }
    ids.insert(id.to_string());
    true
}

/// The original goes back at `real`, whole, followed by what was appended
/// to the new file past its `new_len` bytes.
fn put_back(old: &fs::File, new_len: u64, real: &Path) -> Result<(), String> {
    let mut text = read_from(old, 0).map_err(|e| e.to_string())?;
    let since = fs::File::open(real)
        .and_then(|f| read_from(&f, new_len))
        .unwrap_or_default();
    text.extend_from_slice(&since);
    let meta = old.metadata().map_err(|e| e.to_string())?;
    let mut tmp = TempFile::beside(real, 0o600).map_err(|e| e.to_string())?;
    let _ = lock::give_owner_of(tmp.file(), &meta);
    tmp.file().write_all(&text).map_err(|e| e.to_string())?;
    let _ = tmp.file().set_permissions(meta.permissions());
    tmp.file().sync_all().map_err(|e| e.to_string())?;
    tmp.rename_over(real).map_err(|e| e.to_string())?;
    crate::session::write::append::sync_dir(real);
    Err(
        "pi wrote to the session while piscope rewrote it, and its lines do not hang on the \
         entries kept; the original is back in place, with what pi wrote (the trash holds a copy \
         as it was)"
            .to_string(),
    )
}

/// A second name of the original, in a hidden folder of its own beside it.
struct OriginalLink {
    dir: PathBuf,
    link: PathBuf,
}

impl OriginalLink {
    fn make(real: &Path) -> std::io::Result<OriginalLink> {
        let parent = real.parent().unwrap_or(Path::new("."));
        let name = real
            .file_name()
            .ok_or_else(|| std::io::Error::other("the file has no name"))?;
        for _ in 0..32 {
            let dir = parent.join(format!(
                "{ORIGINAL_DIR}{}",
                crate::session::write::ids::random_hex_id()
            ));
            match fs::create_dir(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
            let link = dir.join(name);
            if let Err(e) = fs::hard_link(real, &link) {
                let _ = fs::remove_dir(&dir);
                return Err(e);
            }
            return Ok(OriginalLink { dir, link });
        }
        Err(std::io::Error::other(
            "could not make a folder for the original",
        ))
    }

    /// Nothing changed: the second name goes again.
    fn undo(self) {
        let _ = fs::remove_file(&self.link);
        let _ = fs::remove_dir(&self.dir);
    }

    /// The link was taken away: the empty folder goes.
    fn finish(self) {
        if !self.link.exists() {
            let _ = fs::remove_dir(&self.dir);
        }
    }
}

/// Whether `name` is one of the hidden folders of [`replace_locked`].
pub fn is_original_dir(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_some_and(|n| n.starts_with(ORIGINAL_DIR))
}

/// Removes what killed rewrites left in `dir`: hidden folders that are
/// empty, or hold only second names of files still live beside them. A
/// folder holding anything else (an original whose rewrite went through but
/// never reached the trash) is kept: its bytes are the user's.
pub fn sweep_leftovers(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if !is_original_dir(&entry.file_name()) {
            continue;
        }
        let path = entry.path();
        let old = fs::symlink_metadata(&path).is_ok_and(|m| {
            m.is_dir()
                && m.modified()
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age >= LEFTOVER_AGE)
        });
        if !old {
            continue;
        }
        let Ok(inside) = fs::read_dir(&path) else {
            continue;
        };
        for f in inside.flatten() {
            let live = dir.join(f.file_name());
            let same = match (fs::symlink_metadata(f.path()), fs::symlink_metadata(&live)) {
                (Ok(a), Ok(b)) => a.is_file() && lock::same_file(&a, &b),
                _ => false,
            };
            if same {
                let _ = fs::remove_file(f.path());
            }
        }
        let _ = fs::remove_dir(&path);
    }
}

/// Replaces the session at `path` by `new` when its bytes, read under
/// piscope's write lock, still pass `still` (a restore puts a pruned
/// session's original back only over exactly what the prune left), as
/// [`replace_locked`] does: atomically, the replaced version given to
/// `keep_original`, and lines pi appends meanwhile carried over (or the
/// replaced version put back, and the error says so).
pub fn replace_if(
    path: &Path,
    still: &dyn Fn(&[u8]) -> Result<(), String>,
    new: &[u8],
    keep_original: &mut dyn FnMut(Original<'_>) -> Result<(), String>,
) -> Result<(), SessionError> {
    let mut lock = crate::session::write::append::lock_for_append(path)?;
    let original = fs::read(&lock.real).map_err(|e| SessionError::io(path, e))?;
    still(&original).map_err(|reason| SessionError::Refused {
        path: path.to_path_buf(),
        reason,
    })?;
    replace_locked(&mut lock, path, &original, new, keep_original)
}

/// What [`move_with_header`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Moved {
    /// The new file is at the destination; the original was handed over.
    Moved,
    /// The destination already held exactly the new file (an earlier,
    /// interrupted move); the original was handed over.
    Finished,
}

/// Gives a session a new header (`set` changes its fields; every other
/// byte stays) at `dest`: in place when `dest` is the file itself (an
/// atomic rewrite, as [`replace_locked`]), else as a new file at `dest`
/// (never replacing one), after which `keep_original` gets the original
/// itself (`link` = `real`) to take away. Under piscope's write lock on
/// the original, which must not change meanwhile.
pub fn move_with_header(
    path: &Path,
    dest: &Path,
    set: &dyn Fn(&mut crate::session::line::raw_json::RawObject),
    keep_original: &mut dyn FnMut(Original<'_>) -> Result<(), String>,
) -> Result<Moved, SessionError> {
    let mut lock = crate::session::write::append::lock_for_append(path)?;
    let io = |e| SessionError::io(path, e);
    let session = crate::session::Session::open_with(path, crate::session::Detail::Outline)?;
    let original = fs::read(&lock.real).map_err(io)?;
    let new = with_header(&original, session.header.span.offset, set).ok_or_else(|| {
        SessionError::Invalid {
            path: path.to_path_buf(),
            message: format!(
                "line {}: the header is not a JSON object",
                session.header.line
            ),
        }
    })?;
    let real = lock.real.clone();
    let same_place = fs::canonicalize(dest.parent().unwrap_or(Path::new(".")))
        .ok()
        .zip(real.parent())
        .is_some_and(|(d, r)| d == r)
        && dest.file_name() == real.file_name();
    if same_place {
        replace_locked(&mut lock, path, &original, &new, keep_original)?;
        return Ok(Moved::Moved);
    }
    let meta = lock.original().metadata().map_err(io)?;
    let outcome = match fs::read(dest) {
        Ok(there) if there == new => Moved::Finished,
        Ok(_) => {
            return Err(SessionError::Refused {
                path: path.to_path_buf(),
                reason: format!("{} already exists; nothing changed", dest.display()),
            });
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = dest.parent() {
                fs::create_dir_all(dir).map_err(|e| SessionError::io(dir, e))?;
            }
            crate::session::write::append::write_new_file_with(dest, Some(&meta), |out| {
                out.write_all(&new).map_err(|e| SessionError::io(dest, e))
            })?;
            Moved::Moved
        }
        Err(e) => return Err(SessionError::io(dest, e)),
    };
    // pi may have appended meanwhile: then the new file lacks those lines.
    let now = fs::metadata(&real).map_err(io)?;
    if !(lock::same_file(&now, &meta) && now.len() == original.len() as u64) {
        if outcome == Moved::Moved {
            let _ = fs::remove_file(dest);
        }
        return Err(SessionError::Refused {
            path: path.to_path_buf(),
            reason: "the file changed while piscope was moving it (pi may be writing); nothing \
                     changed, try again"
                .to_string(),
        });
    }
    keep_original(Original {
        real: &real,
        link: &real,
        new: Replacement::of(&new),
    })
    .map_err(|why| SessionError::Refused {
        path: path.to_path_buf(),
        reason: format!(
            "moved to {}, but the original could not go to the trash ({why}); it is still there",
            dest.display()
        ),
    })?;
    // A line pi appended after the check above went to the original, now
    // in the trash: it follows the session to its new place.
    carry_late_lines(
        lock.original(),
        original.len() as u64,
        new.len() as u64,
        dest,
    )
    .map_err(|why| SessionError::Refused {
        path: path.to_path_buf(),
        reason: why,
    })?;
    Ok(outcome)
}

/// `original` with the header line at `offset` rewritten by `set` (its
/// line ending and a BOM kept).
fn with_header(
    original: &[u8],
    offset: u64,
    set: &dyn Fn(&mut crate::session::line::raw_json::RawObject),
) -> Option<Vec<u8>> {
    let start = offset as usize;
    let rest = original.get(start..)?;
    let end = start
        + rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |n| n + 1);
    let line = &original[start..end];
    let body_len = line.len()
        - line
            .iter()
            .rev()
            .take_while(|b| matches!(b, b'\n' | b'\r'))
            .count();
    let text = std::str::from_utf8(&line[..body_len]).ok()?;
    let (bom, text) = match text.strip_prefix('\u{FEFF}') {
        Some(t) => ("\u{FEFF}", t),
        None => ("", text),
    };
    let mut o = crate::session::line::raw_json::RawObject::parse(text).ok()?;
    set(&mut o);
    let mut out = Vec::with_capacity(original.len() + 64);
    out.extend_from_slice(&original[..start]);
    out.extend_from_slice(bom.as_bytes());
    out.extend_from_slice(o.to_json().as_bytes());
    out.extend_from_slice(&line[body_len..]);
    out.extend_from_slice(&original[end..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEPT: &str = "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null}\n";

    /// The original (`copied` then `late`) open as the old file, and the
    /// new text at `real`.
    fn setup(late: &str) -> (tempfile::TempDir, fs::File, PathBuf, String) {
        let dir = tempfile::tempdir().expect("temp dir");
        let old = dir.path().join("old.jsonl");
        let original =
            format!("{KEPT}{{\"type\":\"message\",\"id\":\"gone\",\"parentId\":\"a\"}}\n");
        fs::write(&old, format!("{original}{late}")).expect("write");
        let real = dir.path().join("s.jsonl");
        fs::write(&real, KEPT).expect("write");
        let file = fs::File::open(&old).expect("open");
        (dir, file, real, original)
    }

    #[test]
    fn late_lines_that_hang_on_the_kept_tree_are_carried() {
        let late = "{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"a\"}\n{\"type\":\"message\",\"id\":\"c\",\"parentId\":\"b\"}\n";
        let (_d, old, real, original) = setup(late);
        carry_late_lines(&old, original.len() as u64, KEPT.len() as u64, &real).expect("carried");
        assert_eq!(
            fs::read_to_string(&real).expect("read"),
            format!("{KEPT}{late}")
        );
    }

    #[test]
    fn late_lines_on_the_removed_branch_put_the_original_back() {
        let late = "{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"gone\"}\n";
        let (_d, old, real, original) = setup(late);
        let err = carry_late_lines(&old, original.len() as u64, KEPT.len() as u64, &real)
            .expect_err("put back");
        assert!(err.contains("the original is back in place"), "{err}");
        assert_eq!(
            fs::read_to_string(&real).expect("read"),
            format!("{original}{late}")
        );
    }
}
