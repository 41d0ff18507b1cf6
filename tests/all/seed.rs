//! Seed 000's own smoke test (`test-run-assertions.sh`), ported: same file, same fields
//! written back, same exit codes. The command types wait for the command interpreter.

use serde_json::json;

use crate::support::*;

/// The seed's fixture, with T-003/T-004 pointing at the assertions file itself (inside
/// the root), exactly as the seed's Python patch does.
fn seed_fixture(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("fixture.json");
    let mut doc = json!({
      "plugin": "test", "max_passes": 5, "current_pass": 1,
      "assertions": [
        {"id": "T-001", "finding_id": "test", "track": "A", "type": "grep_not_match", "description": "empty echo has no output", "command": "echo ''", "expected": "no_match", "status": null, "failure_output": null},
        {"id": "T-002", "finding_id": "test", "track": "A", "type": "grep_match", "description": "ls output is non-empty", "command": "ls /", "expected": "match", "status": null, "failure_output": null},
        {"id": "T-003", "finding_id": "test", "track": "C", "type": "file_exists", "description": "fixture file must exist", "path": "", "status": null, "failure_output": null},
        {"id": "T-004", "finding_id": "test", "track": "C", "type": "file_content", "description": "fixture contains plugin key", "path": "", "needle": "\"plugin\": \"test\"", "status": null, "failure_output": null},
        {"id": "T-005", "finding_id": "test", "track": "A", "type": "shell_exit_zero", "description": "true exits zero", "command": "true", "expected": "exit_zero", "status": null, "failure_output": null}
      ],
      "confidence": {"passed": 0, "total": 0, "score": 0.0}
    });
    for a in doc["assertions"].as_array_mut().unwrap() {
        if a["type"] == "file_exists" || a["type"] == "file_content" {
            a["path"] = json!(path.to_str().unwrap());
        }
    }
    // Python's json.dump(indent=2) writes `"plugin": "test"`, which T-004 looks for.
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    path
}

/// `test-run-assertions.sh`: all five pass, confidence 100%, exit 0, and the text output
/// is the seed's "Expected output" line for line.
#[test]
fn smoke_test_passes_like_the_seed() {
    let dir = tempfile::tempdir().unwrap();
    let file = seed_fixture(dir.path());
    let out = run(&file, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert_eq!(
        statuses(&file),
        ["T-001", "T-002", "T-003", "T-004", "T-005"].map(|i| (i.to_string(), "pass".to_string()))
    );
    for a in read_assertions(&file) {
        assert_eq!(a["failure_output"], serde_json::Value::Null);
    }
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(doc["confidence"], json!({"passed": 5, "total": 5, "score": 1.0}));
    assert_eq!(
        stdout(&out),
        "  ✅ T-001: grep_not_match — empty echo has no output
  ✅ T-002: grep_match — ls output is non-empty
  ✅ T-003: file_exists — fixture file must exist
  ✅ T-004: file_content — fixture contains plugin key
  ✅ T-005: shell_exit_zero — true exits zero

Confidence: 100% (5/5 assertions passing)
"
    );
}

/// The seed's later fixtures: failures and the exit codes it expects.
#[test]
fn seed_failure_fixtures_fail_with_exit_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = assertions_file(
        dir.path(),
        json!([
            {"id": "F-001", "type": "grep_match", "description": "no match", "command": "echo '' | grep 'DOES_NOT_EXIST_XYZ'"},
            {"id": "F-002", "type": "shell_exit_zero", "description": "exit 1", "command": "exit 1"},
            {"id": "P-001", "type": "typescript_compile", "description": "exit 0", "command": "exit 0"}
        ]),
    );
    let out = run(&file, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        statuses(&file),
        [("F-001", "fail"), ("F-002", "fail"), ("P-001", "pass")].map(|(i, s)| (i.to_string(), s.to_string()))
    );
    assert_eq!(read_assertions(&file)[0]["failure_output"], "No output — pattern not found");
}

#[test]
fn all_file_checks_passing_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# Title\nreviewhost\n").unwrap();
    let file = assertions_file(
        dir.path(),
        json!([
            {"id": "A-1", "type": "file_exists", "description": "readme", "path": "README.md"},
            {"id": "A-2", "type": "file_content", "description": "name", "path": "./README.md", "needle": "reviewhost"},
            {"id": "A-3", "type": "file_exists", "description": "root itself", "path": "."}
        ]),
    );
    let out = run(&file, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).ends_with("Confidence: 100% (3/3 assertions passing)\n"));
}

/// The seed's "Step 6": a missing file fails and the run exits 1.
#[test]
fn missing_file_fails_with_exit_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = assertions_file(
        dir.path(),
        json!([{"id": "F-001", "finding_id": "x", "track": "A", "type": "file_exists", "description": "missing file", "path": "no/such/file", "status": null, "failure_output": null}]),
    );
    let out = run(&file, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    let a = &read_assertions(&file)[0];
    assert_eq!(a["status"], "fail");
    assert_eq!(a["failure_output"], "Not found: no/such/file");
    assert!(stdout(&out).contains("  ❌ F-001: file_exists — missing file\n     Failure: Not found: no/such/file\n"));
}

#[test]
fn file_defaults_to_assertions_file_env_then_the_seed_path() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude/state")).unwrap();
    let default = dir.path().join(".claude/state/review-assertions.json");
    std::fs::write(&default, r#"{"assertions": [{"id": "D", "type": "file_exists", "path": ".claude"}]}"#).unwrap();
    let out = reviewhost().arg("run").current_dir(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(statuses(&default), [("D".to_string(), "pass".to_string())]);

    let other = dir.path().join("other.json");
    std::fs::write(&other, r#"{"assertions": [{"id": "E", "type": "file_exists", "path": "nope"}]}"#).unwrap();
    let out = reviewhost().arg("run").env("ASSERTIONS_FILE", &other).current_dir(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(statuses(&other), [("E".to_string(), "fail".to_string())]);
}

#[test]
fn unknown_type_is_an_error_and_the_rest_still_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = assertions_file(
        dir.path(),
        json!([
            {"id": "U-1", "type": "frobnicate", "description": "?"},
            {"id": "U-2", "type": "file_exists", "description": "root", "path": "."}
        ]),
    );
    let out = run(&file, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    let a = read_assertions(&file);
    assert_eq!(a[0]["status"], "error");
    assert_eq!(a[0]["failure_output"], "unknown assertion type 'frobnicate'");
    assert_eq!(a[1]["status"], "pass");
}

#[test]
fn json_format_reports_status_message_evidence_and_duration() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "one\ntwo needle\n").unwrap();
    let file = assertions_file(
        dir.path(),
        json!([{"id": "J-1", "type": "file_content", "description": "d", "path": "notes.txt", "needle": "needle"}]),
    );
    let before = sha256(&file);
    let out = run(&file, dir.path(), &["--format", "json", "--no-write"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(sha256(&file), before, "--no-write must leave the file alone");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &report["results"][0];
    assert_eq!(r["id"], "J-1");
    assert_eq!(r["status"], "pass");
    assert_eq!(r["evidence"], json!([{"path": "notes.txt", "line": 2, "text": "two needle"}]));
    assert!(r["duration_ms"].as_f64().unwrap() > 0.0);
    assert_eq!(report["confidence"], json!({"passed": 1, "total": 1, "score": 1.0}));
}

/// The README's first command: the bundled example passes, and the file is not touched.
#[test]
fn the_bundled_basic_example_passes() {
    let example = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/basic"));
    let file = example.join("assertions.json");
    let before = sha256(&file);
    let out = run(&file, example, &["--no-write"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).ends_with("Confidence: 100% (6/6 assertions passing)\n"), "{}", stdout(&out));
    assert_eq!(sha256(&file), before);
}
