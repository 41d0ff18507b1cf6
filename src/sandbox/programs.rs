//! The `programs` interface of `wit/check.wit`: host programs the operator granted,
//! run natively under [`reviewhost_confine`] for the shell check built with grants.
//!
//! The capability exists only in a run with grants: [`Sandbox::with_grants`] makes a
//! second linker that has it, and only the built-in shell check is linked against that
//! one ([`Sandbox::load_builtin_granted`]). Custom validators are linked against the
//! first, so a validator that imports `programs` does not load. What may run is decided
//! here, by name, from the operator's grants; the component only asks.
//!
//! [`Sandbox::with_grants`]: super::Sandbox::with_grants
//! [`Sandbox::load_builtin_granted`]: super::Sandbox::load_builtin_granted

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reviewhost_confine::{Confinement, Ended, Grant, Job, Limits as JobLimits};

use super::bindings::programs::reviewhost::check::programs::{self as wit, Host, Invocation, Outcome};
use super::evaluate::HostState;
use super::limits::{Bytes, Seconds};

/// How granted programs run.
#[derive(Debug, Clone)]
pub enum Runner {
    /// Under every layer of [`Confinement`].
    Confined(Confinement),
    /// Directly, with the environment cleared and the deadline, nothing else:
    /// `--allow-unconfined-programs`, where confinement is not available.
    Unconfined,
}

/// What the operator granted, for one run.
#[derive(Debug, Clone)]
pub struct Grants {
    programs: BTreeMap<String, Grant>,
    runner: Runner,
    /// Directories the programs may read besides the system ones (toolchains).
    read_only: Vec<PathBuf>,
    /// Variables set for the programs, from the operator's environment.
    env: Vec<(String, String)>,
    /// Memory each granted process may hold (`RLIMIT_DATA`).
    memory: u64,
}

impl Grants {
    pub fn new(programs: Vec<Grant>, runner: Runner, read_only: Vec<PathBuf>, env: Vec<(String, String)>) -> Grants {
        let memory = JobLimits::default().data;
        Grants { programs: programs.into_iter().map(|g| (g.name.clone(), g)).collect(), runner, read_only, env, memory }
    }

    /// Sets the memory each granted process may hold (`[run] program_memory`).
    pub fn with_memory(mut self, bytes: u64) -> Grants {
        self.memory = bytes;
        self
    }

    pub fn is_empty(&self) -> bool {
        self.programs.is_empty()
    }

    /// How the granted programs run: `bwrap`, `landlock` or `unconfined`.
    pub fn confinement(&self) -> &'static str {
        match &self.runner {
            Runner::Confined(confinement) => match confinement.kind() {
                reviewhost_confine::Kind::Bwrap => "bwrap",
                reviewhost_confine::Kind::Landlock => "landlock",
            },
            Runner::Unconfined => "unconfined",
        }
    }
}

/// What one evaluation's store holds to run granted programs.
pub(super) struct ProgramHost {
    pub(super) grants: Arc<Grants>,
    /// The root on the host, absolute and canonical ([`super::RootDir::path`]), for the
    /// confinement to mount.
    pub(super) root: PathBuf,
    /// The check's deadline: a program still running then is killed.
    pub(super) deadline: Instant,
    /// Bytes of stdout and of stderr a program may print.
    pub(super) output: usize,
}

impl ProgramHost {
    fn run(&self, invocation: Invocation) -> Result<Outcome, String> {
        let name = invocation.program.as_str();
        let Some(grant) = self.grants.programs.get(name) else {
            return Err(format!(
                "'{name}' is not a granted program; an operator can grant it with --allow-program {name} \
                 (or [run] allow_programs in their reviewhost.toml)"
            ));
        };
        let cwd = invocation.cwd.trim_matches('/');
        if cwd.split('/').any(|part| part == "..") {
            return Err(format!("working directory '{cwd}' is outside the root"));
        }
        let timeout = self.deadline.saturating_duration_since(Instant::now());
        if timeout < Duration::from_millis(10) {
            return Err("the check's deadline passed before it could start".into());
        }
        let limits = JobLimits {
            timeout,
            cpu: timeout.max(Duration::from_secs(1)),
            output: self.output,
            data: self.grants.memory,
            ..JobLimits::default()
        };
        let outcome = match &self.grants.runner {
            Runner::Confined(confinement) => {
                let job = Job {
                    program: &grant.path,
                    args: &invocation.args,
                    root: &self.root,
                    cwd,
                    stdin: &invocation.stdin,
                    env: &self.grants.env,
                    read_only: &self.grants.read_only,
                    limits,
                };
                confinement.run(&job).map_err(|e| format!("'{name}': {e}"))?
            }
            Runner::Unconfined => reviewhost_confine::run_unconfined(
                &grant.path,
                &invocation.args,
                &self.root.join(cwd),
                &invocation.stdin,
                &self.grants.env,
                limits,
            )
            .map_err(|e| format!("'{name}': {e}"))?,
        };
        let ended = match outcome.ended {
            Ended::Exited(status) => wit::Ended::Exited(status),
            Ended::Signalled(signal) => wit::Ended::Signalled(signal),
            Ended::TimedOut => {
                return Err(format!(
                    "'{name}' was still running at the check's deadline ({} in all) and was killed, with every process it started",
                    Seconds(limits.timeout)
                ));
            }
            Ended::OutputLimit => {
                return Err(format!("'{name}' printed more than {} and was stopped", Bytes(self.output as u64)));
            }
        };
        Ok(Outcome { ended, stdout: outcome.stdout, stderr: outcome.stderr })
    }
}

impl Host for HostState {
    fn run(&mut self, invocation: Invocation) -> Result<Outcome, String> {
        match &self.programs {
            Some(programs) => programs.run(invocation),
            None => {
                Err(format!("'{}' is not a granted program: no program is granted in this run", invocation.program))
            }
        }
    }
}
