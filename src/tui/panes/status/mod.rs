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
mod spend;
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
    /// What the selected branch cost (remembered per selection).
    branch: spend::BranchSpend,
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
            branch: spend::BranchSpend::default(),
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

    /// Drops the message about watching for changes: what it said about
    /// the user's folder no longer holds once the demo copies stand in.
    pub fn forget_watching(&mut self) {
        if self
            .message
            .as_ref()
            .is_some_and(|m| m.text.starts_with("Watching"))
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
    /// What Esc does now: `back`, `clear`, `quit` …
    pub back: &'static str,
    /// The pane the next-pane key brings in, when the terminal's width
    /// leaves it out of view (its title).
    pub brings_in: Option<&'static str>,
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
        parts.push(text::clean_line(
            &crate::session::tree::entry_line::normalize(s.title()),
        ));
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
                let kind = match t.session.role_of(node) {
                    Some(r) => r.as_str().to_string(),
                    None => e.type_str().replace('_', " "),
                };
                let spend = pane.branch.text(t, node);
                let spend = if spend.is_empty() {
                    spend
                } else {
                    format!(" · {spend}")
                };
                parts.push(format!("{id} {}{spend}", text::clean_line(&kind)));
            }
        }
        Content::Loading(p, progress) => parts.push(crate::tui::look::strings::status_reading(
            &text::clean_line(&file_name(p)),
            progress.and_then(|p| p.percent()),
        )),
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

/// The status bar's right text: position and totals (the scope's spend
/// only with `with_spend`: a message shown on the left needs the room).
pub fn right_text(view: &StatusView, with_spend: bool) -> String {
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
        if let Some(spend) = p.scope_spend().filter(|_| with_spend) {
            parts.push(format!("{} spent", crate::tui::look::format::cost(spend)));
        }
        if !p.marked().is_empty() {
            parts.push(format!("{} marked", p.marked().len()));
        }
    }
    if view.polling {
        parts.push("polling".to_string());
    }
    parts.join(" · ")
}

/// One hint: its key, its word, and how soon it is dropped when the line
/// is too short (higher goes first).
struct Hint {
    key: String,
    word: String,
    rank: u8,
}

/// How useful each action's hint is: help and the way out are never
/// dropped; the rarely used actions go first.
fn rank(action: Action) -> u8 {
    match action {
        Action::Help => 0,
        Action::Quit => 1,
        Action::Resume | Action::Branch => 3,
        Action::TreeFilterDefault | Action::PickerDeepSearch | Action::PreviewExpand => 4,
        Action::FocusNext => 5,
        Action::TreeJumpToLeaf | Action::PickerScope | Action::PreviewSelected => 6,
        Action::Label | Action::PickerSort | Action::PreviewRaw => 7,
        Action::Copy | Action::PickerNamed | Action::PickerSpan => 8,
        Action::TreeFoldOrUp | Action::Rename => 9,
        Action::Fork | Action::Delete => 10,
        Action::Export | Action::PickerPath => 11,
        _ => 12,
    }
}

/// The focused pane's hint line, `key word · key word …`, from the
/// keymap: help first, then the way back out, then the pane's keys; at
/// `width` columns the least useful hints are left out first.
pub fn hints(view: &StatusView, width: usize) -> Vec<(String, String)> {
    let scope = view.scope;
    let keymap = view.keymap;
    let mut out: Vec<Hint> = Vec::new();
    let mut push = |key: String, word: String, rank: u8| out.push(Hint { key, word, rank });
    if let Some(k) = keymap.first_key(Scope::Global, Action::Help) {
        push(k.to_string(), "help".into(), 0);
    }
    let quit = keymap.keys_for(Scope::Global, Action::Quit);
    if view.tree_search_typing {
        let keep = keymap.keys_for(Scope::Search, Action::SearchKeep);
        push(keep, "keep".into(), 2);
        push(
            keymap.keys_for(Scope::Search, Action::Cancel),
            "cancel".into(),
            1,
        );
        push(
            keymap.keys_pair(Scope::Search, Action::TreeNextHit, Action::TreePreviousHit),
            "next/previous hit".into(),
            2,
        );
        // The quit key cancels the search too (as in pi): no quit hint.
        return fit(out, width);
    }
    let back_key = match scope {
        Scope::Picker => keymap.first_key(scope, Action::PickerClear),
        _ => keymap.first_key(scope, Action::TreeClearSearch),
    };
    if let Some(k) = back_key {
        push(k.to_string(), view.back.to_string(), 1);
    }
    if view.back != "quit" {
        push(quit, "quit".into(), 1);
    }
    let movement = match scope {
        Scope::Picker | Scope::Tree => Some("move"),
        Scope::Preview => Some("scroll"),
        _ => None,
    };
    if let (Some(word), Some(up), Some(down)) = (
        movement,
        keymap.first_key(scope, Action::Up),
        keymap.first_key(scope, Action::Down),
    ) {
        push(format!("{up}{down}"), word.to_string(), 2);
    }
    if scope.types_text() {
        push("type".into(), "to search".into(), 2);
    }
    if let (Scope::Preview, Some(next), Some(previous)) = (
        scope,
        keymap.first_key(scope, Action::PreviewNextBlock),
        keymap.first_key(scope, Action::PreviewPreviousBlock),
    ) {
        push(format!("{next}/{previous}"), "block".into(), 3);
    }
    if scope == Scope::Tree && view.tree.has_search_line() {
        push(
            keymap.keys_pair(Scope::Tree, Action::TreeNextHit, Action::TreePreviousHit),
            "hits".into(),
            2,
        );
    }
    for info in ACTIONS
        .iter()
        .filter(|i| i.scope == scope || i.scope == Scope::Global)
    {
        let Some(word) = info.hint else { continue };
        if info.scope == Scope::Global && matches!(info.action, Action::Help | Action::Quit) {
            continue;
        }
        let Some(k) = keymap.first_key(scope, info.action) else {
            continue;
        };
        // A pane out of view: the hint names it, and stays on the line.
        if let (Action::FocusNext, Some(pane)) = (info.action, view.brings_in) {
            push(k.to_string(), pane.to_lowercase(), 1);
            continue;
        }
        let key = match info.action {
            // The filters share one hint: their keys, compacted.
            Action::TreeFilterDefault => compact(
                &[
                    Action::TreeFilterDefault,
                    Action::TreeFilterNoTools,
                    Action::TreeFilterUserOnly,
                    Action::TreeFilterLabeledOnly,
                    Action::TreeFilterAll,
                ]
                .iter()
                .filter_map(|a| keymap.first_key(scope, *a))
                .map(|k| k.to_string())
                .collect::<Vec<_>>(),
            ),
            // So do fold / unfold.
            Action::TreeFoldOrUp => match keymap.first_key(scope, Action::TreeUnfoldOrDown) {
                Some(u) => compact(&[k.to_string(), u.to_string()]),
                None => k.to_string(),
            },
            _ => k.to_string(),
        };
        push(key, word.to_string(), rank(info.action));
    }
    fit(out, width)
}

/// Leaves out the least useful hints (the later of two alike first) until
/// the line fits in `width` columns.
fn fit(mut hints: Vec<Hint>, width: usize) -> Vec<(String, String)> {
    let cost = |h: &Hint| text::width(&h.key) + 1 + text::width(&h.word);
    // The line starts with a blank; hints are joined by ` · `.
    let total =
        |hs: &[Hint]| 1 + hs.iter().map(cost).sum::<usize>() + 3 * hs.len().saturating_sub(1);
    while total(&hints) > width {
        let Some(drop) = hints
            .iter()
            .enumerate()
            .filter(|(_, h)| h.rank > 0)
            .max_by_key(|(i, h)| (h.rank, *i))
            .map(|(i, _)| i)
        else {
            break;
        };
        hints.remove(drop);
    }
    hints.into_iter().map(|h| (h.key, h.word)).collect()
}

/// `Ctrl+D`, `Ctrl+T` … → `Ctrl+D/T/U/L/A`; `Ctrl+←`, `Ctrl+→` → `Ctrl+←/→`.
fn compact(keys: &[String]) -> String {
    let prefix = "Ctrl+";
    if !keys.is_empty() && keys.iter().all(|k| k.starts_with(prefix)) {
        let tails: Vec<&str> = keys.iter().map(|k| &k[prefix.len()..]).collect();
        format!("{prefix}{}", tails.join("/"))
    } else {
        keys.join("/")
    }
}
