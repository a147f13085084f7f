//! `ls --touched PATH`: the sessions whose tool calls read, edited, wrote
//! or listed a file, and the bash commands that name it, on sessions pi's
//! own SessionManager wrote (`tests/pi/pi-touched.mjs`). Every hit is held
//! to a scan done here, straight from the JSON lines, both ways: each hit
//! is one the scan finds, and each the scan finds is a hit. The index in
//! the cache answers as a read of the files does, cold and warm, after a
//! file grows and after one is replaced.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const HOME: &str = "/home/tester";

/// One touch: session file, line, entry id, tool, file, failed.
type Hit = (PathBuf, u64, String, String, String, bool);

/// Writes `count` sessions with pi's code into `agent/sessions`.
fn corpus(agent: &Path, seed: u64, count: usize) {
    let script = crate::support::harness("pi-touched.mjs");
    let o = crate::support::node(&script)
        .arg(agent)
        .arg(seed.to_string())
        .arg(count.to_string())
        .output()
        .expect("run pi-touched.mjs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `piscope ls --all --json ARGS` with the home folder and the cache
/// folder given (`None`: `--no-cache`).
fn ls(agent: &Path, cache: Option<&Path>, args: &[&str]) -> serde_json::Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_piscope"));
    cmd.args(["ls", "--all", "--json"])
        .args(args)
        .env("PI_CODING_AGENT_DIR", agent)
        .env("HOME", HOME);
    match cache {
        Some(dir) => cmd.env("XDG_CACHE_HOME", dir),
        None => cmd.arg("--no-cache"),
    };
    let out = cmd.output().expect("run piscope");
    assert!(
        out.status.success(),
        "ls {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("ls JSON")
}

/// The hits `ls --touched PATTERN` prints, session by session, in order.
fn touched(
    agent: &Path,
    cache: Option<&Path>,
    pattern: &str,
    more: &[&str],
) -> Vec<(PathBuf, Vec<Hit>)> {
    let mut args = vec!["--touched", pattern];
    args.extend_from_slice(more);
    let json = ls(agent, cache, &args);
    json.as_array()
        .expect("an array")
        .iter()
        .map(|s| {
            let path = PathBuf::from(s["path"].as_str().expect("path"));
            let hits = s["touches"]
                .as_array()
                .expect("touches")
                .iter()
                .map(|t| {
                    assert_eq!(
                        t["weak"].as_bool(),
                        Some(t["tool"] == "bash"),
                        "only bash is weaker evidence"
                    );
                    (
                        path.clone(),
                        t["line"].as_u64().expect("line"),
                        t["entryId"].as_str().unwrap_or_default().to_string(),
                        t["tool"].as_str().expect("tool").to_string(),
                        t["file"].as_str().expect("file").to_string(),
                        t["failed"].as_bool().expect("failed"),
                    )
                })
                .collect();
            (path, hits)
        })
        .collect()
}

/// A path made absolute under `cwd` and tidied, by components.
fn absolute(p: &str, cwd: &str) -> String {
    let joined = if p.starts_with('/') {
        PathBuf::from(p)
    } else {
        Path::new(cwd).join(p)
    };
    let mut parts: Vec<String> = Vec::new();
    for c in joined.components() {
        match c {
            std::path::Component::Normal(s) => parts.push(s.to_string_lossy().to_string()),
            std::path::Component::ParentDir => {
                parts.pop();
            }
            _ => {}
        }
    }
    format!("/{}", parts.join("/"))
}

fn tilde(p: &str) -> String {
    match p.strip_prefix("~/") {
        Some(rest) => format!("{HOME}/{rest}"),
        None if p == "~" => HOME.to_string(),
        None => p.to_string(),
    }
}

/// The words of a command that name files, as the manual says.
fn command_words(command: &str) -> Vec<String> {
    let spaced: String = command
        .chars()
        .map(|c| if ";|&<>()`".contains(c) { ' ' } else { c })
        .collect();
    let mut out: Vec<String> = Vec::new();
    for w in spaced.split_whitespace() {
        let mut w = w.trim_matches(['"', '\'']).to_string();
        if w.starts_with('-') {
            let Some((_, v)) = w.split_once('=') else {
                continue;
            };
            w = v.trim_matches(['"', '\'']).to_string();
        }
        let pathy = w.contains('/') || w.contains('.');
        let odd = w.chars().all(|c| c == '.')
            || w.contains("://")
            || w.chars().any(|c| "$*\"'{}".contains(c));
        if pathy && !odd && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// Every touch in the sessions under `agent`, read straight from the JSON.
fn scan(agent: &Path) -> Vec<Hit> {
    let mut hits = Vec::new();
    for dir in std::fs::read_dir(agent.join("sessions")).expect("sessions") {
        for f in std::fs::read_dir(dir.expect("dir").path()).expect("project") {
            let path = f.expect("file").path();
            let text = std::fs::read_to_string(&path).expect("read");
            let mut cwd = String::new();
            let mut calls: Vec<(String, usize)> = Vec::new();
            let mut failed: Vec<String> = Vec::new();
            for (n, line) in text.lines().enumerate() {
                let v: serde_json::Value = serde_json::from_str(line).expect("json");
                if v["type"] == "session" {
                    cwd = v["cwd"].as_str().expect("cwd").to_string();
                    continue;
                }
                let m = &v["message"];
                if m["role"] == "toolResult" && m["isError"] == true {
                    failed.push(m["toolCallId"].as_str().expect("id").to_string());
                }
                let Some(content) = m["content"].as_array().filter(|_| m["role"] == "assistant")
                else {
                    continue;
                };
                for c in content.iter().filter(|c| c["type"] == "toolCall") {
                    let tool = c["name"].as_str().expect("name");
                    let args = &c["arguments"];
                    let files: Vec<String> = if tool == "bash" {
                        command_words(args["command"].as_str().expect("command"))
                            .iter()
                            .map(|w| absolute(&tilde(w), &cwd))
                            .collect()
                    } else {
                        let p = args["path"].as_str().or(args["file_path"].as_str());
                        p.map(|p| absolute(&tilde(p.trim_start_matches('@')), &cwd))
                            .into_iter()
                            .collect()
                    };
                    for file in files {
                        calls.push((c["id"].as_str().expect("id").to_string(), hits.len()));
                        hits.push((
                            path.clone(),
                            n as u64 + 1,
                            v["id"].as_str().expect("id").to_string(),
                            tool.to_string(),
                            file,
                            false,
                        ));
                    }
                }
            }
            for (id, at) in calls {
                hits[at].5 = failed.contains(&id);
            }
        }
    }
    hits
}

/// `glob` (already absolute) matches `file`: `**/` any folders, `**` any
/// text, `*` and `?` within a part, `[…]` one of.
fn glob(glob: &[char], file: &[char]) -> bool {
    match glob {
        [] => file.is_empty(),
        ['*', '*', '/', rest @ ..] => {
            (0..=file.len()).any(|i| (i == 0 || file[i - 1] == '/') && self::glob(rest, &file[i..]))
        }
        ['*', '*', rest @ ..] => (0..=file.len()).any(|i| self::glob(rest, &file[i..])),
        ['*', rest @ ..] => (0..=file.len())
            .take_while(|&i| i == 0 || file[i - 1] != '/')
            .any(|i| self::glob(rest, &file[i..])),
        ['?', rest @ ..] => file.first().is_some_and(|&c| c != '/') && self::glob(rest, &file[1..]),
        ['[', rest @ ..] if rest.contains(&']') => {
            let close = rest.iter().position(|&c| c == ']').expect("]");
            let set = &rest[..close];
            let (neg, set) = match set.first() {
                Some('!') => (true, &set[1..]),
                _ => (false, set),
            };
            let Some(&c) = file.first() else { return false };
            set.contains(&c) != neg && c != '/' && self::glob(&rest[close + 1..], &file[1..])
        }
        [c, rest @ ..] => file.first() == Some(c) && self::glob(rest, &file[1..]),
    }
}

/// The scan's hits for `pattern`, as `ls --touched` should give them.
fn expected(all: &[Hit], agent: &Path, pattern: &str) -> Vec<Hit> {
    let cwds = cwds(agent);
    all.iter()
        .filter(|h| {
            let cwd = &cwds[&h.0];
            let p = absolute(&tilde(pattern), cwd);
            let p: Vec<char> = p.chars().collect();
            let f: Vec<char> = h.4.chars().collect();
            glob(&p, &f)
        })
        .cloned()
        .collect()
}

fn cwds(agent: &Path) -> BTreeMap<PathBuf, String> {
    ls(agent, None, &[])
        .as_array()
        .expect("array")
        .iter()
        .map(|s| {
            (
                PathBuf::from(s["path"].as_str().expect("path")),
                s["cwd"].as_str().expect("cwd").to_string(),
            )
        })
        .collect()
}

fn sorted(mut hits: Vec<Hit>) -> Vec<Hit> {
    hits.sort();
    hits
}

const PATTERNS: [&str; 10] = [
    "src/parser.rs",
    "/work/shop/src/parser.rs",
    "./src/../README.md",
    "src/*.rs",
    "src/**",
    "**/*.md",
    "/work/shop/**/routes.ts",
    "~/notes.md",
    "src/[lp]*.rs",
    "docs",
];

#[test]
fn every_hit_is_one_the_scan_finds_and_every_touch_is_listed() {
    if !crate::support::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let agent = tmp.path().join("agent");
    corpus(&agent, 7, 24);
    let all = scan(&agent);
    let order: Vec<PathBuf> = ls(&agent, None, &[])
        .as_array()
        .expect("array")
        .iter()
        .map(|s| PathBuf::from(s["path"].as_str().expect("path")))
        .collect();
    let mut tools = std::collections::BTreeSet::new();
    for pattern in PATTERNS {
        let got = touched(&agent, None, pattern, &[]);
        let want = expected(&all, &agent, pattern);
        assert!(!want.is_empty(), "{pattern}: nothing to compare");
        let flat: Vec<Hit> = got.iter().flat_map(|(_, h)| h.clone()).collect();
        assert_eq!(sorted(flat), sorted(want.clone()), "{pattern}");
        tools.extend(want.iter().map(|h| (h.3.clone(), h.5)));
        // Sessions in the list's order, each touch newest first.
        let sessions: Vec<&PathBuf> = got.iter().map(|(p, _)| p).collect();
        let listed: Vec<&PathBuf> = order.iter().filter(|p| sessions.contains(p)).collect();
        assert_eq!(
            sessions, listed,
            "{pattern}: sessions out of the list's order"
        );
        for (_, hits) in &got {
            assert!(
                hits.windows(2).all(|w| w[0].1 >= w[1].1),
                "{pattern}: not newest first"
            );
        }
    }
    for tool in ["read", "edit", "write", "bash", "grep", "ls"] {
        assert!(
            tools.contains(&(tool.to_string(), false)),
            "no {tool} hit: {tools:?}"
        );
    }
    assert!(tools.iter().any(|t| t.1), "no failed call: {tools:?}");
}

#[test]
fn the_index_answers_as_the_files_do_as_they_grow_and_are_replaced() {
    if !crate::support::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let agent = tmp.path().join("agent");
    let cache = tmp.path().join("cache");
    corpus(&agent, 11, 9);
    let same = |pattern: &str| {
        let cold = touched(&agent, Some(&cache), pattern, &[]);
        let warm = touched(&agent, Some(&cache), pattern, &[]);
        let read = touched(&agent, None, pattern, &[]);
        assert_eq!(cold, read, "{pattern}: cold");
        assert_eq!(warm, read, "{pattern}: warm");
        read
    };
    for pattern in PATTERNS {
        same(pattern);
    }
    assert!(cache.join("piscope/catalog-touched.bin").is_file());
    // A session grows by a line that edits a file no one touched.
    let file = scan(&agent)[0].0.clone();
    let line = r#"{"type":"message","id":"feed0001","parentId":null,"timestamp":"2026-03-02T10:00:00.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"late_1","name":"edit","arguments":{"path":"src/late.rs","edits":[]}}],"timestamp":1772445600000}}"#;
    let mut text = std::fs::read_to_string(&file).expect("read");
    text.push_str(line);
    text.push('\n');
    std::fs::write(&file, &text).expect("append");
    let hits = same("src/late.rs");
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].1[0].2, "feed0001");
    // Replaced by a shorter file without that line: the index reads it again.
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&file, lines[..lines.len() - 3].join("\n") + "\n").expect("rewrite");
    assert!(same("src/late.rs").is_empty());
    for pattern in PATTERNS {
        same(pattern);
    }
}

#[test]
fn touched_composes_with_the_query_and_the_time_span() {
    if !crate::support::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let agent = tmp.path().join("agent");
    corpus(&agent, 5, 12);
    let sessions = |args: &[&str]| -> Vec<PathBuf> {
        ls(&agent, None, args)
            .as_array()
            .expect("array")
            .iter()
            .map(|s| PathBuf::from(s["path"].as_str().expect("path")))
            .collect()
    };
    let all: Vec<PathBuf> = touched(&agent, None, "src/**", &[])
        .into_iter()
        .map(|s| s.0)
        .collect();
    for scope in [
        vec!["--query", "session 1"],
        vec!["--until", "2026-03-01"],
        vec!["--since", "2026-03-01", "--tz", "UTC"],
    ] {
        let listed = sessions(&scope);
        let got: Vec<PathBuf> = touched(&agent, None, "src/**", &scope)
            .into_iter()
            .map(|s| s.0)
            .collect();
        let want: Vec<PathBuf> = all.iter().filter(|p| listed.contains(p)).cloned().collect();
        assert_eq!(got, want, "{scope:?}");
    }
}
