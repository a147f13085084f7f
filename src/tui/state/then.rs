//! What a dialog's Enter leads to: the operation that asked, with what the
//! user agreed to (the sessions as checked, the job as described, the
//! export's format as chosen). The operation's own file takes it from there.

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
        kind: ExportKind,
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
    /// The sessions to archive, as checked when the question was asked.
    Archive {
        files: Vec<crate::catalog::housekeeping::archive::Movable>,
    },
    /// The archived sessions to put back, as checked when asked.
    Unarchive {
        files: Vec<crate::catalog::housekeeping::archive::Movable>,
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

/// What an export writes, as chosen in its dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExportKind {
    /// The branch as Markdown.
    #[default]
    Markdown,
    /// The branch as one self-contained HTML page.
    Html,
    /// Every branch of the session as one HTML page, navigable.
    HtmlAllBranches,
}

impl ExportKind {
    /// The export's shape.
    pub fn shape(self) -> crate::render::Shape {
        match self {
            ExportKind::Markdown => crate::render::Shape::Markdown,
            ExportKind::Html => crate::render::Shape::Html,
            ExportKind::HtmlAllBranches => crate::render::Shape::HtmlAllBranches,
        }
    }

    /// The next choice, as the dialog's switch key goes through them.
    pub fn next(self) -> ExportKind {
        match self {
            ExportKind::Markdown => ExportKind::Html,
            ExportKind::Html => ExportKind::HtmlAllBranches,
            ExportKind::HtmlAllBranches => ExportKind::Markdown,
        }
    }

    /// Its place in the dialog's list of choices.
    pub fn index(self) -> usize {
        self as usize
    }

    /// How the file's name ends.
    pub fn suffix(self) -> &'static str {
        match self {
            ExportKind::Markdown => ".md",
            ExportKind::Html => ".html",
            ExportKind::HtmlAllBranches => ".branches.html",
        }
    }

    /// `path` with its export suffix (any kind's) replaced by this kind's.
    pub fn file_name(self, path: &str) -> String {
        let stem = [
            ExportKind::HtmlAllBranches,
            ExportKind::Html,
            ExportKind::Markdown,
        ]
        .iter()
        .find_map(|k| path.strip_suffix(k.suffix()))
        .unwrap_or(path);
        format!("{stem}{}", self.suffix())
    }
}
