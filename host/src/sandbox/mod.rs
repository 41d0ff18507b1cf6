//! The wasmtime sandbox every check runs in.
//!
//! One [`Sandbox`] holds one engine and one linker for a run. A component is compiled
//! once (or loaded from the private [`Cache`]) and pre-linked into a [`CheckComponent`];
//! each evaluation then gets a fresh `Store` with:
//!
//! - the root preopened read-only at `/` (so `x`, `./x` and `/x` all mean `<root>/x`);
//!   paths leading outside it, symlinks included, are refused by WASI (cap-std);
//! - no environment, no arguments, empty stdin, network denied (no TCP, UDP or name
//!   lookup), stdout/stderr captured into pipes capped at [`Limits::output`];
//! - a memory cap ([`Limits::memory`]), table and instance caps, a cap on WASI handles;
//! - an epoch deadline ([`Limits::timeout`]) driven by a ticker thread, which stops code
//!   running in wasm;
//! - a watchdog for what the deadline cannot stop: a host call that blocks (opening a
//!   FIFO waits for a writer forever). Evaluations run on threads of the sandbox's own
//!   ([`supervise`]); one that has not finished [`WATCHDOG_GRACE`] after the deadline
//!   is abandoned and reported as blocked, its thread is replaced, and the run goes on.
//!   The abandoned thread ends with the process, or drops its result if it ever returns.
//!
//! Nothing here decides pass or fail: [`Sandbox::evaluate_all`] returns each check's
//! verdict or an [`EvalError`] saying which limit or failure ended it.

mod cache;
mod files;
mod handle;
mod host_read;
mod limits;
mod root;
mod settings;
mod special;
mod supervise;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store, Trap};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

pub use cache::{Cache, CacheKey};
pub use host_read::{Base, HostReadError, READ_DEADLINE, read_file};
pub use limits::{Bytes, Limits, Seconds, parse_memory, parse_timeout};
pub use root::{OutsideRoot, RootDir};

use files::Files;
use handle::DirHandle;
use limits::{LimitHit, Limiter, MAX_RANDOM_BYTES, MAX_RESOURCES};
use supervise::Lost;

mod bindings {
    pub mod builtin {
        wasmtime::component::bindgen!({ path: "../wit", world: "builtin-check" });
    }
    pub mod validator {
        wasmtime::component::bindgen!({ path: "../wit", world: "custom-validator" });
    }
}

use bindings::builtin::BuiltinCheckPre;
use bindings::validator::CustomValidatorPre as ValidatorPre;

/// The interface a custom validator must export, with the version of `wit/` this host
/// was built against. Components built against a semver-compatible version link too.
pub const VALIDATOR_INTERFACE: &str = "reviewhost:check/validator@0.1.0";

/// Longest a component may take to compile (Cranelift), so a hostile component cannot
/// hold the run in the compiler. Honest components compile in about a second.
pub const COMPILE_TIMEOUT: Duration = Duration::from_secs(60);

/// How often the epoch advances. The deadline is checked at this granularity; a
/// shorter tick costs more (wasmtime-notes: ~8% at 10 ms).
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// How long after the deadline the watchdog waits before it abandons an evaluation
/// blocked in a host call.
pub const WATCHDOG_GRACE: Duration = Duration::from_secs(1);

/// Instance slots kept beyond `jobs` in the pooling allocator, for evaluations the
/// watchdog abandoned (their slot is only freed if they ever return).
const SPARE_SLOTS: u32 = 16;

/// Bytes of each memory and table slot kept mapped between checks (zeroed by memset).
const KEEP_RESIDENT: usize = 256 << 10;
/// Slots whose memory is returned to the kernel in one batch.
const DECOMMIT_BATCH: usize = 8;

/// Whether the machine has swap configured (`/proc/swaps` lists a device or file; when
/// it cannot be read, assume it does).
fn swap_configured() -> bool {
    std::fs::read_to_string("/proc/swaps").map_or(true, |swaps| lists_swap(&swaps))
}

/// Whether the text of `/proc/swaps` lists anything under its header line.
fn lists_swap(swaps: &str) -> bool {
    swaps.lines().skip(1).any(|line| !line.trim().is_empty())
}

/// A check's verdict, as the component returned it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Verdict {
    pub passed: bool,
    pub message: String,
    pub evidence: Vec<Evidence>,
}

/// Where a check looked and what it saw.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Evidence {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub text: String,
}

/// Why an evaluation produced no verdict. Each message names the limit or the failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// The check returned `err`: it could not evaluate the assertion.
    #[error("{0}")]
    Refused(String),
    #[error("timed out after {}", Seconds(*.0))]
    Timeout(Duration),
    #[error("memory limit {} exceeded", Bytes(*.0))]
    Memory(u64),
    #[error("table limit exceeded")]
    Table,
    #[error("output limit {} exceeded", Bytes(*.0 as u64))]
    Output(usize),
    #[error("blocked in a host call for more than {} (a FIFO or device file?); abandoned", Seconds(*.0))]
    Blocked(Duration),
    #[error("check exited with status {0} instead of returning a verdict")]
    Exited(i32),
    #[error("check crashed: {0}")]
    Trap(String),
    #[error("check could not be instantiated: {0}")]
    Instantiate(String),
    /// The host itself failed on this check (a reviewhost bug); the run went on.
    #[error("the host failed evaluating this check: {0} (a reviewhost bug: please report it)")]
    Host(String),
}

/// Errors setting up the sandbox or loading a component.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    #[error("cannot configure the wasmtime engine: {0}")]
    Engine(String),
    #[error("component '{name}' cannot be loaded: {reason}")]
    Component { name: String, reason: String },
}

/// A compiled, pre-linked check component.
#[derive(Clone)]
pub struct CheckComponent {
    name: Arc<str>,
    entry: Entry,
    /// Loaded from an artifact embedded in the binary, without compiling.
    precompiled: bool,
}

/// Which WIT world a component implements.
#[derive(Clone)]
enum Entry {
    Builtin(BuiltinCheckPre<HostState>),
    Validator(ValidatorPre<HostState>),
}

/// What a component is asked.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Input {
    /// A built-in check gets the assertion object as JSON text.
    Assertion(String),
    /// A validator gets the assertion id and its `config` as JSON text.
    Validate { id: String, config: String },
}

/// One evaluation to make: a component, what it is asked, and what it sees.
#[derive(Debug, Clone)]
pub struct Task {
    pub component: Arc<CheckComponent>,
    pub input: Input,
    pub view: View,
}

/// How an evaluation ended, and its wall time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    pub result: Result<Verdict, EvalError>,
    pub duration: Duration,
}

/// The part of the root a check sees: all of it at `/`, or only some subdirectories
/// (a `custom` assertion's `paths`), each at `/<path>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct View {
    root: RootDir,
    /// (directory, guest path) pairs; empty means the whole root at `/`. Each directory
    /// was opened when the view was made, and is used only as that handle.
    mounts: Vec<(Arc<DirHandle>, String)>,
}

impl View {
    /// The whole root, at `/`.
    pub fn whole(root: &RootDir) -> View {
        View { root: root.clone(), mounts: Vec::new() }
    }

    /// Only `paths` (root-relative directories), each at `/<path>`. Each is opened now,
    /// from the root's handle with cap-std's resolver (symlinks only while they stay
    /// inside the root), and the check sees that open directory: replacing it with a
    /// symlink afterwards changes nothing for this view.
    pub fn narrowed(root: &RootDir, paths: &[String]) -> Result<View, String> {
        let mut mounts = Vec::new();
        for path in paths {
            let relative = root.relative(path).map_err(|e| format!("`paths`: {e}"))?;
            let dir = root.handle().open_dir(std::path::Path::new(&relative)).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotADirectory => format!("`paths`: {path} is not a directory"),
                std::io::ErrorKind::PermissionDenied => format!("`paths`: {path} leads outside the sandbox root"),
                _ => format!("`paths`: {path}: {e}"),
            })?;
            mounts.push((Arc::new(dir), format!("/{relative}")));
        }
        Ok(View { root: root.clone(), mounts })
    }
}

impl CheckComponent {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the compiled code came embedded in the binary (no Cranelift, no cache).
    pub fn precompiled(&self) -> bool {
        self.precompiled
    }
}

impl std::fmt::Debug for CheckComponent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckComponent").field("name", &self.name).finish_non_exhaustive()
    }
}

/// The engine, linker and limits of one run.
pub struct Sandbox {
    engine: Engine,
    linker: Linker<HostState>,
    limits: Limits,
    cache: Option<Cache>,
    /// Evaluations at a time.
    jobs: usize,
    _ticker: Ticker,
}

impl Sandbox {
    /// An engine sized for `jobs` concurrent evaluations under `limits`. `cache` is where
    /// compiled components are kept (`None`: compile in memory every time).
    pub fn new(limits: Limits, jobs: usize, cache: Option<Cache>) -> Result<Sandbox, SandboxError> {
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
            // the next, in place: per check 35 -> 20 µs (`cargo bench`). Not on a machine
            // with swap: wasmtime 48's scan passes over a dirtied page that was swapped
            // out, which would leave it for the next check in the slot
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
        let engine = Engine::new(&config).map_err(engine_error)?;
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker).map_err(engine_error)?;
        // Devices, sockets and FIFOs are never opened through WASI; see `special`.
        special::refuse_special_files(&mut linker).map_err(engine_error)?;
        bindings::builtin::reviewhost::check::files::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |s| s)
            .map_err(engine_error)?;
        let ticker = Ticker::start(engine.clone());
        Ok(Sandbox { engine, linker, limits, cache, jobs, _ticker: ticker })
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Compiles (or loads from the cache) and pre-links a built-in check component
    /// (`name` is for messages), taking the compiled code from `precompiled` when this
    /// engine accepts it: the artifact `build.rs` made of `wasm` for the checks built into the
    /// binary (empty when there is none).
    pub(crate) fn load_builtin(
        &self,
        name: &str,
        wasm: &[u8],
        precompiled: &[u8],
    ) -> Result<CheckComponent, SandboxError> {
        let refused = |e: wasmtime::Error| SandboxError::Component { name: name.into(), reason: format!("{e:#}") };
        let embedded = match precompiled {
            [] => None,
            // SAFETY: `precompiled` is only ever an artifact embedded in this binary by its
            // own build script from its own built-in components (`check::builtin`): the
            // same trust as the host's code. wasmtime checks it was made by a compatible
            // engine.
            bytes => unsafe { Component::deserialize(&self.engine, bytes) }.ok(),
        };
        let precompiled = embedded.is_some();
        let component = match embedded {
            Some(component) => component,
            None => self.compile(name, wasm)?,
        };
        let pre = self.linker.instantiate_pre(&component).map_err(refused)?;
        let pre = BuiltinCheckPre::new(pre).map_err(refused)?;
        Ok(CheckComponent { name: name.into(), entry: Entry::Builtin(pre), precompiled })
    }

    /// Compiles and pre-links a custom validator: it must export [`VALIDATOR_INTERFACE`]
    /// (a semver-compatible version) and import nothing the sandbox does not provide.
    pub fn load_validator(&self, name: &str, wasm: &[u8]) -> Result<CheckComponent, SandboxError> {
        let refused = |reason: String| SandboxError::Component { name: name.into(), reason };
        let component = self.compile(name, wasm)?;
        let exports: Vec<String> =
            component.component_type().exports(&self.engine).map(|(export, _)| export.to_string()).collect();
        let (interface, expected) = VALIDATOR_INTERFACE.split_once('@').expect("versioned");
        match exports.iter().find_map(|e| e.strip_prefix(interface)?.strip_prefix('@')) {
            Some(version) if semver_compatible(version, expected) => {}
            Some(version) => {
                return Err(refused(format!(
                    "it was built against {interface}@{version}, but this reviewhost expects {VALIDATOR_INTERFACE} \
                     (rebuild it with the matching reviewhost-guest SDK)"
                )));
            }
            None => {
                let exports = if exports.is_empty() { "none".to_string() } else { exports.join(", ") };
                return Err(refused(format!(
                    "it does not export {VALIDATOR_INTERFACE} (it exports: {exports}); \
                     build it with reviewhost_guest::export_validator!"
                )));
            }
        }
        let pre = self.linker.instantiate_pre(&component).map_err(|e| refused(format!("{e:#}")))?;
        let pre = ValidatorPre::new(pre).map_err(|e| refused(format!("{e:#}")))?;
        Ok(CheckComponent { name: name.into(), entry: Entry::Validator(pre), precompiled: false })
    }

    /// A compiled component, from the cache or from Cranelift, within [`COMPILE_TIMEOUT`].
    fn compile(&self, name: &str, wasm: &[u8]) -> Result<Component, SandboxError> {
        let refused = |reason: String| SandboxError::Component { name: name.into(), reason };
        if wasm.starts_with(b"\x7fELF") {
            // Precompiled native code runs unchecked: only the host's own cache is trusted.
            return Err(refused("a precompiled native artifact, not a WebAssembly file (never loaded)".into()));
        }
        if !wasm.starts_with(b"\0asm") {
            return Err(refused("not a WebAssembly file".into()));
        }
        // The layer field: 1 for a component, 0 for a core module (which is not a check).
        if wasm.get(6..8) == Some(&[0, 0]) {
            return Err(refused("a core WebAssembly module, not a component (build it for wasm32-wasip2)".into()));
        }
        // On a thread of its own, which is abandoned if Cranelift takes too long; a panic
        // in the compiler is this component's refusal, not the end of the run.
        let (engine, cache) = (self.engine.clone(), self.cache.clone());
        let compile = move |_: usize, wasm: &Vec<u8>| {
            let compiled = match &cache {
                Some(cache) => cache.component(&engine, wasm),
                None => Component::new(&engine, wasm),
            };
            compiled.map_err(|e| format!("not a valid component: {e:#}"))
        };
        let mut compiled = supervise::map(vec![wasm.to_vec()], 1, COMPILE_TIMEOUT, compile, |_, _, lost| {
            Err(match lost {
                Lost::Stuck => format!("compiling it took longer than {}", Seconds(COMPILE_TIMEOUT)),
                Lost::NoThread(reason) => reason,
                Lost::Panicked(message) => format!("the compiler failed on it: {message}"),
            })
        });
        compiled.pop().expect("one result per item").map_err(refused)
    }

    /// Evaluates `input` with `component`, seeing `view`: [`Sandbox::evaluate_all`] for one
    /// task (which starts a thread for it).
    pub fn evaluate(&self, component: &CheckComponent, view: &View, input: Input) -> Result<Verdict, EvalError> {
        let task = Task { component: Arc::new(component.clone()), input, view: view.clone() };
        let mut evaluations = self.evaluate_all(vec![task], |_| {});
        evaluations.pop().expect("one evaluation per task").result
    }

    /// Evaluates every task, up to `jobs` at a time, each on the thread that takes it;
    /// results in task order. `finished(index)` is called as each task ends, from the
    /// thread that ran it (for a progress bar). A task still blocked in a host call
    /// [`WATCHDOG_GRACE`] after its deadline is [`EvalError::Blocked`], and the others go on.
    pub fn evaluate_all(&self, tasks: Vec<Task>, finished: impl Fn(usize) + Send + Sync + 'static) -> Vec<Evaluation> {
        let limits = self.limits;
        let patience = limits.timeout + WATCHDOG_GRACE;
        let finished = Arc::new(finished);
        let on_thread = finished.clone();
        let work = move |index: usize, task: &Task| {
            let began = Instant::now();
            let result = evaluate_in_store(&task.component.entry, &task.view, &task.input, limits);
            let evaluation = Evaluation { result, duration: began.elapsed() };
            on_thread(index);
            evaluation
        };
        supervise::map(tasks, self.jobs, patience, work, |index, _, lost| {
            finished(index);
            let (error, duration) = match lost {
                Lost::Stuck => (EvalError::Blocked(patience), patience),
                Lost::NoThread(reason) => (EvalError::Instantiate(reason), Duration::ZERO),
                Lost::Panicked(message) => (EvalError::Host(message), Duration::ZERO),
            };
            Evaluation { result: Err(error), duration }
        })
    }
}

/// One evaluation, start to finish, in a fresh store.
fn evaluate_in_store(entry: &Entry, view: &View, input: &Input, limits: Limits) -> Result<Verdict, EvalError> {
    let stdout = MemoryOutputPipe::new(limits.output);
    let stderr = MemoryOutputPipe::new(limits.output);
    let mut wasi = WasiCtxBuilder::new();
    // Blocking file I/O on this thread: ~5.7x faster than handing each call to a
    // blocking pool, and this thread is the check's own (see the watchdog above).
    wasi.allow_blocking_current_thread(true)
        .stdout(stdout.clone())
        .stderr(stderr.clone())
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false)
        .max_random_size(MAX_RANDOM_BYTES);
    let whole = [(view.root.handle().clone(), "/".to_string())];
    let mounts = if view.mounts.is_empty() { &whole[..] } else { &view.mounts[..] };
    for (dir, guest) in mounts {
        // The directory opened when the view was made, never looked up by name again.
        wasi.preopened_dir(dir.descriptor_path(), guest, FsPerms::ReadOnly)
            .map_err(|e| EvalError::Instantiate(format!("cannot open {guest}: {e:#}")))?;
    }
    let mut table = ResourceTable::new();
    table.set_max_capacity(MAX_RESOURCES);
    // Whole-file reads for a built-in check that sees the whole root; see `files`.
    let files = match entry {
        Entry::Builtin(_) if view.mounts.is_empty() => Some(Files::new(view.root.handle().clone(), limits.memory)),
        _ => None,
    };
    let state = HostState { wasi: wasi.build(), table, limiter: Limiter::new(limits.memory), files };

    let engine = match entry {
        Entry::Builtin(pre) => pre.engine(),
        Entry::Validator(pre) => pre.engine(),
    };
    let mut store = Store::new(engine, state);
    store.limiter(|state| &mut state.limiter);
    let ticks = limits.timeout.as_nanos().div_ceil(EPOCH_TICK.as_nanos()).max(1);
    store.set_epoch_deadline(u64::try_from(ticks).unwrap_or(u64::MAX));
    store.epoch_deadline_trap();

    // The two worlds generate distinct but identical verdict types.
    macro_rules! verdict {
        ($v:expr) => {{
            let v = $v;
            Verdict {
                passed: v.passed,
                message: v.message,
                evidence: v
                    .evidence
                    .into_iter()
                    .map(|e| Evidence { path: e.path, line: e.line, text: e.text })
                    .collect(),
            }
        }};
    }
    let result = match (entry, input) {
        (Entry::Builtin(pre), Input::Assertion(json)) => pre
            .instantiate(&mut store)
            .and_then(|check| check.reviewhost_check_check().call_evaluate(&mut store, json))
            .map(|r| r.map(|v| verdict!(v))),
        (Entry::Validator(pre), Input::Validate { id, config }) => pre
            .instantiate(&mut store)
            .and_then(|check| check.reviewhost_check_validator().call_validate(&mut store, id, config))
            .map(|r| r.map(|v| verdict!(v))),
        _ => return Err(EvalError::Instantiate("the input does not fit the component's world".into())),
    };
    match result {
        Ok(Ok(verdict)) => Ok(verdict),
        Ok(Err(reason)) => Err(EvalError::Refused(reason)),
        Err(error) => Err(classify(&error, store.data().limiter.hit, &[&stdout, &stderr], limits)),
    }
}

/// `version` can stand in for `expected` under semver (0.x: same minor; else same major).
fn semver_compatible(version: &str, expected: &str) -> bool {
    let parts = |v: &str| v.split('.').map(|p| p.parse::<u64>().unwrap_or(u64::MAX)).collect::<Vec<_>>();
    let (v, e) = (parts(version), parts(expected));
    match (v.first(), e.first()) {
        (Some(0), Some(0)) => v.get(1) == e.get(1),
        (major, expected_major) => major == expected_major,
    }
}

/// Names the limit or failure behind a wasmtime error.
fn classify(error: &wasmtime::Error, hit: Option<LimitHit>, pipes: &[&MemoryOutputPipe], limits: Limits) -> EvalError {
    // A limit the check ran into explains what followed (a guest that ignores a refused
    // write and spins until the deadline was still stopped by the output cap first).
    match hit {
        Some(LimitHit::Memory) => return EvalError::Memory(limits.memory),
        Some(LimitHit::Table) => return EvalError::Table,
        None => {}
    }
    if pipes.iter().any(|p| p.contents().len() >= limits.output) {
        return EvalError::Output(limits.output);
    }
    if let Some(Trap::Interrupt) = error.downcast_ref::<Trap>() {
        return EvalError::Timeout(limits.timeout);
    }
    if let Some(exit) = error.downcast_ref::<I32Exit>() {
        return EvalError::Exited(exit.0);
    }
    // A Rust guest's panic message is on its stderr: the most useful line for a human.
    let stderr = pipes.last().map(|p| p.contents()).unwrap_or_default();
    let stderr = String::from_utf8_lossy(&stderr);
    // `thread '…' panicked at FILE:LINE:COL:` and, on the next line, the panic message.
    let mut lines = stderr.lines();
    let panic = lines.by_ref().find(|l| l.contains("panicked at")).map(|at| match lines.next() {
        Some(message) if !message.trim().is_empty() => format!("{} {}", at.trim(), message.trim()),
        _ => at.trim().to_string(),
    });
    let trap = error.downcast_ref::<Trap>().map_or_else(|| format!("{error:#}"), |t| t.to_string());
    match panic {
        Some(line) => EvalError::Trap(format!("{trap} ({line})")),
        None => EvalError::Trap(trap),
    }
}

/// What a store holds: the WASI state, the limiter, and the root for whole-file reads.
struct HostState {
    wasi: WasiCtx,
    table: ResourceTable,
    limiter: Limiter,
    files: Option<Files>,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

/// Advances the engine's epoch every [`EPOCH_TICK`] until dropped.
struct Ticker {
    stop: Arc<AtomicBool>,
}

impl Ticker {
    fn start(engine: Engine) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        thread::Builder::new()
            .name("epoch ticker".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    thread::sleep(EPOCH_TICK);
                    engine.increment_epoch();
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
