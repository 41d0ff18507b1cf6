//! The shell-subset parser under a bounded mutation loop, in every `cargo test`.
//!
//! The invariant and the loop live in `fuzz/` so that the libFuzzer target checks the
//! same thing for longer runs (`fuzz/README.md`).

#[path = "../../../fuzz/stable/mutation_loop.rs"]
mod mutation_loop;

#[path = "../../../fuzz/invariants/shell_parse.rs"]
mod invariant;

/// About three seconds in a debug build.
const ITERATIONS: usize = 20_000;

#[test]
fn fuzz_the_shell_parser() {
    let seeds = mutation_loop::seeds(&[mutation_loop::seed_dir(env!("CARGO_MANIFEST_DIR"), 2, "shell_parse")]);
    mutation_loop::run("shell_parse", ITERATIONS, seeds, invariant::check);
}
