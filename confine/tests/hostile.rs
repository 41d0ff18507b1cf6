//! Hostile programs under a grant: each tries to escape one layer of the confinement
//! and must be contained, with the host unchanged. Each runs under both confinements,
//! bubblewrap and Landlock, where the machine has them.
//!
//! bubblewrap needs unprivileged user namespaces, Landlock a kernel with Landlock ABI 3.
//! Without one, each test prints why and runs under the other only, unless
//! `REVIEWHOST_REQUIRE_CONFINEMENT` is set (as `.ci/run` does), which makes a missing
//! confinement a failure.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use reviewhost_confine::{Confinement, Ended, Job, Kind, Limits, Outcome, Unavailable};

/// The confinement `kind`, probed once per test process, or `None` (said why).
fn confinement_of(kind: Kind) -> Option<Confinement> {
    static PROBED: [OnceLock<Result<Confinement, Unavailable>>; 2] = [const { OnceLock::new() }; 2];
    let slot = &PROBED[Kind::ALL.iter().position(|&k| k == kind).unwrap()];
    match slot.get_or_init(|| Confinement::probe_kind(kind)) {
        Ok(confinement) => Some(confinement.clone()),
        Err(e) if std::env::var_os("REVIEWHOST_REQUIRE_CONFINEMENT").is_none() => {
            eprintln!("skipped under {kind}: {e}");
            None
        }
        Err(e) => panic!("{kind}: {e}"),
    }
}

/// Every confinement this machine has, bubblewrap first.
fn confinements() -> Vec<Confinement> {
    Kind::ALL.into_iter().filter_map(confinement_of).collect()
}

/// The confinement a child test process was told to use (`REVIEWHOST_KIND`).
fn confinement_from_env() -> Confinement {
    let kind = match std::env::var("REVIEWHOST_KIND").as_deref() {
        Ok("landlock") => Kind::Landlock,
        Ok("bwrap") => Kind::Bwrap,
        other => panic!("REVIEWHOST_KIND is {other:?}"),
    };
    Confinement::probe_kind(kind).unwrap_or_else(|e| panic!("{kind}: {e}"))
}

/// `bash -c SCRIPT` confined on `root`.
fn bash(confinement: &Confinement, root: &Path, script: &str, limits: Limits) -> Outcome {
    let args = ["-c".to_string(), script.to_string()];
    let job = Job {
        program: Path::new("/bin/bash"),
        args: &args,
        root,
        cwd: "",
        stdin: b"",
        env: &[],
        read_only: &[],
        limits,
    };
    confinement.run(&job).expect("the confinement runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every file under `dir` with its content, and every directory.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                found.insert(path.clone(), None);
                stack.push(path);
            } else {
                found.insert(path.clone(), Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    found
}

fn repository() -> tempfile::TempDir {
    // Readable by all, as a checkout is: started as root, the confinement runs as nobody.
    let root =
        tempfile::Builder::new().permissions(std::os::unix::fs::PermissionsExt::from_mode(0o755)).tempdir().unwrap();
    std::fs::write(root.path().join("a.txt"), "original\n").unwrap();
    std::fs::create_dir(root.path().join("src")).unwrap();
    std::fs::write(root.path().join("src/b.txt"), "kept\n").unwrap();
    root
}

fn running_as_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
}

/// Writes through the overlay, as an operator who owns the checkout. Started as root,
/// the test runs itself again as uid 1000 on a checkout uid 1000 owns, since a
/// confinement started by root runs as nobody (see `started_by_root_the_program_is_nobody`).
#[test]
fn writes_to_the_root_are_thrown_away() {
    let Some(confinement) = confinement_of(Kind::Bwrap) else { return };
    as_the_owner_of_a_checkout(&confinement);
}

/// Under Landlock there is no overlay: a write to the root is refused (`EACCES`),
/// truncation included, also when the operator owns the checkout; the scratch directory
/// (`HOME`, `TMPDIR`) takes writes. As root and, re-run, as uid 1000. (Not tried: a
/// change of mode or times, which Landlock does not mediate; the module note says so.)
#[test]
fn writes_to_the_root_are_refused() {
    let Some(confinement) = confinement_of(Kind::Landlock) else { return };
    let root = repository();
    writes_are_refused(&confinement, root.path());
    as_the_owner_of_a_checkout(&confinement);
}

/// Runs `confinement`'s write test on a checkout the operator owns: here, as root, the
/// test runs itself again as uid 1000 on a checkout uid 1000 owns.
fn as_the_owner_of_a_checkout(confinement: &Confinement) {
    let root = repository();
    if !running_as_root() {
        return writes_as(confinement, root.path());
    }
    let owned = std::process::Command::new("chown").args(["-R", "1000:1000"]).arg(root.path()).status().unwrap();
    assert!(owned.success());
    let out = as_uid_1000(&["--exact", "writes_as_the_owner_of_the_checkout", "--include-ignored", "--nocapture"])
        .env("REVIEWHOST_ROOT", root.path())
        .env("REVIEWHOST_KIND", confinement.kind().to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).contains("1 passed"), "{}", text(&out.stdout));
}

/// This test binary again, as uid 1000 with no supplementary group.
fn as_uid_1000(args: &[&str]) -> std::process::Command {
    let mut command = std::process::Command::new("setpriv");
    command
        .args(["--reuid=1000", "--regid=1000", "--clear-groups", "--"])
        .arg(std::env::current_exe().unwrap())
        .args(args)
        .env("TMPDIR", "/tmp");
    command
}

#[test]
#[ignore = "run by writes_to_the_root_are_thrown_away and writes_to_the_root_are_refused as the checkout's owner"]
fn writes_as_the_owner_of_the_checkout() {
    writes_as(&confinement_from_env(), Path::new(&std::env::var("REVIEWHOST_ROOT").unwrap()));
}

fn writes_as(confinement: &Confinement, root: &Path) {
    match confinement.kind() {
        Kind::Bwrap => writes_through_the_overlay(confinement, root),
        Kind::Landlock => writes_are_refused(confinement, root),
    }
}

fn writes_through_the_overlay(confinement: &Confinement, root: &Path) {
    let before = snapshot(root);
    let script = "echo changed > a.txt && rm src/b.txt && mkdir -p cache/x && echo y > cache/x/y && cat a.txt && ls";
    let out = bash(confinement, root, script, Limits::default());
    assert_eq!(out.ended, Ended::Exited(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "changed\na.txt\ncache\nsrc\n", "the program saw its own writes");
    assert_eq!(snapshot(root), before, "the repository is byte-identical afterwards");
}

fn writes_are_refused(confinement: &Confinement, root: &Path) {
    let before = snapshot(root);
    let attempts = [
        "echo changed > a.txt",
        "echo more >> a.txt",
        "rm src/b.txt",
        "mkdir cache",
        "touch new",
        "mv a.txt moved",
        "ln -s a.txt link",
        "ln a.txt hard",
        "mkfifo fifo",
        "truncate -s 0 src/b.txt",
        "perl -e 'truncate(\"a.txt\", 0) or die \"$!\\n\"'",
    ];
    let script = (attempts.iter().enumerate())
        .map(|(i, attempt)| format!("{attempt} && echo 'attempt {i} wrote'\n"))
        .collect::<String>()
        + "echo t > $TMPDIR/t && mkdir $HOME/h && echo h > $HOME/h/h && cat $TMPDIR/t $HOME/h/h a.txt";
    let out = bash(confinement, root, &script, Limits::default());
    assert_eq!(out.ended, Ended::Exited(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "t\nh\noriginal\n", "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.matches("Permission denied").count() >= 10, "{stderr}");
    assert_eq!(snapshot(root), before, "the repository is byte-identical afterwards");
}

/// Started by root, the program runs as nobody: it reads the checkout, cannot write
/// root's files (under bubblewrap, even through the overlay), and the checkout stays the
/// same. Under bubblewrap `id` says 0, nobody mapped to root in its user namespace.
#[test]
fn started_by_root_the_program_is_nobody() {
    if !running_as_root() {
        eprintln!("skipped: not running as root");
        return;
    }
    for confinement in confinements() {
        let root = repository();
        let before = snapshot(root.path());
        let out = bash(
            &confinement,
            root.path(),
            "id -u; cat a.txt; echo x > a.txt || echo refused; touch $TMPDIR/t $HOME/h && echo tmp-ok",
            Limits::default(),
        );
        let id = if confinement.kind() == Kind::Bwrap { 0 } else { 65534 };
        assert_eq!(text(&out.stdout), format!("{id}\noriginal\nrefused\ntmp-ok\n"), "{}", text(&out.stderr));
        assert_eq!(snapshot(root.path()), before);
    }
}

/// Nothing outside the root is read: not a file others may read in a directory others
/// may enter (so only the confinement stops it), not through a symlink planted in the
/// root, not the home directory, `/home` or `/etc/shadow`. Under bubblewrap they are not
/// there; under Landlock they are there and refused.
#[test]
fn files_outside_the_root_are_not_there() {
    for confinement in confinements() {
        let root = repository();
        let outside = tempfile::Builder::new()
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .tempdir()
            .unwrap();
        let canary = outside.path().join("canary");
        std::fs::write(&canary, "secret-canary-7731\n").unwrap();
        std::fs::set_permissions(&canary, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
        std::os::unix::fs::symlink(&canary, root.path().join("planted")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("planted-dir")).unwrap();
        let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
        let script = format!(
            "cat {c} 2>&1; cat {r}/../$(basename {o})/canary 2>&1; cat planted 2>&1; cat planted-dir/canary 2>&1; \
             ls -A {h} 2>&1; ls /home 2>&1; cat /etc/shadow 2>&1; echo done",
            c = canary.display(),
            r = root.path().display(),
            o = outside.path().display(),
            h = home,
        );
        let out = bash(&confinement, root.path(), &script, Limits::default());
        let stdout = text(&out.stdout);
        assert!(stdout.ends_with("done\n"), "{stdout}\n{}", text(&out.stderr));
        assert!(
            !stdout.contains("secret-canary-7731"),
            "{}: a file outside the root was read: {stdout}",
            confinement.kind()
        );
        let refusal = match confinement.kind() {
            Kind::Bwrap => "No such file or directory",
            Kind::Landlock => "Permission denied",
        };
        assert!(stdout.matches(refusal).count() >= 6, "{}: {stdout}", confinement.kind());
    }
}

/// Connects to each UNIX socket its arguments name (`@` for an abstract one).
const CONNECT_UNIX: &str = r#"
import socket, sys
for address in sys.argv[1:]:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(address.replace("@", "\0", 1) if address.startswith("@") else address)
        print("connected to " + address)
    except OSError as e:
        print("refused: " + str(e))
"#;

/// No TCP, no UDP, no UNIX socket of the host (by path, in a directory all may enter,
/// or abstract), no name resolution.
#[test]
fn there_is_no_network() {
    for confinement in confinements() {
        let root = repository();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_nonblocking(true).unwrap();
        let udp_port = udp.local_addr().unwrap().port();
        let sockets = tempfile::Builder::new()
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .tempdir()
            .unwrap();
        let path = sockets.path().join("service.sock");
        let unix = std::os::unix::net::UnixListener::bind(&path).unwrap();
        unix.set_nonblocking(true).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
        let name = format!("reviewhost-test-{}-{}", std::process::id(), confinement.kind());
        let abstract_address =
            <std::os::unix::net::SocketAddr as std::os::linux::net::SocketAddrExt>::from_abstract_name(&name).unwrap();
        let abstract_unix = std::os::unix::net::UnixListener::bind_addr(&abstract_address).unwrap();
        abstract_unix.set_nonblocking(true).unwrap();
        let script = format!(
            "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected; echo datagram > /dev/udp/127.0.0.1/{udp_port}; \
             getent hosts example.com; python3 -c '{CONNECT_UNIX}' {path} @{name} 2>&1; echo done",
            path = path.display(),
        );
        let out = bash(&confinement, root.path(), &script, Limits::default());
        let kind = confinement.kind();
        assert!(text(&out.stdout).ends_with("done\n"), "{kind}: {}", text(&out.stderr));
        assert!(!text(&out.stdout).contains("connected"), "{kind}: {}", text(&out.stdout));
        assert_eq!(text(&out.stdout).matches("refused: ").count(), 2, "{kind}: {}", text(&out.stdout));
        assert!(listener.accept().is_err(), "{kind}: the host's listener got a connection");
        assert!(udp.recv(&mut [0; 64]).is_err(), "{kind}: the host's UDP socket got a datagram");
        assert!(unix.accept().is_err(), "{kind}: the host's UNIX socket got a connection");
        assert!(abstract_unix.accept().is_err(), "{kind}: the host's abstract UNIX socket got a connection");
    }
}

/// Neither the program's environment nor any process's in `/proc` holds the operator's
/// token, also when the operator is not root (the token is then in a process of the
/// program's own user, which only the confinement keeps it from).
#[test]
fn the_operators_environment_is_not_visible() {
    for confinement in confinements() {
        let root = repository();
        // A child test process whose environment holds a token runs the confined script.
        let mut as_caller = std::process::Command::new(std::env::current_exe().unwrap());
        as_caller.args(["--exact", "print_environment_of_a_confined_bash", "--nocapture", "--include-ignored"]);
        let as_user =
            as_uid_1000(&["--exact", "print_environment_of_a_confined_bash", "--nocapture", "--include-ignored"]);
        let runs = if running_as_root() { vec![as_caller, as_user] } else { vec![as_caller] };
        for mut child in runs {
            let outcome = child
                .env("REVIEWHOST_TEST_TOKEN", "ghp_canary_4412")
                .env("REVIEWHOST_ROOT", root.path())
                .env("REVIEWHOST_KIND", confinement.kind().to_string())
                .env("REVIEWHOST_SCRIPT", "id -u; env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; echo done")
                .output()
                .unwrap();
            let kind = confinement.kind();
            assert!(outcome.status.success(), "{kind}: {}", text(&outcome.stderr));
            let out = text(&outcome.stdout);
            assert!(out.contains("confined says: ") && out.contains("done"), "{kind}: {out}");
            assert!(!out.contains("ghp_canary_4412"), "{kind}: the operator's token reached the program: {out}");
        }
    }
}

/// Run by [`the_operators_environment_is_not_visible`] in a child test process whose
/// environment holds a token.
#[test]
#[ignore = "run by the_operators_environment_is_not_visible"]
fn print_environment_of_a_confined_bash() {
    let confinement = confinement_from_env();
    let root = PathBuf::from(std::env::var("REVIEWHOST_ROOT").unwrap());
    assert_eq!(std::env::var("REVIEWHOST_TEST_TOKEN").as_deref(), Ok("ghp_canary_4412"));
    let out = bash(&confinement, &root, &std::env::var("REVIEWHOST_SCRIPT").unwrap(), Limits::default());
    println!("confined says: {}", text(&out.stdout));
}

/// At the deadline every process the program started is killed: in the background, in
/// a new session, ignoring signals, in a process group of its own.
#[test]
fn processes_that_outlive_the_deadline_are_killed() {
    for confinement in confinements() {
        let root = repository();
        let marker = format!("98765.{}", confinement.kind() as u8 + 1);
        let script = format!(
            "sleep {marker} & setsid sleep {marker} & (trap '' TERM HUP; sleep {marker}) & \
             perl -e 'setpgrp(0, 0); exec \"sleep\", \"{marker}\"' & sleep {marker}"
        );
        let limits = Limits { timeout: Duration::from_millis(800), ..Limits::default() };
        let out = bash(&confinement, root.path(), &script, limits);
        assert_eq!(out.ended, Ended::TimedOut, "{}", confinement.kind());
        assert_eq!(
            survivors(&marker),
            Vec::<String>::new(),
            "{}: still running after the deadline",
            confinement.kind()
        );
    }
}

/// When the program exits, what it left running is killed, and the run does not wait
/// for the deadline.
#[test]
fn processes_left_behind_are_killed_when_the_program_exits() {
    for confinement in confinements() {
        let root = repository();
        let marker = format!("98764.{}", confinement.kind() as u8 + 1);
        let script = format!(
            "sleep {marker} & (trap '' TERM HUP; sleep {marker} &) ; \
             perl -e 'setpgrp(0, 0); exec \"sleep\", \"{marker}\"' & echo started"
        );
        let limits = Limits { timeout: Duration::from_secs(60), ..Limits::default() };
        let out = bash(&confinement, root.path(), &script, limits);
        assert_eq!((out.ended, text(&out.stdout)), (Ended::Exited(0), "started\n".into()), "{}", text(&out.stderr));
        assert!(out.duration < Duration::from_secs(20), "{}: {:?}", confinement.kind(), out.duration);
        assert_eq!(survivors(&marker), Vec::<String>::new(), "{}: still running after the program", confinement.kind());
    }
}

/// The processes with `marker` in their command line, once the kernel has had a moment
/// to reap what was killed.
fn survivors(marker: &str) -> Vec<String> {
    let mut survivors = Vec::new();
    for _ in 0..50 {
        survivors = processes_with(marker);
        if survivors.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    survivors
}

/// The PIDs of processes whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().chars().all(|c| c.is_ascii_digit()))
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .map(|c| String::from_utf8_lossy(&c).replace('\0', " ").contains(needle))
                .unwrap_or(false)
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// A file past `RLIMIT_FSIZE` is stopped, in the root's overlay (bubblewrap) or in the
/// scratch directory (Landlock, which refuses writes to the root). Under bubblewrap the
/// scratch tmpfs is also full at its size; Landlock has no such bound (the module note
/// says so).
#[test]
fn a_file_past_the_size_cap_is_stopped_and_so_is_filling_the_scratch() {
    for confinement in confinements() {
        let root = repository();
        let before = snapshot(root.path());
        let limits = Limits { file_size: 1 << 20, scratch: 4 << 20, ..Limits::default() };
        let dir = if confinement.kind() == Kind::Bwrap { "." } else { "$TMPDIR" };
        let script = format!("head -c 8M /dev/zero > {dir}/big && echo wrote-big; ls -l {dir}/big; echo next");
        let out = bash(&confinement, root.path(), &script, limits);
        assert!(!text(&out.stdout).contains("wrote-big"), "{}", text(&out.stdout));
        assert!(text(&out.stdout).contains(" 1048576 "), "{}", text(&out.stdout));
        assert!(text(&out.stdout).contains("next"));
        if confinement.kind() == Kind::Bwrap {
            let script = "for i in 1 2 3 4 5 6 7 8; do head -c 900K /dev/zero > f$i || { echo full at $i; exit 3; }; \
                          done; echo all";
            let out = bash(&confinement, root.path(), script, limits);
            assert_eq!(out.ended, Ended::Exited(3), "{} {}", text(&out.stdout), text(&out.stderr));
            assert!(text(&out.stdout).starts_with("full at "), "{}", text(&out.stdout));
        }
        assert_eq!(snapshot(root.path()), before);
    }
}

#[test]
fn output_past_the_cap_ends_the_run() {
    for confinement in confinements() {
        let root = repository();
        let limits = Limits { output: 64 * 1024, ..Limits::default() };
        let out = bash(&confinement, root.path(), "head -c 5M /dev/zero | tr '\\0' x", limits);
        assert_eq!(out.ended, Ended::OutputLimit, "{}", confinement.kind());
        assert_eq!(out.stdout.len(), 64 * 1024);
    }
}

#[test]
fn a_fork_bomb_meets_the_process_cap() {
    let python = Path::new("/usr/bin/python3");
    if !python.exists() {
        eprintln!("skipped: /usr/bin/python3 is not installed");
        return;
    }
    for confinement in confinements() {
        let root = repository();
        let limits = Limits { processes: 64, ..Limits::default() };
        // Forks until refused (python does not retry as bash does), then reports how many.
        let bomb = "import os, time\nn = 0\nwhile n < 500:\n    try:\n        pid = os.fork()\n    except OSError:\n        break\n    if pid == 0:\n        time.sleep(30)\n        os._exit(0)\n    n += 1\nprint(n)";
        let args = ["-c".to_string(), bomb.to_string()];
        let job = Job {
            program: python,
            args: &args,
            root: root.path(),
            cwd: "",
            stdin: b"",
            env: &[],
            read_only: &[],
            limits,
        };
        let out = confinement.run(&job).unwrap();
        let kind = confinement.kind();
        let forked: usize = text(&out.stdout)
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{kind}: {:?} {}", out.ended, text(&out.stderr)));
        assert!(forked < 64, "{kind}: {forked} processes started under a cap of 64");
        assert!(processes_with("import os, time").is_empty(), "{kind}: the forked processes ended with the run");
    }
}

#[test]
fn stdin_exit_status_and_working_directory_pass_through() {
    for confinement in confinements() {
        let root = repository();
        let args = ["-c".to_string(), "pwd; cat; echo $CI; exit 7".to_string()];
        let job = Job {
            program: Path::new("/bin/bash"),
            args: &args,
            root: root.path(),
            cwd: "src",
            stdin: b"from stdin\n",
            env: &[("CI".to_string(), "true".to_string())],
            read_only: &[],
            limits: Limits::default(),
        };
        let out = confinement.run(&job).unwrap();
        assert_eq!(out.ended, Ended::Exited(7), "{}: {}", confinement.kind(), text(&out.stderr));
        assert_eq!(text(&out.stdout), format!("{}\nfrom stdin\ntrue\n", root.path().join("src").display()));
        let escape = Job { cwd: "../..", ..job };
        assert!(confinement.run(&escape).is_err(), "a working directory outside the root is refused");
    }
}

#[test]
fn node_runs_under_the_default_caps() {
    let Ok(node) = which::which("node") else {
        eprintln!("skipped: node is not installed");
        return;
    };
    for confinement in confinements() {
        let root = repository();
        let args = ["-e".to_string(), "console.log(require('fs').readFileSync('a.txt', 'utf8').trim())".to_string()];
        let job = Job {
            program: &node,
            args: &args,
            root: root.path(),
            cwd: "",
            stdin: b"",
            env: &[],
            read_only: &[],
            limits: Limits::default(),
        };
        let out = confinement.run(&job).unwrap();
        let kind = confinement.kind();
        assert_eq!(
            (out.ended, text(&out.stdout)),
            (Ended::Exited(0), "original\n".into()),
            "{kind}: {}",
            text(&out.stderr)
        );
    }
}

/// Descriptors the caller left open, with and without close-on-exec, never reach the
/// program: a CI runner, an editor or a wrapper script routinely leaves one open.
#[test]
fn no_descriptor_the_caller_left_open_reaches_the_program() {
    let outside = tempfile::tempdir().unwrap();
    let mut held = Vec::new();
    for (i, cloexec) in [(0, false), (1, true), (2, false), (3, false)] {
        let path = outside.path().join(format!("secret-{i}"));
        std::fs::write(&path, format!("SECRET-DESCRIPTOR-{i}\n")).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        if !cloexec {
            use std::os::fd::AsRawFd;
            // SAFETY: clears FD_CLOEXEC on a descriptor this test owns.
            assert_eq!(unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFD, 0) }, 0);
        }
        held.push(file);
    }
    for confinement in confinements() {
        let root = repository();
        let script = "for fd in $(seq 3 64); do (cat <&$fd) 2>/dev/null; done; ls /proc/self/fd | tr '\\n' ' '";
        let out = bash(&confinement, root.path(), script, Limits::default());
        let kind = confinement.kind();
        assert_eq!(out.ended, Ended::Exited(0), "{kind}: {}", text(&out.stderr));
        assert!(!text(&out.stdout).contains("SECRET-DESCRIPTOR"), "{kind}: {}", text(&out.stdout));
        // bash's own: 0, 1, 2, and the one `ls` lists /proc/self/fd with.
        let fds = text(&out.stdout).split_whitespace().count();
        assert!((3..=4).contains(&fds), "{kind}: {}", text(&out.stdout));
    }
    drop(held);
}

/// The calls Flatpak's and Docker's default filters cut are refused to a granted
/// program, which still runs: the keyrings (also the caller's session keyring, which
/// holds a key here), ptrace, perf, bpf, userfaultfd, io_uring, namespaces, mounts,
/// modules; `clone3` and the x32 ABI answer `ENOSYS`. Under Landlock, which has no
/// namespace behind it, also leaving the process group (`setsid`, `setpgid`, tried by a
/// forked child, since the program leads its group), any socket (a pair of UNIX
/// sockets still works) and pushing input into a terminal.
#[test]
#[cfg(target_arch = "x86_64")]
fn the_kernel_surface_a_program_never_needs_is_refused() {
    let Ok(python) = which::which_in("python3", Some("/usr/bin:/bin"), "/") else {
        eprintln!("skipped: no python3 in /usr/bin");
        return;
    };
    // A key in the caller's session keyring (a new one, so the test's own is untouched).
    // SAFETY: keyctl(JOIN_SESSION_KEYRING, NULL) and add_key with valid C strings.
    let key = unsafe {
        libc::syscall(libc::SYS_keyctl, 1 as libc::c_long, std::ptr::null::<libc::c_char>());
        libc::syscall(
            libc::SYS_add_key,
            c"user".as_ptr(),
            c"reviewhost-test-token".as_ptr(),
            c"SECRET-KEYRING".as_ptr(),
            14usize,
            -3 as libc::c_long,
        )
    };
    let script = r#"
import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
calls = {
    "keyctl_search": (250, 10, -3, b"user", b"reviewhost-test-token", 0),
    "keyctl_session_id": (250, 0, -3, 0),
    "add_key": (248, b"user", b"x", b"y", 1, -3),
    "request_key": (249, b"user", b"reviewhost-test-token", 0, 0),
    "ptrace": (101, 0, 0, 0, 0),
    "perf_event_open": (298, 0, 0, -1, -1, 0),
    "bpf": (321, 0, 0, 0),
    "userfaultfd": (323, 0),
    "io_uring_setup": (425, 1, 0),
    "unshare_user": (272, 0x10000000),
    "setns": (308, 0, 0),
    "mount": (165, b"none", b"/tmp", b"tmpfs", 0, 0),
    "init_module": (175, 0, 0, 0),
    "kexec_load": (246, 0, 0, 0, 0),
    "process_vm_readv": (310, 1, 0, 0, 0, 0, 0),
    "clone_newuser": (56, 0x10000000 | 17, 0, 0, 0, 0),
    "clone3": (435, 0, 0),
    "x32_keyctl": (0x40000000 + 250, 0, -3, 0),
}
out = {}
def call(nr, *args):
    args = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *args)
    return [r, ctypes.get_errno()]
for name, (nr, *args) in calls.items():
    out[name] = call(nr, *args)
# Memory RLIMIT_DATA does not count: shared anonymous mappings and memfds.
libc.mmap.restype = ctypes.c_long
ctypes.set_errno(0)
r = libc.mmap(None, ctypes.c_size_t(1 << 20), 3, 0x01 | 0x20, -1, ctypes.c_long(0))
out["mmap_shared_anonymous"] = [-1 if r == -1 else r, ctypes.get_errno()]
out["memfd_create"] = call(319, b"x", 0)
if LANDLOCK:
    import os
    # What Landlock does not mediate: System V IPC, another process's limits and
    # scheduling (here reviewhost's confinement's parent), mode and extended attributes.
    parent = os.getppid()
    out["shmget"] = call(29, 0, 4096, 0o1600)
    out["msgget"] = call(68, 0, 0o1600)
    out["semget"] = call(64, 0, 1, 0o1600)
    out["prlimit_other"] = call(302, parent, 0, 0, 0)
    out["setpriority_other"] = call(141, 0, parent, 19)
    out["sched_setaffinity_other"] = call(203, parent, 8, ctypes.byref(ctypes.c_ulong(1)))
    scratch = os.environ["TMPDIR"] + "/f"
    open(scratch, "w").close()
    out["chmod"] = call(90, scratch.encode(), 0o777)
    out["setxattr"] = call(188, scratch.encode(), b"user.x", b"y", 1, 0)
if LANDLOCK:
    import os, socket
    def in_child(nr, *args):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.write(w, json.dumps(call(nr, *args)).encode())
            os._exit(0)
        os.close(w)
        os.waitpid(pid, 0)
        return json.loads(os.read(r, 100))
    out["setsid_in_child"] = in_child(112)
    out["setpgid_in_child"] = in_child(109, 0, 0)
    out["setpgid"] = call(109, 0, 0)
    for name, family, kind in [("inet", 2, 1), ("inet_udp", 2, 2), ("inet6", 10, 1), ("unix", 1, 1),
                               ("unix_dgram", 1, 2), ("netlink", 16, 3), ("packet", 17, 3)]:
        out["socket_" + name] = call(41, family, kind, 0)
    out["socketpair_inet"] = call(53, 2, 1, 0, 0)
    out["ioctl_tiocsti"] = call(16, 0, 0x5412, 0)
    out["ioctl_tioclinux"] = call(16, 0, 0x541C, 0)
    out["socketpair_unix"] = [len(socket.socketpair()), 0]
print(json.dumps(out))
"#;
    for confinement in confinements() {
        let landlock = if confinement.kind() == Kind::Landlock { "True" } else { "False" };
        let args = ["-c".to_string(), script.replace("LANDLOCK", landlock)];
        let root = repository();
        let job = Job {
            program: &python,
            args: &args,
            root: root.path(),
            cwd: "",
            stdin: b"",
            env: &[],
            read_only: &[],
            limits: Limits::default(),
        };
        let out = confinement.run(&job).unwrap();
        let kind = confinement.kind();
        assert_eq!(out.ended, Ended::Exited(0), "{kind}: {}", text(&out.stderr));
        assert!(!text(&out.stdout).contains("SECRET-KEYRING"));
        let results: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{kind}: {}", text(&out.stdout)));
        let results = results.as_object().unwrap();
        assert_eq!(results.len(), if kind == Kind::Landlock { 42 } else { 20 }, "{kind}: {results:?}");
        for (name, result) in results {
            let expected = match name.as_str() {
                "clone3" | "x32_keyctl" => (Some(-1), Some(libc::ENOSYS as i64)),
                "socketpair_unix" => (Some(2), Some(0)),
                _ => (Some(-1), Some(libc::EPERM as i64)),
            };
            assert_eq!((result[0].as_i64(), result[1].as_i64()), expected, "{kind}: {name}: {results:?}");
        }
    }
    assert!(key > 0, "the test's own key was added");
}

/// With user namespaces made unavailable (a nested user namespace with
/// `user.max_user_namespaces` at 0, from `bwrap --disable-userns`, as an unprivileged
/// user), [`Confinement::probe`] chooses Landlock, and it holds. Where this machine has no
/// user namespaces at all, the same test runs as it is.
#[test]
fn without_user_namespaces_landlock_is_chosen_and_holds() {
    let Some(_) = confinement_of(Kind::Landlock) else { return };
    let exe = std::env::current_exe().unwrap();
    let inner = ["--exact", "landlock_where_user_namespaces_are_unavailable", "--include-ignored", "--nocapture"];
    let mut command = match confinement_of(Kind::Bwrap) {
        None => {
            let mut command = std::process::Command::new(&exe);
            command.args(inner);
            command
        }
        Some(_) => {
            let mut command = std::process::Command::new(if running_as_root() { "setpriv" } else { "bwrap" });
            if running_as_root() {
                command.args(["--reuid=1000", "--regid=1000", "--clear-groups", "--", "bwrap"]);
            }
            command.args(["--unshare-user", "--disable-userns", "--dev-bind", "/", "/", "--"]).arg(&exe).args(inner);
            command
        }
    };
    let out = command.env("TMPDIR", "/tmp").env("REVIEWHOST_INNER", "1").output().unwrap();
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).contains("1 passed"), "{}", text(&out.stdout));
}

#[test]
#[ignore = "run by without_user_namespaces_landlock_is_chosen_and_holds where user namespaces are unavailable"]
fn landlock_where_user_namespaces_are_unavailable() {
    assert!(
        std::env::var_os("REVIEWHOST_INNER").is_some(),
        "run by without_user_namespaces_landlock_is_chosen_and_holds"
    );
    let unshare = std::process::Command::new("unshare").args(["--user", "true"]).output().unwrap();
    assert!(!unshare.status.success(), "user namespaces are available here");
    let refused = Confinement::probe_kind(Kind::Bwrap).unwrap_err().to_string();
    assert!(refused.contains("user namespaces are not available"), "{refused}");
    let confinement = Confinement::probe().unwrap();
    assert_eq!(confinement.kind(), Kind::Landlock);
    assert_eq!(confinement.kind().to_string(), "landlock");

    let root = repository();
    let before = snapshot(root.path());
    let outside =
        tempfile::Builder::new().permissions(std::os::unix::fs::PermissionsExt::from_mode(0o755)).tempdir().unwrap();
    let secret = outside.path().join("secret");
    std::fs::write(&secret, "secret-canary-5190\n").unwrap();
    std::fs::set_permissions(&secret, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    std::os::unix::fs::symlink(&secret, root.path().join("planted")).unwrap();
    let script = format!(
        "cat {s} planted 2>&1; echo changed > a.txt 2>&1; rm src/b.txt 2>&1; cat a.txt; \
         exec 3<>/dev/tcp/127.0.0.1/9 && echo connected; echo t > $TMPDIR/t && cat $TMPDIR/t",
        s = secret.display()
    );
    let out = bash(&confinement, root.path(), &script, Limits::default());
    let stdout = text(&out.stdout);
    assert_eq!(out.ended, Ended::Exited(0), "{stdout}{}", text(&out.stderr));
    assert!(!stdout.contains("secret-canary-5190"), "a file outside the root was read: {stdout}");
    assert!(!stdout.contains("connected"), "{stdout}");
    assert!(stdout.ends_with("original\nt\n"), "{stdout}");
    let refused = format!("{stdout}{}", text(&out.stderr)).matches("Permission denied").count();
    assert!(refused >= 4, "{stdout}{}", text(&out.stderr));
    std::fs::remove_file(root.path().join("planted")).unwrap();
    assert_eq!(snapshot(root.path()), before, "the repository is byte-identical afterwards");
}

/// Every writable byte is bounded: bubblewrap's own tmpfs mounts (`/`, `/dev`) are
/// read-only and `/dev/shm` is a small tmpfs of its own; under Landlock none of them is
/// writable at all.
#[test]
fn nothing_outside_the_scratch_takes_memory() {
    for confinement in confinements() {
        let root = repository();
        let script = "for p in /x /dev/x /usr/x; do (echo x > $p) 2>/dev/null && echo wrote $p; done; \
                      head -c 100000000 /dev/zero > /dev/shm/big 2>/dev/null; \
                      stat -c %s /dev/shm/big 2>/dev/null || echo no-shm";
        let out = bash(&confinement, root.path(), script, Limits::default());
        let kind = confinement.kind();
        let printed = text(&out.stdout);
        assert!(!printed.contains("wrote"), "{kind}: {printed}");
        let held: u64 = printed.lines().last().and_then(|l| l.trim().parse().ok()).unwrap_or(0);
        assert!(held <= 64 << 20, "{kind}: /dev/shm held {held} bytes");
    }
}
