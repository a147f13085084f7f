//! The context preview pane: the blocks a worker built, a block cursor, a
//! fold per block (kept by entry id and place, across reloads and
//! selections), scrolling by block and row, and the laid-out blocks kept
//! by (block, width, fold) and asked for as they come into view, and the
//! pictures of the images in view kept by (block, image, size) and asked
//! for likewise (decoded once, on a worker); `draw.rs` draws it.

use crate::render::ImageRoom;
use crate::tui::input::keymap::Action;
use crate::tui::model::preview_doc::{
    self, Folds, LaidOut, LayoutKey, LayoutRequest, PreviewBlock, PreviewDoc, PreviewKey,
    PreviewMode, Rows,
};
use crate::tui::model::preview_images::{Graphics, ImageKey, ImageRequest, Picture, PictureReady};

mod draw;
pub mod style;
use crate::tui::look::theme::Theme;
pub use draw::text_area;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Block;
use std::collections::HashMap;
use std::sync::Arc;

/// Bytes of laid-out rows kept; past this the cache starts again (a block
/// is laid out again in well under a millisecond). Bounded by bytes, not
/// blocks: following a session pi writes makes a new layout of each block
/// it changes, and one block's rows can be megabytes.
const CACHE_BYTES: usize = 24 * 1024 * 1024;
/// Bytes of pictures kept; past this, those out of view are let go (each
/// holds the picture's pixels as the terminal is sent them).
const PICTURE_BYTES: usize = 96 * 1024 * 1024;

#[derive(Debug, Clone, Default)]
pub struct PreviewPane {
    mode: PreviewMode,
    /// The newest document; it may belong to the previous selection while
    /// the next one is built.
    doc: Option<Box<PreviewDoc>>,
    /// The preview the pane should show (the tree's selection).
    wanted: Option<PreviewKey>,
    /// Text rows that fit (set from the layout).
    height: usize,
    /// Folds set by hand, for the open session.
    folds: Folds,
    cache: HashMap<LayoutKey, Rows>,
    /// What `cache` holds, in bytes (see [`preview_doc::rows_bytes`]).
    cache_bytes: usize,
    /// What `pictures` holds, in bytes (see [`ImageKey::picture_bytes`]).
    picture_bytes: usize,
    /// The layouts last asked of the worker.
    asked: Vec<LayoutKey>,
    /// The document's blocks shown (inside open blocks), in order.
    shown: Vec<usize>,
    /// The marked block (an index into `shown`).
    cursor: usize,
    /// The first block in view (an index into `shown`), and how many of
    /// its rows are scrolled past.
    top: usize,
    top_row: usize,
    /// How the terminal draws pictures; `None`: images are placeholders.
    graphics: Option<Arc<Graphics>>,
    /// Pictures decoded, by image and size.
    pictures: HashMap<ImageKey, Picture>,
    /// The pictures last asked of the worker.
    pictures_asked: Vec<ImageKey>,
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

    /// The first block in view and the rows of it scrolled past.
    pub fn scroll(&self) -> (usize, usize) {
        (self.top, self.top_row)
    }

    /// Text rows that fit.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Raw or context, expanded or folded.
    pub fn mode(&self) -> PreviewMode {
        self.mode
    }

    /// The folds set by hand.
    pub fn folds(&self) -> &Folds {
        &self.folds
    }

    /// The preview the pane should show.
    pub fn wanted(&self) -> Option<PreviewKey> {
        self.wanted
    }

    /// The marked block.
    pub fn cursor_block(&self) -> Option<&PreviewBlock> {
        let doc = self.doc.as_ref()?;
        doc.blocks.get(*self.shown.get(self.cursor)?)
    }

    /// Asks the pane to show `key` (the tree's selection at this width);
    /// `None` when nothing is selected, which empties the pane at once (no
    /// document is coming for it).
    pub fn want(&mut self, key: Option<PreviewKey>) {
        self.wanted = key;
        if key.is_none() {
            self.doc = None;
            self.shown.clear();
            (self.top, self.top_row, self.cursor) = (0, 0, 0);
        }
    }

    /// Whether the document on screen is not the one wanted.
    pub fn is_stale(&self) -> bool {
        self.wanted.is_some() && self.doc.as_ref().map(|d| d.key) != self.wanted
    }

    /// Takes a newly built document. For the same entry (a reload, a new
    /// width or mode) the marked block stays where it was on screen;
    /// otherwise the view goes to the selected entry.
    /// The header of the preview of `key`, its context's size read whole:
    /// taken when that preview is still the one shown.
    pub fn sized(&mut self, key: PreviewKey, header: ratatui::text::Line<'static>) {
        if let Some(doc) = self.doc.as_mut().filter(|d| d.key == key) {
            doc.header = header;
            doc.size_later = None;
        }
    }

    pub fn set_doc(&mut self, doc: Box<PreviewDoc>) {
        let same_file = self.doc.as_ref().is_some_and(|d| d.path == doc.path);
        if !same_file {
            self.folds.clear();
            self.clear_cache();
            self.pictures = HashMap::new();
            self.picture_bytes = 0;
        }
        for (k, rows) in &doc.laid {
            self.cache_rows(k.clone(), rows.clone());
        }
        // The marked block and its place on screen, to keep.
        let kept = self
            .doc
            .as_ref()
            .filter(|d| same_file && d.key.node == doc.key.node)
            .and_then(|_| {
                let id = self.cursor_block()?.id.clone();
                let row = self.offset_of(self.cursor)?;
                Some((id, row))
            });
        self.asked.clear();
        self.doc = Some(doc);
        self.reshow();
        match kept {
            Some((id, row)) => {
                let doc = self.doc.as_ref().map(|d| d.blocks.clone());
                let at = doc.and_then(|blocks| self.shown.iter().position(|&k| blocks[k].id == id));
                match at {
                    Some(at) => {
                        self.cursor = at;
                        self.put_at(at, row.min(self.height.saturating_sub(1)));
                    }
                    None => self.scroll_to_selected(),
                }
            }
            None => self.scroll_to_selected(),
        }
    }

    /// Takes blocks the worker laid out.
    pub fn laid_out(&mut self, laid: LaidOut) {
        for (k, rows) in laid.rows {
            self.asked.retain(|a| a != &k);
            self.cache_rows(k, rows);
        }
        self.clamp();
    }

    /// Keeps a block's rows, starting the cache again when it would hold
    /// more than [`CACHE_BYTES`].
    fn cache_rows(&mut self, key: LayoutKey, rows: Rows) {
        let bytes = preview_doc::rows_bytes(&rows);
        if self.cache_bytes + bytes > CACHE_BYTES {
            self.clear_cache();
        }
        self.cache_bytes += bytes;
        if let Some(old) = self.cache.insert(key, rows) {
            self.cache_bytes = self
                .cache_bytes
                .saturating_sub(preview_doc::rows_bytes(&old));
        }
    }

    /// Empties the layout cache and gives its memory back.
    fn clear_cache(&mut self) {
        self.cache = HashMap::new();
        self.cache_bytes = 0;
    }

    /// How many bytes the layout and picture caches hold.
    pub fn cached_bytes(&self) -> (usize, usize) {
        (self.cache_bytes, self.picture_bytes)
    }

    /// The blocks near the view not laid out yet, as a request for the
    /// worker (their notes naming `fold_key`); `None` when there are none
    /// or they were asked for already.
    pub fn layouts_wanted(&mut self, fold_key: &str) -> Option<LayoutRequest> {
        let doc = self.doc.as_ref()?;
        let h = self.height.max(1);
        let mut wanted = Vec::new();
        let mut keys = Vec::new();
        let mut consider = |pos: usize, this: &PreviewPane| {
            let k = this.shown[pos];
            let b = &doc.blocks[k];
            let open = preview_doc::is_open(b, &this.folds, this.mode);
            let key = LayoutKey::of(b, doc.key.width, open);
            if !this.cache.contains_key(&key) {
                wanted.push((k, open));
                keys.push(key);
            }
        };
        // A screen above the view and two below it.
        let mut rows = 0;
        for pos in (0..self.top.min(self.shown.len())).rev() {
            if rows >= h {
                break;
            }
            consider(pos, self);
            rows += self.height_of(pos);
        }
        let mut rows = 0;
        for pos in self.top..self.shown.len() {
            if rows >= 3 * h {
                break;
            }
            consider(pos, self);
            rows += self.height_of(pos);
        }
        if keys.is_empty() || keys == self.asked {
            return None;
        }
        self.asked = keys;
        Some(LayoutRequest {
            key: doc.key,
            blocks: doc.blocks.clone(),
            wanted,
            fold_key: fold_key.to_string(),
            images: self.image_room(),
        })
    }

    /// Draws images as pictures with `graphics` (`None`: as placeholders);
    /// what was laid out before is laid out again.
    pub fn set_graphics(&mut self, graphics: Option<Graphics>) {
        self.mode.pictures = graphics.is_some();
        self.graphics = graphics.map(Arc::new);
        // Every block's height changes: the view is placed anew on the
        // document built for this mode.
        self.doc = None;
        self.shown.clear();
        (self.top, self.top_row, self.cursor) = (0, 0, 0);
        self.clear_cache();
        self.asked.clear();
        self.pictures = HashMap::new();
        self.picture_bytes = 0;
        self.pictures_asked.clear();
    }

    /// How the terminal draws pictures, when it does.
    pub fn graphics(&self) -> Option<&Graphics> {
        self.graphics.as_deref()
    }

    /// The room the layout keeps for pictures, when they are drawn.
    pub fn image_room(&self) -> Option<ImageRoom> {
        self.graphics.as_ref().map(|g| g.room())
    }

    /// The pictures of the images in view and a screen below not decoded
    /// yet, as a request for the worker; `None` when there are none, they
    /// were asked for already, or images are placeholders.
    pub fn pictures_wanted(&mut self) -> Option<ImageRequest> {
        let graphics = self.graphics.clone()?;
        let doc = self.doc.as_ref()?;
        let h = self.height.max(1);
        let mut wanted = Vec::new();
        let mut rows = 0;
        for pos in self.top..self.shown.len() {
            if rows >= 2 * h {
                break;
            }
            let Some(laid) = self.rows_at(pos) else {
                rows += 1;
                continue;
            };
            rows += laid.rows.len();
            let k = self.shown[pos];
            for spot in &laid.images {
                let key = ImageKey::of(&doc.blocks[k], spot);
                if !self.pictures.contains_key(&key) {
                    wanted.push((k, key));
                }
            }
        }
        let keys: Vec<ImageKey> = wanted.iter().map(|(_, k)| k.clone()).collect();
        if keys.is_empty() || keys == self.pictures_asked {
            return None;
        }
        self.pictures_asked = keys;
        Some(ImageRequest {
            blocks: doc.blocks.clone(),
            wanted,
            graphics,
        })
    }

    /// Takes a picture the worker decoded (or the reason there is none).
    pub fn picture_ready(&mut self, ready: PictureReady) {
        self.pictures_asked.retain(|a| a != &ready.key);
        let cell = self.graphics.as_ref().map_or((1, 1), |g| g.cell());
        let bytes = ready.key.picture_bytes(cell);
        if self.picture_bytes + bytes > PICTURE_BYTES {
            let near = self.pictures_near();
            self.pictures.retain(|k, _| near.contains(k));
            self.picture_bytes = self.pictures.keys().map(|k| k.picture_bytes(cell)).sum();
        }
        if self.pictures.insert(ready.key, ready.picture).is_none() {
            self.picture_bytes += bytes;
        }
    }

    /// The picture decoded for `key`, if it has arrived.
    pub fn picture(&self, key: &ImageKey) -> Option<&Picture> {
        self.pictures.get(key)
    }

    /// The names of the pictures of the blocks a screen either side of
    /// the view.
    fn pictures_near(&self) -> Vec<ImageKey> {
        let Some(doc) = &self.doc else {
            return Vec::new();
        };
        let h = self.height.max(1);
        let from = self.top.saturating_sub(h);
        let mut out = Vec::new();
        for pos in from..self.shown.len().min(self.top + 2 * h) {
            if let Some(laid) = self.rows_at(pos) {
                let b = &doc.blocks[self.shown[pos]];
                out.extend(laid.images.iter().map(|s| ImageKey::of(b, s)));
            }
        }
        out
    }

    /// The rows of the block at `pos` of the shown ones, when laid out.
    pub fn rows_at(&self, pos: usize) -> Option<&Rows> {
        let doc = self.doc.as_ref()?;
        let b = &doc.blocks[*self.shown.get(pos)?];
        let open = preview_doc::is_open(b, &self.folds, self.mode);
        self.cache.get(&LayoutKey::of(b, doc.key.width, open))
    }

    /// The blocks shown, as indices into the document's blocks.
    pub fn shown(&self) -> &[usize] {
        &self.shown
    }

    /// The marked block's place among the shown ones.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Rows of the block at `pos`: one (its title) until it is laid out.
    pub(super) fn height_of(&self, pos: usize) -> usize {
        self.rows_at(pos).map_or(1, |r| r.rows.len())
    }

    /// The row on screen where the block at `pos` starts (0 when it
    /// starts above the view), when at or below the view's top.
    fn offset_of(&self, pos: usize) -> Option<usize> {
        Some(self.rows_before(pos)?.saturating_sub(self.top_row))
    }

    /// Computes which blocks show (after a fold or a new document),
    /// keeping the cursor and the view on their blocks.
    fn reshow(&mut self) {
        let Some(doc) = &self.doc else {
            self.shown.clear();
            return;
        };
        let cursor_block = self.shown.get(self.cursor).copied();
        let top_block = self.shown.get(self.top).copied();
        self.shown = preview_doc::visible(&doc.blocks, &self.folds, self.mode);
        let find = |k: Option<usize>, shown: &[usize]| {
            k.and_then(|k| shown.iter().position(|&s| s >= k))
                .unwrap_or(0)
        };
        self.cursor = find(cursor_block, &self.shown);
        self.top = find(top_block, &self.shown);
        self.clamp();
    }

    /// Puts the block at `pos` on screen row `row` (or as near as the
    /// blocks before it allow).
    fn put_at(&mut self, pos: usize, row: usize) {
        let mut need = row;
        let mut p = pos;
        let mut r = 0;
        while need > 0 && p > 0 {
            p -= 1;
            let h = self.height_of(p);
            if h >= need {
                r = h - need;
                need = 0;
            } else {
                need -= h;
            }
        }
        if need > 0 {
            r = 0;
        }
        self.top = p;
        self.top_row = r;
        self.clamp();
    }

    /// Shows the start of the selected entry's own blocks, or, when they
    /// are shorter than the pane, as much of the conversation before them
    /// as fits above; the cursor on its first block.
    pub fn scroll_to_selected(&mut self) {
        let Some(doc) = &self.doc else { return };
        let first = self.shown.iter().position(|&k| doc.blocks[k].selected);
        let Some(first) = first else {
            self.cursor = self.shown.len().saturating_sub(1);
            self.scroll_to_bottom();
            return;
        };
        let count = self.shown[first..]
            .iter()
            .take_while(|&&k| doc.blocks[k].selected)
            .count();
        self.cursor = first;
        let len: usize = (first..first + count).map(|p| self.height_of(p)).sum();
        let h = self.height.max(1);
        if len >= h {
            self.top = first;
            self.top_row = 0;
            self.clamp();
        } else {
            self.put_at(first, h - len);
        }
    }

    /// The view at the end of the document.
    fn scroll_to_bottom(&mut self) {
        let n = self.shown.len();
        if n == 0 {
            return;
        }
        let h = self.height.max(1);
        let last = n - 1;
        let last_h = self.height_of(last);
        if last_h >= h {
            self.top = last;
            self.top_row = last_h - h;
        } else {
            self.put_at(last, h - last_h);
        }
    }

    /// Keeps the view inside the document: never past its end while there
    /// is more above.
    fn clamp(&mut self) {
        let n = self.shown.len();
        if n == 0 {
            (self.top, self.top_row, self.cursor) = (0, 0, 0);
            return;
        }
        self.cursor = self.cursor.min(n - 1);
        self.top = self.top.min(n - 1);
        self.top_row = self.top_row.min(self.height_of(self.top).saturating_sub(1));
        let h = self.height.max(1);
        let mut below = 0;
        for p in self.top..n {
            below += self.height_of(p);
            if below - self.top_row.min(below) >= h {
                return;
            }
        }
        if self.top > 0 || self.top_row > 0 {
            self.scroll_to_bottom();
        }
    }

    /// Moves the view by `delta` rows.
    fn scroll_by(&mut self, delta: isize) {
        if delta >= 0 {
            let mut left = delta as usize;
            while left > 0 {
                let h = self.height_of(self.top);
                let rest = h - self.top_row.min(h);
                if left < rest || self.top + 1 >= self.shown.len() {
                    self.top_row += left;
                    break;
                }
                left -= rest;
                self.top += 1;
                self.top_row = 0;
            }
        } else {
            let mut left = delta.unsigned_abs();
            while left > 0 {
                if self.top_row >= left {
                    self.top_row -= left;
                    break;
                }
                left -= self.top_row;
                if self.top == 0 {
                    self.top_row = 0;
                    break;
                }
                self.top -= 1;
                self.top_row = self.height_of(self.top);
            }
        }
        self.clamp();
        self.cursor_into_view();
    }

    /// After the view moved: a cursor out of view goes to the first block
    /// whose title is in view.
    fn cursor_into_view(&mut self) {
        let h = self.height.max(1);
        if self.cursor >= self.top {
            if let Some(start) = self.rows_before(self.cursor) {
                let end = start + self.height_of(self.cursor);
                if end > self.top_row && start < self.top_row + h {
                    return;
                }
            }
        }
        self.cursor = if self.top_row == 0 || self.top + 1 >= self.shown.len() {
            self.top
        } else {
            self.top + 1
        };
    }

    /// Rows from the view's top block's first row to where `pos` starts.
    fn rows_before(&self, pos: usize) -> Option<usize> {
        (pos >= self.top).then(|| (self.top..pos).map(|p| self.height_of(p)).sum())
    }

    /// After the cursor moved: the view follows, showing the whole block
    /// when it fits, else its start.
    fn view_follows_cursor(&mut self) {
        let h = self.height.max(1);
        if self.cursor < self.top || (self.cursor == self.top && self.top_row > 0) {
            self.top = self.cursor;
            self.top_row = 0;
            self.clamp();
            return;
        }
        let Some(start) = self.rows_before(self.cursor) else {
            return;
        };
        let len = self.height_of(self.cursor);
        let end = start + len;
        if end <= self.top_row + h {
            return;
        }
        if len >= h {
            self.top = self.cursor;
            self.top_row = 0;
            self.clamp();
        } else {
            self.scroll_by((end - self.top_row - h) as isize);
        }
    }

    /// Folds or unfolds the marked block; true when a new document is
    /// needed (the note of entries left out was opened).
    fn toggle(&mut self) -> bool {
        let Some(b) = self.cursor_block() else {
            return false;
        };
        if b.role == preview_doc::BlockRole::Window {
            self.mode.expanded = true;
            return true;
        }
        if !b.foldable() {
            return false;
        }
        let open = preview_doc::is_open(b, &self.folds, self.mode);
        let id = b.id.clone();
        self.folds.insert(id, !open);
        self.reshow();
        false
    }

    /// Applies a key's action; returns true when a new document is needed.
    pub fn on_action(&mut self, action: Action) -> bool {
        let page = self.height.max(1) as isize;
        match action {
            Action::Up => self.scroll_by(-1),
            Action::Down => self.scroll_by(1),
            Action::PageUp => self.scroll_by(-page),
            Action::PageDown => self.scroll_by(page),
            Action::First => {
                (self.top, self.top_row, self.cursor) = (0, 0, 0);
                self.clamp();
            }
            Action::Last => {
                self.scroll_to_bottom();
                self.cursor = self.shown.len().saturating_sub(1);
            }
            Action::PreviewNextBlock => {
                if self.cursor + 1 < self.shown.len() {
                    self.cursor += 1;
                }
                self.view_follows_cursor();
            }
            Action::PreviewPreviousBlock => {
                self.cursor = self.cursor.saturating_sub(1);
                self.view_follows_cursor();
            }
            Action::PreviewSelected => self.scroll_to_selected(),
            Action::PreviewExpand => return self.toggle(),
            Action::PreviewExpandAll => {
                self.mode.expanded = !self.mode.expanded;
                self.folds.clear();
                return true;
            }
            Action::PreviewRaw => {
                self.mode.raw = !self.mode.raw;
                return true;
            }
            _ => {}
        }
        false
    }

    pub fn wheel(&mut self, down: bool) {
        self.scroll_by(if down { 3 } else { -3 });
    }

    pub fn set_height(&mut self, height: usize) {
        if self.height != height {
            self.height = height;
            self.clamp();
        }
    }

    /// The folds set by hand, for a worker laying out blocks.
    pub fn folds_snapshot(&self) -> Arc<Folds> {
        Arc::new(self.folds.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{Class, Laid, Span};
    use crate::tui::model::preview_doc::BlockId;

    #[test]
    fn the_layout_cache_is_bounded_by_bytes_not_blocks() {
        // A session pi keeps writing: each new revision of a long block is
        // laid out again under a new key.
        let mut pane = PreviewPane::default();
        let key = PreviewKey {
            session: 1,
            node: 0,
            mode: PreviewMode::default(),
            width: 80,
        };
        let row = vec![Span::new(&"x".repeat(2000), Class::Text)];
        for revision in 0..400u64 {
            let rows = Arc::new(Laid {
                rows: vec![row.clone(); 200],
                images: Vec::new(),
            });
            let k = LayoutKey {
                id: BlockId {
                    entry: "e".into(),
                    index: 0,
                    nested: false,
                },
                revision,
                width: 80,
                open: true,
            };
            pane.laid_out(LaidOut {
                key,
                rows: vec![(k, rows)],
            });
            let (bytes, _) = pane.cached_bytes();
            assert!(bytes <= CACHE_BYTES, "{bytes} bytes cached");
        }
        assert!(!pane.cache.is_empty() && pane.cache.len() < 400);
    }
}
