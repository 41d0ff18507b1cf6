//! Evaluating checks: each in a fresh `Store` with the run's limits, on the sandbox's own
//! threads under the watchdog of `supervise`.
//!
//! [`evaluate_in_store`] builds the store (the view's directories preopened read-only, no
//! network, capped pipes, the limiter, the epoch deadline), calls the component, and
//! names what ended it: a verdict, or an [`EvalError`] saying which limit or failure.
//! Nothing here decides pass or fail.

use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::component::ResourceTable;
use wasmtime::{Store, Trap};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use super::component::{CheckComponent, Entry};
use super::engine::Sandbox;
use super::files::Files;
use super::limits::{Bytes, LimitHit, Limiter, Limits, MAX_RANDOM_BYTES, MAX_RESOURCES, Seconds};
use super::programs::ProgramHost;
use super::supervise::{self, Lost};
use super::ticker::EPOCH_TICK;
use super::view::View;

/// How much earlier than the check's deadline a granted program is stopped (at most a
/// tenth of the timeout).
const PROGRAM_MARGIN: Duration = Duration::from_millis(500);

/// How long after the deadline the watchdog waits before it abandons an evaluation
/// blocked in a host call.
pub const WATCHDOG_GRACE: Duration = Duration::from_secs(1);

/// A check's verdict, as the component returned it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Verdict {
    pub passed: bool,
    pub message: String,
    pub evidence: Vec<Evidence>,
}

/// Where a check looked and what it saw.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Evidence {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
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

/// What a store holds: the WASI state, the limiter, and the root for whole-file reads.
pub(super) struct HostState {
    wasi: WasiCtx,
    table: ResourceTable,
    limiter: Limiter,
    pub(super) files: Option<Files>,
    /// Granted host programs, for the shell check linked with them.
    pub(super) programs: Option<ProgramHost>,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

impl Sandbox {
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
        let grants = self.granted.as_ref().map(|(grants, _)| grants.clone());
        let patience = limits.timeout + WATCHDOG_GRACE;
        let finished = Arc::new(finished);
        let on_thread = finished.clone();
        let work = move |index: usize, task: &Task| {
            let began = Instant::now();
            let programs = match (&grants, task.component.granted) {
                (Some(grants), true) => Some(ProgramHost {
                    grants: grants.clone(),
                    root: task.view.root.path().to_path_buf(),
                    // A little before the check's own, so that the component still has
                    // time to report why the program was stopped.
                    deadline: began + limits.timeout - (limits.timeout / 10).min(PROGRAM_MARGIN),
                    output: limits.output,
                }),
                _ => None,
            };
            let faults_before = task.component.faults.as_ref().map(|_| thread_page_faults());
            let result = evaluate_in_store(&task.component.entry, &task.view, &task.input, limits, programs);
            if let (Some(faults), Some(before)) = (&task.component.faults, faults_before) {
                // An evaluation stopped by a limit or a crash counts as light: a component
                // must not take the single place by running into its timeout, which would
                // hold up every honest check queued behind it.
                let ended_normally = matches!(result, Ok(_) | Err(EvalError::Refused(_)));
                faults.record(if ended_normally { thread_page_faults().saturating_sub(before) } else { 0 });
            }
            let evaluation = Evaluation { result, duration: began.elapsed() };
            on_thread(index);
            evaluation
        };
        let alone = |task: &Task| task.component.alone();
        supervise::map_with_alone(tasks, alone, self.jobs, patience, work, |index, _, lost| {
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

/// Page faults taken by the calling thread so far (0 where they cannot be read).
fn thread_page_faults() -> u64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `usage` is a valid, writable `rusage`; RUSAGE_THREAD reads the calling
    // thread's own counters.
    let read = unsafe { libc::getrusage(libc::RUSAGE_THREAD, usage.as_mut_ptr()) };
    if read != 0 {
        return 0;
    }
    // SAFETY: getrusage succeeded, so it filled `usage` (it was zeroed before anyway).
    let usage = unsafe { usage.assume_init() };
    u64::try_from(usage.ru_minflt).unwrap_or(0).saturating_add(u64::try_from(usage.ru_majflt).unwrap_or(0))
}

/// One evaluation, start to finish, in a fresh store.
fn evaluate_in_store(
    entry: &Entry,
    view: &View,
    input: &Input,
    limits: Limits,
    programs: Option<ProgramHost>,
) -> Result<Verdict, EvalError> {
    let stdout = MemoryOutputPipe::new(limits.output);
    let stderr = MemoryOutputPipe::new(limits.output);
    let mut wasi = WasiCtxBuilder::new();
    // Blocking file I/O on this thread: ~5.7x faster than handing each call to a
    // blocking pool, and this thread is the check's own (see `supervise`).
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
        Entry::Builtin(_) if view.mounts.is_empty() => {
            Some(Files::new(view.root.handle().clone(), limits.memory, view.pass.0.clone()))
        }
        _ => None,
    };
    let state = HostState { wasi: wasi.build(), table, limiter: Limiter::new(limits.memory), files, programs };

    let engine = match entry {
        Entry::Builtin(pre) => pre.engine(),
        Entry::Validator(pre) => pre.engine(),
    };
    let mut store = Store::new(engine, state);
    store.limiter(|state| &mut state.limiter);
    // One tick more than the timeout holds: the epoch in progress is partly over already,
    // and a deadline must never come early.
    let ticks = limits.timeout.as_nanos().div_ceil(EPOCH_TICK.as_nanos()) + 1;
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
