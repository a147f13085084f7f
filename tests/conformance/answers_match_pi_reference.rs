//! piscope's `tree`, `info` and `context` answers equal pi's own, as recorded
//! from the reference implementation in `tests/data/golden/expected/` (see
//! `tests/data/golden/regenerate.mjs`), compared as parsed JSON. Legacy files get
//! random ids from pi on every read, so for them ids are compared by shape.

use piscope::session::{Detail, LeafSelector, Session};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn inputs() -> HashMap<String, PathBuf> {
    let mut out = HashMap::new();
    let mut dirs = vec![PathBuf::from("tests/data/golden/corpus")];
    let fixtures = Path::new("tests/data/pi-mono");
    assert!(
        fixtures.is_dir(),
        "tests/data/pi-mono is missing from the checkout: the golden tests read pi's real sessions there"
    );
    dirs.push(fixtures.to_path_buf());
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.insert(p.file_stem().unwrap().to_string_lossy().into_owned(), p);
            }
        }
    }
    out
}

/// Numbers as f64 (the reference prints `1000` where a file may say `1e3`).
fn normalize(v: Value) -> Value {
    match v {
        Value::Number(n) => {
            serde_json::Number::from_f64(n.as_f64().unwrap()).map_or(Value::Null, Value::Number)
        }
        Value::Array(a) => Value::Array(a.into_iter().map(normalize).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, normalize(v))).collect()),
        v => v,
    }
}

/// 8-hex ids renamed by order of first appearance.
fn canonical_ids(v: &Value) -> Value {
    let text = v.to_string();
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(i) = rest.find('"') {
        out.push_str(&rest[..=i]);
        rest = &rest[i + 1..];
        let candidate = rest.get(..9);
        if let Some(c) = candidate.filter(|c| {
            c.ends_with('"')
                && c[..8]
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        }) {
            let n = names.len();
            let k = *names.entry(c[..8].to_string()).or_insert(n);
            out.push_str(&format!("#{k}\""));
            rest = &rest[9..];
        } else if let Some(j) = rest.find('"') {
            out.push_str(&rest[..=j]);
            rest = &rest[j + 1..];
        }
    }
    out.push_str(rest);
    serde_json::from_str(&out).unwrap()
}

fn piscope_answer(file: &Path, what: &str) -> Value {
    let s = Session::open_with(file, Detail::Structure).unwrap();
    let mut out = Vec::new();
    match what {
        "tree" => piscope::cli::write_tree_json(&s, &mut out).unwrap(),
        "info" => out = piscope::cli::info_json(&s).into_bytes(),
        _ => {
            let leaf = match what {
                "context" => LeafSelector::Last,
                "context-null" => LeafSelector::Null,
                other => LeafSelector::Id(other.strip_prefix("context-at-").unwrap().to_string()),
            };
            s.write_context_json(&s.context(&leaf), &mut out).unwrap();
        }
    }
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn tree_info_and_context_equal_pi() {
    let inputs = inputs();
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut expected: Vec<PathBuf> = std::fs::read_dir("tests/data/golden/expected")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    expected.sort();
    for path in expected {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let (name, what) = stem.split_once('.').unwrap();
        let file = inputs
            .get(name)
            .unwrap_or_else(|| panic!("no input file for {stem}"));
        let theirs: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let ours = piscope_answer(file, what);
        let legacy = Session::open(file).unwrap().is_legacy();
        let (ours, theirs) = if legacy {
            (canonical_ids(&ours), canonical_ids(&theirs))
        } else {
            (ours, theirs)
        };
        if normalize(ours) != normalize(theirs) {
            failures.push(format!("{name}: {what} differs from pi"));
        }
        checked += 1;
    }
    assert!(checked >= 60, "only {checked} golden answers found");
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_comparison_notices_a_difference() {
    // A guard against a comparison that cannot fail: a changed answer must differ.
    let inputs = inputs();
    let file = inputs
        .values()
        .find(|p| p.starts_with("tests/data/golden/corpus"))
        .unwrap();
    let mut ours = piscope_answer(file, "info");
    ours["leafId"] = Value::String("00000000".into());
    let stem = file.file_stem().unwrap().to_string_lossy();
    let theirs: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("tests/data/golden/expected/{stem}.info.json")).unwrap(),
    )
    .unwrap();
    assert_ne!(normalize(ours), normalize(theirs));
}
