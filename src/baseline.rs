//! Known failures accepted for now: `reviewhost run --baseline FILE`.
//!
//! A baseline maps assertion ids to the [`crate::report::fingerprint`] of their
//! failure (the id and what the check saw). A failure whose id and fingerprint are in
//! the baseline is reported as baselined and does not fail the run; the same assertion
//! failing differently (new evidence) is a new failure. A baselined assertion that now
//! passes is reported, so its entry can be pruned. `--update-baseline` writes the
//! current failures, replacing the file atomically.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::assertion::Status;
use crate::run::RunReport;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Baseline {
    pub version: u32,
    /// id → fingerprint.
    pub entries: BTreeMap<String, String>,
}

/// How a run's failures stand against a baseline.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comparison {
    /// Failing, as baselined.
    pub baselined: Vec<String>,
    /// Failing, and not in the baseline (or failing differently).
    pub new: Vec<String>,
    /// In the baseline, and passing now: the entry can go.
    pub fixed: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("{}: {reason}", path.display())]
pub struct BaselineError {
    path: std::path::PathBuf,
    reason: String,
}

impl Baseline {
    /// Reads a baseline file (a missing one is an error: name it with `--update-baseline`
    /// first).
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let error = |reason: String| BaselineError { path: path.to_path_buf(), reason };
        let bytes = crate::assertion::read(path).map_err(|e| error(e.to_string()))?;
        serde_json::from_slice(&bytes).map_err(|e| error(format!("not a reviewhost baseline: {e}")))
    }

    /// The failures of `report`.
    pub fn of(report: &RunReport) -> Baseline {
        let entries = report
            .results
            .iter()
            .filter(|(_, o)| o.status != Status::Pass)
            .map(|(a, o)| (a.id.clone(), crate::report::fingerprint(a, o)))
            .collect();
        Baseline { version: 1, entries }
    }

    /// Writes it to `path`, atomically, never through a symlink.
    pub fn save(&self, path: &Path) -> Result<(), BaselineError> {
        let error = |reason: String| BaselineError { path: path.to_path_buf(), reason };
        let (dir, name) = crate::write::open_parent(path).map_err(|e| error(e.to_string()))?;
        let value = serde_json::to_value(self).expect("a baseline serializes");
        crate::write::write_json_atomically(&dir, name, &value).map_err(|e| error(e.to_string()))
    }

    /// `report`'s failures against this baseline.
    pub fn compare(&self, report: &RunReport) -> Comparison {
        let mut comparison = Comparison::default();
        for (assertion, outcome) in &report.results {
            let known = self.entries.get(&assertion.id);
            match (outcome.status, known) {
                (Status::Pass, Some(_)) => comparison.fixed.push(assertion.id.clone()),
                (Status::Pass, None) => {}
                (_, Some(print)) if *print == crate::report::fingerprint(assertion, outcome) => {
                    comparison.baselined.push(assertion.id.clone())
                }
                _ => comparison.new.push(assertion.id.clone()),
            }
        }
        comparison
    }
}
