//! piscope's JavaScript string rules (`src/jstext`) give node's answers:
//! `trim`, `\s+` runs, `toLowerCase`, pi's whitespace normalisation, UTF-16
//! `length`, `slice` and `substring` over random Unicode strings, and
//! `Date.parse` over random date-like strings under several time zones.
//!
//! The seed is fresh each run (`PISCOPE_SEED=N` replays one) and printed on
//! failure. Needs the node pi runs on (22.19 or newer: `target/node`'s when
//! `scripts/test` installed one, else PATH's); with
//! `PISCOPE_ALLOW_MISSING_TOOLS=1` a missing node is reported and the cases
//! skipped instead of failing.

use crate::support as common;
use common::{Rng, seed};

use piscope::jstext::normalize_whitespace_lower;
use piscope::jstext::{self, date};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

const STRING_CASES: usize = 4000;
const DATE_CASES: usize = 3000;
const SORT_CASES: usize = 300;
/// Zones the dates are read in: no offset, US rules, and a half-hour summer
/// shift south of the equator.
const ZONES: [&str; 3] = ["UTC", "America/New_York", "Australia/Lord_Howe"];

/// Characters the rules treat specially, and their near misses.
const SPECIAL: &[u32] = &[
    // Every WhiteSpace and LineTerminator.
    0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
    0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
    0xfeff, // Near misses: once white space, or looking like it.
    0x85, 0x180e, 0x200b, 0x200c, 0x200d, 0x2060, 0xfffe, 0x1c, 0x1f, 0x00,
    // Sigma and what decides its final form: letters, case-ignorables.
    0x3a3, 0x3a3, 0x3a3, 0x391, 0x3b1, 0x27, 0xad, 0xb7, 0x2019, 0x300, 0x345, 0x2e,
    // Lower cases that are longer or special.
    0x130, 0x49, 0xdf, 0x1e9e, 0xfb03, 0x1f88, 0x2126, 0x212a, 0x13a0, 0xab70, 0x10400, 0x1e900,
    // Astral characters, combining marks.
    0x1f600, 0x1d400, 0x20000, 0x301, 0x308, 0x1f3fb,
];

fn random_unit_string(rng: &mut Rng) -> Vec<u16> {
    let len = rng.below(14);
    let mut out = Vec::new();
    let mut buf = [0u16; 2];
    for _ in 0..len {
        let c: u32 = match rng.below(10) {
            0..=3 => rng.pick(SPECIAL),
            4 | 5 => rng.pick(&[0x41, 0x5a, 0x61, 0x7a, 0x30, 0x2d, 0x22, 0x5c, 0x53, 0x73]),
            6 => rng.range(0x20, 0x7e) as u32,
            7 => rng.range(0x80, 0xffff) as u32,
            8 => rng.range(0x10000, 0x10ffff) as u32,
            // A lone surrogate, high or low.
            _ => {
                out.push(rng.range(0xd800, 0xdfff) as u16);
                continue;
            }
        };
        match char::from_u32(c) {
            Some(ch) => out.extend_from_slice(ch.encode_utf16(&mut buf)),
            None => out.push(c as u16),
        }
    }
    out
}

/// A JSON string literal of UTF-16 units, lone surrogates as `\uXXXX`.
fn json_units(units: &[u16]) -> String {
    let mut s = String::from("\"");
    for &u in units {
        match u {
            0x20..=0x7e if u != 0x22 && u != 0x5c => s.push(u as u8 as char),
            _ => s.push_str(&format!("\\u{u:04x}")),
        }
    }
    s.push('"');
    s
}

const MONTHS: &[&str] = &[
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "January",
    "sept", "DECEMBER", "ja", "Ja", "Juni", "mayo",
];
const WEEKDAYS: &[&str] = &[
    "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "Tuesday", "X",
];
const ZONE_WORDS: &[&str] = &[
    "GMT", "UTC", "UT", "Z", "z", "EST", "EDT", "CST", "CDT", "MST", "MDT", "PST", "PDT", "gmt",
    "CET", "BST", "UTCX", "T", "t", "am", "pm", "AM", "PM",
];
const SEPARATORS: &[&str] = &[
    " ", " ", " ", "-", "/", ":", ".", ",", ", ", "+", "T", "t", "\u{a0}", "\u{3000}", "\u{85}",
    "\u{180e}", "  ", "(", ")", "_", "@", "[",
];

fn digits(n: usize, value: i64) -> String {
    format!("{:0n$}", value.rem_euclid(10i64.pow(n as u32)))
}

fn year(rng: &mut Rng) -> String {
    match rng.below(9) {
        0 => digits(2, rng.range(0, 99)),
        1 => format!("{:+07}", rng.range(-300_000, 300_000)),
        2 => rng
            .pick(&["+275760", "-271821", "+000000", "-000000", "275760"])
            .to_string(),
        3 => rng.range(0, 99_999).to_string(),
        4 => digits(4, rng.range(1880, 1890)),
        _ => digits(4, rng.range(1965, 2040)),
    }
}

fn two(rng: &mut Rng, typical: i64) -> String {
    let v = if rng.chance(85) {
        rng.range(if typical > 12 { 0 } else { 1 }, typical)
    } else {
        rng.range(0, 99)
    };
    if rng.chance(85) {
        format!("{v:02}")
    } else {
        v.to_string()
    }
}

fn fraction(rng: &mut Rng) -> String {
    let n = rng.range(1, 13) as usize;
    (0..n)
        .map(|_| char::from(b'0' + rng.below(10) as u8))
        .collect()
}

fn offset(rng: &mut Rng) -> String {
    let sign = if rng.chance(50) { "+" } else { "-" };
    match rng.below(5) {
        0 => format!("{sign}{}:{}", two(rng, 23), two(rng, 59)),
        1 => format!("{sign}{}{}", two(rng, 23), two(rng, 59)),
        2 => format!("{sign}{}", two(rng, 23)),
        3 => format!("{sign}{}", rng.range(0, 99_999)),
        _ => format!("{sign}{}:", rng.range(0, 2_000_000)),
    }
}

fn time(rng: &mut Rng) -> String {
    let mut s = format!("{}:{}", two(rng, 23), two(rng, 59));
    if rng.chance(70) {
        s += &format!(":{}", two(rng, 59));
        if rng.chance(40) {
            s += rng.pick(&[".", ".", ","]);
            s += &fraction(rng);
        }
    }
    if rng.chance(15) {
        s += rng.pick(&[" am", " pm", " PM", "am", "::", ":"]);
    }
    s
}

/// A date in one of the forms the runtime reads, with random fields.
fn date_string(rng: &mut Rng) -> String {
    let mut s = match rng.below(9) {
        // ISO, with and without time and zone.
        0 | 1 => {
            let mut s = year(rng);
            if rng.chance(85) {
                s += &format!("-{}", two(rng, 12));
                if rng.chance(85) {
                    s += &format!("-{}", two(rng, 31));
                }
            }
            if rng.chance(75) {
                s += rng.pick(&["T", "T", "t", " "]);
                s += &time(rng);
                match rng.below(4) {
                    0 => {}
                    1 => s += rng.pick(&["Z", "z"]),
                    _ => s += &offset(rng),
                }
            }
            s
        }
        // RFC 2822.
        2 => {
            format!(
                "{}{} {} {} {} {}",
                rng.pick(WEEKDAYS),
                rng.pick(&[",", "", " ,"]),
                two(rng, 31),
                rng.pick(MONTHS),
                year(rng),
                time(rng)
            ) + &if rng.chance(50) {
                format!(" {}", rng.pick(ZONE_WORDS))
            } else {
                format!(" {}", offset(rng))
            }
        }
        // Date.prototype.toString().
        3 => format!(
            "{} {} {} {} {} GMT{}{}",
            rng.pick(WEEKDAYS),
            rng.pick(MONTHS),
            two(rng, 31),
            year(rng),
            time(rng),
            offset(rng),
            rng.pick(&[
                " (Coordinated Universal Time)",
                " (Eastern Standard Time)",
                " (a (nested) note)",
                " (open",
                ""
            ])
        ),
        // Numbers and slashes.
        4 => {
            let (a, b, c) = (year(rng), two(rng, 12), two(rng, 31));
            let mut s = match rng.below(3) {
                0 => format!("{a}/{b}/{c}"),
                1 => format!("{b}/{c}/{a}"),
                _ => format!("{b}/{c}"),
            };
            if rng.chance(50) {
                s += " ";
                s += &time(rng);
            }
            s
        }
        // Month names in any order.
        5 => {
            let mut parts = vec![rng.pick(MONTHS).to_string(), two(rng, 31), year(rng)];
            if rng.chance(30) {
                parts.pop();
            }
            for i in (1..parts.len()).rev() {
                let j = rng.below(i + 1);
                parts.swap(i, j);
            }
            if rng.chance(40) {
                parts.push(time(rng));
            }
            if rng.chance(30) {
                parts.push(rng.pick(ZONE_WORDS).to_string());
            }
            parts.join(rng.pick(&[" ", " ", "-", ", ", "/"]))
        }
        // The issue's examples.
        6 => rng
            .pick(&[
                "10:00:00,5Z",
                "2026/01/05",
                "2026/01/05 10:00",
                "Jan 5 2026",
                "Tue, 05 Jan 2026 10:00:00 GMT",
                "Tue, 05 Jan 2026 10:00:00 +0200",
                "Mon Jan 05 2026 10:00:00 GMT+0000 (Coordinated Universal Time)",
                "2026-03-08T02:30:00",
                "2026-11-01T01:30:00",
                "2026-04-05T01:45:00",
                "2026-10-04T02:15:00",
                "1883-11-18T12:03:58",
            ])
            .to_string(),
        // Token soup: anything the tokens can be, in any order.
        _ => {
            let n = rng.range(1, 8);
            let mut s = String::new();
            for _ in 0..n {
                match rng.below(7) {
                    0 | 1 => s += &rng.range(0, 3000).to_string(),
                    2 => s += &fraction(rng),
                    3 => s += rng.pick(MONTHS),
                    4 => s += rng.pick(ZONE_WORDS),
                    5 => s += rng.pick(WEEKDAYS),
                    _ => {}
                }
                s += rng.pick(SEPARATORS);
            }
            s
        }
    };
    // Now and then a slip: a character changed, added or lost.
    if rng.chance(15) && !s.is_empty() {
        let mut chars: Vec<char> = s.chars().collect();
        let at = rng.below(chars.len());
        let c = rng.pick(&[' ', '0', '9', '-', ':', '.', '(', ')', 'Z', '\0', 'x', '+']);
        match rng.below(3) {
            0 => chars[at] = c,
            1 => chars.insert(at, c),
            _ => {
                chars.remove(at);
            }
        }
        s = chars.into_iter().collect();
    }
    if rng.chance(5) {
        s = format!("{}{s}{}", rng.pick(SEPARATORS), rng.pick(SEPARATORS));
    }
    s
}

/// Runs the oracle on `requests` (one JSON line each) with `TZ=zone`;
/// `None` when node is missing and that is allowed.
fn oracle(requests: &[String], zone: &str) -> Option<Vec<Value>> {
    let script = common::harness("jstext-oracle.mjs");
    let child = common::tools::node_program().and_then(|node| {
        common::tools::with_local_node(node)
            .arg(script)
            .env("TZ", zone)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())
    });
    let mut child = match child {
        Ok(c) => c,
        Err(e) if std::env::var_os("PISCOPE_ALLOW_MISSING_TOOLS").is_some() => {
            eprintln!(
                "SKIPPED (node missing): js_string_rules_match_node, {} cases ({e})",
                requests.len()
            );
            return None;
        }
        Err(e) => panic!(
            "the JavaScript string rules are checked against node: {e}; \
             set PISCOPE_ALLOW_MISSING_TOOLS=1 to skip"
        ),
    };
    let mut stdin = child.stdin.take().expect("oracle stdin");
    let input = requests.join("\n") + "\n";
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let stdout = child.stdout.take().expect("oracle stdout");
    let answers: Vec<Value> = BufReader::new(stdout)
        .lines()
        .map(|l| serde_json::from_str(&l.expect("oracle output")).expect("oracle JSON"))
        .collect();
    writer.join().expect("writer").expect("write to the oracle");
    assert!(
        child.wait().expect("oracle exit").success(),
        "oracle failed"
    );
    assert_eq!(answers.len(), requests.len(), "one answer per request");
    Some(answers)
}

/// An answer with every invisible character spelled out.
fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{}\"", s.escape_debug()),
        v => v.to_string(),
    }
}

/// Mismatches, kept short: the first few in full, then a count.
#[derive(Default)]
struct Report {
    cases: usize,
    lines: Vec<String>,
    failed: usize,
}

impl Report {
    fn check(&mut self, what: &str, input: &str, ours: &Value, theirs: &Value) {
        self.cases += 1;
        if ours != theirs {
            self.failed += 1;
            if self.lines.len() < 25 {
                self.lines.push(format!(
                    "{what} \"{}\": piscope {}, node {}",
                    input.escape_debug(),
                    show(ours),
                    show(theirs)
                ));
            }
        }
    }
    fn finish(self, seed: u64) {
        assert!(
            self.failed == 0,
            "{} of {} cases differ from node (replay with PISCOPE_SEED={seed}):\n{}",
            self.failed,
            self.cases,
            self.lines.join("\n")
        );
        eprintln!("{} cases agree with node (seed {seed})", self.cases);
    }
}

#[test]
fn string_rules_match_node() {
    let seed = seed();
    let mut rng = Rng(seed);
    let cases: Vec<(Vec<u16>, i64, i64)> = (0..STRING_CASES)
        .map(|_| {
            let s = random_unit_string(&mut rng);
            let len = s.len() as i64;
            (
                s,
                rng.range(-len - 2, len + 2),
                rng.range(-len - 2, len + 2),
            )
        })
        .collect();
    let requests: Vec<String> = cases
        .iter()
        .map(|(s, a, b)| format!(r#"{{"s":{},"a":{a},"b":{b}}}"#, json_units(s)))
        .collect();
    let Some(answers) = oracle(&requests, "UTC") else {
        return;
    };
    let mut report = Report::default();
    for ((units, a, b), node) in cases.iter().zip(&answers) {
        let s = String::from_utf16_lossy(units);
        let s = s.as_str();
        let str_of = |v: &str| Value::from(v);
        report.check("trim", s, &str_of(jstext::trim(s)), &node["trim"]);
        report.check(
            "collapse",
            s,
            &str_of(&jstext::collapse_spaces(s)),
            &node["collapse"],
        );
        report.check(
            "toLowerCase",
            s,
            &str_of(&jstext::to_lower(s)),
            &node["lower"],
        );
        report.check(
            "normalizeWhitespaceLower",
            s,
            &str_of(&normalize_whitespace_lower(s)),
            &node["normalized"],
        );
        report.check(
            "length",
            s,
            &Value::from(jstext::len_utf16(s)),
            &node["length"],
        );
        let at = format!("{s} [{a}, {b}]");
        report.check(
            "slice",
            &at,
            &str_of(&jstext::slice(s, *a, Some(*b))),
            &node["slice"],
        );
        report.check(
            "slice",
            &at,
            &str_of(&jstext::slice(s, *a, None)),
            &node["sliceFrom"],
        );
        report.check(
            "substring",
            &at,
            &str_of(&jstext::substring(s, *a, Some(*b))),
            &node["substring"],
        );
    }
    report.finish(seed);
}

/// `Array.prototype.sort` with pi's comparator, NaN times among the rest:
/// the same order as node, at every size V8 sorts differently (one run
/// below 64, merges with galloping above).
#[test]
fn sorting_matches_node() {
    let seed = seed();
    let mut rng = Rng(seed);
    let cases: Vec<Vec<Option<i64>>> = (0..SORT_CASES)
        .map(|_| {
            let n = match rng.below(4) {
                0 => rng.range(2, 70),
                1 => rng.range(60, 300),
                _ => rng.range(300, 3000),
            } as usize;
            let nan = rng.pick(&[0, 1, 3, 10, 40]);
            let spread = rng.pick(&[3, 50, 100_000]);
            // Runs already in order are where galloping starts.
            let sorted_runs = rng.chance(40);
            let mut keys: Vec<Option<i64>> = (0..n)
                .map(|_| (!rng.chance(nan)).then(|| rng.range(0, spread)))
                .collect();
            if sorted_runs {
                for chunk in keys.chunks_mut(rng.range(8, 200) as usize) {
                    chunk.sort();
                }
            }
            keys
        })
        .collect();
    let requests: Vec<String> = cases
        .iter()
        .map(|k| serde_json::json!({ "sort": k }).to_string())
        .collect();
    let Some(answers) = oracle(&requests, "UTC") else {
        return;
    };
    let mut report = Report::default();
    for (keys, node) in cases.iter().zip(&answers) {
        let mut ours: Vec<usize> = (0..keys.len()).collect();
        jstext::sort::sort_like_v8(&mut ours, |a, b| match (keys[a], keys[b]) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => std::cmp::Ordering::Equal,
        });
        let input = format!(
            "{} keys, {} NaN",
            keys.len(),
            keys.iter().filter(|k| k.is_none()).count()
        );
        report.check("sort", &input, &serde_json::json!(ours), node);
    }
    report.finish(seed);
}

/// Every code point: white space, trim and lower case exactly as node.
#[test]
fn every_code_point_matches_node() {
    let Some(answers) = oracle(&[r#"{"sweep":true}"#.to_string()], "UTC") else {
        return;
    };
    let sweep = &answers[0];
    let set = |key: &str| -> std::collections::HashSet<u32> {
        sweep[key]
            .as_array()
            .expect("code points")
            .iter()
            .map(|v| v.as_u64().expect("code point") as u32)
            .collect()
    };
    let (space, trimmed) = (set("space"), set("trimmed"));
    let lower: std::collections::HashMap<u32, String> = sweep["lower"]
        .as_array()
        .expect("lower cases")
        .iter()
        .map(|p| {
            (
                p[0].as_u64().expect("code point") as u32,
                p[1].as_str().expect("lower case").to_string(),
            )
        })
        .collect();
    let mut report = Report::default();
    for c in (0..=0x10ffffu32).filter_map(char::from_u32) {
        let s = c.to_string();
        let code = c as u32;
        report.check(
            "\\s",
            &s,
            &Value::from(jstext::is_space(c)),
            &Value::from(space.contains(&code)),
        );
        report.check(
            "trim",
            &s,
            &Value::from(jstext::trim(&s).is_empty()),
            &Value::from(trimmed.contains(&code)),
        );
        let theirs = lower.get(&code).cloned().unwrap_or_else(|| s.clone());
        report.check(
            "toLowerCase",
            &s,
            &Value::from(jstext::to_lower(&s)),
            &Value::from(theirs),
        );
    }
    report.finish(0);
}

#[test]
fn date_parse_matches_node() {
    let seed = seed();
    let mut rng = Rng(seed ^ 0x9e37_79b9_7f4a_7c15);
    let texts: Vec<String> = (0..DATE_CASES).map(|_| date_string(&mut rng)).collect();
    let requests: Vec<String> = texts
        .iter()
        .map(|t| serde_json::json!({ "d": t }).to_string())
        .collect();
    let mut report = Report::default();
    for zone_name in ZONES {
        let Some(answers) = oracle(&requests, zone_name) else {
            return;
        };
        let zone =
            date::Zone::named(zone_name).unwrap_or_else(|| panic!("no zone data for {zone_name}"));
        for (text, node) in texts.iter().zip(&answers) {
            let ours = date::parse_ms_in(text, &zone).map_or(Value::Null, Value::from);
            report.check(&format!("Date.parse in {zone_name}"), text, &ours, node);
        }
    }
    report.finish(seed);
}
