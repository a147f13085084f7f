//! Opening one large session in the browser, as its worker does: a whole
//! read (the first open) against a read of its stored index (every open
//! after), in interleaved runs, with what each keeps in memory. The session
//! is `$PISCOPE_OPEN_BENCH` (e.g. the 100 MB session of
//! `node tests/pi/gen-corpus.mjs --out target/bench-big --sessions 1 --big
//! 100`); `$PISCOPE_BENCH_RUNS` runs (5). The whole app, terminal and
//! preview included, is timed by `scripts/bench-open.sh`.
//!
//! ```text
//! PISCOPE_OPEN_BENCH=path/to/session.jsonl cargo bench --bench browser_open
//! ```

use piscope::tui::model::loaded::LoadedSession;
use piscope::tui::model::session_index;
use std::path::Path;
use std::time::{Duration, Instant};

/// Resident memory of this process, in MB (after handing freed memory back).
fn resident_mb() -> f64 {
    piscope::tui::model::sessions::release_freed_memory();
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let Some(path) = std::env::var_os("PISCOPE_OPEN_BENCH") else {
        eprintln!("browser_open: set PISCOPE_OPEN_BENCH to a session file");
        return;
    };
    let path = Path::new(&path);
    let runs: usize = std::env::var("PISCOPE_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let cache = tempfile::tempdir().expect("a temp dir");
    let home = Some("/home/ada");
    let base = resident_mb();
    let first = LoadedSession::open(path, home).expect("the session reads");
    let whole_mb = resident_mb() - base;
    let t = Instant::now();
    session_index::save(cache.path(), &first, home).expect("the index is written");
    let saved = t.elapsed();
    drop(first);
    let index_bytes: u64 = std::fs::read_dir(session_index::folder(cache.path()))
        .expect("the index folder")
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    let (mut whole, mut indexed) = (Vec::new(), Vec::new());
    let mut index_mb = 0.0;
    // The whole read again, then the index, in turn (`$PISCOPE_BENCH_WHOLE=0`
    // times only the index, for a file whose whole read takes minutes).
    let again = std::env::var("PISCOPE_BENCH_WHOLE").map_or(true, |v| v != "0");
    for _ in 0..runs {
        if again {
            let t = Instant::now();
            let l = LoadedSession::open(path, home).expect("the session reads");
            whole.push(t.elapsed());
            drop(l);
        }
        let before = resident_mb();
        let t = Instant::now();
        let o = session_index::load(cache.path(), path, home).expect("the index reads");
        indexed.push(t.elapsed());
        index_mb = resident_mb() - before;
        drop(o);
    }
    let file = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    println!(
        "{}: {:.0} MB; index {:.1} MB, written in {saved:.2?}",
        path.display(),
        file as f64 / 1e6,
        index_bytes as f64 / 1e6
    );
    if !whole.is_empty() {
        println!(
            "whole read  median {:>9.2?}   keeps {whole_mb:.1} MB",
            median(whole)
        );
    }
    println!(
        "from index  median {:>9.2?}   keeps {index_mb:.1} MB",
        median(indexed)
    );
}
