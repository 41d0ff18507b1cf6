//! `reviewhost review`: the review loop (`reviewhost::review`).

use std::io::Write;
use std::path::PathBuf;

use reviewhost::report::inert_lines;

use crate::exit::Exit;
use crate::loop_args::LoopArgs;

#[derive(clap::Args)]
#[command(after_help = "\
Each pass: analysts (read-only agents) review the repository and end their answers with an
`## Assertions` JSON block; the assertions are checked, merged into the assertions file by
id and run in the sandbox after an implementer agent works on the open findings; failures
go to a fix-agent once, regressions first, then the file is run again; the pass's diff is
reviewed by the fix-diff reviewer, whose critical and high findings go back to the
fix-agent (--fix-review-rounds). New assertions that already pass are dropped. The loop
ends at Zero findings,
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
2 aborted (a failed agent call, an unusable answer or --max-calls reached; continue
with --resume), 130 cancelled (Ctrl-C or --cancel).")]
pub struct ReviewArgs {
    /// The repository to review.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Passes before the loop stops with "Budget reached".
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    max_passes: u32,
    /// Continue the review in .reviewhost/ from the start of its unfinished pass.
    #[arg(long)]
    resume: bool,
    /// The assertions file, relative to PATH.
    #[arg(long, default_value = ".claude/state/review-assertions.json")]
    assertions: PathBuf,
    /// Fix-diff reviews per pass, after the implementer and fix-agent (0: none); a review
    /// with critical or high findings sends them to the fix-agent, then reviews again.
    #[arg(long, default_value_t = 2)]
    fix_review_rounds: u32,
    /// Changed lines from which a fix-diff review with zero findings is recorded in
    /// .reviewhost/audit-trail.jsonl.
    #[arg(long, default_value_t = reviewhost::review::fix_review::ZERO_FINDINGS_LINES)]
    zero_findings_lines: u64,
    #[command(flatten)]
    agents: LoopArgs,
}

pub fn review(args: ReviewArgs) -> anyhow::Result<Exit> {
    use reviewhost::review::{self, EndState, ReviewError, ReviewOptions};
    if let Some(exit) = args.agents.cancel(&args.path)? {
        return Ok(exit);
    }
    let ready = args.agents.load(&args.path)?;
    let runner = ready.runner;
    let options = ReviewOptions {
        root: args.path,
        assertions_file: args.assertions,
        max_passes: args.max_passes,
        resume: args.resume,
        config: ready.config,
        definitions: ready.definitions,
        prompt_budget: ready.prompt_budget,
        fix_review_rounds: args.fix_review_rounds,
        zero_findings_lines: args.zero_findings_lines,
    };
    let mut stdout = std::io::stdout().lock();
    match review::review(&runner, &options, &mut stdout) {
        Ok(outcome) => {
            let _ = writeln!(stdout, "Final report: {}", outcome.final_report.display());
            Ok(Exit::clean_if(outcome.end == EndState::ZeroFindings))
        }
        // Cancelled by the operator (`--cancel`, Ctrl-C): 130, as a shell reports SIGINT.
        Err(error) if error.cancelled() => {
            eprintln!("reviewhost: {}", inert_lines(&error.to_string(), ""));
            Ok(Exit::Ended(130))
        }
        Err(error @ ReviewError::Aborted { .. }) => {
            eprintln!("reviewhost: {}", inert_lines(&error.to_string(), ""));
            Ok(Exit::CouldNotRun)
        }
        Err(error) => Err(error.into()),
    }
}
