//! Deleting sessions safely: only pi session files inside the sessions
//! folder (symlinks resolved first), to the trash by default, and never a
//! silent fall back to a permanent delete when the trash fails.

use super::SessionsFolder;
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

/// Checks that `path` may be deleted: after resolving symlinks it is a file
/// inside `folder` whose first parsed line is a pi session header. Returns
/// the resolved path, which is what gets deleted.
pub fn check_deletable(folder: &SessionsFolder, path: &Path) -> Result<PathBuf, DeleteError> {
    let io = |source| DeleteError::Io {
        path: path.to_path_buf(),
        source,
    };
    let real = std::fs::canonicalize(path).map_err(io)?;
    let root = std::fs::canonicalize(&folder.dir).map_err(|source| DeleteError::Io {
        path: folder.dir.clone(),
        source,
    })?;
    if !real.starts_with(&root) || real == root {
        return Err(DeleteError::Outside {
            path: path.to_path_buf(),
            folder: folder.dir.clone(),
        });
    }
    let meta = std::fs::metadata(&real).map_err(io)?;
    let is_session =
        meta.is_file() && real.extension().is_some_and(|e| e == "jsonl") && is_session_file(&real);
    if !is_session {
        return Err(DeleteError::NotASession {
            path: path.to_path_buf(),
        });
    }
    Ok(real)
}

/// The first parsed line is a pi session header.
fn is_session_file(path: &Path) -> bool {
    let mut state = super::summary::SummaryState::default();
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    // Reading stops at the first parsed line when it is not a header.
    state
        .read_on(&mut file)
        .is_ok_and(|done| done.header.is_some() && !done.not_a_session)
}

/// Deletes one checked path (from [`check_deletable`]).
pub fn delete_checked(path: &Path, mode: DeleteMode) -> Result<(), DeleteError> {
    match mode {
        DeleteMode::Trash => trash::delete(path).map_err(|e| DeleteError::Trash {
            path: path.to_path_buf(),
            reason: e.to_string(),
        }),
        DeleteMode::Permanent => std::fs::remove_file(path).map_err(|source| DeleteError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Sessions without a single user message: what "delete empty sessions"
/// offers, for review.
pub fn empty_sessions(sessions: &[super::SessionSummary]) -> Vec<&super::SessionSummary> {
    sessions.iter().filter(|s| s.user_messages == 0).collect()
}
