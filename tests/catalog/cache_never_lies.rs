//! The catalog cache never gives an answer a fresh read would not: a byte
//! flipped anywhere in a cache file is caught by its checksum, and a session
//! rewritten in place that then grew (same inode, so it looks appended to)
//! is caught by the fingerprint of the bytes before the cached offset and
//! read again in full. The open session's live reload makes the same check.

use crate::support as common;

use piscope::catalog::{self, Cache, Layout, LoadOptions, Scope, SessionSummary, SessionsFolder};
use piscope::session::{Refresh, Session};
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::process::Command;

const SUMMARIES: &str = "catalog-summaries.bin";
const TEXTS: &str = "catalog-texts.bin";
const NEW_LINE: &str = r#"{"type":"message","id":"feedbeef","parentId":null,"timestamp":"2030-01-01T00:00:00.000Z","message":{"role":"user","content":"a brand new zebra question","timestamp":1893456000000}}"#;
/// A session of the golden corpus whose first message is near its start.
const NOTES: &str =
    "--home-ada-notes--/2026-01-11T06-48-34-376Z_019babd0-4f48-76fa-aaa6-a341050aac46.jsonl";

use common::{copy_corpus, corpus};

fn load(root: &Path, cache: &mut Cache, with_text: bool) -> Vec<String> {
    let options = LoadOptions {
        scope: Scope::All,
        with_text,
        with_usage: true,
    };
    let folder = SessionsFolder::at(root.to_path_buf(), Layout::PerProject, root.to_path_buf());
    let cat = catalog::load(&folder, options, cache, &mut |_| {});
    assert!(cat.problems.is_empty(), "{:?}", cat.problems);
    cat.sessions.iter().map(describe).collect()
}

/// Everything a summary says, as text.
fn describe(s: &SessionSummary) -> String {
    format!(
        "{:?}",
        (
            (&s.path, &s.id, &s.cwd, &s.name, &s.parent_session_path),
            (
                s.created_ms,
                s.modified_ms,
                s.message_count,
                s.user_messages
            ),
            &s.first_message,
            (
                s.entries,
                s.leaves,
                s.labels,
                s.compactions,
                s.damaged_lines
            ),
            (s.unfinished, s.size, &s.models, s.tokens, s.cost),
            &s.skipped_by_pi,
            s.text.as_ref().map(|t| t.original().to_string()),
            // What words are searched in, read in place from the cache.
            s.text
                .as_ref()
                .map(|t| String::from_utf8_lossy(&t.folded()).into_owned()),
        )
    )
}

/// A small seeded generator: the same positions and values on every run.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn flip(&mut self) -> u8 {
        (self.next() % 255) as u8 + 1
    }
}

#[test]
fn a_flipped_byte_anywhere_in_the_cache_is_caught() {
    let (_tmp, root) = copy_corpus();
    // Every rebuild syncs the cache to disk: in memory, thousands of them
    // take seconds rather than minutes.
    let shm = Path::new("/dev/shm");
    let cache_dir = if shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    }
    .expect("cache dir");
    let dir = cache_dir.path().to_path_buf();
    load(&root, &mut Cache::open(dir.clone()), true);
    let expected = load(&root, &mut Cache::disabled(), true);
    let expected_plain = load(&root, &mut Cache::disabled(), false);
    let pristine = |name: &str| std::fs::read(dir.join(name)).expect("cache file");
    let (summaries, texts) = (pristine(SUMMARIES), pristine(TEXTS));
    let mut rng = Seeded(0x9e37_79b9_7f4a_7c15);
    // Of the summaries, every byte of the first and last 256 (the frame's
    // header, the first record, the last state) and every fifth byte
    // between: each field of a record, and each region, is met many times
    // over (a region whose check were lost would answer wrongly at any of
    // its bytes); of the texts (larger) the first 64 and 600 more at random.
    let edge = 256.min(summaries.len() / 2);
    let mut flips: Vec<(&str, usize)> = (0..summaries.len())
        .filter(|&i| i < edge || i >= summaries.len() - edge || i % 5 == 0)
        .map(|i| (SUMMARIES, i))
        .collect();
    flips.extend((0..64.min(texts.len())).map(|i| (TEXTS, i)));
    flips.extend((0..600).map(|_| (TEXTS, rng.below(texts.len()))));
    for (n, &(name, at)) in flips.iter().enumerate() {
        // Each load saves a rebuilt cache: start from the pristine pair.
        std::fs::write(dir.join(SUMMARIES), &summaries).expect("restore");
        std::fs::write(dir.join(TEXTS), &texts).expect("restore");
        let mut bytes = pristine(name);
        let by = rng.flip();
        bytes[at] ^= by;
        std::fs::write(dir.join(name), &bytes).expect("flip");
        let with_text = name == TEXTS || n % 2 == 0;
        let got = load(&root, &mut Cache::open(dir.clone()), with_text);
        let want = if with_text {
            &expected
        } else {
            &expected_plain
        };
        assert_eq!(&got, want, "byte {at} of {name} xor {by:#04x}");
    }
}

/// `ls --all --json` (and with a search) with the cache in `cache_home`:
/// its output, with nothing on stderr.
fn ls(agent: &Path, cache_home: Option<&Path>, query: bool) -> String {
    let mut args = vec!["ls", "--all", "--json"];
    if query {
        args.extend(["--query", "the"]);
    }
    let out = run(agent, cache_home, &args);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn ls_with_a_flipped_cache_byte_answers_as_without_the_cache() {
    let (tmp, _root) = copy_corpus();
    let agent = tmp.path();
    let cache_home = tempfile::tempdir().expect("cache home");
    let dir = cache_home.path().join("piscope");
    let want = [ls(agent, None, false), ls(agent, None, true)];
    ls(agent, Some(cache_home.path()), true);
    let summaries = std::fs::read(dir.join(SUMMARIES)).expect("summaries");
    let texts = std::fs::read(dir.join(TEXTS)).expect("texts");
    let mut rng = Seeded(0x2545_f491_4f6c_dd1d);
    for round in 0..40 {
        std::fs::write(dir.join(SUMMARIES), &summaries).expect("restore");
        std::fs::write(dir.join(TEXTS), &texts).expect("restore");
        let (name, pristine) = if round % 3 == 2 {
            (TEXTS, &texts)
        } else {
            (SUMMARIES, &summaries)
        };
        let mut bytes = pristine.clone();
        let at = rng.below(bytes.len());
        bytes[at] ^= rng.flip();
        std::fs::write(dir.join(name), &bytes).expect("flip");
        let query = name == TEXTS || round % 2 == 0;
        let got = ls(agent, Some(cache_home.path()), query);
        assert_eq!(got, want[usize::from(query)], "byte {at} of {name}");
    }
}

/// Overwrites `from` with `to` (first occurrence) in place: same inode.
fn rewrite_in_place(path: &Path, from: &str, to: &str) {
    let bytes = std::fs::read(path).expect("read");
    let at = bytes
        .windows(from.len())
        .position(|w| w == from.as_bytes())
        .unwrap_or_else(|| panic!("{from:?} in {}", path.display()));
    let mut rest = bytes[at + from.len()..].to_vec();
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("open");
    f.seek(SeekFrom::Start(at as u64)).expect("seek");
    let mut new = to.as_bytes().to_vec();
    new.append(&mut rest);
    f.write_all(&new).expect("write");
    if to.len() < from.len() {
        f.set_len((bytes.len() - from.len() + to.len()) as u64)
            .expect("truncate");
    }
}

fn append(path: &Path, line: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open");
    writeln!(f, "{line}").expect("append");
}

#[cfg(unix)]
fn inode(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).expect("stat").ino()
}

#[cfg(not(unix))]
fn inode(_: &Path) -> u64 {
    0
}

/// A session of more than 64 KB (whose prefix is fingerprinted by
/// windows, not whole): the corpus file, then filler, then a name in the
/// middle and (with `end_name`) a name near the end.
fn big_session(path: &Path, end_name: bool) {
    let mut text = std::fs::read_to_string(corpus().join(NOTES)).expect("corpus file");
    let filler = format!(
        r#"{{"type":"custom","customType":"filler","data":{{"pad":"{}"}},"id":"f{{N:07}}","parentId":null,"timestamp":"2026-01-11T07:00:00.000Z"}}"#,
        "x".repeat(400)
    );
    for i in 0..150 {
        text.push_str(&filler.replace("{N:07}", &format!("{i:07}")));
        text.push('\n');
        if i == 75 {
            text.push_str(r#"{"type":"session_info","id":"a0000001","parentId":null,"timestamp":"2026-01-11T07:01:00.000Z","name":"middle beta"}"#);
            text.push('\n');
        }
    }
    if end_name {
        text.push_str(r#"{"type":"session_info","id":"a0000002","parentId":null,"timestamp":"2026-01-11T07:02:00.000Z","name":"end alpha"}"#);
        text.push('\n');
    }
    std::fs::write(path, text).expect("write");
}

#[test]
fn a_session_rewritten_in_place_that_grew_is_read_again() {
    // (file, what is rewritten, into what): the first message near the
    // start of a small file; in a large file the name just before the
    // offset (same length), and a line in the middle made longer.
    let cases: [(&str, &str, &str); 4] = [
        (
            "small",
            "pane compaction summary",
            "PANE compaction SUMMARY",
        ),
        (
            "small",
            "pane compaction summary",
            "pane compaction summary, longer",
        ),
        ("big", "end alpha", "end omega"),
        ("big", "middle beta", "middle gamma"),
    ];
    let mut wrong = Vec::new();
    for (which, from, to) in cases {
        let (tmp, root) = copy_corpus();
        let agent = tmp.path();
        let file = root.join(NOTES);
        if which == "big" {
            // The middle name counts only when no name follows it.
            big_session(&file, !from.starts_with("middle"));
        }
        let cache_home = tempfile::tempdir().expect("cache home");
        for query in [false, true] {
            assert_eq!(
                ls(agent, Some(cache_home.path()), query),
                ls(agent, None, query)
            );
        }
        let before = inode(&file);
        rewrite_in_place(&file, from, to);
        append(&file, NEW_LINE);
        assert_eq!(inode(&file), before, "rewritten in place");
        for query in [false, true] {
            if ls(agent, Some(cache_home.path()), query) != ls(agent, None, query) {
                wrong.push(format!("{which}: {from:?} → {to:?}, query {query}"));
            }
        }
    }
    assert!(wrong.is_empty(), "the cache lied: {wrong:#?}");
}

#[test]
fn a_grown_file_is_still_read_on_not_again() {
    let (_tmp, root) = copy_corpus();
    let file = root.join(NOTES);
    big_session(&file, true);
    let cache_dir = tempfile::tempdir().expect("cache dir");
    load(&root, &mut Cache::open(cache_dir.path().into()), true);
    append(&file, NEW_LINE);
    let options = LoadOptions {
        scope: Scope::All,
        with_text: true,
        with_usage: true,
    };
    let folder = SessionsFolder::at(root.clone(), Layout::PerProject, root.clone());
    let mut cache = Cache::open(cache_dir.path().into());
    let cat = catalog::load(&folder, options, &mut cache, &mut |_| {});
    assert_eq!(cat.stats.resumed, 1, "{:?}", cat.stats);
    let got: Vec<String> = cat.sessions.iter().map(describe).collect();
    assert_eq!(got, load(&root, &mut Cache::disabled(), true));
}

/// What a session says, for comparing a refreshed one with a fresh read.
fn session_facts(s: &Session) -> String {
    format!(
        "{:?}",
        (
            &s.entries,
            &s.problems,
            s.name(),
            s.leaf_id(),
            s.read_to,
            &s.header
        )
    )
}

#[test]
fn the_open_session_reads_a_rewritten_file_again() {
    let cases: [(&str, &str, &str); 3] = [
        (
            "small",
            "pane compaction summary",
            "PANE compaction SUMMARY",
        ),
        ("big", "end alpha", "end omega"),
        ("big", "middle beta", "middle gamma"),
    ];
    let mut wrong = Vec::new();
    for (which, from, to) in cases {
        let tmp = tempfile::tempdir().expect("temp dir");
        let file = tmp.path().join("s.jsonl");
        if which == "big" {
            big_session(&file, !from.starts_with("middle"));
        } else {
            std::fs::copy(corpus().join(NOTES), &file).expect("copy");
        }
        let mut open = Session::open(&file).expect("open");
        rewrite_in_place(&file, from, to);
        append(&file, NEW_LINE);
        let how = open.refresh().expect("refresh");
        let fresh = Session::open(&file).expect("open");
        if how != Refresh::Reloaded || session_facts(&open) != session_facts(&fresh) {
            wrong.push(format!("{which}: {from:?} → {to:?}: {how:?}"));
            continue;
        }
        // An append alone is still read on.
        append(&file, &NEW_LINE.replace("feedbeef", "feedbee2"));
        assert_eq!(open.refresh().expect("refresh"), Refresh::Appended(1));
        let fresh = Session::open(&file).expect("open");
        assert_eq!(
            session_facts(&open),
            session_facts(&fresh),
            "{which}: {from:?}"
        );
    }
    assert!(wrong.is_empty(), "read on from stale bytes: {wrong:#?}");
}

/// `piscope ARGS` over the corpus copy, with the caches in `cache_home`
/// (else `--no-cache`): what it printed, failing the test unless it
/// succeeds.
fn run(agent: &Path, cache_home: Option<&Path>, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_piscope"));
    cmd.args(args);
    match cache_home {
        Some(home) => cmd.env("XDG_CACHE_HOME", home),
        None => cmd.arg("--no-cache"),
    };
    common::run_ok(
        cmd.env("PI_CODING_AGENT_DIR", agent)
            .env_remove("PI_CODING_AGENT_SESSION_DIR"),
    )
}

/// [`run`]'s output.
fn piscope(agent: &Path, cache_home: Option<&Path>, args: &[&str]) -> String {
    String::from_utf8(run(agent, cache_home, args).stdout).expect("UTF-8")
}

/// The commands each cache answers: the list, the search, the deep search
/// and the usage.
const CACHED_COMMANDS: [&[&str]; 5] = [
    &["ls", "--all", "--json"],
    &["ls", "--all", "--json", "--query", "zany"],
    &["ls", "--all", "--query", "zany", "--deep"],
    &["ls", "--all", "--query", "pane", "--deep"],
    &["stats", "--all", "--json", "--by", "session"],
];

/// A copy of the corpus (its agent folder, its sessions root) and a cache
/// folder each of [`CACHED_COMMANDS`] has filled.
fn cached_corpus() -> (tempfile::TempDir, std::path::PathBuf, tempfile::TempDir) {
    let (tmp, root) = copy_corpus();
    let cache_home = tempfile::tempdir().expect("cache home");
    for args in CACHED_COMMANDS {
        piscope(tmp.path(), Some(cache_home.path()), args);
    }
    (tmp, root, cache_home)
}

/// Each of [`CACHED_COMMANDS`] answers with the caches in `cache_home` as it
/// answers without them.
fn answers_as_without_the_cache(agent: &Path, cache_home: &Path) {
    for args in CACHED_COMMANDS {
        let want = piscope(agent, None, args);
        let got = piscope(agent, Some(cache_home), args);
        assert_eq!(got, want, "{args:?}");
    }
}

/// A session rewritten in place to the same size, its mtime put back (as
/// `cp -p`, `rsync --inplace -t` or `touch -r` leave it), is read again by
/// every cache: the list, the search, the deep search and the usage.
#[test]
fn a_same_size_rewrite_with_its_mtime_put_back_is_read_again() {
    let (tmp, root, cache_home) = cached_corpus();
    let agent = tmp.path();
    let path = root.join(NOTES);
    let before = std::fs::metadata(&path).expect("stat");
    let mtime = before.modified().expect("mtime");
    // Past the coarsest clock tick, so the rewrite's ctime is a later one.
    std::thread::sleep(std::time::Duration::from_millis(20));
    rewrite_in_place(&path, "pane compaction summary", "zany compaction summary");
    rewrite_in_place(&path, r#""total":0.0563667"#, r#""total":9.0563667"#);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open")
        .set_modified(mtime)
        .expect("mtime back");
    let after = std::fs::metadata(&path).expect("stat");
    assert_eq!(
        (after.len(), after.modified().ok(), inode(&path)),
        (before.len(), Some(mtime), inode(&path)),
        "same size, mtime and inode"
    );
    answers_as_without_the_cache(agent, cache_home.path());
}

/// A session deleted and written anew at its path, to the same size and
/// with the same mtime, on the inode the old one freed (the file system
/// hands a freed inode to the next file made, which the test waits for),
/// is read again by every cache: only the ctime tells the two apart.
#[test]
fn a_session_made_again_on_a_reused_inode_is_read_again() {
    let (tmp, root, cache_home) = cached_corpus();
    let agent = tmp.path();
    let path = root.join(NOTES);
    let old = std::fs::metadata(&path).expect("stat");
    let want_inode = inode(&path);
    let text = std::fs::read_to_string(&path)
        .expect("read")
        .replacen("pane compaction summary", "zany compaction summary", 1)
        .replacen(r#""total":0.0563667"#, r#""total":9.0563667"#, 1);
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::remove_file(&path).expect("delete");
    let mut reused = false;
    for k in 0..200 {
        std::fs::write(&path, &text).expect("write");
        if inode(&path) == want_inode {
            reused = true;
            break;
        }
        // Not the freed inode: keep this one taken, try the next.
        std::fs::rename(&path, root.join(format!("taken-{k}"))).expect("set aside");
    }
    std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open")
        .set_modified(old.modified().expect("mtime"))
        .expect("mtime back");
    let new = std::fs::metadata(&path).expect("stat");
    assert_eq!(new.len(), old.len(), "same size");
    assert_eq!(new.modified().ok(), old.modified().ok(), "same mtime");
    if cfg!(unix) {
        assert!(
            reused,
            "the file system never handed the freed inode out again"
        );
    }
    answers_as_without_the_cache(agent, cache_home.path());
}
