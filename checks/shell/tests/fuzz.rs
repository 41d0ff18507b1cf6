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

#[path = "../../../fuzz/invariants/shell_run.rs"]
mod run_invariant;

/// Every accepted mutant is run: a few seconds in a debug build.
const RUN_ITERATIONS: usize = 3_000;

#[test]
fn fuzz_the_interpreter_refusals_and_absences() {
    let dir = |target| mutation_loop::seed_dir(env!("CARGO_MANIFEST_DIR"), 2, target);
    let seeds = mutation_loop::seeds(&[dir("shell_run"), dir("shell_parse")]);
    mutation_loop::run("shell_run", RUN_ITERATIONS, seeds, run_invariant::check);
}

/// The seeds the loop starts from are what the rules are about: each refused construct
/// is refused, so that the wrappers are checked from the first input on.
#[test]
fn the_refusal_seeds_are_refused() {
    let dir = mutation_loop::seed_dir(env!("CARGO_MANIFEST_DIR"), 2, "shell_run");
    for name in ["xargs-p", "tee-write", "bad-option", "sed-inplace", "redirect-write", "unavailable"] {
        let source = std::fs::read_to_string(dir.join(name)).unwrap();
        assert_eq!(run_invariant::refuses(&source), Some(true), "{name}: {source}");
        run_invariant::check(source.as_bytes());
    }
    // Each refused seed was run inside every wrapper.
    let wrapped = run_invariant::WRAPPED.load(std::sync::atomic::Ordering::Relaxed);
    assert!(wrapped >= 6 * 6, "only {wrapped} wrapped runs");
}
