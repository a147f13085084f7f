//! The catalog's on-disk cache: what each file's complete lines showed, keyed
//! by path, size, mtime and inode, so unchanged files are never read again.
//!
//! Two files in the user's cache folder: the summaries (small, read on every
//! start) and the searchable texts (large, read only when needed). Each is
//! written to a temp file and renamed over, so concurrent piscopes never
//! leave a torn cache; each carries a checksum of its records, so a damaged
//! or foreign file (or anything but a regular file) is ignored and rebuilt,
//! never believed.

use super::discover::FileStamp;
use super::summary::SummaryState;
use crate::session::file::{PrefixPrint, read_regular};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Bump when the layout or the meaning of a cached field changes.
const FORMAT: u32 = 6;
/// A cache file: `MAGIC`, the format (u32), the length of the records
/// (u64) and their xxh3 hash (u64), little-endian, then the records
/// (postcard). A byte flipped anywhere fails one of these checks; postcard
/// alone would read many flips as other, wrong, values.
const MAGIC: &[u8; 8] = b"piscope\x01";
const HEADER_LEN: usize = MAGIC.len() + 4 + 8 + 8;
const INDEX_FILE: &str = "catalog-summaries.bin";
const TEXT_FILE: &str = "catalog-texts.bin";

/// What the cache knows of one file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Record {
    pub path: PathBuf,
    pub stamp: FileStamp,
    pub state: SummaryState,
    /// The bytes `state` was read from, checked before reading on.
    pub prefix: PrefixPrint,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct TextRecord {
    path: PathBuf,
    /// The state it belongs to: same offset and header.
    offset: u64,
    header_hash: u64,
    text: String,
}

/// The cache, loaded.
#[derive(Default)]
pub struct Cache {
    dir: Option<PathBuf>,
    records: HashMap<PathBuf, Record>,
    texts: Option<HashMap<PathBuf, TextRecord>>,
    index_dirty: bool,
    texts_dirty: bool,
}

/// The default cache folder (`~/.cache/piscope` on Linux).
pub fn default_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "piscope").map(|d| d.cache_dir().to_path_buf())
}

/// The records of a cache file; none when it is missing, damaged, of
/// another format, or not a regular file (a FIFO there would block a
/// read for ever; the next save renames a new file over it).
fn read_envelope<T: for<'de> Deserialize<'de>>(path: &Path) -> Vec<T> {
    let Ok(bytes) = read_regular(path) else {
        return Vec::new();
    };
    records_of(&bytes).unwrap_or_default()
}

fn records_of<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Option<Vec<T>> {
    let (header, payload) = bytes.split_at_checked(HEADER_LEN)?;
    let (magic, rest) = header.split_at(MAGIC.len());
    let (format, rest) = rest.split_at(4);
    let (len, hash) = rest.split_at(8);
    let ok = magic == MAGIC
        && u32::from_le_bytes(format.try_into().ok()?) == FORMAT
        && u64::from_le_bytes(len.try_into().ok()?) == payload.len() as u64
        && u64::from_le_bytes(hash.try_into().ok()?) == xxhash_rust::xxh3::xxh3_64(payload);
    if !ok {
        return None;
    }
    postcard::from_bytes::<Vec<T>>(payload).ok()
}

fn bytes_of<T: Serialize>(records: &[T]) -> std::io::Result<Vec<u8>> {
    let payload = postcard::to_stdvec(records).map_err(std::io::Error::other)?;
    let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    Ok(bytes)
}

/// Writes a new file beside `path` and renames it over: whatever was at
/// `path` (a torn file, a FIFO) is replaced, never written through.
fn write_envelope<T: Serialize>(path: &Path, records: Vec<T>) -> std::io::Result<()> {
    let bytes = bytes_of(&records)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(&bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
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

    /// Loads the summaries kept in `dir` (texts are loaded on demand).
    pub fn open(dir: PathBuf) -> Cache {
        let records = read_envelope::<Record>(&dir.join(INDEX_FILE))
            .into_iter()
            .map(|r| (r.path.clone(), r))
            .collect();
        Cache {
            dir: Some(dir),
            records,
            ..Cache::default()
        }
    }

    pub(crate) fn get(&self, path: &Path) -> Option<&Record> {
        self.records.get(path)
    }

    /// The cached text for `state`, if the cache has it for that very state.
    pub(crate) fn text(&mut self, path: &Path, state: &SummaryState) -> Option<String> {
        self.load_texts();
        let t = self.texts.as_ref()?.get(path)?;
        (t.offset == state.offset && t.header_hash == state.header_hash).then(|| t.text.clone())
    }

    fn load_texts(&mut self) {
        if self.texts.is_none() {
            let texts = match &self.dir {
                Some(dir) => read_envelope::<TextRecord>(&dir.join(TEXT_FILE))
                    .into_iter()
                    .map(|r| (r.path.clone(), r))
                    .collect(),
                None => HashMap::new(),
            };
            self.texts = Some(texts);
        }
    }

    /// Records what a read of `path` found.
    pub(crate) fn put(
        &mut self,
        path: &Path,
        stamp: FileStamp,
        state: &SummaryState,
        prefix: PrefixPrint,
    ) {
        if self.dir.is_none() {
            return;
        }
        if state.with_text {
            self.load_texts();
        }
        if let Some(texts) = self.texts.as_mut().filter(|_| state.with_text) {
            texts.insert(
                path.to_path_buf(),
                TextRecord {
                    path: path.to_path_buf(),
                    offset: state.offset,
                    header_hash: state.header_hash,
                    text: state.text.clone(),
                },
            );
        }
        self.records.insert(
            path.to_path_buf(),
            Record {
                path: path.to_path_buf(),
                stamp,
                state: state.clone(),
                prefix,
            },
        );
        self.index_dirty = true;
        self.texts_dirty |= state.with_text;
    }

    /// Forgets files under `dir` that are no longer there.
    pub(crate) fn forget_missing_under(&mut self, dir: &Path, present: &dyn Fn(&Path) -> bool) {
        let gone: Vec<PathBuf> = self
            .records
            .keys()
            .filter(|p| p.starts_with(dir) && !present(p))
            .cloned()
            .collect();
        for p in gone {
            self.records.remove(&p);
            if let Some(t) = &mut self.texts {
                t.remove(&p);
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
                write_envelope(&dir.join(TEXT_FILE), texts.values().cloned().collect())?;
            }
            self.texts_dirty = false;
        }
        if self.index_dirty {
            write_envelope(
                &dir.join(INDEX_FILE),
                self.records.values().cloned().collect(),
            )?;
            self.index_dirty = false;
        }
        Ok(())
    }
}
