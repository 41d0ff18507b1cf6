//! `reviewhost run`: the seed runner's job, sandboxed. Its exit code is decided here, at
//! the end of [`run`]: 2 when the run could not be done (an error), else 1 when
//! `--fail-on` counts an outcome, else 0.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::ArgAction;
use reviewhost::RunOptions;
use reviewhost::assertion::Status;
use reviewhost::report::{self, Detail, Format, TextStyle};
use reviewhost::run::{RunReport, Shard};
use reviewhost::sandbox::{Limits, parse_memory, parse_timeout};

use crate::exit::Exit;
use crate::output::Reports;
use crate::progress::Progress;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  reviewhost run                                   # .claude/state/review-assertions.json, root = .
  reviewhost run examples/basic/assertions.json --root examples/basic
  reviewhost run review.json --format json --no-write
  reviewhost run review.json --format junit -o junit.xml --format sarif -o review.sarif
  reviewhost run review.json --format github --fail-on fail --quiet
  reviewhost run review.json --shard 2/3 --verbose
  reviewhost run review.json --only A-A-1 --only A-C-2 --no-write
  reviewhost run review.json --changed-since HEAD --no-write
  reviewhost run review.json --baseline known.json --update-baseline --no-write
  reviewhost run review.json --baseline known.json --no-write
  ASSERTIONS_FILE=review.json reviewhost run --jobs 4 --timeout 5s --memory 128MiB

Formats: text (the seed's report), json, junit, sarif (2.1.0, for code scanning),
github (text plus ::error/::warning annotations; appends a summary to
$GITHUB_STEP_SUMMARY when set), claude-hook (a digest on stderr for an agent's Stop
hook). Each --output PATH takes the --format before it.

Exit codes: 0 all pass, 1 some fail or error (see --fail-on), 2 the run could not be done.
With --format claude-hook: 0 all pass, 2 some fail (blocks the agent), 1 could not run.")]
pub struct RunArgs {
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
    /// `auto` reads the CI system's variables (GitLab, Buildkite, Bazel, Kubernetes
    /// indexed jobs, or REVIEWHOST_SHARD_INDEX/REVIEWHOST_SHARD_COUNT, 0-based).
    #[arg(long, value_name = "K/N|auto")]
    shard: Option<Shard>,
    /// Run only the assertion with this id (repeatable).
    #[arg(long, value_name = "ID", action = ArgAction::Append)]
    only: Vec<String>,
    /// Run only the assertions whose id matches this regular expression.
    #[arg(long, value_name = "REGEX", value_parser = parse_regex)]
    filter: Option<regex::Regex>,
    /// Run only the assertions whose path, paths or command's path operands touch a file
    /// changed since REF (committed, staged, unstaged or untracked); an assertion whose
    /// scope cannot be told always runs.
    #[arg(long, value_name = "REF")]
    changed_since: Option<String>,
    /// Known failures (from --update-baseline): a failure recorded there, with the same
    /// evidence and message, is reported as baselined and does not fail the run.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write the run's failures to the --baseline file (replacing it) and exit 0.
    #[arg(long, requires = "baseline")]
    update_baseline: bool,
    /// Which outcomes make the exit code 1.
    #[arg(long, value_enum, default_value_t = FailOn::Any)]
    fail_on: FailOn,
    /// Print only the assertions that did not pass, and no progress bar.
    #[arg(long, short = 'q', conflicts_with = "verbose")]
    quiet: bool,
    /// Print whole messages, evidence and timings (also of the searches' shared first pass).
    #[arg(long, short = 'v')]
    verbose: bool,
    /// Let every search read every file of its scope, without the shared first pass
    /// that tells which files can hold a match (slower; the verdicts are the same).
    #[arg(long)]
    no_prefilter: bool,
    /// Let command checks run this host program (found on PATH now), natively under OS
    /// confinement: `npx`, `python3`, `cargo`… (repeatable; also [run] allow_programs in
    /// your reviewhost.toml). Pipes, redirections and the other tools stay sandboxed.
    #[arg(long = "allow-program", value_name = "NAME", action = ArgAction::Append)]
    allow_program: Vec<String>,
    /// Run granted programs without confinement where this machine cannot confine them
    /// (not Linux, no bubblewrap, no user namespaces), with your user's rights.
    #[arg(long)]
    allow_unconfined_programs: bool,
    /// Your reviewhost.toml, for its [run] section [default: the one in your configuration
    /// directory; the reviewed repository's own is never read by `run`].
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
}

/// `--fail-on`: what makes a run exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// A `fail` or an `error` (an assertion that could not be evaluated).
    Any,
    /// Only a `fail`: errors are reported but do not fail the job.
    Fail,
    /// Nothing: report only (exit 2 still means the run could not be done).
    Never,
}

/// Runs the file and reports; the exit code is decided at the end, by `--fail-on`.
///
/// As an agent's hook (`--format claude-hook`), the digest goes to stderr and failures
/// exit 2, which blocks the agent; a run that could not be done exits 1 (shown to the
/// person, not fed back to the model in a loop); and when Claude Code says it is already
/// continuing because of this hook (`stop_hook_active` in the hook's input on stdin),
/// failures are reported without blocking again.
pub fn run(args: RunArgs, matches: &clap::ArgMatches) -> anyhow::Result<Exit> {
    if !args.format.contains(&Format::ClaudeHook) {
        return run_reported(args, matches);
    }
    let again = hook_input().is_some_and(|input| input["stop_hook_active"] == true);
    match run_reported(args, matches) {
        Ok(Exit::Findings) if again => {
            eprintln!("reviewhost: (not blocking again: the agent is already continuing because of this hook)");
            Ok(Exit::Clean)
        }
        Ok(Exit::Findings) => Ok(Exit::BlockAgent),
        Ok(exit) => Ok(exit),
        Err(error) => {
            eprintln!("reviewhost: error: {}", reviewhost::report::inert_lines(&format!("{error:#}"), ""));
            Ok(Exit::Findings)
        }
    }
}

/// The JSON a Claude Code hook gets on stdin, when stdin is not a terminal and it comes
/// within a second (a hook's stdin is written and closed at once; anything else is not
/// waited for).
fn hook_input() -> Option<serde_json::Value> {
    use std::io::{IsTerminal, Read};
    if std::io::stdin().is_terminal() {
        return None;
    }
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::stdin().take(1 << 20).read_to_string(&mut text);
        let _ = send.send(text);
    });
    let text = receive.recv_timeout(Duration::from_secs(1)).ok()?;
    serde_json::from_str(&text).ok()
}

fn run_reported(args: RunArgs, matches: &clap::ArgMatches) -> anyhow::Result<Exit> {
    let reports = Reports::of(&args.format, &args.output, matches)?;
    let limits = Limits { timeout: args.timeout, memory: args.memory, ..Limits::default() };
    let grants = crate::grants::grants(&args.allow_program, args.config.as_ref(), args.allow_unconfined_programs)?;
    let mut runner = crate::runner::runner_with_grants(limits, args.jobs, &args.root, grants)?;
    runner.checks_mut().set_prefilter(!args.no_prefilter);
    let file = args.file.unwrap_or_else(reviewhost::run::default_file);
    let selection = reviewhost::select::Selection {
        only: args.only.clone(),
        filter: args.filter.clone(),
        changed: match &args.changed_since {
            Some(reference) => Some(reviewhost::select::changed_since(&args.root, reference)?),
            None => None,
        },
    };
    let only = match selection.is_all() {
        true => None,
        false => Some(selection.ids(&reviewhost::assertion::load(&file)?, &args.root)?),
    };
    let options = RunOptions { file, root: args.root, write: !args.no_write, shard: args.shard, only };
    let detail = match (args.quiet, args.verbose) {
        (true, _) => Detail::Quiet,
        (_, true) => Detail::Verbose,
        _ => Detail::Normal,
    };
    let progress = Progress::start(!args.quiet);
    runner.sandbox().on_compile(progress.compile_observer());
    let report = runner.run_observed(&options, progress.observer());
    progress.finish();
    let report = report?;
    if detail == Detail::Verbose
        && let Some(pass) = runner.checks_mut().last_pass()
    {
        eprintln!("reviewhost: {}", describe_pass(&pass));
    }
    if detail == Detail::Verbose
        && let Some(confinement) = report.confinement
    {
        eprintln!("reviewhost: granted programs ran under {confinement}");
    }
    if let Some(path) = &args.baseline {
        return baselined(&report, &reports, detail, args.fail_on, path, args.update_baseline);
    }

    deliver(&report, &reports, detail, args.fail_on)
}

/// `--baseline`: the report as usual, then what the baseline accepts, and an exit code
/// from the failures it does not; with `--update-baseline`, the baseline rewritten.
fn baselined(
    report: &RunReport,
    reports: &Reports,
    detail: Detail,
    fail_on: FailOn,
    path: &Path,
    update: bool,
) -> anyhow::Result<Exit> {
    use reviewhost::baseline::Baseline;
    use reviewhost::report::inert;
    let exit = deliver(report, reports, detail, fail_on)?;
    if update {
        let baseline = Baseline::of(report);
        baseline.save(path)?;
        eprintln!("reviewhost: baseline {} now holds {} failures", path.display(), baseline.entries.len());
        return Ok(Exit::Clean);
    }
    let comparison = Baseline::load(path)?.compare(report);
    let list = |ids: &[String]| ids.iter().map(|id| inert(id).into_owned()).collect::<Vec<_>>().join(", ");
    if !comparison.baselined.is_empty() {
        eprintln!(
            "reviewhost: {} baselined failures (accepted in {}): {}",
            comparison.baselined.len(),
            path.display(),
            list(&comparison.baselined)
        );
    }
    if !comparison.fixed.is_empty() {
        eprintln!("reviewhost: baselined and passing now, prune with --update-baseline: {}", list(&comparison.fixed));
    }
    if !comparison.stale.is_empty() {
        eprintln!(
            "reviewhost: not accepted: {} failures without evidence under entries of a version 1 baseline, which \
             cannot tell one failure of them from another; check them, then rewrite {} with --update-baseline: {}",
            comparison.stale.len(),
            path.display(),
            list(&comparison.stale)
        );
    }
    let unaccepted = |id: &String| comparison.new.contains(id) || comparison.stale.contains(id);
    let new_failing = report.results.iter().filter(|(a, _)| unaccepted(&a.id)).any(|(_, o)| match fail_on {
        FailOn::Any => o.status != Status::Pass,
        FailOn::Fail => o.status == Status::Fail,
        FailOn::Never => false,
    });
    Ok(match exit {
        Exit::Clean => Exit::Clean,
        _ => Exit::clean_if(!new_failing),
    })
}

/// `--filter`: a regular expression.
fn parse_regex(text: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(text).map_err(|e| e.to_string())
}

/// Writes `report` where `reports` say (and the GitHub step summary), and decides the
/// exit code by `fail_on`: what `run` and `merge` share.
pub fn deliver(report: &RunReport, reports: &Reports, detail: Detail, fail_on: FailOn) -> anyhow::Result<Exit> {
    let color = anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never;
    // An agent's hook reads stderr.
    let mut stdout: Box<dyn Write> = match reports.stdout {
        Format::ClaudeHook => Box::new(std::io::stderr().lock()),
        _ => Box::new(std::io::stdout().lock()),
    };
    let written =
        report::write(reports.stdout, report, &TextStyle { detail, color }, &mut stdout).and_then(|()| stdout.flush());
    match written {
        // A reader that went away (`| head`) is not a failed run.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.context("cannot write the report")?,
    }
    let plain = TextStyle { detail, color: false };
    for (format, path) in &reports.files {
        report::write_file(*format, report, &plain, path)
            .with_context(|| format!("cannot write the {} report to {}", format.name(), path.display()))?;
    }
    let github = reports.stdout == Format::Github || reports.files.iter().any(|(f, _)| *f == Format::Github);
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|v| github && !v.is_empty()) {
        report::write_step_summary(report, Path::new(&summary))
            .with_context(|| format!("cannot append to $GITHUB_STEP_SUMMARY ({})", summary.to_string_lossy()))?;
    }

    let failing = report.results.iter().any(|(_, o)| match fail_on {
        FailOn::Any => o.status != Status::Pass,
        FailOn::Fail => o.status == Status::Fail,
        FailOn::Never => false,
    });
    Ok(Exit::clean_if(!failing))
}

/// The searches' shared first pass, in one line for `--verbose`.
fn describe_pass(index: &reviewhost_prefilter::Index) -> String {
    let pass = index.stats();
    let ms = pass.elapsed.as_secs_f64() * 1e3;
    match &pass.skipped {
        Some(reason) => format!("first pass of the searches not made ({reason}), {ms:.1} ms"),
        None => format!(
            "first pass of the searches: {} files, {:.1} MB, {} literals, {ms:.1} ms; \
             {} files and directories skipped on its answers",
            pass.files,
            pass.bytes as f64 / 1e6,
            pass.needles,
            index.skipped()
        ),
    }
}
