//! The labels' table of a tree read back from a stored index, made on a
//! thread of its own at the lowest priority rather than while the session
//! opens.
//!
//! On a session of ten million entries and a million labels the table takes
//! a core for a quarter of a second (a hash of every labelled id, 52 MB).
//! Nothing the browser shows first needs it: the leaf's context and the
//! tree's view read no label, and the rows that show them are laid out
//! after the preview. So the table is made by a thread of Linux's idle
//! class, which runs only on a core nothing else wants (a thread woken
//! meanwhile takes that core, as it would an idle one). The first lookup
//! takes the table that thread made; if the thread has not finished (the
//! cores were busy: a build, say), the lookup makes the table itself and the
//! thread stops, so no lookup ever waits on a thread that may not run.

use crate::session::line::entry::Id;
use compact_str::CompactString;
use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, TryLockError};

/// The labels: per target id, the label entry that labels it (the last
/// one in the file that set it and was not cleared after). What it says is
/// read from that entry when asked (`LabelInfo::of`): a table of
/// indices is a third the size of one of texts, on a million labels. The
/// ids are kept as entries keep theirs (most in place, in 16 bytes).
pub type Labels = HashMap<Id, u32>;

/// The labels (see the module's notes).
#[derive(Debug, Default)]
pub struct LabelTable {
    made: OnceLock<Labels>,
    /// What they are made of, and where the thread making them leaves them.
    coming: Option<Arc<Coming>>,
}

#[derive(Debug)]
struct Coming {
    /// Each labelled id and the label entry that set it; let go (`None`)
    /// once the table is made (in `made` or taken from it).
    stored: RwLock<Option<Vec<(CompactString, u32)>>>,
    /// The table, once the thread has made it.
    made: Mutex<Option<Labels>>,
    /// Cleared by the first lookup: the thread's table is no longer wanted.
    wanted: AtomicBool,
    /// How many finds have passed over `stored` (see [`FINDS`]).
    finds: AtomicU32,
}

/// How many finds pass over what the table is made of before one makes
/// it (when its thread cannot run: the cores busy for long).
const FINDS: u32 = 64;

/// How many labels the thread puts in between looks at whether its table
/// is still wanted.
const LOOK_EVERY: usize = 16_384;

impl LabelTable {
    pub fn new(labels: Labels) -> LabelTable {
        LabelTable {
            made: OnceLock::from(labels),
            coming: None,
        }
    }

    /// The table of `stored` (each labelled id and the label entry that
    /// set it): made at once, or, with `beside`, by a thread started now.
    pub fn of_stored(stored: Vec<(CompactString, u32)>, beside: bool) -> LabelTable {
        if !beside {
            return LabelTable::new(table(&stored, || true).unwrap_or_default());
        }
        let coming = Arc::new(Coming {
            stored: RwLock::new(Some(stored)),
            made: Mutex::new(None),
            wanted: AtomicBool::new(true),
            finds: AtomicU32::new(0),
        });
        let theirs = Arc::clone(&coming);
        // Not joined: it holds only what it shares with this table, and
        // ends soon after the table is asked for.
        let _ = std::thread::Builder::new()
            .name("piscope-labels".into())
            .spawn(move || theirs.make());
        LabelTable {
            made: OnceLock::new(),
            coming: Some(coming),
        }
    }

    /// The table: the thread's, or made here if that one is not ready.
    pub fn get(&self) -> &Labels {
        self.made.get_or_init(|| match &self.coming {
            Some(c) => c.take(),
            None => Labels::default(),
        })
    }

    /// The label entry of each of `ids`, in their order: from the table
    /// when it is made, else from one pass over what it is made of, which
    /// neither makes it nor waits for it (a few ids: a preview's window).
    pub fn find(&self, ids: &[&str]) -> Vec<Option<u32>> {
        let from_table = || {
            let labels = self.get();
            ids.iter().map(|id| labels.get(*id).copied()).collect()
        };
        let (Some(c), None) = (&self.coming, self.made.get()) else {
            return from_table();
        };
        // Held while read: what the table is made of is let go only once
        // the table is made, and then this turns to the table (the guard
        // dropped first: taking the table lets go of it).
        let guard = c.read();
        let scan = guard.is_some()
            && c.slot().is_none()
            && c.finds.fetch_add(1, Ordering::Relaxed) < FINDS;
        let (true, Some(stored)) = (scan, guard.as_ref()) else {
            drop(guard);
            return from_table();
        };
        let mut wanted: HashMap<&str, Vec<usize>> = HashMap::default();
        for (k, id) in ids.iter().enumerate() {
            wanted.entry(id).or_default().push(k);
        }
        let mut found = vec![None; ids.len()];
        for (id, at) in stored {
            for &k in wanted.get(id.as_str()).into_iter().flatten() {
                found[k] = Some(*at);
            }
        }
        drop(guard);
        // The table taken meanwhile: its lookup may have left this to let go.
        if !c.wanted.load(Ordering::Relaxed) {
            c.try_let_go();
        }
        found
    }

    /// The table, to change.
    pub fn get_mut(&mut self) -> &mut Labels {
        self.get();
        self.coming = None;
        self.made.get_mut().expect("the table was made just before")
    }
}

impl Clone for LabelTable {
    fn clone(&self) -> LabelTable {
        LabelTable::new(self.get().clone())
    }
}

impl Coming {
    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Labels>> {
        self.made.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Option<Vec<(CompactString, u32)>>> {
        self.stored.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Lets go of what the table is made of (it is made, or being made by
    /// a lookup that reads it: this waits for that read).
    fn let_go(&self) {
        *self.stored.write().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// The same, unless another holds it: a lookup never waits on the
    /// thread (which lets go itself as it ends) or on a find.
    fn try_let_go(&self) {
        match self.stored.try_write() {
            Ok(mut s) => *s = None,
            Err(TryLockError::Poisoned(p)) => *p.into_inner() = None,
            Err(TryLockError::WouldBlock) => {}
        }
    }

    /// On the thread: makes the table at the lowest priority and leaves it,
    /// unless it stopped being wanted.
    fn make(&self) {
        lowest_priority();
        self.build();
    }

    /// [`Coming::make`] at the calling thread's priority. Whether it left
    /// the table or found it no longer wanted, what the table is made of
    /// is let go as it ends.
    fn build(&self) {
        let made = {
            let stored = self.read();
            let go_on = || self.wanted.load(Ordering::Relaxed);
            stored.as_deref().and_then(|s| table(s, go_on))
        };
        if let Some(labels) = made {
            let mut slot = self.slot();
            if self.wanted.load(Ordering::Relaxed) {
                *slot = Some(labels);
            }
        }
        self.let_go();
    }

    /// The thread's table, or one made here; the thread stops either way,
    /// and what the table is made of is let go (here, or by the thread
    /// or a find still reading it, as they end).
    fn take(&self) -> Labels {
        let made = {
            let mut slot = self.slot();
            self.wanted.store(false, Ordering::Relaxed);
            slot.take()
        };
        let labels = made.unwrap_or_else(|| {
            let stored = self.read();
            stored
                .as_deref()
                .and_then(|s| table(s, || true))
                .unwrap_or_default()
        });
        self.try_let_go();
        labels
    }
}

/// The table of each labelled id and the label entry that set it; `None`
/// once `go_on` says to stop (asked every [`LOOK_EVERY`] labels).
fn table(stored: &[(CompactString, u32)], go_on: impl Fn() -> bool) -> Option<Labels> {
    let mut labels = Labels::default();
    labels.reserve(stored.len());
    for run in stored.chunks(LOOK_EVERY) {
        if !go_on() {
            return None;
        }
        labels.extend(run.iter().map(|(id, at)| (Id::from(id), *at)));
    }
    Some(labels)
}

/// Puts the calling thread in Linux's idle class (each thread has its own);
/// elsewhere it runs as it is.
fn lowest_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: `param` outlives the call, which only reads it; `pid` 0 is
    // the calling thread, and a refusal leaves its class as it was.
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        libc::sched_setscheduler(0, libc::SCHED_IDLE, &param);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(n: u32) -> Vec<(CompactString, u32)> {
        (0..n)
            .map(|i| (CompactString::from(format!("id{i}")), i))
            .collect()
    }

    fn all(stored: &[(CompactString, u32)]) -> Labels {
        stored.iter().map(|(id, at)| (Id::from(id), *at)).collect()
    }

    /// However the table is come by (made at once, by the thread, by a
    /// lookup before the thread is done, by one of several lookups at
    /// once while others find, changed, cloned), it is the table of what
    /// was stored.
    #[test]
    fn the_table_is_the_stored_labels_however_it_is_made() {
        let want = all(&stored(100_000));
        assert_eq!(want.len(), 100_000);
        assert_eq!(LabelTable::of_stored(stored(100_000), false).get(), &want);
        for round in 0..40 {
            let asked = LabelTable::of_stored(stored(100_000), true);
            // Asked at once, or once the thread has had time to finish.
            if round % 2 == 1 {
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            std::thread::scope(|s| {
                let others: Vec<_> = (0..3).map(|_| s.spawn(|| asked.get().len())).collect();
                let finds: Vec<_> = (0..2)
                    .map(|_| {
                        s.spawn(|| (0..20).all(|_| asked.find(&["id5", "x"]) == [Some(5), None]))
                    })
                    .collect();
                assert_eq!(asked.get(), &want);
                for o in others {
                    assert_eq!(o.join().ok(), Some(want.len()));
                }
                for f in finds {
                    assert_eq!(f.join().ok(), Some(true));
                }
            });
        }
        // The thread's table taken, whether or not a thread ran in time
        // above (the cores may be busy): made as the thread makes it.
        let t = starved(stored(100_000));
        let c = t.coming.as_ref().unwrap();
        c.build();
        assert!(c.slot().is_some() && c.read().is_none());
        assert_eq!(t.get(), &want);
        assert!(c.slot().is_none());
        let mut changed = LabelTable::of_stored(stored(100_000), true);
        let cloned = changed.clone();
        changed
            .get_mut()
            .insert(Id::from(&CompactString::from("new")), 7);
        assert_eq!(cloned.get(), &want);
        assert_eq!(changed.get().len(), want.len() + 1);
        assert!(LabelTable::default().get().is_empty());
    }

    /// A table whose thread never runs (the cores busy).
    fn starved(stored: Vec<(CompactString, u32)>) -> LabelTable {
        LabelTable {
            made: OnceLock::new(),
            coming: Some(Arc::new(Coming {
                stored: RwLock::new(Some(stored)),
                made: Mutex::new(None),
                wanted: AtomicBool::new(true),
                finds: AtomicU32::new(0),
            })),
        }
    }

    /// Ids found without the table are those the table finds: with a
    /// thread that never runs (the table then made by the find after
    /// [`FINDS`]), before the thread has made it, after, and on a table
    /// made at once.
    #[test]
    fn ids_found_without_the_table_are_the_tables() {
        let ids = ["id7", "none", "id99999", "id7", "", "id0"];
        let want = vec![Some(7), None, Some(99_999), Some(7), None, Some(0)];
        let t = starved(stored(100_000));
        // FINDS passes over what it is made of, then the next makes it.
        for k in 0..=FINDS + 1 {
            assert_eq!(t.made.get().is_some(), k > FINDS, "find {k}");
            assert_eq!(t.find(&ids), want, "find {k}");
        }
        assert_eq!(t.get().len(), 100_000);
        assert!(t.coming.as_ref().is_some_and(|c| c.read().is_none()));
        assert_eq!(t.find(&ids), want);
        for round in 0..6 {
            let t = LabelTable::of_stored(stored(100_000), round % 3 != 2);
            if round % 3 == 1 {
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            assert_eq!(t.find(&ids), want, "round {round}");
            assert_eq!(t.find(&[]), Vec::<Option<u32>>::new());
            assert_eq!(t.get().len(), 100_000);
            assert_eq!(t.find(&ids), want, "round {round}, made");
        }
    }

    /// A lookup that takes the table while the thread still reads what it
    /// is made of (a thread of the idle class may not run for long) does
    /// not wait for it; the thread lets go of it as it ends.
    #[test]
    fn a_lookup_never_waits_on_the_thread() {
        let t = starved(stored(1000));
        let c = t.coming.as_ref().unwrap();
        // Held as the thread holds it while it makes the table.
        let reading = c.read();
        std::thread::scope(|s| {
            let (tx, rx) = std::sync::mpsc::channel();
            let table = &t;
            s.spawn(move || {
                let _ = tx.send(table.get().len());
            });
            let waited = rx.recv_timeout(std::time::Duration::from_secs(20));
            assert_eq!(waited.ok(), Some(1000), "the lookup waited on the thread");
            assert!(reading.is_some());
            drop(reading);
        });
        c.build();
        assert!(c.read().is_none() && c.slot().is_none());
    }

    /// A thread whose table is no longer wanted stops and leaves nothing.
    #[test]
    fn a_table_not_wanted_is_not_made() {
        let coming = Coming {
            stored: RwLock::new(Some(stored(100))),
            made: Mutex::new(None),
            wanted: AtomicBool::new(true),
            finds: AtomicU32::new(0),
        };
        assert_eq!(coming.take(), all(&stored(100)));
        coming.build();
        assert!(coming.slot().is_none());
        assert_eq!(table(&stored(100), || false), None);
    }
}
