//! What the convergence loop (`reviewhost review`) appends to `events.jsonl`, besides
//! the agent and parse-gate events of [`crate::review::core::event`].

use std::path::Path;

use serde::Serialize;

use super::state::{EndState, Phase};
use crate::review::core::event::LogEvent;

/// One line of `events.jsonl` of the convergence loop.
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
    /// Assertions that passed in an earlier pass and fail now.
    Regressions {
        pass: u32,
        ids: &'a [String],
    },
}

impl LogEvent for Event<'_> {}

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
