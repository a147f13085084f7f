//! Browser benchmarks: a key press redrawn on a 100,000-entry session, and
//! the first frames while 2,000 sessions load. Frames go to ratatui's test
//! backend; work the app hands to workers is left out of the key-press
//! timing, as in the real app, where it runs off the UI thread, except in
//! the "with its work" benches, which run it all on this thread (the
//! preview built or its blocks laid out) before the frame is drawn.
//!
//! ```text
//! cargo bench --bench tui
//! ```

use criterion::Criterion;
use piscope::catalog::discover::FolderSource;
use piscope::catalog::{Layout, SessionsFolder};
use piscope::tui::clock::Clock;
use piscope::tui::config::Config;
use piscope::tui::draw::draw;
use piscope::tui::event::{AppEvent, Command};
use piscope::tui::model::sessions::CatalogUpdate;
use piscope::tui::state::{App, Start};
use piscope::tui::work::workers::JobContext;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
mod common;
use common::{key, message, settle, write_catalog};
use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const SIZE: (u16, u16) = (160, 48);
const NOW: i64 = 1_768_158_000_000;

/// A session of `n` entries: one long conversation with a side branch of
/// three entries every 500 entries, so the tree has forks all the way down.
fn write_session(path: &Path, n: usize) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("bench file"));
    writeln!(
        out,
        r#"{{"type":"session","version":3,"id":"bench","timestamp":"2026-01-11T00:00:00.000Z","cwd":"/home/ada/bench"}}"#
    )
    .expect("write");
    let mut id = 1;
    let mut parent: Option<usize> = None;
    while id <= n {
        let role = if id % 2 == 1 { "user" } else { "assistant" };
        let text = format!("{role} turn {id} about the parser, the tree and the preview pane");
        writeln!(out, "{}", message(id, parent, id, role, &text)).expect("write");
        if id % 500 == 0 && id + 3 <= n {
            let fork = id;
            for k in 1..=3 {
                let side = id + k;
                let from = if k == 1 { fork } else { side - 1 };
                writeln!(
                    out,
                    "{}",
                    message(side, Some(from), side, "user", "a side branch")
                )
                .expect("write");
            }
            id += 3;
            parent = Some(fork);
        } else {
            parent = Some(id);
        }
        id += 1;
    }
    out.flush().expect("write");
}

fn terminal() -> Terminal<TestBackend> {
    match Terminal::new(TestBackend::new(SIZE.0, SIZE.1)) {
        Ok(t) => t,
        Err(e) => match e {},
    }
}

/// Opens `path` and runs the work until the tree is shown.
fn open(path: &Path) -> App {
    let (mut app, first) = App::new(
        Start::File(path.to_path_buf()),
        Config::defaults(false),
        Clock::fixed(NOW, 0),
        None,
        Rect::new(0, 0, SIZE.0, SIZE.1),
    );
    let cx = JobContext::new(None, None, false, "/".into());
    settle(&mut app, first, &cx, &|c| {
        !matches!(c, Command::BuildPreview(_))
    });
    app
}

fn key_press(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("big.jsonl");
    write_session(&path, 100_000);
    let started = Instant::now();
    let mut app = open(&path);
    eprintln!(
        "100,000-entry session read and laid out in {:?} ({} rows)",
        started.elapsed(),
        app.tree().rows().len()
    );
    let mut term = terminal();
    let mut group = c.benchmark_group("tui");
    group.measurement_time(Duration::from_secs(5));
    let mut down = true;
    group.bench_function("key press redraw, 100k entries", |b| {
        b.iter(|| {
            let ev = key(if down { "down" } else { "up" });
            down = !down;
            black_box(app.update(ev));
            term.draw(|f| draw(f, &app)).map(|_| ()).unwrap_or(());
        })
    });
    app.update(key("home"));
    group.bench_function("page down redraw, 100k entries", |b| {
        b.iter(|| {
            black_box(app.update(key("pagedown")));
            term.draw(|f| draw(f, &app)).map(|_| ()).unwrap_or(());
        })
    });
    group.bench_function("filter change, 100k entries", |b| {
        b.iter(|| {
            black_box(app.update(key("ctrl+t")));
            term.draw(|f| draw(f, &app)).map(|_| ()).unwrap_or(());
        })
    });
    group.finish();
    // The preview of the leaf is the whole context: built on a worker in the
    // app, timed here on its own.
    app.update(key("ctrl+d"));
    app.update(key("g"));
    let request = app.update(AppEvent::Resize(SIZE.0 + 2, SIZE.1));
    let mut group = c.benchmark_group("tui");
    group.sample_size(10);
    if let Some(Command::BuildPreview(req)) = request
        .into_iter()
        .find(|c| matches!(c, Command::BuildPreview(_)))
    {
        group.bench_function("context preview at the leaf, 100k entries (worker)", |b| {
            b.iter(|| black_box(piscope::tui::model::preview_doc::build(&req)))
        });
    }
    // Live reload: one entry appended, read on and laid out again (the
    // worker's part of showing it), then the tree rebuilt on screen.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("append");
    let leaf = 100_000 - 1;
    let line = message(100_000, Some(leaf), 100_000, "user", "one more");
    std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()).expect("append");
    let cx = JobContext::new(None, None, false, "/".into());
    let refresh = app.update(AppEvent::FileChanged(path.clone()));
    group.bench_function("one appended entry shown, 100k entries", |b| {
        b.iter(|| {
            for cmd in refresh.iter().cloned() {
                if let Command::RefreshSession { .. } = cmd {
                    let (tx, rx) = mpsc::channel();
                    cx.run(cmd, &|ev| {
                        let _ = tx.send(ev);
                    });
                    for ev in rx.try_iter() {
                        black_box(app.update(ev));
                    }
                }
            }
        })
    });
    group.finish();
}

fn first_frames(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    write_catalog(dir.path(), 20, &|_| "session text to search");
    let folder = SessionsFolder {
        dir: dir.path().to_path_buf(),
        layout: Layout::PerProject,
        source: FolderSource::Default,
        cwd: "/home/ada/p3".into(),
    };
    let mut group = c.benchmark_group("tui");
    group.sample_size(10);
    group.bench_function("first frame, catalog start", |b| {
        let mut term = terminal();
        b.iter(|| {
            let (app, first) = App::new(
                Start::Catalog { demo: false },
                Config::defaults(false),
                Clock::fixed(NOW, 0),
                None,
                Rect::new(0, 0, SIZE.0, SIZE.1),
            );
            term.draw(|f| draw(f, &app)).map(|_| ()).unwrap_or(());
            black_box(first);
        })
    });
    group.bench_function("first sessions on screen, 2,000 sessions cold", |b| {
        let mut term = terminal();
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let started = Instant::now();
                let (mut app, _) = App::new(
                    Start::Catalog { demo: false },
                    Config::defaults(false),
                    Clock::fixed(NOW, 0),
                    None,
                    Rect::new(0, 0, SIZE.0, SIZE.1),
                );
                term.draw(|f| draw(f, &app)).map(|_| ()).unwrap_or(());
                let (tx, rx) = mpsc::channel();
                let cx = JobContext::new(None, Some(folder.clone()), false, "/home/ada/p3".into());
                let worker = std::thread::spawn(move || {
                    cx.run(Command::LoadCatalog { demo: false }, &|ev| {
                        let _ = tx.send(ev);
                    })
                });
                for ev in rx.iter() {
                    let batch = matches!(ev, AppEvent::Catalog(CatalogUpdate::Batch { .. }));
                    let done = matches!(ev, AppEvent::Catalog(CatalogUpdate::Done { .. }));
                    black_box(app.update(ev));
                    if batch || done {
                        term.draw(|f| draw(f, &app)).map(|_| ()).unwrap_or(());
                        total += started.elapsed();
                        break;
                    }
                }
                // Let the load finish before the next round.
                for _ in rx.iter() {}
                let _ = worker.join();
            }
            total
        })
    });
    group.finish();
}

/// A session of `n` entries as pi writes a working session: a user turn,
/// then an assistant turn that thinks, says something in markdown and runs
/// a command, then the command's output; one long branch.
fn write_working_session(path: &Path, n: usize) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("bench file"));
    writeln!(
        out,
        r#"{{"type":"session","version":3,"id":"bench","timestamp":"2026-01-11T00:00:00.000Z","cwd":"/home/ada/bench"}}"#
    )
    .expect("write");
    let mut parent = "null".to_string();
    for id in 1..=n {
        let message = match id % 3 {
            1 => format!(
                r#"{{"role":"user","content":"Turn {id}: make the **parser** keep `pos` and add a test.","timestamp":{id}}}"#
            ),
            2 => format!(
                r#"{{"role":"assistant","provider":"p","model":"m","stopReason":"toolUse","timestamp":{id},"content":[{{"type":"thinking","thinking":"The parser needs a position.
Read it first, then run the tests."}},{{"type":"text","text":"I'll run the tests:

```rust
fn parse(s: &str) -> Option<u32> {{ s.parse().ok() }}
```"}},{{"type":"toolCall","id":"c{id}","name":"bash","arguments":{{"command":"cargo test 2>&1 | tail -10"}}}}]}}"#
            ),
            _ => format!(
                r#"{{"role":"toolResult","toolCallId":"c{}","toolName":"bash","isError":false,"timestamp":{id},"content":[{{"type":"text","text":"[32m   Compiling[0m parser v0.1.0
running 12 tests
test a ... ok
test b ... ok
test c ... ok
test d ... ok
test e ... ok
test f ... ok
test result: ok. 12 passed"}}]}}"#,
                id - 1
            ),
        };
        writeln!(
            out,
            r#"{{"type":"message","id":"{id:08x}","parentId":{parent},"timestamp":"2026-01-11T00:00:00.000Z","message":{message}}}"#
        )
        .expect("write");
        parent = format!("\"{id:08x}\"");
    }
    out.flush().expect("write");
}

/// Key presses whose work (the preview built, its blocks laid out) is done
/// before the frame is drawn: what the reader waits for.
fn preview_key_press(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("working.jsonl");
    write_working_session(&path, 100_000);
    let mut h = piscope::tui::harness::Harness::file(&path, SIZE);
    let mut group = c.benchmark_group("tui");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(10));
    let mut down = true;
    group.bench_function(
        "tree key press, preview built and redrawn, 100k entries (with its work)",
        |b| {
            b.iter(|| {
                h.key(if down { "down" } else { "up" });
                down = !down;
                black_box(h.frame());
            })
        },
    );
    h.key("tab");
    // The marked block: one that folds (the last command's output).
    for _ in 0..10 {
        if h.app.preview().cursor_block().is_some_and(|b| b.foldable()) {
            break;
        }
        h.key("p");
    }
    group.bench_function(
        "preview fold key (o) redrawn, 100k entries (with its work)",
        |b| {
            b.iter(|| {
                h.key("o");
                black_box(h.frame());
            })
        },
    );
    let mut next = true;
    group.bench_function(
        "preview block key (n/p) redrawn, 100k entries (with its work)",
        |b| {
            b.iter(|| {
                h.key(if next { "p" } else { "n" });
                next = !next;
                black_box(h.frame());
            })
        },
    );
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    preview_key_press(&mut c);
    key_press(&mut c);
    first_frames(&mut c);
    c.final_summary();
}
