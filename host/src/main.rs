//! The `reviewhost` command line: parse, call the library, print, exit.
//!
//! Exit codes: 0 every assertion passed, 1 at least one failed or could not be
//! evaluated, 2 the run itself could not be done (bad file, bad flag, unreadable root).
//!
//! Text that came from an assertions file, the repository, a component or an agent
//! (errors quoting them included) is printed through `report::inert`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{ArgAction, CommandFactory, FromArgMatches, Parser, Subcommand};
use reviewhost::assertion::{self, LoadError, Status};
use reviewhost::report::{self, Detail, Format, TextStyle, inert, inert_lines};
use reviewhost::run::Shard;
use reviewhost::sandbox::{Cache, CacheKey, Limits, RootDir, parse_memory, parse_timeout};
use reviewhost::{RunError, RunOptions, RunReport, Runner};

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
  reviewhost run review.json --format junit -o junit.xml --format sarif -o review.sarif
  reviewhost run review.json --format github --fail-on fail --quiet
  reviewhost run review.json --shard 2/3 --verbose
  ASSERTIONS_FILE=review.json reviewhost run --jobs 4 --timeout 5s --memory 128MiB

Formats: text (the seed's report), json, junit, sarif (2.1.0, for code scanning),
github (text plus ::error/::warning annotations; appends a summary to
$GITHUB_STEP_SUMMARY when set). Each --output PATH takes the --format before it.

Exit codes: 0 all pass, 1 some fail or error (see --fail-on), 2 the run could not be done.")]
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

Then: cd license-check && cargo test && cargo build --release --target wasm32-wasip2")]
    New {
        /// The crate name (letters, digits, '-' and '_').
        name: String,
    },
    /// Run a validator component against fixture cases, under the production limits.
    #[command(after_help = "\
Each case is a directory under --fixtures with a case.json and the tree to check in root/:
  {\"config\": {...}, \"expect\": {\"status\": \"pass\"|\"fail\"|\"error\", \"message_contains\": \"...\"}}

Examples:
  reviewhost test license_check.wasm --fixtures fixtures
  reviewhost test license_check.wasm --fixtures fixtures --timeout 2s --memory 64MiB

A crate from `reviewhost new NAME` builds its component to
target/wasm32-wasip2/release/NAME.wasm (with '-' as '_').

Exit codes: 0 every case as expected, 1 some not, 2 the component or fixtures are unusable.")]
    Test(TestArgs),
    /// Print the JSON Schema of the assertions file.
    #[command(after_help = "\
The schema is derived from reviewhost's own types. It knows the assertion types, so a
misspelt `type` is a violation here (`run` would evaluate that assertion as an error).

Examples:
  reviewhost schema
  reviewhost schema > assertions.schema.json")]
    Schema,
    /// Check an assertions file against the schema, without running anything.
    #[command(after_help = "\
Lists every violation with its JSON pointer, then the checks the schema cannot express
(duplicate ids).

Examples:
  reviewhost validate
  reviewhost validate review.json

Exit codes: 0 valid, 1 invalid (every problem listed), 2 the file could not be read.")]
    Validate(ValidateArgs),
    /// Run the review loop: analysts, assertions, implementer, sandboxed run, fix-agent, until done.
    #[command(after_help = "\
Each pass: analysts (read-only agents) review the repository and end their answers with an
`## Assertions` JSON block; the assertions are checked, merged into the assertions file by
id and run in the sandbox after an implementer agent works on the open findings; failures
go to a fix-agent once, then the file is run again. The loop ends at Zero findings,
Budget reached (--max-passes), Plateau or Divergence. Agents are programs named in a
reviewhost.toml (see docs/review-loop.md); state, events and reports are in .reviewhost/.

The configuration is --config PATH, else ~/.config/reviewhost/reviewhost.toml
($REVIEWHOST_CONFIG_DIR); agent definitions are embedded, replaced by
~/.config/reviewhost/agents/NAME.md. The reviewed repository's own reviewhost.toml and
.reviewhost/agents/ name the commands run on this machine and the agents' tools, so they
are read only with --trust-repo-config (or REVIEWHOST_TRUST_REPO_CONFIG=1).

Examples:
  reviewhost review --config ~/review/claude.toml
  reviewhost review . --max-passes 3
  reviewhost review --trust-repo-config --prompt-budget 200000

After an aborted pass (exit 2): reviewhost review --resume

Exit codes: 0 converged (every assertion passes), 1 stopped with failures,
2 aborted (a failed agent call or an unusable answer; continue with --resume).")]
    Review(ReviewArgs),
    /// List the agent definitions the review loop uses, and where each comes from.
    #[command(after_help = "\
Definitions are embedded in reviewhost; a file of the same name in
~/.config/reviewhost/agents/ replaces one, and so does one in the repository's
.reviewhost/agents/ with --trust-repo-config (Markdown with YAML front matter).

Examples:
  reviewhost agents
  reviewhost agents --root . --trust-repo-config")]
    Agents {
        /// The repository whose .reviewhost/agents/ may override the defaults.
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Read the repository's own .reviewhost/agents/ too.
        #[arg(long, env = "REVIEWHOST_TRUST_REPO_CONFIG", value_parser = clap::builder::BoolishValueParser::new())]
        trust_repo_config: bool,
    },
    /// Print a shell completion script.
    #[command(after_help = "\
Examples:
  reviewhost completions bash > reviewhost.bash
  reviewhost completions zsh > _reviewhost
  reviewhost completions fish > reviewhost.fish

Install them as ~/.local/share/bash-completion/completions/reviewhost (bash),
a file _reviewhost in a directory on $fpath (zsh), or
~/.config/fish/completions/reviewhost.fish (fish).")]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
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
    /// A report format; repeat for several. Each goes to stdout, or to the --output that follows it.
    #[arg(long, short = 'f', value_enum, action = ArgAction::Append)]
    format: Vec<Format>,
    /// Write the report of the --format before it to PATH (the terminal still gets the text report).
    #[arg(long, short = 'o', value_name = "PATH", action = ArgAction::Append)]
    output: Vec<PathBuf>,
    /// Do not write status, failure_output and confidence back into the file.
    #[arg(long)]
    no_write: bool,
    /// Time limit per assertion, e.g. 10s, 500ms.
    #[arg(long, default_value = "10s", value_parser = parse_timeout)]
    timeout: Duration,
    /// Memory limit per assertion, e.g. 256MiB, 1GiB.
    #[arg(long, default_value = "256MiB", value_parser = parse_memory)]
    memory: u64,
    /// Run only shard K of N (1-based), for CI matrices; assertions are split by id.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Which outcomes make the exit code 1.
    #[arg(long, value_enum, default_value_t = FailOn::Any)]
    fail_on: FailOn,
    /// Print only the assertions that did not pass, and no progress bar.
    #[arg(long, short = 'q', conflicts_with = "verbose")]
    quiet: bool,
    /// Print whole messages, evidence and timings.
    #[arg(long, short = 'v')]
    verbose: bool,
}

/// `--fail-on`: what makes a run exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FailOn {
    /// A `fail` or an `error` (an assertion that could not be evaluated).
    Any,
    /// Only a `fail`: errors are reported but do not fail the job.
    Fail,
    /// Nothing: report only (exit 2 still means the run could not be done).
    Never,
}

#[derive(clap::Args)]
struct ReviewArgs {
    /// The repository to review.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Passes before the loop stops with "Budget reached".
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    max_passes: u32,
    /// Continue the review in .reviewhost/ from the start of its unfinished pass.
    #[arg(long)]
    resume: bool,
    /// The agent configuration [default: ~/.config/reviewhost/reviewhost.toml].
    #[arg(long)]
    config: Option<PathBuf>,
    /// Read the repository's own reviewhost.toml and .reviewhost/agents/: they choose the
    /// commands run on this machine and the agents' tools. Only for a repository you trust.
    #[arg(long, env = "REVIEWHOST_TRUST_REPO_CONFIG", value_parser = clap::builder::BoolishValueParser::new())]
    trust_repo_config: bool,
    /// The assertions file, relative to PATH.
    #[arg(long, default_value = ".claude/state/review-assertions.json")]
    assertions: PathBuf,
    /// Bytes an agent prompt may have; a larger one aborts the pass.
    #[arg(long, default_value_t = reviewhost::review::prompt::DEFAULT_BUDGET)]
    prompt_budget: usize,
    /// Assertions evaluated at once [default: number of CPUs].
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Time limit per assertion.
    #[arg(long, default_value = "10s", value_parser = parse_timeout)]
    timeout: Duration,
    /// Memory limit per assertion.
    #[arg(long, default_value = "256MiB", value_parser = parse_memory)]
    memory: u64,
}

#[derive(clap::Args)]
struct ValidateArgs {
    /// The assertions file [default: $ASSERTIONS_FILE, else .claude/state/review-assertions.json]
    file: Option<PathBuf>,
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
    let result = match cli.command {
        Command::Run(args) => {
            let run_matches = matches.subcommand_matches("run").expect("the run subcommand");
            reports(&args, run_matches).and_then(|reports| run(args, reports))
        }
        Command::Lint(args) => lint(args),
        Command::New { name } => new(&name),
        Command::Test(args) => test(args),
        Command::Schema => schema(),
        Command::Validate(args) => validate(args),
        Command::Review(args) => review(args),
        Command::Agents { root, trust_repo_config } => agents(&root, trust_repo_config),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "reviewhost", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("reviewhost: error: {}", inert_lines(&format!("{error:#}"), ""));
            if let Some(hint) = hint(&error) {
                eprintln!("  hint: {hint}");
            }
            ExitCode::from(2)
        }
    }
}

/// What to do about the errors people meet most.
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

/// Where each report of a run goes.
struct Reports {
    /// The one report on stdout.
    stdout: Format,
    /// Reports written to files.
    files: Vec<(Format, PathBuf)>,
}

/// Pairs each `--output` with the `--format` before it on the command line. Formats
/// without an output go to stdout (at most one); when every format has a file, stdout
/// gets the text report.
fn reports(args: &RunArgs, matches: &clap::ArgMatches) -> anyhow::Result<Reports> {
    let format_at: Vec<usize> = matches.indices_of("format").map(Iterator::collect).unwrap_or_default();
    let output_at: Vec<usize> = matches.indices_of("output").map(Iterator::collect).unwrap_or_default();
    let mut paths: Vec<Option<PathBuf>> = vec![None; args.format.len()];
    for (path, at) in args.output.iter().zip(output_at) {
        let owner = format_at.iter().rposition(|&f| f < at).filter(|&i| paths[i].is_none()).ok_or_else(|| {
            anyhow::anyhow!(
                "--output {} has no --format before it to write (e.g. --format junit --output {})",
                path.display(),
                path.display()
            )
        })?;
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        anyhow::ensure!(dir.is_dir(), "--output {}: the directory {} does not exist", path.display(), dir.display());
        paths[owner] = Some(path.clone());
    }
    let mut on_stdout = Vec::new();
    let mut files = Vec::new();
    for (format, path) in args.format.iter().zip(paths) {
        match path {
            Some(path) => files.push((*format, path)),
            None => on_stdout.push(*format),
        }
    }
    anyhow::ensure!(
        on_stdout.len() <= 1,
        "only one report can go to stdout, and --format {} and --format {} both would: \
         give the others an --output PATH",
        on_stdout[0].name(),
        on_stdout[1].name()
    );
    Ok(Reports { stdout: on_stdout.first().copied().unwrap_or(Format::Text), files })
}

/// The compiled-component cache, or none (with a warning) when it cannot be trusted:
/// a cache or key that lies inside `root` (the repository under review could ship
/// entries there) is never used.
fn cache(root: &Path) -> Option<Cache> {
    let (dir, key) = (Cache::default_dir()?, CacheKey::default_path()?);
    let opened = || -> Result<Cache, String> {
        let root = RootDir::new(root).map_err(|e| format!("{}: {e}", root.display()))?;
        for (what, path) in [("directory", &dir), ("key", &key)] {
            if root.contains(path) {
                return Err(format!(
                    "its {what} {} is inside the reviewed root {}, where the repository could plant entries",
                    path.display(),
                    root.path().display()
                ));
            }
        }
        let key = CacheKey::load_or_create(&key).map_err(|e| e.to_string())?;
        Cache::open(&dir, key).map_err(|e| e.to_string())
    };
    match opened() {
        Ok(cache) => Some(cache),
        Err(e) => {
            eprintln!("reviewhost: warning: not using the compiled-component cache: {e}");
            None
        }
    }
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
    let runner = Runner::new(limits, 1, cache(&args.fixtures))?;
    let results = runner.test_fixtures(&args.component, &args.fixtures)?;
    let mut stdout = std::io::stdout().lock();
    let mut failed = 0;
    for case in &results {
        let ok = case.matches();
        let _ = writeln!(stdout, "  {} {}", if ok { '✅' } else { '❌' }, inert(&case.name));
        if !ok {
            failed += 1;
            let contains =
                case.expect.message_contains.as_deref().map(|m| format!(", message containing \"{}\"", inert(m)));
            let _ = writeln!(stdout, "     expected: {}{}", case.expect.status.as_str(), contains.unwrap_or_default());
            let message = inert_lines(&case.outcome.message, "               ");
            let _ = writeln!(stdout, "     actual:   {}: {message}", case.outcome.status.as_str());
        }
    }
    let _ = writeln!(stdout, "\n{} of {} cases as expected", results.len() - failed, results.len());
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn lint(args: LintArgs) -> anyhow::Result<ExitCode> {
    let runner = Runner::new(Limits::default(), default_jobs(), cache(&args.root))?;
    let file = args.file.unwrap_or_else(reviewhost::run::default_file);
    let findings = runner.lint(&file, &args.root)?;
    let mut stdout = std::io::stdout().lock();
    for (id, finding) in &findings {
        let _ = writeln!(stdout, "{}: {}", inert(id), inert_lines(finding, "    "));
    }
    let _ = writeln!(stdout, "{} finding(s) in {}", findings.len(), file.display());
    Ok(if findings.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn run(args: RunArgs, reports: Reports) -> anyhow::Result<ExitCode> {
    let limits = Limits { timeout: args.timeout, memory: args.memory, ..Limits::default() };
    let runner = Runner::new(limits, args.jobs.unwrap_or_else(default_jobs), cache(&args.root))?;
    let options = RunOptions {
        file: args.file.unwrap_or_else(reviewhost::run::default_file),
        root: args.root,
        write: !args.no_write,
        shard: args.shard,
    };
    let detail = match (args.quiet, args.verbose) {
        (true, _) => Detail::Quiet,
        (_, true) => Detail::Verbose,
        _ => Detail::Normal,
    };
    let progress = Progress::start(!args.quiet);
    let report = runner.run_observed(&options, progress.observer());
    progress.finish();
    let report = report?;

    let color = anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never;
    let mut stdout = std::io::stdout().lock();
    let written =
        report::write(reports.stdout, &report, &TextStyle { detail, color }, &mut stdout).and_then(|()| stdout.flush());
    match written {
        // A reader that went away (`| head`) is not a failed run.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.context("cannot write the report")?,
    }
    let plain = TextStyle { detail, color: false };
    for (format, path) in &reports.files {
        write_report_file(*format, &report, &plain, path)?;
    }
    let github = reports.stdout == Format::Github || reports.files.iter().any(|(f, _)| *f == Format::Github);
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|v| github && !v.is_empty()) {
        report::write_step_summary(&report, Path::new(&summary))
            .with_context(|| format!("cannot append to $GITHUB_STEP_SUMMARY ({})", summary.to_string_lossy()))?;
    }

    let failing = report.results.iter().any(|(_, o)| match args.fail_on {
        FailOn::Any => o.status != Status::Pass,
        FailOn::Fail => o.status == Status::Fail,
        FailOn::Never => false,
    });
    Ok(if failing { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Writes one report file atomically: a reader (an upload step) never sees half of it.
fn write_report_file(format: Format, report: &RunReport, style: &TextStyle, path: &Path) -> anyhow::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let context = || format!("cannot write the {} report to {}", format.name(), path.display());
    let mut tmp = tempfile::NamedTempFile::new_in(dir).with_context(context)?;
    let mut out = std::io::BufWriter::new(tmp.as_file_mut());
    report::write(format, report, style, &mut out).and_then(|()| out.flush()).with_context(context)?;
    drop(out);
    tmp.persist(path).map_err(|e| e.error).with_context(context)?;
    Ok(())
}

/// A progress bar on stderr, shown only on a terminal, outside CI, and only once a run
/// has taken more than a moment (a fast run prints nothing extra).
struct Progress {
    bar: indicatif::ProgressBar,
    done: Option<std::sync::mpsc::Sender<()>>,
    reveal: Option<std::thread::JoinHandle<()>>,
}

/// How long a run goes before its progress bar appears.
const PROGRESS_DELAY: Duration = Duration::from_millis(300);

impl Progress {
    fn start(wanted: bool) -> Progress {
        let bar = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::hidden());
        let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        if !wanted || ci || dumb || !std::io::stderr().is_terminal() {
            return Progress { bar, done: None, reveal: None };
        }
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} [{elapsed}] {bar:30} {pos}/{len} assertions")
                .expect("a valid template"),
        );
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let shown = bar.clone();
        let reveal = std::thread::spawn(move || {
            if finished.recv_timeout(PROGRESS_DELAY) == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
                shown.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(100));
            }
        });
        Progress { bar, done: Some(done), reveal: Some(reveal) }
    }

    /// What the run calls as assertions finish.
    fn observer(&self) -> impl Fn(usize, usize) + Send + Sync + 'static {
        let bar = self.bar.clone();
        move |finished, total| {
            bar.set_length(total as u64);
            bar.inc(finished as u64);
        }
    }

    fn finish(mut self) {
        drop(self.done.take());
        if let Some(reveal) = self.reveal.take() {
            let _ = reveal.join();
        }
        self.bar.finish_and_clear();
    }
}

fn review(args: ReviewArgs) -> anyhow::Result<ExitCode> {
    use reviewhost::review::{self, EndState, ReviewError, ReviewOptions, trust};
    let setup = trust::load(&args.path, &trust::Sources::new(args.config, args.trust_repo_config))?;
    for warning in &setup.warnings {
        eprintln!("reviewhost: warning: {warning}");
    }
    setup.check_commands()?;
    let limits = Limits { timeout: args.timeout, memory: args.memory, ..Limits::default() };
    let runner = Runner::new(limits, args.jobs.unwrap_or_else(default_jobs), cache(&args.path))?;
    let options = ReviewOptions {
        root: args.path,
        assertions_file: args.assertions,
        max_passes: args.max_passes,
        resume: args.resume,
        config: setup.config,
        definitions: setup.definitions,
        prompt_budget: args.prompt_budget,
    };
    let mut stdout = std::io::stdout().lock();
    match review::review(&runner, &options, &mut stdout) {
        Ok(outcome) => {
            let _ = writeln!(stdout, "Final report: {}", outcome.final_report.display());
            Ok(if outcome.end == EndState::ZeroFindings { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Err(error @ ReviewError::Aborted { .. }) => {
            eprintln!("reviewhost: {}", inert_lines(&error.to_string(), ""));
            Ok(ExitCode::from(2))
        }
        Err(error) => Err(error.into()),
    }
}

fn agents(root: &Path, trust_repo: bool) -> anyhow::Result<ExitCode> {
    use reviewhost::review::{definitions::Source, trust};
    let (definitions, warnings) = trust::load_definitions(root, &trust::Sources::new(None, trust_repo))?;
    for warning in &warnings {
        eprintln!("reviewhost: warning: {warning}");
    }
    let mut stdout = std::io::stdout().lock();
    for d in definitions {
        let source = match &d.source {
            Source::Embedded => "embedded default".to_string(),
            Source::User(path) | Source::Project(path) => inert(&path.display().to_string()).into_owned(),
        };
        let track = d.track.as_deref().map(|t| format!(" track {}", inert(t))).unwrap_or_default();
        writeln!(stdout, "{:<20} {:<12} {source}", inert(&d.name), format!("{}{track}", d.role.as_str()))?;
        writeln!(stdout, "{:<20} tools: {}", "", inert(&d.tools.join(", ")))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn schema() -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut stdout, reviewhost::assertion::schema::schema())?;
    writeln!(stdout)?;
    Ok(ExitCode::SUCCESS)
}

fn validate(args: ValidateArgs) -> anyhow::Result<ExitCode> {
    let file = args.file.unwrap_or_else(reviewhost::run::default_file);
    let bytes = assertion::read(&file)?;
    let mut problems = Vec::new();
    match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Err(_) => problems.push(assertion::parse(&file, &bytes).expect_err("not JSON").to_string()),
        Ok(doc) => {
            for v in reviewhost::assertion::schema::violations(&doc) {
                let at = if v.pointer.is_empty() { "(document)".to_string() } else { v.pointer };
                problems.push(format!("{}: {at}: {}", file.display(), v.message));
            }
            // What a schema cannot say (unique ids), from the loader `run` uses.
            if problems.is_empty()
                && let Err(e) = assertion::parse(&file, &bytes)
            {
                problems.push(e.to_string());
            }
        }
    }
    let mut stdout = std::io::stdout().lock();
    for problem in &problems {
        writeln!(stdout, "{}", inert_lines(problem, ""))?;
    }
    if problems.is_empty() {
        writeln!(stdout, "{}: valid", file.display())?;
        Ok(ExitCode::SUCCESS)
    } else {
        writeln!(stdout, "{}: {} problem(s)", file.display(), problems.len())?;
        Ok(ExitCode::from(1))
    }
}
