//! The write-back is a drop-in for the seed runner's: only `status`, `failure_output`
//! and `confidence` change; every other field, unknown ones included, and the key order
//! survive.

use serde_json::{Value, json};

use crate::support::*;

#[test]
fn unknown_fields_values_and_key_order_survive_a_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("present.txt"), "x").unwrap();
    let file = dir.path().join("review-assertions.json");
    let original = r#"{
  "zz_first": {"nested": [3, 2, 1], "k": "v"},
  "plugin": "p",
  "assertions": [
    {
      "x_custom": {"b": 1, "a": [true, null]},
      "type": "file_exists",
      "id": "K-1",
      "path": "present.txt",
      "description": "key order is not alphabetical",
      "big": 12345678901234567890,
      "float": 0.1,
      "unicode": "héllo — ✓"
    },
    {"id": "K-2", "status": "pass", "failure_output": "stale", "type": "file_exists", "path": "absent.txt"}
  ],
  "confidence": {"extra": "kept", "passed": 9, "total": 9, "score": 1.0},
  "aa_last": []
}"#;
    std::fs::write(&file, original).unwrap();
    let out = run(&file, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));

    let written: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let top: Vec<&String> = written.as_object().unwrap().keys().collect();
    assert_eq!(top, ["zz_first", "plugin", "assertions", "confidence", "aa_last"]);
    let first: Vec<&String> = written["assertions"][0].as_object().unwrap().keys().collect();
    assert_eq!(
        first,
        ["x_custom", "type", "id", "path", "description", "big", "float", "unicode", "status", "failure_output"]
    );
    let second: Vec<&String> = written["assertions"][1].as_object().unwrap().keys().collect();
    assert_eq!(second, ["id", "status", "failure_output", "type", "path"]);

    let mut expected: Value = serde_json::from_str(original).unwrap();
    expected["assertions"][0]["status"] = json!("pass");
    expected["assertions"][0]["failure_output"] = Value::Null;
    expected["assertions"][1]["status"] = json!("fail");
    expected["assertions"][1]["failure_output"] = json!("Not found: absent.txt");
    expected["confidence"] = json!({"extra": "kept", "passed": 1, "total": 2, "score": 0.5});
    assert_eq!(written, expected);
    assert_eq!(written["assertions"][0]["big"].to_string(), "12345678901234567890");
    assert_eq!(written["zz_first"]["nested"], json!([3, 2, 1]));
}

#[test]
fn a_missing_confidence_object_is_added() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.json");
    std::fs::write(&file, r#"{"assertions": [{"id": "A", "type": "file_exists", "path": "."}]}"#).unwrap();
    assert_eq!(run(&file, dir.path(), &[]).status.code(), Some(0));
    let written: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(written["confidence"], json!({"passed": 1, "total": 1, "score": 1.0}));
}

#[cfg(unix)]
#[test]
fn the_file_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = assertions_file(dir.path(), json!([{"id": "A", "type": "file_exists", "path": "."}]));
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    assert_eq!(run(&file, dir.path(), &[]).status.code(), Some(0));
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o640);
}
