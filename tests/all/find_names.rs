//! `find` over names that are not UTF-8 (issue 15 item 8): no path in the sandbox can
//! name such an entry, so `find` reports it as an error, as `ls`, `grep` and `rg` do,
//! instead of skipping it with a silent exit 1 that let `grep_not_match` pass.

use serde_json::json;

use crate::support::*;

#[test]
fn a_name_that_is_not_utf8_makes_find_an_error_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("keys")).unwrap();
    let name: &std::ffi::OsStr = std::os::unix::ffi::OsStrExt::from_bytes(b"prod\xff.pem");
    std::fs::write(root.join("keys").join(name), "-----BEGIN PRIVATE KEY-----\n").unwrap();
    std::fs::write(root.join("keys/readme.txt"), "keys live elsewhere\n").unwrap();
    let file = assertions_file(
        dir.path(),
        json!([
            {"id": "NO-PEM", "type": "grep_not_match", "command": "find . -name '*.pem'"},
            {"id": "NO-PEM-QUIET", "type": "grep_not_match", "command": "find . -name '*.pem' 2>/dev/null"},
            {"id": "TXT", "type": "grep_match", "command": "find keys -name '*.txt'"},
        ]),
    );
    let out = run(&file, &root, &["--no-write", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let by_id = |id: &str| report["results"].as_array().unwrap().iter().find(|r| r["id"] == id).unwrap().clone();
    for id in ["NO-PEM", "NO-PEM-QUIET"] {
        let r = by_id(id);
        let message = r["message"].as_str().unwrap();
        assert_eq!(r["status"], "error", "{id} must not pass: {r}");
        assert!(message.contains("'find' failed"), "{id}: {message}");
        // The directory and the entry, its undecodable byte escaped as GNU tools do.
        assert!(message.contains("‘./keys’: prod\\377.pem: Invalid or incomplete multibyte"), "{id}: {message}");
    }
    assert_eq!(by_id("TXT")["status"], "pass", "what can be named is still found");
}
