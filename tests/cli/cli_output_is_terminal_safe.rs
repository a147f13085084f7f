//! No command lets text from a session file, or from a file's or folder's
//! name, reach the terminal raw: a corpus with escape sequences (CSI, OSC 0
//! that retitles the window, OSC 52 that writes the clipboard, DCS), C1
//! controls, BEL and bidi overrides in every string field and in the paths is
//! run through every command in its readable form, error paths included, and
//! the raw bytes on stdout and stderr hold none of them. `--json` and JSONL
//! output stay exact: the same strings, escapes and all.

use crate::support as common;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Every kind of hostile text at once.
const H: &str = concat!(
    "\u{1b}[31m csi \u{1b}[2J",
    " \u{1b}]0;retitled\u{7}",
    " \u{1b}]52;c;cHduZWQ=\u{7}",
    " \u{1b}P+q544e\u{1b}\\",
    " \u{90}c1 dcs\u{9c} \u{9b}2J",
    " bel\u{7} \u{202e}rlo \u{2066}\u{2067}\u{2068}\u{2069} \u{200f}",
);

/// How the start of [`H`] reads once made safe: the proof that a field was
/// printed at all, and neutralised.
const SHOWN: &str = "␛[31m csi ␛[2J";

struct Corpus {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    project: PathBuf,
    folder: PathBuf,
    /// Written by pi, renamed to a hostile name, hand-written lines after.
    pi_file: PathBuf,
    /// Hand-written: a hostile header.
    hand_file: PathBuf,
    /// Not a session, with a hostile name.
    junk_file: PathBuf,
}

/// Entry ids pi's API cannot choose, hand-written into `pi_file`.
fn hand_question() -> String {
    format!("hand question {H}")
}
fn hand_answer() -> String {
    format!("hand answer {H}")
}

fn corpus() -> Corpus {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().to_path_buf();
    let project = root.join(format!("project {H}"));
    std::fs::create_dir_all(&project).expect("project folder");
    let out = common::node(&common::harness("pi-hostile.mjs"))
        .arg(&project)
        .env("PI_CODING_AGENT_DIR", root.join("agent"))
        .env("HOSTILE", H)
        .output()
        .expect("write a session with pi");
    assert!(
        out.status.success(),
        "{:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = PathBuf::from(
        String::from_utf8(out.stdout)
            .expect("UTF-8 path")
            .trim_end(),
    );
    let folder = written.parent().expect("sessions folder").to_path_buf();
    assert!(
        folder.to_string_lossy().contains('\u{1b}'),
        "pi named the project folder after the cwd: {folder:?}"
    );
    let stem = written.file_stem().expect("stem").to_string_lossy();
    let pi_file = folder.join(format!("{stem} {H}.jsonl"));
    std::fs::rename(&written, &pi_file).expect("rename");

    // Lines pi's API cannot write: hostile entry ids and parent ids, a label
    // on one, a damaged line and an entry whose parent is missing.
    let text = std::fs::read_to_string(&pi_file).expect("read");
    let last: Value = serde_json::from_str(text.lines().last().expect("a line")).expect("JSON");
    let leaf = last["id"].as_str().expect("leaf id").to_string();
    let stamp = "2026-03-01T10:00:00.000Z";
    let lines = [
        json!({"type": "message", "id": hand_question(), "parentId": leaf, "timestamp": stamp,
               "message": {"role": "user", "content": format!("hand text {H}"), "timestamp": 1}}),
        json!({"type": "message", "id": hand_answer(), "parentId": hand_question(), "timestamp": stamp,
               "message": {"role": "assistant", "content": [{"type": "text", "text": format!("hand reply {H}")}],
                           "provider": format!("hand provider {H}"), "model": format!("hand model {H}"),
                           "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0,
                                     "totalTokens": 2, "cost": {"total": 0.5}},
                           "stopReason": "stop", "timestamp": 2}}),
        json!({"type": "label", "id": format!("label entry {H}"), "parentId": hand_answer(),
               "timestamp": stamp, "targetId": hand_question(), "label": format!("hand label {H}")}),
        json!({"type": "message", "id": format!("orphan {H}"), "parentId": format!("missing parent {H}"),
               "timestamp": stamp, "message": {"role": "user", "content": format!("orphan {H}"), "timestamp": 3}}),
        json!({"type": "thinking_level_change", "id": format!("level {H}"), "parentId": format!("label entry {H}"),
               "timestamp": stamp, "thinkingLevel": format!("hand level {H}")}),
    ];
    let mut more = String::new();
    for (n, line) in lines.iter().enumerate() {
        more.push_str(&line.to_string());
        more.push('\n');
        if n == 1 {
            // Damaged: cut off in the middle of a hostile string.
            more.push_str(&format!(
                "{{\"type\":\"message\",\"id\":\"{}",
                json_inner(H)
            ));
            more.push('\n');
        }
    }
    append(&pi_file, &more);

    let hand_file = folder.join(format!("2026-01-01T00-00-00-000Z_{H}.jsonl"));
    let header = json!({"type": "session", "version": 3, "id": format!("session id {H}"),
                        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": project.to_string_lossy(),
                        "parentSession": pi_file.to_string_lossy()});
    let first = json!({"type": "message", "id": format!("first {H}"), "parentId": null,
                       "timestamp": "2026-01-01T00:00:01.000Z",
                       "message": {"role": "user", "content": format!("first message {H}"), "timestamp": 4}});
    std::fs::write(&hand_file, format!("{header}\n{first}\n")).expect("write");

    let junk_file = folder.join(format!("junk {H}.jsonl"));
    std::fs::write(&junk_file, format!("not a session {}\n", json_inner(H))).expect("write");
    Corpus {
        _tmp: tmp,
        root,
        project,
        folder,
        pi_file,
        hand_file,
        junk_file,
    }
}

/// `s` as it stands between the quotes of a JSON string.
fn json_inner(s: &str) -> String {
    let quoted = Value::String(s.to_string()).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

fn append(path: &Path, text: &str) {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open");
    f.write_all(text.as_bytes()).expect("append");
}

struct Run {
    what: String,
    ok: bool,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

fn piscope(c: &Corpus, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(args)
        .current_dir(&c.project)
        .env("HOME", &c.root)
        .env("PI_CODING_AGENT_DIR", c.root.join("agent"))
        .env("XDG_DATA_HOME", c.root.join("data"))
        .env("XDG_CACHE_HOME", c.root.join("cache"))
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .stdin(Stdio::null())
        .output()
        .expect("run piscope");
    Run {
        what: format!("piscope {}", args.join(" ")),
        ok: out.status.success(),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// Raw bytes a terminal would act on: anything but text, line breaks, tabs.
fn assert_safe(what: &str, stream: &str, bytes: &[u8]) -> String {
    let text = std::str::from_utf8(bytes)
        .unwrap_or_else(|e| panic!("{what:?}: {stream} is not UTF-8 ({e}): {bytes:?}"));
    let raw = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
    };
    // Quoted in the failure message, not printed: the test's own output
    // must not reach the terminal raw either.
    if let Some(line) = text.lines().find(|l| l.chars().any(raw)) {
        panic!("{what:?}: raw control characters on {stream}: {line:?}");
    }
    text.to_string()
}

/// Runs a readable command; its output must be safe and must show each of
/// `shows` (followed by the hostile text, neutralised), so that a command
/// printing nothing could not pass.
fn readable(c: &Corpus, args: &[&str], ok: bool, shows: &[&str]) -> String {
    let run = piscope(c, args);
    let out = assert_safe(&run.what, "stdout", &run.stdout);
    let err = assert_safe(&run.what, "stderr", &run.stderr);
    assert_eq!(run.ok, ok, "{:?}: exit status\n{out}\n{err}", run.what);
    let both = format!("{out}{err}");
    for s in shows {
        let want = format!("{s}{SHOWN}");
        assert!(
            both.contains(&want),
            "{:?}: no {want:?} in\n{both}",
            run.what
        );
    }
    both
}

fn exact_json(c: &Corpus, args: &[&str]) -> Value {
    let run = piscope(c, args);
    assert!(
        run.ok,
        "{:?}: {:?}",
        run.what,
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).unwrap_or_else(|e| panic!("{:?}: {e}", run.what))
}

/// Every string anywhere in `v`, keys included.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => {
            for (k, x) in o {
                out.push(k.clone());
                strings(x, out);
            }
        }
        _ => {}
    }
}

fn holds(v: &Value, want: &str) -> bool {
    let mut all = Vec::new();
    strings(v, &mut all);
    all.iter().any(|s| s == want)
}

/// The id of pi's compaction entry.
fn compaction(c: &Corpus) -> String {
    std::fs::read_to_string(&c.pi_file)
        .expect("read")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "compaction")
        .and_then(|v| v["id"].as_str().map(str::to_string))
        .expect("a compaction")
}

#[test]
fn json_output_keeps_hostile_strings_exact() {
    let c = corpus();
    let pi = p(&c.pi_file);
    let tree = exact_json(&c, &["tree", pi, "--json"]);
    let nodes = tree.as_array().expect("tree");
    let hand = nodes
        .iter()
        .find(|n| n["id"] == hand_question())
        .expect("the hand-written id, exact");
    assert_eq!(hand["label"], format!("hand label {H}"));
    assert!(nodes.iter().any(|n| n["parentId"] == hand_question()));
    assert!(nodes.iter().any(|n| n["label"] == format!("label {H}")));

    let info = exact_json(&c, &["info", pi, "--json"]);
    assert_eq!(info["header"]["cwd"], p(&c.project));
    assert_eq!(info["name"], format!("name {H}"));
    assert_eq!(info["labels"][hand_question()], format!("hand label {H}"));

    let context = exact_json(&c, &["context", pi, "--json", "--leaf", &hand_answer()]);
    for want in [
        format!("hand reply {H}"),
        format!("question {H}"),
        format!("branch summary {H}"),
    ] {
        assert!(
            holds(&context, &want),
            "context lacks {want:?}: {context:?}"
        );
    }
    assert_eq!(context["model"]["modelId"], format!("hand model {H}"));

    let list = exact_json(&c, &["ls", "--all", "--json", "--no-cache"]);
    let row = list
        .as_array()
        .expect("list")
        .iter()
        .find(|r| r["path"] == p(&c.pi_file))
        .expect("pi's session, exact path");
    assert_eq!(row["cwd"], p(&c.project));
    assert_eq!(row["name"], format!("name {H}"));
    assert!(holds(&list, &format!("session id {H}")));

    let deep = exact_json(
        &c,
        &["ls", "--all", "--json", "-q", "bash output", "--deep"],
    );
    assert!(holds(&deep, p(&c.pi_file)), "{deep:?}");

    let run = piscope(
        &c,
        &["export", pi, "--format", "jsonl", "--leaf", &hand_answer()],
    );
    assert!(run.ok, "{:?}", String::from_utf8_lossy(&run.stderr));
    let lines: Vec<Value> = String::from_utf8(run.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert!(lines.iter().any(|l| l["id"] == hand_answer()));
    assert!(lines.iter().any(|l| l["parentId"] == hand_question()));
}

#[test]
fn readable_output_and_errors_hold_no_raw_escapes() {
    let c = corpus();
    let pi = p(&c.pi_file);
    let hand = p(&c.hand_file);
    let junk = p(&c.junk_file);
    let q = hand_question();
    let a = hand_answer();
    let nope = format!("no such entry {H}");
    let missing = c.root.join(format!("missing {H}.jsonl"));

    // Reading.
    readable(
        &c,
        &["tree", pi],
        true,
        &[
            "hand question ",
            "[hand label ",
            "[label ",
            "question ",
            "tool ",
        ],
    );
    readable(&c, &["tree", hand], true, &["first "]);
    readable(&c, &["info", pi], true, &["project ", "name ", "level "]);
    readable(&c, &["info", hand], true, &["session id ", "project "]);
    readable(
        &c,
        &["context", pi],
        true,
        &[
            "on the new branch ",
            "hand reply ",
            "hand provider ",
            "hand level ",
        ],
    );
    readable(
        &c,
        &["context", pi, "--leaf", &compaction(&c)],
        true,
        &["compaction summary ", "provider ", "high "],
    );
    readable(&c, &["context", pi, "--leaf", "null"], true, &[] as &[&str]);
    readable(&c, &["context", pi, "--leaf", &nope], true, &["provider "]);

    // Listing and searching: the current folder's, all, cached and not.
    for extra in [&[][..], &["--no-cache"][..]] {
        let ls = |args: &[&'static str]| [args, extra].concat();
        readable(&c, &ls(&["ls"]), true, &["name ", "project "]);
        readable(
            &c,
            &ls(&["ls", "--all"]),
            true,
            &["name ", "first message "],
        );
        readable(
            &c,
            &ls(&["ls", "--all", "--sort", "recent"]),
            true,
            &["name "],
        );
        readable(&c, &ls(&["ls", "--all", "--named"]), true, &["name "]);
        readable(
            &c,
            &ls(&["ls", "--all", "-q", "question"]),
            true,
            &["name "],
        );
        readable(
            &c,
            &ls(&["ls", "--all", "-q", "bash output", "--deep"]),
            true,
            &["project ", "bash output "],
        );
        readable(
            &c,
            &ls(&["ls", "-q", "hand text", "--deep"]),
            true,
            &["hand question "],
        );
    }
    readable(
        &c,
        &["ls", "--all", "-q", &format!("re:( {H}")],
        true,
        // The message names the position, not the pattern; should it ever
        // quote the pattern, the quote must be safe too.
        &[] as &[&str],
    );

    // Errors naming a hostile file or entry.
    readable(&c, &["tree", p(&missing)], false, &["missing "]);
    readable(&c, &["info", junk], false, &["junk "]);
    readable(&c, &["context", junk, "--json"], false, &["junk "]);
    readable(&c, &["tree", junk, "--json"], false, &["junk "]);
    readable(
        &c,
        &["label", "--yes", pi, &nope, "x"],
        false,
        &["no such entry "],
    );
    readable(
        &c,
        &["branch", "--yes", pi, &nope],
        false,
        &["no such entry "],
    );
    readable(
        &c,
        &["fork", pi, "--leaf", &nope],
        false,
        &["no such entry "],
    );
    readable(
        &c,
        &["export", pi, "--leaf", &nope],
        false,
        &["no such entry "],
    );
    readable(&c, &["rename", "--yes", junk, "x"], false, &["junk "]);
    // A usage error quotes the argument (escape sequences dropped, the rest
    // made safe).
    let usage = readable(&c, &["tree", pi, &nope], false, &[]);
    assert!(
        usage.contains("unexpected argument 'no such entry "),
        "{usage}"
    );
    readable(&c, &["rm", "--yes", p(&missing)], false, &["missing "]);

    // Writing: every confirmation.
    readable(
        &c,
        &["label", "--yes", pi, &q, &format!("new label {H}")],
        true,
        &["project ", "new label ", "hand question "],
    );
    readable(&c, &["tree", pi], true, &["[new label "]);
    readable(
        &c,
        &["label", "--yes", pi, &q, "--clear"],
        true,
        &["hand question "],
    );
    readable(
        &c,
        &["rename", "--yes", pi, &format!("renamed {H}")],
        true,
        &["renamed "],
    );
    readable(
        &c,
        &["branch", "--yes", pi, &a],
        true,
        &["project ", "hand answer "],
    );
    readable(&c, &["branch", "--yes", pi, &a], true, &["project "]);
    readable(
        &c,
        &["branch", "--yes", pi, &q, "--summary", &format!("left {H}")],
        true,
        &["project "],
    );
    let fork = readable(&c, &["fork", pi, "--leaf", &a], true, &["project "]);
    readable(&c, &["export", pi], true, &["renamed ", "left "]);
    readable(&c, &["export", pi, "--leaf", &a], true, &["hand reply "]);

    // Deleting: the list asked about, the refusal without a terminal, the
    // deletion itself.
    readable(&c, &["rm", hand], false, &["project ", "first message "]);
    readable(&c, &["rm", "--yes", hand], true, &["project "]);
    assert!(!c.hand_file.exists(), "moved to the trash");
    let forked = std::fs::read_dir(&c.folder)
        .expect("folder")
        .map(|e| e.expect("entry").path())
        .find(|f| fork.contains(&*f.file_name().expect("name").to_string_lossy()))
        .expect("the fork is named in its confirmation");
    readable(
        &c,
        &["rm", "--yes", "--permanent", p(&forked)],
        true,
        &["project "],
    );
    assert!(!forked.exists());
}
