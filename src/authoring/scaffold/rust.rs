//! The Rust validator crate: the example, and a copy of the SDK and its manifest.
//!
//! The SDK is not published, so the crate gets its own copy: the SDK sources are embedded
//! in this binary at build time and written next to the new check. The copy is exactly
//! the SDK this reviewhost speaks to, so versions cannot drift.

// The SDK's sources: guest-sdk/ in the workspace, builtins/guest-sdk/ in a package
// (build.rs says which).
const SDK_LIB: &str = include_str!(concat!(env!("REVIEWHOST_GUEST_SDK"), "/src/lib.rs"));
const SDK_ROOT: &str = include_str!(concat!(env!("REVIEWHOST_GUEST_SDK"), "/src/root.rs"));

/// The SDK's manifest in the new crate: the same dependencies as guest-sdk/Cargo.toml,
/// without the workspace inheritance, pinned to the versions reviewhost is built and
/// tested with (the new crate has no lock file of ours).
const SDK_MANIFEST: &str = r#"[package]
name = "reviewhost-guest"
description = "The reviewhost check SDK (a copy written by `reviewhost new`)"
version = "0.1.0"
edition = "2024"
publish = false

[features]
default = ["helpers"]
helpers = ["dep:ignore", "dep:globset", "dep:regex", "dep:wasip2"]

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1"
ignore = { version = "=0.4.34", optional = true }
globset = { version = "=0.4.21", optional = true }
regex = { version = "=1.13.1", optional = true }

[target.'cfg(target_arch = "wasm32")'.dependencies]
wit-bindgen = { version = "=0.63.0", default-features = false, features = ["macros", "realloc"] }
wasip2 = { version = "=1.0.4", optional = true }

[dev-dependencies]
tempfile = "3"
"#;

const EXAMPLE: &str = r##"//! A reviewhost validator: every file matching `config.files` contains `config.text`.
//!
//! Build:  cargo build --release --target wasm32-wasip2 && cp target/wasm32-wasip2/release/NAME_UNDERSCORED.wasm NAME.wasm
//! Test:   cargo test                          (native, on fixtures/)
//!         reviewhost test NAME.wasm --fixtures fixtures

use reviewhost_guest::{Root, Validator, Verdict};
use serde::Deserialize;

pub struct RequiredText;

/// The assertion's `config`.
#[derive(Deserialize)]
pub struct Config {
    /// Globs of root-relative paths, e.g. `["src/**/*.rs"]`.
    files: Vec<String>,
    /// The text each of those files must contain.
    text: String,
}

impl Validator for RequiredText {
    type Config = Config;

    fn validate(_id: &str, config: Config, root: &Root) -> Result<Verdict, String> {
        let files = root.files_matching(".", &config.files, true)?;
        if files.is_empty() {
            return Err(format!("no file matches {:?}", config.files));
        }
        let mut missing = Vec::new();
        for file in &files {
            if !root.read_to_string(file)?.contains(&config.text) {
                missing.push(file.clone());
            }
        }
        if missing.is_empty() {
            return Ok(Verdict::pass(format!("all {} files contain {:?}", files.len(), config.text)));
        }
        let verdict = Verdict::fail(format!("{} of {} files lack {:?}", missing.len(), files.len(), config.text));
        Ok(missing.into_iter().fold(verdict, |v, file| v.with_evidence(file, None, "missing")))
    }
}

reviewhost_guest::export_validator!(RequiredText);

#[cfg(test)]
mod tests {
    use super::*;
    use reviewhost_guest::run_validator;

    const CONFIG: &str = r#"{"files": ["src/**/*.rs"], "text": "SPDX-License-Identifier"}"#;

    #[test]
    fn passes_when_every_file_has_the_text() {
        let root = Root::at(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/all-licensed/root"));
        let verdict = run_validator::<RequiredText>("T-1", CONFIG, &root).unwrap();
        assert!(verdict.passed, "{}", verdict.message);
    }

    #[test]
    fn fails_and_names_the_files_without_it() {
        let root = Root::at(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/one-missing/root"));
        let verdict = run_validator::<RequiredText>("T-1", CONFIG, &root).unwrap();
        assert!(!verdict.passed);
        assert_eq!(verdict.evidence[0].path, "src/b.rs");
    }
}
"##;

const README: &str = r#"# NAME: a reviewhost validator

Created by `reviewhost new`. `src/lib.rs` holds a working example (every file matching
`config.files` contains `config.text`); change it into your check.

    cargo test                                          # native unit tests on fixtures/
    cargo build --release --target wasm32-wasip2 && cp target/wasm32-wasip2/release/NAME_UNDERSCORED.wasm NAME.wasm
    reviewhost test NAME.wasm --fixtures fixtures
    reviewhost inspect NAME.wasm                        # the sha256 to pin, and what it imports

Reference it from an assertions file:

    {"id": "LIC-1", "type": "custom", "description": "sources carry a license header",
     "component": "path/to/NAME.wasm", "sha256": "<sha256 from reviewhost inspect>",
     "config": {"files": ["src/**/*.rs"], "text": "SPDX-License-Identifier"}}

`reviewhost-guest/` and `wit/` are the SDK and the WIT contract of the reviewhost that
created this crate; keep them as they are. Each fixture case is a directory with a
`case.json` (`{"config": ..., "expect": {"status": "pass"|"fail"|"error",
"message_contains": "..."}}`) and the tree to check under `root/`.
"#;

/// The crate's files for the check `name` (a valid name), beside `wit/` and the fixtures.
pub(super) fn files(name: &str) -> super::Files {
    let underscored = name.replace('-', "_");
    let fill = |text: &str| text.replace("NAME_UNDERSCORED", &underscored).replace("NAME", name);
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         [lib]\n# cdylib: the component; rlib: native tests.\ncrate-type = [\"cdylib\", \"rlib\"]\n\n\
         [dependencies]\nreviewhost-guest = {{ path = \"reviewhost-guest\" }}\nserde = {{ version = \"1\", features = [\"derive\"] }}\n\n\
         # A workspace of its own, even when created inside another one.\n[workspace]\n\n\
         [profile.release]\nopt-level = \"s\"\nlto = true\n"
    );
    vec![
        ("Cargo.toml".into(), manifest),
        ("src/lib.rs".into(), fill(EXAMPLE)),
        ("README.md".into(), fill(README)),
        ("reviewhost-guest/Cargo.toml".into(), SDK_MANIFEST.into()),
        ("reviewhost-guest/src/lib.rs".into(), SDK_LIB.into()),
        ("reviewhost-guest/src/root.rs".into(), SDK_ROOT.into()),
        (".gitignore".into(), super::named("/target\n/NAME.wasm\n", name)),
    ]
}

/// Builds the component and copies it to `NAME/NAME.wasm`, as every language's does.
pub(super) fn build(name: &str) -> String {
    let underscored = name.replace('-', "_");
    format!(
        "cd {name} && cargo build --release --target wasm32-wasip2 \
         && cp target/wasm32-wasip2/release/{underscored}.wasm {name}.wasm"
    )
}
