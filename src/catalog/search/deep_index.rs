//! The deep-search index in the cache folder: for each session, the texts
//! deep search looks in (one per entry that has any, as
//! [`crate::session::content::search_texts`] gives them), as written and
//! folded, with what a hit names (line, entry id, kind), built once and
//! extended from where it stopped as the file grows.
//!
//! Two files. The data file (`catalog-deep-<generation>.data`) only ever
//! grows: each build or extension of a session appends chunks to it, under
//! an advisory lock, so piscopes running at once never write over each
//! other. Each chunk is three ranges ([`PackedSpan`]s: each 1 MiB block
//! stored compressed in lz4, its xxh3 checked on every read before it is
//! decompressed): the entries (postcard); their folded texts (each
//! followed by a line break, which no folded text holds, so no match runs
//! from one entry into the next), which every search scans; and their
//! texts as written, each kept as the few edits that make it from its
//! folded text ([`super::fold_patch`]), read only where a search found
//! something. A search scans the folded part, and decodes the entries and
//! makes the texts as written only for a chunk that matches. The table
//! (`catalog-deep.bin`, one checksummed payload written
//! to a temp file and renamed over) names the data file's generation and,
//! per session, the file state it was read at and its chunks. When most of
//! the data file is chunks no table names any more, the live ones are
//! copied to a data file of a new generation.
//!
//! The store is only ever believed for the very file state it was built
//! from: a changed stamp means the file is read on from the stored offset
//! (when its start is unchanged) or read again; a damaged or short range
//! makes the search read that session's file instead, and forget its index.

use crate::catalog::cache::envelope::Envelope;
use crate::catalog::cache::span::{PackedSpan, read_exact_at, read_packed, read_stored};
use crate::catalog::discover::FileStamp;
use crate::session::read::blocks::read_lines;
use crate::session::read::file::{PrefixPrint, open_regular};
use crate::session::{same_file, try_lock};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TABLE_FILE: &str = "catalog-deep.bin";
const DATA_PREFIX: &str = "catalog-deep-";
const DATA_SUFFIX: &str = ".data";
/// Bump when the layout or the meaning of a stored field changes.
const TABLE: Envelope = Envelope {
    magic: b"piscopeD",
    format: 5,
};
/// The table before [`SessionIndex::checked_ns`], read as [`TableV4`].
const TABLE_V4: Envelope = Envelope {
    magic: b"piscopeD",
    format: 4,
};
/// The data file starts with this and its generation (u64, little-endian).
const DATA_MAGIC: &[u8; 8] = b"piscopeT";
const DATA_HEADER: u64 = 16;
/// A chunk is closed once its folded or its written texts reach this (an
/// entry is never split): what one search thread holds at once.
pub(crate) const CHUNK_BYTES: usize = 4 << 20;
/// A session's last chunk smaller than this is rewritten with what the file
/// gained, so a growing session does not collect a chunk per search.
const SMALL_CHUNK: u64 = 1 << 20;
/// Compact once the data file is past this and at least half of it is dead.
const COMPACT_FROM: u64 = 32 << 20;
/// How long an append or a save waits for another piscope's.
const LOCK_WAIT: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Table {
    generation: u64,
    sessions: Vec<SessionIndex>,
}

/// What the store holds for one session file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SessionIndex {
    pub path: PathBuf,
    /// The file as it was read: the index serves only this state as is.
    pub stamp: FileStamp,
    /// The bytes of the complete lines read (the chunks cover them).
    pub offset: u64,
    /// How many lines those are.
    pub lines: u64,
    /// The bytes `offset` covers, checked before reading on from it.
    pub prefix: PrefixPrint,
    chunks: Vec<Chunk>,
    /// The lines (1-based, `[start, end)` runs) a compaction cut away where
    /// pi resumes, for the file as `stamp` says; `None` until a search with
    /// hits needed them.
    pub compacted: Option<Vec<(u64, u64)>>,
    /// When the file was last seen as `stamp` says, holding the bytes the
    /// chunks were made from (the wall clock in ns since the epoch, read
    /// just before the stamp was taken); 0 for never. Any change to a file
    /// sets its change time to the clock's time then, and no call sets it
    /// back: a stamp whose change time was already [`SETTLED_NS`] old when
    /// the file was seen so cannot name a file changed since, and it is
    /// served on its stamp alone. A newer change time (another write in
    /// the same tick of the clock would keep it) has the print checked.
    pub checked_ns: i128,
}

/// How much older than the moment its file was seen a stamp's change time
/// must be for the stamp alone to serve (see [`SessionIndex::checked_ns`]):
/// far more than any clock's tick.
const SETTLED_NS: i128 = 2_000_000_000;

/// The wall clock, as [`SessionIndex::checked_ns`] keeps it (whole
/// milliseconds: a moment read a little early only waits longer).
pub(crate) fn now_ns() -> i128 {
    i128::from(crate::jstext::date::now_ms()) * 1_000_000
}

/// Whether `stamp`'s change time was [`SETTLED_NS`] old at the moment
/// `seen_ns`.
fn settled_by(stamp: FileStamp, seen_ns: i128) -> bool {
    stamp.ctime_ns < seen_ns.saturating_sub(SETTLED_NS)
}

impl SessionIndex {
    /// Whether the file, now of `stamp`, is the one this record was made
    /// from on its stamp alone (see [`SessionIndex::checked_ns`]).
    fn settled(&self, stamp: FileStamp) -> bool {
        self.stamp == stamp && self.checked_ns != 0 && settled_by(stamp, self.checked_ns)
    }
}

/// The table as format 4 kept it (before [`SessionIndex::checked_ns`]):
/// read so that a store is not built again for want of it.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
struct TableV4 {
    generation: u64,
    sessions: Vec<SessionIndexV4>,
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
struct SessionIndexV4 {
    path: PathBuf,
    stamp: FileStamp,
    offset: u64,
    lines: u64,
    prefix: PrefixPrint,
    chunks: Vec<Chunk>,
    compacted: Option<Vec<(u64, u64)>>,
}

impl From<TableV4> for Table {
    fn from(t: TableV4) -> Table {
        let sessions = t.sessions.into_iter().map(|r| SessionIndex {
            path: r.path,
            stamp: r.stamp,
            offset: r.offset,
            lines: r.lines,
            prefix: r.prefix,
            chunks: r.chunks,
            compacted: r.compacted,
            checked_ns: 0,
        });
        Table {
            generation: t.generation,
            sessions: sessions.collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Chunk {
    entries: PackedSpan,
    folded: PackedSpan,
    /// Each entry's text as written, as the edits that make it from its
    /// folded text (see [`super::fold_patch`]).
    patches: PackedSpan,
}

/// One searchable text of an entry.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct EntryText {
    pub line: u64,
    pub id: Option<String>,
    pub kind: String,
    pub folded_len: u64,
    pub original_len: u64,
    pub patch_len: u64,
}

impl EntryText {
    fn as_ref(&self) -> EntryRef<'_> {
        EntryRef {
            line: self.line,
            id: self.id.as_deref().map(str::as_bytes),
            kind: self.kind.as_bytes(),
            folded_len: self.folded_len,
            original_len: self.original_len,
            patch_len: self.patch_len,
        }
    }
}

/// [`EntryText`] as a search reads it back: its strings borrowed from the
/// bytes read (the same encoding), so that only a hit's are copied, and
/// only a hit's checked to be UTF-8 ([`EntryRef::id_kind`]).
#[derive(Debug, Deserialize)]
pub(crate) struct EntryRef<'a> {
    pub line: u64,
    #[serde(borrow, with = "serde_bytes")]
    id: Option<&'a [u8]>,
    #[serde(borrow, with = "serde_bytes")]
    kind: &'a [u8],
    pub folded_len: u64,
    pub original_len: u64,
    pub patch_len: u64,
}

impl<'a> EntryRef<'a> {
    /// The entry's id and kind as text; `None` when either is not UTF-8
    /// (the chunk is damaged).
    pub(crate) fn id_kind(&self) -> Option<(Option<&'a str>, &'a str)> {
        let id = match self.id {
            Some(id) => Some(std::str::from_utf8(id).ok()?),
            None => None,
        };
        Some((id, std::str::from_utf8(self.kind).ok()?))
    }
}

/// A chunk in memory: just built, or read back.
#[derive(Debug, Default)]
pub(crate) struct ChunkData {
    pub entries: Vec<EntryText>,
    /// Each entry's folded text followed by `\n`.
    pub folded: Vec<u8>,
    /// Each entry's text as written, one after the other.
    pub original: Vec<u8>,
    /// Each entry's patch (see [`super::fold_patch`]), one after the other.
    pub patches: Vec<u8>,
}

impl ChunkData {
    pub(crate) fn push(&mut self, line: u64, id: Option<&str>, kind: &str, text: &str) {
        let folded = crate::jstext::normalize_whitespace_lower(text);
        self.folded.extend_from_slice(folded.as_bytes());
        self.folded.push(b'\n');
        self.original.extend_from_slice(text.as_bytes());
        let patched = self.patches.len();
        super::fold_patch::write(text, &folded, &mut self.patches);
        self.entries.push(EntryText {
            line,
            id: id.map(str::to_string),
            kind: kind.to_string(),
            folded_len: folded.len() as u64,
            original_len: text.len() as u64,
            patch_len: (self.patches.len() - patched) as u64,
        });
    }

    /// A stored chunk read back whole, to be built on; `None` when a part
    /// of it is short or damaged.
    fn read_back(source: &ChunkSource<'_>) -> Option<ChunkData> {
        let entries = source.entries()?.into_owned();
        let (mut folded, mut patches) = (Vec::new(), Vec::new());
        source.folded(&mut folded)?;
        let mut original = Vec::new();
        {
            let refs: Vec<EntryRef<'_>> = entries.iter().map(EntryText::as_ref).collect();
            let texts = source.originals(&refs, &folded, &mut patches)?;
            let mut one = Vec::new();
            for k in 0..refs.len() {
                original.extend_from_slice(texts.get(k, &mut one)?);
            }
        }
        Some(ChunkData {
            entries,
            folded,
            original,
            patches,
        })
    }

    fn full(&self) -> bool {
        self.folded.len() >= CHUNK_BYTES || self.original.len() >= CHUNK_BYTES
    }
}

/// A chunk to search: one built in this run, or one in the data file, read
/// (and checked) part by part as the search needs it.
pub(crate) enum ChunkSource<'a> {
    Built(&'a ChunkData),
    Stored(&'a File, &'a Chunk),
}

impl ChunkSource<'_> {
    /// The folded texts into `buf` (a built chunk's are borrowed); `None`
    /// when the stored range is short or damaged.
    pub(crate) fn folded<'b>(&'b self, buf: &'b mut Vec<u8>) -> Option<&'b [u8]> {
        match self {
            ChunkSource::Built(c) => Some(&c.folded),
            ChunkSource::Stored(f, c) => read_packed(f, &c.folded, buf).then_some(&buf[..]),
        }
    }

    /// The texts as written of the chunk's `entries` (read by
    /// [`ChunkSource::entry_refs`]), whose folded texts are `folded` (read
    /// by [`ChunkSource::folded`]), their patches read into `buf`; `None`
    /// when the stored patches are short or damaged, or the lengths the
    /// entries give do not fill the texts.
    pub(crate) fn originals<'b>(
        &'b self,
        entries: &[EntryRef<'_>],
        folded: &'b [u8],
        buf: &'b mut Vec<u8>,
    ) -> Option<Originals<'b>> {
        let len = |n: u64| usize::try_from(n).ok();
        match self {
            ChunkSource::Built(c) => {
                let mut at = 0usize;
                let mut spans = Vec::with_capacity(entries.len());
                for e in entries {
                    let end = at.checked_add(len(e.original_len)?)?;
                    spans.push(at..end);
                    at = end;
                }
                (at == c.original.len()).then_some(Originals::Held {
                    text: &c.original,
                    spans,
                })
            }
            ChunkSource::Stored(f, c) => {
                if !read_packed(f, &c.patches, buf) {
                    return None;
                }
                let (mut fat, mut pat) = (0usize, 0usize);
                let mut parts = Vec::with_capacity(entries.len());
                for e in entries {
                    let (fend, pend) = (
                        fat.checked_add(len(e.folded_len)?)?,
                        pat.checked_add(len(e.patch_len)?)?,
                    );
                    parts.push(Patched {
                        folded: fat..fend,
                        patch: pat..pend,
                        len: len(e.original_len)?,
                    });
                    // Each folded text is followed by a line break.
                    (fat, pat) = (fend.checked_add(1)?, pend);
                }
                (fat == folded.len() && pat == buf.len()).then_some(Originals::Patched {
                    folded,
                    patches: buf,
                    parts,
                })
            }
        }
    }

    /// The entries, read into `buf` (a built chunk's are borrowed);
    /// `None` when the stored range is short or damaged.
    pub(crate) fn entry_refs<'b>(&'b self, buf: &'b mut Vec<u8>) -> Option<Vec<EntryRef<'b>>> {
        match self {
            ChunkSource::Built(c) => Some(c.entries.iter().map(EntryText::as_ref).collect()),
            ChunkSource::Stored(f, c) => {
                if !read_packed(f, &c.entries, buf) {
                    return None;
                }
                postcard::from_bytes(buf).ok()
            }
        }
    }

    pub(crate) fn entries(&self) -> Option<std::borrow::Cow<'_, [EntryText]>> {
        match self {
            ChunkSource::Built(c) => Some(std::borrow::Cow::Borrowed(&c.entries)),
            ChunkSource::Stored(f, c) => {
                let mut buf = Vec::new();
                if !read_packed(f, &c.entries, &mut buf) {
                    return None;
                }
                postcard::from_bytes::<Vec<EntryText>>(&buf)
                    .ok()
                    .map(std::borrow::Cow::Owned)
            }
        }
    }
}

/// The texts as written of a chunk's entries, each given by
/// [`Originals::get`].
pub(crate) enum Originals<'b> {
    /// A chunk built in this run holds them, one after the other.
    Held {
        text: &'b [u8],
        spans: Vec<std::ops::Range<usize>>,
    },
    /// A stored chunk makes each from its folded text and its patch.
    Patched {
        folded: &'b [u8],
        patches: &'b [u8],
        parts: Vec<Patched>,
    },
}

/// Where an entry's folded text and patch are, and how long the text they
/// make is.
pub(crate) struct Patched {
    folded: std::ops::Range<usize>,
    patch: std::ops::Range<usize>,
    len: usize,
}

impl Originals<'_> {
    /// Entry `k`'s text as written (made in `out` when it is patched);
    /// `None` when it does not come back whole.
    pub(crate) fn get<'x>(&'x self, k: usize, out: &'x mut Vec<u8>) -> Option<&'x [u8]> {
        self.get_upto(k, usize::MAX, out).map(|(text, _)| text)
    }

    /// Entry `k`'s text as written, or, when it is patched, its first
    /// `limit` bytes or more (see [`super::fold_patch::apply_upto`]); and
    /// whether that is the whole text. `None` when it does not come back.
    pub(crate) fn get_upto<'x>(
        &'x self,
        k: usize,
        limit: usize,
        out: &'x mut Vec<u8>,
    ) -> Option<(&'x [u8], bool)> {
        match self {
            Originals::Held { text, spans } => Some((text.get(spans.get(k)?.clone())?, true)),
            Originals::Patched {
                folded,
                patches,
                parts,
            } => {
                let p = parts.get(k)?;
                out.clear();
                let whole = super::fold_patch::apply_upto(
                    folded.get(p.folded.clone())?,
                    patches.get(p.patch.clone())?,
                    out,
                    limit,
                )?;
                let fits = if whole {
                    out.len() == p.len
                } else {
                    out.len() < p.len
                };
                fits.then_some((&out[..], whole))
            }
        }
    }
}

/// What one session's search saw of the index: the record it searched
/// (its chunks cover lines `1..=lines`, bytes `..offset`).
pub(crate) struct Served {
    pub record: SessionIndex,
}

/// The deep-search store, opened for one search (or several).
#[derive(Default)]
pub struct DeepIndex {
    dir: Option<PathBuf>,
    generation: u64,
    records: HashMap<PathBuf, SessionIndex>,
    /// The data file, read and appended to through one handle.
    data: Mutex<Option<Arc<File>>>,
    /// Records built, extended or found damaged in this run (`None`:
    /// forget it), written by [`DeepIndex::save`].
    changed: Mutex<HashMap<PathBuf, Option<SessionIndex>>>,
    stats: Mutex<IndexStats>,
}

/// What the index did in this run, session by session.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct IndexStats {
    /// Served as stored: the file had not changed.
    pub reused: usize,
    /// Of those, served on the file's stamp alone, its print not read
    /// (see [`SessionIndex::checked_ns`]).
    pub settled: usize,
    /// Read on from where the store stopped: the file grew.
    pub extended: usize,
    /// Read whole: new to the store, shrunk, replaced, or damaged before.
    pub built: usize,
    /// Searched by reading the file: the store could not serve it.
    pub fallbacks: usize,
    /// Bytes of session files read into the index.
    pub bytes_read: u64,
}

impl IndexStats {
    /// Counts a session read into the index from byte `from` to `to`:
    /// built when read from its start, else extended.
    pub(crate) fn read(&mut self, from: u64, to: u64) {
        if from == 0 {
            self.built += 1;
        } else {
            self.extended += 1;
        }
        self.bytes_read += to - from;
    }
}

fn data_name(generation: u64) -> String {
    format!("{DATA_PREFIX}{generation:016x}{DATA_SUFFIX}")
}

fn new_generation() -> u64 {
    getrandom::u64().unwrap_or_else(|_| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    })
}

/// The table in `dir`, if it is intact.
fn read_table(dir: &Path) -> Option<Table> {
    let bytes = crate::session::read::file::read_regular(&dir.join(TABLE_FILE)).ok()?;
    match TABLE.payload(&bytes) {
        Some(payload) => postcard::from_bytes(payload).ok(),
        None => postcard::from_bytes::<TableV4>(TABLE_V4.payload(&bytes)?)
            .ok()
            .map(Table::from),
    }
}

/// Opens a data file for reading and appending (never blocking: a FIFO put
/// there is refused) and checks its header names `generation`.
fn open_data(path: &Path, generation: u64) -> Option<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut header = [0u8; DATA_HEADER as usize];
    if !read_exact_at(&file, &mut header, 0) {
        return None;
    }
    (header[..8] == DATA_MAGIC[..] && header[8..] == generation.to_le_bytes()).then_some(file)
}

/// Creates an empty data file of `generation` in `dir` (a new name: it
/// never replaces another's).
fn create_data(dir: &Path, generation: u64) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    let mut header = Vec::with_capacity(DATA_HEADER as usize);
    header.extend_from_slice(DATA_MAGIC);
    header.extend_from_slice(&generation.to_le_bytes());
    write_all_at(tmp.as_file(), &header, 0)?;
    let path = dir.join(data_name(generation));
    tmp.persist_noclobber(&path).map_err(|e| e.error)?;
    Ok(path)
}

#[cfg(unix)]
fn write_all_at(file: &File, bytes: &[u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, at)
}

#[cfg(not(unix))]
fn write_all_at(mut file: &File, bytes: &[u8], at: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    file.seek(SeekFrom::Start(at))?;
    file.write_all(bytes)
}

/// Holds the data file's lock (another handle's `flock`, so that this
/// process's own threads take turns too); released on drop.
struct DataLock(#[allow(dead_code)] File);

/// Locks the data file at `path`, if it is still `ours` (not replaced).
fn lock_data(path: &Path, ours: &File) -> Option<DataLock> {
    let handle = open_regular(path).ok()?;
    let deadline = Instant::now() + LOCK_WAIT;
    loop {
        match try_lock(&handle) {
            Ok(true) => break,
            Ok(false) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            _ => return None,
        }
    }
    same_file(&handle.metadata().ok()?, &ours.metadata().ok()?).then_some(DataLock(handle))
}

impl DeepIndex {
    /// An index that keeps nothing: every search reads the files.
    pub fn disabled() -> DeepIndex {
        DeepIndex::default()
    }

    /// Opens the store in `dir` (an empty one when it is missing, damaged
    /// or of another format: it is built as searches need it).
    pub fn open(dir: PathBuf) -> DeepIndex {
        let mut index = DeepIndex {
            generation: new_generation(),
            ..DeepIndex::default()
        };
        if let Some(table) = read_table(&dir) {
            let path = dir.join(data_name(table.generation));
            if let Some(file) = open_data(&path, table.generation) {
                let len = file.metadata().map_or(0, |m| m.len());
                index.generation = table.generation;
                index.records = table
                    .sessions
                    .into_iter()
                    .filter(|r| r.sound(len))
                    .map(|r| (r.path.clone(), r))
                    .collect();
                index.data = Mutex::new(Some(Arc::new(file)));
            }
        }
        index.dir = Some(dir);
        index
    }

    pub fn is_enabled(&self) -> bool {
        self.dir.is_some()
    }

    /// What this run did so far.
    pub fn stats(&self) -> IndexStats {
        self.stats.lock().map(|s| *s).unwrap_or_default()
    }

    fn count(&self, f: impl FnOnce(&mut IndexStats)) {
        if let Ok(mut s) = self.stats.lock() {
            f(&mut s);
        }
    }

    /// Notes a session searched by reading its file instead.
    pub(crate) fn note_fallback(&self) {
        self.count(|s| s.fallbacks += 1);
    }

    fn data_path(&self) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(data_name(self.generation)))
    }

    fn data_file(&self) -> Option<Arc<File>> {
        let mut data = self.data.lock().ok()?;
        if data.is_none() {
            let dir = self.dir.as_ref()?;
            let path = create_data(dir, self.generation).ok()?;
            *data = Some(Arc::new(open_data(&path, self.generation)?));
        }
        data.clone()
    }

    /// Appends `chunk` to the data file, compressed; its spans, or `None`
    /// when it could not be written (the search goes on; the index is not
    /// kept).
    fn append(&self, chunk: &ChunkData) -> Option<Chunk> {
        let file = self.data_file()?;
        let entries = postcard::to_stdvec(&chunk.entries).ok()?;
        // Compressed before the lock is taken: other piscopes wait only for
        // the write.
        let (mut entries, e) = PackedSpan::pack(0, &entries)?;
        let (mut folded, f) = PackedSpan::pack(0, &chunk.folded)?;
        let (mut patches, o) = PackedSpan::pack(0, &chunk.patches)?;
        let _lock = lock_data(&self.data_path()?, &file)?;
        let at = file.metadata().ok()?.len();
        entries.start = at;
        folded.start = at + e.len() as u64;
        patches.start = folded.start + f.len() as u64;
        let mut bytes = e;
        bytes.extend_from_slice(&f);
        bytes.extend_from_slice(&o);
        write_all_at(&file, &bytes, at).ok()?;
        Some(Chunk {
            entries,
            folded,
            patches,
        })
    }

    /// Searches the index of the session `path` (open as `file`, its stamp
    /// `stamp`, taken just after the clock read `seen_ns`): each chunk is
    /// handed to `search` in file order, those stored first, then any
    /// built now from lines the store did not have
    /// (appended to the store as they are built). `search` returns false
    /// for a damaged chunk. `None` when the index cannot serve this file
    /// (disabled, unreadable, damaged): the caller reads the file instead.
    pub(crate) fn serve(
        &self,
        path: &Path,
        file: &File,
        stamp: FileStamp,
        seen_ns: i128,
        search: &mut dyn FnMut(ChunkSource<'_>) -> bool,
    ) -> Option<Served> {
        self.dir.as_ref()?;
        let stored = self.current(path);
        // A stamp that has not settled (see `SessionIndex::checked_ns`) has
        // the file's bytes checked against the print of what was indexed:
        // a rewrite within one tick of the clock leaves the stamp as it was.
        let settled = stored.as_ref().is_some_and(|r| r.settled(stamp));
        let reuse = stored.as_ref().filter(|r| {
            settled
                || ((r.stamp == stamp
                    || (stamp.size > r.stamp.size
                        && stamp.inode == r.stamp.inode
                        && stamp.device == r.stamp.device))
                    && r.prefix.matches(file).unwrap_or(false))
        });
        let read_on = reuse.is_none_or(|r| r.stamp != stamp);
        let mut record = match reuse {
            Some(r) => r.clone(),
            None => SessionIndex {
                path: path.to_path_buf(),
                stamp,
                offset: 0,
                lines: 0,
                prefix: PrefixPrint::default(),
                chunks: Vec::new(),
                compacted: None,
                checked_ns: 0,
            },
        };
        let mut stored_chunks = std::mem::take(&mut record.chunks);
        // A small last chunk is read back and rebuilt with the new lines.
        let mut carry = None;
        if read_on
            && stored_chunks
                .last()
                .is_some_and(|c| c.folded.len < SMALL_CHUNK)
        {
            carry = stored_chunks.pop();
        }
        let data = if stored_chunks.is_empty() && carry.is_none() {
            None
        } else {
            match self.data.lock().ok()?.clone() {
                Some(d) => Some(d),
                None => {
                    self.forget(path);
                    return None;
                }
            }
        };
        for c in &stored_chunks {
            let data = data.as_deref()?;
            if !search(ChunkSource::Stored(data, c)) {
                self.forget(path);
                return None;
            }
        }
        record.chunks = stored_chunks;
        if !read_on {
            self.count(|s| {
                s.reused += 1;
                s.settled += usize::from(settled);
            });
            // Seen as the print says, now: it serves on its stamp from
            // here on once that has settled.
            if !settled && settled_by(stamp, seen_ns) {
                record.checked_ns = seen_ns;
                self.remember(record.clone());
            }
            return Some(Served { record });
        }
        let from = record.offset;
        // The file grew (or is new to the store): read on.
        let mut current = ChunkData::default();
        if let (Some(c), Some(data)) = (&carry, data.as_deref()) {
            let Some(back) = ChunkData::read_back(&ChunkSource::Stored(data, c)) else {
                self.forget(path);
                return None;
            };
            current = back;
        }
        let mut kept = true;
        let mut finish = |chunk: &ChunkData, record: &mut SessionIndex| -> bool {
            if !search(ChunkSource::Built(chunk)) {
                return false;
            }
            match self.append(chunk).filter(|_| kept) {
                Some(c) => record.chunks.push(c),
                None => kept = false,
            }
            true
        };
        let read = read_lines(file, record.offset, stamp.size, record.lines, &mut {
            |number, line: &[u8]| {
                if let Some((id, texts)) = line_texts(line) {
                    for (kind, text) in &texts {
                        current.push(number, id.as_deref(), kind, text);
                    }
                }
                if current.full() {
                    let chunk = std::mem::take(&mut current);
                    return finish(&chunk, &mut record);
                }
                true
            }
        });
        let (offset, lines) = read.ok().flatten()?;
        if !current.entries.is_empty() && !finish(&current, &mut record) {
            return None;
        }
        self.count(|s| s.read(from, offset));
        record.offset = offset;
        record.lines = lines;
        record.stamp = stamp;
        record.checked_ns = seen_ns;
        record.compacted = None;
        record.prefix = PrefixPrint::of(file, offset).ok()?;
        if kept {
            self.remember(record.clone());
        }
        Some(Served { record })
    }

    /// The record for `path`: this run's, else the stored one.
    fn current(&self, path: &Path) -> Option<SessionIndex> {
        if let Some(r) = self.changed.lock().ok()?.get(path) {
            return r.clone();
        }
        self.records.get(path).cloned()
    }

    fn remember(&self, record: SessionIndex) {
        if let Ok(mut c) = self.changed.lock() {
            c.insert(record.path.clone(), Some(record));
        }
    }

    /// Drops the index of `path` (damaged): the next search builds it again.
    fn forget(&self, path: &Path) {
        if let Ok(mut c) = self.changed.lock() {
            c.insert(path.to_path_buf(), None);
        }
    }

    /// Keeps the compacted-away lines found for `record`'s file state.
    pub(crate) fn note_compacted(&self, record: &SessionIndex, runs: Vec<(u64, u64)>) {
        let Some(current) = self.current(&record.path) else {
            return;
        };
        if current.stamp == record.stamp && current.offset == record.offset {
            let mut r = current;
            r.compacted = Some(runs);
            self.remember(r);
        }
    }

    /// Writes what this run built or found damaged into the table (merged
    /// with what other piscopes wrote meanwhile), and compacts the data
    /// file when most of it is dead. Errors are returned for reporting; the
    /// store is only an accelerator.
    pub fn save(&self) -> std::io::Result<()> {
        let Some(dir) = self.dir.as_ref() else {
            return Ok(());
        };
        let changed = std::mem::take(&mut *self.changed.lock().map_err(|_| poisoned())?);
        if changed.is_empty() {
            return Ok(());
        }
        let Some(file) = self.data.lock().map_err(|_| poisoned())?.clone() else {
            // Nothing was ever stored: only damage to forget, in a table
            // that names no data file of ours.
            return Ok(());
        };
        let data_path = dir.join(data_name(self.generation));
        // Another piscope replaced the data file: what we appended is gone
        // with the old one, and so is this run's index.
        let Some(_lock) = lock_data(&data_path, &file) else {
            return Ok(());
        };
        let mut sessions: HashMap<PathBuf, SessionIndex> = match read_table(dir) {
            Some(t) if t.generation == self.generation => t
                .sessions
                .into_iter()
                .map(|r| (r.path.clone(), r))
                .collect(),
            _ => self.records.clone(),
        };
        for (path, r) in changed {
            match r {
                Some(r) => sessions.insert(path, r),
                None => sessions.remove(&path),
            };
        }
        // Sessions deleted since they were indexed.
        sessions.retain(|p, _| p.exists());
        let len = file.metadata()?.len();
        let live: u64 = sessions.values().map(SessionIndex::bytes).sum();
        let table = if len > COMPACT_FROM && live * 2 < len {
            compact(dir, &file, sessions)?
        } else {
            Table {
                generation: self.generation,
                sessions: sessions.into_values().collect(),
            }
        };
        let payload = postcard::to_stdvec(&table).map_err(std::io::Error::other)?;
        TABLE.write(&dir.join(TABLE_FILE), &payload)?;
        remove_other_generations(dir, table.generation);
        Ok(())
    }
}

fn poisoned() -> std::io::Error {
    std::io::Error::other("a search thread panicked")
}

/// Copies the chunks of `sessions` to a data file of a new generation (a
/// damaged one drops its session, read again next time).
fn compact(
    dir: &Path,
    old: &File,
    sessions: HashMap<PathBuf, SessionIndex>,
) -> std::io::Result<Table> {
    use std::io::Write;
    let generation = new_generation();
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    let mut out = Vec::new();
    let mut kept = Vec::with_capacity(sessions.len());
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file());
        w.write_all(DATA_MAGIC)?;
        w.write_all(&generation.to_le_bytes())?;
        let mut at = DATA_HEADER;
        'session: for mut r in sessions.into_values() {
            let mut chunks = Vec::with_capacity(r.chunks.len());
            for c in &r.chunks {
                let mut moved = Vec::with_capacity(3);
                for span in [&c.entries, &c.folded, &c.patches] {
                    // The frames move as they are stored, each checked.
                    if !read_stored(old, span, &mut out) {
                        continue 'session;
                    }
                    w.write_all(&out)?;
                    moved.push(PackedSpan {
                        start: at,
                        ..span.clone()
                    });
                    at += out.len() as u64;
                }
                let [entries, folded, patches]: [PackedSpan; 3] = moved
                    .try_into()
                    .map_err(|_| std::io::Error::other("three spans"))?;
                chunks.push(Chunk {
                    entries,
                    folded,
                    patches,
                });
            }
            r.chunks = chunks;
            kept.push(r);
        }
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist_noclobber(dir.join(data_name(generation)))
        .map_err(|e| e.error)?;
    Ok(Table {
        generation,
        sessions: kept,
    })
}

/// Removes data files of other generations (left by a compaction, or by a
/// piscope whose table lost the race to be written).
fn remove_other_generations(dir: &Path, keep: u64) {
    let Ok(list) = std::fs::read_dir(dir) else {
        return;
    };
    let keep = data_name(keep);
    for e in list.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with(DATA_PREFIX) && name.ends_with(DATA_SUFFIX) && name != keep {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

impl SessionIndex {
    fn sound(&self, file_len: u64) -> bool {
        self.chunks.iter().all(|c| {
            [&c.entries, &c.folded, &c.patches]
                .iter()
                .all(|s| s.start >= DATA_HEADER && s.sound(file_len))
        })
    }

    /// The bytes its chunks take in the data file.
    fn bytes(&self) -> u64 {
        self.chunks
            .iter()
            .map(|c| c.entries.stored_len() + c.folded.stored_len() + c.patches.stored_len())
            .sum()
    }
}

/// A line's entry id, and each of its texts with what it is.
pub(crate) type LineTexts = (Option<String>, Vec<(String, String)>);

/// One entry's searchable texts as deep search reads a line of a session
/// file (its bytes, line break included): its id and each text with what
/// it is; `None` for a line that is not a JSON object.
pub(crate) fn line_texts(line: &[u8]) -> Option<LineTexts> {
    let text = String::from_utf8_lossy(line);
    let Ok(serde_json::Value::Object(entry)) = serde_json::from_str::<serde_json::Value>(&text)
    else {
        return None;
    };
    let id = entry
        .get("id")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string);
    Some((id, crate::session::content::search_texts(&entry)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp() -> FileStamp {
        FileStamp {
            size: 1000,
            mtime_ns: 1_700_000_000_000_000_000,
            inode: 7,
            device: 3,
            ctime_ns: 1_700_000_000_500_000_000,
        }
    }

    fn record(checked_ns: i128) -> SessionIndex {
        SessionIndex {
            path: PathBuf::from("/s/a.jsonl"),
            stamp: stamp(),
            offset: 1000,
            lines: 4,
            prefix: PrefixPrint { len: 1000, hash: 9 },
            chunks: Vec::new(),
            compacted: None,
            checked_ns,
        }
    }

    /// The stamp alone serves only a file seen as it says well after its
    /// last change; any other field of the stamp moved, a file never seen
    /// so, or one seen within the settling time of its change, has its
    /// print read.
    #[test]
    fn a_stamp_serves_alone_only_once_settled() {
        let changed = stamp().ctime_ns;
        assert!(record(changed + SETTLED_NS + 1).settled(stamp()));
        assert!(!record(changed + SETTLED_NS).settled(stamp()));
        assert!(!record(changed + 1).settled(stamp()));
        assert!(!record(0).settled(stamp()));
        let seen = changed + 10 * SETTLED_NS;
        let moved: [fn(&mut FileStamp); 5] = [
            |s| s.size += 1,
            |s| s.mtime_ns -= 1,
            |s| s.inode += 1,
            |s| s.device += 1,
            |s| s.ctime_ns += 1,
        ];
        for m in moved {
            let mut now = stamp();
            m(&mut now);
            assert!(!record(seen).settled(now), "{now:?}");
        }
    }

    /// A table of format 4 reads back whole, each record to have its
    /// print read (never seen as settled): the store is kept.
    #[test]
    fn a_format_4_table_is_read_not_dropped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let r = record(0);
        let old = TableV4 {
            generation: 42,
            sessions: vec![SessionIndexV4 {
                path: r.path.clone(),
                stamp: r.stamp,
                offset: r.offset,
                lines: r.lines,
                prefix: r.prefix,
                chunks: Vec::new(),
                compacted: Some(vec![(2, 3)]),
            }],
        };
        let payload = postcard::to_stdvec(&old).expect("encode");
        TABLE_V4
            .write(&dir.path().join(TABLE_FILE), &payload)
            .expect("write");
        let table = read_table(dir.path()).expect("the old table read");
        assert_eq!(table.generation, 42);
        let [got] = table.sessions.as_slice() else {
            panic!("{:?}", table.sessions);
        };
        assert_eq!(
            (&got.path, got.stamp, got.offset, got.lines, got.prefix),
            (&r.path, r.stamp, r.offset, r.lines, r.prefix)
        );
        assert_eq!(got.compacted, Some(vec![(2, 3)]));
        assert_eq!(got.checked_ns, 0);
        // A frame of another format is not read as either.
        let other = Envelope {
            magic: b"piscopeD",
            format: 3,
        };
        other
            .write(&dir.path().join(TABLE_FILE), &payload)
            .expect("write");
        assert!(read_table(dir.path()).is_none());
    }
}
