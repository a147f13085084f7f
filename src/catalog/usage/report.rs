//! Usage summed per group (day, week or month in a time zone; project,
//! model or session), within a date range, with the totals, and the JSON
//! whose core scripts can rely on (see the README).

use super::{QUARTER_MS, RecordKind, Rollup, SessionUsage, Spend, UsageBook};
use rustc_hash::FxHashMap;
use serde_json::{Map, Value, json};

/// What the records are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Day,
    /// ISO weeks (`2026-W03`).
    Week,
    Month,
    /// The session's `cwd`.
    Project,
    /// The model id.
    Model,
    /// The session file.
    Session,
}

/// A time zone for day boundaries.
#[derive(Debug, Clone)]
pub struct Zone(Option<jiff::tz::TimeZone>);

impl Zone {
    pub fn utc() -> Zone {
        Zone(None)
    }

    /// An IANA name (`Europe/Berlin`), `UTC`, or `local` (the system's).
    pub fn named(name: &str) -> Result<Zone, String> {
        match name {
            "UTC" | "utc" | "Z" => Ok(Zone::utc()),
            "local" => jiff::tz::TimeZone::try_system()
                .map(|z| Zone(Some(z)))
                .map_err(|e| format!("the system's time zone: {e}")),
            _ => jiff::tz::TimeZone::get(name)
                .map(|z| Zone(Some(z)))
                .map_err(|_| {
                    format!(
                        "unknown time zone {name:?} (an IANA name such as Europe/Berlin, or UTC)"
                    )
                }),
        }
    }

    /// A fixed offset from UTC, in seconds.
    pub fn fixed(offset_secs: i32) -> Zone {
        match jiff::tz::Offset::from_seconds(offset_secs) {
            Ok(o) if offset_secs != 0 => Zone(Some(jiff::tz::TimeZone::fixed(o))),
            _ => Zone::utc(),
        }
    }

    /// The day (days since 1970-01-01) a moment falls on here.
    pub fn day_of(&self, ms: i64) -> i64 {
        (ms + self.offset_secs(ms) * 1000).div_euclid(86_400_000)
    }

    fn offset_secs(&self, ms: i64) -> i64 {
        let Some(tz) = &self.0 else { return 0 };
        jiff::Timestamp::from_millisecond(ms).map_or(0, |t| i64::from(tz.to_offset(t).seconds()))
    }
}

/// Days since 1970-01-01 in a zone, remembered per quarter hour (offsets
/// change on quarter hours), so a report looks each one up once.
struct Days<'a> {
    zone: &'a Zone,
    memo: FxHashMap<i64, i64>,
}

impl Days<'_> {
    fn of(&mut self, ms: i64) -> i64 {
        let offset = if self.zone.0.is_none() {
            0
        } else {
            let q = ms.div_euclid(QUARTER_MS);
            let zone = self.zone;
            *self
                .memo
                .entry(q)
                .or_insert_with(|| zone.offset_secs(q * QUARTER_MS))
        };
        (ms + offset * 1000).div_euclid(86_400_000)
    }
}

/// The civil date of a day number (days since 1970-01-01).
pub fn civil(days: i64) -> (i64, u32, u32) {
    // Eras of 400 years from 0000-03-01, as the Gregorian cycle repeats.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The day number of a civil date.
pub fn day_number(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub fn day_text(days: i64) -> String {
    let (y, m, d) = civil(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A day's week as the reports key it: `2026-W03`.
pub fn week_text(days: i64) -> String {
    let (y, w) = iso_week(days);
    format!("{y:04}-W{w:02}")
}

/// A day's month as the reports key it: `2026-01`.
pub fn month_text(days: i64) -> String {
    let (y, m, _) = civil(days);
    format!("{y:04}-{m:02}")
}

/// ISO week of a day: (week-numbering year, week).
fn iso_week(days: i64) -> (i64, i64) {
    // 1970-01-01 was a Thursday; Monday is 0.
    let weekday = (days + 3).rem_euclid(7);
    let thursday = days - weekday + 3;
    let year = civil(thursday).0;
    let week = (thursday - day_number(year, 1, 1)) / 7 + 1;
    (year, week)
}

/// Which days count, both ends included.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DateRange {
    pub since: Option<i64>,
    pub until: Option<i64>,
}

impl DateRange {
    /// A day as `YYYY-MM-DD` or `YYYYMMDD`.
    pub fn parse_day(text: &str) -> Result<i64, String> {
        let digits: String = text.chars().filter(|c| *c != '-').collect();
        let bad = || format!("not a date: {text:?} (use YYYY-MM-DD)");
        let b = text.as_bytes();
        // By bytes: the text is the user's and may hold any character.
        let shape = b.len() == 8 || (b.len() == 10 && b[4] == b'-' && b[7] == b'-');
        if !shape || digits.len() != 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let y: i64 = digits[..4].parse().map_err(|_| bad())?;
        let m: u32 = digits[4..6].parse().map_err(|_| bad())?;
        let d: u32 = digits[6..].parse().map_err(|_| bad())?;
        let n = day_number(y, m, d);
        if !(1..=12).contains(&m) || civil(n) != (y, m, d) {
            return Err(bad());
        }
        Ok(n)
    }

    fn holds(&self, day: Option<i64>) -> bool {
        if self.since.is_none() && self.until.is_none() {
            return true;
        }
        day.is_some_and(|d| self.since.is_none_or(|s| d >= s) && self.until.is_none_or(|u| d <= u))
    }
}

/// How many records of each kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub assistant: u64,
    pub usage: u64,
    pub compaction: u64,
    pub branch_summary: u64,
    pub other: u64,
}

/// One group's sums.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Group {
    pub key: String,
    /// Every record the group's sessions own.
    pub all: Spend,
    /// Assistant messages only.
    pub assistant: Spend,
    /// Own records off the branch pi resumes on.
    pub abandoned: Spend,
    /// Copies the group's sessions hold but do not own (not in `all`).
    pub inherited: Spend,
    /// The part of `all` that a delete, clean-up or prune gave to the trash
    /// (still there).
    pub removed: Spend,
    pub counts: Counts,
    /// Grouped by session: which one.
    pub session: Option<SessionFacts>,
}

/// A session group's session, beside its path (the group's key).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionFacts {
    /// Where the session lives (or lived); the key is its text.
    pub path: std::path::PathBuf,
    /// The header's `cwd`.
    pub project: String,
    /// Its name, else its first message: known here for a session in the
    /// trash; the catalog gives the others' (see [`Report::name_sessions`]).
    pub title: Option<String>,
    /// The whole session is in the trash (deleted or cleaned up).
    pub deleted: bool,
}

impl Group {
    /// Adds a rollup of a session, one in the trash when `removed`.
    fn add(&mut self, r: &Rollup, removed: bool) {
        let s = &r.spend;
        if !r.owned {
            self.inherited.add(s);
            return;
        }
        self.all.add(s);
        if removed {
            self.removed.add(s);
        }
        if r.abandoned {
            self.abandoned.add(s);
        }
        let c = &mut self.counts;
        let n = u64::from(r.count);
        match r.kind {
            RecordKind::Assistant => {
                self.assistant.add(s);
                c.assistant += n;
            }
            RecordKind::UsageEntry => c.usage += n,
            RecordKind::Compaction => c.compaction += n,
            RecordKind::BranchSummary => c.branch_summary += n,
            RecordKind::Other => c.other += n,
        }
    }

    fn merge(&mut self, o: &Group) {
        self.all.add(&o.all);
        self.assistant.add(&o.assistant);
        self.abandoned.add(&o.abandoned);
        self.inherited.add(&o.inherited);
        self.removed.add(&o.removed);
        let (c, d) = (&mut self.counts, &o.counts);
        c.assistant += d.assistant;
        c.usage += d.usage;
        c.compaction += d.compaction;
        c.branch_summary += d.branch_summary;
        c.other += d.other;
    }
}

/// The groups (time groups oldest first, the others costliest first) and
/// their total.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    pub groups: Vec<Group>,
    pub total: Group,
}

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Time(i64),
    NoTime,
    Text(String),
}

/// Sums the records of the sessions `pick` accepts, grouped `by`.
pub fn report(
    book: &UsageBook,
    pick: &dyn Fn(&SessionUsage) -> bool,
    by: By,
    range: DateRange,
    zone: &Zone,
) -> Report {
    let mut days = Days {
        zone,
        memo: FxHashMap::default(),
    };
    let mut groups: FxHashMap<Key, Group> = FxHashMap::default();
    for s in book.sessions.iter().filter(|s| pick(s)) {
        let u = s;
        // Text keys are made once per session (per model for models), not
        // once per record.
        let mut local: Vec<Group> = match by {
            By::Model => vec![Group::default(); u.models.len() + 1],
            By::Project | By::Session => vec![Group::default()],
            _ => Vec::new(),
        };
        for r in &s.rollups {
            let day = r.quarter.map(|q| days.of(q * QUARTER_MS));
            if !range.holds(day) {
                continue;
            }
            let slot = match by {
                By::Day => Err(day.map_or(Key::NoTime, Key::Time)),
                By::Week => Err(day.map_or(Key::NoTime, |d| {
                    let (y, w) = iso_week(d);
                    Key::Time(y * 100 + w)
                })),
                By::Month => Err(day.map_or(Key::NoTime, |d| {
                    let (y, m, _) = civil(d);
                    Key::Time(y * 100 + i64::from(m))
                })),
                By::Model => Ok(r
                    .model
                    .map_or(u.models.len(), usize::from)
                    .min(u.models.len())),
                By::Project | By::Session => Ok(0),
            };
            let g = match slot {
                Ok(i) => &mut local[i],
                Err(key) => groups.entry(key).or_default(),
            };
            g.add(r, s.removed.is_some());
        }
        for (i, g) in local.iter().enumerate() {
            if g == &Group::default() {
                continue;
            }
            let key = match by {
                By::Project => u.cwd.clone(),
                By::Session => s.path.display().to_string(),
                _ => u
                    .models
                    .get(i)
                    .map_or("(unknown)", String::as_str)
                    .to_string(),
            };
            let group = groups.entry(Key::Text(key)).or_default();
            group.merge(g);
            if by == By::Session {
                // A pruned session's file and its original in the trash are
                // one group; the file in the folder names it.
                let facts = group.session.get_or_insert_with(|| SessionFacts {
                    path: s.path.clone(),
                    project: u.cwd.clone(),
                    title: None,
                    deleted: true,
                });
                match &s.removed {
                    Some(r) => {
                        if facts.deleted && facts.title.is_none() {
                            facts.title.clone_from(&r.title);
                        }
                    }
                    None => {
                        facts.deleted = false;
                        facts.project.clone_from(&u.cwd);
                        facts.title = None;
                    }
                }
            }
        }
    }
    let mut list: Vec<(Key, Group)> = groups.into_iter().collect();
    let timed = matches!(by, By::Day | By::Week | By::Month);
    if timed {
        list.sort_by(|a, b| a.0.cmp(&b.0));
    } else {
        list.sort_by(|a, b| {
            b.1.all
                .cost
                .total_cmp(&a.1.all.cost)
                .then_with(|| a.0.cmp(&b.0))
        });
    }
    let mut total = Group {
        key: "total".to_string(),
        ..Group::default()
    };
    let groups = list
        .into_iter()
        .map(|(k, mut g)| {
            total.merge(&g);
            g.key = match k {
                Key::Time(n) => match by {
                    By::Day => day_text(n),
                    By::Week => format!("{:04}-W{:02}", n / 100, n % 100),
                    _ => format!("{:04}-{:02}", n / 100, n % 100),
                },
                Key::NoTime => "(no date)".to_string(),
                Key::Text(t) => t,
            };
            g
        })
        .collect();
    Report { groups, total }
}

/// A token count as JSON: an integer when it is one.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

fn five(s: &Spend) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("input".into(), number(s.input));
    m.insert("output".into(), number(s.output));
    m.insert("cacheRead".into(), number(s.cache_read));
    m.insert("cacheWrite".into(), number(s.cache_write));
    m.insert("cost".into(), json!(s.cost));
    m
}

fn group_json(g: &Group, with_key: bool) -> Value {
    let mut m = Map::new();
    if with_key {
        m.insert("key".into(), json!(g.key));
    }
    m.extend(five(&g.all));
    m.insert("totalTokens".into(), number(g.all.tokens));
    m.insert("assistant".into(), Value::Object(five(&g.assistant)));
    let c = &g.counts;
    m.insert(
        "records".into(),
        json!({
            "assistant": c.assistant,
            "usage": c.usage,
            "compaction": c.compaction,
            "branchSummary": c.branch_summary,
            "other": c.other,
        }),
    );
    m.insert(
        "cacheReadShare".into(),
        g.all.cache_read_share().map_or(Value::Null, |x| json!(x)),
    );
    m.insert("abandoned".into(), Value::Object(five(&g.abandoned)));
    m.insert("inherited".into(), Value::Object(five(&g.inherited)));
    m.insert("removed".into(), Value::Object(five(&g.removed)));
    if let Some(f) = &g.session {
        m.insert("path".into(), json!(g.key));
        m.insert("project".into(), json!(f.project));
        m.insert("title".into(), json!(f.title));
        m.insert("deleted".into(), json!(f.deleted));
    }
    Value::Object(m)
}

impl Report {
    /// Gives each session group of a session in the folder its title, as
    /// `title_of` (the catalog) gives it by path.
    pub fn name_sessions(&mut self, title_of: &dyn Fn(&std::path::Path) -> Option<String>) {
        for f in self.groups.iter_mut().filter_map(|g| g.session.as_mut()) {
            if !f.deleted {
                f.title = title_of(&f.path);
            }
        }
    }

    /// `{"groups": [...], "total": {...}}` as the README documents it.
    pub fn to_json(&self) -> Value {
        json!({
            "groups": self.groups.iter().map(|g| group_json(g, true)).collect::<Vec<_>>(),
            "total": group_json(&self.total, false),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_round_trip() {
        for n in [-719_468, -1, 0, 1, 10_957, 11_016, 20_466, 2_932_896] {
            let (y, m, d) = civil(n);
            assert_eq!(day_number(y, m, d), n, "{y}-{m}-{d}");
        }
        assert_eq!(day_text(0), "1970-01-01");
        assert_eq!(day_text(20_466), "2026-01-13");
        assert_eq!(DateRange::parse_day("2026-01-13"), Ok(20_466));
        assert_eq!(DateRange::parse_day("20260113"), Ok(20_466));
        assert!(DateRange::parse_day("2026-02-30").is_err());
        assert!(DateRange::parse_day("2026-1-13").is_err());
    }

    #[test]
    fn iso_weeks() {
        let week = |t: &str| iso_week(DateRange::parse_day(t).expect("a day"));
        assert_eq!(week("2026-01-01"), (2026, 1));
        assert_eq!(week("2027-01-01"), (2026, 53));
        assert_eq!(week("2024-12-30"), (2025, 1));
        assert_eq!(week("2026-01-12"), (2026, 3));
    }

    #[test]
    fn days_in_a_zone() {
        let berlin = Zone::named("Europe/Berlin").expect("tzdb");
        let mut days = Days {
            zone: &berlin,
            memo: FxHashMap::default(),
        };
        // 23:30 UTC on 13 January is 00:30 on the 14th in Berlin (UTC+1),
        // and 22:30 UTC on 1 July is 00:30 on the 2nd (UTC+2).
        let jan = jiff::Timestamp::from_second(1_768_347_000).expect("time");
        assert_eq!(day_text(days.of(jan.as_millisecond())), "2026-01-14");
        let jul = jiff::Timestamp::from_second(1_782_945_000).expect("time");
        assert_eq!(day_text(days.of(jul.as_millisecond())), "2026-07-02");
        assert!(Zone::named("Mars/Olympus").is_err());
    }
}
