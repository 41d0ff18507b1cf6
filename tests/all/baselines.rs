//! `--baseline` accepts a known failure, not any failure of the same assertion: a check
//! without evidence is told apart by its output (normalised, so timestamps, temporary
//! paths and durations do not churn it), and a version 1 baseline, which could not tell
//! such failures apart, accepts none of them.

use std::path::Path;
use std::process::Output;

use reviewhost::baseline::normalise;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::support::*;

/// A root whose `out.txt` a `shell_exit_zero` check prints before it fails, and a
/// `grep_not_match` that fails on `src/a.rs`' TODO (a failure with evidence).
fn project(output: &str) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("out.txt"), output).unwrap();
    std::fs::write(root.join("src/a.rs"), "fn main() {}\n// TODO: later\n").unwrap();
    let file = assertions_file(
        dir.path(),
        json!([
            {"id": "T-1", "type": "shell_exit_zero", "description": "the tests pass",
             "command": "cat out.txt && test -z failing"},
            {"id": "G-1", "type": "grep_not_match", "description": "no TODO", "command": "grep -rn TODO src"}
        ]),
    );
    (dir, root, file)
}

fn with_baseline(file: &Path, root: &Path, baseline: &Path, extra: &[&str]) -> Output {
    run(file, root, &[&["--no-write", "--baseline", baseline.to_str().unwrap()][..], extra].concat())
}

/// The case: "test_a failed" baselined, then "test_b failed: auth bypass" —
/// the run used to exit 0 (the fingerprint was the id alone: no evidence).
#[test]
fn a_check_without_evidence_failing_otherwise_is_a_new_failure() {
    let first = "FAILED test_a failed at 2024-05-01T12:30:00.123Z in /tmp/.tmpAbC123/run (0.12s), pid 7\n";
    let (dir, root, file) = project(first);
    let baseline = dir.path().join("known.json");
    let out = with_baseline(&file, &root, &baseline, &["--update-baseline"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&baseline).unwrap()).unwrap();
    assert_eq!(written["version"], 2, "{written}");

    // The same failure at another time, in another temporary directory, slower, with
    // colour: still the baselined failure.
    std::fs::write(
        root.join("out.txt"),
        "\x1b[31mFAILED\x1b[0m test_a failed at 2025-02-03 08:00:59   in /tmp/.tmpXyZ789/run (13.5s), pid 7\n",
    )
    .unwrap();
    let out = with_baseline(&file, &root, &baseline, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("2 baselined failures"), "{}", stderr(&out));

    // Another failure of the same check: new, the run fails.
    std::fs::write(root.join("out.txt"), "FAILED test_b failed: auth bypass\n").unwrap();
    let out = with_baseline(&file, &root, &baseline, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("1 baselined failures (accepted in"), "{}", stderr(&out));
    // Another pid is another failure too: only what is documented is normalised.
    std::fs::write(root.join("out.txt"), first.replace("pid 7", "pid 8")).unwrap();
    assert_eq!(with_baseline(&file, &root, &baseline, &[]).status.code(), Some(1));
}

/// The fingerprint of a version 1 baseline (before the message counted): SHA-256 of the
/// id, then a NUL, the path, a NUL and the text of each piece of evidence.
fn version_1_fingerprint(result: &Value) -> String {
    let mut hash = Sha256::new();
    hash.update(result["id"].as_str().unwrap().as_bytes());
    for e in result["evidence"].as_array().unwrap() {
        hash.update([0]);
        hash.update(e["path"].as_str().unwrap().as_bytes());
        hash.update([0]);
        hash.update(e["text"].as_str().unwrap().as_bytes());
    }
    format!("{:x}", hash.finalize())
}

/// A baseline written before version 2 is still read: an entry for a failure with
/// evidence accepts the same evidence, but an entry for a failure without evidence
/// (which accepted any failure) accepts nothing until the baseline is rewritten.
#[test]
fn a_version_1_baseline_accepts_no_failure_it_cannot_tell_apart() {
    let (dir, root, file) = project("test_a failed\n");
    std::fs::write(root.join("out.txt"), "").unwrap();
    let out = run(&file, &root, &["--no-write", "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = report["results"].as_array().unwrap();
    assert!(results.iter().all(|r| r["status"] == "fail"), "{report}");
    let entries: serde_json::Map<String, Value> =
        results.iter().map(|r| (r["id"].as_str().unwrap().to_string(), json!(version_1_fingerprint(r)))).collect();
    let t1 = results.iter().find(|r| r["id"] == "T-1").unwrap();
    assert_eq!(t1["evidence"], json!([]), "the exit-status check has no evidence: {t1}");

    // Written by the version before: `version: 1`, and a file without `version`.
    let baseline = dir.path().join("old.json");
    for doc in [json!({"version": 1, "entries": entries}), json!({"entries": entries})] {
        std::fs::write(&baseline, doc.to_string()).unwrap();
        std::fs::write(root.join("out.txt"), "test_b failed: auth bypass\n").unwrap();
        let out = with_baseline(&file, &root, &baseline, &[]);
        assert_eq!(out.status.code(), Some(1), "{doc}: {}", stderr(&out));
        let why = stderr(&out);
        assert!(why.contains("1 baselined failures"), "G-1's evidence is unchanged: {why}");
        assert!(why.contains("version 1 baseline") && why.contains("--update-baseline: T-1"), "{why}");
    }
    // Rewritten, it is version 2 and accepts the failure someone has now looked at.
    assert_eq!(with_baseline(&file, &root, &baseline, &["--update-baseline"]).status.code(), Some(0));
    let out = with_baseline(&file, &root, &baseline, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A baseline of a version this reviewhost does not know is refused.
    std::fs::write(&baseline, json!({"version": 3, "entries": {}}).to_string()).unwrap();
    let out = with_baseline(&file, &root, &baseline, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("a baseline of version 3"), "{}", stderr(&out));
}

/// The documented normalisation, rule by rule.
#[test]
fn the_message_is_normalised_as_documented() {
    let a = "\x1b[31mFAILED\x1b[0m test_a in 0.12s at 2024-05-01T12:30:00.123Z\n  \
             /tmp/.tmpAbC123/build/out.log: commit 3f2a9c1d7e (pid 4242)";
    let b =
        "FAILED test_a in 1.5s at 2025-01-02 08:00:59   /tmp/.tmpXyZ789/build/out.log: commit 0b1c2d3e4f (pid 4242)";
    assert_eq!(normalise(a), normalise(b));
    assert_eq!(normalise(a), "FAILED test_a in <duration> at <time> <tmp>: commit <hex> (pid 4242)");
    assert_ne!(normalise("test_a failed"), normalise("test_b failed: auth bypass"));
    assert_ne!(normalise("exit 1"), normalise("exit 2"));
    assert_eq!(
        normalise("12345678 bytes, 64 MiB exceeded after 10s"),
        "12345678 bytes, 64 MiB exceeded after <duration>"
    );
    assert_eq!(normalise("id 123e4567-e89b-12d3-a456-426614174000 at 10:01:02"), "id <hex> at <time>");
    assert_eq!(normalise("wrote src/tmp/x and /var/folders/ab/T/y.txt"), "wrote src/tmp/x and <tmp>");
    assert_eq!(normalise("took 3 seconds, object 1234567890123456"), "took <duration>, object <hex>");
    // Code moving above a match changes its line number, not the failure.
    assert_eq!(
        normalise("src/a.rs:2:// TODO: later\nsrc/b.rs:10:x"),
        "src/a.rs:<line>:// TODO: later src/b.rs:<line>:x"
    );
}
