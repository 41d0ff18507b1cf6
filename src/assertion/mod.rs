//! The assertions file: the format seed 000's runner reads and writes.
//!
//! ```json
//! { "plugin": "x", "max_passes": 5, "current_pass": 1,
//!   "assertions": [ { "id": "A-1", "type": "grep_match", "command": "...", ... } ],
//!   "confidence": { "passed": 0, "total": 0, "score": 0.0 } }
//! ```
//!
//! The file is untrusted input and a contract with other tools at once: [`load`]
//! validates everything before anything runs (an error names the file, the assertion
//! and the field, and leaves the file untouched), and [`AssertionsFile::save`] writes
//! back only `status`, `failure_output` and `confidence`, keeping every other field and
//! the key order, atomically.

#[cfg(test)]
mod fuzz_tests;
mod load;
mod save;
pub mod schema;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use load::{LoadError, MAX_ASSERTIONS_BYTES, load, parse, read};
pub use save::{FileLock, SaveError};

/// A loaded, validated assertions file.
#[derive(Debug, Clone)]
pub struct AssertionsFile {
    path: PathBuf,
    /// The document exactly as parsed (key order kept), so the write-back changes only
    /// the fields reviewhost owns.
    doc: Value,
    assertions: Vec<Assertion>,
}

impl AssertionsFile {
    /// Where the file was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The assertions, in file order.
    pub fn assertions(&self) -> &[Assertion] {
        &self.assertions
    }
}

/// One assertion, as validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Assertion {
    pub id: String,
    /// The `type` field as written (also for types reviewhost does not know).
    pub type_name: String,
    pub kind: Kind,
    /// `description`, or empty when absent.
    pub description: String,
    /// The assertion's JSON object as written: the input of the check component.
    pub object: serde_json::Map<String, Value>,
}

/// What an assertion asks, by `type`.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `file_exists`: `path` exists inside the root.
    FileExists { path: String },
    /// `file_content`: the file at `path` contains `needle`.
    FileContent { path: String, needle: String },
    /// `grep_match`, `grep_not_match`, `shell_exit_zero`, `typescript_compile`.
    Command { command: String },
    /// `custom`: the validator component at `component` (pinned by `sha256` when given)
    /// checks the repository with `config`, seeing only `paths` when given.
    Custom { component: String, sha256: Option<String>, config: Value, paths: Option<Vec<String>> },
    /// A type reviewhost does not know: the assertion ends as `error`, the rest runs.
    Unknown,
}

/// The assertion types that carry a `command`.
pub const COMMAND_TYPES: &[&str] = &["grep_match", "grep_not_match", "shell_exit_zero", "typescript_compile"];

/// The outcome written to `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The assertion holds.
    Pass,
    /// The assertion was evaluated and does not hold.
    Fail,
    /// The assertion could not be evaluated (unknown type, a limit, a crashed check):
    /// never counted as passing.
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
        }
    }
}

/// The file's `confidence` object.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Confidence {
    pub passed: usize,
    pub total: usize,
    /// `passed / total` rounded to 4 places; 0.0 for an empty file (as seed 000 does).
    pub score: f64,
}

impl Confidence {
    pub fn new(passed: usize, total: usize) -> Self {
        let score = if total == 0 { 0.0 } else { (passed as f64 / total as f64 * 10_000.0).round() / 10_000.0 };
        Confidence { passed, total, score }
    }

    /// The whole percentage seed 000 prints (`int(score * 100)`, truncating).
    pub fn percent(&self) -> u32 {
        (self.score * 100.0 + 1e-9).floor() as u32
    }
}

/// At most this many characters of a failure go into `failure_output`, as in seed 000.
pub const MAX_FAILURE_OUTPUT_CHARS: usize = 500;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_rounds_like_the_seed() {
        assert_eq!(Confidence::new(2, 3).score, 0.6667);
        assert_eq!(Confidence::new(1, 3).score, 0.3333);
        assert_eq!(Confidence::new(0, 0).score, 0.0);
        assert_eq!(Confidence::new(5, 5).percent(), 100);
        assert_eq!(Confidence::new(2, 3).percent(), 66);
        assert_eq!(Confidence::new(29, 100).percent(), 29);
    }
}
