//! The usage records' own cache file, beside the catalog's: each file's
//! records keyed by path, size, mtime and inode, so an unchanged file is
//! never read again for its usage.
//!
//! Same safety rules as the catalog's cache: written to a temp file and
//! renamed over (concurrent piscopes never leave a torn file), checksummed
//! (a damaged or foreign file is ignored and rebuilt, never believed), and
//! read only when it is a regular file.
//!
//! It also keeps who owned each record last time, with a fingerprint of
//! every session's path and stamp: when no file changed, the owners are
//! taken as they were, without hashing every record's key again.

use super::FileUsage;
use crate::catalog::cache::Envelope;
use crate::catalog::discover::FileStamp;
use crate::session::file::read_regular;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Bump when the layout or the meaning of a cached field changes.
const FORMAT: u32 = 3;
/// The catalog cache's frame (magic, format, length, xxh3) around the
/// payload (postcard).
const ENVELOPE: Envelope = Envelope {
    magic: b"piscopeU",
    format: FORMAT,
};
pub(super) const FILE_NAME: &str = "usage-records.bin";

#[derive(Serialize, Deserialize)]
struct Stored {
    path: PathBuf,
    stamp: FileStamp,
    usage: FileUsage,
    /// One bit per record, set where this file owned it (see [`Payload`]).
    owned: Option<Vec<u8>>,
}

#[derive(Serialize)]
struct StoredRef<'a> {
    path: &'a Path,
    stamp: FileStamp,
    usage: &'a FileUsage,
    owned: Option<&'a Vec<u8>>,
}

#[derive(Serialize, Deserialize)]
struct Payload {
    /// The fingerprint of the book whose owners the files' bits say.
    book: Option<u64>,
    files: Vec<Stored>,
}

#[derive(Serialize)]
struct PayloadRef<'a> {
    book: Option<u64>,
    files: Vec<StoredRef<'a>>,
}

struct Kept {
    stamp: FileStamp,
    usage: Arc<FileUsage>,
    owned: Option<Vec<u8>>,
}

/// The usage cache, loaded.
#[derive(Default)]
pub struct UsageCache {
    dir: Option<PathBuf>,
    files: HashMap<PathBuf, Kept>,
    book: Option<u64>,
    dirty: bool,
}

impl UsageCache {
    /// A cache that keeps nothing (`--no-cache`).
    pub fn disabled() -> UsageCache {
        UsageCache::default()
    }

    /// Loads what is kept in `dir` (the catalog's cache folder).
    pub fn open(dir: PathBuf) -> UsageCache {
        let bytes = read_regular(&dir.join(FILE_NAME)).unwrap_or_default();
        let payload = ENVELOPE
            .payload(&bytes)
            .and_then(|p| postcard::from_bytes::<Payload>(p).ok());
        let (book, files) = payload.map_or((None, Vec::new()), |p| (p.book, p.files));
        let files = files
            .into_iter()
            .map(|s| {
                let kept = Kept {
                    stamp: s.stamp,
                    usage: Arc::new(s.usage),
                    owned: s.owned,
                };
                (s.path, kept)
            })
            .collect();
        UsageCache {
            dir: Some(dir),
            files,
            book,
            dirty: false,
        }
    }

    /// The records of `path` when they were read from this very version.
    pub(super) fn get(&self, path: &Path, stamp: FileStamp) -> Option<Arc<FileUsage>> {
        let k = self.files.get(path)?;
        (k.stamp == stamp).then(|| k.usage.clone())
    }

    pub(super) fn put(&mut self, path: &Path, stamp: FileStamp, usage: Arc<FileUsage>) {
        if self.dir.is_some() {
            let kept = Kept {
                stamp,
                usage,
                owned: None,
            };
            self.files.insert(path.to_path_buf(), kept);
            self.dirty = true;
        }
    }

    /// Which of `path`'s records it owned in the book `fingerprint`, when
    /// that is the book kept.
    pub(super) fn owned(&self, fingerprint: u64, path: &Path) -> Option<Vec<bool>> {
        if self.book != Some(fingerprint) {
            return None;
        }
        let k = self.files.get(path)?;
        let bits = k.owned.as_ref()?;
        let n = k.usage.records.len();
        (bits.len() == n.div_ceil(8))
            .then(|| (0..n).map(|i| bits[i / 8] >> (i % 8) & 1 == 1).collect())
    }

    /// Keeps who owned what in the book `fingerprint`.
    pub(super) fn keep_owners<'a>(
        &mut self,
        fingerprint: u64,
        owners: impl Iterator<Item = (&'a Path, &'a [bool])>,
    ) {
        if self.dir.is_none() {
            return;
        }
        for k in self.files.values_mut() {
            k.owned = None;
        }
        for (path, owned) in owners {
            if let Some(k) = self.files.get_mut(path) {
                let mut bits = vec![0u8; owned.len().div_ceil(8)];
                for (i, _) in owned.iter().enumerate().filter(|(_, o)| **o) {
                    bits[i / 8] |= 1 << (i % 8);
                }
                k.owned = Some(bits);
            }
        }
        self.book = Some(fingerprint);
        self.dirty = true;
    }

    /// Forgets files under `dir` that are not in `present`.
    pub(super) fn forget_missing_under(&mut self, dir: &Path, present: &dyn Fn(&Path) -> bool) {
        let before = self.files.len();
        self.files.retain(|p, _| !p.starts_with(dir) || present(p));
        self.dirty |= self.files.len() != before;
    }

    /// Writes what changed; an error is only reported (the cache only
    /// makes answers faster).
    pub fn save(&mut self) -> std::io::Result<()> {
        let Some(dir) = self.dir.clone().filter(|_| self.dirty) else {
            return Ok(());
        };
        let files: Vec<StoredRef> = self
            .files
            .iter()
            .map(|(path, k)| StoredRef {
                path,
                stamp: k.stamp,
                usage: &k.usage,
                owned: k.owned.as_ref(),
            })
            .collect();
        let payload = PayloadRef {
            book: self.book,
            files,
        };
        let payload = postcard::to_stdvec(&payload).map_err(std::io::Error::other)?;
        ENVELOPE.write(&dir.join(FILE_NAME), &payload)?;
        self.dirty = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(size: u64) -> FileStamp {
        FileStamp {
            size,
            mtime_ns: 5,
            inode: 7,
            device: 1,
        }
    }

    #[test]
    fn keeps_what_it_saved_and_ignores_a_damaged_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut c = UsageCache::open(dir.path().to_path_buf());
        let record = super::super::UsageRecord {
            key: 9,
            time_ms: Some(-5),
            kind: super::super::RecordKind::Compaction,
            model: Some(1),
            spend: super::super::Spend {
                input: 1.0,
                output: 2.5,
                cache_read: 3.0,
                cache_write: 4.0,
                cost: 0.125,
                tokens: 10.5,
            },
            abandoned: true,
        };
        let usage = FileUsage {
            is_session: true,
            cwd: "/p".into(),
            records: vec![
                record,
                super::super::UsageRecord {
                    time_ms: None,
                    model: None,
                    abandoned: false,
                    kind: super::super::RecordKind::Assistant,
                    ..record
                },
            ],
            ..FileUsage::default()
        };
        c.put(Path::new("/s/a.jsonl"), stamp(10), Arc::new(usage.clone()));
        c.save().expect("save");
        let again = UsageCache::open(dir.path().to_path_buf());
        let got = again.get(Path::new("/s/a.jsonl"), stamp(10)).expect("kept");
        assert_eq!(got.cwd, "/p");
        assert_eq!(got.records, usage.records);
        // Another version of the file is not this one.
        assert!(again.get(Path::new("/s/a.jsonl"), stamp(11)).is_none());
        // One flipped byte and the whole file is ignored.
        let file = dir.path().join(FILE_NAME);
        let mut bytes = std::fs::read(&file).expect("read");
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&file, bytes).expect("write");
        let damaged = UsageCache::open(dir.path().to_path_buf());
        assert!(damaged.get(Path::new("/s/a.jsonl"), stamp(10)).is_none());
    }
}
