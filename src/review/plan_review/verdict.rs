//! A plan review's verdict (seed 002's approve, conditional, reject), as the reviewer
//! gives it and as the loop computes it from the findings: shared by the loop and its
//! events.

use serde::{Deserialize, Serialize};

/// A review's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Approve,
    Conditional,
    Reject,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approve => "approve",
            Verdict::Conditional => "conditional",
            Verdict::Reject => "reject",
        }
    }

    pub(super) fn parse(text: &str) -> Option<Verdict> {
        match text.trim().to_ascii_lowercase().as_str() {
            "approve" => Some(Verdict::Approve),
            "conditional" => Some(Verdict::Conditional),
            "reject" => Some(Verdict::Reject),
            _ => None,
        }
    }
}
