//! Fork a session at an entry: the workers write a new session file of the
//! branch; the fork is selected (or opened) once written.

use crate::tui::event::Command;
use crate::tui::look::layout::Pane;
use crate::tui::look::strings;
use crate::tui::state::App;
use crate::tui::work::jobs::Job;
use crate::watch::Target;
use std::path::PathBuf;

impl App {
    /// Asks the workers to fork the open session at the selected entry.
    pub(in crate::tui) fn fork(&mut self, cmds: &mut Vec<Command>) {
        if let Some((path, leaf, _)) = self.selected_entry() {
            cmds.push(Command::Act(Box::new(Job::Fork { path, leaf })));
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
