//! The hostile suite: one `custom` assertion per attack on the sandbox, all in one file
//! beside ordinary assertions, run by the real `reviewhost` binary.
//!
//! For every attack the test asserts the exact contained outcome (refused, or which
//! error, within which time), that the host survived and reported every assertion, that
//! the ordinary assertions kept their correct verdicts, and that nothing outside the
//! root, and nothing inside it, was read into a verdict or changed on disk (sentinel
//! files with their hashes, sizes, modes and mtimes).

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::components;
use crate::support::*;

/// What an attack must end as.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// The sandbox refused: the validator reports `refused: …` (status pass).
    Refused,
    /// Status `error` with this in the message.
    Error(&'static str),
    /// Status `fail`, with the verdict cut down to the host's caps.
    Capped,
}

use Expect::*;

/// Every attack of the hostile validator and how it must end.
const ATTACKS: &[(&str, Expect)] = &[
    ("fs.dotdot_read", Refused),
    ("fs.dotdot_list", Refused),
    ("fs.root_parent", Refused),
    ("fs.absolute_outside", Refused),
    ("fs.etc_passwd", Refused),
    ("fs.symlink_file_relative", Refused),
    ("fs.symlink_file_absolute", Refused),
    ("fs.symlink_dir", Refused),
    ("fs.symlink_dir_list", Refused),
    ("fs.symlink_chain", Refused),
    ("fs.symlink_loop", Refused),
    ("fs.proc_self", Refused),
    ("fs.dev_urandom", Refused),
    ("fs.dev_null_write", Refused),
    ("fs.long_path", Refused),
    ("fs.long_name", Refused),
    ("fs.create", Refused),
    ("fs.write", Refused),
    ("fs.append", Refused),
    ("fs.truncate", Refused),
    ("fs.delete", Refused),
    ("fs.rename", Refused),
    ("fs.mkdir", Refused),
    ("fs.rmdir", Refused),
    ("fs.chmod", Refused),
    ("fs.set_times", Refused),
    ("fs.open_dir_write", Refused),
    ("fs.symlink_create", Refused),
    ("fs.hardlink_create", Refused),
    ("fs.write_outside", Refused),
    ("fs.hardlink_write", Refused),
    ("fs.raw_open_parent", Refused),
    ("fs.raw_open_write", Refused),
    ("fs.raw_mutate_directory", Refused),
    ("net.tcp_connect", Refused),
    ("net.tcp_listen", Refused),
    ("net.udp_send", Refused),
    ("net.dns", Refused),
    ("env.vars", Refused),
    ("env.args", Refused),
    ("env.cwd_outside", Refused),
    ("env.stdin", Refused),
    ("mem.residue", Refused),
    ("proc.exit_0", Error("exited with status 0 instead of returning a verdict")),
    ("proc.exit_1", Error("exited with status 1 instead of returning a verdict")),
    ("proc.exit_odd", Error("instead of returning a verdict")),
    ("proc.abort", Error("check crashed")),
    ("proc.panic", Error("hostile panic")),
    ("res.spin", Error("timed out after 4 s")),
    ("res.recursion", Error("check crashed")),
    ("res.memory_growth", Error("memory limit 256 MiB exceeded")),
    ("res.huge_alloc", Error("memory limit 256 MiB exceeded")),
    ("res.stdout_flood", Error("output limit")),
    ("res.stderr_flood", Error("output limit")),
    ("res.random_hot", Error("timed out after 4 s")),
    ("res.clock_hot", Error("timed out after 4 s")),
    ("res.verdict_100mb", Capped),
    ("res.evidence_millions", Capped),
    // wasmtime's hostcall fuel stops a guest that makes the host copy far more than its
    // own memory holds (200,000 entries aliasing one 1 MiB string).
    ("res.evidence_aliased", Error("too much data is being copied between the host and the guest")),
];

/// The deadline the suite runs under, and the slack a loaded 2-core machine needs. At
/// 2 s, building two million evidence entries (`res.evidence_millions`) timed out on a
/// 2-core machine that was also compiling.
const TIMEOUT: Duration = Duration::from_secs(4);
const SLACK: Duration = Duration::from_millis(2500);

/// base/root is the repository; base/outside holds the sentinels.
struct Fortress {
    _dir: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
    sentinel: PathBuf,
}

fn fortress() -> Fortress {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (root, outside) = (base.join("root"), base.join("outside"));
    std::fs::create_dir_all(root.join("empty-dir")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let sentinel = outside.join("sentinel.txt");
    std::fs::write(&sentinel, "SENTINEL-SECRET outside the root\n").unwrap();
    std::fs::write(outside.join("hardlinked.txt"), "HARDLINKED-SECRET\n").unwrap();
    std::fs::write(root.join("victim.txt"), "victim\n").unwrap();
    std::fs::write(root.join("ok.txt"), "fine\n").unwrap();
    symlink("../outside/sentinel.txt", root.join("link-out-rel")).unwrap();
    symlink(&sentinel, root.join("link-out-abs")).unwrap();
    symlink("../outside", root.join("link-dir-out")).unwrap();
    symlink("chain2", root.join("chain1")).unwrap();
    symlink("chain3", root.join("chain2")).unwrap();
    symlink("../outside/sentinel.txt", root.join("chain3")).unwrap();
    symlink("loop2", root.join("loop1")).unwrap();
    symlink("loop1", root.join("loop2")).unwrap();
    std::fs::hard_link(outside.join("hardlinked.txt"), root.join("hardlink")).unwrap();
    let odd: &std::ffi::OsStr = std::os::unix::ffi::OsStrExt::from_bytes(b"odd-\xff-name");
    std::fs::write(root.join(odd), "x").unwrap();
    Fortress { _dir: dir, base, root, sentinel }
}

/// Every file and link under `dir`: content hash, size, mode, mtime, link target.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut seen = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let what = if meta.file_type().is_symlink() {
                format!("link {}", std::fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                stack.push(path.clone());
                "dir".to_string()
            } else {
                sha256(&path)
            };
            seen.insert(path, format!("{what} size={} mode={:o} mtime={}", meta.len(), meta.mode(), meta.mtime_nsec()));
        }
    }
    seen
}

fn attack(id: &str, attack: &str, fortress: &Fortress, port: u16) -> Value {
    json!({"id": id, "type": "custom", "description": attack, "component": components::HOSTILE,
           "config": {"attack": attack, "outside": fortress.sentinel, "port": port}})
}

#[test]
fn every_attack_is_contained() {
    let fortress = fortress();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();

    let mut assertions = vec![json!({"id": "OK-1", "type": "file_content", "path": "ok.txt", "needle": "fine"})];
    for (i, (name, _)) in ATTACKS.iter().enumerate() {
        assertions.push(attack(&format!("H-{i:02}"), name, &fortress, port));
    }
    assertions.push(json!({"id": "INIT-SPIN", "type": "custom", "component": components::INIT_SPIN}));
    assertions.push(json!({"id": "INIT-TRAP", "type": "custom", "component": components::INIT_TRAP}));
    assertions.push(json!({"id": "OK-2", "type": "grep_match", "command": "grep -rn fine ok.txt"}));
    assertions.push(json!({"id": "FAIL-1", "type": "file_exists", "path": "missing.txt"}));
    // The assertions file lives beside the root, so the root's snapshot covers the root only.
    let file = assertions_file(&fortress.base, Value::Array(assertions));
    let before_root = snapshot(&fortress.root);
    let before_outside = snapshot(&fortress.base.join("outside"));

    let out = run(&file, &fortress.root, &["--format", "json", "--timeout", "4s", "--jobs", "2", "--no-write"]);
    assert_eq!(out.status.code(), Some(1), "the host survived and reported failures\n{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), ATTACKS.len() + 5, "every assertion was reported");
    let by_id = |id: &str| results.iter().find(|r| r["id"] == id).unwrap();

    let mut broken = Vec::new();
    for (i, (name, expect)) in ATTACKS.iter().enumerate() {
        let r = by_id(&format!("H-{i:02}"));
        let (status, message) = (r["status"].as_str().unwrap(), r["message"].as_str().unwrap());
        let took = Duration::from_secs_f64(r["duration_ms"].as_f64().unwrap() / 1e3);
        let contained = match expect {
            Refused => status == "pass" && message.starts_with("refused: "),
            Error(says) => status == "error" && message.contains(says),
            Capped => {
                status == "fail"
                    && message.chars().count() <= 4096 + 40
                    && r["evidence"].as_array().unwrap().len() <= 100
                    && r["evidence"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|e| e["text"].as_str().unwrap().chars().count() <= 512)
            }
        };
        if !contained || took > TIMEOUT + SLACK {
            broken.push(format!("{name}: expected {expect:?}, got {status} in {took:?}: {}", cut(message)));
        }
        for secret in ["SENTINEL-SECRET", "HARDLINKED-SECRET", "root:x:0:0"] {
            assert!(!message.contains(secret), "{name} read a secret: {}", cut(message));
        }
    }
    assert!(broken.is_empty(), "{} of {} attacks not contained:\n{}", broken.len(), ATTACKS.len(), broken.join("\n"));

    for (id, says) in [("INIT-SPIN", "timed out after 4 s"), ("INIT-TRAP", "")] {
        let r = by_id(id);
        assert_eq!(r["status"], "error", "{id}: {r}");
        assert!(r["message"].as_str().unwrap().contains(says), "{id}: {r}");
    }
    assert_eq!(by_id("OK-1")["status"], "pass");
    assert_eq!(by_id("OK-2")["status"], "pass");
    assert_eq!(by_id("FAIL-1")["status"], "fail");

    assert_eq!(snapshot(&fortress.root), before_root, "nothing in the root changed");
    assert_eq!(snapshot(&fortress.base.join("outside")), before_outside, "nothing outside the root changed");
    assert!(listener.accept().is_err(), "no connection reached the loopback listener");
}

fn cut(text: &str) -> String {
    text.chars().take(300).collect()
}

/// Artifacts that are not usable components: each ends its assertion as `error`
/// before anything runs, and the rest of the file is evaluated.
#[test]
fn malformed_artifacts_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let wasm = std::fs::read(components::HOSTILE).unwrap();
    std::fs::write(root.join("truncated.wasm"), &wasm[..wasm.len() / 2]).unwrap();
    std::fs::write(root.join("core-module.wasm"), b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(root.join("empty.wasm"), b"").unwrap();
    let noise: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(root.join("noise.wasm"), &noise).unwrap();
    // A component header, then noise: the parser must reject it, not trust it.
    std::fs::write(root.join("header-noise.wasm"), [&b"\0asm\x0d\0\x01\0"[..], &noise].concat()).unwrap();
    let engine = wasmtime::Engine::default();
    std::fs::write(root.join("precompiled.wasm"), engine.precompile_component(&wasm).unwrap()).unwrap();
    std::fs::write(root.join("ok.txt"), "fine\n").unwrap();
    let cases = [
        ("truncated.wasm", "not a valid component"),
        ("core-module.wasm", "a core WebAssembly module, not a component"),
        ("empty.wasm", "not a WebAssembly file"),
        ("noise.wasm", "not a WebAssembly file"),
        ("header-noise.wasm", "not a valid component"),
        ("precompiled.wasm", "a precompiled native artifact, not a WebAssembly file (never loaded)"),
    ];
    let mut assertions: Vec<Value> = cases
        .iter()
        .map(|(file, _)| json!({"id": file, "type": "custom", "component": file, "config": {"attack": "fs.create"}}))
        .collect();
    assertions.push(json!({"id": "OK", "type": "file_content", "path": "ok.txt", "needle": "fine"}));
    let file = assertions_file(root, Value::Array(assertions));
    let out = run(&file, root, &["--format", "json", "--no-write"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (name, says) in cases {
        let r = report["results"].as_array().unwrap().iter().find(|r| r["id"] == name).unwrap();
        assert_eq!(r["status"], "error", "{name}: {r}");
        assert!(r["message"].as_str().unwrap().contains(says), "{name}: {r}");
    }
    assert_eq!(report["results"].as_array().unwrap().last().unwrap()["status"], "pass");
}

/// A hard link in the root to a file outside it is the same file, not a path out: the
/// sandbox reads it as part of the root (documented), and still never writes it.
#[test]
fn a_hard_link_in_the_root_is_read_as_root_content_and_never_written() {
    let fortress = fortress();
    let file = assertions_file(
        &fortress.base,
        json!([
            {"id": "READ", "type": "file_content", "path": "hardlink", "needle": "HARDLINKED-SECRET"},
            attack("WRITE", "fs.hardlink_write", &fortress, 9),
        ]),
    );
    let before = snapshot(&fortress.base.join("outside"));
    let out = run(&file, &fortress.root, &["--format", "json", "--no-write"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["results"][0]["status"], "pass", "{report}");
    assert_eq!(report["results"][1]["status"], "pass", "{report}");
    assert!(report["results"][1]["message"].as_str().unwrap().starts_with("refused: "));
    assert_eq!(snapshot(&fortress.base.join("outside")), before);
}

/// TOCTOU: while runs walk and read the root, another thread keeps exchanging a real
/// directory with a symlink to the outside (atomically, `renameat2(RENAME_EXCHANGE)`).
/// Whatever a walk or read sees at any moment, nothing outside the root is ever read.
#[test]
fn a_symlink_swapped_in_during_a_walk_never_lets_a_read_escape() {
    let fortress = fortress();
    let root = fortress.root.clone();
    std::fs::create_dir(root.join("swap")).unwrap();
    std::fs::write(root.join("swap/sentinel.txt"), "harmless\n").unwrap();
    symlink("../outside", root.join("staging")).unwrap();
    let file = assertions_file(
        &fortress.base,
        json!([
            {"id": "GREP", "type": "grep_not_match", "command": "grep -r SENTINEL-SECRET ."},
            {"id": "RG", "type": "grep_not_match", "command": "rg -uu SENTINEL-SECRET"},
            {"id": "CAT", "type": "grep_not_match", "command": "cat swap/sentinel.txt staging/sentinel.txt"},
            {"id": "FIND", "type": "grep_match", "command": "find . -name '*.txt'"},
            {"id": "CONTENT", "type": "file_content", "path": "swap/sentinel.txt", "needle": "SENTINEL-SECRET"},
            {"id": "PROBE", "type": "custom", "component": components::PROBE,
             "config": {"list": ["swap", "staging"], "read": ["swap/sentinel.txt", "staging/sentinel.txt"]}}
        ]),
    );

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (stop, root) = (stop.clone(), root.clone());
        std::thread::spawn(move || {
            let (a, b) = (path_c(&root.join("swap")), path_c(&root.join("staging")));
            let mut swaps = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                // SAFETY: two valid NUL-terminated paths; the call only renames.
                let rc = unsafe {
                    libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE)
                };
                assert_eq!(rc, 0, "renameat2: {}", std::io::Error::last_os_error());
                swaps += 1;
            }
            swaps
        })
    };
    let mut runs = 0;
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_secs(4) || runs < 10 {
        let out = run(&file, &root, &["--format", "json", "--no-write", "--jobs", "2"]);
        let text = stdout(&out);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
        assert!(!text.contains("SENTINEL-SECRET outside"), "run {runs} read outside the root:\n{text}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_ne!(report["results"][4]["status"], "pass", "CONTENT found the outside secret");
        runs += 1;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    eprintln!("TOCTOU: {runs} runs during {swaps} swaps");
    assert!(swaps > 1000, "the swapper ran ({swaps} swaps)");
}

fn path_c(path: &Path) -> std::ffi::CString {
    std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str())).unwrap()
}

/// Issue 15 item 6: device nodes, sockets and FIFOs in the root (a tree extracted as root
/// holds them) are refused to a validator opening them through plain WASI, as the built-in
/// checks refuse them: not one byte of a device is read, and nothing blocks. Each attack
/// must end `refused: … Permission denied` (WASI `access`, what the kernel answers for a
/// device on a `nodev` mount); before, `/dev/zero`'s twin was read and the FIFO blocked.
#[test]
fn device_nodes_and_sockets_in_the_root_are_refused_to_validators() {
    let fortress = fortress();
    let root = &fortress.root;
    // /dev/zero's numbers (harmless to open and endless) and loop0's (a block device).
    for (name, kind, major, minor) in [("char-dev", libc::S_IFCHR, 1, 5), ("block-dev", libc::S_IFBLK, 7, 0)] {
        let path = path_c(&root.join(name));
        // SAFETY: a valid NUL-terminated path; mknod only creates the node.
        if unsafe { libc::mknod(path.as_ptr(), kind | 0o600, libc::makedev(major, minor)) } != 0 {
            let error = std::io::Error::last_os_error();
            eprintln!("skipped: cannot make device nodes here (mknod: {error}); this test needs root");
            return;
        }
    }
    if let Err(e) = std::fs::File::open(root.join("char-dev")) {
        eprintln!("skipped: the temporary directory does not allow opening device nodes ({e}): nothing to refuse");
        return;
    }
    let _socket = std::os::unix::net::UnixListener::bind(root.join("socket")).unwrap();
    let fifo = path_c(&root.join("fifo"));
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the FIFO.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0, "mkfifo: {}", std::io::Error::last_os_error());
    symlink("char-dev", root.join("link-char-dev")).unwrap();

    let attacks = [
        "fs.char_device",
        "fs.block_device",
        "fs.socket",
        "fs.fifo",
        "fs.char_device_symlink",
        "fs.raw_open_char_device",
    ];
    let mut assertions: Vec<Value> = attacks.iter().map(|name| attack(name, name, &fortress, 9)).collect();
    assertions.push(json!({"id": "OK", "type": "file_content", "path": "ok.txt", "needle": "fine"}));
    let file = assertions_file(&fortress.base, Value::Array(assertions));
    let out = run(&file, root, &["--format", "json", "--timeout", "4s", "--jobs", "2", "--no-write"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr(&out)));
    let by_id = |id: &str| report["results"].as_array().unwrap().iter().find(|r| r["id"] == id).unwrap().clone();
    let mut broken = Vec::new();
    for name in attacks {
        let r = by_id(name);
        let message = r["message"].as_str().unwrap();
        if !(r["status"] == "pass" && message.starts_with("refused: ") && message.contains("Permission denied")) {
            broken.push(format!("{name}: {} {}", r["status"], cut(message)));
        }
    }
    assert!(broken.is_empty(), "special files not refused:\n{}", broken.join("\n"));
    assert_eq!(by_id("OK")["status"], "pass");
}
