//! libFuzzer target: generated searches over generated trees, with and without the run's
//! first pass, must print and exit the same (`invariants/prefilter_diff.rs`).

#![no_main]

#[path = "../../checks/grep/tests/common/mod.rs"]
mod common;

#[path = "../invariants/prefilter_diff.rs"]
mod invariant;

libfuzzer_sys::fuzz_target!(|data: &[u8]| invariant::check(data));
