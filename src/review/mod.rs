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

pub mod agent;
pub mod collect;
pub mod contract;
pub mod convergence;
pub mod definitions;
pub mod error;
pub mod event;
pub mod fix_review;
pub mod gate;
pub mod gitdir;
pub mod init;
pub mod plan;
pub mod plan_gate;
pub mod plan_review;
pub mod plan_validator;
pub mod preset;
pub mod prompt;
pub mod reply;
pub mod sealed;
pub mod state;
mod summary;
pub mod trust;
pub mod workspace;

pub use convergence::{ReviewOptions, ReviewOutcome, review};

/// SHA-256 of `text`, hex: what a saved or approved plan records of its content.
pub(crate) fn sha256_hex(text: &str) -> String {
    use sha2::{Digest, Sha256};
    format!("{:x}", Sha256::digest(text.as_bytes()))
}
pub use error::{AbortCause, ReviewError};
pub use state::EndState;
