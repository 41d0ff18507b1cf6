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

#[test]
fn smoke_test_file_types_pass_and_command_types_wait_for_the_interpreter() {
    let dir = tempfile::tempdir().unwrap();
    let file = seed_fixture(dir.path());
    let out = run(&file, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        statuses(&file),
        [("T-001", "error"), ("T-002", "error"), ("T-003", "pass"), ("T-004", "pass"), ("T-005", "error")]
            .map(|(i, s)| (i.to_string(), s.to_string()))
    );
    let assertions = read_assertions(&file);
    assert!(assertions[0]["failure_output"].as_str().unwrap().contains("'grep_not_match' is not supported yet"));
    assert_eq!(assertions[2]["failure_output"], serde_json::Value::Null);
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(doc["confidence"], json!({"passed": 2, "total": 5, "score": 0.4}));

    let text = stdout(&out);
    assert!(text.contains("  ✅ T-003: file_exists — fixture file must exist\n"), "{text}");
    assert!(text.contains("  ✅ T-004: file_content — fixture contains plugin key\n"), "{text}");
    assert!(text.contains("  ❌ T-005: shell_exit_zero — true exits zero\n     Error: "), "{text}");
    assert!(text.ends_with("\nConfidence: 40% (2/5 assertions passing)\n"), "{text}");
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
