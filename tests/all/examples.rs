//! `examples/custom`: the example validators of `checks/examples/`, built to components by
//! `tests/build.rs`, run by the real binary on the example repository exactly as its
//! README says, and each one's error path through the sandbox.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::components;
use crate::support::*;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/custom");

/// The built components, under the names `examples/custom/assertions.json` uses.
const COMPONENTS: [(&str, &str); 3] = [
    ("license_header.wasm", components::EXAMPLE_LICENSE_HEADER),
    ("json_schema.wasm", components::EXAMPLE_JSON_SCHEMA),
    ("max_function_lines.wasm", components::EXAMPLE_MAX_FUNCTION_LINES),
];

/// A copy of `examples/custom` with the components in `components/`, as the README sets it up.
fn example_root() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("custom");
    copy_tree(Path::new(EXAMPLE), &root);
    let components = root.join("components");
    // A developer's own build may already be there; the test uses the freshly built ones.
    let _ = std::fs::remove_dir_all(&components);
    std::fs::create_dir_all(&components).unwrap();
    for (name, built) in COMPONENTS {
        std::fs::copy(built, components.join(name)).unwrap();
    }
    (dir, root)
}

/// The JSON report's results, by id.
fn report(file: &Path, root: &Path, expected_exit: i32) -> Vec<Value> {
    let out = run(file, root, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(expected_exit), "stdout: {}\nstderr: {}", stdout(&out), stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["results"].as_array().unwrap().clone()
}

fn result<'a>(results: &'a [Value], id: &str) -> &'a Value {
    results.iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("no result for {id}"))
}

fn evidence(result: &Value) -> Vec<(String, Option<u64>, String)> {
    result["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["path"].as_str().unwrap().into(), e["line"].as_u64(), e["text"].as_str().unwrap().into()))
        .collect()
}

#[test]
fn the_custom_example_runs_as_its_readme_says() {
    let (_dir, root) = example_root();
    let file = root.join("assertions.json");
    let results = report(&file, &root, 1);
    assert_eq!(results.len(), 4);

    let license = result(&results, "X-A-1");
    assert_eq!(license["status"], "fail", "{license}");
    let message = license["message"].as_str().unwrap();
    assert!(message.starts_with("1 of 2 files lack the header"), "{message}");
    assert!(message.contains("src/format.rs"), "{message}");
    assert_eq!(evidence(license), [("src/format.rs".to_string(), None, "missing header".to_string())]);

    let schema = result(&results, "X-B-1");
    assert_eq!(schema["status"], "pass", "{schema}");
    assert_eq!(schema["message"], "config/settings.json conforms to the schema");

    let length = result(&results, "X-A-2");
    assert_eq!(length["status"], "fail", "{length}");
    let message = length["message"].as_str().unwrap();
    assert!(message.contains("longer than 25 lines (fn receipt: 30 lines)"), "{message}");
    assert_eq!(evidence(length), [("src/lib.rs".to_string(), Some(23), "fn receipt: 30 lines".to_string())]);

    let exists = result(&results, "X-C-1");
    assert_eq!(exists["status"], "pass", "{exists}");

    // The file on disk carries the same statuses, and the failures' messages.
    assert_eq!(
        statuses(&file),
        [("X-A-1", "fail"), ("X-B-1", "pass"), ("X-A-2", "fail"), ("X-C-1", "pass")]
            .map(|(id, status)| (id.to_string(), status.to_string()))
    );
    let written = read_assertions(&file);
    assert!(written[0]["failure_output"].as_str().unwrap().contains("src/format.rs"));
    assert!(written[2]["failure_output"].as_str().unwrap().contains("fn receipt"));
}

#[test]
fn the_example_validators_report_unusable_configs_as_errors() {
    let (_dir, root) = example_root();
    let custom = |id: &str, component: &str, config: Value| json!({"id": id, "type": "custom", "description": id, "component": component, "config": config});
    let file = assertions_file(
        &root,
        json!([
            custom(
                "E-LIC",
                "components/license_header.wasm",
                json!({"files": ["**/*.go"], "header": "// SPDX-License-Identifier: MIT"})
            ),
            custom("E-LIC-CONFIG", "components/license_header.wasm", json!({"files": ["src/**/*.rs"]})),
            custom("E-JSON", "components/json_schema.wasm", json!({"schema_file": "schemas/settings.schema.json"})),
            custom(
                "E-JSON-REF",
                "components/json_schema.wasm",
                json!({"file": "config/settings.json", "schema": {"$ref": "https://example.com/settings.schema.json"}})
            ),
            custom("E-FN", "components/max_function_lines.wasm", json!({"files": ["src/**/*.rs"], "max": 0})),
            custom("E-FN-CONFIG", "components/max_function_lines.wasm", Value::Null),
        ]),
    );
    let results = report(&file, &root, 1);
    for (id, needle) in [
        ("E-LIC", "no file matches [\"**/*.go\"]: nothing to check"),
        ("E-LIC-CONFIG", "missing field `header`"),
        ("E-JSON", "missing field `file`"),
        ("E-JSON-REF", "external $ref 'https://example.com/settings.schema.json' is not supported"),
        ("E-FN", "config.max must be at least 1"),
        ("E-FN-CONFIG", "invalid config for 'E-FN-CONFIG'"),
    ] {
        let r = result(&results, id);
        let message = r["message"].as_str().unwrap();
        assert_eq!(r["status"], "error", "{id}: {message}");
        assert!(message.contains(needle), "{id}: expected {needle:?} in {message:?}");
    }
}
