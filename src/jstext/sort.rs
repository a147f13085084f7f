//! `Array.prototype.sort` as V8 runs it (TimSort: runs, binary insertion,
//! merges with galloping), step for step. With a consistent comparator any
//! stable sort gives the same order; pi's comparators are not always
//! consistent (`a - b` on times where a time is NaN compares equal to
//! everything), and then only the same steps give the same order.

use std::cmp::Ordering;

/// V8 leaves galloping after this many wins of one side in a row.
const MIN_GALLOP: usize = 7;

/// Sorts `list` as V8 sorts an array with the comparator `cmp(x, y)`, where
/// `Less` is a negative answer and `Equal` is zero or NaN.
pub fn sort_like_v8<T: Copy>(list: &mut [T], cmp: impl Fn(T, T) -> Ordering) {
    let n = list.len();
    if n < 2 {
        return;
    }
    let mut s = Sorter {
        a: list,
        cmp,
        min_gallop: MIN_GALLOP,
        runs: Vec::new(),
    };
    let min_run = min_run_length(n);
    let (mut low, mut remaining) = (0, n);
    while remaining != 0 {
        let mut run = s.count_and_make_run(low, low + remaining);
        if run < min_run {
            let forced = min_run.min(remaining);
            s.binary_insertion_sort(low, low + run, low + forced);
            run = forced;
        }
        s.runs.push((low, run));
        s.merge_collapse();
        low += run;
        remaining -= run;
    }
    s.merge_force_collapse();
}

fn min_run_length(mut n: usize) -> usize {
    let mut r = 0;
    while n >= 64 {
        r |= n & 1;
        n >>= 1;
    }
    n + r
}

struct Sorter<'a, T, F> {
    a: &'a mut [T],
    cmp: F,
    min_gallop: usize,
    /// Pending runs: (base, length).
    runs: Vec<(usize, usize)>,
}

impl<T: Copy, F: Fn(T, T) -> Ordering> Sorter<'_, T, F> {
    fn less(&self, x: T, y: T) -> bool {
        (self.cmp)(x, y) == Ordering::Less
    }

    /// The run starting at `low`: ascending (never descending by a step),
    /// or strictly descending and then reversed.
    fn count_and_make_run(&mut self, low: usize, high: usize) -> usize {
        if low + 1 == high {
            return 1;
        }
        let descending = self.less(self.a[low + 1], self.a[low]);
        let mut run = 2;
        let mut previous = self.a[low + 1];
        for i in low + 2..high {
            let current = self.a[i];
            let down = self.less(current, previous);
            if down != descending {
                break;
            }
            previous = current;
            run += 1;
        }
        if descending {
            self.a[low..low + run].reverse();
        }
        run
    }

    /// `a[low..start]` is sorted; inserts `a[start..high]` into it.
    fn binary_insertion_sort(&mut self, low: usize, start: usize, high: usize) {
        let start = if low == start { start + 1 } else { start };
        for i in start..high {
            let pivot = self.a[i];
            let (mut left, mut right) = (low, i);
            while left < right {
                let mid = left + ((right - left) >> 1);
                if self.less(pivot, self.a[mid]) {
                    right = mid;
                } else {
                    left = mid + 1;
                }
            }
            self.a.copy_within(left..i, left + 1);
            self.a[left] = pivot;
        }
    }

    fn len(&self, i: usize) -> usize {
        self.runs[i].1
    }

    fn invariant_holds(&self, n: usize) -> bool {
        n < 2 || self.len(n - 2) > self.len(n - 1) + self.len(n)
    }

    fn merge_collapse(&mut self) {
        while self.runs.len() > 1 {
            let mut n = self.runs.len() - 2;
            if !self.invariant_holds(n + 1) || !self.invariant_holds(n) {
                if n > 0 && self.len(n - 1) < self.len(n + 1) {
                    n -= 1;
                }
                self.merge_at(n);
            } else if self.len(n) <= self.len(n + 1) {
                self.merge_at(n);
            } else {
                break;
            }
        }
    }

    fn merge_force_collapse(&mut self) {
        while self.runs.len() > 1 {
            let mut n = self.runs.len() - 2;
            if n > 0 && self.len(n - 1) < self.len(n + 1) {
                n -= 1;
            }
            self.merge_at(n);
        }
    }

    fn merge_at(&mut self, i: usize) {
        let (mut base_a, mut len_a) = self.runs[i];
        let (base_b, mut len_b) = self.runs[i + 1];
        self.runs[i].1 = len_a + len_b;
        self.runs.remove(i + 1);
        let key = self.a[base_b];
        let k = gallop_right(&self.cmp, self.a, key, base_a, len_a, 0);
        base_a += k;
        len_a -= k;
        if len_a == 0 {
            return;
        }
        let key = self.a[base_a + len_a - 1];
        len_b = gallop_left(&self.cmp, self.a, key, base_b, len_b, len_b - 1);
        if len_b == 0 {
            return;
        }
        if len_a <= len_b {
            self.merge_low(base_a, len_a, base_b, len_b);
        } else {
            self.merge_high(base_a, len_a, base_b, len_b);
        }
    }

    fn merge_low(&mut self, base_a: usize, mut len_a: usize, base_b: usize, mut len_b: usize) {
        let temp: Vec<T> = self.a[base_a..base_a + len_a].to_vec();
        let (mut dest, mut ct, mut cb) = (base_a, 0usize, base_b);
        self.a[dest] = self.a[cb];
        dest += 1;
        cb += 1;
        // How the merge ends: the rest of A after B ran out, or the rest of
        // B and then A's last element.
        let copy_b = 'merge: {
            len_b -= 1;
            if len_b == 0 {
                break 'merge false;
            }
            if len_a == 1 {
                break 'merge true;
            }
            let mut min_gallop = self.min_gallop;
            loop {
                let (mut wins_a, mut wins_b) = (0usize, 0usize);
                loop {
                    if self.less(self.a[cb], temp[ct]) {
                        self.a[dest] = self.a[cb];
                        dest += 1;
                        cb += 1;
                        wins_b += 1;
                        wins_a = 0;
                        len_b -= 1;
                        if len_b == 0 {
                            break 'merge false;
                        }
                        if wins_b >= min_gallop {
                            break;
                        }
                    } else {
                        self.a[dest] = temp[ct];
                        dest += 1;
                        ct += 1;
                        wins_a += 1;
                        wins_b = 0;
                        len_a -= 1;
                        if len_a == 1 {
                            break 'merge true;
                        }
                        if wins_a >= min_gallop {
                            break;
                        }
                    }
                }
                min_gallop += 1;
                let mut first = true;
                while wins_a >= MIN_GALLOP || wins_b >= MIN_GALLOP || first {
                    first = false;
                    min_gallop = min_gallop.saturating_sub(1).max(1);
                    self.min_gallop = min_gallop;
                    wins_a = gallop_right(&self.cmp, &temp, self.a[cb], ct, len_a, 0);
                    if wins_a > 0 {
                        self.a[dest..dest + wins_a].copy_from_slice(&temp[ct..ct + wins_a]);
                        dest += wins_a;
                        ct += wins_a;
                        len_a -= wins_a;
                        if len_a == 1 {
                            break 'merge true;
                        }
                        // Impossible with a consistent comparator; pi's is not.
                        if len_a == 0 {
                            break 'merge false;
                        }
                    }
                    self.a[dest] = self.a[cb];
                    dest += 1;
                    cb += 1;
                    len_b -= 1;
                    if len_b == 0 {
                        break 'merge false;
                    }
                    wins_b = gallop_left(&self.cmp, self.a, temp[ct], cb, len_b, 0);
                    if wins_b > 0 {
                        self.a.copy_within(cb..cb + wins_b, dest);
                        dest += wins_b;
                        cb += wins_b;
                        len_b -= wins_b;
                        if len_b == 0 {
                            break 'merge false;
                        }
                    }
                    self.a[dest] = temp[ct];
                    dest += 1;
                    ct += 1;
                    len_a -= 1;
                    if len_a == 1 {
                        break 'merge true;
                    }
                }
                min_gallop += 1;
                self.min_gallop = min_gallop;
            }
        };
        if copy_b {
            self.a.copy_within(cb..cb + len_b, dest);
            self.a[dest + len_b] = temp[ct];
        } else if len_a > 0 {
            self.a[dest..dest + len_a].copy_from_slice(&temp[ct..ct + len_a]);
        }
    }

    fn merge_high(&mut self, base_a: usize, mut len_a: usize, base_b: usize, mut len_b: usize) {
        let temp: Vec<T> = self.a[base_b..base_b + len_b].to_vec();
        // Cursors one past the element they stand for, so none goes below 0.
        let (mut dest, mut ct, mut ca) = (base_b + len_b, len_b, base_a + len_a);
        dest -= 1;
        ca -= 1;
        self.a[dest] = self.a[ca];
        let copy_a = 'merge: {
            len_a -= 1;
            if len_a == 0 {
                break 'merge false;
            }
            if len_b == 1 {
                break 'merge true;
            }
            let mut min_gallop = self.min_gallop;
            loop {
                let (mut wins_a, mut wins_b) = (0usize, 0usize);
                loop {
                    if self.less(temp[ct - 1], self.a[ca - 1]) {
                        dest -= 1;
                        ca -= 1;
                        self.a[dest] = self.a[ca];
                        wins_a += 1;
                        wins_b = 0;
                        len_a -= 1;
                        if len_a == 0 {
                            break 'merge false;
                        }
                        if wins_a >= min_gallop {
                            break;
                        }
                    } else {
                        dest -= 1;
                        ct -= 1;
                        self.a[dest] = temp[ct];
                        wins_b += 1;
                        wins_a = 0;
                        len_b -= 1;
                        if len_b == 1 {
                            break 'merge true;
                        }
                        if wins_b >= min_gallop {
                            break;
                        }
                    }
                }
                min_gallop += 1;
                let mut first = true;
                while wins_a >= MIN_GALLOP || wins_b >= MIN_GALLOP || first {
                    first = false;
                    min_gallop = min_gallop.saturating_sub(1).max(1);
                    self.min_gallop = min_gallop;
                    let k = gallop_right(&self.cmp, self.a, temp[ct - 1], base_a, len_a, len_a - 1);
                    wins_a = len_a - k;
                    if wins_a > 0 {
                        dest -= wins_a;
                        ca -= wins_a;
                        self.a.copy_within(ca..ca + wins_a, dest);
                        len_a -= wins_a;
                        if len_a == 0 {
                            break 'merge false;
                        }
                    }
                    dest -= 1;
                    ct -= 1;
                    self.a[dest] = temp[ct];
                    len_b -= 1;
                    if len_b == 1 {
                        break 'merge true;
                    }
                    let k = gallop_left(&self.cmp, &temp, self.a[ca - 1], 0, len_b, len_b - 1);
                    wins_b = len_b - k;
                    if wins_b > 0 {
                        dest -= wins_b;
                        ct -= wins_b;
                        self.a[dest..dest + wins_b].copy_from_slice(&temp[ct..ct + wins_b]);
                        len_b -= wins_b;
                        if len_b == 1 {
                            break 'merge true;
                        }
                        // Impossible with a consistent comparator; pi's is not.
                        if len_b == 0 {
                            break 'merge false;
                        }
                    }
                    dest -= 1;
                    ca -= 1;
                    self.a[dest] = self.a[ca];
                    len_a -= 1;
                    if len_a == 0 {
                        break 'merge false;
                    }
                }
                min_gallop += 1;
                self.min_gallop = min_gallop;
            }
        };
        if copy_a {
            dest -= len_a;
            ca -= len_a;
            self.a.copy_within(ca..ca + len_a, dest);
            self.a[dest - 1] = temp[ct - 1];
        } else if len_b > 0 {
            self.a[dest - len_b..dest].copy_from_slice(&temp[..len_b]);
        }
    }
}

/// Where `key` goes in the sorted `a[base..base + len]`, before its equals:
/// the k with `a[base + k - 1] < key <= a[base + k]`, searched from `hint`.
fn gallop_left<T: Copy>(
    cmp: &impl Fn(T, T) -> Ordering,
    a: &[T],
    key: T,
    base: usize,
    len: usize,
    hint: usize,
) -> usize {
    let less = |x: T, y: T| cmp(x, y) == Ordering::Less;
    let (mut last, mut offset): (isize, isize) = (0, 1);
    let hint_i = hint as isize;
    if less(a[base + hint], key) {
        let max = (len - hint) as isize;
        while offset < max {
            if !less(a[base + hint + offset as usize], key) {
                break;
            }
            last = offset;
            offset = (offset << 1) + 1;
        }
        offset = offset.min(max);
        last += hint_i;
        offset += hint_i;
    } else {
        let max = hint_i + 1;
        while offset < max {
            if less(a[base + hint - offset as usize], key) {
                break;
            }
            last = offset;
            offset = (offset << 1) + 1;
        }
        offset = offset.min(max);
        (last, offset) = (hint_i - offset, hint_i - last);
    }
    last += 1;
    while last < offset {
        let m = last + ((offset - last) >> 1);
        if less(a[base + m as usize], key) {
            last = m + 1;
        } else {
            offset = m;
        }
    }
    offset as usize
}

/// Where `key` goes in the sorted `a[base..base + len]`, after its equals:
/// the k with `a[base + k - 1] <= key < a[base + k]`, searched from `hint`.
fn gallop_right<T: Copy>(
    cmp: &impl Fn(T, T) -> Ordering,
    a: &[T],
    key: T,
    base: usize,
    len: usize,
    hint: usize,
) -> usize {
    let less = |x: T, y: T| cmp(x, y) == Ordering::Less;
    let (mut last, mut offset): (isize, isize) = (0, 1);
    let hint_i = hint as isize;
    if less(key, a[base + hint]) {
        let max = hint_i + 1;
        while offset < max {
            if !less(key, a[base + hint - offset as usize]) {
                break;
            }
            last = offset;
            offset = (offset << 1) + 1;
        }
        offset = offset.min(max);
        (last, offset) = (hint_i - offset, hint_i - last);
    } else {
        let max = (len - hint) as isize;
        while offset < max {
            if less(key, a[base + hint + offset as usize]) {
                break;
            }
            last = offset;
            offset = (offset << 1) + 1;
        }
        offset = offset.min(max);
        last += hint_i;
        offset += hint_i;
    }
    last += 1;
    while last < offset {
        let m = last + ((offset - last) >> 1);
        if less(key, a[base + m as usize]) {
            offset = m;
        } else {
            last = m + 1;
        }
    }
    offset as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_consistent_comparator_sorts_stably() {
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        for n in [0, 1, 2, 3, 63, 64, 65, 200, 1000, 5000] {
            let mut items: Vec<(u32, u32)> = (0..n)
                .map(|i| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    ((rng % 50) as u32, i)
                })
                .collect();
            let mut want = items.clone();
            want.sort_by_key(|p| p.0);
            sort_like_v8(&mut items, |x, y| x.0.cmp(&y.0));
            assert_eq!(items, want, "n = {n}");
        }
    }
}
