//! Prune the selected entry's branch (the entry and all below it): the key
//! asks in a dialog that counts what goes, Enter has the worker rewrite the
//! session without it (the original to the trash first), and the outcome
//! says how much went and which key undoes it.

use crate::catalog::housekeeping::{confine, journal};
use crate::catalog::in_use;
use crate::safe_text as text;
use crate::session::write::prune::{self, PrunePlan};
use crate::tui::event::Command;
use crate::tui::input::actions::{Action, Scope};
use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::{ActionOutcome, Job};
use std::path::{Path, PathBuf};

impl App {
    /// The prune key: plans the prune and asks, counting what goes.
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
            strings::PRUNE_YES,
            Then::Prune { plan },
        ));
    }

    /// The branch went: say how much, and the key that undoes it.
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
}

/// Enter in the dialog: the worker prunes the branch as planned, the
/// original going to the trash (journalled, for undo) first; only while
/// the file, symlinks resolved, stays inside the sessions folder
/// (`sessions`, when the browser has one).
pub(in crate::tui) fn prune_job(plan: PrunePlan, sessions: Option<PathBuf>) -> Job {
    Job::new("prune", move || {
        if let Err(e) = confine::given_file(sessions.as_deref(), &plan.path) {
            return ActionOutcome::Failed(e.to_string());
        }
        let done = prune::prune(&plan, &mut |original| {
            journal::trash_pruned_original(original)
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
    })
}
