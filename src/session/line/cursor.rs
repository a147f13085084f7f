//! A validating JSON cursor over one line, for the index pass's fast path:
//! it accepts only what serde_json accepts, and gives up (`None`) otherwise.
//!
//! Giving up is never an answer, only a hand-over: the caller then reads the
//! line with serde, which decides validity and words the error. So the cursor
//! may refuse more than serde does (lone surrogate escapes, deep nesting,
//! unusual numbers), but must never accept less strictly.

use crate::session::line::fields::Scalar;
use compact_str::CompactString;
use std::borrow::Cow;

/// Deeper nesting is left to serde (its own limit is 128 levels, counted
/// only where it decodes rather than skips).
const MAX_DEPTH: u32 = 64;

const ONES: u64 = u64::MAX / 255;
const HIGH: u64 = ONES << 7;

/// High bit set in each byte of `w` that is `"`, `\` or below 0x20. Borrows
/// only travel upwards, so the lowest flagged byte is always a true one.
#[inline(always)]
fn specials(w: u64) -> u64 {
    let ctrl = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * u64::from(b'"'));
    let q = q.wrapping_sub(ONES) & !q;
    let bs = w ^ (ONES * u64::from(b'\\'));
    let bs = bs.wrapping_sub(ONES) & !bs;
    (ctrl | q | bs) & HIGH
}

/// High bit set in each byte of `w` that is not an ASCII digit. Each
/// byte's sums stay below 0x100, so no carry reaches the next.
#[inline(always)]
fn not_digits(w: u64) -> u64 {
    let low = w & !HIGH;
    let above_nine = low + ONES * (0x80 - 0x3a);
    let below_zero = !(low + ONES * (0x80 - 0x30));
    (above_nine | below_zero | w) & HIGH
}

/// `a == b`, without a call for the short texts the readers compare most
/// (roles, entry types, model names): up to 32 bytes are compared as two
/// or four words that may overlap, a shorter text byte by byte.
#[inline]
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let at = |s: &[u8], i: usize| word(s, i).unwrap_or(0);
    match n {
        0..=7 => a.iter().zip(b).all(|(x, y)| x == y),
        8..=16 => at(a, 0) == at(b, 0) && at(a, n - 8) == at(b, n - 8),
        17..=32 => {
            at(a, 0) == at(b, 0)
                && at(a, 8) == at(b, 8)
                && at(a, n - 16) == at(b, n - 16)
                && at(a, n - 8) == at(b, n - 8)
        }
        _ => a == b,
    }
}

#[inline(always)]
fn word(b: &[u8], i: usize) -> Option<u64> {
    let chunk: [u8; 8] = b.get(i..i + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(chunk))
}

/// The bytes that make a simple escape after a `\`: `"\/bfnrt` (a table,
/// not a `match`: which escape comes next is anyone's guess, and a jump on
/// it is mispredicted as often).
const SIMPLE_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let simple = *b"\"\\/bfnrt";
    let mut k = 0;
    while k < simple.len() {
        table[simple[k] as usize] = true;
        k += 1;
    }
    table
};

/// Where a scan inside a string stopped: the first `"`, `\` or control
/// byte at or after the start (`b.len()` when there is none), and whether a
/// byte above 0x7f came before it (so the string needs a UTF-8 check).
#[derive(Clone, Copy)]
struct Stop {
    at: usize,
    high: bool,
}

/// Inside strings this is where the work is.
#[inline]
fn find_special(b: &[u8], i: usize) -> Stop {
    #[cfg(target_arch = "x86_64")]
    return words_after(b, sse2::find_special(b, i));
    #[cfg(not(target_arch = "x86_64"))]
    find_special_words(b, i)
}

/// Where a string being skipped needs the caller: its closing `"`, a
/// control byte, or a `\` whose escape is not taken here; with whether a
/// byte above 0x7f came before. On x86-64 the vectors take each `\`
/// followed by one of `"\/bfnrt` in their stride, so a string of code
/// (an escape every twenty bytes or so) is not stopped at each; a `\u`,
/// a bad escape, and one split across two vectors' rounds stop it as
/// [`find_special`] does.
#[inline]
fn find_unescaped(b: &[u8], i: usize) -> Stop {
    #[cfg(target_arch = "x86_64")]
    return words_after(b, sse2::find_unescaped(b, i, avx2::here()));
    #[cfg(not(target_arch = "x86_64"))]
    find_special_words(b, i)
}

/// The vectors' stop, or where they left off (fewer than 16 bytes on,
/// and whether high bytes came before) read on word by word.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn words_after(b: &[u8], vectors: Result<Stop, (usize, bool)>) -> Stop {
    match vectors {
        Ok(stop) => stop,
        Err((i, high)) => {
            let stop = find_special_words(b, i);
            Stop {
                at: stop.at,
                high: high || stop.high,
            }
        }
    }
}

/// Eight bytes at a time, two words per round, then byte by byte.
#[inline]
fn find_special_words(b: &[u8], mut i: usize) -> Stop {
    let mut high = 0;
    while let (Some(w0), Some(w1)) = (word(b, i), word(b, i + 8)) {
        let (m0, m1) = (specials(w0), specials(w1));
        if m0 != 0 {
            let k = m0.trailing_zeros() / 8;
            let before = (1u64 << (8 * k)) - 1;
            return Stop {
                at: i + k as usize,
                high: high | (w0 & HIGH & before) != 0,
            };
        }
        if m1 != 0 {
            let k = m1.trailing_zeros() / 8;
            let before = (1u64 << (8 * k)) - 1;
            return Stop {
                at: i + 8 + k as usize,
                high: high | (w0 & HIGH) | (w1 & HIGH & before) != 0,
            };
        }
        high |= (w0 | w1) & HIGH;
        i += 16;
    }
    let mut high = high != 0;
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            break;
        }
        high |= c >= 0x80;
        i += 1;
    }
    Stop { at: i, high }
}

/// Sixteen or thirty-two bytes at a time with SSE2, which every x86-64
/// processor has.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::Stop;
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    /// Where the first special byte of a round starting at `i` is (`mask`
    /// marks them, `top` the high bytes), and whether a high byte came
    /// before it (`high`: in earlier rounds).
    #[inline(always)]
    fn stop(i: usize, mask: u32, top: u32, high: u32) -> Option<Stop> {
        (mask != 0).then(|| {
            let k = mask.trailing_zeros();
            Stop {
                at: i + k as usize,
                high: high | (top & ((1u32 << k) - 1)) != 0,
            }
        })
    }

    /// A round of 32 bytes: its two vectors, its special bytes (`"`, `\`
    /// or below 0x20) and its high bytes, a bit each.
    struct Round {
        lo: __m128i,
        hi: __m128i,
        mask: u32,
        top: u32,
    }

    /// The round of the first 32 bytes of `chunk` (it holds that many).
    #[inline(always)]
    fn round(chunk: &[u8]) -> Round {
        assert!(chunk.len() >= 32);
        // SAFETY: SSE2 is part of x86-64, and `chunk` holds the 32 bytes
        // the two unaligned loads read.
        unsafe {
            let lo = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let hi = _mm_loadu_si128(chunk.as_ptr().add(16).cast::<__m128i>());
            Round {
                lo,
                hi,
                mask: both(special(lo), special(hi)),
                top: both(_mm_movemask_epi8(lo), _mm_movemask_epi8(hi)),
            }
        }
    }

    /// Two vectors' 16-bit masks as one of 32 bits, the first below.
    #[inline(always)]
    fn both(lo: i32, hi: i32) -> u32 {
        (lo as u32) | ((hi as u32) << 16)
    }

    /// `Ok` where a special byte is found, or `Err` with where fewer than
    /// 16 bytes are left to look at and whether high bytes came before.
    #[inline]
    pub(super) fn find_special(b: &[u8], mut i: usize) -> Result<Stop, (usize, bool)> {
        let mut high = 0;
        // Two vectors a round while 32 bytes are left: one exit test for
        // both, so a long string takes half the rounds.
        while let Some(chunk) = b.get(i..i + 32) {
            let Round { mask, top, .. } = round(chunk);
            if let Some(stop) = stop(i, mask, top, high) {
                return Ok(stop);
            }
            high |= top;
            i += 32;
        }
        while let Some(chunk) = b.get(i..i + 16) {
            // SAFETY: SSE2 is part of x86-64, and `chunk` holds the 16
            // bytes the unaligned load reads.
            let (mask, top) = unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
                (special(v) as u32, _mm_movemask_epi8(v) as u32)
            };
            if let Some(stop) = stop(i, mask, top, high) {
                return Ok(stop);
            }
            high |= top;
            i += 16;
        }
        Err((i, high != 0))
    }

    /// [`find_special`] that takes the simple escapes in its stride (see
    /// [`super::find_unescaped`]). `wide`: a string longer than a round
    /// goes on 64 bytes a round (only where the processor has AVX2).
    #[inline]
    pub(super) fn find_unescaped(
        b: &[u8],
        mut i: usize,
        wide: bool,
    ) -> Result<Stop, (usize, bool)> {
        let mut high = 0;
        let mut long = !wide;
        while let Some(chunk) = b.get(i..i + 32) {
            let Round {
                lo,
                hi,
                mut mask,
                top,
            } = round(chunk);
            if mask != 0 {
                // Only a round with something to stop at looks for escapes.
                let backslash = both(eq(lo, b'\\'), eq(hi, b'\\'));
                if backslash != 0 {
                    let (escaped, stuck) = escapes(chunk, backslash.into());
                    mask = (mask & !backslash & !escaped as u32) | stuck as u32;
                }
            }
            if let Some(stop) = stop(i, mask, top, high) {
                return Ok(stop);
            }
            high |= top;
            i += 32;
            // A string longer than a round (most of a session's bytes are
            // in such: tool output, file text) goes on twice as wide where
            // the processor can; short ones never pay for the call.
            if !long {
                long = true;
                // SAFETY: the caller asks for `wide` only where `here`
                // found AVX2 on this processor.
                match unsafe { super::avx2::find_unescaped(b, i) } {
                    Ok(stop) => {
                        return Ok(Stop {
                            at: stop.at,
                            high: stop.high || high != 0,
                        });
                    }
                    Err((at, more)) => {
                        i = at;
                        high |= u32::from(more);
                    }
                }
            }
        }
        Err((i, high != 0))
    }

    /// For the backslashes of a `chunk` of 32 or 64 bytes (`backslash` marks them),
    /// in order: the bytes the simple escapes among them escape, and the
    /// first backslash that does not start one (`\u`, a bad escape, or the
    /// chunk's last byte), as a one-bit mask (0 for none). Past that
    /// backslash nothing is marked: the scan stops there.
    #[inline(always)]
    pub(super) fn escapes(chunk: &[u8], backslash: u64) -> (u64, u64) {
        let mut escaped = 0u64;
        let mut left = backslash;
        while left != 0 {
            let k = left.trailing_zeros();
            left &= left - 1;
            if escaped >> k & 1 != 0 {
                continue;
            }
            match chunk.get(k as usize + 1) {
                Some(&c) if super::SIMPLE_ESCAPE[usize::from(c)] => escaped |= 1 << (k + 1),
                _ => return (escaped, 1 << k),
            }
        }
        (escaped, 0)
    }

    /// The sign bit of each byte of `v` equal to `byte`, as a mask.
    #[inline(always)]
    fn eq(v: __m128i, byte: u8) -> i32 {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8))) }
    }

    /// The sign bit of each byte of `v` that is `"`, `\` or below 0x20, as
    /// a 16-bit mask.
    ///
    /// # Safety
    /// SSE2 must be there (it is on every x86-64 processor).
    #[inline(always)]
    unsafe fn special(v: __m128i) -> i32 {
        // SAFETY: the caller's; these are all SSE2.
        unsafe {
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            // v <= 0x1f, unsigned: max(v, 0x1f) == 0x1f.
            let limit = _mm_set1_epi8(0x1f);
            let ctrl = _mm_cmpeq_epi8(_mm_max_epu8(v, limit), limit);
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), ctrl))
        }
    }
}

/// Sixty-four bytes a round with AVX2, for the length of a long string,
/// where the processor has it (asked once; std keeps the answer).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::Stop;
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8,
    };

    #[inline(always)]
    pub(super) fn here() -> bool {
        std::arch::is_x86_feature_detected!("avx2")
    }

    /// [`super::sse2::find_unescaped`], 64 bytes a round; `Err` where
    /// fewer than 64 are left.
    ///
    /// # Safety
    /// AVX2 must be there ([`here`]).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn find_unescaped(b: &[u8], mut i: usize) -> Result<Stop, (usize, bool)> {
        let mut high = 0u64;
        while let Some(chunk) = b.get(i..i + 64) {
            // SAFETY: `chunk` holds the 64 bytes the two unaligned loads
            // read; AVX2 is the caller's promise.
            let (lo, hi) = unsafe {
                (
                    _mm256_loadu_si256(chunk.as_ptr().cast::<__m256i>()),
                    _mm256_loadu_si256(chunk.as_ptr().add(32).cast::<__m256i>()),
                )
            };
            let mut mask = both(special(lo), special(hi));
            let top = both(_mm256_movemask_epi8(lo), _mm256_movemask_epi8(hi));
            if mask != 0 {
                let backslash = both(eq(lo, b'\\'), eq(hi, b'\\'));
                if backslash != 0 {
                    let (escaped, stuck) = super::sse2::escapes(chunk, backslash);
                    mask = (mask & !backslash & !escaped) | stuck;
                }
                if mask != 0 {
                    let k = mask.trailing_zeros();
                    return Ok(Stop {
                        at: i + k as usize,
                        high: high | (top & ((1u64 << k) - 1)) != 0,
                    });
                }
            }
            high |= top;
            i += 64;
        }
        Err((i, high != 0))
    }

    /// Two vectors' 32-bit masks as one of 64 bits, the first below.
    #[inline(always)]
    fn both(lo: i32, hi: i32) -> u64 {
        u64::from(lo as u32) | (u64::from(hi as u32) << 32)
    }

    #[target_feature(enable = "avx2")]
    fn eq(v: __m256i, byte: u8) -> i32 {
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(byte as i8)))
    }

    /// The sign bit of each byte of `v` that is `"`, `\` or below 0x20.
    #[target_feature(enable = "avx2")]
    fn special(v: __m256i) -> i32 {
        let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        let limit = _mm256_set1_epi8(0x1f);
        let ctrl = _mm256_cmpeq_epi8(_mm256_max_epu8(v, limit), limit);
        _mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(quote, backslash), ctrl))
    }
}

/// `b` as text if it is UTF-8, checked with vectors: the strings checked
/// at all are the ones with bytes above ASCII, where std's check is slow.
#[inline]
fn utf8(b: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(b).ok()
}

fn hex4(h: &[u8]) -> Option<u32> {
    let mut v = 0;
    for &c in h {
        v = v * 16 + char::from(c).to_digit(16)?;
    }
    Some(v)
}

/// A [`Scalar`] that borrows its string from the line.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) enum Field<'a> {
    #[default]
    Missing,
    Null,
    Str(&'a str),
    Num(f64),
    Bool(bool),
    Array,
    Object,
}

impl<'a> Field<'a> {
    pub(crate) fn of(s: &'a Scalar) -> Field<'a> {
        match s {
            Scalar::Missing => Field::Missing,
            Scalar::Null => Field::Null,
            Scalar::Str(t) => Field::Str(t),
            Scalar::Num(n) => Field::Num(*n),
            Scalar::Bool(b) => Field::Bool(*b),
            Scalar::Array => Field::Array,
            Scalar::Object => Field::Object,
        }
    }

    pub(crate) fn to_scalar(self) -> Scalar {
        match self {
            Field::Missing => Scalar::Missing,
            Field::Null => Scalar::Null,
            Field::Str(t) => Scalar::Str(CompactString::from(t)),
            Field::Num(n) => Scalar::Num(n),
            Field::Bool(b) => Scalar::Bool(b),
            Field::Array => Scalar::Array,
            Field::Object => Scalar::Object,
        }
    }

    pub(crate) fn as_str(self) -> Option<&'a str> {
        match self {
            Field::Str(t) => Some(t),
            _ => None,
        }
    }
}

/// A key expected next, as the 16 bytes from its opening quote through the
/// colon after it (`"id":`), masked to its length.
pub(crate) struct Guess {
    word: [u64; 2],
    mask: [u64; 2],
    /// Bytes from the opening quote through the colon; 0 guesses nothing.
    len: usize,
}

/// Eight bytes from `at`, as [`word`] reads them.
const fn half(b: [u8; 16], at: usize) -> u64 {
    let mut w = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        w[j] = b[at + j];
        j += 1;
    }
    u64::from_le_bytes(w)
}

impl Guess {
    /// `key` (at most 13 bytes of ASCII without quotes).
    pub(crate) const fn new(key: &[u8]) -> Guess {
        let len = key.len() + 3;
        assert!(len <= 16);
        let mut bytes = [0u8; 16];
        let mut mask = [0u8; 16];
        let mut i = 0;
        while i < len {
            bytes[i] = if i == 0 || i == len - 2 {
                b'"'
            } else if i == len - 1 {
                b':'
            } else {
                key[i - 1]
            };
            mask[i] = 0xff;
            i += 1;
        }
        Guess {
            word: [half(bytes, 0), half(bytes, 8)],
            mask: [half(mask, 0), half(mask, 8)],
            len,
        }
    }

    pub(crate) const NONE: Guess = Guess {
        word: [0; 2],
        mask: [0; 2],
        len: 0,
    };
}

/// A cursor over the bytes of a line. Bytes above 0x7f may only stand in
/// strings, and each string that holds any is checked as UTF-8: a line the
/// cursor accepts is valid UTF-8 as a whole.
pub(crate) struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(b: &'a [u8]) -> Cursor<'a> {
        Cursor { b, i: 0 }
    }

    /// Skips JSON white space but for a newline, which ends a line: the
    /// cursor reads lines, and never steps over one (a line read from
    /// bytes that run on ends there; see [`super::fast::read_fast_line`]).
    #[inline]
    pub(crate) fn ws(&mut self) {
        // Most places have none: pi writes no white space between tokens.
        if self.b.get(self.i).is_some_and(|&c| c > b' ') {
            return;
        }
        while let Some(b' ' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    #[inline]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// The next byte, consumed.
    #[inline]
    pub(crate) fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    #[inline]
    pub(crate) fn eat(&mut self, c: u8) -> Option<()> {
        (self.bump()? == c).then_some(())
    }

    pub(crate) fn at_end(&self) -> bool {
        self.i == self.b.len()
    }

    /// The bytes from `start` up to where the cursor is.
    pub(crate) fn bytes(&self, start: usize) -> Option<&'a [u8]> {
        self.b.get(start..self.i)
    }

    /// The byte offset the cursor is at.
    pub(crate) fn pos(&self) -> usize {
        self.i
    }

    /// After a member of an object: `Some(true)` at a comma (white space
    /// skipped up to the next key), `Some(false)` at the closing brace.
    #[inline]
    pub(crate) fn member_end(&mut self) -> Option<bool> {
        self.ws();
        match self.bump()? {
            b',' => {
                self.ws();
                Some(true)
            }
            b'}' => Some(false),
            _ => None,
        }
    }

    /// At an object's opening brace: consumes it and reports whether the
    /// object has members (the cursor is then on the first key).
    #[inline]
    pub(crate) fn open_object(&mut self) -> Option<bool> {
        self.eat(b'{')?;
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(false);
        }
        Some(true)
    }

    /// An object key without escapes, and the colon after it.
    #[inline]
    pub(crate) fn key(&mut self) -> Option<&'a [u8]> {
        let k = self.plain_bytes()?;
        self.ws();
        self.eat(b':')?;
        self.ws();
        Some(k)
    }

    /// Like [`Cursor::key`], checking `guess` (the key pi writes next)
    /// first: two masked word compares are cheaper than scanning. Tells
    /// whether the key was `guess`'s.
    #[inline]
    pub(crate) fn key_guessed(&mut self, guess: &Guess) -> Option<(&'a [u8], bool)> {
        if let (Some(lo), Some(hi)) = (word(self.b, self.i), word(self.b, self.i + 8)) {
            if guess.len > 0
                && lo & guess.mask[0] == guess.word[0]
                && hi & guess.mask[1] == guess.word[1]
            {
                let key = self.b.get(self.i + 1..self.i + guess.len - 2)?;
                self.i += guess.len;
                self.ws();
                return Some((key, true));
            }
        }
        self.key().map(|key| (key, false))
    }

    /// The bytes of a string without escapes, in place (checked UTF-8).
    #[inline]
    pub(crate) fn plain_bytes(&mut self) -> Option<&'a [u8]> {
        self.plain_str().map(str::as_bytes)
    }

    /// A string without escapes, in place.
    #[inline]
    pub(crate) fn plain_str(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.i;
        let stop = find_special(self.b, start);
        if *self.b.get(stop.at)? != b'"' {
            return None;
        }
        self.i = stop.at + 1;
        let text = self.b.get(start..stop.at)?;
        if stop.high {
            return utf8(text);
        }
        // Short strings (ids, times, names) are most of what is read here,
        // and a general UTF-8 check on each costs as much as reading it.
        debug_assert!(text.is_ascii());
        // SAFETY: without `high`, no byte of `text` is above 0x7f (as
        // `find_special` reports, tested at every position), so it is ASCII,
        // which is UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(text) })
    }

    /// Any string, decoded: in place when it has no escapes. Surrogate
    /// escapes (perhaps lone, which only `JSON.parse` keeps) are left to the
    /// fallback.
    pub(crate) fn string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.i;
        if let Some(s) = self.plain_str() {
            return Some(Cow::Borrowed(s));
        }
        self.i = start;
        self.eat(b'"')?;
        let mut out = String::new();
        loop {
            let from = self.i;
            let j = find_special(self.b, from).at;
            out.push_str(std::str::from_utf8(self.b.get(from..j)?).ok()?);
            if *self.b.get(j)? == b'"' {
                self.i = j + 1;
                return Some(Cow::Owned(out));
            }
            if self.b[j] != b'\\' {
                return None;
            }
            let (c, len) = match *self.b.get(j + 1)? {
                c @ (b'"' | b'\\' | b'/') => (char::from(c), 2),
                b'b' => ('\u{8}', 2),
                b'f' => ('\u{c}', 2),
                b'n' => ('\n', 2),
                b'r' => ('\r', 2),
                b't' => ('\t', 2),
                // `from_u32` refuses surrogates.
                b'u' => (char::from_u32(hex4(self.b.get(j + 2..j + 6)?)?)?, 6),
                _ => return None,
            };
            out.push(c);
            self.i = j + len;
        }
    }

    /// Any string, validated and skipped.
    fn skip_str(&mut self) -> Option<()> {
        self.skip_str_with(find_unescaped)
    }

    /// [`Cursor::skip_str`] with the scan `find` (the tests try each).
    #[inline(always)]
    fn skip_str_with(&mut self, find: fn(&[u8], usize) -> Stop) -> Option<()> {
        self.eat(b'"')?;
        let start = self.i;
        let mut high = false;
        loop {
            let stop = find(self.b, self.i);
            high |= stop.high;
            let j = stop.at;
            match *self.b.get(j)? {
                b'"' => {
                    self.i = j + 1;
                    if high {
                        utf8(self.b.get(start..j)?)?;
                    }
                    return Some(());
                }
                b'\\' => match *self.b.get(j + 1)? {
                    c if SIMPLE_ESCAPE[usize::from(c)] => self.i = j + 2,
                    b'u' => {
                        let v = hex4(self.b.get(j + 2..j + 6)?)?;
                        // Surrogates: serde rejects some (lone ones, where it
                        // decodes) and not others; let it decide.
                        if (0xD800..0xE000).contains(&v) {
                            return None;
                        }
                        self.i = j + 6;
                    }
                    _ => return None,
                },
                _ => return None,
            }
        }
    }

    /// Exactly the bytes of `word`.
    pub(crate) fn lit(&mut self, word: &[u8]) -> Option<()> {
        if self.b.get(self.i..self.i + word.len())? != word {
            return None;
        }
        self.i += word.len();
        Some(())
    }

    /// Skips the digits at the cursor, eight at a time; how many.
    #[inline]
    fn digits(&mut self) -> usize {
        let start = self.i;
        while let Some(w) = word(self.b, self.i) {
            let other = not_digits(w);
            if other != 0 {
                self.i += (other.trailing_zeros() / 8) as usize;
                return self.i - start;
            }
            self.i += 8;
        }
        while let Some(b'0'..=b'9') = self.b.get(self.i) {
            self.i += 1;
        }
        self.i - start
    }

    /// A number, by JSON's grammar, without an exponent; integer parts of
    /// more than 300 digits are left to serde too.
    fn skip_number(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.bump()? {
            b'0' => {}
            b'1'..=b'9' => {
                if self.digits() >= 300 {
                    return None;
                }
            }
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        // An exponent may put the number beyond f64, which JavaScript reads
        // as Infinity and echoes as null: serde's side decides (rare).
        if let Some(b'e' | b'E') = self.peek() {
            return None;
        }
        Some(())
    }

    /// At an array's opening bracket: each element handed to `each` with
    /// the cursor on it (to be consumed there), through the closing
    /// bracket.
    #[inline]
    pub(crate) fn elements(&mut self, mut each: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        self.ws();
        if self.peek()? == b']' {
            self.i += 1;
            return Some(());
        }
        loop {
            each(self)?;
            self.ws();
            match self.bump()? {
                b',' => self.ws(),
                b']' => return Some(()),
                _ => return None,
            }
        }
    }

    /// Any value, validated and skipped.
    pub(crate) fn skip_value(&mut self) -> Option<()> {
        self.skip_nested(0)
    }

    fn skip_nested(&mut self, depth: u32) -> Option<()> {
        match self.peek()? {
            b'"' => self.skip_str(),
            b'{' => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                if !self.open_object()? {
                    return Some(());
                }
                loop {
                    self.skip_str()?;
                    self.ws();
                    self.eat(b':')?;
                    self.ws();
                    self.skip_nested(depth + 1)?;
                    if !self.member_end()? {
                        return Some(());
                    }
                }
            }
            b'[' => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                self.i += 1;
                self.ws();
                if self.peek()? == b']' {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    self.skip_nested(depth + 1)?;
                    self.ws();
                    match self.bump()? {
                        b',' => self.ws(),
                        b']' => return Some(()),
                        _ => return None,
                    }
                }
            }
            b't' => self.lit(b"true"),
            b'f' => self.lit(b"false"),
            b'n' => self.lit(b"null"),
            b'-' | b'0'..=b'9' => self.skip_number(),
            _ => None,
        }
    }

    /// A value read as serde reads a [`Scalar`] (strings in place), when it
    /// is a plain string, `null`, a boolean or a small non-negative integer.
    #[inline(always)]
    pub(crate) fn field(&mut self) -> Option<Field<'a>> {
        match self.peek()? {
            b'"' => self.plain_str().map(Field::Str),
            b'n' => self.lit(b"null").map(|_| Field::Null),
            b't' => self.lit(b"true").map(|_| Field::Bool(true)),
            b'f' => self.lit(b"false").map(|_| Field::Bool(false)),
            b'0'..=b'9' => self.small_integer().map(|n| Field::Num(n as f64)),
            _ => None,
        }
    }

    /// [`Cursor::small_integer`] as a number, or `None` with the cursor
    /// where it was.
    #[inline]
    pub(crate) fn small_number(&mut self) -> Option<f64> {
        if !self.peek()?.is_ascii_digit() {
            return None;
        }
        let start = self.i;
        let n = self.small_integer();
        if n.is_none() {
            self.i = start;
        }
        n.map(|n| n as f64)
    }

    /// Up to 15 digits, exact as an f64, with no fraction or exponent.
    fn small_integer(&mut self) -> Option<u64> {
        let start = self.i;
        let n = self.digits();
        let digits = self.b.get(start..self.i)?;
        if n > 15 || (n > 1 && digits[0] == b'0') {
            return None;
        }
        if let Some(b'.' | b'e' | b'E') = self.peek() {
            return None;
        }
        Some(digits.iter().fold(0, |v, &d| v * 10 + u64::from(d - b'0')))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `same` is `==` for texts of every length to 40 that differ at any
    /// one byte, or in length.
    #[test]
    fn same_is_equality() {
        for n in 0..40 {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(same(&a, &a.clone()));
            for i in 0..n {
                let mut b = a.clone();
                b[i] ^= 0x20;
                assert!(!same(&a, &b), "{n} {i}");
            }
            let mut longer = a.clone();
            longer.push(b'z');
            assert!(!same(&a, &longer) && !same(&longer, &a));
        }
    }

    fn skips(s: &str) -> bool {
        let mut c = Cursor::new(s.as_bytes());
        c.ws();
        c.skip_value().is_some() && {
            c.ws();
            c.at_end()
        }
    }

    #[test]
    fn finds_specials_and_high_bytes_at_every_position() {
        for len in 0..40usize {
            for at in 0..len {
                for special in [b'"', b'\\', 0x1f, 0] {
                    for high in [None, Some(0), Some(at.saturating_sub(1)), Some(at + 1)] {
                        let mut b = vec![b'a'; len];
                        if let Some(h) = high.filter(|&h| h < len) {
                            b[h] = 0xC3;
                        }
                        b[at] = special;
                        let want = high.is_some_and(|h| h < at);
                        for stop in [find_special(&b, 0), find_special_words(&b, 0)] {
                            assert_eq!((stop.at, stop.high), (at, want), "{b:?}");
                        }
                    }
                }
            }
            let stop = find_special(&vec![0xC3; len], 0);
            assert_eq!((stop.at, stop.high), (len, len > 0));
            let stop = find_special_words(&vec![0x7f; len], 0);
            assert_eq!((stop.at, stop.high), (len, false));
        }
    }

    /// What skipping a string must give, byte by byte: where the string
    /// ends, `None` for one the cursor gives up on (bad, or a surrogate
    /// escape left to serde).
    fn string_end_by_bytes(b: &[u8]) -> Option<usize> {
        let mut i = 1;
        loop {
            match *b.get(i)? {
                b'"' => {
                    let text = b.get(1..i)?;
                    return std::str::from_utf8(text).is_ok().then_some(i + 1);
                }
                b'\\' => match *b.get(i + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                    b'u' => {
                        let v = hex4(b.get(i + 2..i + 6)?)?;
                        if (0xD800..0xE000).contains(&v) {
                            return None;
                        }
                        i += 6;
                    }
                    _ => return None,
                },
                c if c < 0x20 => return None,
                _ => i += 1,
            }
        }
    }

    /// Every scan a string may be skipped with here: as this processor
    /// does, 32 bytes a round only (a processor without AVX2), and eight
    /// bytes at a time (one without SSE2's vectors).
    fn scans() -> Vec<fn(&[u8], usize) -> Stop> {
        let mut scans: Vec<fn(&[u8], usize) -> Stop> = vec![find_unescaped, find_special_words];
        #[cfg(target_arch = "x86_64")]
        scans.push(|b, i| words_after(b, sse2::find_unescaped(b, i, false)));
        scans
    }

    /// Strings of escapes of every kind, runs of backslashes, control and
    /// high bytes (UTF-8 or not), at every offset from the vectors'
    /// rounds: skipped exactly where the byte-by-byte reading ends them,
    /// and refused where it refuses them.
    #[test]
    fn strings_with_escapes_end_where_their_bytes_say() {
        let pieces: [&[u8]; 22] = [
            b"a",
            b"abcdefgh",
            b" ",
            br#"\""#,
            br"\\",
            br"\n",
            br"\t",
            br"\/",
            br"\b",
            br"\f",
            br"\r",
            br"\u0041",
            br"\ud800",
            br"\x",
            br"\",
            b"\x01",
            "é".as_bytes(),
            "😀".as_bytes(),
            b"\xff",
            b"\xc3",
            b"\"",
            br#"\\\""#,
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let (mut ended, mut refused) = (0, 0);
        for round in 0..6000 {
            let mut b = vec![b'"'];
            // A third of them long: past the first round, in the wide one.
            let plain = round % 41 + if round % 3 == 0 { 32 + next(160) } else { 0 };
            b.extend(std::iter::repeat_n(b'a', plain));
            for _ in 0..next(24) {
                // Mostly plain bytes and simple escapes, as strings are.
                let piece = match next(3) {
                    0 => pieces[next(pieces.len())],
                    _ => pieces[next(10)],
                };
                b.extend_from_slice(piece);
            }
            b.extend_from_slice(b"\",\"tail\"]");
            let want = string_end_by_bytes(&b);
            for find in scans() {
                let mut c = Cursor::new(&b);
                let got = c.skip_str_with(find).map(|()| c.i);
                assert_eq!(got, want, "{:?}", String::from_utf8_lossy(&b));
            }
            if let Some(end) = want {
                let text = std::str::from_utf8(&b[..end]).expect("UTF-8");
                assert!(serde_json::from_str::<String>(text).is_ok(), "{text}");
                ended += 1;
            } else {
                refused += 1;
            }
        }
        assert!(ended > 1000 && refused > 1000, "{ended} {refused}");
    }

    /// The vectors take the simple escapes in their stride: they stop at
    /// the string's end, not at each backslash before it.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn simple_escapes_do_not_stop_the_vectors() {
        let mut b = br#"ab\ncd\"ef\\gh\/ij\tkl\r\b\f"#.to_vec();
        assert!(b.len() < 31);
        b.resize(40, b'x');
        b.push(b'"');
        b.resize(64, b'y');
        let stop = find_unescaped(&b, 0);
        assert_eq!((stop.at, stop.high), (40, false));
        // A `\u` still stops them, at its backslash.
        b[20..22].copy_from_slice(br"\u");
        assert_eq!(find_unescaped(&b, 0).at, 20);
    }

    /// Long strings of code, a simple escape every few bytes, at every
    /// length and offset: the wide rounds end them where the narrow ones
    /// and the words do.
    #[test]
    fn long_strings_end_alike_in_every_stride() {
        for len in 0..300usize {
            for start in 0..3 {
                let mut b = vec![b'x'; start];
                b.push(b'"');
                let mut body = Vec::with_capacity(len);
                while body.len() < len {
                    let k = body.len();
                    if k % 7 == 3 && k + 1 < len {
                        body.extend_from_slice(&[b'\\', b"n\"t\\/"[k % 5]]);
                    } else {
                        body.push(b'a' + (k % 26) as u8);
                    }
                }
                b.extend_from_slice(&body);
                b.extend_from_slice(b"\",1]");
                let want = string_end_by_bytes(&b[start..]).map(|end| start + end);
                for find in scans() {
                    let mut c = Cursor::new(&b);
                    c.i = start;
                    assert_eq!(c.skip_str_with(find).map(|()| c.i), want, "{len} {start}");
                }
                assert_eq!(want, Some(start + len + 2), "{len} {start}");
            }
        }
    }

    /// Every byte at every place of a word: a digit or not.
    #[test]
    fn digits_are_told_a_word_at_a_time() {
        for at in 0..8 {
            for byte in 0..=255u8 {
                let mut w = [b'5'; 8];
                w[at] = byte;
                let flagged = not_digits(u64::from_le_bytes(w)) >> (8 * at + 7) & 1 == 1;
                assert_eq!(flagged, !byte.is_ascii_digit(), "{byte:#x} at {at}");
                let mut line = w.to_vec();
                line.extend_from_slice(b"x23456789");
                let mut c = Cursor::new(&line);
                let n = c.digits();
                assert_eq!(
                    n,
                    if byte.is_ascii_digit() { 8 } else { at },
                    "{byte:#x} at {at}"
                );
            }
        }
        for text in [
            "0",
            "12",
            "123456789012345",
            "1234567890123456",
            "01",
            "1.5",
            "1e3",
            "-1",
            "x",
        ] {
            let mut c = Cursor::new(text.as_bytes());
            let n = c.small_number();
            let exact = text
                .parse::<u64>()
                .ok()
                .filter(|_| text.len() <= 15 && !text.starts_with("0") || text == "0");
            assert_eq!(n, exact.map(|v| v as f64), "{text}");
            assert_eq!(c.i, if n.is_some() { text.len() } else { 0 }, "{text}");
        }
    }

    #[test]
    fn bytes_above_ascii_must_be_utf8_in_strings() {
        let skips_bytes = |b: &[u8]| {
            let mut c = Cursor::new(b);
            c.skip_value().is_some() && c.at_end()
        };
        assert!(skips_bytes("[\"é😀\",{\"ключ\":\"x\"}]".as_bytes()));
        assert!(!skips_bytes(b"[\"\xff\"]"));
        assert!(!skips_bytes(b"[\"a\xc3\"]"));
        assert!(!skips_bytes(b"{\"\xff\":1}"));
        assert!(!skips_bytes(b"[1,\xc3\xa9]"));
        let mut c = Cursor::new(b"\"\xe9t\xe9\"");
        assert_eq!(c.plain_str(), None);
        let long = [&b"[\""[..], &[b'a'; 40], b"\xff", &[b'b'; 40], b"\"]"].concat();
        assert!(!skips_bytes(&long));
    }

    #[test]
    fn accepts_exactly_what_serde_accepts_or_gives_up() {
        let cases = [
            r#"{}"#,
            r#"[]"#,
            r#"{"a":[1,2.5,-0.1,true,false,null,"x\n\u00e9\"\\\/"]}"#,
            r#" { "a" : [ { } , [ ] ] } "#,
            r#"{"a":1,}"#,
            r#"[1,]"#,
            r#"[01]"#,
            r#"[1.]"#,
            r#"[.5]"#,
            r#"[1e]"#,
            r#"[-]"#,
            r#"["\x"]"#,
            r#"["\u12g4"]"#,
            "[\"a\tb\"]",
            r#"[tru]"#,
            r#"[nul]"#,
            r#"{"a" 1}"#,
            r#"{1:1}"#,
            r#"["abc"#,
            r#"[1 2]"#,
            r#"{"a":1 "b":2}"#,
            r#"["é😀"]"#,
        ];
        for case in cases {
            let serde = serde_json::from_str::<serde::de::IgnoredAny>(case).is_ok();
            assert_eq!(skips(case), serde, "{case}");
        }
        // Left to serde.
        assert!(!skips(r#"["\ud800"]"#));
        // Exponents and huge integers may be beyond f64 (JavaScript's Infinity).
        assert!(!skips("[1e400]"));
        assert!(!skips("[-0.1e-7]"));
        assert!(!skips(&format!("[{}]", "9".repeat(400))));
        assert!(!skips(&format!("{}{}", "[".repeat(100), "]".repeat(100))));
    }

    #[test]
    fn scalars() {
        let read = |s: &str| Cursor::new(s.as_bytes()).field().map(Field::to_scalar);
        assert_eq!(read(r#""ab""#), Some(Scalar::Str("ab".into())));
        assert_eq!(read("null"), Some(Scalar::Null));
        assert_eq!(read("false"), Some(Scalar::Bool(false)));
        assert_eq!(read("1768230723184"), Some(Scalar::Num(1768230723184.0)));
        for unsure in [
            r#""a\nb""#,
            "-1",
            "1.5",
            "1e3",
            "0123",
            "1234567890123456",
            "[1]",
        ] {
            assert_eq!(read(unsure), None, "{unsure}");
        }
    }
}
