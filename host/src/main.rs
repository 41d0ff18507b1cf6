//! The `reviewhost` command line: parse, call the library, print, exit.
//!
//! Exit codes: 0 every assertion passed, 1 at least one failed or could not be
//! evaluated, 2 the run itself could not be done (bad file, bad flag, unreadable root).

use std::io::Write;
use std::path::{Path, PathBuf};
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
    /// Create a custom validator crate that builds to a component.
    #[command(after_help = "\
Creates ./NAME/: a crate with a working example validator, a native unit test, fixtures,
and its own copy of the SDK and WIT files (it needs only Rust and crates.io).

Examples:
  reviewhost new license-check
  cd license-check && cargo test && cargo build --release --target wasm32-wasip2")]
    New {
        /// The crate name (letters, digits, '-' and '_').
        name: String,
    },
    /// Run a validator component against fixture cases, under the production limits.
    #[command(after_help = "\
Each case is a directory under --fixtures with a case.json and the tree to check in root/:
  {\"config\": {...}, \"expect\": {\"status\": \"pass\"|\"fail\"|\"error\", \"message_contains\": \"...\"}}

Examples:
  reviewhost test target/wasm32-wasip2/release/license_check.wasm --fixtures fixtures

Exit codes: 0 every case as expected, 1 some not, 2 the component or fixtures are unusable.")]
    Test(TestArgs),
}

#[derive(clap::Args)]
struct TestArgs {
    /// The validator component (.wasm).
    component: PathBuf,
    /// The directory of fixture cases.
    #[arg(long)]
    fixtures: PathBuf,
    /// Time limit per case, e.g. 10s.
    #[arg(long, default_value = "10s", value_parser = parse_timeout)]
    timeout: Duration,
    /// Memory limit per case, e.g. 256MiB.
    #[arg(long, default_value = "256MiB", value_parser = parse_memory)]
    memory: u64,
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
        Command::New { name } => new(&name),
        Command::Test(args) => test(args),
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

fn new(name: &str) -> anyhow::Result<ExitCode> {
    let dir = reviewhost::authoring::scaffold::create(Path::new("."), name)?;
    println!("Created {}. Next:", dir.display());
    println!("  cd {name} && cargo test && cargo build --release --target wasm32-wasip2");
    println!("  reviewhost test target/wasm32-wasip2/release/{}.wasm --fixtures fixtures", name.replace('-', "_"));
    Ok(ExitCode::SUCCESS)
}

fn test(args: TestArgs) -> anyhow::Result<ExitCode> {
    let limits = Limits { timeout: args.timeout, memory: args.memory, ..Limits::default() };
    let runner = Runner::new(limits, 1, cache())?;
    let results = runner.test_fixtures(&args.component, &args.fixtures)?;
    let mut stdout = std::io::stdout().lock();
    let mut failed = 0;
    for case in &results {
        let ok = case.matches();
        let _ = writeln!(stdout, "  {} {}", if ok { '✅' } else { '❌' }, case.name);
        if !ok {
            failed += 1;
            let contains = case.expect.message_contains.as_deref().map(|m| format!(", message containing {m:?}"));
            let _ = writeln!(stdout, "     expected: {}{}", case.expect.status.as_str(), contains.unwrap_or_default());
            let _ = writeln!(stdout, "     actual:   {}: {}", case.outcome.status.as_str(), case.outcome.message);
        }
    }
    let _ = writeln!(stdout, "\n{} of {} cases as expected", results.len() - failed, results.len());
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
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
