//! piscope's write lock on a session file, and the checks a file must pass
//! before piscope changes it (writable, not hard-linked when rewritten).
//!
//! The lock is an advisory `flock` on the session file itself (its real
//! file: symlinks resolved), held for the whole of one write: re-reading the
//! tail, migrating a legacy file, appending, verifying. pi neither takes nor
//! needs it (its reads and appends go on as before); it only makes piscope's
//! own writers, in any number of processes, take turns. A lock on the file
//! rather than on a sibling lock file leaves nothing beside the sessions.
//! Because a migration renames a new file over the old one, a writer that
//! waited on the old file re-opens the path once it holds the lock and
//! starts again if the path now names another file; and the migrating
//! writer locks its new file before renaming it in, so nobody can slip in
//! between the rename and its append.

use crate::session::SessionError;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a writer waits for another piscope writer before giving up.
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Held while piscope writes to one session file; released on drop.
#[derive(Debug)]
pub(crate) struct WriteLock {
    /// The file written to: the session path with symlinks resolved.
    pub real: PathBuf,
    /// Locked handles: the file as it was when locked and, after a
    /// migration, the new file renamed over it.
    held: Vec<File>,
}

impl WriteLock {
    /// Waits (up to `LOCK_WAIT`) until no other piscope writer holds the
    /// file `path` names, and locks it.
    pub fn acquire(path: &Path) -> Result<WriteLock, SessionError> {
        let deadline = Instant::now() + LOCK_WAIT;
        loop {
            let real = fs::canonicalize(path).map_err(|e| SessionError::io(path, e))?;
            let file = crate::session::read::file::open_regular(&real)
                .map_err(|e| SessionError::io(path, e))?;
            loop {
                match try_lock(&file) {
                    Ok(true) => break,
                    Ok(false) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(10))
                    }
                    Ok(false) => {
                        return Err(SessionError::Refused {
                            path: path.to_path_buf(),
                            reason: format!(
                                "another piscope has been writing to it for {}s; try again",
                                LOCK_WAIT.as_secs()
                            ),
                        });
                    }
                    Err(e) => return Err(SessionError::io(path, e)),
                }
            }
            // Another writer may have migrated the file while we waited:
            // then the path names a new file, which is the one to lock.
            let now = fs::metadata(&real).map_err(|e| SessionError::io(path, e))?;
            let locked = file.metadata().map_err(|e| SessionError::io(path, e))?;
            if same_file(&now, &locked) {
                return Ok(WriteLock {
                    real,
                    held: vec![file],
                });
            }
            if Instant::now() >= deadline {
                return Err(SessionError::Refused {
                    path: path.to_path_buf(),
                    reason: "the file kept being replaced while piscope waited to write; try again"
                        .to_string(),
                });
            }
        }
    }

    /// Keeps the lock of `file` (already locked) too: the new file a
    /// migration renamed over the old one.
    pub fn adopt(&mut self, file: File) {
        self.held.push(file);
    }

    /// The file as it was when the lock was taken.
    pub fn original(&self) -> &File {
        &self.held[0]
    }

    /// The file the path names now (after a migration, the new one).
    pub fn current(&self) -> &File {
        self.held.last().unwrap_or(&self.held[0])
    }
}

/// Tries to take an exclusive `flock` on `file` without waiting:
/// `Ok(false)` when someone else holds it.
#[cfg(unix)]
pub(crate) fn try_lock(file: &File) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: flock on a descriptor we own; no memory is passed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EWOULDBLOCK) => return Ok(false),
            _ => return Err(e),
        }
    }
}

#[cfg(not(unix))]
pub(crate) fn try_lock(_file: &File) -> std::io::Result<bool> {
    Ok(true)
}

#[cfg(unix)]
pub(crate) fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Without inode numbers there is no telling two files apart here.
#[cfg(not(unix))]
pub(crate) fn same_file(_a: &fs::Metadata, _b: &fs::Metadata) -> bool {
    true
}

/// Refuses a file its owner made read-only (no write bit at all, which
/// even root respects here) or one this process may not write.
#[cfg(unix)]
pub(crate) fn refuse_read_only(
    shown: &Path,
    real: &Path,
    meta: &fs::Metadata,
) -> Result<(), SessionError> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode() & 0o7777;
    let refused = |why: String| SessionError::Refused {
        path: shown.to_path_buf(),
        reason: why,
    };
    if mode & 0o222 == 0 {
        return Err(refused(format!(
            "the file is read-only (mode {mode:04o}); piscope leaves read-only sessions as they are \
             (chmod u+w to allow changes)"
        )));
    }
    let c_path = std::ffi::CString::new(real.as_os_str().as_bytes())
        .map_err(|e| SessionError::io(shown, std::io::Error::other(e)))?;
    // SAFETY: a NUL-terminated path that lives across the call.
    let ok = unsafe {
        libc::faccessat(
            libc::AT_FDCWD,
            c_path.as_ptr(),
            libc::W_OK,
            libc::AT_EACCESS,
        )
    } == 0;
    if !ok {
        let e = std::io::Error::last_os_error();
        return Err(refused(format!(
            "the file is read-only for this user ({e}); piscope changes nothing"
        )));
    }
    Ok(())
}

#[cfg(not(unix))]
pub(crate) fn refuse_read_only(
    shown: &Path,
    _real: &Path,
    meta: &fs::Metadata,
) -> Result<(), SessionError> {
    if meta.permissions().readonly() {
        return Err(SessionError::Refused {
            path: shown.to_path_buf(),
            reason: "the file is read-only; piscope leaves read-only sessions as they are".into(),
        });
    }
    Ok(())
}

/// Refuses to rewrite a file with other hard links: the rename would leave
/// them holding the old text.
#[cfg(unix)]
pub(crate) fn refuse_hard_links(shown: &Path, meta: &fs::Metadata) -> Result<(), SessionError> {
    use std::os::unix::fs::MetadataExt;
    if meta.nlink() > 1 {
        return Err(SessionError::Refused {
            path: shown.to_path_buf(),
            reason: format!(
                "the file has {} hard links; migrating it to version 3 would leave the other \
                 names with the old text, so piscope changes nothing (copy it to a file of its \
                 own first)",
                meta.nlink()
            ),
        });
    }
    Ok(())
}

#[cfg(not(unix))]
pub(crate) fn refuse_hard_links(_shown: &Path, _meta: &fs::Metadata) -> Result<(), SessionError> {
    Ok(())
}

/// Gives `file` the owner and group in `meta` (when they differ from its
/// own), so a file rewritten by another user (root) stays its owner's.
#[cfg(unix)]
pub(crate) fn give_owner_of(file: &File, meta: &fs::Metadata) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;
    let own = file.metadata()?;
    if own.uid() == meta.uid() && own.gid() == meta.gid() {
        return Ok(());
    }
    // SAFETY: fchown on a descriptor we own.
    if unsafe { libc::fchown(file.as_raw_fd(), meta.uid(), meta.gid()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(unix))]
pub(crate) fn give_owner_of(_file: &File, _meta: &fs::Metadata) -> std::io::Result<()> {
    Ok(())
}

/// "uid 1000, gid 1000" of a file, for messages.
#[cfg(unix)]
pub(crate) fn owner_text(meta: &fs::Metadata) -> String {
    use std::os::unix::fs::MetadataExt;
    format!("uid {}, gid {}", meta.uid(), meta.gid())
}

#[cfg(not(unix))]
pub(crate) fn owner_text(_meta: &fs::Metadata) -> String {
    String::new()
}
