//! The files sessions touched: in the tree, the list of the files the
//! open session's tool calls touched, and the step through the entries
//! that changed the one chosen (the preview shows each edit's diff); in
//! the sessions pane, the filter that keeps the sessions that touched a
//! file, typed (a path or a glob) or picked from the files the sessions in
//! scope touched. The touched-files worker answers from the index in the
//! cache folder.

use crate::catalog::search::touched::shown_path;
use crate::tui::event::Command;
use crate::tui::input::keymap::{Action, Key, Scope};
use crate::tui::look::strings;
use crate::tui::model::touched::{
    TouchedAnswer, TouchedAsk, scope_items, session_items, walk_entries,
};
use crate::tui::overlays::file_list::{FileList, FileListFor, FileListKey, list_rows};
use crate::tui::state::App;
use crate::tui::state::touched::Walk;
use crate::tui::work::newest::Answer;

impl App {
    /// The tree's key: the list of the files the open session touched.
    pub(in crate::tui) fn ask_touched_files(&mut self, cmds: &mut Vec<Command>) {
        let Some(path) = self.open_path().cloned() else {
            self.say(strings::NO_ENTRY.to_string(), true);
            return;
        };
        self.overlay.show_files(FileList::new(
            strings::TOUCHED_FILES_TITLE,
            FileListFor::Session(path.clone()),
            false,
            strings::TOUCHED_READING,
        ));
        let stamp = self.touched.asked.stamp();
        cmds.push(Command::Touched {
            stamp,
            ask: TouchedAsk::Session(path),
        });
    }

    /// The sessions pane's key: the list of files to filter by, or, with a
    /// filter in force, every session again.
    pub(in crate::tui) fn toggle_touched_filter(&mut self, cmds: &mut Vec<Command>) {
        if self.picker().file_filter().is_some() {
            let outcome = self.catalog.picker_mut().clear_file_filter();
            self.on_picker(outcome, cmds);
            return;
        }
        self.overlay.show_files(FileList::new(
            strings::TOUCHED_SCOPE_TITLE,
            FileListFor::Sessions,
            true,
            strings::TOUCHED_READING,
        ));
        let stamp = self.touched.asked.stamp();
        cmds.push(Command::Touched {
            stamp,
            ask: TouchedAsk::Scope(self.picker().sessions_in_scope()),
        });
    }

    /// The worker's answer (only the newest request's is taken).
    pub(in crate::tui) fn on_touched(
        &mut self,
        answer: Answer<TouchedAnswer>,
        cmds: &mut Vec<Command>,
    ) {
        let Some(answer) = self.touched.asked.take(answer) else {
            return;
        };
        match answer {
            TouchedAnswer::Session { path, result } => match result {
                Ok(t) => {
                    if let Some(list) = self.overlay.files_mut()
                        && list.purpose == FileListFor::Session(path.clone())
                    {
                        list.items = session_items(&t);
                        list.empty = strings::TOUCHED_NONE.to_string();
                    }
                    self.touched.session = Some((path, t));
                }
                Err(why) => self.touched_failed(&why),
            },
            TouchedAnswer::Scope(files) => {
                let home = self.screen.home().map(str::to_string);
                if let Some(list) = self.overlay.files_mut()
                    && list.purpose == FileListFor::Sessions
                {
                    list.items = scope_items(&files, home.as_deref());
                    list.empty = strings::TOUCHED_NONE.to_string();
                }
            }
            TouchedAnswer::Filter { pattern, result } => match result {
                Ok(sessions) => {
                    let n = sessions.len();
                    let outcome = self
                        .catalog
                        .picker_mut()
                        .set_file_filter(pattern.clone(), sessions);
                    self.on_picker(outcome, cmds);
                    let clear = self
                        .config
                        .keymap
                        .keys_for(Scope::Picker, Action::PickerTouched);
                    self.say(strings::touched_filtered(n, &pattern, &clear), false);
                }
                Err(why) => self.touched_failed(&why),
            },
        }
    }

    fn touched_failed(&mut self, why: &str) {
        if self.overlay.files().is_some() {
            self.overlay.close();
        }
        self.say(strings::touched_failed(why), true);
    }

    /// A key while the list of files is shown; false when it is not.
    pub(in crate::tui) fn on_files_key(&mut self, k: Key, cmds: &mut Vec<Command>) -> bool {
        let rows = list_rows(self.screen.size().height);
        let Some(answer) = self.overlay.files_key(k, &self.config.keymap, rows) else {
            return false;
        };
        match answer {
            FileListKey::Stay => {}
            FileListKey::Cancel => self.overlay.close(),
            FileListKey::Chosen(chosen) => {
                let purpose = self.overlay.files().map(|l| l.purpose.clone());
                self.overlay.close();
                match purpose {
                    Some(FileListFor::Session(path)) => self.start_walk(path, &chosen),
                    Some(FileListFor::Sessions) => {
                        let stamp = self.touched.asked.stamp();
                        cmds.push(Command::Touched {
                            stamp,
                            ask: TouchedAsk::Filter {
                                pattern: chosen,
                                sessions: self.picker().sessions_in_scope(),
                            },
                        });
                    }
                    None => {}
                }
            }
        }
        true
    }

    /// Moves the tree to the newest entry that changed `file` (else
    /// touched it), and keeps the others to step through.
    fn start_walk(&mut self, session: std::path::PathBuf, file: &str) {
        let Some((_, t)) = self.touched.session.as_ref().filter(|(p, _)| *p == session) else {
            return;
        };
        let entries = walk_entries(t, file);
        let changed = t.touches.iter().any(|x| x.file == file && x.tool.changes());
        let shown = shown_path(file, t.cwd.as_deref().unwrap_or("")).to_string();
        if let Some(first) = entries.first() {
            self.tree.select_id(first, false);
        }
        let keymap = &self.config.keymap;
        let next = keymap.keys_for(Scope::Tree, Action::TreeNextTouch);
        let previous = keymap.keys_for(Scope::Tree, Action::TreePreviousTouch);
        self.say(
            strings::touched_walk(&shown, entries.len(), changed, &next, &previous),
            false,
        );
        self.touched.walk = Some(Walk {
            session,
            file: shown,
            entries,
            changed,
            at: 0,
        });
    }

    /// The tree's next / previous key: on to the next (older) or previous
    /// (newer) entry that changed the file chosen, round at the ends.
    pub(in crate::tui) fn step_touch(&mut self, forward: bool) {
        let open = self.open_path().cloned();
        let Some(walk) = self
            .touched
            .walk
            .as_mut()
            .filter(|w| Some(&w.session) == open.as_ref() && !w.entries.is_empty())
        else {
            self.say(strings::TOUCHED_NO_WALK.to_string(), true);
            return;
        };
        let n = walk.entries.len();
        walk.at = if forward {
            (walk.at + 1) % n
        } else {
            (walk.at + n - 1) % n
        };
        let id = walk.entries[walk.at].clone();
        let text = strings::touched_step(walk.at, n, &walk.file);
        if self.tree.select_id(&id, false) {
            self.say(text, false);
        } else {
            self.say(strings::entry_not_in_session(&id), true);
        }
    }
}
