//! What must hold for any bytes given to the assertions-file loader.
//!
//! The file is written by an LLM and edited by hand, so the loader is the first parser
//! untrusted bytes reach. It must never panic, must only accept files whose ids can key
//! the write-back (non-blank, unique), and must name the file in every error, since that
//! is all a user sees of a refused file.
//!
//! Shared by the stable test (`src/assertion/fuzz_tests.rs`) and the libFuzzer target
//! (`fuzz/fuzz_targets/assertions_file.rs`), which both include this file with `#[path]`.
//! `crate::assertion` is the loader's module in the first and an import of
//! `reviewhost::assertion` at the target's root in the second.

use std::collections::HashSet;
use std::path::Path;

use crate::assertion::parse;

/// A path with a space and non-ASCII characters, so a message that mangles or drops the
/// path shows.
const FILE: &str = "reviews/ünï cödé/assertions.json";

/// Panics when the loader breaks its contract on `bytes`.
pub fn check(bytes: &[u8]) {
    let file = Path::new(FILE);
    match parse(file, bytes) {
        Ok(loaded) => {
            let mut seen = HashSet::new();
            for assertion in loaded.assertions() {
                assert!(!assertion.id.trim().is_empty(), "blank id {:?} accepted", assertion.id);
                assert!(seen.insert(&assertion.id), "duplicate id {:?} accepted", assertion.id);
            }
        }
        Err(e) => {
            let message = e.to_string();
            assert!(message.starts_with(FILE), "the error does not start with the file's path: {message}");
        }
    }
}
