//! `reviewhost test COMPONENT --fixtures DIR`: a validator against fixture cases.
//!
//! A case is a directory with `case.json` and the tree to check under `root/`:
//!
//! ```json
//! { "id": "optional, defaults to the case name",
//!   "config": { ... },
//!   "expect": { "status": "pass" | "fail" | "error", "message_contains": "optional" } }
//! ```
//!
//! Each case runs exactly as a `custom` assertion would: same sandbox, same limits.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use crate::assertion::Status;
use crate::check::Outcome;
use crate::sandbox::{CheckComponent, Input, RootDir, Sandbox, Task, View};

/// Why fixtures could not be run (exit code 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FixtureError {
    #[error("{}: {reason}", path.display())]
    Invalid { path: PathBuf, reason: String },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: Option<String>,
    #[serde(default)]
    config: serde_json::Value,
    expect: Expect,
}

/// What a case expects.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub status: Status,
    pub message_contains: Option<String>,
}

/// One case's result.
#[derive(Debug)]
pub struct CaseResult {
    pub name: String,
    pub expect: Expect,
    pub outcome: Outcome,
}

impl CaseResult {
    pub fn matches(&self) -> bool {
        self.outcome.status == self.expect.status
            && self.expect.message_contains.as_ref().is_none_or(|m| self.outcome.message.contains(m.as_str()))
    }
}

/// Runs `component` on every case under `dir`, in name order.
pub fn run(sandbox: &Sandbox, component: &CheckComponent, dir: &Path) -> Result<Vec<CaseResult>, FixtureError> {
    let invalid = |path: &Path, reason: String| FixtureError::Invalid { path: path.to_path_buf(), reason };
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| invalid(dir, format!("cannot read the fixtures directory: {e}")))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    cases.sort();
    if cases.is_empty() {
        return Err(invalid(dir, "no cases: expected subdirectories with a case.json and a root/".into()));
    }
    let component = Arc::new(component.clone());
    let (mut tasks, mut expected) = (Vec::new(), Vec::new());
    for case_dir in cases {
        let name = case_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let case_file = case_dir.join("case.json");
        let text = std::fs::read(&case_file).map_err(|e| invalid(&case_file, e.to_string()))?;
        let case: Case = serde_json::from_slice(&text).map_err(|e| invalid(&case_file, e.to_string()))?;
        let root = RootDir::new(&case_dir.join("root")).map_err(|e| invalid(&case_dir.join("root"), e.to_string()))?;
        let input = Input::Validate { id: case.id.unwrap_or_else(|| name.clone()), config: case.config.to_string() };
        tasks.push(Task { component: component.clone(), input, view: View::whole(&root) });
        expected.push((name, case.expect));
    }
    let evaluations = sandbox.evaluate_all(tasks, |_| {});
    Ok(expected
        .into_iter()
        .zip(evaluations)
        .map(|((name, expect), evaluation)| CaseResult { name, expect, outcome: Outcome::from_evaluation(evaluation) })
        .collect())
}
