//! What a dialog's Enter leads to: the operation it starts, with what the
//! user agreed to (the sessions as checked, the job as described).

use crate::catalog::housekeeping::delete::Deletable;
use crate::tui::work::jobs::Job;
use std::path::PathBuf;

/// What a dialog's Enter leads to.
#[derive(Debug, Clone)]
pub enum Then {
    Close,
    Label {
        path: PathBuf,
        target: String,
    },
    Rename {
        path: PathBuf,
    },
    Branch {
        path: PathBuf,
        target: String,
    },
    Export {
        path: PathBuf,
        leaf: String,
        kind: crate::tui::work::jobs::ExportKind,
    },
    /// The sessions as checked when the question was asked.
    Delete {
        files: Vec<Deletable>,
    },
    DeleteForGood {
        files: Vec<Deletable>,
    },
    /// The clean-up dialog: the rules its list was made from, and the
    /// sessions listed (what Enter trashes, exactly).
    Clean {
        rules: String,
        picked: Vec<PathBuf>,
    },
    /// The branch as planned when the question was asked.
    Prune {
        plan: crate::session::write::prune::PrunePlan,
    },
    /// Work already described (a write the user agreed to do next to pi).
    Run(Box<Job>),
    /// Resume in the folder piscope runs in, the session's own being gone.
    ResumeHere {
        session: PathBuf,
    },
}
