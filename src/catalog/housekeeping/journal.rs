//! piscope's journal of what it moved to the trash, and putting it back.
//!
//! Every file piscope trashes (a deleted session, one a clean-up took, the
//! original of a pruned session or of a moved project) gets one line in
//! `journal.jsonl` in piscope's data folder (`$XDG_DATA_HOME/piscope/`,
//! else `~/.local/share/piscope/` on Linux): when, where it lived, what was
//! given to the trash, its size, time, inode and xxh3, and why. The line is
//! written before the file moves (a failed trash leaves a line whose file
//! is not in the trash, which restore simply does not offer), in one append
//! that starts a line of its own; a line a crash tore is read past, named.
//!
//! Restoring finds the file in the trash (the freedesktop layout of the
//! home trash and of the trash at the top of the file's mount, each
//! `.trashinfo` read here as outside input) by the path it was trashed
//! from and its inode or its hash, and puts it back only where nothing is
//! in the way: a file at the old place is never replaced, except by the
//! original of a prune when the pruned file there is still exactly what the
//! prune wrote.

use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

const JOURNAL_FILE: &str = "journal.jsonl";

/// Why a file went to the trash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    Delete,
    Clean,
    Prune,
    MoveProject,
    /// A session moved into piscope's archive folder (not to the trash).
    Archive,
    /// An archived session moved back (not to the trash).
    Unarchive,
    /// The original of a session a branch was archived from.
    ArchiveBranch,
    /// A session as it was before an archived branch was grafted back.
    UnarchiveBranch,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Delete => "delete",
            Reason::Clean => "clean",
            Reason::Prune => "prune",
            Reason::MoveProject => "move-project",
            Reason::Archive => "archive",
            Reason::Unarchive => "unarchive",
            Reason::ArchiveBranch => "archive-branch",
            Reason::UnarchiveBranch => "unarchive-branch",
        }
    }

    /// The file went to the trash (an archive or unarchive record names a
    /// move between folders instead).
    pub fn trashes(self) -> bool {
        !matches!(self, Reason::Archive | Reason::Unarchive)
    }
}

/// One trashed file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Record {
    /// When, in ms since the epoch, and as ISO text.
    pub time_ms: i64,
    pub time: String,
    pub reason: Reason,
    /// Where the session lived: where restore puts it back.
    pub path: PathBuf,
    /// The path given to the trash, when not `path` (a prune's original
    /// goes by a second name in a hidden folder beside it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trashed_as: Option<PathBuf>,
    pub size: u64,
    pub mtime_ms: Option<i64>,
    #[serde(default)]
    pub dev: u64,
    #[serde(default)]
    pub ino: u64,
    /// xxh3 of the file's bytes, in hex.
    pub xxh3: String,
    /// After a prune: the size and xxh3 of the pruned file left at `path`;
    /// restore replaces it only while it is still exactly that.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<Left>,
    /// After a move or an archive: where the session (or the archived
    /// branch) went.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<PathBuf>,
    /// Shared by the records of one operation (the sessions one delete or
    /// one clean-up took): undo puts them back together. Older lines have
    /// none; each is then an operation of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<String>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Left {
    pub size: u64,
    pub xxh3: String,
}

impl Left {
    /// What a rewrite left in the original's place.
    pub fn of(new: crate::session::write::rewrite::Replacement) -> Left {
        Left {
            size: new.len,
            xxh3: format!("{:016x}", new.xxh3),
        }
    }
}

impl Record {
    /// The path the trash knows the file by.
    pub fn trashed_path(&self) -> &Path {
        self.trashed_as.as_deref().unwrap_or(&self.path)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("piscope has no data folder (no home folder); cannot keep its journal")]
    NoDataFolder,
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: line {line}: not a journal record ({why})")]
    Damaged {
        path: PathBuf,
        line: usize,
        why: String,
    },
    #[error("{path}: {why}; not restored")]
    Refused { path: PathBuf, why: String },
    #[error("{path}: not in the trash any more; not restored")]
    NotInTrash { path: PathBuf },
    #[error("{path}: the trash failed: {why}")]
    Trash { path: PathBuf, why: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> JournalError + '_ {
    move |source| JournalError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// piscope's data folder (`$XDG_DATA_HOME/piscope` on Linux).
pub fn data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "piscope").map(|d| d.data_dir().to_path_buf())
}

/// The journal's path.
pub fn journal_path() -> Option<PathBuf> {
    data_dir().map(|d| d.join(JOURNAL_FILE))
}

/// The facts of a file about to be trashed (it is read whole for its hash).
pub fn describe(
    path: &Path,
    reason: Reason,
    trashed_as: Option<&Path>,
) -> Result<Record, JournalError> {
    let read_from = trashed_as.unwrap_or(path);
    let mut f = File::open(read_from).map_err(io(read_from))?;
    let meta = f.metadata().map_err(io(read_from))?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(io(read_from))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let now = crate::jstext::date::now_ms();
    let (dev, ino) = identity(&meta);
    Ok(Record {
        time_ms: now,
        time: crate::jstext::date::format_iso(now),
        reason,
        path: path.to_path_buf(),
        trashed_as: trashed_as.map(Path::to_path_buf),
        size: meta.len(),
        mtime_ms: meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_millis() as i64),
        dev,
        ino,
        xxh3: format!("{:016x}", hasher.digest()),
        left: None,
        moved_to: None,
        batch: None,
    })
}

/// One operation that trashes files: why, and the id its records share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    pub reason: Reason,
    pub id: String,
}

impl Batch {
    /// A new operation, with an id of its own.
    pub fn new(reason: Reason) -> Batch {
        Batch {
            reason,
            id: format!("{:08x}{:08x}", rand_u32(), rand_u32()),
        }
    }
}

#[cfg(unix)]
fn identity(meta: &fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn identity(_meta: &fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// Appends one record, as one write of one line.
pub fn append(record: &Record) -> Result<(), JournalError> {
    let path = journal_path().ok_or(JournalError::NoDataFolder)?;
    append_to(&path, record)
}

fn append_to(path: &Path, record: &Record) -> Result<(), JournalError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(io(dir))?;
    }
    let mut line = serde_json::to_string(record).map_err(|e| JournalError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    line.push('\n');
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.read(true);
    let mut f = options.open(path).map_err(io(path))?;
    let meta = f.metadata().map_err(io(path))?;
    if !meta.is_file() {
        return Err(JournalError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other("not a regular file"),
        });
    }
    // A crash mid-write leaves a line without its newline; the record
    // appended next must not be glued onto it, so it starts a line of its
    // own (in the same write, so it lands whole or not at all).
    if meta.len() > 0 && !ends_in_newline(&mut f, meta.len()) {
        line.insert(0, '\n');
    }
    f.write_all(line.as_bytes()).map_err(io(path))?;
    f.sync_data().map_err(io(path))
}

fn ends_in_newline(f: &mut File, len: u64) -> bool {
    use std::io::{Seek, SeekFrom};
    let mut last = [0u8; 1];
    f.seek(SeekFrom::Start(len - 1)).is_ok() && f.read_exact(&mut last).is_ok() && last[0] == b'\n'
}

/// What the journal holds: every whole record, oldest first, and a note
/// for each line that is not one (a crash mid-write tears a line; the
/// records around it stay usable).
#[derive(Debug, Default)]
pub struct Contents {
    pub records: Vec<Record>,
    pub damaged: Vec<JournalError>,
}

/// Every record, oldest first. A missing journal is empty; a damaged line
/// is skipped and named in `damaged`.
pub fn read_all() -> Result<Contents, JournalError> {
    let Some(path) = journal_path() else {
        return Ok(Contents::default());
    };
    read_from(&path)
}

fn read_from(path: &Path) -> Result<Contents, JournalError> {
    let f = match crate::session::read::file::open_regular(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Contents::default()),
        Err(e) => return Err(io(path)(e)),
    };
    let mut out = Contents::default();
    // Lines as bytes: a torn line may end inside a character.
    for (n, line) in BufReader::new(f).split(b'\n').enumerate() {
        let line = line.map_err(io(path))?;
        if line.trim_ascii().is_empty() {
            continue;
        }
        match serde_json::from_slice(&line) {
            Ok(r) => out.records.push(r),
            Err(e) => out.damaged.push(JournalError::Damaged {
                path: path.to_path_buf(),
                line: n + 1,
                why: e.to_string(),
            }),
        }
    }
    Ok(out)
}

/// Records the file and moves it to the trash: `path` is where it lives
/// (what the journal remembers), `trashed_as` another name of it to give
/// the trash instead. Returns the record written.
pub fn trash_recorded(
    path: &Path,
    reason: Reason,
    trashed_as: Option<&Path>,
    fill: impl FnOnce(&mut Record),
) -> Result<Record, JournalError> {
    let mut record = describe(path, reason, trashed_as)?;
    fill(&mut record);
    append(&record)?;
    let target = record.trashed_path().to_path_buf();
    trash::delete(&target).map_err(|e| JournalError::Trash {
        path: target.clone(),
        why: e.to_string(),
    })?;
    Ok(record)
}

/// The original of a pruned session to the trash, recorded with what the
/// prune leaves in its place (the callback of `session::write::prune::prune`).
pub fn trash_pruned_original(
    o: crate::session::write::rewrite::Original<'_>,
) -> Result<Record, JournalError> {
    let left = Left::of(o.new);
    trash_recorded(o.real, Reason::Prune, Some(o.link), |r| r.left = Some(left))
}

/// A journal record whose file is in the trash now.
#[derive(Debug, Clone)]
pub struct InTrash {
    pub record: Record,
    /// The file inside the trash, and its `.trashinfo`.
    pub file: PathBuf,
    pub info: PathBuf,
}

/// What undo can offer: the records whose files are in the trash, and a
/// note for everything passed over on the way (a damaged journal line, a
/// trash entry whose `.trashinfo` does not read).
#[derive(Debug, Default)]
pub struct Found {
    pub items: Vec<InTrash>,
    pub skipped: Vec<String>,
}

/// The records whose files are still in the trash, oldest first (each
/// trashed file once: the latest record that names it).
pub fn in_trash() -> Result<Found, JournalError> {
    in_trash_of(|_| true)
}

/// [`in_trash`] of the records `keep` accepts; the trash is not even
/// listed when the journal holds none.
pub fn in_trash_of(keep: impl Fn(&Record) -> bool) -> Result<Found, JournalError> {
    let mut contents = read_all()?;
    let mut skipped: Vec<String> = contents
        .damaged
        .iter()
        .map(|e| format!("{e}; skipped"))
        .collect();
    contents.records.retain(|r| r.reason.trashes() && keep(r));
    if contents.records.is_empty() {
        return Ok(Found {
            items: Vec::new(),
            skipped,
        });
    }
    let items = trash_items(&contents.records, &mut skipped);
    let mut out: Vec<InTrash> = Vec::new();
    let mut taken: std::collections::HashSet<PathBuf> = Default::default();
    for record in contents.records.into_iter().rev() {
        let found = items.iter().find(|(original, file, _)| {
            original == record.trashed_path() && !taken.contains(file) && same_bytes(&record, file)
        });
        if let Some((_, file, info)) = found {
            taken.insert(file.clone());
            out.push(InTrash {
                record,
                file: file.clone(),
                info: info.clone(),
            });
        }
    }
    out.reverse();
    Ok(Found {
        items: out,
        skipped,
    })
}

/// Whether the file in the trash is the one recorded: the same inode on
/// the same device (a rename into the trash keeps it), else the same size
/// and hash (a trash on another device copied it).
fn same_bytes(record: &Record, file: &Path) -> bool {
    let Ok(meta) = fs::symlink_metadata(file) else {
        return false;
    };
    if !meta.is_file() || meta.len() != record.size {
        return false;
    }
    if (record.dev, record.ino) != (0, 0) && identity(&meta) == (record.dev, record.ino) {
        return true;
    }
    hash_of(file).is_some_and(|h| h == record.xxh3)
}

fn hash_of(path: &Path) -> Option<String> {
    let bytes = crate::session::read::file::read_regular(path).ok()?;
    Some(format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)))
}

/// Every item in the trash folders a recorded file can be in: its
/// original path, the file in the trash and its `.trashinfo`. The home
/// trash, and the trash at the top of the mount of each recorded file's
/// folder (where a file on another device is trashed). The `.trashinfo`
/// files are other programs' writing too: each is read here, defensively,
/// and one that does not read is skipped and noted, never trusted.
fn trash_items(records: &[Record], skipped: &mut Vec<String>) -> Vec<(PathBuf, PathBuf, PathBuf)> {
    let mut folders: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    if let Some(home) = home_trash() {
        folders.push((home, None));
    }
    let mut seen_dirs: std::collections::HashSet<PathBuf> = Default::default();
    for r in records {
        let Some(dir) = r.trashed_path().parent() else {
            continue;
        };
        if !seen_dirs.insert(dir.to_path_buf()) {
            continue;
        }
        if let Some(top) = top_of_mount(dir) {
            for t in topdir_trashes(&top) {
                if !folders.iter().any(|(f, _)| *f == t) {
                    folders.push((t, Some(top.clone())));
                }
            }
        }
    }
    let mut items = Vec::new();
    for (folder, top) in folders {
        let Ok(entries) = fs::read_dir(folder.join("info")) else {
            continue;
        };
        for e in entries.flatten() {
            let info = e.path();
            let Some(file) = file_of_info(&info) else {
                continue;
            };
            match original_of_info(&info) {
                Ok(original) => {
                    let original = match &top {
                        Some(top) if original.is_relative() => top.join(original),
                        _ => original,
                    };
                    if original.is_absolute() {
                        items.push((original, file, info));
                    }
                }
                Err(why) => skipped.push(format!(
                    "{}: not a trash record ({why}); skipped",
                    info.display()
                )),
            }
        }
    }
    items
}

/// `Trash/info/NAME.trashinfo` → `Trash/files/NAME`.
fn file_of_info(info: &Path) -> Option<PathBuf> {
    let name = info.file_name()?.to_str()?.strip_suffix(".trashinfo")?;
    Some(info.parent()?.parent()?.join("files").join(name))
}

/// The home trash as the freedesktop specification lays it out.
fn home_trash() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("Trash"))
}

/// The highest folder above `dir` on the same device: the top of its mount.
#[cfg(unix)]
fn top_of_mount(dir: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let dev = fs::metadata(dir).ok()?.dev();
    let mut top = dir;
    while let Some(up) = top.parent() {
        if fs::metadata(up).map(|m| m.dev()).ok() != Some(dev) {
            break;
        }
        top = up;
    }
    Some(top.to_path_buf())
}

#[cfg(not(unix))]
fn top_of_mount(_dir: &Path) -> Option<PathBuf> {
    None
}

/// A mount's own trash folders for this user (`.Trash/UID`, `.Trash-UID`),
/// only those that are folders this user owns.
#[cfg(unix)]
fn topdir_trashes(top: &Path) -> Vec<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    [
        top.join(".Trash").join(uid.to_string()),
        top.join(format!(".Trash-{uid}")),
    ]
    .into_iter()
    .filter(|t| fs::symlink_metadata(t).is_ok_and(|m| m.is_dir() && m.uid() == uid))
    .collect()
}

#[cfg(not(unix))]
fn topdir_trashes(_top: &Path) -> Vec<PathBuf> {
    Vec::new()
}

/// The `Path=` of a `.trashinfo` (percent-encoded, as the spec says), or
/// why it has none that reads.
fn original_of_info(info: &Path) -> Result<PathBuf, String> {
    let bytes = crate::session::read::file::read_regular(info).map_err(|e| e.to_string())?;
    let mut lines = bytes.split(|&b| b == b'\n');
    if lines.next().map(<[u8]>::trim_ascii) != Some(b"[Trash Info]".as_slice()) {
        return Err("no [Trash Info] header".to_string());
    }
    let raw = lines
        .find_map(|l| l.strip_prefix(b"Path="))
        .ok_or("no Path= line")?;
    let bytes = percent_decode(raw.trim_ascii())
        .ok_or_else(|| "a malformed percent-encoding in its Path".to_string())?;
    if bytes.is_empty() || bytes.contains(&0) {
        return Err("an empty path".to_string());
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Ok(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
    }
    #[cfg(not(unix))]
    {
        Ok(PathBuf::from(String::from_utf8_lossy(&bytes).into_owned()))
    }
}

/// Decodes `%XX` escapes; `None` when a `%` is not followed by two hex
/// digits (the text is not what the specification allows).
fn percent_decode(b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hi = (*b.get(i + 1)? as char).to_digit(16)?;
            let lo = (*b.get(i + 2)? as char).to_digit(16)?;
            out.push((hi * 16 + lo) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    Some(out)
}

/// The latest operation of one of `reasons` whose files are in the trash:
/// every file it trashed that is still there (one, for a record without a
/// batch), oldest first.
pub fn latest_operation<'a>(items: &'a [InTrash], reasons: &[Reason]) -> Vec<&'a InTrash> {
    let Some(last) = items
        .iter()
        .rev()
        .find(|i| reasons.contains(&i.record.reason))
    else {
        return Vec::new();
    };
    match &last.record.batch {
        Some(b) => items
            .iter()
            .filter(|i| i.record.batch.as_ref() == Some(b) && i.record.reason == last.record.reason)
            .collect(),
        None => vec![last],
    }
}

/// Puts one trashed file back where it lived. Refuses to replace anything:
/// a file at the old place stays, unless this is a prune's original and the
/// file there is still exactly what the prune left (then the original
/// replaces it, atomically).
pub fn restore(item: &InTrash) -> Result<PathBuf, JournalError> {
    let r = &item.record;
    let to = &r.path;
    let refused = |why: String| JournalError::Refused {
        path: to.clone(),
        why,
    };
    match fs::symlink_metadata(to) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if r.left.is_some() {
                return Err(refused(
                    "the pruned session is no longer there (moved or deleted since)".to_string(),
                ));
            }
            put_back(item, to)?;
        }
        Err(e) => return Err(io(to)(e)),
        Ok(meta) => {
            let Some(left) = &r.left else {
                return Err(refused(
                    "a file is there now; piscope replaces nothing".to_string(),
                ));
            };
            let unchanged = meta.is_file()
                && meta.len() == left.size
                && hash_of(to).is_some_and(|h| h == left.xxh3);
            if !unchanged {
                return Err(refused(
                    "the session changed since it was pruned; piscope replaces nothing".to_string(),
                ));
            }
            // The original replaces the pruned file atomically, under the
            // write lock, and what pi appends to the pruned file meanwhile
            // is carried over (its lines hang on entries the original has).
            let original =
                crate::session::read::file::read_regular(&item.file).map_err(io(&item.file))?;
            let still = |now: &[u8]| {
                let same = now.len() as u64 == left.size
                    && format!("{:016x}", xxhash_rust::xxh3::xxh3_64(now)) == left.xxh3;
                same.then_some(()).ok_or_else(|| {
                    "the session changed since it was pruned; piscope replaces nothing".to_string()
                })
            };
            // The pruned version holds nothing the original lacks.
            let mut drop_pruned = |o: crate::session::write::rewrite::Original<'_>| {
                fs::remove_file(o.link).map_err(|e| e.to_string())
            };
            crate::session::write::rewrite::replace_if(to, &still, &original, &mut drop_pruned)
                .map_err(|e| match e {
                    crate::session::SessionError::Refused { reason, .. } => refused(reason),
                    other => refused(other.to_string()),
                })?;
            let _ = fs::remove_file(&item.file);
            let _ = fs::remove_file(&item.info);
        }
    }
    Ok(to.clone())
}

fn rand_u32() -> u32 {
    let mut b = [0u8; 4];
    let _ = getrandom::fill(&mut b);
    u32::from_ne_bytes(b)
}

/// Moves the trashed file to `to` (which must not exist) and drops its
/// `.trashinfo`: by rename, so nothing at `to` is replaced (a new empty
/// file claims the name first, as the trash crate does).
fn put_back(item: &InTrash, to: &Path) -> Result<(), JournalError> {
    if let Some(dir) = to.parent() {
        if !dir.is_dir() {
            return Err(JournalError::Refused {
                path: to.to_path_buf(),
                why: format!("its folder {} is gone", dir.display()),
            });
        }
    }
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(to)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => JournalError::Refused {
                path: to.to_path_buf(),
                why: "a file is there now; piscope replaces nothing".to_string(),
            },
            _ => io(to)(e),
        })?;
    if let Err(e) = fs::rename(&item.file, to) {
        let _ = fs::remove_file(to);
        return Err(io(&item.file)(e));
    }
    let _ = fs::remove_file(&item.info);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("s.jsonl");
        fs::write(&file, "{}\n").expect("write");
        let journal = dir.path().join("j/journal.jsonl");
        let r = describe(&file, Reason::Clean, None).expect("describe");
        append_to(&journal, &r).expect("append");
        append_to(&journal, &r).expect("append");
        assert_eq!(
            read_from(&journal).expect("read").records,
            vec![r.clone(), r]
        );
        fs::write(&journal, "{}\nnot json\n").expect("write");
        let read = read_from(&journal).expect("read");
        assert!(read.records.is_empty());
        let e = &read.damaged[0];
        assert!(e.to_string().contains("line 1"), "{e}");
    }

    /// A crash mid-write leaves a torn line; the next record still starts
    /// a line of its own, and both whole records read around the torn one.
    #[test]
    fn a_torn_line_costs_only_itself() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("s.jsonl");
        fs::write(&file, "{}\n").expect("write");
        let journal = dir.path().join("journal.jsonl");
        let r = describe(&file, Reason::Delete, None).expect("describe");
        append_to(&journal, &r).expect("append");
        let whole = serde_json::to_string(&r).expect("json");
        let mut torn = fs::read(&journal).expect("read");
        torn.extend_from_slice(&whole.as_bytes()[..whole.len() / 2]);
        torn.extend_from_slice("\u{e9}".as_bytes().split_at(1).0);
        fs::write(&journal, torn).expect("write");
        append_to(&journal, &r).expect("append");
        let read = read_from(&journal).expect("read");
        assert_eq!(read.records, vec![r.clone(), r]);
        assert_eq!(read.damaged.len(), 1);
        let e = read.damaged[0].to_string();
        assert!(e.contains("line 2") && e.contains("journal.jsonl"), "{e}");
    }

    /// A line as piscope wrote it before clean-ups and batches had names
    /// of their own (a browser clean-up said "delete").
    #[test]
    fn older_lines_read_as_operations_of_their_own() {
        let dir = tempfile::tempdir().expect("temp dir");
        let journal = dir.path().join("journal.jsonl");
        let old = r#"{"time_ms":1767225600000,"time":"2026-01-01T00:00:00.000Z","reason":"delete","path":"/s/a.jsonl","size":10,"mtime_ms":1767225500000,"dev":1,"ino":2,"xxh3":"00000000000000aa"}"#;
        fs::write(&journal, format!("{old}\n")).expect("write");
        let records = read_from(&journal).expect("read").records;
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].reason, Reason::Delete);
        assert_eq!(records[0].batch, None);
        // Written again, it is the same line (nothing new is added to it).
        assert_eq!(serde_json::to_string(&records[0]).expect("json"), old);
    }

    fn in_trash(reason: Reason, path: &str, batch: Option<&str>) -> InTrash {
        InTrash {
            record: Record {
                time_ms: 0,
                time: String::new(),
                reason,
                path: PathBuf::from(path),
                trashed_as: None,
                size: 0,
                mtime_ms: None,
                dev: 0,
                ino: 0,
                xxh3: String::new(),
                left: None,
                moved_to: None,
                batch: batch.map(str::to_string),
            },
            file: PathBuf::from(path),
            info: PathBuf::from(path),
        }
    }

    #[test]
    fn the_latest_operation_is_its_whole_batch() {
        let undoable = [Reason::Delete, Reason::Clean, Reason::Prune];
        let items = vec![
            in_trash(Reason::Clean, "/a", Some("1")),
            in_trash(Reason::Delete, "/old", None),
            in_trash(Reason::Clean, "/b", Some("1")),
            in_trash(Reason::Clean, "/c", Some("1")),
            in_trash(Reason::MoveProject, "/m", Some("2")),
        ];
        let paths = |v: Vec<&InTrash>| -> Vec<PathBuf> {
            v.iter().map(|i| i.record.path.clone()).collect()
        };
        assert_eq!(
            paths(latest_operation(&items, &undoable)),
            [PathBuf::from("/a"), "/b".into(), "/c".into()]
        );
        assert_eq!(
            paths(latest_operation(&items[..2], &undoable)),
            [PathBuf::from("/old")]
        );
        assert!(latest_operation(&items[4..], &undoable).is_empty());
    }

    #[test]
    fn trashinfo_paths_are_percent_decoded() {
        assert_eq!(percent_decode(b"/a%20b/c%25d"), Some(b"/a b/c%d".to_vec()));
        assert_eq!(
            percent_decode("/é".as_bytes()),
            Some("/é".as_bytes().to_vec())
        );
        for bad in ["/x%2", "/x%", "/x%zz", "50%a\u{e9}", "%\u{e9}a"] {
            assert_eq!(percent_decode(bad.as_bytes()), None, "{bad}");
        }
    }
}
