//! The summaries file's records, laid out to be read where they lie.
//!
//! A warm start reads the records region and indexes it by path; nothing
//! is decoded then. A record's fixed fields are read when it is looked up,
//! its listing when the list shows it, and its reading state (most of a
//! session's bytes here, needed only once the file grew) lives in a region
//! of its own, read by position only then. Every length is checked against
//! the bytes there are: a record that does not parse is one the cache does
//! not have, never a panic.
//!
//! A record, little-endian: the length of what follows (u32), the path
//! (bytes), the stamp (size u64, mtime ns i128, inode u64, device u64, ctime ns i128), the
//! prefix print (length, hash), where the state read to and its header's
//! hash, whether it kept the text (u8), where its state lies in the states
//! region (start, length, xxh3), then the listing: 0, or 1 and the
//! summary's fields in their declared order. Bytes are `u32` length and
//! the bytes; an option is a tag byte, then the value when it is 1.

use crate::catalog::discover::FileStamp;
use crate::catalog::summary::message_text::MessageText;
use crate::catalog::summary::{ExactFields, SessionSummary};
use crate::session::read::file::PrefixPrint;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a record's state lies in the states region, and its hash.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct StateAt {
    pub start: u64,
    pub len: u64,
    pub hash: u64,
}

/// A record's fixed fields, read in place; its listing stays bytes until
/// [`Head::summary`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Head<'a> {
    pub path: &'a [u8],
    pub stamp: FileStamp,
    pub prefix: PrefixPrint,
    pub offset: u64,
    pub header_hash: u64,
    pub with_text: bool,
    pub state: StateAt,
    /// The listing's bytes: its tag, then its fields.
    pub listing: &'a [u8],
}

/// The record that starts at `at` in `region` (at its length), and where
/// the next one starts.
pub(super) fn record_at(region: &[u8], at: usize) -> Option<(&[u8], usize)> {
    let mut r = In(region.get(at..)?);
    let body = r.bytes()?;
    Some((body, at + 4 + body.len()))
}

/// The path of a record's body (what the table hashes), without reading
/// the rest.
pub(super) fn path_of(body: &[u8]) -> Option<&[u8]> {
    In(body).bytes()
}

impl<'a> Head<'a> {
    /// The head of a record that did not parse: it matches no file, and
    /// its listing reads as damaged.
    pub const NONE: Head<'static> = Head {
        path: &[],
        stamp: FileStamp {
            size: 0,
            mtime_ns: 0,
            inode: 0,
            device: 0,
            ctime_ns: 0,
        },
        prefix: PrefixPrint { len: 0, hash: 0 },
        offset: u64::MAX,
        header_hash: 0,
        with_text: false,
        state: StateAt {
            start: 0,
            len: 0,
            hash: 0,
        },
        listing: &[],
    };

    pub fn parse(body: &'a [u8]) -> Option<Head<'a>> {
        let mut r = In(body);
        let path = r.bytes()?;
        let stamp = FileStamp {
            size: r.u64()?,
            mtime_ns: i128::from_le_bytes(r.array()?),
            inode: r.u64()?,
            device: r.u64()?,
            ctime_ns: i128::from_le_bytes(r.array()?),
        };
        let prefix = PrefixPrint {
            len: r.u64()?,
            hash: r.u64()?,
        };
        Some(Head {
            path,
            stamp,
            prefix,
            offset: r.u64()?,
            header_hash: r.u64()?,
            with_text: r.flag()?,
            state: StateAt {
                start: r.u64()?,
                len: r.u64()?,
                hash: r.u64()?,
            },
            listing: r.0,
        })
    }

    /// Appends this record to `out`, its state at `state`.
    pub fn write(&self, state: StateAt, out: &mut Vec<u8>) {
        let at = out.len();
        out.extend_from_slice(&[0; 4]);
        put_bytes(out, self.path);
        out.extend_from_slice(&self.stamp.size.to_le_bytes());
        out.extend_from_slice(&self.stamp.mtime_ns.to_le_bytes());
        for n in [self.stamp.inode, self.stamp.device] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(&self.stamp.ctime_ns.to_le_bytes());
        for n in [
            self.prefix.len,
            self.prefix.hash,
            self.offset,
            self.header_hash,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.push(u8::from(self.with_text));
        for n in [state.start, state.len, state.hash] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(self.listing);
        let len = (out.len() - at - 4) as u32;
        out[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }

    /// Whether everything in the file at `stamp` was read (no line waiting
    /// for its newline).
    pub fn complete(&self) -> bool {
        self.offset == self.stamp.size
    }

    /// The listing's fields, borrowed where they lie: `Some(None)` when
    /// the file is no session, `None` when the bytes do not parse.
    pub fn listed(&self) -> Option<Option<Listed<'a>>> {
        let mut r = In(self.listing);
        if !r.flag()? {
            return r.0.is_empty().then_some(None);
        }
        let l = Listed {
            id: r.str()?,
            cwd: r.str()?,
            name: r.option(In::str)?,
            parent_session_path: r.option(In::str)?,
            created_ms: r.option(In::i64)?,
            modified_ms: r.option(In::i64)?,
            message_count: r.u64()?,
            user_messages: r.u64()?,
            assistant_messages: r.u64()?,
            first_message: r.str()?,
            entries: r.u64()?,
            leaves: r.u64()?,
            labels: r.u64()?,
            compactions: r.u64()?,
            damaged_lines: r.u64()?,
            unfinished: r.flag()?,
            size: r.u64()?,
            models: {
                let n = r.u32()?;
                let from = r.0;
                for _ in 0..n {
                    r.str()?;
                }
                Models(n, &from[..from.len() - r.0.len()])
            },
            tokens: f64::from_le_bytes(r.array()?),
            cost: f64::from_le_bytes(r.array()?),
            skipped_by_pi: r.option(In::str)?,
            exact: r.option(|r| {
                postcard::from_bytes::<ExactFields>(r.bytes()?)
                    .ok()
                    .map(Box::new)
            })?,
        };
        r.0.is_empty().then_some(Some(l))
    }

    /// The summary the listing holds, for the file at `path`: `Some(None)`
    /// when the file is no session, `None` when the bytes do not parse.
    pub fn summary(
        &self,
        path: PathBuf,
        text: Option<Arc<MessageText>>,
    ) -> Option<Option<SessionSummary>> {
        let Some(l) = self.listed()? else {
            return Some(None);
        };
        Some(Some(SessionSummary {
            path,
            id: l.id.into(),
            cwd: l.cwd.into(),
            name: l.name.map(Into::into),
            parent_session_path: l.parent_session_path.map(Into::into),
            created_ms: l.created_ms,
            modified_ms: l.modified_ms,
            message_count: l.message_count,
            user_messages: l.user_messages,
            assistant_messages: l.assistant_messages,
            first_message: l.first_message.into(),
            entries: l.entries,
            leaves: l.leaves,
            labels: l.labels,
            compactions: l.compactions,
            damaged_lines: l.damaged_lines,
            unfinished: l.unfinished,
            size: l.size,
            models: l.models.iter().map(Into::into).collect(),
            tokens: l.tokens,
            cost: l.cost,
            skipped_by_pi: l.skipped_by_pi.map(Into::into),
            exact: l.exact,
            text,
        }))
    }
}

/// A record's listing (see [`Head::listed`]): a summary's fields, its
/// texts borrowed from the record.
pub(crate) struct Listed<'a> {
    pub id: &'a str,
    pub cwd: &'a str,
    pub name: Option<&'a str>,
    pub parent_session_path: Option<&'a str>,
    pub created_ms: Option<i64>,
    pub modified_ms: Option<i64>,
    pub message_count: u64,
    pub user_messages: u64,
    pub assistant_messages: u64,
    pub first_message: &'a str,
    pub entries: u64,
    pub leaves: u64,
    pub labels: u64,
    pub compactions: u64,
    pub damaged_lines: u64,
    pub unfinished: bool,
    pub size: u64,
    pub models: Models<'a>,
    pub tokens: f64,
    pub cost: f64,
    pub skipped_by_pi: Option<&'a str>,
    pub exact: Option<Box<ExactFields>>,
}

/// The models of a listing: how many, and their bytes (checked to parse).
pub(crate) struct Models<'a>(u32, &'a [u8]);

impl<'a> Models<'a> {
    fn iter(&self) -> impl Iterator<Item = &'a str> {
        let mut r = In(self.1);
        (0..self.0).map_while(move |_| r.str())
    }
}

/// The listing bytes of `summary` (see [`Head::listing`]); `None` when the
/// file is no session.
pub(super) fn listing(summary: Option<&SessionSummary>) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    let Some(s) = summary else {
        out.push(0);
        return out;
    };
    // Every field named: one added to the summary must be added here.
    let SessionSummary {
        path: _,
        id,
        cwd,
        name,
        parent_session_path,
        created_ms,
        modified_ms,
        message_count,
        user_messages,
        assistant_messages,
        first_message,
        entries,
        leaves,
        labels,
        compactions,
        damaged_lines,
        unfinished,
        size,
        models,
        tokens,
        cost,
        skipped_by_pi,
        exact,
        text: _,
    } = s;
    out.push(1);
    let o = &mut out;
    put_bytes(o, id.as_bytes());
    put_bytes(o, cwd.as_bytes());
    put_option(o, name.as_deref(), |o, s| put_bytes(o, s.as_bytes()));
    put_option(o, parent_session_path.as_deref(), |o, s| {
        put_bytes(o, s.as_bytes())
    });
    put_option(o, *created_ms, |o, t| o.extend_from_slice(&t.to_le_bytes()));
    put_option(o, *modified_ms, |o, t| {
        o.extend_from_slice(&t.to_le_bytes())
    });
    for n in [*message_count, *user_messages, *assistant_messages] {
        o.extend_from_slice(&n.to_le_bytes());
    }
    put_bytes(o, first_message.as_bytes());
    for n in [*entries, *leaves, *labels, *compactions, *damaged_lines] {
        o.extend_from_slice(&n.to_le_bytes());
    }
    o.push(u8::from(*unfinished));
    o.extend_from_slice(&size.to_le_bytes());
    o.extend_from_slice(&(models.len() as u32).to_le_bytes());
    for m in models {
        put_bytes(o, m.as_bytes());
    }
    o.extend_from_slice(&tokens.to_le_bytes());
    o.extend_from_slice(&cost.to_le_bytes());
    put_option(o, skipped_by_pi.as_deref(), |o, s| {
        put_bytes(o, s.as_bytes())
    });
    put_option(o, exact.as_deref(), |o, e| {
        put_bytes(o, &postcard::to_stdvec(e).unwrap_or_default())
    });
    out
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

fn put_option<T>(out: &mut Vec<u8>, v: Option<T>, put: impl FnOnce(&mut Vec<u8>, T)) {
    match v {
        None => out.push(0),
        Some(v) => {
            out.push(1);
            put(out, v);
        }
    }
}

/// A reader over a record's bytes: every read checks there are enough.
struct In<'a>(&'a [u8]);

impl<'a> In<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Option<u64> {
        self.array().map(u64::from_le_bytes)
    }

    fn i64(&mut self) -> Option<i64> {
        self.array().map(i64::from_le_bytes)
    }

    fn flag(&mut self) -> Option<bool> {
        match self.take(1)? {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()?;
        self.take(usize::try_from(n).ok()?)
    }

    fn str(&mut self) -> Option<&'a str> {
        let b = self.bytes()?;
        simdutf8::basic::from_utf8(b).ok()
    }

    fn option<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.flag()? {
            false => Some(None),
            true => read(self).map(Some),
        }
    }
}

/// A path as the record holds it: its bytes (on Unix any bytes; elsewhere
/// UTF-8, and a path that is not is not cached).
#[cfg(unix)]
pub(super) fn path_bytes(path: &Path) -> Option<&[u8]> {
    use std::os::unix::ffi::OsStrExt;
    Some(path.as_os_str().as_bytes())
}

#[cfg(not(unix))]
pub(super) fn path_bytes(path: &Path) -> Option<&[u8]> {
    path.to_str().map(str::as_bytes)
}

/// Whether the path spelled `path` is inside the folder spelled `dir`
/// (by their bytes: a `Path`'s own test walks both paths' components).
pub(super) fn bytes_under(path: &[u8], dir: &[u8]) -> bool {
    let dir = match dir {
        [rest @ .., last] if std::path::is_separator(char::from(*last)) => rest,
        _ => dir,
    };
    path.len() > dir.len() + 1
        && path.starts_with(dir)
        && std::path::is_separator(char::from(path[dir.len()]))
}

/// [`bytes_under`] for paths.
pub(crate) fn is_under(path: &Path, dir: &Path) -> bool {
    match (path_bytes(path), path_bytes(dir)) {
        (Some(path), Some(dir)) => bytes_under(path, dir),
        _ => false,
    }
}

#[cfg(unix)]
pub(super) fn bytes_path(bytes: &[u8]) -> Option<&Path> {
    use std::os::unix::ffi::OsStrExt;
    Some(Path::new(std::ffi::OsStr::from_bytes(bytes)))
}

#[cfg(not(unix))]
pub(super) fn bytes_path(bytes: &[u8]) -> Option<&Path> {
    std::str::from_utf8(bytes).ok().map(Path::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_under_a_folder_by_whole_names() {
        let under = |p: &str, d: &str| bytes_under(p.as_bytes(), d.as_bytes());
        assert!(under("/a/s/x.jsonl", "/a/s"));
        assert!(under("/a/s/x.jsonl", "/a/s/"));
        assert!(under("/a/s/p/x.jsonl", "/a/s"));
        assert!(under("/x", "/"));
        assert!(!under("/a/s-more/x.jsonl", "/a/s"));
        assert!(!under("/a/sx", "/a/s"));
        assert!(!under("/a/s", "/a/s"));
        assert!(!under("/a/s/", "/a/s"));
        assert!(!under("/b/s/x", "/a/s"));
        assert!(!under("/a", "/a/s"));
    }

    fn full() -> SessionSummary {
        SessionSummary {
            path: PathBuf::new(),
            id: "0193-id".into(),
            cwd: "/home/ada/é project".into(),
            name: Some("a name".into()),
            parent_session_path: Some("/p/parent.jsonl".into()),
            created_ms: Some(-62_135_596_800_000),
            modified_ms: Some(1_767_000_000_123),
            message_count: 7,
            user_messages: 3,
            assistant_messages: 4,
            first_message: "hello\nthere".into(),
            entries: 12,
            leaves: 2,
            labels: 1,
            compactions: 1,
            damaged_lines: 5,
            unfinished: true,
            size: 4096,
            models: vec!["anthropic/claude".into(), "openai/gpt".into()],
            tokens: 1234.5,
            cost: 0.0625,
            skipped_by_pi: Some("no header".into()),
            exact: Some(Box::new(ExactFields {
                id: "\u{0}n".into(),
                cwd: None,
                parent_session: Some("x".into()),
                name: None,
                first_message: Some("f".into()),
            })),
            text: None,
        }
    }

    fn head<'a>(path: &'a [u8], listing: &'a [u8]) -> Head<'a> {
        Head {
            path,
            stamp: FileStamp {
                size: 4096,
                mtime_ns: -5,
                inode: 77,
                device: 3,
                ctime_ns: -7,
            },
            prefix: PrefixPrint { len: 10, hash: 11 },
            offset: 4000,
            header_hash: 99,
            with_text: true,
            state: StateAt::default(),
            listing,
        }
    }

    #[test]
    fn a_record_reads_back_as_written() {
        let state = StateAt {
            start: 17,
            len: 600,
            hash: 0xfeed,
        };
        for summary in [Some(full()), Some(SessionSummary::default()), None] {
            let listing = listing(summary.as_ref());
            let mut region = Vec::new();
            head(b"/s/a.jsonl", &listing).write(state, &mut region);
            let (body, next) = record_at(&region, 0).expect("record");
            assert_eq!(next, region.len());
            assert_eq!(path_of(body), Some(&b"/s/a.jsonl"[..]));
            let h = Head::parse(body).expect("head");
            let want = Head {
                state,
                ..head(b"/s/a.jsonl", &listing)
            };
            assert_eq!(format!("{h:?}"), format!("{want:?}"));
            let back = h
                .summary(PathBuf::from("/s/a.jsonl"), None)
                .expect("parses");
            let want = summary.map(|s| SessionSummary {
                path: PathBuf::from("/s/a.jsonl"),
                ..s
            });
            assert_eq!(format!("{back:?}"), format!("{want:?}"));
        }
    }

    #[test]
    fn a_cut_or_padded_listing_is_refused_not_misread() {
        let listing = listing(Some(&full()));
        for cut in 0..listing.len() {
            let h = head(b"p", &listing[..cut]);
            assert!(h.summary(PathBuf::new(), None).is_none(), "cut at {cut}");
        }
        let mut padded = listing.clone();
        padded.push(0);
        assert!(head(b"p", &padded).summary(PathBuf::new(), None).is_none());
        let mut region = Vec::new();
        head(b"p", &listing).write(StateAt::default(), &mut region);
        for cut in 0..region.len() {
            let whole = record_at(&region[..cut], 0).and_then(|(b, _)| Head::parse(b));
            assert!(whole.is_none(), "record cut at {cut}");
        }
    }
}
