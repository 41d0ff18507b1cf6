//! One confined run, under one of two confinements ([`Kind`]):
//!
//! - bubblewrap: `prlimit` → `unshare` (a user and mount namespace where the scratch
//!   tmpfs and the overlay of the root are mounted) → `bwrap` (the namespaces and the
//!   filesystem the program sees) → the program;
//! - Landlock, where user namespaces are not available: the program itself, restricted
//!   before it starts (`crate::landlocked`).
//!
//! [`Confinement::probe`] chooses bubblewrap when it works and Landlock otherwise.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

/// Opens the seccomp filters as descriptors 3 and 4 (for `bwrap --add-seccomp-fd`; the
/// files lie in the scratch directory, which the tmpfs then hides), mounts the scratch
/// tmpfs, binds the root under it as the overlay's read-only lower layer, mounts the
/// overlay, then runs the `bwrap` command line that follows. Paths and sizes arrive as
/// positional parameters, never in the script's text.
const SETUP: &str = r#"set -u
mount=$1 scratch=$2 root=$3 size=$4 list=$5 extra=$6
shift 6
fail() { echo "reviewhost-confine: $1" >&2; exit 125; }
exec 3<"$list" 4<"$extra" || fail "cannot open the seccomp filters"
"$mount" -t tmpfs -o "size=$size,mode=0755" reviewhost-scratch "$scratch" || fail "cannot mount a tmpfs in a user namespace"
mkdir "$scratch/lower" "$scratch/upper" "$scratch/work" "$scratch/merged" "$scratch/tmp" "$scratch/tmp/home" || fail "cannot prepare the scratch directory"
"$mount" --bind "$root" "$scratch/lower" || fail "cannot bind the root (started as root, the confinement runs as nobody, who must be able to read it)"
"$mount" -t overlay reviewhost-root -o "lowerdir=$scratch/lower,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/merged" || fail "cannot mount an overlay in a user namespace"
exec "$@"
"#;

/// The size of the program's `/dev/shm` (POSIX semaphores and shared memory).
const SHM_BYTES: u64 = 64 << 20;

/// The seccomp filters' files in the scratch directory ([`crate::seccomp`]).
const FILTER_LIST: &str = "seccomp-list.bpf";
const FILTER_EXTRA: &str = "seccomp-enosys.bpf";

/// The status the setup script exits with when a layer could not be built.
const SETUP_FAILED: i32 = 125;

/// The system directories a program may need to run, read-only (a symlink, as on a
/// merged-`/usr` system, is recreated as the same symlink).
pub(crate) const SYSTEM_DIRS: &[&str] = &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"];

/// The files of `/etc` programs read to start (the dynamic loader's cache, user and
/// group names, time zone, certificates), read-only. Nothing else of `/etc`.
pub(crate) const ETC: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/mime.types",
];

/// `PATH` inside the confinement, before the granted program's own directory.
pub(crate) const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Caps on one confined run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall time; past it every process the run started is killed.
    pub timeout: Duration,
    /// CPU time of each process (`RLIMIT_CPU`).
    pub cpu: Duration,
    /// Address space of each process (`RLIMIT_AS`). JavaScript engines reserve large
    /// virtual ranges: too small a cap stops `node` before it runs a line.
    pub address_space: u64,
    /// Memory each process may write to (`RLIMIT_DATA`: its heap and private writable
    /// mappings, what a process really holds, unlike the ranges a JIT reserves). The
    /// bound for real memory, per process.
    pub data: u64,
    /// Processes of the run's user (`RLIMIT_NPROC`).
    pub processes: u64,
    /// Largest file a process may write (`RLIMIT_FSIZE`).
    pub file_size: u64,
    /// Everything written: the overlay's upper layer, `/tmp` and `HOME` share one tmpfs
    /// of this size.
    pub scratch: u64,
    /// Bytes of stdout and of stderr kept; more makes the run [`Ended::OutputLimit`].
    pub output: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            timeout: Duration::from_secs(120),
            cpu: Duration::from_secs(120),
            address_space: 16 << 30,
            data: 1 << 30,
            processes: 512,
            file_size: 256 << 20,
            scratch: 1 << 30,
            output: 1 << 20,
        }
    }
}

/// One invocation of a granted program.
#[derive(Debug, Clone)]
pub struct Job<'a> {
    /// The granted program's absolute path ([`crate::Grant::path`]).
    pub program: &'a Path,
    pub args: &'a [String],
    /// The root on the host, absolute: the program sees it at the same path, writable
    /// through the overlay, and nothing of it changes.
    pub root: &'a Path,
    /// The working directory, relative to the root (`""` is the root).
    pub cwd: &'a str,
    pub stdin: &'a [u8],
    /// Variables set besides `PATH`, `HOME`, `LANG` and `TMPDIR` (the operator's list).
    pub env: &'a [(String, String)],
    /// Directories visible read-only besides the system ones (the operator's toolchain
    /// directories). The program's own directory is added.
    pub read_only: &'a [PathBuf],
    pub limits: Limits,
}

/// How a confined run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Exited(i32),
    /// Killed by a signal: `SIGXCPU` for the CPU cap, `SIGXFSZ` for the file-size cap.
    Signalled(i32),
    TimedOut,
    OutputLimit,
}

/// What a confined run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub ended: Ended,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub duration: Duration,
}

/// Why a run could not be made at all.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot start the confinement: {0}")]
    Spawn(std::io::Error),
    #[error("cannot make a scratch directory: {0}")]
    Scratch(std::io::Error),
    #[error("{what} '{}' cannot be used in a confinement: {why}", path.display())]
    Path { what: &'static str, path: PathBuf, why: &'static str },
    #[error("the confinement could not be built: {0}")]
    Setup(String),
}

/// A layer this machine cannot provide: grants are refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("granted programs cannot be confined on this machine: {0}")]
pub struct Unavailable(pub String);

/// The user a confinement started by root runs as (`nobody`). The kernel never applies
/// `RLIMIT_NPROC` to the host's root, even inside a user namespace, so a fork bomb
/// would only meet the deadline; as `nobody` it meets the process cap, and the program
/// never holds the host's root identity, even mapped.
pub(crate) const UNPRIVILEGED: u32 = 65534;

/// Which confinement a [`Confinement`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// bubblewrap in unprivileged user namespaces, on an overlay of the root.
    Bwrap,
    /// Landlock and seccomp, where user namespaces are not available.
    Landlock,
}

impl Kind {
    /// Both, in the order [`Confinement::probe`] tries them.
    pub const ALL: [Kind; 2] = [Kind::Bwrap, Kind::Landlock];
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Kind::Bwrap => "bwrap",
            Kind::Landlock => "landlock",
        })
    }
}

/// A confinement this machine provides, found once ([`Confinement::probe`]).
#[derive(Debug, Clone)]
pub struct Confinement {
    how: How,
}

#[derive(Debug, Clone)]
enum How {
    Bwrap(Bwrap),
    Landlock(crate::landlocked::Landlock),
}

/// The tools the bubblewrap confinement is built with.
#[derive(Debug, Clone)]
struct Bwrap {
    /// `setpriv`, when reviewhost runs as root: the confinement drops to [`UNPRIVILEGED`].
    setpriv: Option<PathBuf>,
    prlimit: PathBuf,
    unshare: PathBuf,
    mount: PathBuf,
    sh: PathBuf,
    bwrap: PathBuf,
}

/// Whether this process is root (the confinements then drop to [`UNPRIVILEGED`]).
pub(crate) fn running_as_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
}

/// The operator's `PATH` followed by the system directories, where tools are looked for.
fn system_path() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(
        std::env::split_paths(&path).chain(["/usr/sbin", "/usr/bin", "/sbin", "/bin"].map(PathBuf::from)),
    )
    .unwrap_or_default()
}

impl Confinement {
    /// The confinement this machine provides: bubblewrap when it works, else Landlock.
    /// Each is tried by running `true` under every layer; the error names what is missing
    /// for both, with how to provide it.
    pub fn probe() -> Result<Confinement, Unavailable> {
        let bwrap = match Confinement::probe_kind(Kind::Bwrap) {
            Ok(confinement) => return Ok(confinement),
            Err(Unavailable(why)) => why,
        };
        Confinement::probe_kind(Kind::Landlock).map_err(|Unavailable(landlock)| {
            Unavailable(format!("bubblewrap: {bwrap}; Landlock, the fallback: {landlock}"))
        })
    }

    /// The confinement `kind`, refused with what is missing when this machine cannot
    /// provide it.
    pub fn probe_kind(kind: Kind) -> Result<Confinement, Unavailable> {
        if !cfg!(target_os = "linux") {
            return Err(Unavailable(
                "confinement is built on Linux namespaces or Landlock and this is not Linux \
                 (--allow-unconfined-programs runs them without it)"
                    .into(),
            ));
        }
        let how = match kind {
            Kind::Bwrap => How::Bwrap(Bwrap::find()?),
            Kind::Landlock => How::Landlock(crate::landlocked::Landlock::probe()?),
        };
        let confinement = Confinement { how };
        confinement.run_true()?;
        Ok(confinement)
    }

    /// Which confinement this is.
    pub fn kind(&self) -> Kind {
        match self.how {
            How::Bwrap(_) => Kind::Bwrap,
            How::Landlock(_) => Kind::Landlock,
        }
    }

    /// The kernel's Landlock ABI, for a Landlock confinement: which of Landlock's rights
    /// it has (4: TCP; 6: signals and abstract UNIX sockets scoped to the program).
    pub fn landlock_abi(&self) -> Option<i32> {
        match &self.how {
            How::Bwrap(_) => None,
            How::Landlock(landlock) => Some(landlock.abi()),
        }
    }

    /// Runs `true` under every layer, in an empty root.
    fn run_true(&self) -> Result<(), Unavailable> {
        let root = tempfile::Builder::new()
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .tempdir()
            .map_err(|e| Unavailable(format!("cannot make a directory to probe in: {e}")))?;
        let tru =
            which::which_in("true", Some(system_path()), "/").map_err(|_| Unavailable("no 'true' program".into()))?;
        let job = Job {
            program: &tru,
            args: &[],
            root: root.path(),
            cwd: "",
            stdin: b"",
            env: &[],
            read_only: &[],
            limits: Limits { timeout: Duration::from_secs(30), ..Limits::default() },
        };
        let outcome = self.run(&job).map_err(|e| Unavailable(e.to_string()))?;
        if outcome.ended == Ended::Exited(0) {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&outcome.stderr);
        Err(Unavailable(match self.kind() {
            Kind::Bwrap => format!(
                "user namespaces are not available: `true` did not run under bubblewrap and an overlay in a \
                 user namespace ({:?}): {} (are unprivileged user namespaces enabled? sysctl \
                 kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu)",
                outcome.ended,
                stderr.trim()
            ),
            Kind::Landlock => format!("`true` did not run under Landlock ({:?}): {}", outcome.ended, stderr.trim()),
        }))
    }

    /// Whether the program runs as [`UNPRIVILEGED`] (reviewhost was started as root).
    fn as_nobody(&self) -> bool {
        match &self.how {
            How::Bwrap(bwrap) => bwrap.setpriv.is_some(),
            How::Landlock(landlock) => landlock.as_nobody,
        }
    }

    /// Whether `program` can run in this confinement: started by root, the confinement
    /// runs as `nobody`, who must be able to reach the program's file (and the file a
    /// symlink leads to) through directories others may search. Checked when a grant is
    /// made, so it is refused at once, with the reason, instead of failing every check.
    pub fn check_reachable(&self, program: &Path) -> Result<(), String> {
        if !self.as_nobody() {
            return Ok(());
        }
        use std::os::unix::fs::PermissionsExt;
        let others =
            |path: &Path, bits: u32| std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & bits == bits);
        let canonical = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
        for file in [program, canonical.as_path()] {
            if let Some(dir) = file.ancestors().skip(1).find(|dir| !others(dir, 0o001)) {
                return Err(format!(
                    "started as root, granted programs run as nobody, who cannot enter {} to reach {}; \
                     grant a program installed for all users (put its directory first on PATH) or run reviewhost \
                     as a user",
                    dir.display(),
                    file.display()
                ));
            }
        }
        if !others(&canonical, 0o005) {
            return Err(format!(
                "started as root, granted programs run as nobody, who cannot read and run {}",
                canonical.display()
            ));
        }
        Ok(())
    }

    /// Runs `job` confined and waits for it, at most `job.limits.timeout`.
    pub fn run(&self, job: &Job) -> Result<Outcome, RunError> {
        let began = Instant::now();
        for (what, path) in [("program", job.program), ("root", job.root)] {
            if !path.is_absolute() {
                return Err(RunError::Path { what, path: path.into(), why: "not absolute" });
            }
        }
        if job.cwd.split('/').any(|part| part == "..") || job.cwd.starts_with('/') {
            return Err(RunError::Path { what: "working directory", path: job.cwd.into(), why: "not inside the root" });
        }
        match &self.how {
            How::Bwrap(bwrap) => bwrap.run(job, began),
            How::Landlock(landlock) => landlock.run(job, began),
        }
    }
}

impl Bwrap {
    /// Finds the tools. The error names what is missing, with how to provide it.
    fn find() -> Result<Bwrap, Unavailable> {
        let system = system_path();
        let find = |name: &str, package: &str| {
            which::which_in(name, Some(&system), "/").map_err(|_| {
                Unavailable(format!("'{name}' is not installed (Debian and Ubuntu: apt-get install {package})"))
            })
        };
        Ok(Bwrap {
            setpriv: if running_as_root() { Some(find("setpriv", "util-linux")?) } else { None },
            prlimit: find("prlimit", "util-linux")?,
            unshare: find("unshare", "util-linux")?,
            mount: find("mount", "mount")?,
            sh: find("sh", "dash")?,
            bwrap: find("bwrap", "bubblewrap")?,
        })
    }

    fn run(&self, job: &Job, began: Instant) -> Result<Outcome, RunError> {
        // Readable by the unprivileged user a root-started confinement becomes; empty, and
        // hidden by the tmpfs mounted on it.
        let scratch = tempfile::Builder::new()
            .prefix("reviewhost-confine-")
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .tempdir()
            .map_err(RunError::Scratch)?;
        // The overlay's options are a comma-separated list of `key=path`: a path with a
        // separator in it cannot be given.
        if scratch.path().to_string_lossy().contains([',', ':', '\\']) {
            return Err(RunError::Path {
                what: "scratch directory",
                path: scratch.path().into(),
                why: "contains ',', ':' or '\\' (set TMPDIR to a plain path)",
            });
        }
        let [list, extra] = crate::seccomp::filters().map_err(RunError::Setup)?;
        for (name, filter) in [(FILTER_LIST, list), (FILTER_EXTRA, extra)] {
            let path = scratch.path().join(name);
            std::fs::write(&path, filter).map_err(RunError::Scratch)?;
            // Read by the unprivileged user a root-started confinement becomes.
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o644))
                .map_err(RunError::Scratch)?;
        }
        let outcome = collect(self.command(job, scratch.path()), job.stdin, job.limits, began, Reap::Child)?;
        if outcome.ended == Ended::Exited(SETUP_FAILED) && outcome.stderr.starts_with(b"reviewhost-confine: ") {
            return Err(RunError::Setup(String::from_utf8_lossy(&outcome.stderr).trim().to_string()));
        }
        Ok(outcome)
    }

    /// `[setpriv …] prlimit … unshare … sh -c SETUP … bwrap … PROGRAM ARGS`.
    fn command(&self, job: &Job, scratch: &Path) -> Command {
        let limits = job.limits;
        let mut command = match &self.setpriv {
            Some(setpriv) => {
                let mut command = Command::new(setpriv);
                command
                    .arg(format!("--reuid={UNPRIVILEGED}"))
                    .arg(format!("--regid={UNPRIVILEGED}"))
                    .args(["--clear-groups", "--"])
                    .arg(&self.prlimit);
                command
            }
            None => Command::new(&self.prlimit),
        };
        command
            .env_clear()
            .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
            .arg(format!("--cpu={}", limits.cpu.as_secs().max(1)))
            .arg(format!("--as={}", limits.address_space))
            .arg(format!("--data={}", limits.data))
            .arg(format!("--nproc={}", limits.processes))
            .arg(format!("--fsize={}", limits.file_size))
            .arg("--core=0")
            .arg("--")
            .arg(&self.unshare)
            .args(["--user", "--map-root-user", "--mount", "--"])
            .arg(&self.sh)
            .args(["-c", SETUP, "reviewhost-confine"])
            .arg(&self.mount)
            .arg(scratch)
            .arg(job.root)
            .arg(limits.scratch.to_string())
            .arg(scratch.join(FILTER_LIST))
            .arg(scratch.join(FILTER_EXTRA))
            .arg(&self.bwrap)
            .args(["--unshare-all", "--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL"])
            .args(["--add-seccomp-fd", "3", "--add-seccomp-fd", "4"]);
        for dir in SYSTEM_DIRS {
            let dir = Path::new(dir);
            match std::fs::read_link(dir) {
                Ok(target) => {
                    command.arg("--symlink").arg(target).arg(dir);
                }
                Err(_) if dir.is_dir() => {
                    command.arg("--ro-bind").arg(dir).arg(dir);
                }
                Err(_) => {}
            }
        }
        for file in ETC {
            command.arg("--ro-bind-try").arg(file).arg(file);
        }
        command.args(["--proc", "/proc", "--dev", "/dev"]).arg("--bind").arg(scratch.join("tmp")).arg("/tmp");
        let program_dirs = [job.program.parent().map(Path::to_path_buf), canonical_parent(job.program)];
        for dir in job.read_only.iter().cloned().chain(program_dirs.into_iter().flatten()) {
            command.arg("--ro-bind-try").arg(&dir).arg(&dir);
        }
        command.arg("--bind").arg(scratch.join("merged")).arg(job.root);
        // bubblewrap's own tmpfs mounts (`/`, `/dev`) have no size: read-only, they hold
        // nothing, and shared memory gets a small tmpfs of its own. Every writable byte
        // is then in the scratch tmpfs or `/dev/shm`.
        command.args(["--remount-ro", "/", "--remount-ro", "/dev"]);
        command.args(["--perms", "1777", "--size"]).arg(SHM_BYTES.to_string()).args(["--tmpfs", "/dev/shm"]);
        command.arg("--chdir").arg(job.root.join(job.cwd));
        let own = job.program.parent().map(|p| format!(":{}", p.display())).unwrap_or_default();
        command.args(["--setenv", "PATH"]).arg(format!("{SYSTEM_PATH}{own}"));
        command.args(["--setenv", "HOME", "/tmp/home", "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8"]);
        for (name, value) in job.env {
            command.args(["--setenv", name, value]);
        }
        command.arg("--").arg(job.program).args(job.args);
        crate::seccomp::inherit_nothing(&mut command);
        command
    }
}

/// Runs `program` without confinement: the environment cleared (as in a confinement), a
/// temporary `HOME`, the deadline and the output cap, and nothing else. The program can
/// read and write whatever its user can: `--allow-unconfined-programs` says so each run.
pub fn run_unconfined(
    program: &Path,
    args: &[String],
    cwd: &Path,
    stdin: &[u8],
    env: &[(String, String)],
    limits: Limits,
) -> Result<Outcome, RunError> {
    let began = Instant::now();
    let home = tempfile::Builder::new().prefix("reviewhost-home-").tempdir().map_err(RunError::Scratch)?;
    let own = program.parent().map(|p| format!(":{}", p.display())).unwrap_or_default();
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", format!("{SYSTEM_PATH}{own}"))
        .env("HOME", home.path())
        .env("LANG", "C.UTF-8")
        .envs(env.iter().map(|(k, v)| (k, v)));
    crate::seccomp::inherit_nothing(&mut command);
    collect(command, stdin, limits, began, Reap::Child)
}

/// What ends with a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reap {
    /// The process started; under bubblewrap the PID namespace ends with it.
    Child,
    /// The process group the process started leads (it was spawned with
    /// `process_group(0)` and its descendants cannot leave the group).
    Group,
}

/// How long a killed process group is given to be gone before the run is reported.
const GROUP_GONE: Duration = Duration::from_secs(2);

/// Spawns `command` with piped streams, feeds it `stdin`, and waits for it within the
/// limits; with [`Reap::Group`], kills its process group when it ends or times out.
pub(crate) fn collect(
    mut command: Command,
    stdin: &[u8],
    limits: Limits,
    began: Instant,
    reap: Reap,
) -> Result<Outcome, RunError> {
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(RunError::Spawn)?;
    let writer = child.stdin.take().map(|mut pipe| {
        let data = stdin.to_vec();
        // A program that does not read its stdin closes the pipe: not an error.
        std::thread::spawn(move || drop(pipe.write_all(&data)))
    });
    let stdout = capture(child.stdout.take(), limits.output);
    let stderr = capture(child.stderr.take(), limits.output);
    let status = match reap {
        Reap::Child => wait(&mut child, limits.timeout),
        Reap::Group => wait_group(&mut child, limits.timeout),
    }
    .map_err(RunError::Spawn)?;
    if let Some(writer) = writer {
        drop(writer.join());
    }
    let (stdout, stdout_over) = stdout.join().unwrap_or_default();
    let (stderr, stderr_over) = stderr.join().unwrap_or_default();
    let ended = match status {
        _ if stdout_over || stderr_over => Ended::OutputLimit,
        None => Ended::TimedOut,
        Some(status) => ended(status),
    };
    Ok(Outcome { ended, stdout, stderr, duration: began.elapsed() })
}

/// The directory of the file `program` leads to (`npx` → npm's `bin`).
pub(crate) fn canonical_parent(program: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(program).ok()?.parent().map(Path::to_path_buf)
}

/// Reads `pipe` to its end, keeping at most `cap` bytes; `true` when there was more.
/// It keeps reading past the cap (and drops what it reads) so the writer never blocks on
/// a full pipe.
fn capture(pipe: Option<impl Read + Send + 'static>, cap: usize) -> JoinHandle<(Vec<u8>, bool)> {
    std::thread::spawn(move || {
        let Some(mut pipe) = pipe else { return (Vec::new(), false) };
        let (mut kept, mut over) = (Vec::new(), false);
        let mut buffer = [0u8; 64 * 1024];
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(kept.len());
                    kept.extend_from_slice(&buffer[..n.min(room)]);
                    over |= n > room;
                }
            }
        }
        (kept, over)
    })
}

/// Waits at most `timeout`; past it kills the confinement, which kills every process
/// it started (`bwrap --die-with-parent` ends the PID namespace). `None`: timed out.
fn wait(child: &mut Child, timeout: Duration) -> std::io::Result<Option<ExitStatus>> {
    match child.wait_timeout(timeout)? {
        Some(status) => Ok(Some(status)),
        None => {
            child.kill()?;
            child.wait()?;
            Ok(None)
        }
    }
}

/// Waits at most `timeout` for `child`, the leader of its own process group, without
/// reaping it: while it is not reaped its PID, which is the group's ID, cannot be given
/// to another process, so the group can be killed without hitting a stranger. Then kills
/// the whole group (the processes the program left behind as well as, at the deadline,
/// the program), reaps the leader, and waits until the group is gone. `None`: timed out.
fn wait_group(child: &mut Child, timeout: Duration) -> std::io::Result<Option<ExitStatus>> {
    let pid = libc::pid_t::try_from(child.id()).map_err(std::io::Error::other)?;
    let exited = exits_within(pid, timeout)?;
    // SAFETY: kill(2) with a negative PID signals the group `pid` leads; the leader is
    // our unreaped child, so the group is the one it made.
    unsafe { libc::kill(-pid, libc::SIGKILL) };
    let status = child.wait()?;
    let gone_by = Instant::now() + GROUP_GONE;
    // A killed member that is already a zombie holds nothing and cannot run: waiting for
    // whoever reaps it (PID 1, which may be slow or never do it in a container) would
    // only delay the report past the check's deadline.
    while group_runs(pid) && Instant::now() < gone_by {
        std::thread::sleep(Duration::from_millis(2));
    }
    Ok(exited.then_some(status))
}

/// Whether the process group `pgid` has a member that is not a zombie, from
/// `/proc/PID/stat` (state and group follow the command name's closing parenthesis).
fn group_runs(pgid: libc::pid_t) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        // SAFETY: signal 0 only asks whether the group still has a member.
        return unsafe { libc::kill(-pgid, 0) } == 0;
    };
    entries.flatten().filter(|e| e.file_name().to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))).any(
        |entry| {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { return false };
            let Some(close) = stat.rfind(')') else { return false };
            let mut fields = stat[close + 1..].split_whitespace();
            let state = fields.next();
            let group = fields.nth(1).and_then(|g| g.parse::<libc::pid_t>().ok());
            group == Some(pgid) && state != Some("Z") && state != Some("X")
        },
    )
}

/// Whether process `pid`, a child of this process, exits within `timeout`; it is left
/// unreaped. A pidfd tells at once (Linux 5.3, older than any Landlock); where one
/// cannot be had (a container's seccomp filter), `waitid(WNOWAIT)` is polled.
fn exits_within(pid: libc::pid_t, timeout: Duration) -> std::io::Result<bool> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    let deadline = Instant::now() + timeout;
    // SAFETY: pidfd_open(pid, 0) returns a new descriptor or -1.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0 as libc::c_uint) };
    if pidfd >= 0 {
        // SAFETY: the descriptor was just returned to us and is owned by nothing else.
        let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd as libc::c_int) };
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let millis = left.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as libc::c_int;
            let mut poll = libc::pollfd { fd: pidfd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
            // SAFETY: one valid pollfd.
            match unsafe { libc::poll(&mut poll, 1, millis) } {
                n if n > 0 => return Ok(true),
                0 if left.is_zero() => return Ok(false),
                0 => {}
                _ => {
                    let error = std::io::Error::last_os_error();
                    if error.kind() != std::io::ErrorKind::Interrupted {
                        return Err(error);
                    }
                }
            }
        }
    }
    loop {
        // SAFETY: an all-zero siginfo_t is valid; waitid fills it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        // SAFETY: waitid on our own child with a valid siginfo_t; WNOWAIT leaves it unreaped.
        if unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) } != 0 {
            let error = std::io::Error::last_os_error();
            if error.kind() != std::io::ErrorKind::Interrupted {
                return Err(error);
            }
            // SAFETY: si_pid is set by waitid when a child changed state, else left 0.
        } else if unsafe { info.si_pid() } != 0 {
            return Ok(true);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(false);
        }
        std::thread::sleep(left.min(Duration::from_millis(5)));
    }
}

fn ended(status: ExitStatus) -> Ended {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Ended::Exited(code),
        (None, Some(signal)) => Ended::Signalled(signal),
        (None, None) => Ended::Exited(-1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// bubblewrap before 0.12.0 (CVE-2026-87766) can follow a symlink in the parent of a
    /// mount destination it creates. No destination reviewhost asks for lies under a
    /// path the repository controls: every mount is made while the new root holds only
    /// what reviewhost put there, and the root itself (the only repository content) is
    /// mounted last, so no destination is created after it is visible. Here a program
    /// inside the root, behind a symlink the repository planted, and a toolchain
    /// directory inside the root, as an operator may grant them.
    #[test]
    fn the_root_is_the_last_mount_so_no_destination_lies_under_repository_paths() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(outside.path().join("bin")).unwrap();
        std::fs::write(outside.path().join("bin/tool"), "#!/bin/sh\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("node_modules")).unwrap();
        let program = root.path().join("node_modules/bin/tool");
        let read_only = [root.path().join("node_modules")];
        let job = Job {
            program: &program,
            args: &[],
            root: root.path(),
            cwd: "",
            stdin: b"",
            env: &[],
            read_only: &read_only,
            limits: Limits::default(),
        };
        let tools = Bwrap {
            setpriv: None,
            prlimit: "/usr/bin/prlimit".into(),
            unshare: "/usr/bin/unshare".into(),
            mount: "/usr/bin/mount".into(),
            sh: "/bin/sh".into(),
            bwrap: "/usr/bin/bwrap".into(),
        };
        let scratch = tempfile::tempdir().unwrap();
        let command = tools.command(&job, scratch.path());
        let args: Vec<String> = command.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        let bwrap = args.iter().position(|a| a == "/usr/bin/bwrap").unwrap();
        let args = &args[bwrap..];
        // `/dev/shm`, a tmpfs under bubblewrap's own `/dev` (no repository path), is made
        // after the root; every other mount before it.
        let mounts = [
            "--bind",
            "--ro-bind",
            "--ro-bind-try",
            "--bind-try",
            "--dev-bind",
            "--symlink",
            "--proc",
            "--dev",
            "--dir",
            "--mqueue",
            "--file",
            "--bind-data",
            "--ro-bind-data",
        ];
        let mount_at: Vec<usize> = (0..args.len()).filter(|&i| mounts.contains(&args[i].as_str())).collect();
        let last = *mount_at.last().unwrap();
        assert_eq!(args[last], "--bind");
        assert_eq!(args[last + 2], root.path().to_string_lossy(), "the root is the last mount: {args:?}");
        let after: Vec<&String> = args[last + 3..].iter().filter(|a| a.starts_with("--")).collect();
        let allowed = ["--chdir", "--setenv", "--", "--remount-ro", "--perms", "--size", "--tmpfs"];
        assert!(after.iter().all(|a| allowed.contains(&a.as_str())), "{after:?}");
        let tmpfs: Vec<&String> = args.windows(2).filter(|w| w[0] == "--tmpfs").map(|w| &w[1]).collect();
        assert_eq!(tmpfs, ["/dev/shm"], "the only tmpfs after the root is /dev/shm");
    }
}
