//! What `reviewhost plan` appends to `events.jsonl`, besides the agent and parse-gate
//! events of [`crate::review::core::event`].

use std::path::Path;

use serde::Serialize;

use super::phases::{PlanEnd, PlanPhase};
use crate::review::core::contract::Violation;
use crate::review::core::event::LogEvent;

/// One line of `events.jsonl` of the planning loop.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event<'a> {
    /// `reviewhost plan` started.
    PlanStart { root: &'a Path, request_bytes: usize, phases: &'a [PlanPhase], max_phases: u32, max_calls: u32 },
    /// A phase (1-based `index`) starts.
    PhaseStart { index: u32, phase: PlanPhase },
    /// An answer was judged by its output contract: `met`, or the violations.
    ContractResult {
        index: u32,
        phase: PlanPhase,
        agent: &'a str,
        attempt: u32,
        met: bool,
        violations: &'a [Violation],
    },
    /// A phase's answer was accepted after `attempts` calls: the machine goes on to
    /// `next`, or (`next` null) the plan is complete.
    PhaseEnd { index: u32, phase: PlanPhase, attempts: u32, next: Option<PlanPhase> },
    /// The plan run ended, with the saved plan if there is one.
    PlanEnd { end_state: PlanEnd, phases_run: u32, calls: u32, plan: Option<&'a Path> },
    /// The plan run stopped without an end state (a failed agent call, a contract that
    /// could not judge, a prompt over budget): exit 2.
    PlanAborted { index: u32, phase: PlanPhase, reason: &'a str },
}

impl LogEvent for Event<'_> {}
