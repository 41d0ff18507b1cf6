//! The seccomp filters on a granted program, and what the program inherits from
//! reviewhost (nothing: no descriptor above stderr, no session keyring).
//!
//! The confinement already keeps the program from the network, other processes and the
//! host's files; the filters cut the kernel's attack surface that an unprivileged
//! process still reaches, in the spirit of Flatpak's and Docker's default lists: a
//! program gets `EPERM` for the keyrings (`keyctl`, `add_key`, `request_key`),
//! `ptrace`, `perf_event_open`, `bpf`, `userfaultfd`, `io_uring_*`, new namespaces
//! (`unshare`, `setns`, `clone` with a `CLONE_NEW*` flag), mounts and the new mount
//! API, module and kexec loading, `process_vm_*`, `kcmp`, handles (`open_by_handle_at`),
//! `chroot`, `acct`, `swapon`, `reboot`, `syslog`, clock setting and port I/O. `clone3`
//! answers `ENOSYS` (its flags are in memory a filter cannot read; C libraries fall back
//! to `clone`, whose flags it can), and so does every call of the x32 ABI (numbers with
//! bit 30 set, which would otherwise reach the same calls under other numbers). A call
//! of another architecture's ABI (32-bit `int 0x80`) kills the process.
//!
//! Two filters: the list, compiled by `seccompiler`, and a six-instruction filter written
//! here for what `seccompiler` cannot say (a range of numbers, a second errno). The
//! kernel runs both and the most restrictive answer wins. Under bubblewrap both are given
//! to `bwrap --add-seccomp-fd` ([`filters`]); under Landlock, which has no namespaces
//! behind it, the list also refuses (`landlock_filters`):
//!
//! - `setsid` and `setpgid`, so that no process the program starts can leave the process
//!   group the deadline kills;
//! - `socket` for every family, so that neither TCP, UDP, raw, netlink nor packet
//!   sockets can be made, nor a UNIX socket that would connect to a host service by
//!   path (`/run/user/UID/bus`, `/var/run/docker.sock`) or by abstract name, which
//!   Landlock before ABI 9 does not mediate; `socketpair(AF_UNIX)` stays, as pipes do;
//! - `ioctl(TIOCSTI)` and `ioctl(TIOCLINUX)`, which push input into a terminal (the
//!   program shares the operator's session: it cannot leave it).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

/// The calls a granted program is refused with `EPERM`.
const DENIED: &[i64] = &[
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_ptrace,
    libc::SYS_perf_event_open,
    libc::SYS_bpf,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_kcmp,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_acct,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_reboot,
    libc::SYS_syslog,
    libc::SYS_quotactl,
    libc::SYS_lookup_dcookie,
    libc::SYS_fanotify_init,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_vhangup,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
];

/// The `clone` flags that make a namespace.
const NAMESPACE_FLAGS: [u64; 8] = [
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    libc::CLONE_NEWCGROUP as u64,
    0x80, // CLONE_NEWTIME
];

/// What the Landlock confinement refuses besides [`DENIED`], with `EPERM`: leaving the
/// process group, sockets, System V IPC (which Landlock does not mediate and which
/// outlives the check: a segment of the operator's is readable, and one made here holds
/// memory after it), and changes of mode, owner and extended attributes (which Landlock
/// does not mediate: the operator's own files, their home directory included, would be
/// open to them). Times are left settable (`touch` needs them): a program can change the
/// times of a file its user owns.
const LANDLOCK_DENIED: &[i64] = &[
    libc::SYS_setsid,
    libc::SYS_setpgid,
    libc::SYS_socket,
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmctl,
    libc::SYS_shmdt,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semctl,
    libc::SYS_semtimedop,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_chmod,
    libc::SYS_fchmod,
    libc::SYS_fchmodat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_chown,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_lchown,
    libc::SYS_fchown,
    libc::SYS_fchownat,
    libc::SYS_setxattr,
    libc::SYS_lsetxattr,
    libc::SYS_fsetxattr,
    libc::SYS_removexattr,
    libc::SYS_lremovexattr,
    libc::SYS_fremovexattr,
];

/// Calls that act on another process named by its PID in the first argument, which
/// Landlock does not scope: `prlimit64` (which would let a check set the operator's
/// reviewhost's CPU limit and kill it), `setpriority` (its second), the scheduler's
/// setters, `ioprio_set` (its second), `migrate_pages`, `move_pages`, `process_madvise`'s
/// pidfd aside. Allowed on the caller itself (PID 0), refused with `EPERM` otherwise.
const OTHER_PROCESS_FIRST: &[i64] = &[
    libc::SYS_prlimit64,
    libc::SYS_sched_setaffinity,
    libc::SYS_sched_setscheduler,
    libc::SYS_sched_setparam,
    libc::SYS_sched_setattr,
    libc::SYS_migrate_pages,
    libc::SYS_move_pages,
];
const OTHER_PROCESS_SECOND: &[i64] = &[libc::SYS_setpriority, libc::SYS_ioprio_set];

/// The terminal `ioctl`s that inject input (refused under Landlock).
#[allow(clippy::unnecessary_cast, reason = "the requests are a `c_ulong` with glibc, a `c_int` with musl")]
const TERMINAL_INJECTION: [u64; 2] = [libc::TIOCSTI as u64, libc::TIOCLINUX as u64];

/// The filters bubblewrap installs, each as the bytes of a `struct sock_filter` array
/// (what bubblewrap reads from `--add-seccomp-fd`). `Err` on an architecture reviewhost
/// has no filter for.
pub fn filters() -> Result<[Vec<u8>; 2], String> {
    let [list, extra] = programs(false)?;
    Ok([bytes(&list), bytes(&extra)])
}

/// The filters the Landlock confinement installs itself, before it runs the program:
/// those of [`filters`], with the list also refusing `setsid`, `setpgid`, `socket`,
/// `socketpair` of any family but `AF_UNIX`, and the terminal `ioctl`s that inject input.
pub(crate) fn landlock_filters() -> Result<[BpfProgram; 2], String> {
    programs(true)
}

fn programs(landlock: bool) -> Result<[BpfProgram; 2], String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| format!("no seccomp filter: {e:?}"))?;
    let condition = |arg: u8, len: SeccompCmpArgLen, op: SeccompCmpOp, value: u64| {
        let condition = SeccompCondition::new(arg, len, op, value).map_err(|e| format!("{e:?}"))?;
        SeccompRule::new(vec![condition]).map_err(|e| format!("{e:?}"))
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = DENIED.iter().map(|&nr| (nr, Vec::new())).collect();
    // `clone(flags, …)` on x86_64 and aarch64 alike: the flags are the first argument.
    let clone_rules = NAMESPACE_FLAGS
        .iter()
        .map(|&flag| condition(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(flag), flag))
        .collect::<Result<Vec<_>, String>>()?;
    rules.insert(libc::SYS_clone, clone_rules);
    if landlock {
        rules.extend(LANDLOCK_DENIED.iter().map(|&nr| (nr, Vec::new())));
        // `socketpair(domain, …)`: only a pair of UNIX sockets, which reaches nothing.
        let other_family = condition(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, libc::AF_UNIX as u64)?;
        rules.insert(libc::SYS_socketpair, vec![other_family]);
        // `ioctl(fd, request, …)`: the request is an `unsigned int`, its low 32 bits.
        let injection = TERMINAL_INJECTION
            .iter()
            .map(|&request| condition(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, request))
            .collect::<Result<Vec<_>, String>>()?;
        rules.insert(libc::SYS_ioctl, injection);
        for (calls, arg) in [(OTHER_PROCESS_FIRST, 0u8), (OTHER_PROCESS_SECOND, 1u8)] {
            for &nr in calls {
                rules.insert(nr, vec![condition(arg, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, 0)?]);
            }
        }
    }
    // Memory that `RLIMIT_DATA` does not count: shared anonymous mappings
    // (`MAP_SHARED | MAP_ANONYMOUS`, `MAP_SHARED_VALIDATE` too) and memfds.
    let shared_anonymous = (libc::MAP_SHARED | libc::MAP_ANONYMOUS) as u64;
    rules.insert(
        libc::SYS_mmap,
        vec![condition(3, SeccompCmpArgLen::Dword, SeccompCmpOp::MaskedEq(shared_anonymous), shared_anonymous)?],
    );
    rules.insert(libc::SYS_memfd_create, Vec::new());
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch)
        .map_err(|e| format!("{e:?}"))?;
    let list: BpfProgram = filter.try_into().map_err(|e| format!("{e:?}"))?;
    Ok([list, enosys(arch)])
}

/// `clone3` and, on x86_64, the x32 ABI: `ENOSYS`. Other architectures are left to the
/// list's filter, which kills them.
fn enosys(arch: TargetArch) -> BpfProgram {
    use seccompiler::sock_filter;
    const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const JEQ: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    const JGE: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
    const RET: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
    let op = |code: u16, jt: u8, jf: u8, k: u32| sock_filter { code, jt, jf, k };
    let audit = match arch {
        TargetArch::x86_64 => 0xc000_003e,  // AUDIT_ARCH_X86_64
        TargetArch::aarch64 => 0xc000_00b7, // AUDIT_ARCH_AARCH64
        TargetArch::riscv64 => 0xc000_00f3, // AUDIT_ARCH_RISCV64
    };
    // x32's numbers have bit 30 set; other architectures have no such range.
    let x32 = if arch == TargetArch::x86_64 { 0x4000_0000 } else { u32::MAX };
    let enosys = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
    vec![
        op(LD_W_ABS, 0, 0, 4), // seccomp_data.arch
        op(JEQ, 0, 3, audit),  // another ABI: allow here, the list kills it
        op(LD_W_ABS, 0, 0, 0), // seccomp_data.nr
        op(JGE, 2, 0, x32),
        op(JEQ, 1, 0, libc::SYS_clone3 as u32),
        op(RET, 0, 0, libc::SECCOMP_RET_ALLOW),
        op(RET, 0, 0, enosys),
    ]
}

fn bytes(program: &BpfProgram) -> Vec<u8> {
    let mut out = Vec::with_capacity(program.len() * 8);
    for op in program {
        out.extend_from_slice(&op.code.to_ne_bytes());
        out.push(op.jt);
        out.push(op.jf);
        out.extend_from_slice(&op.k.to_ne_bytes());
    }
    out
}

/// Makes `command`'s child inherit nothing it should not: every descriptor above
/// stderr is marked close-on-exec (`close_range(3, ~0, CLOSE_RANGE_CLOEXEC)`, or
/// `fcntl` on each descriptor below the open-file limit where the kernel predates
/// `close_range`), so none reaches the first program of the confinement or anything
/// after it; and the child joins a new, empty session keyring, so the operator's
/// session keyring is not its own (the filters above refuse every keyring call anyway).
pub fn inherit_nothing(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs between fork and exec and makes only async-signal-safe
    // system calls (close_range, getrlimit, fcntl, keyctl); it allocates nothing.
    unsafe {
        command.pre_exec(|| {
            const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
            let closed =
                libc::syscall(libc::SYS_close_range, 3 as libc::c_uint, libc::c_uint::MAX, CLOSE_RANGE_CLOEXEC);
            if closed != 0 {
                let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
                let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
                    limit.rlim_cur.min(1 << 20) as libc::c_int
                } else {
                    1 << 16
                };
                for fd in 3..top {
                    libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
                }
            }
            const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
            // Fails only where keyrings are not built in: then there is none to inherit.
            libc::syscall(libc::SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, std::ptr::null::<libc::c_char>());
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filters_compile_to_whole_instructions() {
        let [list, extra] = filters().unwrap();
        assert!(list.len() > 8 * DENIED.len() && list.len() % 8 == 0, "{}", list.len());
        assert_eq!(extra.len(), 7 * 8);
        let [landlock, enosys] = landlock_filters().unwrap();
        assert!(landlock.len() * 8 > list.len() + LANDLOCK_DENIED.len(), "{}", landlock.len());
        assert_eq!(bytes(&enosys), extra);
    }
}
