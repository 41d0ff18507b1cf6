//! grep's pattern translation under a bounded mutation loop, in every `cargo test`.
//!
//! The invariant and the loop live in `fuzz/` so that the libFuzzer target checks the
//! same thing for longer runs (`fuzz/README.md`).

#[path = "../../../fuzz/stable/mutation_loop.rs"]
mod mutation_loop;

#[path = "../../../fuzz/invariants/grep_translate.rs"]
mod invariant;

/// About 35 seconds in a debug build: each accepted pattern is compiled five ways.
const ITERATIONS: usize = 10_000;

#[test]
fn fuzz_the_pattern_translation() {
    let seeds = mutation_loop::seeds(&[mutation_loop::seed_dir(env!("CARGO_MANIFEST_DIR"), 2, "grep_translate")]);
    mutation_loop::run("grep_translate", ITERATIONS, seeds, invariant::check);
}
