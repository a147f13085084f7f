//! The mouse: the wheel scrolls the pane under it, a click focuses and selects.

use crate::tui::event::Command;
use crate::tui::input::keymap::Action;
use crate::tui::look::layout::Pane;
use crate::tui::panes::picker::{self};
use crate::tui::state::App;
use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

impl App {
    pub(in crate::tui) fn on_mouse(&mut self, m: MouseEvent, cmds: &mut Vec<Command>) {
        if self.dialog().is_some() {
            return;
        }
        if self.help().is_some() {
            if let MouseEventKind::Down(_) = m.kind {
                self.overlay.close();
            }
            return;
        }
        let layout = self.layout();
        let Some(pane) = layout.pane_at(m.column, m.row) else {
            return;
        };
        let Some(rect) = layout.rect(pane) else {
            return;
        };
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = m.kind == MouseEventKind::ScrollDown;
                match pane {
                    Pane::Picker => {
                        let action = if down { Action::Down } else { Action::Up };
                        let outcome = self.catalog.picker_mut().on_action(action);
                        self.on_picker(outcome, cmds);
                    }
                    Pane::Tree => {
                        self.tree.wheel(down);
                    }
                    Pane::Preview => self.preview.wheel(down),
                }
            }
            MouseEventKind::Down(MouseButton::Left) => {
                self.screen.focus_on(pane);
                // Rows start below the border (and the picker's search lines).
                let top = rect.y
                    + 1
                    + if pane == Pane::Picker {
                        picker::HEADER_LINES
                    } else {
                        0
                    };
                if m.row < top {
                    return;
                }
                let y = usize::from(m.row - top);
                match pane {
                    Pane::Picker => {
                        let outcome = self.catalog.picker_mut().click(y);
                        self.on_picker(outcome, cmds);
                    }
                    Pane::Tree => {
                        self.tree.click(y);
                    }
                    Pane::Preview => {}
                }
            }
            _ => {}
        }
    }
}
