//! What the plan gate's reviewers recommend, where a person must decide and what they
//! decide, and where the gate stands: the vocabulary the loop, its state and its events
//! share.

use serde::{Deserialize, Serialize};
use serde_json::json;

/// A reviewer's recommendation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Recommendation {
    Approve,
    Revise,
    Escalate,
}

impl Recommendation {
    pub fn as_str(self) -> &'static str {
        match self {
            Recommendation::Approve => "APPROVE",
            Recommendation::Revise => "REVISE",
            Recommendation::Escalate => "ESCALATE",
        }
    }

    pub(super) fn parse(text: &str) -> Option<Recommendation> {
        serde_json::from_value(json!(text)).ok()
    }
}

/// Where a person must decide, and what they may choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Escalation {
    /// 5 revisions were made.
    RevisionCap,
    /// The critic's HIGH and CRITICAL ids did not change in a revision.
    Stagnation,
    /// Conformance found errors the author did not fix.
    ConformanceEscalate,
    /// The critic found a CRITICAL problem.
    CriticEscalate,
    /// The overviewer still has concerns after 3 rounds.
    OverviewerRounds,
}

impl Escalation {
    /// The question, as the original asks it.
    pub fn question(self) -> &'static str {
        match self {
            Escalation::RevisionCap => "The plan was revised 5 times without approval. How should we proceed?",
            Escalation::Stagnation => {
                "The critic raised the same HIGH findings after a revision. How should we proceed?"
            }
            Escalation::ConformanceEscalate => {
                "Conformance found errors in the plan's structure. How should we proceed?"
            }
            Escalation::CriticEscalate => "The critic found a CRITICAL problem. How should we proceed?",
            Escalation::OverviewerRounds => "Overviewer still has concerns after 3 rounds. How should we proceed?",
        }
    }

    /// The choices: every escalation offers Accept as-is and Abort; all but the
    /// overviewer's also Start over.
    pub fn choices(self) -> &'static [Decision] {
        match self {
            Escalation::OverviewerRounds => &[Decision::Accept, Decision::Abort],
            _ => &[Decision::StartOver, Decision::Accept, Decision::Abort],
        }
    }
}

/// A person's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// Revise again from the latest feedback, the counters reset.
    StartOver,
    /// Take the plan as it is.
    Accept,
    Abort,
}

impl Decision {
    pub fn label(self) -> &'static str {
        match self {
            Decision::StartOver => "Start over",
            Decision::Accept => "Accept as-is",
            Decision::Abort => "Abort",
        }
    }
}

/// How the gate ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateStatus {
    Running,
    /// Waiting for a person (`--resume --decision`).
    NeedsDecision,
    /// Waiting for a person's answers to the overviewer's questions (`--resume --answers`).
    NeedsAnswers,
    /// The overviewer approved.
    Approved,
    /// A person accepted the plan as it is.
    Accepted,
    /// A person aborted.
    Aborted,
}
