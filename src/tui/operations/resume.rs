//! Resume a session in pi (or print its path with `--print`): the workers
//! find pi and the session's folder; a missing folder or pi asks first.

use crate::catalog::SessionSummary;
use crate::tui::event::Command;
use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::Exit;
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::Job;
use crate::tui::work::resume::Resume;
use std::path::PathBuf;

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
        cmds.push(Command::Act(Box::new(Job::PrepareResume {
            session: path,
            cwd: Some(cwd.to_string()).filter(|c| !c.is_empty()),
            here: self.here().clone(),
            in_here: false,
            command: self.config.pi_command.clone(),
        })));
    }

    /// The job of resuming in the folder piscope runs in.
    pub(in crate::tui) fn resume_here_job(&self, session: PathBuf) -> Job {
        Job::PrepareResume {
            session,
            cwd: None,
            here: self.here().clone(),
            in_here: true,
            command: self.config.pi_command.clone(),
        }
    }

    /// pi is found and the folder is there: leave the screen and become pi.
    pub(in crate::tui) fn on_resume_ready(&mut self, resume: Resume) {
        self.leave(Exit::Resume(resume));
    }

    /// The session's folder is gone: ask to open pi here instead.
    pub(in crate::tui) fn ask_resume_here(
        &mut self,
        session: PathBuf,
        cwd: &str,
        here: &std::path::Path,
    ) {
        self.ask(Dialog::confirm(
            strings::FOLDER_GONE_TITLE,
            strings::folder_gone_body(cwd, here),
            "open pi here",
            Then::ResumeHere { session },
        ));
    }

    /// pi cannot be started: say how to resume by hand.
    pub(in crate::tui) fn on_pi_missing(&mut self, program: &str, by_hand: &str) {
        let body = strings::pi_missing_body(program, by_hand);
        let command = body.len() - 1;
        self.ask(
            Dialog::confirm(strings::PI_MISSING_TITLE, body, "close", Then::Close)
                .keep_whole(command),
        );
    }
}
