//! What `reviewhost plan-review` appends to `events.jsonl` (seed 002's events and
//! fields), besides the agent events of [`crate::review::core::event`].

use serde::Serialize;

use super::verdict::Verdict;
use crate::review::core::event::LogEvent;

/// One line of `events.jsonl` of the plan review.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event<'a> {
    /// `reviewhost plan-review`: a plan's loop starts (seed 002's event and fields).
    ReviewLoopStart { plan: &'a str, max_cycles: u32, correlation_id: &'a str },
    /// A cycle's computed verdict.
    ReviewLoopCycle {
        plan: &'a str,
        cycle: u32,
        verdict: Verdict,
        high_count: usize,
        finding_count: usize,
        correlation_id: &'a str,
    },
    /// A plan's loop ended: passed (approve or conditional) or HARD STOP (reject).
    ReviewLoopEnd { plan: &'a str, cycles_used: u32, final_verdict: Verdict, correlation_id: &'a str },
    /// A reviewer's answer could not be used (asked again once, then the review fails).
    ReviewParseFailure { plan: &'a str, cycle: u32, attempt: u32, reason: &'a str, correlation_id: &'a str },
    /// The reviewer's own verdict differs from the one its findings make.
    ReviewVerdictDisagreement {
        plan: &'a str,
        cycle: u32,
        agent_verdict: Verdict,
        computed: Verdict,
        correlation_id: &'a str,
    },
}

impl LogEvent for Event<'_> {}
