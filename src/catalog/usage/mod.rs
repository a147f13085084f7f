//! Where the tokens and money went: every usage record of every session in
//! the sessions folder, each counted once across the catalog.
//!
//! A fork or clone copies its parent's entries with their ids and times, so
//! the same assistant turn sits in several files. The rule: a record's key
//! is its entry's id, timestamp and token total (all three kept by a copy);
//! the session that holds a key earliest (by header time, then path) owns
//! it, and every other copy is *inherited*. A session's own spend is what it
//! owns; sums over sessions add own spend only.
//!
//! Money spent stays spent: the files a delete, a clean-up or a prune gave
//! to the trash (as piscope's journal names them) are read too, for as long
//! as the trash holds them, and marked *removed*. They own only what no
//! session in the sessions folder holds, so a pruned session's removed turns
//! are counted once, beside what its file still holds.

mod read;
pub mod report;
mod store;

pub use report::{By, DateRange, Group, Report, Zone, day_text, month_text, report, week_text};
pub use store::UsageCache;

use super::discover::{self, Candidate, FileStamp, Layout, Scope, SessionsFolder};
use super::problem::CatalogProblem;
use crate::session::read::file::open_regular;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Tokens and cost of one record, or a sum of records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spend {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    /// `cost.total` (0 when absent).
    pub cost: f64,
    /// pi's token total: `totalTokens`, else the sum of the four parts.
    pub tokens: f64,
}

impl Spend {
    pub fn add(&mut self, o: &Spend) {
        self.input += o.input;
        self.output += o.output;
        self.cache_read += o.cache_read;
        self.cache_write += o.cache_write;
        self.cost += o.cost;
        self.tokens += o.tokens;
    }

    /// The share of the prompt served from the cache: cache reads over all
    /// input (fresh input, cache reads and cache writes); `None` without input.
    pub fn cache_read_share(&self) -> Option<f64> {
        let all = self.input + self.cache_read + self.cache_write;
        (all > 0.0).then(|| self.cache_read / all)
    }
}

/// What wrote a usage record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u8)]
pub enum RecordKind {
    /// An assistant message's `usage`.
    Assistant,
    /// A `usage` entry (work outside the conversation, such as cache warming).
    UsageEntry,
    Compaction,
    BranchSummary,
    /// Any other entry that carries a `usage`.
    Other = 4,
}

/// One usage record.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct UsageRecord {
    /// What tells a copy from a new entry (see the module's rule).
    pub key: u64,
    /// The entry's timestamp (an assistant turn without one: its message's).
    pub time_ms: Option<i64>,
    pub kind: RecordKind,
    /// Index into the file's `models`.
    pub model: Option<u16>,
    pub spend: Spend,
    /// Off the branch pi resumes on (the path from the last entry to the root).
    pub abandoned: bool,
}

/// The usage records of one file, with the header facts the reports need.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FileUsage {
    /// Whether the file starts with a session header (otherwise it is no
    /// session and holds nothing).
    pub is_session: bool,
    pub id: String,
    pub cwd: String,
    pub parent_session: Option<String>,
    pub created_ms: Option<i64>,
    /// The model ids the records name, first use first.
    pub models: Vec<String>,
    /// A removed session's title (its name, else its first message), read
    /// with its records; `None` for the sessions in the folder, whose
    /// titles the catalog gives.
    #[serde(default)]
    pub title: Option<String>,
    /// Kept as one block of fixed-size records in the cache: hundreds of
    /// thousands of them load in milliseconds.
    #[serde(with = "packed")]
    pub records: Vec<UsageRecord>,
}

/// The records as one byte block: per record its key, time (`i64::MIN`
/// for none), the six numbers of its spend, then kind, model (`u16::MAX`
/// for none) and the abandoned flag, little-endian.
mod packed {
    use super::{RecordKind, Spend, UsageRecord};
    use serde::de::{Error, Visitor};
    use serde::{Deserializer, Serializer};

    const SIZE: usize = 8 * 8 + 4;

    pub fn serialize<S: Serializer>(records: &[UsageRecord], s: S) -> Result<S::Ok, S::Error> {
        let mut out = Vec::with_capacity(records.len() * SIZE);
        for r in records {
            out.extend_from_slice(&r.key.to_le_bytes());
            out.extend_from_slice(&r.time_ms.unwrap_or(i64::MIN).to_le_bytes());
            let p = &r.spend;
            for n in [
                p.input,
                p.output,
                p.cache_read,
                p.cache_write,
                p.cost,
                p.tokens,
            ] {
                out.extend_from_slice(&n.to_le_bytes());
            }
            out.push(r.kind as u8);
            out.extend_from_slice(&r.model.unwrap_or(u16::MAX).to_le_bytes());
            out.push(u8::from(r.abandoned));
        }
        s.serialize_bytes(&out)
    }

    fn unpack(b: &[u8]) -> Option<Vec<UsageRecord>> {
        if !b.len().is_multiple_of(SIZE) {
            return None;
        }
        let u64_at = |c: &[u8], i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&c[i..i + 8]);
            u64::from_le_bytes(a)
        };
        let f = |c: &[u8], i: usize| f64::from_bits(u64_at(c, i));
        b.chunks_exact(SIZE)
            .map(|c| {
                let time = u64_at(c, 8) as i64;
                let kind = match c[64] {
                    0 => RecordKind::Assistant,
                    1 => RecordKind::UsageEntry,
                    2 => RecordKind::Compaction,
                    3 => RecordKind::BranchSummary,
                    4 => RecordKind::Other,
                    _ => return None,
                };
                let model = u16::from_le_bytes([c[65], c[66]]);
                Some(UsageRecord {
                    key: u64_at(c, 0),
                    time_ms: (time != i64::MIN).then_some(time),
                    kind,
                    model: (model != u16::MAX).then_some(model),
                    spend: Spend {
                        input: f(c, 16),
                        output: f(c, 24),
                        cache_read: f(c, 32),
                        cache_write: f(c, 40),
                        cost: f(c, 48),
                        tokens: f(c, 56),
                    },
                    abandoned: c[67] != 0,
                })
            })
            .collect()
    }

    struct Bytes;

    impl Visitor<'_> for Bytes {
        type Value = Vec<UsageRecord>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("packed usage records")
        }
        fn visit_bytes<E: Error>(self, b: &[u8]) -> Result<Self::Value, E> {
            unpack(b).ok_or_else(|| E::custom("damaged usage records"))
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<UsageRecord>, D::Error> {
        d.deserialize_bytes(Bytes)
    }
}

impl FileUsage {
    pub fn model_of(&self, r: &UsageRecord) -> Option<&str> {
        r.model
            .and_then(|i| self.models.get(usize::from(i)))
            .map(String::as_str)
    }
}

/// Records that no report can tell apart, summed: the same quarter hour
/// (time zones move day boundaries by whole quarter hours), kind, model,
/// owner and branch. A session of thousands of turns folds into a few
/// dozen of these, which is what the cache keeps and the reports add up.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rollup {
    /// Quarter hours since 1970-01-01 UTC (`None`: records without a time).
    pub quarter: Option<i64>,
    pub kind: RecordKind,
    /// Index into the session's `models`.
    pub model: Option<u16>,
    /// Owned here (else held as a copy of an earlier session's record).
    pub owned: bool,
    /// Off the branch pi resumes on.
    pub abandoned: bool,
    /// How many records.
    pub count: u32,
    pub spend: Spend,
}

/// The length of a [`Rollup`]'s quarter hour.
pub const QUARTER_MS: i64 = 15 * 60 * 1000;

/// One session's usage, with what it owns told apart.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionUsage {
    pub path: PathBuf,
    /// The header's `cwd`.
    pub cwd: String,
    /// The model ids its records name, first use first.
    pub models: Vec<String>,
    /// Its records, folded (in the order each kind first appears).
    pub rollups: Vec<Rollup>,
    /// What it owns, what it holds as copies, and the part of what it owns
    /// that is off the branch pi resumes on.
    pub own: Spend,
    pub inherited: Spend,
    pub abandoned: Spend,
    /// Set when this is a file in the trash (then `path` is where the
    /// session lived, and `own` is what no session in the folder holds).
    pub removed: Option<Removed>,
}

/// A session file a delete, clean-up or prune gave to the trash, still there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Removed {
    /// The file in the trash.
    pub file: PathBuf,
    /// Where the session lived.
    pub original: PathBuf,
    /// When it went to the trash, ms since the epoch.
    pub time_ms: i64,
    /// The session's name, else its first message (see [`FileUsage::title`]).
    #[serde(default)]
    pub title: Option<String>,
}

impl SessionUsage {
    /// Folds `usage`'s records, each owned or not as `owned` says.
    fn of(
        path: PathBuf,
        usage: &FileUsage,
        owned: &[bool],
        removed: Option<Removed>,
    ) -> SessionUsage {
        let (mut own, mut inherited, mut abandoned) = <(Spend, Spend, Spend)>::default();
        let mut rollups: Vec<Rollup> = Vec::new();
        // Quarter, kind, model, owned, abandoned: what a rollup holds alike.
        type Alike = (Option<i64>, u8, Option<u16>, bool, bool);
        let mut slot: FxHashMap<Alike, usize> = FxHashMap::default();
        for (r, &mine) in usage.records.iter().zip(owned) {
            if mine {
                own.add(&r.spend);
                if r.abandoned {
                    abandoned.add(&r.spend);
                }
            } else {
                inherited.add(&r.spend);
            }
            let quarter = r.time_ms.map(|t| t.div_euclid(QUARTER_MS));
            let key = (quarter, r.kind as u8, r.model, mine, r.abandoned);
            let i = *slot.entry(key).or_insert_with(|| {
                rollups.push(Rollup {
                    quarter,
                    kind: r.kind,
                    model: r.model,
                    owned: mine,
                    abandoned: r.abandoned,
                    count: 0,
                    spend: Spend::default(),
                });
                rollups.len() - 1
            });
            rollups[i].count += 1;
            rollups[i].spend.add(&r.spend);
        }
        // Kept for the browser's whole run, for every session: a copy of
        // just their length, the grown vector's room freed for the next
        // session to grow in (shrinking in place would leave holes).
        let rollups = rollups.as_slice().to_vec();
        let removed = removed.map(|r| Removed {
            title: usage.title.clone(),
            ..r
        });
        SessionUsage {
            path: removed.as_ref().map_or(path, |r| r.original.clone()),
            cwd: usage.cwd.clone(),
            models: usage.models.clone(),
            rollups,
            own,
            inherited,
            abandoned,
            removed,
        }
    }
}

/// How the records were obtained.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsageLoadStats {
    pub from_cache: usize,
    pub read: usize,
}

/// Every session's usage in one sessions folder.
pub struct UsageBook {
    pub folder: SessionsFolder,
    /// The sessions in the folder, then the removed ones still in the trash.
    pub sessions: Vec<SessionUsage>,
    /// The sessions in the folder by path.
    by_path: HashMap<PathBuf, usize>,
    /// The removed files by the path their session lived at.
    removed_at: HashMap<PathBuf, Vec<usize>>,
    pub problems: Vec<CatalogProblem>,
    pub stats: UsageLoadStats,
}

impl std::fmt::Debug for UsageBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UsageBook({} sessions)", self.sessions.len())
    }
}

impl UsageBook {
    /// The session at `path` in the sessions folder (not what the trash
    /// holds of it: see [`UsageBook::spent`]).
    pub fn session(&self, path: &Path) -> Option<&SessionUsage> {
        self.by_path.get(path).map(|&i| &self.sessions[i])
    }

    /// What the session at `path` spent: its own spend, and what the trash
    /// still holds of it (the turns a prune removed, or the whole session
    /// when it was deleted), the latter also apart.
    pub fn spent(&self, path: &Path) -> Option<(Spend, Spend)> {
        let live = self.session(path);
        let mut removed = Spend::default();
        let mut any = live.is_some();
        for &i in self.removed_at.get(path).into_iter().flatten() {
            removed.add(&self.sessions[i].own);
            any = true;
        }
        any.then(|| {
            let mut all = live.map(|s| s.own).unwrap_or_default();
            all.add(&removed);
            (all, removed)
        })
    }

    /// Whether a session is in `scope` as the catalog lists it: in the
    /// current folder's project directory, or (flat layout) started there.
    pub fn in_scope(&self, s: &SessionUsage, scope: Scope) -> bool {
        match (scope, self.folder.layout) {
            (Scope::All, _) => true,
            (Scope::Current, Layout::PerProject) => {
                let dir = self
                    .folder
                    .dir
                    .join(discover::project_folder_name(&self.folder.cwd));
                s.path.parent() == Some(dir.as_path())
            }
            (Scope::Current, Layout::Flat) => {
                let cwd = &self.folder.cwd;
                !s.cwd.is_empty() && discover::normalize(&cwd.join(&s.cwd)) == *cwd
            }
        }
    }

    /// The own spend of the sessions `pick` accepts, summed.
    pub fn total(&self, pick: &dyn Fn(&SessionUsage) -> bool) -> Spend {
        let mut t = Spend::default();
        for s in self.sessions.iter().filter(|s| pick(s)) {
            t.add(&s.own);
        }
        t
    }
}

/// The files a delete, a clean-up or a prune of a session in `folder` gave
/// to the trash and the trash still holds, as piscope's journal names them,
/// oldest first; and what stood in the way of reading the journal.
pub fn removed_in_trash(folder: &SessionsFolder) -> (Vec<Removed>, Vec<CatalogProblem>) {
    use super::housekeeping::journal::{self, Reason};
    // What the trash holds of this folder only, by where it lived; the
    // journal's lines are outside input, so a path is compared as given.
    let dir = std::path::absolute(&folder.dir).unwrap_or_else(|_| folder.dir.clone());
    let found = journal::in_trash_of(|r| {
        matches!(r.reason, Reason::Delete | Reason::Clean | Reason::Prune)
            && r.path.starts_with(&dir)
    });
    let at = journal::journal_path().unwrap_or_default();
    let found = match found {
        Ok(found) => found,
        Err(e) => return (Vec::new(), vec![CatalogProblem::new(&at, e.to_string())]),
    };
    // A damaged line or trash entry is named, not passed over in silence.
    let named = format!("{}: ", at.display());
    let problems = found
        .skipped
        .iter()
        .map(|s| CatalogProblem::new(&at, s.strip_prefix(&named).unwrap_or(s)))
        .collect();
    let removed = found
        .items
        .into_iter()
        .map(|item| Removed {
            file: item.file,
            original: item.record.path,
            time_ms: item.record.time_ms,
            title: None,
        })
        .collect();
    (removed, problems)
}

/// Reads the usage of every session in `folder` (all projects: a copy in
/// one project may come from another), and of the `removed` files in the
/// trash, through `cache`, and decides who owns each record. When no file
/// changed since the cache kept its book, the book is taken as it was and
/// no record is read.
pub fn load(folder: &SessionsFolder, cache: &mut UsageCache, removed: &[Removed]) -> UsageBook {
    let mut problems = Vec::new();
    let listing = discover::Listing::of(folder, Scope::All);
    let found = listing.work();
    let (mut candidates, subfolders) = listing.finish_with_subfolders(vec![found], &mut problems);
    let listed: std::collections::HashSet<PathBuf> = if subfolders.is_empty() {
        std::collections::HashSet::new()
    } else {
        candidates.iter().map(|c| c.path.clone()).collect()
    };
    let subfolders: Vec<PathBuf> = subfolders
        .into_iter()
        .filter(|d| {
            let mut name = d.as_os_str().to_os_string();
            name.push(".jsonl");
            listed.contains(&PathBuf::from(name))
        })
        .collect();
    // The child sessions subagents wrote outside pi's list are spend too.
    if super::subagents::may_have(folder, &subfolders) {
        let walks = cache.dir().map(super::subagents::cache_dir);
        let children = super::subagents::find_files(
            folder,
            &subfolders,
            &|p| listed.contains(p),
            walks.as_deref(),
            &mut problems,
        );
        candidates.extend(children.into_iter().map(|(path, _)| {
            Candidate {
                meta: std::fs::metadata(&path)
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| FileStamp::of(&m)),
                path,
            }
        }));
    }
    let live = candidates.len();
    candidates.extend(removed.iter().map(|r| {
        Candidate {
            path: r.file.clone(),
            meta: std::fs::symlink_metadata(&r.file)
                .ok()
                .map(|m| FileStamp::of(&m)),
        }
    }));
    let stamps: Option<Vec<(PathBuf, FileStamp)>> = candidates
        .iter()
        .map(|c| c.meta.map(|m| (c.path.clone(), m)))
        .collect();
    if let Some(sessions) = stamps.as_deref().and_then(|s| cache.kept_book(folder, s)) {
        let stats = UsageLoadStats {
            from_cache: candidates.len(),
            read: 0,
        };
        return UsageBook::new(folder.clone(), sessions, problems, stats);
    }
    let mut files: Vec<Option<Arc<FileUsage>>> = candidates
        .iter()
        .map(|c| c.meta.and_then(|m| cache.get(&c.path, m)))
        .collect();
    let todo: Vec<usize> = (0..candidates.len())
        .filter(|&i| files[i].is_none())
        .collect();
    let mut stats = UsageLoadStats {
        from_cache: candidates.len() - todo.len(),
        read: 0,
    };
    // The book is kept only when every file was read whole from the very
    // version its stamp names.
    let mut keep = stamps.is_some();
    for (i, r) in read_all(&candidates, &todo, live) {
        match r {
            Ok((u, steady)) => {
                let u = Arc::new(u);
                if let (Some(m), true) = (candidates[i].meta, steady) {
                    cache.put(&candidates[i].path, m, u.clone());
                }
                keep &= steady;
                stats.read += 1;
                files[i] = Some(u);
            }
            Err(p) => {
                keep = false;
                problems.push(p);
            }
        }
    }
    let present: Vec<&Path> = candidates.iter().map(|c| c.path.as_path()).collect();
    cache.forget_missing_under(&folder.dir, &present[..live]);
    // Each trash folder once (a clean-up can trash hundreds of files into one).
    let trashes: std::collections::BTreeSet<&Path> =
        removed.iter().filter_map(|r| r.file.parent()).collect();
    for trash in trashes {
        cache.forget_missing_under(trash, &present[live..]);
    }
    let sessions: Vec<(PathBuf, Arc<FileUsage>, Option<Removed>)> = candidates
        .into_iter()
        .zip(files)
        .enumerate()
        .filter_map(|(i, (c, u))| {
            let gone = i.checked_sub(live).map(|k| removed[k].clone());
            u.filter(|u| u.is_session).map(|u| (c.path, u, gone))
        })
        .collect();
    let sessions = decide_owners(sessions);
    if let (true, Some(stamps)) = (keep, stamps) {
        cache.keep_book(folder, stamps, &sessions);
    }
    let mut book = UsageBook::new(folder.clone(), sessions, problems, stats);
    if let Err(e) = cache.save() {
        book.problems.push(CatalogProblem::new(
            &super::cache::default_dir().unwrap_or_default(),
            format!("could not save the usage cache: {e}"),
        ));
    }
    book
}

/// Each session's usage with the owner of every record decided: the
/// session that holds a key earliest (by header time, then path) owns it,
/// the sessions in the folder before the removed ones in the trash.
fn decide_owners(sessions: Vec<(PathBuf, Arc<FileUsage>, Option<Removed>)>) -> Vec<SessionUsage> {
    let mut order: Vec<usize> = (0..sessions.len()).collect();
    order.sort_by(|&a, &b| {
        let (pa, ua, ra) = &sessions[a];
        let (pb, ub, rb) = &sessions[b];
        let time = |u: &FileUsage| u.created_ms.unwrap_or(i64::MAX);
        let when = |r: &Option<Removed>| r.as_ref().map(|r| r.time_ms);
        (ra.is_some(), time(ua))
            .cmp(&(rb.is_some(), time(ub)))
            .then_with(|| when(ra).cmp(&when(rb)))
            .then_with(|| pa.cmp(pb))
    });
    let records: usize = sessions.iter().map(|(_, u, _)| u.records.len()).sum();
    let mut seen = FxHashSet::with_capacity_and_hasher(records, Default::default());
    let mut owned: Vec<Vec<bool>> = vec![Vec::new(); sessions.len()];
    for &i in &order {
        owned[i] = sessions[i]
            .1
            .records
            .iter()
            .map(|r| seen.insert(r.key))
            .collect();
    }
    sessions
        .into_iter()
        .zip(owned)
        .map(|((path, usage, removed), owned)| SessionUsage::of(path, &usage, &owned, removed))
        .collect()
}

impl UsageBook {
    fn new(
        folder: SessionsFolder,
        sessions: Vec<SessionUsage>,
        problems: Vec<CatalogProblem>,
        stats: UsageLoadStats,
    ) -> UsageBook {
        let mut by_path = HashMap::new();
        let mut removed_at: HashMap<PathBuf, Vec<usize>> = HashMap::new();
        for (i, s) in sessions.iter().enumerate() {
            if s.removed.is_some() {
                removed_at.entry(s.path.clone()).or_default().push(i);
            } else {
                by_path.insert(s.path.clone(), i);
            }
        }
        UsageBook {
            folder,
            sessions,
            by_path,
            removed_at,
            problems,
            stats,
        }
    }
}

/// Reads the files `todo` names, in parallel; those from `live` on are in
/// the trash, and their titles are read too.
fn read_all(candidates: &[Candidate], todo: &[usize], live: usize) -> Vec<(usize, ReadResult)> {
    crate::par::map(todo.len(), 1, |k| {
        let i = todo[k];
        let read = read_one(&candidates[i]).map(|(mut u, steady)| {
            if i >= live && u.is_session {
                u.title = super::summarise_file(&candidates[i].path)
                    .ok()
                    .flatten()
                    .map(|s| s.title().to_string());
            }
            (u, steady)
        });
        (i, read)
    })
}

/// A file's usage, and whether the file stayed as it was stat'ed while it
/// was read (only then is it cached: one that changed is read again).
type ReadResult = Result<(FileUsage, bool), CatalogProblem>;

fn read_one(c: &Candidate) -> ReadResult {
    let problem = |e: std::io::Error| CatalogProblem::new(&c.path, e.to_string());
    let mut file = open_regular(&c.path).map_err(problem)?;
    let usage = read::read_usage(&mut file).map_err(problem)?;
    let after = file.metadata().ok().map(|m| FileStamp::of(&m));
    Ok((usage, after.is_some() && after == c.meta))
}

/// Reads one file's usage without the cache (for tests and one-off reports).
pub fn read_file(path: &Path) -> std::io::Result<FileUsage> {
    read::read_usage(&mut open_regular(path)?)
}
