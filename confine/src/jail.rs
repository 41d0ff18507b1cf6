//! One confined run: `prlimit` → `unshare` (a user and mount namespace where the
//! scratch tmpfs and the overlay of the root are mounted) → `bwrap` (the namespaces and
//! the filesystem the program sees) → the program.

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

/// The seccomp filters' files in the scratch directory ([`crate::seccomp`]).
const FILTER_LIST: &str = "seccomp-list.bpf";
const FILTER_EXTRA: &str = "seccomp-enosys.bpf";

/// The status the setup script exits with when a layer could not be built.
const SETUP_FAILED: i32 = 125;

/// The system directories a program may need to run, read-only (a symlink, as on a
/// merged-`/usr` system, is recreated as the same symlink).
const SYSTEM_DIRS: &[&str] = &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"];

/// The files of `/etc` programs read to start (the dynamic loader's cache, user and
/// group names, time zone, certificates), read-only. Nothing else of `/etc`.
const ETC: &[&str] = &[
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
const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

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
const UNPRIVILEGED: u32 = 65534;

/// The tools the layers are built with, found once.
#[derive(Debug, Clone)]
pub struct Confinement {
    /// `setpriv`, when reviewhost runs as root: the confinement drops to [`UNPRIVILEGED`].
    setpriv: Option<PathBuf>,
    prlimit: PathBuf,
    unshare: PathBuf,
    mount: PathBuf,
    sh: PathBuf,
    bwrap: PathBuf,
}

impl Confinement {
    /// Finds the tools and runs `true` under every layer. The error names what is
    /// missing, with how to provide it.
    pub fn probe() -> Result<Confinement, Unavailable> {
        if !cfg!(target_os = "linux") {
            return Err(Unavailable(
                "confinement is built on Linux namespaces and this is not Linux \
                 (--allow-unconfined-programs runs them without it)"
                    .into(),
            ));
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        let system = std::env::join_paths(
            std::env::split_paths(&path).chain(["/usr/sbin", "/usr/bin", "/sbin", "/bin"].map(PathBuf::from)),
        )
        .unwrap_or_default();
        let find = |name: &str, package: &str| {
            which::which_in(name, Some(&system), "/").map_err(|_| {
                Unavailable(format!("'{name}' is not installed (Debian and Ubuntu: apt-get install {package})"))
            })
        };
        let as_root = std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0);
        let confinement = Confinement {
            setpriv: if as_root.unwrap_or(false) { Some(find("setpriv", "util-linux")?) } else { None },
            prlimit: find("prlimit", "util-linux")?,
            unshare: find("unshare", "util-linux")?,
            mount: find("mount", "mount")?,
            sh: find("sh", "dash")?,
            bwrap: find("bwrap", "bubblewrap")?,
        };
        let root = tempfile::Builder::new()
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .tempdir()
            .map_err(|e| Unavailable(format!("cannot make a directory to probe in: {e}")))?;
        let tru = which::which_in("true", Some(&system), "/").map_err(|_| Unavailable("no 'true' program".into()))?;
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
        match confinement.run(&job) {
            Ok(Outcome { ended: Ended::Exited(0), .. }) => Ok(confinement),
            Ok(outcome) => Err(Unavailable(format!(
                "`true` did not run under bubblewrap and an overlay in a user namespace ({:?}): {} \
                 (are unprivileged user namespaces enabled? sysctl kernel.unprivileged_userns_clone=1, \
                 or kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu)",
                outcome.ended,
                String::from_utf8_lossy(&outcome.stderr).trim()
            ))),
            Err(e) => Err(Unavailable(e.to_string())),
        }
    }

    /// Whether `program` can run in this confinement: started by root, the confinement
    /// runs as `nobody`, who must be able to reach the program's file (and the file a
    /// symlink leads to) through directories others may search. Checked when a grant is
    /// made, so it is refused at once, with the reason, instead of failing every check.
    pub fn check_reachable(&self, program: &Path) -> Result<(), String> {
        if self.setpriv.is_none() {
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
        let outcome = collect(self.command(job, scratch.path()), job.stdin, job.limits, began)?;
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
    collect(command, stdin, limits, began)
}

/// Spawns `command` with piped streams, feeds it `stdin`, and waits for it within the
/// limits.
fn collect(mut command: Command, stdin: &[u8], limits: Limits, began: Instant) -> Result<Outcome, RunError> {
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(RunError::Spawn)?;
    let writer = child.stdin.take().map(|mut pipe| {
        let data = stdin.to_vec();
        // A program that does not read its stdin closes the pipe: not an error.
        std::thread::spawn(move || drop(pipe.write_all(&data)))
    });
    let stdout = capture(child.stdout.take(), limits.output);
    let stderr = capture(child.stderr.take(), limits.output);
    let status = wait(&mut child, limits.timeout).map_err(RunError::Spawn)?;
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
fn canonical_parent(program: &Path) -> Option<PathBuf> {
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

fn ended(status: ExitStatus) -> Ended {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Ended::Exited(code),
        (None, Some(signal)) => Ended::Signalled(signal),
        (None, None) => Ended::Exited(-1),
    }
}
