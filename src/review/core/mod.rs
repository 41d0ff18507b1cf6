//! The building blocks every review loop uses: running agents, prompts, the parse gate,
//! output contracts, the workspace and its events, the errors a loop stops with, and
//! whose definitions and configuration are read. Nothing here knows a loop: a loop's
//! state, events and errors are its own, in its own folder, and reach the blocks only
//! through what is generic here (a serializable event, a boxed loop error).

pub mod agent;
pub mod contract;
pub mod definitions;
pub mod error;
pub mod event;
pub mod gate;
pub mod gitdir;
pub mod init;
pub mod preset;
pub mod prompt;
pub mod reply;
pub mod sealed;
pub mod trust;
pub mod workspace;

/// SHA-256 of `text`, hex: what a saved or approved plan records of its content.
pub(crate) fn sha256_hex(text: &str) -> String {
    use sha2::{Digest, Sha256};
    format!("{:x}", Sha256::digest(text.as_bytes()))
}
