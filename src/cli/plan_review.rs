//! `reviewhost plan-review`: seed 002's review gate (`reviewhost::review::plan_review`).

use std::path::PathBuf;

use reviewhost::report::inert_lines;

use crate::exit::Exit;
use crate::loop_args::LoopArgs;

#[derive(clap::Args)]
#[command(after_help = "\
Each plan is reviewed in cycles: a deterministic pre-check (front matter, must_haves,
wave, task count, the files it names; the plan-architect definition's contract), then
the plan-reviewer agent (a JSON verdict and findings, asked again once when unusable).
The verdict is computed from the findings: any high, reject; any finding, conditional
(its findings are warnings and the plan passes); none, approve. On reject the
plan-architect agent revises the plan file from the new and changed high and medium
findings, and the plan is reviewed again, up to --max-cycles reviews; then HARD STOP,
with every finding, and no later plan is reviewed. An approved plan's SHA-256 is kept
in .reviewhost/plan-review-state.json, with the loops; events in .reviewhost/events.jsonl.

The cycle cap is --max-cycles, else `max_cycles` under [plan_review] in the agent
configuration, else 3.

Examples:
  reviewhost plan-review plans/01-01-PLAN.md plans/01-02-PLAN.md
  reviewhost plan-review plans/01-01-PLAN.md --max-cycles 2
  reviewhost plan-review --check plans/01-01-PLAN.md

Exit codes: 0 every plan passed, 2 could not run (a bad plan path, a failed agent call,
an unusable answer twice, --max-cost or --max-calls reached; continue with --resume),
3 HARD STOP (a plan still rejected at the cap), 130 cancelled (Ctrl-C or --cancel).
With --check: 0 the plan is as approved, 1 it changed since, 3 it was never approved.")]
pub struct PlanReviewArgs {
    /// The plan files (Markdown with YAML front matter), inside the root.
    #[arg(required_unless_present = "cancel")]
    plans: Vec<PathBuf>,
    /// The repository the plans are for.
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Reviews per plan, the first included [default: [plan_review] max_cycles, else 3].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    max_cycles: Option<u32>,
    /// Continue the loops the last run left running (same correlation id).
    #[arg(long)]
    resume: bool,
    /// Only say whether each plan changed since its review passed.
    #[arg(long)]
    check: bool,
    #[command(flatten)]
    agents: LoopArgs,
}

pub fn plan_review(args: PlanReviewArgs) -> anyhow::Result<Exit> {
    use reviewhost::review::ReviewError;
    use reviewhost::review::plan_review::{self, Approval, PlanReviewOptions};
    if let Some(exit) = args.agents.cancel(&args.root)? {
        return Ok(exit);
    }
    if args.check {
        let mut worst = Exit::Clean;
        for plan in &args.plans {
            let shown = inert_lines(&plan.display().to_string(), "");
            match plan_review::check(&args.root, plan)? {
                Approval::Unchanged => println!("✓ {shown}: unchanged since its review passed"),
                Approval::Changed => {
                    println!("✗ {shown}: changed since its review passed");
                    worst = Exit::Findings;
                }
                Approval::Never => {
                    println!("✗ {shown}: no review of it has passed");
                    return Ok(Exit::Ended(3));
                }
            }
        }
        return Ok(worst);
    }
    let ready = args.agents.load(&args.root)?;
    let max_cycles = args.max_cycles.or(ready.config.plan_review.max_cycles).unwrap_or(plan_review::DEFAULT_MAX_CYCLES);
    let options = PlanReviewOptions {
        root: args.root,
        plans: args.plans,
        max_cycles,
        resume: args.resume,
        config: ready.config,
        definitions: ready.definitions,
        prompt_budget: ready.prompt_budget,
    };
    let mut stdout = std::io::stdout().lock();
    match plan_review::review(&ready.runner, &options, &mut stdout) {
        Ok(outcome) if outcome.halted => Ok(Exit::Ended(3)),
        Ok(_) => Ok(Exit::Clean),
        // Cancelled by the operator (`--cancel`, Ctrl-C): 130, as a shell reports SIGINT.
        Err(error) if error.cancelled() => {
            eprintln!("reviewhost: {}", inert_lines(&error.to_string(), ""));
            Ok(Exit::Ended(130))
        }
        Err(error @ ReviewError::CycleStopped { .. }) => {
            eprintln!("reviewhost: {}", inert_lines(&error.to_string(), ""));
            Ok(Exit::CouldNotRun)
        }
        Err(error) => Err(error.into()),
    }
}
