//! Damaged, hostile and legacy session files: none may crash or hang piscope,
//! and each one's answers are pinned in `tests/data/damaged/NAME.expected`.
//!
//! The corpus is written by `tests/data/damaged/make_cases.py` (cases listed in
//! `tests/data/damaged/README.md`). After a deliberate change of behaviour, refresh
//! the pinned answers with `UPDATE_EXPECTED=1 cargo test --test integration format::damaged_files`
//! and read the diff.

use std::fmt::Write as _;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Stands for the session file's absolute path in the pinned answers.
const PLACEHOLDER: &str = "$FILE";
/// Each command on a tiny file gets this long before it counts as a hang.
const TIMEOUT: Duration = Duration::from_secs(10);

struct Output {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

fn drain(mut from: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = from.read_to_end(&mut buf);
        buf
    })
}

/// Runs piscope with `args`; kills it and fails the test after `timeout`.
/// The pipes are drained on threads so a large output cannot stall it.
fn piscope(args: &[&str], file: &Path, timeout: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .arg(args[0])
        .arg(file)
        .args(&args[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start piscope");
    let out = drain(child.stdout.take().unwrap());
    let err = drain(child.stderr.take().unwrap());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for piscope") {
            break status;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "piscope {} {} {} did not finish within {timeout:?}",
                args[0],
                file.display(),
                args[1..].join(" ")
            );
        }
        thread::sleep(Duration::from_millis(5));
    };
    let stdout = String::from_utf8_lossy(&out.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&err.join().unwrap()).into_owned();
    Output {
        status,
        stdout,
        stderr,
    }
}

/// A finished run must be an answer (0) or a reported failure (1): never a
/// signal, a panic (101) or a usage error.
fn assert_no_crash(out: &Output, what: &str) {
    match out.status.code() {
        Some(0 | 1) => {}
        Some(code) => panic!("{what}: exit status {code}\nstderr: {}", out.stderr),
        None => panic!("{what}: killed by a signal ({:?})", out.status),
    }
    assert!(
        !out.stderr.contains("panicked"),
        "{what}: panicked\n{}",
        out.stderr
    );
}

/// Puts the top-level container and the arrays nested less than `levels`
/// deep on lines of their own, one element a line,
/// leaving every other byte as piscope wrote it (no re-serialisation, so
/// numbers and escapes stay exact).
fn pretty(json: &str, levels: usize) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 8);
    let mut expanded: Vec<bool> = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    let mut chars = json.trim_end().chars().peekable();
    let indent = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '[' | '{' => {
                out.push(c);
                let close = if c == '[' { ']' } else { '}' };
                // Objects below the top level stay on one line.
                let expand = expanded.len() < levels
                    && (expanded.is_empty() || c == '[')
                    && chars.peek() != Some(&close);
                expanded.push(expand);
                if expand {
                    indent(&mut out, expanded.len());
                }
            }
            ']' | '}' => {
                if expanded.pop() == Some(true) {
                    indent(&mut out, expanded.len());
                }
                out.push(c);
            }
            ',' => {
                out.push(c);
                if expanded.last() == Some(&true) {
                    indent(&mut out, expanded.len());
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// What piscope answers for one file, as pinned in its `.expected` file.
fn answers(file: &Path) -> String {
    let path = file.to_str().expect("a UTF-8 path");
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    let commands: [(&[&str], usize); 3] = [
        (&["info"], 0),
        (&["tree", "--json"], 1),
        (&["context", "--json"], 2),
    ];
    let outputs: Vec<(String, Output)> = commands
        .iter()
        .map(|(args, _)| {
            let out = piscope(args, file, TIMEOUT);
            let what = format!("{name}: piscope {}", args.join(" "));
            assert_no_crash(&out, &what);
            (what, out)
        })
        .collect();
    let unplace = |s: &str| s.replace(path, PLACEHOLDER);

    // A file that does not open: the same one-line error from every command.
    if outputs[0].1.status.code() == Some(1) {
        let err = &outputs[0].1.stderr;
        for (what, out) in &outputs {
            assert_eq!(out.status.code(), Some(1), "{what}: opened after all");
            assert!(out.stdout.is_empty(), "{what}: printed {:?}", out.stdout);
            assert_eq!(&out.stderr, err, "{what}: a different error");
        }
        assert_eq!(err.lines().count(), 1, "{name}: not a one-line error");
        return format!(
            "# does not open: info, tree --json and context --json all exit 1 with\n{}",
            unplace(err)
        );
    }

    let mut text = String::new();
    for ((args, levels), (what, out)) in commands.iter().zip(&outputs) {
        let rest: String = args[1..].iter().map(|a| format!(" {a}")).collect();
        writeln!(text, "# piscope {} {PLACEHOLDER}{rest}", args[0]).unwrap();
        let code = out.status.code().unwrap();
        if args.contains(&"--json") && code == 0 {
            // Valid as JavaScript reads JSON (any depth, lone surrogates), as
            // pi's own answers are.
            if let Err(e) = piscope::session::line::jsvalue::JsValue::parse(out.stdout.trim_end()) {
                panic!("{what}: output is not JSON ({e}):\n{}", out.stdout);
            }
            writeln!(text, "{}", pretty(&out.stdout, *levels)).unwrap();
        } else {
            text.push_str(&unplace(&out.stdout));
        }
        if code != 0 {
            writeln!(text, "[exit status {code}]").unwrap();
        }
        if !out.stderr.is_empty() {
            writeln!(text, "[stderr] {}", unplace(out.stderr.trim_end())).unwrap();
        }
    }
    text
}

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/damaged");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/data/damaged")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

#[test]
fn damaged_files_match_their_expected_answers() {
    let update = std::env::var_os("UPDATE_EXPECTED").is_some_and(|v| v == "1");
    let files = corpus();
    assert!(files.len() >= 25, "the corpus is missing: {files:?}");
    let mut failures = Vec::new();
    for file in &files {
        let got = answers(file);
        let expected_path = file.with_extension("expected");
        if update {
            std::fs::write(&expected_path, &got).expect("write .expected");
            continue;
        }
        let want = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        if got != want {
            failures.push(format!(
                "== {}\n-- expected:\n{want}\n-- got:\n{got}",
                file.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files answered differently (UPDATE_EXPECTED=1 to accept):\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn pretty_keeps_every_byte_but_line_breaks() {
    let json = r#"{"messages":[{"a":[1,2],"s":"x,[]{}\"y"},{}],"b":[],"m":{"p":1}}"#;
    let p = pretty(json, 2);
    assert_eq!(
        p,
        "{\n  \"messages\":[\n    {\"a\":[1,2],\"s\":\"x,[]{}\\\"y\"},\n    {}\n  ],\n  \"b\":[],\n  \"m\":{\"p\":1}\n}"
    );
    assert_eq!(p.replace(['\n', ' '], ""), json.replace(' ', ""));
}

/// A single chain this long would overflow any recursive walk.
const CHAIN: usize = 500_000;

#[test]
fn half_a_million_entry_chain_needs_no_recursion() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("chain.jsonl");
    {
        let mut w = BufWriter::new(std::fs::File::create(&file).unwrap());
        writeln!(
            w,
            r#"{{"type":"session","version":3,"id":"chain","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"}}"#
        )
        .unwrap();
        for i in 0..CHAIN {
            let parent = if i == 0 {
                "null".to_string()
            } else {
                format!("\"{:x}\"", i - 1)
            };
            writeln!(
                w,
                r#"{{"type":"message","id":"{i:x}","parentId":{parent},"timestamp":"2025-01-01T00:00:00.000Z","message":{{"role":"user","content":"m{i}"}}}}"#
            )
            .unwrap();
        }
        w.flush().unwrap();
    }
    // Generous: the test binary may be a debug build.
    let timeout = Duration::from_secs(120);

    let tree = piscope(&["tree", "--json"], &file, timeout);
    assert_no_crash(&tree, "tree --json");
    assert_eq!(tree.status.code(), Some(0), "{}", tree.stderr);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&tree.stdout).unwrap();
    assert_eq!(rows.len(), CHAIN);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["id"], format!("{i:x}"), "row {i}");
        let children = row["children"].as_array().unwrap();
        if i + 1 < CHAIN {
            assert_eq!(children.len(), 1, "row {i}");
            assert_eq!(children[0], format!("{:x}", i + 1), "row {i}");
        } else {
            assert!(children.is_empty());
        }
    }
    assert_eq!(rows[0]["parentId"], serde_json::Value::Null);
    drop(rows);

    let context = piscope(&["context", "--json"], &file, timeout);
    assert_no_crash(&context, "context --json");
    assert_eq!(context.status.code(), Some(0), "{}", context.stderr);
    let ctx: serde_json::Value = serde_json::from_str(&context.stdout).unwrap();
    let messages = ctx["messages"].as_array().unwrap();
    assert_eq!(messages.len(), CHAIN);
    assert_eq!(messages[0]["content"], "m0");
    assert_eq!(messages[CHAIN - 1]["content"], format!("m{}", CHAIN - 1));

    let info = piscope(&["info"], &file, timeout);
    assert_no_crash(&info, "info");
    assert_eq!(info.status.code(), Some(0), "{}", info.stderr);
    assert!(
        info.stdout.contains(&format!("branch:    {CHAIN} entries")),
        "{}",
        info.stdout
    );
}
