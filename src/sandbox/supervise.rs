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

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
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
    let total = items.len();
    let shared = Arc::new(Shared {
        results: items.iter().map(|_| Mutex::new(None)).collect(),
        items,
        work,
        next: AtomicUsize::new(0),
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
            let in_it = post.current.map(|(index, began)| (index, began.elapsed()));
            match in_it {
                _ if post.abandoned || post.ended => continue,
                Some((index, for_how_long)) if for_how_long >= patience => {
                    post.abandoned = true;
                    drop(post);
                    shared.finish(index, Err(Lost::Stuck));
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
            while let Some(index) = shared.claim() {
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
struct Shared<T, R, W> {
    items: Vec<T>,
    work: W,
    /// The next item to take.
    next: AtomicUsize,
    results: Vec<Mutex<Option<Result<R, Lost>>>>,
    /// Items with a result.
    finished: AtomicUsize,
    watchdog: Thread,
}

impl<T, R, W> Shared<T, R, W> {
    fn claim(&self) -> Option<usize> {
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        (index < self.items.len()).then_some(index)
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
    /// The item it is in, and since when.
    current: Option<(usize, Instant)>,
    abandoned: bool,
    ended: bool,
}

fn start<T, R, W>(shared: &Arc<Shared<T, R, W>>) -> std::io::Result<Arc<Mutex<Post>>>
where
    T: Send + Sync + 'static,
    R: Send + 'static,
    W: Fn(usize, &T) -> R + Send + Sync + 'static,
{
    let post = Arc::new(Mutex::new(Post::default()));
    let (shared, mine) = (shared.clone(), post.clone());
    thread::Builder::new().name("check".into()).spawn(move || take_items(&shared, &mine))?;
    Ok(post)
}

/// A thread's life: items until none is left or this thread is abandoned.
fn take_items<T, R, W: Fn(usize, &T) -> R>(shared: &Shared<T, R, W>, post: &Mutex<Post>) {
    while let Some(index) = shared.claim() {
        lock(post).current = Some((index, Instant::now()));
        let result = catch_unwind(AssertUnwindSafe(|| (shared.work)(index, &shared.items[index])));
        let mut mine = lock(post);
        if mine.abandoned {
            // The watchdog gave this item its result; whatever came back is dropped.
            return;
        }
        mine.current = None;
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
