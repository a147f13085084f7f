//! The catalog gives pi's answers: `ls --json` equals pi's session list and
//! every query selects and orders what pi's /resume
//! search does, on pi-written sessions and on crafted edge cases.
//! Expected answers: tests/data/golden/catalog/, from tests/data/golden/regenerate-catalog.mjs.

use piscope::catalog::{self, Cache, Layout, LoadOptions, Query, Scope, SessionsFolder, SortMode};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

use crate::support as common;
use common::{copy_tree, repo, session_files};

fn golden(name: &str) -> Value {
    let path = repo().join("tests/data/golden/catalog").join(name);
    let text = std::fs::read_to_string(&path).expect("golden file");
    let text = text.replace("$REPO", &repo().to_string_lossy());
    serde_json::from_str(&text).expect("golden JSON")
}

/// `ls ARGS --json` without the cache, then with an empty one (which it
/// fills) and again with it warm (the rows from its records): the three
/// byte for byte the same; the list as JSON.
fn ls_json_every_way(args: &[&str], agent_dir: Option<&Path>) -> Value {
    let cache = tempfile::tempdir().expect("cache home");
    let run = |cached: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_piscope"));
        cmd.arg("ls").args(args).arg("--json");
        if !cached {
            cmd.arg("--no-cache");
        }
        cmd.env_remove("PI_CODING_AGENT_SESSION_DIR")
            .env("XDG_CACHE_HOME", cache.path());
        if let Some(d) = agent_dir {
            cmd.env("PI_CODING_AGENT_DIR", d);
        }
        let out = cmd.output().expect("run piscope");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (out.stdout, out.stderr)
    };
    let uncached = run(false);
    assert_eq!(run(true), uncached, "cold cache");
    assert_eq!(run(true), uncached, "warm cache");
    serde_json::from_slice(&uncached.0).expect("JSON on stdout")
}

#[test]
fn list_of_default_layout_equals_pis() {
    let got = ls_json_every_way(&["--all"], Some(&repo().join("tests/data/golden/corpus")));
    assert_eq!(got, golden("list-root.json"));
}

#[test]
fn list_of_flat_folder_equals_pis_including_edge_cases() {
    let flat = repo().join("tests/data/catalog-flat");
    let got = ls_json_every_way(&["--all", "--session-dir", &flat.to_string_lossy()], None);
    assert_eq!(got, golden("list-flat.json"));
}

/// A warm list takes its rows from the cache's records, and reads the few
/// files the cache did not see as they are now (grown, new, a last line
/// unfinished) itself; its rows are always the ones a catalog loaded
/// without any cache prints. It is not printed so when a file the cache
/// holds is gone, or more files are new than it reads. Its own reads are
/// saved only once they add up to enough bytes.
#[test]
fn a_warm_list_is_printed_from_the_records_and_the_few_files_changed() {
    let root = tempfile::tempdir().expect("root");
    for corpus in [
        repo().join("tests/data/golden/corpus/sessions"),
        repo().join("tests/data/catalog-flat"),
    ] {
        let layout = if corpus.ends_with("catalog-flat") {
            Layout::Flat
        } else {
            Layout::PerProject
        };
        let dir = root.path().join(corpus.file_name().expect("name"));
        copy_tree(&corpus, &dir);
        let folder = SessionsFolder::at(dir.clone(), layout, repo());
        let cache_dir = root
            .path()
            .join("cache")
            .join(corpus.file_name().expect("name"));
        let summaries = cache_dir.join("catalog-summaries.bin");
        let options = LoadOptions {
            scope: Scope::All,
            with_text: false,
            with_usage: false,
        };
        let truth = || loaded_rows(&folder, Scope::All, &mut Cache::disabled());
        let same = |got: Option<Vec<u8>>, want: &[u8], what: &str| {
            let at = got
                .as_ref()
                .map(|g| g.iter().zip(want).take_while(|(a, b)| a == b).count());
            assert!(
                got.as_deref() == Some(want),
                "{}: {what}: differs from byte {at:?} ({})",
                dir.display(),
                String::from_utf8_lossy(
                    &want[at.unwrap_or(0).saturating_sub(80)..]
                        [..160.min(want.len() - at.unwrap_or(0).saturating_sub(80))]
                )
            );
        };
        let fast = || {
            let mut cache = Cache::open(cache_dir.clone());
            let files = catalog::list(&folder, Scope::All, &mut cache);
            catalog::cached_list_json(&folder, &files, &mut cache)
        };
        // An empty cache: every file read by the list, and saved.
        same(fast(), &truth(), "an empty cache");
        assert!(summaries.exists(), "{}: saved", dir.display());
        same(fast(), &truth(), "warm");
        // A last line without its newline (pi may be writing it) is read
        // again on every list.
        let unfinished = dir.join("2026-02-01T10-00-00-010Z_unfinished.jsonl");
        if unfinished.exists() {
            same(fast(), &truth(), "a last line unfinished");
            std::fs::remove_file(&unfinished).expect("remove");
            assert!(
                fast().is_none(),
                "{}: the unfinished file gone",
                dir.display()
            );
            loaded_rows(&folder, Scope::All, &mut Cache::open(cache_dir.clone()));
        }
        // A file that grew by a few bytes: read from where its record left
        // off, and not saved (read so again by the next list).
        let session = session_files(&dir)
            .into_iter()
            .next()
            .expect("a session file");
        let bytes = std::fs::read(&session).expect("read");
        let saved = std::fs::read(&summaries).expect("summaries");
        let mut grown = std::fs::OpenOptions::new()
            .append(true)
            .open(&session)
            .expect("open");
        let before = truth();
        let line = concat!(
            r#"{"type":"message","id":"zz000001","parentId":null,"#,
            r#""timestamp":"2026-06-01T00:00:00.000Z","message":{"role":"user","#,
            r#""content":"grown","timestamp":1780272000000}}"#,
            "\n"
        );
        std::io::Write::write_all(&mut grown, line.as_bytes()).expect("append");
        assert!(truth() != before, "{}: the line shows", dir.display());
        same(fast(), &truth(), "a file grew");
        std::io::Write::write_all(&mut grown, b"{\"type\":\"label\"").expect("append");
        same(fast(), &truth(), "a file grew by a line unfinished");
        same(fast(), &truth(), "a file grew, listed again");
        assert!(
            std::fs::read(&summaries).expect("summaries") == saved,
            "{}: a few bytes read are not saved",
            dir.display()
        );
        std::fs::write(&session, &bytes).expect("restore");
        same(fast(), &truth(), "restored");
        let copy = session.with_file_name("zz-copy.jsonl");
        std::fs::copy(&session, &copy).expect("copy");
        same(fast(), &truth(), "with the copy");
        // A file gone that the cache holds a record of: the list is
        // loaded, which forgets the record.
        loaded_rows(&folder, Scope::All, &mut Cache::open(cache_dir.clone()));
        std::fs::remove_file(&copy).expect("remove");
        assert!(fast().is_none(), "{}: a file gone", dir.display());
        loaded_rows(&folder, Scope::All, &mut Cache::open(cache_dir.clone()));
        let want = truth();
        same(fast(), &want, "without the copy");
        // Another sessions folder listed with the same cache, one whose
        // name starts with this one's among them: its records are not this
        // list's, and the list is still printed from the records.
        let more = std::path::PathBuf::from(format!("{}-more", dir.display()));
        for other in [root.path().join("elsewhere"), more.clone()] {
            copy_tree(&dir, &other);
            let other = SessionsFolder::at(other, layout, repo());
            let mut cache = Cache::open(cache_dir.clone());
            let files = catalog::list(&other, Scope::All, &mut cache);
            catalog::load_listed(&other, files, options, &mut cache, &mut |_| {});
        }
        same(fast(), &want, "beside another folder's records");
        // A file gone is forgotten there too.
        let last = session_files(&dir)
            .into_iter()
            .last()
            .expect("a session file");
        let gone = std::fs::read(&last).expect("read");
        std::fs::remove_file(&last).expect("remove");
        assert!(fast().is_none(), "{}: a file gone beside", dir.display());
        loaded_rows(&folder, Scope::All, &mut Cache::open(cache_dir.clone()));
        same(
            fast(),
            &truth(),
            "a file gone beside another folder's records",
        );
        std::fs::write(&last, gone).expect("restore");
        same(fast(), &want, "restored beside another folder's records");
        // The current project's list too, also once a file of it is gone
        // (a list of one project forgets the records of its own files).
        if layout == Layout::PerProject {
            let current = SessionsFolder::at(dir.clone(), layout, "/home/ada/src/compiler".into());
            let project = dir.join("--home-ada-src-compiler--");
            let fast = || {
                let mut cache = Cache::open(cache_dir.clone());
                let files = catalog::list(&current, Scope::Current, &mut cache);
                catalog::cached_list_json(&current, &files, &mut cache)
            };
            let truth = || loaded_rows(&current, Scope::Current, &mut Cache::disabled());
            let want = truth();
            assert!(want.len() > 100, "{}", String::from_utf8_lossy(&want));
            same(fast(), &want, "the current project's");
            let last = session_files(&project).into_iter().last().expect("a file");
            let bytes = std::fs::read(&last).expect("read");
            std::fs::remove_file(&last).expect("remove");
            assert!(fast().is_none(), "{}: a project's file gone", dir.display());
            loaded_rows(
                &current,
                Scope::Current,
                &mut Cache::open(cache_dir.clone()),
            );
            same(fast(), &truth(), "the current project's, a file gone");
            std::fs::write(&last, bytes).expect("restore");
            same(fast(), &want, "the current project's, restored");
        }
        // A session is listed by the list of its own folder only.
        let theirs = more.join(session.strip_prefix(&dir).expect("inside"));
        for (folder, ours, not_ours) in [
            (&folder, &session, &theirs),
            (
                &SessionsFolder::at(more.clone(), layout, repo()),
                &theirs,
                &session,
            ),
        ] {
            let mut cache = Cache::open(cache_dir.clone());
            let files = catalog::list(folder, Scope::All, &mut cache);
            let list = catalog::CachedList::of(folder, &files, &mut cache, true).expect("records");
            assert!(
                list.last_activity(&cache, ours).is_some(),
                "{}",
                ours.display()
            );
            assert!(
                list.last_activity(&cache, not_ours).is_none(),
                "{}",
                not_ours.display()
            );
        }
    }
}

/// The JSON list of `folder` (of `scope`) as a loaded catalog prints it.
fn loaded_rows(folder: &SessionsFolder, scope: Scope, cache: &mut Cache) -> Vec<u8> {
    let options = LoadOptions {
        scope,
        with_text: false,
        with_usage: false,
    };
    let files = catalog::list(folder, scope, cache);
    let cat = catalog::load_listed(folder, files, options, cache, &mut |_| {});
    let mut o = b"[".to_vec();
    for s in cat.sessions.iter().filter(|s| s.skipped_by_pi.is_none()) {
        if o.len() > 1 {
            o.push(b',');
        }
        catalog::summary::list_json::push_session(s, &mut o);
    }
    o.extend_from_slice(b"]\n");
    o
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
        &repo().join("tests/data/golden/corpus/sessions"),
        Layout::PerProject,
    );
    let flat = load(&repo().join("tests/data/catalog-flat"), Layout::Flat);
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
        .arg(repo().join("tests/data/catalog-flat"))
        .output()
        .expect("run piscope");
    assert!(out.status.success());
    assert!(out.stdout.is_empty() || String::from_utf8_lossy(&out.stdout).contains("no sessions"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid regular expression"));
}
