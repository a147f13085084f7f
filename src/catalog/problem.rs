//! What the catalog could not read (a file, a folder, a settings file): said
//! with the path, never fatal.

use std::fmt;
use std::path::{Path, PathBuf};

/// Something in the sessions folder that could not be read; never fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogProblem {
    pub path: PathBuf,
    pub message: String,
}

impl CatalogProblem {
    pub fn new(path: &Path, message: impl Into<String>) -> CatalogProblem {
        CatalogProblem {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}

impl fmt::Display for CatalogProblem {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}
