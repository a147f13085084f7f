//! Copy an entry's text: the workers put it on the clipboard, or hand it
//! back to be sent through the terminal (OSC 52).

use crate::tui::event::Command;
use crate::tui::look::strings;
use crate::tui::state::App;
use crate::tui::work::clipboard;
use crate::tui::work::jobs::Job;

impl App {
    /// Asks the workers to copy the selected entry's text.
    pub(in crate::tui) fn copy(&mut self, cmds: &mut Vec<Command>) {
        match (self.tree.loaded(), self.tree.selected_node()) {
            (Some(t), Some(node)) => cmds.push(Command::Act(Box::new(Job::Copy {
                session: t.session.clone(),
                node,
            }))),
            _ => self.say(strings::NO_ENTRY.to_string(), true),
        }
    }

    /// The clipboard took the text.
    pub(in crate::tui) fn on_copied(&mut self, chars: usize) {
        self.say(strings::copied(chars, false), false);
    }

    /// No clipboard: the text goes through the terminal.
    pub(in crate::tui) fn copy_through_terminal(&mut self, text: &str, cmds: &mut Vec<Command>) {
        cmds.push(Command::Terminal(clipboard::osc52(text)));
        self.say(strings::copied(text.chars().count(), true), false);
    }
}
