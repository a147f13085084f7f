//! How deep search should find a word in the folded texts of every entry:
//! a parallel `memmem` scan of the folded text (what the deep-search index
//! does) against a trigram index (each entry listed under every three bytes
//! its folded text holds; a query's candidates are the entries under all of
//! its trigrams, then checked with `memmem`, since pi's words match as
//! substrings). Prints, per needle, the entries matched and the time of
//! each, and what the trigram index costs to build and hold.
//!
//! The sessions are `$PISCOPE_CATALOG_BENCH` (a sessions root in pi's
//! layout, e.g. `target/bench-catalog/sessions` from
//! scripts/gen-catalog-corpus.sh); otherwise the golden corpus.
//!
//! ```text
//! PISCOPE_CATALOG_BENCH=target/bench-catalog/sessions cargo bench --bench deep_index
//! ```

use piscope::jstext::normalize_whitespace_lower;
use piscope::session::content::search_texts;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "../tests/support/mod.rs"]
mod support;
use support::session_files;

/// One session's folded texts, each followed by `\n`, and where each starts.
struct Folded {
    text: Vec<u8>,
    starts: Vec<usize>,
}

fn fold_file(path: &Path) -> Folded {
    let file = std::fs::File::open(path).expect("open");
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut f = Folded {
        text: Vec::new(),
        starts: Vec::new(),
    };
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).expect("read") == 0 {
            break;
        }
        let Ok(serde_json::Value::Object(entry)) =
            serde_json::from_slice::<serde_json::Value>(&line)
        else {
            continue;
        };
        for (_, text) in search_texts(&entry) {
            f.starts.push(f.text.len());
            f.text
                .extend_from_slice(normalize_whitespace_lower(&text).as_bytes());
            f.text.push(b'\n');
        }
    }
    f
}

/// Runs `work` on every session, on every core; the sum of its answers.
fn on_all_cores(sessions: &[Folded], work: &(dyn Fn(&Folded) -> usize + Sync)) -> usize {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut n = 0;
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(f) = sessions.get(i) else { break };
                        n += work(f);
                    }
                    n
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("worker")).sum()
    })
}

/// The entries whose folded text holds `needle`, by scanning.
fn scan(f: &Folded, finder: &memchr::memmem::Finder<'_>) -> usize {
    let mut n = 0;
    let mut from = 0;
    while let Some(p) = finder.find(&f.text[from..]) {
        let at = from + p;
        let k = f.starts.partition_point(|&s| s <= at) - 1;
        n += 1;
        // On from the next entry: one hit per entry.
        from = f.starts.get(k + 1).copied().unwrap_or(f.text.len());
        if from >= f.text.len() {
            break;
        }
    }
    n
}

fn trigram(b: &[u8]) -> u32 {
    u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2])
}

/// Every entry (numbered across all sessions) under each trigram it holds.
struct Trigrams {
    postings: HashMap<u32, Vec<u32>>,
    /// Where each entry is: (session, start, end).
    entries: Vec<(u32, usize, usize)>,
}

fn build_trigrams(sessions: &[Folded]) -> Trigrams {
    let mut postings: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut entries = Vec::new();
    let mut seen: Vec<u32> = Vec::new();
    for (s, f) in sessions.iter().enumerate() {
        for (k, &start) in f.starts.iter().enumerate() {
            let end = f.starts.get(k + 1).map_or(f.text.len(), |&e| e) - 1;
            let id = entries.len() as u32;
            entries.push((s as u32, start, end));
            seen.clear();
            seen.extend(f.text[start..end].windows(3).map(trigram));
            seen.sort_unstable();
            seen.dedup();
            for &t in &seen {
                postings.entry(t).or_default().push(id);
            }
        }
    }
    Trigrams { postings, entries }
}

/// The entries holding `needle`, through the trigram index.
fn by_trigrams(t: &Trigrams, sessions: &[Folded], needle: &[u8]) -> (usize, usize) {
    let finder = memchr::memmem::Finder::new(needle);
    let check =
        |&(s, a, b): &(u32, usize, usize)| finder.find(&sessions[s as usize].text[a..b]).is_some();
    if needle.len() < 3 {
        return (
            t.entries.len(),
            t.entries.iter().filter(|e| check(e)).count(),
        );
    }
    let mut lists: Vec<&Vec<u32>> = Vec::new();
    for w in needle.windows(3) {
        match t.postings.get(&trigram(w)) {
            Some(l) => lists.push(l),
            None => return (0, 0),
        }
    }
    lists.sort_by_key(|l| l.len());
    let mut candidates: Vec<u32> = lists[0].clone();
    for l in &lists[1..] {
        let mut j = 0;
        candidates.retain(|&id| {
            while j < l.len() && l[j] < id {
                j += 1;
            }
            j < l.len() && l[j] == id
        });
    }
    let hits = candidates
        .iter()
        .filter(|&&id| check(&t.entries[id as usize]))
        .count();
    (candidates.len(), hits)
}

fn median_ms(runs: usize, mut f: impl FnMut() -> usize) -> (f64, usize) {
    let mut times = Vec::with_capacity(runs);
    let mut answer = 0;
    for _ in 0..runs {
        let t = Instant::now();
        answer = std::hint::black_box(f());
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    (times[runs / 2], answer)
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not run it.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let root = std::env::var_os("PISCOPE_CATALOG_BENCH").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden/corpus/sessions"),
        PathBuf::from,
    );
    let files = session_files(&root);
    let t = Instant::now();
    let mut sessions: Vec<Option<Folded>> = (0..files.len()).map(|_| None).collect();
    {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let slots: Vec<std::sync::Mutex<&mut Option<Folded>>> =
            sessions.iter_mut().map(std::sync::Mutex::new).collect();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(slot) = slots.get(i) else { break };
                        **slot.lock().expect("slot") = Some(fold_file(&files[i]));
                    }
                });
            }
        });
    }
    let sessions: Vec<Folded> = sessions.into_iter().flatten().collect();
    let folded: usize = sessions.iter().map(|f| f.text.len()).sum();
    let entries: usize = sessions.iter().map(|f| f.starts.len()).sum();
    println!(
        "{} sessions, {entries} entries, {} MB folded (read in {:.1} s)",
        sessions.len(),
        folded >> 20,
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let tri = build_trigrams(&sessions);
    let postings: usize = tri.postings.values().map(Vec::len).sum();
    println!(
        "trigram index: built in {:.1} s, {} trigrams, {} MB of postings (u32)",
        t.elapsed().as_secs_f64(),
        tri.postings.len(),
        (postings * 4) >> 20
    );
    println!(
        "{:<22} {:>9} {:>11} {:>13} {:>11}",
        "needle", "entries", "scan ms", "trigram ms", "candidates"
    );
    for needle in [
        "widget",
        "the",
        "render pane",
        "refactor module",
        "cargo clippy",
        "thinking",
        "qzxv",
        "e",
    ] {
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        let (scan_ms, scanned) = median_ms(5, || on_all_cores(&sessions, &|f| scan(f, &finder)));
        let mut candidates = 0;
        let (tri_ms, found) = median_ms(5, || {
            let (c, n) = by_trigrams(&tri, &sessions, needle.as_bytes());
            candidates = c;
            n
        });
        assert_eq!(scanned, found, "{needle}: both find the same entries");
        println!("{needle:<22} {scanned:>9} {scan_ms:>11.1} {tri_ms:>13.1} {candidates:>11}");
    }
}
