//! A session's searchable text, held in memory or read from the cache's
//! texts file by position, and its folded form (what words and phrases are
//! looked for in).
//!
//! The texts file is read with positional reads into a reused buffer, a
//! block at a time, never mapped: a mapped file that another process
//! truncates (another piscope, the user, a damaged disk) kills the reader
//! with SIGBUS, where a read merely comes back short. Each block carries
//! its own xxh3, checked on every read, so a short, changed or damaged
//! file is noticed at the block it damaged and the session is read again.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::cell::RefCell;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The searchable text of a session: the text itself (what `re:` patterns
/// see) and its folded form, lower case with white-space runs as one space
/// and trimmed (pi's `normalizeWhitespaceLower`, what words and phrases are
/// looked for in). Either held in memory, or read from the cache's texts
/// file (see [`super::cache`]) each time it is searched.
pub struct MessageText {
    source: Source,
    folded: OnceLock<String>,
}

enum Source {
    Owned(String),
    Stored(Stored),
}

/// How many bytes of a stored text one hash covers, and one read brings in.
pub(crate) const BLOCK: usize = 1 << 20;

/// Two ranges of the cache's texts file; `path` is the session they came
/// from, read again should a range not match its hashes.
pub(crate) struct Stored {
    file: Arc<File>,
    folded: Span,
    original: Span,
    path: PathBuf,
    /// A read came back short or a block did not match: use the fallback.
    damaged: AtomicBool,
    reread: Reread,
    fallback: OnceLock<Box<MessageText>>,
}

/// Reads a session's text again, as a fresh read of the file gives it.
pub(crate) type Reread = fn(&Path) -> Option<String>;

impl std::fmt::Debug for MessageText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("MessageText")
            .field(&self.original())
            .finish()
    }
}

impl Default for MessageText {
    fn default() -> MessageText {
        MessageText::new(String::new())
    }
}

thread_local! {
    // One read buffer per thread, reused for every stored text scanned.
    static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

impl Stored {
    pub(crate) fn new(
        file: Arc<File>,
        folded: Span,
        original: Span,
        path: PathBuf,
        reread: Reread,
    ) -> Stored {
        Stored {
            file,
            folded,
            original,
            path,
            reread,
            damaged: AtomicBool::new(false),
            fallback: OnceLock::new(),
        }
    }

    /// Whether the folded text holds `needle`, read a block at a time (the
    /// end of each block kept before the next, so a match across the two is
    /// seen); `None` when the stored text is damaged. A match is reported
    /// as soon as a checked block shows it; "no match" needs every block.
    fn folded_holds(&self, needle: &[u8]) -> Option<bool> {
        if self.damaged.load(Ordering::Relaxed) {
            return None;
        }
        let finder = memchr::memmem::Finder::new(needle);
        let keep = needle.len().saturating_sub(1);
        let r = BUF.with(|b| {
            let mut buf = b.borrow_mut();
            let mut carried = 0;
            for k in 0..self.folded.blocks() {
                buf.resize(carried + self.folded.block(k).1, 0);
                if !read_block(&self.file, &self.folded, k, &mut buf[carried..]) {
                    return None;
                }
                if finder.find(&buf).is_some() {
                    return Some(true);
                }
                let tail = keep.min(buf.len());
                let from = buf.len() - tail;
                buf.copy_within(from.., 0);
                carried = tail;
            }
            Some(false)
        });
        self.note(r)
    }

    /// The whole of `span`, every block checked.
    fn read_all(&self, span: &Span, into: &mut Vec<u8>) -> bool {
        !self.damaged.load(Ordering::Relaxed)
            && self
                .note(read_span(&self.file, span, into).then_some(()))
                .is_some()
    }

    fn note<T>(&self, r: Option<T>) -> Option<T> {
        if r.is_none() {
            self.damaged.store(true, Ordering::Relaxed);
        }
        r
    }

    fn original(&self) -> Option<String> {
        let mut bytes = Vec::new();
        if !self.read_all(&self.original, &mut bytes) {
            return None;
        }
        let text = String::from_utf8(bytes).ok();
        self.note(text)
    }

    fn folded(&self) -> Option<Vec<u8>> {
        let mut bytes = Vec::new();
        self.read_all(&self.folded, &mut bytes).then_some(bytes)
    }

    /// The text as a fresh read of the session gives it (a damaged cache).
    fn fallback(&self) -> &MessageText {
        self.fallback.get_or_init(|| {
            let text = (self.reread)(&self.path).unwrap_or_default();
            Box::new(MessageText::new(text))
        })
    }
}

/// Fills `buf` from `at`; false when the file ends first or cannot be read.
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> bool {
    let mut done = 0;
    while done < buf.len() {
        match crate::session::read::read_at(file, &mut buf[done..], at + done as u64) {
            Ok(0) => return false,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    true
}

impl MessageText {
    pub fn new(original: String) -> MessageText {
        MessageText {
            source: Source::Owned(original),
            folded: OnceLock::new(),
        }
    }

    pub(crate) fn stored(stored: Stored) -> MessageText {
        MessageText {
            source: Source::Stored(stored),
            folded: OnceLock::new(),
        }
    }

    /// Every user and assistant text, joined by spaces.
    pub fn original(&self) -> Cow<'_, str> {
        match &self.source {
            Source::Owned(s) => Cow::Borrowed(s),
            Source::Stored(m) => match m.original() {
                Some(s) => Cow::Owned(s),
                None => m.fallback().original(),
            },
        }
    }

    /// Runs `f` on the text (see [`MessageText::original`]), a stored one
    /// read into this thread's buffer rather than a new string.
    pub(crate) fn with_original<R>(&self, f: impl FnOnce(&str) -> R) -> R {
        match &self.source {
            Source::Owned(s) => f(s),
            Source::Stored(m) => {
                let mut buf = BUF.with(|b| std::mem::take(&mut *b.borrow_mut()));
                let text = m
                    .read_all(&m.original, &mut buf)
                    .then(|| std::str::from_utf8(&buf).ok())
                    .flatten();
                let r = match m.note(text) {
                    Some(t) => f(t),
                    None => m.fallback().with_original(f),
                };
                BUF.with(|b| *b.borrow_mut() = buf);
                r
            }
        }
    }

    /// Whether the text is read from the cache's texts file.
    #[cfg(test)]
    pub(crate) fn is_stored(&self) -> bool {
        matches!(self.source, Source::Stored(_))
    }

    /// The text as the cache holds it, if it is intact (no fallback read).
    pub(crate) fn cached_original(&self) -> Option<Cow<'_, str>> {
        match &self.source {
            Source::Owned(s) => Some(Cow::Borrowed(s)),
            Source::Stored(m) => m.original().map(Cow::Owned),
        }
    }

    /// The folded text (UTF-8): lower case, white-space runs as one space,
    /// trimmed. A word (no white space) is in it exactly when it is in the
    /// lower-case text, and a normalized phrase exactly when it is in the
    /// normalized text, so one folded copy serves both searches.
    pub fn folded(&self) -> Cow<'_, [u8]> {
        match &self.source {
            Source::Owned(s) => Cow::Borrowed(
                self.folded
                    .get_or_init(|| crate::jstext::normalize_whitespace_lower(s))
                    .as_bytes(),
            ),
            Source::Stored(m) => match m.folded() {
                Some(b) => Cow::Owned(b),
                None => m.fallback().folded(),
            },
        }
    }

    /// The folded text (see [`MessageText::folded`]), folded now and not
    /// kept, unless it is kept already.
    pub(crate) fn folded_anew(&self) -> Cow<'_, [u8]> {
        match (&self.source, self.folded.get()) {
            (_, Some(f)) => Cow::Borrowed(f.as_bytes()),
            (Source::Owned(s), None) => {
                Cow::Owned(crate::jstext::normalize_whitespace_lower(s).into_bytes())
            }
            (Source::Stored(_), None) => self.folded(),
        }
    }

    /// Whether the folded text holds `needle` (see [`MessageText::folded`]).
    pub(crate) fn folded_contains(&self, needle: &[u8]) -> bool {
        match &self.source {
            Source::Stored(m) => match m.folded_holds(needle) {
                Some(hit) => hit,
                None => m.fallback().folded_contains(needle),
            },
            Source::Owned(_) => memchr::memmem::find(&self.folded(), needle).is_some(),
        }
    }
}

/// A range of the texts file and the xxh3 of each [`BLOCK`] of it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub(crate) struct Span {
    pub start: u64,
    pub len: u64,
    pub hashes: Vec<u64>,
}

impl Span {
    pub(crate) fn over(start: u64, bytes: &[u8]) -> Span {
        Span {
            start,
            len: bytes.len() as u64,
            hashes: bytes
                .chunks(BLOCK)
                .map(xxhash_rust::xxh3::xxh3_64)
                .collect(),
        }
    }

    /// How many blocks it has (as many as hashes, when it is sound).
    pub(crate) fn blocks(&self) -> usize {
        usize::try_from(self.len.div_ceil(BLOCK as u64)).unwrap_or(usize::MAX)
    }

    /// Where block `k` starts in the file, and its length.
    fn block(&self, k: usize) -> (u64, usize) {
        let from = k as u64 * BLOCK as u64;
        let len = (self.len - from).min(BLOCK as u64) as usize;
        (self.start + from, len)
    }

    /// Whether it has one hash per block and ends by `file_len`.
    pub(crate) fn sound(&self, file_len: u64) -> bool {
        self.hashes.len() == self.blocks()
            && self
                .start
                .checked_add(self.len)
                .is_some_and(|end| end <= file_len)
    }
}

/// Reads `span` of `file` whole, every block checked (used when the texts
/// file is written again, to carry a text over only if it is intact).
pub(crate) fn read_span(file: &File, span: &Span, into: &mut Vec<u8>) -> bool {
    let Ok(len) = usize::try_from(span.len) else {
        return false;
    };
    // Every byte is read over: only growth needs filling first.
    into.resize(len, 0);
    (0..span.blocks()).all(|k| {
        let from = k * BLOCK;
        let n = span.block(k).1;
        read_block(file, span, k, &mut into[from..from + n])
    })
}

/// Reads the blocks `blocks` of `span` into their places in `into` (as
/// long as the span), each checked; for reading only what is needed.
pub(crate) fn read_span_blocks(
    file: &File,
    span: &Span,
    blocks: std::ops::Range<usize>,
    into: &mut [u8],
) -> bool {
    blocks.into_iter().all(|k| {
        let from = k * BLOCK;
        let n = span.block(k).1;
        k < span.blocks()
            && into
                .get_mut(from..from + n)
                .is_some_and(|b| read_block(file, span, k, b))
    })
}

/// Reads block `k` of `span` into `into` (its length) and checks its hash.
fn read_block(file: &File, span: &Span, k: usize, into: &mut [u8]) -> bool {
    read_exact_at(file, into, span.block(k).0)
        && span
            .hashes
            .get(k)
            .is_some_and(|&h| h == xxhash_rust::xxh3::xxh3_64(into))
}
