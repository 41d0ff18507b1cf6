//! libFuzzer target: grep's pattern translation (BRE, ERE, fixed) on arbitrary patterns.

#![no_main]

#[path = "../invariants/grep_translate.rs"]
mod invariant;

libfuzzer_sys::fuzz_target!(|data: &[u8]| invariant::check(data));
