//! Clean-up by rule: which sessions a set of rules picks (all given rules
//! must hold), and why, from the catalog's summaries. A session whose file
//! is not quiet ([`in_use::is_quiet`]) is never picked: pi may be writing it.

use crate::catalog::{SessionSummary, in_use};
use crate::safe_text::human_size;
use std::path::Path;
use std::time::Duration;

/// The rules; each one given must hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rules {
    /// No user message.
    pub empty: bool,
    /// No answer from the assistant.
    pub no_reply: bool,
    /// The header's `cwd` no longer exists.
    pub folder_gone: bool,
    /// Last active longer ago than this.
    pub older_than: Option<Duration>,
    /// Larger than this many bytes.
    pub larger_than: Option<u64>,
}

/// One session the rules pick, and why (one reason per rule).
#[derive(Debug, Clone)]
pub struct Picked<'a> {
    pub summary: &'a SessionSummary,
    pub why: Vec<String>,
}

impl Rules {
    /// No rule given (which would pick everything: refused by the callers).
    pub fn is_empty(&self) -> bool {
        *self == Rules::default()
    }

    /// Why the rules pick `s` at `now_ms`; `None` when one does not hold.
    pub fn why(&self, s: &SessionSummary, now_ms: i64) -> Option<Vec<String>> {
        if self.is_empty() {
            return None;
        }
        let mut why = Vec::new();
        if self.empty {
            if s.user_messages > 0 {
                return None;
            }
            why.push("no user message".to_string());
        }
        if self.no_reply {
            if s.assistant_messages > 0 {
                return None;
            }
            why.push("no reply".to_string());
        }
        if self.folder_gone {
            if s.cwd.is_empty() || Path::new(&s.cwd).exists() {
                return None;
            }
            why.push("folder gone".to_string());
        }
        if let Some(limit) = self.older_than {
            let age = now_ms - s.modified_ms?;
            if age < limit.as_millis() as i64 {
                return None;
            }
            why.push(format!(
                "last active {} ago",
                crate::catalog::summary::age(age)
            ));
        }
        if let Some(limit) = self.larger_than {
            if s.size <= limit {
                return None;
            }
            why.push(format!(
                "{} (over {})",
                human_size(s.size),
                human_size(limit)
            ));
        }
        Some(why)
    }

    /// The sessions the rules pick, in the order given, leaving out any
    /// whose file is not quiet ([`in_use::is_quiet`]). What
    /// `piscope clean` and the browser's clean-up dialog both list.
    pub fn pick<'a>(&self, sessions: &'a [SessionSummary], now_ms: i64) -> Vec<Picked<'a>> {
        sessions
            .iter()
            .filter_map(|s| self.why(s, now_ms).map(|why| Picked { summary: s, why }))
            // Looked at only once the rules hold: a stat per match, not per
            // session, as the dialog lists again at every key.
            .filter(|p| in_use::is_quiet(&p.summary.path))
            .collect()
    }
}

/// Rules written as on the command line: `--empty --older-than 30d` (or
/// `--older-than=30d`; the leading dashes may be left out).
pub fn parse_rules(text: &str) -> Result<Rules, String> {
    let mut rules = Rules::default();
    let mut words = text.split_whitespace();
    while let Some(w) = words.next() {
        let (w, mut inline) = match w.split_once('=') {
            Some((name, v)) => (name.trim_start_matches('-'), Some(v)),
            None => (w.trim_start_matches('-'), None),
        };
        let mut value = |name: &str| {
            inline
                .take()
                .or_else(|| words.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match w {
            "empty" => rules.empty = true,
            "no-reply" => rules.no_reply = true,
            "folder-gone" => rules.folder_gone = true,
            "older-than" => rules.older_than = Some(parse_age(value("--older-than")?)?),
            "larger-than" => rules.larger_than = Some(parse_size(value("--larger-than")?)?),
            other => {
                return Err(format!(
                    "{other:?}: not a rule (--empty, --no-reply, --folder-gone, --older-than DUR, \
                     --larger-than SIZE)"
                ));
            }
        }
        if let Some(v) = inline {
            return Err(format!("--{w} takes no value ({v:?})"));
        }
    }
    if rules.is_empty() {
        return Err("give at least one rule".to_string());
    }
    Ok(rules)
}

/// `30d`, `2w`, `12h`, `90m`, `45s`, `6mo`, `1y` (a year is 365 days, a
/// month 30).
pub fn parse_age(text: &str) -> Result<Duration, String> {
    let t = text.trim().to_ascii_lowercase();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, unit) = t.split_at(split);
    let n: u64 = n
        .parse()
        .map_err(|_| format!("{text:?}: a number and a unit, as 30d, 2w, 12h, 6mo, 1y"))?;
    let secs = match unit.trim() {
        "s" | "sec" | "secs" => 1,
        "m" | "min" | "mins" => 60,
        "h" | "hour" | "hours" => 3600,
        "d" | "day" | "days" => 86_400,
        "w" | "week" | "weeks" => 7 * 86_400,
        "mo" | "month" | "months" => 30 * 86_400,
        "y" | "year" | "years" => 365 * 86_400,
        _ => {
            return Err(format!(
                "{text:?}: unknown unit (s, m, h, d, w, mo, y; as 30d, 2w, 12h)"
            ));
        }
    };
    Ok(Duration::from_secs(n.saturating_mul(secs)))
}

/// `500`, `500K`, `10M`, `1G` (also `10MB`, `10MiB`): powers of 1024.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim().to_ascii_lowercase();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, unit) = t.split_at(split);
    let n: u64 = n
        .parse()
        .map_err(|_| format!("{text:?}: a number of bytes, as 500K, 10M, 1G"))?;
    let unit = unit.trim();
    let unit = unit
        .strip_suffix("ib")
        .or_else(|| unit.strip_suffix('b'))
        .unwrap_or(unit);
    let shift = match unit {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(format!("{text:?}: unknown unit (K, M, G, T)")),
    };
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("{text:?}: too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(user: u64, assistant: u64, age_days: i64, size: u64, cwd: &str) -> SessionSummary {
        SessionSummary {
            user_messages: user,
            assistant_messages: assistant,
            modified_ms: Some(1_000 * 86_400 * 1000 - age_days * 86_400 * 1000),
            size,
            cwd: cwd.to_string(),
            ..SessionSummary::default()
        }
    }

    const NOW: i64 = 1_000 * 86_400 * 1000;

    #[test]
    fn every_given_rule_must_hold() {
        let rules = Rules {
            empty: true,
            older_than: Some(Duration::from_secs(30 * 86_400)),
            ..Rules::default()
        };
        assert_eq!(
            rules.why(&session(0, 0, 40, 10, "/"), NOW),
            Some(vec!["no user message".into(), "last active 1mo ago".into()])
        );
        assert_eq!(
            rules.why(&session(0, 0, 10, 10, "/"), NOW),
            None,
            "too recent"
        );
        assert_eq!(
            rules.why(&session(1, 0, 40, 10, "/"), NOW),
            None,
            "not empty"
        );
        let reply = Rules {
            no_reply: true,
            larger_than: Some(100),
            ..Rules::default()
        };
        assert!(reply.why(&session(3, 0, 0, 101, "/"), NOW).is_some());
        assert!(reply.why(&session(3, 1, 0, 101, "/"), NOW).is_none());
        assert!(reply.why(&session(3, 0, 0, 100, "/"), NOW).is_none());
        let gone = Rules {
            folder_gone: true,
            ..Rules::default()
        };
        assert!(
            gone.why(&session(1, 1, 0, 1, "/no/such/folder/here"), NOW)
                .is_some()
        );
        assert!(gone.why(&session(1, 1, 0, 1, "/"), NOW).is_none());
        assert!(gone.why(&session(1, 1, 0, 1, ""), NOW).is_none());
        assert!(
            Rules::default()
                .why(&session(0, 0, 99, 1, "/x"), NOW)
                .is_none()
        );
    }

    #[test]
    fn rules_parse_as_written_on_the_command_line() {
        let r = parse_rules("--empty older-than 30d --larger-than 1M").expect("rules");
        assert!(r.empty && !r.no_reply);
        assert_eq!(r.older_than, Some(Duration::from_secs(30 * 86_400)));
        assert_eq!(r.larger_than, Some(1 << 20));
        assert!(parse_rules("").is_err() && parse_rules("--older-than").is_err());
        assert!(parse_rules("--everything").is_err());
        let r = parse_rules("--older-than=2w --larger-than=10M").expect("rules");
        assert_eq!(r.older_than, Some(Duration::from_secs(14 * 86_400)));
        assert_eq!(r.larger_than, Some(10 << 20));
        assert!(parse_rules("--empty=yes").is_err());
    }

    #[test]
    fn ages_and_sizes_parse() {
        assert_eq!(parse_age("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert_eq!(parse_age("6mo"), Ok(Duration::from_secs(180 * 86_400)));
        assert_eq!(parse_age("90m"), Ok(Duration::from_secs(5400)));
        assert!(parse_age("30").is_err() && parse_age("d").is_err() && parse_age("3x").is_err());
        assert_eq!(parse_size("500"), Ok(500));
        assert_eq!(parse_size("10M"), Ok(10 << 20));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("2kb"), Ok(2048));
        assert!(parse_size("1Q").is_err() && parse_size("").is_err());
        assert_eq!(human_size(812), "812 B");
        assert_eq!(human_size(3 << 20), "3.0 MB");
    }
}
