//! Worker results: the catalog's progress and the sessions pane's outcomes.

use crate::tui::event::Command;
use crate::tui::input::keymap::{Action, Scope};
use crate::tui::look::layout::Pane;
use crate::tui::look::strings;
use crate::tui::model::sessions::CatalogUpdate;
use crate::tui::panes::picker::PickerOutcome;
use crate::tui::state::App;
use crate::watch::Target;

impl App {
    pub(in crate::tui) fn on_catalog(&mut self, update: CatalogUpdate, cmds: &mut Vec<Command>) {
        if !self.catalog.picker().counts(&update) {
            return;
        }
        let done = matches!(update, CatalogUpdate::Done { .. });
        let demo_started = match &update {
            CatalogUpdate::Started {
                demo: true, folder, ..
            } => Some(folder.dir.clone()),
            _ => None,
        };
        if let CatalogUpdate::Started { folder, .. } = &update {
            if self.live.watch(&folder.dir) {
                cmds.push(Command::Watch(Target::folder(&folder.dir)));
            }
        }
        if let Some(dir) = demo_started {
            // What was said about watching the user's folder no longer holds.
            self.live.set_mode(None);
            self.status.forget_watching();
            self.screen.show_banner(strings::demo_banner(&dir));
        }
        let outcome = self.catalog.picker_mut().on_catalog(update);
        self.on_picker(outcome, cmds);
        if done && self.catalog.picker().is_archived() {
            // The archive's list: no usage book (it is pi's folder's), and
            // an empty archive says how to fill it rather than showing the demo.
            let picker = self.catalog.picker();
            if let Some(p) = picker.problems().first() {
                let said = strings::first_of(p, picker.problems().len());
                self.say(said, true);
            }
        } else if done {
            self.reload_usage(cmds);
            let picker = self.catalog.picker();
            if picker.sessions().is_empty() && !picker.is_demo() {
                // Nothing at all: show the bundled demo sessions instead.
                cmds.push(Command::LoadCatalog { demo: true });
            } else if let Some(p) = picker.problems().first() {
                let said = strings::first_of(p, picker.problems().len());
                self.say(said, true);
            }
        }
    }

    pub(in crate::tui) fn on_picker(&mut self, outcome: PickerOutcome, cmds: &mut Vec<Command>) {
        match outcome {
            PickerOutcome::Nothing => {}
            PickerOutcome::Show(path) => self.open_session(path, cmds),
            PickerOutcome::Clear => self.close_session(),
            PickerOutcome::ShowEntry { path, entry } => {
                let here = self.open.is(&path) && !self.tree_is_behind();
                if let Some(id) = entry {
                    let found = here && self.tree.select_id(&id, false);
                    if here && !found {
                        self.say(strings::entry_not_in_session(&id), true);
                    } else if !here {
                        self.open.select_later(path.clone(), id, false);
                    }
                }
                self.open_session(path, cmds);
            }
            PickerOutcome::FocusTree => self.screen.focus_on(Pane::Tree),
            PickerOutcome::StartDeepSearch(query) => {
                cmds.push(self.catalog.start_deep_search(query));
            }
            PickerOutcome::Load { archived } => {
                self.close_session();
                cmds.push(if archived {
                    Command::LoadArchive
                } else {
                    Command::LoadCatalog { demo: false }
                });
            }
            PickerOutcome::NeedQuery => {
                let key = self
                    .config
                    .keymap
                    .keys_for(Scope::Picker, Action::PickerDeepSearch);
                self.say(strings::need_query(&key), false);
            }
        }
    }
}
