//! Wall-clock time for the screen: "now" for ages, the local time zone for
//! timestamps. Passed in, so that tests and snapshots always read the same.

use crate::jstext::date as jsdate;

/// The current time and how to turn a moment into local time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    pub now_ms: i64,
    /// A fixed offset from UTC in seconds; `None` asks the system for each
    /// moment (summer time differs from winter time).
    pub utc_offset: Option<i32>,
}

/// Local calendar fields of a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalTime {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
}

impl Clock {
    /// The system's clock and time zone.
    pub fn system() -> Clock {
        Clock {
            now_ms: jsdate::now_ms(),
            utc_offset: None,
        }
    }

    /// A frozen clock, for tests.
    pub fn fixed(now_ms: i64, utc_offset: i32) -> Clock {
        Clock {
            now_ms,
            utc_offset: Some(utc_offset),
        }
    }

    /// The same clock read again (a fixed clock stays where it is).
    pub fn tick(self) -> Clock {
        match self.utc_offset {
            Some(_) => self,
            None => Clock::system(),
        }
    }

    fn offset_at(&self, ms: i64) -> i64 {
        match self.utc_offset {
            Some(s) => i64::from(s),
            None => system_offset(ms),
        }
    }

    /// The moment the local day of `ms` began.
    pub fn start_of_day(&self, ms: i64) -> i64 {
        let offset = self.offset_at(ms) * 1000;
        let local = ms.saturating_add(offset);
        local - local.rem_euclid(86_400_000) - offset
    }

    /// The local calendar fields of `ms`, if it is a representable date.
    pub fn local(&self, ms: i64) -> Option<LocalTime> {
        let iso = jsdate::format_iso(ms.checked_add(self.offset_at(ms) * 1000)?);
        // Four-digit years only; anything else is not a date a person reads.
        let b = iso.as_bytes();
        if b.len() != 24 {
            return None;
        }
        let num = |r: std::ops::Range<usize>| iso.get(r)?.parse::<u32>().ok();
        Some(LocalTime {
            year: i64::from(num(0..4)?),
            month: num(5..7)?,
            day: num(8..10)?,
            hour: num(11..13)?,
            minute: num(14..16)?,
        })
    }

    /// How long ago, in pi's words: `now`, `5m`, `3h`, `2d`, `4w`, `6mo`, `1y`.
    pub fn age(&self, ms: i64) -> String {
        let diff = self.now_ms.saturating_sub(ms);
        let mins = diff.div_euclid(60_000);
        let hours = diff.div_euclid(3_600_000);
        let days = diff.div_euclid(86_400_000);
        if mins < 1 {
            "now".into()
        } else if mins < 60 {
            format!("{mins}m")
        } else if hours < 24 {
            format!("{hours}h")
        } else if days < 7 {
            format!("{days}d")
        } else if days < 30 {
            format!("{}w", days / 7)
        } else if days < 365 {
            format!("{}mo", days / 30)
        } else {
            format!("{}y", days / 365)
        }
    }

    /// `HH:MM` today, `M/D HH:MM` this year, `YY/M/D HH:MM` before (as pi
    /// shows label times).
    pub fn short_time(&self, ms: i64) -> String {
        let (Some(t), Some(now)) = (self.local(ms), self.local(self.now_ms)) else {
            return "?".into();
        };
        let hm = format!("{:02}:{:02}", t.hour, t.minute);
        if (t.year, t.month, t.day) == (now.year, now.month, now.day) {
            hm
        } else if t.year == now.year {
            format!("{}/{} {hm}", t.month, t.day)
        } else {
            format!("{:02}/{}/{} {hm}", t.year % 100, t.month, t.day)
        }
    }

    /// `2026-01-11 17:03`.
    pub fn date_time(&self, ms: i64) -> String {
        match self.local(ms) {
            Some(t) => format!(
                "{:04}-{:02}-{:02} {:02}:{:02}",
                t.year, t.month, t.day, t.hour, t.minute
            ),
            None => "?".into(),
        }
    }
}

#[cfg(unix)]
fn system_offset(ms: i64) -> i64 {
    let secs = ms.div_euclid(1000) as libc::time_t;
    // SAFETY: localtime_r only writes into the `tm` we own; a zeroed `tm` is
    // a valid value of the plain C struct.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&secs, &mut tm).is_null() {
            return 0;
        }
        tm.tm_gmtoff
    }
}

#[cfg(not(unix))]
fn system_offset(_ms: i64) -> i64 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_768_150_000_000; // 2026-01-11T16:46:40Z

    #[test]
    fn ages_in_pi_words() {
        let c = Clock::fixed(NOW, 0);
        let ago = |s: i64| c.age(NOW - s * 1000);
        assert_eq!(ago(30), "now");
        assert_eq!(ago(5 * 60), "5m");
        assert_eq!(ago(3 * 3600), "3h");
        assert_eq!(ago(2 * 86400), "2d");
        assert_eq!(ago(28 * 86400), "4w");
        assert_eq!(ago(200 * 86400), "6mo");
        assert_eq!(ago(400 * 86400), "1y");
        assert_eq!(c.age(NOW + 5000), "now");
    }

    #[test]
    fn short_times_depend_on_the_day() {
        let c = Clock::fixed(NOW, 3600);
        assert_eq!(c.short_time(NOW - 60_000), "17:45");
        assert_eq!(c.short_time(NOW - 3 * 86_400_000), "1/8 17:46");
        assert_eq!(c.short_time(NOW - 400 * 86_400_000), "24/12/7 17:46");
        assert_eq!(c.date_time(NOW), "2026-01-11 17:46");
    }
}
