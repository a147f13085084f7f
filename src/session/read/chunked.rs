//! A section of a stored index kept in chunks, each with its hash, read
//! back at the first use of something in it: a session's entries (see
//! [`crate::session::entries`]) and its rows' texts are left in the index
//! so, and opening a session reads only the chunks its screen shows.

use serde::{Deserialize, Serialize};
use std::fs::File;
use std::sync::OnceLock;

/// Where a chunk's bytes end in its section (each starts where the one
/// before it ends), and their xxh3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Piece {
    pub end: u64,
    pub hash: u64,
}

/// Where a section lies: a file, and the range of it the chunks fill.
#[derive(Debug)]
pub struct Section {
    pub file: File,
    pub base: u64,
    pub len: u64,
}

#[cfg(test)]
impl Section {
    /// A temporary file holding `body` after a few other bytes, as an
    /// index holds a section.
    pub(crate) fn holding(body: &[u8]) -> Section {
        use std::io::Write;
        let mut file = tempfile::tempfile().expect("a temporary file");
        file.write_all(b"head").expect("written");
        file.write_all(body).expect("written");
        Section {
            file,
            base: 4,
            len: body.len() as u64,
        }
    }
}

/// Chunks of a [`Section`], each made into a `T` at its first use.
#[derive(Debug)]
pub struct Chunked<T> {
    section: Section,
    pieces: Vec<Piece>,
    made: Box<[OnceLock<T>]>,
}

impl<T> Chunked<T> {
    /// The chunks `pieces` of `section`; `None` unless they fill it, their
    /// ends rising.
    pub fn new(section: Section, pieces: Vec<Piece>) -> Option<Chunked<T>> {
        let fits = pieces.windows(2).all(|w| w[0].end <= w[1].end)
            && pieces.last().map_or(0, |p| p.end) == section.len;
        fits.then(|| Chunked {
            made: (0..pieces.len()).map(|_| OnceLock::new()).collect(),
            section,
            pieces,
        })
    }

    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Chunk `k`, made at the first call by `make` from its bytes (`None`
    /// when they do not read back as written: cut short, or another hash).
    /// `k` must be below [`Chunked::len`].
    pub fn get(&self, k: usize, make: impl FnOnce(Option<Vec<u8>>) -> T) -> &T {
        self.made[k].get_or_init(|| make(self.bytes(k)))
    }

    /// Chunk `k`, when it has been made.
    pub fn made_chunk(&self, k: usize) -> Option<&T> {
        self.made.get(k).and_then(OnceLock::get)
    }

    /// How many chunks have been made so far.
    pub fn made(&self) -> usize {
        self.made.iter().filter(|c| c.get().is_some()).count()
    }

    /// Chunk `k`'s bytes, checked against its hash (`None` past the last).
    pub fn bytes(&self, k: usize) -> Option<Vec<u8>> {
        if k >= self.pieces.len() {
            return None;
        }
        let p = self.pieces[k];
        let start = k.checked_sub(1).map_or(0, |j| self.pieces[j].end);
        let mut bytes = vec![0u8; usize::try_from(p.end.checked_sub(start)?).ok()?];
        let at = self.section.base.checked_add(start)?;
        let whole = super::file::read_exact_at(&self.section.file, &mut bytes, at).ok()?;
        (whole && xxhash_rust::xxh3::xxh3_64(&bytes) == p.hash).then_some(bytes)
    }
}

/// `bytes` as little-endian u32s; `None` unless they are whole words.
/// A stored tree's arrays are tens of megabytes each: their memory comes
/// in huge pages where the kernel gives them ([`crate::par::big_vec`]),
/// and past [`WORDS_ON_TWO`] words they are filled half on another core,
/// since most of their cost is the kernel clearing fresh pages.
pub fn words(bytes: &[u8]) -> Option<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let n = bytes.len() / 4;
    let mut out = crate::par::big_vec(n);
    let fill = |to: &mut [std::mem::MaybeUninit<u32>], from: &[u8]| {
        for (w, b) in to.iter_mut().zip(from.chunks_exact(4)) {
            w.write(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
    };
    let room = &mut out.spare_capacity_mut()[..n];
    if n < WORDS_ON_TWO {
        fill(room, bytes);
    } else {
        let (first, second) = room.split_at_mut(n / 2);
        let (from_first, from_second) = bytes.split_at(n / 2 * 4);
        // Taken by the other thread, or here if it could not start.
        let second = std::sync::Mutex::new(Some(second));
        let take = || second.lock().ok().and_then(|mut s| s.take());
        let (other, ()) = crate::par::beside(
            "piscope-words",
            || take().map(|to| fill(to, from_second)),
            || fill(first, from_first),
        );
        // A thread that failed partway (or found no half to take) left
        // its half unwritten.
        other.flatten()?;
    }
    // SAFETY: the first `n` items of the room were each written above:
    // the first half here, the second by the other thread, which finished,
    // or here when it could not start (see `par::beside`).
    unsafe { out.set_len(n) };
    Some(out)
}

/// Words from which [`words`] fills its vector on two cores (16 MB).
const WORDS_ON_TWO: usize = 4 << 20;

/// Whether each of `pieces`, from `base` on in `bytes` (a whole file,
/// mapped), has its hash.
pub fn sound(pieces: &[Piece], base: u64, bytes: &[u8]) -> bool {
    let mut start = 0u64;
    pieces.iter().all(|p| {
        let range = usize::try_from(base + start)
            .ok()
            .zip(usize::try_from(base + p.end).ok());
        start = p.end;
        range
            .and_then(|(a, b)| bytes.get(a..b))
            .is_some_and(|b| xxhash_rust::xxh3::xxh3_64(b) == p.hash)
    })
}

/// Writes `chunks` (each a chunk's bytes, as made) to `w` one after another: the
/// pieces a [`Chunked`] reads them back by.
pub fn write_chunks(
    chunks: impl IntoIterator<Item = std::io::Result<Vec<u8>>>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<Vec<Piece>> {
    let mut end = 0u64;
    let mut pieces = Vec::new();
    for bytes in chunks {
        let bytes = bytes?;
        w.write_all(&bytes)?;
        end += bytes.len() as u64;
        pieces.push(Piece {
            end,
            hash: xxhash_rust::xxh3::xxh3_64(&bytes),
        });
    }
    Ok(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes read as words are the words, on one core or two (an odd
    /// count split unevenly too), and bytes that are not whole words are
    /// none.
    #[test]
    fn words_are_the_little_endian_words_on_one_core_or_two() {
        for n in [0, 1, 7, WORDS_ON_TWO - 1, WORDS_ON_TWO, WORDS_ON_TWO + 3] {
            let want: Vec<u32> = (0..n as u32)
                .map(|i| i.wrapping_mul(2_654_435_761))
                .collect();
            let bytes: Vec<u8> = want.iter().flat_map(|w| w.to_le_bytes()).collect();
            assert_eq!(words(&bytes).as_deref(), Some(&want[..]), "{n} words");
            assert_eq!(
                words(&bytes[..bytes.len().saturating_sub(1)]).is_some(),
                n == 0
            );
        }
    }

    /// Chunks read back as written, each at its first use; one whose bytes
    /// changed reads as none (and the section, checked whole, is not
    /// sound); pieces that do not fill their section are refused.
    #[test]
    fn chunks_read_back_when_used_and_refuse_damage() {
        let chunks: Vec<Vec<u8>> = vec![b"one".to_vec(), b"".to_vec(), b"three".to_vec()];
        let mut body = Vec::new();
        let pieces = write_chunks(chunks.iter().cloned().map(Ok), &mut body).unwrap();
        let section = Section::holding;
        let c = Chunked::new(section(&body), pieces.clone()).unwrap();
        assert_eq!(c.made(), 0);
        for k in [2, 0, 1] {
            assert_eq!(c.get(k, |b| b), &Some(chunks[k].clone()));
        }
        assert_eq!(c.made(), 3);
        // Made once: a second call does not read again.
        assert_eq!(c.get(0, |_| None), &Some(b"one".to_vec()));
        let whole = |body: &[u8]| [b"head".as_slice(), body].concat();
        assert!(sound(&pieces, 4, &whole(&body)));
        let mut damaged = body.clone();
        damaged[4] ^= 1;
        assert!(!sound(&pieces, 4, &whole(&damaged)));
        assert!(!sound(&pieces, 4, &whole(&body[..body.len() - 1])));
        let c = Chunked::new(section(&damaged), pieces.clone()).unwrap();
        assert_eq!(c.get(0, |b| b), &Some(b"one".to_vec()));
        assert_eq!(c.get(2, |b| b), &None);
        let mut short = pieces.clone();
        short.pop();
        assert!(Chunked::<()>::new(section(&body), short).is_none());
        let mut falling = pieces;
        falling.swap(0, 2);
        assert!(Chunked::<()>::new(section(&body), falling).is_none());
    }
}
