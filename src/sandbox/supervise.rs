//! Threads that evaluate one item after another, each on the thread that took it, under
//! a watchdog that may abandon them.
//!
//! The epoch deadline stops code running in wasm, not a host call that blocks (opening
//! a FIFO waits for a writer forever), and a blocked thread cannot be stopped. So the
//! items run on threads of their own, and the calling thread watches them: it sleeps
//! until the earliest deadline among the items in flight, and a thread still in one
//! item `patience` after it began is abandoned. The item is [`Lost::Stuck`], a new
//! thread takes the abandoned one's place, and if the abandoned item ever returns, its
//! thread drops the result and ends. A panic is one item's loss too ([`Lost::Panicked`]):
//! the thread goes on with the next item, and the run with the other items.
//!
//! Why not hand each item to a pooled thread and wait for the answer: on 2 cores that
//! hand-off (two futex wake-ups, and the TLB shoot-downs a second active core brings)
//! cost about 65 µs per check, more than the evaluation itself (`cargo bench`:
//! per-check, BENCHMARKS.md). Here a thread takes its next item from a counter, and the
//! watchdog wakes once per deadline, not once per item.
//!
//! Items found to be `alone` when a thread takes them run one at a time, whatever
//! `threads` is, while the other threads take the rest: the evaluations of a component
//! whose every check writes hundreds of pages of its memory snapshot again (CPython),
//! where each copy-on-write fault costs a TLB shoot-down to every other core running the
//! process. Two of them at once on 2 cores took twice the CPU for the same wall time
//! (BENCHMARKS.md, custom checks per language). The question is asked when the item is
//! taken, so what the first evaluations of a component showed decides for the rest.

use std::any::Any;
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// Why an item has no result of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lost {
    /// Its thread was still in it `patience` after it began, and was abandoned.
    Stuck,
    /// No thread could be started to run it (the message says why).
    NoThread(String),
    /// `work` panicked on it, with this message.
    Panicked(String),
}

/// `items.map(work)` on up to `threads` threads, results in input order. `work(index,
/// item)` runs on the thread that took the item; an item without a result of its own
/// (stuck past `patience`, panicked, or never started) gets `lost(index, item, why)`
/// instead, called on the calling thread once every item has ended.
pub(crate) fn map<T, R, W>(
    items: Vec<T>,
    threads: usize,
    patience: Duration,
    work: W,
    lost: impl Fn(usize, &T, Lost) -> R,
) -> Vec<R>
where
    T: Send + Sync + 'static,
    R: Send + 'static,
    W: Fn(usize, &T) -> R + Send + Sync + 'static,
{
    map_with_alone(items, |_| false, threads, patience, work, lost)
}

/// [`map`], where an item for which `alone(item)` holds when a thread takes it runs while
/// no other such item does: it waits for the one in progress and is taken next, by the
/// thread that ran that one or by the first to ask after it ended. The others run beside.
pub(crate) fn map_with_alone<T, R, W, A>(
    items: Vec<T>,
    alone: A,
    threads: usize,
    patience: Duration,
    work: W,
    lost: impl Fn(usize, &T, Lost) -> R,
) -> Vec<R>
where
    T: Send + Sync + 'static,
    R: Send + 'static,
    W: Fn(usize, &T) -> R + Send + Sync + 'static,
    A: Fn(&T) -> bool + Send + Sync + 'static,
{
    let total = items.len();
    let shared = Arc::new(Shared {
        results: items.iter().map(|_| Mutex::new(None)).collect(),
        items,
        work,
        alone,
        next: AtomicUsize::new(0),
        waiting: Mutex::new(VecDeque::new()),
        single_taken: AtomicBool::new(false),
        finished: AtomicUsize::new(0),
        watchdog: thread::current(),
    });
    let mut posts: Vec<Arc<Mutex<Post>>> = Vec::new();
    let mut wanted = threads.clamp(1, total.max(1));
    let mut no_thread = None;
    while shared.finished.load(Ordering::Acquire) < total {
        // Start the threads wanted: at first, and in place of abandoned ones.
        for _ in 0..wanted {
            match start(&shared) {
                Ok(post) => posts.push(post),
                Err(e) => no_thread = Some(format!("cannot start a thread: {e}")),
            }
        }
        wanted = 0;
        let mut sleep = patience;
        let mut alive = 0;
        for post in &posts {
            let mut post = lock(post);
            let in_it = post.current.map(|item| (item, item.began.elapsed()));
            match in_it {
                _ if post.abandoned || post.ended => continue,
                Some((item, for_how_long)) if for_how_long >= patience => {
                    post.abandoned = true;
                    drop(post);
                    if item.alone {
                        // A thread stuck in a host call writes no memory: the next such
                        // item may run (on the thread started in this one's place).
                        shared.single_taken.store(false, Ordering::SeqCst);
                    }
                    shared.finish(item.index, Err(Lost::Stuck));
                    wanted += 1;
                }
                Some((_, for_how_long)) => {
                    sleep = sleep.min(patience - for_how_long);
                    alive += 1;
                }
                None => alive += 1,
            }
        }
        if wanted > 0 {
            continue;
        }
        if alive == 0 {
            // Every thread was abandoned or never started, and none can be: what is left
            // is not run.
            let reason = no_thread.clone().unwrap_or_else(|| "no thread left to run it".into());
            while let Some(index) = shared.take_next().or_else(|| lock(&shared.waiting).pop_front()) {
                shared.finish(index, Err(Lost::NoThread(reason.clone())));
            }
            continue;
        }
        // Woken early by the last item to finish.
        thread::park_timeout(sleep);
    }
    let results = shared.results.iter().map(|slot| lock(slot).take().expect("every item has a result"));
    results
        .enumerate()
        .map(|(index, result)| result.unwrap_or_else(|why| lost(index, &shared.items[index], why)))
        .collect()
}

/// What the threads and the watchdog share.
struct Shared<T, R, W, A> {
    items: Vec<T>,
    work: W,
    /// Whether an item must run while no other such item does.
    alone: A,
    /// The next item to take, in input order.
    next: AtomicUsize,
    /// Items that must run alone, taken while another one ran, in the order taken.
    waiting: Mutex<VecDeque<usize>>,
    /// Whether a thread is in an item that runs alone.
    single_taken: AtomicBool,
    results: Vec<Mutex<Option<Result<R, Lost>>>>,
    /// Items with a result.
    finished: AtomicUsize,
    watchdog: Thread,
}

impl<T, R, W, A: Fn(&T) -> bool> Shared<T, R, W, A> {
    /// The next item for a thread, `None` when nothing is left it may take.
    ///
    /// An item that must run alone while another does is put in `waiting`. Whoever puts
    /// one there asks for the single place right after, and whoever leaves the single
    /// place asks for a waiting item at its next claim, so a waiting item is never left
    /// behind: the last of the two to act sees both the item and the free place.
    fn claim(&self) -> Option<Current> {
        if let Some(current) = self.take_waiting() {
            return Some(current);
        }
        while let Some(index) = self.take_next() {
            if !(self.alone)(&self.items[index]) {
                return Some(Current { index, began: Instant::now(), alone: false });
            }
            if self.single_taken.compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
                return Some(Current { index, began: Instant::now(), alone: true });
            }
            lock(&self.waiting).push_back(index);
            if let Some(current) = self.take_waiting() {
                return Some(current);
            }
        }
        self.take_waiting()
    }

    fn take_next(&self) -> Option<usize> {
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        (index < self.items.len()).then_some(index)
    }

    /// The first waiting item, with the single place, if both are there.
    fn take_waiting(&self) -> Option<Current> {
        let mut waiting = lock(&self.waiting);
        if waiting.is_empty() {
            return None;
        }
        self.single_taken.compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst).ok()?;
        let index = waiting.pop_front().expect("not empty");
        Some(Current { index, began: Instant::now(), alone: true })
    }

    fn finish(&self, index: usize, result: Result<R, Lost>) {
        *lock(&self.results[index]) = Some(result);
        if self.finished.fetch_add(1, Ordering::AcqRel) + 1 == self.items.len() {
            self.watchdog.unpark();
        }
    }
}

/// What one thread is doing, as the watchdog sees it.
#[derive(Default)]
struct Post {
    /// The item it is in.
    current: Option<Current>,
    abandoned: bool,
    ended: bool,
}

fn start<T, R, W, A>(shared: &Arc<Shared<T, R, W, A>>) -> std::io::Result<Arc<Mutex<Post>>>
where
    T: Send + Sync + 'static,
    R: Send + 'static,
    W: Fn(usize, &T) -> R + Send + Sync + 'static,
    A: Fn(&T) -> bool + Send + Sync + 'static,
{
    let post = Arc::new(Mutex::new(Post::default()));
    let (shared, mine) = (shared.clone(), post.clone());
    thread::Builder::new().name("check".into()).spawn(move || take_items(&shared, &mine))?;
    Ok(post)
}

/// An item a thread is in.
#[derive(Clone, Copy)]
struct Current {
    index: usize,
    began: Instant,
    /// One of the items that run one at a time.
    alone: bool,
}

/// A thread's life: items until none is left or this thread is abandoned.
fn take_items<T, R, W: Fn(usize, &T) -> R, A: Fn(&T) -> bool>(shared: &Shared<T, R, W, A>, post: &Mutex<Post>) {
    loop {
        // Claimed under the post's lock, so the watchdog never sees a single item taken
        // by a thread whose post does not show it.
        let mut mine = lock(post);
        let Some(current) = shared.claim() else { break };
        mine.current = Some(current);
        drop(mine);
        let index = current.index;
        let result = catch_unwind(AssertUnwindSafe(|| (shared.work)(index, &shared.items[index])));
        let mut mine = lock(post);
        if mine.abandoned {
            // The watchdog gave this item its result (and let another single item run);
            // whatever came back is dropped.
            return;
        }
        mine.current = None;
        if current.alone {
            shared.single_taken.store(false, Ordering::SeqCst);
        }
        drop(mine);
        shared.finish(index, result.map_err(|panic| Lost::Panicked(panic_message(&*panic))));
    }
    lock(post).ended = true;
}

/// What a panic said, when it said it with a string.
fn panic_message(panic: &(dyn Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(text), _) => (*text).to_string(),
        (_, Some(text)) => text.clone(),
        _ => "a panic without a message".into(),
    }
}

/// Locks a mutex no code panics while holding (`work` runs outside every lock).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn results_come_in_input_order_from_every_thread() {
        let results = map(
            (0..1000).collect(),
            4,
            Duration::from_secs(60),
            |i, &n: &u64| (i, n * n),
            |_, _, _| unreachable!("nothing is stuck"),
        );
        assert_eq!(results, (0..1000).map(|n| (n as usize, n * n)).collect::<Vec<_>>());
        let none: Vec<u8> = map(Vec::<u8>::new(), 2, Duration::from_secs(1), |_, &n| n, |_, _, _| 0);
        assert!(none.is_empty());
    }

    #[test]
    fn items_run_on_the_thread_that_takes_them_not_the_caller() {
        let caller = thread::current().id();
        let ran_on = map(vec![(); 50], 1, Duration::from_secs(60), |_, _| thread::current().id(), |_, _, _| caller);
        assert!(ran_on.iter().all(|&id| id != caller));
        assert!(ran_on.windows(2).all(|w| w[0] == w[1]), "one thread takes every item in turn");
    }

    /// With one thread, items behind a stuck one still run (on a replacement), the stuck
    /// one is reported after `patience`, and when it returns late its result is dropped.
    #[test]
    fn a_stuck_item_is_abandoned_and_its_thread_replaced() {
        let (release, blocked) = mpsc::channel::<()>();
        let blocked = Arc::new(Mutex::new(blocked));
        let (returned, late) = mpsc::channel::<usize>();
        let patience = Duration::from_millis(300);
        let began = Instant::now();
        let results = map(
            vec![0, 1, 2, 1, 3],
            1,
            patience,
            move |index, &item| {
                if item == 1 {
                    let _ = blocked.lock().unwrap().recv();
                    returned.send(index).unwrap();
                }
                format!("ran {item}")
            },
            |_, &item, why| format!("lost {item}: {why:?}"),
        );
        assert_eq!(results, ["ran 0", "lost 1: Stuck", "ran 2", "lost 1: Stuck", "ran 3"]);
        let took = began.elapsed();
        assert!(took >= patience * 2 && took < patience * 2 + Duration::from_secs(2), "took {took:?}");
        // Let the abandoned threads return: their results were dropped, not written.
        drop(release);
        let mut late: Vec<usize> = (0..2).map(|_| late.recv_timeout(Duration::from_secs(5)).unwrap()).collect();
        late.sort();
        assert_eq!(late, [1, 3]);
    }

    /// Items marked alone never overlap one another, the others run beside them, and a
    /// single item that panics or is stuck lets the next one run.
    #[test]
    fn items_marked_alone_run_one_at_a_time_beside_the_others() {
        #[derive(PartialEq)]
        enum Kind {
            Alone,
            AlonePanics,
            AloneStuck,
            Beside,
        }
        let (release, blocked) = mpsc::channel::<()>();
        let blocked = Arc::new(Mutex::new(blocked));
        let inside = Arc::new(AtomicUsize::new(0));
        let (most, overlapped) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (i, m, o) = (inside.clone(), most.clone(), overlapped.clone());
        let items: Vec<Kind> = (0..40)
            .map(|n| match n {
                5 => Kind::AlonePanics,
                9 => Kind::AloneStuck,
                n if n % 4 == 0 => Kind::Alone,
                _ => Kind::Beside,
            })
            .collect();
        let results = map_with_alone(
            items,
            |kind| *kind != Kind::Beside,
            4,
            Duration::from_millis(400),
            move |_, kind| {
                if *kind == Kind::Beside {
                    thread::sleep(Duration::from_millis(3));
                    if i.load(Ordering::SeqCst) > 0 {
                        o.fetch_add(1, Ordering::SeqCst);
                    }
                    return "beside";
                }
                m.fetch_max(i.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                thread::sleep(Duration::from_millis(10));
                i.fetch_sub(1, Ordering::SeqCst);
                match kind {
                    Kind::AlonePanics => panic!("single"),
                    Kind::AloneStuck => {
                        let _ = blocked.lock().unwrap().recv();
                        "late"
                    }
                    _ => "alone",
                }
            },
            |_, _, why| if why == Lost::Stuck { "stuck" } else { "panicked" },
        );
        drop(release);
        assert_eq!(most.load(Ordering::SeqCst), 1, "two single items ran at once");
        assert!(overlapped.load(Ordering::SeqCst) > 0, "nothing ran beside a single item");
        assert_eq!(results.iter().filter(|r| **r == "alone").count(), 10);
        assert_eq!((results[5], results[9]), ("panicked", "stuck"));
        assert_eq!(results.iter().filter(|r| **r == "beside").count(), 28);
    }

    #[test]
    fn a_panic_is_that_items_loss_and_the_others_go_on() {
        let results = map(
            vec![1, 2, 3],
            1,
            Duration::from_secs(60),
            |_, &n: &u32| if n == 2 { panic!("item two") } else { format!("ran {n}") },
            |_, &n, why| format!("lost {n}: {why:?}"),
        );
        assert_eq!(results, ["ran 1", "lost 2: Panicked(\"item two\")", "ran 3"]);
    }
}
