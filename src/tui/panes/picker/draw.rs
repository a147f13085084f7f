//! Drawing the sessions pane: the search box, the list settings, project
//! headings and session rows, deep-search hits, and the empty states.

use super::{DeepSearch, PickerPane};
use crate::catalog::SortMode;
use crate::safe_text as text;
use crate::session::summary::shorten_home;
use crate::tui::clock::Clock;
use crate::tui::input::keymap::{Action, Keymap, Scope};
use crate::tui::look::format;
use crate::tui::look::strings;
use crate::tui::look::theme::Theme;
use crate::tui::model::sessions::{ListScope, PickerRow};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

/// What drawing the pane needs besides the pane itself.
pub struct DrawContext<'a> {
    pub theme: &'a Theme,
    /// For the texts that name a key.
    pub keymap: &'a Keymap,
    pub clock: Clock,
    pub home: Option<&'a str>,
    pub focused: bool,
    pub block: Block<'a>,
}

/// Lines above the list: the search box and the list's settings.
pub const HEADER_LINES: u16 = 2;

/// Draws the pane into `area`.
pub(super) fn draw(frame: &mut Frame, area: Rect, pane: &PickerPane, cx: DrawContext<'_>) {
    let DrawContext {
        theme,
        keymap,
        clock,
        home,
        focused,
        block,
    } = cx;
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 || inner.width == 0 {
        return;
    }
    let width = usize::from(inner.width);
    // The search box.
    let status = match pane.progress {
        Some((done, total)) => format!("loading {done}/{total}"),
        None => format::count(pane.listed(), "session", "sessions"),
    };
    let cursor = if focused { "▏" } else { "" };
    let room = width.saturating_sub(text::width(&status) + 4);
    let query = text::clean_line(&pane.query);
    let shown_query = if text::width(&query) > room {
        // Keep the end of a long query in view, where typing happens.
        let skip = query.chars().count().saturating_sub(room);
        query.chars().skip(skip).collect()
    } else {
        query
    };
    let used = 2 + text::width(&shown_query) + text::width(cursor);
    let search = Line::from(vec![
        Span::styled("> ", theme.accent),
        Span::raw(shown_query),
        Span::styled(cursor, theme.accent),
        Span::raw(" ".repeat(width.saturating_sub(used + text::width(&status)))),
        Span::styled(status, theme.muted),
    ]);
    let settings = settings_line(pane, theme);
    frame.render_widget(
        Paragraph::new(vec![search, settings]),
        Rect {
            height: inner.height.min(HEADER_LINES),
            ..inner
        },
    );
    let list = Rect {
        y: inner.y + HEADER_LINES.min(inner.height),
        height: inner.height.saturating_sub(HEADER_LINES),
        ..inner
    };
    if list.height == 0 {
        return;
    }
    let listing = pane.deep.is_some() || (pane.query_error.is_none() && !pane.rows.is_empty());
    let lines: Vec<Line<'_>> = if let Some(d) = &pane.deep {
        deep_lines(pane, d, width, usize::from(list.height), keymap, theme)
    } else if let Some(e) = &pane.query_error {
        vec![
            Line::styled(text::truncate(&text::clean_line(e), width), theme.error),
            Line::styled("Nothing is listed until the pattern is valid.", theme.muted),
        ]
    } else if pane.rows.is_empty() {
        empty_lines(pane, keymap, theme)
    } else {
        let end = (pane.offset + usize::from(list.height)).min(pane.rows.len());
        (pane.offset..end)
            .map(|r| row_line(pane, r, width, (clock, home), theme))
            .collect()
    };
    let paragraph = Paragraph::new(lines);
    let paragraph = if listing {
        paragraph
    } else {
        paragraph.wrap(ratatui::widgets::Wrap { trim: false })
    };
    frame.render_widget(paragraph, list);
}

fn settings_line<'a>(pane: &PickerPane, theme: &Theme) -> Line<'a> {
    let on_off = |on: bool, name: &'static str| -> Span<'a> {
        Span::styled(name, if on { theme.accent } else { theme.muted })
    };
    let sort = match pane.options.sort {
        SortMode::Threaded => "threaded",
        SortMode::Recent => "recent",
        SortMode::Relevance => "relevance",
    };
    let sep = || Span::styled(" · ", theme.muted);
    Line::from(vec![
        on_off(pane.options.scope == ListScope::All, "all"),
        Span::styled("/", theme.muted),
        on_off(
            pane.options.scope == ListScope::CurrentFolder,
            "this folder",
        ),
        sep(),
        Span::styled(sort, theme.accent),
        sep(),
        on_off(pane.options.named_only, "named"),
        sep(),
        on_off(pane.show_path, "paths"),
    ])
}

fn empty_lines<'a>(pane: &PickerPane, keymap: &Keymap, theme: &Theme) -> Vec<Line<'a>> {
    let key = |action| keymap.keys_for(Scope::Picker, action);
    let say = |s: String| Line::styled(s, theme.muted);
    if !pane.loaded && pane.sessions.is_empty() {
        return vec![say("Looking for sessions…".into())];
    }
    if pane.sessions.is_empty() {
        let dir = pane
            .folder
            .as_ref()
            .map_or("the sessions folder".to_string(), |f| {
                text::clean_line(&f.dir.display().to_string())
            });
        return vec![
            say(format!("No pi sessions in {dir}.")),
            say("Run pi in a project to create one, or try piscope --demo.".into()),
        ];
    }
    let mut out = Vec::new();
    if !pane.query.trim().is_empty() {
        out.push(say(format!(
            "No session matches \"{}\".",
            text::clean_line(&pane.query)
        )));
        out.push(say(strings::no_session_matches_hint(
            &key(Action::PickerClear),
            &key(Action::PickerDeepSearch),
        )));
    } else if pane.options.named_only {
        out.push(say(strings::no_named_sessions(&key(Action::PickerNamed))));
    } else if pane.options.scope == ListScope::CurrentFolder {
        out.push(say(strings::no_sessions_in_folder(&key(
            Action::PickerScope,
        ))));
    }
    out
}

fn row_line<'a>(
    pane: &'a PickerPane,
    r: usize,
    width: usize,
    (clock, home): (Clock, Option<&str>),
    theme: &Theme,
) -> Line<'a> {
    let selected = r == pane.selected;
    let cursor = if selected { "› " } else { "  " };
    let line = match &pane.rows[r] {
        PickerRow::Project {
            cwd,
            count,
            collapsed,
        } => {
            let mark = if *collapsed { "▸ " } else { "▾ " };
            let name = if cwd.is_empty() {
                "(no folder)".to_string()
            } else {
                text::clean_line(&shorten_home(cwd, home))
            };
            let count = format!(" {count}");
            let room = width.saturating_sub(2 + 2 + text::width(&count));
            Line::from(vec![
                Span::styled(cursor, theme.accent),
                Span::styled(mark, theme.project),
                Span::styled(text::truncate(&name, room), theme.project),
                Span::styled(count, theme.muted),
            ])
        }
        PickerRow::Session { index, prefix } => {
            let s = &pane.sessions[*index];
            let mut right = format!(
                "{} {} {}",
                s.message_count,
                s.modified_ms.map_or("?".to_string(), |m| clock.age(m)),
                format::cost(s.cost)
            );
            if pane.show_path {
                let p = shorten_home(&s.path.display().to_string(), home);
                let p = text::clean_line(&p);
                let max = width / 2;
                right = format!("{} {right}", text::truncate(&p, max));
            }
            let title = text::clean_line(&crate::session::summary::normalize(s.title()));
            // A marked session (for deleting several) shows a check mark.
            let indent = if pane.marked.contains(&s.path) {
                "✓ "
            } else {
                "  "
            };
            let used_left = 2 + text::width(indent) + text::width(prefix);
            let room = width
                .saturating_sub(used_left + text::width(&right) + 1)
                .max(6);
            let title = text::truncate(&title, room);
            let gap = width.saturating_sub(used_left + text::width(&title) + text::width(&right));
            let title_style = if s.name.is_some() {
                theme.named
            } else {
                theme.text
            };
            Line::from(vec![
                Span::styled(cursor, theme.accent),
                Span::styled(indent, theme.accent),
                Span::styled(prefix.clone(), theme.muted),
                Span::styled(title, title_style),
                Span::raw(" ".repeat(gap.max(1))),
                Span::styled(right, theme.muted),
            ])
        }
    };
    if selected {
        line.patch_style(theme.selected)
    } else {
        line
    }
}

fn deep_lines<'a>(
    pane: &PickerPane,
    d: &DeepSearch,
    width: usize,
    height: usize,
    keymap: &Keymap,
    theme: &Theme,
) -> Vec<Line<'a>> {
    let mut out = vec![Line::styled(
        text::truncate(
            &format!(
                "Inside entries: \"{}\" — {}{}",
                text::clean_line(&d.query),
                if d.running {
                    "searching…".to_string()
                } else {
                    format::count(d.hits.len(), "hit", "hits")
                },
                if d.running {
                    String::new()
                } else {
                    strings::deep_back(&keymap.keys_for(Scope::Picker, Action::PickerClear))
                }
            ),
            width,
        ),
        theme.accent,
    )];
    if let Some(e) = &d.error {
        out.push(Line::styled(text::clean_line(e), theme.error));
    }
    if !d.running && d.hits.is_empty() && d.error.is_none() {
        out.push(Line::styled("No entry holds it.", theme.muted));
    }
    let end = (d.offset + height.saturating_sub(1)).min(d.hits.len());
    for (i, h) in d.hits.iter().enumerate().take(end).skip(d.offset) {
        let title = pane
            .sessions
            .iter()
            .find(|s| s.path == h.path)
            .map_or_else(|| h.path.display().to_string(), |s| s.title().to_string());
        let head = format!(
            "{} · {}: ",
            text::truncate(&text::clean_line(&title), width / 3),
            text::clean_line(&h.kind)
        );
        let snippet = text::clean_line(&h.snippet);
        let room = width.saturating_sub(2 + text::width(&head));
        let line = Line::from(vec![
            Span::styled(if i == d.selected { "› " } else { "  " }, theme.accent),
            Span::styled(head, theme.muted),
            Span::styled(text::truncate(&snippet, room), Style::new()),
        ]);
        out.push(if i == d.selected {
            line.patch_style(theme.selected)
        } else {
            line
        });
    }
    out
}
