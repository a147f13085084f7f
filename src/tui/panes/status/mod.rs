//! The status bar (what is selected, totals, messages) and the hint line
//! (the focused pane's main keys, taken from the keymap): their texts;
//! `draw.rs` draws them.

use crate::safe_text as text;
use crate::tui::input::keymap::Keymap;
use crate::tui::input::keymap::{ACTIONS, Action, Scope};
use crate::tui::look::theme::Theme;
use crate::tui::panes::picker::PickerPane;
use crate::tui::panes::tree::{Content, TreePane};

mod draw;
use ratatui::Frame;
use ratatui::layout::Rect;

/// How long a transient message stays in the status bar.
const MESSAGE_MS: i64 = 6_000;

/// A message in the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub text: String,
    pub error: bool,
    /// When it disappears (ms); `None` keeps it until replaced.
    pub until: Option<i64>,
}

/// The status bar's own state: the message it shows, if any.
#[derive(Debug, Clone, Default)]
pub struct StatusPane {
    message: Option<Message>,
}

impl StatusPane {
    /// A status bar showing `report` (the config's problems) until replaced.
    pub fn new(report: Option<String>) -> StatusPane {
        StatusPane {
            message: report.map(|text| Message {
                text,
                error: true,
                until: None,
            }),
        }
    }

    /// Shows `text` for a while from `now_ms`; `error` draws it as one.
    pub fn say(&mut self, text: String, error: bool, now_ms: i64) {
        self.message = Some(Message {
            text,
            error,
            until: Some(now_ms + MESSAGE_MS),
        });
    }

    /// Drops a transient message whose time is up.
    pub fn expire(&mut self, now_ms: i64) {
        if self
            .message
            .as_ref()
            .and_then(|m| m.until)
            .is_some_and(|until| now_ms >= until)
        {
            self.message = None;
        }
    }

    /// The message shown, if any.
    pub fn message(&self) -> Option<&Message> {
        self.message.as_ref()
    }

    /// Draws the status bar and the hint line.
    pub fn draw(&self, frame: &mut Frame, status: Rect, hints: Rect, view: &StatusView) {
        draw::draw(frame, status, hints, self, view);
    }
}

/// What the two lines show besides the message, handed over by the
/// screen's drawing (the pane never sees the app itself).
pub struct StatusView<'a> {
    /// The sessions pane, when this run has one.
    pub picker: Option<&'a PickerPane>,
    pub tree: &'a TreePane,
    /// Changes are noticed by polling.
    pub polling: bool,
    /// The focused pane's keymap scope.
    pub scope: Scope,
    /// The tree's search line is being typed in (and the tree has the focus).
    pub tree_search_typing: bool,
    pub keymap: &'a Keymap,
    pub theme: &'a Theme,
}

/// The status bar's left text: a message, or the selection.
pub fn left_text(pane: &StatusPane, view: &StatusView) -> (String, bool) {
    if let Some(m) = &pane.message {
        return (text::clean_line(&m.text), m.error);
    }
    let mut parts = Vec::new();
    if let Some(s) = view.picker.and_then(|p| p.selected_session()) {
        parts.push(text::clean_line(&crate::session::summary::normalize(
            s.title(),
        )));
    }
    match view.tree.content() {
        Content::Ready(t) => {
            if view.picker.is_none() {
                let name = t
                    .name
                    .clone()
                    .unwrap_or_else(|| text::clean_line(&file_name(&t.session.path)));
                parts.push(name);
            }
            if let Some(node) = view.tree.selected_node() {
                let e = t.entry(node);
                let id = e.id_str().map(text::clean_line).unwrap_or_default();
                let kind = match e.role() {
                    Some(r) => r.as_str().to_string(),
                    None => e.kind.as_str().replace('_', " "),
                };
                parts.push(format!("{id} {}", text::clean_line(&kind)));
            }
        }
        Content::Loading(p) => parts.push(format!("reading {}", text::clean_line(&file_name(p)))),
        _ => {}
    }
    (parts.join(" › "), false)
}

fn file_name(p: &std::path::Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The status bar's right text: position and totals.
pub fn right_text(view: &StatusView) -> String {
    let mut parts = Vec::new();
    if let Content::Ready(t) = view.tree.content() {
        parts.push(view.tree.position());
        parts.push(crate::tui::look::format::count(
            t.entry_count,
            "entry",
            "entries",
        ));
    }
    if let Some(p) = view.picker {
        let count = crate::tui::look::format::count;
        parts.push(format!(
            "{} in {}",
            count(p.sessions().len(), "session", "sessions"),
            count(p.project_count(), "project", "projects")
        ));
        if !p.marked().is_empty() {
            parts.push(format!("{} marked", p.marked().len()));
        }
    }
    if view.polling {
        parts.push("polling".to_string());
    }
    parts.join(" · ")
}

/// The focused pane's hint line: `key word · key word …`, from the keymap.
pub fn hints(view: &StatusView) -> Vec<(String, String)> {
    let scope = view.scope;
    let keymap = view.keymap;
    let mut out = Vec::new();
    if view.tree_search_typing {
        let keep = keymap.keys_for(Scope::Search, Action::SearchKeep);
        let hits = keymap.keys_pair(Scope::Tree, Action::TreeNextHit, Action::TreePreviousHit);
        return vec![
            (keep.clone(), "keep".into()),
            (
                keymap.keys_for(Scope::Search, Action::Cancel),
                "cancel".into(),
            ),
            (hits, format!("next/previous hit after {keep}")),
        ];
    }
    let movement = match scope {
        Scope::Picker => Some("move · type to search"),
        Scope::Tree => Some("move"),
        Scope::Preview => Some("scroll"),
        _ => None,
    };
    if let (Some(word), Some(up), Some(down)) = (
        movement,
        keymap.first_key(scope, Action::Up),
        keymap.first_key(scope, Action::Down),
    ) {
        out.push((format!("{up}{down}"), word.to_string()));
    }
    for info in ACTIONS
        .iter()
        .filter(|i| i.scope == scope || i.scope == Scope::Global)
    {
        let Some(word) = info.hint else { continue };
        if info.scope == Scope::Global && info.action == Action::Help {
            continue;
        }
        if let Some(k) = keymap.first_key(scope, info.action) {
            // The filters share one hint: their keys, compacted.
            let label = if info.action == Action::TreeFilterDefault {
                let keys: Vec<String> = [
                    Action::TreeFilterDefault,
                    Action::TreeFilterNoTools,
                    Action::TreeFilterUserOnly,
                    Action::TreeFilterLabeledOnly,
                    Action::TreeFilterAll,
                ]
                .iter()
                .filter_map(|a| keymap.first_key(scope, *a))
                .map(|k| k.to_string())
                .collect();
                compact(&keys)
            } else {
                k.to_string()
            };
            out.push((label, word.to_string()));
        }
    }
    let help = keymap
        .first_key(scope, Action::Help)
        .or_else(|| keymap.first_key(Scope::Global, Action::Help));
    if let Some(k) = help {
        out.push((k.to_string(), "help".to_string()));
    }
    out
}

/// `Ctrl+D`, `Ctrl+T` … → `Ctrl+D/T/U/L/A`.
fn compact(keys: &[String]) -> String {
    let prefix = "Ctrl+";
    if !keys.is_empty() && keys.iter().all(|k| k.starts_with(prefix)) {
        let tails: Vec<&str> = keys.iter().map(|k| &k[prefix.len()..]).collect();
        format!("{prefix}{}", tails.join("/"))
    } else {
        keys.join("/")
    }
}
