//! The session catalog: every session file in the sessions folder, summarised
//! in parallel (through the cache), then searched and sorted as pi's picker
//! does. This file loads and lists the catalog; the rest lives in:
//!
//! ```text
//! discover.rs     where pi keeps its sessions, which files are candidates
//! in_use.rs       whether pi may have a session open (the one rule)
//! problem.rs      what could not be read, said with its path
//! summary/        one file's summary with pi's rules, its searchable
//!                 text, pi's session-list JSON
//! search/         pi's search language and sort orders; deep search
//!                 and its index
//! cache/          the on-disk cache of summaries and texts
//! usage/          tokens and money, each record counted once
//! housekeeping/   delete, clean up, move a project, the trash journal
//! subagents.rs    child sessions subagent extensions write, under their parent
//! ```

pub mod cache;
pub mod discover;
pub mod housekeeping;
pub mod in_use;
mod problem;
pub mod search;
pub mod subagents;
pub mod summary;
pub mod usage;

pub use cache::Cache;
pub use discover::{Layout, Scope, SessionsFolder, Surroundings, locate};
pub use problem::CatalogProblem;
pub use search::query::{Query, QueryError, SortMode, ThreadRow, filter_and_sort, threaded};
pub use summary::{MessageText, SessionSummary};

use crate::session::read::file::{PrefixPrint, open_regular};
use discover::{Candidate, FileStamp};
use summary::list_json;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use subagents::call_line::{CallWindows, ReadCalls};
use summary::read::{Beside, SummaryState};

/// How to load.
#[derive(Debug, Clone, Copy)]
pub struct LoadOptions {
    pub scope: Scope,
    /// Also load every session's message text (for searching).
    pub with_text: bool,
    /// Also total every session's tokens and cost. (They are totalled
    /// anyway when the cache keeps what is read.)
    pub with_usage: bool,
}

/// Progress while loading, for a progress bar: newest files come first.
pub enum Progress<'a> {
    Started {
        total: usize,
    },
    Loaded {
        done: usize,
        total: usize,
        summary: Option<&'a SessionSummary>,
    },
    /// The newest files the cache holds as they are now, before anything
    /// else is done, without their texts: a first screen to show. Each is
    /// then loaded as usual.
    Glimpse(&'a [SessionSummary]),
}

/// How many of the newest files [`load_listed`] reports before it plans
/// the rest: more than a screen holds.
pub const FIRST_SCREEN: usize = 200;

/// How the summaries were obtained.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadStats {
    pub from_cache: usize,
    /// Files read on from where the cache stopped.
    pub resumed: usize,
    pub read_whole: usize,
}

/// The loaded catalog.
pub struct Catalog {
    pub folder: SessionsFolder,
    /// Newest first, in pi's order.
    pub sessions: Vec<SessionSummary>,
    pub problems: Vec<CatalogProblem>,
    pub stats: LoadStats,
    /// The tool calls of the sessions read whole that a header read
    /// before them named as its parent (see [`ReadCalls`]).
    pub calls: ReadCalls,
}

/// What to do with a file; a cached record is the cache's own, borrowed.
enum Plan<'c> {
    /// The file is the version the cache saw.
    Cached(cache::Record<'c>),
    /// Read on from the state's offset, if the bytes before it are still
    /// the ones the print was taken of.
    Resume(Box<SummaryState>, PrefixPrint),
    Whole,
}

/// A file's plan: done from the cache already, or to read.
enum Planned<'c> {
    Done(Box<Result<Loaded, CatalogProblem>>),
    ToRead((Plan<'c>, Option<Arc<MessageText>>)),
}

/// What [`CachedList::of`] read of the files it set aside.
struct ReadAside {
    /// Their rows, as a run of their own.
    json: Vec<u8>,
    rows: Vec<CachedRow>,
    /// The sessions finding subagent sessions needs, by file.
    sessions: Vec<(usize, SessionSummary)>,
    /// The records to put, by file.
    states: Vec<(usize, Box<ToCache>)>,
    /// How many bytes were read, and of how many files the cache had no
    /// record.
    bytes: u64,
    new_files: usize,
}

/// Reads the files `to_read` (indices into `candidates`) on every core,
/// each from where its record in `cache` left off, as a load would; their
/// rows, with `all` every session. `None` when one cannot be read: the
/// load then says why.
fn read_aside(
    candidates: &[Candidate],
    to_read: &[usize],
    cache: &Cache,
    all: bool,
) -> Option<ReadAside> {
    let caching = cache.is_enabled();
    let parents = NamedParents::default();
    let reading = Reading {
        keep_text: false,
        usage: caching,
        caching,
        parents: &parents,
    };
    let read = crate::par::map(to_read.len(), 1, |k| {
        let c = &candidates[to_read[k]];
        let (plan, text) = plan_with_text(c, cache, false);
        let from = match &plan {
            Plan::Cached(r) => r.head().offset,
            Plan::Resume(s, _) => s.offset,
            Plan::Whole => 0,
        };
        let recorded = cache.get(&c.path).is_some();
        let loaded = summarise(c, &plan, text.as_ref(), &reading).ok()?;
        let bytes = c.meta.map_or(0, |m| m.size).saturating_sub(from);
        Some((loaded, bytes, recorded))
    });
    let mut aside = ReadAside {
        json: Vec::new(),
        rows: Vec::new(),
        sessions: Vec::new(),
        states: Vec::new(),
        bytes: 0,
        new_files: 0,
    };
    for (&i, read) in to_read.iter().zip(read) {
        let (loaded, bytes, recorded) = read?;
        if let Some(s) = loaded.summary {
            if s.skipped_by_pi.is_none() {
                let start = u32::try_from(aside.json.len()).ok()?;
                list_json::push_session(&s, &mut aside.json);
                let end = u32::try_from(aside.json.len()).ok()?;
                aside.rows.push((s.modified_ms, start, end, i as u32));
            }
            if s.parent_session_path.is_some() || all {
                aside.sessions.push((i, s));
            }
        }
        aside.bytes += bytes;
        aside.new_files += usize::from(!recorded);
        aside.states.extend(loaded.state.map(|kept| (i, kept)));
    }
    Some(aside)
}

/// What was done.
#[derive(Clone, Copy, PartialEq, Eq)]
enum How {
    Cached,
    Resumed,
    Whole,
}

struct Loaded {
    summary: Option<SessionSummary>,
    /// What to cache. (Boxed: the channel and the results hold a `Loaded`
    /// per file.)
    state: Option<Box<ToCache>>,
    how: How,
    /// The file's tool calls, when they were gathered as it was read whole.
    calls: Option<Vec<(i64, i64)>>,
}

/// The sessions that headers read so far in one load name as their
/// parents: a file read whole after its name came up has its tool calls
/// gathered in the same read (see [`ReadCalls`]).
#[derive(Default)]
struct NamedParents(std::sync::Mutex<rustc_hash::FxHashSet<std::path::PathBuf>>);

impl NamedParents {
    fn name(&self, parent: &str) {
        let mut named = self.0.lock().unwrap_or_else(|e| e.into_inner());
        named.insert(std::path::PathBuf::from(parent));
    }

    fn is_named(&self, path: &Path) -> bool {
        let named = self.0.lock().unwrap_or_else(|e| e.into_inner());
        !named.is_empty() && named.contains(path)
    }
}

/// A read's state, a print of the bytes it was read from, and its text when
/// the summary's is the same one (shared, not held twice).
struct ToCache {
    state: SummaryState,
    prefix: PrefixPrint,
    text: Option<Arc<MessageText>>,
}

/// The session files of a folder, each with what `stat` said of it, in
/// pi's order, and the problems listing them (see [`list`]).
pub struct Files {
    candidates: Vec<Candidate>,
    problems: Vec<CatalogProblem>,
    scope: Scope,
    /// The folders inside the listed project folders.
    subfolders: Vec<std::path::PathBuf>,
}

impl Files {
    /// The session files found, in the order found.
    pub fn paths(&self) -> impl Iterator<Item = &std::path::Path> {
        self.candidates.iter().map(|c| c.path.as_path())
    }

    /// The problems listing them (reported by [`load_listed`] too).
    pub fn problems(&self) -> &[CatalogProblem] {
        &self.problems
    }

    /// The folders found inside the listed folders that are named as a
    /// session file beside them: where child sessions of the nested layout
    /// are (see [`subagents`]). Other folders (an extension's artifacts)
    /// are left out, so they cost a warm list nothing.
    pub fn subfolders(&self) -> Vec<std::path::PathBuf> {
        if self.subfolders.is_empty() {
            return Vec::new();
        }
        let files: rustc_hash::FxHashSet<&std::ffi::OsStr> =
            self.candidates.iter().map(|c| c.path.as_os_str()).collect();
        self.subfolders
            .iter()
            .filter(|d| {
                let mut name = d.as_os_str().to_os_string();
                name.push(".jsonl");
                files.contains(name.as_os_str())
            })
            .cloned()
            .collect()
    }
}

/// Lists the session files of `folder` and stats them, the cache's
/// summaries read meanwhile (for [`load_listed`] or [`cached_list_json`]).
pub fn list(folder: &SessionsFolder, scope: Scope, cache: &mut Cache) -> Files {
    let mut problems = Vec::new();
    // The cache's summaries are read while a thread lists the folders,
    // and this thread helps stat their files once read.
    let listing = discover::Listing::of(folder, scope);
    let candidates = std::thread::scope(|s| {
        let theirs = s.spawn(|| listing.work());
        crate::par::let_them_start();
        cache.read_summaries();
        let mine = listing.work();
        let theirs = match theirs.join() {
            Ok(found) => found,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        vec![theirs, mine]
    });
    let (candidates, subfolders) = listing.finish_with_subfolders(candidates, &mut problems);
    Files {
        candidates,
        problems,
        scope,
        subfolders,
    }
}

/// pi's JSON list (`ls --json`: every session pi lists, newest first)
/// taken straight from the cache's records, none decoded into a summary,
/// when the cache holds a record of every one of `files` but a few (which
/// are read, see [`CachedList::of`]) and of no other file under the
/// folder listed, and nothing is left out by folder; `None` otherwise
/// (then [`load_listed`] reads what it must). The problems listing the
/// files are `files`'.
pub fn cached_list_json(
    folder: &SessionsFolder,
    files: &Files,
    cache: &mut Cache,
) -> Option<Vec<u8>> {
    Some(CachedList::of(folder, files, cache, false)?.json(&|_, _| {}))
}

/// What [`CachedList::json`] adds to a session's row: given its path and
/// its row, written so far up to its closing `}`.
pub type RowExtra<'a> = dyn Fn(&Path, &mut Vec<u8>) + 'a;

/// pi's list as the cache's records hold it (see [`cached_list_json`]),
/// each row written and not yet put in order, with the sessions finding
/// the subagent sessions needs: the ones whose header names a parent
/// (whole), and with `all`, every other one too (with only its path, id,
/// cwd and times).
pub struct CachedList<'f> {
    files: &'f Files,
    /// Per run of files: their rows' JSON, and each row's sort key, where
    /// its JSON lies and its file's index.
    runs: Vec<(Vec<u8>, Vec<CachedRow>)>,
    sessions: Vec<SessionSummary>,
    /// The folder the list's files are the cache's records under, when the
    /// cache holds records of other files too.
    only: Option<std::path::PathBuf>,
    problems: Vec<CatalogProblem>,
    /// Whether files were read: their rows are in a run of their own.
    read: bool,
}

/// The most files [`CachedList::of`] reads itself; with more, the list is
/// loaded as usual.
const READ_AT_MOST: usize = 256;

/// How many bytes [`CachedList::of`] reads, per record the cache holds,
/// before it saves the records of what it read: a save rewrites every
/// record (some 5 to 9 µs each), and reading a quarter of that again on
/// every list until then costs less than saving each time.
const SAVE_AFTER_PER_RECORD: u64 = 2 << 10;

type CachedRow = (Option<i64>, u32, u32, u32);

impl<'f> CachedList<'f> {
    /// The list of `files`, `None` when the cache cannot give it (see
    /// [`cached_list_json`]). A few files the cache did not see as they are
    /// now (pi writing one, say) are read here, from where the cache's
    /// record of each left off; their new records are saved only once
    /// their reads come to [`SAVE_AFTER_PER_RECORD`] bytes a record held
    /// (the next list reads the same few bytes again meanwhile, and a save
    /// rewrites every record).
    pub fn of(
        folder: &SessionsFolder,
        files: &'f Files,
        cache: &mut Cache,
        all: bool,
    ) -> Option<CachedList<'f>> {
        let candidates = &files.candidates;
        if (folder.layout == Layout::Flat && files.scope == Scope::Current)
            || candidates.len().saturating_sub(cache.record_count()) > READ_AT_MOST
        {
            return None;
        }
        let cache_read: &Cache = cache;
        // A run of files at a time on every core, each run's rows written
        // into one buffer (a file pi leaves out has none), the files to
        // read set aside. `None`: a record that does not parse.
        const RUN: usize = 64;
        let runs = crate::par::map(candidates.len().div_ceil(RUN), 1, |run| {
            let mut json = Vec::with_capacity(RUN * 512);
            let mut rows: Vec<CachedRow> = Vec::with_capacity(RUN);
            let mut sessions = Vec::new();
            let mut to_read = Vec::new();
            for (i, c) in candidates.iter().enumerate().skip(run * RUN).take(RUN) {
                let Some(listed) = cached_listing(c, cache_read) else {
                    to_read.push(i);
                    continue;
                };
                let Some(listed) = listed else {
                    continue;
                };
                if listed.parent_session_path.is_some() {
                    let record = cache_read.get(&c.path)?;
                    sessions.push((i, record.head().summary(c.path.clone(), None)??));
                } else if all {
                    sessions.push((
                        i,
                        SessionSummary {
                            path: c.path.clone(),
                            id: listed.id.to_string(),
                            cwd: listed.cwd.to_string(),
                            created_ms: listed.created_ms,
                            modified_ms: listed.modified_ms,
                            ..SessionSummary::default()
                        },
                    ));
                }
                if listed.skipped_by_pi.is_some() {
                    continue;
                }
                let start = u32::try_from(json.len()).ok()?;
                list_json::push_row(&list_json::ListRow::of_listed(&c.path, &listed), &mut json);
                let end = u32::try_from(json.len()).ok()?;
                rows.push((listed.modified_ms, start, end, i as u32));
            }
            Some((json, rows, sessions, to_read))
        });
        let mut all_sessions = Vec::new();
        let mut out = Vec::with_capacity(runs.len() + 1);
        let mut to_read = Vec::new();
        for run in runs {
            let (json, rows, mut sessions, mut here) = run?;
            all_sessions.append(&mut sessions);
            out.push((json, rows));
            to_read.append(&mut here);
        }
        if to_read.len() > READ_AT_MOST {
            return None;
        }
        let aside = read_aside(candidates, &to_read, cache_read, all)?;
        if !aside.rows.is_empty() {
            out.push((aside.json, aside.rows));
        }
        all_sessions.extend(aside.sessions);
        // Every other file has a record, so as many records as those files
        // are theirs and no other's: none is of a file gone. The records of
        // another sessions folder in the same cache are not counted.
        let recorded = candidates.len() - aside.new_files;
        let only = match recorded == cache.record_count() {
            true => None,
            false => Some(discover::listed_root(folder, files.scope)),
        };
        if only
            .as_ref()
            .is_some_and(|dir| recorded != cache.record_count_under(dir))
        {
            return None;
        }
        let mut problems = Vec::new();
        let records_before = cache.record_count() as u64;
        for (i, kept) in aside.states {
            if let Some(stamp) = candidates[i].meta {
                let ToCache {
                    state,
                    prefix,
                    text,
                } = *kept;
                cache.put(&candidates[i].path, stamp, state, prefix, text);
            }
        }
        if aside.bytes >= records_before.saturating_mul(SAVE_AFTER_PER_RECORD) {
            if let Err(e) = cache.save() {
                problems.push(save_problem(e));
            }
        }
        // In the files' order, as the load has them.
        all_sessions.sort_unstable_by_key(|(i, _)| *i);
        Some(CachedList {
            files,
            runs: out,
            sessions: all_sessions.into_iter().map(|(_, s)| s).collect(),
            only,
            problems,
            read: !to_read.is_empty(),
        })
    }

    /// The problems of making the list (the cache not saved).
    pub fn problems(&self) -> &[CatalogProblem] {
        &self.problems
    }

    /// The last activity of the session at `path` as the cache's record
    /// lists it (see [`SessionSummary::modified_ms`]); `None` when the list
    /// has no session there.
    pub fn last_activity(&self, cache: &Cache, path: &Path) -> Option<Option<i64>> {
        let listed = match &self.only {
            None => true,
            Some(dir) => cache::records::is_under(path, dir),
        };
        Some(
            cache
                .get(path)
                .filter(|_| listed)?
                .head()
                .listed()??
                .modified_ms,
        )
    }

    /// The sessions finding subagent sessions needs (see [`CachedList`]),
    /// taken out.
    pub fn take_sessions(&mut self) -> Vec<SessionSummary> {
        std::mem::take(&mut self.sessions)
    }

    /// The list as pi's JSON, newest first, each row handed to `extra`
    /// once written (the subagent sessions under it are added so).
    pub fn json(self, extra: &RowExtra) -> Vec<u8> {
        let mut out = Vec::new();
        // Writing into memory cannot fail.
        let _ = self.write_json(extra, &mut out);
        out
    }

    /// [`CachedList::json`] written to `out` a row at a time: the rows are
    /// not joined first (megabytes of new memory for thousands of them).
    pub fn write_json(self, extra: &RowExtra, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut rows: Vec<(usize, CachedRow)> = self
            .runs
            .iter()
            .enumerate()
            .flat_map(|(run, (_, rows))| rows.iter().map(move |&r| (run, r)))
            .collect();
        // The rows of the files read go in among the others, by the files'
        // order (rows of one time keep it).
        if self.read {
            rows.sort_unstable_by_key(|(_, r)| r.3);
        }
        let mut order: Vec<u32> = (0..rows.len() as u32).collect();
        crate::session::tree::sort_like_v8(&mut order, |i| rows[i as usize].1.0.map(|t| -t));
        let mut row = Vec::with_capacity(4096);
        row.push(b'[');
        for (n, &i) in order.iter().enumerate() {
            if n > 0 {
                row.push(b',');
            }
            let (run, (_, start, end, file)) = rows[i as usize];
            row.extend_from_slice(&self.runs[run].0[start as usize..end as usize]);
            extra(&self.files.candidates[file as usize].path, &mut row);
            out.write_all(&row)?;
            row.clear();
        }
        row.extend_from_slice(b"]\n");
        out.write_all(&row)
    }
}

/// What the cache's record of `c` lists, when the cache saw the file whole
/// as it is now: `Some(None)` for a file that is no session (whatever
/// follows the line that said so), `None` for one to read again (unknown,
/// changed, or a last line without its newline, as pi would).
fn cached_listing<'c>(
    c: &Candidate,
    cache: &'c Cache,
) -> Option<Option<cache::records::Listed<'c>>> {
    let head = cache.get(&c.path)?.head();
    if c.meta != Some(head.stamp) {
        return None;
    }
    let Some(listed) = head.listed()? else {
        return Some(None);
    };
    head.complete().then_some(Some(listed))
}

/// Summarises the sessions of `folder`, using and updating `cache`.
pub fn load(
    folder: &SessionsFolder,
    options: LoadOptions,
    cache: &mut Cache,
    progress: &mut dyn FnMut(Progress),
) -> Catalog {
    let files = list(folder, options.scope, cache);
    load_listed(folder, files, options, cache, progress)
}

/// [`load`], of the files [`list`] found (with `options.scope`).
pub fn load_listed(
    folder: &SessionsFolder,
    files: Files,
    options: LoadOptions,
    cache: &mut Cache,
    progress: &mut dyn FnMut(Progress),
) -> Catalog {
    let Files {
        candidates,
        mut problems,
        scope,
        subfolders: _,
    } = files;
    debug_assert!(scope == options.scope);
    progress(Progress::Started {
        total: candidates.len(),
    });
    if options.with_text {
        // Opening the texts takes a while on a large history.
        let glimpse: Vec<SessionSummary> = candidates
            .iter()
            .take(FIRST_SCREEN)
            .filter_map(|c| match plan(c, cache) {
                Plan::Cached(r) if r.head().complete() => r.summary(c.path.clone(), None)?,
                _ => None,
            })
            .collect();
        if !glimpse.is_empty() {
            progress(Progress::Glimpse(&glimpse));
        }
        cache.prepare_texts();
    }
    let cache_read: &Cache = cache;
    let plan_of = |c: &Candidate| plan_with_text(c, cache_read, options.with_text);
    let total = candidates.len();
    let caching = cache.is_enabled();
    let usage = options.with_usage || caching;
    let parents = NamedParents::default();
    let reading = Reading {
        keep_text: options.with_text,
        usage,
        caching,
        parents: &parents,
    };
    let read = |c: &Candidate, (plan, text): &(Plan, Option<Arc<MessageText>>)| {
        summarise(c, plan, text.as_ref(), &reading)
    };
    // Each file's plan, on every core; a file unchanged since the cache saw
    // it is not even opened: its summary is taken from the cache there and
    // then (a warm list spends a good part of its time on these).
    let plan_file = |i: usize| {
        let c = &candidates[i];
        let plan = plan_of(c);
        match &plan.0 {
            Plan::Cached(r) if r.head().complete() => Planned::Done(Box::new(read(c, &plan))),
            _ => Planned::ToRead(plan),
        }
    };
    let mut results: Vec<Option<Loaded>> = (0..total).map(|_| None).collect();
    let mut done = 0;
    let mut take = |i: usize, r: Result<Loaded, CatalogProblem>| {
        done += 1;
        match r {
            Ok(loaded) => {
                progress(Progress::Loaded {
                    done,
                    total,
                    summary: loaded.summary.as_ref(),
                });
                results[i] = Some(loaded);
            }
            Err(p) => {
                progress(Progress::Loaded {
                    done,
                    total,
                    summary: None,
                });
                problems.push(p);
            }
        }
    };
    // The newest files first, on their own: a screen's worth is reported
    // before the thousands after them are planned. Then the files to read,
    // each with its plan, and whether the cache holds a record of each.
    let (mut to_read, mut recorded) = (Vec::new(), 0);
    let first = total.min(FIRST_SCREEN);
    for (from, to) in [(0, first), (first, total)] {
        let planned = crate::par::map(to - from, 64, |i| plan_file(from + i));
        for (i, p) in (from..).zip(planned) {
            if !matches!(p, Planned::ToRead((Plan::Whole, _))) {
                recorded += 1;
            }
            match p {
                Planned::Done(r) => take(i, *r),
                Planned::ToRead(plan) => to_read.push((i, plan)),
            }
        }
    }
    // Every record the cache holds is one of these files, or every record
    // under the folder listed (the others are another sessions folder's):
    // none is missing.
    let scanned = discover::listed_root(folder, options.scope);
    let none_missing = recorded == cache_read.record_count()
        || recorded == cache_read.record_count_under(&scanned);
    let read = |(i, plan): &(usize, _)| (*i, read(&candidates[*i], plan));
    // This thread reads files too, taking what the others finished between
    // its own: a thread waiting on the channel would be woken (a system
    // call on each side) for every file.
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(to_read.len());
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<Loaded, CatalogProblem>)>();
        for _ in 1..threads {
            let tx = tx.clone();
            let (next, to_read, read) = (&next, &to_read, &read);
            scope.spawn(move || {
                while let Some(file) = to_read.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if tx.send(read(file)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        crate::par::let_them_start();
        while let Some(file) = to_read.get(next.fetch_add(1, Ordering::Relaxed)) {
            let (i, r) = read(file);
            take(i, r);
            while let Ok((i, r)) = rx.try_recv() {
                take(i, r);
            }
        }
        for (i, r) in rx {
            take(i, r);
        }
    });

    let mut stats = LoadStats::default();
    let mut sessions = Vec::with_capacity(total);
    let mut calls = ReadCalls::default();
    for (c, loaded) in candidates.iter().zip(results) {
        let Some(loaded) = loaded else { continue };
        if let Some(windows) = loaded.calls {
            calls.insert(c.path.clone(), windows);
        }
        match loaded.how {
            How::Cached => stats.from_cache += 1,
            How::Resumed => stats.resumed += 1,
            How::Whole => stats.read_whole += 1,
        }
        if let (Some(kept), Some(stamp)) = (loaded.state, c.meta) {
            let ToCache {
                state,
                prefix,
                text,
            } = *kept;
            cache.put(&c.path, stamp, state, prefix, text);
        }
        sessions.extend(loaded.summary);
    }
    if !none_missing {
        // By the paths' bytes (hashing a `Path` walks its components).
        let present: rustc_hash::FxHashSet<&std::ffi::OsStr> =
            candidates.iter().map(|c| c.path.as_os_str()).collect();
        cache.forget_missing_under(&scanned, &|p| present.contains(p.as_os_str()));
    }
    match cache.save() {
        // The texts just read are in the texts file now: searches read them
        // there, as after a warm start, and the copies in memory go.
        Ok(swaps) => {
            for s in sessions.iter_mut() {
                if let Some(t) = s.text.as_mut() {
                    if let Some(stored) = swaps.stored(&s.path, t) {
                        *t = stored;
                    }
                }
            }
        }
        Err(e) => problems.push(save_problem(e)),
    }
    if folder.layout == Layout::Flat && options.scope == Scope::Current {
        let cwd = &folder.cwd;
        sessions.retain(|s| !s.cwd.is_empty() && discover::normalize(&cwd.join(&s.cwd)) == *cwd);
    }
    sort_newest_first(&mut sessions);
    Catalog {
        folder: folder.clone(),
        sessions,
        problems,
        stats,
        calls,
    }
}

/// Summarises one file without the cache; `Ok(None)` when it is not a session.
pub fn summarise_file(path: &Path) -> std::io::Result<Option<SessionSummary>> {
    summarise_one(path, false)
}

/// Like [`summarise_file`], keeping the message text for searching (as a
/// catalog loaded for the browser has it).
pub fn summarise_file_with_text(path: &Path) -> std::io::Result<Option<SessionSummary>> {
    summarise_one(path, true)
}

/// Where [`summarise_on`] left a file: the read's state, a print of the
/// bytes it read and its text, to read on from when the file grows.
pub struct ReadOn(Box<ToCache>);

/// [`summarise_file_with_text`], read on from `from` (what an earlier call
/// left of the same file) when the file only grew since: its header and
/// the bytes read before are as they were. Otherwise, or without `from`,
/// the file is read whole. Gives what to read on from next time.
pub fn summarise_on(
    path: &Path,
    from: Option<&ReadOn>,
) -> std::io::Result<(Option<SessionSummary>, Option<ReadOn>)> {
    // The stamp as `stat` gives it; `summarise` opens the file (a regular
    // one only) itself.
    let meta = std::fs::metadata(path)?;
    let c = Candidate {
        path: path.to_path_buf(),
        meta: Some(FileStamp::of(&meta)),
    };
    // The text read so far: the summary's, or the state's own when they
    // differed (a last line unfinished adds its text to the summary's).
    let (plan, text) = match from {
        Some(ReadOn(kept)) => (
            Plan::Resume(Box::new(kept.state.clone()), kept.prefix),
            kept.text.clone().or_else(|| {
                let own = kept.state.text.clone();
                kept.state
                    .with_text
                    .then(|| Arc::new(MessageText::new(own)))
            }),
        ),
        None => (Plan::Whole, None),
    };
    let parents = NamedParents::default();
    let reading = Reading {
        keep_text: true,
        usage: true,
        caching: true,
        parents: &parents,
    };
    let loaded = summarise(&c, &plan, text.as_ref(), &reading)
        .map_err(|p| std::io::Error::other(p.to_string()))?;
    Ok((loaded.summary, loaded.state.map(ReadOn)))
}

/// A session's text as a fresh read gives it (a damaged cached text).
fn reread_text(path: &Path) -> Option<String> {
    let s = summarise_file_with_text(path).ok()??;
    Some(s.text?.original().to_string())
}

fn summarise_one(path: &Path, with_text: bool) -> std::io::Result<Option<SessionSummary>> {
    let mut file = open_regular(path)?;
    let stamp = FileStamp::of(&file.metadata()?);
    let mut done = SummaryState {
        with_text,
        ..SummaryState::default()
    }
    .read_on(&mut file)?;
    let text = with_text.then(|| Arc::new(MessageText::new(std::mem::take(&mut done.text))));
    Ok(done.summary(path.to_path_buf(), stamp.size, stamp.mtime_ms(), text))
}

/// pi's order: latest activity first; a stable sort, so files of equal time
/// keep the order they were read in. pi sorts the sessions its list has;
/// the ones it leaves out (its reader throws on them) then go in by time,
/// after those of the same time, so the others keep pi's order exactly.
pub fn sort_newest_first(sessions: &mut Vec<SessionSummary>) {
    let key = |i: u32| sessions[i as usize].modified_ms.map(|t| -t);
    let (mut order, left_out): (Vec<u32>, Vec<u32>) =
        (0..sessions.len() as u32).partition(|&i| sessions[i as usize].skipped_by_pi.is_none());
    crate::session::tree::sort_like_v8(&mut order, key);
    for i in left_out {
        let at = key(i).map_or(order.len(), |k| {
            order
                .iter()
                .position(|&o| key(o).is_some_and(|x| x > k))
                .unwrap_or(order.len())
        });
        order.insert(at, i);
    }
    let mut slots: Vec<Option<SessionSummary>> = sessions.drain(..).map(Some).collect();
    sessions.extend(order.into_iter().filter_map(|i| slots[i as usize].take()));
}

fn plan<'c>(c: &Candidate, cache: &'c Cache) -> Plan<'c> {
    let (Some(stamp), Some(rec)) = (c.meta, cache.get(&c.path)) else {
        return Plan::Whole;
    };
    let head = rec.head();
    if head.stamp == stamp {
        return Plan::Cached(rec);
    }
    let Some(state) = rec.state() else {
        return Plan::Whole;
    };
    // Only a file that grew may have been appended to; one of the same
    // size whose stamp moved was written over (or only touched): read
    // whole, as a sampled print could miss a change in its middle.
    let grew = stamp.size > head.stamp.size
        && stamp.size >= state.offset
        && stamp.inode == head.stamp.inode
        && stamp.device == head.stamp.device
        && !state.not_a_session
        && state.header.is_some();
    if grew {
        Plan::Resume(state, head.prefix)
    } else {
        Plan::Whole
    }
}

/// How the files of one load are read.
struct Reading<'a> {
    keep_text: bool,
    usage: bool,
    caching: bool,
    parents: &'a NamedParents,
}

/// What to read of `c`, and the cached text to read on with. Cached texts
/// are attached up front; workers only read files. A state without its
/// text cannot serve a search (`with_text`), nor grow one.
fn plan_with_text<'c>(
    c: &Candidate,
    cache: &'c Cache,
    with_text: bool,
) -> (Plan<'c>, Option<Arc<MessageText>>) {
    let p = plan(c, cache);
    let (has_text, read_to) = match &p {
        Plan::Cached(r) => {
            let h = r.head();
            (h.with_text, (h.offset, h.header_hash))
        }
        Plan::Resume(s, _) => (s.with_text, (s.offset, s.header_hash)),
        Plan::Whole => return (p, None),
    };
    let cached = matches!(p, Plan::Cached(_));
    if with_text && !has_text {
        (Plan::Whole, None)
    } else if (cached && !with_text) || !has_text {
        (p, None)
    } else {
        match cache.text(&c.path, read_to, reread_text) {
            Some(t) => (p, Some(t)),
            None => (Plan::Whole, None),
        }
    }
}

fn summarise(
    c: &Candidate,
    plan: &Plan,
    text: Option<&Arc<MessageText>>,
    reading: &Reading,
) -> Result<Loaded, CatalogProblem> {
    let Reading {
        keep_text,
        usage,
        caching,
        parents,
    } = *reading;
    let problem = |e: std::io::Error| CatalogProblem::new(&c.path, e.to_string());
    let Some(stamp) = c.meta else {
        return Err(CatalogProblem::new(
            &c.path,
            "cannot read its size and time",
        ));
    };
    if let Plan::Cached(r) = plan {
        if r.head().complete() {
            // Nothing to read: the file is not even opened.
            let text = keep_text.then(|| text.cloned().unwrap_or_default());
            return match r.summary(c.path.clone(), text) {
                Some(summary) => Ok(Loaded {
                    summary,
                    state: None,
                    how: How::Cached,
                    calls: None,
                }),
                None => summarise(c, &Plan::Whole, None, reading),
            };
        }
    }
    // Reading on needs the text so far as a string (an intact one).
    let prior = match text.map(|t| t.cached_original()) {
        Some(None) => return summarise(c, &Plan::Whole, None, reading),
        Some(Some(t)) => t,
        None => std::borrow::Cow::Borrowed(""),
    };
    let mut file = open_regular(&c.path).map_err(problem)?;
    let (mut state, how) = match plan {
        Plan::Cached(r) => match r.state() {
            Some(s) => (*s, How::Cached),
            None => return summarise(c, &Plan::Whole, None, reading),
        },
        // A file rewritten in place that grew keeps its inode: only its
        // bytes tell it from one that was appended to.
        Plan::Resume(s, prefix)
            if s.same_header(&mut file).map_err(problem)?
                && prefix.matches(&file).map_err(problem)? =>
        {
            (SummaryState::clone(s), How::Resumed)
        }
        Plan::Resume(..) | Plan::Whole => (
            SummaryState {
                with_text: keep_text,
                skip_usage: !usage,
                ..SummaryState::default()
            },
            How::Whole,
        ),
    };
    if how != How::Whole {
        state.text = prior.into_owned();
    }
    // A file read whole once a header named it: its calls, for the parent
    // of that header's session.
    let mut calls = None;
    let beside = Beside {
        calls: (how == How::Whole).then_some(&mut calls),
        calls_wanted: Some(&|| parents.is_named(&c.path)),
        named_parent: Some(&|p: &str| parents.name(p)),
    };
    let mut done = state.read_on_beside(&mut file, beside).map_err(problem)?;
    let calls = calls
        .filter(|_| !done.not_a_session)
        .map(CallWindows::finish);
    let summary = finish(c, &mut done, stamp, keep_text);
    let state = if caching && how != How::Cached {
        let prefix = PrefixPrint::of(&file, state.offset).map_err(problem)?;
        // Texts only grow: of the same length, the summary's (which adds an
        // unfinished last line's, if any) is the state's.
        let text = summary.as_ref().and_then(|s| s.text.clone()).filter(|t| {
            t.cached_original()
                .is_some_and(|t| t.len() == state.text.len())
        });
        if text.is_some() {
            state.text = String::new();
        }
        Some(Box::new(ToCache {
            state,
            prefix,
            text,
        }))
    } else {
        None
    };
    Ok(Loaded {
        summary,
        state,
        how,
        calls,
    })
}

/// The cache could not be saved.
fn save_problem(e: std::io::Error) -> CatalogProblem {
    CatalogProblem::new(
        &cache::default_dir().unwrap_or_default(),
        format!("could not save the cache: {e}"),
    )
}

/// The summary of a finished read; its text is moved out of `state`.
fn finish(
    c: &Candidate,
    state: &mut SummaryState,
    stamp: FileStamp,
    keep_text: bool,
) -> Option<SessionSummary> {
    let text = keep_text.then(|| Arc::new(MessageText::new(std::mem::take(&mut state.text))));
    state.summary(c.path.clone(), stamp.size, stamp.mtime_ms(), text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A read tells the parent its header names as it reads it, and a file
    /// read whole once its name came up gathers its calls, which are the
    /// calls read alone; one not named, or read on from where the cache
    /// stopped (only part of its calls), gathers none.
    #[test]
    fn a_summary_read_on_equals_the_whole_read_as_the_file_grows() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("s.jsonl");
        let as_read = |s: Option<SessionSummary>| {
            s.map(|s| {
                let text = s.text.as_ref().map(|t| t.original().to_string());
                (serde_json::to_value(&s).expect("json"), text)
            })
        };
        let other = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pi-mono/large-session.jsonl"),
        )
        .expect("test data");
        let mut read_on = 0;
        for file in crate::session::read::file::test_session_files() {
            let bytes = std::fs::read(&file).expect("test data");
            // Cut at a third, inside a line, at the last line whole but for
            // its newline (pi writing it), then whole; then cut short (the
            // bytes read before are gone) and replaced by another file.
            let third = bytes.len() / 3;
            let before_newline = bytes[third..]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(third, |at| third + at);
            let mut cuts = [
                third,
                before_newline,
                (2 * bytes.len() / 3 + 1).min(bytes.len()),
                bytes.len(),
            ];
            cuts.sort_unstable();
            let mut kept: Option<ReadOn> = None;
            let steps = cuts
                .iter()
                .map(|&n| bytes[..n].to_vec())
                .chain([bytes[..bytes.len() / 2].to_vec(), other.clone()]);
            for (k, step) in steps.enumerate() {
                std::fs::write(&path, &step).expect("write");
                let (got, next) = summarise_on(&path, kept.as_ref()).expect("read on");
                let want = summarise_file_with_text(&path).expect("whole");
                assert!(
                    as_read(got) == as_read(want),
                    "{}: step {k} ({} bytes)",
                    file.display(),
                    step.len()
                );
                read_on += usize::from(kept.is_some());
                kept = next;
            }
        }
        assert!(read_on > 20, "{read_on} reads on");
    }

    #[test]
    fn a_file_named_as_a_parent_gathers_its_calls_as_it_is_read() {
        let dir = tempfile::tempdir().expect("dir");
        let bytes = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pi-mono/large-session.jsonl"),
        )
        .expect("test data");
        let parent = dir.path().join("parent.jsonl");
        std::fs::write(&parent, &bytes).expect("write");
        let child = dir.path().join("child.jsonl");
        let header = serde_json::json!({
            "type": "session", "version": 3, "id": "c", "cwd": "/p",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "parentSession": parent.to_str().expect("a UTF-8 path"),
        });
        std::fs::write(&child, format!("{header}\n")).expect("write");
        let candidate = |path: &Path| Candidate {
            path: path.to_path_buf(),
            meta: Some(FileStamp::of(&std::fs::metadata(path).expect("stat"))),
        };
        let parents = NamedParents::default();
        let reading = Reading {
            keep_text: false,
            usage: true,
            caching: true,
            parents: &parents,
        };
        let read = |path: &Path, plan: &Plan| {
            summarise(&candidate(path), plan, None, &reading).expect("read")
        };
        assert_eq!(read(&parent, &Plan::Whole).calls, None);
        assert!(!parents.is_named(&parent));
        assert_eq!(read(&child, &Plan::Whole).calls, None);
        assert!(parents.is_named(&parent));
        let alone = subagents::call_line::call_windows(&parent).expect("read");
        assert!(alone.len() > 10, "{alone:?}");
        assert_eq!(read(&parent, &Plan::Whole).calls, Some(alone));
        // Read on: the file's first half as the cache kept it, then all.
        let half = bytes.len() / 2;
        std::fs::write(&parent, &bytes[..half]).expect("write");
        let mut state = SummaryState::default();
        state
            .read_on(&mut std::fs::File::open(&parent).expect("open"))
            .expect("read");
        std::fs::write(&parent, &bytes).expect("write");
        let file = std::fs::File::open(&parent).expect("open");
        let print = PrefixPrint::of(&file, state.offset).expect("print");
        let resumed = read(&parent, &Plan::Resume(Box::new(state), print));
        assert!(resumed.how == How::Resumed && resumed.summary.is_some());
        assert_eq!(resumed.calls, None);
    }
}
