//! Compiles guest crates of this workspace to `wasm32-wasip2` components from a build script.
//!
//! The host embeds the built-in checks and the integration tests load the hostile test
//! components; both are ordinary workspace crates, so a plain `cargo build` must produce
//! them. A build script runs a nested `cargo build --target wasm32-wasip2 --release` into a
//! separate target directory (its own lock, so no deadlock with the outer build) and hands
//! back the paths of the `.wasm` files.
//!
//! It deliberately does not install the target: a missing `wasm32-wasip2` is reported with
//! the `rustup` command that fixes it.

use std::collections::BTreeMap;
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Environment variables of the outer build that must not leak into the guest build:
/// coverage or sanitizer flags meant for the host break a wasm build, and the outer
/// target directory would make the nested build wait for the outer lock.
const SCRUBBED_ENV: &[&str] = &[
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTFLAGS",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET",
    "TARGET",
    "CARGO_MAKEFLAGS",
    "MAKEFLAGS",
    "MFLAGS",
];

/// The guest target. Its standard library comes from `rustup target add wasm32-wasip2`.
pub const GUEST_TARGET: &str = "wasm32-wasip2";

/// Builds `packages` (workspace package names, each a `cdylib`) and returns, per package,
/// the path of its component. Panics with an actionable message on failure, which is what
/// a build script should do.
pub fn build_guests(packages: &[&str]) -> BTreeMap<String, PathBuf> {
    cargo_build(packages, None);
    let out = guest_target_dir().join(GUEST_TARGET).join("release");
    packages
        .iter()
        .map(|package| {
            let path = out.join(format!("{}.wasm", package.replace('-', "_")));
            assert!(path.is_file(), "guest build did not produce {}", path.display());
            (package.to_string(), path)
        })
        .collect()
}

/// Builds `package` with `feature` on, alone (features are unified within one build, so
/// the plain component must come from another) and returns its component, copied to
/// `<package>-<feature>.wasm` beside the plain one, which a later build replaces.
pub fn build_guest_with_feature(package: &str, feature: &str) -> PathBuf {
    cargo_build(&[package], Some(feature));
    let out = guest_target_dir().join(GUEST_TARGET).join("release");
    let built = out.join(format!("{}.wasm", package.replace('-', "_")));
    let copy = out.join(format!("{}_{}.wasm", package.replace('-', "_"), feature.replace('-', "_")));
    std::fs::copy(&built, &copy).unwrap_or_else(|e| panic!("copying {} to {}: {e}", built.display(), copy.display()));
    copy
}

/// `cargo build --release --target wasm32-wasip2 -p PACKAGE… [--features FEATURE]` into
/// the guests' own target directory; panics with the build's errors.
fn cargo_build(packages: &[&str], feature: Option<&str>) {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("run from a build script"));
    let workspace = workspace_root(&manifest_dir);
    let target_dir = guest_target_dir();

    for dir in ["wit", "guest-sdk", "checks", "tests/components", "Cargo.lock", ".cargo"] {
        println!("cargo:rerun-if-changed={}", workspace.join(dir).display());
    }
    println!("cargo:rerun-if-env-changed=RUSTUP_TOOLCHAIN");

    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&workspace).args(["build", "--release", "--target", GUEST_TARGET, "--target-dir"]).arg(&target_dir);
    for package in packages {
        cmd.args(["-p", package]);
    }
    if let Some(feature) = feature {
        cmd.args(["--features", feature]);
    }
    for var in SCRUBBED_ENV {
        cmd.env_remove(var);
    }
    let output = cmd.output().expect("could not start the nested cargo build of the guests");
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let hint = if stderr.contains("target may not be installed") || stderr.contains("can't find crate for `core`") {
            "\n\nThe wasm32-wasip2 target is missing: run `rustup target add wasm32-wasip2`."
        } else {
            ""
        };
        panic!("building the guest components ({}) failed:\n{stderr}{hint}", packages.join(", "));
    }
}

/// The workspace root: the nearest ancestor of the calling crate with `wit/` and `guest-sdk/`.
fn workspace_root(manifest_dir: &Path) -> PathBuf {
    manifest_dir
        .ancestors()
        .find(|dir| dir.join("wit").is_dir() && dir.join("guest-sdk").is_dir())
        .expect("the calling crate is not inside the reviewhost workspace")
        .to_path_buf()
}

/// `<target>/wasm-guests`, next to the outer build's profile directories. OUT_DIR is
/// `<target>/<profile>/build/<crate>-<hash>/out`.
fn guest_target_dir() -> PathBuf {
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("run from a build script"));
    let target = out_dir.ancestors().nth(4).expect("OUT_DIR has the usual layout");
    target.join("wasm-guests")
}
