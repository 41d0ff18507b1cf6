//! A `custom` assertion naming a file beside the assertions file (outside the root)
//! with a wrong `sha256`: the mismatch message printed that file's SHA-256, an oracle
//! for whatever lies there (a 4-digit PIN, a short password). Only a WebAssembly
//! component's digest is printed now.

use serde_json::json;

use crate::components;
use crate::support::*;

#[test]
fn a_pin_mismatch_prints_no_digest_of_a_file_that_is_not_a_component() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    let root = base.join("repo");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(base.join("notes")).unwrap();
    std::fs::write(base.join("notes/pin.txt"), "4711\n").unwrap();
    std::fs::write(base.join("notes/core.wasm"), b"\0asm\x01\0\0\0").unwrap();
    std::fs::copy(components::PROBE, base.join("probe.wasm")).unwrap();
    let wrong = "0".repeat(64);
    let pinned = |id: &str, component: &str| json!({"id": id, "type": "custom", "component": component, "config": {"pass": true}, "sha256": wrong});
    let file = assertions_file(
        base,
        json!([pinned("PIN", "notes/pin.txt"), pinned("CORE", "notes/core.wasm"), pinned("PROBE", "probe.wasm")]),
    );
    let out = run(&file, &root, &["--no-write", "--format", "json"]);
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    let message = |id: &str| {
        let results = report["results"].as_array().unwrap();
        let result = results.iter().find(|r| r["id"] == id).unwrap();
        assert_eq!(result["status"], "error", "{result}");
        result["message"].as_str().unwrap().to_string()
    };
    let everything = format!("{}{}", stdout(&out), stderr(&out));
    for (id, path) in [("PIN", "notes/pin.txt"), ("CORE", "notes/core.wasm")] {
        let digest = sha256(&base.join(path));
        assert!(!everything.contains(&digest), "{id}: the digest of {path} is printed: {everything}");
        let message = message(id);
        assert!(message.contains("sha256 mismatch: the file is not a WebAssembly component"), "{id}: {message}");
    }
    // A component's own digest is what the operator needs to pin it: still printed.
    let probe = message("PROBE");
    assert!(probe.contains(&format!("the file is {}", sha256(&base.join("probe.wasm")))), "{probe}");
}
