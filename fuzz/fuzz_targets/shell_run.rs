//! libFuzzer target: the shell check runs what it parses, and a refusal or an error is
//! never lost (`invariants/shell_run.rs`).

#![no_main]

#[path = "../invariants/shell_run.rs"]
#[allow(dead_code, reason = "`refuses` is for the stable test's seed check")]
mod invariant;

libfuzzer_sys::fuzz_target!(|data: &[u8]| invariant::check(data));
