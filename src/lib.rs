//! reviewhost: runs the assertions that LLM analysts write about a repository, each one
//! inside a WebAssembly sandbox.
//!
//! One assertion travels through the modules in this order:
//! [`assertion`] (load and validate the file) → [`check`] (which component evaluates it,
//! with which input) → [`sandbox`] (a fresh wasmtime store with a read-only view of the
//! root and hard limits) → back to [`assertion`] (write `status` and `failure_output`)
//! → [`report`] (what the terminal or a machine reads). [`run`] strings them together.

pub mod assertion;
pub mod authoring;
pub mod baseline;
pub mod check;
pub mod hostgit;
pub mod mcp;
pub mod report;
pub mod review;
pub mod run;
pub mod sandbox;
pub mod select;
pub mod write;

pub use run::{RunError, RunOptions, RunReport, Runner};
