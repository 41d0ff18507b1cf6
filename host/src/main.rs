//! The `reviewhost` command line: parse, call the library, print, exit.
//!
//! Exit codes: 0 every assertion passed, 1 at least one failed or could not be
//! evaluated, 2 the run itself could not be done (bad file, bad flag, unreadable root).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use reviewhost::report::{self, Format};
use reviewhost::sandbox::{Cache, Limits, parse_memory, parse_timeout};
use reviewhost::{RunOptions, Runner};

#[derive(Parser)]
#[command(name = "reviewhost", version, about = "Runs LLM-written review assertions, each in a WebAssembly sandbox")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run every assertion in an assertions file and write the results back into it.
    #[command(after_help = "\
Examples:
  reviewhost run                                   # .claude/state/review-assertions.json, root = .
  reviewhost run examples/basic/assertions.json --root examples/basic
  reviewhost run review.json --format json --no-write
  ASSERTIONS_FILE=review.json reviewhost run --jobs 4 --timeout 5s --memory 128MiB

Exit codes: 0 all pass, 1 some fail or error, 2 the run could not be done.")]
    Run(RunArgs),
    /// Report assertions that are vacuous, impossible or contradictory, without running them.
    #[command(after_help = "\
Finds: an `expected` that contradicts the `type`, an unknown type or expected value,
`grep -c` under grep_not_match (a count is always printed), `\\|` in an -E pattern or `|`
in a basic one (a literal bar), a grep_not_match on a path that does not exist, and a
grep_match whose command ends with an unconditional echo.

Examples:
  reviewhost lint
  reviewhost lint review.json --root .

Exit codes: 0 no findings, 1 findings, 2 the file could not be read or is invalid.")]
    Lint(LintArgs),
}

#[derive(clap::Args)]
struct LintArgs {
    /// The assertions file [default: $ASSERTIONS_FILE, else .claude/state/review-assertions.json]
    file: Option<PathBuf>,
    /// The directory the commands would see as `/`.
    #[arg(long, default_value = ".")]
    root: PathBuf,
}

#[derive(clap::Args)]
struct RunArgs {
    /// The assertions file [default: $ASSERTIONS_FILE, else .claude/state/review-assertions.json]
    file: Option<PathBuf>,
    /// The directory checks see, read-only, as `/`.
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Assertions evaluated at once [default: number of CPUs].
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Report format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Do not write status, failure_output and confidence back into the file.
    #[arg(long)]
    no_write: bool,
    /// Time limit per assertion, e.g. 10s, 500ms.
    #[arg(long, default_value = "10s", value_parser = parse_timeout)]
    timeout: Duration,
    /// Memory limit per assertion, e.g. 256MiB, 1GiB.
    #[arg(long, default_value = "256MiB", value_parser = parse_memory)]
    memory: u64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run(args),
        Command::Lint(args) => lint(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("reviewhost: error: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// The compiled-component cache, or none (with a warning) when it cannot be trusted.
fn cache() -> Option<Cache> {
    Cache::default_dir().and_then(|dir| match Cache::open(&dir) {
        Ok(cache) => Some(cache),
        Err(e) => {
            eprintln!("reviewhost: warning: not using the compiled-component cache: {e}");
            None
        }
    })
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn lint(args: LintArgs) -> anyhow::Result<ExitCode> {
    let runner = Runner::new(Limits::default(), default_jobs(), cache())?;
    let file = args.file.unwrap_or_else(reviewhost::run::default_file);
    let findings = runner.lint(&file, &args.root)?;
    let mut stdout = std::io::stdout().lock();
    for (id, finding) in &findings {
        let _ = writeln!(stdout, "{id}: {}", finding.replace('\n', "\n    "));
    }
    let _ = writeln!(stdout, "{} finding(s) in {}", findings.len(), file.display());
    Ok(if findings.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let limits = Limits { timeout: args.timeout, memory: args.memory, ..Limits::default() };
    let runner = Runner::new(limits, args.jobs.unwrap_or_else(default_jobs), cache())?;
    let options = RunOptions {
        file: args.file.unwrap_or_else(reviewhost::run::default_file),
        root: args.root,
        write: !args.no_write,
    };
    let report = runner.run(&options)?;
    let mut stdout = std::io::stdout().lock();
    let written = match args.format {
        Format::Text => report::write_text(&report, &mut stdout),
        Format::Json => report::write_json(&report, &mut stdout),
    }
    .and_then(|()| stdout.flush());
    match written {
        // A reader that went away (`| head`) is not a failed run.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.context("cannot write the report")?,
    }
    Ok(if report.all_passed() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
