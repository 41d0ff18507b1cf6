//! The second confinement, for machines without unprivileged user namespaces (GitHub's
//! `ubuntu-24.04` runners, unprivileged containers, hardened hosts): Landlock and
//! seccomp, which need neither namespaces nor privileges.
//!
//! The granted program is started directly, and restricted between `fork` and `exec`:
//!
//! 1. started by root, it becomes `nobody` with no supplementary groups (`setgroups`,
//!    `setgid`, `setuid`, done by `std` before the rest);
//! 2. it leads a process group of its own (`process_group(0)`);
//! 3. rlimits: CPU, address space, processes, file size, no core files (`prlimit64` on
//!    itself, never above the hard limit it inherited);
//! 4. `PR_SET_NO_NEW_PRIVS`, so no set-user-ID program gives any of it back;
//! 5. a Landlock domain (`landlock_restrict_self`): read and execute beneath the root,
//!    the system directories, the `/etc` files, the operator's toolchain directories and
//!    the program's own directory and the one its symlink leads to; read beneath `/proc`;
//!    read and write `/dev/null`, `/dev/zero`, `/dev/full`, read `/dev/random` and
//!    `/dev/urandom`; everything beneath a fresh scratch directory (its `HOME` and
//!    `TMPDIR`, removed afterwards); nothing else, and no TCP `bind` or `connect`
//!    (ABI 4), no signal to and no abstract UNIX socket of a process outside the domain
//!    (ABI 6);
//! 6. the seccomp filters of [`crate::seccomp`] with the Landlock additions: no
//!    `setsid` or `setpgid`, no `socket` at all, terminal input injection refused.
//!
//! Every process it starts stays in its process group, since none can call `setsid` or
//! `setpgid`: when the program exits, and at the deadline, the whole group is killed
//! (`kill(-pgid, SIGKILL)`, while the leader is still unreaped so that its PID, the
//! group's ID, cannot have been reused).
//!
//! Everything is prepared in the parent: the scratch directory, the rules' descriptors,
//! the ruleset (built with the `landlock` crate, whose descriptor is taken out of it),
//! the compiled filters. Between `fork` and `exec` a multi-threaded parent's child must
//! not allocate or take a lock, so the closure run there makes only system calls, on
//! what was prepared. The crate's own `restrict_self` is not called there: it would also
//! build its status report.
//!
//! What differs from bubblewrap, where the kernel allows no better:
//!
//! - a write to the root is refused (`EACCES`) rather than made on an overlay and thrown
//!   away, and so is a write to `/tmp`: a program that must write beside its sources
//!   (a build directory, a cache) needs to be pointed at `$TMPDIR`;
//! - what is not readable is still there: its name, type and size can be seen
//!   (`stat`, `readlink`), and opening it fails with `EACCES`, not `ENOENT`;
//! - the program sees the host's processes in `/proc` (their command lines, not their
//!   environment, memory or descriptors: Landlock refuses a domain access to a process
//!   outside it as `ptrace` would be refused), and, below ABI 6, may signal the
//!   processes of its own user;
//! - the scratch directory has no total size: each file is capped by `RLIMIT_FSIZE`, the
//!   directory only by the file system it is on (`TMPDIR`'s) and the deadline;
//! - no socket can be made, not even a UNIX one (`socketpair` can): Landlock before ABI 9
//!   does not mediate connecting to a UNIX socket by path;
//! - the program shares the operator's session and its controlling terminal (none of
//!   its descriptors is the terminal, `/dev/tty` cannot be opened, and `TIOCSTI` is
//!   refused).
//!
//! The kernel must have Landlock ABI 3 (Linux 6.2): before it, a program could truncate
//! a file it may only read (`truncate(2)`, `O_TRUNC`). Newer rights (TCP, IPC scoping)
//! are used when the kernel has them.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope,
};

use crate::jail::{ETC, Job, Outcome, Reap, RunError, SYSTEM_DIRS, SYSTEM_PATH, UNPRIVILEGED, Unavailable};

/// The newest ABI whose rights are asked for; a newer kernel enforces these and no
/// more (the crate's compatibility contract), an older one those it has.
const TESTED: ABI = ABI::V7;

/// The oldest ABI the confinement runs on: ABI 3 added the right to truncate.
const MINIMUM_ABI: i32 = 3;

/// The Landlock confinement of this machine.
#[derive(Debug, Clone)]
pub(crate) struct Landlock {
    /// Started by root: the program runs as [`UNPRIVILEGED`].
    pub(crate) as_nobody: bool,
    /// The kernel's Landlock ABI, at least [`MINIMUM_ABI`].
    abi: i32,
}

impl Landlock {
    /// Whether the kernel has Landlock, and a recent enough one. The caller then runs
    /// `true` under it.
    pub(crate) fn probe() -> Result<Landlock, Unavailable> {
        let abi = kernel_abi().map_err(Unavailable)?;
        if abi < MINIMUM_ABI {
            return Err(Unavailable(format!(
                "Landlock ABI {abi} cannot keep a program from truncating a file it may only read \
                 (ABI {MINIMUM_ABI}, in Linux 6.2, can)"
            )));
        }
        Ok(Landlock { as_nobody: crate::jail::running_as_root(), abi })
    }

    /// Runs `job` (checked by the caller) restricted, and removes its scratch directory.
    pub(crate) fn run(&self, job: &Job, began: Instant) -> Result<Outcome, RunError> {
        let scratch = Scratch::new(self.as_nobody)?;
        let ruleset = ruleset(job, &scratch.path).map_err(RunError::Setup)?;
        let filters = crate::seccomp::landlock_filters().map_err(RunError::Setup)?;
        let limits = job.limits;
        let rlimits: [(libc::c_int, u64); 6] = [
            (libc::RLIMIT_CPU as libc::c_int, limits.cpu.as_secs().max(1)),
            (libc::RLIMIT_AS as libc::c_int, limits.address_space),
            (libc::RLIMIT_DATA as libc::c_int, limits.data),
            (libc::RLIMIT_NPROC as libc::c_int, limits.processes),
            (libc::RLIMIT_FSIZE as libc::c_int, limits.file_size),
            (libc::RLIMIT_CORE as libc::c_int, 0),
        ];
        let restrict = Restrict { rlimits, as_nobody: self.as_nobody, ruleset, filters };

        let mut command = Command::new(job.program);
        let own = job.program.parent().map(|p| format!(":{}", p.display())).unwrap_or_default();
        command
            .args(job.args)
            .current_dir(job.root.join(job.cwd))
            .env_clear()
            .env("PATH", format!("{SYSTEM_PATH}{own}"))
            .env("HOME", scratch.path.join("home"))
            .env("TMPDIR", scratch.path.join("tmp"))
            .env("LANG", "C.UTF-8")
            .envs(job.env.iter().map(|(k, v)| (k, v)))
            .process_group(0);
        if self.as_nobody {
            // `std` calls setgroups(0, NULL), setgid, then setuid in the child, before
            // changing directory and before the closures below.
            command.uid(UNPRIVILEGED).gid(UNPRIVILEGED);
        }
        crate::seccomp::inherit_nothing(&mut command);
        // SAFETY: the closure runs between fork and exec; `Restrict::apply` makes only
        // system calls on values prepared here, and allocates nothing.
        unsafe {
            command.pre_exec(move || restrict.apply());
        }
        let outcome = crate::jail::collect(command, job.stdin, job.limits, began, Reap::Group);
        scratch.remove();
        outcome
    }

    /// The kernel's Landlock ABI.
    pub(crate) fn abi(&self) -> i32 {
        self.abi
    }
}

/// The kernel's Landlock ABI version, or why there is none.
fn kernel_abi() -> Result<i32, String> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns a number.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if abi > 0 {
        return Ok(abi as i32);
    }
    let error = io::Error::last_os_error();
    Err(match error.raw_os_error() {
        Some(libc::EOPNOTSUPP) => {
            "Landlock is not enabled in this kernel (ABI 0; it is built in: add landlock to the lsm= boot parameter)"
                .to_string()
        }
        Some(libc::ENOSYS) => {
            "Landlock is not in this kernel (ABI 0; Linux 6.2 or later built with CONFIG_SECURITY_LANDLOCK has it)"
                .to_string()
        }
        _ => format!("Landlock cannot be used here (ABI 0): landlock_create_ruleset: {error}"),
    })
}

/// The scratch directory: `home` and `tmp` in a fresh directory only the program's user
/// can enter.
struct Scratch {
    dir: tempfile::TempDir,
    path: PathBuf,
}

impl Scratch {
    fn new(as_nobody: bool) -> Result<Scratch, RunError> {
        let dir = tempfile::Builder::new()
            .prefix("reviewhost-landlock-")
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir()
            .map_err(RunError::Scratch)?;
        let path = dir.path().to_path_buf();
        for sub in ["home", "tmp"] {
            std::fs::create_dir(path.join(sub)).map_err(RunError::Scratch)?;
        }
        if as_nobody {
            for sub in ["", "home", "tmp"] {
                std::os::unix::fs::chown(path.join(sub), Some(UNPRIVILEGED), Some(UNPRIVILEGED))
                    .map_err(RunError::Scratch)?;
            }
        }
        Ok(Scratch { dir, path })
    }

    /// Removes the directory, also where the program took the write bit off one of its
    /// directories (which would stop an unprivileged owner's removal).
    fn remove(self) {
        fn writable(dir: &Path) {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    writable(&entry.path());
                }
            }
        }
        writable(&self.path);
        let _ = self.dir.close();
    }
}

/// The Landlock ruleset of one run, as its descriptor.
fn ruleset(job: &Job, scratch: &Path) -> Result<OwnedFd, String> {
    let failed = |e: landlock::RulesetError| format!("cannot build the Landlock ruleset: {e}");
    let read = AccessFs::from_read(TESTED);
    let device = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate;
    let mut ruleset = Ruleset::default()
        // Reading, writing, making and removing files, and truncating them: without
        // these the confinement is refused rather than weaker.
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI::V1) | AccessFs::Truncate)
        .map_err(failed)?
        // The rest where the kernel has it.
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TESTED))
        .map_err(failed)?
        .handle_access(AccessNet::from_all(TESTED))
        .map_err(failed)?
        .scope(Scope::from_all(TESTED))
        .map_err(failed)?
        .create()
        .map_err(failed)?;
    let program_dirs = [job.program.parent().map(Path::to_path_buf), crate::jail::canonical_parent(job.program)];
    let readable = SYSTEM_DIRS
        .iter()
        .chain(ETC)
        .map(PathBuf::from)
        .chain(job.read_only.iter().cloned())
        .chain(program_dirs.into_iter().flatten())
        .chain([job.root.to_path_buf()])
        .map(|path| (path, read))
        .chain([(PathBuf::from("/proc"), AccessFs::ReadFile | AccessFs::ReadDir)])
        .chain(["/dev/null", "/dev/zero", "/dev/full"].map(|dev| (PathBuf::from(dev), device)))
        .chain(["/dev/random", "/dev/urandom"].map(|dev| (PathBuf::from(dev), AccessFs::ReadFile.into())))
        .chain([(scratch.to_path_buf(), AccessFs::from_all(TESTED))]);
    for (path, access) in readable {
        // Like bubblewrap's `--ro-bind-try`: what does not exist is left out.
        let Ok(fd) = PathFd::new(&path) else { continue };
        let access = if std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) { access } else { file_only(access) };
        ruleset = ruleset.add_rule(PathBeneath::new(fd, access)).map_err(failed)?;
    }
    Option::<OwnedFd>::from(ruleset).ok_or_else(|| "the kernel made no Landlock ruleset".to_string())
}

/// The rights among `access` that apply to a file (not to a directory's entries).
fn file_only(access: BitFlags<AccessFs>) -> BitFlags<AccessFs> {
    access & AccessFs::from_file(TESTED)
}

/// What the child applies to itself between `fork` and `exec`, prepared by the parent.
struct Restrict {
    /// Each resource and the value its soft and hard limits are set to.
    rlimits: [(libc::c_int, u64); 6],
    as_nobody: bool,
    ruleset: OwnedFd,
    filters: [seccompiler::BpfProgram; 2],
}

impl Restrict {
    /// Async-signal-safe: system calls only, no allocation, no lock.
    fn apply(&self) -> io::Result<()> {
        for &(resource, value) in &self.rlimits {
            let mut inherited = libc::rlimit64 { rlim_cur: 0, rlim_max: 0 };
            // SAFETY: prlimit64 on this process, reading into a valid struct.
            check(unsafe {
                libc::syscall(
                    libc::SYS_prlimit64,
                    0 as libc::pid_t,
                    resource,
                    std::ptr::null::<libc::rlimit64>(),
                    &mut inherited,
                )
            })?;
            let value = value.min(inherited.rlim_max);
            let limit = libc::rlimit64 { rlim_cur: value, rlim_max: value };
            // SAFETY: prlimit64 on this process, from a valid struct.
            check(unsafe {
                libc::syscall(
                    libc::SYS_prlimit64,
                    0 as libc::pid_t,
                    resource,
                    &limit,
                    std::ptr::null_mut::<libc::rlimit64>(),
                )
            })?;
        }
        if self.as_nobody {
            // `std` dropped the groups and the IDs; make sure before going on.
            // SAFETY: getgroups(0, NULL) only counts; the id calls cannot fail.
            let (groups, ids) = unsafe {
                (
                    libc::getgroups(0, std::ptr::null_mut()),
                    [libc::getuid(), libc::geteuid(), libc::getgid(), libc::getegid()],
                )
            };
            if groups != 0 || ids.iter().any(|&id| id != UNPRIVILEGED) {
                return Err(io::Error::from_raw_os_error(libc::EPERM));
            }
        }
        // SAFETY: prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0).
        check(unsafe {
            libc::prctl(
                libc::PR_SET_NO_NEW_PRIVS,
                1 as libc::c_ulong,
                0 as libc::c_ulong,
                0 as libc::c_ulong,
                0 as libc::c_ulong,
            )
        } as libc::c_long)?;
        // SAFETY: landlock_restrict_self on the ruleset descriptor the parent made.
        check(unsafe { libc::syscall(libc::SYS_landlock_restrict_self, self.ruleset.as_raw_fd(), 0 as libc::c_uint) })?;
        for filter in &self.filters {
            let program = libc::sock_fprog {
                len: filter.len() as libc::c_ushort,
                filter: filter.as_ptr() as *mut libc::sock_filter,
            };
            // SAFETY: seccomp(SET_MODE_FILTER) reads the program, whose instructions
            // `filter` holds (seccompiler's `sock_filter` has the kernel's layout), and
            // keeps a copy.
            check(unsafe {
                libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0 as libc::c_uint, &program)
            })?;
        }
        Ok(())
    }
}

fn check(result: libc::c_long) -> io::Result<()> {
    if result < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_abi_is_a_version_or_a_reason() {
        match kernel_abi() {
            Ok(abi) => assert!(abi >= 1, "{abi}"),
            Err(why) => assert!(why.contains("ABI 0"), "{why}"),
        }
    }

    #[test]
    fn a_file_gets_no_directory_right() {
        let read = file_only(AccessFs::from_read(TESTED));
        assert!(read.contains(AccessFs::ReadFile) && read.contains(AccessFs::Execute));
        assert!(!read.contains(AccessFs::ReadDir));
    }
}
