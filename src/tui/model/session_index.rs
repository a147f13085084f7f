//! A session's stored index, so the browser opens a large session without
//! reading it: the session at outline depth and its rows' columns (see
//! [`LoadedSession`]), one checksummed file per session in the cache
//! folder. Opening reads the index and then only what was appended since;
//! the rows on screen and the preview read their lines from the session.
//!
//! An index never answers for a file it was not made from: it names the
//! file's path, device and inode; a file that is shorter than what was
//! read, or the same length with a new change time (rewritten in place),
//! or whose first bytes, header or sampled prefix differ, is read again in
//! full. Only sessions of [`MIN_BYTES`] or more are indexed (smaller ones
//! read as fast as an index), and the [`KEEP`] most recently opened are
//! kept.

use crate::catalog::cache::envelope::Envelope;
use crate::catalog::discover::FileStamp;
use crate::session::line::facts::UsageTotals;
use crate::session::read::chunked::{self, Piece, Section};
use crate::session::stored::{Stored, StoredRef};
use crate::session::{Detail, Refresh, Session};
use crate::tui::model::loaded::{Calls, LoadedSession, RowColumns, RowKind, RowTexts};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The frame of an index file. The format changes with any change to what
/// the entry types keep (a test pins the layout).
const ENVELOPE: Envelope = Envelope {
    magic: b"PISCSIDX",
    format: 9,
};

/// Sessions smaller than this are read whole each time.
pub const MIN_BYTES: u64 = 4 << 20;

/// How many indexes are kept; the least recently opened go first.
pub const KEEP: usize = 24;

/// Where the indexes live in the cache folder.
pub fn folder(cache: &Path) -> PathBuf {
    cache.join("session-index")
}

/// The index file of the session at `path`.
fn file_of(cache: &Path, path: &Path) -> PathBuf {
    let hash = xxhash_rust::xxh3::xxh3_64(&path_bytes(path));
    folder(cache).join(format!("{hash:016x}.bin"))
}

fn path_bytes(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().into_owned().into_bytes()
    }
}

#[derive(Serialize)]
struct PayloadRef<'a> {
    #[serde(with = "serde_bytes")]
    path: &'a [u8],
    home: Option<&'a str>,
    stamp: FileStamp,
    /// Where the rows' texts start after the entries, and their chunks.
    texts_from: u64,
    texts: Vec<Piece>,
    kinds: &'a [RowKind],
    bare: &'a [bool],
    usage: &'a [(u32, UsageTotals)],
    #[serde(with = "serde_bytes")]
    calls: &'a [u8],
}

#[derive(Deserialize)]
struct Payload {
    #[serde(with = "serde_bytes")]
    path: Vec<u8>,
    home: Option<String>,
    stamp: FileStamp,
    texts_from: u64,
    texts: Vec<Piece>,
    #[serde(deserialize_with = "crate::par::big_seq::deserialize")]
    kinds: Vec<RowKind>,
    #[serde(deserialize_with = "crate::par::big_seq::deserialize")]
    bare: Vec<bool>,
    usage: Vec<(u32, UsageTotals)>,
    #[serde(with = "serde_bytes")]
    calls: Vec<u8>,
}

/// A session opened from its index.
pub struct Opened {
    pub loaded: LoadedSession,
    /// Bytes read from the session because they were appended after the
    /// index was written.
    pub read_on: u64,
}

/// The session at `path` from its index in `cache`, read on to the file's
/// end; `None` when there is no index for it or the index no longer fits
/// the file (then the file must be read in full).
pub fn load(cache: &Path, path: &Path, home: Option<&str>) -> Option<Opened> {
    let index = file_of(cache, path);
    let file = std::fs::File::open(&index).ok()?;
    let bytes = map(&file)?;
    let (meta, body) = ENVELOPE.trailed(&bytes)?;
    // The session's parts and the rows' columns, each on a core.
    let (session, rows) = meta.split_last_chunk::<8>()?;
    let (session, rows) =
        session.split_at_checked(usize::try_from(u64::from_le_bytes(*rows)).ok()?)?;
    // The rows' texts are checked now, beside: the rows they make cannot be
    // read again from the session (a damaged entry is: see `Entries`).
    let (stored, payload) = crate::par::beside(
        "piscope-index",
        || postcard::from_bytes::<Stored>(session).ok(),
        || {
            let p = postcard::from_bytes::<Payload>(rows).ok()?;
            let base = (body.start as u64).checked_add(p.texts_from)?;
            chunked::sound(&p.texts, base, &bytes).then_some(p)
        },
    );
    // SAFETY: `map` maps the index read-only, and piscope never changes an
    // index where it lies (see `map`); what was decoded owns its data.
    unsafe { crate::par::release_mapped(meta) };
    let (stored, payload) = (stored.flatten()?, payload?);
    if payload.path != path_bytes(path) || payload.home.as_deref() != home {
        return None;
    }
    let now = FileStamp::of(&std::fs::metadata(path).ok()?);
    let was = payload.stamp;
    let same_file = (now.device, now.inode) == (was.device, was.inode);
    let rewritten = now.size == was.size && now != was;
    if !same_file || rewritten || now.size < stored.read_to() {
        return None;
    }
    // The entries and the rows' texts stay in the index until used, read
    // from this file: the entries first in its body, then the texts.
    let (base, len) = (body.start as u64, body.len() as u64);
    let split = payload.texts_from;
    let texts = Section {
        file: file.try_clone().ok()?,
        base: base + split,
        len: len.checked_sub(split)?,
    };
    // SAFETY: as above.
    unsafe { crate::par::release_mapped(&bytes[body.clone()]) };
    drop(bytes);
    let columns = RowColumns {
        texts: RowTexts::stored(texts, payload.texts, payload.kinds.len())?,
        kinds: payload.kinds,
        bare: payload.bare,
        usage: payload.usage,
        calls: Calls::Stored(payload.calls),
    };
    let entries = Section {
        file,
        base,
        len: split,
    };
    let mut session = Session::from_stored(path.to_path_buf(), stored, entries)?;
    if !columns.fits(session.entries.len()) {
        return None;
    }
    let read_to = session.read_to;
    let loaded = match session.refresh().ok()? {
        Refresh::Unchanged => LoadedSession::with_columns(session, columns),
        Refresh::Appended(_) => LoadedSession::read_on(columns, session, home).ok()?,
        Refresh::Reloaded => return None,
    };
    // The index's bytes and what reading them left over.
    crate::tui::model::sessions::release_freed_memory();
    // Opened now: the last to go.
    let _ = std::fs::File::options()
        .write(true)
        .open(&index)
        .and_then(|f| f.set_modified(std::time::SystemTime::now()));
    let read_on = loaded.session.read_to.saturating_sub(read_to);
    Some(Opened { loaded, read_on })
}

/// Whether `loaded` is worth an index: a session at outline depth (not a
/// legacy one) of [`MIN_BYTES`] or more.
pub fn worth_keeping(loaded: &LoadedSession) -> bool {
    loaded.session.detail == Detail::Outline && loaded.session.read_to >= MIN_BYTES
}

/// Writes the index of `loaded` into `cache` (beside, then renamed over),
/// then lets only the [`KEEP`] most recently opened indexes stay.
pub fn save(cache: &Path, loaded: &LoadedSession, home: Option<&str>) -> std::io::Result<()> {
    let s = &loaded.session;
    let Some(mut session) = s.stored() else {
        return Ok(());
    };
    // The file as it is now: the index says what it was made from.
    let stamp = FileStamp::of(&std::fs::metadata(&s.path)?);
    let path = path_bytes(&s.path);
    let rows = &loaded.columns;
    let calls = rows.calls.stored();
    let index = file_of(cache, &s.path);
    // The entries and the rows' texts first, then what says where they lie
    // (see `meta`).
    ENVELOPE.write_trailed(&index, |w| {
        session.write_entries(w)?;
        let payload = PayloadRef {
            path: &path,
            home,
            stamp,
            texts_from: session.entries_len(),
            texts: rows.texts.write_chunks(w)?,
            kinds: &rows.kinds,
            bare: &rows.bare,
            usage: &rows.usage,
            calls: &calls,
        };
        meta(&session, &payload).map_err(std::io::Error::other)
    })?;
    keep_newest(&folder(cache), KEEP);
    Ok(())
}

/// An index's checked payload: the session's stored parts, then the rows'
/// columns, then where the second starts (u64, little-endian), so that
/// each is read on a core of its own.
fn meta(session: &StoredRef<'_>, rows: &PayloadRef<'_>) -> postcard::Result<Vec<u8>> {
    let mut meta = postcard::to_allocvec(session)?;
    let split = meta.len() as u64;
    meta.extend(postcard::to_allocvec(rows)?);
    meta.extend(split.to_le_bytes());
    Ok(meta)
}

/// The index `file`, mapped: its payload is read where it lies in the
/// page cache, not copied. Index files are only ever replaced (renamed
/// over), never written in place, so the mapped bytes stay as they were.
fn map(file: &std::fs::File) -> Option<memmap2::Mmap> {
    // SAFETY: the file is piscope's own, in its cache folder, and never
    // truncated or written where it lies (see above); a reader keeps the
    // file it opened even when a newer one takes its name.
    unsafe { memmap2::Mmap::map(file) }.ok()
}

/// Removes all but the `keep` most recently changed index files, and what
/// a writer stopped half way left behind (a temporary file an hour old).
fn keep_newest(dir: &Path, keep: usize) {
    let Ok(list) = std::fs::read_dir(dir) else {
        return;
    };
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    for e in list.flatten() {
        let Some(modified) = e.metadata().ok().and_then(|m| m.modified().ok()) else {
            continue;
        };
        if e.path().extension().is_some_and(|x| x == "bin") {
            files.push((modified, e.path()));
        } else if modified < hour_ago {
            let _ = std::fs::remove_file(e.path());
        }
    }
    if files.len() <= keep {
        return;
    }
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, f) in files.drain(keep..) {
        let _ = std::fs::remove_file(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What an index holds of a session is laid out as when its format was
    /// set: a change to the entry types, the rows' columns or the session's
    /// stored parts changes these bytes, and then [`ENVELOPE`]'s format
    /// must change with this hash, so an older index is refused, never
    /// misread.
    #[test]
    fn the_stored_layout_is_the_formats() {
        // The second has label entries (their info is written whole).
        let mut all = Vec::new();
        for path in [
            "tests/data/golden/corpus/sessions/--home-ada-src-compiler--/2026-01-11T07-13-55-973Z_019babe7-8705-76fa-aaa6-a3483b60438e.jsonl",
            "tests/data/golden/corpus/sessions/--home-ada-src-web-shop--/2026-01-11T06-52-19-195Z_019babd3-bd7b-76fa-aaa6-a343a710fcd7.jsonl",
        ] {
            all.extend(layout_of(Path::new(path)));
        }
        assert_eq!(
            (ENVELOPE.format, xxhash_rust::xxh3::xxh3_64(&all)),
            (9, 8691718162529764393),
            "the layout changed: raise ENVELOPE.format and set the new hash here"
        );
    }

    /// The index of the session at `path` as written, but for its stamp.
    fn layout_of(path: &Path) -> Vec<u8> {
        let loaded = LoadedSession::open(path, Some("/home/ada")).unwrap();
        let rows = &loaded.columns;
        let mut calls = rows.calls.stored();
        // The calls are a map: their order is not the layout's.
        let mut pairs: Vec<(String, crate::session::line::entry::ToolCall)> =
            postcard::from_bytes(&calls).unwrap();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        calls = postcard::to_allocvec(&pairs).unwrap();
        let mut session = loaded.session.stored().unwrap();
        let mut bytes = Vec::new();
        session.write_entries(&mut bytes).unwrap();
        let payload = PayloadRef {
            path: b"/s.jsonl",
            home: Some("/home/ada"),
            stamp: FileStamp {
                size: 1,
                mtime_ns: 2,
                inode: 3,
                device: 4,
                ctime_ns: 5,
            },
            texts_from: session.entries_len(),
            texts: rows.texts.write_chunks(&mut bytes).unwrap(),
            kinds: &rows.kinds,
            bare: &rows.bare,
            usage: &rows.usage,
            calls: &calls,
        };
        bytes.extend(meta(&session, &payload).unwrap());
        bytes
    }
}
