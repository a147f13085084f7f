//! Work shared by every core: `f(i)` for each index, results in index
//! order. Threads take the next few indices no other thread has (so items
//! of very different cost still keep both cores busy), and the calling
//! thread works too; too little work for two runs on the caller alone, as
//! starting a thread costs more than a few small items. And work beside
//! this thread's, and a mapped file's pages given back as it is read.

use std::sync::atomic::{AtomicUsize, Ordering};

/// To call right after spawning threads that are to work beside this one:
/// a new thread starts on its spawner's core, and waits there until that
/// one gives way or the scheduler moves it, which on a busy two-core
/// machine took as long as the spawner's own stretch of work (1 to 2 ms of
/// a 2 ms one; 0.1 ms after giving way).
pub fn let_them_start() {
    std::thread::yield_now();
}

/// `beside()` on a thread named `name` while `here()` runs on this one;
/// both answers, `beside`'s `None` when it panicked. When no thread can be
/// started, `beside` runs here too.
pub fn beside<A: Send, B>(
    name: &str,
    beside: impl Fn() -> A + Sync,
    here: impl FnOnce() -> B,
) -> (Option<A>, B) {
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name(name.to_string())
            .spawn_scoped(scope, &beside);
        let b = here();
        let a = match spawned {
            Ok(thread) => thread.join().ok(),
            Err(_) => Some(beside()),
        };
        (a, b)
    })
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

/// Gives back the pages wholly inside `read`, bytes of a read-only file
/// mapping already read: they leave the process's resident memory (the file
/// stays in the page cache; read again, they come back as they were).
/// Reading a 900 MB index this way never holds all of it at once. Only on
/// Linux, and only advice.
///
/// # Safety
/// `read` must lie in a read-only shared mapping of a file that is not
/// changed while it is mapped: on any other memory (a vector's, say) the
/// pages would read as zeros afterwards.
pub unsafe fn release_mapped(read: &[u8]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = read.as_ptr() as usize;
        let (from, to) = (
            start.next_multiple_of(PAGE),
            (start + read.len()) / PAGE * PAGE,
        );
        if to > from {
            // SAFETY: the caller's promise: file-backed pages, which come
            // back unchanged when touched again.
            unsafe {
                libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_DONTNEED);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = read;
}

/// An empty vector with room for `n` items, its memory asked of the kernel
/// in huge pages where the kernel gives them (Linux's transparent huge
/// pages, when set to `madvise` as is usual): filling a vector of hundreds
/// of megabytes then takes one fault each 2 MB rather than each 4 KB.
/// Small vectors, and other systems, get a plain one.
pub fn big_vec<T>(n: usize) -> Vec<T> {
    let v = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = v.capacity().saturating_mul(std::mem::size_of::<T>());
        let start = v.as_ptr() as usize;
        let (from, to) = (
            start.next_multiple_of(HUGE),
            start.saturating_add(bytes) / HUGE * HUGE,
        );
        if to > from {
            // SAFETY: advice on pages of this vector's own allocation,
            // none of them touched yet; it changes how they are backed,
            // never what they hold.
            unsafe {
                libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
            }
        }
    }
    v
}

/// [`big_vec`] holding `n` copies of `value`.
pub fn big_vec_of<T: Clone>(n: usize, value: T) -> Vec<T> {
    let mut v = big_vec(n);
    v.resize(n, value);
    v
}

/// Serde's `deserialize_with` for the long vectors of a stored index:
/// their items go straight into a [`big_vec`] of the length the format
/// states (`Vec`'s own reading reserves a megabyte at most, then grows by
/// doubling, touching every page twice). A length past a gigabyte's worth
/// reserves that much and grows from there.
pub mod big_seq {
    use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
    use std::marker::PhantomData;

    const ROOM: usize = 1 << 30;

    pub fn deserialize<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de>,
    {
        struct Seq<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Seq<T> {
            type Value = Vec<T>;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
                let most = ROOM / std::mem::size_of::<T>().max(1);
                let mut out = super::big_vec(seq.size_hint().unwrap_or(0).min(most));
                while let Some(item) = seq.next_element()? {
                    out.push(item);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Seq(PhantomData))
    }

    /// The same for bytes written as one run (`serde_bytes`).
    pub fn bytes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct Bytes;
        impl Visitor<'_> for Bytes {
            type Value = Vec<u8>;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }

            fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
                let mut out = super::big_vec(bytes.len());
                out.extend_from_slice(bytes);
                Ok(out)
            }

            fn visit_byte_buf<E: serde::de::Error>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(bytes)
            }
        }
        d.deserialize_byte_buf(Bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::map;

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Plain {
        items: Vec<(String, u32)>,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
    }

    #[derive(serde::Deserialize, PartialEq, Debug)]
    struct Big {
        #[serde(deserialize_with = "super::big_seq::deserialize")]
        items: Vec<(String, u32)>,
        #[serde(deserialize_with = "super::big_seq::bytes")]
        bytes: Vec<u8>,
    }

    /// Long vectors read into huge pages read back as serde's own reading
    /// gives them, and a stated length past what follows is an error, not
    /// an allocation of that length.
    #[test]
    fn big_sequences_read_as_plain_ones() {
        for n in [0usize, 1, 7, 300_000] {
            let plain = Plain {
                items: (0..n).map(|i| (format!("id{i}"), i as u32)).collect(),
                bytes: (0..n * 3).map(|i| i as u8).collect(),
            };
            let written = postcard::to_allocvec(&plain).unwrap();
            let big: Big = postcard::from_bytes(&written).unwrap();
            assert_eq!((big.items, big.bytes), (plain.items, plain.bytes), "{n}");
        }
        // A length of 2^62 items, then one item.
        let mut lying = vec![0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40];
        lying.extend(postcard::to_allocvec(&("x", 1u32)).unwrap());
        assert!(postcard::from_bytes::<Big>(&lying).is_err());
    }

    /// The resident kilobytes of the mapping that starts at `start`, from
    /// the process's own map.
    #[cfg(target_os = "linux")]
    fn resident_kb(start: usize) -> usize {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let head = format!("{start:x}-");
        let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&head));
        lines
            .find_map(|l| l.strip_prefix("Rss:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }

    /// Pages of a file mapping given back leave the resident memory, and
    /// read again hold what they held.
    #[cfg(target_os = "linux")]
    #[test]
    fn released_pages_of_a_mapping_come_back_unchanged() {
        let bytes: Vec<u8> = (0..16u32 << 20)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, &bytes).unwrap();
        // SAFETY: a file of this test's own, not changed while mapped.
        let map = unsafe { memmap2::MmapOptions::new().populate().map(&file) }.unwrap();
        let start = map.as_ptr() as usize;
        assert!(resident_kb(start) >= 15 << 10, "mapped and read in");
        // An unaligned stretch: only the pages wholly inside it go.
        // SAFETY: as above.
        unsafe { super::release_mapped(&map[100..map.len() - 100]) };
        assert!(
            resident_kb(start) <= 8,
            "{} kB still resident",
            resident_kb(start)
        );
        assert!(map[..] == bytes[..], "read again, the same bytes");
    }

    /// The smaps lines of the mapping that holds `addr`.
    #[cfg(target_os = "linux")]
    fn mapping_of(addr: usize) -> Vec<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut found = Vec::new();
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_once(' ').and_then(|(r, _)| r.split_once('-'));
            if let Some((a, b)) = range
                && let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
            {
                inside = (a..b).contains(&addr);
            }
            if inside {
                found.push(line.to_string());
            }
        }
        found
    }

    /// A big vector holds what it was given, and its memory is marked for
    /// huge pages wherever the kernel offers them on request; a small one
    /// is not marked.
    #[cfg(target_os = "linux")]
    #[test]
    fn big_vectors_ask_for_huge_pages() {
        let v = super::big_vec_of(16 << 20, 7u32);
        assert_eq!(v.len(), 16 << 20);
        assert!(v.iter().all(|&x| x == 7));
        let setting = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        let offered = setting.contains("[madvise]") || setting.contains("[always]");
        // (The advice covers the whole huge pages inside the vector: its
        // middle.)
        let advised = |addr: usize| {
            let lines = mapping_of(addr);
            let hg = lines
                .iter()
                .any(|l| l.starts_with("VmFlags:") && l.contains(" hg"));
            (hg, lines)
        };
        // Without transparent huge pages the advice is refused; with them
        // the mapping carries it.
        let (marked, lines) = advised(v.as_ptr() as usize + v.len() * 2);
        assert_eq!(marked, offered, "setting {setting:?}, mapping {lines:?}");
        let small = super::big_vec_of(1000, 7u32);
        assert!(!advised(small.as_ptr() as usize).0);
    }

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
