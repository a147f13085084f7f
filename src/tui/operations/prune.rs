//! Prune the selected entry's branch (the entry and all below it), after a
//! confirmation that counts what goes; and undo, which puts back the last
//! session deleted or pruned.

use crate::catalog::in_use;
use crate::safe_text as text;
use crate::session::prune;
use crate::tui::event::Command;
use crate::tui::input::actions::{Action, Scope};
use crate::tui::look::strings::{self, file_name};
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};
use std::path::Path;

impl App {
    pub(in crate::tui) fn ask_prune(&mut self) {
        let Some((path, id, row)) = self.selected_entry() else {
            return;
        };
        let plan = match prune::plan_prune(&path, &id) {
            Ok(p) => p,
            Err(e) => {
                self.say(e.to_string(), true);
                return;
            }
        };
        let pi_open = in_use::pi_may_have_open(&path).map(|w| text::clean_line(&w));
        let body = strings::prune_body(
            &row,
            plan.removed.len(),
            plan.messages,
            plan.tokens,
            plan.carried.len(),
            pi_open.as_deref(),
        );
        self.ask(Dialog::confirm(
            strings::PRUNE_TITLE,
            body,
            "prune",
            Then::Prune { plan },
        ));
    }

    pub(in crate::tui) fn on_pruned(
        &mut self,
        path: &Path,
        removed: usize,
        cmds: &mut Vec<Command>,
    ) {
        let key = self.config.keymap.keys_for(Scope::Global, Action::Undo);
        self.say(strings::pruned(removed, &key), false);
        self.file_changed(path, cmds);
    }

    pub(in crate::tui) fn on_restored(&mut self, path: &Path, cmds: &mut Vec<Command>) {
        self.say(
            strings::restored(&text::clean_line(&file_name(path))),
            false,
        );
        self.file_changed(path, cmds);
    }
}
