//! Engine benchmarks: parse, index and context on one session file.
//!
//! The corpus is `$PISCOPE_BENCH_FILE` when set (e.g. a 100 MB session made
//! by `gen-corpus.mjs`); otherwise a deterministic, realistic session is
//! generated here in a temporary folder, so `cargo bench` needs no node
//! (`PISCOPE_BENCH_DUMP=FILE` keeps a copy of it, e.g. to check it against
//! pi's oracle).
//!
//! ```text
//! cargo bench --bench engine
//! PISCOPE_BENCH_FILE=target/bench-big/sessions/.../x.jsonl cargo bench --bench engine
//! cargo bench --bench engine -- context   # one group
//! ```

use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, measurement::WallTime};
use piscope::session::tree::Tree;
use piscope::session::{Detail, LeafSelector, Session};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The session file benchmarked, and the folder that holds it if generated.
struct Corpus {
    path: PathBuf,
    bytes: u64,
    _dir: Option<tempfile::TempDir>,
}

impl Corpus {
    fn get() -> Corpus {
        if let Some(file) = std::env::var_os("PISCOPE_BENCH_FILE") {
            let path = PathBuf::from(file);
            let bytes = std::fs::metadata(&path)
                .unwrap_or_else(|e| panic!("PISCOPE_BENCH_FILE {}: {e}", path.display()))
                .len();
            eprintln!("corpus: {} ({} bytes)", path.display(), bytes);
            return Corpus {
                path,
                bytes,
                _dir: None,
            };
        }
        let dir = tempfile::tempdir().expect("temporary folder");
        let path = dir.path().join("bench-session.jsonl");
        let lines = Generator::new(0x5eed_2026).session(3000);
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).expect("corpus file"));
        for line in &lines {
            out.write_all(line.as_bytes()).expect("write corpus");
            out.write_all(b"\n").expect("write corpus");
        }
        out.flush().expect("write corpus");
        drop(out);
        let bytes = std::fs::metadata(&path).expect("corpus file").len();
        if let Some(copy) = std::env::var_os("PISCOPE_BENCH_DUMP") {
            std::fs::copy(&path, &copy).expect("copy the corpus to PISCOPE_BENCH_DUMP");
        }
        eprintln!(
            "corpus: generated {} lines, {} bytes at {}",
            lines.len(),
            bytes,
            path.display()
        );
        Corpus {
            path,
            bytes,
            _dir: Some(dir),
        }
    }
}

// ---------------------------------------------------------------------------
// A deterministic session generator, shaped like what pi writes.

/// splitmix64: small, deterministic, good enough for test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "the",
    "parser",
    "tree",
    "session",
    "branch",
    "label",
    "compaction",
    "summary",
    "tool",
    "read",
    "write",
    "edit",
    "bash",
    "test",
    "cargo",
    "build",
    "fix",
    "bug",
    "refactor",
    "module",
    "render",
    "pane",
    "widget",
    "event",
    "loop",
    "file",
    "watch",
    "resume",
    "context",
    "message",
    "model",
    "thinking",
    "index",
    "offset",
    "struct",
    "trait",
    "lifetime",
    "borrow",
];

const SPICE: &[&str] = &[
    "",
    " (emoji 🚀✨ and CJK 漢字かな)",
    " \u{1b}[31mred\u{1b}[0m",
    " tabs\tand\r\ncrlf",
    " עברית",
    " e\u{301}",
];

const FILES: &[&str] = &[
    "src/main.rs",
    "src/session/read.rs",
    "src/session/tree.rs",
    "src/ui/pane.rs",
    "Cargo.toml",
    "tests/cli.rs",
];

const MODELS: &[(&str, &str, &str)] = &[
    ("anthropic", "claude-sonnet-4-5", "anthropic-messages"),
    ("openai", "gpt-5.1-codex", "openai-responses"),
];

struct Generator {
    rng: Rng,
    ids: HashSet<String>,
    /// Milliseconds since the epoch.
    now: u64,
    lines: Vec<String>,
    /// Ids from the root to the current leaf.
    path: Vec<String>,
    /// Every entry id written so far.
    all: Vec<String>,
    model: usize,
    call: u64,
}

impl Generator {
    fn new(seed: u64) -> Generator {
        Generator {
            rng: Rng(seed),
            ids: HashSet::new(),
            // 2026-01-05T09:00:00Z
            now: 1_767_603_600_000,
            lines: Vec::new(),
            path: Vec::new(),
            all: Vec::new(),
            model: 0,
            call: 0,
        }
    }

    fn sentence(&mut self, n: u64) -> String {
        let mut s = String::new();
        for k in 0..n {
            if k > 0 {
                s.push(' ');
            }
            s.push_str(self.rng.pick(WORDS));
        }
        s
    }

    fn fresh_id(&mut self) -> String {
        loop {
            let id = format!("{:08x}", self.rng.next() as u32);
            if self.ids.insert(id.clone()) {
                return id;
            }
        }
    }

    fn tick(&mut self, lo: u64, hi: u64) {
        self.now += self.rng.range(lo, hi);
    }

    /// Appends an entry under the current leaf; it becomes the leaf.
    fn append(&mut self, mut entry: Value) -> String {
        let id = self.fresh_id();
        let obj = entry.as_object_mut().expect("entry object");
        obj.insert("id".into(), json!(id));
        obj.insert("parentId".into(), json!(self.path.last()));
        obj.insert("timestamp".into(), json!(iso(self.now)));
        // pi writes type, id, parentId, timestamp first.
        let mut ordered = serde_json::Map::new();
        for key in ["type", "id", "parentId", "timestamp"] {
            if let Some(v) = obj.remove(key) {
                ordered.insert(key.into(), v);
            }
        }
        ordered.extend(std::mem::take(obj));
        self.lines.push(Value::Object(ordered).to_string());
        self.path.push(id.clone());
        self.all.push(id.clone());
        id
    }

    fn message(&mut self, message: Value) -> String {
        self.append(json!({"type": "message", "message": message}))
    }

    fn usage(&mut self) -> Value {
        let input = self.rng.range(2_000, 60_000);
        let output = self.rng.range(50, 4_000);
        let cache = self.rng.range(0, 80_000);
        json!({
            "input": input, "output": output, "cacheRead": cache, "cacheWrite": 0,
            "totalTokens": input + output + cache,
            "cost": {"input": input as f64 * 3e-6, "output": output as f64 * 15e-6,
                     "cacheRead": cache as f64 * 3e-7, "cacheWrite": 0,
                     "total": input as f64 * 3e-6 + output as f64 * 15e-6 + cache as f64 * 3e-7}
        })
    }

    fn assistant(&mut self, content: Vec<Value>, stop: &str) -> String {
        let (provider, model, api) = MODELS[self.model];
        let usage = self.usage();
        let ts = self.now;
        self.message(json!({
            "role": "assistant", "content": content, "api": api, "provider": provider,
            "model": model, "usage": usage, "stopReason": stop, "timestamp": ts
        }))
    }

    /// Multi-line tool output of a few KB, like a file read or a test run.
    fn tool_output(&mut self) -> String {
        let lines = self.rng.range(20, 90);
        let mut out = String::new();
        for n in 1..=lines {
            let words = self.rng.range(4, 14);
            let text = self.sentence(words);
            out.push_str(&format!("{n:>4}: {text}"));
            if self.rng.chance(0.03) {
                out.push_str(self.rng.pick(SPICE));
            }
            out.push('\n');
        }
        out
    }

    /// One turn: a user prompt, a few tool calls and their results, an answer.
    fn turn(&mut self) {
        let words = self.rng.range(6, 40);
        let mut prompt = self.sentence(words);
        prompt.push_str(self.rng.pick(SPICE));
        self.tick(20_000, 300_000);
        let ts = self.now;
        self.message(
            json!({"role": "user", "content": [{"type": "text", "text": prompt}], "timestamp": ts}),
        );
        let calls = self.rng.range(1, 5);
        for _ in 0..calls {
            self.call += 1;
            let call_id = format!("toolu_{:06}", self.call);
            let tool = self.rng.pick(&["read", "bash", "edit", "write"]);
            let file = self.rng.pick(FILES);
            let args = match tool {
                "bash" => {
                    json!({"command": format!("cargo test --quiet -- {}", self.rng.pick(WORDS))})
                }
                "edit" => {
                    json!({"path": file, "oldText": self.sentence(6), "newText": self.sentence(7)})
                }
                _ => json!({"path": file}),
            };
            let mut content = Vec::new();
            if self.rng.chance(0.5) {
                let n = self.rng.range(10, 60);
                content.push(json!({"type": "thinking", "thinking": self.sentence(n), "thinkingSignature": "sig"}));
            }
            let n = self.rng.range(3, 20);
            content.push(json!({"type": "text", "text": self.sentence(n)}));
            content
                .push(json!({"type": "toolCall", "id": call_id, "name": tool, "arguments": args}));
            self.tick(1_000, 20_000);
            self.assistant(content, "toolUse");
            let output = self.tool_output();
            let is_error = self.rng.chance(0.08);
            self.tick(100, 5_000);
            let ts = self.now;
            self.message(json!({
                "role": "toolResult", "toolCallId": call_id, "toolName": tool,
                "content": [{"type": "text", "text": output}], "isError": is_error, "timestamp": ts
            }));
        }
        let n = self.rng.range(10, 80);
        let answer = self.sentence(n);
        self.tick(1_000, 20_000);
        self.assistant(vec![json!({"type": "text", "text": answer})], "stop");
    }

    /// A session of about `entries` entries (the header not counted).
    fn session(mut self, entries: usize) -> Vec<String> {
        let header_id = format!(
            "019bb136-{:04x}-7{:03x}-a{:03x}-{:012x}",
            self.rng.next() as u16,
            self.rng.next() as u16 & 0xfff,
            self.rng.next() as u16 & 0xfff,
            self.rng.next() & 0xffff_ffff_ffff
        );
        self.lines.push(
            json!({"type": "session", "version": 3, "id": header_id,
                   "timestamp": iso(self.now), "cwd": "/home/ada/src/compiler"})
            .to_string(),
        );
        self.append(json!({"type": "thinking_level_change", "thinkingLevel": "medium"}));
        let (provider, model, _) = MODELS[0];
        self.append(json!({"type": "model_change", "provider": provider, "modelId": model}));
        let mut compacted = false;
        let mut named = false;
        while self.all.len() < entries {
            self.turn();
            let done = self.all.len() * 100 / entries;
            if !named && done >= 5 {
                named = true;
                let name = self.sentence(4);
                self.append(json!({"type": "session_info", "name": name}));
            }
            // Labels on earlier entries (some cleared again).
            if self.rng.chance(0.25) {
                let target = self.all[self.rng.below(self.all.len() as u64) as usize].clone();
                let label = if self.rng.chance(0.85) {
                    json!(format!("label {}", self.rng.pick(WORDS)))
                } else {
                    Value::Null
                };
                let mut e = json!({"type": "label", "targetId": target});
                if !label.is_null() {
                    e["label"] = label;
                }
                self.append(e);
            }
            // Branch: go back a few entries and continue from there,
            // sometimes with a summary of the branch left, as /tree does.
            if self.path.len() > 30 && self.rng.chance(0.12) {
                let back = self.rng.range(3, 25) as usize;
                let keep = self.path.len() - back;
                self.path.truncate(keep);
                if self.rng.chance(0.5) {
                    let from = self.path.last().cloned();
                    let n = self.rng.range(8, 30);
                    let summary = format!("Branch summary: {}", self.sentence(n));
                    let usage = self.usage();
                    self.append(json!({
                        "type": "branch_summary", "fromId": from, "summary": summary,
                        "details": {"readFiles": ["src/main.rs"], "modifiedFiles": []},
                        "usage": usage, "fromHook": false
                    }));
                }
            }
            // Now and then a model or thinking level change.
            if self.rng.chance(0.04) {
                self.model = (self.model + 1) % MODELS.len();
                let (provider, model, _) = MODELS[self.model];
                self.append(
                    json!({"type": "model_change", "provider": provider, "modelId": model}),
                );
            }
            if self.rng.chance(0.03) {
                let level = self.rng.pick(&["off", "low", "medium", "high"]);
                self.append(json!({"type": "thinking_level_change", "thinkingLevel": level}));
            }
            // One compaction past the middle, keeping the last few entries.
            if !compacted && done >= 60 {
                compacted = true;
                let kept = self.path[self.path.len() - 12].clone();
                let n = self.rng.range(60, 200);
                let summary = format!(
                    "## Goal\n{}\n## Progress\n{}",
                    self.sentence(20),
                    self.sentence(n)
                );
                let usage = self.usage();
                self.tick(5_000, 30_000);
                self.append(json!({
                    "type": "compaction", "summary": summary, "firstKeptEntryId": kept,
                    "tokensBefore": 151_234,
                    "details": {"readFiles": ["src/session/read.rs"], "modifiedFiles": ["src/session/tree.rs"]},
                    "usage": usage
                }));
            }
        }
        self.lines
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since the epoch.
fn iso(ms: u64) -> String {
    piscope::jstext::date::format_iso(ms as i64)
}

// ---------------------------------------------------------------------------
// The benchmarks.

fn configure(group: &mut BenchmarkGroup<'_, WallTime>, corpus: &Corpus) {
    group
        .warm_up_time(Duration::from_millis(800))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Bytes(corpus.bytes));
    if corpus.bytes > 20_000_000 {
        // A big file (PISCOPE_BENCH_FILE): few runs of equal size.
        group.sample_size(10).sampling_mode(SamplingMode::Flat);
    } else {
        group.sample_size(15);
    }
}

fn open(path: &Path, detail: Detail) -> Session {
    Session::open_with(path, detail).expect("open the corpus")
}

/// Reading the file into entries (`Session::open`).
fn bench_parse(c: &mut Criterion, corpus: &Corpus) {
    let mut group = c.benchmark_group("parse");
    configure(&mut group, corpus);
    group.bench_function("open_full", |b| {
        b.iter(|| open(black_box(&corpus.path), Detail::Full))
    });
    group.bench_function("open_structure", |b| {
        b.iter(|| open(black_box(&corpus.path), Detail::Structure))
    });
    group.bench_function("open_outline", |b| {
        b.iter(|| open(black_box(&corpus.path), Detail::Outline))
    });
    group.finish();
}

/// The tree: open and walk it (what `piscope tree` does), and the tree
/// build and walk alone on entries already read.
fn bench_index(c: &mut Criterion, corpus: &Corpus) {
    let mut group = c.benchmark_group("index");
    configure(&mut group, corpus);
    group.bench_function("open_structure_preorder", |b| {
        b.iter(|| {
            let s = open(black_box(&corpus.path), Detail::Structure);
            s.tree.preorder()
        })
    });
    group.bench_function("open_outline_tree_json", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            let s = open(black_box(&corpus.path), Detail::Outline);
            out.clear();
            piscope::cli::write_tree_json(&s, &mut out).expect("tree json");
            out.len()
        })
    });
    // In memory: throughput in entries, not file bytes.
    let s = open(&corpus.path, Detail::Structure);
    group.throughput(Throughput::Elements(s.entries.len() as u64));
    group.bench_function("tree_build_preorder", |b| {
        b.iter(|| {
            let mut problems = Vec::new();
            let tree = Tree::build(black_box(&s.entries), &mut problems);
            tree.preorder()
        })
    });
    group.bench_function("preorder", |b| b.iter(|| black_box(&s.tree).preorder()));
    group.finish();
}

/// The context at the last leaf, as JSON (what `piscope context --json`
/// does), on a session already open and from the file.
fn bench_context(c: &mut Criterion, corpus: &Corpus) {
    let mut group = c.benchmark_group("context");
    configure(&mut group, corpus);
    let s = open(&corpus.path, Detail::Structure);
    let mut out = Vec::new();
    let ctx = s.context(&LeafSelector::Last);
    s.write_context_json(&ctx, &mut out).expect("context json");
    eprintln!(
        "context: {} items, {} bytes of JSON",
        ctx.items.len(),
        out.len()
    );
    // On a session already open: throughput in context items.
    group.throughput(Throughput::Elements(ctx.items.len() as u64));
    group.bench_function("build_write_json", |b| {
        b.iter(|| {
            let ctx = black_box(&s).context(&LeafSelector::Last);
            out.clear();
            s.write_context_json(&ctx, &mut out).expect("context json");
            out.len()
        })
    });
    group.throughput(Throughput::Bytes(corpus.bytes));
    group.bench_function("open_outline_build_write_json", |b| {
        b.iter(|| {
            let s = open(black_box(&corpus.path), Detail::Outline);
            let ctx = s.context(&LeafSelector::Last);
            out.clear();
            s.write_context_json(&ctx, &mut out).expect("context json");
            out.len()
        })
    });
    group.finish();
}

fn main() {
    let corpus = Corpus::get();
    let mut c = Criterion::default().configure_from_args();
    bench_parse(&mut c, &corpus);
    bench_index(&mut c, &corpus);
    bench_context(&mut c, &corpus);
    c.final_summary();
}
