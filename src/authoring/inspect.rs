//! `reviewhost inspect COMPONENT`: what an author needs to know about a built component
//! before pinning it: its world, what it imports (and whether the sandbox links it), what
//! it exports, the memory it needs, its size and the SHA-256 to paste into an assertion.
//!
//! Nothing is compiled or run: the facts come from the component's sections
//! ([`Declared`]), so a component the sandbox would refuse is explained in milliseconds.

use std::path::{Path, PathBuf};

use sha2::Digest;

use crate::check::MAX_COMPONENT_BYTES;
use crate::sandbox::{Base, Declared, VALIDATOR_INTERFACE, read_file, refuse_non_component, usable_validator};

/// Why a component could not be inspected (exit code 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InspectError {
    #[error("{}: {reason}", path.display())]
    Unreadable { path: PathBuf, reason: String },
}

/// What a component is, as far as reviewhost is concerned.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Inspection {
    pub size: u64,
    /// Lowercase hex: the `sha256` of a `custom` assertion naming it.
    pub sha256: String,
    /// Which reviewhost world it implements, from what it exports.
    pub world: Option<String>,
    pub exports: Vec<String>,
    pub imports: Vec<Import>,
    /// Bytes of linear memory it starts with (the least `--memory` it runs under).
    pub initial_memory: u64,
    /// Its `producers` section (`processed-by: componentize-py 0.25.1`).
    pub producers: Vec<String>,
    /// `None` when a `custom` assertion can use it under a `--memory` of the given size;
    /// otherwise why it would be refused.
    pub refused: Option<String>,
}

/// One import and whether the sandbox provides it (links it, or it needs nothing).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Import {
    pub name: String,
    pub linked: bool,
}

/// Inspects the component at `path` as a validator for a run whose memory limit is
/// `memory` bytes.
pub fn inspect(path: &Path, memory: u64) -> Result<Inspection, InspectError> {
    let unreadable = |reason: String| InspectError::Unreadable { path: path.to_path_buf(), reason };
    let wasm = read_file(&Base::Ambient, path, MAX_COMPONENT_BYTES).map_err(|e| unreadable(e.to_string()))?;
    refuse_non_component(&wasm).map_err(unreadable)?;
    let declared = Declared::read(&wasm).map_err(|e| unreadable(e.to_string()))?;
    Ok(Inspection {
        size: wasm.len() as u64,
        sha256: format!("{:x}", sha2::Sha256::digest(&wasm)),
        world: world(&declared),
        exports: declared.exports.clone(),
        imports: declared
            .imports
            .iter()
            .map(|name| Import { name: name.clone(), linked: declared.provided(name) })
            .collect(),
        initial_memory: declared.initial_memory,
        producers: declared.producers.clone(),
        refused: usable_validator(&declared, memory).err(),
    })
}

/// The world of `wit/check.wit` a component implements, by the interface it exports.
fn world(declared: &Declared) -> Option<String> {
    let (package, _) = VALIDATOR_INTERFACE.split_once('/').expect("package/interface");
    declared.exports.iter().find_map(|export| {
        let rest = export.strip_prefix(package)?.strip_prefix('/')?;
        let (interface, version) = rest.split_once('@').unwrap_or((rest, "unversioned"));
        let world = match interface {
            "validator" => "custom-validator",
            "check" => "builtin-check",
            _ => return None,
        };
        Some(format!("{package}@{version} {world}"))
    })
}
