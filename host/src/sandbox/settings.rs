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
