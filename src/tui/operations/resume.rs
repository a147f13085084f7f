//! Resume a session in pi (or print its path with `--print`): the key has
//! the worker find pi and the session's folder, and the outcome leaves the
//! screen for pi; a missing folder asks whether to start pi here instead,
//! and a missing pi says how to resume by hand.

use crate::catalog::SessionSummary;
use crate::tui::event::Command;
use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::Exit;
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::{ActionOutcome, Job};
use crate::tui::work::resume::{PiCommand, Resume, find_program};
use std::path::{Path, PathBuf};

impl App {
    /// Resumes the selected listed session; false when none is selected
    /// (a project heading, a deep-search hit).
    pub(in crate::tui) fn resume_selected(&mut self, cmds: &mut Vec<Command>) -> bool {
        let chosen = self
            .picker()
            .deep_search()
            .is_none()
            .then(|| self.picker().selected_session().cloned())
            .flatten();
        match chosen {
            Some(s) => {
                self.resume(&s, cmds);
                true
            }
            None => false,
        }
    }

    pub(in crate::tui) fn resume(&mut self, s: &SessionSummary, cmds: &mut Vec<Command>) {
        self.resume_file(s.path.clone(), &s.cwd, cmds);
    }

    /// Resumes the session the tree shows (the only way to pi from
    /// `piscope FILE`, which has no sessions list); false when none is.
    pub(in crate::tui) fn resume_open(&mut self, cmds: &mut Vec<Command>) -> bool {
        let Some(t) = self.tree.loaded() else {
            return false;
        };
        let path = t.session.path.clone();
        let cwd = t.session.header.cwd.clone().unwrap_or_default();
        self.resume_file(path, &cwd, cmds);
        true
    }

    fn resume_file(&mut self, path: PathBuf, cwd: &str, cmds: &mut Vec<Command>) {
        if self.print_mode() {
            self.leave(Exit::Print(path));
            return;
        }
        let cwd = Some(cwd.to_string()).filter(|c| !c.is_empty());
        cmds.push(Command::Act(self.prepare_resume(path, cwd, false)));
    }

    /// Enter in the folder-gone dialog: resume in the folder piscope runs in.
    pub(in crate::tui) fn resume_here_job(&self, session: PathBuf) -> Job {
        self.prepare_resume(session, None, true)
    }

    /// The worker's part: checks that pi and the session's folder `cwd`
    /// (or, `in_here`, the folder piscope runs in) are there.
    fn prepare_resume(&self, session: PathBuf, cwd: Option<String>, in_here: bool) -> Job {
        let here = self.here().clone();
        let command = self.config.pi_command.clone();
        Job::new("resume", move || {
            ready_to_resume(&session, cwd.as_deref(), &here, in_here, &command)
        })
    }

    /// pi is found and the folder is there: leave the screen and become pi.
    pub(in crate::tui) fn on_resume_ready(&mut self, resume: Resume) {
        self.leave(Exit::Resume(resume));
    }

    /// The session's folder is gone: ask to open pi here instead.
    pub(in crate::tui) fn ask_resume_here(&mut self, session: PathBuf, cwd: &str, here: &Path) {
        self.ask(Dialog::confirm(
            strings::FOLDER_GONE_TITLE,
            strings::folder_gone_body(cwd, here),
            strings::RESUME_HERE_YES,
            Then::ResumeHere { session },
        ));
    }

    /// pi cannot be started: say how to resume by hand.
    pub(in crate::tui) fn on_pi_missing(&mut self, program: &str, by_hand: &str) {
        let body = strings::pi_missing_body(program, by_hand);
        let command = body.len() - 1;
        self.ask(
            Dialog::confirm(strings::PI_MISSING_TITLE, body, strings::CLOSE, Then::Close)
                .keep_whole(command),
        );
    }
}

/// Whether pi can resume `session` now: pi first (without it, the folder
/// does not matter), then the session's folder `cwd`, unless `in_here`.
fn ready_to_resume(
    session: &Path,
    cwd: Option<&str>,
    here: &Path,
    in_here: bool,
    command: &PiCommand,
) -> ActionOutcome {
    let own = cwd.filter(|c| !c.is_empty() && !in_here);
    let resume = Resume {
        argv: command.argv(session),
        cwd: own.map_or_else(|| here.to_path_buf(), PathBuf::from),
    };
    let program = resume.argv.first().cloned().unwrap_or_default();
    if find_program(&program).is_none() {
        // The command to type by hand starts in a folder that is there.
        let by_hand = if resume.cwd.is_dir() {
            resume.by_hand()
        } else {
            Resume {
                cwd: here.to_path_buf(),
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
                session: session.to_path_buf(),
                cwd: c.to_string(),
                here: here.to_path_buf(),
            };
        }
    }
    ActionOutcome::ResumeReady(resume)
}
