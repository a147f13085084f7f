//! The work behind each `Command` (reading a session, building a preview,
//! loading the catalog, deep search), and the threads that run it.

use super::newest::{Latest, Stamp};
use crate::catalog::discover::{FileStamp, FolderSource};
use crate::catalog::housekeeping::archive;
use crate::catalog::search::deep_index::DeepIndex;
use crate::catalog::search::touched_index::TouchedIndex;
use crate::catalog::usage::UsageCache;
use crate::catalog::{
    self, Cache, Layout, LoadOptions, Query, Scope, SessionSummary, SessionsFolder,
};
use crate::session::{Refresh, SessionError};
use crate::tui::event::{AppEvent, Command, SessionRead};
use crate::tui::look::strings;
use crate::tui::model::loaded::{LoadedSession, OpenError, ReadProgress};
use crate::tui::model::preview_doc;
use crate::tui::model::preview_images;
use crate::tui::model::session_index;
use crate::tui::model::sessions::CatalogUpdate;
use crate::tui::model::usage_charts;
use crate::tui::work::demo;
use crate::watch::{self, Watch};
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Catalog progress is sent at most this often, so a large folder does
/// not flood the UI thread with events.
const BATCH_EVERY: Duration = Duration::from_millis(50);

/// What the jobs need from the outside world.
pub struct JobContext {
    /// Shortens paths in tool rows to `~`.
    pub home: Option<String>,
    /// The user's sessions folder.
    pub folder: Option<SessionsFolder>,
    pub use_cache: bool,
    /// The folder piscope was started in (for the demo's "current folder").
    pub cwd: PathBuf,
    /// Watch by polling, never by the system's events (`--poll`).
    pub poll: bool,
    /// The demo copy, alive as long as the app.
    demo_dir: Mutex<Option<demo::DemoCopy>>,
    /// The app's clock: the demo copy is dated back from its "now".
    pub clock: crate::tui::clock::Clock,
    /// The cache folder, when not the user's (a test's own).
    pub cache_dir: Option<PathBuf>,
    /// Where the session list's last summaries left their files, to read
    /// on from when pi writes more (a few files at most).
    read_on: Mutex<std::collections::HashMap<PathBuf, catalog::ReadOn>>,
}

/// How many files the session list keeps a place to read on from.
const READ_ON_KEPT: usize = 16;

impl JobContext {
    pub fn new(
        home: Option<String>,
        folder: Option<SessionsFolder>,
        use_cache: bool,
        cwd: PathBuf,
    ) -> JobContext {
        JobContext {
            home,
            folder,
            use_cache,
            cwd,
            poll: false,
            demo_dir: Mutex::new(None),
            clock: crate::tui::clock::Clock::system(),
            cache_dir: None,
            read_on: Mutex::default(),
        }
    }

    /// The summary of the session at `path` as the list shows it, read on
    /// from where the last one left the file when it only grew since
    /// (pi writing it); `None` when it cannot be read now (gone, or being
    /// replaced).
    fn summarise(&self, path: &std::path::Path) -> Option<SessionSummary> {
        let mut kept = self.read_on.lock().unwrap_or_else(|e| e.into_inner());
        let from = kept.remove(path);
        let (summary, next) = catalog::summarise_on(path, from.as_ref()).ok()?;
        if let Some(next) = next {
            if kept.len() >= READ_ON_KEPT {
                kept.clear();
            }
            kept.insert(path.to_path_buf(), next);
        }
        summary
    }

    /// Where the caches live: the given folder, else the user's.
    fn cache_dir(&self) -> Option<PathBuf> {
        self.cache_dir.clone().or_else(catalog::cache::default_dir)
    }

    /// Where indexes are kept (deep search's, touched files', sessions'):
    /// the cache folder, unless the cache is off or the demo sessions are
    /// shown (their copy comes and goes).
    fn index_dir(&self) -> Option<PathBuf> {
        let demo = self.demo_dir.lock().is_ok_and(|d| d.is_some());
        self.cache_dir().filter(|_| self.use_cache && !demo)
    }

    /// Whether the file at `path` was written in the last
    /// [`BEING_WRITTEN_MS`] (pi is likely writing it).
    fn being_written(&self, path: &std::path::Path) -> bool {
        let written = std::fs::metadata(path).map_or(0, |m| FileStamp::of(&m).mtime_ms());
        self.clock.tick().now_ms.saturating_sub(written) < BEING_WRITTEN_MS
    }

    /// The same, watching by polling.
    pub fn polling(mut self, poll: bool) -> JobContext {
        self.poll = poll;
        self
    }

    /// Runs one command to the end on the calling thread, handing each
    /// event it produces to `send`.
    pub fn run(&self, cmd: Command, send: &dyn Fn(AppEvent)) {
        match cmd {
            Command::OpenSession { stamp, path } => {
                let home = self.home.as_deref();
                let index = self.index_dir();
                let opened = index
                    .as_deref()
                    .and_then(|dir| session_index::load(dir, &path, home));
                let (result, stale) = match opened {
                    Some(o) => {
                        // Much appended since the index was written: write it again.
                        let stale = o.read_on > session_index::MIN_BYTES
                            || o.read_on > o.loaded.session.read_to / 8;
                        (Ok(Arc::new(o.loaded)), stale)
                    }
                    None => match read_whole(&path, home, &stamp, send) {
                        // No longer wanted: nobody waits for its answer.
                        Err(SessionError::Stopped { .. }) => return,
                        read => (
                            read.map(Arc::new)
                                .map_err(|e| OpenError::Unreadable(e.to_string())),
                            true,
                        ),
                    },
                };
                let keep = result
                    .as_ref()
                    .ok()
                    .filter(|l| stale && session_index::worth_keeping(l))
                    .cloned();
                send(AppEvent::SessionOpened(
                    stamp.answer(SessionRead { path, result }),
                ));
                // Written once the session is on screen; only an accelerator.
                if let (Some(dir), Some(loaded)) = (index, keep) {
                    let _ = session_index::save(&dir, &loaded, home);
                }
            }
            Command::BuildPreview(req) => {
                if let Some(doc) = preview_doc::build(&req) {
                    let (key, later) = (doc.key, doc.size_later.clone());
                    send(AppEvent::PreviewReady(Box::new(doc)));
                    // A long context's size, once the preview is shown.
                    if let Some(header) = later.and_then(|p| preview_doc::sized_header(&req, p)) {
                        send(AppEvent::PreviewHeader(key, header));
                    }
                }
            }
            Command::LayOutPreview(req) => {
                send(AppEvent::PreviewLaidOut(Box::new(
                    preview_doc::lay_out_wanted(&req),
                )));
            }
            Command::DecodePictures(req) => preview_images::decode_wanted(&req, &mut |p| {
                send(AppEvent::PictureReady(Box::new(p)))
            }),
            Command::LoadCatalog { demo } => self.load_catalog(demo, send),
            Command::LoadArchive => self.load_archive(send),
            Command::DeepSearch {
                stamp,
                query,
                sessions,
            } => {
                // The index lives in the cache folder (never for the demo,
                // whose copy comes and goes).
                let index = self
                    .index_dir()
                    .map_or_else(DeepIndex::disabled, DeepIndex::open);
                let result = Query::parse(&query)
                    .map_err(|e| e.to_string())
                    .map(|q| deep_search_streamed(&sessions, &q, &index, &stamp, send));
                // Only an accelerator: a failed save costs the next search time.
                let _ = index.save();
                send(AppEvent::DeepSearchDone(stamp.answer(result)));
            }
            Command::RefreshSession { stamp, loaded } => {
                if let Some(result) = self.refresh(&loaded) {
                    let path = loaded.session.path.clone();
                    send(AppEvent::SessionOpened(
                        stamp.answer(SessionRead { path, result }),
                    ));
                }
            }
            Command::Summarise(path) => {
                // A file that cannot be read now (gone, or being replaced)
                // leaves the list; the next change brings it back.
                let summary = self.summarise(&path).map(Box::new);
                send(AppEvent::SessionChanged { path, summary });
            }
            Command::Act(job) => send(AppEvent::ActionDone(job.run())),
            Command::Touched { stamp, ask } => {
                // The index lives in the cache folder, as deep search's does.
                let index = self
                    .index_dir()
                    .map_or_else(TouchedIndex::disabled, TouchedIndex::open);
                let answer = crate::tui::model::touched::answer(ask, &index);
                // Only an accelerator: a failed save costs the next answer time.
                let _ = index.save();
                send(AppEvent::TouchedReady(stamp.answer(answer)));
            }
            Command::LoadUsage { demo } => self.load_usage(demo, send),
            Command::BuildUsage(req) => {
                let charts = Box::new(usage_charts::build(&req));
                send(AppEvent::UsageReady(req.stamp.answer(charts)));
            }
            // The runtime's own business; nothing to do without one.
            Command::Watch(_) | Command::Terminal(_) => {}
            Command::LayOutRows => send(AppEvent::RowsWanted),
            Command::ReadyForGrowth(loaded) => {
                if self.being_written(&loaded.session.path) {
                    loaded.session.ready_for_growth();
                }
            }
        }
    }

    /// Reads on from where `loaded` stopped; `None` when nothing changed.
    fn refresh(&self, loaded: &LoadedSession) -> Option<Result<Arc<LoadedSession>, OpenError>> {
        // A file event that changed nothing read costs no copy of a long
        // session.
        if loaded.session.unchanged_on_disk().unwrap_or(false) {
            return None;
        }
        // Made once for every copy to come, or waited for where it is
        // being made ahead (see `ReadyForGrowth`).
        loaded.session.ready_for_growth();
        let mut session = (*loaded.session).clone();
        let home = self.home.as_deref();
        let read = match session.refresh() {
            Ok(Refresh::Unchanged) => return None,
            Ok(Refresh::Appended(_)) => LoadedSession::grown(loaded, session, home),
            // Read again at full depth: the rows need the messages' texts.
            Ok(Refresh::Reloaded) => LoadedSession::open(&session.path, home),
            Err(e) => Err(e),
        };
        Some(match read {
            Ok(l) => Ok(Arc::new(l)),
            Err(SessionError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                Err(OpenError::Deleted)
            }
            Err(e) => Err(OpenError::Unreadable(e.to_string())),
        })
    }

    fn load_catalog(&self, demo: bool, send: &dyn Fn(AppEvent)) {
        let folder = if demo {
            match self.demo_folder() {
                Ok(f) => f,
                Err(e) => {
                    send(AppEvent::Catalog(CatalogUpdate::Done {
                        sessions: Vec::new(),
                        children: Vec::new(),
                        problems: vec![strings::demo_copy_failed(&e.to_string())],
                        demo: true,
                        archived: false,
                    }));
                    return;
                }
            }
        } else {
            match &self.folder {
                Some(f) => f.clone(),
                None => {
                    send(AppEvent::Catalog(CatalogUpdate::Done {
                        sessions: Vec::new(),
                        children: Vec::new(),
                        problems: vec![strings::NO_SESSIONS_FOLDER.to_string()],
                        demo: false,
                        archived: false,
                    }));
                    return;
                }
            }
        };
        let (cache, subagents_cache) = match (self.use_cache && !demo, self.cache_dir()) {
            (true, Some(dir)) => (
                Cache::open(dir.clone()),
                Some(catalog::subagents::cache_dir(&dir)),
            ),
            _ => (Cache::disabled(), None),
        };
        summarise_folder(folder, cache, subagents_cache, (demo, false), send);
    }

    /// Summarises piscope's archive of sessions, with a cache of its own
    /// (a folder inside the cache folder), so that neither folder's cache
    /// ever answers for the other's sessions. The archive folder is made
    /// when missing, so that it can be watched before anything is in it.
    fn load_archive(&self, send: &dyn Fn(AppEvent)) {
        let done = |problem: String| {
            send(AppEvent::Catalog(CatalogUpdate::Done {
                sessions: Vec::new(),
                children: Vec::new(),
                problems: vec![problem],
                demo: false,
                archived: true,
            }))
        };
        let Some(folder) = archive::archived_folder(&self.cwd) else {
            return done(strings::NO_ARCHIVE_FOLDER.to_string());
        };
        if let Err(e) = std::fs::create_dir_all(&folder.dir) {
            return done(format!("{}: {e}", folder.dir.display()));
        }
        let (cache, subagents_cache) = match (self.use_cache, self.cache_dir()) {
            (true, Some(dir)) => {
                let dir = archive::cache_dir(&dir);
                (
                    Cache::open(dir.clone()),
                    Some(catalog::subagents::cache_dir(&dir)),
                )
            }
            _ => (Cache::disabled(), None),
        };
        summarise_folder(folder, cache, subagents_cache, (false, true), send);
    }

    /// Every session's usage, through its own cache (never the demo's).
    fn load_usage(&self, demo: bool, send: &dyn Fn(AppEvent)) {
        let folder = if demo {
            self.demo_folder().ok()
        } else {
            self.folder.clone()
        };
        let Some(folder) = folder else { return };
        let mut cache = match (self.use_cache && !demo, self.cache_dir()) {
            (true, Some(dir)) => UsageCache::open(dir),
            _ => UsageCache::disabled(),
        };
        // The demo's sessions were never trashed; the user's may have been.
        let (removed, trash_problems) = if demo {
            Default::default()
        } else {
            catalog::usage::removed_in_trash(&folder)
        };
        let mut book = catalog::usage::load(&folder, &mut cache, &removed);
        book.problems.extend(trash_problems);
        // A first read of every file's usage leaves its reading states freed.
        drop(cache);
        crate::tui::model::sessions::release_freed_memory();
        send(AppEvent::UsageLoaded(Arc::new(book)));
    }

    /// A fresh copy of the demo sessions (made once per run).
    fn demo_folder(&self) -> std::io::Result<SessionsFolder> {
        let mut slot = self
            .demo_dir
            .lock()
            .map_err(|_| std::io::Error::other("demo folder lock poisoned"))?;
        if slot.is_none() {
            *slot = Some(demo::DemoCopy::create(self.clock.tick().now_ms)?);
        }
        let dir = slot
            .as_ref()
            .map(|d| d.path().to_path_buf())
            .unwrap_or_default();
        Ok(SessionsFolder {
            dir,
            layout: Layout::PerProject,
            source: FolderSource::Default,
            cwd: self.cwd.clone(),
        })
    }
}

/// Runs commands on background threads and sends their events to the UI.
pub struct Workers {
    context: Arc<JobContext>,
    tx: Sender<AppEvent>,
    sessions: Arc<Latest<Command>>,
    previews: Arc<Latest<Command>>,
    /// The usage book, and the usage view's charts: only the newest counts.
    usage_book: Arc<Latest<Command>>,
    usage_charts: Arc<Latest<Command>>,
    /// Preview blocks coming into view, laid out (newest request wins: it
    /// asks for every block still missing).
    layouts: Arc<Latest<Command>>,
    /// Pictures coming into view, decoded (newest request wins, likewise).
    pictures: Arc<Latest<Command>>,
    touched: Arc<Latest<Command>>,
    /// The session on screen made ready to grow, one at a time: of those
    /// asked for meanwhile, only the newest waits (sessions passed over
    /// in turn never make their tables at once, nor keep their memory).
    growth: Arc<Latest<Command>>,
    /// Editing actions, one after another in the order asked.
    actions: Sender<Command>,
    /// Changed files summarised again, one after another.
    summaries: Sender<Command>,
    /// The watch of the newest target, and that target's number: a watch
    /// started for an older one is dropped (which stops it).
    watch: Arc<Mutex<(u64, Option<Watch>)>>,
    /// The number of the newest catalog load: an older load (of the other
    /// folder, when the list went to the archive and back) sends nothing more.
    catalog_loads: Arc<std::sync::atomic::AtomicU64>,
}

impl Workers {
    pub fn new(context: JobContext, tx: Sender<AppEvent>) -> Workers {
        let context = Arc::new(context);
        let slot = |name: &str| {
            let (cx, tx) = (context.clone(), tx.clone());
            Latest::spawn(name, move |cmd| {
                cx.run(cmd, &|ev| {
                    let _ = tx.send(ev);
                })
            })
        };
        let queue = |name: &str| {
            let (cx, tx) = (context.clone(), tx.clone());
            let (queue_tx, queue_rx) = std::sync::mpsc::channel::<Command>();
            let _ = std::thread::Builder::new()
                .name(name.to_string())
                .spawn(move || {
                    for cmd in queue_rx {
                        cx.run(cmd, &|ev| {
                            let _ = tx.send(ev);
                        });
                    }
                });
            queue_tx
        };
        Workers {
            sessions: slot("piscope-session"),
            previews: slot("piscope-preview"),
            usage_book: slot("piscope-usage"),
            usage_charts: slot("piscope-usage-charts"),
            layouts: slot("piscope-layout"),
            pictures: slot("piscope-pictures"),
            touched: slot("piscope-touched"),
            growth: slot("piscope-growth"),
            actions: queue("piscope-actions"),
            summaries: queue("piscope-summaries"),
            watch: Arc::new(Mutex::new((0, None))),
            catalog_loads: Arc::default(),
            context,
            tx,
        }
    }

    pub fn run(&self, cmd: Command) {
        match cmd {
            Command::OpenSession { .. } | Command::RefreshSession { .. } => self.sessions.put(cmd),
            Command::Act(_) => {
                let _ = self.actions.send(cmd);
            }
            Command::Summarise(_) => {
                let _ = self.summaries.send(cmd);
            }
            Command::Watch(target) => {
                // Started on a thread of its own: watching a folder tree
                // walks it, thousands of files on a large history, and the
                // screen must not wait for that.
                let Ok(mut slot) = self.watch.lock() else {
                    return;
                };
                slot.0 += 1;
                let number = slot.0;
                drop(slot);
                let (holder, poll, tx) = (self.watch.clone(), self.context.poll, self.tx.clone());
                let _ = std::thread::Builder::new()
                    .name("piscope-watch-start".into())
                    .spawn(move || {
                        let w = watch::start(target, poll, tx);
                        if let Ok(mut slot) = holder.lock()
                            && slot.0 == number
                        {
                            slot.1 = Some(w);
                        }
                    });
            }
            // Written by the runtime, which owns the terminal.
            Command::Terminal(_) => {}
            Command::LayOutRows => {
                let _ = self.tx.send(AppEvent::RowsWanted);
            }
            // Beside the rest: a pass over every entry that nothing waits
            // for yet (a growth that comes first waits for it rather than
            // making it again).
            Command::ReadyForGrowth(_) => self.growth.put(cmd),
            Command::BuildPreview(_) => self.previews.put(cmd),
            Command::LoadUsage { .. } => self.usage_book.put(cmd),
            Command::BuildUsage(_) => self.usage_charts.put(cmd),
            Command::LayOutPreview(_) => self.layouts.put(cmd),
            Command::DecodePictures(_) => self.pictures.put(cmd),
            Command::Touched { .. } => self.touched.put(cmd),
            Command::LoadCatalog { .. } | Command::LoadArchive => {
                use std::sync::atomic::Ordering;
                let loads = self.catalog_loads.clone();
                let number = loads.fetch_add(1, Ordering::SeqCst) + 1;
                let (cx, tx) = (self.context.clone(), self.tx.clone());
                let _ = std::thread::Builder::new()
                    .name("piscope-catalog".into())
                    .spawn(move || {
                        cx.run(cmd, &|ev| {
                            if loads.load(Ordering::SeqCst) == number {
                                let _ = tx.send(ev);
                            }
                        })
                    });
            }
            Command::DeepSearch { .. } => self.on_own_thread("piscope-catalog", cmd),
        }
    }

    /// Runs `cmd` on a new thread named `name`, sending what it answers.
    fn on_own_thread(&self, name: &str, cmd: Command) {
        let (cx, tx) = (self.context.clone(), self.tx.clone());
        let _ = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                cx.run(cmd, &|ev| {
                    let _ = tx.send(ev);
                })
            });
    }
}

/// A session file written this recently (ms) is taken to be one pi is
/// writing: opened from its index, the table of its ids, which its first
/// growth needs, is made beside once it is on screen (a second or more
/// for millions of entries) rather than when the growth comes.
const BEING_WRITTEN_MS: i64 = 15 * 60 * 1000;

/// Summarises the sessions of `folder` through `cache`, sending the
/// catalog's progress as it goes (`archived`: the folder is the archive).
/// Files this long or longer report how far their read has come: a read
/// of less is over before a report would be drawn.
const READ_PROGRESS_FROM: u64 = 32 << 20;

/// Reads the session file at `path` whole for the tree, reporting each
/// whole percent read of a long file, and stopping once `stamp` is
/// overtaken (another session chosen meanwhile): a long read does not
/// keep the next session waiting.
fn read_whole(
    path: &std::path::Path,
    home: Option<&str>,
    stamp: &Stamp,
    send: &dyn Fn(AppEvent),
) -> Result<LoadedSession, SessionError> {
    let of = std::fs::metadata(path).map_or(0, |m| m.len());
    let mut told = 0;
    LoadedSession::open_watched(path, home, |read| {
        if of >= READ_PROGRESS_FROM {
            let progress = ReadProgress { read, of };
            if let Some(percent) = progress.percent().filter(|&p| p > told) {
                told = percent;
                send(AppEvent::SessionReading(stamp.answer(progress)));
            }
        }
        !stamp.is_overtaken()
    })
}

fn summarise_folder(
    folder: SessionsFolder,
    mut cache: Cache,
    subagents_cache: Option<PathBuf>,
    (demo, archived): (bool, bool),
    send: &dyn Fn(AppEvent),
) {
    let options = LoadOptions {
        scope: Scope::All,
        with_text: true,
        with_usage: true,
    };
    let (mut batch, mut sent_any) = (Vec::new(), false);
    let mut last_sent = Instant::now();
    let started_folder = folder.clone();
    let files = catalog::list(&folder, options.scope, &mut cache);
    let subfolders = files.subfolders();
    let cat = catalog::load_listed(&folder, files, options, &mut cache, &mut |p| match p {
        catalog::Progress::Started { total } => send(AppEvent::Catalog(CatalogUpdate::Started {
            folder: started_folder.clone(),
            total,
            demo,
            archived,
        })),
        catalog::Progress::Glimpse(first) => send(AppEvent::Catalog(CatalogUpdate::Glimpse {
            sessions: first.to_vec(),
        })),
        catalog::Progress::Loaded {
            done,
            total,
            summary,
        } => {
            batch.extend(summary.cloned());
            // The first screen at once, as soon as it is in; then a
            // batch at most every BATCH_EVERY.
            let first = !sent_any && done >= catalog::FIRST_SCREEN.min(total);
            let due = sent_any && last_sent.elapsed() >= BATCH_EVERY;
            if (first || due) && !batch.is_empty() {
                sent_any = true;
                last_sent = Instant::now();
                send(AppEvent::Catalog(CatalogUpdate::Batch {
                    done,
                    total,
                    sessions: std::mem::take(&mut batch),
                }));
            }
        }
    });
    // Freed before the picker takes the sessions (and hands freed memory
    // back): the cache held every text read until it wrote them.
    drop(cache);
    // The child sessions subagents wrote outside pi's list, each under
    // the session that started it.
    let mut problems: Vec<String> = cat.problems.iter().map(ToString::to_string).collect();
    let found = catalog::subagents::load(
        &folder,
        Scope::All,
        &subfolders,
        &cat.sessions,
        &cat.calls,
        subagents_cache.as_deref(),
    );
    problems.extend(found.problems.iter().map(ToString::to_string));
    // Each child with its parent; the children outside pi's list join
    // its sessions, one whose parent could not be told as a session of its
    // own project.
    let children: Vec<(PathBuf, PathBuf)> = found
        .children
        .iter()
        .filter_map(|c| Some((c.summary.path.clone(), c.parent.clone()?)))
        .collect();
    let mut sessions: Vec<catalog::SessionSummary> =
        found.outside().map(|c| c.summary.clone()).collect();
    let sessions = if sessions.is_empty() {
        cat.sessions
    } else {
        let mut all = cat.sessions;
        all.append(&mut sessions);
        catalog::sort_newest_first(&mut all);
        all
    };
    send(AppEvent::Catalog(CatalogUpdate::Done {
        sessions,
        children,
        problems,
        demo,
        archived,
    }));
}

/// Runs a deep search, sending its hits in order as they are found: the
/// first screen's worth at once, then a batch at most every tenth of a
/// second; stops once a newer search overtook it. Returns the hits not
/// sent yet.
fn deep_search_streamed(
    sessions: &[crate::catalog::SessionSummary],
    query: &Query,
    index: &DeepIndex,
    stamp: &Stamp,
    send: &dyn Fn(AppEvent),
) -> Vec<crate::tui::model::sessions::DeepHit> {
    const FIRST_SCREEN: usize = 100;
    let mut batch = Vec::new();
    let mut sent = 0usize;
    let mut last = std::time::Instant::now();
    catalog::search::deep::deep_search_each(sessions, query, index, &mut |hits| {
        batch.extend_from_slice(hits);
        let due = if sent == 0 {
            batch.len() >= FIRST_SCREEN
        } else {
            last.elapsed() >= std::time::Duration::from_millis(100)
        };
        if due {
            sent += batch.len();
            last = std::time::Instant::now();
            send(AppEvent::DeepSearchFound(
                stamp.answer(std::mem::take(&mut batch)),
            ));
        }
        !stamp.is_overtaken()
    });
    batch
}
