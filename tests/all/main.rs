//! reviewhost's integration tests: one binary, one module per feature.
//!
//! They drive the real `reviewhost` binary where the contract is the command line (exit
//! codes, the file on disk) and the library where a test needs a component that is not
//! built in (the hostile components of `tests/components/`).

mod components;
mod support;

mod agent_clis;
mod authoring_langs;
mod baselines;
mod bounded_reads;
mod commands;
mod crash_safety;
mod custom;
mod digest_oracle;
mod escapes;
mod examples;
mod file_errors;
mod files;
mod find_names;
mod fix_review;
mod forged_state;
mod fuzz;
mod git_objects;
mod grants;
mod host_git;
mod host_reads;
mod hostile;
mod inert_output;
mod init;
mod isolation;
mod limits;
mod mcp;
mod merge_shards;
mod plan;
mod plan_gate;
mod plan_review;
mod prefilter;
mod refusals;
mod repo_trust;
mod reports;
mod review;
mod review_layout;
mod seed;
mod selection;
mod shared;
mod startup;
mod terminal;
mod write_back;
