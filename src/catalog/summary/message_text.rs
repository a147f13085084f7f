//! A session's searchable text, held in memory or read from the cache's
//! texts file by position, and its folded form (what words and phrases are
//! looked for in).
//!
//! The texts file is read with positional reads into a reused buffer, a
//! block at a time, never mapped (see [`crate::catalog::cache::span`]);
//! each block's xxh3 is checked on every read, so a short, changed or
//! damaged file is noticed at the block it damaged and the session is read
//! again.

use crate::catalog::cache::span::{MOST_READ, Span, read_blocks, read_span};
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
/// file (see [`crate::catalog::cache`]) each time it is searched.
pub struct MessageText {
    source: Source,
    folded: OnceLock<String>,
}

enum Source {
    Owned(String),
    Stored(Stored),
}

/// How many bytes of a session's text in the texts file one hash covers:
/// small, since a search mostly finds its word near the start, and reads
/// and checks only as far as that (see [`Stored::folded_holds`]).
pub(crate) const TEXT_BLOCK: usize = 1 << 12;

/// A range of the texts file, hashed a [`TEXT_BLOCK`] at a time.
pub(crate) type TextSpan = Span<TEXT_BLOCK>;

/// Two ranges of the cache's texts file; `path` is the session they came
/// from, read again should a range not match its hashes.
pub(crate) struct Stored {
    file: Arc<File>,
    folded: TextSpan,
    original: TextSpan,
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

/// One read buffer per thread, reused for every stored text scanned, and
/// which checked blocks of which text it holds (from the text's start,
/// nothing carried before them), so that the next word of a query looked
/// for in the same text reads them no more.
#[derive(Default)]
struct Held {
    buf: Vec<u8>,
    /// The texts file (kept by a weak handle, so that its address names no
    /// other file while held), where the span starts, and how many blocks.
    blocks: Option<(std::sync::Weak<File>, u64, usize)>,
}

impl Held {
    /// How many blocks of `span` it holds from the start (0 if none).
    fn holds<const B: usize>(&self, file: &Arc<File>, span: &Span<B>) -> usize {
        match &self.blocks {
            Some((f, start, n))
                if std::ptr::eq(f.as_ptr(), Arc::as_ptr(file)) && *start == span.start =>
            {
                *n
            }
            _ => 0,
        }
    }
}

thread_local! {
    static BUF: RefCell<Held> = RefCell::new(Held::default());
}

impl Stored {
    pub(crate) fn new(
        file: Arc<File>,
        folded: TextSpan,
        original: TextSpan,
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

    /// Whether the folded text holds `needle`, read a few blocks at a
    /// time, each read four times the last up to [`MOST_READ`] (the end of
    /// each read kept before the next, so a match across the two is seen);
    /// `None` when the stored text is damaged. A match is reported as soon
    /// as checked blocks show it, so a word near the start costs a block;
    /// "no match" needs every block.
    fn folded_holds(&self, needle: &[u8]) -> Option<bool> {
        if self.damaged.load(Ordering::Relaxed) {
            return None;
        }
        let finder = memchr::memmem::Finder::new(needle);
        let keep = needle.len().saturating_sub(1);
        let span = &self.folded;
        let blocks = span.blocks();
        let r = BUF.with(|held| {
            let held = &mut *held.borrow_mut();
            let mut next = held.holds(&self.file, span).min(blocks);
            if next > 0 && finder.find(&held.buf).is_some() {
                return Some(true);
            }
            let mut carried = 0;
            let mut run = 1;
            while next < blocks {
                if next > 0 {
                    held.blocks = None;
                    let buf = &mut held.buf;
                    let tail = keep.min(buf.len());
                    let from = buf.len() - tail;
                    buf.copy_within(from.., 0);
                    carried = tail;
                }
                let n = run.min(blocks - next);
                let len = span.blocks_len(next..next + n);
                held.buf.resize(carried + len, 0);
                if !read_blocks(&self.file, span, next..next + n, &mut held.buf[carried..]) {
                    held.blocks = None;
                    return None;
                }
                if next == 0 {
                    held.blocks = Some((Arc::downgrade(&self.file), span.start, n));
                }
                if finder.find(&held.buf).is_some() {
                    return Some(true);
                }
                next += n;
                run = (run * 4).min(MOST_READ / TEXT_BLOCK);
            }
            Some(false)
        });
        self.note(r)
    }

    /// The whole of `span`, every block checked.
    fn read_all(&self, span: &TextSpan, into: &mut Vec<u8>) -> bool {
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
                let mut buf = BUF.with(|b| {
                    let mut held = b.borrow_mut();
                    held.blocks = None;
                    std::mem::take(&mut held.buf)
                });
                let text = m
                    .read_all(&m.original, &mut buf)
                    .then(|| std::str::from_utf8(&buf).ok())
                    .flatten();
                let r = match m.note(text) {
                    Some(t) => f(t),
                    None => m.fallback().with_original(f),
                };
                BUF.with(|b| b.borrow_mut().buf = buf);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Folded texts of many blocks, each stored after the other in one
    /// file, as the texts file holds them.
    fn stored_texts(texts: &[&[u8]]) -> (tempfile::NamedTempFile, Vec<MessageText>) {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        let mut at = 0u64;
        let mut spans = Vec::new();
        for t in texts {
            file.write_all(t).expect("write");
            spans.push(TextSpan::over(at, t));
            at += t.len() as u64;
        }
        let handle = Arc::new(File::open(file.path()).expect("open"));
        let fallback: Reread = |_| Some("the fallback text".to_string());
        let stored = spans
            .into_iter()
            .map(|s| {
                let original = TextSpan { ..s.clone() };
                let path = PathBuf::from("/s/a.jsonl");
                MessageText::stored(Stored::new(handle.clone(), s, original, path, fallback))
            })
            .collect();
        (file, stored)
    }

    /// Lower-case letters that never repeat a 4-letter word nearby.
    fn text(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b'a' + (x % 26) as u8
            })
            .collect()
    }

    #[test]
    fn a_word_is_found_wherever_it_lies_across_blocks_and_reads() {
        let a = text(TEXT_BLOCK * 400 + 123, 7);
        let b = text(TEXT_BLOCK * 3 + 5, 11);
        let (_file, stored) = stored_texts(&[&a, &b]);
        // Where blocks meet, and where reads of 1, 4, 16, 64 blocks meet.
        let mut places: Vec<usize> = (1..400).map(|k| k * TEXT_BLOCK).collect();
        places.extend([0, 1, a.len() - 9, a.len() - 1]);
        for at in places {
            for len in [1, 2, 9] {
                for back in [0, len / 2, len - 1] {
                    let from = at.saturating_sub(back);
                    let Some(needle) = a.get(from..from + len) else {
                        continue;
                    };
                    let want = memchr::memmem::find(&a, needle).is_some();
                    // Each text in turn, as a query's words are looked for.
                    assert_eq!(stored[0].folded_contains(needle), want, "{at} {len}");
                    let in_b = memchr::memmem::find(&b, needle).is_some();
                    assert_eq!(stored[1].folded_contains(needle), in_b, "{at} {len}");
                    assert_eq!(stored[0].folded_contains(needle), want, "again {at}");
                }
            }
        }
        for absent in [&b"0"[..], b"abc0", b"zzzzzzzzzzzz"] {
            assert!(!stored[0].folded_contains(absent));
            assert!(!stored[1].folded_contains(absent));
        }
        assert_eq!(&*stored[0].folded(), &a[..]);
        assert_eq!(&*stored[1].folded(), &b[..]);
    }

    #[test]
    fn a_damaged_block_is_noticed_where_the_search_reaches_it() {
        let a = text(TEXT_BLOCK * 40, 3);
        let (file, stored) = stored_texts(&[&a]);
        let early = a[10..20].to_vec();
        let late = a[TEXT_BLOCK * 30..TEXT_BLOCK * 30 + 10].to_vec();
        let mut bytes = a.clone();
        bytes[TEXT_BLOCK * 20 + 7] ^= 1;
        std::fs::write(file.path(), &bytes).expect("damage");
        // Found before the damage: the damaged block is never read.
        assert!(stored[0].folded_contains(&early));
        // Past it: the text is read again from the session (here, the
        // fallback), and the stored one is not believed again.
        assert!(!stored[0].folded_contains(&late));
        assert!(stored[0].folded_contains(b"fallback"));
        assert!(!stored[0].folded_contains(&early));
    }
}
