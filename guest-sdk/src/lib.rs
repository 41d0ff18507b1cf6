//! The guest side of reviewhost: what a check component is made of.
//!
//! A custom validator implements [`Validator`] and exports it with
//! [`export_validator!`]; the built-in checks implement [`Check`] and use
//! [`export_check!`]. On `wasm32` the macros wire the type to the `reviewhost:check` WIT
//! interfaces; on any other target they expand to nothing, so the same crate builds
//! natively and its logic is tested with a plain `cargo test` on a fixture directory
//! ([`run_validator`] with [`Root::at`]).
//!
//! Inside the sandbox the repository root is `/`, read-only; [`Root`] (feature
//! `helpers`, on by default) walks it, reads files with a size cap, and matches globs.

/// Where a check looked and what it saw there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    /// Path relative to the repository root.
    pub path: String,
    /// 1-based line number, when the evidence is a line of a file.
    pub line: Option<u32>,
    /// The relevant text, kept short by the check.
    pub text: String,
}

/// A check's answer: whether the assertion holds, why, and what it saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub passed: bool,
    pub message: String,
    pub evidence: Vec<Evidence>,
}

impl Verdict {
    /// The assertion holds.
    pub fn pass(message: impl Into<String>) -> Self {
        Verdict { passed: true, message: message.into(), evidence: Vec::new() }
    }

    /// The assertion does not hold.
    pub fn fail(message: impl Into<String>) -> Self {
        Verdict { passed: false, message: message.into(), evidence: Vec::new() }
    }

    /// Adds one piece of evidence.
    pub fn with_evidence(mut self, path: impl Into<String>, line: Option<u32>, text: impl Into<String>) -> Self {
        self.evidence.push(Evidence { path: path.into(), line, text: text.into() });
        self
    }
}

/// A custom validator: checks the repository for one `custom` assertion.
///
/// ```ignore
/// struct NoTodo;
/// impl reviewhost_guest::Validator for NoTodo {
///     type Config = serde_json::Value;
///     fn validate(_id: &str, _config: Self::Config, root: &Root) -> Result<Verdict, String> { ... }
/// }
/// reviewhost_guest::export_validator!(NoTodo);
/// ```
pub trait Validator {
    /// The assertion's `config` object, deserialized (`serde_json::Value` for anything).
    type Config: serde::de::DeserializeOwned;

    /// `Err` means "could not evaluate" (the host reports status `error`), never "failed".
    fn validate(id: &str, config: Self::Config, root: &Root) -> Result<Verdict, String>;
}

/// Runs a validator the way the host does: `config` is JSON text (`null` when the
/// assertion has none). Use it in native tests with [`Root::at`] on a fixture directory.
pub fn run_validator<V: Validator>(id: &str, config: &str, root: &Root) -> Result<Verdict, String> {
    let config = serde_json::from_str(config).map_err(|e| format!("invalid config for '{id}': {e}"))?;
    V::validate(id, config, root)
}

#[cfg(feature = "helpers")]
mod root;
#[cfg(feature = "helpers")]
pub use root::{DEFAULT_READ_LIMIT, Root, glob_set};
pub use serde_json;
#[cfg(feature = "helpers")]
pub use {globset, regex};

/// Without the helpers, [`Root`] is only the root's path.
#[cfg(not(feature = "helpers"))]
#[derive(Debug, Clone)]
pub struct Root {
    dir: std::path::PathBuf,
}

#[cfg(not(feature = "helpers"))]
impl Root {
    /// The sandbox's root, `/`.
    pub fn sandbox() -> Root {
        Root { dir: "/".into() }
    }

    /// A fixture directory, for native tests.
    pub fn at(dir: impl Into<std::path::PathBuf>) -> Root {
        Root { dir: dir.into() }
    }

    /// The real path of a root-relative path.
    pub fn path(&self, relative: &str) -> std::path::PathBuf {
        self.dir.join(relative.trim_start_matches('/'))
    }
}

/// A check: turns one assertion into a verdict.
pub trait Check {
    /// `assertion` is the JSON text of the assertion object. `Err` means "could not
    /// evaluate" (the host reports status `error`), never "failed".
    fn evaluate(assertion: &str) -> Result<Verdict, String>;
}

#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod bindings {
    /// The `builtin-check` world.
    pub mod builtin {
        wit_bindgen::generate!({
            path: "../wit",
            world: "builtin-check",
            pub_export_macro: true,
            default_bindings_module: "reviewhost_guest::bindings::builtin",
            export_macro_name: "export_builtin_check",
        });

        impl From<crate::Verdict> for exports::reviewhost::check::check::Verdict {
            fn from(v: crate::Verdict) -> Self {
                use self::reviewhost::check::types::Evidence;
                Self {
                    passed: v.passed,
                    message: v.message,
                    evidence: v
                        .evidence
                        .into_iter()
                        .map(|e| Evidence { path: e.path, line: e.line, text: e.text })
                        .collect(),
                }
            }
        }
    }

    /// The `validator` world.
    pub mod validator {
        wit_bindgen::generate!({
            path: "../wit",
            world: "custom-validator",
            pub_export_macro: true,
            default_bindings_module: "reviewhost_guest::bindings::validator",
            export_macro_name: "export_validator_world",
        });

        impl From<crate::Verdict> for exports::reviewhost::check::validator::Verdict {
            fn from(v: crate::Verdict) -> Self {
                use self::reviewhost::check::types::Evidence;
                Self {
                    passed: v.passed,
                    message: v.message,
                    evidence: v
                        .evidence
                        .into_iter()
                        .map(|e| Evidence { path: e.path, line: e.line, text: e.text })
                        .collect(),
                }
            }
        }
    }
}

/// Exports a [`Check`] implementation as the component's `reviewhost:check/check`.
/// Expands to nothing on non-wasm targets.
#[macro_export]
macro_rules! export_check {
    ($check:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            use $crate::bindings::builtin::exports::reviewhost::check::check as wit;

            struct Export;

            impl wit::Guest for Export {
                fn evaluate(assertion: String) -> Result<wit::Verdict, String> {
                    <$check as $crate::Check>::evaluate(&assertion).map(Into::into)
                }
            }

    $crate::bindings::builtin::export_builtin_check!(Export with_types_in $crate::bindings::builtin);
        };
    };
}

/// Exports a [`Validator`] implementation as the component's
/// `reviewhost:check/validator`. Expands to nothing on non-wasm targets.
#[macro_export]
macro_rules! export_validator {
    ($validator:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            use $crate::bindings::validator::exports::reviewhost::check::validator as wit;

            struct Export;

            impl wit::Guest for Export {
                fn validate(id: String, config: String) -> Result<wit::Verdict, String> {
                    $crate::run_validator::<$validator>(&id, &config, &$crate::Root::sandbox()).map(Into::into)
                }
            }

    $crate::bindings::validator::export_validator_world!(Export with_types_in $crate::bindings::validator);
        };
    };
}
