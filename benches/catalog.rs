//! Catalog benchmarks: searching a loaded catalog (what the picker does on
//! every key press) and loading it through a warm cache.
//!
//! The sessions are `$PISCOPE_CATALOG_BENCH` (a sessions root in pi's layout,
//! e.g. `target/bench-catalog/sessions` from scripts/gen-catalog-corpus.sh,
//! 2,000 sessions and 1 GB); otherwise the golden corpus is copied 200 times
//! into a temporary folder.
//!
//! ```text
//! PISCOPE_CATALOG_BENCH=target/bench-catalog/sessions cargo bench --bench catalog
//! ```

use criterion::Criterion;
use piscope::catalog::{self, Cache, Layout, LoadOptions, Query, Scope, SessionsFolder, SortMode};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn sessions_root() -> (PathBuf, Option<tempfile::TempDir>) {
    if let Some(dir) = std::env::var_os("PISCOPE_CATALOG_BENCH") {
        return (PathBuf::from(dir), None);
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden/corpus/sessions");
    for project in std::fs::read_dir(&golden).expect("golden corpus") {
        let project = project.expect("entry").path();
        for copy in 0..200 {
            let to = tmp.path().join(format!(
                "{}-{copy}",
                project.file_name().expect("name").to_string_lossy()
            ));
            std::fs::create_dir_all(&to).expect("mkdir");
            for f in std::fs::read_dir(&project).expect("project") {
                let f = f.expect("file").path();
                std::fs::copy(&f, to.join(f.file_name().expect("name"))).expect("copy");
            }
        }
    }
    (tmp.path().to_path_buf(), Some(tmp))
}

fn folder(root: &Path) -> SessionsFolder {
    SessionsFolder::at(root.to_path_buf(), Layout::PerProject, root.to_path_buf())
}

fn benches(c: &mut Criterion) {
    let (root, _tmp) = sessions_root();
    let options = LoadOptions {
        scope: Scope::All,
        with_text: true,
        with_usage: true,
    };
    let cache_dir = tempfile::tempdir().expect("cache dir");
    let cat = catalog::load(
        &folder(&root),
        options,
        &mut Cache::open(cache_dir.path().into()),
        &mut |_| {},
    );
    let text_mb: usize = cat
        .sessions
        .iter()
        .filter_map(|s| s.text.as_ref())
        .map(|t| t.original().len())
        .sum::<usize>()
        >> 20;
    eprintln!(
        "catalog: {} sessions, {text_mb} MB of message text",
        cat.sessions.len()
    );

    let mut g = c.benchmark_group("search");
    g.measurement_time(Duration::from_secs(5)).sample_size(20);
    for q in [
        "parser",
        "tree session",
        "\"fix bug\"",
        "wbshp",
        "re:wid.et",
        "zzzz-nothing",
    ] {
        let query = Query::parse(q).expect("query");
        // The first search lowers the texts once; the picker keeps them.
        black_box(catalog::filter_and_sort(
            &cat.sessions,
            &query,
            SortMode::Relevance,
            false,
        ));
        g.bench_function(q, |b| {
            b.iter(|| {
                black_box(catalog::filter_and_sort(
                    &cat.sessions,
                    &query,
                    SortMode::Relevance,
                    false,
                ))
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("load");
    g.measurement_time(Duration::from_secs(5)).sample_size(10);
    let listing = LoadOptions {
        scope: Scope::All,
        with_text: false,
        with_usage: true,
    };
    g.bench_function("warm cache, no texts", |b| {
        b.iter(|| {
            let mut cache = Cache::open(cache_dir.path().into());
            black_box(
                catalog::load(&folder(&root), listing, &mut cache, &mut |_| {})
                    .sessions
                    .len(),
            )
        })
    });
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
