//! The review loop's parse gate for agent answers under the bounded mutation loop, in
//! every `cargo test`. The loader, the shell parser and grep's pattern translation are
//! fuzzed by the same loop in their own crates' tests; the invariants and the loop live
//! in `fuzz/` so the libFuzzer targets check the same things for longer runs
//! (`fuzz/README.md`).

#[path = "../../fuzz/stable/mutation_loop.rs"]
mod mutation_loop;

#[path = "../../fuzz/invariants/agent_answer.rs"]
mod invariant;

/// About three seconds in a debug build.
const ITERATIONS: usize = 20_000;

#[test]
fn the_parse_gate_for_agent_answers() {
    let seeds = mutation_loop::seeds(&[mutation_loop::seed_dir(env!("CARGO_MANIFEST_DIR"), 0, "agent_answer")]);
    mutation_loop::run("agent_answer", ITERATIONS, seeds, invariant::check);
}
