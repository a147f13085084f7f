//! The work behind the editing actions, done on a worker thread through the
//! engine and the catalog: writes, fork, export, delete, copy, and the checks
//! before handing a session to pi. Each reports one [`ActionOutcome`].

use crate::catalog::housekeeping::delete::{self, Deletable, DeleteMode};
use crate::catalog::housekeeping::journal::Reason;
use crate::catalog::in_use;
use crate::session::{self, BranchOutcome, Session};
use crate::tui::look::strings;
use crate::tui::work::clipboard;
use crate::tui::work::resume::{PiCommand, Resume, find_program};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

/// An entry appended to a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Set (or with `None` clear) the label of an entry.
    Label {
        target: String,
        label: Option<String>,
    },
    Rename {
        name: String,
    },
    /// pi resumes from `target` (pi's `/tree` rule), with an optional
    /// summary of the branch left behind.
    Branch {
        target: String,
        summary: Option<String>,
    },
}

/// One action's work.
#[derive(Debug, Clone)]
pub enum Job {
    Write {
        path: PathBuf,
        edit: Edit,
        /// The user already agreed to write next to a running pi.
        confirmed: bool,
        /// The file's time after our own last write to it: a change that is
        /// ours is no sign of pi.
        own_mtime: Option<SystemTime>,
    },
    /// The branch up to `leaf` into a new session beside `path`.
    Fork { path: PathBuf, leaf: String },
    /// The branch up to `leaf` (or every branch) into the new file `to`.
    Export {
        path: PathBuf,
        leaf: String,
        to: PathBuf,
        kind: ExportKind,
    },
    /// The sessions as checked when the user was asked: each is checked
    /// again as it is deleted.
    Delete {
        files: Vec<Deletable>,
        mode: DeleteMode,
        /// What the journal says of them (a delete, or a clean-up).
        reason: Reason,
        /// Asked already whether pi may have one of them open.
        confirmed: bool,
    },
    /// Prune the branch as planned (the original to the trash first).
    Prune {
        plan: crate::session::write::prune::PrunePlan,
    },
    /// Put back the last session piscope deleted or pruned.
    Undo,
    /// The full text of entry `node`.
    Copy { session: Arc<Session>, node: u32 },
    /// Checks that pi and the folder are there before leaving for pi.
    PrepareResume {
        session: PathBuf,
        /// The session's folder (its header's `cwd`).
        cwd: Option<String>,
        /// The folder piscope runs in (used when `cwd` is gone and the user agreed).
        here: PathBuf,
        in_here: bool,
        command: PiCommand,
    },
}

/// What an action's work came to.
#[derive(Debug, Clone)]
pub enum ActionOutcome {
    /// An entry was appended.
    Written {
        path: PathBuf,
        message: String,
        /// The entry to select afterwards (the new leaf after a branch).
        select: Option<String>,
        mtime: Option<SystemTime>,
    },
    /// The file changed `seconds` ago: pi may be running on it; ask first.
    MayBeOpenInPi {
        job: Box<Job>,
        seconds: u64,
        /// The job deletes sessions (a running pi would write the file anew).
        deletes: bool,
    },
    Forked {
        from: PathBuf,
        to: PathBuf,
    },
    Exported {
        to: PathBuf,
    },
    Deleted {
        deleted: Vec<PathBuf>,
        /// The trash could not take these: why, per file.
        trash_failed: Vec<(Deletable, String)>,
        /// Other failures, ready to show.
        errors: Vec<String>,
    },
    /// On the system clipboard.
    Copied {
        chars: usize,
    },
    /// No system clipboard: the terminal is to be asked (OSC 52).
    CopyThroughTerminal {
        text: String,
    },
    ResumeReady(Resume),
    /// The session's folder is gone: ask whether to use `here`.
    CwdMissing {
        session: PathBuf,
        cwd: String,
        here: PathBuf,
    },
    /// pi is not on `PATH`: say so and show the command.
    PiMissing {
        program: String,
        by_hand: String,
    },
    /// A branch went; the original is in the trash.
    Pruned {
        path: PathBuf,
        removed: usize,
    },
    /// Sessions are back from the trash (and why others are not).
    Restored {
        paths: Vec<PathBuf>,
        errors: Vec<String>,
    },
    Failed(String),
}

/// Does one job.
pub fn run(job: Job) -> ActionOutcome {
    match job {
        Job::Write {
            path,
            edit,
            confirmed,
            own_mtime,
        } => {
            if !confirmed {
                if let Some(seconds) = in_use::changed_recently(&path, own_mtime) {
                    let job = Job::Write {
                        path,
                        edit,
                        confirmed: true,
                        own_mtime,
                    };
                    return ActionOutcome::MayBeOpenInPi {
                        job: Box::new(job),
                        seconds,
                        deletes: false,
                    };
                }
            }
            write(&path, &edit)
        }
        Job::Fork { path, leaf } => match session::write::fork::fork_session(&path, Some(&leaf)) {
            Ok(to) => ActionOutcome::Forked { from: path, to },
            Err(e) => ActionOutcome::Failed(e.to_string()),
        },
        Job::Export {
            path,
            leaf,
            to,
            kind,
        } => match export(&path, &leaf, &to, kind) {
            Ok(()) => ActionOutcome::Exported { to },
            Err(e) => ActionOutcome::Failed(e),
        },
        Job::Delete {
            files,
            mode,
            reason,
            confirmed,
        } => {
            let recent = files
                .iter()
                .filter_map(|f| in_use::changed_recently(f.path(), None))
                .min();
            match recent {
                Some(seconds) if !confirmed => ActionOutcome::MayBeOpenInPi {
                    job: Box::new(Job::Delete {
                        files,
                        mode,
                        reason,
                        confirmed: true,
                    }),
                    seconds,
                    deletes: true,
                },
                _ => delete(&files, mode, reason),
            }
        }
        Job::Prune { plan } => {
            let done = crate::session::write::prune::prune(&plan, &mut |o| {
                crate::catalog::housekeeping::journal::trash_pruned_original(o)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            });
            match done {
                Ok(p) => ActionOutcome::Pruned {
                    path: plan.path.clone(),
                    removed: p.plan.removed.len(),
                },
                Err(e) => ActionOutcome::Failed(e.to_string()),
            }
        }
        Job::Undo => undo(),
        Job::Copy { session, node } => match entry_text(&session, node) {
            Ok(text) if clipboard::copy_to_system(&text) => ActionOutcome::Copied {
                chars: text.chars().count(),
            },
            Ok(text) => ActionOutcome::CopyThroughTerminal { text },
            Err(e) => ActionOutcome::Failed(e),
        },
        Job::PrepareResume {
            session,
            cwd,
            here,
            in_here,
            command,
        } => prepare_resume(session, cwd, here, in_here, &command),
    }
}

/// Restores the latest delete, clean-up or prune piscope journalled whose
/// files are still in the trash: every file of it.
fn undo() -> ActionOutcome {
    use crate::catalog::housekeeping::journal;
    let items = match journal::in_trash() {
        Ok(items) => items,
        Err(e) => return ActionOutcome::Failed(e.to_string()),
    };
    let last = journal::latest_operation(&items, &[Reason::Delete, Reason::Clean, Reason::Prune]);
    if last.is_empty() {
        return ActionOutcome::Failed(strings::NOTHING_TO_UNDO.to_string());
    }
    let mut paths = Vec::new();
    let mut errors = Vec::new();
    for item in last {
        match journal::restore(item) {
            Ok(path) => paths.push(path),
            Err(e) => errors.push(e.to_string()),
        }
    }
    ActionOutcome::Restored { paths, errors }
}

fn write(path: &Path, edit: &Edit) -> ActionOutcome {
    let result = match edit {
        Edit::Label { target, label } => {
            session::append_label(path, target, label.as_deref()).map(|_| {
                let message = match label.as_deref().filter(|l| !l.is_empty()) {
                    Some(l) => strings::labelled(l),
                    None => strings::LABEL_CLEARED.to_string(),
                };
                (message, None)
            })
        }
        Edit::Rename { name } => session::append_name(path, name).map(|_| {
            let name = crate::jstext::trim(name);
            let message = if name.is_empty() {
                strings::NAME_CLEARED.to_string()
            } else {
                strings::renamed(name)
            };
            (message, None)
        }),
        Edit::Branch { target, summary } => session::branch_to(path, target, summary.as_deref())
            .map(|o| match o {
                BranchOutcome::AlreadyThere => (strings::ALREADY_THERE.to_string(), None),
                BranchOutcome::Moved { leaf, appended } => {
                    (strings::branched(leaf.as_deref()), Some(appended))
                }
            }),
    };
    match result {
        Ok((message, select)) => ActionOutcome::Written {
            path: path.to_path_buf(),
            message,
            select,
            mtime: std::fs::metadata(path).and_then(|m| m.modified()).ok(),
        },
        Err(e) => ActionOutcome::Failed(e.to_string()),
    }
}

/// What an export writes.
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

fn export(path: &Path, leaf: &str, to: &Path, kind: ExportKind) -> Result<(), String> {
    let s = Session::open(path).map_err(|e| e.to_string())?;
    let at = s.find(leaf).ok_or_else(|| {
        session::SessionError::NoSuchEntry {
            path: path.to_path_buf(),
            id: leaf.to_string(),
        }
        .to_string()
    })?;
    let text = match kind {
        ExportKind::Markdown => crate::render::export_markdown(&s, Some(at)),
        ExportKind::Html => crate::render::export_html(&s, Some(at)),
        ExportKind::HtmlAllBranches => crate::render::export_html_all(&s),
    }
    .map_err(|e| e.to_string())?;
    // A new file only: an export never replaces anything.
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(to)
        .map_err(|e| format!("{}: {e}", to.display()))?;
    f.write_all(text.as_bytes())
        .map_err(|e| format!("{}: {e}", to.display()))
}

fn delete(files: &[Deletable], mode: DeleteMode, reason: Reason) -> ActionOutcome {
    let mut deleted = Vec::new();
    let mut trash_failed = Vec::new();
    let mut errors = Vec::new();
    // One batch in the journal: undo puts them all back.
    let batch = crate::catalog::housekeeping::journal::Batch::new(reason);
    for file in files {
        match delete::delete_checked_for(file, mode, &batch) {
            Ok(()) => deleted.push(file.path().to_path_buf()),
            Err(delete::DeleteError::Trash { reason, .. }) => {
                trash_failed.push((file.clone(), reason))
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    ActionOutcome::Deleted {
        deleted,
        trash_failed,
        errors,
    }
}

/// The full text of an entry: a message's text (thinking and tool calls
/// marked), a summary's text, else the entry's JSON, pretty-printed.
pub fn entry_text(session: &Session, node: u32) -> Result<String, String> {
    let line = session.line_text(node).map_err(|e| e.to_string())?;
    let v: serde_json::Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
    let text = session::content::readable_entry(&v);
    Ok(match text.filter(|t| !t.is_empty()) {
        Some(t) => t,
        None => serde_json::to_string_pretty(&v).unwrap_or(line),
    })
}

fn prepare_resume(
    session: PathBuf,
    cwd: Option<String>,
    here: PathBuf,
    in_here: bool,
    command: &PiCommand,
) -> ActionOutcome {
    let own = cwd.filter(|c| !c.is_empty() && !in_here);
    let resume = Resume {
        argv: command.argv(&session),
        cwd: own.as_ref().map_or_else(|| here.clone(), PathBuf::from),
    };
    // pi first: without it, the folder does not matter.
    let program = resume.argv.first().cloned().unwrap_or_default();
    if find_program(&program).is_none() {
        // The command to type by hand starts in a folder that is there.
        let by_hand = if resume.cwd.is_dir() {
            resume.by_hand()
        } else {
            Resume {
                cwd: here,
                ..resume
            }
            .by_hand()
        };
        return ActionOutcome::PiMissing {
            program: program.to_string_lossy().into_owned(),
            by_hand,
        };
    }
    if let Some(c) = own {
        if !resume.cwd.is_dir() {
            return ActionOutcome::CwdMissing {
                session,
                cwd: c,
                here,
            };
        }
    }
    ActionOutcome::ResumeReady(resume)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Layout, SessionsFolder};
    use std::time::Duration;

    const SESSION: &str = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n";

    #[test]
    fn deleting_a_session_pi_may_have_open_asks_first() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("s.jsonl");
        std::fs::write(&file, SESSION).expect("write");
        let folder = SessionsFolder::at(
            dir.path().to_path_buf(),
            Layout::Flat,
            dir.path().to_path_buf(),
        );
        let checked = delete::check_deletable(&folder, &file).expect("a session");
        let job = |confirmed| Job::Delete {
            files: vec![checked.clone()],
            mode: DeleteMode::Permanent,
            reason: Reason::Delete,
            confirmed,
        };
        // Just written: it may be open in pi.
        match run(job(false)) {
            ActionOutcome::MayBeOpenInPi {
                deletes, seconds, ..
            } => assert!(deletes && seconds < 60),
            _ => panic!("expected a question"),
        }
        assert!(file.exists());
        // Quiet for two minutes: deleted without asking.
        let old = SystemTime::now() - Duration::from_secs(120);
        std::fs::File::options()
            .write(true)
            .open(&file)
            .expect("open")
            .set_modified(old)
            .expect("mtime");
        assert!(
            matches!(run(job(false)), ActionOutcome::Deleted { ref deleted, .. } if deleted.len() == 1)
        );
        assert!(!file.exists());
    }
}
