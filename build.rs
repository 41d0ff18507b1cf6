//! Compiles the built-in checks to wasm32-wasip2 components so `include_bytes!` can
//! embed them in the binary (`src/check/mod.rs`), then precompiles each with Cranelift
//! for a baseline CPU of the target (x86-64-v2 on x86-64), with the runtime engine's
//! settings (`src/sandbox/settings.rs`), so that no run waits for a compile of a built-in
//! check, not even the first one on a fresh CI runner, on this machine or another. When
//! cross-compiling, nothing is precompiled and the components are compiled (and cached)
//! at run time as before.
//!
//! In the workspace the components are built from the guest crates' sources; a package
//! of this crate alone (`cargo package`, then `cargo install`) has no such sources and
//! takes them from its `builtins/` directory instead.

use std::path::{Path, PathBuf};

#[path = "src/sandbox/settings.rs"]
mod settings;

/// The built-in check crates, compiled to the components the binary embeds.
const BUILTINS: [&str; 2] = ["reviewhost-check-fs", "reviewhost-check-shell"];

/// The shell check of a run with granted host programs: the shell crate built with its
/// `granted` feature, which imports `programs` (`wit/`).
const GRANTED_SHELL: &str = "reviewhost-check-shell-granted";

fn main() {
    println!("cargo:rerun-if-changed=src/sandbox/settings.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let native = std::env::var("HOST").ok() == std::env::var("TARGET").ok();
    // The triple the artifacts are compiled for, for the test that rebuilds one.
    println!("cargo:rustc-env=REVIEWHOST_BUILD_TARGET={}", std::env::var("TARGET").expect("cargo sets TARGET"));
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let in_workspace = manifest_dir.join("checks/shell/Cargo.toml").is_file();
    let guests = if in_workspace {
        // First: the plain build that follows replaces the crate's own artifact.
        let granted = reviewhost_guest_build::build_guest_with_feature("reviewhost-check-shell", "granted");
        let mut guests = reviewhost_guest_build::build_guests(&BUILTINS);
        guests.insert(GRANTED_SHELL.to_string(), granted);
        guests
    } else {
        shipped(&manifest_dir)
    };
    // The guest SDK's sources, which `reviewhost new` writes into a new check crate.
    let sdk = if in_workspace { manifest_dir.join("guest-sdk") } else { manifest_dir.join("builtins/guest-sdk") };
    println!("cargo:rustc-env=REVIEWHOST_GUEST_SDK={}", sdk.display());
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
    let triple = std::env::var("TARGET").expect("cargo sets TARGET");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").expect("cargo sets CARGO_CFG_TARGET_ARCH");
    settings::apply_baseline(&mut config, &triple, &arch).expect("a Cranelift target for the baseline CPU");
    let engine = wasmtime::Engine::new(&config).expect("a wasmtime engine for precompiling");
    let bytes = std::fs::read(wasm).unwrap_or_else(|e| panic!("{}: {e}", wasm.display()));
    engine.precompile_component(&bytes).unwrap_or_else(|e| panic!("precompiling {}: {e:#}", wasm.display()))
}

/// The components a package ships in `builtins/` instead of the guest crates' sources
/// (a registry package holds this crate only; `.ci/package` puts them there).
fn shipped(manifest_dir: &Path) -> std::collections::BTreeMap<String, PathBuf> {
    BUILTINS
        .iter()
        .chain([&GRANTED_SHELL])
        .map(|package| {
            let path = manifest_dir.join("builtins").join(format!("{}.wasm", package.replace('-', "_")));
            println!("cargo:rerun-if-changed={}", path.display());
            assert!(
                path.is_file(),
                "{} is missing: this is neither the reviewhost workspace (with the sources of the built-in \
                 checks) nor a package with the built components in builtins/",
                path.display()
            );
            (package.to_string(), path)
        })
        .collect()
}
