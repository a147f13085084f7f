//! The usage view and the usage book: opening the view (F3), its keys, the
//! book as it arrives (the picker's cost column and totals) and the charts.

use crate::catalog::usage::UsageBook;
use crate::tui::event::Command;
use crate::tui::input::keymap::{Action, Key, Scope};
use crate::tui::look::layout::Pane;
use crate::tui::look::strings;
use crate::tui::model::usage_charts::{UsageCharts, UsageRequest};
use crate::tui::overlays::usage::{UsageKey, UsageView};
use crate::tui::state::App;
use crate::tui::work::newest::Answer;
use std::sync::Arc;

impl App {
    /// The usage key: the usage view of what the sessions pane lets through.
    pub(in crate::tui) fn open_usage(&mut self, cmds: &mut Vec<Command>) {
        if !self.screen.has(crate::tui::look::layout::Pane::Picker) {
            self.say(strings::USAGE_NEEDS_LIST.to_string(), false);
            return;
        }
        let picker = self.catalog.picker();
        let mut scope = picker.title_parts(&self.config.keymap)[1].clone();
        if !picker.query().is_empty() {
            scope = strings::usage_scope_matching(&scope, picker.query());
        }
        self.overlay.show_usage(UsageView::new(scope));
        cmds.extend(self.usage_request());
    }

    /// The charts for the view as it is now; none until the book is read
    /// (its arrival asks again).
    fn usage_request(&mut self) -> Option<Command> {
        let picker = self.catalog.picker();
        let book = picker.usage()?.clone();
        let view = self.overlay.usage_mut()?;
        let (period, stamp) = (view.period, view.ask());
        let (sessions, deleted_in) = self.catalog.picker().usage_sessions();
        Some(Command::BuildUsage(Box::new(UsageRequest {
            stamp,
            book,
            sessions,
            deleted_in,
            period,
            now_ms: self.clock.tick().now_ms,
            utc_offset: self.clock.utc_offset,
        })))
    }

    /// A key while the view is shown; false when it is not.
    pub(in crate::tui) fn on_usage_key(&mut self, k: Key, cmds: &mut Vec<Command>) -> bool {
        let keymap = &self.config.keymap;
        let Some(view) = self.overlay.usage_mut() else {
            return false;
        };
        match view.key(k, keymap) {
            UsageKey::Stay => {}
            UsageKey::Rebuild => cmds.extend(self.usage_request()),
            UsageKey::Close => self.overlay.close(),
            UsageKey::Open(path) => {
                self.overlay.close();
                let outcome = self.catalog.picker_mut().select(&path);
                self.on_picker(outcome, cmds);
                if self.catalog.picker().selected_session().map(|s| &s.path) == Some(&path) {
                    self.open_session(path, cmds);
                    if self.screen.has(Pane::Tree) {
                        self.screen.focus_on(Pane::Tree);
                    }
                } else {
                    self.say(strings::USAGE_SESSION_GONE.to_string(), true);
                }
            }
            UsageKey::Deleted => {
                let undo = keymap.keys_for(Scope::Global, Action::Undo);
                view.note = Some(strings::usage_session_deleted(&undo));
            }
        }
        true
    }

    pub(in crate::tui) fn on_usage_loaded(
        &mut self,
        book: Arc<UsageBook>,
        cmds: &mut Vec<Command>,
    ) {
        self.catalog.picker_mut().set_usage(book);
        if self.overlay.usage().is_some() {
            cmds.extend(self.usage_request());
        }
    }

    pub(in crate::tui) fn on_usage_ready(&mut self, charts: Answer<Box<UsageCharts>>) {
        if let Some(v) = self.overlay.usage_mut() {
            v.take(charts);
        }
    }

    /// Reads the usage again (the catalog was read, a session changed).
    pub(in crate::tui) fn reload_usage(&self, cmds: &mut Vec<Command>) {
        cmds.push(Command::LoadUsage {
            demo: self.catalog.picker().is_demo(),
        });
    }
}
