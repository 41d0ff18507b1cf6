//! Hostile programs under a grant: each tries to escape one layer of the confinement
//! and must be contained, with the host unchanged.
//!
//! They need bubblewrap and unprivileged user namespaces. Without them each test prints
//! why and skips, unless `REVIEWHOST_REQUIRE_CONFINEMENT` is set (as `.ci/run` does),
//! which makes a missing layer a failure.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use reviewhost_confine::{Confinement, Ended, Job, Limits, Outcome};

fn confinement() -> Option<Confinement> {
    match Confinement::probe() {
        Ok(confinement) => Some(confinement),
        Err(e) if std::env::var_os("REVIEWHOST_REQUIRE_CONFINEMENT").is_none() => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
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
/// confinement started by root runs as nobody (see the next test).
#[test]
fn writes_to_the_root_are_thrown_away() {
    let Some(_) = confinement() else { return };
    let root = repository();
    if !running_as_root() {
        return writes_through_the_overlay(root.path());
    }
    let owned = std::process::Command::new("chown").args(["-R", "1000:1000"]).arg(root.path()).status().unwrap();
    assert!(owned.success());
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=1000", "--regid=1000", "--clear-groups", "--"])
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", "writes_as_the_owner_of_the_checkout", "--include-ignored", "--nocapture"])
        .env("REVIEWHOST_ROOT", root.path())
        .env("TMPDIR", "/tmp")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).contains("1 passed"), "{}", text(&out.stdout));
}

#[test]
#[ignore = "run by writes_to_the_root_are_thrown_away as the checkout's owner"]
fn writes_as_the_owner_of_the_checkout() {
    writes_through_the_overlay(Path::new(&std::env::var("REVIEWHOST_ROOT").unwrap()));
}

fn writes_through_the_overlay(root: &Path) {
    let confinement = confinement().expect("the confinement is available");
    let before = snapshot(root);
    let script = "echo changed > a.txt && rm src/b.txt && mkdir -p cache/x && echo y > cache/x/y && cat a.txt && ls";
    let out = bash(&confinement, root, script, Limits::default());
    assert_eq!(out.ended, Ended::Exited(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "changed\na.txt\ncache\nsrc\n", "the program saw its own writes");
    assert_eq!(snapshot(root), before, "the repository is byte-identical afterwards");
}

/// Started by root, the program runs as nobody: it reads the checkout, cannot write
/// root's files even through the overlay, and the checkout stays the same.
#[test]
fn started_by_root_the_program_is_nobody() {
    let Some(confinement) = confinement() else { return };
    if !running_as_root() {
        eprintln!("skipped: not running as root");
        return;
    }
    let root = repository();
    let before = snapshot(root.path());
    let out = bash(
        &confinement,
        root.path(),
        "id -u; cat a.txt; echo x > a.txt || echo refused; touch /tmp/t $HOME/h && echo tmp-ok",
        Limits::default(),
    );
    assert_eq!(text(&out.stdout), "0\noriginal\nrefused\ntmp-ok\n", "{}", text(&out.stderr));
    assert_eq!(snapshot(root.path()), before);
}

#[test]
fn files_outside_the_root_are_not_there() {
    let Some(confinement) = confinement() else { return };
    let root = repository();
    let outside = tempfile::tempdir().unwrap();
    let canary = outside.path().join("canary");
    std::fs::write(&canary, "secret-canary-7731\n").unwrap();
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let script = format!(
        "cat {c} 2>&1; cat {r}/../$(basename {o})/canary 2>&1; ls -A {h} 2>&1; ls /home 2>&1; cat /etc/shadow 2>&1; echo done",
        c = canary.display(),
        r = root.path().display(),
        o = outside.path().display(),
        h = home,
    );
    let out = bash(&confinement, root.path(), &script, Limits::default());
    let stdout = text(&out.stdout);
    assert!(stdout.ends_with("done\n"), "{stdout}\n{}", text(&out.stderr));
    assert!(!stdout.contains("secret-canary-7731"), "a file outside the root was read: {stdout}");
    assert!(stdout.matches("No such file or directory").count() >= 4, "{stdout}");
}

#[test]
fn there_is_no_network() {
    let Some(confinement) = confinement() else { return };
    let root = repository();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected; getent hosts example.com; echo done");
    let out = bash(&confinement, root.path(), &script, Limits::default());
    assert!(text(&out.stdout).ends_with("done\n"), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("connected"), "{}", text(&out.stdout));
    assert!(listener.accept().is_err(), "the host's listener got a connection");
}

#[test]
fn the_operators_environment_is_not_visible() {
    let Some(_) = confinement() else { return };
    let root = repository();
    // A child test process whose environment holds a token runs the confined script.
    let outcome = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "print_environment_of_a_confined_bash", "--nocapture", "--include-ignored"])
        .env("REVIEWHOST_TEST_TOKEN", "ghp_canary_4412")
        .env("REVIEWHOST_ROOT", root.path())
        .env("REVIEWHOST_SCRIPT", "env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; echo done")
        .output()
        .unwrap();
    assert!(outcome.status.success(), "{}", text(&outcome.stderr));
    let out = text(&outcome.stdout);
    assert!(out.contains("confined says: ") && out.contains("done"), "{out}");
    assert!(!out.contains("ghp_canary_4412"), "the operator's token reached the program: {out}");
}

/// Run by [`the_operators_environment_is_not_visible`] in a child test process whose
/// environment holds a token.
#[test]
#[ignore = "run by the_operators_environment_is_not_visible"]
fn print_environment_of_a_confined_bash() {
    let Some(confinement) = confinement() else { return };
    let root = PathBuf::from(std::env::var("REVIEWHOST_ROOT").unwrap());
    assert_eq!(std::env::var("REVIEWHOST_TEST_TOKEN").as_deref(), Ok("ghp_canary_4412"));
    let out = bash(&confinement, &root, &std::env::var("REVIEWHOST_SCRIPT").unwrap(), Limits::default());
    println!("confined says: {}", text(&out.stdout));
}

#[test]
fn processes_that_outlive_the_deadline_are_killed() {
    let Some(confinement) = confinement() else { return };
    let root = repository();
    let marker = "98765.4321";
    let script =
        format!("sleep {marker} & setsid sleep {marker} & (trap '' TERM HUP; sleep {marker}) & sleep {marker}");
    let limits = Limits { timeout: Duration::from_millis(800), ..Limits::default() };
    let out = bash(&confinement, root.path(), &script, limits);
    assert_eq!(out.ended, Ended::TimedOut);
    // The PID namespace ends with bwrap: give the kernel a moment to reap it.
    let mut survivors = Vec::new();
    for _ in 0..50 {
        survivors = processes_with(marker);
        if survivors.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(survivors.is_empty(), "still running after the deadline: {survivors:?}");
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

#[test]
fn a_file_past_the_size_cap_is_stopped_and_so_is_filling_the_scratch() {
    let Some(confinement) = confinement() else { return };
    let root = repository();
    let before = snapshot(root.path());
    let limits = Limits { file_size: 1 << 20, scratch: 4 << 20, ..Limits::default() };
    let out = bash(&confinement, root.path(), "head -c 8M /dev/zero > big && echo wrote-big; echo next", limits);
    assert!(!text(&out.stdout).contains("wrote-big"), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("next"));
    let script =
        "for i in 1 2 3 4 5 6 7 8; do head -c 900K /dev/zero > f$i || { echo full at $i; exit 3; }; done; echo all";
    let out = bash(&confinement, root.path(), script, limits);
    assert_eq!(out.ended, Ended::Exited(3), "{} {}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).starts_with("full at "), "{}", text(&out.stdout));
    assert_eq!(snapshot(root.path()), before);
}

#[test]
fn output_past_the_cap_ends_the_run() {
    let Some(confinement) = confinement() else { return };
    let root = repository();
    let limits = Limits { output: 64 * 1024, ..Limits::default() };
    let out = bash(&confinement, root.path(), "head -c 5M /dev/zero | tr '\\0' x", limits);
    assert_eq!(out.ended, Ended::OutputLimit);
    assert_eq!(out.stdout.len(), 64 * 1024);
}

#[test]
fn a_fork_bomb_meets_the_process_cap() {
    let Some(confinement) = confinement() else { return };
    let python = Path::new("/usr/bin/python3");
    if !python.exists() {
        eprintln!("skipped: /usr/bin/python3 is not installed");
        return;
    }
    let root = repository();
    let limits = Limits { processes: 64, ..Limits::default() };
    // Forks until refused (python does not retry as bash does), then reports how many.
    let bomb = "import os, time\nn = 0\nwhile n < 500:\n    try:\n        pid = os.fork()\n    except OSError:\n        break\n    if pid == 0:\n        time.sleep(30)\n        os._exit(0)\n    n += 1\nprint(n)";
    let args = ["-c".to_string(), bomb.to_string()];
    let job =
        Job { program: python, args: &args, root: root.path(), cwd: "", stdin: b"", env: &[], read_only: &[], limits };
    let out = confinement.run(&job).unwrap();
    let forked: usize =
        text(&out.stdout).trim().parse().unwrap_or_else(|_| panic!("{:?} {}", out.ended, text(&out.stderr)));
    assert!(forked < 64, "{forked} processes started under a cap of 64");
    assert!(processes_with("import os, time").is_empty(), "the forked processes ended with the run");
}

#[test]
fn stdin_exit_status_and_working_directory_pass_through() {
    let Some(confinement) = confinement() else { return };
    let root = repository();
    let args = ["-c".to_string(), "pwd; cat; exit 7".to_string()];
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
    assert_eq!(out.ended, Ended::Exited(7));
    assert_eq!(text(&out.stdout), format!("{}\nfrom stdin\n", root.path().join("src").display()));
    let escape = Job { cwd: "../..", ..job };
    assert!(confinement.run(&escape).is_err(), "a working directory outside the root is refused");
}

#[test]
fn node_runs_under_the_default_caps() {
    let Some(confinement) = confinement() else { return };
    let Ok(node) = which::which("node") else {
        eprintln!("skipped: node is not installed");
        return;
    };
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
    assert_eq!((out.ended, text(&out.stdout)), (Ended::Exited(0), "original\n".to_string()), "{}", text(&out.stderr));
}

/// Descriptors the caller left open, with and without close-on-exec, never reach the
/// program: a CI runner, an editor or a wrapper script routinely leaves one open.
#[test]
fn no_descriptor_the_caller_left_open_reaches_the_program() {
    let Some(confinement) = confinement() else { return };
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
    let root = repository();
    let script = "for fd in $(seq 3 64); do (cat <&$fd) 2>/dev/null; done; ls /proc/self/fd | tr '\\n' ' '";
    let out = bash(&confinement, root.path(), script, Limits::default());
    assert_eq!(out.ended, Ended::Exited(0), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("SECRET-DESCRIPTOR"), "{}", text(&out.stdout));
    // bash's own: 0, 1, 2, and the one `ls` lists /proc/self/fd with.
    let fds = text(&out.stdout).split_whitespace().count();
    assert!(fds <= 4, "{}", text(&out.stdout));
    drop(held);
}

/// The calls Flatpak's and Docker's default filters cut are refused to a granted
/// program, which still runs: the keyrings (also the caller's session keyring, which
/// holds a key here), ptrace, perf, bpf, userfaultfd, io_uring, namespaces, mounts,
/// modules; `clone3` and the x32 ABI answer `ENOSYS`.
#[test]
#[cfg(target_arch = "x86_64")]
fn the_kernel_surface_a_program_never_needs_is_refused() {
    let Some(confinement) = confinement() else { return };
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
for name, (nr, *args) in calls.items():
    args = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *args)
    out[name] = [r, ctypes.get_errno()]
print(json.dumps(out))
"#;
    let args = ["-c".to_string(), script.to_string()];
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
    assert_eq!(out.ended, Ended::Exited(0), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("SECRET-KEYRING"));
    let results: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out.stdout)));
    for (name, result) in results.as_object().unwrap() {
        let expected = if name == "clone3" || name == "x32_keyctl" { libc::ENOSYS } else { libc::EPERM };
        assert_eq!((result[0].as_i64(), result[1].as_i64()), (Some(-1), Some(expected as i64)), "{name}: {results}");
    }
    assert!(key > 0, "the test's own key was added");
}
