//! The assertions file as Rust types, for one purpose: deriving its JSON Schema
//! (`reviewhost schema`) and checking files against it (`reviewhost validate`). The
//! values reviewhost itself reads or writes are the real types: [`Status`] from the
//! write-back, [`Expected`] from the protocol the checks speak.
//!
//! The loader in [`super::load`] stays the authority for `run` (it keeps unknown
//! fields and key order and reports one precise error); these types describe the same
//! rules, and a test holds the two to agreement on every case the loader rejects. The
//! schema is stricter in one way, on purpose: it knows the assertion types, so a typo
//! in `type` is a validation error here, where `run` would evaluate that assertion as
//! `error`. Properties it does not name are allowed everywhere, as in `run`.

use std::path::Path;
use std::sync::OnceLock;

use reviewhost_protocol::Expected;
use schemars::JsonSchema;
use serde_json::Value;

use super::Status;

/// A file the seed's review loop and `reviewhost run` read and write.
#[derive(JsonSchema)]
#[schemars(title = "reviewhost assertions file", extend("additionalProperties" = true))]
#[expect(dead_code, reason = "these types exist for their JSON Schema; nothing reads their fields")]
struct AssertionsFile {
    /// The plugin or project under review.
    plugin: Option<String>,
    /// The review loop's pass budget.
    max_passes: Option<u64>,
    /// The pass the loop is in.
    current_pass: Option<u64>,
    /// The assertions, run in parallel and reported in this order. Ids are unique.
    assertions: Vec<Assertion>,
    /// Written by `reviewhost run`.
    confidence: Option<Confidence>,
}

#[derive(JsonSchema)]
#[schemars(extend("additionalProperties" = true))]
#[expect(dead_code, reason = "these types exist for their JSON Schema; nothing reads their fields")]
struct Confidence {
    passed: Option<u64>,
    total: Option<u64>,
    score: Option<f64>,
}

/// Fields every assertion has.
#[derive(JsonSchema)]
#[expect(dead_code, reason = "these types exist for their JSON Schema; nothing reads their fields")]
struct Common {
    /// Unique within the file; not blank.
    #[schemars(regex(pattern = r"\S"))]
    id: String,
    /// One line for the report (the text report shows 60 characters).
    description: Option<String>,
    /// Written by `reviewhost run`: pass, fail or error.
    status: Option<Status>,
    /// Written by `reviewhost run`: why it did not pass, at most 500 characters.
    failure_output: Option<String>,
}

/// A non-empty string.
#[derive(JsonSchema)]
#[schemars(transparent)]
#[expect(dead_code, reason = "these types exist for their JSON Schema; nothing reads their fields")]
struct Text(#[schemars(length(min = 1))] String);

/// One assertion, by `type`.
#[derive(JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[schemars(extend("additionalProperties" = true))]
#[expect(dead_code, reason = "these types exist for their JSON Schema; nothing reads their fields")]
enum Assertion {
    /// `path` exists inside the root.
    FileExists {
        #[serde(flatten)]
        common: Common,
        /// Relative to the root, or absolute inside it.
        path: Text,
        expected: Option<Expected>,
    },
    /// The file at `path` contains `needle`.
    FileContent {
        #[serde(flatten)]
        common: Common,
        path: Text,
        needle: Text,
        expected: Option<Expected>,
    },
    /// The command prints something (run in the sandbox's shell).
    GrepMatch {
        #[serde(flatten)]
        common: Common,
        command: Text,
        expected: Option<Expected>,
    },
    /// The command prints nothing and nothing in it fails.
    GrepNotMatch {
        #[serde(flatten)]
        common: Common,
        command: Text,
        expected: Option<Expected>,
    },
    /// The command exits 0.
    ShellExitZero {
        #[serde(flatten)]
        common: Common,
        command: Text,
        expected: Option<Expected>,
    },
    /// The command exits 0 (a type-check command, in the seed).
    TypescriptCompile {
        #[serde(flatten)]
        common: Common,
        command: Text,
        expected: Option<Expected>,
    },
    /// A custom validator component decides.
    Custom {
        #[serde(flatten)]
        common: Common,
        /// The `.wasm` component: relative to the root or the assertions file, or absolute.
        component: Text,
        /// When given, a component with another SHA-256 is refused before it is compiled.
        #[schemars(regex(pattern = "^[0-9a-fA-F]{64}$"))]
        sha256: Option<String>,
        /// Handed to the validator as JSON.
        config: Option<Value>,
        /// Narrow what the validator sees to these directories.
        #[schemars(length(min = 1), inner(length(min = 1)))]
        paths: Option<Vec<String>>,
    },
}

/// Where the schema is kept in the repository: `reviewhost schema` prints this file's
/// content (a test holds them equal).
pub const SCHEMA_PATH: &str = "schema/assertions.schema.json";

/// The schema's `$id`: the file [`SCHEMA_PATH`] in the repository at this version's tag,
/// so an editor or validator that fetches it gets the schema this release checks against.
pub const SCHEMA_ID: &str =
    concat!(env!("CARGO_PKG_REPOSITORY"), "/raw/v", env!("CARGO_PKG_VERSION"), "/schema/assertions.schema.json");

/// The JSON Schema (draft 2020-12) of the assertions file.
pub fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let mut schema = schemars::schema_for!(AssertionsFile).to_value();
        schema["$id"] = Value::String(SCHEMA_ID.to_string());
        schema
    })
}

/// One way a document breaks the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer to the offending value (`/assertions/2/path`), `""` for the document.
    pub pointer: String,
    pub message: String,
}

/// Every way `doc` breaks the schema (empty when it conforms).
pub fn violations(doc: &Value) -> Vec<Violation> {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    let validator = VALIDATOR.get_or_init(|| jsonschema::validator_for(schema()).expect("the derived schema is valid"));
    let mut found: Vec<Violation> = validator
        .iter_errors(doc)
        .map(|e| Violation { pointer: e.instance_path().to_string(), message: e.to_string() })
        .collect();
    found.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    found.dedup();
    found
}

/// Every problem of the assertions file `file` with contents `bytes`, one message each,
/// for `reviewhost validate`: the schema's violations, each with its JSON pointer, then
/// what a schema cannot say (unique ids) from the loader `run` uses. Empty when valid.
pub fn problems(file: &Path, bytes: &[u8]) -> Vec<String> {
    let Ok(doc) = serde_json::from_slice::<Value>(bytes) else {
        return vec![super::parse(file, bytes).expect_err("not JSON").to_string()];
    };
    let mut problems: Vec<String> = violations(&doc)
        .into_iter()
        .map(|v| {
            let at = if v.pointer.is_empty() { "(document)".to_string() } else { v.pointer };
            format!("{}: {at}: {}", file.display(), v.message)
        })
        .collect();
    if problems.is_empty()
        && let Err(e) = super::parse(file, bytes)
    {
        problems.push(e.to_string());
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_good_file_conforms() {
        let doc = json!({
            "plugin": "p", "max_passes": 5, "current_pass": 1, "extra": true,
            "assertions": [
                {"id": "A", "type": "file_exists", "path": "README.md", "note": "kept"},
                {"id": "B", "type": "grep_not_match", "command": "grep -rn X src", "expected": "no_match",
                 "status": "fail", "failure_output": "x"},
                {"id": "C", "type": "shell_exit_zero", "command": "grep -c x f", "expected": "count>=2"},
                {"id": "D", "type": "custom", "component": "c.wasm", "config": {"n": 1}, "paths": ["src"],
                 "sha256": "ab".repeat(32)}
            ],
            "confidence": {"passed": 0, "total": 0, "score": 0.0}
        });
        assert_eq!(violations(&doc), vec![]);
    }

    /// The schema and the loader `run` uses agree: whatever the loader refuses, the
    /// schema refuses too (but duplicate ids, which `validate` takes from the loader).
    #[test]
    fn the_schema_refuses_what_the_loader_refuses() {
        let refused = [
            r#"[]"#,
            r#"{"plugin": "x"}"#,
            r#"{"assertions": {}}"#,
            r#"{"plugin": 3, "assertions": []}"#,
            r#"{"max_passes": "5", "assertions": []}"#,
            r#"{"current_pass": -1, "assertions": []}"#,
            r#"{"confidence": 1, "assertions": []}"#,
            r#"{"assertions": [7]}"#,
            r#"{"assertions": [{"type": "file_exists", "path": "a"}]}"#,
            r#"{"assertions": [{"id": "", "type": "file_exists", "path": "a"}]}"#,
            r#"{"assertions": [{"id": "  ", "type": "file_exists", "path": "a"}]}"#,
            r#"{"assertions": [{"id": 1, "type": "file_exists", "path": "a"}]}"#,
            r#"{"assertions": [{"id": "A"}]}"#,
            r#"{"assertions": [{"id": "A", "type": 3}]}"#,
            r#"{"assertions": [{"id": "A", "type": "file_exists", "description": 3, "path": "a"}]}"#,
            r#"{"assertions": [{"id": "A", "type": "file_exists"}]}"#,
            r#"{"assertions": [{"id": "A", "type": "file_exists", "path": ""}]}"#,
            r#"{"assertions": [{"id": "A", "type": "file_content", "path": "a"}]}"#,
            r#"{"assertions": [{"id": "A", "type": "grep_match", "command": 7}]}"#,
            r#"{"assertions": [{"id": "A", "type": "typescript_compile", "command": ""}]}"#,
            r#"{"assertions": [{"id": "A", "type": "custom"}]}"#,
            r#"{"assertions": [{"id": "A", "type": "custom", "component": "c", "sha256": "abc"}]}"#,
            r#"{"assertions": [{"id": "A", "type": "custom", "component": "c", "paths": "src"}]}"#,
            r#"{"assertions": [{"id": "A", "type": "custom", "component": "c", "paths": []}]}"#,
            r#"{"assertions": [{"id": "A", "type": "custom", "component": "c", "paths": [""]}]}"#,
        ];
        for text in refused {
            assert!(super::super::parse(std::path::Path::new("f"), text.as_bytes()).is_err(), "loader takes {text}");
            let doc: Value = serde_json::from_str(text).unwrap();
            assert!(!violations(&doc).is_empty(), "schema takes {text}");
        }
    }

    /// The schema's pattern for `expected` and the parser the checks use accept the same
    /// values: every form, and the near misses on each side of it.
    #[test]
    fn the_expected_pattern_and_the_parser_agree() {
        let values = [
            "match",
            "no_match",
            "exists",
            "contains",
            "no_output",
            "exit_zero",
            "count:0",
            "count:12",
            "count: 3 ",
            "count:\t4\n",
            "count>=1",
            "count>= 2",
            "equals:",
            "equals:a b",
            "equals:\nline\n",
            "Match",
            "match ",
            " match",
            "nomatch",
            "count:",
            "count:x",
            "count:-1",
            "count:1.5",
            "count>=",
            "count>=-2",
            "count=3",
            "count>3",
            "equals",
            "equal:x",
            "",
            "exit_zero\n",
            "count:١",
        ];
        for value in values {
            let doc = json!({"assertions": [{"id": "A", "type": "grep_match", "command": "x", "expected": value}]});
            let by_schema = violations(&doc).is_empty();
            let by_parser = value.parse::<Expected>().is_ok();
            assert_eq!(by_schema, by_parser, "{value:?}: schema {by_schema}, parser {by_parser}");
        }
    }

    #[test]
    fn violations_point_at_the_field() {
        let doc = json!({"assertions": [
            {"id": "A", "type": "file_exists", "path": "ok"},
            {"id": "B", "type": "file_exists", "path": ""}
        ]});
        let found = violations(&doc);
        assert!(found.iter().any(|v| v.pointer.starts_with("/assertions/1")), "{found:?}");
        assert!(found.iter().all(|v| !v.pointer.starts_with("/assertions/0")), "{found:?}");
        assert!(!violations(&json!({"assertions": [{"id": "X", "type": "frobnicate"}]})).is_empty());
        assert!(
            !violations(&json!({"assertions": [{"id": "X", "type": "grep_match", "command": "x",
            "expected": "sometimes"}]}))
            .is_empty()
        );
    }
}
