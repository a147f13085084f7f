//! A session's stored index gives exactly what a whole read gives: the
//! entries, problems, tree, every filter's rows, each row's text, colour
//! and usage, and the context at every entry; after growth (a line at a
//! time, a line half written), and never after truncation, replacement,
//! a rewrite in place or damage to the index.

use crate::support;
use piscope::session::tree::view::Filter;
use piscope::tui::clock::Clock;
use piscope::tui::config::Config;
use piscope::tui::harness::{DEMO_NOW_MS, Harness};
use piscope::tui::model::loaded::LoadedSession;
use piscope::tui::model::session_index::{self, MIN_BYTES};
use piscope::tui::state::Start;
use piscope::tui::work::workers::JobContext;
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

const HOME: Option<&str> = Some("/home/ada");

fn full(path: &Path) -> LoadedSession {
    LoadedSession::open(path, HOME).expect("the session reads")
}

/// Everything the browser shows of `a` is what it shows of `b`.
fn assert_same(a: &LoadedSession, b: &LoadedSession, what: &str) {
    let (sa, sb) = (&a.session, &b.session);
    assert_eq!(sa.entries, sb.entries, "{what}: entries");
    assert_eq!(sa.problems, sb.problems, "{what}: problems");
    assert_eq!(sa.read_to, sb.read_to, "{what}: read to");
    assert_eq!(sa.header, sb.header, "{what}: header");
    assert_eq!(sa.tree.preorder(), sb.tree.preorder(), "{what}: tree");
    assert_eq!((&a.name, a.entry_count), (&b.name, b.entry_count), "{what}");
    assert_eq!(a.view.leaf, b.view.leaf, "{what}: leaf");
    let n = sa.entries.len() as u32;
    for i in 0..n {
        assert_eq!(a.text(i), b.text(i), "{what}: row {i}");
        assert_eq!(
            a.columns.kinds[i as usize], b.columns.kinds[i as usize],
            "{what}: {i}"
        );
        assert_eq!(
            a.columns.bare[i as usize], b.columns.bare[i as usize],
            "{what}: {i}"
        );
        assert_eq!(a.usage(i), b.usage(i), "{what}: usage of {i}");
        assert_eq!(sa.role_of(i), sb.role_of(i), "{what}: role of {i}");
        assert_eq!(a.label(i), b.label(i), "{what}: label of {i}");
    }
    for filter in Filter::CYCLE {
        let rows = |t: &LoadedSession| {
            let r = t.rows(filter, &HashSet::new()).rows;
            r.iter()
                .map(|r| (r.node, r.depth, r.connector(), r.last()))
                .collect::<Vec<_>>()
        };
        assert_eq!(rows(a), rows(b), "{what}: rows under {filter:?}");
    }
    // The context at the leaf and at entries all through the file.
    let step = (n / 40).max(1) as usize;
    for i in (0..n).step_by(step).chain(a.view.leaf) {
        let ctx =
            |s: &piscope::session::Session| format!("{:?}", s.context_for_path(s.tree.path_to(i)));
        assert_eq!(ctx(sa), ctx(sb), "{what}: context at {i}");
    }
}

/// The largest pi-written session of the current format the tests hold:
/// branches, a compaction, tool calls and results, labels.
fn pi_written() -> PathBuf {
    support::repo().join(
        "tests/data/golden/corpus/sessions/--home-ada-src-compiler--/2026-01-11T07-13-55-973Z_019babe7-8705-76fa-aaa6-a3483b60438e.jsonl",
    )
}

fn lines_of(path: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).expect("a test file");
    bytes
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

/// Every session file the tests hold (pi-written ones, damaged ones,
/// legacy ones): indexed and read back, it is its whole read; a legacy
/// file, which migrates as it is read, is never indexed.
#[test]
fn an_index_reads_back_as_the_whole_read_of_every_test_file() {
    let cache = tempfile::tempdir().unwrap();
    let mut files = support::session_files(&support::repo().join("tests/data"));
    files.sort();
    let (mut indexed, mut legacy) = (0, 0);
    for path in files {
        let Ok(whole) = LoadedSession::open(&path, HOME) else {
            continue;
        };
        session_index::save(cache.path(), &whole, HOME).unwrap();
        let back = session_index::load(cache.path(), &path, HOME);
        if whole.session.is_legacy() {
            legacy += 1;
            assert!(back.is_none(), "{} is legacy", path.display());
            continue;
        }
        let back = back.unwrap_or_else(|| panic!("{} has an index", path.display()));
        assert_eq!(back.read_on, 0);
        assert_same(&back.loaded, &whole, &path.display().to_string());
        indexed += 1;
    }
    assert!(
        indexed > 50 && legacy > 0,
        "{indexed} indexed, {legacy} legacy"
    );
}

/// The browser's read keeps each entry at outline depth as soon as its
/// row is made: on every test file it shows what reading the file whole
/// at full depth and then making the rows shows.
#[test]
fn rows_made_as_the_file_is_read_are_the_whole_reads() {
    let mut files = support::session_files(&support::repo().join("tests/data"));
    files.sort();
    let mut compared = 0;
    for path in files {
        let Ok(whole) = piscope::session::Session::open(&path) else {
            continue;
        };
        let whole = LoadedSession::new(whole, HOME);
        assert_same(&full(&path), &whole, &path.display().to_string());
        compared += 1;
    }
    assert!(compared > 50, "{compared} compared");
}

/// A tool result's row shows the call it names wherever that call is in
/// the file, the last of the same id winning, as when every call is known
/// before any row is made: a result before its call, and a result whose
/// call's id is used again later, are made again once the file is read.
#[test]
fn a_result_before_its_call_shows_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calls-later.jsonl");
    let msg = |id: &str, parent: &str, message: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-05T09:00:00.000Z","message":{message}}}"#
        )
    };
    let result = |call: &str| {
        format!(
            r#"{{"role":"toolResult","toolCallId":"{call}","toolName":"bash","content":[{{"type":"text","text":"ok"}}],"isError":false,"timestamp":1}}"#
        )
    };
    let call = |call: &str, command: &str| {
        format!(
            r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"{call}","name":"bash","arguments":{{"command":"{command}"}}}}],"stopReason":"toolUse","timestamp":1}}"#
        )
    };
    let lines = [
        r#"{"type":"session","version":3,"id":"019c0000-0000-7000-8000-000000000001","timestamp":"2026-01-05T09:00:00.000Z","cwd":"/home/ada/src/calls"}"#.to_string(),
        msg("a1", "null", r#"{"role":"user","content":"go","timestamp":1}"#),
        msg("a2", "\"a1\"", &result("early")),
        msg("a3", "\"a2\"", &call("early", "ls -la early")),
        msg("a4", "\"a3\"", &call("twice", "echo first")),
        msg("a5", "\"a4\"", &result("twice")),
        msg("a6", "\"a5\"", &call("twice", "echo second")),
        msg("a7", "\"a6\"", &result("never")),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let streamed = full(&path);
    let whole = LoadedSession::new(piscope::session::Session::open(&path).unwrap(), HOME);
    assert_same(&streamed, &whole, "calls named before they are made");
    let row = |i: u32| streamed.text(i).to_string();
    assert!(row(1).contains("ls -la early"), "{}", row(1));
    assert!(row(4).contains("echo second"), "{}", row(4));
    assert!(!row(6).contains("echo"), "{}", row(6));
}

/// A pi-written session indexed at 60% of its lines, then grown line by
/// line (a line arriving in two writes among them): each open reads the
/// index and then only what was appended, and shows what a whole read of
/// the file shows.
#[test]
fn a_grown_session_reads_on_from_its_index() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let lines = lines_of(&pi_written());
    let path = dir.path().join("grown.jsonl");
    let cut = lines.len() * 6 / 10;
    std::fs::write(&path, lines[..cut].concat()).unwrap();
    session_index::save(cache.path(), &full(&path), HOME).unwrap();
    let mut at = cut;
    let mut steps = 0;
    while at < lines.len() {
        let take = [1, 2, 5][steps % 3].min(lines.len() - at);
        let chunk = lines[at..at + take].concat();
        if steps == 2 {
            // Half a line, then the rest: the first half is not an entry yet.
            let (a, b) = chunk.split_at(chunk.len() / 2);
            append(&path, a);
            let o = session_index::load(cache.path(), &path, HOME).expect("an index");
            assert_same(&o.loaded, &full(&path), "half a line appended");
            append(&path, b);
        } else {
            append(&path, &chunk);
        }
        at += take;
        steps += 1;
        let o = session_index::load(cache.path(), &path, HOME).expect("an index");
        assert!(o.read_on > 0);
        assert_same(&o.loaded, &full(&path), &format!("grown to line {at}"));
        if steps % 4 == 0 {
            // Written again now and then, as the browser does.
            session_index::save(cache.path(), &o.loaded, HOME).unwrap();
        }
    }
    assert!(steps > 10);
}

/// Changes the first lower-case letter at or after `from`.
fn flip_a_letter(bytes: &mut [u8], from: usize) {
    let at = from
        + bytes[from..]
            .iter()
            .position(u8::is_ascii_lowercase)
            .unwrap();
    bytes[at] = if bytes[at] == b'a' { b'b' } else { b'a' };
}

/// A file that is no longer what was indexed is read whole: cut short,
/// replaced by another file, rewritten in place at the same length, or
/// with lines changed before where it was read.
#[test]
fn an_index_never_answers_for_a_changed_file() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let original = std::fs::read(pi_written()).unwrap();
    let path = dir.path().join("s.jsonl");
    let index_again = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        session_index::save(cache.path(), &full(&path), HOME).unwrap();
        assert!(session_index::load(cache.path(), &path, HOME).is_some());
    };
    // Cut short: a line less.
    index_again(&original);
    let last_line = original[..original.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(last_line as u64 + 1)
        .unwrap();
    assert!(
        session_index::load(cache.path(), &path, HOME).is_none(),
        "truncated"
    );
    // Replaced: another file renamed over it, longer, same start.
    index_again(&original);
    let other = dir.path().join("other.jsonl");
    let mut longer = original.clone();
    longer.extend_from_slice(&lines_of(&support::pi_mono("large-session.jsonl"))[3]);
    std::fs::write(&other, &longer).unwrap();
    std::fs::rename(&other, &path).unwrap();
    assert!(
        session_index::load(cache.path(), &path, HOME).is_none(),
        "replaced"
    );
    // Rewritten in place at the same length: one letter of a message.
    index_again(&original);
    let mut changed = original.clone();
    flip_a_letter(&mut changed, original.len() / 2);
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&path, &changed).unwrap();
    assert!(
        session_index::load(cache.path(), &path, HOME).is_none(),
        "rewritten"
    );
    // Changed before where it was read, then grown: the prefix differs.
    index_again(&original);
    let mut grown = original.clone();
    // A letter of the first message.
    let second_line = grown.iter().position(|&b| b == b'\n').unwrap() + 1;
    flip_a_letter(&mut grown, second_line);
    grown.extend_from_slice(&lines_of(&support::pi_mono("large-session.jsonl"))[3]);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .write_all(&grown)
        .unwrap();
    assert!(
        session_index::load(cache.path(), &path, HOME).is_none(),
        "changed and grown"
    );
    // Each time the whole read is what the file holds now.
    assert_eq!(full(&path).session.read_to, grown.len() as u64);
}

/// A damaged index (a byte changed anywhere, cut short, another session's,
/// made for another home) is never believed and never a crash.
#[test]
fn a_damaged_index_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::copy(pi_written(), &path).unwrap();
    let whole = full(&path);
    session_index::save(cache.path(), &whole, HOME).unwrap();
    let folder = session_index::folder(cache.path());
    let index: PathBuf = std::fs::read_dir(&folder)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let good = std::fs::read(&index).unwrap();
    assert!(
        session_index::load(cache.path(), &path, Some("/home/bob")).is_none(),
        "another home"
    );
    let mut rng = support::Rng(support::seed());
    for trial in 0..200 {
        let mut bad = good.clone();
        match trial % 3 {
            0 => {
                let at = rng.below(bad.len());
                bad[at] ^= 1 << rng.below(8);
            }
            1 => bad.truncate(rng.below(bad.len())),
            _ => {
                let at = rng.below(bad.len());
                bad[at..].iter_mut().for_each(|b| *b = rng.next() as u8);
            }
        }
        std::fs::write(&index, &bad).unwrap();
        if let Some(o) = session_index::load(cache.path(), &path, HOME) {
            // Only a change the frame cannot see may pass: none may differ.
            assert_same(&o.loaded, &whole, &format!("damaged index, trial {trial}"));
        }
    }
    // Another session's index under this one's name.
    let second = dir.path().join("t.jsonl");
    std::fs::copy(crate::support::tui::big_demo(), &second).unwrap();
    session_index::save(cache.path(), &full(&second), HOME).unwrap();
    let theirs = std::fs::read_dir(&folder)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| *p != index)
        .unwrap();
    std::fs::copy(&theirs, &index).unwrap();
    assert!(
        session_index::load(cache.path(), &path, HOME).is_none(),
        "another's index"
    );
}

/// A session of several MB, written like pi's: user and assistant turns
/// with tool calls and results.
fn big_session(path: &Path) {
    let mut out = String::from(
        r#"{"type":"session","version":3,"id":"019c0000-0000-7000-8000-00000000b16","timestamp":"2026-01-05T09:00:00.000Z","cwd":"/home/ada/src/big"}"#,
    );
    out.push('\n');
    let body = "lorem ipsum dolor sit amet ".repeat(40);
    let mut parent = "null".to_string();
    for i in 0..(MIN_BYTES as usize / 1000 + 200) {
        let id = format!("{i:08x}");
        let t = format!("2026-01-05T09:{:02}:{:02}.000Z", (i / 60) % 60, i % 60);
        let line = match i % 3 {
            0 => format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{t}","message":{{"role":"user","content":"turn {i}: {body}","timestamp":1}}}}"#
            ),
            1 => format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{t}","message":{{"role":"assistant","content":[{{"type":"text","text":"answer {i} {body}"}},{{"type":"toolCall","id":"c{i}","name":"read","arguments":{{"path":"src/f{i}.rs"}}}}],"provider":"anthropic","model":"claude-sonnet-4-5","usage":{{"input":10,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":30,"cost":{{"input":0.01,"output":0.02,"cacheRead":0,"cacheWrite":0,"total":0.03}}}},"stopReason":"toolUse","timestamp":2}}}}"#
            ),
            _ => format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{t}","message":{{"role":"toolResult","toolCallId":"c{}","toolName":"read","content":[{{"type":"text","text":"{body}"}}],"isError":false,"timestamp":3}}}}"#,
                i - 1
            ),
        };
        out.push_str(&line);
        out.push('\n');
        parent = format!("\"{id}\"");
    }
    std::fs::write(path, out).unwrap();
}

/// The session at `path` as the session worker opens it, with the cache
/// in `cache` (the system's clock), then made ready to grow as the app
/// asks once it is on screen: whether that made its table of ids.
fn made_ready_by_the_worker(path: &Path, cache: &Path) -> bool {
    use piscope::tui::event::{AppEvent, Command};
    use piscope::tui::work::newest::Newest;
    let mut cx = JobContext::new(HOME.map(Into::into), None, true, PathBuf::from("/"));
    cx.cache_dir = Some(cache.to_path_buf());
    let mut reads = Newest::default();
    let stamp = reads.stamp();
    let answer = std::cell::RefCell::new(None);
    cx.run(
        Command::OpenSession {
            stamp,
            path: path.to_path_buf(),
        },
        &|ev| {
            if let AppEvent::SessionOpened(a) = ev {
                *answer.borrow_mut() = Some(a);
            }
        },
    );
    let answer = answer.into_inner().expect("an answer");
    let loaded = reads
        .take(answer)
        .expect("the newest")
        .result
        .expect("read");
    assert!(
        !loaded.session.tree.lookups_ready(),
        "made when first asked for"
    );
    cx.run(Command::ReadyForGrowth(loaded.clone()), &|_| {});
    let whole = full(path);
    for e in whole
        .session
        .entries
        .iter()
        .filter(|_| loaded.session.tree.lookups_ready())
    {
        let id = e.id.as_deref().unwrap_or_default();
        let find = |l: &LoadedSession| l.session.tree.find(&l.session.entries, id);
        assert_eq!(find(&loaded), find(&whole), "{id}");
    }
    loaded.session.tree.lookups_ready()
}

/// A session opened from its index while pi is writing it (its file
/// written in the last minutes) has the table of its ids made once it is
/// on screen, so that its first growth is read at once; one left alone
/// for an hour does not (the table waits for a growth, as it costs a pass
/// over every entry and memory).
#[test]
fn a_session_being_written_is_made_ready_to_grow() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let indexed = |name: &str, age: std::time::Duration| {
        let path = dir.path().join(name);
        big_session(&path);
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(std::time::SystemTime::now() - age)
            .unwrap();
        drop(file);
        session_index::save(cache.path(), &full(&path), HOME).unwrap();
        path
    };
    let written = indexed("written.jsonl", std::time::Duration::ZERO);
    let left = indexed("left.jsonl", std::time::Duration::from_secs(3600));
    assert!(made_ready_by_the_worker(&written, cache.path()));
    assert!(!made_ready_by_the_worker(&left, cache.path()));
}

fn browser(path: &Path, cache: &Path) -> Harness {
    let mut cx = JobContext::new(HOME.map(Into::into), None, true, PathBuf::from("/"));
    cx.cache_dir = Some(cache.to_path_buf());
    Harness::new(
        Start::File(path.to_path_buf()),
        cx,
        Config::defaults(false),
        Clock::fixed(DEMO_NOW_MS, 0),
        (160, 40),
    )
}

/// The browser writes a large session's index on its first open and opens
/// from it the next time, to the same screen; a tool result appended in
/// between shows with the call it answers, named from the index.
#[test]
fn the_browser_opens_a_large_session_from_its_index() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    big_session(&path);
    assert!(std::fs::metadata(&path).unwrap().len() >= MIN_BYTES);
    let first = browser(&path, cache.path()).screen();
    let folder = session_index::folder(cache.path());
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 1, "one index");
    assert!(session_index::load(cache.path(), &path, HOME).is_some_and(|o| o.read_on == 0));
    let mut again = browser(&path, cache.path());
    assert_eq!(again.screen(), first);
    // Just written (and the test clock's now is earlier): on screen, it
    // was made ready to grow.
    let loaded = again.app.tree().loaded().expect("a session shown");
    assert!(loaded.session.tree.lookups_ready());
    // pi answers the last call (made before the index was written).
    let last = full(&path);
    let leaf = last.session.leaf_id().unwrap().to_string();
    let call = last.session.entries.len() - 1;
    let answer = format!(
        r#"{{"type":"message","id":"zz000001","parentId":"{leaf}","timestamp":"2026-01-05T10:00:00.000Z","message":{{"role":"toolResult","toolCallId":"c{call}","toolName":"read","content":[{{"type":"text","text":"fn main() {{}}"}}],"isError":false,"timestamp":4}}}}"#
    );
    append(&path, format!("{answer}\n").as_bytes());
    let o = session_index::load(cache.path(), &path, HOME).expect("the index");
    assert!(o.read_on > 0);
    assert_same(&o.loaded, &full(&path), "a tool result appended");
    let screen = browser(&path, cache.path()).screen();
    assert!(
        screen.contains(&format!("[read: src/f{call}.rs]")),
        "{screen}"
    );
}
