//! Compiles the built-in checks to wasm32-wasip2 components so `include_bytes!` can
//! embed them in the binary (`src/check/mod.rs`), then precompiles each with Cranelift
//! for this machine, with the runtime engine's settings (`src/sandbox/settings.rs`), so
//! that no run waits for a compile of a built-in check, not even the first one on a
//! fresh CI runner. When cross-compiling, nothing is precompiled and the components are
//! compiled (and cached) at run time as before.

use std::path::{Path, PathBuf};

#[path = "src/sandbox/settings.rs"]
mod settings;

fn main() {
    println!("cargo:rerun-if-changed=src/sandbox/settings.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let native = std::env::var("HOST").ok() == std::env::var("TARGET").ok();
    let guests = reviewhost_guest_build::build_guests(&["reviewhost-check-fs", "reviewhost-check-shell"]);
    for (package, path) in guests {
        let var = package.to_uppercase().replace('-', "_");
        println!("cargo:rustc-env={var}_WASM={}", path.display());
        let artifact = out.join(format!("{package}.cwasm"));
        let compiled = if native { precompile(&path) } else { Vec::new() };
        std::fs::write(&artifact, compiled).unwrap_or_else(|e| panic!("{}: {e}", artifact.display()));
        println!("cargo:rustc-env={var}_CWASM={}", artifact.display());
    }
}

/// The component at `wasm`, compiled as the runtime engine would compile it.
fn precompile(wasm: &Path) -> Vec<u8> {
    let mut config = wasmtime::Config::new();
    settings::apply(&mut config);
    let engine = wasmtime::Engine::new(&config).expect("a wasmtime engine for precompiling");
    let bytes = std::fs::read(wasm).unwrap_or_else(|e| panic!("{}: {e}", wasm.display()));
    engine.precompile_component(&bytes).unwrap_or_else(|e| panic!("precompiling {}: {e:#}", wasm.display()))
}
