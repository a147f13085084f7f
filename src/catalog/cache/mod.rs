//! The catalog's on-disk cache: what each file's complete lines showed, keyed
//! by path, size, mtime, inode and ctime, so unchanged files are never read
//! again.
//!
//! Two files in the user's cache folder: the summaries (small, read on every
//! start) and the searchable texts (large, read by position and never
//! decoded: a search reads the folded texts a block at a time, where they
//! lie; see [`span`] for why they are not mapped). Each is written
//! to a temp file and renamed over, so concurrent piscopes never leave a
//! torn cache (a reader keeps the file it opened); each carries checksums,
//! so a damaged or foreign file (or anything but a regular file) is ignored
//! and rebuilt, never believed. This file holds [`Cache`]; beside it:
//!
//! ```text
//! records.rs    the summaries file's records, read where they lie
//! span.rs       checked ranges of a cache file, read back by position
//! envelope.rs   the checksummed frame of a cache file, written by rename
//! ```

pub(crate) mod envelope;
pub(crate) mod records;
pub(crate) mod span;

use crate::catalog::discover::FileStamp;
use crate::catalog::summary::SessionSummary;
use crate::catalog::summary::message_text::{MessageText, Reread, Stored, TextSpan as Span};
use crate::catalog::summary::read::SummaryState;
use crate::session::read::file::PrefixPrint;
use envelope::{Envelope, write_replacing};
use records::{Head, StateAt};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use span::{read_exact_at, read_span};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Bump when the layout or the meaning of a cached field changes.
const FORMAT: u32 = 12;
/// The texts file starts with `MAGIC`, the format (u32), the length of
/// its table (u64) and the table's xxh3 (u64), little-endian. A byte
/// flipped anywhere fails one of these checks or a block's own hash;
/// postcard alone would read many flips as other, wrong, values.
const MAGIC: &[u8; 8] = b"piscope\x01";
const FRAME: Envelope = Envelope {
    magic: MAGIC,
    format: FORMAT,
};
const HEADER_LEN: usize = Envelope::HEADER_LEN;
/// The summaries file: the same five fields, over its records region,
/// then the length of its states region (u64); then the records (see
/// [`super::records`]), then the states (postcard, each with its own xxh3
/// in its record).
const SUMMARIES_HEADER_LEN: usize = HEADER_LEN + 8;
const INDEX_FILE: &str = "catalog-summaries.bin";
const TEXT_FILE: &str = "catalog-texts.bin";

/// What the cache knows of one file, read where it lies: its stamp, where
/// its state read to, what the list shows of it (decoded when shown), and
/// the reading state to resume from when the file grows (read only then).
/// (Its bytes and where its state is: small, as a plan per file holds one.)
#[derive(Clone, Copy)]
pub(crate) struct Record<'a> {
    body: &'a [u8],
    state: StateSource<'a>,
}

#[derive(Clone, Copy)]
enum StateSource<'a> {
    /// In the states region of the summaries file this run read.
    File(&'a StatesRegion),
    /// Read in this run.
    Fresh(&'a SummaryState),
}

impl<'a> Record<'a> {
    /// Its fixed fields (checked to parse when it was looked up).
    pub(crate) fn head(&self) -> Head<'a> {
        Head::parse(self.body).unwrap_or(Head::NONE)
    }

    /// The reading state (`None` if it is damaged or does not decode: read
    /// the file again).
    pub(crate) fn state(&self) -> Option<Box<SummaryState>> {
        match self.state {
            StateSource::Fresh(s) => Some(Box::new(s.clone())),
            StateSource::File(region) => {
                let bytes = region.read(self.head().state)?;
                postcard::from_bytes(&bytes).ok().map(Box::new)
            }
        }
    }

    /// The summary the cache holds for the file at `path` (see
    /// [`Head::summary`]).
    pub(crate) fn summary(
        &self,
        path: std::path::PathBuf,
        text: Option<Arc<MessageText>>,
    ) -> Option<Option<SessionSummary>> {
        self.head().summary(path, text)
    }
}

/// Where the states lie in the summaries file this run read (kept open:
/// a newer file renamed over it leaves this one whole).
struct StatesRegion {
    file: std::fs::File,
    start: u64,
    len: u64,
}

impl StatesRegion {
    /// The state's bytes at `at`, if they are whole and hash as recorded.
    fn read(&self, at: StateAt) -> Option<Vec<u8>> {
        (at.start.checked_add(at.len)? <= self.len).then_some(())?;
        let mut bytes = vec![0; usize::try_from(at.len).ok()?];
        read_exact_at(&self.file, &mut bytes, self.start + at.start).then_some(())?;
        (xxhash_rust::xxh3::xxh3_64(&bytes) == at.hash).then_some(bytes)
    }

    /// The whole region (for writing the states on into a new file; each
    /// state's hash is checked as it is copied).
    fn read_all(&self) -> Option<Vec<u8>> {
        let mut bytes = vec![0; usize::try_from(self.len).ok()?];
        read_exact_at(&self.file, &mut bytes, self.start).then_some(bytes)
    }
}

/// A record: in the records region read (where its length starts), or put
/// in this run.
#[derive(Clone, Copy)]
enum Slot {
    Read(usize),
    Fresh(usize),
}

/// A record put in this run: its bytes as the file would hold them (its
/// state not placed yet) and its state.
struct Fresh {
    bytes: Vec<u8>,
    state: Box<SummaryState>,
}

/// The records, by path: the summaries file's, read in place, and those
/// put in this run over them.
#[derive(Default)]
struct Records {
    region: Vec<u8>,
    states: Option<StatesRegion>,
    fresh: Vec<Fresh>,
    /// Slots hashed by their paths' bytes.
    table: hashbrown::HashTable<Slot>,
}

fn path_hash(path: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(path)
}

/// The bytes of the record in `slot`.
fn body<'a>(region: &'a [u8], fresh: &'a [Fresh], slot: Slot) -> Option<&'a [u8]> {
    let (bytes, at) = match slot {
        Slot::Read(at) => (region, at),
        Slot::Fresh(i) => (fresh.get(i)?.bytes.as_slice(), 0),
    };
    records::record_at(bytes, at).map(|(body, _)| body)
}

/// The path of the record in `slot`.
fn slot_path<'a>(region: &'a [u8], fresh: &'a [Fresh], slot: Slot) -> Option<&'a [u8]> {
    body(region, fresh, slot).and_then(records::path_of)
}

/// What the table hashes the record in `slot` by.
fn slot_hash(region: &[u8], fresh: &[Fresh], slot: Slot) -> u64 {
    path_hash(slot_path(region, fresh, slot).unwrap_or_default())
}

impl Records {
    /// The summaries file at `path`; `None` when it is missing, damaged, of
    /// another format, or not a regular file (a FIFO there would block a
    /// read for ever; the next save renames a new file over it).
    fn read(path: &Path) -> Option<Records> {
        let file = crate::session::read::file::open_regular(path).ok()?;
        let file_len = file.metadata().ok()?.len();
        let mut header = [0u8; SUMMARIES_HEADER_LEN];
        read_exact_at(&file, &mut header, 0).then_some(())?;
        let (len, hash) = FRAME.read_header(&header)?;
        let states_len = u64::from_le_bytes(header[HEADER_LEN..].try_into().ok()?);
        let whole = (SUMMARIES_HEADER_LEN as u64)
            .checked_add(len)?
            .checked_add(states_len)?;
        if whole != file_len {
            return None;
        }
        let region = crate::session::read::file::read_vec_at(
            &file,
            SUMMARIES_HEADER_LEN as u64,
            usize::try_from(len).ok()?,
        )
        .ok()??;
        (xxhash_rust::xxh3::xxh3_64(&region) == hash).then_some(())?;
        // Records are a few hundred bytes each.
        let mut table = hashbrown::HashTable::with_capacity(region.len() / 256);
        let mut at = 0;
        while at < region.len() {
            let (record, next) = records::record_at(&region, at)?;
            let hash = path_hash(records::path_of(record)?);
            table.insert_unique(hash, Slot::Read(at), |&s| slot_hash(&region, &[], s));
            at = next;
        }
        Some(Records {
            states: Some(StatesRegion {
                file,
                start: SUMMARIES_HEADER_LEN as u64 + len,
                len: states_len,
            }),
            region,
            fresh: Vec::new(),
            table,
        })
    }

    fn find(&self, path: &[u8]) -> Option<Slot> {
        let (region, fresh) = (&self.region, &self.fresh);
        self.table
            .find(path_hash(path), |&s| {
                slot_path(region, fresh, s) == Some(path)
            })
            .copied()
    }

    fn get(&self, path: &Path) -> Option<Record<'_>> {
        let slot = self.find(records::path_bytes(path)?)?;
        let body = body(&self.region, &self.fresh, slot)?;
        Head::parse(body)?;
        let state = match slot {
            Slot::Read(_) => StateSource::File(self.states.as_ref()?),
            Slot::Fresh(i) => StateSource::Fresh(&self.fresh.get(i)?.state),
        };
        Some(Record { body, state })
    }

    /// Puts `record` over whatever was there for its path.
    fn insert(&mut self, path: &[u8], record: Fresh) {
        let slot = Slot::Fresh(self.fresh.len());
        self.fresh.push(record);
        let Records {
            region,
            fresh,
            table,
            ..
        } = self;
        let eq = |s: &Slot| slot_path(region, fresh, *s) == Some(path);
        match table.find_mut(path_hash(path), eq) {
            Some(old) => *old = slot,
            None => {
                table.insert_unique(path_hash(path), slot, |s| slot_hash(region, fresh, *s));
            }
        }
    }

    fn remove(&mut self, path: &[u8]) {
        let (region, fresh) = (&self.region, &self.fresh);
        let eq = |s: &Slot| slot_path(region, fresh, *s) == Some(path);
        if let Ok(entry) = self.table.find_entry(path_hash(path), eq) {
            entry.remove();
        }
    }

    /// Every record's path.
    fn paths(&self) -> impl Iterator<Item = &Path> {
        self.table
            .iter()
            .filter_map(|&s| slot_path(&self.region, &self.fresh, s).and_then(records::bytes_path))
    }

    /// Writes the summaries file (see [`SUMMARIES_HEADER_LEN`]) beside
    /// `path` and renames it over. States read from the old file are
    /// copied as they lie once their hashes are checked; a damaged one is
    /// left out (its file is read again when it grows).
    fn write(&self, path: &Path) -> std::io::Result<()> {
        let old = self.states.as_ref().and_then(StatesRegion::read_all);
        let mut region = Vec::with_capacity(self.region.len() + 512 * self.fresh.len());
        let mut states = Vec::with_capacity(old.as_ref().map_or(0, Vec::len));
        // Newest first, as listings ask for them: a list then reads the
        // records front to back, not all over the region.
        let mut heads: Vec<(Slot, Head)> = self
            .table
            .iter()
            .filter_map(|&slot| {
                Some((
                    slot,
                    body(&self.region, &self.fresh, slot).and_then(Head::parse)?,
                ))
            })
            .collect();
        heads.sort_unstable_by(|(_, a), (_, b)| {
            (b.stamp.mtime_ns.cmp(&a.stamp.mtime_ns)).then_with(|| a.path.cmp(b.path))
        });
        for (slot, head) in heads {
            let bytes = match slot {
                Slot::Read(_) => old.as_deref().and_then(|o| {
                    let at = head.state;
                    let start = usize::try_from(at.start).ok()?;
                    let s = o.get(start..start.checked_add(usize::try_from(at.len).ok()?)?)?;
                    (xxhash_rust::xxh3::xxh3_64(s) == at.hash).then_some(s.to_vec())
                }),
                Slot::Fresh(i) => self
                    .fresh
                    .get(i)
                    .and_then(|f| postcard::to_stdvec(&*f.state).ok()),
            }
            .unwrap_or_default();
            let at = StateAt {
                start: states.len() as u64,
                len: bytes.len() as u64,
                hash: xxhash_rust::xxh3::xxh3_64(&bytes),
            };
            states.extend_from_slice(&bytes);
            head.write(at, &mut region);
        }
        let states_len = (states.len() as u64).to_le_bytes();
        write_replacing(
            path,
            &[&FRAME.header(&region), &states_len, &region, &states],
        )
    }
}

/// The texts file: the envelope header (its length and hash are those of
/// the table), the table (postcard, one [`TextRecord`] per session), then
/// every folded text, then every original text, each range with an xxh3
/// per block, checked on every read. Token searches read only the folded part.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct TextRecord {
    path: PathBuf,
    /// The state it belongs to: same offset and header.
    offset: u64,
    header_hash: u64,
    /// Relative to the end of the table in the file; absolute once loaded.
    folded: Span,
    original: Span,
}

impl TextRecord {
    /// Its entry, once loaded: the texts at these (absolute) spans.
    fn stored_at(self, folded: Span, original: Span) -> (PathBuf, TextEntry) {
        let entry = TextEntry {
            offset: self.offset,
            header_hash: self.header_hash,
            body: TextBody::Stored { folded, original },
        };
        (self.path, entry)
    }
}

struct TextEntry {
    offset: u64,
    header_hash: u64,
    body: TextBody,
}

enum TextBody {
    /// In the texts file (absolute spans).
    Stored { folded: Span, original: Span },
    /// Read in this run, not saved yet (the loaded summary's own).
    Owned(Arc<MessageText>),
}

#[derive(Default)]
struct Texts {
    file: Option<Arc<std::fs::File>>,
    /// By the paths' bytes (hashing a `Path` walks its components).
    entries: FxHashMap<std::ffi::OsString, TextEntry>,
}

impl Texts {
    /// `path`'s text at these spans of the texts file, read from it when
    /// searched (`reread` if the file no longer holds it).
    fn stored(
        &self,
        path: &Path,
        folded: &Span,
        original: &Span,
        reread: Reread,
    ) -> Option<MessageText> {
        Some(MessageText::stored(Stored::new(
            self.file.clone()?,
            folded.clone(),
            original.clone(),
            path.to_path_buf(),
            reread,
        )))
    }
}

/// The cache, loaded.
#[derive(Default)]
pub struct Cache {
    dir: Option<PathBuf>,
    /// Keyed by the path's bytes: hashing a `Path` walks its components,
    /// and discovery hands over normalised paths, so bytes say the same.
    /// The hash is a fast one: a warm list looks up every file (SipHash
    /// over each path was a few percent of it).
    records: Records,
    summaries_read: bool,
    texts: Option<Texts>,
    index_dirty: bool,
    texts_dirty: bool,
}

/// The default cache folder (`~/.cache/piscope` on Linux).
pub fn default_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "piscope").map(|d| d.cache_dir().to_path_buf())
}

impl Cache {
    /// A cache that keeps nothing (`--no-cache`).
    pub fn disabled() -> Cache {
        Cache::default()
    }

    /// Whether reads are recorded (not `--no-cache`).
    pub fn is_enabled(&self) -> bool {
        self.dir.is_some()
    }

    /// The cache kept in `dir`. Its summaries are read when first needed
    /// ([`Cache::read_summaries`]), its texts when a search needs them.
    pub fn open(dir: PathBuf) -> Cache {
        Cache {
            dir: Some(dir),
            ..Cache::default()
        }
    }

    /// Reads the summaries file, once (the catalog does it on a thread of
    /// its own while it looks for the session files).
    pub(crate) fn read_summaries(&mut self) {
        if std::mem::replace(&mut self.summaries_read, true) {
            return;
        }
        let Some(dir) = &self.dir else { return };
        self.records = Records::read(&dir.join(INDEX_FILE)).unwrap_or_default();
    }

    /// How many files the cache holds a record of.
    pub(crate) fn record_count(&self) -> usize {
        self.records.table.len()
    }

    /// How many of the files the cache holds a record of are under `dir`:
    /// one cache may hold the records of more than one sessions folder.
    pub(crate) fn record_count_under(&self, dir: &Path) -> usize {
        let Some(dir) = records::path_bytes(dir) else {
            return 0;
        };
        let Records { region, fresh, .. } = &self.records;
        self.records
            .table
            .iter()
            .filter(|&&s| slot_path(region, fresh, s).is_some_and(|p| records::bytes_under(p, dir)))
            .count()
    }

    /// What the cache knows of `path` (after [`Cache::read_summaries`]).
    pub(crate) fn get(&self, path: &Path) -> Option<Record<'_>> {
        debug_assert!(self.summaries_read || self.dir.is_none());
        self.records.get(path)
    }

    /// Opens the texts, so that [`Cache::text`] can answer.
    pub(crate) fn prepare_texts(&mut self) {
        self.load_texts();
    }

    /// The cached text for `state`, if the cache has it for that very state
    /// (none before [`Cache::prepare_texts`]).
    /// The state is named by where it read to and its header's hash.
    pub(crate) fn text(
        &self,
        path: &Path,
        (offset, header_hash): (u64, u64),
        reread: Reread,
    ) -> Option<Arc<MessageText>> {
        let texts = self.texts.as_ref()?;
        let t = texts.entries.get(path.as_os_str())?;
        if t.offset != offset || t.header_hash != header_hash {
            return None;
        }
        match &t.body {
            TextBody::Stored { folded, original } => {
                texts.stored(path, folded, original, reread).map(Arc::new)
            }
            TextBody::Owned(t) => Some(t.clone()),
        }
    }

    fn load_texts(&mut self) {
        if self.texts.is_none() {
            let texts = match &self.dir {
                Some(dir) => open_texts(&dir.join(TEXT_FILE)).unwrap_or_default(),
                None => Texts::default(),
            };
            self.texts = Some(texts);
        }
    }

    /// Records what a read of `path` found; `text` is the state's text
    /// when the caller holds it already (else it is taken from the state).
    pub(crate) fn put(
        &mut self,
        path: &Path,
        stamp: FileStamp,
        mut state: SummaryState,
        prefix: PrefixPrint,
        text: Option<Arc<MessageText>>,
    ) {
        let Some(key) = records::path_bytes(path).filter(|_| self.dir.is_some()) else {
            return;
        };
        self.read_summaries();
        self.index_dirty = true;
        self.texts_dirty |= state.with_text;
        if state.with_text {
            self.load_texts();
        }
        if let Some(texts) = self.texts.as_mut().filter(|_| state.with_text) {
            texts.entries.insert(
                path.as_os_str().to_owned(),
                TextEntry {
                    offset: state.offset,
                    header_hash: state.header_hash,
                    // The state keeps no copy: reading on takes the text
                    // from here.
                    body: TextBody::Owned(text.unwrap_or_else(|| {
                        Arc::new(MessageText::new(std::mem::take(&mut state.text)))
                    })),
                },
            );
        }
        let listing = records::listing(
            state
                .summary(PathBuf::new(), stamp.size, stamp.mtime_ms(), None)
                .as_ref(),
        );
        let mut bytes = Vec::with_capacity(listing.len() + 160);
        let head = Head {
            path: key,
            stamp,
            prefix,
            offset: state.offset,
            header_hash: state.header_hash,
            with_text: state.with_text,
            state: StateAt::default(),
            listing: &listing,
        };
        head.write(StateAt::default(), &mut bytes);
        self.records.insert(
            key,
            Fresh {
                bytes,
                state: Box::new(state),
            },
        );
    }

    /// Forgets files under `dir` that are no longer there.
    pub(crate) fn forget_missing_under(&mut self, dir: &Path, present: &dyn Fn(&Path) -> bool) {
        self.read_summaries();
        let gone: Vec<PathBuf> = self
            .records
            .paths()
            // The set lookup first: comparing paths walks their components.
            .filter(|p| !present(p) && p.starts_with(dir))
            .map(Path::to_path_buf)
            .collect();
        for p in gone {
            if let Some(key) = records::path_bytes(&p) {
                self.records.remove(key);
            }
            if let Some(t) = &mut self.texts {
                t.entries.remove(p.as_os_str());
                self.texts_dirty = true;
            }
            self.index_dirty = true;
        }
    }

    /// Writes what changed. When a new texts file was written, the texts
    /// of this run it now holds are handed back ([`Swaps`]), read from the
    /// very file written. Errors are returned for reporting; the cache is
    /// only an accelerator.
    pub fn save(&mut self) -> std::io::Result<Swaps> {
        let Some(dir) = self.dir.clone() else {
            return Ok(Swaps::default());
        };
        let mut swaps = Swaps::default();
        if self.texts_dirty {
            if let Some(texts) = &self.texts {
                // The new file's texts replace the ones held in memory.
                let (written, written_now) = write_texts(&dir.join(TEXT_FILE), texts)?;
                self.texts = Some(written);
                swaps = written_now;
            }
            self.texts_dirty = false;
        }
        if self.index_dirty {
            self.records.write(&dir.join(INDEX_FILE))?;
            self.index_dirty = false;
        }
        Ok(swaps)
    }
}

/// The texts read in this run that a save wrote, by path: the very text
/// the cache was given, and the same text as the new file holds it, read
/// by position when searched. Dropped once the holders have swapped.
#[derive(Default)]
pub struct Swaps(HashMap<PathBuf, (Arc<MessageText>, Arc<MessageText>)>);

impl Swaps {
    /// The file's copy of `text`, when `text` is the one written for `path`
    /// (the same allocation, so the same bytes).
    pub fn stored(&self, path: &Path, text: &Arc<MessageText>) -> Option<Arc<MessageText>> {
        let (written, stored) = self.0.get(path)?;
        Arc::ptr_eq(written, text).then(|| stored.clone())
    }

    /// True when no new texts file was written.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Opens the texts file and reads its table; `None` when it is missing,
/// damaged, of another format, or not a regular file. The texts stay on
/// disk, read by position when searched.
fn open_texts(path: &Path) -> Option<Texts> {
    let file = crate::session::read::file::open_regular(path).ok()?;
    let file_len = file.metadata().ok()?.len();
    let mut header = [0u8; HEADER_LEN];
    let read = |buf: &mut [u8], at: u64| read_exact_at(&file, buf, at).then_some(());
    read(&mut header, 0)?;
    let (table_len, hash) = FRAME.read_header(&header)?;
    if table_len > file_len.saturating_sub(HEADER_LEN as u64) {
        return None;
    }
    let mut table = vec![0u8; usize::try_from(table_len).ok()?];
    read(&mut table, HEADER_LEN as u64)?;
    if hash != xxhash_rust::xxh3::xxh3_64(&table) {
        return None;
    }
    let records: Vec<TextRecord> = postcard::from_bytes(&table).ok()?;
    let base = HEADER_LEN as u64 + table_len;
    let absolute = |s: Span| {
        let s = Span {
            start: s.start.checked_add(base)?,
            ..s
        };
        s.sound(file_len).then_some(s)
    };
    let mut entries = FxHashMap::with_capacity_and_hasher(records.len(), Default::default());
    for mut r in records {
        let (folded, original) = (
            std::mem::take(&mut r.folded),
            std::mem::take(&mut r.original),
        );
        let (Some(folded), Some(original)) = (absolute(folded), absolute(original)) else {
            return None;
        };
        let (path, entry) = r.stored_at(folded, original);
        entries.insert(path.into_os_string(), entry);
    }
    Some(Texts {
        file: Some(Arc::new(file)),
        entries,
    })
}

/// Writes the texts file (see [`TextRecord`]) beside `path` and renames it
/// over. Texts carried over from the old file are copied as they lie, once
/// their hashes are checked (a damaged or vanished one is left out, read
/// again next time); new ones are folded here, twice (for the table, then
/// for the file), so that no more than one folded text is held at a time.
/// Texts are written in the order of the table, which goes first: each is
/// read (or folded) and checked before the table is written, one at a
/// time, so what is held at once is the table and one text, not the file.
///
/// Gives the new file's texts, over the handle of the file written (not
/// opened again by name: another piscope may have replaced it since), and
/// the texts of this run it now holds.
fn write_texts(path: &Path, texts: &Texts) -> std::io::Result<(Texts, Swaps)> {
    let mut records = Vec::with_capacity(texts.entries.len());
    let mut buf = Vec::new();
    // Pass one: which texts are intact, and their spans (relative).
    let mut folded_at = 0u64;
    // (path, entry, folded span)
    let mut kept: Vec<(&std::ffi::OsString, &TextEntry, Span)> =
        Vec::with_capacity(texts.entries.len());
    for (p, e) in &texts.entries {
        let folded = match &e.body {
            TextBody::Stored { folded, original } => {
                let Some(file) = &texts.file else { continue };
                if !read_span(file, original, &mut buf) || !read_span(file, folded, &mut buf) {
                    continue;
                }
                Span {
                    start: folded_at,
                    ..folded.clone()
                }
            }
            TextBody::Owned(t) => Span::over(folded_at, &t.folded_anew()),
        };
        folded_at += folded.len;
        kept.push((p, e, folded));
    }
    let mut original_at = folded_at;
    for (p, e, folded) in kept.iter() {
        let original = match &e.body {
            TextBody::Stored { original, .. } => Span {
                start: original_at,
                ..original.clone()
            },
            TextBody::Owned(t) => Span::over(original_at, t.original().as_bytes()),
        };
        original_at += original.len;
        records.push(TextRecord {
            path: PathBuf::from(*p),
            offset: e.offset,
            header_hash: e.header_hash,
            folded: folded.clone(),
            original,
        });
    }
    let table = postcard::to_stdvec(&records).map_err(std::io::Error::other)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file());
        w.write_all(&FRAME.header(&table))?;
        w.write_all(&table)?;
        // Pass two: the bytes, each checked again as it is copied (a text
        // that changed since pass one leaves the file unusable, not wrong:
        // its hashes are those of pass one).
        for folded in [true, false] {
            for (_, e, _) in &kept {
                match &e.body {
                    TextBody::Stored {
                        folded: f,
                        original: o,
                    } => {
                        let from = if folded { f } else { o };
                        let file = texts.file.as_deref().ok_or_else(|| {
                            std::io::Error::other("the texts file went away while copying")
                        })?;
                        if !read_span(file, from, &mut buf) {
                            return Err(std::io::Error::other(
                                "the texts file changed while copying",
                            ));
                        }
                        w.write_all(&buf)?;
                    }
                    TextBody::Owned(t) if folded => w.write_all(&t.folded_anew())?,
                    TextBody::Owned(t) => w.write_all(t.original().as_bytes())?,
                }
            }
        }
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    let file = tmp.persist(path).map_err(|e| e.error)?;
    let base = (HEADER_LEN + table.len()) as u64;
    let absolute = |s: &Span| Span {
        start: s.start + base,
        ..s.clone()
    };
    let mut written = Texts {
        file: Some(Arc::new(file)),
        entries: FxHashMap::with_capacity_and_hasher(records.len(), Default::default()),
    };
    let mut swaps = Swaps::default();
    for (r, (_, e, _)) in records.into_iter().zip(&kept) {
        let (folded, original) = (absolute(&r.folded), absolute(&r.original));
        if let TextBody::Owned(t) = &e.body {
            if let Some(stored) = written.stored(&r.path, &folded, &original, super::reread_text) {
                swaps
                    .0
                    .insert(r.path.clone(), (t.clone(), Arc::new(stored)));
            }
        }
        let (path, entry) = r.stored_at(folded, original);
        written.entries.insert(path.into_os_string(), entry);
    }
    Ok((written, swaps))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::summary::read::HeaderFacts;

    #[test]
    fn a_streamed_frame_is_the_frame_written_whole() {
        let dir = tempfile::tempdir().expect("temp dir");
        let frame = Envelope {
            magic: b"piscopeT",
            format: 3,
        };
        // Longer than the writer's buffer, written in uneven pieces.
        let payload: Vec<u8> = (0..200_003u32).map(|i| (i * 7 % 251) as u8).collect();
        let (whole, streamed) = (dir.path().join("whole"), dir.path().join("streamed"));
        frame.write(&whole, &payload).expect("write");
        frame
            .write_streamed(&streamed, |out| {
                payload.chunks(977).try_for_each(|c| out.write_all(c))
            })
            .expect("write streamed");
        let bytes = std::fs::read(&streamed).expect("read");
        assert!(bytes == std::fs::read(&whole).expect("read"));
        assert!(frame.payload(&bytes) == Some(&payload[..]));
        // A fill that fails leaves what was there.
        let failed = frame.write_streamed(&streamed, |out| {
            out.write_all(b"partial")?;
            Err(std::io::Error::other("no more"))
        });
        assert!(failed.is_err());
        assert!(frame.payload(&std::fs::read(&streamed).expect("read")) == Some(&payload[..]));
    }

    fn state(id: &str, offset: u64) -> SummaryState {
        SummaryState {
            header: Some(HeaderFacts {
                id: id.into(),
                cwd: "/w".into(),
                ..HeaderFacts::default()
            }),
            offset,
            message_count: offset / 10,
            first_message: Some(format!("first of {id}")),
            childless: [7].into_iter().collect(),
            ..SummaryState::default()
        }
    }

    fn put(cache: &mut Cache, path: &str, s: SummaryState) {
        let stamp = FileStamp {
            size: s.offset,
            mtime_ns: 5,
            inode: 9,
            device: 1,
            ctime_ns: 6,
        };
        let prefix = PrefixPrint {
            len: s.offset,
            hash: 3,
        };
        cache.put(Path::new(path), stamp, s, prefix, None);
    }

    fn reopened(dir: &Path) -> Cache {
        let mut cache = Cache::open(dir.to_path_buf());
        cache.read_summaries();
        cache
    }

    fn state_of(cache: &Cache, path: &str) -> Option<String> {
        let r = cache.get(Path::new(path)).expect("record");
        r.state().map(|s| format!("{s:?}"))
    }

    #[test]
    fn states_read_back_and_are_carried_over_by_the_next_save() {
        let dir = tempfile::tempdir().expect("dir");
        let (a, b) = (state("a", 40), state("b", 70));
        let mut cache = reopened(dir.path());
        put(&mut cache, "/s/a.jsonl", a.clone());
        cache.save().expect("save");
        // A second run adds one file: the first one's state is copied on.
        let mut cache = reopened(dir.path());
        put(&mut cache, "/s/b.jsonl", b.clone());
        cache.save().expect("save");
        let cache = reopened(dir.path());
        assert_eq!(state_of(&cache, "/s/a.jsonl"), Some(format!("{a:?}")));
        assert_eq!(state_of(&cache, "/s/b.jsonl"), Some(format!("{b:?}")));
        let r = cache.get(Path::new("/s/b.jsonl")).expect("record");
        let s = r
            .summary(PathBuf::from("/s/b.jsonl"), None)
            .expect("parses");
        assert_eq!(s.map(|s| (s.id, s.message_count)), Some(("b".into(), 7)));
        assert!(cache.get(Path::new("/s/c.jsonl")).is_none());
    }

    /// Texts read in this run are written by the save, which then gives
    /// them as the file holds them, read by position, so the copies held
    /// in memory can go; only the very text the cache was given is swapped.
    #[test]
    fn saved_texts_are_then_read_from_the_file() {
        let dir = tempfile::tempdir().expect("dir");
        let mut cache = reopened(dir.path());
        let text = "Tree Label  and a longer text ".repeat(50_000);
        let mut a = state("a", 40);
        a.with_text = true;
        let held = Arc::new(MessageText::new(text.clone()));
        let (stamp, prefix) = (
            FileStamp {
                size: 40,
                mtime_ns: 5,
                inode: 9,
                device: 1,
                ctime_ns: 6,
            },
            PrefixPrint { len: 40, hash: 3 },
        );
        cache.put(
            Path::new("/s/a.jsonl"),
            stamp,
            a,
            prefix,
            Some(held.clone()),
        );
        let mut b = state("b", 70);
        (b.with_text, b.text) = (true, "of b".into());
        put(&mut cache, "/s/b.jsonl", b);
        let swaps = cache.save().expect("save");
        assert!(!swaps.is_empty(), "a texts file was written");
        let stored = swaps
            .stored(Path::new("/s/a.jsonl"), &held)
            .expect("in the file");
        assert!(stored.is_stored());
        assert_eq!(stored.original(), text.as_str());
        assert_eq!(stored.folded(), held.folded());
        assert!(stored.folded_contains(b"tree label and"));
        // The same text held elsewhere, or under another path: kept.
        let copy = Arc::new(MessageText::new(text.clone()));
        assert!(swaps.stored(Path::new("/s/a.jsonl"), &copy).is_none());
        assert!(swaps.stored(Path::new("/s/c.jsonl"), &held).is_none());
        drop(swaps);
        // The cache reads from the file it wrote, and so does the next run.
        let mut again = reopened(dir.path());
        again.load_texts();
        for cache in [&cache, &again] {
            let texts = cache.texts.as_ref().expect("texts");
            for (path, want) in [("/s/a.jsonl", text.as_str()), ("/s/b.jsonl", "of b")] {
                let TextBody::Stored { folded, original } = &texts
                    .entries
                    .get(std::ffi::OsStr::new(path))
                    .expect("entry")
                    .body
                else {
                    panic!("{path} is not stored");
                };
                let t = texts
                    .stored(
                        Path::new(path),
                        folded,
                        original,
                        crate::catalog::reread_text,
                    )
                    .expect("file");
                assert_eq!(t.original(), want);
            }
        }
        // Nothing new to write: no new file.
        assert!(cache.save().expect("save").is_empty());
    }

    #[test]
    fn a_damaged_state_is_not_believed() {
        let dir = tempfile::tempdir().expect("dir");
        let mut cache = reopened(dir.path());
        put(&mut cache, "/s/a.jsonl", state("a", 40));
        cache.save().expect("save");
        let file = dir.path().join(INDEX_FILE);
        let pristine = std::fs::read(&file).expect("read");
        let states_len = u64::from_le_bytes(pristine[28..36].try_into().expect("8 bytes"));
        assert!(states_len > 0);
        for at in pristine.len() - states_len as usize..pristine.len() {
            let mut bytes = pristine.clone();
            bytes[at] ^= 0x20;
            std::fs::write(&file, &bytes).expect("write");
            // The record itself is intact: only its state is refused.
            assert_eq!(
                state_of(&reopened(dir.path()), "/s/a.jsonl"),
                None,
                "byte {at}"
            );
        }
    }
}
