//! Hostile components against the sandbox's limits. Each must end as `error` naming the
//! limit, within the limit plus slack, while the other assertions in the same file are
//! still evaluated correctly and the host keeps going.

use std::time::{Duration, Instant};

use reviewhost::RunOptions;
use reviewhost::assertion::Status;
use reviewhost::sandbox::{Limits, WATCHDOG_GRACE};
use serde_json::json;

use crate::components;
use crate::support::*;

/// Scheduling slack on a loaded 2-core CI machine.
const SLACK: Duration = Duration::from_millis(1500);

/// An assertions file with `hostile` (id `H-1`) between ordinary assertions.
fn hostile_file(dir: &std::path::Path, hostile: serde_json::Value) -> std::path::PathBuf {
    std::fs::write(dir.join("ok.txt"), "fine\n").unwrap();
    assertions_file(
        dir,
        json!([
            {"id": "OK-1", "type": "file_exists", "description": "before", "path": "ok.txt"},
            hostile,
            {"id": "OK-2", "type": "file_content", "description": "after", "path": "ok.txt", "needle": "fine"},
            {"id": "OK-3", "type": "file_exists", "description": "a real failure", "path": "missing"}
        ]),
    )
}

/// Runs a hostile file whose `H-1` (type `hostile`, path `fifo`) is evaluated by
/// `component`, `jobs` evaluations at a time; returns its message and duration, after
/// checking its neighbours.
fn run_hostile(component: &str, limits: Limits, jobs: usize, dir: &std::path::Path) -> (String, Duration) {
    let file = hostile_file(dir, json!({"id": "H-1", "type": "hostile", "description": "hostile", "path": "fifo"}));
    let mut runner = runner(limits, jobs);
    runner.checks_mut().register(&["hostile"], "hostile", &std::fs::read(component).unwrap());
    run_file(runner, file, dir)
}

/// Runs `file` and returns the hostile assertion's message and duration, after checking
/// its neighbours.
fn run_file(runner: reviewhost::Runner, file: std::path::PathBuf, dir: &std::path::Path) -> (String, Duration) {
    let report = runner
        .run(&RunOptions { file: file.clone(), root: dir.to_path_buf(), write: true, shard: None, only: None })
        .unwrap();
    let by_id = |id: &str| report.results.iter().find(|(a, _)| a.id == id).unwrap().1.clone();
    assert_eq!(by_id("OK-1").status, Status::Pass);
    assert_eq!(by_id("OK-2").status, Status::Pass);
    assert_eq!(by_id("OK-3").status, Status::Fail);
    let hostile = by_id("H-1");
    assert_eq!(hostile.status, Status::Error, "{}", hostile.message);
    assert_eq!(statuses(&file)[1], ("H-1".to_string(), "error".to_string()));
    (hostile.message, hostile.duration)
}

#[test]
fn an_infinite_loop_times_out_within_the_deadline() {
    // At 1 s and at the default: the figure issue 7 asks for is printed with --nocapture.
    for timeout in [Duration::from_secs(1), Limits::default().timeout] {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits { timeout, ..Limits::default() };
        let (message, took) = run_hostile(components::SPIN, limits, 2, dir.path());
        assert_eq!(message, format!("timed out after {} s", timeout.as_secs()));
        assert!(took >= limits.timeout && took < limits.timeout + SLACK, "took {took:?}");
        eprintln!("runaway check at a {timeout:?} timeout: error after {took:?}");
    }
}

#[test]
fn unbounded_memory_growth_hits_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { memory: 64 << 20, ..Limits::default() };
    let started = Instant::now();
    let (message, _) = run_hostile(components::BALLOON, limits, 2, dir.path());
    assert_eq!(message, "memory limit 64 MiB exceeded");
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
}

/// A host call that waits (a check sleeping an hour in `wasi:io/poll`) is where no
/// epoch deadline can fire. The watchdog abandons the evaluation and the run finishes:
/// with one thread, the assertions after the blocked one run on the thread that
/// replaces it.
#[test]
fn a_host_call_that_blocks_is_abandoned() {
    for jobs in [1, 2] {
        let dir = tempfile::tempdir().unwrap();
        let sleeper = json!({"id": "H-1", "type": "custom", "description": "hostile",
                             "component": components::HOSTILE, "config": {"attack": "res.sleep"}});
        let file = hostile_file(dir.path(), sleeper);
        let limits = Limits { timeout: Duration::from_secs(1), ..Limits::default() };
        let started = Instant::now();
        let (message, took) = run_file(runner(limits, jobs), file, dir.path());
        assert!(message.starts_with("blocked in a host call for more than 2 s"), "{message}");
        assert!(took < limits.timeout + WATCHDOG_GRACE + SLACK, "took {took:?}");
        assert!(started.elapsed() < limits.timeout + WATCHDOG_GRACE + SLACK * 2, "jobs {jobs}");
    }
}

/// Opening a FIFO would wait for a writer inside the host call: a check opening one
/// through WASI is refused before the open (`sandbox::special`), at once.
#[test]
fn a_fifo_is_refused_before_its_open_can_block() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let limits = Limits { timeout: Duration::from_secs(1), ..Limits::default() };
    let (message, took) = run_hostile(components::FIFO_READER, limits, 1, dir.path());
    assert!(message.starts_with("Permission denied"), "{message}");
    assert!(took < SLACK, "took {took:?}");
}

#[test]
fn the_command_line_limits_apply() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ok.txt"), "fine\n").unwrap();
    let file = assertions_file(dir.path(), json!([{"id": "A", "type": "file_exists", "path": "ok.txt"}]));
    let out = run(&file, dir.path(), &["--timeout", "500ms", "--memory", "32MiB", "--jobs", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
