//! Deleting sessions safely: only pi session files inside the sessions
//! folder (symlinks resolved first), to the trash by default, and never a
//! silent fall back to a permanent delete when the trash fails.
//!
//! A file is checked once, before anyone is asked ([`check_deletable`]),
//! and what was checked is kept as a [`Deletable`]: the resolved path and
//! the identity (device and inode) of the file and of every folder on the
//! way to it. Between the question and the answer anything may change, so
//! [`delete_checked`] resolves and compares again just before it deletes,
//! and refuses if the path no longer leads to the same file by the same
//! folders. A file picked by clean-up rules carries them
//! ([`Deletable::while_picked_by`]): at the moment it goes, it is read again
//! and must still match every rule and still be quiet, so a session pi
//! wrote into while the question waited is kept.

use crate::catalog::housekeeping::clean::Rules;
use crate::catalog::housekeeping::confine::{self, ConfineError};
use crate::catalog::{SessionsFolder, in_use};
use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};

/// Where a deleted session goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteMode {
    Trash,
    Permanent,
}

/// Why a session was not deleted.
#[derive(Debug, thiserror::Error)]
pub enum DeleteError {
    #[error("{path}: not inside the sessions folder {folder}; not deleted")]
    Outside { path: PathBuf, folder: PathBuf },
    #[error("{path}: not a pi session file; not deleted")]
    NotASession { path: PathBuf },
    #[error("{path}: changed since it was confirmed ({why}); not deleted")]
    Changed { path: PathBuf, why: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: the trash failed: {reason}")]
    Trash { path: PathBuf, reason: String },
}

impl DeleteError {
    /// The trash could not take it (a permanent delete might).
    pub fn is_trash_failure(&self) -> bool {
        matches!(self, DeleteError::Trash { .. })
    }
}

/// Which object a path named when it was checked.
#[cfg(unix)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
}

#[cfg(unix)]
fn identity(meta: &Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    Identity {
        dev: meta.dev(),
        ino: meta.ino(),
    }
}

/// Without inode numbers, the creation time stands in for them.
#[cfg(not(unix))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    created: Option<std::time::SystemTime>,
    dir: bool,
}

#[cfg(not(unix))]
fn identity(meta: &Metadata) -> Identity {
    Identity {
        created: meta.created().ok(),
        dir: meta.is_dir(),
    }
}

/// A session file checked for deletion, as it was when checked: what a
/// confirmation agrees to, and all that [`delete_checked`] will delete.
#[derive(Debug, Clone)]
pub struct Deletable {
    /// The path as given.
    given: PathBuf,
    /// The path with symlinks resolved: what is deleted.
    real: PathBuf,
    /// The sessions folder as configured, and resolved.
    folder: PathBuf,
    root: PathBuf,
    /// Each folder from the top of `real` down, then the file itself.
    chain: Vec<(PathBuf, Identity)>,
    /// The clean-up rules that picked it, if any: they must still hold when
    /// it goes.
    picked_by: Option<Rules>,
}

impl Deletable {
    /// The path as given.
    pub fn path(&self) -> &Path {
        &self.given
    }

    /// The resolved path, which is what gets deleted.
    pub fn real(&self) -> &Path {
        &self.real
    }

    /// Keeps the file only while `rules` pick it: at the moment of the
    /// delete it is read again, and refused unless every rule still holds
    /// and it has not changed within [`in_use::RECENT`].
    pub fn while_picked_by(mut self, rules: &Rules) -> Deletable {
        self.picked_by = Some(rules.clone());
        self
    }

    /// The rules it was picked by still pick it, read afresh now, and it
    /// is quiet.
    fn still_picked(&self) -> Result<(), DeleteError> {
        let Some(rules) = &self.picked_by else {
            return Ok(());
        };
        if !in_use::is_quiet(&self.real) {
            let why = match in_use::changed_recently(&self.real, None) {
                Some(secs) => format!("it changed {secs}s ago; pi may be writing it"),
                None => "it changed within the last minute; pi may be writing it".to_string(),
            };
            return Err(self.changed(why));
        }
        let fresh = match crate::catalog::summarise_file(&self.real) {
            Ok(Some(s)) => s,
            Ok(None) => return Err(self.changed("it is no longer a pi session".to_string())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(self.changed("it is no longer there".to_string()));
            }
            Err(source) => {
                return Err(DeleteError::Io {
                    path: self.real.clone(),
                    source,
                });
            }
        };
        if rules.why(&fresh, crate::jstext::date::now_ms()).is_none() {
            return Err(self.changed("the clean-up rules no longer pick it".to_string()));
        }
        Ok(())
    }

    /// Everything it was confirmed on, checked again now: the rules that
    /// picked it (when any) and every step of its path (see
    /// [`delete_checked`]). An archive moves it after this check.
    pub(crate) fn recheck(&self) -> Result<(), DeleteError> {
        self.still_picked()?;
        self.verify()
    }

    /// Unlinks the file by name inside the confirmed folder, refusing if
    /// the folder or the file is another now (an archive's last step, once
    /// the file has its new name).
    pub(crate) fn unlink(&self) -> Result<(), DeleteError> {
        remove(self)
    }

    /// The file's own identity (the chain ends with it).
    fn file(&self) -> Option<Identity> {
        self.chain.last().map(|(_, id)| *id)
    }

    /// The identity of the folder holding the file.
    #[cfg(unix)]
    fn parent(&self) -> Option<Identity> {
        self.chain.iter().rev().nth(1).map(|(_, id)| *id)
    }

    fn changed(&self, why: String) -> DeleteError {
        DeleteError::Changed {
            path: self.real.clone(),
            why,
        }
    }

    /// Resolves the path again and compares every step with what was
    /// checked: the same sessions folder, the same resolved path, no
    /// symlink where there was a folder, the same folders and the same file.
    fn verify(&self) -> Result<(), DeleteError> {
        match std::fs::canonicalize(&self.folder) {
            Ok(root) if root == self.root => {}
            Ok(root) => {
                return Err(self.changed(format!(
                    "the sessions folder now leads to {}",
                    root.display()
                )));
            }
            Err(source) => {
                return Err(DeleteError::Io {
                    path: self.folder.clone(),
                    source,
                });
            }
        }
        match std::fs::canonicalize(&self.given) {
            Ok(real) if real == self.real => {}
            Ok(real) => {
                return Err(self.changed(format!("it now leads to {}", real.display())));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(self.changed("it is no longer there".to_string()));
            }
            Err(source) => {
                return Err(DeleteError::Io {
                    path: self.given.clone(),
                    source,
                });
            }
        }
        let last = self.chain.len().saturating_sub(1);
        for (i, (step, was)) in self.chain.iter().enumerate() {
            let meta = match std::fs::symlink_metadata(step) {
                Ok(m) => m,
                Err(e) => {
                    return Err(self.changed(format!("{}: {e}", step.display())));
                }
            };
            if meta.file_type().is_symlink() {
                return Err(self.changed(format!("{} is now a symlink", step.display())));
            }
            if identity(&meta) != *was {
                let why = if i == last {
                    "another file is in its place".to_string()
                } else {
                    format!("the folder {} was replaced", step.display())
                };
                return Err(self.changed(why));
            }
        }
        Ok(())
    }
}

/// Checks that `path` may be deleted: after resolving symlinks it is a file
/// inside `folder` whose first parsed line is a pi session header. Returns
/// what was checked; [`delete_checked`] deletes it, if it is still the same.
pub fn check_deletable(folder: &SessionsFolder, path: &Path) -> Result<Deletable, DeleteError> {
    let io = |source| DeleteError::Io {
        path: path.to_path_buf(),
        source,
    };
    let real = confine::inside(folder, path).map_err(|e| match e {
        ConfineError::Outside { .. } => DeleteError::Outside {
            path: path.to_path_buf(),
            folder: folder.dir.clone(),
        },
        ConfineError::Io { path, source } => DeleteError::Io { path, source },
    })?;
    let root = std::fs::canonicalize(&folder.dir).map_err(|source| DeleteError::Io {
        path: folder.dir.clone(),
        source,
    })?;
    let not_a_session = || DeleteError::NotASession {
        path: path.to_path_buf(),
    };
    let meta = std::fs::symlink_metadata(&real).map_err(io)?;
    if !meta.is_file() || real.extension().is_none_or(|e| e != "jsonl") {
        return Err(not_a_session());
    }
    // The header is read from the very file whose identity is kept.
    let mut file = open_no_follow(&real).map_err(io)?;
    let opened = file.metadata().map_err(io)?;
    if !opened.is_file() || !is_session_file(&mut file) {
        return Err(not_a_session());
    }
    let mut chain = Vec::new();
    let mut ancestors: Vec<&Path> = real.ancestors().collect();
    ancestors.reverse();
    for step in ancestors {
        let m = std::fs::symlink_metadata(step).map_err(io)?;
        chain.push((step.to_path_buf(), identity(&m)));
    }
    let checked = Deletable {
        given: path.to_path_buf(),
        real,
        folder: folder.dir.clone(),
        root,
        chain,
        picked_by: None,
    };
    if checked.file() != Some(identity(&opened)) {
        return Err(checked.changed("another file took its place while it was read".to_string()));
    }
    // The walk above raced nothing: every step is as resolved.
    checked.verify()?;
    Ok(checked)
}

/// Opens a file for reading, refusing a symlink in the last step and never
/// waiting on a pipe.
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.open(path)
}

/// The first parsed line is a pi session header.
fn is_session_file(file: &mut File) -> bool {
    let mut state = crate::catalog::summary::read::SummaryState::default();
    // Reading stops at the first parsed line when it is not a header.
    state
        .read_on(file)
        .is_ok_and(|done| done.header.is_some() && !done.not_a_session)
}

/// Deletes one checked file (from [`check_deletable`]), after checking
/// again, at this moment, that its path still leads to the same file
/// through the same folders; if anything changed it is refused with
/// [`DeleteError::Changed`].
pub fn delete_checked(file: &Deletable, mode: DeleteMode) -> Result<(), DeleteError> {
    let batch = crate::catalog::housekeeping::journal::Batch::new(
        crate::catalog::housekeeping::journal::Reason::Delete,
    );
    delete_checked_for(file, mode, &batch)
}

/// [`delete_checked`], journalled as part of `batch` (a file sent to the
/// trash is recorded first, so `piscope restore` can put it back).
pub fn delete_checked_for(
    file: &Deletable,
    mode: DeleteMode,
    batch: &crate::catalog::housekeeping::journal::Batch,
) -> Result<(), DeleteError> {
    file.still_picked()?;
    match mode {
        DeleteMode::Trash => {
            file.verify()?;
            // Recorded first, so `piscope restore` can find it. A journal
            // that cannot be written (its folder unusable) costs only the
            // undo: the trash still takes the file, and a trash that fails
            // is reported as such, so the caller can offer what it offers.
            let recorded =
                crate::catalog::housekeeping::journal::describe(&file.real, batch.reason, None)
                    .and_then(|mut r| {
                        r.batch = Some(batch.id.clone());
                        crate::catalog::housekeeping::journal::append(&r)
                    });
            // The trash moves by path: the resolved one, just verified.
            trash::delete(&file.real).map_err(|e| DeleteError::Trash {
                path: file.real.clone(),
                reason: e.to_string(),
            })?;
            drop(recorded);
            Ok(())
        }
        DeleteMode::Permanent => {
            file.verify()?;
            remove(file)
        }
    }
}

/// Unlinks the file by name inside its folder, opened and checked to be the
/// confirmed folder: a folder swapped on the path after the check above
/// cannot redirect the unlink.
#[cfg(unix)]
fn remove(file: &Deletable) -> Result<(), DeleteError> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    let io = |source| DeleteError::Io {
        path: file.real.clone(),
        source,
    };
    let (Some(parent), Some(name)) = (file.real.parent(), file.real.file_name()) else {
        return Err(file.changed("it has no folder".to_string()));
    };
    let dir = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(parent)
        .map_err(|e| match e.raw_os_error() {
            // A symlink (or a file) now where the folder was.
            Some(libc::ELOOP | libc::ENOTDIR) => {
                file.changed(format!("the folder {} was replaced", parent.display()))
            }
            _ => io(e),
        })?;
    let dir_meta = dir.metadata().map_err(io)?;
    if Some(identity(&dir_meta)) != file.parent() {
        return Err(file.changed(format!("the folder {} was replaced", parent.display())));
    }
    let name = std::ffi::CString::new(name.as_bytes())
        .map_err(|_| file.changed("its name holds a NUL byte".to_string()))?;
    // SAFETY: `stat` is plain old data that fstatat fills in; the fd and the
    // name outlive the calls.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let found = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if found != 0 {
        return Err(io(std::io::Error::last_os_error()));
    }
    // dev_t and ino_t are of different widths from one system to another.
    #[allow(clippy::unnecessary_cast)]
    let same = Some(Identity {
        dev: st.st_dev as u64,
        ino: st.st_ino as u64,
    }) == file.file()
        && (st.st_mode & libc::S_IFMT) == libc::S_IFREG;
    if !same {
        return Err(file.changed("another file is in its place".to_string()));
    }
    // SAFETY: as above.
    if unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) } != 0 {
        return Err(io(std::io::Error::last_os_error()));
    }
    Ok(())
}

#[cfg(not(unix))]
fn remove(file: &Deletable) -> Result<(), DeleteError> {
    std::fs::remove_file(&file.real).map_err(|source| DeleteError::Io {
        path: file.real.clone(),
        source,
    })
}

/// Sessions without a single user message: what "delete empty sessions"
/// offers, for review.
pub fn empty_sessions(
    sessions: &[crate::catalog::SessionSummary],
) -> Vec<&crate::catalog::SessionSummary> {
    sessions.iter().filter(|s| s.user_messages == 0).collect()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::catalog::Layout;

    const SESSION: &str = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n";

    /// A sessions folder with `proj/s.jsonl`, and `outside/s.jsonl` beside it.
    fn setup() -> (tempfile::TempDir, SessionsFolder, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = std::fs::canonicalize(tmp.path()).expect("resolve");
        let sessions = root.join("sessions");
        for d in ["sessions/proj", "outside"] {
            std::fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        let file = sessions.join("proj/s.jsonl");
        let outside = root.join("outside/s.jsonl");
        std::fs::write(&file, SESSION).expect("write");
        std::fs::write(&outside, SESSION).expect("write");
        let folder = SessionsFolder::at(sessions, Layout::PerProject, root);
        (tmp, folder, file, outside)
    }

    // The unlink itself, past the path checks (as if the swap came just
    // after them): the folder it opens must still be the confirmed one.
    #[test]
    fn the_unlink_refuses_a_folder_swapped_after_the_checks() {
        let (_tmp, folder, file, outside) = setup();
        let checked = check_deletable(&folder, &file).expect("a session");
        let proj = folder.dir.join("proj");
        std::fs::rename(&proj, folder.dir.join("gone")).expect("move");
        std::os::unix::fs::symlink(outside.parent().expect("dir"), &proj).expect("symlink");
        let err = remove(&checked).expect_err("refused");
        assert!(err.to_string().contains("was replaced"), "{err}");
        assert!(outside.exists());
        // Not a symlink but another real folder, renamed into its place.
        std::fs::remove_file(&proj).expect("unlink");
        let other = folder.dir.join("other");
        std::fs::create_dir(&other).expect("mkdir");
        std::fs::write(other.join("s.jsonl"), SESSION).expect("write");
        std::fs::rename(&other, &proj).expect("rename");
        let err = remove(&checked).expect_err("refused");
        assert!(err.to_string().contains("was replaced"), "{err}");
        assert!(proj.join("s.jsonl").exists());
    }

    #[test]
    fn the_unlink_refuses_another_file_in_the_place() {
        let (_tmp, folder, file, _outside) = setup();
        let checked = check_deletable(&folder, &file).expect("a session");
        let new = file.with_extension("new");
        std::fs::write(&new, SESSION).expect("write");
        std::fs::rename(&new, &file).expect("rename");
        let err = remove(&checked).expect_err("refused");
        assert!(
            err.to_string().contains("another file is in its place"),
            "{err}"
        );
        assert!(file.exists());
        // The same file, unchanged: deleted.
        let checked = check_deletable(&folder, &file).expect("a session");
        delete_checked(&checked, DeleteMode::Permanent).expect("deleted");
        assert!(!file.exists());
    }

    #[test]
    fn a_swapped_sessions_folder_is_refused() {
        let (_tmp, folder, file, outside) = setup();
        let checked = check_deletable(&folder, &file).expect("a session");
        let elsewhere = folder.dir.with_file_name("elsewhere");
        std::fs::rename(&folder.dir, &elsewhere).expect("move");
        // The sessions folder now leads to the folder above `outside`,
        // which holds an `outside/s.jsonl` but no `proj`.
        let top = outside.parent().and_then(Path::parent).expect("dir");
        std::fs::create_dir_all(top.join("proj")).expect("mkdir");
        std::fs::write(top.join("proj/s.jsonl"), SESSION).expect("write");
        std::os::unix::fs::symlink(top, &folder.dir).expect("symlink");
        let err = delete_checked(&checked, DeleteMode::Permanent).expect_err("refused");
        assert!(
            err.to_string().contains("changed since it was confirmed"),
            "{err}"
        );
        assert!(top.join("proj/s.jsonl").exists() && elsewhere.join("proj/s.jsonl").exists());
    }
}
