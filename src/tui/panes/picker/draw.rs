//! Drawing the sessions pane: the search box, the list settings, project
//! headings and session rows, deep-search hits, and the empty states.

use super::{DeepSearch, PickerPane};
use crate::catalog::SessionSummary;
use crate::catalog::SortMode;
use crate::safe_text as text;
use crate::session::tree::entry_line::shorten_home;
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
    let (before, after) = pane.query.split();
    let (before, after) = (text::clean_line(before), text::clean_line(after));
    // Keep the cursor in view, where typing happens: the end of what is
    // before it, then as much of what follows as fits.
    let shown_before = tail(&before, room);
    let shown_after = text::truncate(&after, room.saturating_sub(text::width(&shown_before)));
    let used = 2 + text::width(&shown_before) + text::width(&shown_after) + text::width(cursor);
    let search = Line::from(vec![
        Span::styled("> ", theme.accent),
        Span::raw(shown_before),
        Span::styled(cursor, theme.accent),
        Span::raw(shown_after),
        Span::raw(" ".repeat(width.saturating_sub(used + text::width(&status)))),
        Span::styled(status, theme.muted),
    ]);
    let settings = settings_line(pane, width, theme);
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
        deep_lines(
            pane,
            d,
            (width, usize::from(list.height)),
            keymap,
            (theme, focused),
        )
    } else if let Some(e) = &pane.query_error {
        vec![
            Line::styled(text::truncate(&text::clean_line(e), width), theme.error),
            Line::styled(strings::PICKER_PATTERN_INVALID, theme.muted),
        ]
    } else if pane.rows.is_empty() {
        empty_lines(pane, keymap, theme)
    } else {
        let end = (pane.offset + usize::from(list.height)).min(pane.rows.len());
        let columns = columns(pane, pane.offset..end, width, (clock, home));
        (pane.offset..end)
            .map(|r| row_line(pane, r, width, &columns, (clock, home), (theme, focused)))
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

/// The list's settings in words, so that they read without colour; the
/// ones switched on in the accent colour.
fn settings_line<'a>(pane: &PickerPane, width: usize, theme: &Theme) -> Line<'a> {
    let sort = match pane.options.sort {
        SortMode::Threaded => "threaded",
        SortMode::Recent => "recent",
        SortMode::Relevance => "relevance",
    };
    let on_off = |on: bool| if on { "on" } else { "off" };
    let parts = [
        ("sort: ", sort, true),
        (
            "named: ",
            on_off(pane.options.named_only),
            pane.options.named_only,
        ),
        ("paths: ", on_off(pane.show_path), pane.show_path),
    ];
    let long: usize = parts
        .iter()
        .map(|(n, v, _)| n.len() + v.len())
        .sum::<usize>()
        + 3 * (parts.len() - 1);
    let mut spans = Vec::new();
    for (i, (name, value, on)) in parts.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", theme.muted));
        }
        // Narrow: "threaded · named off · paths off".
        let name = match (long > width, i) {
            (false, _) => name.to_string(),
            (true, 0) => String::new(),
            (true, _) => format!("{} ", name.trim_end_matches([':', ' '])),
        };
        spans.push(Span::styled(name, theme.muted));
        spans.push(Span::styled(
            value,
            if on { theme.accent } else { theme.muted },
        ));
    }
    Line::from(spans)
}

/// The end of `s` in at most `max` columns, with `…` in front when cut.
fn tail(s: &str, max: usize) -> String {
    if text::width(s) <= max {
        return s.to_string();
    }
    // Cut the reversed text: its mark then ends up in front.
    let reversed: String = s.chars().rev().collect();
    text::truncate(&reversed, max).chars().rev().collect()
}

/// What the session files in view have in common, left out of their labels.
#[derive(Default)]
struct Shared {
    /// They all lie in one folder.
    one_folder: bool,
    /// Bytes of file name they all start with, up to a separator.
    prefix: usize,
}

impl Shared {
    fn of<'p>(paths: impl Iterator<Item = &'p std::path::Path>) -> Shared {
        let mut folder: Option<Option<&std::path::Path>> = None;
        let mut one_folder = true;
        let mut first: Option<String> = None;
        let mut common = usize::MAX;
        let mut count = 0;
        for p in paths {
            count += 1;
            match folder {
                None => folder = Some(p.parent()),
                Some(f) if f != p.parent() => one_folder = false,
                Some(_) => {}
            }
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            match &first {
                None => {
                    common = name.len();
                    first = Some(name.into_owned());
                }
                Some(f) => {
                    let same = f
                        .char_indices()
                        .zip(name.chars())
                        .find(|((_, a), b)| a != b)
                        .map_or(f.len().min(name.len()), |((i, _), _)| i);
                    common = common.min(same);
                }
            }
        }
        // Left out only up to a separator, so the label starts on a whole
        // part (a time, an id), and only when there is more than one file.
        let prefix = match &first {
            Some(f) if count > 1 => f[..common.min(f.len())]
                .rfind(['-', '_', 'T', '.'])
                .map_or(0, |i| i + 1),
            _ => 0,
        };
        Shared { one_folder, prefix }
    }
}

/// What tells session files apart: the folder's tail (when they are not
/// all in one) and the file name without what they all start with, in at
/// most `max` columns (the folder is cut first, from the left).
fn path_label(path: &std::path::Path, shared: &Shared, max: usize) -> String {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let file = match name.get(shared.prefix..) {
        Some(rest) if shared.prefix > 0 => format!("…{rest}"),
        _ => name.to_string(),
    };
    let file = text::clean_line(&file);
    if shared.one_folder {
        return text::truncate(&file, max);
    }
    let dir = path
        .parent()
        .and_then(|p| p.file_name())
        .map(|d| text::clean_line(&d.to_string_lossy()))
        .unwrap_or_default();
    let full = format!("{dir}/{file}");
    if text::width(&full) <= max {
        return full;
    }
    let dir_room = (max / 3).max(2);
    let dir = tail(&dir, dir_room);
    let file = text::truncate(&file, max.saturating_sub(text::width(&dir) + 1));
    format!("{dir}/{file}")
}

/// The widths of the right-hand columns of the session rows in view, so
/// that each column lines up.
#[derive(Default)]
struct Columns {
    path: usize,
    project: usize,
    shared: Shared,
    count: usize,
    age: usize,
    cost: usize,
}

fn empty_lines<'a>(pane: &PickerPane, keymap: &Keymap, theme: &Theme) -> Vec<Line<'a>> {
    let key = |action| keymap.keys_for(Scope::Picker, action);
    let say = |s: String| Line::styled(s, theme.muted);
    if !pane.loaded && pane.sessions.is_empty() {
        return vec![say(strings::PICKER_LOOKING.into())];
    }
    if pane.sessions.is_empty() && pane.options.scope == ListScope::Archived {
        return vec![say(strings::no_archived_sessions(
            &key(Action::Archive),
            &key(Action::PickerScope),
        ))];
    }
    if pane.sessions.is_empty() {
        let dir = pane
            .folder
            .as_ref()
            .map_or("the sessions folder".to_string(), |f| {
                text::clean_line(&f.dir.display().to_string())
            });
        return vec![
            say(strings::picker_no_sessions(&dir)),
            say(strings::PICKER_CREATE_ONE.into()),
        ];
    }
    let mut out = Vec::new();
    if !pane.query.text.trim().is_empty() {
        out.push(say(strings::picker_no_match(&text::clean_line(
            &pane.query.text,
        ))));
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

/// The right-hand texts of a session row: its path (with the path
/// toggle), its project (in a search's flat list of every project), message
/// count, age and cost.
fn right_texts(
    pane: &PickerPane,
    index: usize,
    shared: &Shared,
    (clock, home): (Clock, Option<&str>),
) -> [String; 5] {
    let s = &pane.sessions[index];
    // The folder's own name tells projects apart in a flat list.
    let project = if pane.flat() && pane.options.scope != ListScope::CurrentFolder {
        let cwd = shorten_home(&s.cwd, home);
        let name = cwd.rsplit('/').find(|p| !p.is_empty()).unwrap_or(&cwd);
        text::clean_line(name)
    } else {
        String::new()
    };
    let path = if pane.show_path {
        path_label(&s.path, shared, usize::MAX)
    } else {
        String::new()
    };
    [
        path,
        project,
        s.message_count.to_string(),
        s.modified_ms.map_or("?".to_string(), |m| clock.age(m)),
        format::cost(pane.cost_of(s)),
    ]
}

fn columns(
    pane: &PickerPane,
    rows: std::ops::Range<usize>,
    width: usize,
    at: (Clock, Option<&str>),
) -> Columns {
    let in_view: Vec<(usize, &str)> = rows
        .filter_map(|r| match &pane.rows[r] {
            PickerRow::Session { index, prefix } => Some((*index, prefix.as_str())),
            PickerRow::Project { .. } => None,
        })
        .collect();
    let indices: Vec<usize> = in_view.iter().map(|(i, _)| *i).collect();
    let mut shared = Shared::of(indices.iter().map(|&i| pane.sessions[i].path.as_path()));
    // Under a project's heading the folder goes without saying.
    shared.one_folder |= !pane.flat();
    let mut c = Columns {
        shared,
        ..Columns::default()
    };
    for &index in &indices {
        {
            let [path, project, count, age, cost] = right_texts(pane, index, &c.shared, at);
            c.path = c.path.max(text::width(&path));
            c.project = c.project.max(text::width(&project));
            c.count = c.count.max(count.len());
            c.age = c.age.max(age.len());
            c.cost = c.cost.max(cost.len());
        }
    }
    // The title keeps at least a third of the row; the path and project
    // share what the numbers leave of the rest.
    // A folder in the path names the project already.
    if c.path > 0 && !c.shared.one_folder {
        c.project = 0;
    }
    // The cost is piscope's own column: it stays while every title in view
    // fits beside it, and gives way to the titles otherwise (the selected
    // session's cost is in the status line).
    let title_room = |right: usize| width.saturating_sub(2 + mark_width(pane) + right + 1);
    let right_without_cost = c.count + c.age + 1 + c.path + c.project;
    let cut = in_view.iter().any(|(index, prefix)| {
        let title = text::width(&row_title(&pane.sessions[*index]));
        text::width(prefix) + title > title_room(right_without_cost + 1 + c.cost)
    });
    if cut {
        c.cost = 0;
    }
    let numbers = c.count + c.age + c.cost + 1 + usize::from(c.cost > 0);
    let room = (width * 2 / 3).saturating_sub(numbers + 1);
    let gaps = usize::from(c.path > 0) * 2 + usize::from(c.project > 0);
    if c.path + c.project + gaps > room {
        if c.path > 0 {
            c.project = c.project.min(room / 4);
            c.path = c.path.min(room.saturating_sub(c.project + gaps));
        } else {
            c.project = c.project.min(room.saturating_sub(gaps));
        }
    }
    c
}

/// The columns a session row's mark takes: none until a session is marked
/// (for deleting several), then two on every row, so titles line up.
fn mark_width(pane: &PickerPane) -> usize {
    if pane.marked.is_empty() { 0 } else { 2 }
}

/// A session's title as its row shows it: its name or first message, on
/// one line.
fn row_title(s: &SessionSummary) -> String {
    text::clean_line(&crate::session::tree::entry_line::normalize(s.title()))
}

fn row_line<'a>(
    pane: &'a PickerPane,
    r: usize,
    width: usize,
    columns: &Columns,
    at: (Clock, Option<&str>),
    (theme, focused): (&Theme, bool),
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
                text::clean_line(&shorten_home(cwd, at.1))
            };
            let count = format!(" {count}");
            let room = width.saturating_sub(2 + 2 + text::width(&count));
            Line::from(vec![
                Span::styled(cursor, theme.accent),
                Span::styled(mark, theme.project),
                // A long folder keeps its end, which tells projects apart.
                Span::styled(tail(&name, room), theme.project),
                Span::styled(count, theme.muted),
            ])
        }
        PickerRow::Session { index, prefix } => {
            let s = &pane.sessions[*index];
            let [_, project, count, age, cost] = right_texts(pane, *index, &columns.shared, at);
            let mut right = String::new();
            if columns.path > 0 {
                let p = path_label(&s.path, &columns.shared, columns.path);
                right.push_str(&text::fit(&p, columns.path));
                right.push_str("  ");
            }
            if columns.project > 0 {
                right.push_str(&text::fit(
                    &tail(&project, columns.project),
                    columns.project,
                ));
                right.push(' ');
            }
            right.push_str(&format!(
                "{count:>cw$} {age:>aw$}",
                cw = columns.count,
                aw = columns.age,
            ));
            if columns.cost > 0 {
                right.push_str(&format!(" {cost:>kw$}", kw = columns.cost));
            }
            let title = row_title(s);
            // A marked session (for deleting several) shows a check mark.
            let indent = match mark_width(pane) {
                0 => "",
                _ if pane.marked.contains(&s.path) => "✓ ",
                _ => "  ",
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
        line.patch_style(theme.selection(focused))
    } else {
        line
    }
}

fn deep_lines<'a>(
    pane: &PickerPane,
    d: &DeepSearch,
    (width, height): (usize, usize),
    keymap: &Keymap,
    (theme, focused): (&Theme, bool),
) -> Vec<Line<'a>> {
    let mut out = vec![Line::styled(
        text::truncate(
            &format!(
                "Inside entries: \"{}\" — {}{}",
                text::clean_line(&d.query),
                if d.running && d.hits.is_empty() {
                    "searching…".to_string()
                } else if d.running {
                    format!(
                        "{} so far, searching…",
                        format::count(d.hits.len(), "hit", "hits")
                    )
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
        out.push(Line::styled(strings::DEEP_NO_HITS, theme.muted));
    }
    let end = (d.offset + height.saturating_sub(1)).min(d.hits.len());
    let title_room = (width / 3).max(8);
    // The hits carry their snippets; the matches are marked here, in the
    // rows on screen only (of hundreds of thousands of hits), the query
    // made ready for it once.
    let query = crate::catalog::search::query::Query::parse(&d.query).ok();
    let marks = query.as_ref().map(|q| q.marks());
    for (i, h) in d.hits.iter().enumerate().take(end).skip(d.offset) {
        // The session is named on its first hit in view, with its count;
        // its further hits leave the column blank, so the snippets line up.
        let first = i == d.offset || d.hits[i - 1].path != h.path;
        let head = if first {
            let title = pane
                .sessions
                .iter()
                .find(|s| *s.path == *h.path)
                .map_or_else(|| h.path.display().to_string(), |s| s.title().to_string());
            let title = text::clean_line(&crate::session::tree::entry_line::normalize(&title));
            let count = format!(" ({})", d.hits_of_session_at(i));
            let t = text::truncate(&title, title_room.saturating_sub(text::width(&count)));
            format!("{t}{count}")
        } else {
            String::new()
        };
        let head = text::fit(&head, title_room);
        let cut = if h.compacted_away {
            strings::COMPACTED_AWAY
        } else {
            ""
        };
        let kind = format!(" {}{cut}: ", text::clean_line(&h.kind));
        let room = width.saturating_sub(2 + title_room + text::width(&kind));
        // The selection under everything, the matches over it.
        let base = if i == d.selected {
            theme.selection(focused)
        } else {
            Style::new()
        };
        let mut spans = vec![
            Span::styled(if i == d.selected { "› " } else { "  " }, theme.accent),
            Span::styled(head, theme.text),
            Span::styled(kind, theme.muted),
        ];
        let matched = marks
            .as_ref()
            .map(|m| m.match_ranges(&h.snippet))
            .unwrap_or_default();
        spans.extend(centred(&h.snippet, &matched, room, theme));
        let spans = spans
            .into_iter()
            .map(|s| {
                let style = base.patch(s.style);
                let style = if i == d.selected && s.style != theme.hit {
                    style.patch(base)
                } else {
                    style
                };
                s.style(style)
            })
            .collect::<Vec<_>>();
        out.push(Line::from(spans));
    }
    out
}

/// `shown` (a hit's snippet) in `room` columns with its first match in the
/// middle (as far as it allows), `…` where it is cut, the matches highlighted.
fn centred<'a>(
    shown: &str,
    matched: &[std::ops::Range<usize>],
    room: usize,
    theme: &Theme,
) -> Vec<Span<'a>> {
    use unicode_segmentation::UnicodeSegmentation;
    // Cut by the ranges first, then clean each piece: cleaning may change
    // the bytes (a control character becomes a visible symbol).
    let mut pieces: Vec<(String, bool)> = Vec::new();
    let mut at = 0;
    for r in matched {
        let (Some(before), Some(hit)) = (shown.get(at..r.start), shown.get(r.clone())) else {
            break;
        };
        pieces.push((text::clean_line(before), false));
        pieces.push((text::clean_line(hit), true));
        at = r.end;
    }
    pieces.push((text::clean_line(shown.get(at..).unwrap_or("")), false));
    let total: usize = pieces.iter().map(|(p, _)| text::width(p)).sum();
    let (hit_start, hit_width) = {
        let mut col = 0;
        let mut found = (0, 0);
        for (p, hit) in &pieces {
            if *hit {
                found = (col, text::width(p));
                break;
            }
            col += text::width(p);
        }
        found
    };
    let start = if total <= room {
        0
    } else {
        (hit_start + hit_width / 2)
            .saturating_sub(room / 2)
            .min(total - room)
    };
    // Columns start..start+room, with one given to `…` at a cut side.
    let cut_left = start > 0;
    let cut_right = start + room < total;
    let from = start + usize::from(cut_left);
    let to = (start + room).saturating_sub(usize::from(cut_right));
    let mut spans = Vec::new();
    if cut_left {
        spans.push(Span::styled("…", theme.muted));
    }
    let mut col = 0;
    for (p, hit) in pieces {
        let mut kept = String::new();
        for g in p.graphemes(true) {
            let w = text::width(g);
            if col >= from && col + w <= to {
                kept.push_str(g);
            }
            col += w;
        }
        if !kept.is_empty() {
            spans.push(Span::styled(
                kept,
                if hit { theme.hit } else { Style::new() },
            ));
        }
    }
    if cut_right {
        spans.push(Span::styled("…", theme.muted));
    }
    spans
}
