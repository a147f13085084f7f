//! `piscope export` redacts the secrets a session holds: on a session pi
//! wrote with a secret of every kind planted in five places (a prompt,
//! thinking, a bash command, bash output, a file read), every one is found
//! and none is left in the Markdown, the HTML page or the page of every
//! branch; each is named on stderr with its place and a masked preview;
//! `--no-redact` keeps them and still lists them; the JSONL copy is left
//! as it is and its secrets listed. And on the real sessions of the test
//! data, what the scanner flags is exactly the list below, each justified.

use crate::support as common;
use common::planted::{self, PLACES, Planted};
use piscope::secrets::Scanner;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const SEED: u64 = 0x5EC2E7;

fn export(file: &Path, args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .arg("export")
        .arg(file)
        .args(args)
        .output()
        .expect("run piscope");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

/// The kinds named on stderr, one per finding listed.
fn listed(stderr: &str, word: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("piscope:   {word} ")))
        .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}

fn assert_redacted(what: &str, text: &str, planted: &[Planted]) {
    for p in planted {
        for s in &p.secret {
            assert!(
                !text.contains(s.as_str()),
                "{what}: a {} is left in it: {s}",
                p.kind
            );
        }
        assert!(
            text.contains(&format!("redacted: {}", p.kind)),
            "{what}: no marker of {}",
            p.kind
        );
    }
}

#[test]
fn every_planted_secret_is_found_and_redacted_in_every_format() {
    if !common::have_node() {
        return;
    }
    let planted = planted::secrets(SEED);
    // The corpus covers the scanner: a secret of every kind it knows.
    let kinds: BTreeSet<&str> = planted.iter().map(|p| p.kind).collect();
    let rules: BTreeSet<&str> = Scanner::builtin()
        .rules()
        .iter()
        .map(|r| r.kind.as_str())
        .collect();
    assert_eq!(kinds, rules, "a planted secret for every rule");

    let dir = tempfile::tempdir().expect("temp dir");
    let file = planted::session(dir.path(), &planted);
    let planted_n = planted.len() * PLACES;

    for (what, args) in [
        ("markdown", &["--format", "md"][..]),
        ("html", &["--format", "html"]),
        ("every branch", &["--format", "html", "--all-branches"]),
    ] {
        let (out, err) = export(&file, args);
        assert_redacted(what, &out, &planted);
        let found = listed(&err, "redacted");
        println!(
            "{what}: {} planted, {} found, {} missed",
            planted_n,
            found.len(),
            planted_n.saturating_sub(found.len())
        );
        // The page of every branch also lists the entries' first lines.
        if what == "every branch" {
            assert!(found.len() >= planted_n, "{what}: {err}");
        } else {
            assert_eq!(
                found.len(),
                planted_n,
                "{what}: found exactly those planted\n{err}"
            );
        }
        for p in &planted {
            assert!(
                found.iter().filter(|k| *k == p.kind).count()
                    >= PLACES * planted.iter().filter(|q| q.kind == p.kind).count(),
                "{what}: each {} in all five places\n{err}",
                p.kind
            );
        }
        assert!(
            err.starts_with(&format!("piscope: redacted {} secrets", found.len())),
            "{err:.200}"
        );
    }

    // The places: entry, role and line, and a preview that gives nothing away.
    let (_, err) = export(&file, &["--format", "md"]);
    let aws = planted
        .iter()
        .find(|p| p.kind == "aws-access-key")
        .expect("aws");
    let line = err
        .lines()
        .find(|l| l.contains("aws-access-key") && l.contains("(user)"))
        .expect("the prompt's key listed");
    assert!(line.contains(", line "), "{line}");
    assert!(
        line.ends_with(&format!("{}…{}", &aws.snippet[..3], &aws.snippet[17..])),
        "{line}"
    );
    for role in ["(user)", "(thinking)", "(tool-call)"] {
        assert!(err.contains(role), "a finding in {role}: {err:.400}");
    }

    // Kept on request, and still listed.
    let (out, err) = export(&file, &["--format", "md", "--no-redact"]);
    for p in &planted {
        assert!(out.contains(&p.secret[0]), "--no-redact keeps {}", p.kind);
    }
    assert_eq!(listed(&err, "kept").len(), planted_n);

    // JSONL: the session's data, as it is; its secrets listed.
    let (out, err) = export(&file, &["--format", "jsonl"]);
    assert!(out.contains(&planted[0].secret[0]));
    assert!(err.contains("in the JSONL, left as they are"), "{err:.300}");
    for p in &planted {
        assert!(
            err.contains(&format!("  {} ", p.kind)),
            "jsonl lists {}",
            p.kind
        );
    }
}

/// What the scanner flags in the test data's real sessions (pi's own files,
/// the recorded corpus, the demo sessions, the renderer's and the damaged
/// files): file, kind, and why it is flagged (the preview, masked, is
/// printed when the list differs). Each is justified; anything
/// else flagged fails the test.
const EXPECTED: &[(&str, &str, &str)] = &[];

#[test]
fn the_real_sessions_flag_only_what_is_listed() {
    let scanner = Scanner::builtin();
    let mut files = Vec::new();
    for dir in ["tests/data", "assets/demo/sessions"] {
        collect(&common::repo().join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() > 50, "the fixtures are there: {}", files.len());
    let mut flagged: Vec<(String, String, String)> = Vec::new();
    let mut bytes = 0;
    for f in &files {
        let text = String::from_utf8_lossy(&std::fs::read(f).expect("read a fixture")).into_owned();
        bytes += text.len();
        let name = f
            .strip_prefix(common::repo())
            .unwrap_or(f)
            .display()
            .to_string();
        for line in text.lines() {
            // The strings as pi reads them (escapes decoded); a line that
            // is no JSON (the damaged files) as it is.
            let strings = match serde_json::from_str::<serde_json::Value>(line) {
                Ok(v) => {
                    let mut out = Vec::new();
                    strings_of(&v, &mut out);
                    out
                }
                Err(_) => vec![line.to_string()],
            };
            for s in strings {
                for h in scanner.find(&s) {
                    flagged.push((
                        name.clone(),
                        scanner.kind(&h).to_string(),
                        // Masked: a real secret found is not to be printed.
                        piscope::secrets::mask(&s[h.start..h.end]),
                    ));
                }
            }
        }
    }
    // And what an export of the sessions that open would write (the
    // rendered text: diffs, tool calls as shown, lines joined).
    let mut exported = 0;
    for f in &files {
        let Ok(s) = piscope::session::Session::open(f) else {
            continue;
        };
        let name = f
            .strip_prefix(common::repo())
            .unwrap_or(f)
            .display()
            .to_string();
        let mut export = piscope::render::Export::new(
            std::sync::Arc::new(s),
            None,
            piscope::render::Shape::Markdown,
        )
        .expect("render a fixture");
        for finding in export.redact(scanner, &|_| false) {
            flagged.push((name.clone(), finding.kind, finding.preview));
        }
        exported += 1;
    }
    println!(
        "{} files, {bytes} bytes, {exported} exported, {} flagged",
        files.len(),
        flagged.len()
    );
    let got: Vec<(&str, &str)> = flagged
        .iter()
        .map(|(f, k, _)| (f.as_str(), k.as_str()))
        .collect();
    let want: Vec<(&str, &str)> = EXPECTED.iter().map(|(f, k, _)| (*f, *k)).collect();
    assert_eq!(got, want, "flagged: {flagged:#?}");
}

fn collect(dir: &Path, into: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read a fixture folder") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            collect(&p, into);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            into.push(p);
        }
    }
}

fn strings_of(v: &serde_json::Value, into: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => into.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings_of(x, into)),
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                into.push(k.clone());
                strings_of(x, into);
            }
        }
        _ => {}
    }
}
