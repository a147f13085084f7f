//! The catalog's on-disk cache: what each file's complete lines showed, keyed
//! by path, size, mtime and inode, so unchanged files are never read again.
//!
//! Two files in the user's cache folder: the summaries (small, read on every
//! start) and the searchable texts (large, read only when needed). Each is
//! written to a temp file and renamed over, so concurrent piscopes never
//! leave a torn cache; a damaged or foreign file is ignored and rebuilt.

use super::discover::FileStamp;
use super::summary::SummaryState;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Bump when the layout or the meaning of a cached field changes.
const FORMAT: u32 = 3;
const MAGIC: &str = "piscope-catalog";
const INDEX_FILE: &str = "catalog-summaries.bin";
const TEXT_FILE: &str = "catalog-texts.bin";

#[derive(Serialize, Deserialize)]
struct Envelope<T> {
    magic: String,
    format: u32,
    records: Vec<T>,
}

/// What the cache knows of one file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Record {
    pub path: PathBuf,
    pub stamp: FileStamp,
    pub state: SummaryState,
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

fn read_envelope<T: for<'de> Deserialize<'de>>(path: &Path) -> Vec<T> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    match postcard::from_bytes::<Envelope<T>>(&bytes) {
        Ok(e) if e.magic == MAGIC && e.format == FORMAT => e.records,
        _ => Vec::new(),
    }
}

fn write_envelope<T: Serialize>(path: &Path, records: Vec<T>) -> std::io::Result<()> {
    let env = Envelope {
        magic: MAGIC.to_string(),
        format: FORMAT,
        records,
    };
    let bytes = postcard::to_stdvec(&env).map_err(std::io::Error::other)?;
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
    pub(crate) fn put(&mut self, path: &Path, stamp: FileStamp, state: &SummaryState) {
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
