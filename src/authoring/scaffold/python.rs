//! The Python validator: componentize-py 0.25.1 (CPython 3.14 inside the component).
//!
//! The helper (`reviewhost_check.py`) closes imports when `validate` starts: in the
//! sandbox `/` is the reviewed repository, and CPython's path finder would let a module
//! committed there replace one the validator imports lazily, forging its verdict. It
//! reads the root through WASI directly (the `validator-files` world), which also lets
//! it find the directories an assertion's `paths` mounts.

use super::{Files, named, world_files};

const VALIDATOR: &str = include_str!("../templates/python/validator.py");
const HELPER: &str = include_str!("../templates/python/reviewhost_check.py");
const REQUIREMENTS: &str = include_str!("../templates/python/requirements.txt");
const README: &str = include_str!("../templates/python/README.md");
const GITIGNORE: &str = include_str!("../templates/python/.gitignore");

pub(super) fn files(name: &str) -> Files {
    let mut files: Files = vec![
        ("validator.py".into(), named(VALIDATOR, name)),
        ("reviewhost_check.py".into(), HELPER.into()),
        ("requirements.txt".into(), named(REQUIREMENTS, name)),
        ("README.md".into(), named(README, name)),
        (".gitignore".into(), named(GITIGNORE, name)),
    ];
    files.extend(world_files());
    files
}

/// A virtual environment in the check's directory with the pinned componentize-py, then
/// the build.
pub(super) fn build(name: &str) -> String {
    format!(
        "cd {name} && python3 -m venv .venv && .venv/bin/pip install -q --require-hashes -r requirements.txt \
         && .venv/bin/componentize-py -d wit -w validator-files componentize validator -o {name}.wasm"
    )
}
