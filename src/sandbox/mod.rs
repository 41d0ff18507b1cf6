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
//!
//! One concept per file: `engine` ([`Sandbox`]: the engine and linker of a run),
//! `component` (compiling and pre-linking a [`CheckComponent`]), `declared` (what a
//! component imports, exports and needs, read before compiling), `evaluate` (a store per
//! evaluation, and what ended it), `ticker` (the epoch), `supervise` (the watchdog),
//! `view` and `root` (what a check sees), `limits`, `cache`, `settings` (shared with
//! `build.rs`), and the host's own imports: `files`, `special`, `host_read`, and
//! `programs` (granted host programs, only in a run with grants).

mod bindings;
mod cache;
mod component;
mod declared;
mod engine;
mod evaluate;
mod files;
mod handle;
mod host_read;
mod limits;
mod prefilter;
mod programs;
mod root;
pub(crate) mod settings;
mod special;
mod supervise;
mod ticker;
mod view;

pub(crate) use cache::hex;
pub use cache::{Cache, CacheKey, check_private, create_private_dir};
pub use component::{COMPILE_TIMEOUT, CheckComponent, VALIDATOR_INTERFACE, refuse_non_component, usable_validator};
pub use declared::{Declared, DeclaredError, linked};
pub use engine::{CompileObserver, Sandbox, SandboxError};
pub use evaluate::{EvalError, Evaluation, Evidence, Input, Task, Verdict, WATCHDOG_GRACE};
pub use host_read::{Base, HostReadError, READ_DEADLINE, read_file, read_text};
pub use limits::{Bytes, Limits, Seconds, parse_memory, parse_timeout};
pub use prefilter::pass;
pub use programs::{Grants, Runner as ProgramRunner};
pub use root::{OutsideRoot, RootDir};
pub use ticker::EPOCH_TICK;
pub use view::View;
