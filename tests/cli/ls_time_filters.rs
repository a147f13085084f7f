//! `ls --since / --until / --tz`: sessions by their last activity, days in
//! a time zone (from its start to its end), ages back from now, beside
//! pi's query and deep search. Each answer is held to the set worked out
//! here from the sessions' own times.

use crate::support::ls_json;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const HOUR: i64 = 3_600_000;

/// 2026-03-01 23:30 UTC: the first of March in UTC and in New York (18:30).
const LATE_ON_THE_FIRST: i64 = 1_772_407_800_000;
/// 2026-03-02 00:30 UTC: the second in UTC, still the first in New York
/// (19:30; New York is 5 hours behind until 8 March).
const AFTER_MIDNIGHT: i64 = LATE_ON_THE_FIRST + HOUR;

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap()
}

/// A session of one user message (`text`) at `ms`, named `name`.
fn session(dir: &Path, name: &str, text: &str, ms: i64) {
    let iso = |ms: i64| {
        jiff::Timestamp::from_millisecond(ms)
            .unwrap()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    };
    let id = format!("0000000{}-0000-4000-8000-000000000000", name.len() % 10);
    let lines = [
        format!(
            r#"{{"type":"session","version":3,"id":"{id}","timestamp":"{}","cwd":"/tmp/span"}}"#,
            iso(ms - HOUR)
        ),
        format!(
            r#"{{"type":"message","id":"a1","parentId":null,"timestamp":"{}","message":{{"role":"user","content":"{text}","timestamp":{ms}}}}}"#,
            iso(ms)
        ),
        format!(
            r#"{{"type":"session_info","id":"a2","parentId":"a1","timestamp":"{}","name":"{name}"}}"#,
            iso(ms)
        ),
    ];
    std::fs::write(dir.join(format!("{name}.jsonl")), lines.join("\n") + "\n").unwrap();
}

/// The names `ls ARGS` lists.
fn listed(agent: &Path, args: &[&str]) -> BTreeSet<String> {
    ls_json(agent, args)
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The session files `ls --deep ARGS` finds hits in.
fn deep_hits(agent: &Path, args: &[&str]) -> BTreeSet<String> {
    let args: Vec<&str> = ["--deep"].iter().chain(args).copied().collect();
    ls_json(agent, &args)
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["path"].as_str())
        .map(|p| {
            Path::new(p)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .to_string()
        })
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[test]
fn since_and_until_take_days_in_a_zone_and_ages() {
    let home = tempfile::tempdir().unwrap();
    let agent = home.path().join("agent");
    let dir = agent.join("sessions").join("--tmp-span--");
    std::fs::create_dir_all(&dir).unwrap();
    session(&dir, "late", "parser late", LATE_ON_THE_FIRST);
    session(&dir, "midnight", "parser midnight", AFTER_MIDNIGHT);
    session(&dir, "recent", "parser recent", now_ms() - HOUR);
    let all = set(&["late", "midnight", "recent"]);
    assert_eq!(listed(&agent, &[]), all);

    // Days in UTC, and in New York, from their start to their end.
    let cases: [(&[&str], &[&str]); 8] = [
        (&["--since", "2026-03-02"], &["midnight", "recent"]),
        (&["--until", "2026-03-01"], &["late"]),
        (
            &["--since", "2026-03-01", "--until", "2026-03-01"],
            &["late"],
        ),
        (
            &["--until", "2026-03-01", "--tz", "America/New_York"],
            &["late", "midnight"],
        ),
        (
            &["--since", "2026-03-02", "--tz", "America/New_York"],
            &["recent"],
        ),
        // Ages back from now.
        (&["--since", "2d"], &["recent"]),
        (&["--until", "2d"], &["late", "midnight"]),
        // With pi's query: both filters hold.
        (
            &["--query", "midnight", "--until", "2026-03-02"],
            &["midnight"],
        ),
    ];
    for (args, want) in cases {
        assert_eq!(listed(&agent, args), set(want), "{args:?}");
    }
    // The deep search searches the sessions in the span only.
    assert_eq!(deep_hits(&agent, &["--query", "parser"]), all);
    assert_eq!(
        deep_hits(&agent, &["--query", "parser", "--since", "2026-03-02"]),
        set(&["midnight", "recent"])
    );

    // A bad value: a one-line error naming the flag.
    for bad in [
        "--since=yesterday",
        "--until=2026-02-30",
        "--tz=Mars/Olympus",
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_piscope"))
            .args(["ls", "--all", bad])
            .env("PI_CODING_AGENT_DIR", &agent)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        let flag = bad.split('=').next().unwrap();
        assert!(
            err.lines().next().unwrap_or_default().contains(flag),
            "{err}"
        );
    }
}
