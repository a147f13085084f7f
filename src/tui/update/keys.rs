//! Key presses: the overlay over the panes takes them first, then the tree's
//! search line, then the keymap's action for the focused pane.

use crate::tui::event::Command;
use crate::tui::input::keymap::{Action, Key};
use crate::tui::look::layout::Pane;
use crate::tui::overlays::help::Help;
use crate::tui::panes::picker::PickerOutcome;
use crate::tui::state::App;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

impl App {
    pub(in crate::tui) fn on_key(&mut self, key: KeyEvent, cmds: &mut Vec<Command>) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        let k = Key::from_event(&key);
        if let Some(h) = self.help.as_mut() {
            match k.code {
                KeyCode::Up => h.scroll = h.scroll.saturating_sub(1),
                KeyCode::Down => h.scroll += 1,
                KeyCode::PageUp => h.scroll = h.scroll.saturating_sub(10),
                KeyCode::PageDown => h.scroll += 10,
                KeyCode::Char('c') if k.mods == KeyModifiers::CONTROL => self.quit = true,
                _ => self.help = None,
            }
            return;
        }
        if self.dialog.is_some() {
            self.on_dialog_key(k, cmds);
            return;
        }
        if self.focus == Pane::Tree && self.tree.search.editing {
            match (k.code, k.typed_char()) {
                (KeyCode::Enter, _) => self.tree.finish_search(true),
                (KeyCode::Esc, _) => self.tree.finish_search(false),
                (KeyCode::Backspace, _) => {
                    self.tree.edit_search(None);
                }
                (_, Some(c)) => {
                    self.tree.edit_search(Some(c));
                }
                (KeyCode::Char('c'), None) if k.mods == KeyModifiers::CONTROL => self.quit = true,
                _ => {}
            }
            return;
        }
        let scope = self.scope();
        match self.config.keymap.action(scope, k) {
            Some(Action::Quit) => self.quit = true,
            Some(Action::Help) => self.help = Some(Help::default()),
            Some(Action::FocusNext) => self.cycle_focus(true),
            Some(Action::FocusPrev) => self.cycle_focus(false),
            Some(action) if self.on_edit_action(action, cmds) => {}
            Some(action) => match self.focus {
                Pane::Picker => {
                    let outcome = self.picker.on_action(action);
                    self.on_picker(outcome, cmds);
                }
                Pane::Tree => {
                    if action == Action::TreeSearch {
                        self.tree.search.query.clear();
                    }
                    self.tree.on_action(action);
                }
                Pane::Preview => {
                    self.preview.on_action(action);
                }
            },
            None => {
                if self.focus == Pane::Picker {
                    let outcome = match (k.code, k.typed_char()) {
                        (KeyCode::Backspace, _) => self.picker.type_char(None),
                        (_, Some(c)) => self.picker.type_char(Some(c)),
                        _ => PickerOutcome::Nothing,
                    };
                    self.on_picker(outcome, cmds);
                } else if k.code == KeyCode::Esc && !self.tree.search.query.is_empty() {
                    self.tree.finish_search(false);
                }
            }
        }
    }

    pub(in crate::tui) fn cycle_focus(&mut self, forward: bool) {
        let n = self.panes.len();
        let at = self
            .panes
            .iter()
            .position(|p| *p == self.focus)
            .unwrap_or(0);
        let next = if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        };
        self.focus = self.panes[next];
    }
}
