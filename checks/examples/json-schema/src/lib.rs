//! Example validator: a JSON file conforms to a JSON Schema.
//!
//! Config: `{"file": "config/settings.json", "schema": {...}}`, or `"schema_file":
//! "schemas/settings.schema.json"` (a path in the root) instead of the inline `schema`.
//! The draft comes from the schema's `$schema` (draft 4, 6, 7, 2019-09 and 2020-12), and
//! is 2020-12 when there is none. Each validation error is one piece of evidence
//! (`<instance path>: <error>`, the path `/` for the document itself), 50 at most; a file
//! that is not JSON fails with one piece of evidence that says where.
//!
//! It deliberately does not fetch anything: a `$ref` to another document (`https://...`,
//! `other.json`, `file://...`) is an error, because the sandbox has no network and a
//! check's result must not depend on what a server says today. Put the definitions in the
//! schema (`$defs`) instead. `format` is checked as each draft says: an assertion in
//! drafts 4, 6 and 7, an annotation (not checked) from 2019-09 on. An unreadable data
//! file, an unusable schema or schema file is an error (the check could not be
//! evaluated), never a failure.

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Retrieve, Uri};
use reviewhost_guest::serde_json::{self, Value};
use reviewhost_guest::{Root, Validator, Verdict};
use serde::Deserialize;

/// At most this many validation errors become evidence.
pub const MAX_EVIDENCE: usize = 50;

pub struct JsonSchema;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The JSON document to validate, root-relative.
    file: String,
    /// The schema, inline.
    #[serde(default)]
    schema: Option<Value>,
    /// Or the schema's path in the root.
    #[serde(default)]
    schema_file: Option<String>,
}

/// Why an external `$ref` cannot be resolved.
const NO_FETCH: &str = "the sandbox has no network and this validator reads no schema but the configured one";

/// Refuses every external reference, with a message that says why.
struct NoRemoteRefs;

impl Retrieve for NoRemoteRefs {
    fn retrieve(&self, uri: &Uri<String>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!(
            "external $ref '{}' is not supported: {NO_FETCH}; put the definitions in the schema's $defs",
            uri.as_str()
        )
        .into())
    }
}

impl Validator for JsonSchema {
    type Config = Config;

    fn validate(_id: &str, config: Config, root: &Root) -> Result<Verdict, String> {
        let schema = match (config.schema, config.schema_file) {
            (Some(schema), None) => schema,
            (None, Some(path)) => {
                let text = root.read_to_string(&path).map_err(|e| format!("schema_file {e}"))?;
                serde_json::from_str(&text).map_err(|e| format!("schema_file {path} is not JSON: {e}"))?
            }
            (Some(_), Some(_)) => return Err("config has both `schema` and `schema_file`: give one".into()),
            (None, None) => return Err("config needs `schema` (inline) or `schema_file` (a path in the root)".into()),
        };
        let validator =
            jsonschema::options().with_retriever(NoRemoteRefs).build(&schema).map_err(|e| match e.kind() {
                // A relative `$ref` with no base URI fails before reaching the retriever.
                ValidationErrorKind::Referencing(_) if !e.to_string().contains(NO_FETCH) => {
                    format!("the schema is unusable: {e} ({NO_FETCH}; put the definitions in the schema's $defs)")
                }
                _ => format!("the schema is unusable: {e}"),
            })?;

        let file = config.file.trim_start_matches("./");
        let text = root.read_to_string(file).map_err(|e| format!("cannot read the file to validate: {e}"))?;
        let instance: Value = match serde_json::from_str(&text) {
            Ok(value) => value,
            Err(e) => {
                let line = u32::try_from(e.line()).ok().filter(|l| *l > 0);
                return Ok(Verdict::fail(format!("{file} is not JSON: {e}")).with_evidence(
                    file,
                    line,
                    format!("does not parse: {e}"),
                ));
            }
        };

        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| {
                let at = e.instance_path().as_str();
                format!("{}: {e}", if at.is_empty() { "/" } else { at })
            })
            .collect();
        if errors.is_empty() {
            return Ok(Verdict::pass(format!("{file} conforms to the schema")));
        }
        let shown = errors.len().min(MAX_EVIDENCE);
        let mut verdict = Verdict::fail(format!(
            "{file} does not conform to the schema: {} error{}{}; first: {}",
            errors.len(),
            if errors.len() == 1 { "" } else { "s" },
            if shown < errors.len() { format!(" ({shown} shown)") } else { String::new() },
            errors[0]
        ));
        for error in errors.into_iter().take(MAX_EVIDENCE) {
            verdict = verdict.with_evidence(file, None, error);
        }
        Ok(verdict)
    }
}

reviewhost_guest::export_validator!(JsonSchema);

#[cfg(test)]
mod tests {
    use super::*;
    use reviewhost_guest::run_validator;
    use serde_json::json;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    fn run(dir: &tempfile::TempDir, config: Value) -> Result<Verdict, String> {
        run_validator::<JsonSchema>("JS-1", &config.to_string(), &Root::at(dir.path()))
    }

    fn schema() -> Value {
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "required": ["name", "port"],
            "properties": {
                "name": {"type": "string"},
                "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                "tags": {"type": "array", "items": {"type": "string"}}
            }
        })
    }

    #[test]
    fn a_conforming_file_passes_with_inline_or_file_schema() {
        let dir = tree(&[
            ("config/settings.json", r#"{"name": "api", "port": 8080, "tags": ["a"]}"#),
            ("schemas/settings.json", &schema().to_string()),
        ]);
        let verdict = run(&dir, json!({"file": "config/settings.json", "schema": schema()})).unwrap();
        assert!(verdict.passed, "{verdict:?}");
        assert_eq!(verdict.message, "config/settings.json conforms to the schema");
        let verdict =
            run(&dir, json!({"file": "./config/settings.json", "schema_file": "schemas/settings.json"})).unwrap();
        assert!(verdict.passed, "{verdict:?}");
    }

    #[test]
    fn each_validation_error_is_evidence() {
        let dir = tree(&[("settings.json", r#"{"port": 70000, "tags": ["a", 2]}"#)]);
        let verdict = run(&dir, json!({"file": "settings.json", "schema": schema()})).unwrap();
        assert!(!verdict.passed);
        assert!(verdict.message.contains("3 errors"), "{}", verdict.message);
        let mut texts: Vec<_> = verdict.evidence.iter().map(|e| e.text.as_str()).collect();
        texts.sort();
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert!(texts[0].starts_with("/: ") && texts[0].contains("\"name\" is a required property"), "{texts:?}");
        assert!(texts[1].starts_with("/port: 70000"), "{texts:?}");
        assert!(texts[2].starts_with("/tags/1: 2 is not of type \"string\""), "{texts:?}");
        assert!(verdict.evidence.iter().all(|e| e.path == "settings.json" && e.line.is_none()));
    }

    #[test]
    fn draft_2020_12_and_local_refs_work_and_evidence_is_capped() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {"small": {"type": "integer", "maximum": 9}},
            "type": "array",
            "prefixItems": [{"type": "string"}],
            "items": {"$ref": "#/$defs/small"}
        });
        let items: Vec<Value> = std::iter::once(json!("head")).chain((0..80).map(|i| json!(i))).collect();
        let dir = tree(&[("list.json", &Value::Array(items).to_string())]);
        let verdict = run(&dir, json!({"file": "list.json", "schema": schema})).unwrap();
        assert!(!verdict.passed);
        assert_eq!(verdict.evidence.len(), MAX_EVIDENCE);
        assert!(verdict.message.contains("70 errors (50 shown)"), "{}", verdict.message);
        assert_eq!(verdict.evidence[0].text, "/11: 10 is greater than the maximum of 9");
    }

    #[test]
    fn a_file_that_is_not_json_fails_where_it_breaks() {
        let dir = tree(&[("settings.json", "{\n  \"name\": \"api\",\n}\n")]);
        let verdict = run(&dir, json!({"file": "settings.json", "schema": schema()})).unwrap();
        assert!(!verdict.passed);
        assert_eq!(verdict.evidence.len(), 1);
        assert_eq!(verdict.evidence[0].line, Some(3));
        assert!(verdict.evidence[0].text.starts_with("does not parse: "), "{:?}", verdict.evidence);
    }

    #[test]
    fn unusable_configs_and_schemas_are_errors() {
        let dir = tree(&[("settings.json", "{}"), ("bad-schema.json", "{")]);
        let err = run(&dir, json!({"schema": schema()})).unwrap_err();
        assert!(err.contains("missing field `file`"), "{err}");
        let err = run(&dir, json!({"file": "settings.json"})).unwrap_err();
        assert!(err.contains("needs `schema`"), "{err}");
        let err = run(&dir, json!({"file": "settings.json", "schema": {}, "schema_file": "x"})).unwrap_err();
        assert!(err.contains("both"), "{err}");
        let err = run(&dir, json!({"file": "missing.json", "schema": schema()})).unwrap_err();
        assert!(err.contains("cannot read the file to validate: missing.json"), "{err}");
        let err = run(&dir, json!({"file": "settings.json", "schema_file": "bad-schema.json"})).unwrap_err();
        assert!(err.contains("schema_file bad-schema.json is not JSON"), "{err}");
        let err = run(&dir, json!({"file": "settings.json", "schema": {"type": "no-such-type"}})).unwrap_err();
        assert!(err.contains("the schema is unusable"), "{err}");
    }

    #[test]
    fn external_refs_are_refused_with_a_clear_error() {
        let dir = tree(&[("settings.json", "{}"), ("other.json", "{}")]);
        let err =
            run(&dir, json!({"file": "settings.json", "schema": {"$ref": "https://example.com/s.json"}})).unwrap_err();
        assert!(err.starts_with("the schema is unusable: "), "{err}");
        assert!(
            err.contains("external $ref 'https://example.com/s.json' is not supported: the sandbox has no network")
        );
        let err = run(&dir, json!({"file": "settings.json", "schema": {"$ref": "other.json"}})).unwrap_err();
        assert!(err.contains("'other.json'") && err.contains("the sandbox has no network"), "{err}");
    }
}
