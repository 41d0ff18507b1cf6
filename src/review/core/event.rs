//! What a review appends to `.reviewhost/events.jsonl`: one variant per event, with its
//! fields, so an event's name and fields are defined here once and cannot be misspelt
//! at a call site. [`super::workspace::Workspace::event`] writes them, each line
//! `{"ts": …, "event": NAME, …fields}`.

use std::path::Path;

use serde::Serialize;

use super::contract::Violation;
use super::plan::{PlanEnd, PlanPhase};
use super::plan_gate::{Decision, Escalation, GateStatus, Recommendation};
use super::plan_review::Verdict;
use super::reply::Usage;
use super::state::{EndState, Phase};

/// One line of `events.jsonl`.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event<'a> {
    ReviewStart {
        root: &'a Path,
        max_passes: u32,
        resume: bool,
        pass: u32,
    },
    /// The review is over: with an end state and the number of passes, or `aborted` in
    /// the pass that was aborted.
    ReviewEnd {
        end_state: Ending,
        #[serde(skip_serializing_if = "Option::is_none")]
        passes: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pass: Option<u32>,
    },
    PassStart {
        pass: u32,
    },
    AnalystsSelected {
        pass: u32,
        analysts: Vec<&'a str>,
        /// Files changed since the last pass (`None`: unknown, every analyst runs).
        changed: Option<&'a [String]>,
    },
    AssertionsCollected {
        pass: u32,
        total: usize,
        new: usize,
        carried: usize,
        /// `(id, why)` of each assertion dropped as vacuous.
        rejected: &'a [(String, String)],
    },
    AssertionsRun {
        pass: u32,
        after_fix: bool,
        passed: usize,
        total: usize,
        confidence: f64,
    },
    FixAgent {
        pass: u32,
        failing: usize,
    },
    PassEnd {
        pass: u32,
        confidence: f64,
        passed: usize,
        total: usize,
        failing: usize,
        end_state: Option<EndState>,
    },
    PassAborted {
        pass: u32,
        phase: Phase,
        reason: &'a str,
    },
    /// An analyst's answer did not pass the parse gate (`attempt` 1 or 2).
    ParseGate {
        pass: u32,
        agent: &'a str,
        attempt: u32,
        error: &'a str,
    },
    AgentStart {
        pass: u32,
        agent: &'a str,
        prompt_bytes: usize,
    },
    /// An agent call ended: `ok` with its exit status and answer size, or not, with the
    /// error (and the exit status when the agent exited).
    AgentEnd {
        pass: u32,
        agent: &'a str,
        ok: bool,
        exit: Option<i32>,
        duration_ms: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        response_bytes: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// Tokens, turns and cost, when the CLI reports them.
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<&'a Usage>,
    },
    /// An agent used the sandbox's `sh` or `check` tool (`reviewhost mcp`).
    SandboxCall {
        agent: Option<&'a str>,
        tool: &'a str,
        /// `sh`'s command line, or `check`'s assertion id.
        subject: &'a str,
        /// `sh`: the exit status; `check`: pass, fail or error; or why the call failed.
        result: &'a str,
        duration_ms: f64,
    },
    /// An agent tried tools it was refused (not offered, or not permitted): a
    /// read-only agent that tried to write, for one.
    AgentRefused {
        pass: u32,
        agent: &'a str,
        tools: &'a [String],
    },
    /// A fix round's diff was reviewed (`start` is the pinned start commit): the
    /// findings kept, the critical and high among them, and those rejected.
    FixReview {
        pass: u32,
        round: u32,
        start: &'a str,
        files: usize,
        lines_changed: u64,
        findings: usize,
        blocking: usize,
        rejected: &'a [(String, String)],
        /// Zero findings on a large diff: recorded in `audit-trail.jsonl`.
        audited: bool,
    },
    /// Assertions that passed in an earlier pass and fail now.
    Regressions {
        pass: u32,
        ids: &'a [String],
    },
    /// `reviewhost plan-review`: a plan's loop starts (seed 002's event and fields).
    ReviewLoopStart {
        plan: &'a str,
        max_cycles: u32,
        correlation_id: &'a str,
    },
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
    ReviewLoopEnd {
        plan: &'a str,
        cycles_used: u32,
        final_verdict: Verdict,
        correlation_id: &'a str,
    },
    /// A reviewer's answer could not be used (asked again once, then the review fails).
    ReviewParseFailure {
        plan: &'a str,
        cycle: u32,
        attempt: u32,
        reason: &'a str,
        correlation_id: &'a str,
    },
    /// The reviewer's own verdict differs from the one its findings make.
    ReviewVerdictDisagreement {
        plan: &'a str,
        cycle: u32,
        agent_verdict: Verdict,
        computed: Verdict,
        correlation_id: &'a str,
    },
    /// `reviewhost plan-gate` started (or resumed).
    GateStart {
        plan: &'a str,
        idea: bool,
        resume: bool,
    },
    /// Conformance and critic judged the plan (recommendations computed here).
    GateRound {
        plan: &'a str,
        revision: u32,
        conformance: Recommendation,
        critic: Recommendation,
    },
    /// An agent's own recommendation differed from the one computed from its findings.
    GateRecommendationOverruled {
        plan: &'a str,
        agent: &'a str,
        said: Recommendation,
        computed: Recommendation,
    },
    /// An overviewer citation that did not check out after it was asked again.
    EvidenceUnverified {
        plan: &'a str,
        finding: &'a str,
        reason: &'a str,
    },
    /// A person was asked to decide: the decision, or null while it waits.
    GateEscalation {
        plan: &'a str,
        escalation: Escalation,
        decision: Option<Decision>,
    },
    /// The overviewer's questions went to a person: the ids answered so far, and those
    /// still waiting (the answers themselves are in the state, not the log).
    GateQuestions {
        plan: &'a str,
        answered: Vec<&'a str>,
        waiting: Vec<&'a str>,
    },
    /// The gate ended (or stopped for a decision).
    GateEnd {
        plan: &'a str,
        status: GateStatus,
        revisions: u32,
        overviewer_rounds: u32,
        sha256: Option<&'a str>,
    },
    /// `reviewhost plan` started.
    PlanStart {
        root: &'a Path,
        request_bytes: usize,
        phases: &'a [PlanPhase],
        max_phases: u32,
        max_calls: u32,
    },
    /// A phase (1-based `index`) starts.
    PhaseStart {
        index: u32,
        phase: PlanPhase,
    },
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
    PhaseEnd {
        index: u32,
        phase: PlanPhase,
        attempts: u32,
        next: Option<PlanPhase>,
    },
    /// The plan run ended, with the saved plan if there is one.
    PlanEnd {
        end_state: PlanEnd,
        phases_run: u32,
        calls: u32,
        plan: Option<&'a Path>,
    },
    /// The plan run stopped without an end state (a failed agent call, a contract that
    /// could not judge, a prompt over budget): exit 2.
    PlanAborted {
        index: u32,
        phase: PlanPhase,
        reason: &'a str,
    },
}

/// How a review ended, as `review_end` records it.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub enum Ending {
    Ended(EndState),
    Aborted(Aborted),
}

/// The `aborted` of [`Ending::Aborted`].
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Aborted {
    Aborted,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialize_with_their_name_first_and_their_fields() {
        let line = serde_json::to_value(Event::PassEnd {
            pass: 2,
            confidence: 0.5,
            passed: 1,
            total: 2,
            failing: 1,
            end_state: Some(EndState::Plateau),
        })
        .unwrap();
        assert_eq!(
            line.to_string(),
            r#"{"event":"pass_end","pass":2,"confidence":0.5,"passed":1,"total":2,"failing":1,"end_state":"Plateau"}"#
        );
        let end = Event::ReviewEnd { end_state: Ending::Aborted(Aborted::Aborted), passes: None, pass: Some(3) };
        assert_eq!(
            serde_json::to_value(end).unwrap().to_string(),
            r#"{"event":"review_end","end_state":"aborted","pass":3}"#
        );
        let phase = Event::PassAborted { pass: 1, phase: Phase::Implement, reason: "r" };
        assert_eq!(
            serde_json::to_value(phase).unwrap().to_string(),
            r#"{"event":"pass_aborted","pass":1,"phase":"implement","reason":"r"}"#
        );
    }
}
