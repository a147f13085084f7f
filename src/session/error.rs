//! What can go wrong with a session: the errors that stop a read or a
//! write ([`SessionError`]), and what reading survived, line by line
//! ([`Problem`]: damaged lines, bytes that are not UTF-8, an unfinished last
//! line, loops cut, ids used twice).

use crate::session::read::file;
use std::fmt;
use std::path::{Path, PathBuf};

/// Errors callers may want to tell apart.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A FIFO, socket, device or folder: never read (a read could block
    /// for ever).
    #[error("{path}: not a regular file ({kind}); not read")]
    NotRegular { path: PathBuf, kind: file::FileKind },
    #[error("{path}: not a pi session ({reason})")]
    NotASession { path: PathBuf, reason: String },
    #[error("{path}: no entry with id {id}")]
    NoSuchEntry { path: PathBuf, id: String },
    #[error(
        "{path}: the last line has no line end (pi may be writing it); not appending, try again"
    )]
    UnfinishedLastLine { path: PathBuf },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    /// piscope will not change this file (read-only, another owner it
    /// cannot keep, hard links, another piscope writing); nothing changed.
    #[error("{path}: {reason}")]
    Refused { path: PathBuf, reason: String },
    /// Whoever asked for the read no longer wanted it; it stopped.
    #[error("{path}: reading stopped: no longer wanted")]
    Stopped { path: PathBuf },
    /// The appended line did not land as one whole line at a line start.
    #[error("{path}: line {line}: {reason}")]
    AppendNotVerified {
        path: PathBuf,
        line: u64,
        reason: String,
    },
}

impl SessionError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> SessionError {
        if let Some(kind) = file::NotRegular::in_io(&source) {
            return SessionError::NotRegular {
                path: path.to_path_buf(),
                kind,
            };
        }
        SessionError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The file's lines were not where a second read of them expected.
    pub(crate) fn changed_while_read(path: &Path) -> SessionError {
        SessionError::Invalid {
            path: path.to_path_buf(),
            message: "the file changed while it was read; try again".to_string(),
        }
    }
}

/// Something wrong with one line that reading survived.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Problem {
    /// 1-based line number.
    pub line: u32,
    pub kind: ProblemKind,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum ProblemKind {
    /// Not valid JSON: skipped, as pi skips it.
    Damaged { reason: String },
    /// Valid JSON that is truthy but not an object: an entry without id,
    /// parent or type, as pi keeps it.
    NotAnObject,
    /// Bytes that are not UTF-8, read as U+FFFD.
    NotUtf8,
    /// The last line has no line end and does not parse yet.
    Unfinished,
    /// A second session header inside the file: ignored, as pi does.
    ExtraHeader,
    /// This entry's parent chain led back to itself; it is shown as a root.
    ParentLoop { id: String },
    /// An id used before; the later entry is the one the id names.
    DuplicateId { id: String, first_line: u32 },
}

impl ProblemKind {
    /// Found in building the tree (not in reading a line).
    pub fn is_tree(&self) -> bool {
        matches!(
            self,
            ProblemKind::ParentLoop { .. } | ProblemKind::DuplicateId { .. }
        )
    }

    /// Damage (as opposed to a line still being written, or a note).
    pub fn is_damage(&self) -> bool {
        !matches!(
            self,
            ProblemKind::Unfinished | ProblemKind::DuplicateId { .. }
        )
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        match &self.kind {
            ProblemKind::Damaged { reason } => write!(f, "damaged, skipped ({reason})"),
            ProblemKind::NotAnObject => {
                write!(
                    f,
                    "not a JSON object; kept as an entry without id, as pi keeps it"
                )
            }
            ProblemKind::NotUtf8 => write!(f, "bytes that are not UTF-8, read as \u{FFFD}"),
            ProblemKind::Unfinished => write!(f, "still being written or cut off"),
            ProblemKind::ExtraHeader => write!(f, "a second session header, ignored"),
            ProblemKind::ParentLoop { id } => {
                write!(f, "entry {id} closes a parentId loop; shown as a root")
            }
            ProblemKind::DuplicateId { id, first_line } => {
                write!(
                    f,
                    "id {id} already used on line {first_line}; this entry wins"
                )
            }
        }
    }
}
