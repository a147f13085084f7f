//! Fork a session at an entry: the key has the worker write a new session
//! file of the branch up to the selected entry; the outcome selects the
//! fork in the list (or opens it).

use crate::session;
use crate::tui::event::Command;
use crate::tui::look::layout::Pane;
use crate::tui::look::strings;
use crate::tui::state::App;
use crate::tui::work::jobs::{ActionOutcome, Job};
use crate::watch::Target;
use std::path::PathBuf;

impl App {
    /// The fork key: the worker forks the open session at the selected entry.
    pub(in crate::tui) fn fork(&mut self, cmds: &mut Vec<Command>) {
        if let Some((path, leaf, _)) = self.selected_entry() {
            cmds.push(Command::Act(Job::new(
                "fork",
                move || match session::write::fork::fork_session(&path, Some(&leaf)) {
                    Ok(to) => ActionOutcome::Forked {
                        from: path.clone(),
                        to,
                    },
                    Err(e) => ActionOutcome::Failed(e.to_string()),
                },
            )));
        }
    }

    /// The fork is written: select it in the list, or open it.
    pub(in crate::tui) fn on_forked(&mut self, to: PathBuf, cmds: &mut Vec<Command>) {
        self.say(strings::forked(&to), false);
        if self.screen.has(Pane::Picker) {
            self.catalog.picker_mut().select_when_listed(to.clone());
            self.file_changed(&to, cmds);
        } else {
            // The fork is the session now: its changes are the ones to see
            // at once, not at the next slow look.
            self.live.watch(&to);
            cmds.push(Command::Watch(Target::file(&to)));
            self.open_session(to, cmds);
        }
    }
}
