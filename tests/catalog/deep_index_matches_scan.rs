//! The deep-search index answers exactly as reading the files does: the
//! same hits in the same order, with the same snippets, contexts and marks,
//! for every kind of query in pi's language, on pi-written corpora and on
//! files with every oddity deep search meets; after files grow (read on from
//! where the index stopped), shrink or are replaced; and when the store is
//! cut short, damaged or swapped, where it reads the files instead.

use crate::support as common;

use piscope::catalog::search::deep::{DeepHit, deep_search_each};
use piscope::catalog::search::deep_index::{DeepIndex, IndexStats};
use piscope::catalog::{self, Cache, Layout, LoadOptions, Query, Scope, SessionsFolder};
use piscope::safe_text::sanitize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Queries from pi's language: words (all must match in one entry), quoted
/// phrases (across any white space), `re:` patterns, odd characters,
/// unbalanced quotes, and queries that match nothing or everything.
const QUERIES: &[&str] = &[
    "widget",
    "WIDGET",
    "the",
    "e",
    "tree session",
    "session tree",
    "\"tree session\"",
    "\"the   widget\"",
    "\"compaction summary\" tool",
    "cargo test",
    "cargo \"test\" widget",
    "re:wid.et",
    "re:^",
    "re:\\bbug\\b",
    "re:(?i)^\\s*$",
    "re:\\d{3,}",
    "re:fix(?= )",
    "ü",
    "Ünïcødé",
    "项目",
    "kelvin",
    "xi",
    "xylophone",
    "\"tree",
    "a\"b",
    "-widget",
    "\"\"",
    "zzzz-not-there",
    "ς",
    "σα",
    "{\"path\"",
    "\\u0078",
];

fn folder(root: &Path) -> SessionsFolder {
    SessionsFolder::at(root.to_path_buf(), Layout::PerProject, root.to_path_buf())
}

fn summaries(root: &Path) -> Vec<catalog::SessionSummary> {
    let options = LoadOptions {
        scope: Scope::All,
        with_text: false,
        with_usage: true,
    };
    let cat = catalog::load(&folder(root), options, &mut Cache::disabled(), &mut |_| {});
    assert!(cat.problems.is_empty(), "{:?}", cat.problems);
    assert!(!cat.sessions.is_empty());
    cat.sessions
}

fn search(root: &Path, query: &str, index: &DeepIndex) -> Vec<DeepHit> {
    search_in(&summaries(root), query, index)
}

/// [`search`] in sessions already listed (the files unchanged since).
fn search_in(sessions: &[catalog::SessionSummary], query: &str, index: &DeepIndex) -> Vec<DeepHit> {
    let q = Query::parse(query).expect("query");
    let mut hits = Vec::new();
    let problems = deep_search_each(sessions, &q, index, &mut |h| {
        hits.extend_from_slice(h);
        true
    });
    assert!(problems.is_empty(), "{problems:?}");
    hits
}

/// Every query's hits by reading the files.
fn scans(root: &Path) -> Vec<Vec<DeepHit>> {
    let sessions = summaries(root);
    QUERIES
        .iter()
        .map(|q| search_in(&sessions, q, &DeepIndex::disabled()))
        .collect()
}

/// Runs every query through an index opened on `cache` (and saved after),
/// asserting each answer equals `want`; what the index did.
fn check_indexed(root: &Path, cache: &Path, want: &[Vec<DeepHit>]) -> IndexStats {
    let mut total = IndexStats::default();
    let sessions = summaries(root);
    for (q, want) in QUERIES.iter().zip(want) {
        let index = DeepIndex::open(cache.to_path_buf());
        let got = search_in(&sessions, q, &index);
        if got != *want {
            let first = got.iter().zip(want).position(|(a, b)| a != b);
            panic!(
                "query {q:?}: {} hits from the index, {} from the files; first difference at {first:?}: {:?} / {:?}",
                got.len(),
                want.len(),
                first.and_then(|i| got.get(i)),
                first.and_then(|i| want.get(i)),
            );
        }
        index.save().expect("save the index");
        let s = index.stats();
        total.reused += s.reused;
        total.settled += s.settled;
        total.extended += s.extended;
        total.built += s.built;
        total.fallbacks += s.fallbacks;
        total.bytes_read += s.bytes_read;
    }
    total
}

fn line(id: &str, parent: &str, minute: u32, role: &str, text: &str) -> String {
    let entry = serde_json::json!({
        "type": "message", "id": id, "parentId": parent,
        "timestamp": format!("2026-03-01T10:{minute:02}:00.000Z"),
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
    });
    entry.to_string()
}

/// A session with what deep search must read exactly as the file says:
/// JSON escapes, the Kelvin sign and `İ` (whose lower case is ASCII), CRLF
/// line ends, bytes that are not UTF-8, a line that is not JSON, an entry
/// larger than a chunk (and enough entries for several chunks), tool
/// output, bash output, summaries, a custom message, a compaction that
/// cuts earlier entries away, and a last line not finished yet.
fn odd_session(dir: &Path) -> PathBuf {
    let path = dir.join("2026-03-01T10-00-00-000Z_odd.jsonl");
    let mut f = std::fs::File::create(&path).expect("create");
    let header = r#"{"type":"session","version":3,"id":"odd","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/home/ada/odd"}"#;
    writeln!(f, "{header}").expect("write");
    let mut w = Writer {
        file: f,
        n: 0,
        parent: None,
    };
    let put = |w: &mut Writer, text: String, raw: Option<Vec<u8>>| w.put(text, raw);
    let f = &mut w;
    put(f, "the Widget works, tree session".into(), None);
    put(f, "7 \u{212a}elvin and x\u{130} here".into(), None);
    put(f, "Ünïcødé 项目 ΑΣ ΣΑ ς".into(), None);
    // A text escaped in the file: \u0078ylophone.
    put(
        f,
        String::new(),
        Some(
            br#"{"type":"message","id":"esc","parentId":"o3","timestamp":"2026-03-01T10:04:00.000Z","message":{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"a \u0078ylophone, wid\/get and \u0057IDGET"}]}}"#
                .to_vec(),
        ),
    );
    // CRLF, and bytes that are not UTF-8 inside a text.
    put(
        f,
        String::new(),
        Some(
            b"{\"type\":\"message\",\"id\":\"crlf\",\"parentId\":\"esc\",\"timestamp\":\"2026-03-01T10:05:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"widget \xff\xfe bytes\"}}\r"
                .to_vec(),
        ),
    );
    put(
        f,
        String::new(),
        Some(b"this line is not JSON widget".to_vec()),
    );
    put(f, String::new(), Some(b"[\"widget\"]".to_vec()));
    let bash = serde_json::json!({"type": "message", "id": "bash", "parentId": "crlf",
        "timestamp": "2026-03-01T10:06:00.000Z",
        "message": {"role": "bashExecution", "command": "cargo test", "output": "ok: widget\n\n  done   now"}});
    put(f, String::new(), Some(bash.to_string().into_bytes()));
    // Long texts whose match lies about where the index first makes a
    // stored text up to (4 KiB), with capitals, breaks, wide characters
    // and a `Σ` around it.
    let sizes = [
        0usize, 100, 2000, 3700, 3760, 3780, 3800, 3900, 4000, 4050, 4090, 4100, 6000,
    ];
    for (i, at) in sizes.into_iter().enumerate() {
        let mut pad = String::new();
        for c in "Ab\nçd 日本 ".chars().cycle() {
            if pad.len() >= at {
                break;
            }
            pad.push(c);
        }
        let before = if i % 3 == 0 { "ΣΑΣ " } else { "" };
        let tail = "Tail Σ text\n".repeat(600);
        put(f, format!("{before}{pad}WIDGET tree session {tail}"), None);
    }
    // One entry bigger than a chunk, then many small ones.
    let big = format!("{} widget at the end", "lorem ipsum ".repeat(500_000));
    put(f, big, None);
    for i in 0..3000 {
        let t = format!(
            "entry {i} with the tree session and widget number {i} {}",
            "pad ".repeat(400)
        );
        put(f, t, None);
    }
    let n = f.n;
    let compaction = serde_json::json!({"type": "compaction", "id": "comp", "parentId": format!("o{n}"),
        "timestamp": "2026-03-01T11:00:00.000Z", "summary": "We discussed the widget and the compaction summary",
        "firstKeptEntryId": format!("o{}", n - 3), "tokensBefore": 100});
    put(f, String::new(), Some(compaction.to_string().into_bytes()));
    let custom = serde_json::json!({"type": "custom_message", "id": "cm", "parentId": "comp",
        "timestamp": "2026-03-01T11:01:00.000Z", "customType": "note", "content": "a custom widget note", "display": true});
    put(f, String::new(), Some(custom.to_string().into_bytes()));
    // The last line, not finished yet (no line break).
    let last = line(
        "tail",
        "cm",
        2,
        "assistant",
        "the last widget, still being written",
    );
    f.file.write_all(last.as_bytes()).expect("write");
    path
}

/// Writes entries one after the other, each the child of the one before.
struct Writer {
    file: std::fs::File,
    n: u32,
    parent: Option<String>,
}

impl Writer {
    /// An entry of `text`, or the line `raw` as it is.
    fn put(&mut self, text: String, raw: Option<Vec<u8>>) {
        self.n += 1;
        let id = format!("o{}", self.n);
        let mut l = match raw {
            Some(r) => r,
            None => {
                let mut v: serde_json::Value =
                    serde_json::from_str(&line(&id, "", self.n % 60, "user", &text)).expect("json");
                v["parentId"] = self
                    .parent
                    .clone()
                    .map_or(serde_json::Value::Null, Into::into);
                v.to_string().into_bytes()
            }
        };
        l.push(b'\n');
        self.file.write_all(&l).expect("write");
        self.parent = Some(id);
    }
}

/// The golden corpus, pi's fixtures and the odd session, in a temp folder.
fn corpus() -> (tempfile::TempDir, PathBuf) {
    let (tmp, root) = common::copy_corpus();
    let fixtures = common::repo().join("tests/data/pi-mono");
    let dir = root.join("--home-ada-fixtures--");
    std::fs::create_dir_all(&dir).expect("mkdir");
    for f in std::fs::read_dir(&fixtures).expect("pi's fixtures") {
        let f = f.expect("entry").path();
        std::fs::copy(&f, dir.join(f.file_name().expect("name"))).expect("copy");
    }
    let odd = root.join("--home-ada-odd--");
    std::fs::create_dir_all(&odd).expect("mkdir");
    odd_session(&odd);
    (tmp, root)
}

fn append(path: &Path, lines: &[String]) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open");
    for l in lines {
        writeln!(f, "{l}").expect("append");
    }
}

#[test]
fn the_index_answers_as_the_files_do_as_they_grow_shrink_and_change() {
    let (tmp, root) = corpus();
    let cache = tmp.path().join("cache");
    let want = scans(&root);
    assert!(want.iter().filter(|h| !h.is_empty()).count() > QUERIES.len() / 2);
    // Built, then served as stored.
    let built = check_indexed(&root, &cache, &want);
    assert!(built.built > 0 && built.fallbacks == 0, "{built:?}");
    let warm = check_indexed(&root, &cache, &want);
    assert_eq!(
        (warm.built, warm.extended, warm.fallbacks),
        (0, 0, 0),
        "{warm:?}"
    );
    assert!(warm.reused > 0);
    // The odd session grows: its unfinished line is finished, and more come,
    // with a compaction that cuts away what was seen before.
    let odd = common::session_files(&root)
        .into_iter()
        .find(|p| p.to_string_lossy().contains("_odd"))
        .expect("odd session");
    let before = std::fs::metadata(&odd).expect("stat").len();
    let mut more = vec![String::new()];
    for i in 0..50 {
        let parent = if i == 0 {
            "tail".to_string()
        } else {
            format!("g{}", i - 1)
        };
        let text = format!("grown widget {i} tree session");
        more.push(line(&format!("g{i}"), &parent, i % 60, "toolResult", &text));
    }
    let comp = serde_json::json!({"type": "compaction", "id": "comp2", "parentId": "g49",
        "timestamp": "2026-03-01T12:00:00.000Z", "summary": "the widget again",
        "firstKeptEntryId": "g40", "tokensBefore": 10});
    more.push(comp.to_string());
    append(&odd, &more);
    let grown = std::fs::metadata(&odd).expect("stat").len();
    let want = scans(&root);
    let s = check_indexed(&root, &cache, &want);
    assert_eq!(s.built, 0, "{s:?}");
    assert_eq!(s.extended, 1, "only the first search reads on: {s:?}");
    assert_eq!(s.fallbacks, 0, "{s:?}");
    // Read on from the last complete line: the unfinished one and what follows.
    assert!(s.bytes_read <= grown - before + 1000, "{s:?}");
    // A file cut short, and one replaced by another file of the same size.
    let files = common::session_files(&root);
    let cut = files.iter().find(|p| *p != &odd).expect("another session");
    let bytes = std::fs::read(cut).expect("read");
    let half = bytes[..bytes.len() / 2]
        .iter()
        .rposition(|&b| b == b'\n')
        .expect("a line break");
    std::fs::write(cut, &bytes[..half + 1]).expect("cut");
    let replaced = files
        .iter()
        .rev()
        .find(|p| *p != &odd && *p != cut)
        .expect("a third");
    let old = std::fs::read(replaced).expect("read");
    let swapped = String::from_utf8_lossy(&old)
        .replace("widget", "WIDGET-gadget")
        .replace("the ", "THE ");
    let tmp_file = replaced.with_extension("new");
    std::fs::write(&tmp_file, swapped.as_bytes()).expect("write");
    std::fs::rename(&tmp_file, replaced).expect("replace");
    let want = scans(&root);
    let s = check_indexed(&root, &cache, &want);
    assert!(s.built >= 2 && s.fallbacks == 0, "{s:?}");
    // A session deleted: its hits go, its index is forgotten on save.
    std::fs::remove_file(cut).expect("remove");
    let want = scans(&root);
    check_indexed(&root, &cache, &want);
}

/// A session seen unchanged well after its last change is served on its
/// stamp alone from then on, and any change after that is still seen: the
/// answers stay the files' throughout.
#[test]
fn a_settled_session_is_served_on_its_stamp_and_its_changes_still_seen() {
    let (tmp, root) = corpus();
    let cache = tmp.path().join("cache");
    let want = scans(&root);
    let built = check_indexed(&root, &cache, &want);
    assert_eq!(built.fallbacks, 0, "{built:?}");
    // Past the settling time of the files' last changes: each session is
    // seen so at its next look (built, or its print read)...
    std::thread::sleep(std::time::Duration::from_millis(2200));
    check_indexed(&root, &cache, &want);
    // ... and from then on served on its stamp alone.
    let sessions = common::session_files(&root).len();
    let settled = check_indexed(&root, &cache, &want);
    assert_eq!(settled.settled, settled.reused, "{settled:?}");
    assert_eq!(settled.reused, sessions * QUERIES.len(), "{settled:?}");
    // A session rewritten in place, same size and mtime, is read again.
    let files = common::session_files(&root);
    let (changed, text) = files
        .iter()
        .filter(|p| !p.to_string_lossy().contains("_odd"))
        .map(|p| (p, std::fs::read_to_string(p).expect("read")))
        .find(|(_, text)| text.contains("widget"))
        .expect("a session with a widget");
    let before = std::fs::metadata(changed).expect("stat");
    std::fs::write(changed, text.replace("widget", "gadget")).expect("rewrite");
    std::fs::File::options()
        .write(true)
        .open(changed)
        .expect("open")
        .set_modified(before.modified().expect("mtime"))
        .expect("mtime back");
    let want = scans(&root);
    // (Each answer is the files', checked in `check_indexed`; the session
    // may settle again within the round on a slow machine.)
    let after = check_indexed(&root, &cache, &want);
    assert!(after.built >= 1, "{after:?}");
}

/// The data file of the store in `cache`.
fn data_file(cache: &Path) -> PathBuf {
    std::fs::read_dir(cache)
        .expect("cache folder")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "data"))
        .expect("a data file")
}

/// A way to damage a file's bytes.
type Damage = Box<dyn Fn(&mut Vec<u8>)>;

#[test]
fn a_damaged_store_reads_the_files_instead() {
    // A snippet reads only the blocks that hold candidates, and checks
    // only the bytes it shows are UTF-8.
    let (tmp, root) = corpus();
    let cache = tmp.path().join("cache");
    let want = scans(&root);
    check_indexed(&root, &cache, &want);
    let data = data_file(&cache);
    let pristine = std::fs::read(&data).expect("read");
    let table = cache.join("catalog-deep.bin");
    let pristine_table = std::fs::read(&table).expect("read");
    let damages: Vec<(&str, Damage)> = vec![
        (
            "cut short",
            Box::new(|b: &mut Vec<u8>| b.truncate(b.len() * 2 / 3)),
        ),
        (
            "a byte flipped near the end",
            Box::new(|b: &mut Vec<u8>| {
                let at = b.len() - 10;
                b[at] ^= 0x20;
            }),
        ),
        (
            "a byte flipped in every 4 KB",
            Box::new(|b: &mut Vec<u8>| {
                for at in (64..b.len()).step_by(4096) {
                    b[at] ^= 0x01;
                }
            }),
        ),
        (
            "zeroed",
            Box::new(|b: &mut Vec<u8>| b.iter_mut().skip(16).for_each(|x| *x = 0)),
        ),
        ("emptied", Box::new(|b: &mut Vec<u8>| b.clear())),
    ];
    for (what, damage) in &damages {
        let mut bytes = pristine.clone();
        damage(&mut bytes);
        std::fs::write(&data, &bytes).expect("damage");
        std::fs::write(&table, &pristine_table).expect("table");
        // The damage is met (a fallback, or a rebuild of what it hid) and
        // every answer is still the files'.
        let s = check_indexed(&root, &cache, &want);
        assert!(s.fallbacks + s.built > 0, "{what}: {s:?}");
        // Healed: the next round is served from the store again.
        let s = check_indexed(&root, &cache, &want);
        assert_eq!((s.fallbacks, s.built), (0, 0), "{what}: {s:?}");
    }
    // A damaged table is ignored and the store built again.
    let mut t = std::fs::read(&table).expect("read");
    let at = t.len() / 2;
    t[at] ^= 0xff;
    std::fs::write(&table, &t).expect("damage");
    let s = check_indexed(&root, &cache, &want);
    assert!(s.built > 0 && s.fallbacks == 0, "{s:?}");
}

/// A pi-written corpus (pi's own generator: branches, compactions, branch
/// summaries, custom messages, bash output), and sessions pi appends to.
#[test]
fn on_pi_written_sessions_the_index_answers_as_the_files_do() {
    if !common::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("corpus");
    for seed in [31, 32] {
        common::pi_corpus(&out, seed, 8, 60);
    }
    let root = out.join("sessions");
    let cache = tmp.path().join("cache");
    let want = scans(&root);
    assert!(want[0].len() > 100, "widget is in pi's generated text");
    check_indexed(&root, &cache, &want);
    // Another run of pi's generator adds sessions; the indexed ones stay.
    common::pi_corpus(&out, 33, 3, 40);
    let want = scans(&root);
    let s = check_indexed(&root, &cache, &want);
    assert!(s.built > 0 && s.fallbacks == 0, "{s:?}");
}

/// The browser's deep search goes through the same index: its hits are the
/// files' (from a store it builds, then from the store as kept, then from
/// one damaged), and it keeps the store in the cache folder it is given.
#[test]
fn the_browsers_deep_search_uses_the_index() {
    use piscope::tui::harness::Harness;
    let (tmp, root) = corpus();
    let cache = tmp.path().join("cache");
    let query = "widget";
    // The browser's hits carry snippets; its screen marks the matches.
    let want = search(&root, query, &DeepIndex::disabled());
    assert!(want.len() > 3000, "{}", want.len());
    let browse = || {
        let mut h = Harness::folder_cached(folder(&root), (160, 50), &cache);
        h.type_text(query);
        h.key("ctrl+f");
        let d = h.app.picker().deep_search().expect("deep search");
        d.hits().to_vec()
    };
    assert_eq!(browse(), want);
    let data = data_file(&cache);
    let built = std::fs::read(&data).expect("read");
    // Every session's texts are in it, compressed: in less than half of
    // the sessions' bytes (the odd session alone is 12 MB of them).
    let sessions: u64 = common::session_files(&root)
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum();
    let stored = built.len() as u64;
    assert!(
        stored > 100 << 10 && stored * 2 < sessions,
        "{stored} bytes for {sessions} bytes of sessions"
    );
    assert_eq!(browse(), want);
    assert_eq!(
        std::fs::read(&data).expect("read"),
        built,
        "served as stored"
    );
    let mut damaged = built.clone();
    let at = damaged.len() / 2;
    damaged[at] ^= 0x55;
    std::fs::write(&data, &damaged).expect("damage");
    assert_eq!(browse(), want);
}

/// `piscope ls --deep` prints the hits the files give, session after
/// session in the list's order (each session's printed on the thread that
/// searched it), as JSON exactly as `serde_json` writes them, or as lines;
/// from the store as it is built, and as it is kept.
#[test]
fn ls_prints_the_files_hits_in_order() {
    let (tmp, root) = corpus();
    let cache = tmp.path().join("xdg-cache");
    let ls = |query: &str, json: bool| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_piscope"));
        cmd.args(["ls", "--all", "--deep", "--query", query])
            .env("PI_CODING_AGENT_DIR", root.parent().expect("agent folder"))
            .env("XDG_CACHE_HOME", &cache);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().expect("run piscope");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let mut sessions_with_hits = 0;
    for query in [
        "widget",
        "the",
        "re:wid.et",
        "\"tree session\"",
        "ü",
        "zzzz-not-there",
    ] {
        let want = search(&root, query, &DeepIndex::disabled());
        let mut paths: Vec<&Path> = want.iter().map(|h| &*h.path).collect();
        paths.dedup();
        sessions_with_hits = sessions_with_hits.max(paths.len());
        let mut json = serde_json::to_vec(&want).expect("json");
        json.push(b'\n');
        let mut text = String::new();
        for h in &want {
            let cut = if h.compacted_away {
                " (compacted away)"
            } else {
                ""
            };
            text.push_str(&format!(
                "{}  {}  {}{cut}: {}\n",
                sanitize(&h.path.display().to_string()),
                sanitize(h.entry_id.as_deref().unwrap_or("-")),
                sanitize(&h.kind),
                sanitize(&h.snippet)
            ));
        }
        // Built by the first run, served as kept by the next ones.
        for _ in 0..2 {
            let got = ls(query, true);
            let at = got.iter().zip(&json).position(|(a, b)| a != b);
            assert!(
                got == json,
                "{query:?}: the JSON differs at {at:?}: {:?} / {:?}",
                String::from_utf8_lossy(
                    &got[at.unwrap_or(0).saturating_sub(100)..][..got.len().min(300)]
                ),
                String::from_utf8_lossy(
                    &json[at.unwrap_or(0).saturating_sub(100)..][..json.len().min(300)]
                ),
            );
            assert_eq!(
                String::from_utf8(ls(query, false)).expect("UTF-8"),
                text,
                "{query:?}"
            );
        }
    }
    assert!(
        sessions_with_hits > 3,
        "hits in {sessions_with_hits} sessions"
    );
    // The runs went through the store.
    data_file(&cache.join("piscope"));
}
