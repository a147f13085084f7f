//! A row of flags, one bit each: ten million entries' flags take 1.25 MB
//! where a `Vec<bool>` takes 10.

/// Flags by index; an index past the end reads as unset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    /// `n` flags, all unset.
    pub(crate) fn new(n: usize) -> Bits {
        Bits {
            words: vec![0; n.div_ceil(64)],
            len: n,
        }
    }

    /// The `n` flags `on` gives, asked on every core, 64 at a time.
    pub(crate) fn par_from(n: usize, on: impl Fn(u32) -> bool + Sync) -> Bits {
        let words = crate::par::map(n.div_ceil(64), 1 << 10, |w| {
            let first = w * 64;
            (first..(first + 64).min(n)).fold(0u64, |word, i| {
                word | u64::from(on(i as u32)) << (i - first)
            })
        });
        Bits { words, len: n }
    }

    /// How many flags there are.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// How many flags are set.
    pub(crate) fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub(crate) fn get(&self, i: u32) -> bool {
        (i as usize) < self.len && self.words[i as usize / 64] & (1 << (i % 64)) != 0
    }

    /// Sets flag `i` (one past the end is left alone).
    pub(crate) fn set(&mut self, i: u32) {
        if (i as usize) < self.len {
            self.words[i as usize / 64] |= 1 << (i % 64);
        }
    }

    /// Unsets flag `i`.
    pub(crate) fn clear(&mut self, i: u32) {
        if (i as usize) < self.len {
            self.words[i as usize / 64] &= !(1 << (i % 64));
        }
    }

    /// Sets flag `i`, growing the row to hold it; whether it was unset.
    pub(crate) fn insert(&mut self, i: u32) -> bool {
        let i = i as usize;
        if i >= self.len {
            self.words.resize((i + 1).div_ceil(64), 0);
            self.len = i + 1;
        }
        let (word, bit) = (&mut self.words[i / 64], 1u64 << (i % 64));
        let unset = *word & bit == 0;
        *word |= bit;
        unset
    }

    /// Adds a flag at the end.
    pub(crate) fn push(&mut self, on: bool) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        self.len += 1;
        if on {
            self.set(self.len as u32 - 1);
        }
    }

    /// Every flag, first to last.
    pub(crate) fn iter(&self) -> impl Iterator<Item = bool> + '_ {
        (0..self.len as u32).map(|i| self.get(i))
    }
}

impl FromIterator<bool> for Bits {
    fn from_iter<I: IntoIterator<Item = bool>>(flags: I) -> Bits {
        let mut bits = Bits::default();
        for on in flags {
            bits.push(on);
        }
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flags asked on every core are the flags asked one by one, and
    /// counted as many.
    #[test]
    fn flags_asked_together_read_back() {
        for n in [0usize, 1, 63, 64, 65, 200_000] {
            let on = |i: u32| i.is_multiple_of(7) || i % 64 == 63;
            let bits = Bits::par_from(n, on);
            assert_eq!(bits.len, n);
            assert!((0..n as u32 + 3).all(|i| bits.get(i) == (i < n as u32 && on(i))));
            assert_eq!(bits.count(), (0..n as u32).filter(|&i| on(i)).count());
        }
    }

    /// Flags set, pushed and collected read back as a `Vec<bool>` of the
    /// same flags does, across word edges; past the end reads as unset.
    #[test]
    fn flags_read_back_as_set() {
        for n in [0usize, 1, 63, 64, 65, 130] {
            let want: Vec<bool> = (0..n).map(|i| i % 3 == 0 || i == 64).collect();
            let collected: Bits = want.iter().copied().collect();
            let mut set = Bits::new(n);
            for (i, &on) in want.iter().enumerate() {
                if on {
                    set.set(i as u32);
                }
            }
            set.set(n as u32);
            for bits in [&collected, &set] {
                assert_eq!(bits.len, n);
                assert_eq!(bits.iter().collect::<Vec<_>>(), want);
                assert!(!bits.get(n as u32) && !bits.get(u32::MAX));
            }
            assert_eq!(collected, set);
        }
    }

    /// A growing row says whether each flag was new, and reads back as a
    /// set of the same flags would.
    #[test]
    fn inserted_flags_grow_the_row() {
        let mut bits = Bits::default();
        let mut seen = std::collections::HashSet::new();
        for i in [5u32, 0, 64, 5, 200, 63, 64, 1000, 0] {
            assert_eq!(bits.insert(i), seen.insert(i), "{i}");
        }
        for i in 0..1100u32 {
            assert_eq!(bits.get(i), seen.contains(&i), "{i}");
        }
        assert_eq!(bits.len, 1001);
    }
}
