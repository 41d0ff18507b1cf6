//! The engine and linker of one run.
//!
//! [`Sandbox::new`] sizes wasmtime's pooling allocator for the run's jobs and memory
//! limit, applies the settings compiled code depends on ([`settings`]), links WASI and
//! the host's own imports, and starts the epoch ticker. Loading components is
//! `component`'s, evaluating them `evaluate`'s.

use std::sync::Arc;

use wasmtime::component::{HasSelf, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use super::bindings;
use super::cache::Cache;
use super::evaluate::HostState;
use super::limits::{self, Limits};
use super::programs::Grants;
use super::settings;
use super::special;
use super::ticker::Ticker;

/// Instance slots kept beyond `jobs` in the pooling allocator, for evaluations the
/// watchdog abandoned (their slot is only freed if they ever return).
const SPARE_SLOTS: u32 = 16;

/// Bytes of each memory and table slot kept mapped between checks (zeroed by memset).
const KEEP_RESIDENT: usize = 256 << 10;
/// Slots whose memory is returned to the kernel in one batch.
const DECOMMIT_BATCH: usize = 8;

/// Errors setting up the sandbox or loading a component.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    #[error("cannot configure the wasmtime engine: {0}")]
    Engine(String),
    #[error("component '{name}' cannot be loaded: {reason}")]
    Component { name: String, reason: String },
}

/// The engine, linker and limits of one run.
pub struct Sandbox {
    pub(super) engine: Engine,
    pub(super) linker: Linker<HostState>,
    /// With grants: what the operator granted, and the linker that also has the
    /// `programs` capability, for the built-in shell check alone.
    pub(super) granted: Option<(Arc<Grants>, Linker<HostState>)>,
    pub(super) limits: Limits,
    pub(super) cache: Option<Cache>,
    /// Evaluations at a time.
    pub(super) jobs: usize,
    /// Told when a compile starts and ends ([`Sandbox::on_compile`]).
    pub(super) compiling: std::sync::OnceLock<Box<CompileObserver>>,
    _ticker: Ticker,
}

/// What [`Sandbox::on_compile`] calls: with the component's name and `true` when a
/// compile starts, `false` when it has ended.
pub type CompileObserver = dyn Fn(&str, bool) + Send + Sync;

impl Sandbox {
    /// An engine sized for `jobs` concurrent evaluations under `limits`. `cache` is where
    /// compiled components are kept (`None`: compile in memory every time).
    pub fn new(limits: Limits, jobs: usize, cache: Option<Cache>) -> Result<Sandbox, SandboxError> {
        Sandbox::configured(limits, jobs, cache, |_| {})
    }

    /// [`Sandbox::new`] with `adjust` applied to the engine's settings last: for tests of
    /// an engine that refuses the embedded artifacts.
    pub(crate) fn configured(
        limits: Limits,
        jobs: usize,
        cache: Option<Cache>,
        adjust: impl FnOnce(&mut Config),
    ) -> Result<Sandbox, SandboxError> {
        let engine_error = |e: wasmtime::Error| SandboxError::Engine(format!("{e:#}"));
        let jobs = jobs.max(1);
        let slots = u32::try_from(jobs).unwrap_or(u32::MAX / 8).saturating_add(SPARE_SLOTS);
        let mut pool = PoolingAllocationConfig::default();
        pool.total_component_instances(slots)
            .total_core_instances(slots.saturating_mul(16))
            .total_memories(slots.saturating_mul(limits::MAX_MEMORIES as u32))
            .total_tables(slots.saturating_mul(16))
            .max_memory_size(usize::try_from(limits.memory).unwrap_or(usize::MAX))
            // A check's first pages are zeroed with memset and stay mapped for the next
            // check in the slot, and slots are returned to the kernel in batches: fewer
            // page faults and `madvise` calls per check (`cargo bench`: per-check).
            .linear_memory_keep_resident(KEEP_RESIDENT)
            .table_keep_resident(KEEP_RESIDENT)
            // With PAGEMAP_SCAN (Linux 6.7+), only the pages a check dirtied are reset for
            // the next, in place (`cargo bench`: per-check). Not on a machine with swap:
            // wasmtime 48's scan passes over a dirtied page that was swapped out, which
            // would leave it for the next check in the slot
            // (bytecodealliance/wasmtime#14357).
            .pagemap_scan(match swap_configured() {
                true => wasmtime::Enabled::No,
                false => wasmtime::Enabled::Auto,
            })
            .decommit_batch_size(DECOMMIT_BATCH)
            // Checks run synchronously and never need a fiber stack; the default of 1,000
            // stacks cost 1,000 `mprotect` calls (13 ms of a 20 ms run) at start-up.
            .total_stacks(0);
        let mut config = Config::new();
        settings::apply(&mut config);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        // `REVIEWHOST_PERFMAP=1` names the checks' compiled functions for `perf report`
        // (/tmp/perf-PID.map); compiled code is the same either way (BENCHMARKS.md).
        if std::env::var_os("REVIEWHOST_PERFMAP").is_some() {
            config.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        adjust(&mut config);
        let engine = Engine::new(&config).map_err(engine_error)?;
        let linker = checks_linker(&engine).map_err(engine_error)?;
        let ticker = Ticker::start(engine.clone());
        Ok(Sandbox {
            engine,
            linker,
            granted: None,
            limits,
            cache,
            jobs,
            compiling: Default::default(),
            _ticker: ticker,
        })
    }

    /// This sandbox, able to run the programs in `grants` for the built-in shell check.
    /// Without any grant the capability stays absent.
    pub fn with_grants(mut self, grants: Grants) -> Result<Sandbox, SandboxError> {
        if grants.is_empty() {
            return Ok(self);
        }
        let engine_error = |e: wasmtime::Error| SandboxError::Engine(format!("{e:#}"));
        let mut linker = checks_linker(&self.engine).map_err(engine_error)?;
        bindings::programs::reviewhost::check::programs::add_to_linker::<HostState, HasSelf<HostState>>(
            &mut linker,
            |s| s,
        )
        .map_err(engine_error)?;
        self.granted = Some((Arc::new(grants), linker));
        Ok(self)
    }

    /// What the operator granted, if anything.
    pub fn grants(&self) -> Option<&Grants> {
        self.granted.as_ref().map(|(grants, _)| &**grants)
    }

    /// Calls `observe(name, started)` when a component's compile (or cache lookup) starts
    /// and ends, so a terminal can show that a first run of a large validator is
    /// compiling (15-20 s for Python or JavaScript). Set once; later calls are ignored.
    pub fn on_compile(&self, observe: impl Fn(&str, bool) + Send + Sync + 'static) {
        let _ = self.compiling.set(Box::new(observe));
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }
}

/// WASI without special files, and the host's `files`: what every check is linked with.
fn checks_linker(engine: &Engine) -> wasmtime::Result<Linker<HostState>> {
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
    // Devices, sockets and FIFOs are never opened through WASI; see `special`.
    special::refuse_special_files(&mut linker)?;
    bindings::builtin::reviewhost::check::files::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |s| s)?;
    Ok(linker)
}

/// Whether the machine has swap configured (`/proc/swaps` lists a device or file; when
/// it cannot be read, assume it does).
fn swap_configured() -> bool {
    std::fs::read_to_string("/proc/swaps").map_or(true, |swaps| lists_swap(&swaps))
}

/// Whether the text of `/proc/swaps` lists anything under its header line.
fn lists_swap(swaps: &str) -> bool {
    swaps.lines().skip(1).any(|line| !line.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swap_is_read_from_proc_swaps() {
        let header = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
        assert!(!lists_swap(header));
        assert!(!lists_swap(""));
        assert!(lists_swap(&format!("{header}/swapfile                               file\t\t4194300\t\t0\t\t-2\n")));
        assert!(lists_swap(&format!("{header}/dev/zram0 partition 8388604 1024 100\n")));
    }
}
