//! Timestamps the way pi's runtime reads and writes them.
//! pi sorts tree children by `new Date(entry.timestamp).getTime()` and writes
//! `toISOString()`; this module reproduces both for the ISO forms pi uses.

use std::time::{SystemTime, UNIX_EPOCH};

/// The largest absolute time value a JavaScript `Date` can hold, in ms.
const MAX_TIME_MS: i64 = 8_640_000_000_000_000;

/// `Date.parse` for the ISO 8601 forms JavaScript accepts (`YYYY`, `YYYY-MM`,
/// `YYYY-MM-DD`, each optionally with `THH:mm[:ss[.fff]]` and `Z` or `±HH:mm`;
/// six-digit signed years; a space may replace the `T`). Forms without a zone
/// are read as UTC. Anything else is `None`, JavaScript's `NaN`.
pub fn parse_iso_ms(text: &str) -> Option<i64> {
    let mut p = Cursor {
        s: text.as_bytes(),
        i: 0,
    };
    let year = match p.peek() {
        Some(sign @ (b'+' | b'-')) => {
            p.i += 1;
            let y = p.digits(6)?;
            if sign == b'-' && y == 0 {
                return None;
            }
            if sign == b'-' { -y } else { y }
        }
        _ => p.digits(4)?,
    };
    let (mut month, mut day) = (1, 1);
    if p.eat(b'-') {
        month = p.digits(2)?;
        if p.eat(b'-') {
            day = p.digits(2)?;
        }
    }
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut ms_of_day = 0;
    let mut offset_min = 0;
    if matches!(p.peek(), Some(b'T' | b't' | b' ')) {
        p.i += 1;
        let hour = p.digits(2)?;
        if !p.eat(b':') {
            return None;
        }
        let minute = p.digits(2)?;
        let (mut second, mut millis) = (0, 0);
        if p.eat(b':') {
            second = p.digits(2)?;
            if p.eat(b'.') || p.eat(b',') {
                let start = p.i;
                while matches!(p.peek(), Some(b'0'..=b'9')) {
                    p.i += 1;
                }
                let frac = &p.s[start..p.i];
                if frac.is_empty() {
                    return None;
                }
                for (k, d) in frac.iter().take(3).enumerate() {
                    millis += i64::from(d - b'0') * [100, 10, 1][k];
                }
            }
        }
        let valid = (hour < 24 && minute < 60 && second < 60)
            || (hour == 24 && minute == 0 && second == 0 && millis == 0);
        if !valid {
            return None;
        }
        ms_of_day = ((hour * 60 + minute) * 60 + second) * 1000 + millis;
        match p.peek() {
            Some(b'Z' | b'z') => p.i += 1,
            Some(sign @ (b'+' | b'-')) => {
                p.i += 1;
                let oh = p.digits(2)?;
                p.eat(b':');
                let om = p.digits(2)?;
                if oh > 23 || om > 59 {
                    return None;
                }
                offset_min = (oh * 60 + om) * if sign == b'+' { 1 } else { -1 };
            }
            _ => {}
        }
    }
    if p.i != p.s.len() {
        return None;
    }
    let ms = days_from_civil(year, month, day) * 86_400_000 + ms_of_day - offset_min * 60_000;
    (ms.abs() <= MAX_TIME_MS).then_some(ms)
}

/// `new Date(value).getTime()` for a JSON value: strings are parsed, numbers
/// taken as milliseconds, `null` and `false` are 0, `true` is 1.
pub fn value_ms(value: &serde_json::Value) -> Option<i64> {
    use serde_json::Value;
    match value {
        Value::String(s) => parse_iso_ms(s),
        Value::Number(n) => n
            .as_f64()
            .filter(|f| f.is_finite() && f.abs() <= MAX_TIME_MS as f64)
            .map(|f| f.trunc() as i64),
        Value::Null => Some(0),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// `toISOString()`: `2024-12-03T14:00:00.000Z`.
pub fn format_iso(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else {
        format!("{}{:06}", if y < 0 { '-' } else { '+' }, y.abs())
    };
    format!(
        "{year}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

/// The current time in ms since the epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == Some(b);
        if hit {
            self.i += 1;
        }
        hit
    }
    fn digits(&mut self, n: usize) -> Option<i64> {
        let chunk = self.s.get(self.i..self.i + n)?;
        if !chunk.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.i += n;
        Some(
            chunk
                .iter()
                .fold(0, |acc, d| acc * 10 + i64::from(d - b'0')),
        )
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date; days past the end of
/// a month roll over into the next, as JavaScript's `MakeDay` does.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms_pi_writes() {
        assert_eq!(parse_iso_ms("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(
            parse_iso_ms("2024-12-03T14:00:00.000Z"),
            Some(1_733_234_400_000)
        );
        assert_eq!(
            parse_iso_ms("2024-12-03T15:00:00+01:00"),
            Some(1_733_234_400_000)
        );
        assert_eq!(parse_iso_ms("2024-12-03"), Some(1_733_184_000_000));
        assert_eq!(parse_iso_ms("2024"), Some(1_704_067_200_000));
        assert_eq!(
            parse_iso_ms("+002024-12-03T14:00:00Z"),
            Some(1_733_234_400_000)
        );
    }

    #[test]
    fn rejects_what_javascript_rejects() {
        for bad in [
            "",
            "yesterday",
            "2024-13-01",
            "2024-12-03T25:00Z",
            "2024-12-03T14:00:00.Z",
            "-000000-01-01",
            "2024-12-03T14",
        ] {
            assert_eq!(parse_iso_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn day_overflow_rolls_like_v8() {
        assert_eq!(parse_iso_ms("2019-02-31"), parse_iso_ms("2019-03-03"));
    }

    #[test]
    fn formats_round_trip() {
        for ms in [0, 1_733_234_400_123, -1, 253_402_300_800_000] {
            assert_eq!(parse_iso_ms(&format_iso(ms)), Some(ms), "{ms}");
        }
        assert_eq!(format_iso(1_733_234_400_123), "2024-12-03T14:00:00.123Z");
    }
}
