//! The planning loop's phases and how a run ends: shared by the machine, its state and
//! its events.

use serde::{Deserialize, Serialize};

/// A phase of the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanPhase {
    Understand,
    Explore,
    Alternatives,
    Draft,
    Critique,
    Revise,
    /// After the last revise without the promise: revise again until the promise or
    /// `--max-phases` (plansmith's synthetic phase).
    Iterate,
}

impl PlanPhase {
    pub fn as_str(self) -> &'static str {
        match self {
            PlanPhase::Understand => "understand",
            PlanPhase::Explore => "explore",
            PlanPhase::Alternatives => "alternatives",
            PlanPhase::Draft => "draft",
            PlanPhase::Critique => "critique",
            PlanPhase::Revise => "revise",
            PlanPhase::Iterate => "iterate",
        }
    }

    /// The agent definition that answers this phase.
    pub fn agent(self) -> &'static str {
        match self {
            PlanPhase::Understand => "plan-understand",
            PlanPhase::Explore => "plan-explore",
            PlanPhase::Alternatives => "plan-alternatives",
            PlanPhase::Draft => "plan-draft",
            PlanPhase::Critique => "plan-critique",
            PlanPhase::Revise | PlanPhase::Iterate => "plan-revise",
        }
    }

    /// Whether the answer is a (revised) plan.
    pub(super) fn is_plan(self) -> bool {
        matches!(self, PlanPhase::Draft | PlanPhase::Revise | PlanPhase::Iterate)
    }
}

impl std::fmt::Display for PlanPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a plan run ended. Exit statuses: see [`PlanEnd::exit_code`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanEnd {
    /// The final revision carried the promise and met its contract.
    Completed,
    /// `--max-phases` phases ran without a completed plan.
    MaxPhasesReached,
    /// A phase missed its contract on every attempt (fail-closed).
    RetriesExhausted,
    /// `--max-calls` agent calls were made without a completed plan.
    CallLimitReached,
    /// The operator cancelled (Ctrl-C, or `reviewhost plan --cancel`).
    Cancelled,
}

impl PlanEnd {
    pub fn as_str(self) -> &'static str {
        match self {
            PlanEnd::Completed => "completed",
            PlanEnd::MaxPhasesReached => "max_phases_reached",
            PlanEnd::RetriesExhausted => "retries_exhausted",
            PlanEnd::CallLimitReached => "call_limit_reached",
            PlanEnd::Cancelled => "cancelled",
        }
    }

    /// The process's exit status: 0 completed, 1 max phases reached, 3 retries
    /// exhausted, 4 call limit reached, 130 cancelled (2 stays "could not run").
    pub fn exit_code(self) -> u8 {
        match self {
            PlanEnd::Completed => 0,
            PlanEnd::MaxPhasesReached => 1,
            PlanEnd::RetriesExhausted => 3,
            PlanEnd::CallLimitReached => 4,
            PlanEnd::Cancelled => 130,
        }
    }
}
