//! The touched-files index in the cache folder: for each session, the
//! files its tool calls touched (see [`super::touched`]), built once and
//! extended from where it stopped as the file grows, as the deep-search
//! index is.
//!
//! One file, `catalog-touched.bin`: one checksummed payload (see
//! `catalog/cache/envelope.rs`) written to a temp file and renamed over,
//! holding per session the file state it was read at (stamp, offset,
//! lines, a print of the bytes read), its cwd, the distinct files it
//! touched, and each file's touches encoded apart, decoded only for a file
//! that is asked for. An unchanged stamp serves the record as
//! is; a grown file whose start still prints the same is read on from the
//! stored offset; anything else (shorter, replaced, damaged) is read again.

use super::touched::{LineFacts, Tool, line_facts, may_touch};
use crate::catalog::cache::envelope::Envelope;
use crate::catalog::discover::FileStamp;
use crate::session::read::blocks::read_lines;
use crate::session::read::file::{PrefixPrint, open_regular};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const TABLE_FILE: &str = "catalog-touched.bin";
/// Bump when the layout or the meaning of a stored field changes.
const TABLE: Envelope = Envelope {
    magic: b"piscopeF",
    format: 1,
};
/// The longest unfinished last line read (it is never stored).
const TAIL_BYTES: u64 = 16 << 20;
/// What a run must have read on of session files (as bytes, each session
/// read on counted as [`SESSION_COST`] more) for its findings to be saved:
/// reading that again costs about what writing the table does.
const SAVE_FROM: u64 = 4 << 20;
const SESSION_COST: u64 = 64 << 10;

#[derive(Debug, Default, Deserialize)]
struct Table {
    sessions: Vec<Record>,
}

/// [`Table`], as it is written.
#[derive(Serialize)]
struct TableOut<'a> {
    sessions: Vec<&'a Record>,
}

/// What the store holds for one session file. Few parts, each one
/// allocation when read back: the table of two thousand sessions is read
/// whole for every question.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    path: PathBuf,
    stamp: FileStamp,
    /// The bytes of the complete lines read.
    offset: u64,
    lines: u64,
    prefix: PrefixPrint,
    /// The header's cwd, once its line is read.
    cwd: Option<String>,
    /// Every file touched, each once, each followed by a NUL (which no
    /// path holds).
    files: String,
    /// Where each file's touches end in `touches`.
    ends: Vec<u32>,
    /// Each file's touches (a `Vec<StoredTouch>`, encoded), one after the
    /// other.
    #[serde(with = "serde_bytes")]
    touches: Vec<u8>,
    /// The calls not answered yet, with their touches (a `Vec<Open>`,
    /// encoded): a result read later may say they failed.
    #[serde(with = "serde_bytes")]
    open: Vec<u8>,
}

/// A record's touches, decoded to be extended.
#[derive(Debug, Default, Clone)]
struct Body {
    files: Vec<String>,
    touches: Vec<Vec<StoredTouch>>,
    open: Vec<Open>,
}

/// The calls not answered yet a session keeps at most (the oldest are
/// forgotten: their results are long overdue).
const OPEN_CALLS: usize = 1024;

/// A call not answered yet, and its touches (each a file's place and the
/// touch's place among that file's).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Open {
    call_id: String,
    touches: Vec<(u32, u32)>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredTouch {
    line: u64,
    entry_id: Option<String>,
    time_ms: Option<i64>,
    tool: Tool,
    /// The call's result is an error.
    failed: bool,
}

/// One file one tool call touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Touch {
    /// 1-based line of the entry in its file.
    pub line: u64,
    pub entry_id: Option<String>,
    #[serde(skip)]
    pub time_ms: Option<i64>,
    pub tool: Tool,
    /// The file, resolved against the session's cwd.
    pub file: String,
    /// The call's result is an error.
    pub failed: bool,
}

/// What one session touched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionTouches {
    pub cwd: Option<String>,
    /// Every file touched, each once, in the order first touched.
    pub files: Vec<String>,
    /// In file order.
    pub touches: Vec<Touch>,
}

/// What the index did in this run, session by session, counted as the
/// deep-search index counts (it never falls back to the files).
pub type TouchedStats = super::deep_index::IndexStats;

/// The touched-files store, opened for one question (or several).
#[derive(Default)]
pub struct TouchedIndex {
    dir: Option<PathBuf>,
    records: HashMap<PathBuf, Arc<Record>>,
    /// Records built or extended in this run, written by [`TouchedIndex::save`].
    changed: Mutex<HashMap<PathBuf, Arc<Record>>>,
    stats: Mutex<TouchedStats>,
    home: Option<String>,
}

/// A session's record, served: its files at hand, its touches decoded
/// only when asked for.
pub struct Served {
    record: Arc<Record>,
}

impl Served {
    pub fn cwd(&self) -> Option<&str> {
        self.record.cwd.as_deref()
    }

    /// Every file the session touched, each once, in the order first
    /// touched.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.record.files.split_terminator('\0')
    }

    /// The touches of the files `wanted` keeps (by their place in
    /// [`Served::files`]), in file order; `None` when the stored part is
    /// damaged.
    pub fn touches(&self, wanted: &dyn Fn(usize) -> bool) -> Option<Vec<Touch>> {
        let r = &*self.record;
        let mut out = Vec::new();
        let mut start = 0usize;
        for (i, (file, &end)) in self.files().zip(&r.ends).enumerate() {
            let end = end as usize;
            if !wanted(i) {
                start = end;
                continue;
            }
            let stored: Vec<StoredTouch> = postcard::from_bytes(r.touches.get(start..end)?).ok()?;
            start = end;
            out.extend(stored.into_iter().map(|t| Touch {
                line: t.line,
                entry_id: t.entry_id,
                time_ms: t.time_ms,
                tool: t.tool,
                file: file.to_string(),
                failed: t.failed,
            }));
        }
        out.sort_by_key(|t| t.line);
        Some(out)
    }

    /// Everything the session touched.
    pub fn all(&self) -> Option<SessionTouches> {
        Some(SessionTouches {
            cwd: self.record.cwd.clone(),
            files: self.files().map(str::to_string).collect(),
            touches: self.touches(&|_| true)?,
        })
    }
}

/// The table in `dir`, if it is intact.
fn read_table(dir: &Path) -> Option<Table> {
    let bytes = crate::session::read::file::read_regular(&dir.join(TABLE_FILE)).ok()?;
    postcard::from_bytes(TABLE.payload(&bytes)?).ok()
}

impl TouchedIndex {
    /// An index that keeps nothing: every question reads the files.
    pub fn disabled() -> TouchedIndex {
        TouchedIndex {
            home: std::env::var("HOME").ok(),
            ..TouchedIndex::default()
        }
    }

    /// Opens the store in `dir` (an empty one when it is missing, damaged
    /// or of another format: it is built as questions need it).
    pub fn open(dir: PathBuf) -> TouchedIndex {
        let records = read_table(&dir)
            .map(|t| {
                t.sessions
                    .into_iter()
                    .map(|r| (r.path.clone(), Arc::new(r)))
                    .collect()
            })
            .unwrap_or_default();
        TouchedIndex {
            dir: Some(dir),
            records,
            ..TouchedIndex::disabled()
        }
    }

    /// The home folder `~` stands for.
    pub fn home(&self) -> Option<&str> {
        self.home.as_deref()
    }

    /// What the index did in this run so far.
    pub fn stats(&self) -> TouchedStats {
        self.stats.lock().map(|s| *s).unwrap_or_default()
    }

    fn count(&self, f: impl FnOnce(&mut TouchedStats)) {
        if let Ok(mut s) = self.stats.lock() {
            f(&mut s);
        }
    }

    /// The session `path`'s touches: as stored when its file is unchanged,
    /// else read (on) from the file, the store updated (kept by
    /// [`TouchedIndex::save`]).
    pub fn serve(&self, path: &Path) -> std::io::Result<Served> {
        let stored = self.current(path);
        // As stored, when the file is as it was and ends in a whole line
        // (an unfinished last line is read each time, never stored).
        if let Some(r) = &stored
            && r.offset == r.stamp.size
            && std::fs::metadata(path).is_ok_and(|m| m.is_file() && FileStamp::of(&m) == r.stamp)
        {
            self.count(|s| s.reused += 1);
            return Ok(Served { record: r.clone() });
        }
        let file = open_regular(path)?;
        let stamp = FileStamp::of(&file.metadata()?);
        let reuse = stored.filter(|r| {
            (r.stamp == stamp
                || (stamp.size > r.stamp.size
                    && stamp.inode == r.stamp.inode
                    && stamp.device == r.stamp.device))
                && r.prefix.matches(&file).unwrap_or(false)
        });
        let (mut record, mut body) = match reuse.and_then(|r| Some((r.body()?, r))) {
            Some((body, r)) => (Record::clone(&r), body),
            None => (Record::empty(path, stamp), Body::default()),
        };
        let from = record.offset;
        let mut places: HashMap<String, usize> = body
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.clone(), i))
            .collect();
        let home = self.home.as_deref();
        let mut cwd = record.cwd.take();
        let (offset, lines) = read_lines(
            &file,
            from,
            stamp.size,
            record.lines,
            &mut |number, line| {
                if (number == 1 || may_touch(line))
                    && let Some(facts) = line_facts(line, cwd.as_deref(), home)
                {
                    if number == 1 {
                        cwd.clone_from(&facts.cwd);
                    }
                    body.add(&mut places, number, facts);
                }
                true
            },
        )?
        .ok_or_else(|| std::io::Error::other("the lines stopped"))?;
        self.count(|s| s.read(from, offset));
        record.cwd = cwd;
        record.offset = offset;
        record.lines = lines;
        record.stamp = stamp;
        record.prefix = PrefixPrint::of(&file, offset)?;
        record.store(&body)?;
        let record = Arc::new(record);
        if self.dir.is_some()
            && let Ok(mut c) = self.changed.lock()
        {
            c.insert(path.to_path_buf(), record.clone());
        }
        // An unfinished last line is read too, never stored: pi may be
        // writing it, or the file was cut there.
        if offset < stamp.size && stamp.size - offset <= TAIL_BYTES {
            let mut tail = vec![0; (stamp.size - offset) as usize];
            if crate::catalog::cache::span::read_exact_at(&file, &mut tail, offset)
                && let Some(facts) = line_facts(&tail, record.cwd.as_deref(), home)
            {
                let mut with_tail = Record::clone(&record);
                if lines == 0 {
                    with_tail.cwd.clone_from(&facts.cwd);
                }
                body.add(&mut places, lines + 1, facts);
                with_tail.store(&body)?;
                return Ok(Served {
                    record: Arc::new(with_tail),
                });
            }
        }
        Ok(Served { record })
    }

    /// The record for `path`: this run's, else the stored one.
    fn current(&self, path: &Path) -> Option<Arc<Record>> {
        if let Some(r) = self.changed.lock().ok()?.get(path) {
            return Some(r.clone());
        }
        self.records.get(path).cloned()
    }

    /// Writes what this run built into the table (merged with what other
    /// piscopes wrote meanwhile; sessions since deleted are dropped), when
    /// it is worth it: the table is written whole, so a run that only read
    /// on a little (a few sessions grew by some lines) leaves it as it
    /// was, and the next run reads those lines again, until what the runs
    /// read adds up to `SAVE_FROM` (4 MB). A session read whole (new, replaced)
    /// is always kept. Errors are returned for reporting; the store is
    /// only an accelerator.
    pub fn save(&self) -> std::io::Result<()> {
        let Some(dir) = self.dir.as_ref() else {
            return Ok(());
        };
        let stats = self.stats();
        let read = stats.bytes_read + stats.extended as u64 * SESSION_COST;
        if stats.built == 0 && read < SAVE_FROM {
            return Ok(());
        }
        let changed = std::mem::take(
            &mut *self
                .changed
                .lock()
                .map_err(|_| std::io::Error::other("a thread panicked"))?,
        );
        if changed.is_empty() {
            return Ok(());
        }
        let mut sessions: HashMap<PathBuf, Arc<Record>> = match read_table(dir) {
            Some(t) => t
                .sessions
                .into_iter()
                .map(|r| (r.path.clone(), Arc::new(r)))
                .collect(),
            None => HashMap::new(),
        };
        sessions.extend(changed);
        sessions.retain(|p, _| p.exists());
        let table = TableOut {
            sessions: sessions.values().map(|r| &**r).collect(),
        };
        let payload = postcard::to_stdvec(&table).map_err(std::io::Error::other)?;
        TABLE.write(&dir.join(TABLE_FILE), &payload)
    }
}

impl Record {
    fn empty(path: &Path, stamp: FileStamp) -> Record {
        Record {
            path: path.to_path_buf(),
            stamp,
            offset: 0,
            lines: 0,
            prefix: PrefixPrint::default(),
            cwd: None,
            files: String::new(),
            ends: Vec::new(),
            touches: Vec::new(),
            open: Vec::new(),
        }
    }

    /// Its touches decoded; `None` when a part is damaged.
    fn body(&self) -> Option<Body> {
        let files: Vec<String> = self
            .files
            .split_terminator('\0')
            .map(str::to_string)
            .collect();
        if files.len() != self.ends.len() {
            return None;
        }
        let mut touches = Vec::with_capacity(files.len());
        let mut start = 0usize;
        for &end in &self.ends {
            let end = end as usize;
            touches.push(postcard::from_bytes(self.touches.get(start..end)?).ok()?);
            start = end;
        }
        let open = if self.open.is_empty() {
            Vec::new()
        } else {
            postcard::from_bytes(&self.open).ok()?
        };
        Some(Body {
            files,
            touches,
            open,
        })
    }

    /// Keeps `body` as its touches.
    fn store(&mut self, body: &Body) -> std::io::Result<()> {
        self.files.clear();
        self.ends.clear();
        self.touches.clear();
        for (file, touches) in body.files.iter().zip(&body.touches) {
            self.files.push_str(file);
            self.files.push('\0');
            self.touches = postcard::to_extend(touches, std::mem::take(&mut self.touches))
                .map_err(std::io::Error::other)?;
            let end = u32::try_from(self.touches.len()).map_err(std::io::Error::other)?;
            self.ends.push(end);
        }
        self.open = if body.open.is_empty() {
            Vec::new()
        } else {
            postcard::to_stdvec(&body.open).map_err(std::io::Error::other)?
        };
        Ok(())
    }
}

impl Body {
    /// Adds one line's facts (`places`: each file's place in `files`).
    fn add(&mut self, places: &mut HashMap<String, usize>, line: u64, facts: LineFacts) {
        if let Some((call, failed)) = facts.result
            && let Some(k) = self.open.iter().position(|o| o.call_id == call)
        {
            let open = self.open.remove(k);
            for (file, at) in open.touches {
                if let Some(t) = self
                    .touches
                    .get_mut(file as usize)
                    .and_then(|f| f.get_mut(at as usize))
                {
                    t.failed = failed;
                }
            }
        }
        for t in facts.touches {
            // A path holding a NUL names no file (and would end its place
            // in the record's list).
            if t.file.contains('\0') {
                continue;
            }
            let place = *places.entry(t.file).or_insert_with_key(|f| {
                self.files.push(f.clone());
                self.touches.push(Vec::new());
                self.files.len() - 1
            });
            let at = self.touches[place].len();
            self.touches[place].push(StoredTouch {
                line,
                entry_id: facts.entry_id.clone(),
                time_ms: facts.time_ms,
                tool: t.tool,
                failed: false,
            });
            if let Some(call) = t.call_id {
                let spot = (place as u32, at as u32);
                match self.open.iter_mut().rev().find(|o| o.call_id == call) {
                    Some(o) => o.touches.push(spot),
                    None => {
                        if self.open.len() == OPEN_CALLS {
                            self.open.remove(0);
                        }
                        self.open.push(Open {
                            call_id: call,
                            touches: vec![spot],
                        });
                    }
                }
            }
        }
    }
}

/// One session that touched the file asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TouchedSession {
    /// Its place in the sessions asked about.
    pub index: usize,
    pub cwd: Option<String>,
    /// Newest first (by the entry's time, then by line).
    pub touches: Vec<Touch>,
}

/// The sessions of `sessions` (in their order) whose tool calls touched a
/// file `pattern` matches, each with those touches, newest first; read on
/// every core from `index` (built or extended there as needed). Files that
/// cannot be read are skipped and named in the returned list.
pub fn sessions_touching(
    sessions: &[crate::catalog::SessionSummary],
    pattern: &super::touched::FilePattern,
    index: &TouchedIndex,
) -> (Vec<TouchedSession>, Vec<crate::catalog::CatalogProblem>) {
    let home = index.home();
    let found = crate::par::map(sessions.len(), 8, |i| {
        let s = &sessions[i];
        let served = index
            .serve(&s.path)
            .map_err(|e| crate::catalog::CatalogProblem::new(&s.path, e.to_string()))?;
        let matcher = pattern.in_cwd(served.cwd(), home);
        let wanted: Vec<bool> = served.files().map(|f| matcher.matches(f)).collect();
        if !wanted.contains(&true) {
            return Ok(None);
        }
        let mut touches = served
            .touches(&|f| wanted.get(f).copied().unwrap_or(false))
            .ok_or_else(|| {
                crate::catalog::CatalogProblem::new(&s.path, "damaged touched-files index")
            })?;
        newest_first(&mut touches);
        Ok(Some(TouchedSession {
            index: i,
            cwd: served.cwd().map(str::to_string),
            touches,
        }))
    });
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for r in found {
        match r {
            Ok(Some(t)) => out.push(t),
            Ok(None) => {}
            Err(p) => problems.push(p),
        }
    }
    (out, problems)
}

/// Touches newest first: by the entry's time (those without one last),
/// then by line, later lines first.
pub fn newest_first(touches: &mut [Touch]) {
    touches.sort_by(|a, b| {
        let time = |t: &Touch| t.time_ms.map_or(i64::MIN, |m| m);
        time(b).cmp(&time(a)).then(b.line.cmp(&a.line))
    });
}

/// Every file the tool calls of `sessions` touched, with how many of the
/// sessions touched it, most touched first (then by name); files only a
/// bash command named are left out. Sessions that cannot be read are left
/// out too.
pub fn files_touched(
    sessions: &[crate::catalog::SessionSummary],
    index: &TouchedIndex,
) -> Vec<(String, usize)> {
    let per = crate::par::map(sessions.len(), 8, |i| {
        let served = index.serve(&sessions[i].path).ok()?;
        let touches = served.touches(&|_| true)?;
        let mut files: Vec<String> = touches
            .into_iter()
            .filter(|t| !t.tool.weak())
            .map(|t| t.file)
            .collect();
        files.sort();
        files.dedup();
        Some(files)
    });
    let mut count: HashMap<String, usize> = HashMap::new();
    for f in per.into_iter().flatten().flatten() {
        *count.entry(f).or_default() += 1;
    }
    let mut out: Vec<(String, usize)> = count.into_iter().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, path: &str) -> String {
        format!(
            "{{\"type\":\"message\",\"id\":\"{id}\",\"timestamp\":\"2026-03-01T10:00:00.000Z\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"toolCall\",\"id\":\"c{id}\",\"name\":\"edit\",\"arguments\":{{\"path\":\"{path}\"}}}}]}}}}\n"
        )
    }

    fn files(index: &TouchedIndex, path: &Path) -> Vec<String> {
        index
            .serve(path)
            .unwrap()
            .files()
            .map(str::to_string)
            .collect()
    }

    /// Built once, served as stored, read on as the file grows (a small
    /// growth read on again until a save is worth it), read again when
    /// the file is replaced.
    #[test]
    fn the_store_follows_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().join("cache");
        let session = tmp.path().join("s.jsonl");
        let header = "{\"type\":\"session\",\"id\":\"s\",\"cwd\":\"/w\"}\n";
        std::fs::write(&session, format!("{header}{}", call("a", "x.rs"))).unwrap();
        let index = TouchedIndex::open(cache.clone());
        assert_eq!(files(&index, &session), ["/w/x.rs"]);
        assert_eq!(index.stats().built, 1);
        index.save().unwrap();
        let index = TouchedIndex::open(cache.clone());
        assert_eq!(files(&index, &session), ["/w/x.rs"]);
        assert_eq!(index.stats().reused, 1);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&session)
            .unwrap();
        std::io::Write::write_all(&mut f, call("b", "/y.rs").as_bytes()).unwrap();
        for _ in 0..2 {
            let index = TouchedIndex::open(cache.clone());
            assert_eq!(files(&index, &session), ["/w/x.rs", "/y.rs"]);
            assert_eq!(index.stats().extended, 1);
            // Too little read to be worth writing the table again.
            index.save().unwrap();
        }
        // An unfinished last line counts, and is not kept.
        std::io::Write::write_all(&mut f, call("c", "z.rs").trim_end().as_bytes()).unwrap();
        let index = TouchedIndex::open(cache.clone());
        assert_eq!(files(&index, &session), ["/w/x.rs", "/y.rs", "/w/z.rs"]);
        // Replaced by a shorter file: read again, and kept; its unfinished
        // last line is read again each time.
        std::fs::write(
            &session,
            format!("{header}{}", call("e", "z.rs").trim_end()),
        )
        .unwrap();
        let index = TouchedIndex::open(cache.clone());
        assert_eq!(files(&index, &session), ["/w/z.rs"]);
        assert_eq!(index.stats().built, 1);
        index.save().unwrap();
        let index = TouchedIndex::open(cache.clone());
        assert_eq!(files(&index, &session), ["/w/z.rs"]);
        // Its whole lines as stored, the rest read on.
        std::fs::write(&session, format!("{header}{}", call("d", "q.rs"))).unwrap();
        let index = TouchedIndex::open(cache.clone());
        assert_eq!(files(&index, &session), ["/w/q.rs"]);
        assert_eq!(index.stats().extended, 1);
        let touches = index.serve(&session).unwrap().all().unwrap().touches;
        assert_eq!(touches.len(), 1);
        assert_eq!(touches[0].entry_id.as_deref(), Some("d"));
        assert_eq!(touches[0].line, 2);
    }

    /// A failed result marks its call's touches, even one read in a later
    /// run; a result that is no error leaves them.
    #[test]
    fn failed_results_mark_their_calls() {
        let tmp = tempfile::tempdir().unwrap();
        let session = tmp.path().join("s.jsonl");
        let result = |id: &str, error: bool| {
            format!(
                "{{\"type\":\"message\",\"id\":\"r{id}\",\"message\":{{\"role\":\"toolResult\",\"toolCallId\":\"c{id}\",\"isError\":{error}}}}}\n"
            )
        };
        let text = format!(
            "{{\"type\":\"session\",\"cwd\":\"/w\"}}\n{}{}{}",
            call("a", "x.rs"),
            call("b", "x.rs"),
            result("a", true)
        );
        std::fs::write(&session, &text).unwrap();
        let index = TouchedIndex::open(tmp.path().join("cache"));
        let failed = |index: &TouchedIndex| -> Vec<bool> {
            let t = index.serve(&session).unwrap().all().unwrap().touches;
            t.iter().map(|t| t.failed).collect()
        };
        assert_eq!(failed(&index), [true, false]);
        std::fs::write(&session, format!("{text}{}", result("b", true))).unwrap();
        assert_eq!(failed(&index), [true, true]);
    }
}
