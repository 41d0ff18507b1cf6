//! Seed 000's state in `state.json`: where the convergence loop is (status, pass, phase),
//! the passes it has finished and how it ended. [`Workspace`] reads and writes it;
//! [`super`] (the loop) moves it forward.
//!
//! [`Workspace`]: crate::review::core::workspace::Workspace

use serde::{Deserialize, Serialize};

// The refusals a pass records are the ones the agents' ledger books.
pub use crate::review::core::agent::Refusal;
use crate::review::core::reply::Usage;

/// The state file of `reviewhost review` in `.reviewhost/`.
pub const FILE: &str = "state.json";

/// The loop's position, in `state.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct State {
    pub version: u32,
    pub status: Status,
    /// The pass in progress (1-based).
    pub pass: u32,
    /// The phase of that pass.
    pub phase: Phase,
    pub max_passes: u32,
    /// The assertions file, relative to the root when inside it.
    pub assertions_file: String,
    /// Finished passes.
    pub passes: Vec<PassRecord>,
    /// Why the last pass was aborted, while `status` is `aborted`.
    #[serde(default)]
    pub aborted: Option<String>,
    /// How the review ended, once `status` is `ended`.
    #[serde(default)]
    pub end_state: Option<EndState>,
    /// What the agents of every pass used, as far as their CLIs report it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Ids of the assertions that passed at the end of some pass: one failing later is
    /// a regression.
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub passed_ever: std::collections::BTreeSet<String>,
    /// Where the next fix-diff review starts while earlier changes are not yet reviewed
    /// clean: the snapshot of the earliest pass whose critical or high findings are
    /// still open, or whose changes could not be reviewed. `None`: each pass reviews
    /// its own changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_from: Option<ReviewFrom>,
    /// The critical and high fix-diff findings still open: carried from pass to pass
    /// until a review of the code they name no longer reports them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub open_findings: Vec<serde_json::Value>,
}

/// The start of the changes not yet reviewed clean.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum ReviewFrom {
    /// The snapshot commit of that pass's start.
    Snapshot(String),
    /// No snapshot of that start could be made (the reason): those changes can never be
    /// reviewed, so no later pass ends at Zero findings.
    Unknown(String),
}

/// Where a review is, as `state.json` records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Running,
    /// A pass was aborted; `--resume` continues it.
    Aborted,
    Ended,
}

impl Status {
    /// The status as `state.json` names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Aborted => "aborted",
            Status::Ended => "ended",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The phase of a pass, in the order a pass goes through them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Analysts,
    Collect,
    Implement,
    Run,
    Fix,
    FixReview,
    Report,
    /// The review has ended.
    Done,
}

/// One finished pass.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PassRecord {
    pub pass: u32,
    pub total: usize,
    pub new: usize,
    pub carried: usize,
    pub passed: usize,
    /// Assertions failing at the end of the pass: the open findings.
    pub failing: usize,
    pub confidence: f64,
    /// Analysts that ran this pass.
    pub analysts: Vec<String>,
    /// The commit under `refs/reviewhost/` holding the tree the pass started from.
    #[serde(default)]
    pub snapshot: Option<String>,
    /// What the pass's agent calls used, as far as their CLIs report it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Tools agents tried and were refused during the pass.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Refusal>,
    /// Assertions that passed in an earlier pass and still fail at the end of this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regressions: Vec<String>,
    /// Fix-diff review rounds run in this pass.
    #[serde(default)]
    pub fix_review_rounds: u32,
    /// Critical and high findings of the pass's last fix-diff review: they block Zero
    /// findings.
    #[serde(default)]
    pub blocking_findings: usize,
    /// Why the pass's changes could not be reviewed (no snapshot, a diff git could not
    /// give or the reviewer could not be shown): it blocks Zero findings as a finding
    /// does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreviewed: Option<String>,
    /// The critical and high findings open at the end of the pass (the pass's own and
    /// those carried from earlier passes that its review still reports).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub open_findings: Vec<serde_json::Value>,
}

/// How a review ended (exit 0 for `ZeroFindings`, 1 for the others).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EndState {
    /// Every assertion passes.
    #[serde(rename = "Zero findings")]
    ZeroFindings,
    /// The pass budget is spent with assertions still failing.
    #[serde(rename = "Budget reached")]
    BudgetReached,
    /// Confidence did not rise for two passes.
    Plateau,
    /// More open findings than the pass before.
    Divergence,
    /// The agents' spending passed `--max-cost`.
    #[serde(rename = "Cost limit")]
    CostLimit,
}

impl EndState {
    pub fn as_str(self) -> &'static str {
        match self {
            EndState::ZeroFindings => "Zero findings",
            EndState::BudgetReached => "Budget reached",
            EndState::Plateau => "Plateau",
            EndState::Divergence => "Divergence",
            EndState::CostLimit => "Cost limit",
        }
    }
}
