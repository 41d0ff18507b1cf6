//! A refusal anywhere in a command makes the assertion `error`, whatever the script does
//! after it; an error anywhere fails every absence verdict closed (issue: "Every answer
//! is right or says it cannot answer").

use std::os::unix::ffi::OsStrExt;

use serde_json::{Value, json};

use crate::support::*;

/// `(id, status)` of each of `assertions` run on `root`, as written back to the file.
fn run_statuses(root: &std::path::Path, assertions: Value) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let file = assertions_file(dir.path(), assertions);
    run(&file, root, &[]);
    statuses(&file)
}

#[test]
fn a_refused_construct_or_a_failed_search_never_leaves_a_pass_behind() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("src/keys")).unwrap();
    std::fs::write(root.join("src/a.txt"), "hello\n").unwrap();
    std::fs::write(root.join("src/keys").join(std::ffi::OsStr::from_bytes(b"prod\xff.pem")), "KEY\n").unwrap();
    let results = run_statuses(
        &root,
        json!([
            {"id": "tee-write", "type": "grep_match", "command": "echo pwned | tee src/a.txt"},
            {"id": "xargs-option", "type": "grep_match", "command": "echo a | xargs -p echo; echo rc=$?"},
            {"id": "sed-refused", "type": "grep_match", "command": "sed -i s/a/b/ src/a.txt || echo none"},
            {"id": "find-count", "type": "grep_not_match", "command": "find . -name '*.pem' | wc -l", "expected": "count:0"},
            {"id": "control", "type": "grep_match", "command": "grep -rn hello src/a.txt"},
        ]),
    );
    for (id, status) in &results {
        let expected = if id == "control" { "pass" } else { "error" };
        assert_eq!(status, expected, "{id}: {results:?}");
    }
}
