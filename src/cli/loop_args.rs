//! What every agent loop (`review`, `plan`) is started with: the operator's agent
//! configuration and definitions, and the sandbox that judges answers and assertions.

use std::path::{Path, PathBuf};
use std::time::Duration;

use reviewhost::Runner;
use reviewhost::review::agent::Config;
use reviewhost::review::definitions::Definition;
use reviewhost::review::trust;
use reviewhost::sandbox::{Limits, parse_memory, parse_timeout};

#[derive(clap::Args)]
pub struct LoopArgs {
    /// The agent configuration [default: ~/.config/reviewhost/reviewhost.toml].
    #[arg(long)]
    config: Option<PathBuf>,
    /// Read the repository's own reviewhost.toml and .reviewhost/agents/: they choose the
    /// commands run on this machine and the agents' tools. Only for a repository you trust.
    #[arg(long, env = "REVIEWHOST_TRUST_REPO_CONFIG", value_parser = clap::builder::BoolishValueParser::new())]
    trust_repo_config: bool,
    /// Bytes an agent prompt may have; a larger one stops the loop (exit 2), never truncated.
    #[arg(long, default_value_t = reviewhost::review::prompt::DEFAULT_BUDGET)]
    prompt_budget: usize,
    /// Assertions (and contract rules) evaluated at once [default: number of CPUs].
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Time limit per assertion or contract rule.
    #[arg(long, default_value = "10s", value_parser = parse_timeout)]
    timeout: Duration,
    /// Memory limit per assertion or contract rule.
    #[arg(long, default_value = "256MiB", value_parser = parse_memory)]
    memory: u64,
}

/// A loop's agents and sandbox, ready.
pub struct Loop {
    pub runner: Runner,
    pub config: Config,
    pub definitions: Vec<Definition>,
    pub prompt_budget: usize,
}

impl LoopArgs {
    /// Loads the configuration and definitions the operator trusts for `root` (warning
    /// about what is not read), checks every agent has a command, and makes the runner.
    pub fn load(self, root: &Path) -> anyhow::Result<Loop> {
        let setup = trust::load(root, &trust::Sources::new(self.config, self.trust_repo_config))?;
        for warning in &setup.warnings {
            eprintln!("reviewhost: warning: {warning}");
        }
        setup.check_commands()?;
        let limits = Limits { timeout: self.timeout, memory: self.memory, ..Limits::default() };
        let runner = crate::runner::runner(limits, self.jobs, root)?;
        Ok(Loop {
            runner,
            // Read-only agents of a preset get this program's sandboxed shell (`reviewhost mcp`).
            config: Config { sandbox_program: std::env::current_exe().ok(), ..setup.config },
            definitions: setup.definitions,
            prompt_budget: self.prompt_budget,
        })
    }
}
