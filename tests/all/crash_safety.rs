//! The write-back is atomic and locked: a run killed at any moment leaves the old file
//! or the new one, never a truncated mix, and concurrent runs do not interleave.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::*;

/// A file large enough that writing it back takes a while: many assertions, each with
/// a bulky unknown field the write-back must carry along.
fn big_file(dir: &std::path::Path) -> std::path::PathBuf {
    let filler = "x".repeat(2000);
    let assertions: Vec<_> = (0..400)
        .map(|i| json!({"id": format!("B-{i}"), "type": "file_exists", "description": "bulk", "path": if i % 2 == 0 { "." } else { "absent" }, "filler": filler}))
        .collect();
    assertions_file(dir, json!(assertions))
}

/// xorshift, seeded from the clock: a different spread of kill points on every run,
/// printed so a failure can be reproduced.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// `kill -9` iterations: enough to land in every phase of a run many times.
const KILLS: usize = 200;

#[test]
fn kill_dash_nine_at_random_points_leaves_the_old_or_the_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = big_file(dir.path());
    let old = std::fs::read(&file).unwrap();

    // The new contents, from one complete run on a copy.
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("review-assertions.json");
    std::fs::write(&copy, &old).unwrap();
    let started = Instant::now();
    assert_eq!(run(&copy, dir.path(), &[]).status.code(), Some(1));
    let full_run = started.elapsed();
    let new = std::fs::read(&copy).unwrap();
    assert_ne!(old, new);

    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    let mut rng = Rng(seed);
    let span = full_run.as_micros() as u64 + 1;
    let (mut saw_old, mut saw_new) = (0, 0);
    for i in 0..KILLS {
        let mut child = reviewhost()
            .arg("run")
            .arg(&file)
            .arg("--root")
            .arg(dir.path())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Half the kills land in the last third of a run, where the write-back happens.
        let at = if i % 2 == 0 { span * 2 / 3 + rng.next() % (span / 3 + 1) } else { rng.next() % span };
        std::thread::sleep(Duration::from_micros(at));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let now = std::fs::read(&file).unwrap();
        assert!(
            now == old || now == new,
            "iteration {i} (seed {seed}): the file is neither the old nor the new version"
        );
        serde_json::from_slice::<serde_json::Value>(&now).unwrap();
        if now == old {
            saw_old += 1
        } else {
            saw_new += 1
        }
        if now == new {
            std::fs::write(&file, &old).unwrap();
        }
    }
    eprintln!("kill -9 x{KILLS}: old {saw_old}, new {saw_new} (seed {seed})");
}

#[test]
fn concurrent_runs_on_one_file_both_finish_with_a_consistent_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = big_file(dir.path());
    let children: Vec<_> = (0..3)
        .map(|_| {
            reviewhost()
                .arg("run")
                .arg(&file)
                .arg("--root")
                .arg(dir.path())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        assert_eq!(child.wait_with_output().unwrap().status.code(), Some(1));
    }
    let statuses = statuses(&file);
    assert_eq!(statuses.len(), 400);
    for (i, (_, status)) in statuses.iter().enumerate() {
        assert_eq!(status, if i % 2 == 0 { "pass" } else { "fail" });
    }
}
