//! Generated searches over generated trees, with and without the run's first pass,
//! under a bounded mutation loop in every `cargo test`.
//!
//! The invariant lives in `fuzz/` so that the libFuzzer target checks the same thing for
//! longer runs (`fuzz/README.md`).

mod common;

#[path = "../../../fuzz/stable/mutation_loop.rs"]
mod mutation_loop;

#[path = "../../../fuzz/invariants/prefilter_diff.rs"]
mod invariant;

/// A few seconds in a debug build.
const ITERATIONS: usize = 3_000;

#[test]
fn fuzz_the_first_pass_against_the_plain_search() {
    let seeds = mutation_loop::seeds(&[mutation_loop::seed_dir(env!("CARGO_MANIFEST_DIR"), 2, "prefilter_diff")]);
    mutation_loop::run("prefilter_diff", ITERATIONS, seeds, invariant::check);
    let skipped = invariant::SKIPPED.load(std::sync::atomic::Ordering::Relaxed);
    assert!(skipped >= ITERATIONS / 10, "the pass let the searches skip only {skipped} files");
    eprintln!("prefilter_diff: {skipped} files skipped on the pass's answers");
}
