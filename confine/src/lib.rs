//! Runs a host program an operator granted (`--allow-program tsc`) under OS confinement.
//!
//! The WebAssembly sandbox cannot run `npx tsc`, `python3 -m pytest` or `cargo test`.
//! When an operator grants such a program, its invocation leaves the sandbox and runs
//! here, natively, with as little of the machine as it needs:
//!
//! | layer | tool | defends against | does not defend against |
//! |---|---|---|---|
//! | user, mount, PID, network, IPC, UTS namespaces | `unshare`, `bwrap` | seeing or signalling the host's processes, any network, mounting | kernel bugs reachable from a user namespace |
//! | a filesystem made of read-only binds | `bwrap` | reading the home directory, other repositories, credentials | reading what is bound: system directories and the toolchain directories the operator names |
//! | the root as the lower layer of an overlay on a size-capped tmpfs | `mount -t overlay` in the user namespace | changing the repository; filling the disk | a program that needs to change the repository to do its job (its changes are thrown away) |
//! | cleared environment | `bwrap --clearenv` | reading the operator's tokens from the environment | names the operator adds on purpose |
//! | rlimits: CPU, address space, processes, file size, no core files | `prlimit` | runaway computation, memory exhaustion, fork bombs, one huge file | — |
//! | a deadline that kills the whole PID namespace | `bwrap --die-with-parent` | a daemon that outlives its check | — |
//! | nothing inherited: descriptors above stderr close at the first exec, a new empty session keyring | `close_range(CLOSE_RANGE_CLOEXEC)`, `keyctl(JOIN_SESSION_KEYRING)` before the first exec | reading a secret a CI runner, editor or wrapper left open as a descriptor, or put in the session keyring | — |
//! | seccomp filters on the program | `bwrap --add-seccomp-fd`, compiled by `seccompiler` ([`seccomp`]) | the kernel surface an unprivileged user namespace still reaches: keyrings, `ptrace`, `bpf`, `perf_event_open`, `userfaultfd`, `io_uring`, new namespaces, mounts, module loading | bugs in the calls every program needs |
//!
//! Every layer is a well-kept tool (util-linux's `unshare`, `mount` and `prlimit`;
//! bubblewrap, which Flatpak and Claude Code's Linux sandbox use), composed by a fixed
//! script that never interpolates a path or an argument: they travel as positional
//! parameters. [`Confinement::probe`] runs `true` under every layer once; a machine that
//! lacks one (no bubblewrap, no user namespaces, no overlay in a user namespace) gets a
//! [`Unavailable`] naming it, and the caller refuses the grant rather than run it with
//! less.

mod grant;
mod jail;
pub mod seccomp;

pub use grant::{Grant, GrantError, resolve};
pub use jail::{Confinement, Ended, Job, Limits, Outcome, RunError, Unavailable, run_unconfined};
