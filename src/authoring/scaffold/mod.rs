//! `reviewhost new [--lang L] NAME`: a validator to start from, in Rust, Python,
//! TypeScript or JavaScript, with one command that builds it to `NAME/NAME.wasm`.
//!
//! Every language gets the same example (every file matching `config.files` contains
//! `config.text`), the same fixture cases for `reviewhost test`, `wit/check.wit` as this
//! reviewhost speaks it, a README, and a small helper in its own language (the root
//! walked and read without following symlinks, verdicts and evidence, the config as
//! native data). The toolchain is pinned in the directory: Cargo's versions for Rust,
//! `requirements.txt` with every wheel's hash for componentize-py, `package-lock.json`
//! for componentize-js and TypeScript. The templates are embedded in this binary, so a
//! new check always matches the reviewhost that made it.

use std::path::{Path, PathBuf};

mod python;
mod rust;
mod script;

/// Why a check could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScaffoldError {
    #[error("'{0}' is not a valid check name (letters, digits, '-' and '_', starting with a letter)")]
    Name(String),
    #[error("{}: already exists; choose another name or remove it", .0.display())]
    Exists(PathBuf),
    #[error("{}: cannot write: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

/// The language of a new check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    Rust,
    Python,
    #[value(name = "typescript", alias = "ts")]
    TypeScript,
    #[value(name = "javascript", alias = "js")]
    JavaScript,
}

/// A check just created.
#[derive(Debug, Clone)]
pub struct Scaffold {
    /// Its directory, `parent/NAME`.
    pub dir: PathBuf,
    /// The one command, run in `parent`, that builds `NAME/NAME.wasm` with the pinned
    /// toolchain (installing it inside `NAME/` first where that is how the language works).
    pub build: String,
}

const WIT: &str = include_str!("../../../wit/check.wit");

/// A new check's files: each path in its directory, and what it holds.
type Files = Vec<(String, String)>;

/// The world the Python and JavaScript validators are built for, `validator-files`
/// (reviewhost's `custom-validator` and the `wasi:filesystem` imports their helpers read
/// the root with), and the WASI 0.2.12 packages it names, as wasmtime 48 ships them.
/// Written as they are: `NAME` occurs in them (`ENAMETOOLONG`).
fn world_files() -> Files {
    const FILES: [(&str, &str); 4] = [
        ("wit/validator-files.wit", include_str!("../templates/common/wit/validator-files.wit")),
        ("wit/deps/filesystem.wit", include_str!("../templates/common/wit/deps/filesystem.wit")),
        ("wit/deps/io.wit", include_str!("../templates/common/wit/deps/io.wit")),
        ("wit/deps/clocks.wit", include_str!("../templates/common/wit/deps/clocks.wit")),
    ];
    FILES.iter().map(|(path, text)| (path.to_string(), text.to_string())).collect()
}

/// Writes the check `name` in `lang` into `parent/name`.
pub fn create(parent: &Path, name: &str, lang: Lang) -> Result<Scaffold, ScaffoldError> {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(ScaffoldError::Name(name.into()));
    }
    let dir = parent.join(name);
    if dir.exists() {
        return Err(ScaffoldError::Exists(dir));
    }
    let (mut files, build) = match lang {
        Lang::Rust => (rust::files(name), rust::build(name)),
        Lang::Python => (python::files(name), python::build(name)),
        Lang::TypeScript => (script::files(name, true), script::build(name)),
        Lang::JavaScript => (script::files(name, false), script::build(name)),
    };
    files.push(("wit/check.wit".into(), WIT.into()));
    files.extend(fixtures());
    for (path, contents) in files {
        let path = dir.join(path);
        let write = || {
            std::fs::create_dir_all(path.parent().expect("has a parent"))?;
            std::fs::write(&path, contents)
        };
        write().map_err(|source| ScaffoldError::Write { path: path.clone(), source })?;
    }
    Ok(Scaffold { dir, build })
}

/// The fixture cases of every language's example: a pass, a fail with evidence, and a
/// config the validator cannot use (an error).
fn fixtures() -> Files {
    let case = |config: &str, status: &str, contains: &str| {
        format!(
            "{{\n  \"config\": {config},\n  \"expect\": {{\"status\": \"{status}\", \"message_contains\": \"{contains}\"}}\n}}\n"
        )
    };
    let config = r#"{"files": ["src/**/*.rs"], "text": "SPDX-License-Identifier"}"#;
    let licensed = "// SPDX-License-Identifier: MIT\nfn main() {}\n";
    [
        ("all-licensed/case.json", case(config, "pass", "all 2 files")),
        ("all-licensed/root/src/a.rs", licensed.into()),
        ("all-licensed/root/src/b.rs", licensed.into()),
        ("one-missing/case.json", case(config, "fail", "1 of 2 files")),
        ("one-missing/root/src/a.rs", licensed.into()),
        ("one-missing/root/src/b.rs", "fn main() {}\n".into()),
        ("bad-config/case.json", case(r#"{"files": "not a list"}"#, "error", "")),
        ("bad-config/root/src/a.rs", licensed.into()),
    ]
    .into_iter()
    .map(|(path, contents)| (format!("fixtures/{path}"), contents))
    .collect()
}

/// `text` with the check's name in place of `NAME`.
fn named(text: &str, name: &str) -> String {
    text.replace("NAME", name)
}
