//! Builds every guest component the integration tests load, found rather than listed.
//!
//! A guest is a directory with a `Cargo.toml` under `tests/components/` (the hostile
//! test components) or `checks/examples/` (the example validators); the workspace takes
//! them in by the same globs. Each is compiled to a component by
//! `reviewhost_guest_build`, and `$OUT_DIR/components.rs` (included by `src/lib.rs`)
//! gets the macro `foreach_component!`, which calls the caller's macro once per guest
//! with its constant's name (`SPIN`, `EXAMPLE_JSON_SCHEMA`), the path of its `.wasm`
//! and its description. The tests make a constant of each in `tests/all/components.rs`,
//! where one that no test uses is a compile error: a guest cannot be added untested.
//!
//! Like wasmtime's `crates/test-programs/artifacts/build.rs`, in a smaller way: the
//! guests are whole crates (each its own WIT world and dependencies), not binaries of
//! one crate, so they are found by their directories.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// Where guests are found (relative to the workspace root), and the prefix of their
/// constants' names.
const GUEST_DIRS: &[(&str, &str)] = &[("tests/components", ""), ("checks/examples", "EXAMPLE_")];

/// One guest crate.
struct Guest {
    /// The name of its constant: its directory's name in upper snake case, prefixed.
    constant: String,
    /// Its package name, for `cargo build -p`.
    package: String,
    /// Its package description, which documents its constant.
    description: String,
    /// Its directory, relative to the workspace root.
    dir: String,
}

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo"));
    let workspace = manifest_dir.parent().expect("tests/ is inside the workspace");
    let guests: Vec<Guest> = GUEST_DIRS.iter().flat_map(|&(dir, prefix)| discover(workspace, dir, prefix)).collect();

    let packages: Vec<&str> = guests.iter().map(|guest| guest.package.as_str()).collect();
    let built = reviewhost_guest_build::build_guests(&packages);

    let mut code = String::from(
        "/// Calls `$mac!(NAME, \"path/of/the/component.wasm\", \"its description\")` once for\n\
         /// each guest component of `tests/components/` and `checks/examples/` (found and\n\
         /// built by `build.rs`).\n\
         #[macro_export]\n\
         macro_rules! foreach_component {\n    ($mac:ident) => {\n",
    );
    for guest in &guests {
        let path = built[&guest.package].to_str().expect("a UTF-8 target directory");
        let description = format!("{} (`{}`).", guest.description, guest.dir);
        writeln!(code, "        $mac!({}, {path:?}, {description:?});", guest.constant).unwrap();
    }
    code.push_str("    };\n}\n");
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("run by cargo"));
    fs::write(out_dir.join("components.rs"), code).expect("cannot write components.rs");
}

/// The guests in `workspace/dir`, in the order of their directories' names. A new
/// directory reruns this script (cargo watches the whole tree under a directory).
fn discover(workspace: &Path, dir: &str, prefix: &str) -> Vec<Guest> {
    let parent = workspace.join(dir);
    println!("cargo:rerun-if-changed={}", parent.display());
    let mut crates: Vec<PathBuf> = fs::read_dir(&parent)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", parent.display()))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.is_dir())
        .collect();
    crates.sort();
    crates
        .into_iter()
        .map(|path| {
            let name = path.file_name().and_then(|name| name.to_str()).expect("a UTF-8 directory name");
            let manifest_path = path.join("Cargo.toml");
            let manifest = fs::read_to_string(&manifest_path)
                .unwrap_or_else(|e| panic!("{dir}/{name} holds no guest crate: {}: {e}", manifest_path.display()));
            let field = |key: &str| {
                package_field(&manifest, key)
                    .unwrap_or_else(|| panic!("{}: no `{key} = \"…\"` in [package]", manifest_path.display()))
            };
            Guest {
                constant: format!("{prefix}{}", name.to_uppercase().replace('-', "_")),
                package: field("name"),
                description: field("description"),
                dir: format!("{dir}/{name}"),
            }
        })
        .collect()
}

/// The value of `key = "value"` in the `[package]` table of a Cargo manifest: as much
/// TOML as the guests' own manifests use (one basic string a line, no escapes), which
/// spares this script a TOML parser and its build.
fn package_field(manifest: &str, key: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        let Some((name, value)) = line.split_once('=') else { continue };
        if in_package && name.trim() == key {
            let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
            return (!value.contains('\\')).then(|| value.to_string());
        }
    }
    None
}
