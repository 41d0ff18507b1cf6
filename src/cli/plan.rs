//! `reviewhost plan`: seed 003's planning loop (`reviewhost::review::plan`).

use std::io::Write;
use std::path::PathBuf;

use reviewhost::report::inert_lines;

use crate::exit::Exit;
use crate::loop_args::LoopArgs;

#[derive(clap::Args)]
#[command(after_help = "\
One read-only agent writes an implementation plan through phases: understand, explore,
alternatives, draft, then critique and revise --refine times. Each phase's answer must
meet the output contract in its agent definition (plan-<phase>, see `reviewhost agents`):
rules over the answer, run in the sandbox, including what must NOT appear, so phases
cannot collapse into each other. A missed contract is asked again with the exact
violations (3 times by default), then the run stops. The final revision ends with
<promise>PLAN_OK</promise> alone on its last line. The plan is saved to
.reviewhost/plan.md with its front matter; state and events are in .reviewhost/.

Agents and their configuration are found as for `reviewhost review`.

Examples:
  reviewhost plan \"Add rate limiting to the login endpoint\" --config ~/review/claude.toml
  reviewhost plan \"Split the parser module\" --root service --refine 3
  reviewhost plan --cancel --root service

Exit codes: 0 completed, 1 max phases reached, 2 could not run (bad input, a failed agent
call), 3 retries exhausted (a phase never met its contract), 4 --max-calls reached,
130 cancelled (Ctrl-C or --cancel).")]
pub struct PlanArgs {
    /// What to plan, in your words (re-injected into every phase).
    #[arg(required_unless_present_any = ["cancel", "resume"])]
    request: Option<String>,
    /// Continue the run stopped in .reviewhost/plan-state.json (failed, cancelled or at
    /// its call limit) from its phase, with its request and accepted answers.
    #[arg(long, conflicts_with = "request")]
    resume: bool,
    /// The repository the plan is for (read-only to the agent).
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Critique/revise rounds after the draft.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=4))]
    refine: u32,
    /// Phases that may run, revisions after the last one included [default: the phases
    /// plus 2].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    max_phases: Option<u32>,
    /// Times a phase's answer that misses its contract is asked again [default: the
    /// contract's, else 3].
    #[arg(long)]
    retries: Option<u32>,
    #[command(flatten)]
    agents: LoopArgs,
}

pub fn plan(args: PlanArgs) -> anyhow::Result<Exit> {
    use reviewhost::review::ReviewError;
    use reviewhost::review::plan::{self, PlanOptions};
    if let Some(exit) = args.agents.cancel(&args.root)? {
        return Ok(exit);
    }
    let request = args.request.unwrap_or_default();
    if !args.resume && request.trim().is_empty() {
        anyhow::bail!("the request is empty: say what to plan");
    }
    let max_calls = args.agents.max_calls;
    let ready = args.agents.load(&args.root)?;
    let runner = ready.runner;
    let max_phases = args.max_phases.unwrap_or(plan::phases(args.refine).len() as u32 + 2);
    let options = PlanOptions {
        root: args.root,
        request,
        resume: args.resume,
        refine: args.refine,
        max_phases,
        max_calls: max_calls.unwrap_or(max_phases.saturating_mul(3)),
        retries: args.retries,
        config: ready.config,
        definitions: ready.definitions,
        prompt_budget: ready.prompt_budget,
    };
    let mut stdout = std::io::stdout().lock();
    match plan::plan(&runner, &options, &mut stdout) {
        Ok(outcome) => {
            if let Some(path) = &outcome.plan {
                let _ = writeln!(stdout, "Plan saved to {}", path.display());
            }
            Ok(match outcome.end.exit_code() {
                0 => Exit::Clean,
                1 => Exit::Findings,
                code => Exit::Ended(code),
            })
        }
        // Cancelled by the operator (`--cancel`, Ctrl-C): 130, as a shell reports SIGINT.
        Err(error) if error.cancelled() => {
            eprintln!("reviewhost: {}", inert_lines(&error.to_string(), ""));
            Ok(Exit::Ended(130))
        }
        Err(error @ ReviewError::PlanStopped { .. }) => {
            eprintln!("reviewhost: {}", inert_lines(&error.to_string(), ""));
            Ok(Exit::CouldNotRun)
        }
        Err(error) => Err(error.into()),
    }
}
