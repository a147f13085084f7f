//! A session's searchable text, held in memory or read in place from the
//! mapped cache, and its folded form (what words and phrases are looked for in).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The searchable text of a session: the text itself (what `re:` patterns
/// see) and its folded form, lower case with white-space runs as one space
/// and trimmed (pi's `normalizeWhitespaceLower`, what words and phrases are
/// looked for in). Either held in memory, or read in place from the mapped
/// cache (see [`super::cache`]), checked against its hash on first use.
pub struct MessageText {
    source: Source,
    folded: OnceLock<String>,
}

enum Source {
    Owned(String),
    Mapped(Mapped),
}

/// How much of a mapped text is scanned before its pages are let go.
const WINDOW: usize = 1 << 20;

/// Two ranges of a mapped cache file; `path` is the session they came from,
/// read again should a range not match its hash.
pub(crate) struct Mapped {
    pub map: Arc<memmap2::Mmap>,
    pub folded: Span,
    pub original: Span,
    pub path: PathBuf,
    folded_ok: OnceLock<bool>,
    original_ok: OnceLock<bool>,
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

impl Mapped {
    pub(crate) fn new(
        map: Arc<memmap2::Mmap>,
        folded: Span,
        original: Span,
        path: PathBuf,
        reread: Reread,
    ) -> Mapped {
        Mapped {
            map,
            folded,
            original,
            path,
            reread,
            folded_ok: OnceLock::new(),
            original_ok: OnceLock::new(),
            fallback: OnceLock::new(),
        }
    }

    /// The folded bytes once their hash is checked. The check reads them in
    /// windows, letting each go after, so a large text is never all held.
    fn folded(&self) -> Option<&[u8]> {
        let bytes = self.folded.of(&self.map)?;
        let ok = *self.folded_ok.get_or_init(|| {
            let mut hash = xxhash_rust::xxh3::Xxh3::new();
            for (k, window) in bytes.chunks(WINDOW).enumerate() {
                hash.update(window);
                self.release(k * WINDOW, window.len());
            }
            hash.digest() == self.folded.hash
        });
        ok.then_some(bytes)
    }

    /// Lets bytes `at..at + len` of the folded text go from memory.
    fn release(&self, at: usize, len: usize) {
        let part = Span {
            start: self.folded.start + at as u64,
            len: len as u64,
            hash: 0,
        };
        part.release(&self.map);
    }

    /// Whether the folded text holds `needle`, scanned window by window.
    fn folded_holds(&self, bytes: &[u8], needle: &[u8]) -> bool {
        let finder = memchr::memmem::Finder::new(needle);
        let overlap = needle.len().saturating_sub(1);
        let mut at = 0;
        loop {
            let end = (at + WINDOW).min(bytes.len());
            if finder.find(&bytes[at..end]).is_some() {
                return true;
            }
            self.release(at, end - at);
            if end == bytes.len() {
                return false;
            }
            // The next window starts early enough to see a match that
            // straddles the two.
            at = (end - overlap.min(end)).max(at + 1);
        }
    }

    fn original(&self) -> Option<&str> {
        let bytes = self.original.of(&self.map)?;
        let ok = self.original_ok.get_or_init(|| {
            self.original.hash == xxhash_rust::xxh3::xxh3_64(bytes)
                && std::str::from_utf8(bytes).is_ok()
        });
        // Checked once above; a failed check never reaches here.
        ok.then(|| std::str::from_utf8(bytes).ok()).flatten()
    }

    /// The text as a fresh read of the session gives it (a damaged cache).
    fn fallback(&self) -> &MessageText {
        self.fallback.get_or_init(|| {
            let text = (self.reread)(&self.path).unwrap_or_default();
            Box::new(MessageText::new(text))
        })
    }
}

impl MessageText {
    pub fn new(original: String) -> MessageText {
        MessageText {
            source: Source::Owned(original),
            folded: OnceLock::new(),
        }
    }

    pub(crate) fn mapped(mapped: Mapped) -> MessageText {
        MessageText {
            source: Source::Mapped(mapped),
            folded: OnceLock::new(),
        }
    }

    /// Every user and assistant text, joined by spaces.
    pub fn original(&self) -> &str {
        match &self.source {
            Source::Owned(s) => s,
            Source::Mapped(m) => m.original().unwrap_or_else(|| m.fallback().original()),
        }
    }

    /// The text as the cache holds it, if it is intact (no fallback read).
    pub(crate) fn cached_original(&self) -> Option<&str> {
        match &self.source {
            Source::Owned(s) => Some(s),
            Source::Mapped(m) => m.original(),
        }
    }

    /// The folded text (UTF-8): lower case, white-space runs as one space,
    /// trimmed. A word (no white space) is in it exactly when it is in the
    /// lower-case text, and a normalized phrase exactly when it is in the
    /// normalized text, so one folded copy serves both searches.
    pub fn folded(&self) -> &[u8] {
        match &self.source {
            Source::Owned(s) => self
                .folded
                .get_or_init(|| crate::jstext::normalize_whitespace_lower(s))
                .as_bytes(),
            Source::Mapped(m) => m.folded().unwrap_or_else(|| m.fallback().folded()),
        }
    }

    /// Whether the folded text holds `needle` (see [`MessageText::folded`]).
    pub(crate) fn folded_contains(&self, needle: &[u8]) -> bool {
        match &self.source {
            Source::Mapped(m) => match m.folded() {
                Some(bytes) => m.folded_holds(bytes, needle),
                None => memchr::memmem::find(m.fallback().folded(), needle).is_some(),
            },
            Source::Owned(_) => memchr::memmem::find(self.folded(), needle).is_some(),
        }
    }

    /// Lets the pages a search of the mapped text touched go (they stay in
    /// the page cache): a search of every session then holds no more of
    /// the cache in memory than the texts being scanned at that moment.
    pub(crate) fn release(&self) {
        if let Source::Mapped(m) = &self.source {
            m.folded.release(&m.map);
        }
    }
}

/// A range of the mapped texts file and the xxh3 of its bytes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: u64,
    pub len: u64,
    pub hash: u64,
}

impl Span {
    /// Its bytes in `map`; `None` when it lies outside.
    pub(crate) fn of<'m>(&self, map: &'m [u8]) -> Option<&'m [u8]> {
        let start = usize::try_from(self.start).ok()?;
        let end = start.checked_add(usize::try_from(self.len).ok()?)?;
        map.get(start..end)
    }

    pub(crate) fn intact(&self, map: &[u8]) -> bool {
        self.of(map)
            .is_some_and(|b| xxhash_rust::xxh3::xxh3_64(b) == self.hash)
    }

    /// Drops this range's pages from the process (not from the page cache).
    pub(crate) fn release(&self, map: &memmap2::Mmap) {
        let (Ok(start), Ok(len)) = (usize::try_from(self.start), usize::try_from(self.len)) else {
            return;
        };
        if len < 4096 || start.saturating_add(len) > map.len() {
            return;
        }
        // SAFETY: the mapping is of a file piscope only ever replaces by a
        // rename, never writes in place, so a page dropped here reads back
        // the same bytes when next touched; no reference sees other bytes.
        #[cfg(unix)]
        unsafe {
            let _ = map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, len);
        }
    }
}

impl Span {
    pub(crate) fn over(start: u64, bytes: &[u8]) -> Span {
        Span {
            start,
            len: bytes.len() as u64,
            hash: xxhash_rust::xxh3::xxh3_64(bytes),
        }
    }
}

impl Default for Span {
    fn default() -> Span {
        Span {
            start: 0,
            len: 0,
            hash: xxhash_rust::xxh3::xxh3_64(&[]),
        }
    }
}
