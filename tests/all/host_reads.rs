//! What the host itself opens on an assertion's behalf, attacked: a validator's `paths`
//! directory swapped after planning, component files that are special, endless or
//! outside the root, an assertions file that is a device, and a compiled-component
//! cache planted inside the reviewed tree. Each test failed on 2efaaa9.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use reviewhost::assertion;
use reviewhost::check::{Checks, Site};
use reviewhost::sandbox::{Limits, RootDir, Sandbox};
use serde_json::{Value, json};

use crate::components;
use crate::support::*;

/// A root with `sub/` (a harmless file), an outward symlink `staging -> ../outside`,
/// and a sentinel file outside whose name and content must never be seen.
struct Tree {
    _dir: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
}

const SECRET_NAME: &str = "outside-secret-name.txt";

fn tree() -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (root, outside) = (base.join("root"), base.join("outside"));
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("sub/inside.txt"), "inside\n").unwrap();
    std::fs::write(outside.join(SECRET_NAME), "SENTINEL-SECRET\n").unwrap();
    std::os::unix::fs::symlink("../outside", root.join("staging")).unwrap();
    Tree { _dir: dir, base, root }
}

/// Exchanges two names atomically (`renameat2(RENAME_EXCHANGE)`).
fn exchange(a: &Path, b: &Path) {
    let c = |p: &Path| std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str())).unwrap();
    let (a, b) = (c(a), c(b));
    // SAFETY: two valid NUL-terminated paths; the call only renames.
    let rc = unsafe { libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE) };
    assert_eq!(rc, 0, "renameat2: {}", std::io::Error::last_os_error());
}

/// A probe that lists `sub` and reads `sub/inside.txt` (and the secret's name under it),
/// seeing only `sub`.
fn narrowed_probe(id: &str) -> Value {
    json!({"id": id, "type": "custom", "component": components::PROBE, "paths": ["sub"],
           "config": {"list": ["sub"], "read": ["sub/inside.txt", format!("sub/{SECRET_NAME}")], "pass": true}})
}

/// Whether a probe's report shows the outside directory: the secret listed, or read
/// (its 16 bytes; `inside.txt` has 7).
fn read_outside(report: &str) -> bool {
    report.contains(&format!("list sub: {SECRET_NAME}")) || report.contains("16 bytes")
}

/// Deterministic: the directory is planned (`paths` resolved), then replaced by a
/// symlink to the outside before the check runs. The check sees the directory that was
/// planned, never what the name leads to afterwards.
#[test]
fn a_paths_directory_swapped_after_planning_is_never_followed() {
    let tree = tree();
    let doc = json!({"assertions": [narrowed_probe("N-1")]});
    let file = assertion::parse(Path::new("a.json"), doc.to_string().as_bytes()).unwrap();
    let checks = Checks::builtin(Arc::new(Sandbox::new(Limits::default(), 1, Some(cache_at(&cache_dir()))).unwrap()));
    let site = Site::new(RootDir::new(&tree.root).unwrap(), tree.base.clone());
    let plan = checks.plan(&file.assertions()[0], &site);
    exchange(&tree.root.join("sub"), &tree.root.join("staging"));
    let outcome = checks.execute(plan);
    assert!(!read_outside(&outcome.message), "read outside the root: {}", outcome.message);
    assert!(outcome.message.contains("list sub: inside.txt"), "{}", outcome.message);
    assert!(outcome.message.contains("read sub/inside.txt: 7 bytes"), "{}", outcome.message);

    // Planned while `sub` is the outward symlink: refused, nothing read.
    let outcome = checks.execute(checks.plan(&file.assertions()[0], &site));
    assert_eq!(outcome.status, assertion::Status::Error, "{}", outcome.message);
    assert!(outcome.message.contains("leads outside the sandbox root"), "{}", outcome.message);
}

/// The same race through the binary: a thread exchanges `sub` with the outward symlink
/// as fast as it can while runs of 40 narrowed validators go on (at least 20 runs and
/// 4 s; each run plans and evaluates all 40, so about 800 plan/evaluate pairs straddle
/// the swaps). Before the fix nearly every run read outside.
#[test]
fn a_paths_directory_swapped_during_runs_never_lets_a_validator_read_outside() {
    let tree = tree();
    let assertions: Vec<Value> = (0..40).map(|i| narrowed_probe(&format!("N-{i}"))).collect();
    let file = assertions_file(&tree.base, json!(assertions));
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, root) = (stop.clone(), tree.root.clone());
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                exchange(&root.join("sub"), &root.join("staging"));
                swaps += 1;
            }
            swaps
        })
    };
    let (started, mut runs, mut saw_inside) = (Instant::now(), 0, 0);
    while started.elapsed() < Duration::from_secs(4) || runs < 20 {
        let out = run(&file, &tree.root, &["--format", "json", "--no-write", "--jobs", "2"]);
        let text = stdout(&out);
        assert!(!read_outside(&text), "run {runs} read outside:\n{text}");
        saw_inside += text.matches("list sub: inside.txt").count();
        runs += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    eprintln!("paths race: {runs} runs of 40 validators during {swaps} swaps; {saw_inside} saw `sub`");
    assert!(swaps > 1000 && saw_inside > 0, "the race ran ({swaps} swaps, {saw_inside} inside)");
}

/// `reviewhost` with `args`, killed if it has not finished within `limit`.
pub fn run_within(mut command: Command, limit: Duration) -> (Output, Duration) {
    let started = Instant::now();
    let child = command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let pid = child.id() as i32;
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            let began = Instant::now();
            while !done.load(Ordering::Relaxed) && began.elapsed() < limit {
                std::thread::park_timeout(Duration::from_millis(50));
            }
            if !done.load(Ordering::Relaxed) {
                // SAFETY: signals our own child.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        })
    };
    let out = child.wait_with_output().unwrap();
    done.store(true, Ordering::Relaxed);
    watchdog.thread().unpark();
    watchdog.join().unwrap();
    let took = started.elapsed();
    assert!(took < limit, "still running after {limit:?}: killed ({})", stderr(&out));
    (out, took)
}

fn custom(id: &str, component: &str) -> Value {
    json!({"id": id, "type": "custom", "component": component, "config": {"pass": true}})
}

/// Component paths that would block, never end, or read a device: each is an error
/// of its own, at once, and the run goes on. `/proc/self/pagemap` is a "regular file"
/// of size 0 that goes on for terabytes; a FIFO blocks an open; a device is refused
/// before it is opened.
#[test]
fn component_files_that_block_or_never_end_are_refused_at_once() {
    let tree = tree();
    let fifo = tree.root.join("validators/fifo.wasm");
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    // A character device node in the tree, as a tree extracted as root has: /dev/zero's.
    let zero = tree.root.join("validators/zero.wasm");
    let made = {
        let path = std::ffi::CString::new(zero.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; makes one device node.
        unsafe { libc::mknod(path.as_ptr(), libc::S_IFCHR | 0o644, libc::makedev(1, 5)) == 0 }
    };
    if !made {
        eprintln!("mknod is not permitted here: the device node case is skipped");
        std::fs::write(&zero, b"\0asm").unwrap();
    }
    std::os::unix::fs::symlink("/proc/self/pagemap", tree.base.join("pagemap.wasm")).unwrap();
    let file = assertions_file(
        &tree.base,
        json!([
            custom("PAGEMAP", "/proc/self/pagemap"),
            custom("PAGEMAP-WASM", tree.base.join("pagemap.wasm").to_str().unwrap()),
            custom("FIFO", "validators/fifo.wasm"),
            custom("ZERO", "validators/zero.wasm"),
            {"id": "OK", "type": "file_exists", "path": "sub/inside.txt"},
        ]),
    );
    let mut command = reviewhost();
    command.arg("run").arg(&file).arg("--root").arg(&tree.root).args(["--no-write", "--format", "json"]);
    let (out, took) = run_within(command, Duration::from_secs(30));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    let results = report["results"].as_array().unwrap();
    for result in &results[..4] {
        assert_eq!(result["status"], "error", "{result}");
    }
    assert!(results[2]["message"].as_str().unwrap().contains("not a regular file (a FIFO)"), "{}", results[2]);
    if made {
        assert!(results[3]["message"].as_str().unwrap().contains("a character device"), "{}", results[3]);
    }
    assert_eq!(results[4]["status"], "pass");
    eprintln!("hostile component paths: run took {took:?}");
}

/// A component file exchanged with a FIFO while runs plan it: a FIFO opened
/// non-blocking is refused on its descriptor, so no planning thread ever waits on it.
/// 30 runs of 8 assertions while a thread exchanges the two names.
#[test]
fn a_component_swapped_for_a_fifo_during_planning_never_hangs_the_host() {
    let tree = tree();
    let dir = tree.root.join("validators");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(components::PROBE, dir.join("probe.wasm")).unwrap();
    assert!(Command::new("mkfifo").arg(dir.join("fifo")).status().unwrap().success());
    let assertions: Vec<Value> = (0..8).map(|i| custom(&format!("P-{i}"), "validators/probe.wasm")).collect();
    let file = assertions_file(&tree.base, json!(assertions));
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, dir) = (stop.clone(), dir.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                exchange(&dir.join("probe.wasm"), &dir.join("fifo"));
            }
        })
    };
    for _ in 0..30 {
        let mut command = reviewhost();
        command.arg("run").arg(&file).arg("--root").arg(&tree.root).args(["--no-write", "--jobs", "2"]);
        let (out, _) = run_within(command, Duration::from_secs(60));
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
}

/// Nothing about a path outside the root (and outside the assertions file's directory)
/// is reported: not its SHA-256, not whether it exists. A present file, a missing one,
/// `../`, and a symlink out all give the same message.
#[test]
fn components_outside_the_root_are_never_probed() {
    let tree = tree();
    let outside = tree.base.join("outside").join(SECRET_NAME);
    let secret_digest = sha256(&outside);
    std::os::unix::fs::symlink(&outside, tree.root.join("link-out.wasm")).unwrap();
    let assertions_dir = tree.root.join("state");
    std::fs::create_dir_all(&assertions_dir).unwrap();
    let pinned = |id: &str, component: &str| json!({"id": id, "type": "custom", "component": component, "sha256": "0".repeat(64), "config": {}});
    let absent = tree.base.join("outside/missing.txt");
    let components = [
        outside.to_str().unwrap().to_string(),
        absent.to_str().unwrap().to_string(),
        format!("../outside/{SECRET_NAME}"),
        "../outside/missing.txt".to_string(),
        "link-out.wasm".to_string(),
        "/etc/passwd".to_string(),
    ];
    let assertions: Vec<Value> = components.iter().enumerate().map(|(i, c)| pinned(&format!("P-{i}"), c)).collect();
    let file = assertions_file(&assertions_dir, json!(assertions));
    let out = run(&file, &tree.root, &["--format", "json", "--no-write"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!text.contains(&secret_digest), "the digest of a file outside the root was reported:\n{text}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let messages: Vec<String> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&components)
        .map(|(r, component)| {
            assert_eq!(r["status"], "error");
            r["message"].as_str().unwrap().replacen(component.as_str(), "C", 1)
        })
        .collect();
    // Present and missing are told apart by nothing.
    assert_eq!(messages[0], messages[1], "absolute present vs missing");
    assert_eq!(messages[2], messages[3], "relative present vs missing");
    assert_eq!(messages[2], messages[4], "a symlink out vs missing");
    assert!(!messages[5].contains("sha256 mismatch") && !messages[5].contains("not a"), "{}", messages[5]);
}

/// A relative component path is looked up beside the assertions file first: a file of
/// the same name that the repository ships does not replace the operator's validator.
#[test]
fn a_relative_component_beside_the_assertions_file_wins_over_the_repository() {
    let tree = tree();
    let operator = tree.base.join("ci");
    std::fs::create_dir_all(operator.join("validators")).unwrap();
    std::fs::create_dir_all(tree.root.join("validators")).unwrap();
    std::fs::copy(components::PROBE, operator.join("validators/check.wasm")).unwrap();
    // The repository's file of the same name: not a component at all.
    std::fs::write(tree.root.join("validators/check.wasm"), b"\0asm impostor").unwrap();
    let file = assertions_file(&operator, json!([custom("V-1", "validators/check.wasm")]));
    assert_eq!(statuses_of(&file, &tree.root), ["pass"]);
}

fn statuses_of(file: &Path, root: &Path) -> Vec<String> {
    let out = run(file, root, &["--format", "json", "--no-write"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    report["results"].as_array().unwrap().iter().map(|r| r["status"].as_str().unwrap().to_string()).collect()
}

/// The assertions file, committed as a symlink to `/dev/zero` (or a FIFO, or
/// `/proc/self/pagemap`), is refused at once by `run`, `validate` and `lint`, exit 2,
/// instead of being read until memory runs out.
#[test]
fn an_assertions_file_that_is_a_device_or_endless_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join(".claude/state");
    std::fs::create_dir_all(&state).unwrap();
    let default = state.join("review-assertions.json");
    let fifo = dir.path().join("fifo.json");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for target in [Path::new("/dev/zero"), Path::new("/proc/self/pagemap"), &fifo] {
        let _ = std::fs::remove_file(&default);
        std::os::unix::fs::symlink(target, &default).unwrap();
        for args in [&["run"][..], &["validate"], &["lint"]] {
            let mut command = reviewhost();
            command.current_dir(dir.path()).args(args);
            let (out, took) = run_within(command, Duration::from_secs(20));
            assert_eq!(out.status.code(), Some(2), "{args:?} on {}: {}", target.display(), stderr(&out));
            let message = stderr(&out);
            assert!(message.contains("review-assertions.json: cannot read the assertions file"), "{message}");
            assert!(took < Duration::from_secs(10), "{args:?} on {} took {took:?}", target.display());
        }
    }
}

/// A compiled-component cache inside the reviewed tree (`REVIEWHOST_CACHE_DIR` or
/// `XDG_CACHE_HOME` under the checkout, a common CI caching pattern) is never used: the
/// repository ships, under the entry name of the pinned component, the compiled code of
/// another component (one that passes). Before the fix that code ran, although the
/// component's `sha256` pin matched the honest file.
#[test]
fn a_compiled_component_cache_inside_the_root_is_never_loaded() {
    let tree = tree();
    let outside_cache = tree.base.join("cache");
    let key = tree.base.join("keys/cache.key");
    let with_cache = |cache: &Path, file: &Path| {
        let mut command = reviewhost();
        command
            .env("REVIEWHOST_CACHE_DIR", cache)
            .env("REVIEWHOST_CACHE_KEY", &key)
            .arg("run")
            .arg(file)
            .arg("--root")
            .arg(&tree.root)
            .args(["--no-write", "--format", "json", "--timeout", "1s"]);
        command.output().unwrap()
    };
    let entries = |dir: &Path| -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|d| d.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "cwasm")).collect())
            .unwrap_or_default();
        found.sort();
        found
    };
    // The honest component spins (the hostile validator's `res.spin`), so its verdict is
    // a time-out error; the probe, given the same config, passes.
    let honest = json!({"id": "SPIN", "type": "custom", "component": components::HOSTILE,
                        "sha256": sha256(Path::new(components::HOSTILE)),
                        "config": {"attack": "res.spin", "pass": true}});
    let honest_file = assertions_file(&tree.base, json!([honest]));
    with_cache(&outside_cache, &honest_file);
    let spin_entry = entries(&outside_cache).pop().expect("the spin component was cached");
    let probe_file = assertions_file(&tree.base.join("outside"), json!([custom("P", components::PROBE)]));
    with_cache(&outside_cache, &probe_file);
    let probe_entry = entries(&outside_cache).into_iter().find(|e| *e != spin_entry).expect("the probe was cached");

    // The repository ships the probe's compiled code under the spin component's name,
    // in the cache directory a CI job points inside the checkout.
    for cache in [tree.root.join(".cache/reviewhost"), tree.root.join("nested/deeper/cache")] {
        std::fs::create_dir_all(&cache).unwrap();
        std::fs::copy(&probe_entry, cache.join(spin_entry.file_name().unwrap())).unwrap();
        let out = with_cache(&cache, &honest_file);
        let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
        let result = &report["results"][0];
        assert_eq!(result["status"], "error", "the planted code ran: {result}");
        assert!(result["message"].as_str().unwrap().contains("timed out"), "{result}");
        assert!(stderr(&out).contains("inside the reviewed root"), "{}", stderr(&out));
    }
    // Outside the root, an entry renamed from another component is not loaded either
    // (its MAC covers its name).
    std::fs::copy(&probe_entry, &spin_entry).unwrap();
    let out = with_cache(&outside_cache, &honest_file);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["results"][0]["status"], "error", "a renamed entry ran: {}", report["results"][0]);
}
