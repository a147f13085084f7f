//! A time span over sessions' last activity: `--since` and `--until`, each
//! a day (`YYYY-MM-DD`, in a time zone) or an age back from now (`2d`,
//! `3w`, `12h`). pi's query language stays pi's; the span is a filter of
//! its own.

use crate::catalog::housekeeping::clean::parse_age;
use crate::catalog::usage::{DateRange, Zone};

/// One end of a span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// A day, days since 1970-01-01, in the span's zone: the whole day.
    Day(i64),
    /// An age: the moment this many milliseconds before now.
    Age(i64),
}

impl Bound {
    /// `2026-03-01` (or `20260301`), or an age such as `2d`, `3w`, `12h`.
    pub fn parse(text: &str) -> Result<Bound, String> {
        if let Ok(day) = DateRange::parse_day(text) {
            return Ok(Bound::Day(day));
        }
        match parse_age(text) {
            Ok(age) => Ok(Bound::Age(
                i64::try_from(age.as_millis()).unwrap_or(i64::MAX),
            )),
            Err(_) => Err(format!(
                "not a date or an age: {text:?} (use YYYY-MM-DD, or 2d, 3w, 12h)"
            )),
        }
    }
}

/// The sessions whose last activity falls from `since` to `until`, both
/// ends included.
#[derive(Debug, Clone)]
pub struct Span {
    pub since: Option<Bound>,
    pub until: Option<Bound>,
    /// Where days begin and end.
    pub zone: Zone,
    /// Now, in milliseconds since 1970: ages count back from it.
    pub now_ms: i64,
}

impl Span {
    /// Whether the span leaves anything out.
    pub fn is_all(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    /// Whether a session last active at `ms` is in the span (one with no
    /// known time is in it only when the span is everything).
    pub fn holds(&self, ms: Option<i64>) -> bool {
        if self.is_all() {
            return true;
        }
        let Some(ms) = ms else { return false };
        let after = match self.since {
            None => true,
            Some(Bound::Day(d)) => self.zone.day_of(ms) >= d,
            Some(Bound::Age(a)) => ms >= self.now_ms.saturating_sub(a),
        };
        let before = match self.until {
            None => true,
            Some(Bound::Day(d)) => self.zone.day_of(ms) <= d,
            Some(Bound::Age(a)) => ms <= self.now_ms.saturating_sub(a),
        };
        after && before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400_000;

    fn span(since: Option<&str>, until: Option<&str>, zone: &str) -> Span {
        Span {
            since: since.map(|s| Bound::parse(s).unwrap()),
            until: until.map(|s| Bound::parse(s).unwrap()),
            zone: Zone::named(zone).unwrap(),
            now_ms: 20_500 * DAY,
        }
    }

    #[test]
    fn days_begin_and_end_in_the_zone() {
        // 2026-03-01 23:30 UTC is still the first of March in UTC, and
        // 18:30 on the first in New York; 00:30 UTC on the second is
        // 19:30 on the first there.
        let late = DateRange::parse_day("2026-03-01").unwrap() * DAY + 23 * 3_600_000 + 1_800_000;
        let after_midnight = late + 3_600_000;
        let utc = span(Some("2026-03-02"), None, "UTC");
        assert!(!utc.holds(Some(late)));
        assert!(utc.holds(Some(after_midnight)));
        let ny = span(None, Some("2026-03-01"), "America/New_York");
        assert!(ny.holds(Some(late)) && ny.holds(Some(after_midnight)));
        let ny = span(Some("2026-03-02"), None, "America/New_York");
        assert!(!ny.holds(Some(after_midnight)));
    }

    #[test]
    fn ages_count_back_from_now() {
        let s = span(Some("2d"), Some("1d"), "UTC");
        let now = s.now_ms;
        assert!(s.holds(Some(now - DAY - 1)));
        assert!(s.holds(Some(now - 2 * DAY)));
        assert!(!s.holds(Some(now - 2 * DAY - 1)));
        assert!(!s.holds(Some(now - DAY + 1)));
        assert!(!s.holds(None));
        assert!(span(None, None, "UTC").holds(None));
        assert!(
            Bound::parse("yesterday")
                .unwrap_err()
                .contains("not a date or an age")
        );
    }
}
