//! Why a review stops without an end state (exit 2): a [`ReviewError`], for an aborted
//! pass its typed [`AbortCause`], and for a failed agent call its [`AgentError`]. An
//! abort keeps the state (`--resume` redoes the pass); every other error is about the
//! workspace, the files or the sandbox.
//!
//! The loops' own errors are theirs, in their folders: they reach these two types boxed
//! ([`ReviewError::Loop`], [`AbortCause::Loop`]), with their messages unchanged, and
//! what a variant says of a loop (a status, a phase) it carries as the text it shows.

use std::path::PathBuf;
use std::time::Duration;

use super::contract::ContractError;
use super::definitions::{DefinitionError, Role};
use super::prompt::OverBudget;
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
    /// `status` is the convergence loop's status as `state.json` names it.
    #[error("a review is in progress in {} (pass {pass}, {status}): continue it with --resume, or remove the directory to start over", dir.display())]
    InProgress { dir: PathBuf, pass: u32, status: &'static str },
    #[error("there is no review to resume in {}", dir.display())]
    NothingToResume { dir: PathBuf },
    #[error("pass {pass} aborted: {cause} (state kept; continue with `reviewhost review --resume`)")]
    Aborted { pass: u32, cause: AbortCause },
    /// `reviewhost plan-review` or `reviewhost plan-gate` (`command`) stopped in a plan's
    /// cycle without a verdict.
    #[error("the review of {plan} stopped in cycle {cycle}: {cause} (continue with `reviewhost {command} --resume`)")]
    CycleStopped { command: PlanCommand, plan: Box<str>, cycle: u32, cause: AbortCause },
    /// A loop's own error, shown as it is: `reviewhost plan-review` or `reviewhost
    /// plan-gate` cannot review a plan.
    #[error(transparent)]
    Loop(Box<dyn std::error::Error + Send + Sync>),
    /// `reviewhost fix-review` could not review its round.
    #[error("the fix-diff review stopped: {0}")]
    RoundStopped(AbortCause),
    /// `reviewhost plan` stopped in a phase without an end state (`phase` named as the
    /// plan's events name it).
    #[error("plan stopped in phase {index} ({phase}): {cause}")]
    PlanStopped { index: u32, phase: &'static str, cause: AbortCause },
    #[error(transparent)]
    Run(#[from] crate::run::RunError),
    #[error(transparent)]
    Load(#[from] assertion::LoadError),
    #[error(transparent)]
    Save(#[from] assertion::SaveError),
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}

/// The command a stopped plan cycle is continued with (one byte, not a string: the
/// error stays small).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanCommand {
    PlanReview,
    PlanGate,
}

impl std::fmt::Display for PlanCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PlanCommand::PlanReview => "plan-review",
            PlanCommand::PlanGate => "plan-gate",
        })
    }
}

impl ReviewError {
    /// Whether the run stopped because the operator cancelled it (`--cancel`, Ctrl-C).
    pub fn cancelled(&self) -> bool {
        let cause = match self {
            ReviewError::Aborted { cause, .. }
            | ReviewError::CycleStopped { cause, .. }
            | ReviewError::RoundStopped(cause)
            | ReviewError::PlanStopped { cause, .. } => cause,
            _ => return false,
        };
        matches!(cause, AbortCause::Agent(AgentError::Cancelled { .. }))
    }
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
    /// A loop's own reason, shown as it is: a fix round could not be reviewed.
    #[error(transparent)]
    Loop(Box<dyn std::error::Error + Send + Sync>),
}

/// Why an agent call produced no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    #[error("agent '{agent}': {reason}")]
    Config { agent: String, reason: String },
    #[error("agent '{agent}': cannot start {program}: {reason}")]
    Spawn { agent: String, program: String, reason: String },
    #[error("agent '{agent}': timed out after {}", humantime::format_duration(*timeout))]
    Timeout { agent: String, timeout: Duration },
    #[error("agent '{agent}': exited with status {code}{}", tail(stderr))]
    Exit { agent: String, code: i32, stderr: String },
    /// A non-zero exit whose output says why (an API error in Claude's envelope).
    #[error("agent '{agent}': exited with status {code}: {reason}")]
    Reported { agent: String, code: i32, reason: String },
    #[error("agent '{agent}': {reason}")]
    Response { agent: String, reason: String },
    /// A writing agent changed files in `.git/` that make git run commands.
    #[error(
        "agent '{agent}' changed {} in the repository's .git directory, from where git would run commands; \
         the pass stops before git runs again (check and restore them, then --resume)",
        paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    GitTampered { agent: String, paths: Vec<PathBuf> },
    /// The review's spending passed `--max-cost` with this call.
    #[error("agent '{agent}': the review has spent ${spent:.4}, over --max-cost ${limit:.4}")]
    CostLimit { agent: String, spent: f64, limit: f64 },
    /// The loop's cap on agent calls was reached before this call.
    #[error("agent '{agent}': not called: the loop has made its {limit} agent calls (--max-calls)")]
    CallLimit { agent: String, limit: u32 },
    /// The operator cancelled the loop (Ctrl-C, or the loop's `--cancel`).
    #[error("agent '{agent}': cancelled")]
    Cancelled { agent: String },
}

fn tail(stderr: &str) -> String {
    let last: Vec<&str> = stderr.lines().rev().take(3).collect();
    if last.is_empty() {
        String::new()
    } else {
        format!(": {}", last.into_iter().rev().collect::<Vec<_>>().join(" | "))
    }
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
