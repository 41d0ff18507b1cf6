//! The review loops: agents driven by reviewhost, their answers checked before they can
//! change anything, their assertions run in the sandbox.
//!
//! Building blocks, for every loop:
//! - [`agent`]: running one agent (an argv, the prompt on stdin, a timeout), and
//!   [`agent::Agents`], how a loop calls its agents (within the prompt budget, between
//!   events);
//! - [`prompt`]: prompts with untrusted text in nonce'd fences, under a byte budget;
//! - [`gate`]: the parse gate (an unusable answer re-asked with the reason, then the
//!   pass aborted);
//! - [`contract`]: output contracts, what an answer must meet (a JSON Schema, and
//!   assertions run in the sandbox over the answer), judged through the gate;
//! - [`workspace`]: `.reviewhost/` (the lock, `state.json`, `events.jsonl`, `reports/`,
//!   the pass snapshots), with the events in [`event`] and the state files
//!   authenticated by [`sealed`];
//! - [`error`]: why a review stops without an end state, and why a pass was aborted;
//! - [`definitions`] and [`trust`]: the agents' definitions and configuration, and
//!   whose are read.
//!
//! Loops, each in its own file, each a user of the blocks:
//! - [`convergence`]: seed 000's assertion-driven convergence loop (`reviewhost
//!   review`), with its state in [`state`], its answers' parser in [`collect`] and its
//!   reports in `summary`;
//! - [`fix_review`]: seed 001's fix-diff review of one round (`reviewhost fix-review`,
//!   and a stage of `reviewhost review`);
//! - [`plan_review`]: seed 002's review gate (`reviewhost plan-review`), a reviewer and
//!   an architect in cycles with a hard stop;
//! - [`plan_gate`]: seed 004's plan gate (`reviewhost plan-gate`): conformance
//!   ([`plan_validator`]) and a critic, then a fresh overviewer, a person deciding
//!   escalations;
//! - [`plan`]: seed 003's phase machine (`reviewhost plan`), each phase's answer held
//!   to its contract.

// The files are in their new folders; the modules keep their flat paths until the
// restructure that follows gives each folder its module.
#[path = "core/agent.rs"]
pub mod agent;
#[path = "convergence/collect.rs"]
pub mod collect;
#[path = "core/contract.rs"]
pub mod contract;
#[path = "convergence/mod.rs"]
pub mod convergence;
#[path = "core/definitions.rs"]
pub mod definitions;
#[path = "core/error.rs"]
pub mod error;
#[path = "core/event.rs"]
pub mod event;
#[path = "fix_review/mod.rs"]
pub mod fix_review;
#[path = "core/gate.rs"]
pub mod gate;
#[path = "core/gitdir.rs"]
pub mod gitdir;
#[path = "core/init.rs"]
pub mod init;
#[path = "plan/mod.rs"]
pub mod plan;
#[path = "plan_gate/mod.rs"]
pub mod plan_gate;
#[path = "plan_review/mod.rs"]
pub mod plan_review;
#[path = "plan_gate/plan_validator.rs"]
pub mod plan_validator;
#[path = "core/preset.rs"]
pub mod preset;
#[path = "core/prompt.rs"]
pub mod prompt;
#[path = "core/reply.rs"]
pub mod reply;
#[path = "core/sealed.rs"]
pub mod sealed;
#[path = "convergence/state.rs"]
pub mod state;
#[path = "convergence/summary.rs"]
mod summary;
#[path = "core/trust.rs"]
pub mod trust;
#[path = "core/workspace.rs"]
pub mod workspace;

pub use convergence::{ReviewOptions, ReviewOutcome, review};

/// SHA-256 of `text`, hex: what a saved or approved plan records of its content.
pub(crate) fn sha256_hex(text: &str) -> String {
    use sha2::{Digest, Sha256};
    format!("{:x}", Sha256::digest(text.as_bytes()))
}
pub use error::{AbortCause, ReviewError};
pub use state::EndState;
