//! Key presses: the overlay over the panes takes them first, then the tree's
//! search line, then the keymap's action for the focused pane; each asks
//! the keymap (only typing a character into a field is not an action).

use crate::tui::event::Command;
use crate::tui::input::keymap::{Action, Key, Scope};
use crate::tui::look::layout::Pane;
use crate::tui::overlays::help::HelpKey;
use crate::tui::panes::picker::PickerOutcome;
use crate::tui::state::App;
use ratatui::crossterm::event::{KeyEvent, KeyEventKind};

impl App {
    pub(in crate::tui) fn on_key(&mut self, key: KeyEvent, cmds: &mut Vec<Command>) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        let k = Key::from_event(&key);
        let last = if self.help().is_some() {
            crate::tui::overlays::help::last_scroll(
                &self.config,
                &self.help_scopes(),
                self.screen.size(),
            )
        } else {
            0
        };
        if let Some(answer) = self.overlay.help_key(k, &self.config.keymap, last) {
            match answer {
                HelpKey::Stay => {}
                HelpKey::Close => self.overlay.close(),
                HelpKey::Quit => self.quit(),
            }
            return;
        }
        if self.dialog().is_some() {
            self.on_dialog_key(k, cmds);
            return;
        }
        if self.focus() == Pane::Tree && self.tree.is_typing_search() {
            self.on_search_key(k);
            return;
        }
        let scope = self.scope();
        match self.config.keymap.action(scope, k) {
            Some(Action::Quit) => self.quit(),
            Some(Action::Help) => self.overlay.show_help(),
            Some(Action::FocusNext) => self.screen.cycle_focus(true),
            Some(Action::FocusPrev) => self.screen.cycle_focus(false),
            // Esc in the preview drops the tree's search too, its line
            // being the tree's.
            Some(Action::TreeClearSearch) => self.tree.finish_search(false),
            Some(action) if self.on_edit_action(action, cmds) => {}
            Some(action) => match self.focus() {
                Pane::Picker => {
                    let outcome = self.catalog.picker_mut().on_action(action);
                    self.on_picker(outcome, cmds);
                }
                Pane::Tree => {
                    self.tree.on_action(action);
                }
                Pane::Preview => {
                    self.preview.on_action(action);
                }
            },
            None if self.focus() == Pane::Picker => {
                let deletes =
                    self.config.keymap.own_action(Scope::Text, k) == Some(Action::DeleteBack);
                let picker = self.catalog.picker_mut();
                let outcome = match k.typed_char() {
                    _ if deletes => picker.type_char(None),
                    Some(c) => picker.type_char(Some(c)),
                    None => PickerOutcome::Nothing,
                };
                self.on_picker(outcome, cmds);
            }
            None => {}
        }
    }

    /// A key while the tree's search query is typed.
    fn on_search_key(&mut self, k: Key) {
        let keymap = &self.config.keymap;
        match keymap.own_action(Scope::Search, k) {
            Some(Action::SearchKeep) => self.tree.finish_search(true),
            Some(Action::Cancel) => self.tree.finish_search(false),
            Some(a @ (Action::TreeNextHit | Action::TreePreviousHit)) => {
                self.tree.on_action(a);
            }
            _ if keymap.own_action(Scope::Global, k) == Some(Action::Quit) => self.quit(),
            _ if keymap.own_action(Scope::Text, k) == Some(Action::DeleteBack) => {
                self.tree.edit_search(None);
            }
            _ => {
                if let Some(c) = k.typed_char() {
                    self.tree.edit_search(Some(c));
                }
            }
        }
    }
}
