//! Reading and validating an assertions file. Nothing runs until the whole file is valid.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Assertion, AssertionsFile, COMMAND_TYPES, Kind};

/// Why an assertions file cannot be run. Every variant names the file; field errors
/// also name the assertion (by id, or by position when the id itself is the problem).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    #[error("{}: cannot read the assertions file: {source}", file.display())]
    Read { file: PathBuf, source: crate::sandbox::HostReadError },

    #[error("{}:{line}:{column}: invalid JSON: {message}", file.display())]
    Syntax { file: PathBuf, line: usize, column: usize, message: String },

    #[error("{}: {at}: field `{field}`: {reason}", file.display())]
    Field { file: PathBuf, at: Location, field: String, reason: String },
}

/// Where in the file a field error is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// The top-level object.
    TopLevel,
    /// `assertions[index]`, with its id when it has a usable one.
    Assertion { index: usize, id: Option<String> },
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::TopLevel => f.write_str("top level"),
            Location::Assertion { index, id: Some(id) } => write!(f, "assertion '{id}' (assertions[{index}])"),
            Location::Assertion { index, id: None } => write!(f, "assertions[{index}]"),
        }
    }
}

/// Largest assertions file read: 100,000 assertions take about 30 MB.
pub const MAX_ASSERTIONS_BYTES: u64 = 256 << 20;

/// Reads and validates the assertions file at `file`.
pub fn load(file: &Path) -> Result<AssertionsFile, LoadError> {
    parse(file, &read(file)?)
}

/// The bytes of the assertions file: a regular file of at most [`MAX_ASSERTIONS_BYTES`],
/// read as any file named on an assertion's behalf is (a path committed as a symlink to
/// `/dev/zero` or a FIFO is refused on the descriptor, without blocking).
pub fn read(file: &Path) -> Result<Vec<u8>, LoadError> {
    crate::sandbox::read_file(&crate::sandbox::Base::Ambient, file, MAX_ASSERTIONS_BYTES)
        .map_err(|source| LoadError::Read { file: file.to_path_buf(), source })
}

/// Validates `bytes` as the contents of `file`.
pub fn parse(file: &Path, bytes: &[u8]) -> Result<AssertionsFile, LoadError> {
    let doc: Value = serde_json::from_slice(bytes).map_err(|e| LoadError::Syntax {
        file: file.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    })?;
    let field_error = |at: Location, field: &str, reason: String| LoadError::Field {
        file: file.to_path_buf(),
        at,
        field: field.to_string(),
        reason,
    };

    let top = doc.as_object().ok_or_else(|| {
        field_error(Location::TopLevel, "(document)", format!("expected an object, found {}", kind(&doc)))
    })?;
    if let Some(field) = grant_field(top) {
        return Err(field_error(Location::TopLevel, field, GRANT_REFUSED.into()));
    }
    for (field, expected) in
        [("plugin", "a string"), ("max_passes", "a non-negative integer"), ("current_pass", "a non-negative integer")]
    {
        match top.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::String(_)) if field == "plugin" => {}
            Some(Value::Number(n)) if field != "plugin" && n.is_u64() => {}
            Some(other) => {
                return Err(field_error(
                    Location::TopLevel,
                    field,
                    format!("expected {expected}, found {}", kind(other)),
                ));
            }
        }
    }
    match top.get("confidence") {
        None | Some(Value::Null) | Some(Value::Object(_)) => {}
        Some(other) => {
            return Err(field_error(
                Location::TopLevel,
                "confidence",
                format!("expected an object, found {}", kind(other)),
            ));
        }
    }
    let list = match top.get("assertions") {
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(field_error(
                Location::TopLevel,
                "assertions",
                format!("expected an array, found {}", kind(other)),
            ));
        }
        None => {
            return Err(field_error(
                Location::TopLevel,
                "assertions",
                "missing: the file has no `assertions` array".into(),
            ));
        }
    };

    let mut seen = HashSet::new();
    let mut assertions = Vec::with_capacity(list.len());
    for (index, value) in list.iter().enumerate() {
        let assertion = parse_assertion(index, value).map_err(|(at, field, reason)| field_error(at, field, reason))?;
        if !seen.insert(assertion.id.clone()) {
            let at = Location::Assertion { index, id: Some(assertion.id.clone()) };
            return Err(field_error(at, "id", "duplicate id: an earlier assertion has the same id".into()));
        }
        assertions.push(assertion);
    }
    Ok(AssertionsFile { path: file.to_path_buf(), doc, assertions })
}

type FieldError = (Location, &'static str, String);

/// Fields by which an assertions file might try to grant itself host programs. Grants
/// are the operator's alone; a file that asks is refused outright, so nobody mistakes
/// it for a grant that worked.
const GRANT_FIELDS: &[&str] =
    &["allow_programs", "allow_program", "allowed_programs", "allow_unconfined_programs", "grants", "grant"];

const GRANT_REFUSED: &str = "an assertions file cannot grant host programs: grants are the operator's \
     (reviewhost run --allow-program NAME, or [run] allow_programs in the operator's reviewhost.toml)";

/// The first of [`GRANT_FIELDS`] in `object`.
fn grant_field(object: &serde_json::Map<String, Value>) -> Option<&'static str> {
    GRANT_FIELDS.iter().copied().find(|field| object.contains_key(*field))
}

fn parse_assertion(index: usize, value: &Value) -> Result<Assertion, FieldError> {
    let unnamed = Location::Assertion { index, id: None };
    let object = value
        .as_object()
        .ok_or_else(|| (unnamed.clone(), "(assertion)", format!("expected an object, found {}", kind(value))))?;
    let id = match object.get("id") {
        Some(Value::String(id)) if !id.trim().is_empty() => id.clone(),
        Some(Value::String(_)) => return Err((unnamed, "id", "must not be empty".into())),
        Some(other) => return Err((unnamed, "id", format!("expected a string, found {}", kind(other)))),
        None => return Err((unnamed, "id", "missing".into())),
    };
    let at = Location::Assertion { index, id: Some(id.clone()) };
    if let Some(field) = grant_field(object) {
        return Err((at, field, GRANT_REFUSED.into()));
    }
    let type_name = match object.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(other) => return Err((at, "type", format!("expected a string, found {}", kind(other)))),
        None => return Err((at, "type", "missing".into())),
    };
    let description = match object.get("description") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(d)) => d.clone(),
        Some(other) => return Err((at, "description", format!("expected a string, found {}", kind(other)))),
    };
    let text = |field: &'static str| -> Result<String, FieldError> {
        match object.get(field) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            Some(Value::String(_)) => Err((at.clone(), field, format!("must not be empty for type '{type_name}'"))),
            None | Some(Value::Null) => Err((at.clone(), field, format!("missing: type '{type_name}' needs it"))),
            Some(other) => Err((at.clone(), field, format!("expected a string, found {}", kind(other)))),
        }
    };
    let kind = match type_name.as_str() {
        "file_exists" => Kind::FileExists { path: text("path")? },
        "file_content" => Kind::FileContent { path: text("path")?, needle: text("needle")? },
        t if COMMAND_TYPES.contains(&t) => Kind::Command { command: text("command")? },
        "custom" => custom(object, &at, text("component")?)?,
        _ => Kind::Unknown,
    };
    Ok(Assertion { id, type_name, kind, description, object: object.clone() })
}

/// The fields of a `custom` assertion beyond `component`.
fn custom(object: &serde_json::Map<String, Value>, at: &Location, component: String) -> Result<Kind, FieldError> {
    let sha256 = match object.get("sha256") {
        None | Some(Value::Null) => None,
        Some(Value::String(h)) if h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Some(h.to_ascii_lowercase())
        }
        Some(Value::String(_)) => return Err((at.clone(), "sha256", "must be 64 hexadecimal digits".into())),
        Some(other) => return Err((at.clone(), "sha256", format!("expected a string, found {}", kind(other)))),
    };
    let paths = match object.get("paths") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) if !items.is_empty() => Some(
            items
                .iter()
                .map(|p| match p {
                    Value::String(p) if !p.is_empty() => Ok(p.clone()),
                    other => Err((at.clone(), "paths", format!("expected non-empty strings, found {}", kind(other)))),
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(Value::Array(_)) => {
            return Err((at.clone(), "paths", "must not be empty (omit it to see the whole root)".into()));
        }
        Some(other) => return Err((at.clone(), "paths", format!("expected an array of paths, found {}", kind(other)))),
    };
    let config = object.get("config").cloned().unwrap_or(Value::Null);
    Ok(Kind::Custom { component, sha256, config, paths })
}

/// A JSON value's kind, for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// serde_json appends " at line L column C"; the error already carries them.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(json: &str) -> String {
        parse(Path::new("a.json"), json.as_bytes()).unwrap_err().to_string()
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        assert_eq!(err("{\n  \"assertions\": [,]\n}"), "a.json:2:18: invalid JSON: expected value");
    }

    #[test]
    fn field_errors_name_the_assertion_and_field() {
        assert_eq!(
            err(r#"{"plugin": "x"}"#),
            "a.json: top level: field `assertions`: missing: the file has no `assertions` array"
        );
        assert_eq!(
            err(r#"{"assertions": {}}"#),
            "a.json: top level: field `assertions`: expected an array, found an object"
        );
        assert_eq!(err(r#"{"assertions": [{"type": "file_exists"}]}"#), "a.json: assertions[0]: field `id`: missing");
        assert_eq!(
            err(r#"{"assertions": [{"id": "A-1"}]}"#),
            "a.json: assertion 'A-1' (assertions[0]): field `type`: missing"
        );
        assert_eq!(
            err(r#"{"assertions": [{"id": "A-1", "type": "file_exists", "path": ""}]}"#),
            "a.json: assertion 'A-1' (assertions[0]): field `path`: must not be empty for type 'file_exists'"
        );
        assert_eq!(
            err(r#"{"assertions": [{"id": "A", "type": "grep_match", "command": "true"}, {"id": "A", "type": "x"}]}"#),
            "a.json: assertion 'A' (assertions[1]): field `id`: duplicate id: an earlier assertion has the same id"
        );
        assert_eq!(
            err(r#"{"assertions": [{"id": "B", "type": "shell_exit_zero", "command": 7}]}"#),
            "a.json: assertion 'B' (assertions[0]): field `command`: expected a string, found a number"
        );
        assert_eq!(
            err(r#"{"max_passes": "5", "assertions": []}"#),
            "a.json: top level: field `max_passes`: expected a non-negative integer, found a string"
        );
    }

    #[test]
    fn custom_fields_are_validated() {
        assert_eq!(
            err(r#"{"assertions": [{"id": "C", "type": "custom"}]}"#),
            "a.json: assertion 'C' (assertions[0]): field `component`: missing: type 'custom' needs it"
        );
        assert_eq!(
            err(r#"{"assertions": [{"id": "C", "type": "custom", "component": "c.wasm", "sha256": "abc"}]}"#),
            "a.json: assertion 'C' (assertions[0]): field `sha256`: must be 64 hexadecimal digits"
        );
        assert_eq!(
            err(r#"{"assertions": [{"id": "C", "type": "custom", "component": "c.wasm", "paths": "src"}]}"#),
            "a.json: assertion 'C' (assertions[0]): field `paths`: expected an array of paths, found a string"
        );
        let file = parse(
            Path::new("a.json"),
            br#"{"assertions": [{"id": "C", "type": "custom", "component": "c.wasm", "config": {"n": 1}, "paths": ["src"]}]}"#,
        )
        .unwrap();
        assert_eq!(
            file.assertions()[0].kind,
            Kind::Custom {
                component: "c.wasm".into(),
                sha256: None,
                config: serde_json::json!({"n": 1}),
                paths: Some(vec!["src".into()])
            }
        );
    }

    #[test]
    fn an_assertions_file_cannot_grant_programs() {
        let error = parse(Path::new("a.json"), br#"{"allow_programs": ["npx"], "assertions": []}"#).unwrap_err();
        assert!(
            error.to_string().starts_with("a.json: top level: field `allow_programs`: an assertions file cannot grant"),
            "{error}"
        );
        let error = parse(
            Path::new("a.json"),
            br#"{"assertions": [{"id": "T", "type": "typescript_compile", "command": "npx tsc", "grants": ["npx"]}]}"#,
        )
        .unwrap_err();
        assert!(error.to_string().starts_with("a.json: assertion 'T' (assertions[0]): field `grants`: "), "{error}");
    }

    #[test]
    fn unknown_types_load() {
        let file = parse(Path::new("a.json"), br#"{"assertions": [{"id": "X", "type": "frobnicate"}]}"#).unwrap();
        assert_eq!(file.assertions()[0].kind, Kind::Unknown);
        assert_eq!(file.assertions()[0].type_name, "frobnicate");
    }
}
