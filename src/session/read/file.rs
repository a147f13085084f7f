//! Opening the files piscope reads, regular files only (a FIFO, socket or
//! device would block a read for ever), and fingerprints of the bytes read so
//! far, which tell a file that grew from one rewritten in place.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

/// What a path names when it is not a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    Folder,
    /// Anything else the system may have.
    Other,
}

impl FileKind {
    /// `None` for a regular file.
    pub fn of(t: std::fs::FileType) -> Option<FileKind> {
        if t.is_file() {
            return None;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if t.is_fifo() {
                return Some(FileKind::Fifo);
            }
            if t.is_socket() {
                return Some(FileKind::Socket);
            }
            if t.is_char_device() {
                return Some(FileKind::CharDevice);
            }
            if t.is_block_device() {
                return Some(FileKind::BlockDevice);
            }
        }
        Some(if t.is_dir() {
            FileKind::Folder
        } else {
            FileKind::Other
        })
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Fifo => "a FIFO",
            FileKind::Socket => "a socket",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Folder => "a folder",
            FileKind::Other => "not a file",
        })
    }
}

/// The error inside the `io::Error` that [`open_regular`] returns for a
/// path that is not a regular file; [`crate::session::SessionError::io`] turns it
/// into [`crate::session::SessionError::NotRegular`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not a regular file ({kind}); not read")]
pub struct NotRegular {
    pub kind: FileKind,
}

impl NotRegular {
    /// The kind, when `e` is this error.
    pub fn in_io(e: &io::Error) -> Option<FileKind> {
        e.get_ref()?.downcast_ref::<NotRegular>().map(|n| n.kind)
    }
}

fn refuse(kind: FileKind) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, NotRegular { kind })
}

/// What `path` names (after symlinks) when it is not a regular file;
/// `Ok(None)` for a regular file.
pub fn kind_if_not_regular(path: &Path) -> io::Result<Option<FileKind>> {
    Ok(FileKind::of(std::fs::metadata(path)?.file_type()))
}

/// Opens `path` for reading when it is a regular file, or a symlink to one.
/// Anything else is refused without reading (and, but for a swap between
/// the two checks, without opening): the type is checked before the open,
/// so a device is never opened, and again on the open file, so a FIFO put
/// there in between is caught; the open does not block, as a FIFO's would.
pub fn open_regular(path: &Path) -> io::Result<File> {
    if let Some(kind) = kind_if_not_regular(path)? {
        return Err(refuse(kind));
    }
    let file = open_nonblocking(path)?;
    if let Some(kind) = FileKind::of(file.metadata()?.file_type()) {
        return Err(refuse(kind));
    }
    blocking_again(&file)?;
    Ok(file)
}

/// The whole of a regular file (as `std::fs::read`, never blocking).
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = open_regular(path)?;
    let mut bytes = Vec::with_capacity(file.metadata().map_or(0, |m| m.len() as usize));
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The whole of a regular file as UTF-8 text (as `std::fs::read_to_string`).
pub fn read_regular_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read_regular(path)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

/// Reads of a regular file never block anyway; clearing the flag keeps the
/// file what a plain open gives.
#[cfg(unix)]
fn blocking_again(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is an open descriptor owned by `file` for both calls.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above; only the status flags change.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(unix))]
fn blocking_again(_: &File) -> io::Result<()> {
    Ok(())
}

/// A prefix this long or shorter is hashed whole.
const WHOLE_UP_TO: u64 = 64 << 10;
/// Past that: its first and last bytes (the header, the lines just before
/// the offset) and windows spread evenly in between.
const END_WINDOW: u64 = 16 << 10;
const MID_WINDOWS: u64 = 8;
const MID_WINDOW: u64 = 4 << 10;

/// A fingerprint of a file's first `len` bytes: before reading on from
/// `len`, it tells whether those bytes are still the ones that were read.
/// A prefix of up to 64 KB is hashed whole; a longer one by its first and
/// last 16 KB and eight 4 KB windows in between (64 KB however large the
/// file), so any change to the header or the lines before the offset, and
/// any insertion or removal (it moves the last bytes), is caught; a
/// same-length change in the middle of a large file may not be.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrefixPrint {
    pub len: u64,
    pub hash: u64,
}

impl PrefixPrint {
    /// The fingerprint of the first `len` bytes of `file`.
    pub fn of(file: &File, len: u64) -> io::Result<PrefixPrint> {
        Ok(PrefixPrint {
            len,
            hash: prefix_hash(file, len)?.unwrap_or(0),
        })
    }

    /// Whether `file` still starts with the bytes this print was taken of
    /// (false when it is now shorter).
    pub fn matches(&self, file: &File) -> io::Result<bool> {
        Ok(prefix_hash(file, self.len)? == Some(self.hash))
    }
}

/// `None` when the file has fewer than `len` bytes.
fn prefix_hash(file: &File, len: u64) -> io::Result<Option<u64>> {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&len.to_le_bytes());
    let mut buf = Vec::new();
    let mut window = |at: u64, size: u64| -> io::Result<bool> {
        buf.resize(size as usize, 0);
        if !read_exact_at(file, &mut buf, at)? {
            return Ok(false);
        }
        hasher.update(&buf);
        Ok(true)
    };
    let whole = if len <= WHOLE_UP_TO {
        window(0, len)?
    } else {
        let mut all = window(0, END_WINDOW)?;
        for k in 1..=MID_WINDOWS {
            all = all && window(k * len / (MID_WINDOWS + 1), MID_WINDOW)?;
        }
        all && window(len - END_WINDOW, END_WINDOW)?
    };
    Ok(whole.then(|| hasher.digest()))
}

/// Fills `buf` from `at`; false when the file ends first.
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<bool> {
    let mut done = 0;
    while done < buf.len() {
        match crate::session::read::blocks::read_at(file, &mut buf[done..], at + done as u64) {
            Ok(0) => return Ok(false),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// `len` bytes of `file` from `at`, `None` when it ends first. Read into
/// memory never written before (no zeroing first), taken in huge pages
/// where offered ([`crate::par::big_vec`]): megabytes read so cost the
/// copy, not a fault every 4 KB as well.
pub(crate) fn read_vec_at(file: &File, at: u64, len: usize) -> io::Result<Option<Vec<u8>>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut bytes = crate::par::big_vec(len);
    let mut reader = file;
    reader.seek(SeekFrom::Start(at))?;
    reader.take(len as u64).read_to_end(&mut bytes)?;
    Ok((bytes.len() == len).then_some(bytes))
}

/// Sessions pi wrote, kept as test data (`tests/data/pi-mono`).
#[cfg(test)]
pub(crate) fn pi_written_lines() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pi-mono");
    let mut lines = Vec::new();
    for name in ["large-session.jsonl", "before-compaction.jsonl"] {
        let text = std::fs::read(dir.join(name)).expect("test data");
        let whole = text.split(|&b| b == b'\n').filter(|l| !l.is_empty());
        lines.extend(whole.map(<[u8]>::to_vec));
    }
    lines
}

/// Every `.jsonl` file under `tests/`: the corpora unit tests compare on.
#[cfg(test)]
pub(crate) fn test_session_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from("tests")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).expect("tests folder") {
            let path = e.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "jsonl") {
                files.push(path);
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, SeekFrom, Write};

    #[test]
    fn a_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_regular(dir.path()).unwrap_err();
        assert_eq!(NotRegular::in_io(&e), Some(FileKind::Folder));
        assert_eq!(e.to_string(), "not a regular file (a folder); not read");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("x.jsonl");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = open_regular(&fifo).unwrap_err();
        assert_eq!(NotRegular::in_io(&e), Some(FileKind::Fifo));
        let e = read_regular(&fifo).unwrap_err();
        assert_eq!(NotRegular::in_io(&e), Some(FileKind::Fifo));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_to_a_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.jsonl");
        std::fs::write(&file, b"x\n").unwrap();
        let link = dir.path().join("b.jsonl");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read_regular(&link).unwrap(), b"x\n");
    }

    #[test]
    fn a_print_sees_changes_before_its_end_only() {
        for size in [10u64, 40 << 10, 3 << 20] {
            let mut f = tempfile::tempfile().unwrap();
            let bytes: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
            f.write_all(&bytes).unwrap();
            let print = PrefixPrint::of(&f, size).unwrap();
            assert!(print.matches(&f).unwrap());
            // Appending leaves the print as it was.
            f.write_all(b"more").unwrap();
            assert!(print.matches(&f).unwrap());
            // A change to the first byte, or to the last byte before the
            // end, is seen.
            for at in [0, size - 1] {
                f.seek(SeekFrom::Start(at)).unwrap();
                f.write_all(&[bytes[at as usize] ^ 1]).unwrap();
                assert!(!print.matches(&f).unwrap(), "size {size}, byte {at}");
                f.seek(SeekFrom::Start(at)).unwrap();
                f.write_all(&[bytes[at as usize]]).unwrap();
                assert!(print.matches(&f).unwrap());
            }
            f.set_len(size - 1).unwrap();
            assert!(!print.matches(&f).unwrap());
        }
    }
}
