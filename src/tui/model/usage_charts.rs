//! What the usage view shows, built on a worker from the usage book: spend
//! per day (week, month) up to today, per project and per model, of the
//! sessions the sessions pane lets through, with their totals.

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
    /// The sessions counted (the sessions pane's scope and search).
    pub paths: Vec<PathBuf>,
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

/// The charts and their totals.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageCharts {
    pub period: Period,
    pub sessions: usize,
    pub total: Spend,
    pub assistant: Spend,
    pub abandoned: Spend,
    pub inherited: Spend,
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
    let wanted: FxHashSet<&PathBuf> = req.paths.iter().collect();
    let pick = |s: &usage::SessionUsage| wanted.contains(&s.path);
    let book = &req.book;
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
    let t = &projects.total;
    UsageCharts {
        period: req.period,
        sessions: book.sessions.iter().filter(|s| pick(s)).count(),
        total: t.all,
        assistant: t.assistant,
        abandoned: t.abandoned,
        inherited: t.inherited,
        times,
        projects: bars(&projects),
        models: bars(&models),
    }
}
