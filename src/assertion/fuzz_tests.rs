//! The assertions-file loader under a bounded mutation loop, in every `cargo test`.
//!
//! The invariant and the loop live in `fuzz/` so that the libFuzzer target checks the
//! same thing for longer runs (`fuzz/README.md`).

#[path = "../../fuzz/stable/mutation_loop.rs"]
mod mutation_loop;

#[path = "../../fuzz/invariants/assertions_file.rs"]
mod invariant;

/// About three seconds in a debug build.
const ITERATIONS: usize = 20_000;

#[test]
fn fuzz_the_loader() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let seeds = mutation_loop::seeds(&[
        root.join("examples/basic/assertions.json"),
        root.join("examples/custom/assertions.json"),
        mutation_loop::seed_dir(env!("CARGO_MANIFEST_DIR"), 0, "assertions_file"),
    ]);
    mutation_loop::run("assertions_file", ITERATIONS, seeds, invariant::check);
}
