//! Newest-wins work: a slot whose asking end ([`Newest`]) stamps every
//! request it hands out and takes back only the answer to the newest one,
//! and whose worker end ([`Latest`]) keeps only the newest job waiting and
//! skips one overtaken before it starts. The work itself sees its
//! [`Stamp`] overtaken and may stop. Whoever asks holds a `Newest`, never a
//! counter of its own.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The asking end of a newest-wins slot: it stamps each request, and lets
/// through only the answers to the newest one.
#[derive(Debug, Clone, Default)]
pub struct Newest {
    /// The newest generation handed out; the work reads it to know when it
    /// has been overtaken.
    latest: Arc<AtomicU64>,
    /// The generation whose answer was taken last (0: none yet).
    taken: u64,
}

impl Newest {
    /// Stamps a new request: every request before it is overtaken.
    pub fn stamp(&mut self) -> Stamp {
        let generation = self.latest.fetch_add(1, Ordering::Relaxed) + 1;
        Stamp {
            generation,
            latest: self.latest.clone(),
        }
    }

    /// The newest request's stamp once more: another answer to it (the
    /// same file read on) is taken like the first.
    pub fn again(&self) -> Stamp {
        Stamp {
            generation: self.latest.load(Ordering::Relaxed),
            latest: self.latest.clone(),
        }
    }

    /// Overtakes every request handed out: their work may stop, and their
    /// answers are dropped.
    pub fn cancel(&mut self) {
        self.latest.fetch_add(1, Ordering::Relaxed);
    }

    /// The answer's value when it answers the newest request of this
    /// slot; `None` (the answer dropped) when a newer request was made
    /// since, or it answers another slot.
    pub fn take<T>(&mut self, answer: Answer<T>) -> Option<T> {
        let Answer { stamp, value } = answer;
        if !self.is_newest(&stamp) {
            return None;
        }
        self.taken = stamp.generation;
        Some(value)
    }

    /// Whether `stamp` is this slot's newest request's.
    fn is_newest(&self, stamp: &Stamp) -> bool {
        Arc::ptr_eq(&stamp.latest, &self.latest)
            && stamp.generation == self.latest.load(Ordering::Relaxed)
    }

    /// The answer's value when it answers the newest request of this
    /// slot, as [`Newest::take`], but not taken: a report on the way to
    /// the answer (how far the work has come).
    pub fn peek<T>(&self, answer: Answer<T>) -> Option<T> {
        let Answer { stamp, value } = answer;
        self.is_newest(&stamp).then_some(value)
    }

    /// Whether a request was made since the last answer taken.
    pub fn is_waiting(&self) -> bool {
        self.taken != self.latest.load(Ordering::Relaxed)
    }

    /// Names the request whose answer was taken last: two answers taken
    /// one after another (two sessions shown) are told apart by it.
    pub fn taken(&self) -> u64 {
        self.taken
    }
}

/// What a request carries to the work: whether it is still the newest.
#[derive(Clone)]
pub struct Stamp {
    generation: u64,
    latest: Arc<AtomicU64>,
}

impl Stamp {
    /// Whether a newer request was made (or the slot cancelled): the work
    /// may stop, its answer will be dropped.
    pub fn is_overtaken(&self) -> bool {
        self.latest.load(Ordering::Relaxed) != self.generation
    }

    /// The work's answer to this request.
    pub fn answer<T>(&self, value: T) -> Answer<T> {
        Answer {
            stamp: self.clone(),
            value,
        }
    }
}

impl std::fmt::Debug for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.generation)
    }
}

/// A worker's answer to a stamped request, opened by the slot that asked
/// ([`Newest::take`]).
#[derive(Debug)]
pub struct Answer<T> {
    stamp: Stamp,
    value: T,
}

/// A job that may carry the stamp of its request.
pub trait Stamped {
    fn stamp(&self) -> Option<&Stamp>;
}

/// The worker end of a newest-wins slot: a thread that runs one job at a
/// time, and a slot that keeps only the newest job waiting, so a burst of
/// key presses costs one build, not one per key. A job whose request was
/// overtaken while it waited is skipped.
pub struct Latest<T> {
    slot: Mutex<Option<T>>,
    ready: Condvar,
}

impl<T: Stamped + Send + 'static> Latest<T> {
    pub fn spawn(name: &str, work: impl Fn(T) + Send + 'static) -> Arc<Latest<T>> {
        let latest = Arc::new(Latest {
            slot: Mutex::new(None),
            ready: Condvar::new(),
        });
        let l = latest.clone();
        let spawned = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                loop {
                    let job: T = {
                        let Ok(mut slot) = l.slot.lock() else { return };
                        loop {
                            if let Some(job) = slot.take() {
                                break job;
                            }
                            slot = match l.ready.wait(slot) {
                                Ok(s) => s,
                                Err(_) => return,
                            };
                        }
                    };
                    if job.stamp().is_some_and(Stamp::is_overtaken) {
                        continue;
                    }
                    work(job);
                }
            });
        // Without the thread the job is simply never done; the UI still runs.
        drop(spawned);
        latest
    }

    /// Hands the thread `job`, in place of any job still waiting.
    pub fn put(&self, job: T) {
        if let Ok(mut slot) = self.slot.lock() {
            *slot = Some(job);
            self.ready.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn the_answer_to_an_overtaken_request_is_dropped() {
        let mut slot = Newest::default();
        let older = slot.stamp();
        let newer = slot.stamp();
        assert!(older.is_overtaken() && !newer.is_overtaken());
        assert!(slot.is_waiting());
        assert_eq!(slot.take(older.answer("older")), None);
        assert!(slot.is_waiting(), "still waiting for the newest");
        assert_eq!(slot.take(newer.answer("newer")), Some("newer"));
        assert!(!slot.is_waiting());
        // The newest request answered again (a file read on) counts too.
        assert_eq!(slot.take(slot.again().answer("again")), Some("again"));
    }

    #[test]
    fn a_cancelled_request_is_overtaken_and_its_answer_dropped() {
        let mut slot = Newest::default();
        let asked = slot.stamp();
        slot.cancel();
        assert!(asked.is_overtaken());
        assert_eq!(slot.take(asked.answer(1)), None);
    }

    #[test]
    fn an_answer_to_another_slot_is_never_taken() {
        let mut one = Newest::default();
        let mut other = Newest::default();
        let stamp = other.stamp();
        let _ = one.stamp();
        assert_eq!(one.take(stamp.answer(1)), None);
        assert_eq!(other.take(stamp.answer(2)), Some(2));
    }

    struct TestJob {
        stamp: Stamp,
        n: u32,
    }

    impl Stamped for TestJob {
        fn stamp(&self) -> Option<&Stamp> {
            Some(&self.stamp)
        }
    }

    #[test]
    fn the_worker_runs_only_the_newest_waiting_job_and_skips_a_cancelled_one() {
        let (started_tx, started) = mpsc::channel::<u32>();
        let (gate, gate_rx) = mpsc::channel::<()>();
        let gate_rx = Mutex::new(gate_rx);
        let (done_tx, done) = mpsc::channel::<u32>();
        let latest = Latest::spawn("test-latest", move |job: TestJob| {
            let _ = started_tx.send(job.n);
            if let Ok(rx) = gate_rx.lock() {
                let _ = rx.recv_timeout(Duration::from_secs(10));
            }
            let _ = done_tx.send(job.n);
        });
        let wait = Duration::from_secs(10);
        let mut slot = Newest::default();
        let job = |slot: &mut Newest, n| TestJob {
            stamp: slot.stamp(),
            n,
        };
        latest.put(job(&mut slot, 1));
        assert_eq!(started.recv_timeout(wait), Ok(1));
        // While 1 runs, 2 is replaced by 3 before it starts.
        latest.put(job(&mut slot, 2));
        latest.put(job(&mut slot, 3));
        gate.send(()).expect("gate");
        assert_eq!(done.recv_timeout(wait), Ok(1));
        assert_eq!(started.recv_timeout(wait), Ok(3));
        // While 3 runs, 4 waits and is then cancelled: it never starts.
        latest.put(job(&mut slot, 4));
        slot.cancel();
        gate.send(()).expect("gate");
        assert_eq!(done.recv_timeout(wait), Ok(3));
        assert!(started.recv_timeout(Duration::from_millis(200)).is_err());
    }
}
