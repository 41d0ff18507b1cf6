//! libFuzzer target: the assertions-file loader on arbitrary bytes.

#![no_main]

// The invariant names the loader as `crate::assertion`, its path inside `reviewhost`.
use reviewhost::assertion;

#[path = "../invariants/assertions_file.rs"]
mod invariant;

libfuzzer_sys::fuzz_target!(|data: &[u8]| invariant::check(data));
