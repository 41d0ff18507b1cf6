//! What the fix-diff review (`reviewhost fix-review`, and a stage of `reviewhost review`)
//! appends to `events.jsonl`, besides the agent and parse-gate events of
//! [`crate::review::core::event`].

use serde::Serialize;

use crate::review::core::event::LogEvent;

/// One line of `events.jsonl` of the fix-diff review.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event<'a> {
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
}

impl LogEvent for Event<'_> {}
