//! Prune the selected entry's branch (the entry and all below it), after a
//! confirmation that counts what goes; and undo, which puts back the last
//! session deleted or pruned.

use crate::catalog::in_use;
use crate::safe_text as text;
use crate::session::write::prune;
use crate::tui::event::Command;
use crate::tui::input::actions::{Action, Scope};
use crate::tui::look::strings::{self, file_name};
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};
use std::path::{Path, PathBuf};

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

    /// Undo put `paths` back (all the files of the last operation, but
    /// those `errors` name).
    pub(in crate::tui) fn on_restored(
        &mut self,
        paths: &[PathBuf],
        errors: &[String],
        cmds: &mut Vec<Command>,
    ) {
        for p in paths {
            self.file_changed(p, cmds);
        }
        if let Some(e) = errors.first() {
            let more = match errors.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            self.say(format!("{}{more}", text::clean_line(e)), true);
            return;
        }
        let what = match paths {
            [one] => text::clean_line(&file_name(one)),
            many => crate::tui::look::format::count(many.len(), "session", "sessions"),
        };
        self.say(strings::restored(&what), false);
    }
}
