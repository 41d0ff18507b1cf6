//! From an assertion to what evaluates it.
//!
//! [`Checks`] knows which component evaluates each assertion type and prepares its
//! input: for a built-in check, the typed input of [`reviewhost_protocol`], with `path`
//! made root-relative and, for the command types, the judging rule that `type` and
//! `expected` select ([`expect`]); for a component registered at run time, the
//! assertion's object with `path` made root-relative. Some
//! assertions are decided here without running anything: a `path` outside the root
//! fails (it is never read); an unknown type, or an `expected` that contradicts the
//! type, is an error. A `custom` assertion is evaluated by the validator component it
//! names, after its `sha256` pin is checked, seeing only its `paths` when given.
//!
//! Components are loaded lazily: a file without file checks never compiles the fs check,
//! and each distinct custom component is loaded once per run. Within a run, assertions
//! that ask a component the same question share one evaluation ([`Checks::execute_all`]).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::Value;
use sha2::Digest;

pub mod expect;

use reviewhost_protocol::{FileCheck, Intent, Mode, Rule, SearchPlan, ShellInput, ShellOutput};

use crate::assertion::{Assertion, COMMAND_TYPES, Kind, Status};
use crate::sandbox::{
    Base, CheckComponent, Evaluation, Evidence, Input, RootDir, Sandbox, SandboxError, Task, View, read_file,
};

/// The built-in check components, compiled by `build.rs` and embedded.
mod builtin {
    pub const FS: &[u8] = include_bytes!(env!("REVIEWHOST_CHECK_FS_WASM"));
    pub const SHELL: &[u8] = include_bytes!(env!("REVIEWHOST_CHECK_SHELL_WASM"));
    /// The same, compiled by `build.rs` for this machine (empty when cross-compiling).
    pub const FS_PRECOMPILED: &[u8] = include_bytes!(env!("REVIEWHOST_CHECK_FS_CWASM"));
    pub const SHELL_PRECOMPILED: &[u8] = include_bytes!(env!("REVIEWHOST_CHECK_SHELL_CWASM"));
    /// The shell check built with grants (it imports `programs`), for a run with grants.
    pub const SHELL_GRANTED: &[u8] = include_bytes!(env!("REVIEWHOST_CHECK_SHELL_GRANTED_WASM"));
    pub const SHELL_GRANTED_PRECOMPILED: &[u8] = include_bytes!(env!("REVIEWHOST_CHECK_SHELL_GRANTED_CWASM"));
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
    pub(crate) fn from_evaluation(evaluation: Evaluation) -> Outcome {
        let Evaluation { result, duration } = evaluation;
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
            // What a check says when it cannot evaluate is cut like its verdicts: a
            // component may return an error of any size.
            Err(e) => Outcome {
                status: Status::Error,
                message: cut(e.to_string(), MAX_MESSAGE_CHARS),
                evidence: Vec::new(),
                duration,
            },
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
    /// Run a component.
    Evaluate(Task),
    /// Already decided, nothing to run.
    Decided(Outcome),
}

/// A component loaded on first use (or why it could not be), shared by the threads
/// that need it.
type Loaded = OnceLock<Result<Arc<CheckComponent>, String>>;

/// A component known by an assertion type, loaded on first use.
struct Registered {
    name: String,
    wasm: Arc<[u8]>,
    loaded: Loaded,
    /// What the host knows of a check built into the binary; `None` for a component
    /// registered at run time, which gets the whole assertion object and is compiled.
    builtin: Option<Builtin>,
}

/// A check built into the binary.
#[derive(Clone, Copy)]
struct Builtin {
    /// The input it takes. It holds only what the check reads, so assertions that differ
    /// in `id` or `description` alone are the same question and share an evaluation.
    takes: Takes,
    /// Its compiled code, made by `build.rs` with the runtime's engine settings.
    precompiled: &'static [u8],
    /// Linked with the `programs` capability (the shell check of a run with grants).
    granted: bool,
}

/// Which input of [`reviewhost_protocol`] a built-in check takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Takes {
    /// [`FileCheck`] (`checks/fs`).
    FileCheck,
    /// [`ShellInput`] (`checks/shell`).
    ShellInput,
}

/// What the host decides about an assertion before any component sees it.
struct Prepared {
    /// A file type's `path`, made root-relative.
    path: Option<String>,
    /// A command type's rule and intent.
    rule: Option<expect::CommandRule>,
}

/// What a plan asks: the component, its input and its view.
///
/// The root is read-only to every check and a check has no other input (no clock it
/// may depend on for its verdict, no network, no environment), so the same question
/// gets the same answer within a run. Analysts repeat checks under different ids (the
/// same `grep -rn X .` for several findings, the same file for several tracks); each
/// repeat would otherwise rescan the tree.
#[derive(PartialEq, Eq, Hash)]
struct Question {
    /// The loaded component's address: the same `Arc` for every plan of a run.
    component: usize,
    input: Input,
    view: View,
}

impl Question {
    fn of(task: &Task) -> Question {
        Question {
            component: Arc::as_ptr(&task.component) as usize,
            input: task.input.clone(),
            view: task.view.clone(),
        }
    }
}

/// Linting one assertion: what is found without running anything, or the lint-mode
/// evaluation that finds it ([`Checks::lint`], then [`Checks::finish_lint`]).
#[derive(Debug)]
pub enum Lint {
    Found(Vec<String>),
    Evaluate(Plan),
}

/// Which component evaluates which assertion type.
pub struct Checks {
    sandbox: Arc<Sandbox>,
    by_type: HashMap<String, Arc<Registered>>,
    /// Whether the searches of one `execute_all` share a first pass ([`Checks::first_pass`]).
    prefilter: bool,
    /// The last run's first pass, for `--verbose`.
    last_pass: Mutex<Option<Arc<reviewhost_prefilter::Index>>>,
    /// Custom validators loaded in this run, by the SHA-256 of their bytes: each
    /// distinct component is compiled (or loaded from the cache) once per run.
    validators: Mutex<HashMap<String, Arc<Loaded>>>,
}

/// Largest custom component file read. Real validators are a few MiB.
pub const MAX_COMPONENT_BYTES: u64 = 64 * 1024 * 1024;

/// Where an assertion is checked: the root, and the directory of its assertions file
/// (custom components may be named relative to either). One site is one run: the custom
/// components it reads are read and hashed once in it, however many assertions name them.
#[derive(Debug, Clone)]
pub struct Site {
    pub root: RootDir,
    pub file_dir: PathBuf,
    /// The custom components read in this run, by the name the assertions use.
    components: Arc<Mutex<HashMap<String, Arc<ComponentFile>>>>,
}

impl Site {
    pub fn new(root: RootDir, file_dir: PathBuf) -> Site {
        Site { root, file_dir, components: Arc::default() }
    }

    /// The component `name` names, read and hashed on first use in this run. Each later
    /// use gets those same bytes, so the bytes compiled are the bytes hashed and pinned.
    fn component(&self, name: &str) -> Arc<ComponentFile> {
        let slot =
            self.components.lock().unwrap_or_else(|e| e.into_inner()).entry(name.to_string()).or_default().clone();
        slot.get_or_init(|| {
            find_component(name, self).map(|(wasm, found)| {
                let digest = format!("{:x}", sha2::Sha256::digest(&wasm));
                ReadComponent { wasm: wasm.into(), digest, found }
            })
        });
        slot
    }
}

/// A custom component as read once in a run, or why it could not be read.
type ComponentFile = OnceLock<Result<ReadComponent, String>>;

/// A custom component's bytes and their SHA-256.
#[derive(Debug)]
struct ReadComponent {
    wasm: Arc<[u8]>,
    digest: String,
    found: Found,
}

impl Checks {
    /// The built-in checks.
    pub fn builtin(sandbox: Arc<Sandbox>) -> Checks {
        let mut checks = Checks {
            sandbox,
            by_type: HashMap::new(),
            prefilter: true,
            last_pass: Mutex::new(None),
            validators: Mutex::new(HashMap::new()),
        };
        let fs = Builtin { takes: Takes::FileCheck, precompiled: builtin::FS_PRECOMPILED, granted: false };
        checks.register_with(&["file_exists", "file_content"], "fs", builtin::FS, Some(fs));
        let granted = checks.sandbox.grants().is_some();
        let (wasm, precompiled) = match granted {
            true => (builtin::SHELL_GRANTED, builtin::SHELL_GRANTED_PRECOMPILED),
            false => (builtin::SHELL, builtin::SHELL_PRECOMPILED),
        };
        let shell = Builtin { takes: Takes::ShellInput, precompiled, granted };
        checks.register_with(COMMAND_TYPES, "shell", wasm, Some(shell));
        checks
    }

    /// Whether the searches of a run share a first pass over their files (on by default;
    /// off, every search reads every file of its scope: for differential tests and
    /// `--no-prefilter`). Verdicts are the same either way.
    pub fn set_prefilter(&mut self, on: bool) {
        self.prefilter = on;
    }

    /// The last run's first pass, if one was made: what it read and how many files and
    /// directories the searches skipped on its answers.
    pub fn last_pass(&self) -> Option<Arc<reviewhost_prefilter::Index>> {
        self.last_pass.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The sandbox the checks run in.
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// Makes `wasm` (a component of the `builtin-check` world) evaluate the assertion
    /// types `types`, replacing any earlier registration. The component receives the
    /// assertion object, with `path` made root-relative when present.
    pub fn register(&mut self, types: &[&str], name: &str, wasm: &[u8]) {
        self.register_with(types, name, wasm, None);
    }

    fn register_with(&mut self, types: &[&str], name: &str, wasm: &[u8], builtin: Option<Builtin>) {
        let registered =
            Arc::new(Registered { name: name.into(), wasm: wasm.into(), loaded: OnceLock::new(), builtin });
        for t in types {
            self.by_type.insert((*t).to_string(), registered.clone());
        }
    }

    /// Decides what checking `assertion` takes.
    pub fn plan(&self, assertion: &Assertion, site: &Site) -> Plan {
        if let Kind::Custom { component, sha256, config, paths } = &assertion.kind {
            return self.custom_plan(assertion, site, component, sha256.as_deref(), config, paths.as_deref());
        }
        match self.prepare(assertion, &site.root) {
            Ok(prepared) => self.component_plan(assertion, prepared, Mode::Evaluate, &site.root),
            Err(decided) => Plan::Decided(decided),
        }
    }

    /// What the host decides before running anything, or the outcome when that decides
    /// the assertion: a `path` outside the root fails, an `expected` that contradicts the
    /// type is an error.
    fn prepare(&self, assertion: &Assertion, root: &RootDir) -> Result<Prepared, Outcome> {
        let path = match &assertion.kind {
            Kind::FileExists { path } | Kind::FileContent { path, .. } => {
                Some(root.relative(path).map_err(|outside| Outcome::decided(Status::Fail, outside.to_string()))?)
            }
            _ => None,
        };
        let rule = expect::resolve(&assertion.type_name, assertion.object.get("expected"))
            .map_err(|reason| Outcome::decided(Status::Error, reason))?;
        Ok(Prepared { path, rule })
    }

    /// The input `registered` gets for `assertion` in `root`.
    fn input(
        registered: &Registered,
        assertion: &Assertion,
        prepared: Prepared,
        mode: Mode,
        root: &RootDir,
    ) -> Result<String, Outcome> {
        let wrong_type = || {
            Outcome::decided(
                Status::Error,
                format!("the {} check does not evaluate type '{}'", registered.name, assertion.type_name),
            )
        };
        let input = match registered.builtin.map(|b| b.takes) {
            Some(Takes::FileCheck) => match (&assertion.kind, prepared.path) {
                (Kind::FileExists { .. }, Some(path)) => serde_json::to_string(&FileCheck::FileExists { path }),
                (Kind::FileContent { needle, .. }, Some(path)) => {
                    serde_json::to_string(&FileCheck::FileContent { path, needle: needle.clone() })
                }
                _ => return Err(wrong_type()),
            },
            Some(Takes::ShellInput) => match (&assertion.kind, prepared.rule) {
                (Kind::Command { command }, Some(expect::CommandRule { rule, intent })) => {
                    serde_json::to_string(&ShellInput {
                        command: command.clone(),
                        rule,
                        intent,
                        mode,
                        root_paths: root.host_paths(),
                    })
                }
                _ => return Err(wrong_type()),
            },
            None => {
                let mut object = assertion.object.clone();
                if let Some(path) = prepared.path {
                    object.insert("path".into(), Value::String(path));
                }
                serde_json::to_string(&object)
            }
        };
        Ok(input.expect("an input serializes to JSON"))
    }

    /// A `custom` assertion: find, pin-check and load its component, narrow the view.
    fn custom_plan(
        &self,
        assertion: &Assertion,
        site: &Site,
        component: &str,
        sha256: Option<&str>,
        config: &Value,
        paths: Option<&[String]>,
    ) -> Plan {
        let error = |message: String| Plan::Decided(Outcome::decided(Status::Error, message));
        let file = site.component(component);
        let ReadComponent { wasm, digest, found } = match file.get().expect("initialised by Site::component") {
            Ok(read) => read,
            Err(e) => return error(format!("component {component}: {e}")),
        };
        if let Some(pinned) = sha256
            && pinned != digest
        {
            return error(match found {
                // Its digest only for a WebAssembly component: of any other file beside the
                // assertions file (outside the root), the digest would tell what it holds.
                Found::Near if is_component(wasm) => format!(
                    "component {component}: sha256 mismatch: the assertion pins {pinned}, the file is {digest}; nothing was compiled"
                ),
                Found::Near => format!(
                    "component {component}: sha256 mismatch: the file is not a WebAssembly component; nothing was compiled"
                ),
                Found::Elsewhere => format!(
                    "component {component}: sha256 mismatch: the file is not the one the assertion pins; nothing was compiled"
                ),
            });
        }
        let slot = self.validators.lock().expect("no panics while held").entry(digest.clone()).or_default().clone();
        // Shared by every assertion naming these bytes, under whatever name: the reason
        // is kept without the name, and each assertion's error names its own.
        let loaded = slot.get_or_init(|| {
            self.sandbox.load_validator(component, wasm).map(Arc::new).map_err(|e: SandboxError| match e {
                SandboxError::Component { reason, .. } => reason,
                other => other.to_string(),
            })
        });
        let component = match (loaded, found) {
            (Ok(component), _) => component.clone(),
            (Err(reason), Found::Near) => return error(format!("component '{component}' cannot be loaded: {reason}")),
            (Err(_), Found::Elsewhere) => {
                return error(format!("component {component}: {NOT_FOUND}{NOT_USABLE_ELSEWHERE}"));
            }
        };
        let view = match paths {
            Some(paths) => match View::narrowed(&site.root, paths) {
                Ok(view) => view,
                Err(reason) => return error(reason),
            },
            None => View::whole(&site.root),
        };
        Plan::Evaluate(Task {
            component,
            input: Input::Validate { id: assertion.id.clone(), config: config.to_string() },
            view,
        })
    }

    fn component_plan(&self, assertion: &Assertion, prepared: Prepared, mode: Mode, root: &RootDir) -> Plan {
        let Some(registered) = self.by_type.get(&assertion.type_name) else {
            return Plan::Decided(Outcome::decided(
                Status::Error,
                format!("unknown assertion type '{}'", assertion.type_name),
            ));
        };
        let component = match self.load(registered) {
            Ok(component) => component,
            Err(reason) => return Plan::Decided(Outcome::decided(Status::Error, reason)),
        };
        match Self::input(registered, assertion, prepared, mode, root) {
            Ok(input) => Plan::Evaluate(Task { component, input: Input::Assertion(input), view: View::whole(root) }),
            Err(decided) => Plan::Decided(decided),
        }
    }

    /// The component of `registered`, loaded on first use.
    fn load(&self, registered: &Registered) -> Result<Arc<CheckComponent>, String> {
        let loaded = registered.loaded.get_or_init(|| {
            let precompiled = registered.builtin.map_or(&[][..], |b| b.precompiled);
            let loaded = match registered.builtin.is_some_and(|b| b.granted) {
                true => self.sandbox.load_builtin_granted(&registered.name, &registered.wasm, precompiled),
                false => self.sandbox.load_builtin(&registered.name, &registered.wasm, precompiled),
            };
            loaded.map(Arc::new).map_err(|e: SandboxError| e.to_string())
        });
        loaded.clone()
    }

    /// Runs `command` in the sandbox exactly as an assertion's command runs (the same
    /// interpreter, programs, limits and read-only root) and returns what it printed,
    /// judging nothing: `reviewhost mcp`'s `sh`.
    pub fn shell_output(&self, command: &str, root: &RootDir) -> Result<ShellOutput, String> {
        let registered = self.by_type.get("shell_exit_zero").ok_or("no check runs commands")?;
        let component = self.load(registered)?;
        let input = ShellInput {
            command: command.to_string(),
            rule: Rule::ExitZero { quiet: false },
            intent: Intent::Other,
            mode: Mode::Output,
            root_paths: root.host_paths(),
        };
        let input = Input::Assertion(serde_json::to_string(&input).expect("an input serializes to JSON"));
        let task = Task { component, input, view: View::whole(root) };
        let evaluation = self.sandbox.evaluate_all(vec![task], |_| {}).pop().expect("one evaluation per task");
        match evaluation.result {
            Ok(verdict) => serde_json::from_str(&verdict.message).map_err(|e| format!("the shell check's output: {e}")),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Findings about `assertion` that make it vacuous, impossible or contradictory,
    /// without running it: the type and `expected` are checked here, the command by the
    /// shell check in its lint mode (the command is untrusted and parsed in the sandbox),
    /// which [`Checks::finish_lint`] runs.
    pub fn lint(&self, assertion: &Assertion, site: &Site) -> Lint {
        let root = &site.root;
        if let Kind::Custom { .. } = assertion.kind {
            return Lint::Found(match self.plan(assertion, site) {
                Plan::Decided(Outcome { status: Status::Error, message, .. }) => vec![message],
                _ => Vec::new(),
            });
        }
        let prepared = match self.prepare(assertion, root) {
            Ok(prepared) => prepared,
            Err(decided) if decided.status == Status::Error => return Lint::Found(vec![decided.message]),
            Err(_) => return Lint::Found(Vec::new()),
        };
        if !matches!(assertion.kind, Kind::Command { .. }) {
            return Lint::Found(match self.by_type.contains_key(&assertion.type_name) {
                true => Vec::new(),
                false => vec![format!("unknown assertion type '{}'", assertion.type_name)],
            });
        }
        Lint::Evaluate(self.component_plan(assertion, prepared, Mode::Lint, root))
    }

    /// The findings of each [`Checks::lint`], running the lint-mode evaluations together.
    pub fn finish_lint(&self, lints: Vec<Lint>) -> Vec<Vec<String>> {
        let mut found = Vec::with_capacity(lints.len());
        let mut plans = Vec::new();
        for lint in lints {
            found.push(match lint {
                Lint::Found(findings) => Some(findings),
                Lint::Evaluate(plan) => {
                    plans.push(plan);
                    None
                }
            });
        }
        let mut outcomes = self.execute_all(plans, |_| {}).into_iter();
        found
            .into_iter()
            .map(|findings| {
                findings.unwrap_or_else(|| match outcomes.next().expect("one outcome per plan") {
                    Outcome { status: Status::Error, message, .. } => vec![message],
                    outcome => outcome.evidence.into_iter().map(|e| e.text).collect(),
                })
            })
            .collect()
    }

    /// Carries out a plan ([`Checks::execute_all`] for one; an evaluation starts a thread).
    pub fn execute(&self, plan: Plan) -> Outcome {
        self.execute_all(vec![plan], |_| {}).pop().expect("one outcome per plan")
    }

    /// Carries out every plan, the evaluations `jobs` at a time on the sandbox's threads;
    /// outcomes in plan order. Plans that ask a component the same question share one
    /// evaluation ([`Question`]). `finished(n)` is called as `n` more plans are done (for
    /// a progress bar), from the thread that finished them.
    pub fn execute_all(&self, mut plans: Vec<Plan>, finished: impl Fn(usize) + Send + Sync + 'static) -> Vec<Outcome> {
        self.first_pass(&mut plans);
        let mut tasks = Vec::new();
        // For each task, how many plans it answers.
        let mut askers: Vec<usize> = Vec::new();
        #[expect(
            clippy::mutable_key_type,
            reason = "a view's first pass counts its answers, but is hashed and compared by address"
        )]
        let mut by_question = HashMap::new();
        let mut decided = 0;
        // Per plan: its outcome, or the task that answers it.
        let answers: Vec<Result<Outcome, usize>> = plans
            .into_iter()
            .map(|plan| match plan {
                Plan::Decided(outcome) => {
                    decided += 1;
                    Ok(outcome)
                }
                Plan::Evaluate(task) => {
                    let index = *by_question.entry(Question::of(&task)).or_insert_with(|| {
                        tasks.push(task);
                        askers.push(0);
                        tasks.len() - 1
                    });
                    askers[index] += 1;
                    Err(index)
                }
            })
            .collect();
        if decided > 0 {
            finished(decided);
        }
        let evaluations = self.sandbox.evaluate_all(tasks, move |index| finished(askers[index]));
        answers
            .into_iter()
            .map(|answer| answer.unwrap_or_else(|index| Outcome::from_evaluation(evaluations[index].clone())))
            .collect()
    }
}

impl Checks {
    /// Gives the searches among `plans` a shared first pass, when two or more search
    /// the same root: the shell check tells, without running anything, what each
    /// command searches ([`Mode::Plan`]); the host reads the union of those paths once
    /// and notes which files hold which literals ([`crate::sandbox::pass`]); each search
    /// then skips the files that hold none of its own. Verdicts are unchanged: a file
    /// is skipped only when it certainly holds no match.
    fn first_pass(&self, plans: &mut [Plan]) {
        *self.last_pass.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let Some(shell) = self.prefilter.then(|| self.loaded_shell()).flatten() else { return };
        let mut root = None;
        let mut searching = Vec::new();
        let mut asked = HashSet::new();
        let mut questions = Vec::new();
        for (i, plan) in plans.iter().enumerate() {
            let Plan::Evaluate(task) = plan else { continue };
            let Input::Assertion(json) = &task.input else { continue };
            if !Arc::ptr_eq(&task.component, &shell) || !task.view.is_whole() {
                continue;
            }
            let Ok(mut input) = serde_json::from_str::<ShellInput>(json) else { continue };
            if input.mode != Mode::Evaluate || !may_search(&input.command) {
                continue;
            }
            if *root.get_or_insert_with(|| task.view.root().clone()) != *task.view.root() {
                continue;
            }
            searching.push(i);
            input.mode = Mode::Plan;
            if asked.insert(input.command.clone())
                && let Ok(json) = serde_json::to_string(&input)
            {
                questions.push(Task {
                    component: shell.clone(),
                    input: Input::Assertion(json),
                    view: task.view.clone(),
                });
            }
        }
        let Some(root) = root.filter(|_| searching.len() >= 2) else { return };
        let searches: Vec<SearchPlan> = self
            .sandbox
            .evaluate_all(questions, |_| {})
            .into_iter()
            .filter_map(|e| e.result.ok())
            .flat_map(|verdict| serde_json::from_str::<Vec<SearchPlan>>(&verdict.message).unwrap_or_default())
            .collect();
        if searches.is_empty() {
            return;
        }
        let limits = self.sandbox.limits();
        let index = crate::sandbox::pass(&root, &searches, limits.memory, limits.timeout);
        *self.last_pass.lock().unwrap_or_else(|e| e.into_inner()) = Some(index.clone());
        for i in searching {
            if let Plan::Evaluate(task) = &mut plans[i] {
                task.view = task.view.clone().with_pass(index.clone());
            }
        }
    }

    /// The shell check, when a plan of this run loaded it.
    fn loaded_shell(&self) -> Option<Arc<CheckComponent>> {
        let registered = self.by_type.get(COMMAND_TYPES[0]).filter(|r| r.builtin.is_some())?;
        registered.loaded.get()?.as_ref().ok().cloned()
    }
}

/// Whether `command` names grep or rg: only such commands are asked for their searches.
fn may_search(command: &str) -> bool {
    command
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .any(|word| matches!(word, "grep" | "egrep" | "fgrep" | "rg"))
}

/// A component found neither beside the assertions file nor in the root.
const NOT_FOUND: &str = "not found beside the assertions file or in the root";
/// Added to [`NOT_FOUND`] for every failure with a component outside the root and the
/// assertions file's directory: one message, whether the path is missing, unreadable,
/// special, or not a component.
const NOT_USABLE_ELSEWHERE: &str =
    ", and no usable component at that path (nothing more is said of a path outside both)";

/// Where a component was found, which decides what an error may say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    /// Beside the assertions file or inside the root: its digest and what is wrong
    /// with it may be reported.
    Near,
    /// Anywhere else, by absolute path (an operator's installed validators): it is
    /// used if it is a valid component, and nothing else about it is ever reported,
    /// so that an assertions file cannot probe the host's files.
    Elsewhere,
}

/// Whether `bytes` begin as a WebAssembly component does: the magic `\0asm`, then
/// the component model's version and layer (`0d 00`, `01 00`).
fn is_component(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\0asm\x0d\x00\x01\x00")
}

/// Finds and reads a component. A relative path is looked for beside the assertions
/// file first (where the operator keeps validators), then in the root; each opened
/// with cap-std's resolver from a handle on that directory, so `..` and symlinks
/// cannot lead out of it. An absolute path inside one of the two is treated the same;
/// any other absolute path is [`Found::Elsewhere`], and read only if it ends in `.wasm`. Every read is
/// [`crate::sandbox::read_file`]'s: non-blocking, a regular file checked on its
/// descriptor, at most [`MAX_COMPONENT_BYTES`], within a deadline.
fn find_component(component: &str, site: &Site) -> Result<(Vec<u8>, Found), String> {
    let path = Path::new(component);
    let beside_file = if path.is_absolute() { path.strip_prefix(&site.file_dir).ok() } else { Some(path) };
    let in_root = site.root.relative(component).ok().map(PathBuf::from);
    let mut near = Vec::new();
    if let Some(relative) = beside_file
        && let Ok(base) = Base::dir(&site.file_dir)
    {
        near.push((base, relative.to_path_buf()));
    }
    if let Some(relative) = in_root {
        near.push((Base::Inside(site.root.handle().clone()), relative));
    }
    for (base, relative) in &near {
        match read_file(base, relative, MAX_COMPONENT_BYTES) {
            Ok(wasm) => return Ok((wasm, Found::Near)),
            Err(e) if e.is_not_found() => continue,
            Err(e) => return Err(e.to_string()),
        }
    }
    if near.is_empty() && path.is_absolute() && path.extension().is_some_and(|e| e == "wasm") {
        // The operator's own files elsewhere: only a `*.wasm` path is opened at all
        // (never `/proc/kmsg` or a device), and used only if it is a component.
        return match read_file(&Base::Ambient, path, MAX_COMPONENT_BYTES) {
            Ok(wasm) => Ok((wasm, Found::Elsewhere)),
            Err(_) => Err(format!("{NOT_FOUND}{NOT_USABLE_ELSEWHERE}")),
        };
    }
    Err(NOT_FOUND.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::Verdict;

    /// An error a component returns is cut like a verdict's message: a hostile one may
    /// return hundreds of MiB, which would otherwise reach every report.
    #[test]
    fn a_components_error_is_cut_like_its_verdicts() {
        let evaluation = crate::sandbox::Evaluation {
            result: Err(crate::sandbox::EvalError::Refused("x".repeat(10 * MAX_MESSAGE_CHARS))),
            duration: Duration::ZERO,
        };
        let outcome = Outcome::from_evaluation(evaluation);
        assert_eq!(outcome.status, Status::Error);
        assert_eq!(outcome.message.chars().count(), MAX_MESSAGE_CHARS);
    }

    /// A run reads each component once: later assertions naming it get the bytes read
    /// and hashed first, even if the file is gone or changed meanwhile, so what is
    /// compiled is what was pinned; a new run (a new site) reads it again.
    #[test]
    fn a_component_is_read_and_hashed_once_per_run() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(dir.path().join("v.wasm"), b"\0asm first").unwrap();
        let site = Site::new(RootDir::new(&root).unwrap(), dir.path().to_path_buf());
        let first = site.component("v.wasm");
        std::fs::write(dir.path().join("v.wasm"), b"\0asm second").unwrap();
        let again = site.component("v.wasm");
        assert!(Arc::ptr_eq(&first, &again));
        let read = again.get().unwrap().as_ref().unwrap();
        assert_eq!(&*read.wasm, b"\0asm first");
        assert_eq!(read.digest, format!("{:x}", sha2::Sha256::digest(b"\0asm first")));
        let next_run = Site::new(RootDir::new(&root).unwrap(), dir.path().to_path_buf());
        assert_eq!(&*next_run.component("v.wasm").get().unwrap().as_ref().unwrap().wasm, b"\0asm second");
    }

    #[test]
    fn builtins_load_precompiled_and_fall_back_to_compiling_an_artifact_the_engine_refuses() {
        let sandbox = Sandbox::new(crate::sandbox::Limits::default(), 1, None).unwrap();
        assert!(!builtin::FS_PRECOMPILED.is_empty(), "build.rs precompiles on a native build");
        let embedded = sandbox.load_builtin("fs", builtin::FS, builtin::FS_PRECOMPILED).unwrap();
        assert!(embedded.precompiled());
        // Not an artifact of this engine (another CPU, a corrupt build): compiled instead.
        let compiled = sandbox.load_builtin("fs", builtin::FS, b"\x7fELF not an artifact").unwrap();
        assert!(!compiled.precompiled());
    }

    #[test]
    fn the_programs_capability_exists_only_in_the_granted_linker() {
        use crate::sandbox::{Grants, ProgramRunner};
        let plain = Sandbox::new(crate::sandbox::Limits::default(), 1, None).unwrap();
        assert!(plain.load_builtin_granted("shell", builtin::SHELL_GRANTED, &[]).is_err(), "no grants, no capability");
        let grants = Grants::new(
            vec![reviewhost_confine::Grant { name: "true".into(), path: "/bin/true".into() }],
            ProgramRunner::Unconfined,
            Vec::new(),
            Vec::new(),
        );
        let granted = Sandbox::new(crate::sandbox::Limits::default(), 1, None).unwrap().with_grants(grants).unwrap();
        // The linker every other component (custom validators above all) is linked with
        // does not gain it: a component that imports `programs` does not link there.
        let refused =
            granted.load_builtin("shell", builtin::SHELL_GRANTED, builtin::SHELL_GRANTED_PRECOMPILED).unwrap_err();
        assert!(refused.to_string().contains("reviewhost:check/programs"), "{refused}");
        assert!(
            granted.load_builtin_granted("shell", builtin::SHELL_GRANTED, builtin::SHELL_GRANTED_PRECOMPILED).is_ok()
        );
        // The plain shell imports nothing of it: its artifact does not name it.
        assert!(!builtin::SHELL.windows(25).any(|w| w == b"reviewhost:check/programs"));
    }

    #[test]
    fn the_embedded_artifacts_are_compiled_for_the_baseline_cpu() {
        // Cranelift is deterministic: the engine of build.rs, set for the baseline CPU,
        // makes the very bytes the binary embeds.
        let mut config = wasmtime::Config::new();
        crate::sandbox::settings::apply(&mut config);
        let triple = env!("REVIEWHOST_BUILD_TARGET");
        crate::sandbox::settings::apply_baseline(&mut config, triple, std::env::consts::ARCH).unwrap();
        let engine = wasmtime::Engine::new(&config).unwrap();
        let baseline = engine.precompile_component(builtin::FS).unwrap();
        assert!(baseline == builtin::FS_PRECOMPILED, "the embedded artifact is not the baseline compile");
    }

    #[test]
    fn an_engine_with_stricter_settings_compiles_the_builtins_instead() {
        // An engine that does not take what the artifacts were compiled with (here, no
        // relaxed SIMD) refuses them; the checks are compiled and still work.
        let sandbox = Sandbox::configured(crate::sandbox::Limits::default(), 1, None, |config| {
            config.wasm_relaxed_simd(false);
        })
        .unwrap();
        let refused = sandbox.load_builtin("fs", builtin::FS, builtin::FS_PRECOMPILED).unwrap();
        assert!(!refused.precompiled());
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "x").unwrap();
        let root = crate::sandbox::RootDir::new(dir.path()).unwrap();
        let input = serde_json::to_string(&FileCheck::FileExists { path: "a.txt".into() }).unwrap();
        let verdict = sandbox.evaluate(&refused, &View::whole(&root), Input::Assertion(input)).unwrap();
        assert!(verdict.passed, "{verdict:?}");
    }

    #[test]
    fn untrusted_verdicts_are_cut_to_size() {
        let evidence = Evidence { path: "p".repeat(1000), line: Some(1), text: "t".repeat(1000) };
        let verdict = Verdict { passed: false, message: "m".repeat(100_000), evidence: vec![evidence; 10_000] };
        let outcome = Outcome::from_evaluation(Evaluation { result: Ok(verdict), duration: Duration::ZERO });
        assert_eq!(outcome.status, Status::Fail);
        assert_eq!(outcome.message.chars().count(), MAX_MESSAGE_CHARS);
        assert_eq!(outcome.evidence.len(), MAX_EVIDENCE);
        assert_eq!(outcome.evidence[0].path.len(), MAX_EVIDENCE_TEXT_CHARS);
        assert_eq!(outcome.evidence[0].text.len(), MAX_EVIDENCE_TEXT_CHARS);
    }
}
