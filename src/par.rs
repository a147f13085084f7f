//! Work shared by every core: `f(i)` for each index, results in index
//! order. Threads take the next few indices no other thread has (so items
//! of very different cost still keep both cores busy), and the calling
//! thread works too; too little work for two runs on the caller alone, as
//! starting a thread costs more than a few small items. And the room such
//! work fills, backed by huge pages.

use std::sync::atomic::{AtomicUsize, Ordering};

/// To call right after spawning threads that are to work beside this one:
/// a new thread starts on its spawner's core, and waits there until that
/// one gives way or the scheduler moves it, which on a busy two-core
/// machine took as long as the spawner's own stretch of work (1 to 2 ms of
/// a 2 ms one; 0.1 ms after giving way).
pub fn let_them_start() {
    std::thread::yield_now();
}

/// `f(0), f(1), …, f(n - 1)` on every core, in that order; `chunk` indices
/// taken at a time (at least one).
pub fn map<R: Send>(n: usize, chunk: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let chunk = chunk.max(1);
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .min(n.div_ceil(chunk));
    if threads < 2 {
        return (0..n).map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut mine = Vec::new();
        loop {
            let start = next.fetch_add(chunk, Ordering::Relaxed);
            if start >= n {
                break mine;
            }
            let end = (start + chunk).min(n);
            mine.push((start, (start..end).map(&f).collect::<Vec<R>>()));
        }
    };
    let mut parts = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let_them_start();
        let mut parts = work();
        for h in helpers {
            match h.join() {
                Ok(theirs) => parts.extend(theirs),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        parts
    });
    parts.sort_unstable_by_key(|(start, _)| *start);
    let mut out = Vec::with_capacity(n);
    for (_, part) in parts {
        out.extend(part);
    }
    out
}

/// Asks the kernel to back the room `v` has beyond its length with huge
/// pages (2 MiB each) where it can: filling a few hundred MB then takes a
/// few hundred page faults, where it took one every 4 KiB. Only advice,
/// and only on Linux; a vector under 4 MiB is left as it is.
pub fn huge_pages<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let spare = v.spare_capacity_mut();
        let start = spare.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(spare);
        let (from, to) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if to >= from + HUGE {
            // SAFETY: the range lies inside `v`'s allocation, which stays
            // where it is; `madvise` with MADV_HUGEPAGE changes only how
            // the kernel backs the pages, never what they hold.
            unsafe {
                libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

#[cfg(test)]
mod tests {
    use super::map;

    #[test]
    fn every_index_once_in_order() {
        for (n, chunk) in [(0, 4), (1, 4), (5, 1), (100, 7), (1000, 32), (64, 0)] {
            let seen = std::sync::Mutex::new(vec![0u32; n]);
            let out = map(n, chunk, |i| {
                seen.lock().map(|mut s| s[i] += 1).ok();
                i * 3
            });
            assert_eq!(out, (0..n).map(|i| i * 3).collect::<Vec<_>>());
            assert!(seen.into_inner().unwrap().iter().all(|&k| k == 1));
        }
    }

    #[test]
    fn a_panic_reaches_the_caller() {
        let r = std::panic::catch_unwind(|| map(200, 8, |i| assert_ne!(i, 150)));
        assert!(r.is_err());
    }
}
