//! Key presses: the overlay over the panes takes them first, then the tree's
//! search line, then the keymap's action for the focused pane; each asks
//! the keymap (only typing a character into a field or the tree is not an
//! action). Esc steps back: out of a search, then to the pane before, then
//! out of the app.

use crate::tui::event::Command;
use crate::tui::input::keymap::{Action, Key, Scope};
use crate::tui::look::layout::Pane;
use crate::tui::overlays::help::HelpKey;
use crate::tui::overlays::text_input::Edit;
use crate::tui::state::App;
use ratatui::crossterm::event::{KeyEvent, KeyEventKind};

/// What Esc does where the focus is now (the hint line says it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Back {
    /// Clear the sessions search or leave the deep search.
    ClearSessionsSearch,
    /// Drop the tree's search.
    ClearTreeSearch,
    /// Move the focus to this pane.
    Focus(Pane),
    Quit,
}

impl Back {
    /// Its word in the hint line.
    pub fn word(self) -> &'static str {
        match self {
            Back::ClearSessionsSearch => "clear",
            Back::ClearTreeSearch => "clear search",
            Back::Focus(_) => "back",
            Back::Quit => "quit",
        }
    }
}

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
            }
            return;
        }
        if self.on_files_key(k, cmds) || self.on_review_key(k, cmds) {
            return;
        }
        if self.dialog().is_some() {
            self.on_dialog_key(k, cmds);
            return;
        }
        if self.on_usage_key(k, cmds) {
            return;
        }
        if self.focus() == Pane::Tree && self.tree.is_typing_search() && self.on_search_key(k) {
            return;
        }
        let scope = self.scope();
        match self.config.keymap.action(scope, k) {
            Some(Action::Quit) => self.quit(),
            Some(Action::Help) => self.overlay.show_help(),
            Some(Action::Usage) => self.open_usage(cmds),
            Some(Action::FocusNext) => self.screen.cycle_focus(true),
            Some(Action::FocusPrev) => self.screen.cycle_focus(false),
            Some(Action::TreeClearSearch | Action::PickerClear) => self.step_back(cmds),
            Some(action) if self.on_edit_action(action, cmds) => {}
            Some(action) => match self.focus() {
                Pane::Picker => {
                    let outcome = if action == Action::PickerSpan {
                        self.clock = self.clock.tick();
                        self.catalog.picker_mut().cycle_span(self.clock)
                    } else {
                        self.catalog.picker_mut().on_action(action)
                    };
                    self.on_picker(outcome, cmds);
                }
                Pane::Tree => {
                    self.tree.on_action(action);
                }
                Pane::Preview => {
                    self.preview.on_action(action);
                }
            },
            None => self.on_typed(k, cmds),
        }
    }

    /// A key that is no action of the pane: in the sessions pane and the
    /// tree, a character typed into its search, or a text-editing key.
    fn on_typed(&mut self, k: Key, cmds: &mut Vec<Command>) {
        let Some(edit) = self.text_edit(self.scope(), k) else {
            return;
        };
        match self.focus() {
            Pane::Picker => {
                let outcome = self.catalog.picker_mut().edit_query(edit);
                self.on_picker(outcome, cmds);
            }
            Pane::Tree => {
                self.tree.edit_search(edit);
            }
            Pane::Preview => {}
        }
    }

    /// What `k` does to the text field of `scope`: an editing action of
    /// the text scope that `scope` takes, or a typed character.
    fn text_edit(&self, scope: Scope, k: Key) -> Option<Edit> {
        let edits = |a: Action| {
            scope
                .beneath()
                .iter()
                .any(|(s, actions)| *s == Scope::Text && actions.contains(&a))
        };
        match self.config.keymap.own_action(Scope::Text, k) {
            Some(a) if edits(a) => Some(Edit::Do(a)),
            _ => k.typed_char().map(Edit::Type),
        }
    }

    /// A key while the tree's search query is typed; false when the key is
    /// not the search line's (it then acts as in the tree).
    fn on_search_key(&mut self, k: Key) -> bool {
        let keymap = &self.config.keymap;
        match keymap.own_action(Scope::Search, k) {
            Some(Action::SearchKeep) => self.tree.finish_search(true),
            Some(Action::Cancel) => self.tree.finish_search(false),
            Some(a @ (Action::TreeNextHit | Action::TreePreviousHit)) => {
                self.tree.on_action(a);
            }
            // The quit key ends the search, as in pi; it quits only from
            // the panes.
            _ if keymap.own_action(Scope::Global, k) == Some(Action::Quit) => {
                self.tree.finish_search(false)
            }
            // Characters type (a capital L too); an editing key edits,
            // unless the tree binds it: then it acts in the tree (its
            // filters, as in pi).
            _ => match self.text_edit(Scope::Search, k) {
                Some(edit @ Edit::Type(_)) => {
                    self.tree.edit_search(edit);
                }
                Some(edit @ Edit::Do(_)) if keymap.own_action(Scope::Tree, k).is_none() => {
                    self.tree.edit_search(edit);
                }
                _ => return false,
            },
        }
        true
    }

    /// What Esc does now, where the focus is.
    pub fn back(&self) -> Back {
        let has_picker = self.screen.has(Pane::Picker);
        match self.focus() {
            Pane::Picker => {
                let p = self.picker();
                if !p.query().is_empty() || p.deep_search().is_some() {
                    Back::ClearSessionsSearch
                } else {
                    Back::Quit
                }
            }
            _ if self.tree.has_search_line() => Back::ClearTreeSearch,
            Pane::Preview if self.screen.has(Pane::Tree) => Back::Focus(Pane::Tree),
            Pane::Tree | Pane::Preview if has_picker => Back::Focus(Pane::Picker),
            _ => Back::Quit,
        }
    }

    /// Esc: out of the search, then back a pane, then out of the app.
    fn step_back(&mut self, cmds: &mut Vec<Command>) {
        match self.back() {
            Back::ClearSessionsSearch => {
                let outcome = self.catalog.picker_mut().on_action(Action::PickerClear);
                self.on_picker(outcome, cmds);
            }
            Back::ClearTreeSearch => self.tree.finish_search(false),
            Back::Focus(pane) => self.screen.focus_on(pane),
            Back::Quit => self.quit(),
        }
    }
}
