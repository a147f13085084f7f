//! What the usage view shows, built on a worker from the usage book: spend
//! per day (week, month) up to today, per project, per model and per
//! session, of the sessions the sessions pane lets through, with their
//! totals. What the trash still holds of them counts too, marked removed.

use crate::catalog::Scope;
use crate::catalog::usage::{
    self, By, DateRange, Report, Spend, UsageBook, Zone, day_text, month_text, week_text,
};
use crate::tui::work::newest::Stamp;
use rustc_hash::FxHashSet;
use std::path::PathBuf;
use std::sync::Arc;

/// How the spend over time is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Period {
    /// The last 30 days.
    #[default]
    Days,
    /// The last 26 ISO weeks.
    Weeks,
    /// The last 12 months.
    Months,
}

impl Period {
    pub fn next(self) -> Period {
        match self {
            Period::Days => Period::Weeks,
            Period::Weeks => Period::Months,
            Period::Months => Period::Days,
        }
    }

    /// The chart's heading.
    pub fn title(self) -> &'static str {
        match self {
            Period::Days => "Spend per day, last 30 days",
            Period::Weeks => "Spend per week, last 26 weeks",
            Period::Months => "Spend per month, last 12 months",
        }
    }
}

/// What to build the charts of.
#[derive(Clone)]
pub struct UsageRequest {
    /// Overtaken once newer charts are asked for.
    pub stamp: Stamp,
    pub book: Arc<UsageBook>,
    /// The sessions counted (the sessions pane's scope, search and time
    /// span), with their titles.
    pub sessions: Vec<(PathBuf, String)>,
    /// When the pane lists every session of a scope (no search, no time
    /// span, not only named ones): that scope, whose deleted sessions
    /// still in the trash count too.
    pub deleted_in: Option<Scope>,
    pub period: Period,
    pub now_ms: i64,
    /// The clock's fixed offset (tests), else the system's zone.
    pub utc_offset: Option<i32>,
}

/// One bar: its label and what it stands for.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub label: String,
    pub spend: Spend,
}

/// One session's line in the sessions view.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSpend {
    pub path: PathBuf,
    /// Its name, else its first message (from the list, or from the trash).
    pub title: String,
    /// The header's `cwd`.
    pub project: String,
    /// What it spent, the part still in the trash included.
    pub spend: Spend,
    pub removed: Spend,
    /// Its own assistant turns.
    pub turns: u64,
    /// The whole session is in the trash.
    pub deleted: bool,
}

/// The charts and their totals.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageCharts {
    pub period: Period,
    pub sessions: usize,
    pub total: Spend,
    pub assistant: Spend,
    pub abandoned: Spend,
    pub inherited: Spend,
    /// The part of `total` only the trash holds.
    pub removed: Spend,
    /// Costliest first.
    pub by_session: Vec<SessionSpend>,
    /// Oldest first, every period shown (none spent is a bar of 0).
    pub times: Vec<Bar>,
    /// Costliest first.
    pub projects: Vec<Bar>,
    pub models: Vec<Bar>,
}

fn bars(r: &Report) -> Vec<Bar> {
    r.groups
        .iter()
        .filter(|g| g.all != Spend::default())
        .map(|g| Bar {
            label: g.key.clone(),
            spend: g.all,
        })
        .collect()
}

pub fn build(req: &UsageRequest) -> UsageCharts {
    let zone = match req.utc_offset {
        Some(s) => Zone::fixed(s),
        None => Zone::named("local").unwrap_or_else(|_| Zone::utc()),
    };
    let book = &req.book;
    let wanted: FxHashSet<&PathBuf> = req.sessions.iter().map(|(p, _)| p).collect();
    // A deleted session: in the trash, and nothing at its path any more.
    let deleted = |s: &usage::SessionUsage| s.removed.is_some() && book.session(&s.path).is_none();
    let pick = |s: &usage::SessionUsage| {
        wanted.contains(&s.path)
            || req
                .deleted_in
                .is_some_and(|scope| deleted(s) && book.in_scope(s, scope))
    };
    let today = zone.day_of(req.now_ms);
    let (first, by, key): (i64, By, fn(i64) -> String) = match req.period {
        Period::Days => (today - 29, By::Day, day_text),
        Period::Weeks => {
            let monday = today - (today + 3).rem_euclid(7);
            (monday - 25 * 7, By::Week, week_text)
        }
        Period::Months => {
            let (y, m, _) = usage::report::civil(today);
            let months = y * 12 + i64::from(m) - 1 - 11;
            let start = usage::report::day_number(
                months.div_euclid(12),
                months.rem_euclid(12) as u32 + 1,
                1,
            );
            (start, By::Month, month_text)
        }
    };
    let range = DateRange {
        since: Some(first),
        until: Some(today),
    };
    let over_time = usage::report(book, &pick, by, range, &zone);
    let mut times: Vec<Bar> = Vec::new();
    for day in first..=today {
        let label = key(day);
        if times.last().is_none_or(|b| b.label != label) {
            let spend = over_time
                .groups
                .iter()
                .find(|g| g.key == label)
                .map(|g| g.all)
                .unwrap_or_default();
            times.push(Bar { label, spend });
        }
    }
    let all = DateRange::default();
    let projects = usage::report(book, &pick, By::Project, all, &zone);
    let models = usage::report(book, &pick, By::Model, all, &zone);
    let per_session = usage::report(book, &pick, By::Session, all, &zone);
    let titles: rustc_hash::FxHashMap<&PathBuf, &str> =
        req.sessions.iter().map(|(p, t)| (p, t.as_str())).collect();
    let by_session = per_session
        .groups
        .iter()
        .filter(|g| g.all != Spend::default())
        .map(|g| {
            let facts = g.session.clone().unwrap_or_default();
            let path = facts.path.clone();
            let title = match titles.get(&path) {
                Some(t) => t.to_string(),
                None => facts.title.unwrap_or_default(),
            };
            SessionSpend {
                path,
                title,
                project: facts.project,
                spend: g.all,
                removed: g.removed,
                turns: g.counts.assistant,
                deleted: facts.deleted,
            }
        })
        .collect();
    let t = &projects.total;
    let counted: FxHashSet<&PathBuf> = book
        .sessions
        .iter()
        .filter(|s| pick(s))
        .map(|s| &s.path)
        .collect();
    UsageCharts {
        period: req.period,
        sessions: counted.len(),
        total: t.all,
        assistant: t.assistant,
        abandoned: t.abandoned,
        inherited: t.inherited,
        removed: t.removed,
        by_session,
        times,
        projects: bars(&projects),
        models: bars(&models),
    }
}
