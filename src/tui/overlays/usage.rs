//! The usage view: bar charts of spend per day (week, month), per project
//! and per model of the sessions the sessions pane lets through, with the
//! numbers beside the bars, so they read without colour; and those
//! sessions one per line, costliest first, each opened with Enter.

use crate::catalog::usage::Spend;
use crate::safe_text as text;
use crate::session::tree::entry_line::shorten_home;
use crate::tui::input::keymap::{Action, Key, Keymap, Scope};
use crate::tui::look::format;
use crate::tui::look::theme::Theme;
use crate::tui::model::usage_charts::{Bar, Period, SessionSpend, UsageCharts};
use crate::tui::work::newest::{Answer, Newest, Stamp};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};
use std::path::PathBuf;

/// How far a page key scrolls.
const PAGE: usize = 10;
/// Two columns (time on the left) from this width on.
const TWO_COLUMNS: u16 = 120;

/// The view's two pages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UsagePage {
    #[default]
    Charts,
    /// One line per session, costliest first.
    Sessions,
}

/// The view's state: what it shows and how far it is scrolled.
#[derive(Debug, Clone, Default)]
pub struct UsageView {
    pub period: Period,
    pub page: UsagePage,
    pub scroll: usize,
    /// The sessions page's selected line.
    pub selected: usize,
    /// Said in place of the keys, until the next key.
    pub note: Option<String>,
    /// The charts asked for: only the newest are shown.
    asked: Newest,
    /// `None` while the charts are built.
    pub charts: Option<Box<UsageCharts>>,
    /// Which sessions: `all`, `this folder`, with the search if any.
    pub scope: String,
}

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsageKey {
    Stay,
    /// The period changed: build the charts again.
    Rebuild,
    Close,
    /// Open this session in the panes.
    Open(PathBuf),
    /// The chosen session is in the trash: it cannot be opened.
    Deleted,
}

impl UsageView {
    /// The view of `scope`'s sessions, its charts not asked for yet.
    pub fn new(scope: String) -> UsageView {
        UsageView {
            scope,
            ..UsageView::default()
        }
    }

    pub fn key(&mut self, k: Key, keymap: &Keymap) -> UsageKey {
        self.note = None;
        let on_sessions = self.page == UsagePage::Sessions;
        let lines = self.charts.as_ref().map_or(0, |c| c.by_session.len());
        match keymap.own_action(Scope::Usage, k) {
            // On the sessions page the moves move the selection; on the
            // charts they scroll (as far as the drawing lets them).
            Some(
                a @ (Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::First
                | Action::Last),
            ) => {
                if on_sessions {
                    self.selected = a.moved(self.selected, lines, PAGE).unwrap_or(0);
                } else {
                    self.scroll = a.moved(self.scroll, usize::MAX / 2 + 1, PAGE).unwrap_or(0);
                }
            }
            Some(Action::UsagePeriod) => {
                self.period = self.period.next();
                self.scroll = 0;
                return UsageKey::Rebuild;
            }
            Some(Action::UsageSessions) => {
                self.page = if on_sessions {
                    UsagePage::Charts
                } else {
                    UsagePage::Sessions
                };
            }
            Some(Action::UsageOpen) if on_sessions => {
                let chosen = self
                    .charts
                    .as_ref()
                    .and_then(|c| c.by_session.get(self.selected));
                match chosen {
                    Some(s) if s.deleted => return UsageKey::Deleted,
                    Some(s) => return UsageKey::Open(s.path.clone()),
                    None => {}
                }
            }
            Some(Action::Close) => return UsageKey::Close,
            // The quit key closes the overlay; it quits only from the panes.
            _ if matches!(
                keymap.own_action(Scope::Global, k),
                Some(Action::Quit | Action::Usage)
            ) =>
            {
                return UsageKey::Close;
            }
            _ => {}
        }
        UsageKey::Stay
    }

    /// Asks for charts of the view as it is now; those asked for before
    /// are no longer shown.
    pub fn ask(&mut self) -> Stamp {
        self.asked.stamp()
    }

    /// The newest charts, unless newer ones were asked for since; the
    /// selection stays on its session.
    pub fn take(&mut self, charts: Answer<Box<UsageCharts>>) {
        if let Some(charts) = self.asked.take(charts) {
            let was = self
                .charts
                .as_ref()
                .and_then(|c| c.by_session.get(self.selected))
                .map(|s| s.path.clone());
            self.selected = was
                .and_then(|p| charts.by_session.iter().position(|s| s.path == p))
                .unwrap_or(self.selected)
                .min(charts.by_session.len().saturating_sub(1));
            self.charts = Some(charts);
        }
    }
}

/// `████▌` for `part` of `whole` in `width` cells (eighths of a cell).
fn bar(part: f64, whole: f64, width: usize) -> String {
    if whole <= 0.0 || part <= 0.0 || width == 0 {
        return String::new();
    }
    let eighths = ((part / whole) * (width * 8) as f64).round().max(1.0) as usize;
    let mut s = "█".repeat(eighths / 8);
    const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    s.push_str(PARTS[eighths % 8]);
    s
}

fn share(s: &Spend) -> String {
    s.cache_read_share()
        .map_or(String::new(), |x| format!("  cache {:.0}%", 100.0 * x))
}

/// One chart: a heading and a line per bar, `label  bar  $cost  tokens`.
fn chart(
    out: &mut Vec<Line<'static>>,
    title: String,
    bars: &[Bar],
    width: usize,
    theme: &Theme,
    cache: bool,
) {
    out.push(Line::styled(title, theme.title));
    if bars.is_empty() {
        out.push(Line::styled("  nothing spent", theme.muted));
    }
    let label_w = bars
        .iter()
        .map(|b| text::width(&b.label))
        .max()
        .unwrap_or(0)
        .min(width / 3)
        .max(1);
    let values: Vec<String> = bars
        .iter()
        .map(|b| {
            let extra = if cache {
                share(&b.spend)
            } else {
                String::new()
            };
            format!(
                "{:>8}  {:>6} tok{extra}",
                format::cost(b.spend.cost),
                format::tokens(b.spend.tokens)
            )
        })
        .collect();
    let value_w = values.iter().map(|v| text::width(v)).max().unwrap_or(0);
    let bar_w = width.saturating_sub(label_w + value_w + 6).max(1);
    let most = bars.iter().map(|b| b.spend.cost).fold(0.0, f64::max);
    for (b, v) in bars.iter().zip(values) {
        let drawn = bar(b.spend.cost, most, bar_w);
        let pad = bar_w.saturating_sub(text::width(&drawn));
        out.push(Line::from(vec![
            Span::raw(format!("  {} ", text::fit(&b.label, label_w))),
            Span::styled(drawn, theme.accent),
            Span::raw(format!("{}  ", " ".repeat(pad))),
            Span::raw(v),
        ]));
    }
    out.push(Line::default());
}

fn labelled(bars: &[Bar], home: Option<&str>) -> Vec<Bar> {
    bars.iter()
        .map(|b| Bar {
            label: text::clean_line(&shorten_home(&b.label, home)),
            spend: b.spend,
        })
        .collect()
}

/// The lines of the two halves: over time, and by project and model.
fn halves(
    c: &UsageCharts,
    width: usize,
    theme: &Theme,
    home: Option<&str>,
) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let mut left = Vec::new();
    chart(
        &mut left,
        c.period.title().to_string(),
        &c.times,
        width,
        theme,
        false,
    );
    let mut right = Vec::new();
    let projects = labelled(&c.projects, home);
    chart(
        &mut right,
        "By project".to_string(),
        &projects,
        width,
        theme,
        true,
    );
    let models = labelled(&c.models, None);
    chart(
        &mut right,
        "By model".to_string(),
        &models,
        width,
        theme,
        true,
    );
    (left, right)
}

/// The totals above the charts.
fn summary(c: &UsageCharts, theme: &Theme) -> Vec<Line<'static>> {
    let t = &c.total;
    let pct = |part: f64| {
        if t.cost > 0.0 {
            format!(" ({:.0}%)", 100.0 * part / t.cost)
        } else {
            String::new()
        }
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format::cost(t.cost), theme.title),
            Span::raw(format!(
                " in {} · {} tokens{}",
                format::count(c.sessions, "session", "sessions"),
                format::tokens(t.tokens),
                t.cache_read_share().map_or(String::new(), |x| format!(
                    " · cache reads {:.0}% of input",
                    100.0 * x
                )),
            )),
        ]),
        Line::raw(format!(
            "Assistant turns {} · summaries and usage entries {}",
            format::cost(c.assistant.cost),
            format::cost((t.cost - c.assistant.cost).max(0.0)),
        )),
        Line::raw(format!(
            "On branches pi no longer resumes on: {}{}",
            format::cost(c.abandoned.cost),
            pct(c.abandoned.cost),
        )),
    ];
    if c.removed.cost > 0.0 {
        lines.push(Line::raw(format!(
            "Removed by deletes and prunes, still in the trash: {}{}",
            format::cost(c.removed.cost),
            pct(c.removed.cost),
        )));
    }
    if c.inherited.cost > 0.0 {
        lines.push(Line::styled(
            format!(
                "Copies in forks and clones, counted with the session they came from: {}",
                format::cost(c.inherited.cost)
            ),
            theme.muted,
        ));
    }
    lines.push(Line::default());
    lines
}

fn footer(keymap: &Keymap, view: &UsageView) -> String {
    let key = |a| keymap.keys_for(Scope::Usage, a);
    let updown = keymap.up_down(Scope::Usage).unwrap_or_default();
    if view.page == UsagePage::Sessions {
        return format!(
            " {updown} move · {} open · {} charts · {} back ",
            key(Action::UsageOpen),
            key(Action::UsageSessions),
            key(Action::Close)
        );
    }
    let next = match view.period.next() {
        Period::Days => "days",
        Period::Weeks => "weeks",
        Period::Months => "months",
    };
    format!(
        " {} {next} · {} sessions · {updown} scroll · {} back ",
        key(Action::UsagePeriod),
        key(Action::UsageSessions),
        key(Action::Close)
    )
}

/// The sessions page: a heading and a line per session, costliest first:
/// `cost  tokens  turns  title  project`.
fn session_lines(
    sessions: &[SessionSpend],
    selected: usize,
    width: usize,
    theme: &Theme,
    home: Option<&str>,
) -> Vec<Line<'static>> {
    const NUMBERS: usize = 8 + 2 + 7 + 2 + 5 + 2;
    let projects: Vec<String> = sessions
        .iter()
        .map(|s| text::clean_line(&shorten_home(&s.project, home)))
        .collect();
    let room = width.saturating_sub(NUMBERS);
    // The project takes up to a third of what is left, the title the rest.
    let project_w = projects
        .iter()
        .map(|p| text::width(p))
        .max()
        .unwrap_or(0)
        .min(room / 3);
    let title_w = room.saturating_sub(project_w + 2);
    let mut out = vec![Line::styled(
        format!(
            "{:>8}  {:>7}  {:>5}  {}  {}",
            "cost",
            "tokens",
            "turns",
            text::fit("session", title_w),
            "project"
        ),
        theme.muted,
    )];
    if sessions.is_empty() {
        out.push(Line::styled("  nothing spent", theme.muted));
    }
    for (i, (s, project)) in sessions.iter().zip(&projects).enumerate() {
        let mut title = text::clean_line(&s.title);
        if s.deleted {
            title = format!("(deleted) {title}");
        } else if s.removed.cost > 0.0 {
            title = format!("{title} (pruned {})", format::cost(s.removed.cost));
        }
        let line = format!(
            "{:>8}  {:>7}  {:>5}  {}  {}",
            format::cost(s.spend.cost),
            format::tokens(s.spend.tokens),
            s.turns,
            text::fit(&title, title_w),
            text::fit(project, project_w),
        );
        let style = if i == selected {
            theme.selected
        } else if s.deleted {
            theme.muted
        } else {
            ratatui::style::Style::default()
        };
        out.push(Line::styled(line, style));
    }
    out
}

/// What the frame shows: its lines in one column, or two columns.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    view: &UsageView,
    theme: &Theme,
    keymap: &Keymap,
    home: Option<&str>,
) {
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.border_focused)
        .title(Span::styled(
            format!(" Usage · {} ", text::clean_line(&view.scope)),
            theme.title,
        ))
        .title_bottom(match &view.note {
            Some(note) => Span::styled(format!(" {note} "), theme.accent),
            None => Span::styled(footer(keymap, view), theme.muted),
        });
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(c) = &view.charts else {
        frame.render_widget(
            Paragraph::new(Line::styled("Adding up the usage…", theme.muted)),
            inner,
        );
        return;
    };
    let head = summary(c, theme);
    let head_h = (head.len() as u16).min(inner.height);
    frame.render_widget(
        Paragraph::new(head),
        Rect::new(inner.x, inner.y, inner.width, head_h),
    );
    let body = Rect::new(
        inner.x,
        inner.y + head_h,
        inner.width,
        inner.height - head_h,
    );
    let rows = usize::from(body.height);
    let scrolled = |lines: Vec<Line<'static>>, scroll: usize| -> Vec<Line<'static>> {
        let start = scroll.min(lines.len().saturating_sub(rows));
        lines.into_iter().skip(start).take(rows).collect()
    };
    if view.page == UsagePage::Sessions {
        let mut lines = session_lines(
            &c.by_session,
            view.selected,
            usize::from(body.width),
            theme,
            home,
        );
        // The heading stays; the selected line is kept in view below it.
        let head = lines.remove(0);
        let shown = rows.saturating_sub(1);
        let start = (view.selected + 1).saturating_sub(shown);
        let mut page = vec![head];
        page.extend(lines.into_iter().skip(start).take(shown));
        frame.render_widget(Paragraph::new(page), body);
        return;
    }
    if area.width >= TWO_COLUMNS {
        let half = body.width / 2;
        let (left, right) = halves(c, usize::from(half.saturating_sub(2)), theme, home);
        let l = Rect::new(body.x, body.y, half, body.height);
        let r = Rect::new(
            body.x + half + 1,
            body.y,
            body.width - half - 1,
            body.height,
        );
        frame.render_widget(Paragraph::new(scrolled(left, view.scroll)), l);
        frame.render_widget(Paragraph::new(scrolled(right, view.scroll)), r);
    } else {
        let (mut all, right) = halves(c, usize::from(body.width), theme, home);
        all.extend(right);
        frame.render_widget(Paragraph::new(scrolled(all, view.scroll)), body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_are_eighths_of_the_largest() {
        assert_eq!(bar(1.0, 1.0, 4), "████");
        assert_eq!(bar(0.5, 1.0, 4), "██");
        assert_eq!(bar(1.0, 16.0, 2), "▏");
        // Anything spent shows, nothing spent does not.
        assert_eq!(bar(0.0001, 100.0, 10), "▏");
        assert_eq!(bar(0.0, 1.0, 10), "");
    }
}
