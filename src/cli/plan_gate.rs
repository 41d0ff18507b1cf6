//! `reviewhost plan-gate`: seed 004's plan gate (`reviewhost::review::plan_gate`).

use std::io::IsTerminal;
use std::path::PathBuf;

use reviewhost::report::inert_lines;
use reviewhost::review::plan_gate::{Decide, Decision, Escalation};

use crate::exit::Exit;
use crate::loop_args::LoopArgs;

#[derive(clap::Args)]
#[command(after_help = "\
The plan-author agent writes the plan from --idea (or the existing PLAN is reviewed);
conformance (a deterministic validator of the tugplan format) and the plan-critic agent
judge it, and their REVISE goes back to the author automatically; once both approve, a
fresh plan-overviewer reads it, given only its path, and must cite code evidence that
exists. APPROVE ends the gate; REVISE sends its findings to the author. Every
recommendation is recomputed from the findings.

A person decides at 5 revisions, on stagnation, on ESCALATE and after 3 overviewer
rounds: with --on-escalate, else a menu on a terminal, else the run stops (exit 4) and
`--resume --decision D` continues it. State: .reviewhost/plan-gate-state.json.

Examples:
  reviewhost plan-gate plans/plan.md --idea \"Add rate limiting to the login endpoint\"
  reviewhost plan-gate plans/plan.md --on-escalate abort

Exit codes: 0 approved (or accepted as-is by a person), 1 aborted by a person, 2 could
not run (a failed agent call, an unusable answer twice), 4 waiting for a decision.")]
pub struct PlanGateArgs {
    /// The plan file, inside the root (written by the author with --idea).
    plan: PathBuf,
    /// Have the author write the plan from this idea first.
    #[arg(long)]
    idea: Option<String>,
    /// The repository the plan is for.
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// What to decide when the gate escalates, without asking (CI).
    #[arg(long, value_enum)]
    on_escalate: Option<OnEscalate>,
    /// Continue the gate in .reviewhost/plan-gate-state.json.
    #[arg(long)]
    resume: bool,
    /// With --resume: the decision the stopped gate waits for.
    #[arg(long, value_enum, requires = "resume")]
    decision: Option<DecisionArg>,
    /// Whether the overviewer's open clarifying questions keep it at REVISE (block,
    /// seed 004's S03) or are context for the author (inform) [default: [plan_gate]
    /// questions, else block].
    #[arg(long, value_parser = ["block", "inform"])]
    questions: Option<String>,
    #[command(flatten)]
    agents: LoopArgs,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum OnEscalate {
    Accept,
    Abort,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum DecisionArg {
    Accept,
    Abort,
    StartOver,
}

/// Decisions from the flags, else a menu on a terminal, else none.
struct Operator {
    once: Option<Decision>,
    always: Option<Decision>,
    terminal: bool,
}

impl Decide for Operator {
    fn decide(&mut self, escalation: Escalation) -> Option<Decision> {
        if let Some(d) = self.once.take() {
            return Some(d);
        }
        if self.always.is_some() {
            return self.always;
        }
        if !self.terminal {
            return None;
        }
        let choices = escalation.choices();
        let labels: Vec<&str> = choices.iter().map(|d| d.label()).collect();
        dialoguer::Select::new()
            .with_prompt(escalation.question())
            .items(&labels)
            .default(0)
            .interact_opt()
            .ok()
            .flatten()
            .map(|i| choices[i])
    }
}

pub fn plan_gate(args: PlanGateArgs) -> anyhow::Result<Exit> {
    use reviewhost::review::ReviewError;
    use reviewhost::review::plan_gate::{self, GateOptions, GateStatus};
    let ready = args.agents.load(&args.root)?;
    let questions = args.questions.or(ready.config.plan_gate.questions.clone()).unwrap_or_else(|| "block".into());
    if questions != "block" && questions != "inform" {
        anyhow::bail!("[plan_gate] questions: '{questions}' is not `block` or `inform`");
    }
    let options = GateOptions {
        root: args.root,
        plan: args.plan,
        idea: args.idea,
        resume: args.resume,
        questions_block: questions == "block",
        config: ready.config,
        definitions: ready.definitions,
        prompt_budget: ready.prompt_budget,
    };
    let mut operator = Operator {
        once: args.decision.map(|d| match d {
            DecisionArg::Accept => Decision::Accept,
            DecisionArg::Abort => Decision::Abort,
            DecisionArg::StartOver => Decision::StartOver,
        }),
        always: args.on_escalate.map(|d| match d {
            OnEscalate::Accept => Decision::Accept,
            OnEscalate::Abort => Decision::Abort,
        }),
        terminal: std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
    };
    let mut stdout = std::io::stdout().lock();
    match plan_gate::gate(&ready.runner, &options, &mut operator, &mut stdout) {
        Ok(state) => Ok(match state.status {
            GateStatus::Approved | GateStatus::Accepted => Exit::Clean,
            GateStatus::Aborted => Exit::Findings,
            GateStatus::NeedsDecision | GateStatus::Running => Exit::Ended(4),
        }),
        Err(error @ ReviewError::CycleStopped { .. }) => {
            eprintln!("reviewhost: {}", inert_lines(&error.to_string(), ""));
            Ok(Exit::CouldNotRun)
        }
        Err(error) => Err(error.into()),
    }
}
