//! Live reload as the app sees it: a changed file is read on (the open
//! session) and summarised again (the sessions list); how changes are noticed.

use crate::catalog::SessionSummary;
use crate::tui::event::Command;
use crate::tui::look::layout::Pane;
use crate::tui::look::strings;
use crate::tui::panes::picker::PickerOutcome;
use crate::tui::panes::tree::Content;
use crate::tui::state::App;
use crate::watch::WatchMode;
use std::path::{Path, PathBuf};

impl App {
    /// A session file changed, appeared or disappeared (seen by the watcher,
    /// or written by piscope itself).
    pub(in crate::tui) fn file_changed(&mut self, path: &Path, cmds: &mut Vec<Command>) {
        if self.open.is(path) {
            self.refresh_open(cmds);
        }
        if self.screen.has(Pane::Picker) {
            // One summary of a file at a time; changes meanwhile ask for one more.
            if self.live.summary_wanted(path) {
                cmds.push(Command::Summarise(path.to_path_buf()));
            }
        }
    }

    /// Reads the open session on from where it was read to; the tree keeps
    /// its selection and folds by entry id.
    pub(in crate::tui) fn refresh_open(&mut self, cmds: &mut Vec<Command>) {
        let Some(path) = self.open.path().cloned() else {
            return;
        };
        match self.tree.content() {
            Content::Ready(t) if !self.tree_is_behind() && t.session.path == path => {
                cmds.push(Command::RefreshSession {
                    stamp: self.open.read_on(),
                    loaded: t.clone(),
                });
            }
            // Not shown yet, or could not be read: read it whole.
            Content::Failed { .. } | Content::Empty => {
                let stamp = self.open.reread();
                cmds.push(Command::OpenSession { stamp, path });
            }
            _ => {}
        }
    }

    pub(in crate::tui) fn on_session_changed(
        &mut self,
        path: PathBuf,
        summary: Option<Box<SessionSummary>>,
        cmds: &mut Vec<Command>,
    ) {
        if self.live.summary_done(&path) {
            cmds.push(Command::Summarise(path.clone()));
        }
        let was_open = self.open.is(&path);
        let gone = summary.is_none();
        let outcome = self
            .catalog
            .picker_mut()
            .on_session_changed(path, summary.map(|s| *s));
        if outcome != PickerOutcome::Nothing && was_open && gone {
            self.say(strings::SESSION_DELETED.to_string(), true);
        }
        self.on_picker(outcome, cmds);
    }

    pub(in crate::tui) fn on_watching(&mut self, mode: WatchMode) {
        let demo = self
            .live
            .watching()
            .cloned()
            .filter(|_| self.picker().is_demo());
        match (&mode, demo) {
            // The demo replaced the user's folder, which may not exist: say
            // what is watched now.
            (WatchMode::Polling { reason }, Some(dir)) => {
                self.say(strings::watching_demo(&dir, Some(reason)), false);
            }
            (WatchMode::Events, Some(dir)) => self.say(strings::watching_demo(&dir, None), false),
            (WatchMode::Polling { reason }, None) => self.say(strings::polling(reason), false),
            (WatchMode::Events, None) => {}
        }
        self.live.set_mode(Some(mode));
    }
}
