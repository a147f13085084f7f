//! The catalog cache: unchanged files are not read again, grown files are
//! read on from where the cache stopped, shrunk or replaced files are read
//! whole, a damaged cache is rebuilt, and concurrent writers never corrupt
//! it. Every answer must equal a load without the cache.

use crate::support as common;

use piscope::catalog::{
    self, Cache, Layout, LoadOptions, LoadStats, Query, Scope, SessionSummary, SessionsFolder,
    SortMode,
};
use std::io::Write;
use std::path::{Path, PathBuf};

use common::copy_corpus;

fn folder(root: &Path) -> SessionsFolder {
    SessionsFolder::at(root.to_path_buf(), Layout::PerProject, root.to_path_buf())
}

fn load(root: &Path, cache: &mut Cache, with_text: bool) -> (Vec<String>, LoadStats) {
    let options = LoadOptions {
        scope: Scope::All,
        with_text,
        with_usage: true,
    };
    let cat = catalog::load(&folder(root), options, cache, &mut |_| {});
    assert!(cat.problems.is_empty(), "{:?}", cat.problems);
    (cat.sessions.iter().map(describe).collect(), cat.stats)
}

/// Everything a summary says, as text.
fn describe(s: &SessionSummary) -> String {
    format!(
        "{:?}",
        (
            &s.path,
            &s.id,
            &s.name,
            s.modified_ms,
            s.message_count,
            &s.first_message,
            (
                s.entries,
                s.leaves,
                s.labels,
                s.compactions,
                s.damaged_lines
            ),
            (s.size, &s.models, s.tokens, s.cost),
            s.text.as_ref().map(|t| t.original().to_string()),
        )
    )
}

fn fresh(root: &Path, with_text: bool) -> Vec<String> {
    load(root, &mut Cache::disabled(), with_text).0
}

fn newest_file(root: &Path) -> PathBuf {
    let mut files: Vec<PathBuf> = walk(root);
    files.sort();
    files.pop().expect("a session file")
}

fn walk(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in std::fs::read_dir(root).expect("root") {
        for f in std::fs::read_dir(d.expect("dir").path()).expect("project") {
            out.push(f.expect("file").path());
        }
    }
    out
}

const NEW_LINE: &str = r#"{"type":"message","id":"feedbeef","parentId":null,"timestamp":"2030-01-01T00:00:00.000Z","message":{"role":"user","content":"a brand new zebra question","timestamp":1893456000000}}"#;

#[test]
fn unchanged_files_come_from_the_cache() {
    let (_tmp, root) = copy_corpus();
    let cache_dir = tempfile::tempdir().expect("cache dir");
    let n = walk(&root).len();
    let (first, stats) = load(&root, &mut Cache::open(cache_dir.path().into()), false);
    assert_eq!(stats.read_whole, n);
    let (second, stats) = load(&root, &mut Cache::open(cache_dir.path().into()), false);
    assert_eq!(
        stats,
        LoadStats {
            from_cache: n,
            resumed: 0,
            read_whole: 0
        }
    );
    assert_eq!(first, second);
    assert_eq!(second, fresh(&root, false));
}

#[test]
fn a_grown_file_is_read_on_from_where_the_cache_stopped() {
    let (_tmp, root) = copy_corpus();
    let cache_dir = tempfile::tempdir().expect("cache dir");
    let n = walk(&root).len();
    load(&root, &mut Cache::open(cache_dir.path().into()), true);
    let file = newest_file(&root);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .expect("open");
    writeln!(f, "{NEW_LINE}").expect("append");
    drop(f);
    let (got, stats) = load(&root, &mut Cache::open(cache_dir.path().into()), true);
    assert_eq!(
        stats,
        LoadStats {
            from_cache: n - 1,
            resumed: 1,
            read_whole: 0
        }
    );
    assert_eq!(got, fresh(&root, true));
    assert!(
        got.iter().any(|d| d.contains("zebra")),
        "the new text is searchable"
    );
    // And a search sees it.
    let cat = catalog::load(
        &folder(&root),
        LoadOptions {
            scope: Scope::All,
            with_text: true,
            with_usage: true,
        },
        &mut Cache::open(cache_dir.path().into()),
        &mut |_| {},
    );
    let q = Query::parse("zebra").expect("query");
    assert_eq!(
        catalog::filter_and_sort(&cat.sessions, &q, SortMode::Recent, false).len(),
        1
    );
}

#[test]
fn a_half_written_line_is_counted_then_resumed_when_complete() {
    let (_tmp, root) = copy_corpus();
    let cache_dir = tempfile::tempdir().expect("cache dir");
    load(&root, &mut Cache::open(cache_dir.path().into()), false);
    let file = newest_file(&root);
    let (head, tail) = NEW_LINE.split_at(40);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .expect("open");
    write!(f, "{head}").expect("append");
    let (got, _) = load(&root, &mut Cache::open(cache_dir.path().into()), false);
    assert_eq!(got, fresh(&root, false));
    writeln!(f, "{tail}").expect("append");
    drop(f);
    let (got, stats) = load(&root, &mut Cache::open(cache_dir.path().into()), false);
    assert_eq!(stats.resumed, 1);
    assert_eq!(got, fresh(&root, false));
}

#[test]
fn shrunk_or_replaced_files_are_read_whole() {
    let (_tmp, root) = copy_corpus();
    let cache_dir = tempfile::tempdir().expect("cache dir");
    load(&root, &mut Cache::open(cache_dir.path().into()), false);
    let mut files = walk(&root);
    files.sort();
    // Shrink one: keep its first half of lines.
    let text = std::fs::read_to_string(&files[0]).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&files[0], lines[..lines.len() / 2].join("\n") + "\n").expect("write");
    // Replace another with a longer file whose header differs.
    let other = std::fs::read_to_string(&files[2]).expect("read");
    let header_changed = other.replacen("\"version\":3", "\"version\":3 ", 1) + NEW_LINE + "\n";
    std::fs::write(&files[1], header_changed).expect("write");
    let (got, stats) = load(&root, &mut Cache::open(cache_dir.path().into()), false);
    assert_eq!(stats.read_whole, 2, "{stats:?}");
    assert_eq!(got, fresh(&root, false));
    // A deleted file disappears from the cache (its record goes: the
    // summaries file is written again, smaller); an unchanged folder
    // leaves the file as it was.
    let summaries = |dir: &Path| {
        let mut files = std::fs::read_dir(dir).expect("cache dir").flatten();
        let f = files.find(|f| f.file_name().to_string_lossy().contains("summaries"));
        std::fs::read(f.expect("a summaries file").path()).expect("read")
    };
    let before = summaries(cache_dir.path());
    load(&root, &mut Cache::open(cache_dir.path().into()), false);
    assert_eq!(summaries(cache_dir.path()), before, "nothing to write");
    std::fs::remove_file(&files[3]).expect("remove");
    let (got, stats) = load(&root, &mut Cache::open(cache_dir.path().into()), false);
    assert_eq!(stats.read_whole, 0);
    assert_eq!(got, fresh(&root, false));
    assert!(
        summaries(cache_dir.path()).len() < before.len(),
        "record forgotten"
    );
}

/// Tokens and cost left unread (pi's JSON list has none) leave the rest of
/// every summary as it is; a cache still totals them, for the loads after.
#[test]
fn usage_unwanted_is_left_unread_except_for_the_cache() {
    let (_tmp, root) = copy_corpus();
    let load_as = |cache: &mut Cache, with_usage: bool| {
        let options = LoadOptions {
            scope: Scope::All,
            with_text: false,
            with_usage,
        };
        let cat = catalog::load(&folder(&root), options, cache, &mut |_| {});
        assert!(cat.problems.is_empty(), "{:?}", cat.problems);
        cat.sessions
    };
    let full = load_as(&mut Cache::disabled(), true);
    assert!(full.iter().any(|s| s.cost > 0.0 && s.tokens > 0.0));
    let bare = load_as(&mut Cache::disabled(), false);
    assert!(bare.iter().all(|s| s.cost == 0.0 && s.tokens == 0.0));
    let without = |s: &[SessionSummary]| {
        let mut s = s.to_vec();
        for s in &mut s {
            (s.tokens, s.cost) = (0.0, 0.0);
        }
        s.iter().map(describe).collect::<Vec<_>>()
    };
    assert_eq!(without(&bare), without(&full));
    let cache_dir = tempfile::tempdir().expect("cache dir");
    let cold = load_as(&mut Cache::open(cache_dir.path().into()), false);
    let warm = load_as(&mut Cache::open(cache_dir.path().into()), true);
    for got in [cold, warm] {
        assert_eq!(
            got.iter().map(describe).collect::<Vec<_>>(),
            full.iter().map(describe).collect::<Vec<_>>()
        );
    }
}

#[test]
fn a_damaged_or_foreign_cache_is_rebuilt_silently() {
    let (_tmp, root) = copy_corpus();
    let cache_dir = tempfile::tempdir().expect("cache dir");
    let n = walk(&root).len();
    load(&root, &mut Cache::open(cache_dir.path().into()), true);
    for entry in std::fs::read_dir(cache_dir.path()).expect("cache dir") {
        let path = entry.expect("entry").path();
        let mut bytes = std::fs::read(&path).expect("read");
        let half = bytes.len() / 2;
        bytes.truncate(half);
        bytes.extend_from_slice(b"\xff\x00garbage");
        std::fs::write(&path, bytes).expect("write");
    }
    let (got, stats) = load(&root, &mut Cache::open(cache_dir.path().into()), true);
    assert_eq!(stats.read_whole, n);
    assert_eq!(got, fresh(&root, true));
    let (_, stats) = load(&root, &mut Cache::open(cache_dir.path().into()), true);
    assert_eq!(stats.from_cache, n, "rebuilt");
}

#[test]
fn concurrent_piscopes_never_corrupt_the_cache() {
    let (_tmp, root) = copy_corpus();
    let agent = root.parent().expect("agent dir").to_path_buf();
    let cache_home = tempfile::tempdir().expect("cache home");
    let expected = {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_piscope"))
            .args(["ls", "--all", "--json", "--no-cache"])
            .env("PI_CODING_AGENT_DIR", &agent)
            .output()
            .expect("run");
        out.stdout
    };
    let file = newest_file(&root);
    let run = |query: bool| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_piscope"));
        cmd.args(["ls", "--all", "--json"]);
        if query {
            cmd.args(["--query", "the"]);
        }
        cmd.env("PI_CODING_AGENT_DIR", &agent)
            .env("XDG_CACHE_HOME", cache_home.path())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    for round in 0..8 {
        // Three processes at once, one or two of them also writing texts
        // (each renames its own over the other's), while the newest file grows.
        let a = run(round % 2 == 0);
        let b = run(round % 2 == 1);
        let c = run(round % 4 < 2);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .expect("open");
        writeln!(
            f,
            "{}",
            NEW_LINE.replace("feedbeef", &format!("feed{round:04}"))
        )
        .expect("append");
        drop(f);
        for child in [a, b, c] {
            let out = child.wait_with_output().expect("wait");
            assert!(out.status.success());
            serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("valid JSON");
        }
    }
    // After the dust settles, the cache gives what a fresh read gives.
    let expected_now = std::process::Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(["ls", "--all", "--json", "--no-cache"])
        .env("PI_CODING_AGENT_DIR", &agent)
        .output()
        .expect("run")
        .stdout;
    assert_ne!(expected, expected_now, "the file grew");
    let cached = run(false).wait_with_output().expect("wait").stdout;
    assert_eq!(
        String::from_utf8_lossy(&cached),
        String::from_utf8_lossy(&expected_now)
    );
    let mut cache = Cache::open(cache_home.path().join("piscope"));
    let (got, stats) = load(&root, &mut cache, true);
    assert_eq!(got, fresh(&root, true));
    assert!(stats.from_cache + stats.resumed > 0, "{stats:?}");
    // And its texts search as a fresh read does.
    let cached = load_sessions(&root, &mut Cache::open(cache_home.path().join("piscope")));
    assert_eq!(
        answers(&cached),
        answers(&load_sessions(&root, &mut Cache::disabled()))
    );
}

#[test]
fn progress_reports_every_file_newest_first() {
    let (_tmp, root) = copy_corpus();
    let mut files = walk(&root);
    // Give each file a distinct mtime, in name order.
    files.sort();
    for (i, f) in files.iter().enumerate() {
        let t = std::time::SystemTime::UNIX_EPOCH
            + std::time::Duration::from_secs(1_800_000_000 + i as u64 * 60);
        std::fs::File::options()
            .write(true)
            .open(f)
            .expect("open")
            .set_modified(t)
            .expect("mtime");
    }
    let mut total = None;
    let mut seen = Vec::new();
    let mut dones = Vec::new();
    let options = LoadOptions {
        scope: Scope::All,
        with_text: false,
        with_usage: true,
    };
    let cat = catalog::load(
        &folder(&root),
        options,
        &mut Cache::disabled(),
        &mut |p| match p {
            catalog::Progress::Started { total: t } => total = Some(t),
            catalog::Progress::Loaded {
                done,
                total: t,
                summary,
            } => {
                assert_eq!(Some(t), total);
                dones.push(done);
                seen.extend(summary.map(|s| s.path.clone()));
            }
            catalog::Progress::Glimpse(_) => panic!("a glimpse without a cache"),
        },
    );
    assert_eq!(total, Some(files.len()));
    assert_eq!(dones, (1..=files.len()).collect::<Vec<_>>());
    assert_eq!(seen.len(), cat.sessions.len());
    // Work is handed out newest file first (which finishes first depends
    // on the threads).
    let mut problems = Vec::new();
    let order = catalog::discover::candidates(&folder(&root), Scope::All, &mut problems);
    let newest = files.last().expect("a file");
    assert_eq!(&order[0].path, newest);
    let mut by_time: Vec<_> = order
        .iter()
        .map(|c| c.meta.expect("stat").mtime_ns)
        .collect();
    assert!(by_time.windows(2).all(|w| w[0] >= w[1]));
    by_time.dedup();
    assert_eq!(by_time.len(), files.len());
}

/// With a warm cache, the browser's load first reports a glimpse: before
/// any file is loaded, the newest sessions the cache holds exactly as they
/// are now, each as its load then reports it, without its text. A file
/// changed since is left out of it.
#[test]
fn a_warm_load_first_glimpses_the_newest_unchanged_sessions() {
    let (_tmp, root) = copy_corpus();
    let cache_dir = tempfile::tempdir().expect("cache dir");
    load(&root, &mut Cache::open(cache_dir.path().into()), true);
    let changed = newest_file(&root);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&changed)
        .expect("open");
    writeln!(f, "{NEW_LINE}").expect("append");
    drop(f);
    let options = LoadOptions {
        scope: Scope::All,
        with_text: true,
        with_usage: true,
    };
    let (mut glimpses, mut loaded_before) = (Vec::new(), 0);
    let mut loaded = Vec::new();
    let cat = catalog::load(
        &folder(&root),
        options,
        &mut Cache::open(cache_dir.path().into()),
        &mut |p| match p {
            catalog::Progress::Started { .. } => {}
            catalog::Progress::Glimpse(g) => {
                loaded_before = loaded.len();
                glimpses.push(g.to_vec());
            }
            catalog::Progress::Loaded { summary, .. } => loaded.extend(summary.cloned()),
        },
    );
    assert_eq!(glimpses.len(), 1, "one glimpse");
    assert_eq!(loaded_before, 0, "the glimpse comes before any load");
    let glimpse = &glimpses[0];
    let n = cat.sessions.len();
    assert!(n > 2, "{n} sessions");
    assert_eq!(glimpse.len(), (n - 1).min(catalog::FIRST_SCREEN));
    assert!(
        glimpse
            .iter()
            .all(|s| s.path != changed && s.text.is_none())
    );
    for g in glimpse {
        let final_one = cat.sessions.iter().find(|s| s.path == g.path);
        let final_one = final_one.expect("a glimpsed session is loaded");
        assert!(final_one.text.is_some(), "{}", g.path.display());
        let mut without_text = final_one.clone();
        without_text.text = None;
        assert_eq!(describe(g), describe(&without_text));
    }
    assert_eq!(loaded.len(), n);
}

/// A search of a large cached text reads it in place a window at a time:
/// a word that straddles two windows (the first ends 1 MiB in) is found,
/// as it is without the cache.
#[test]
fn a_word_across_two_windows_of_a_cached_text_is_found() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("sessions");
    let project = root.join("--p--");
    std::fs::create_dir_all(&project).expect("project dir");
    let text = format!("{}NEEDLE", "x".repeat((1 << 20) - 3));
    let lines = [
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-02T03:04:05.000Z","cwd":"/p"}"#.to_string(),
        format!(
            r#"{{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-02T03:05:00.000Z","message":{{"role":"user","content":"{text}","timestamp":1735787100000}}}}"#
        ),
    ];
    std::fs::write(project.join("s.jsonl"), lines.join("\n") + "\n").expect("session");
    let cache_dir = tmp.path().join("cache");
    let search = |cache: &mut Cache, query: &str| {
        let options = LoadOptions {
            scope: Scope::All,
            with_text: true,
            with_usage: true,
        };
        let cat = catalog::load(&folder(&root), options, cache, &mut |_| {});
        let q = Query::parse(query).expect("query");
        catalog::filter_and_sort(&cat.sessions, &q, SortMode::Recent, false).len()
    };
    // The first load fills the cache; the next ones read it mapped.
    assert_eq!(search(&mut Cache::open(cache_dir.clone()), "needle"), 1);
    for (query, want) in [
        ("needle", 1),
        ("xneedle", 1),
        ("\"xx needle\"", 0),
        ("needlex", 0),
    ] {
        assert_eq!(search(&mut Cache::disabled(), query), want, "{query}");
        assert_eq!(
            search(&mut Cache::open(cache_dir.clone()), query),
            want,
            "{query}"
        );
    }
}

/// The session files of `root` plus one whose text spans three blocks of
/// the texts file (1 MiB each), with a word in the last block only.
fn with_a_long_text(root: &Path) {
    let project = root.join("--long--");
    std::fs::create_dir_all(&project).expect("project dir");
    let text = format!("{}quokka", "filler words ".repeat(3 << 20 >> 4));
    let lines = [
        r#"{"type":"session","version":3,"id":"long","timestamp":"2025-01-02T03:04:05.000Z","cwd":"/long"}"#.to_string(),
        format!(
            r#"{{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-02T03:05:00.000Z","message":{{"role":"user","content":"{text}","timestamp":1735787100000}}}}"#
        ),
    ];
    std::fs::write(project.join("long.jsonl"), lines.join("\n") + "\n").expect("session");
}

/// What each query finds (session paths, in order), and every summary.
fn answers(sessions: &[SessionSummary]) -> Vec<String> {
    let mut out: Vec<String> = sessions.iter().map(describe).collect();
    for query in [
        "quokka",
        "filler",
        "the",
        "\"words quokka\"",
        "re:quok+a",
        "zzz-none",
    ] {
        let q = Query::parse(query).expect("query");
        let found = catalog::filter_and_sort(sessions, &q, SortMode::Recent, false);
        out.push(format!(
            "{query}: {:?}",
            found.iter().map(|&i| &sessions[i].path).collect::<Vec<_>>()
        ));
    }
    out
}

fn load_sessions(root: &Path, cache: &mut Cache) -> Vec<SessionSummary> {
    let options = LoadOptions {
        scope: Scope::All,
        with_text: true,
        with_usage: true,
    };
    let cat = catalog::load(&folder(root), options, cache, &mut |_| {});
    assert!(cat.problems.is_empty(), "{:?}", cat.problems);
    cat.sessions
}

/// The texts file is read, never mapped: cut short under a loaded catalog
/// (by another piscope, the user, a failing disk) at any length, searches
/// and texts answer as without the cache (the sessions are read again),
/// where a mapped file kills the process with SIGBUS.
#[test]
fn a_texts_file_cut_short_under_a_search_is_read_again() {
    let (_tmp, root) = copy_corpus();
    with_a_long_text(&root);
    let want = answers(&load_sessions(&root, &mut Cache::disabled()));
    assert!(
        want.iter().any(|a| a.starts_with("quokka: [\"")),
        "{want:?}"
    );
    let cache_dir = tempfile::tempdir().expect("cache dir");
    let texts = cache_dir.path().join("catalog-texts.bin");
    load_sessions(&root, &mut Cache::open(cache_dir.path().into()));
    let full = std::fs::read(&texts).expect("texts file");
    assert!(full.len() > 3 << 20, "{}", full.len());
    for cut in [0, 30, full.len() / 2, full.len() - 10] {
        std::fs::write(&texts, &full).expect("restore");
        let mut cache = Cache::open(cache_dir.path().into());
        let sessions = load_sessions(&root, &mut cache);
        // Cut in place (as another process would), after the catalog
        // opened the file and before it searches it.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&texts)
            .expect("open")
            .set_len(cut as u64)
            .expect("truncate");
        assert_eq!(answers(&sessions), want, "cut at {cut}");
    }
    // Cut while searches run: every answer is still right.
    std::fs::write(&texts, &full).expect("restore");
    let sessions = load_sessions(&root, &mut Cache::open(cache_dir.path().into()));
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(&texts)
                .expect("open");
            let mut len = full.len() as u64;
            while !done.load(std::sync::atomic::Ordering::Relaxed) && len > 0 {
                len = len * 9 / 10;
                f.set_len(len).expect("truncate");
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        });
        for _ in 0..5 {
            assert_eq!(answers(&sessions), want);
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
    });
}
