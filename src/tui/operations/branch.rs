//! Branch from an entry: the key asks in a dialog for an optional summary
//! of the branch left behind, Enter has the worker write where pi resumes
//! (with a branch summary when given), and the outcome says where that is
//! and selects it.

use crate::session::{self, BranchOutcome};
use crate::tui::event::Command;
use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::{self, ActionOutcome, Job};
use std::path::PathBuf;
use std::time::SystemTime;

impl App {
    /// The branch key: asks for a summary, unless pi resumes there already.
    pub(in crate::tui) fn ask_branch(&mut self) {
        let Some((path, target, what)) = self.selected_entry() else {
            return;
        };
        let (there, resubmit) = match (self.tree.loaded(), self.tree.selected_node()) {
            (Some(t), Some(node)) => (
                session::already_there(&t.session, node),
                session::write::append::resumes_before(&t.session, node),
            ),
            _ => (false, false),
        };
        if there {
            self.say(strings::ALREADY_THERE.to_string(), false);
            return;
        }
        self.ask(Dialog::ask(
            strings::BRANCH_TITLE,
            strings::branch_body(&what, resubmit),
            "",
            strings::BRANCH_YES,
            Then::Branch { path, target },
        ));
    }

    /// Enter in the dialog: the worker makes pi resume from `target`.
    pub(in crate::tui) fn branch_job(
        &self,
        path: PathBuf,
        target: String,
        summary: Option<String>,
    ) -> Job {
        self.writing("branch", path, move |path| {
            match session::branch_to(path, &target, summary.as_deref()) {
                Ok(to) => ActionOutcome::Branched {
                    path: path.to_path_buf(),
                    to,
                    mtime: jobs::modified(path),
                },
                Err(e) => ActionOutcome::Failed(e.to_string()),
            }
        })
    }

    /// pi resumes elsewhere now: say where, and select the new leaf once
    /// the session is read on.
    pub(in crate::tui) fn on_branched(
        &mut self,
        path: PathBuf,
        to: BranchOutcome,
        mtime: Option<SystemTime>,
        cmds: &mut Vec<Command>,
    ) {
        match to {
            BranchOutcome::AlreadyThere => self.say(strings::ALREADY_THERE.to_string(), false),
            BranchOutcome::Moved { leaf, appended } => {
                self.say(strings::branched(leaf.as_deref()), false);
                // The new leaf may be piscope's branch marker, which the
                // filter hides: its row is where pi resumes, as shown.
                self.open.select_later(path.clone(), appended, true);
            }
        }
        self.wrote(&path, mtime, cmds);
    }
}
