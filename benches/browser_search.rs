//! The browser's deep search (Ctrl+F) next to `piscope ls --deep`, on the
//! same sessions, cold (an empty cache: the index is built on the way) and
//! warm (the index read), in interleaved runs. The browser's times run from
//! the key press to the frame that shows the first 100 hits and to the one
//! that shows them all, its worker's work included, as the app does it
//! (the catalog is loaded first, as it is before a user can type). The
//! command line's are whole runs of the release binary, printing JSON.
//!
//! The sessions are `$PISCOPE_CATALOG_BENCH` (a sessions root in pi's
//! layout, e.g. `target/bench-catalog/sessions` from
//! scripts/gen-catalog-corpus.sh, about 2,000 sessions and 1 GB); otherwise
//! 2,000 small generated ones. The query is `$PISCOPE_DEEP_QUERY`, else
//! `widget`; `$PISCOPE_BENCH_RUNS` runs (5).
//!
//! ```text
//! PISCOPE_CATALOG_BENCH=target/bench-catalog/sessions cargo bench --bench browser_search
//! ```

mod common;
use common::{key, settle, write_catalog};
use piscope::catalog::discover::FolderSource;
use piscope::catalog::{Layout, SessionsFolder};
use piscope::tui::clock::Clock;
use piscope::tui::config::Config;
use piscope::tui::draw::draw;
use piscope::tui::event::{AppEvent, Command};
use piscope::tui::state::{App, Start};
use piscope::tui::work::workers::JobContext;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const SIZE: (u16, u16) = (160, 48);

/// The browser with every session listed (all projects), as a user sees
/// it before typing.
fn loaded_app(cx: &JobContext) -> App {
    let (mut app, first) = App::new(
        Start::Catalog { demo: false },
        Config::defaults(false),
        Clock::system(),
        None,
        Rect::new(0, 0, SIZE.0, SIZE.1),
    );
    settle(&mut app, first, cx, &|c| {
        matches!(c, Command::LoadCatalog { .. })
    });
    assert!(!app.picker().sessions().is_empty(), "no sessions listed");
    app
}

/// Types `query` and presses Ctrl+F; runs the deep search on a worker as
/// the app does, drawing each batch of hits. The times to the frame with
/// the first hits and to the one with all of them, and the hits.
fn browser_search(cx: &JobContext, query: &str) -> (Duration, Duration, usize) {
    let mut app = loaded_app(cx);
    let mut term = Terminal::new(TestBackend::new(SIZE.0, SIZE.1)).expect("a terminal");
    for c in query.chars() {
        app.update(key(&c.to_string()));
    }
    let started = Instant::now();
    let cmds = app.update(key("ctrl+f"));
    let search = cmds
        .into_iter()
        .find(|c| matches!(c, Command::DeepSearch { .. }))
        .expect("Ctrl+F asks for a deep search");
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(|| {
            cx.run(search, &|ev| {
                let _ = tx.send(ev);
            })
        });
        let mut first = None;
        for ev in rx.iter() {
            let done = matches!(ev, AppEvent::DeepSearchDone(_));
            app.update(ev);
            term.draw(|f| draw(f, &app)).expect("draw");
            first.get_or_insert_with(|| started.elapsed());
            if done {
                let all = started.elapsed();
                let hits = app.picker().deep_search().map_or(0, |d| d.hits().len());
                return (first.unwrap_or(all), all, hits);
            }
        }
        panic!("the deep search never finished");
    })
}

/// One run of `piscope ls --all --deep --json --query QUERY`; its time and
/// the hits it printed.
fn ls_deep(agent: &Path, cache: &Path, query: &str) -> (Duration, usize) {
    let started = Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(["ls", "--all", "--deep", "--json", "--query", query])
        .env("PI_CODING_AGENT_DIR", agent)
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env("XDG_CACHE_HOME", cache)
        .output()
        .expect("run piscope");
    let took = started.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    (took, hits.as_array().map_or(0, Vec::len))
}

fn median(mut v: Vec<Duration>) -> (Duration, Duration, Duration) {
    v.sort();
    (v[0], v[v.len() / 2], v[v.len() - 1])
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let sessions: PathBuf = match std::env::var_os("PISCOPE_CATALOG_BENCH") {
        Some(root) => PathBuf::from(root),
        None => {
            let root = tmp.path().join("agent/sessions");
            // Every tenth message names a widget.
            write_catalog(&root, 40, &|i| {
                if i % 10 == 0 {
                    "the widget renders twice"
                } else {
                    "the parser and the tree"
                }
            });
            root
        }
    };
    let sessions = std::path::absolute(&sessions).expect("an absolute path");
    let agent = sessions.parent().expect("the agent folder").to_path_buf();
    let query = std::env::var("PISCOPE_DEEP_QUERY").unwrap_or_else(|_| "widget".into());
    let runs: usize = std::env::var("PISCOPE_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5)
        .max(1);
    let cache = tmp.path().join("cache");
    let folder = SessionsFolder {
        dir: sessions.clone(),
        layout: Layout::PerProject,
        source: FolderSource::Default,
        cwd: "/".into(),
    };
    let mut cx = JobContext::new(None, Some(folder), true, "/".into());
    cx.cache_dir = Some(cache.join("piscope"));
    let [mut b_first, mut b_all, mut b_cold_first, mut b_cold_all]: [Vec<Duration>; 4] =
        Default::default();
    let (mut l_warm, mut l_cold) = (Vec::new(), Vec::new());
    let (mut browser_hits, mut ls_hits) = (0, 0);
    // Interleaved: each run, cold then warm, the command line then the
    // browser, so a slow spell of the machine falls on both.
    for run in 0..runs {
        let _ = std::fs::remove_dir_all(&cache);
        let (t, n) = ls_deep(&agent, &cache, &query);
        l_cold.push(t);
        ls_hits = n;
        let (t, _) = ls_deep(&agent, &cache, &query);
        l_warm.push(t);
        let _ = std::fs::remove_dir_all(&cache);
        // The catalog's own cache is warmed first: the browser lists the
        // sessions before the user types, so only the deep index is cold.
        drop(loaded_app(&cx));
        let (first, all, _) = browser_search(&cx, &query);
        b_cold_first.push(first);
        b_cold_all.push(all);
        let (first, all, n) = browser_search(&cx, &query);
        b_first.push(first);
        b_all.push(all);
        browser_hits = n;
        eprintln!(
            "run {}: ls --deep warm {:.0} ms, browser warm {:.0} ms",
            run + 1,
            ms(l_warm[run]),
            ms(b_all[run])
        );
    }
    println!(
        "{} ({} MB), query {query:?}; {runs} interleaved runs; min / median / max ms",
        sessions.display(),
        dir_mb(&sessions)
    );
    let row = |what: &str, v: Vec<Duration>| {
        let (lo, mid, hi) = median(v);
        println!(
            "{what:<52} {:>8.1} {:>8.1} {:>8.1}",
            ms(lo),
            ms(mid),
            ms(hi)
        );
    };
    row("ls --all --deep --json, cold (builds the index)", l_cold);
    row("ls --all --deep --json, warm", l_warm);
    row("browser Ctrl+F, cold: first hits on screen", b_cold_first);
    row("browser Ctrl+F, cold: all hits on screen", b_cold_all);
    row("browser Ctrl+F, warm: first hits on screen", b_first);
    row("browser Ctrl+F, warm: all hits on screen", b_all);
    println!("hits: ls {ls_hits}, browser {browser_hits}");
    assert_eq!(
        ls_hits, browser_hits,
        "the browser and ls --deep find different hits"
    );
}

fn dir_mb(dir: &Path) -> u64 {
    let mut bytes = 0;
    for project in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(project.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            bytes += file.metadata().map_or(0, |m| m.len());
        }
    }
    bytes >> 20
}
