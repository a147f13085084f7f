//! A list of files to choose from, over the panes: the files a session
//! touched (the tree's), or every file the sessions in scope touched (the
//! sessions pane's filter). Typing narrows the list to the files whose
//! shown path holds the text; where the list takes a pattern, the text
//! typed is itself one (a path or a glob) when no file is highlighted or
//! it holds a glob's `*`, `?` or `[`. Its keys are a dialog's.

use crate::safe_text as text;
use crate::tui::input::keymap::{Action, Key, Keymap, Scope};
use crate::tui::look::theme::Theme;
use crate::tui::model::touched::FileItem;
use crate::tui::overlays::text_input::TextInput;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use std::path::PathBuf;

/// Widest the list gets.
const MAX_WIDTH: u16 = 100;

/// Whom the list answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileListFor {
    /// The tree: the files of this session, to step through the entries
    /// that changed one.
    Session(PathBuf),
    /// The sessions pane: a file (or a pattern typed) to filter by.
    Sessions,
}

#[derive(Debug, Clone)]
pub struct FileList {
    pub title: String,
    pub items: Vec<FileItem>,
    pub field: TextInput,
    /// The highlighted row among those shown.
    pub selected: usize,
    pub offset: usize,
    /// The typed text may be taken as a pattern.
    pub takes_pattern: bool,
    pub purpose: FileListFor,
    /// Shown while the list is empty (still being read, or nothing).
    pub empty: String,
}

/// What a key did to the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileListKey {
    /// A file (absolute) chosen, or a pattern typed.
    Chosen(String),
    Cancel,
    Stay,
}

impl FileList {
    pub fn new(title: &str, purpose: FileListFor, takes_pattern: bool, empty: &str) -> FileList {
        FileList {
            title: title.to_string(),
            items: Vec::new(),
            field: TextInput::default(),
            selected: 0,
            offset: 0,
            takes_pattern,
            purpose,
            empty: empty.to_string(),
        }
    }

    /// The rows shown: the items whose shown path holds the typed text.
    pub fn shown(&self) -> Vec<&FileItem> {
        let needle = self.field.text.to_lowercase();
        self.items
            .iter()
            .filter(|i| needle.is_empty() || i.shown.to_lowercase().contains(&needle))
            .collect()
    }

    /// What Enter chooses now.
    fn choice(&self) -> Option<String> {
        let typed = self.field.text.trim();
        let glob = typed.contains(['*', '?', '[']);
        let shown = self.shown();
        match shown.get(self.selected) {
            Some(item) if !(self.takes_pattern && glob) => Some(item.file.clone()),
            _ if self.takes_pattern && !typed.is_empty() => Some(typed.to_string()),
            _ => None,
        }
    }

    /// A key, as the keymap's dialog scope (then the text field's, then the
    /// global quit) says.
    pub fn key(&mut self, k: Key, keymap: &Keymap, rows: usize) -> FileListKey {
        let len = self.shown().len();
        match keymap.own_action(Scope::Dialog, k) {
            Some(Action::Cancel) => return FileListKey::Cancel,
            Some(Action::Confirm) => {
                return match self.choice() {
                    Some(c) => FileListKey::Chosen(c),
                    None => FileListKey::Stay,
                };
            }
            Some(a @ (Action::Up | Action::Down | Action::PageUp | Action::PageDown)) => {
                self.selected = a.moved(self.selected, len, rows.max(1)).unwrap_or(0);
            }
            _ => {
                if keymap.own_action(Scope::Global, k) == Some(Action::Quit) {
                    return FileListKey::Cancel;
                }
                let changed = match (keymap.own_action(Scope::Text, k), k.typed_char()) {
                    (Some(a), _) => self.field.edit(a),
                    (None, Some(c)) => {
                        self.field.type_char(c);
                        true
                    }
                    (None, None) => false,
                };
                if changed {
                    self.selected = 0;
                    self.offset = 0;
                }
            }
        }
        self.offset =
            crate::tui::look::layout::offset_showing(self.selected, self.offset, rows, len);
        FileListKey::Stay
    }
}

/// The rows of items a list of this screen height shows.
pub fn list_rows(area_height: u16) -> usize {
    usize::from(area_height.saturating_sub(8)).max(1)
}

/// Draws `list` over the middle of `area`.
pub fn draw(frame: &mut Frame, area: Rect, list: &FileList, keymap: &Keymap, theme: &Theme) {
    let w = area.width.saturating_sub(4).min(MAX_WIDTH);
    if w < 20 || area.height < 7 {
        return;
    }
    let shown = list.shown();
    let rows = list_rows(area.height);
    let h = (shown.len().clamp(1, rows) + 4).min(usize::from(area.height)) as u16;
    let confirm = keymap.keys_for(Scope::Dialog, Action::Confirm);
    let cancel = keymap.keys_for(Scope::Dialog, Action::Cancel);
    let hint = format!("{confirm} choose · {cancel} cancel · type to narrow");
    let inner = super::dialog::dialog_box(
        frame,
        area,
        (w, h),
        &list.title,
        &hint,
        theme.border_focused,
        theme,
    );
    let width = usize::from(inner.width);
    let mut lines: Vec<Line<'_>> = Vec::new();
    if shown.is_empty() {
        lines.push(Line::styled(list.empty.clone(), theme.muted));
    }
    for (i, item) in shown.iter().enumerate().skip(list.offset).take(rows) {
        let detail = text::clean_line(&item.detail);
        let room = width.saturating_sub(text::width(&detail) + 2).max(1);
        let path = text::fit(&text::clean_line(&item.shown), room);
        let pad = room.saturating_sub(text::width(&path));
        let style = if i == list.selected {
            theme.selected
        } else {
            ratatui::style::Style::default()
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{path}{}  ", " ".repeat(pad)), style),
            Span::styled(detail, theme.muted),
        ]));
    }
    frame.render_widget(
        Paragraph::new(lines),
        Rect {
            height: inner.height.saturating_sub(2),
            ..inner
        },
    );
    let (before, after) = list.field.split();
    let line = Line::from(vec![
        Span::styled("> ", theme.accent),
        Span::raw(text::clean_line(before)),
        Span::styled("▏", theme.accent),
        Span::raw(text::clean_line(after)),
    ]);
    frame.render_widget(
        Paragraph::new(line),
        Rect {
            y: inner.y + inner.height.saturating_sub(1),
            height: 1,
            ..inner
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(takes_pattern: bool) -> FileList {
        let mut l = FileList::new("Files", FileListFor::Sessions, takes_pattern, "none");
        l.items = ["/w/src/a.rs", "/w/src/b.rs", "/w/README.md"]
            .iter()
            .map(|f| FileItem {
                file: f.to_string(),
                shown: f.trim_start_matches("/w/").to_string(),
                detail: String::new(),
            })
            .collect();
        l
    }

    fn press(l: &mut FileList, spec: &str) -> FileListKey {
        l.key(Key::parse(spec).unwrap(), &Keymap::defaults(), 10)
    }

    #[test]
    fn typing_narrows_and_enter_chooses_the_highlighted_file() {
        let mut l = list(false);
        press(&mut l, "down");
        assert_eq!(
            press(&mut l, "enter"),
            FileListKey::Chosen("/w/src/b.rs".into())
        );
        for c in "readme".chars() {
            press(&mut l, &c.to_string());
        }
        assert_eq!(l.shown().len(), 1);
        assert_eq!(
            press(&mut l, "enter"),
            FileListKey::Chosen("/w/README.md".into())
        );
        press(&mut l, "x");
        assert_eq!(press(&mut l, "enter"), FileListKey::Stay);
        assert_eq!(press(&mut l, "esc"), FileListKey::Cancel);
    }

    #[test]
    fn a_glob_or_a_path_no_file_shows_is_taken_as_typed() {
        let mut l = list(true);
        for c in "src/*.rs".chars() {
            press(&mut l, &c.to_string());
        }
        assert_eq!(
            press(&mut l, "enter"),
            FileListKey::Chosen("src/*.rs".into())
        );
        let mut l = list(true);
        for c in "lib.rs".chars() {
            press(&mut l, &c.to_string());
        }
        assert_eq!(press(&mut l, "enter"), FileListKey::Chosen("lib.rs".into()));
    }
}
