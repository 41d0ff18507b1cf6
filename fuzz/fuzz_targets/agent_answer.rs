//! libFuzzer target: the review loop's parse gate on arbitrary agent answers.

#![no_main]

#[path = "../invariants/agent_answer.rs"]
mod invariant;

libfuzzer_sys::fuzz_target!(|data: &[u8]| invariant::check(data));
