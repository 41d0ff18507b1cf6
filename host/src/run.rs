//! One `reviewhost run`: load, plan, evaluate in parallel, write back, report.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use crate::assertion::{self, Assertion, Confidence, FileLock, LoadError, SaveError, Status};
use crate::authoring::fixtures::{self, CaseResult, FixtureError};
use crate::check::{Checks, Outcome, Site};
use crate::sandbox::{Cache, Limits, RootDir, Sandbox, SandboxError};

/// What a run is asked to do.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The assertions file.
    pub file: PathBuf,
    /// The directory checks see as `/`.
    pub root: PathBuf,
    /// Whether to write `status`, `failure_output` and `confidence` back into the file.
    pub write: bool,
}

/// Why a run could not be done (exit code 2). The assertions file is untouched.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("{}: the root is not an accessible directory: {source}", root.display())]
    Root { root: PathBuf, source: std::io::Error },
    #[error("{}: cannot lock the assertions file: {source}", file.display())]
    Lock { file: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Save(#[from] SaveError),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error("{}: {reason}", path.display())]
    Component { path: PathBuf, reason: String },
    #[error(transparent)]
    Fixture(#[from] FixtureError),
}

/// The results of a run, in file order.
#[derive(Debug)]
pub struct RunReport {
    pub file: PathBuf,
    pub root: PathBuf,
    pub results: Vec<(Assertion, Outcome)>,
    pub confidence: Confidence,
}

impl RunReport {
    /// True when every assertion passed (exit code 0).
    pub fn all_passed(&self) -> bool {
        self.results.iter().all(|(_, o)| o.status == Status::Pass)
    }
}

/// A sandbox plus the checks it runs: reusable across runs.
pub struct Runner {
    checks: Checks,
    jobs: usize,
}

impl Runner {
    /// A runner with the built-in checks, `jobs` evaluations at a time, and compiled
    /// components cached in `cache` (see [`Cache::default_dir`]).
    pub fn new(limits: Limits, jobs: usize, cache: Option<Cache>) -> Result<Runner, RunError> {
        let jobs = jobs.max(1);
        let sandbox = Arc::new(Sandbox::new(limits, jobs, cache)?);
        Ok(Runner { checks: Checks::builtin(sandbox), jobs })
    }

    /// The check registry, to add components (tests, custom checks).
    pub fn checks_mut(&mut self) -> &mut Checks {
        &mut self.checks
    }

    /// Runs the validator at `component` on the fixture cases under `fixtures`.
    pub fn test_fixtures(&self, component: &Path, fixtures: &Path) -> Result<Vec<CaseResult>, RunError> {
        let wasm = std::fs::read(component).map_err(|source| RunError::Component {
            path: component.to_path_buf(),
            reason: format!("cannot read: {source}"),
        })?;
        let name = component.display().to_string();
        let loaded = self.checks.sandbox().load_validator(&name, &wasm)?;
        Ok(fixtures::run(self.checks.sandbox(), &loaded, fixtures)?)
    }

    /// Runs every assertion in `options.file`.
    pub fn run(&self, options: &RunOptions) -> Result<RunReport, RunError> {
        let root =
            RootDir::new(&options.root).map_err(|source| RunError::Root { root: options.root.clone(), source })?;
        // Validate first, so a missing or broken file is reported before a lock file is
        // created beside it.
        let mut file = assertion::load(&options.file)?;
        // Held from the (re)load until after the save, so two runs on one file cannot
        // interleave; a read-only run needs no lock (saves are atomic renames).
        let _lock = match options.write {
            true => {
                let lock = FileLock::acquire(&options.file)
                    .map_err(|source| RunError::Lock { file: options.file.clone(), source })?;
                file = assertion::load(&options.file)?;
                Some(lock)
            }
            false => None,
        };
        let site = Site { root, file_dir: file_dir(&options.file) };
        let outcomes = self.evaluate_all(file.assertions(), &site);

        let passed = outcomes.iter().filter(|o| o.status == Status::Pass).count();
        let confidence = Confidence::new(passed, outcomes.len());
        if options.write {
            for (index, outcome) in outcomes.iter().enumerate() {
                file.record(index, outcome.status, &outcome.message);
            }
            file.set_confidence(confidence);
            file.save()?;
        }
        Ok(RunReport {
            file: options.file.clone(),
            root: site.root.path().to_path_buf(),
            results: file.assertions().iter().cloned().zip(outcomes).collect(),
            confidence,
        })
    }

    /// Findings per assertion (id, finding) for `reviewhost lint`: nothing is judged,
    /// the file is not written.
    pub fn lint(&self, file: &Path, root: &Path) -> Result<Vec<(String, String)>, RunError> {
        let root = RootDir::new(root).map_err(|source| RunError::Root { root: root.to_path_buf(), source })?;
        let file = assertion::load(file)?;
        let site = Site { root, file_dir: file_dir(file.path()) };
        let findings = parallel_map(file.assertions(), self.jobs, |a| self.checks.lint(a, &site));
        Ok(file
            .assertions()
            .iter()
            .zip(findings)
            .flat_map(|(a, found)| found.into_iter().map(|f| (a.id.clone(), f)))
            .collect())
    }

    /// Evaluates `assertions` on up to `jobs` threads; outcomes in input order.
    fn evaluate_all(&self, assertions: &[Assertion], site: &Site) -> Vec<Outcome> {
        parallel_map(assertions, self.jobs, |assertion| self.checks.execute(self.checks.plan(assertion, site)))
    }
}

/// `items.map(f)` on up to `jobs` threads, results in input order.
fn parallel_map<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let workers = jobs.min(items.len()).max(1);
    thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    let result = f(item);
                    *slots[index].lock().expect("no panics while held") = Some(result);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.into_inner().expect("no panics while held").expect("every index was evaluated"))
        .collect()
}

/// The directory of `file`, absolute (`.` for a bare file name).
fn file_dir(file: &Path) -> PathBuf {
    let dir = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// The default assertions file: `$ASSERTIONS_FILE`, else the seed's location.
pub fn default_file() -> PathBuf {
    std::env::var_os("ASSERTIONS_FILE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(".claude/state/review-assertions.json").to_path_buf())
}
