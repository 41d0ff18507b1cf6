//! `reviewhost new NAME`: a ready-to-build validator crate.
//!
//! The SDK is not published, so the crate gets its own copy: the WIT package and the SDK
//! sources are embedded in this binary at build time and written next to the new check.
//! The copy is exactly the SDK this reviewhost speaks to, so versions cannot drift.

use std::path::{Path, PathBuf};

/// Why a check crate could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScaffoldError {
    #[error("'{0}' is not a valid crate name (letters, digits, '-' and '_', starting with a letter)")]
    Name(String),
    #[error("{}: already exists; choose another name or remove it", .0.display())]
    Exists(PathBuf),
    #[error("{}: cannot write: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

const WIT: &str = include_str!("../../wit/check.wit");
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
//! Build:  cargo build --release --target wasm32-wasip2
//! Test:   cargo test                          (native, on fixtures/)
//!         reviewhost test target/wasm32-wasip2/release/NAME_UNDERSCORED.wasm --fixtures fixtures

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
    cargo build --release --target wasm32-wasip2        # the component
    reviewhost test target/wasm32-wasip2/release/NAME_UNDERSCORED.wasm --fixtures fixtures

Reference it from an assertions file:

    {"id": "LIC-1", "type": "custom", "description": "sources carry a license header",
     "component": "path/to/NAME_UNDERSCORED.wasm", "sha256": "<sha256sum of the .wasm>",
     "config": {"files": ["src/**/*.rs"], "text": "SPDX-License-Identifier"}}

`reviewhost-guest/` and `wit/` are the SDK and the WIT contract of the reviewhost that
created this crate; keep them as they are. Each fixture case is a directory with a
`case.json` (`{"config": ..., "expect": {"status": "pass"|"fail"|"error",
"message_contains": "..."}}`) and the tree to check under `root/`.
"#;

/// Writes the crate `name` into `parent/name`.
pub fn create(parent: &Path, name: &str) -> Result<PathBuf, ScaffoldError> {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(ScaffoldError::Name(name.into()));
    }
    let dir = parent.join(name);
    if dir.exists() {
        return Err(ScaffoldError::Exists(dir));
    }
    let underscored = name.replace('-', "_");
    let fill = |text: &str| text.replace("NAME_UNDERSCORED", &underscored).replace("NAME", name);
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         [lib]\n# cdylib: the component; rlib: native tests.\ncrate-type = [\"cdylib\", \"rlib\"]\n\n\
         [dependencies]\nreviewhost-guest = {{ path = \"reviewhost-guest\" }}\nserde = {{ version = \"1\", features = [\"derive\"] }}\n\n\
         # A workspace of its own, even when created inside another one.\n[workspace]\n\n\
         [profile.release]\nopt-level = \"s\"\nlto = true\n"
    );
    let case = |status: &str, contains: &str| {
        format!(
            "{{\n  \"config\": {{\"files\": [\"src/**/*.rs\"], \"text\": \"SPDX-License-Identifier\"}},\n  \
             \"expect\": {{\"status\": \"{status}\", \"message_contains\": \"{contains}\"}}\n}}\n"
        )
    };
    let licensed = "// SPDX-License-Identifier: MIT\nfn main() {}\n";
    let files: Vec<(&str, String)> = vec![
        ("Cargo.toml", manifest),
        ("src/lib.rs", fill(EXAMPLE)),
        ("README.md", fill(README)),
        ("wit/check.wit", WIT.into()),
        ("reviewhost-guest/Cargo.toml", SDK_MANIFEST.into()),
        ("reviewhost-guest/src/lib.rs", SDK_LIB.into()),
        ("reviewhost-guest/src/root.rs", SDK_ROOT.into()),
        ("fixtures/all-licensed/case.json", case("pass", "all 2 files")),
        ("fixtures/all-licensed/root/src/a.rs", licensed.into()),
        ("fixtures/all-licensed/root/src/b.rs", licensed.into()),
        ("fixtures/one-missing/case.json", case("fail", "1 of 2 files")),
        ("fixtures/one-missing/root/src/a.rs", licensed.into()),
        ("fixtures/one-missing/root/src/b.rs", "fn main() {}\n".into()),
        (".gitignore", "/target\n".into()),
    ];
    for (path, contents) in files {
        let path = dir.join(path);
        let write = || {
            std::fs::create_dir_all(path.parent().expect("has a parent"))?;
            std::fs::write(&path, contents)
        };
        write().map_err(|source| ScaffoldError::Write { path: path.clone(), source })?;
    }
    Ok(dir)
}
