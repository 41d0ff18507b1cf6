//! Why a review stops without an end state (exit 2): a [`ReviewError`], and for an
//! aborted pass its typed [`AbortCause`]. An abort keeps the state (`--resume` redoes
//! the pass); every other error is about the workspace, the files or the sandbox.

use std::path::PathBuf;

use super::agent::AgentError;
use super::contract::ContractError;
use super::definitions::{DefinitionError, Role};
use super::prompt::OverBudget;
use super::state::Status;
use super::workspace::StateError;
use crate::assertion;

/// Why a review stopped without an end state (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReviewError {
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    Definition(#[from] DefinitionError),
    #[error("a review is in progress in {} (pass {pass}, {status}): continue it with --resume, or remove the directory to start over", dir.display())]
    InProgress { dir: PathBuf, pass: u32, status: Status },
    #[error("there is no review to resume in {}", dir.display())]
    NothingToResume { dir: PathBuf },
    #[error("pass {pass} aborted: {cause} (state kept; continue with `reviewhost review --resume`)")]
    Aborted { pass: u32, cause: AbortCause },
    /// `reviewhost plan-review` stopped in a plan's cycle without a verdict.
    #[error("the review of {plan} stopped in cycle {cycle}: {cause} (continue with `reviewhost plan-review --resume`)")]
    CycleStopped { plan: Box<str>, cycle: u32, cause: AbortCause },
    /// `reviewhost plan-review` cannot review a plan.
    #[error(transparent)]
    PlanReview(Box<super::plan_review::PlanReviewError>),
    /// `reviewhost fix-review` could not review its round.
    #[error("the fix-diff review stopped: {0}")]
    RoundStopped(AbortCause),
    /// `reviewhost plan` stopped in a phase without an end state.
    #[error("plan stopped in phase {index} ({phase}): {cause}")]
    PlanStopped { index: u32, phase: super::plan::PlanPhase, cause: AbortCause },
    #[error(transparent)]
    Run(#[from] crate::run::RunError),
    #[error(transparent)]
    Load(#[from] assertion::LoadError),
    #[error(transparent)]
    Save(#[from] assertion::SaveError),
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}

/// Why a pass was aborted. Its text is what `state.json` (`aborted`), the
/// `pass_aborted` event and the error message say.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AbortCause {
    /// An agent call failed: it could not start, timed out, exited non-zero or answered
    /// with an error.
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// A prompt was over its byte budget (never truncated).
    #[error(transparent)]
    OverBudget(#[from] OverBudget),
    /// An answer failed its parse gate on every attempt ([`super::gate`]).
    #[error("{agent} gave no usable {wants} {}: {reason}", times(*attempts))]
    Unusable { agent: String, wants: &'static str, attempts: u32, reason: String },
    /// The loop needs an agent of this role and none is defined.
    #[error("no agent definition with role {0:?}")]
    NoAgent(Role),
    /// An event could not be written while agents were running.
    #[error(transparent)]
    Workspace(#[from] StateError),
    /// An agent's thread panicked.
    #[error("{} thread panicked", .0.as_str())]
    Panicked(Role),
    /// The assertions file's lock could not be taken.
    #[error("cannot lock the assertions file: {0}")]
    Lock(std::io::Error),
    /// The answers could not be merged into the assertions file.
    #[error("merging the assertions: {0}")]
    Merge(assertion::LoadError),
    /// An answer's output contract could not judge it.
    #[error(transparent)]
    Contract(#[from] ContractError),
    /// A fix round could not be reviewed.
    #[error(transparent)]
    FixReview(#[from] super::fix_review::FixReviewError),
}

fn times(n: u32) -> String {
    match n {
        1 => "once".to_string(),
        2 => "twice".to_string(),
        n => format!("{n} times"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abort_messages_say_what_went_wrong() {
        let unusable = |attempts| AbortCause::Unusable {
            agent: "ux-analyst".into(),
            wants: "`## Assertions` block",
            attempts,
            reason: "not JSON".into(),
        };
        assert_eq!(unusable(2).to_string(), "ux-analyst gave no usable `## Assertions` block twice: not JSON");
        assert_eq!(unusable(4).to_string(), "ux-analyst gave no usable `## Assertions` block 4 times: not JSON");
        assert_eq!(AbortCause::NoAgent(Role::FixAgent).to_string(), "no agent definition with role FixAgent");
        assert_eq!(AbortCause::Panicked(Role::Analyst).to_string(), "analyst thread panicked");
        let lock = AbortCause::Lock(std::io::Error::other("busy"));
        assert_eq!(lock.to_string(), "cannot lock the assertions file: busy");
        let over = AbortCause::from(OverBudget { agent: "implementer".into(), size: 200, budget: 100 });
        let aborted = ReviewError::Aborted { pass: 3, cause: over };
        assert_eq!(
            aborted.to_string(),
            "pass 3 aborted: the prompt for implementer is 200 bytes, over its 100-byte budget (the pass is aborted, \
             not truncated) (state kept; continue with `reviewhost review --resume`)"
        );
    }
}
