//! Names and timestamps pi reads with JavaScript's own rules come out of
//! `info`, `tree` and `ls` as pi's code gives them: a name keeps what
//! `trim()` keeps (U+0085, U+180E), and timestamps in the forms the runtime's
//! `Date.parse` accepts (RFC 2822, `Date.toString()` output, `2026/01/05`,
//! ISO without a zone, read as local time) or rejects (`10:00:00,5Z`) order
//! the tree and date the session as pi does, in more than one time zone.

use crate::support as common;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const ZONES: [&str; 2] = ["UTC", "America/New_York"];

fn piscope(args: &[&str], zone: &str) -> Value {
    let out = common::run_ok(
        Command::new(env!("CARGO_BIN_EXE_piscope"))
            .args(args)
            .env("TZ", zone)
            .env_remove("PI_CODING_AGENT_SESSION_DIR"),
    );
    numbers_as_f64(serde_json::from_slice(&out.stdout).expect("piscope JSON"))
}

fn pi(args: &[&str], zone: &str) -> Value {
    let out = common::node(&common::harness("oracle.mjs"))
        .args(args)
        .env("TZ", zone)
        .output()
        .expect("run the oracle");
    assert!(
        out.status.success(),
        "oracle {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    numbers_as_f64(serde_json::from_slice(&out.stdout).expect("oracle JSON"))
}

/// pi prints `1000` where piscope may print `1000.0`.
fn numbers_as_f64(v: Value) -> Value {
    match v {
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number),
        Value::Array(a) => Value::Array(a.into_iter().map(numbers_as_f64).collect()),
        Value::Object(o) => {
            Value::Object(o.into_iter().map(|(k, v)| (k, numbers_as_f64(v))).collect())
        }
        v => v,
    }
}

fn header(id: &str, timestamp: &str) -> Value {
    serde_json::json!({"type": "session", "version": 3, "id": id, "timestamp": timestamp, "cwd": "/home/ada/dates"})
}

fn message(id: &str, parent: Option<&str>, timestamp: &str, role: &str, text: &str) -> Value {
    serde_json::json!({"type": "message", "id": id, "parentId": parent, "timestamp": timestamp,
        "message": {"role": role, "content": [{"type": "text", "text": text}]}})
}

fn write(dir: &Path, file: &str, lines: &[Value]) -> String {
    let path = dir.join(file);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).expect("write session");
    path.to_string_lossy().into_owned()
}

/// A name ending in characters Rust calls white space and JavaScript does
/// not: pi keeps them, in the session's info and in its list.
#[test]
fn names_keep_what_javascript_trim_keeps() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (i, name) in [
        " plan\u{85}",
        "\u{180e}plan\u{180e}",
        "\u{feff}plan\u{2029}",
    ]
    .iter()
    .enumerate()
    {
        let file = write(
            dir.path(),
            &format!("2026-01-05T10-00-00-00{i}Z_named.jsonl"),
            &[
                header(
                    &format!("0000000{i}-aaaa-bbbb-cccc-dddddddddddd"),
                    "2026-01-05T10:00:00.000Z",
                ),
                message("a1", None, "2026-01-05T10:01:00.000Z", "user", "hello"),
                serde_json::json!({"type": "session_info", "id": "n1", "parentId": "a1",
                    "timestamp": "2026-01-05T10:02:00.000Z", "name": name}),
            ],
        );
        let ours = piscope(&["info", &file, "--json"], "UTC");
        let theirs = pi(&["info", &file], "UTC");
        assert_eq!(ours["name"], theirs["name"], "name {name:?}");
    }
    let folder = dir.path().to_string_lossy().into_owned();
    assert_eq!(
        piscope(
            &[
                "ls",
                "--all",
                "--json",
                "--no-cache",
                "--session-dir",
                &folder
            ],
            "UTC"
        ),
        pi(&["list", &folder], "UTC")
    );
}

/// Children of one entry are ordered by `new Date(timestamp)`, and a
/// session is dated by its header and message times, whatever their form.
#[test]
fn timestamps_in_every_form_pi_reads() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = write(
        dir.path(),
        "2026-01-05T10-00-00-000Z_dates.jsonl",
        &[
            header(
                "00000009-aaaa-bbbb-cccc-dddddddddddd",
                "Tue, 05 Jan 2026 08:00:00 GMT",
            ),
            message("r1", None, "2026/01/05", "user", "root"),
            message("c1", Some("r1"), "2026-01-05T10:00:00,5Z", "user", "comma"),
            message(
                "c2",
                Some("r1"),
                "Tue, 05 Jan 2026 11:00:00 +0200",
                "user",
                "rfc",
            ),
            message(
                "c3",
                Some("r1"),
                "Mon Jan 05 2026 06:30:00 GMT+0000 (Coordinated Universal Time)",
                "user",
                "to string",
            ),
            message("c4", Some("r1"), "2026/01/05 07:00", "user", "slashes"),
            message("c5", Some("r1"), "2026-01-05T06:45:00", "user", "local"),
            message(
                "c6",
                Some("r1"),
                "Jan 5 2026 06:40 EST",
                "user",
                "zone name",
            ),
        ],
    );
    let folder = dir.path().to_string_lossy().into_owned();
    for zone in ZONES {
        assert_eq!(
            piscope(&["tree", &file, "--json"], zone),
            pi(&["tree", &file], zone),
            "tree in {zone}"
        );
        assert_eq!(
            piscope(
                &[
                    "ls",
                    "--all",
                    "--json",
                    "--no-cache",
                    "--session-dir",
                    &folder
                ],
                zone
            ),
            pi(&["list", &folder], zone),
            "list in {zone}"
        );
    }
}
