//! The catalog gives pi's answers: `ls --json` equals pi's session list and
//! every query selects and orders what pi's /resume
//! search does, on pi-written sessions and on crafted edge cases.
//! Expected answers: tests/golden/catalog/, from tests/golden/regenerate-catalog.mjs.

use piscope::catalog::{self, Cache, Layout, LoadOptions, Query, Scope, SessionsFolder, SortMode};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn golden(name: &str) -> Value {
    let path = repo().join("tests/golden/catalog").join(name);
    let text = std::fs::read_to_string(&path).expect("golden file");
    let text = text.replace("$REPO", &repo().to_string_lossy());
    serde_json::from_str(&text).expect("golden JSON")
}

fn ls_json(args: &[&str], agent_dir: Option<&Path>) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_piscope"));
    cmd.arg("ls").args(args).arg("--json").arg("--no-cache");
    cmd.env_remove("PI_CODING_AGENT_SESSION_DIR");
    if let Some(d) = agent_dir {
        cmd.env("PI_CODING_AGENT_DIR", d);
    }
    let out = cmd.output().expect("run piscope");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn list_of_default_layout_equals_pis() {
    let got = ls_json(&["--all"], Some(&repo().join("tests/golden/corpus")));
    assert_eq!(got, golden("list-root.json"));
}

#[test]
fn list_of_flat_folder_equals_pis_including_edge_cases() {
    let flat = repo().join("tests/catalog/flat");
    let got = ls_json(&["--all", "--session-dir", &flat.to_string_lossy()], None);
    assert_eq!(got, golden("list-flat.json"));
}

fn load(dir: &Path, layout: Layout) -> catalog::Catalog {
    let folder = SessionsFolder::at(dir.to_path_buf(), layout, repo());
    let options = LoadOptions {
        scope: Scope::All,
        with_text: true,
        with_usage: true,
    };
    catalog::load(&folder, options, &mut Cache::disabled(), &mut |_| {})
}

#[test]
fn every_query_selects_what_pi_selects() {
    let corpus = load(
        &repo().join("tests/golden/corpus/sessions"),
        Layout::PerProject,
    );
    let flat = load(&repo().join("tests/catalog/flat"), Layout::Flat);
    let Value::Array(cases) = golden("search.json") else {
        panic!("search.json is a list")
    };
    assert!(cases.len() > 100);
    let mut non_empty = 0;
    for case in &cases {
        let query = case["query"].as_str().expect("query");
        let sort = match case["sort"].as_str() {
            Some("recent") => SortMode::Recent,
            _ => SortMode::Relevance,
        };
        let named = case["named"].as_bool().expect("named");
        let cat = if case["where"] == "flat" {
            &flat
        } else {
            &corpus
        };
        let want: Vec<&str> = case["paths"]
            .as_array()
            .expect("paths")
            .iter()
            .map(|p| p.as_str().expect("path"))
            .collect();
        let got: Vec<String> = match Query::parse(query) {
            Ok(q) => catalog::filter_and_sort(&cat.sessions, &q, sort, named)
                .into_iter()
                .map(|i| &cat.sessions[i])
                .filter(|s| s.skipped_by_pi.is_none())
                .map(|s| s.path.to_string_lossy().into_owned())
                .collect(),
            Err(_) => Vec::new(),
        };
        let context = format!(
            "query {query:?} sort {sort:?} named {named} in {}",
            case["where"]
        );
        // pi's order exactly, for both sorts (relevance ties newest first).
        assert_eq!(got, want, "{context}");
        non_empty += usize::from(!want.is_empty());
    }
    assert!(
        non_empty > 40,
        "the queries should find something: {non_empty}"
    );
}

#[test]
fn invalid_regex_lists_nothing_and_says_why() {
    let out = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args([
            "ls",
            "--all",
            "--no-cache",
            "--query",
            "re:(",
            "--session-dir",
        ])
        .arg(repo().join("tests/catalog/flat"))
        .output()
        .expect("run piscope");
    assert!(out.status.success());
    assert!(out.stdout.is_empty() || String::from_utf8_lossy(&out.stdout).contains("no sessions"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid regular expression"));
}
