//! Runs a host program an operator granted (`--allow-program tsc`) under OS confinement.
//!
//! The WebAssembly sandbox cannot run `npx tsc`, `python3 -m pytest` or `cargo test`.
//! When an operator grants such a program, its invocation leaves the sandbox and runs
//! here, natively, with as little of the machine as it needs, under one of two
//! confinements ([`Kind`]). [`Confinement::probe`] chooses bubblewrap when it works and
//! Landlock otherwise; [`Confinement::probe_kind`] asks for one.
//!
//! **bubblewrap**, where unprivileged user namespaces are available:
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
//! **Landlock**, where user namespaces are not available (GitHub's `ubuntu-24.04`
//! runners, unprivileged containers, hardened hosts): the program is started directly and
//! restricts itself between `fork` and `exec`, with no privilege and no namespace. It
//! needs Landlock ABI 3 (Linux 6.2); below, it is refused, naming the ABI.
//!
//! | layer | tool | defends against | does not defend against, unlike bubblewrap |
//! |---|---|---|---|
//! | a Landlock domain: read and execute beneath the root, the system directories, the `/etc` files, the toolchain directories and the program's own; read beneath `/proc`; `/dev/null` and the like; everything beneath a fresh scratch directory (`HOME`, `TMPDIR`), removed afterwards; nothing else | `landlock_restrict_self`, ruleset built with the `landlock` crate | reading the home directory, other repositories, credentials, also through a symlink planted in the root; changing the repository (truncating included) | what is outside is refused (`EACCES`), not absent: names, sizes and times can be seen (`stat`); a write to the root fails instead of being thrown away; the owner's program may still change a root file's mode, times or extended attributes (not mediated by Landlock); the scratch directory has no total size, only `RLIMIT_FSIZE` per file |
//! | the same domain's network and IPC rights: no TCP `bind`/`connect` (ABI 4), no signal to and no abstract UNIX socket of a process outside (ABI 6) | Landlock | reaching the network; signalling the operator's processes | below ABI 6, signals to processes of the same user |
//! | no access to processes outside the domain | Landlock (as for `ptrace`) | reading another process's environment, memory or descriptors in `/proc`, also one of the program's own user | the host's process list and command lines in `/proc` |
//! | cleared environment | `Command::env_clear` | reading the operator's tokens from the environment | names the operator adds on purpose |
//! | rlimits: CPU, address space, processes, file size, no core files | `prlimit64` in the child | as under bubblewrap | processes are counted for the user, all of its processes on the machine |
//! | `nobody`, when started by root; `PR_SET_NO_NEW_PRIVS` | `setgroups`, `setgid`, `setuid`, `prctl` in the child | the program holding root; a set-user-ID program giving privileges back | — |
//! | a deadline, and the end of the program, that kill its whole process group | `process_group(0)`; `kill(-pgid, SIGKILL)` while the leader is unreaped; seccomp refuses `setsid` and `setpgid`, so no process leaves the group | a daemon that outlives its check | — |
//! | nothing inherited | as under bubblewrap | as under bubblewrap | — |
//! | seccomp filters, installed by the child itself | `seccomp(SECCOMP_SET_MODE_FILTER)` ([`seccomp`]) | the same surface, and: leaving the process group, any socket (TCP, UDP, netlink, packet, and UNIX, which could connect to a host service by path, unmediated before Landlock ABI 9), `TIOCSTI` | a program that needs a socket of its own, or a new session (`setsid`) |
//!
//! Every layer is a well-kept tool (util-linux's `unshare`, `mount` and `prlimit`;
//! bubblewrap, which Flatpak and Claude Code's Linux sandbox use; Landlock's own Rust
//! crate), composed without ever interpolating a path or an argument into a script:
//! under bubblewrap they travel as positional parameters, under Landlock as open
//! descriptors. A probe runs `true` under every layer once; a machine that lacks one (no
//! bubblewrap or user namespaces, and no Landlock) gets an [`Unavailable`] naming it, and
//! the caller refuses the grant rather than run it with less.

mod grant;
mod jail;
mod landlocked;
pub mod seccomp;

pub use grant::{Grant, GrantError, resolve};
pub use jail::{Confinement, Ended, Job, Kind, Limits, Outcome, RunError, Unavailable, run_unconfined};
