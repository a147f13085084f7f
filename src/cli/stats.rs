//! `piscope stats`: tokens and cost per day, week, month, project, model or
//! session, as a table for reading or as JSON for scripts.

use super::args::{StatsArgs, StatsBy};
use super::warn;
use crate::catalog::usage::{self, By, DateRange, Group, Report, Spend, UsageCache};
use crate::catalog::{self, Scope, Surroundings};
use crate::safe_text::{clean_line, fit};
use anyhow::Result;
use std::io::Write;

pub fn run(args: StatsArgs, out: &mut dyn Write) -> Result<()> {
    // The days and the zone were checked as arguments (a malformed one is
    // a usage error, exit 2, before anything is read).
    let zone = args.tz;
    let range = DateRange {
        since: args.since,
        until: args.until,
    };
    let mut problems = Vec::new();
    let folder = catalog::locate(
        &Surroundings::of_process(args.session_dir.clone()),
        &mut problems,
    );
    let mut cache = match (args.no_cache, catalog::cache::default_dir()) {
        (false, Some(dir)) => UsageCache::open(dir),
        _ => UsageCache::disabled(),
    };
    let (removed, trash_problems) = if args.exclude_removed {
        Default::default()
    } else {
        usage::removed_in_trash(&folder)
    };
    let book = usage::load(&folder, &mut cache, &removed);
    for p in problems.iter().chain(&trash_problems).chain(&book.problems) {
        warn(p);
    }
    let scope = if args.all { Scope::All } else { Scope::Current };
    let by = match args.by {
        StatsBy::Day => By::Day,
        StatsBy::Week => By::Week,
        StatsBy::Month => By::Month,
        StatsBy::Project => By::Project,
        StatsBy::Model => By::Model,
        StatsBy::Session => By::Session,
    };
    let mut report = usage::report(&book, &|s| book.in_scope(s, scope), by, range, &zone);
    if by == By::Session {
        name_sessions(&mut report, &folder, args.no_cache);
    }
    if args.json {
        serde_json::to_writer(&mut *out, &report.to_json())?;
        writeln!(out)?;
    } else {
        write_table(&report, args.by, out)?;
    }
    Ok(())
}

/// Gives each session its title as the catalog lists it (its name, else
/// its first message); the trash's sessions have theirs from the book.
fn name_sessions(report: &mut Report, folder: &catalog::SessionsFolder, no_cache: bool) {
    let mut cache = match (no_cache, catalog::cache::default_dir()) {
        (false, Some(dir)) => catalog::cache::Cache::open(dir),
        _ => catalog::cache::Cache::disabled(),
    };
    let options = catalog::LoadOptions {
        scope: Scope::All,
        with_text: false,
        with_usage: false,
    };
    // Files that do not read were named by the usage book already.
    let cat = catalog::load(folder, options, &mut cache, &mut |_| {});
    let titles: std::collections::HashMap<&std::path::Path, &str> = cat
        .sessions
        .iter()
        .map(|s| (s.path.as_path(), s.title()))
        .collect();
    report.name_sessions(&|path| titles.get(path).map(|t| t.to_string()));
}

/// The key column is as wide as its longest key, within these bounds;
/// a longer key keeps its end (a file name, a folder's last parts).
const KEY_MIN: usize = 10;
const KEY_MAX: usize = 72;

fn fit_end(key: &str, width: usize) -> String {
    let clean = clean_line(key);
    let w = crate::safe_text::width(&clean);
    if w <= width {
        return format!("{clean}{}", " ".repeat(width - w));
    }
    let mut tail: Vec<char> = Vec::new();
    let mut used = 1;
    for c in clean.chars().rev() {
        let cw = crate::safe_text::width(c.encode_utf8(&mut [0; 4]));
        if used + cw > width {
            break;
        }
        used += cw;
        tail.push(c);
    }
    let tail: String = tail.into_iter().rev().collect();
    format!("…{tail}{}", " ".repeat(width.saturating_sub(used)))
}

/// `1,234,567`.
fn grouped(n: f64) -> String {
    let digits = format!("{}", n.round().max(0.0) as u64);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn dollars(c: f64) -> String {
    format!("${c:.2}")
}

fn percent(part: f64, of: f64) -> String {
    if of > 0.0 {
        format!("{:.0}%", 100.0 * part / of)
    } else {
        "-".to_string()
    }
}

/// The title and project columns of `stats --by session`, as wide as their
/// longest within these bounds.
const TITLE_MAX: usize = 40;
const PROJECT_MAX: usize = 32;

/// The columns before the numbers: the key, or a session's title and
/// project.
struct Keys {
    by_session: bool,
    key: usize,
    project: usize,
}

impl Keys {
    fn of(report: &Report, by: StatsBy) -> Keys {
        let widest = |f: &dyn Fn(&Group) -> String, max: usize| {
            report
                .groups
                .iter()
                .map(|g| crate::safe_text::width(&clean_line(&f(g))))
                .max()
                .unwrap_or(0)
                .clamp(KEY_MIN, max)
        };
        if by == StatsBy::Session {
            Keys {
                by_session: true,
                key: widest(&title, TITLE_MAX),
                project: widest(&|g| project(g), PROJECT_MAX),
            }
        } else {
            Keys {
                by_session: false,
                key: widest(&|g| g.key.clone(), KEY_MAX),
                project: 0,
            }
        }
    }

    /// The heading's or a row's first columns.
    fn cells(&self, key: &str, project: &str) -> String {
        if self.by_session {
            format!(
                "{}  {}",
                fit(&clean_line(key), self.key),
                fit_end(project, self.project)
            )
        } else {
            fit_end(key, self.key)
        }
    }
}

/// A session's title as the table shows it: a deleted one says so.
fn title(g: &Group) -> String {
    let facts = g.session.as_ref();
    let title = facts.and_then(|f| f.title.as_deref()).unwrap_or("");
    if facts.is_some_and(|f| f.deleted) {
        format!("(deleted) {title}")
    } else {
        title.to_string()
    }
}

fn project(g: &Group) -> String {
    g.session
        .as_ref()
        .map_or(String::new(), |f| f.project.clone())
}

fn row(out: &mut dyn Write, keys: &Keys, g: Option<&Group>, total: &Group) -> std::io::Result<()> {
    let (cells, file) = match g {
        Some(g) if keys.by_session => (
            keys.cells(&title(g), &project(g)),
            format!("  {}", clean_line(&g.key)),
        ),
        Some(g) => (keys.cells(&g.key, ""), String::new()),
        None => (keys.cells("total", ""), String::new()),
    };
    let g = g.unwrap_or(total);
    let s = &g.all;
    writeln!(
        out,
        "{cells}  {:>13}  {:>11}  {:>13}  {:>11}  {:>10}  {:>6}  {:>5}{file}",
        grouped(s.input),
        grouped(s.output),
        grouped(s.cache_read),
        grouped(s.cache_write),
        dollars(s.cost),
        g.counts.assistant,
        s.cache_read_share()
            .map_or("-".to_string(), |x| format!("{:.0}%", 100.0 * x)),
    )
}

fn write_table(report: &Report, by: StatsBy, out: &mut dyn Write) -> std::io::Result<()> {
    let head = match by {
        StatsBy::Day => "DAY",
        StatsBy::Week => "WEEK",
        StatsBy::Month => "MONTH",
        StatsBy::Project => "PROJECT",
        StatsBy::Model => "MODEL",
        StatsBy::Session => "SESSION",
    };
    let keys = Keys::of(report, by);
    writeln!(
        out,
        "{}  {:>13}  {:>11}  {:>13}  {:>11}  {:>10}  {:>6}  {:>5}{}",
        keys.cells(head, "PROJECT"),
        "INPUT",
        "OUTPUT",
        "CACHE READ",
        "CACHE WRITE",
        "COST",
        "TURNS",
        "CACHE",
        if keys.by_session { "  FILE" } else { "" }
    )?;
    for g in &report.groups {
        row(out, &keys, Some(g), &report.total)?;
    }
    row(out, &keys, None, &report.total)?;
    let t = &report.total;
    let summaries: Spend = {
        let mut s = t.all;
        s.cost -= t.assistant.cost;
        s
    };
    writeln!(out)?;
    writeln!(
        out,
        "assistant turns {}, other usage records {} (usage entries {}, compactions {}, branch summaries {}): {}",
        dollars(t.assistant.cost),
        t.counts.usage + t.counts.compaction + t.counts.branch_summary + t.counts.other,
        t.counts.usage,
        t.counts.compaction,
        t.counts.branch_summary,
        dollars(summaries.cost),
    )?;
    writeln!(
        out,
        "on branches pi no longer resumes on: {} ({} of the cost)",
        dollars(t.abandoned.cost),
        percent(t.abandoned.cost, t.all.cost)
    )?;
    if t.inherited.cost > 0.0 || t.inherited.tokens > 0.0 {
        writeln!(
            out,
            "copies in forks and clones, counted once with the session they came from: {}",
            dollars(t.inherited.cost)
        )?;
    }
    if t.removed.cost > 0.0 || t.removed.tokens > 0.0 {
        writeln!(
            out,
            "removed by deletes and prunes, still in the trash: {} ({} of the cost; --exclude-removed leaves it out)",
            dollars(t.removed.cost),
            percent(t.removed.cost, t.all.cost)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(grouped(0.0), "0");
        assert_eq!(grouped(999.0), "999");
        assert_eq!(grouped(1000.0), "1,000");
        assert_eq!(grouped(1_234_567.0), "1,234,567");
        assert_eq!(percent(1.0, 4.0), "25%");
        assert_eq!(percent(1.0, 0.0), "-");
        assert_eq!(fit_end("abc", 5), "abc  ");
        assert_eq!(fit_end("/a/b/c.jsonl", 8), "…c.jsonl");
    }
}
