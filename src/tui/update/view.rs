//! The view's fit: each pane's height from the layout, and the preview the
//! tree's selection needs.

use crate::tui::event::Command;
use crate::tui::input::keymap::{Action, Scope};
use crate::tui::look::layout::Pane;
use crate::tui::model::preview_doc::{PreviewKey, PreviewRequest};
use crate::tui::panes::picker::{self};
use crate::tui::panes::preview::{self};
use crate::tui::state::App;

impl App {
    /// Fits the panes to the layout and asks for the preview the tree's
    /// selection needs.
    pub(in crate::tui) fn sync_view(&mut self, cmds: &mut Vec<Command>) {
        let layout = self.layout();
        if let Some(r) = layout.inner(Pane::Picker) {
            let h = r.height.saturating_sub(picker::HEADER_LINES);
            self.catalog.picker_mut().set_height(usize::from(h));
        }
        if let Some(r) = layout.inner(Pane::Tree) {
            let search = self.tree.has_search_line();
            let h = r.height.saturating_sub(u16::from(search));
            self.tree.set_height(usize::from(h));
        }
        let preview_rect = layout.inner(Pane::Preview).map(preview::text_area);
        if let Some(r) = preview_rect {
            self.preview.set_height(usize::from(r.height));
        }
        // A row standing for a leaf the filter hides previews the leaf: the
        // context pi resumes with.
        let node = self.tree.preview_node();
        let width = preview_rect.map(|r| r.width);
        let wanted = match (node, width) {
            (Some(node), Some(width)) => Some(PreviewKey {
                session: self.open.shown_read(),
                node,
                mode: self.preview.mode(),
                width,
            }),
            (Some(node), None) => self.preview.wanted().filter(|w| w.node == node),
            _ => None,
        };
        self.preview.want(wanted);
        let fold_key = self
            .config
            .keymap
            .keys_for(Scope::Preview, Action::PreviewExpand);
        if let Some(req) = self.preview.layouts_wanted(&fold_key) {
            cmds.push(Command::LayOutPreview(Box::new(req)));
        }
        if let Some(req) = self.preview.pictures_wanted() {
            cmds.push(Command::DecodePictures(Box::new(req)));
        }
        if !self.preview.is_stale() || self.open.preview_asked(wanted) {
            return;
        }
        let (Some(key), Some(loaded)) = (wanted, self.tree.loaded().cloned()) else {
            return;
        };
        let stamp = self.open.ask_preview(key);
        cmds.push(Command::BuildPreview(Box::new(PreviewRequest {
            stamp,
            key,
            loaded,
            theme: self.config.theme.clone(),
            clock: self.clock,
            expand_key: fold_key,
            folds: self.preview.folds_snapshot(),
            height: self.preview.height(),
            images: self.preview.image_room(),
        })));
    }
}
