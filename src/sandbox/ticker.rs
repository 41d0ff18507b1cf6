//! The epoch ticker: a thread that advances the engine's epoch, the clock that every
//! store's deadline is counted in.
//!
//! It does not stop anything itself: a store whose deadline passes traps at its next
//! epoch check, in wasm code. A host call that blocks is the watchdog's (`supervise`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use wasmtime::Engine;

/// How often the epoch advances. The deadline is checked at this granularity; a
/// shorter tick costs more (wasmtime-notes: ~8% at 10 ms).
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Advances the engine's epoch once per [`EPOCH_TICK`] of wall-clock time until dropped.
pub(super) struct Ticker {
    stop: Arc<AtomicBool>,
}

impl Ticker {
    pub(super) fn start(engine: Engine) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        thread::Builder::new()
            .name("epoch ticker".into())
            .spawn(move || {
                let started = Instant::now();
                let mut ticks: u128 = 0;
                while !flag.load(Ordering::Relaxed) {
                    thread::sleep(EPOCH_TICK);
                    // A sleep lasts longer than asked on a loaded machine: the epoch follows
                    // the clock, not the count of sleeps, so that a deadline counted in
                    // epochs passes when its time has, before the wall-clock watchdog
                    // takes a spinning check for one blocked in a host call.
                    let due = started.elapsed().as_nanos() / EPOCH_TICK.as_nanos();
                    while ticks < due {
                        engine.increment_epoch();
                        ticks += 1;
                    }
                }
            })
            .expect("cannot start the epoch ticker thread");
        Ticker { stop }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
