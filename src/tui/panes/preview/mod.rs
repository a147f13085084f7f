//! The context preview pane: scrolling and the expand and raw-JSON
//! toggles over the document a worker built; `draw.rs` draws it.

use crate::tui::input::keymap::Action;
use crate::tui::model::preview_doc::{PreviewDoc, PreviewKey, PreviewMode};

mod draw;
use crate::tui::look::theme::Theme;
pub use draw::text_area;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Block;

#[derive(Debug, Clone, Default)]
pub struct PreviewPane {
    mode: PreviewMode,
    /// The newest document; it may belong to the previous selection while
    /// the next one is built.
    doc: Option<Box<PreviewDoc>>,
    /// The preview the pane should show (the tree's selection).
    wanted: Option<PreviewKey>,
    scroll: usize,
    /// Text rows that fit (set from the layout).
    height: usize,
}

impl PreviewPane {
    /// Draws the pane into `area`.
    pub fn draw(&self, frame: &mut Frame, area: Rect, block: Block<'_>, theme: &Theme) {
        draw::draw(frame, area, self, block, theme);
    }

    /// The newest document built (perhaps for the previous selection).
    pub fn doc(&self) -> Option<&PreviewDoc> {
        self.doc.as_deref()
    }

    /// The first document line shown.
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    /// Text rows that fit.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Raw or context, expanded or folded.
    pub fn mode(&self) -> PreviewMode {
        self.mode
    }

    /// The preview the pane should show.
    pub fn wanted(&self) -> Option<PreviewKey> {
        self.wanted
    }

    /// Asks the pane to show `key` (the tree's selection at this width);
    /// `None` when nothing is selected, which empties the pane at once (no
    /// document is coming for it).
    pub fn want(&mut self, key: Option<PreviewKey>) {
        self.wanted = key;
        if key.is_none() {
            self.doc = None;
            self.scroll = 0;
        }
    }

    /// Whether the document on screen is not the one wanted.
    pub fn is_stale(&self) -> bool {
        self.wanted.is_some() && self.doc.as_ref().map(|d| d.key) != self.wanted
    }

    /// Takes a newly built document and scrolls to the selected entry
    /// (unless only the width or mode changed, when the place is kept
    /// relative to the selected entry, which expanding moves down).
    pub fn set_doc(&mut self, doc: Box<PreviewDoc>) {
        let old = self
            .doc
            .as_ref()
            .filter(|d| (d.key.session, d.key.node) == (doc.key.session, doc.key.node))
            .map(|d| d.anchor);
        let new_anchor = doc.anchor;
        self.doc = Some(doc);
        match (old, new_anchor) {
            (None, _) => self.scroll_to_selected(),
            (Some(Some((was, _))), Some((now, len))) => {
                let from_entry = self.scroll as i64 - was as i64;
                self.scroll = (now as i64 + from_entry).max(0) as usize;
                self.clamp();
                // The entry stays in view (the pane may be shorter now).
                let shown = self.scroll..self.scroll + self.height.max(1);
                if !(shown.contains(&now) || shown.contains(&(now + len.max(1) - 1))) {
                    self.scroll_to_selected();
                }
            }
            (Some(_), _) => self.clamp(),
        }
    }

    /// Shows the start of the selected entry's own message, or as much of
    /// its end as fits.
    pub fn scroll_to_selected(&mut self) {
        let Some(doc) = &self.doc else { return };
        self.scroll = match doc.anchor {
            Some((start, len)) => {
                let h = self.height.max(1);
                // A long message starts at the top; a short one sits at the
                // bottom with the conversation before it above.
                if len >= h {
                    start
                } else {
                    (start + len).saturating_sub(h)
                }
            }
            None => doc.lines.len(),
        };
        self.clamp();
    }

    fn clamp(&mut self) {
        let total = self.doc.as_ref().map_or(0, |d| d.lines.len());
        self.scroll = self.scroll.min(total.saturating_sub(self.height.max(1)));
    }

    /// Applies a key's action; returns true when a new document is needed.
    pub fn on_action(&mut self, action: Action) -> bool {
        let page = self.height.max(1);
        match action {
            Action::Up => self.scroll = self.scroll.saturating_sub(1),
            Action::Down => self.scroll += 1,
            Action::PageUp => self.scroll = self.scroll.saturating_sub(page),
            Action::PageDown => self.scroll += page,
            Action::First => self.scroll = 0,
            Action::Last => self.scroll = usize::MAX,
            Action::PreviewSelected => self.scroll_to_selected(),
            Action::PreviewExpand => {
                self.mode.expanded = !self.mode.expanded;
                return true;
            }
            Action::PreviewRaw => {
                self.mode.raw = !self.mode.raw;
                self.scroll = 0;
                return true;
            }
            _ => {}
        }
        self.clamp();
        false
    }

    pub fn wheel(&mut self, down: bool) {
        if down {
            self.scroll += 3;
        } else {
            self.scroll = self.scroll.saturating_sub(3);
        }
        self.clamp();
    }

    pub fn set_height(&mut self, height: usize) {
        self.height = height;
        self.clamp();
    }
}
