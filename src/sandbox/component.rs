//! Loading a check component: compiled once (by Cranelift, from the private cache, or
//! embedded in the binary for the built-in checks) and pre-linked against the sandbox's
//! linker, so that each evaluation only instantiates it.
//!
//! What is refused here, before anything runs: a file that is not a WebAssembly
//! component (precompiled native code above all: only the host's own cache and its own
//! embedded artifacts are trusted), one that takes longer than [`COMPILE_TIMEOUT`] to
//! compile, a validator that does not export a compatible [`VALIDATOR_INTERFACE`], and
//! one that imports what the sandbox does not provide.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use wasmtime::component::Component;

use super::bindings::builtin::BuiltinCheckPre;
use super::bindings::validator::CustomValidatorPre as ValidatorPre;
use super::declared::Declared;
use super::engine::{Sandbox, SandboxError};
use super::evaluate::HostState;
use super::limits::{Bytes, MIB, Seconds};
use super::supervise::{self, Lost};

/// The interface a custom validator must export, with the version of `wit/` this host
/// was built against. Components built against a semver-compatible version link too.
pub const VALIDATOR_INTERFACE: &str = "reviewhost:check/validator@0.1.0";

/// Longest a component may take to compile (Cranelift), so a hostile component cannot
/// hold the run in the compiler. Honest components compile in about a second.
pub const COMPILE_TIMEOUT: Duration = Duration::from_secs(60);

/// Linear memory at start from which a validator may be found to run best alone: an
/// interpreter's snapshot (CPython from componentize-py, StarlingMonkey from
/// componentize-js: 12 MiB and more). Compiled Rust checks start with about 1 MiB, and
/// their page faults are the fresh pages of a growing heap, which cost no TLB shoot-down.
pub const ALONE_FROM: u64 = 8 * MIB;

/// Page faults in one evaluation above which such a validator's evaluations run one at a
/// time. CPython writes to every object it touches (reference counts), so each check
/// takes a copy-on-write fault on about 600 pages of its snapshot that the slot's reset
/// gave back (wasmtime's reset keeps at most 32 dirty regions), and each such fault is a
/// TLB shoot-down to every other core running the process: two at once on 2 cores took
/// twice the CPU (11.6 s for 1,000 checks) for no wall time. StarlingMonkey faults about
/// 210 pages a check and gains from a second core (BENCHMARKS.md, custom checks per
/// language).
pub const ALONE_FAULTS: u64 = 400;

/// Evaluations of a component seen before [`ALONE_FAULTS`] decides: more than the slots
/// two threads first fill.
pub const ALONE_AFTER: u64 = 4;

/// A compiled, pre-linked check component.
#[derive(Clone)]
pub struct CheckComponent {
    name: Arc<str>,
    pub(super) entry: Entry,
    /// Loaded from an artifact embedded in the binary, without compiling.
    precompiled: bool,
    /// Linked with the `programs` capability ([`Sandbox::load_builtin_granted`]).
    pub(super) granted: bool,
    /// For a validator that starts with [`ALONE_FROM`] of memory or more: the page faults
    /// of its evaluations, which decide whether they run one at a time (`supervise`).
    pub(super) faults: Option<Arc<Faults>>,
}

/// The page faults of a component's evaluations so far.
#[derive(Debug)]
pub(super) struct Faults {
    evaluations: AtomicU64,
    fewest: AtomicU64,
}

impl Default for Faults {
    fn default() -> Faults {
        Faults { evaluations: AtomicU64::new(0), fewest: AtomicU64::new(u64::MAX) }
    }
}

impl Faults {
    pub(super) fn record(&self, faults: u64) {
        self.fewest.fetch_min(faults, Ordering::Relaxed);
        self.evaluations.fetch_add(1, Ordering::Relaxed);
    }

    /// After [`ALONE_AFTER`] evaluations, whether even the one that faulted least faulted
    /// more than [`ALONE_FAULTS`] pages. The fewest, because the first evaluations in a
    /// slot fault in every page they touch, whatever the component.
    fn alone(&self) -> bool {
        self.evaluations.load(Ordering::Relaxed) >= ALONE_AFTER && self.fewest.load(Ordering::Relaxed) > ALONE_FAULTS
    }
}

/// Which WIT world a component implements.
#[derive(Clone)]
pub(super) enum Entry {
    Builtin(BuiltinCheckPre<HostState>),
    Validator(ValidatorPre<HostState>),
}

impl CheckComponent {
    /// Whether the compiled code came embedded in the binary (no Cranelift, no cache).
    pub fn precompiled(&self) -> bool {
        self.precompiled
    }

    /// Whether its evaluations now run one at a time ([`ALONE_FAULTS`]).
    pub fn alone(&self) -> bool {
        self.faults.as_ref().is_some_and(|faults| faults.alone())
    }
}

impl std::fmt::Debug for CheckComponent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckComponent").field("name", &self.name).finish_non_exhaustive()
    }
}

impl Sandbox {
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
        self.load_builtin_with(name, wasm, precompiled, &self.linker, false)
    }

    /// [`Sandbox::load_builtin`] for the shell check built with grants, linked with the
    /// `programs` capability; refused in a sandbox without grants.
    pub(crate) fn load_builtin_granted(
        &self,
        name: &str,
        wasm: &[u8],
        precompiled: &[u8],
    ) -> Result<CheckComponent, SandboxError> {
        let Some((_, linker)) = &self.granted else {
            return Err(SandboxError::Component {
                name: name.into(),
                reason: "no program is granted in this run".into(),
            });
        };
        self.load_builtin_with(name, wasm, precompiled, linker, true)
    }

    fn load_builtin_with(
        &self,
        name: &str,
        wasm: &[u8],
        precompiled: &[u8],
        linker: &wasmtime::component::Linker<HostState>,
        granted: bool,
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
        let pre = linker.instantiate_pre(&component).map_err(refused)?;
        let pre = BuiltinCheckPre::new(pre).map_err(refused)?;
        Ok(CheckComponent { name: name.into(), entry: Entry::Builtin(pre), precompiled, granted, faults: None })
    }

    /// Compiles and pre-links a custom validator: it must export [`VALIDATOR_INTERFACE`]
    /// (a semver-compatible version) and import nothing the sandbox does not provide.
    /// Both, and the memory it starts with, are checked from its sections before it is
    /// compiled ([`Declared`]), so an unusable validator is refused in milliseconds.
    pub fn load_validator(&self, name: &str, wasm: &[u8]) -> Result<CheckComponent, SandboxError> {
        let refused = |reason: String| SandboxError::Component { name: name.into(), reason };
        refuse_non_component(wasm).map_err(refused)?;
        let declared = Declared::read(wasm).map_err(|e| refused(e.to_string()))?;
        usable_validator(&declared, self.limits.memory).map_err(refused)?;
        let mut component = self.link_validator(name, wasm)?;
        if declared.initial_memory >= ALONE_FROM {
            component.faults = Some(Arc::default());
        }
        Ok(component)
    }

    /// [`Sandbox::load_validator`] without the checks made before compiling: what
    /// wasmtime alone accepts. For the differential test that holds those checks to
    /// wasmtime's own (`custom::the_checks_before_compiling_agree_with_wasmtime`).
    #[doc(hidden)]
    pub fn link_validator(&self, name: &str, wasm: &[u8]) -> Result<CheckComponent, SandboxError> {
        let refused = |reason: String| SandboxError::Component { name: name.into(), reason };
        let component = self.compile(name, wasm)?;
        let exports: Vec<String> =
            component.component_type().exports(&self.engine).map(|(export, _)| export.to_string()).collect();
        exports_validator(&exports).map_err(refused)?;
        let pre = self.linker.instantiate_pre(&component).map_err(|e| refused(format!("{e:#}")))?;
        let pre = ValidatorPre::new(pre).map_err(|e| refused(format!("{e:#}")))?;
        Ok(CheckComponent {
            name: name.into(),
            entry: Entry::Validator(pre),
            precompiled: false,
            granted: false,
            faults: None,
        })
    }

    /// A compiled component, from the cache or from Cranelift, within [`COMPILE_TIMEOUT`].
    fn compile(&self, name: &str, wasm: &[u8]) -> Result<Component, SandboxError> {
        let refused = |reason: String| SandboxError::Component { name: name.into(), reason };
        refuse_non_component(wasm).map_err(refused)?;
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
        if let Some(observe) = self.compiling.get() {
            observe(name, true);
        }
        let mut compiled = supervise::map(vec![wasm.to_vec()], 1, COMPILE_TIMEOUT, compile, |_, _, lost| {
            Err(match lost {
                Lost::Stuck => format!("compiling it took longer than {}", Seconds(COMPILE_TIMEOUT)),
                Lost::NoThread(reason) => reason,
                Lost::Panicked(message) => format!("the compiler failed on it: {message}"),
            })
        });
        if let Some(observe) = self.compiling.get() {
            observe(name, false);
        }
        compiled.pop().expect("one result per item").map_err(refused)
    }
}

/// Why a validator that declares `declared` cannot run in a sandbox whose memory limit is
/// `memory` bytes, if it cannot: the exported interface, the imports, the memory.
pub fn usable_validator(declared: &Declared, memory: u64) -> Result<(), String> {
    exports_validator(&declared.exports)?;
    if let Some(refusal) = declared.refusal() {
        return Err(refusal);
    }
    if declared.initial_memory > memory {
        return Err(format!(
            "it needs {} of linear memory to start, more than the limit of {}; raise it with --memory {}MiB",
            Bytes(declared.initial_memory),
            Bytes(memory),
            declared.initial_memory.div_ceil(MIB),
        ));
    }
    Ok(())
}

/// Why `exports` (a component's export names) offer no version of
/// [`VALIDATOR_INTERFACE`] this host can call, if they offer none. Any compatible version
/// will do, as in wasmtime's own lookup.
fn exports_validator(exports: &[String]) -> Result<(), String> {
    let (interface, expected) = VALIDATOR_INTERFACE.split_once('@').expect("versioned");
    let versions: Vec<&str> = exports.iter().filter_map(|e| e.strip_prefix(interface)?.strip_prefix('@')).collect();
    if versions.iter().any(|v| semver_compatible(v, expected)) {
        return Ok(());
    }
    Err(match versions.first() {
        Some(version) => format!(
            "it was built against {interface}@{version}, but this reviewhost expects {VALIDATOR_INTERFACE} \
             (rebuild it with the matching reviewhost-guest SDK)"
        ),
        None => {
            let exports = if exports.is_empty() { "none".to_string() } else { exports.join(", ") };
            format!(
                "it does not export {VALIDATOR_INTERFACE} (it exports: {exports}); \
                 build it for the custom-validator world of wit/check.wit, as `reviewhost new` does"
            )
        }
    })
}

/// Why `wasm` is not a WebAssembly component, if it is not.
pub fn refuse_non_component(wasm: &[u8]) -> Result<(), String> {
    if wasm.starts_with(b"\x7fELF") {
        // Precompiled native code runs unchecked: only the host's own cache is trusted.
        return Err("a precompiled native artifact, not a WebAssembly file (never loaded)".into());
    }
    if !wasm.starts_with(b"\0asm") {
        return Err("not a WebAssembly file".into());
    }
    // The layer field: 1 for a component, 0 for a core module (which is not a check).
    if wasm.get(6..8) == Some(&[0, 0]) {
        return Err("a core WebAssembly module, not a component (build it for wasm32-wasip2)".into());
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a component whose every evaluation faults heavily runs alone, and only once
    /// enough evaluations were seen: the first ones in a slot fault in every page.
    #[test]
    fn a_component_runs_alone_once_its_fewest_faults_are_many() {
        let interpreter = Faults::default();
        for faults in [9000, 3000, 610] {
            interpreter.record(faults);
            assert!(!interpreter.alone(), "decided after too few evaluations");
        }
        interpreter.record(600);
        assert!(interpreter.alone());
        let engine = Faults::default();
        for faults in [9000, 3000, 5000, 900, 213, 800] {
            engine.record(faults);
        }
        assert!(!engine.alone(), "one light evaluation keeps it beside the others");
    }
}
