//! What every agent loop (`review`, `fix-review`, `plan-review`, `plan`, `plan-gate`) is
//! started with: the operator's agent configuration and definitions, the caps on a run's
//! agent calls, `--cancel`, and the sandbox that judges answers and assertions.

use std::path::{Path, PathBuf};
use std::time::Duration;

use reviewhost::Runner;
use reviewhost::review::agent::{Config, Limits};
use reviewhost::review::definitions::Definition;
use reviewhost::review::trust;
use reviewhost::sandbox::{parse_memory, parse_timeout};

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
    /// Stop the run once its agents have spent more than USD, as their CLIs price it
    /// (Claude Code reports a cost; Codex does not). `review` ends with "Cost limit"
    /// (exit 1); the other loops stop (exit 2) with their state kept for --resume.
    #[arg(long, value_name = "USD", value_parser = parse_cost)]
    max_cost: Option<f64>,
    /// Agent calls the run may make in all, retries included [`plan`: 3 per phase that
    /// may run]. `plan` ends with "max calls reached" (exit 4); the other loops stop
    /// (exit 2) with their state kept for --resume.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_calls: Option<u32>,
    /// Ask the loop running in the root to stop before its next agent call, and exit.
    #[arg(long)]
    pub cancel: bool,
}

/// `--max-cost`: a positive amount of USD.
fn parse_cost(text: &str) -> Result<f64, String> {
    match text.trim_start_matches('$').parse::<f64>() {
        Ok(usd) if usd.is_finite() && usd > 0.0 => Ok(usd),
        _ => Err(format!("'{text}' is not a positive amount of USD (e.g. 2.50)")),
    }
}

/// A loop's agents and sandbox, ready.
pub struct Loop {
    pub runner: Runner,
    pub config: Config,
    pub definitions: Vec<Definition>,
    pub prompt_budget: usize,
}

impl LoopArgs {
    /// With `--cancel`: asks the loop running in `root` to stop before its next agent
    /// call (`.reviewhost/cancel`) and says so; the command then exits.
    pub fn cancel(&self, root: &Path) -> anyhow::Result<Option<crate::exit::Exit>> {
        if !self.cancel {
            return Ok(None);
        }
        let marker = reviewhost::review::workspace::request_cancel(root)?;
        println!(
            "Asked the loop running in {} to stop before its next agent call ({}).",
            reviewhost::report::inert(&root.display().to_string()),
            reviewhost::report::inert(&marker.display().to_string())
        );
        Ok(Some(crate::exit::Exit::Clean))
    }

    /// Loads the configuration and definitions the operator trusts for `root` (warning
    /// about what is not read), checks every agent has a command, and makes the runner.
    pub fn load(self, root: &Path) -> anyhow::Result<Loop> {
        let setup = trust::load(root, &trust::Sources::new(self.config, self.trust_repo_config))?;
        for warning in &setup.warnings {
            eprintln!("reviewhost: warning: {warning}");
        }
        setup.check_commands()?;
        let sandbox = reviewhost::sandbox::Limits { timeout: self.timeout, memory: self.memory, ..Default::default() };
        let runner = crate::runner::runner(sandbox, self.jobs, root)?;
        // Ctrl-C (or SIGTERM) kills the running agent and ends the run as cancelled.
        let _ = ctrlc::set_handler(|| {
            reviewhost::review::agent::INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        Ok(Loop {
            runner,
            // Read-only agents of a preset get this program's sandboxed shell (`reviewhost mcp`).
            config: Config {
                sandbox_program: std::env::current_exe().ok(),
                limits: Limits { max_cost: self.max_cost, max_calls: self.max_calls },
                ..setup.config
            },
            definitions: setup.definitions,
            prompt_budget: self.prompt_budget,
        })
    }
}
