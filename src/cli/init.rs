//! `reviewhost init`: a starting `reviewhost.toml` for the agent CLI at hand.

use std::io::Write;
use std::path::PathBuf;

use reviewhost::review::agent::CONFIG_FILE;
use reviewhost::review::init::{self, Starter};
use reviewhost::review::preset::Preset;
use reviewhost::review::trust::Sources;

use crate::exit::Exit;

#[derive(clap::Args)]
#[command(after_help = "\
Writes a commented reviewhost.toml for Claude Code, Codex or any other agent program,
by default where `reviewhost review` looks first: $REVIEWHOST_CONFIG_DIR, else
~/.config/reviewhost/. Without --agent, the CLI found on PATH is used (claude, then
codex), else a template for a command of your own. An existing file is kept.

Examples:
  reviewhost init
  reviewhost init --agent codex
  reviewhost init --agent command --config ./review/reviewhost.toml

Exit codes: 0 written, 2 nothing written (the file exists, or cannot be written).")]
pub struct InitArgs {
    /// The agent CLI [default: claude-code or codex, whichever is on PATH, else command].
    #[arg(long, value_enum)]
    agent: Option<AgentChoice>,
    /// Where to write [default: the user's reviewhost.toml].
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Replace an existing file.
    #[arg(long)]
    force: bool,
}

/// `--agent`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum AgentChoice {
    ClaudeCode,
    Codex,
    Command,
}

pub fn init(args: &InitArgs) -> anyhow::Result<Exit> {
    let starter = match args.agent {
        Some(AgentChoice::ClaudeCode) => Starter::Preset(Preset::ClaudeCode),
        Some(AgentChoice::Codex) => Starter::Preset(Preset::Codex),
        Some(AgentChoice::Command) => Starter::Command,
        None => Starter::detect(),
    };
    let path = match &args.config {
        Some(path) => path.clone(),
        None => Sources::user_dir()
            .ok_or_else(|| anyhow::anyhow!("no configuration directory: set $REVIEWHOST_CONFIG_DIR or pass --config"))?
            .join(CONFIG_FILE),
    };
    init::write(&path, &starter.template(), args.force)?;
    let mut stdout = std::io::stdout().lock();
    let what = match starter {
        Starter::Preset(preset) => format!("the {} preset", preset.name()),
        Starter::Command => "a command of your own: edit [agent] command first".to_string(),
    };
    writeln!(stdout, "Wrote {} for {what}.", path.display())?;
    let config = args.config.as_ref().map(|p| format!(" --config {}", p.display())).unwrap_or_default();
    writeln!(stdout, "Next: reviewhost agents, then reviewhost review{config} PATH")?;
    Ok(Exit::Clean)
}
