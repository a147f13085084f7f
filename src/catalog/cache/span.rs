//! Checked ranges of the cache's files: a range and the xxh3 of each block
//! of it, read back by position with every block's hash checked.
//!
//! Cache files are read with positional reads, never mapped: a mapped file
//! that another process truncates (another piscope, the user, a damaged
//! disk) kills the reader with SIGBUS, where a read merely comes back short.

use serde::{Deserialize, Serialize};
use std::fs::File;

/// How many bytes of a deep-search text one hash covers (see
/// [`crate::catalog::search::deep_index`]); its chunks are read whole or a block at a time.
pub(crate) const BLOCK: usize = 1 << 20;

/// The most bytes one read brings in.
pub(crate) const MOST_READ: usize = 1 << 20;

/// Fills `buf` from `at`; false when the file ends first or cannot be read.
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> bool {
    let mut done = 0;
    while done < buf.len() {
        match crate::session::read::blocks::read_at(file, &mut buf[done..], at + done as u64) {
            Ok(0) => return false,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    true
}

/// A range of a cache file and the xxh3 of each `B` bytes of it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub(crate) struct Span<const B: usize = BLOCK> {
    pub start: u64,
    pub len: u64,
    pub hashes: Vec<u64>,
}

impl<const B: usize> Span<B> {
    pub(crate) fn over(start: u64, bytes: &[u8]) -> Span<B> {
        Span {
            start,
            len: bytes.len() as u64,
            hashes: bytes.chunks(B).map(xxhash_rust::xxh3::xxh3_64).collect(),
        }
    }

    /// How many blocks it has (as many as hashes, when it is sound).
    pub(crate) fn blocks(&self) -> usize {
        usize::try_from(self.len.div_ceil(B as u64)).unwrap_or(usize::MAX)
    }

    /// Where block `k` starts in the file, and its length.
    fn block(&self, k: usize) -> (u64, usize) {
        let from = k as u64 * B as u64;
        let len = (self.len - from).min(B as u64) as usize;
        (self.start + from, len)
    }

    /// How many bytes the blocks `ks` (of those it has) hold.
    pub(crate) fn blocks_len(&self, ks: std::ops::Range<usize>) -> usize {
        match ks.end.checked_sub(1) {
            Some(last) if !ks.is_empty() => (last - ks.start) * B + self.block(last).1,
            _ => 0,
        }
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
pub(crate) fn read_span<const B: usize>(file: &File, span: &Span<B>, into: &mut Vec<u8>) -> bool {
    let Ok(len) = usize::try_from(span.len) else {
        return false;
    };
    // Every byte is read over: only growth needs filling first.
    into.resize(len, 0);
    let per_read = (MOST_READ / B).max(1);
    let blocks = span.blocks();
    (0..blocks)
        .step_by(per_read)
        .all(|k| read_span_blocks(file, span, k..(k + per_read).min(blocks), into))
}

/// Reads the blocks `ks` of `span` into their places in `into` (as long
/// as the span) with one read, each checked; for reading only what is
/// needed.
pub(crate) fn read_span_blocks<const B: usize>(
    file: &File,
    span: &Span<B>,
    ks: std::ops::Range<usize>,
    into: &mut [u8],
) -> bool {
    if ks.end > span.blocks() {
        return false;
    }
    let from = ks.start * B;
    let n = span.blocks_len(ks.clone());
    into.get_mut(from..from + n)
        .is_some_and(|b| read_blocks(file, span, ks, b))
}

/// Reads the blocks `ks` of `span` (they are some of its blocks) into
/// `into` (their length) with one read, and checks each block's hash.
pub(crate) fn read_blocks<const B: usize>(
    file: &File,
    span: &Span<B>,
    ks: std::ops::Range<usize>,
    into: &mut [u8],
) -> bool {
    if ks.is_empty() {
        return into.is_empty();
    }
    ks.end <= span.blocks()
        && read_exact_at(file, into, span.block(ks.start).0)
        && into
            .chunks(B)
            .zip(ks)
            .all(|(b, k)| span.hashes.get(k) == Some(&xxhash_rust::xxh3::xxh3_64(b)))
}
