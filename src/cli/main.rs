//! The `reviewhost` command line: parse, call the library, print, exit. One file per
//! subcommand; each returns an [`Exit`] (or an error, which is printed here, once, and
//! exits 2).
//!
//! Text that came from an assertions file, the repository, a component or an agent
//! (errors quoting them included) is printed through `report::inert`.

mod agents;
mod exit;
mod fix_review;
mod grants;
mod init;
mod inspect;
mod lint;
mod loop_args;
mod mcp;
mod merge;
mod new;
mod output;
mod plan;
mod plan_gate;
mod plan_review;
mod progress;
mod review;
mod run;
mod runner;
mod schema;
mod test;
mod validate;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use reviewhost::RunError;
use reviewhost::assertion::LoadError;
use reviewhost::report::inert_lines;

use exit::Exit;

#[derive(Parser)]
#[command(name = "reviewhost", version, about = "Runs LLM-written review assertions, each in a WebAssembly sandbox")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colour on stdout: auto (a terminal, without NO_COLOR), always or never.
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Run every assertion in an assertions file and write the results back into it.
    Run(run::RunArgs),
    /// Merge the JSON reports of a run's shards into one report, in any format.
    Merge(merge::MergeArgs),
    /// Report assertions that are vacuous, impossible or contradictory, without running them.
    Lint(lint::LintArgs),
    /// Create a custom validator crate that builds to a component.
    New(new::NewArgs),
    /// Run a validator component against fixture cases, under the production limits.
    Test(test::TestArgs),
    /// Show a component's world, imports, exports, memory, size and the sha256 to pin.
    Inspect(inspect::InspectArgs),
    /// Print the JSON Schema of the assertions file.
    Schema(schema::SchemaArgs),
    /// Check an assertions file against the schema, without running anything.
    Validate(validate::ValidateArgs),
    /// Run the review loop: analysts, assertions, implementer, sandboxed run, fix-agent, until done.
    Review(review::ReviewArgs),
    /// Review the diff of one fix round for regressions (findings as JSON, located in the diff).
    FixReview(fix_review::FixReviewArgs),
    /// Review plans before execution: a pre-check, a reviewer, an architect, a hard stop.
    PlanReview(plan_review::PlanReviewArgs),
    /// Gate a plan: conformance and critic, then a fresh overviewer; a person decides on escalation.
    PlanGate(plan_gate::PlanGateArgs),
    /// Write an implementation plan through phases, each answer held to its output contract.
    Plan(plan::PlanArgs),
    /// List the agent definitions the review loop uses, and where each comes from.
    Agents(agents::AgentsArgs),
    /// Write a starting reviewhost.toml for Claude Code, Codex or another agent CLI.
    Init(init::InitArgs),
    /// Serve the sandboxed shell and checks to agents over MCP (stdio).
    Mcp(mcp::McpArgs),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
    /// Print the man page (roff), generated from the same definitions as --help.
    Man,
}

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  reviewhost completions bash > reviewhost.bash
  reviewhost completions zsh > _reviewhost
  reviewhost completions fish > reviewhost.fish

Install them as ~/.local/share/bash-completion/completions/reviewhost (bash),
a file _reviewhost in a directory on $fpath (zsh), or
~/.config/fish/completions/reviewhost.fish (fish).")]
struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

fn main() -> ExitCode {
    #[cfg(not(target_arch = "x86_64"))]
    eprintln!(
        "reviewhost: warning: wasmtime's Cranelift backend is tier 1 only on x86-64; on {} the sandbox \
         rests on a less-tested backend (docs/security-model.md)",
        std::env::consts::ARCH
    );
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    match cli.color {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    }
    .write_global();
    let result = match cli.command {
        Command::Run(args) => run::run(args, matches.subcommand_matches("run").expect("the run subcommand")),
        Command::Lint(args) => lint::lint(args),
        Command::Merge(args) => merge::merge(args, matches.subcommand_matches("merge").expect("the merge subcommand")),
        Command::New(args) => new::new(&args),
        Command::Test(args) => test::test(args),
        Command::Inspect(args) => inspect::inspect(&args),
        Command::Schema(_) => schema::schema(),
        Command::Validate(args) => validate::validate(args),
        Command::Review(args) => review::review(args),
        Command::Plan(args) => plan::plan(args),
        Command::PlanGate(args) => plan_gate::plan_gate(args),
        Command::PlanReview(args) => plan_review::plan_review(args),
        Command::FixReview(args) => fix_review::fix_review(args),
        Command::Agents(args) => agents::agents(&args),
        Command::Init(args) => init::init(&args),
        Command::Mcp(args) => mcp::mcp(&args),
        Command::Man => match clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout()) {
            // A reader that went away (`| head`) is not a failure.
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
            _ => Ok(Exit::Clean),
        },
        Command::Completions(args) => {
            clap_complete::generate(args.shell, &mut Cli::command(), "reviewhost", &mut std::io::stdout());
            Ok(Exit::Clean)
        }
    };
    match result {
        Ok(exit) => exit.into(),
        Err(error) => {
            eprintln!("reviewhost: error: {}", inert_lines(&message(&error), ""));
            if let Some(hint) = hint(&error) {
                eprintln!("  hint: {hint}");
            }
            Exit::CouldNotRun.into()
        }
    }
}

/// What to do about the errors people meet most.
/// The error and its causes, each once: a library error that already quotes its source
/// in its own message (`cannot read …: No such file or directory`) is not followed by that
/// source again.
fn message(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

fn hint(error: &anyhow::Error) -> Option<&'static str> {
    let load = error.downcast_ref::<LoadError>().or_else(|| match error.downcast_ref::<RunError>() {
        Some(RunError::Load(load)) => Some(load),
        _ => None,
    });
    match (load, error.downcast_ref::<RunError>()) {
        (Some(LoadError::Read { source: reviewhost::sandbox::HostReadError::Io(e), .. }), _)
            if e.kind() == std::io::ErrorKind::NotFound =>
        {
            Some(
                "pass the assertions file as an argument or set ASSERTIONS_FILE \
                 (the default is .claude/state/review-assertions.json)",
            )
        }
        (Some(LoadError::Syntax { .. } | LoadError::Field { .. }), _) => {
            Some("`reviewhost validate FILE` lists every problem; `reviewhost schema` prints the format")
        }
        (_, Some(RunError::Root { .. })) => Some("--root must be an existing directory (default: the current one)"),
        _ => None,
    }
}
