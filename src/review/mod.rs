//! The review loops: agents driven by reviewhost, their answers checked before they can
//! change anything, their assertions run in the sandbox.
//!
//! The building blocks every loop uses are in [`core`]; each loop is a folder of its
//! own, holding its state, its events, its errors and the prompts it builds. A loop
//! imports the blocks, the blocks never import a loop, and a loop imports another only
//! where it runs it (the convergence loop runs the fix-diff review as a stage):
//!
//! ```text
//! core/           agent, preset, reply, definitions, trust, init, prompt, gate,
//!                 contract, workspace, event, error, gitdir, sealed
//! convergence/ -> core, fix_review
//! fix_review/  -> core
//! plan_review/ -> core
//! plan_gate/   -> core
//! plan/        -> core
//! ```
//!
//! Building blocks ([`core`]):
//! - [`agent`]: running one agent (an argv, the prompt on stdin, a timeout), and
//!   [`agent::Agents`], how a loop calls its agents (within the prompt budget, between
//!   events);
//! - [`prompt`]: prompts with untrusted text in nonce'd fences, under a byte budget;
//! - [`gate`]: the parse gate (an unusable answer re-asked with the reason, then the
//!   pass aborted);
//! - [`contract`]: output contracts, what an answer must meet (a JSON Schema, and
//!   assertions run in the sandbox over the answer), judged through the gate;
//! - [`workspace`]: `.reviewhost/` (the lock, the state files, `events.jsonl`,
//!   `reports/`, the pass snapshots), with the events every loop shares in [`event`] and
//!   the state files authenticated by [`sealed`];
//! - [`error`]: why a review stops without an end state, and why a pass was aborted;
//! - [`definitions`] and [`trust`]: the agents' definitions and configuration, and
//!   whose are read.
//!
//! Loops, each in its own folder with its own `event.rs`, each a user of the blocks:
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

pub mod convergence;
pub mod core;
pub mod fix_review;
pub mod plan;
pub mod plan_gate;
pub mod plan_review;

// The blocks and the loops' parts keep the paths they have always had
// (`reviewhost::review::agent`, `reviewhost::review::state`, …).
pub use self::convergence::{ReviewOptions, ReviewOutcome, collect, review, state};
pub use self::core::error::{AbortCause, ReviewError};
pub use self::core::{
    agent, contract, definitions, error, event, gate, gitdir, init, preset, prompt, reply, sealed, trust, workspace,
};
pub use self::plan_gate::plan_validator;
pub use self::state::EndState;
