//! What the screen is made of: the terminal's size, the panes of this run
//! left to right, the focused one, the line above them and the home folder
//! paths are shortened by.

use crate::tui::input::keymap::Scope;
use crate::tui::look::layout::{Layout, Pane};
use ratatui::layout::Rect;

#[derive(Debug)]
pub struct Screen {
    size: Rect,
    panes: Vec<Pane>,
    focus: Pane,
    /// A line above the panes (the demo notice).
    banner: Option<String>,
    home: Option<String>,
}

impl Screen {
    pub fn new(size: Rect, panes: Vec<Pane>, focus: Pane, home: Option<String>) -> Screen {
        Screen {
            size,
            panes,
            focus,
            banner: None,
            home,
        }
    }

    pub fn layout(&self) -> Layout {
        Self::layout_in(self, self.size)
    }

    /// The layout in `area` (the frame drawn into).
    pub fn layout_in(&self, area: Rect) -> Layout {
        Layout::compute(area, &self.panes, self.focus, self.banner.is_some())
    }

    /// The terminal's size.
    pub fn size(&self) -> Rect {
        self.size
    }

    pub fn resize(&mut self, width: u16, height: u16) {
        self.size = Rect::new(0, 0, width, height);
    }

    /// The panes of this run, left to right.
    pub fn panes(&self) -> &[Pane] {
        &self.panes
    }

    /// Whether this run has `pane`.
    pub fn has(&self, pane: Pane) -> bool {
        self.panes.contains(&pane)
    }

    pub fn focus(&self) -> Pane {
        self.focus
    }

    pub fn focus_on(&mut self, pane: Pane) {
        self.focus = pane;
    }

    /// Moves the focus to the next (or previous) pane, round.
    pub fn cycle_focus(&mut self, forward: bool) {
        self.focus = self.next_pane(forward);
    }

    /// The pane the next-pane key (`forward`) or the previous-pane key
    /// moves the focus to.
    pub fn next_pane(&self, forward: bool) -> Pane {
        let n = self.panes.len().max(1);
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
        self.panes.get(next).copied().unwrap_or(self.focus)
    }

    /// The keymap scope of the focused pane.
    pub fn scope(&self) -> Scope {
        scope_of(self.focus)
    }

    pub fn banner(&self) -> Option<&str> {
        self.banner.as_deref()
    }

    pub fn show_banner(&mut self, text: String) {
        self.banner = Some(text);
    }

    /// The home folder, which paths shown are shortened by.
    pub fn home(&self) -> Option<&str> {
        self.home.as_deref()
    }
}

/// A pane's keymap scope.
pub fn scope_of(pane: Pane) -> Scope {
    match pane {
        Pane::Picker => Scope::Picker,
        Pane::Tree => Scope::Tree,
        Pane::Preview => Scope::Preview,
    }
}
