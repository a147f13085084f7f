//! The usage view: bar charts of spend per day (week, month), per project
//! and per model of the sessions the sessions pane lets through, with the
//! numbers beside the bars, so they read without colour.

use crate::catalog::usage::Spend;
use crate::safe_text as text;
use crate::session::tree::entry_line::shorten_home;
use crate::tui::input::keymap::{Action, Key, Keymap, Scope};
use crate::tui::look::format;
use crate::tui::look::theme::Theme;
use crate::tui::model::usage_charts::{Bar, Period, UsageCharts};
use crate::tui::work::newest::{Answer, Newest, Stamp};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};

/// How far a page key scrolls.
const PAGE: usize = 10;
/// Two columns (time on the left) from this width on.
const TWO_COLUMNS: u16 = 120;

/// The view's state: what it shows and how far it is scrolled.
#[derive(Debug, Clone, Default)]
pub struct UsageView {
    pub period: Period,
    pub scroll: usize,
    /// The charts asked for: only the newest are shown.
    asked: Newest,
    /// `None` while the charts are built.
    pub charts: Option<Box<UsageCharts>>,
    /// Which sessions: `all`, `this folder`, with the search if any.
    pub scope: String,
}

/// What a key did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageKey {
    Stay,
    /// The period changed: build the charts again.
    Rebuild,
    Close,
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
        match keymap.own_action(Scope::Usage, k) {
            Some(Action::Up) => self.scroll = self.scroll.saturating_sub(1),
            Some(Action::Down) => self.scroll += 1,
            Some(Action::PageUp) => self.scroll = self.scroll.saturating_sub(PAGE),
            Some(Action::PageDown) => self.scroll += PAGE,
            Some(Action::First) => self.scroll = 0,
            Some(Action::Last) => self.scroll = usize::MAX / 2,
            Some(Action::UsagePeriod) => {
                self.period = self.period.next();
                self.scroll = 0;
                return UsageKey::Rebuild;
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

    /// The newest charts, unless newer ones were asked for since.
    pub fn take(&mut self, charts: Answer<Box<UsageCharts>>) {
        if let Some(charts) = self.asked.take(charts) {
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

fn footer(keymap: &Keymap, period: Period) -> String {
    let key = |a| keymap.keys_for(Scope::Usage, a);
    let next = match period.next() {
        Period::Days => "days",
        Period::Weeks => "weeks",
        Period::Months => "months",
    };
    let scroll = keymap.up_down(Scope::Usage).unwrap_or_default();
    format!(
        " {} {next} · {scroll} scroll · {} back ",
        key(Action::UsagePeriod),
        key(Action::Close)
    )
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
        .title_bottom(Span::styled(footer(keymap, view.period), theme.muted));
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
