//! The catalog's on-disk cache: what each file's complete lines showed, keyed
//! by path, size, mtime and inode, so unchanged files are never read again.
//!
//! Two files in the user's cache folder: the summaries (small, read on every
//! start) and the searchable texts (large, read by position and never
//! decoded: a search reads the folded texts a block at a time, where they
//! lie; see [`super::text`] for why they are not mapped). Each is written
//! to a temp file and renamed over, so concurrent piscopes never leave a
//! torn cache (a reader keeps the file it opened); each carries checksums,
//! so a damaged or foreign file (or anything but a regular file) is ignored
//! and rebuilt, never believed.

use super::discover::FileStamp;
use super::summary::{SessionSummary, SummaryState};
use super::text::{MessageText, Reread, Span, Stored, read_exact_at, read_span};
use crate::session::file::{PrefixPrint, read_regular};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

type Records = rustc_hash::FxHashMap<OsString, Record>;

/// Bump when the layout or the meaning of a cached field changes.
const FORMAT: u32 = 9;
/// A cache file: `MAGIC`, the format (u32), the length of the records
/// (u64) and their xxh3 hash (u64), little-endian, then the records
/// (postcard). A byte flipped anywhere fails one of these checks; postcard
/// alone would read many flips as other, wrong, values.
const MAGIC: &[u8; 8] = b"piscope\x01";
const HEADER_LEN: usize = MAGIC.len() + 4 + 8 + 8;
const INDEX_FILE: &str = "catalog-summaries.bin";
const TEXT_FILE: &str = "catalog-texts.bin";

/// What the cache knows of one file: what the list shows of it, ready
/// (read on every start, so it is all a warm start decodes), and the
/// reading state to resume from when the file grows (decoded only then).
#[derive(Serialize, Deserialize)]
pub(crate) struct Record {
    pub path: PathBuf,
    pub stamp: FileStamp,
    /// The bytes the state was read from, checked before reading on.
    pub prefix: PrefixPrint,
    /// Where the state read to, and the hash of the header it read (what a
    /// cached text is checked against).
    pub offset: u64,
    pub header_hash: u64,
    pub with_text: bool,
    /// The summary at `stamp`, without its path and text; `None` when the
    /// file is no session.
    pub listing: Option<SessionSummary>,
    #[serde(with = "lazy_state")]
    state: LazyState,
}

enum LazyState {
    /// As the cache file holds it (postcard), decoded on first use.
    /// (Boxed: a state is large, and most records never need theirs.)
    Encoded(Vec<u8>, std::sync::OnceLock<Option<Box<SummaryState>>>),
    Decoded(Box<SummaryState>),
}

impl Record {
    /// The reading state (`None` if it does not decode: read the file again).
    pub(crate) fn state(&self) -> Option<&SummaryState> {
        match &self.state {
            LazyState::Decoded(s) => Some(s),
            LazyState::Encoded(bytes, decoded) => decoded
                .get_or_init(|| postcard::from_bytes(bytes).ok().map(Box::new))
                .as_deref(),
        }
    }

    /// Whether everything in the file at `stamp` was read (no line waiting
    /// for its newline).
    pub(crate) fn complete(&self) -> bool {
        self.offset == self.stamp.size
    }
}

/// A state as the summaries file holds it: its postcard bytes, as one
/// byte string (kept as read, decoded on first use).
mod lazy_state {
    use super::LazyState;
    use serde::{Deserialize, Deserializer, Serializer, ser::Error};

    pub fn serialize<S: Serializer>(state: &LazyState, s: S) -> Result<S::Ok, S::Error> {
        match state {
            LazyState::Encoded(bytes, _) => s.serialize_bytes(bytes),
            LazyState::Decoded(state) => {
                s.serialize_bytes(&postcard::to_stdvec(state).map_err(S::Error::custom)?)
            }
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<LazyState, D::Error> {
        let bytes = serde_bytes::ByteBuf::deserialize(d)?.into_vec();
        Ok(LazyState::Encoded(bytes, std::sync::OnceLock::new()))
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

struct TextEntry {
    offset: u64,
    header_hash: u64,
    body: TextBody,
}

enum TextBody {
    /// In the texts file (absolute spans).
    Stored { folded: Span, original: Span },
    /// Read in this run, not saved yet.
    Owned(String),
}

#[derive(Default)]
struct Texts {
    file: Option<Arc<std::fs::File>>,
    entries: HashMap<PathBuf, TextEntry>,
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

/// The records of the summaries file, by path; none when it is missing,
/// damaged, of another format, or not a regular file (a FIFO there would
/// block a read for ever; the next save renames a new file over it).
fn read_records(path: &Path) -> Records {
    let Ok(bytes) = read_regular(path) else {
        return Records::default();
    };
    let Some(payload) = ENVELOPE.payload(&bytes) else {
        return Records::default();
    };
    let mut de = postcard::Deserializer::from_bytes(payload);
    serde::Deserializer::deserialize_seq(&mut de, RecordsVisitor).unwrap_or_default()
}

/// Decodes the records straight into the map, sized once (a `Vec` first
/// would hold every record twice and grow on the way).
struct RecordsVisitor;

impl<'de> serde::de::Visitor<'de> for RecordsVisitor {
    type Value = Records;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("the catalog's records")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // The length comes from a checksummed file; bounded all the same.
        let mut map = Records::with_capacity_and_hasher(
            seq.size_hint().unwrap_or(0).min(1 << 20),
            Default::default(),
        );
        while let Some(r) = seq.next_element::<Record>()? {
            map.insert(r.path.clone().into_os_string(), r);
        }
        Ok(map)
    }
}

fn write_envelope<T: Serialize>(path: &Path, records: Vec<T>) -> std::io::Result<()> {
    let payload = postcard::to_stdvec(&records).map_err(std::io::Error::other)?;
    ENVELOPE.write(path, &payload)
}

const ENVELOPE: Envelope = Envelope {
    magic: MAGIC,
    format: FORMAT,
};

/// The frame of a cache file that is one checksummed payload: its magic,
/// format (u32), the payload's length (u64) and xxh3 (u64), little-endian,
/// then the payload.
pub(crate) struct Envelope {
    pub(crate) magic: &'static [u8; 8],
    pub(crate) format: u32,
}

impl Envelope {
    const HEADER_LEN: usize = 8 + 4 + 8 + 8;

    /// The payload of `bytes` when the frame checks out: this magic and
    /// format, the whole length, the hash.
    pub(crate) fn payload<'a>(&self, bytes: &'a [u8]) -> Option<&'a [u8]> {
        let (header, payload) = bytes.split_at_checked(Self::HEADER_LEN)?;
        let (magic, rest) = header.split_at(self.magic.len());
        let (format, rest) = rest.split_at(4);
        let (len, hash) = rest.split_at(8);
        let ok = magic == self.magic
            && u32::from_le_bytes(format.try_into().ok()?) == self.format
            && u64::from_le_bytes(len.try_into().ok()?) == payload.len() as u64
            && u64::from_le_bytes(hash.try_into().ok()?) == xxhash_rust::xxh3::xxh3_64(payload);
        ok.then_some(payload)
    }

    /// Writes `payload`, framed, to a new file beside `path` and renames it
    /// over: whatever was at `path` (a torn file, a FIFO) is replaced, never
    /// written through.
    pub(crate) fn write(&self, path: &Path, payload: &[u8]) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(Self::HEADER_LEN + payload.len());
        bytes.extend_from_slice(self.magic);
        bytes.extend_from_slice(&self.format.to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(payload).to_le_bytes());
        bytes.extend_from_slice(payload);
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        tmp.write_all(&bytes)?;
        tmp.as_file().sync_all()?;
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
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
        self.records = read_records(&dir.join(INDEX_FILE));
    }

    /// What the cache knows of `path` (after [`Cache::read_summaries`]).
    pub(crate) fn get(&self, path: &Path) -> Option<&Record> {
        debug_assert!(self.summaries_read || self.dir.is_none());
        self.records.get(path.as_os_str())
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
        let t = texts.entries.get(path)?;
        if t.offset != offset || t.header_hash != header_hash {
            return None;
        }
        Some(Arc::new(match &t.body {
            TextBody::Stored { folded, original } => MessageText::stored(Stored::new(
                texts.file.clone()?,
                folded.clone(),
                original.clone(),
                path.to_path_buf(),
                reread,
            )),
            TextBody::Owned(s) => MessageText::new(s.clone()),
        }))
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

    /// Records what a read of `path` found.
    pub(crate) fn put(
        &mut self,
        path: &Path,
        stamp: FileStamp,
        state: SummaryState,
        prefix: PrefixPrint,
    ) {
        if self.dir.is_none() {
            return;
        }
        self.read_summaries();
        self.index_dirty = true;
        self.texts_dirty |= state.with_text;
        if state.with_text {
            self.load_texts();
        }
        if let Some(texts) = self.texts.as_mut().filter(|_| state.with_text) {
            texts.entries.insert(
                path.to_path_buf(),
                TextEntry {
                    offset: state.offset,
                    header_hash: state.header_hash,
                    body: TextBody::Owned(state.text.clone()),
                },
            );
        }
        self.records.insert(
            path.as_os_str().to_os_string(),
            Record {
                path: path.to_path_buf(),
                stamp,
                prefix,
                offset: state.offset,
                header_hash: state.header_hash,
                with_text: state.with_text,
                listing: state.summary(PathBuf::new(), stamp.size, stamp.mtime_ms(), None),
                state: LazyState::Decoded(Box::new(state)),
            },
        );
    }

    /// Forgets files under `dir` that are no longer there.
    pub(crate) fn forget_missing_under(&mut self, dir: &Path, present: &dyn Fn(&Path) -> bool) {
        self.read_summaries();
        let gone: Vec<PathBuf> = self
            .records
            .values()
            // The set lookup first: comparing paths walks their components.
            .filter(|r| !present(&r.path) && r.path.starts_with(dir))
            .map(|r| r.path.clone())
            .collect();
        for p in gone {
            self.records.remove(p.as_os_str());
            if let Some(t) = &mut self.texts {
                t.entries.remove(&p);
                self.texts_dirty = true;
            }
            self.index_dirty = true;
        }
    }

    /// Writes what changed. Errors are returned for reporting; the cache is
    /// only an accelerator.
    pub fn save(&mut self) -> std::io::Result<()> {
        let Some(dir) = self.dir.clone() else {
            return Ok(());
        };
        if self.texts_dirty {
            if let Some(texts) = &self.texts {
                write_texts(&dir.join(TEXT_FILE), texts)?;
            }
            self.texts_dirty = false;
        }
        if self.index_dirty {
            write_envelope(&dir.join(INDEX_FILE), self.records.values().collect())?;
            self.index_dirty = false;
        }
        Ok(())
    }
}

/// Opens the texts file and reads its table; `None` when it is missing,
/// damaged, of another format, or not a regular file. The texts stay on
/// disk, read by position when searched.
fn open_texts(path: &Path) -> Option<Texts> {
    let file = crate::session::file::open_regular(path).ok()?;
    let file_len = file.metadata().ok()?.len();
    let mut header = [0u8; HEADER_LEN];
    let read = |buf: &mut [u8], at: u64| read_exact_at(&file, buf, at).then_some(());
    read(&mut header, 0)?;
    let (magic, h) = header.split_at(MAGIC.len());
    let (format, h) = h.split_at(4);
    let (len, hash) = h.split_at(8);
    let table_len = u64::from_le_bytes(len.try_into().ok()?);
    if magic != MAGIC
        || u32::from_le_bytes(format.try_into().ok()?) != FORMAT
        || table_len > file_len.saturating_sub(HEADER_LEN as u64)
    {
        return None;
    }
    let mut table = vec![0u8; usize::try_from(table_len).ok()?];
    read(&mut table, HEADER_LEN as u64)?;
    if u64::from_le_bytes(hash.try_into().ok()?) != xxhash_rust::xxh3::xxh3_64(&table) {
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
    let mut entries = HashMap::with_capacity(records.len());
    for r in records {
        let (Some(folded), Some(original)) = (absolute(r.folded), absolute(r.original)) else {
            return None;
        };
        entries.insert(
            r.path,
            TextEntry {
                offset: r.offset,
                header_hash: r.header_hash,
                body: TextBody::Stored { folded, original },
            },
        );
    }
    Some(Texts {
        file: Some(Arc::new(file)),
        entries,
    })
}

/// Writes the texts file (see [`TextRecord`]) beside `path` and renames it
/// over. Texts carried over from the old file are copied as they lie, once
/// their hashes are checked (a damaged or vanished one is left out, read
/// again next time); new ones are folded here, once. Texts are written in
/// the order of the table, which goes first: each is read (or folded) and
/// checked before the table is written, one at a time, so what is held at
/// once is the table and one text, not the whole file.
fn write_texts(path: &Path, texts: &Texts) -> std::io::Result<()> {
    let mut records = Vec::with_capacity(texts.entries.len());
    let mut buf = Vec::new();
    // Pass one: which texts are intact, and their spans (relative).
    let mut folded_at = 0u64;
    // (path, entry, folded span, the folded text of a new one)
    let mut kept: Vec<(&PathBuf, &TextEntry, Span, Option<String>)> =
        Vec::with_capacity(texts.entries.len());
    for (p, e) in &texts.entries {
        let (folded, new) = match &e.body {
            TextBody::Stored { folded, original } => {
                let Some(file) = &texts.file else { continue };
                if !read_span(file, original, &mut buf) || !read_span(file, folded, &mut buf) {
                    continue;
                }
                let span = Span {
                    start: folded_at,
                    ..folded.clone()
                };
                (span, None)
            }
            TextBody::Owned(s) => {
                let f = crate::jstext::normalize_whitespace_lower(s);
                (Span::over(folded_at, f.as_bytes()), Some(f))
            }
        };
        folded_at += folded.len;
        kept.push((p, e, folded, new));
    }
    let mut original_at = folded_at;
    for (p, e, folded, _) in kept.iter() {
        let original = match &e.body {
            TextBody::Stored { original, .. } => Span {
                start: original_at,
                ..original.clone()
            },
            TextBody::Owned(s) => Span::over(original_at, s.as_bytes()),
        };
        original_at += original.len;
        records.push(TextRecord {
            path: (*p).clone(),
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
        w.write_all(MAGIC)?;
        w.write_all(&FORMAT.to_le_bytes())?;
        w.write_all(&(table.len() as u64).to_le_bytes())?;
        w.write_all(&xxhash_rust::xxh3::xxh3_64(&table).to_le_bytes())?;
        w.write_all(&table)?;
        // Pass two: the bytes, each checked again as it is copied (a text
        // that changed since pass one leaves the file unusable, not wrong:
        // its hashes are those of pass one).
        for folded in [true, false] {
            for (_, e, _, new) in &kept {
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
                    TextBody::Owned(_) if folded => {
                        w.write_all(new.as_deref().unwrap_or_default().as_bytes())?;
                    }
                    TextBody::Owned(s) => w.write_all(s.as_bytes())?,
                }
            }
        }
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
