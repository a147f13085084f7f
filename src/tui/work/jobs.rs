//! Running an operation's work on the actions worker. Each operation's file
//! (`tui/operations/`) builds its [`Job`], the call into the engine, and
//! turns what the job reports, a fact ([`ActionOutcome`]), into changes and
//! sentences; this file only runs jobs, and has every job that writes or
//! deletes a session ask first when pi may have the file open.

use crate::catalog::housekeeping::delete::Deletable;
use crate::catalog::in_use;
use crate::session::BranchOutcome;
use crate::tui::work::resume::Resume;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

/// One operation's work, built by the operation's own file; the actions
/// worker runs jobs one after another, in the order asked.
#[derive(Clone)]
pub struct Job {
    /// What it does, for the log.
    what: &'static str,
    /// Files a running pi may be writing: the job asks first.
    near_pi: Option<NearPi>,
    /// `Fn`, not `FnOnce`: a job handed back with a question runs later.
    work: Arc<dyn Fn() -> ActionOutcome + Send + Sync>,
}

/// Files a job changes that a running pi may have open.
#[derive(Debug, Clone)]
struct NearPi {
    files: Vec<PathBuf>,
    /// The file's time after piscope's own last write to it: a change that
    /// is ours is no sign of pi.
    own_mtime: Option<SystemTime>,
    /// The job deletes them (a running pi would write the file anew).
    deletes: bool,
}

impl Job {
    pub fn new(
        what: &'static str,
        work: impl Fn() -> ActionOutcome + Send + Sync + 'static,
    ) -> Job {
        Job {
            what,
            near_pi: None,
            work: Arc::new(work),
        }
    }

    /// The same job, asking first when one of `files` changed within
    /// [`in_use::RECENT`] (other than by piscope's own write, which left
    /// the file's time at `own_mtime`): pi may have it open.
    pub fn unless_pi_may_have(
        mut self,
        files: Vec<PathBuf>,
        own_mtime: Option<SystemTime>,
        deletes: bool,
    ) -> Job {
        self.near_pi = Some(NearPi {
            files,
            own_mtime,
            deletes,
        });
        self
    }

    /// Does the work, or asks first when pi may have its files open (the
    /// job handed back with the question goes ahead without asking).
    pub fn run(self) -> ActionOutcome {
        if let Some(near) = &self.near_pi {
            let recent = near
                .files
                .iter()
                .filter_map(|f| in_use::changed_recently(f, near.own_mtime))
                .min();
            if let Some(seconds) = recent {
                let deletes = near.deletes;
                let agreed = Job {
                    near_pi: None,
                    ..self
                };
                return ActionOutcome::MayBeOpenInPi {
                    job: Box::new(agreed),
                    seconds,
                    deletes,
                };
            }
        }
        (self.work)()
    }
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("what", &self.what)
            .field("near_pi", &self.near_pi)
            .finish()
    }
}

/// The file's time now (after a write, to tell that change from pi's).
pub fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// What the review of secrets leads to: the export or the copy it holds
/// back, rendered and scanned, to be written with the user's choices.
#[derive(Debug, Clone)]
pub enum Reviewed {
    Export {
        export: Box<crate::render::Export>,
        to: PathBuf,
    },
    Copy {
        text: String,
        hits: Vec<crate::secrets::Hit>,
    },
}

/// What an action's work came to: facts, which the operation that asked
/// for the work turns into changes and sentences.
#[derive(Debug, Clone)]
pub enum ActionOutcome {
    /// A label entry was appended (`label` `None` or empty: cleared).
    Labelled {
        path: PathBuf,
        label: Option<String>,
        /// The file's time after the write.
        mtime: Option<SystemTime>,
    },
    /// A session-info entry was appended (`name` empty: cleared).
    Renamed {
        path: PathBuf,
        name: String,
        mtime: Option<SystemTime>,
    },
    /// pi resumes elsewhere now (or already did).
    Branched {
        path: PathBuf,
        to: BranchOutcome,
        mtime: Option<SystemTime>,
    },
    Forked {
        from: PathBuf,
        to: PathBuf,
    },
    Exported {
        to: PathBuf,
        /// Secrets replaced by their markers, and kept as they were.
        redacted: usize,
        kept: usize,
    },
    /// Secrets found in what an export or a copy would write: the user
    /// reviews them first.
    ReviewSecrets {
        findings: Vec<crate::render::Finding>,
        then: Box<Reviewed>,
    },
    Deleted {
        paths: Vec<PathBuf>,
        /// They went to the trash (else for good).
        to_trash: bool,
        /// The trash could not take these: why, per file.
        trash_failed: Vec<(Deletable, String)>,
        /// Other failures, as the engine words them.
        errors: Vec<String>,
    },
    /// Sessions went to piscope's archive (and why others did not).
    Archived {
        paths: Vec<PathBuf>,
        errors: Vec<String>,
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
        /// What undo passed over on its way (a damaged journal line, a
        /// trash entry that does not read): said, but no failure.
        skipped: Vec<String>,
    },
    /// Archived sessions went back to pi's folder (the archived scope's
    /// archive key): where each was in the archive, and why others did not.
    PutBack {
        from: Vec<PathBuf>,
        errors: Vec<String>,
    },
    /// Sessions are back from the archive (and why others are not).
    Unarchived {
        paths: Vec<PathBuf>,
        errors: Vec<String>,
    },
    /// No delete, clean-up or prune of piscope's is in the trash.
    NothingToUndo,
    /// The sessions a tool call started (none: it started none known).
    SubagentsOfCall {
        paths: Vec<PathBuf>,
    },
    /// On the system clipboard.
    Copied {
        chars: usize,
        redacted: usize,
        kept: usize,
    },
    /// No system clipboard: the terminal is to be asked (OSC 52).
    CopyThroughTerminal {
        text: String,
        redacted: usize,
        kept: usize,
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
    /// The file changed `seconds` ago: pi may be running on it; ask first.
    MayBeOpenInPi {
        job: Box<Job>,
        seconds: u64,
        /// The job deletes sessions (a running pi would write the file anew).
        deletes: bool,
    },
    /// The engine's error, as it words it.
    Failed(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_on_a_file_just_changed_asks_first_and_then_goes_ahead() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("s.jsonl");
        std::fs::write(&file, "{}\n").expect("write");
        let job = Job::new("test", || ActionOutcome::Exported {
            to: "x".into(),
            redacted: 0,
            kept: 0,
        });
        let near = job.unless_pi_may_have(vec![file.clone()], None, false);
        let agreed = match near.clone().run() {
            ActionOutcome::MayBeOpenInPi { job, seconds, .. } => {
                assert!(seconds < 60);
                job
            }
            other => panic!("expected a question: {other:?}"),
        };
        assert!(matches!(agreed.run(), ActionOutcome::Exported { .. }));
        // piscope's own write is no sign of pi.
        let ours = modified(&file);
        let job = Job::new("test", || ActionOutcome::Exported {
            to: "x".into(),
            redacted: 0,
            kept: 0,
        });
        let ours = job.unless_pi_may_have(vec![file], ours, false);
        assert!(matches!(ours.run(), ActionOutcome::Exported { .. }));
    }
}
