//! piscope's temporary files: a whole new version of a session, written
//! beside it before a rename. Each is named `.<session>.piscope-tmp-<8 hex>`
//! and locked (`flock`) for as long as its writer lives, so the next write
//! to or listing of that folder can tell a killed writer's leftover from a
//! live one and remove it. None of these names ends in `.jsonl`, so neither
//! pi nor piscope ever lists one as a session.

use crate::session::write::lock::{same_file, try_lock};
use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What marks a name as one of piscope's temporary files.
const MARK: &str = ".piscope-tmp-";

/// Temporary files of earlier piscope versions
/// (`.<session>.jsonl.<pid>-<8 hex>.tmp`) took no lock; they are removed
/// once nobody could still be writing them.
const OLD_STYLE_AGE: Duration = Duration::from_secs(15 * 60);

/// Whether `name` is one of piscope's temporary files (never a session).
pub fn is_piscope_temp(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    is_new_style(name) || is_old_style(name)
}

fn is_new_style(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|rest| rest.rsplit_once(MARK))
        .is_some_and(|(session, tag)| !session.is_empty() && is_hex8(tag))
}

fn is_old_style(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.').and_then(|r| r.strip_suffix(".tmp")) else {
        return false;
    };
    let Some((session, tag)) = rest.rsplit_once('.') else {
        return false;
    };
    let Some((pid, hex)) = tag.split_once('-') else {
        return false;
    };
    session.len() > ".jsonl".len()
        && session.ends_with(".jsonl")
        && !pid.is_empty()
        && pid.bytes().all(|b| b.is_ascii_digit())
        && is_hex8(hex)
}

fn is_hex8(s: &str) -> bool {
    s.len() == 8 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Removes the leftovers of killed piscope writers in `dir`: temporary
/// files nobody holds. Best effort: what cannot be removed stays.
pub fn sweep_stale_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if is_piscope_temp(&entry.file_name()) {
            remove_if_stale(&entry.path());
        }
    }
}

/// Removes `path` if it is one of piscope's temporary files and its writer
/// is gone. Returns whether it was removed.
pub fn remove_if_stale(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(OsStr::to_str) else {
        return false;
    };
    let Ok(meta) = fs::symlink_metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    if is_old_style(name) {
        let old = meta
            .modified()
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= OLD_STYLE_AGE);
        return old && fs::remove_file(path).is_ok();
    }
    if !is_new_style(name) {
        return false;
    }
    let Ok(file) = open_no_follow(path) else {
        return false;
    };
    // A live writer holds its temp locked from creation to rename.
    if !try_lock(&file).unwrap_or(false) {
        return false;
    }
    // Still the file we locked, not a new one under the same name.
    let same = match (fs::symlink_metadata(path), file.metadata()) {
        (Ok(now), Ok(locked)) => same_file(&now, &locked),
        _ => false,
    };
    same && fs::remove_file(path).is_ok()
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// A temporary file beside the file it will become, locked while it
/// exists; removed on drop unless it was renamed into place.
pub(crate) struct TempFile {
    path: PathBuf,
    file: Option<File>,
}

impl TempFile {
    /// A new, empty, locked temporary file beside `target`, created with
    /// `mode` (less the umask).
    pub fn beside(target: &Path, mode: u32) -> io::Result<TempFile> {
        let dir = target.parent().unwrap_or(Path::new("."));
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for _ in 0..32 {
            let path = dir.join(format!(
                ".{name}{MARK}{}",
                crate::session::write::ids::random_hex_id()
            ));
            let file = match create_new(&path, mode) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!("cannot create a temporary file in {}: {e}", dir.display()),
                    ));
                }
            };
            // A sweeper may take a new temp between its creation and our
            // lock; it then removes it, and we start again under a new name.
            if !try_lock(&file)? {
                continue;
            }
            let still_here = fs::symlink_metadata(&path)
                .and_then(|now| Ok(same_file(&now, &file.metadata()?)))
                .unwrap_or(false);
            if still_here {
                return Ok(TempFile {
                    path,
                    file: Some(file),
                });
            }
        }
        Err(io::Error::other(format!(
            "could not create a temporary file in {}",
            dir.display()
        )))
    }

    /// The open file (read and write).
    pub fn file(&mut self) -> &File {
        self.file
            .as_ref()
            .expect("a temp file is open until it is consumed")
    }

    /// Renames the temp over `target`; returns its handle, still locked.
    pub fn rename_over(mut self, target: &Path) -> io::Result<File> {
        fs::rename(&self.path, target)?;
        Ok(self
            .file
            .take()
            .expect("a temp file is open until it is consumed"))
    }

    /// Links the temp in as `target`, which must not exist yet; the temp's
    /// own name is then removed.
    pub fn link_as(self, target: &Path) -> io::Result<()> {
        fs::hard_link(&self.path, target)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.file.is_some() {
            // We hold its lock, so no sweeper has replaced it: still ours.
            let _ = fs::remove_file(&self.path);
        }
    }
}

#[cfg(unix)]
fn create_new(path: &Path, mode: u32) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
}

#[cfg(not(unix))]
fn create_new(path: &Path, _mode: u32) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_are_recognised_and_sessions_are_not() {
        let yes = [
            ".2026-01-01T00-00-00-000Z_abc.jsonl.piscope-tmp-0123abcd",
            ".s.jsonl.piscope-tmp-ffffffff",
            ".s.jsonl.4242-0123abcd.tmp",
        ];
        let no = [
            "s.jsonl",
            ".s.jsonl",
            ".piscope-tmp-0123abcd",
            "s.jsonl.piscope-tmp-0123abcd",
            ".s.jsonl.piscope-tmp-0123abc",
            ".s.jsonl.piscope-tmp-0123abcd.jsonl",
            ".s.txt.4242-0123abcd.tmp",
            ".s.jsonl.x42-0123abcd.tmp",
        ];
        for n in yes {
            assert!(is_piscope_temp(OsStr::new(n)), "{n}");
        }
        for n in no {
            assert!(!is_piscope_temp(OsStr::new(n)), "{n}");
        }
    }

    #[test]
    fn an_old_style_temp_is_removed_once_old() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join(".s.jsonl.4242-0123abcd.tmp");
        let old = dir.path().join(".s.jsonl.4242-89abcdef.tmp");
        fs::write(&fresh, "x").unwrap();
        fs::write(&old, "x").unwrap();
        let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
        File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        sweep_stale_temps(dir.path());
        assert!(fresh.exists(), "its writer may still be at work");
        assert!(!old.exists());
    }

    #[test]
    fn a_live_temp_is_kept_and_a_dropped_one_removed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("s.jsonl");
        let mut t = TempFile::beside(&target, 0o600).unwrap();
        use std::io::Write;
        t.file().write_all(b"x").unwrap();
        sweep_stale_temps(dir.path());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "kept");
        drop(t);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "removed");
    }
}
