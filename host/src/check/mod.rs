//! From an assertion to what evaluates it.
//!
//! [`Checks`] knows which component evaluates each assertion type and prepares its
//! input: the assertion's object, with `path` made root-relative and, for the command
//! types, the judging rule that `type` and `expected` select ([`expect`]). Some
//! assertions are decided here without running anything: a `path` outside the root
//! fails (it is never read); an unknown type, or an `expected` that contradicts the
//! type, is an error.
//!
//! Components are loaded lazily: a file without file checks never compiles the fs check.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;

pub mod expect;

use crate::assertion::{Assertion, COMMAND_TYPES, Kind, Status};
use crate::sandbox::{CheckComponent, EvalError, Evidence, RootDir, Sandbox, SandboxError, Verdict};

/// The built-in check components, compiled by `build.rs` and embedded.
mod builtin {
    pub const FS: &[u8] = include_bytes!(env!("REVIEWHOST_CHECK_FS_WASM"));
    pub const SHELL: &[u8] = include_bytes!(env!("REVIEWHOST_CHECK_SHELL_WASM"));
}

/// The result of checking one assertion.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: Status,
    /// Why: the verdict's message, or what made it an error.
    pub message: String,
    pub evidence: Vec<Evidence>,
    /// Wall time of the evaluation (zero when decided without running a component).
    pub duration: Duration,
}

impl Outcome {
    fn decided(status: Status, message: impl Into<String>) -> Outcome {
        Outcome { status, message: message.into(), evidence: Vec::new(), duration: Duration::ZERO }
    }

    /// Turns an evaluation into an outcome, cutting what an untrusted check returned down
    /// to [`MAX_MESSAGE_CHARS`], [`MAX_EVIDENCE`] entries and [`MAX_EVIDENCE_TEXT_CHARS`].
    fn from_evaluation(result: Result<Verdict, EvalError>, duration: Duration) -> Outcome {
        match result {
            Ok(v) => Outcome {
                status: if v.passed { Status::Pass } else { Status::Fail },
                message: cut(v.message, MAX_MESSAGE_CHARS),
                evidence: v
                    .evidence
                    .into_iter()
                    .take(MAX_EVIDENCE)
                    .map(|e| Evidence {
                        path: cut(e.path, MAX_EVIDENCE_TEXT_CHARS),
                        line: e.line,
                        text: cut(e.text, MAX_EVIDENCE_TEXT_CHARS),
                    })
                    .collect(),
                duration,
            },
            Err(e) => Outcome { status: Status::Error, message: e.to_string(), evidence: Vec::new(), duration },
        }
    }
}

/// Characters of a verdict message kept. Reports and the file need a line or a
/// paragraph; a check that returns megabytes does not get them into the report.
pub const MAX_MESSAGE_CHARS: usize = 4096;
/// Evidence entries kept per verdict.
pub const MAX_EVIDENCE: usize = 100;
/// Characters kept of each evidence path and text.
pub const MAX_EVIDENCE_TEXT_CHARS: usize = 512;

fn cut(text: String, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((end, _)) => text[..end].to_string(),
        None => text,
    }
}

/// What has to happen to check one assertion.
#[derive(Debug)]
pub enum Plan {
    /// Run `component` on `input`.
    Evaluate { component: Arc<CheckComponent>, input: String },
    /// Already decided, nothing to run.
    Decided(Outcome),
}

/// A component known by an assertion type, loaded on first use.
struct Registered {
    name: String,
    wasm: Arc<[u8]>,
    loaded: OnceLock<Result<Arc<CheckComponent>, String>>,
}

/// Which component evaluates which assertion type.
pub struct Checks {
    sandbox: Arc<Sandbox>,
    by_type: HashMap<String, Arc<Registered>>,
}

impl Checks {
    /// The built-in checks.
    pub fn builtin(sandbox: Arc<Sandbox>) -> Checks {
        let mut checks = Checks { sandbox, by_type: HashMap::new() };
        checks.register(&["file_exists", "file_content"], "fs", builtin::FS);
        checks.register(COMMAND_TYPES, "shell", builtin::SHELL);
        checks
    }

    /// Makes `wasm` (a component of the `builtin-check` world) evaluate the assertion
    /// types `types`, replacing any earlier registration. The component receives the
    /// assertion object, with `path` made root-relative when present.
    pub fn register(&mut self, types: &[&str], name: &str, wasm: &[u8]) {
        let registered = Arc::new(Registered { name: name.into(), wasm: wasm.into(), loaded: OnceLock::new() });
        for t in types {
            self.by_type.insert((*t).to_string(), registered.clone());
        }
    }

    /// Decides what checking `assertion` takes.
    pub fn plan(&self, assertion: &Assertion, root: &RootDir) -> Plan {
        match self.input(assertion, root) {
            Ok(input) => self.component_plan(assertion, input),
            Err(decided) => Plan::Decided(decided),
        }
    }

    /// The input object of the assertion's check, or the outcome when the assertion is
    /// decided without running anything.
    fn input(&self, assertion: &Assertion, root: &RootDir) -> Result<serde_json::Map<String, Value>, Outcome> {
        let mut object = assertion.object.clone();
        if let Kind::FileExists { path } | Kind::FileContent { path, .. } = &assertion.kind {
            let relative =
                root.relative(path).map_err(|outside| Outcome::decided(Status::Fail, outside.to_string()))?;
            object.insert("path".into(), Value::String(relative));
        }
        let rule = expect::resolve(&assertion.type_name, assertion.object.get("expected"))
            .map_err(|reason| Outcome::decided(Status::Error, reason))?;
        if let Some(rule) = rule {
            object.insert("reviewhost_rule".into(), rule.rule);
            object.insert("reviewhost_intent".into(), Value::String(rule.intent.into()));
        }
        Ok(object)
    }

    fn component_plan(&self, assertion: &Assertion, object: serde_json::Map<String, Value>) -> Plan {
        let Some(registered) = self.by_type.get(&assertion.type_name) else {
            return Plan::Decided(Outcome::decided(
                Status::Error,
                format!("unknown assertion type '{}'", assertion.type_name),
            ));
        };
        let loaded = registered.loaded.get_or_init(|| {
            self.sandbox.load(&registered.name, &registered.wasm).map(Arc::new).map_err(|e: SandboxError| e.to_string())
        });
        match loaded {
            Ok(component) => Plan::Evaluate { component: component.clone(), input: Value::Object(object).to_string() },
            Err(reason) => Plan::Decided(Outcome::decided(Status::Error, reason.clone())),
        }
    }

    /// Findings about `assertion` that make it vacuous, impossible or contradictory,
    /// without running it: the type and `expected` are checked here, the command by the
    /// shell check in its lint mode (the command is untrusted and parsed in the sandbox).
    pub fn lint(&self, assertion: &Assertion, root: &RootDir) -> Vec<String> {
        let mut object = match self.input(assertion, root) {
            Ok(object) => object,
            Err(decided) if decided.status == Status::Error => return vec![decided.message],
            Err(_) => return Vec::new(),
        };
        if !matches!(assertion.kind, Kind::Command { .. }) {
            return match self.by_type.contains_key(&assertion.type_name) {
                true => Vec::new(),
                false => vec![format!("unknown assertion type '{}'", assertion.type_name)],
            };
        }
        object.insert("reviewhost_mode".into(), Value::String("lint".into()));
        match self.execute(self.component_plan(assertion, object), root) {
            Outcome { status: Status::Error, message, .. } => vec![message],
            outcome => outcome.evidence.into_iter().map(|e| e.text).collect(),
        }
    }

    /// Carries out a plan.
    pub fn execute(&self, plan: Plan, root: &RootDir) -> Outcome {
        match plan {
            Plan::Decided(outcome) => outcome,
            Plan::Evaluate { component, input } => {
                let started = Instant::now();
                let result = self.sandbox.evaluate(&component, root, &input);
                Outcome::from_evaluation(result, started.elapsed())
            }
        }
    }
}
