//! The one boundary every command that deletes, moves or rewrites a
//! session keeps (rm, clean, prune, restore, move-project and the browser's
//! equivalents): the path, with every symlink resolved, must lead to
//! something inside the sessions folder. A session that is a symlink to a
//! file elsewhere is refused, never followed: its target is not piscope's
//! to touch, and acting on it would leave a dangling link behind.

use crate::catalog::discover::{SessionsFolder, Surroundings, normalize};
use std::path::{Path, PathBuf};

/// Why a path was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    #[error("{path}: leads to {real}, outside the sessions folder {folder}; nothing changed")]
    Outside {
        path: PathBuf,
        real: PathBuf,
        folder: PathBuf,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// `path` with every symlink resolved, when that lies inside `folder` (also
/// resolved) and is not the folder itself. A path that does not exist yet
/// (a destination) is judged by its folder, resolved, and its name.
pub fn resolve_inside(folder: &Path, path: &Path) -> Result<PathBuf, ConfineError> {
    let root = std::fs::canonicalize(folder).map_err(|source| ConfineError::Io {
        path: folder.to_path_buf(),
        source,
    })?;
    let real = match std::fs::canonicalize(path) {
        Ok(real) => real,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            resolve_missing(path).map_err(|source| ConfineError::Io {
                path: path.to_path_buf(),
                source,
            })?
        }
        Err(source) => {
            return Err(ConfineError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    if !real.starts_with(&root) || real == root {
        return Err(ConfineError::Outside {
            path: path.to_path_buf(),
            real,
            folder: folder.to_path_buf(),
        });
    }
    Ok(real)
}

/// A path not there (yet): its nearest existing folder resolved, the rest
/// as written (no `..` in it, so it cannot climb back out).
fn resolve_missing(path: &Path) -> std::io::Result<PathBuf> {
    let abs = normalize(&std::path::absolute(path)?);
    let mut rest = Vec::new();
    let mut at = abs.as_path();
    loop {
        match std::fs::canonicalize(at) {
            Ok(real) => {
                return Ok(rest.iter().rev().fold(real, |p, n| p.join(n)));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let (Some(parent), Some(name)) = (at.parent(), at.file_name()) else {
                    return Err(e);
                };
                rest.push(name.to_owned());
                at = parent;
            }
            Err(e) => return Err(e),
        }
    }
}

/// [`resolve_inside`] the sessions folder.
pub fn inside(folder: &SessionsFolder, path: &Path) -> Result<PathBuf, ConfineError> {
    resolve_inside(&folder.dir, path)
}

/// The folder a command given a bare file (`prune FILE`, `restore PATH`)
/// keeps it within: the sessions folder (`sessions`, else pi's as located)
/// when the file is named inside it, else the folder the file is named in.
/// Either way a symlink that leads out of it is refused.
pub fn folder_for(sessions: Option<&Path>, path: &Path) -> PathBuf {
    let abs = normalize(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
    let sessions = match sessions {
        Some(s) => s.to_path_buf(),
        None => {
            let mut problems = Vec::new();
            crate::catalog::locate(&Surroundings::of_process(None), &mut problems).dir
        }
    };
    let sessions = normalize(&std::path::absolute(&sessions).unwrap_or(sessions));
    if abs.starts_with(&sessions) && abs != sessions {
        return sessions;
    }
    abs.parent().map_or(abs.clone(), Path::to_path_buf)
}

/// [`resolve_inside`] the folder [`folder_for`] names.
pub fn given_file(sessions: Option<&Path>, path: &Path) -> Result<PathBuf, ConfineError> {
    resolve_inside(&folder_for(sessions, path), path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_out_of_the_folder_is_refused() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = std::fs::canonicalize(tmp.path()).expect("resolve");
        let sessions = root.join("sessions");
        std::fs::create_dir_all(sessions.join("p")).expect("mkdir");
        std::fs::write(root.join("elsewhere.jsonl"), "x").expect("write");
        std::fs::write(sessions.join("p/s.jsonl"), "x").expect("write");
        let link = sessions.join("p/l.jsonl");
        std::os::unix::fs::symlink(root.join("elsewhere.jsonl"), &link).expect("symlink");
        assert!(resolve_inside(&sessions, &sessions.join("p/s.jsonl")).is_ok());
        assert!(matches!(
            resolve_inside(&sessions, &link),
            Err(ConfineError::Outside { .. })
        ));
        assert!(resolve_inside(&sessions, &sessions).is_err());
        assert!(resolve_inside(&sessions, &sessions.join("q/new.jsonl")).is_ok());
        let out = sessions.join("out");
        std::os::unix::fs::symlink(&root, &out).expect("symlink");
        assert!(resolve_inside(&sessions, &out.join("new.jsonl")).is_err());
        // A bare file is kept within the folder it is named in.
        assert!(given_file(None, &link).is_err());
        assert!(given_file(None, &root.join("elsewhere.jsonl")).is_ok());
    }
}
