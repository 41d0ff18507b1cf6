//! What `reviewhost plan-gate` appends to `events.jsonl`, besides the agent and
//! parse-gate events of [`crate::review::core::event`].

use serde::Serialize;

use super::verdicts::{Decision, Escalation, GateStatus, Recommendation};
use crate::review::core::event::LogEvent;

/// One line of `events.jsonl` of the plan gate.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event<'a> {
    /// `reviewhost plan-gate` started (or resumed).
    GateStart { plan: &'a str, idea: bool, resume: bool },
    /// Conformance and critic judged the plan (recommendations computed here).
    GateRound { plan: &'a str, revision: u32, conformance: Recommendation, critic: Recommendation },
    /// An agent's own recommendation differed from the one computed from its findings.
    GateRecommendationOverruled { plan: &'a str, agent: &'a str, said: Recommendation, computed: Recommendation },
    /// An overviewer citation that did not check out after it was asked again.
    EvidenceUnverified { plan: &'a str, finding: &'a str, reason: &'a str },
    /// A person was asked to decide: the decision, or null while it waits.
    GateEscalation { plan: &'a str, escalation: Escalation, decision: Option<Decision> },
    /// The overviewer's questions went to a person: the ids answered so far, and those
    /// still waiting (the answers themselves are in the state, not the log).
    GateQuestions { plan: &'a str, answered: Vec<&'a str>, waiting: Vec<&'a str> },
    /// The gate ended (or stopped for a decision).
    GateEnd { plan: &'a str, status: GateStatus, revisions: u32, overviewer_rounds: u32, sha256: Option<&'a str> },
}

impl LogEvent for Event<'_> {}
