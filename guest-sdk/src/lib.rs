//! The guest side of reviewhost: what a check component is made of.
//!
//! A check implements [`Check`] and exports it with [`export_check!`]. On `wasm32` the
//! macro wires the type to the `reviewhost:check` WIT interface; on any other target it
//! expands to nothing, so the same crate builds natively and its logic is tested with a
//! plain `cargo test` on a fixture directory.
//!
//! The SDK has no opinion on how a check reads the repository: the root is the current
//! directory of the guest (`/`), so `std::fs` with relative paths is the API.

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

/// A check: turns one assertion into a verdict.
pub trait Check {
    /// `assertion` is the JSON text of the assertion object. `Err` means "could not
    /// evaluate" (the host reports status `error`), never "failed".
    fn evaluate(assertion: &str) -> Result<Verdict, String>;
}

#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../wit",
        world: "builtin-check",
        pub_export_macro: true,
        default_bindings_module: "reviewhost_guest::bindings",
        export_macro_name: "export_builtin_check",
    });

    use exports::reviewhost::check::check as wit;
    use reviewhost::check::types::Evidence as WitEvidence;

    impl From<crate::Verdict> for wit::Verdict {
        fn from(v: crate::Verdict) -> Self {
            wit::Verdict {
                passed: v.passed,
                message: v.message,
                evidence: v
                    .evidence
                    .into_iter()
                    .map(|e| WitEvidence { path: e.path, line: e.line, text: e.text })
                    .collect(),
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
            use $crate::bindings::exports::reviewhost::check::check as wit;

            struct Export;

            impl wit::Guest for Export {
                fn evaluate(assertion: String) -> Result<wit::Verdict, String> {
                    <$check as $crate::Check>::evaluate(&assertion).map(Into::into)
                }
            }

    $crate::bindings::export_builtin_check!(Export with_types_in $crate::bindings);
        };
    };
}
