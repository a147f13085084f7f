//! `Date.parse` as pi's runtime answers it, `toISOString()`, and the clock.
//! pi sorts tree children by `new Date(entry.timestamp).getTime()` and dates
//! sessions by it, so every string that runtime accepts must give its value.
//!
//! Two grammars, tried in turn on one token stream. First the ISO form of the
//! standard (`[+-YY]YYYY[-MM[-DD]][THH:mm[:ss[.s+]][Z|±HH:mm|±HHmm]]`, `T` and
//! `Z` in either case). If that stops early, the tokens left go to the
//! lenient grammar of the runtime's older parser, which reads forms like
//! `Tue, 05 Jan 2026 10:00:00 GMT`, `Date.prototype.toString()` output,
//! `2026/01/05 10:00` and `Jan 5 2026`: numbers followed by `:` are time, a
//! word starting like a month name is the month, `GMT`/`UTC`/`Z`/US zone
//! abbreviations and `±hh[mm]` are zones, words before the first number and
//! anything in parentheses are ignored. A date-only ISO form is UTC; every
//! other form without a zone is local time, in the process's time zone.

use jiff::tz::{AmbiguousOffset, TimeZone};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

/// The largest absolute time value a JavaScript `Date` can hold, in ms.
pub const MAX_TIME_MS: i64 = 8_640_000_000_000_000;
const MS_PER_DAY: i64 = 86_400_000;

/// A time zone for reading local times.
#[derive(Debug, Clone)]
pub struct Zone(TimeZone);

impl Zone {
    /// The process's zone, as the runtime finds it: `TZ`, else
    /// `/etc/localtime`; UTC when neither names a known zone.
    pub fn system() -> &'static Zone {
        static SYSTEM: OnceLock<Zone> = OnceLock::new();
        SYSTEM.get_or_init(|| Zone(TimeZone::system()))
    }

    /// A zone by IANA name (`America/New_York`) or POSIX `TZ` rule.
    pub fn named(name: &str) -> Option<Zone> {
        TimeZone::get(name)
            .or_else(|_| TimeZone::posix(name))
            .ok()
            .map(Zone)
    }

    pub fn utc() -> Zone {
        Zone(TimeZone::UTC)
    }

    /// The offset in ms to add to UTC to get this local time. A time that
    /// a clock change skips or repeats takes the offset from before the
    /// change, as the runtime does.
    fn offset_of_local_ms(&self, local_ms: i64) -> i64 {
        // The zone database covers years -9999..9999; outside them the rules
        // repeat (or never change), and the calendar repeats every 400 years.
        const CYCLE_MS: i64 = 146_097 * MS_PER_DAY;
        const EDGE_MS: i64 = 8_000 * 365 * MS_PER_DAY;
        let mut t = local_ms;
        if t.abs() > EDGE_MS {
            let cycles = (t.abs() - EDGE_MS) / CYCLE_MS + 1;
            t -= t.signum() * cycles * CYCLE_MS;
        }
        let days = t.div_euclid(MS_PER_DAY);
        let rem = t.rem_euclid(MS_PER_DAY);
        let (y, m, d) = civil_from_days(days);
        let civil = jiff::civil::DateTime::new(
            y as i16,
            m as i8,
            d as i8,
            (rem / 3_600_000) as i8,
            (rem / 60_000 % 60) as i8,
            (rem / 1000 % 60) as i8,
            (rem % 1000 * 1_000_000) as i32,
        );
        let Ok(civil) = civil else { return 0 };
        let offset = match self.0.to_ambiguous_timestamp(civil).offset() {
            AmbiguousOffset::Unambiguous { offset } => offset,
            AmbiguousOffset::Gap { before, .. } | AmbiguousOffset::Fold { before, .. } => before,
        };
        i64::from(offset.seconds()) * 1000
    }
}

/// `Date.parse(text)` in the process's time zone; `None` is `NaN`. The zone
/// is looked up only when a local time needs it (finding it lists the zone
/// database, which costs more than reading a large session's dates).
pub fn parse_ms(text: &str) -> Option<i64> {
    parse_ms_with(text, Zone::system)
}

/// `Date.parse(text)` with local times read in `zone`.
pub fn parse_ms_in(text: &str, zone: &Zone) -> Option<i64> {
    parse_ms_with(text, || zone)
}

fn parse_ms_with<'z>(text: &str, zone: impl FnOnce() -> &'z Zone) -> Option<i64> {
    if let Some(ms) = parse_iso_utc(text.as_bytes()) {
        return Some(ms);
    }
    let fields = Fields::parse(text)?;
    let day = days_from_civil(fields.year, fields.month, fields.day);
    let ms_of_day =
        ((fields.hour * 60 + fields.minute) * 60 + fields.second) * 1000 + fields.millis;
    let local = i128::from(day) * i128::from(MS_PER_DAY) + i128::from(ms_of_day);
    let utc = match fields.offset_s {
        Some(off) => {
            let t = local - i128::from(off) * 1000;
            (t.abs() <= i128::from(MAX_TIME_MS)).then_some(t as i64)?
        }
        None => {
            // Local times get ten days of slack before their offset applies.
            if local.abs() > i128::from(MAX_TIME_MS + 10 * MS_PER_DAY) {
                return None;
            }
            let local = local as i64;
            local - zone().offset_of_local_ms(local)
        }
    };
    (utc.abs() <= MAX_TIME_MS).then_some(utc)
}

/// The form every timestamp pi writes has (`toISOString`:
/// `2024-12-03T14:00:01.000Z`), read directly; `None` for anything else,
/// and for the values whose reading needs the general parser's rules (days
/// past the 28th, hour 24), which reads them as it reads every form.
fn parse_iso_utc(b: &[u8]) -> Option<i64> {
    if b.len() != 24 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' {
        return None;
    }
    if b[16] != b':' || b[19] != b'.' || b[23] != b'Z' {
        return None;
    }
    let num = |from: usize, to: usize| -> Option<i64> {
        b[from..to].iter().try_fold(0i64, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
        })
    };
    let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (hour, minute, second, millis) = (num(11, 13)?, num(14, 16)?, num(17, 19)?, num(20, 23)?);
    if !(1..=12).contains(&month) || !(1..=28).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    if second > 59 {
        return None;
    }
    let ms_of_day = ((hour * 60 + minute) * 60 + second) * 1000 + millis;
    Some(days_from_civil(year, month, day) * MS_PER_DAY + ms_of_day)
}

/// `new Date(value).getTime()` for a JSON value: strings are parsed, numbers
/// taken as milliseconds, `null` and `false` are 0, `true` is 1.
pub fn value_ms(value: &serde_json::Value) -> Option<i64> {
    use serde_json::Value;
    match value {
        Value::String(s) => parse_ms(s),
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
    let mut out = Vec::with_capacity(27);
    push_iso(&mut out, ms);
    // Only ASCII digits and separators were written.
    String::from_utf8(out).unwrap_or_default()
}

/// [`format_iso`], appended to `out` (lists write thousands of dates).
pub fn push_iso(out: &mut Vec<u8>, ms: i64) {
    let days = ms.div_euclid(MS_PER_DAY);
    let rem = ms.rem_euclid(MS_PER_DAY).unsigned_abs();
    let (y, m, d) = civil_from_days(days);
    // Digit by digit, not through `format!`.
    if (0..=9999).contains(&y) {
        push_digits(out, y.unsigned_abs(), 4);
    } else {
        out.push(if y < 0 { b'-' } else { b'+' });
        push_digits(out, y.unsigned_abs(), 6);
    }
    // The rest is as wide whatever the year: each digit put in its place.
    let mut b = *b"-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut v: u64| {
        for i in (at..at + width).rev() {
            b[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(1, 2, m.unsigned_abs());
    put(4, 2, d.unsigned_abs());
    put(7, 2, rem / 3_600_000);
    put(10, 2, rem / 60_000 % 60);
    put(13, 2, rem / 1000 % 60);
    put(16, 3, rem % 1000);
    out.extend_from_slice(&b);
}

/// `v` in decimal, zero-padded to at least `width` digits (at most 20).
fn push_digits(out: &mut Vec<u8>, v: u64, width: usize) {
    let (digits, from) = decimal(v, width);
    out.extend_from_slice(&digits[from..]);
}

/// `v`'s decimal digits, zero-padded to at least `width` (at most 20): the
/// buffer and where they start in it.
pub(crate) fn decimal(mut v: u64, width: usize) -> ([u8; 20], usize) {
    let mut digits = [b'0'; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    (digits, i.min(digits.len() - width.min(digits.len())))
}

/// The current time in ms since the epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// What a date string says, before time zones.
struct Fields {
    year: i64,
    /// 1-based; `day` may pass the month's end and roll over.
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    millis: i64,
    /// Seconds east of UTC; `None` is local time.
    offset_s: Option<i64>,
}

/// Numbers keep their first nine significant digits, as the runtime's do.
const SIGNIFICANT_DIGITS: usize = 9;
/// "Not given", for the composers' slots.
const NONE: i64 = i64::MIN;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    Month(i64),
    /// `am` (0) or `pm` (12).
    Meridiem(i64),
    /// A zone name and its offset in hours.
    ZoneName(i64),
    /// `T`.
    TimeSeparator,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// A run of ASCII digits: its value and how many digits it had.
    Number {
        value: i64,
        digits: usize,
    },
    /// One of `: - + . )`.
    Symbol(char),
    /// A run of characters from `A` up, not white space. `len` is in chars;
    /// only "one, two, three or more" matters, where units and chars agree.
    Word {
        word: Word,
        len: usize,
    },
    Space,
    /// A parenthesised comment or any other character.
    Unknown,
    End,
}

impl Token {
    fn is_number_of(self, n: usize) -> bool {
        matches!(self, Token::Number { digits, .. } if digits == n)
    }
    fn number(self) -> i64 {
        match self {
            Token::Number { value, .. } => value,
            _ => NONE,
        }
    }
    fn sign(self) -> Option<i64> {
        match self {
            Token::Symbol('+') => Some(1),
            Token::Symbol('-') => Some(-1),
            _ => None,
        }
    }
    fn is_z(self) -> bool {
        matches!(
            self,
            Token::Word {
                word: Word::ZoneName(0),
                len: 1
            }
        )
    }
}

struct Tokens<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    next: Token,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Tokens<'a> {
        let mut t = Tokens {
            chars: text.chars().peekable(),
            next: Token::End,
        };
        t.next = t.scan();
        t
    }

    fn peek(&self) -> Token {
        self.next
    }

    fn next(&mut self) -> Token {
        let after = self.scan();
        std::mem::replace(&mut self.next, after)
    }

    fn skip(&mut self, symbol: char) -> bool {
        let hit = self.next == Token::Symbol(symbol);
        if hit {
            self.next = self.scan();
        }
        hit
    }

    /// The runtime reads a NUL as the end of the text.
    fn peek_char(&mut self) -> Option<char> {
        self.chars.peek().copied().filter(|&c| c != '\0')
    }

    fn scan(&mut self) -> Token {
        let Some(c) = self.peek_char() else {
            return Token::End;
        };
        if c.is_ascii_digit() {
            let (mut value, mut digits, mut significant) = (0i64, 0, 0);
            while let Some(d) = self.peek_char().filter(char::is_ascii_digit) {
                self.chars.next();
                digits += 1;
                if significant > 0 || d != '0' {
                    if significant < SIGNIFICANT_DIGITS {
                        value = value * 10 + i64::from(d as u8 - b'0');
                    }
                    significant += 1;
                }
            }
            return Token::Number { value, digits };
        }
        if matches!(c, ':' | '-' | '+' | '.' | ')') {
            self.chars.next();
            return Token::Symbol(c);
        }
        if c >= 'A' && !super::is_space(c) {
            let mut prefix = [0u8; 3];
            let mut len = 0;
            while let Some(c) = self
                .peek_char()
                .filter(|&c| c >= 'A' && !super::is_space(c))
            {
                self.chars.next();
                if len < 3 {
                    // Only ASCII letters can match a keyword.
                    prefix[len] = if c.is_ascii() {
                        c.to_ascii_lowercase() as u8
                    } else {
                        0xff
                    };
                }
                len += 1;
            }
            return Token::Word {
                word: keyword(prefix, len),
                len,
            };
        }
        self.chars.next();
        if super::is_space(c) {
            return Token::Space;
        }
        if c == '(' {
            let mut depth = 1;
            while depth > 0 {
                match self.peek_char() {
                    None => break,
                    Some(c) => {
                        self.chars.next();
                        depth += match c {
                            '(' => 1,
                            ')' => -1,
                            _ => 0,
                        };
                    }
                }
            }
        }
        Token::Unknown
    }
}

fn keyword(prefix: [u8; 3], len: usize) -> Word {
    const MONTHS: [&[u8; 3]; 12] = [
        b"jan", b"feb", b"mar", b"apr", b"may", b"jun", b"jul", b"aug", b"sep", b"oct", b"nov",
        b"dec",
    ];
    if let Some(m) = MONTHS.iter().position(|m| **m == prefix) {
        // Month names may be spelled out: `January`, `Sept`.
        return Word::Month(m as i64 + 1);
    }
    if len > 3 {
        return Word::Other;
    }
    match &prefix {
        b"am\0" => Word::Meridiem(0),
        b"pm\0" => Word::Meridiem(12),
        b"ut\0" | b"utc" | b"z\0\0" | b"gmt" => Word::ZoneName(0),
        b"cdt" => Word::ZoneName(-5),
        b"cst" => Word::ZoneName(-6),
        b"edt" => Word::ZoneName(-4),
        b"est" => Word::ZoneName(-5),
        b"mdt" => Word::ZoneName(-6),
        b"mst" => Word::ZoneName(-7),
        b"pdt" => Word::ZoneName(-7),
        b"pst" => Word::ZoneName(-8),
        b"t\0\0" => Word::TimeSeparator,
        _ => Word::Other,
    }
}

/// Up to three date numbers and a month name, ordered when written out.
#[derive(Default)]
struct DayParts {
    parts: Vec<i64>,
    named_month: Option<i64>,
    iso: bool,
}

impl DayParts {
    fn add(&mut self, n: i64) -> bool {
        let room = self.parts.len() < 3;
        if room {
            self.parts.push(n);
        }
        room
    }

    /// Year, month, day; `None` when they make no date.
    fn resolve(mut self) -> Option<(i64, i64, i64)> {
        if self.parts.is_empty() {
            return None;
        }
        self.parts.resize(3, 1);
        let is_day = |n: i64| (1..=31).contains(&n);
        let [a, b, c] = [self.parts[0], self.parts[1], self.parts[2]];
        let (mut year, month, day) = match self.named_month {
            None if self.iso || !is_day(a) => (a, b, c),
            None => (c, a, b),
            // Month names free the order: a first number that cannot be a
            // day is the year, else the day comes first.
            Some(m) if !is_day(a) => (a, m, b),
            Some(m) => (b, m, a),
        };
        if !self.iso {
            // Two-digit years.
            year += match year {
                0..=49 => 2000,
                50..=99 => 1900,
                _ => 0,
            };
        }
        ((1..=12).contains(&month) && is_day(day)).then_some((year, month, day))
    }
}

/// Hours, minutes, seconds, milliseconds as they are given.
struct TimeParts {
    parts: [i64; 4],
    len: usize,
    meridiem: Option<i64>,
}

impl TimeParts {
    fn is_empty(&self) -> bool {
        self.len == 0
    }
    fn add(&mut self, n: i64) -> bool {
        let room = self.len < 4;
        if room {
            self.parts[self.len] = n;
            self.len += 1;
        }
        room
    }
    /// The last part given: the rest are zero.
    fn add_final(&mut self, n: i64) -> bool {
        let ok = self.add(n);
        self.len = 4;
        ok
    }
    /// Whether `n` could be the part that comes next.
    fn expects(&self, n: i64) -> bool {
        match self.len {
            1 | 2 => (0..=59).contains(&n),
            3 => (0..=999).contains(&n),
            _ => false,
        }
    }

    fn resolve(self) -> Option<[i64; 4]> {
        let mut p = self.parts;
        for slot in &mut p[self.len..] {
            *slot = 0;
        }
        if let Some(offset) = self.meridiem {
            if !(0..=12).contains(&p[0]) {
                return None;
            }
            p[0] = p[0] % 12 + offset;
        }
        let [h, m, s, ms] = p;
        let in_range = (0..24).contains(&h)
            && (0..60).contains(&m)
            && (0..60).contains(&s)
            && (0..1000).contains(&ms);
        (in_range || (h == 24 && m == 0 && s == 0 && ms == 0)).then_some(p)
    }
}

/// A zone given in the text.
#[derive(Default)]
struct ZoneParts {
    sign: Option<i64>,
    hour: Option<i64>,
    minute: Option<i64>,
}

impl ZoneParts {
    fn set_hours(&mut self, hours: i64) {
        self.sign = Some(if hours < 0 { -1 } else { 1 });
        self.hour = Some(hours.abs());
        self.minute = Some(0);
    }
    fn expects_minute(&self, n: i64) -> bool {
        self.hour.is_some() && self.minute.is_none() && (0..=59).contains(&n)
    }
    fn is_utc(&self) -> bool {
        self.hour == Some(0) && self.minute == Some(0)
    }

    /// Seconds east of UTC; `Some(None)` for local time.
    fn resolve(self) -> Option<Option<i64>> {
        let Some(sign) = self.sign else {
            return Some(None);
        };
        // The runtime sums these in 32-bit unsigned arithmetic and refuses
        // totals past its small-integer range.
        let hour = self.hour.unwrap_or(0) as u32;
        let minute = self.minute.unwrap_or(0) as u32;
        let total = hour
            .wrapping_mul(3600)
            .wrapping_add(minute.wrapping_mul(60));
        (total <= i32::MAX as u32).then_some(Some(sign * i64::from(total)))
    }
}

/// A fraction's first three digits, from a number token that kept only its
/// first nine significant digits (so far-out digits count as near ones, as
/// in the runtime).
fn millis_of(token: Token) -> i64 {
    let Token::Number { value, digits } = token else {
        return 0;
    };
    match digits {
        1 => value * 100,
        2 => value * 10,
        3 => value,
        n => value / 10i64.pow(n.min(SIGNIFICANT_DIGITS) as u32 - 3),
    }
}

impl Fields {
    fn parse(text: &str) -> Option<Fields> {
        let mut tokens = Tokens::new(text);
        let mut day = DayParts::default();
        let mut time = TimeParts {
            parts: [0; 4],
            len: 0,
            meridiem: None,
        };
        let mut zone = ZoneParts::default();
        let rest = iso(&mut tokens, &mut day, &mut time, &mut zone)?;
        legacy(rest, &mut tokens, &mut day, &mut time, &mut zone)?;
        let (year, month, d) = day.resolve()?;
        let [hour, minute, second, millis] = time.resolve()?;
        let offset_s = zone.resolve()?;
        Some(Fields {
            year,
            month,
            day: d,
            hour,
            minute,
            second,
            millis,
            offset_s,
        })
    }
}

/// The ISO grammar, as far as it goes. `None`: the text cannot be a date
/// (it broke off after `T`); else the first token it did not take, `End`
/// when it took everything.
fn iso(
    t: &mut Tokens<'_>,
    day: &mut DayParts,
    time: &mut TimeParts,
    zone: &mut ZoneParts,
) -> Option<Token> {
    if let Some(sign) = t.peek().sign() {
        let sign_token = t.next();
        if !t.peek().is_number_of(6) {
            return Some(sign_token);
        }
        let year = t.next().number();
        if sign < 0 && year == 0 {
            // `-000000` is no year; the number is gone with it.
            return Some(sign_token);
        }
        day.add(sign * year);
    } else if t.peek().is_number_of(4) {
        day.add(t.next().number());
    } else {
        return Some(t.next());
    }
    if t.skip('-') {
        let p = t.peek();
        if !p.is_number_of(2) || !(1..=12).contains(&p.number()) {
            return Some(t.next());
        }
        day.add(t.next().number());
        if t.skip('-') {
            let p = t.peek();
            if !p.is_number_of(2) || !(1..=31).contains(&p.number()) {
                return Some(t.next());
            }
            day.add(t.next().number());
        }
    }
    if !matches!(
        t.peek(),
        Token::Word {
            word: Word::TimeSeparator,
            ..
        }
    ) {
        if t.peek() != Token::End {
            return Some(t.next());
        }
    } else {
        t.next();
        let two = |t: &Tokens<'_>, range: std::ops::RangeInclusive<i64>| {
            let p = t.peek();
            p.is_number_of(2) && range.contains(&p.number())
        };
        if !two(t, 0..=24) {
            return None;
        }
        let hour = t.next().number();
        let max = if hour == 24 { 0 } else { 59 };
        time.add(hour);
        if !t.skip(':') || !two(t, 0..=max) {
            return None;
        }
        time.add(t.next().number());
        if t.skip(':') {
            if !two(t, 0..=max) {
                return None;
            }
            time.add(t.next().number());
            if t.skip('.') {
                let p = t.peek();
                if !matches!(p, Token::Number { .. }) || (hour == 24 && p.number() > 0) {
                    return None;
                }
                time.add(millis_of(t.next()));
            }
        }
        if t.peek().is_z() {
            t.next();
            zone.set_hours(0);
        } else if let Some(sign) = t.peek().sign() {
            t.next();
            zone.sign = Some(sign);
            if t.peek().is_number_of(4) {
                let hhmm = t.next().number();
                let (h, m) = (hhmm / 100, hhmm % 100);
                if h > 23 || m > 59 {
                    return None;
                }
                zone.hour = Some(h);
                zone.minute = Some(m);
            } else {
                if !two(t, 0..=23) {
                    return None;
                }
                zone.hour = Some(t.next().number());
                if !t.skip(':') || !two(t, 0..=59) {
                    return None;
                }
                zone.minute = Some(t.next().number());
            }
        }
        if t.peek() != Token::End {
            return None;
        }
    }
    // A date alone is UTC; a date and time without a zone is local.
    if zone.sign.is_none() && time.is_empty() {
        zone.set_hours(0);
    }
    day.iso = true;
    Some(Token::End)
}

/// The lenient grammar over the tokens the ISO grammar left, starting with
/// `first`. `None`: not a date.
fn legacy(
    first: Token,
    t: &mut Tokens<'_>,
    day: &mut DayParts,
    time: &mut TimeParts,
    zone: &mut ZoneParts,
) -> Option<()> {
    let mut seen_number = !day.parts.is_empty();
    let mut token = first;
    while token != Token::End {
        match token {
            Token::Number { value: n, .. } => {
                seen_number = true;
                if t.skip(':') {
                    if t.skip(':') {
                        // `10::` is `10:00`.
                        if !time.is_empty() {
                            return None;
                        }
                        time.add(n);
                        time.add(0);
                    } else {
                        if !time.add(n) {
                            return None;
                        }
                        t.skip('.');
                    }
                } else if t.skip('.') && time.expects(n) {
                    time.add(n);
                    if !matches!(t.peek(), Token::Number { .. }) {
                        return None;
                    }
                    time.add_final(millis_of(t.next()));
                } else if zone.expects_minute(n) {
                    zone.minute = Some(n);
                } else if time.expects(n) {
                    time.add_final(n);
                    // Something must set a finished time apart.
                    let p = t.peek();
                    if !matches!(p, Token::End | Token::Space) && !p.is_z() && p.sign().is_none() {
                        return None;
                    }
                } else {
                    if !day.add(n) {
                        return None;
                    }
                    t.skip('-');
                }
            }
            Token::Word { word, .. } => match word {
                Word::Meridiem(offset) if !time.is_empty() => time.meridiem = Some(offset),
                Word::Month(m) => {
                    day.named_month = Some(m);
                    t.skip('-');
                }
                Word::ZoneName(hours) if seen_number => zone.set_hours(hours),
                _ => {
                    // Words may only come before the first number, and not
                    // right against it.
                    if seen_number || matches!(t.peek(), Token::Number { .. }) {
                        return None;
                    }
                }
            },
            Token::Symbol('+' | '-') if zone.is_utc() || !time.is_empty() => {
                // An offset after a zone name or a time: `GMT+0200`, `+5`.
                zone.sign = token.sign();
                let (mut n, mut digits) = (0, 0);
                if let Token::Number { .. } = t.peek() {
                    if let Token::Number { value, digits: d } = t.next() {
                        n = value;
                        digits = d;
                    }
                }
                seen_number = true;
                if t.peek() == Token::Symbol(':') {
                    zone.hour = Some(n);
                    zone.minute = None;
                } else if (1..=2).contains(&digits) {
                    zone.hour = Some(n);
                    zone.minute = Some(0);
                } else if (3..=4).contains(&digits) {
                    zone.hour = Some(n / 100);
                    zone.minute = Some(n % 100);
                } else {
                    return None;
                }
            }
            Token::Symbol('+' | '-' | ')') if seen_number => return None,
            _ => {}
        }
        token = t.next();
    }
    Some(())
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

    /// The direct reading of pi's own form agrees with the general parser
    /// wherever it answers, and declines what it does not know.
    #[test]
    fn iso_form_reads_as_the_general_parser_reads_it() {
        let mut x: u64 = 0x1234;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut answered = 0;
        for _ in 0..20_000 {
            let text = format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                next(10_000),
                next(14),
                next(33),
                next(26),
                next(61),
                next(61),
                next(1000)
            );
            let general = Fields::parse(&text).and_then(|_| {
                // The general path alone.
                let f = Fields::parse(&text)?;
                let day = days_from_civil(f.year, f.month, f.day);
                let local = i128::from(day) * i128::from(MS_PER_DAY)
                    + i128::from(((f.hour * 60 + f.minute) * 60 + f.second) * 1000 + f.millis);
                let t = local - i128::from(f.offset_s?) * 1000;
                (t.abs() <= i128::from(MAX_TIME_MS)).then_some(t as i64)
            });
            if let Some(fast) = parse_iso_utc(text.as_bytes()) {
                answered += 1;
                assert_eq!(Some(fast), general, "{text}");
            }
        }
        assert!(answered > 5_000, "{answered}");
        for odd in [
            "2024-02-29T00:00:00.000Z",
            "2024-01-01T24:00:00.000Z",
            "2024-01-01T00:00:00.000+",
            " 2024-01-01T00:00:00.000Z",
        ] {
            assert_eq!(parse_iso_utc(odd.as_bytes()), None, "{odd}");
        }
    }

    fn utc(text: &str) -> Option<i64> {
        parse_ms_in(text, &Zone::utc())
    }

    fn new_york(text: &str) -> Option<i64> {
        parse_ms_in(text, &Zone::named("America/New_York").expect("zone data"))
    }

    #[test]
    fn parses_the_forms_pi_writes() {
        assert_eq!(utc("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(utc("2024-12-03T14:00:00.000Z"), Some(1_733_234_400_000));
        assert_eq!(utc("2024-12-03T15:00:00+01:00"), Some(1_733_234_400_000));
        assert_eq!(utc("2024-12-03"), Some(1_733_184_000_000));
        assert_eq!(utc("2024"), Some(1_704_067_200_000));
        assert_eq!(utc("+002024-12-03T14:00:00Z"), Some(1_733_234_400_000));
    }

    #[test]
    fn rejects_what_javascript_rejects() {
        for bad in [
            "",
            "yesterday",
            "2024-13-01",
            "2024-12-03T25:00Z",
            "2024-12-03T14:00:00.Z",
            "2024-12-03T14",
            "10:00:00,5Z",
            "2026-01-05T10:00:00,5Z",
            "2024-12-03T14:00 UTC",
            "x2026-01-01",
            "2026-01-01\u{180e}",
            "12 pm Jan 5 2026",
            "Jan 5 2026 GMT+1193046:",
        ] {
            assert_eq!(utc(bad), None, "{bad:?}");
        }
    }

    /// The examples and their values from the runtime.
    #[test]
    fn reads_the_lenient_forms() {
        for (text, ms) in [
            ("Tue, 05 Jan 2026 10:00:00 GMT", 1_767_607_200_000),
            ("Tue, 05 Jan 2026 10:00:00 +0200", 1_767_600_000_000),
            (
                "Mon Jan 05 2026 10:00:00 GMT+0000 (Coordinated Universal Time)",
                1_767_607_200_000,
            ),
            ("2026/01/05", 1_767_571_200_000),
            ("2026/01/05 10:00", 1_767_607_200_000),
            ("Jan 5 2026", 1_767_571_200_000),
            ("Jan 5", 978_652_800_000),
            ("-000000-01-01", 978_307_200_000),
            ("Jan 5 2026 GMT+596523:", -379_911_600_000),
            ("2024-12-03T14:00:00.0001234567891Z", 1_733_234_400_123),
            ("Jan 5 2026 \u{0} xx", 1_767_571_200_000),
            ("Jan 5 2026 10:20:30:40", 1_767_608_430_040),
            ("5.1.2026", 1_777_593_600_000),
        ] {
            assert_eq!(utc(text), Some(ms), "{text:?}");
        }
    }

    #[test]
    fn local_times_follow_the_zone() {
        // A date alone is UTC; with a time and no zone it is local.
        assert_eq!(new_york("2024-12-03"), Some(1_733_184_000_000));
        assert_eq!(new_york("2024-12-03T14:00:00"), Some(1_733_252_400_000));
        assert_eq!(new_york("2026/01/05"), Some(1_767_589_200_000));
        // A skipped hour and a repeated one take the offset from before.
        assert_eq!(new_york("2026-03-08T02:30:00"), Some(1_772_955_000_000));
        assert_eq!(new_york("2026-11-01T01:30:00"), Some(1_793_511_000_000));
        // Local mean time, to the second; the far future keeps the rules.
        assert_eq!(new_york("1800-01-01T00:00:00"), Some(-5_364_644_638_000));
        assert_eq!(
            new_york("+100000-07-01T00:00:00"),
            Some(3_093_543_720_000_000)
        );
        assert_eq!(new_york("275760-09-13"), None);
    }

    #[test]
    fn day_overflow_rolls_like_v8() {
        assert_eq!(utc("2019-02-31"), utc("2019-03-03"));
    }

    #[test]
    fn formats_round_trip() {
        for ms in [0, 1_733_234_400_123, -1, 253_402_300_800_000] {
            assert_eq!(utc(&format_iso(ms)), Some(ms), "{ms}");
        }
        assert_eq!(format_iso(1_733_234_400_123), "2024-12-03T14:00:00.123Z");
        // The digit-by-digit path, at its edges and between them.
        assert_eq!(format_iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_iso(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(format_iso(-62_167_219_200_000), "0000-01-01T00:00:00.000Z");
        assert_eq!(format_iso(253_402_300_799_999), "9999-12-31T23:59:59.999Z");
        assert_eq!(
            format_iso(253_402_300_800_000),
            "+010000-01-01T00:00:00.000Z"
        );
        assert_eq!(
            format_iso(-62_167_219_200_001),
            "-000001-12-31T23:59:59.999Z"
        );
        let mut ms = -62_167_219_200_000i64;
        while ms < 253_402_300_800_000 {
            assert_eq!(utc(&format_iso(ms)), Some(ms), "{ms}");
            ms += 7_777_777_777_777;
        }
    }
}
