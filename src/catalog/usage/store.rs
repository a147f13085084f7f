//! The usage cache, beside the catalog's, in two files:
//!
//! - `usage-records.bin`: each file's records keyed by its absolute path,
//!   size, mtime, inode and ctime, so an unchanged file is never read again for
//!   its usage;
//! - `usage-book.bin`: the last book (every session's records folded, with
//!   their owners decided) and the stamps of the very files it was made
//!   from. When the sessions folder holds those files unchanged, the book
//!   is taken as it was, and the records are not even opened.
//!
//! Same safety rules as the catalog's cache: written to a temp file and
//! renamed over (concurrent piscopes never leave a torn file), checksummed
//! (a damaged or foreign file is ignored and rebuilt, never believed), and
//! read only when it is a regular file.

use super::{FileUsage, SessionUsage};
use crate::catalog::cache::envelope::Envelope;
use crate::catalog::discover::{FileStamp, SessionsFolder};
use crate::session::read::file::read_regular;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The records file's frame (magic, format, length, xxh3) around its
/// payload (postcard). Bump the format when the layout or the meaning of a
/// cached field changes.
const RECORDS: Envelope = Envelope {
    magic: b"piscopeU",
    format: 6,
};
const BOOK: Envelope = Envelope {
    magic: b"piscopeB",
    format: 4,
};
pub(super) const FILE_NAME: &str = "usage-records.bin";
const BOOK_FILE: &str = "usage-book.bin";

#[derive(Serialize, Deserialize)]
struct Stored {
    path: PathBuf,
    stamp: FileStamp,
    usage: FileUsage,
}

#[derive(Serialize)]
struct StoredRef<'a> {
    path: &'a Path,
    stamp: FileStamp,
    usage: &'a FileUsage,
}

/// A book and what it was made from.
#[derive(Serialize, Deserialize)]
struct Book {
    /// The sessions folder as given and the folder it was seen from (a
    /// relative folder names another one elsewhere).
    dir: PathBuf,
    cwd: PathBuf,
    /// Every file found there, in the order found, with its stamp.
    files: Vec<(PathBuf, FileStamp)>,
    sessions: Vec<SessionUsage>,
}

#[derive(Serialize)]
struct BookRef<'a> {
    dir: &'a Path,
    cwd: &'a Path,
    files: &'a [(PathBuf, FileStamp)],
    sessions: &'a [SessionUsage],
}

struct Kept {
    stamp: FileStamp,
    usage: Arc<FileUsage>,
}

/// The usage cache, opened; each file is read when first needed.
#[derive(Default)]
pub struct UsageCache {
    dir: Option<PathBuf>,
    /// Keyed by absolute path (`None` until read).
    files: Option<HashMap<PathBuf, Kept>>,
    files_dirty: bool,
    /// A book to write at the next save.
    book: Option<Vec<u8>>,
}

/// The key of a file: its absolute path, so a folder named relatively and
/// absolutely shares its entries.
fn key(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

impl UsageCache {
    /// A cache that keeps nothing (`--no-cache`).
    pub fn disabled() -> UsageCache {
        UsageCache::default()
    }

    /// The cache kept in `dir` (the catalog's cache folder).
    pub fn open(dir: PathBuf) -> UsageCache {
        UsageCache {
            dir: Some(dir),
            ..UsageCache::default()
        }
    }

    fn files(&mut self) -> &mut HashMap<PathBuf, Kept> {
        let dir = self.dir.as_deref();
        self.files.get_or_insert_with(|| {
            let Some(dir) = dir else {
                return HashMap::new();
            };
            let bytes = read_regular(&dir.join(FILE_NAME)).unwrap_or_default();
            let stored = RECORDS
                .payload(&bytes)
                .and_then(|p| postcard::from_bytes::<Vec<Stored>>(p).ok())
                .unwrap_or_default();
            stored
                .into_iter()
                .map(|s| {
                    let kept = Kept {
                        stamp: s.stamp,
                        usage: Arc::new(s.usage),
                    };
                    (s.path, kept)
                })
                .collect()
        })
    }

    /// The records of `path` when they were read from this very version.
    pub(super) fn get(&mut self, path: &Path, stamp: FileStamp) -> Option<Arc<FileUsage>> {
        self.dir.as_ref()?;
        let k = self.files().get(&key(path))?;
        (k.stamp == stamp).then(|| k.usage.clone())
    }

    pub(super) fn put(&mut self, path: &Path, stamp: FileStamp, usage: Arc<FileUsage>) {
        if self.dir.is_some() {
            self.files().insert(key(path), Kept { stamp, usage });
            self.files_dirty = true;
        }
    }

    /// Forgets files under `dir` that are not among `present`.
    pub(super) fn forget_missing_under(&mut self, dir: &Path, present: &[&Path]) {
        if self.dir.is_none() {
            return;
        }
        let dir = key(dir);
        let present: rustc_hash::FxHashSet<PathBuf> = present.iter().map(|p| key(p)).collect();
        let files = self.files();
        let before = files.len();
        files.retain(|p, _| !p.starts_with(&dir) || present.contains(p));
        self.files_dirty |= files.len() != before;
    }

    /// The book kept for `folder` when it was made from exactly `files`.
    pub(super) fn kept_book(
        &self,
        folder: &SessionsFolder,
        files: &[(PathBuf, FileStamp)],
    ) -> Option<Vec<SessionUsage>> {
        let dir = self.dir.as_ref()?;
        let bytes = read_regular(&dir.join(BOOK_FILE)).ok()?;
        let book: Book = postcard::from_bytes(BOOK.payload(&bytes)?).ok()?;
        (book.dir == folder.dir && book.cwd == folder.cwd && book.files == files)
            .then_some(book.sessions)
    }

    /// Keeps `sessions` as the book made from `files` in `folder`.
    pub(super) fn keep_book(
        &mut self,
        folder: &SessionsFolder,
        files: Vec<(PathBuf, FileStamp)>,
        sessions: &[SessionUsage],
    ) {
        if self.dir.is_none() {
            return;
        }
        let book = BookRef {
            dir: &folder.dir,
            cwd: &folder.cwd,
            files: &files,
            sessions,
        };
        // A book that cannot be written down (a path that is not UTF-8)
        // is made again next time.
        self.book = postcard::to_stdvec(&book).ok();
    }

    /// Writes what changed; an error is only reported (the cache only
    /// makes answers faster).
    /// The cache folder, when the cache is in use.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    pub fn save(&mut self) -> std::io::Result<()> {
        let Some(dir) = self.dir.clone() else {
            return Ok(());
        };
        if let (true, Some(files)) = (self.files_dirty, &self.files) {
            let stored: Vec<StoredRef> = files
                .iter()
                .map(|(path, k)| StoredRef {
                    path,
                    stamp: k.stamp,
                    usage: &k.usage,
                })
                .collect();
            RECORDS.write_streamed(&dir.join(FILE_NAME), |out| {
                postcard::to_io(&stored, out)
                    .map(drop)
                    .map_err(std::io::Error::other)
            })?;
            self.files_dirty = false;
        }
        if let Some(book) = self.book.take() {
            BOOK.write(&dir.join(BOOK_FILE), &book)?;
        }
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
            ctime_ns: 6,
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
        let mut again = UsageCache::open(dir.path().to_path_buf());
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
        let mut damaged = UsageCache::open(dir.path().to_path_buf());
        assert!(damaged.get(Path::new("/s/a.jsonl"), stamp(10)).is_none());
    }

    #[test]
    fn a_relative_path_and_its_absolute_one_are_one_entry() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut c = UsageCache::open(dir.path().to_path_buf());
        let usage = Arc::new(FileUsage {
            is_session: true,
            ..FileUsage::default()
        });
        c.put(Path::new("some/s.jsonl"), stamp(3), usage);
        let absolute = std::path::absolute("some/s.jsonl").expect("absolute");
        assert!(c.get(&absolute, stamp(3)).is_some());
        c.put(&absolute, stamp(3), Arc::new(FileUsage::default()));
        assert_eq!(c.files().len(), 1);
    }

    #[test]
    fn a_book_is_taken_only_for_the_files_it_was_made_from() {
        use crate::catalog::discover::{Layout, SessionsFolder};
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = SessionsFolder::at("/s".into(), Layout::PerProject, "/home".into());
        let files = vec![
            (PathBuf::from("/s/a.jsonl"), stamp(10)),
            (PathBuf::from("/s/b.jsonl"), stamp(20)),
        ];
        let session = SessionUsage::of(
            "/s/a.jsonl".into(),
            &FileUsage {
                is_session: true,
                cwd: "/p".into(),
                ..FileUsage::default()
            },
            &[],
            None,
        );
        let mut c = UsageCache::open(dir.path().to_path_buf());
        c.keep_book(&folder, files.clone(), std::slice::from_ref(&session));
        c.save().expect("save");
        let c = UsageCache::open(dir.path().to_path_buf());
        let got = c.kept_book(&folder, &files).expect("the same files");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].cwd, "/p");
        // One file changed, one gone, one more, or the order moved: made again.
        let mut changed = files.clone();
        changed[1].1 = stamp(21);
        assert!(c.kept_book(&folder, &changed).is_none());
        assert!(c.kept_book(&folder, &files[..1]).is_none());
        let mut more = files.clone();
        more.push((PathBuf::from("/s/c.jsonl"), stamp(1)));
        assert!(c.kept_book(&folder, &more).is_none());
        // Another folder, or the same relative folder seen from elsewhere.
        let other = SessionsFolder::at("/t".into(), Layout::PerProject, "/home".into());
        assert!(c.kept_book(&other, &files).is_none());
        let elsewhere = SessionsFolder::at("/s".into(), Layout::PerProject, "/tmp".into());
        assert!(c.kept_book(&elsewhere, &files).is_none());
    }
}
