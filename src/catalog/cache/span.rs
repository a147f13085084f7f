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
    crate::session::read::file::read_exact_at(file, buf, at).unwrap_or(false)
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
    read_whole(span.len, span.blocks(), B, into, &mut |ks, into| {
        read_span_blocks(file, span, ks, into)
    })
}

/// Fills `into` with the `len` bytes of a span of `blocks` blocks of `b`
/// bytes, as `read` reads runs of them into their places, at most
/// [`MOST_READ`] bytes a read; false when one fails.
fn read_whole(
    len: u64,
    blocks: usize,
    b: usize,
    into: &mut Vec<u8>,
    read: &mut dyn FnMut(std::ops::Range<usize>, &mut [u8]) -> bool,
) -> bool {
    let Ok(len) = usize::try_from(len) else {
        return false;
    };
    // Every byte is written over: only growth needs filling first.
    into.resize(len, 0);
    let per_read = (MOST_READ / b).max(1);
    (0..blocks)
        .step_by(per_read)
        .all(|k| read(k..(k + per_read).min(blocks), into))
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

/// A range of a cache file holding bytes compressed block by block in lz4
/// (a third of the bytes or so, decompressed at a few GB/s): each
/// `BLOCK` bytes of the text (the last one shorter) stored as one frame,
/// with the length and xxh3 of each frame as stored. A block is read back,
/// checked and decompressed alone, so a search that needs one entry's text
/// reads only the frames that hold it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub(crate) struct PackedSpan {
    pub start: u64,
    /// The bytes as read back (decompressed).
    pub len: u64,
    /// Each block's frame: its length as stored.
    pub stored: Vec<u32>,
    /// And its xxh3 as stored.
    pub hashes: Vec<u64>,
}

impl PackedSpan {
    /// Compresses `bytes` to be stored from `start`: the span and the
    /// bytes to write there. `None` if a frame is too long to record.
    pub(crate) fn pack(start: u64, bytes: &[u8]) -> Option<(PackedSpan, Vec<u8>)> {
        let mut out = Vec::with_capacity(bytes.len() / 3 + 64);
        let mut span = PackedSpan {
            start,
            len: bytes.len() as u64,
            stored: Vec::new(),
            hashes: Vec::new(),
        };
        for block in bytes.chunks(BLOCK) {
            let frame = lz4_flex::block::compress(block);
            span.stored.push(u32::try_from(frame.len()).ok()?);
            span.hashes.push(xxhash_rust::xxh3::xxh3_64(&frame));
            out.extend_from_slice(&frame);
        }
        Some((span, out))
    }

    /// How many blocks it has (as many as frames, when it is sound).
    pub(crate) fn blocks(&self) -> usize {
        usize::try_from(self.len.div_ceil(BLOCK as u64)).unwrap_or(usize::MAX)
    }

    /// The bytes it takes in the file.
    pub(crate) fn stored_len(&self) -> u64 {
        self.stored.iter().map(|&n| u64::from(n)).sum()
    }

    /// Whether it has one frame and one hash per block and ends by
    /// `file_len`.
    pub(crate) fn sound(&self, file_len: u64) -> bool {
        self.stored.len() == self.blocks()
            && self.hashes.len() == self.blocks()
            && self
                .start
                .checked_add(self.stored_len())
                .is_some_and(|end| end <= file_len)
    }

    /// Where the frames of blocks `ks` start in the file, and their length.
    fn frames(&self, ks: &std::ops::Range<usize>) -> (u64, usize) {
        let before: u64 = self.stored[..ks.start].iter().map(|&n| u64::from(n)).sum();
        let len: usize = self.stored[ks.clone()].iter().map(|&n| n as usize).sum();
        (self.start + before, len)
    }

    /// The bytes block `k` holds once decompressed.
    fn block_len(&self, k: usize) -> usize {
        let from = k as u64 * BLOCK as u64;
        (self.len.saturating_sub(from)).min(BLOCK as u64) as usize
    }
}

/// Reads the frames of `span` as stored, each checked (for copying them
/// elsewhere as they are).
pub(crate) fn read_stored(file: &File, span: &PackedSpan, into: &mut Vec<u8>) -> bool {
    if span.stored.len() != span.blocks() || span.hashes.len() != span.blocks() {
        return false;
    }
    let ks = 0..span.blocks();
    let (at, len) = span.frames(&ks);
    into.resize(len, 0);
    read_exact_at(file, into, at) && frames_sound(span, ks, into)
}

/// Whether each frame of blocks `ks`, one after the other in `stored`, has
/// its hash.
fn frames_sound(span: &PackedSpan, ks: std::ops::Range<usize>, stored: &[u8]) -> bool {
    let mut at = 0usize;
    ks.into_iter().all(|k| {
        let n = span.stored[k] as usize;
        let ok = stored
            .get(at..at + n)
            .is_some_and(|f| span.hashes[k] == xxhash_rust::xxh3::xxh3_64(f));
        at += n;
        ok
    })
}

/// Reads `span` whole into `into`, every frame checked and decompressed.
pub(crate) fn read_packed(file: &File, span: &PackedSpan, into: &mut Vec<u8>) -> bool {
    read_whole(span.len, span.blocks(), BLOCK, into, &mut |ks, into| {
        read_packed_blocks(file, span, ks, into)
    })
}

/// Reads the frames of blocks `ks` of `span` with one read, checks each
/// and decompresses it into its place in `into` (as long as the span's
/// bytes).
fn read_packed_blocks(
    file: &File,
    span: &PackedSpan,
    ks: std::ops::Range<usize>,
    into: &mut [u8],
) -> bool {
    let blocks = span.blocks();
    if ks.end > blocks || span.stored.len() != blocks || span.hashes.len() != blocks {
        return false;
    }
    if ks.is_empty() {
        return true;
    }
    let (at, len) = span.frames(&ks);
    let mut stored = vec![0u8; len];
    if !read_exact_at(file, &mut stored, at) || !frames_sound(span, ks.clone(), &stored) {
        return false;
    }
    let mut from = 0usize;
    ks.into_iter().all(|k| {
        let frame = &stored[from..from + span.stored[k] as usize];
        from += frame.len();
        let start = k * BLOCK;
        let want = span.block_len(k);
        let Some(out) = into.get_mut(start..start + want) else {
            return false;
        };
        lz4_flex::block::decompress_into(frame, out).ok() == Some(want)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packed bytes read back whole and block by block are the bytes; a
    /// flipped stored byte, a short file or a frame that lies about its
    /// length reads as nothing.
    #[test]
    fn packed_spans_read_back_as_written_and_refuse_damage() {
        let text: Vec<u8> = (0..BLOCK * 2 + 12345)
            .map(|i| b"the widget renders twice\n"[i % 25] ^ (i / 7919) as u8)
            .collect();
        let (span, stored) = PackedSpan::pack(16, &text).expect("packed");
        assert!(
            stored.len() < text.len() / 3,
            "{} of {}",
            stored.len(),
            text.len()
        );
        let mut tmp = tempfile::tempfile().expect("temp file");
        std::io::Write::write_all(&mut tmp, &[7u8; 16]).expect("header");
        std::io::Write::write_all(&mut tmp, &stored).expect("frames");
        let file_len = 16 + stored.len() as u64;
        assert!(span.sound(file_len));
        assert!(!span.sound(file_len - 1));
        let mut back = Vec::new();
        assert!(read_packed(&tmp, &span, &mut back));
        assert_eq!(back, text);
        let mut part = vec![0u8; text.len()];
        assert!(read_packed_blocks(&tmp, &span, 2..3, &mut part));
        assert_eq!(part[2 * BLOCK..], text[2 * BLOCK..]);
        let mut copy = Vec::new();
        assert!(read_stored(&tmp, &span, &mut copy));
        assert_eq!(copy, stored);
        // The empty text is no frames, and reads back empty.
        let (empty, none) = PackedSpan::pack(0, b"").expect("packed");
        assert!(none.is_empty() && empty.blocks() == 0);
        // Damage.
        let mut flipped = stored.clone();
        flipped[stored.len() / 2] ^= 1;
        let mut bad = tempfile::tempfile().expect("temp file");
        std::io::Write::write_all(&mut bad, &[7u8; 16]).expect("header");
        std::io::Write::write_all(&mut bad, &flipped).expect("frames");
        assert!(!read_packed(&bad, &span, &mut back));
        let mut lying = span.clone();
        lying.len += 1;
        assert!(!read_packed(&tmp, &lying, &mut back));
        let mut short = span.clone();
        short.stored.pop();
        assert!(!read_packed(&tmp, &short, &mut back));
    }
}
