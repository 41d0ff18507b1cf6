//! libFuzzer target: the shell-subset parser on arbitrary command strings.

#![no_main]

#[path = "../invariants/shell_parse.rs"]
mod invariant;

libfuzzer_sys::fuzz_target!(|data: &[u8]| invariant::check(data));
