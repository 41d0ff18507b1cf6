//! The engine settings that shape compiled code, in one place.
//!
//! Two engines must agree on them: the runtime engine of [`super::Sandbox`], and the one
//! `build.rs` uses to precompile the built-in checks that the binary embeds (so that no
//! run, not even the first on a fresh CI runner, waits for Cranelift on them). Both call
//! [`apply`]. What compiled code does not depend on (the pooling allocator, sized to
//! `--jobs` and `--memory`) is set by the runtime alone. Should the two still disagree
//! (another CPU than the build machine's), wasmtime refuses the embedded artifact and the
//! component is compiled as before.
//!
//! The embedded artifacts are compiled for a baseline CPU ([`apply_baseline`]), not for
//! the build machine's: wasmtime accepts an artifact whose CPU features the running
//! machine has, so one binary loads them on any machine at or above the baseline.
//!
//! `build.rs` includes this file with `#[path]`: it uses nothing but `wasmtime`.

/// Wasm stack a check may use. Rust guests overflow their own shadow stack in linear
/// memory first; this bounds the native stack the host gives wasm frames.
pub const MAX_WASM_STACK: usize = 1 << 20;

/// Applies every setting compiled code depends on.
pub fn apply(config: &mut wasmtime::Config) {
    config
        .epoch_interruption(true)
        .max_wasm_stack(MAX_WASM_STACK)
        .wasm_backtrace_max_frames(None)
        .cranelift_opt_level(wasmtime::OptLevel::Speed);
}

/// The CPU features the embedded artifacts may use, by architecture (`CARGO_CFG_TARGET_ARCH`
/// names): x86-64-v2 (SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT), which every x86-64 machine
/// since about 2009 has and the baseline of current Linux distributions and CI runners;
/// plain ARMv8.0-A on aarch64 (no optional extension); none on other architectures.
#[allow(dead_code, reason = "build.rs uses it; the library only in a test")]
pub fn baseline_features(arch: &str) -> &'static [&'static str] {
    match arch {
        "x86_64" => &["has_sse3", "has_ssse3", "has_sse41", "has_sse42", "has_popcnt"],
        _ => &[],
    }
}

/// Makes `config` compile for `triple` with only [`baseline_features`] of `arch`, instead
/// of every feature of the machine it runs on.
#[allow(dead_code, reason = "build.rs uses it; the library only in a test")]
pub fn apply_baseline(config: &mut wasmtime::Config, triple: &str, arch: &str) -> wasmtime::Result<()> {
    config.target(triple)?;
    for feature in baseline_features(arch) {
        // SAFETY: the artifact is only ever loaded by an engine that checks, before
        // running it, that the machine has each CPU feature it was compiled with
        // (wasmtime refuses it otherwise, and the component is compiled instead).
        unsafe {
            config.cranelift_flag_enable(feature);
        }
    }
    Ok(())
}
