//! One `reviewhost run`: load, plan, evaluate in parallel, write back, report.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use sha2::{Digest, Sha256};

use crate::assertion::{self, Assertion, Confidence, FileLock, LoadError, SaveError, Status};
use crate::authoring::fixtures::{self, CaseResult, FixtureError};
use crate::check::{Checks, MAX_COMPONENT_BYTES, Outcome, Site};
use crate::sandbox::{Base, Cache, Grants, Limits, RootDir, Sandbox, SandboxError, read_file};
pub use reviewhost_protocol::ShellOutput;

/// What a run is asked to do.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The assertions file.
    pub file: PathBuf,
    /// The directory checks see as `/`.
    pub root: PathBuf,
    /// Whether to write `status`, `failure_output` and `confidence` back into the file.
    pub write: bool,
    /// Run only this shard of the assertions (a CI matrix job).
    pub shard: Option<Shard>,
    /// Run only the assertions with these ids ([`crate::select`]).
    pub only: Option<std::collections::BTreeSet<String>>,
}

/// One of `count` disjoint parts of an assertions file, `--shard K/N` with `index` = K.
///
/// An assertion belongs to the shard its id hashes to (SHA-256, so every machine agrees),
/// not to a position: adding or reordering assertions moves no other assertion between
/// shards, and a matrix job's retries run the same set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// Whether the assertion with `id` belongs to this shard.
    pub fn contains(&self, id: &str) -> bool {
        let digest = Sha256::digest(id.as_bytes());
        let bucket = u64::from_be_bytes(digest[..8].try_into().expect("8 bytes")) % u64::from(self.count);
        bucket == u64::from(self.index - 1)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        if text == "auto" {
            return Shard::from_env(|name| std::env::var(name).ok());
        }
        let usage =
            || format!("'{text}': expected K/N with 1 <= K <= N, e.g. 2/4, or `auto` (the CI system's variables)");
        let (k, n) = text.split_once('/').ok_or_else(usage)?;
        let (index, count) =
            (k.trim().parse::<u32>().map_err(|_| usage())?, n.trim().parse::<u32>().map_err(|_| usage())?);
        if index == 0 || count == 0 || index > count {
            return Err(usage());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// The shard the CI system says this job is, from its variables (`var` looks one
    /// up): GitLab's `CI_NODE_INDEX`/`CI_NODE_TOTAL` (1-based), Buildkite's
    /// `BUILDKITE_PARALLEL_JOB`/`BUILDKITE_PARALLEL_JOB_COUNT` (0-based), Bazel's
    /// `TEST_SHARD_INDEX`/`TEST_TOTAL_SHARDS` (0-based), a Kubernetes indexed job's
    /// `JOB_COMPLETION_INDEX` (0-based) with `REVIEWHOST_SHARD_COUNT`, or
    /// `REVIEWHOST_SHARD_INDEX` (0-based, e.g. GitHub's `strategy.job-index`) with
    /// `REVIEWHOST_SHARD_COUNT` (`strategy.job-total`).
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
        const SOURCES: [(&str, &str, u32); 5] = [
            ("CI_NODE_INDEX", "CI_NODE_TOTAL", 1),
            ("BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0),
            ("TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS", 0),
            ("JOB_COMPLETION_INDEX", "REVIEWHOST_SHARD_COUNT", 0),
            ("REVIEWHOST_SHARD_INDEX", "REVIEWHOST_SHARD_COUNT", 0),
        ];
        for (index_var, count_var, base) in SOURCES {
            let Some(index) = var(index_var).filter(|v| !v.trim().is_empty()) else { continue };
            let number = |name: &str, text: &str| {
                text.trim().parse::<u32>().map_err(|_| format!("--shard auto: ${name} is '{text}', not a number"))
            };
            let index = number(index_var, &index)?;
            let count =
                var(count_var).ok_or_else(|| format!("--shard auto: ${index_var} is set but ${count_var} is not"))?;
            let count = number(count_var, &count)?;
            let one_based = index + 1 - base;
            if count == 0 || one_based == 0 || one_based > count {
                return Err(format!(
                    "--shard auto: ${index_var}={index} is not a shard of ${count_var}={count} ({base}-based)"
                ));
            }
            return Ok(Shard { index: one_based, count });
        }
        Err("--shard auto: no CI shard variables are set (CI_NODE_INDEX, BUILDKITE_PARALLEL_JOB, TEST_SHARD_INDEX, \
             JOB_COMPLETION_INDEX or REVIEWHOST_SHARD_INDEX, each with its count)"
            .into())
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
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
    /// The assertions that ran (all of them, or the shard's) with their outcomes.
    pub results: Vec<(Assertion, Outcome)>,
    /// Over `results`.
    pub confidence: Confidence,
    /// The shard that ran, if any.
    pub shard: Option<Shard>,
    /// How granted host programs ran (`bwrap`, `landlock`, `unconfined`); `None`
    /// without grants.
    pub confinement: Option<&'static str>,
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
        Runner::with_grants(limits, jobs, cache, None)
    }

    /// [`Runner::new`] whose command checks may run the host programs in `grants`.
    pub fn with_grants(
        limits: Limits,
        jobs: usize,
        cache: Option<Cache>,
        grants: Option<Grants>,
    ) -> Result<Runner, RunError> {
        let jobs = jobs.max(1);
        let mut sandbox = Sandbox::new(limits, jobs, cache)?;
        if let Some(grants) = grants {
            sandbox = sandbox.with_grants(grants)?;
        }
        Ok(Runner { checks: Checks::builtin(Arc::new(sandbox)), jobs })
    }

    /// The sandbox the checks run in.
    pub fn sandbox(&self) -> &Sandbox {
        self.checks.sandbox()
    }

    /// The check registry, to add components (tests, custom checks).
    pub fn checks_mut(&mut self) -> &mut Checks {
        &mut self.checks
    }

    /// Runs the validator at `component` on the fixture cases under `fixtures`.
    pub fn test_fixtures(&self, component: &Path, fixtures: &Path) -> Result<Vec<CaseResult>, RunError> {
        let wasm = read_file(&Base::Ambient, component, MAX_COMPONENT_BYTES).map_err(|source| RunError::Component {
            path: component.to_path_buf(),
            reason: format!("cannot read: {source}"),
        })?;
        let name = component.display().to_string();
        let loaded = self.checks.sandbox().load_validator(&name, &wasm)?;
        Ok(fixtures::run(self.checks.sandbox(), &loaded, fixtures)?)
    }

    /// Runs every assertion in `options.file`.
    pub fn run(&self, options: &RunOptions) -> Result<RunReport, RunError> {
        self.run_observed(options, |_, _| {})
    }

    /// [`Runner::run`], calling `observe(finished, total)` as `finished` more assertions
    /// are done, out of the `total` that will run (for a progress bar), from the threads
    /// that evaluate them.
    pub fn run_observed(
        &self,
        options: &RunOptions,
        observe: impl Fn(usize, usize) + Send + Sync + 'static,
    ) -> Result<RunReport, RunError> {
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
        let site = Site::new(root, file_dir(&options.file));
        let selected: Vec<usize> = (0..file.assertions().len())
            .filter(|&i| options.shard.is_none_or(|shard| shard.contains(&file.assertions()[i].id)))
            .filter(|&i| options.only.as_ref().is_none_or(|ids| ids.contains(&file.assertions()[i].id)))
            .collect();
        let total = selected.len();
        // Planning loads components (a custom one may compile), so it runs in parallel too.
        let plans = parallel_map(&selected, self.jobs, |&index| self.checks.plan(&file.assertions()[index], &site));
        let outcomes: Vec<Outcome> = self.checks.execute_all(plans, move |finished| observe(finished, total));

        let passed = outcomes.iter().filter(|o| o.status == Status::Pass).count();
        let confidence = Confidence::new(passed, outcomes.len());
        if options.write {
            for (&index, outcome) in selected.iter().zip(&outcomes) {
                file.record(index, outcome.status, &outcome.message);
            }
            // Over the statuses now in the file: the same as `confidence` for a whole
            // run; for a shard, it counts the other shards' last results too, so
            // shards that take turns on one file leave a true total.
            file.set_confidence(file.recorded_confidence());
            file.save()?;
        }
        Ok(RunReport {
            file: options.file.clone(),
            root: site.root.path().to_path_buf(),
            results: selected.iter().map(|&i| file.assertions()[i].clone()).zip(outcomes).collect(),
            confidence,
            shard: options.shard,
            confinement: self.checks.sandbox().grants().map(|g| g.confinement()),
        })
    }

    /// Checks one assertion object against `root`, as `run` would (a custom component is
    /// looked for in the root): `reviewhost mcp`'s `check`. Nothing is written.
    pub fn check_one(&self, object: &serde_json::Value, root: &RootDir) -> Result<(Assertion, Outcome), RunError> {
        let doc = serde_json::json!({ "assertions": [object] });
        let file = assertion::parse(Path::new("(the check tool's assertion)"), doc.to_string().as_bytes())?;
        let assertion = file.assertions()[0].clone();
        let site = Site::new(root.clone(), root.path().to_path_buf());
        let outcome = self.checks.execute(self.checks.plan(&assertion, &site));
        Ok((assertion, outcome))
    }

    /// Checks every assertion of `file` against `root`, in parallel, nothing written; a
    /// custom component is looked for in `components` (then the root). An output
    /// contract's rules ([`crate::review::contract`]) run this way over an answer.
    pub fn check_all(
        &self,
        file: &assertion::AssertionsFile,
        root: &RootDir,
        components: &Path,
    ) -> Vec<(Assertion, Outcome)> {
        let site = Site::new(root.clone(), components.to_path_buf());
        let plans = parallel_map(file.assertions(), self.jobs, |a| self.checks.plan(a, &site));
        let outcomes = self.checks.execute_all(plans, |_| {});
        file.assertions().iter().cloned().zip(outcomes).collect()
    }

    /// Runs `command` in the sandbox and returns what it printed: `reviewhost mcp`'s `sh`.
    pub fn shell(&self, command: &str, root: &RootDir) -> Result<ShellOutput, String> {
        self.checks.shell_output(command, root)
    }

    /// Findings per assertion (id, finding) for `reviewhost lint`: nothing is judged,
    /// the file is not written.
    pub fn lint(&self, file: &Path, root: &Path) -> Result<Vec<(String, String)>, RunError> {
        let root = RootDir::new(root).map_err(|source| RunError::Root { root: root.to_path_buf(), source })?;
        let file = assertion::load(file)?;
        let site = Site::new(root, file_dir(file.path()));
        let lints = parallel_map(file.assertions(), self.jobs, |a| self.checks.lint(a, &site));
        let findings = self.checks.finish_lint(lints);
        Ok(file
            .assertions()
            .iter()
            .zip(findings)
            .flat_map(|(a, found)| found.into_iter().map(|f| (a.id.clone(), f)))
            .collect())
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
    let dir = crate::write::parent_dir(file);
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// The default assertions file: `$ASSERTIONS_FILE`, else the seed's location.
pub fn default_file() -> PathBuf {
    std::env::var_os("ASSERTIONS_FILE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(".claude/state/review-assertions.json").to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_shards_read_each_ci_systems_variables_with_its_base() {
        fn shard(pairs: &[(&str, &str)]) -> Result<Shard, String> {
            Shard::from_env(|name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string()))
        }
        assert_eq!(shard(&[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "4")]), Ok(Shard { index: 2, count: 4 }));
        let buildkite = [("BUILDKITE_PARALLEL_JOB", "0"), ("BUILDKITE_PARALLEL_JOB_COUNT", "3")];
        assert_eq!(shard(&buildkite), Ok(Shard { index: 1, count: 3 }));
        assert_eq!(shard(&[("TEST_SHARD_INDEX", "2"), ("TEST_TOTAL_SHARDS", "3")]), Ok(Shard { index: 3, count: 3 }));
        let k8s = [("JOB_COMPLETION_INDEX", "4"), ("REVIEWHOST_SHARD_COUNT", "5")];
        assert_eq!(shard(&k8s), Ok(Shard { index: 5, count: 5 }));
        let github = [("REVIEWHOST_SHARD_INDEX", "0"), ("REVIEWHOST_SHARD_COUNT", "2")];
        assert_eq!(shard(&github), Ok(Shard { index: 1, count: 2 }));
        assert!(
            shard(&[("BUILDKITE_PARALLEL_JOB", "3"), ("BUILDKITE_PARALLEL_JOB_COUNT", "3")])
                .unwrap_err()
                .contains("0-based")
        );
        assert!(shard(&[("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "3")]).is_err());
        assert!(shard(&[("JOB_COMPLETION_INDEX", "1")]).unwrap_err().contains("REVIEWHOST_SHARD_COUNT is not"));
        assert!(shard(&[]).unwrap_err().contains("no CI shard variables"));
    }

    #[test]
    fn shards_split_every_assertion_exactly_once() {
        let ids: Vec<String> = (0..500).map(|i| format!("A-{i:03}")).collect();
        let shards: Vec<Shard> = (1..=4).map(|k| format!("{k}/4").parse().unwrap()).collect();
        let mut sizes = [0; 4];
        for id in &ids {
            let owners: Vec<usize> = (0..4).filter(|&s| shards[s].contains(id)).collect();
            assert_eq!(owners.len(), 1, "{id} is in shards {owners:?}");
            sizes[owners[0]] += 1;
        }
        // Balanced within a generous margin (expected 125 each).
        assert!(sizes.iter().all(|&n| (90..=160).contains(&n)), "{sizes:?}");
        assert!("1/1".parse::<Shard>().unwrap().contains("anything"));
    }

    #[test]
    fn shard_syntax() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "1/2/3", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
