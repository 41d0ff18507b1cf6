//! `reviewhost plan-gate`: seed 004's plan gate (`reviewhost::review::plan_gate`).

use std::io::IsTerminal;
use std::path::PathBuf;

use reviewhost::report::{inert, inert_lines};
use std::collections::BTreeMap;

use anyhow::Context;
use reviewhost::review::plan_gate::{Decide, Decision, Escalation, Question, Questions};

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
`--resume --decision D` continues it. The overviewer's clarifying questions are printed
and a person answers each: on a terminal, from --answers FILE (JSON or YAML, each
answer under its question's id), else the run stops (exit 4, needs_answers) and
`--resume --answers FILE` continues it; the answers go to the author. State:
.reviewhost/plan-gate-state.json.

Examples:
  reviewhost plan-gate plans/plan.md --idea \"Add rate limiting to the login endpoint\"
  reviewhost plan-gate plans/plan.md --on-escalate abort

Exit codes: 0 approved (or accepted as-is by a person), 1 aborted by a person, 2 could
not run (a failed agent call, an unusable answer twice, --max-cost or --max-calls
reached; continue with --resume), 4 waiting for a decision or for answers, 130
cancelled (Ctrl-C or --cancel).")]
pub struct PlanGateArgs {
    /// The plan file, inside the root (written by the author with --idea).
    #[arg(required_unless_present = "cancel")]
    plan: Option<PathBuf>,
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
    /// Answers to the overviewer's clarifying questions: a JSON or YAML mapping of
    /// question id to answer text.
    #[arg(long, value_name = "FILE")]
    answers: Option<PathBuf>,
    /// What the overviewer's clarifying questions do: a person answers them before the
    /// author revises (ask, seed 004's S03 and D11), they keep the overviewer at REVISE
    /// and go to the author unanswered (block), or they are context for the author
    /// (inform) [default: [plan_gate] questions, else ask].
    #[arg(long, value_parser = ["ask", "block", "inform"])]
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

/// Decisions from the flags, else a menu on a terminal, else none; answers from the
/// file, else a prompt on a terminal, else none.
struct Operator {
    once: Option<Decision>,
    always: Option<Decision>,
    answers: BTreeMap<String, String>,
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

    fn answer(&mut self, question: &Question) -> Option<String> {
        // Each answer of the file is taken once: a later round's question is never
        // answered with what was meant for an earlier one.
        if let Some(answer) = self.answers.remove(&question.id) {
            return Some(answer);
        }
        if !self.terminal {
            return None;
        }
        // The question itself is printed (inert) by the gate just before.
        dialoguer::Input::<String>::new()
            .with_prompt(format!("Answer to {}", inert(&question.id)))
            .interact_text()
            .ok()
            .map(|a| a.trim().to_string())
            .filter(|a| !a.is_empty())
    }
}

/// Largest answers file read.
const MAX_ANSWERS_FILE: u64 = 1 << 20;

/// `--answers FILE`: a mapping of question id to answer text, in JSON or YAML.
fn read_answers(path: &std::path::Path) -> anyhow::Result<BTreeMap<String, String>> {
    let shown = inert(&path.display().to_string()).to_string();
    // A regular file only (a FIFO or a device is refused, never waited on), bounded.
    let text = reviewhost::sandbox::read_text(&reviewhost::sandbox::Base::Ambient, path, MAX_ANSWERS_FILE)
        .with_context(|| format!("--answers {shown}"))?;
    // YAML reads JSON too.
    let value: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&text).with_context(|| format!("--answers {shown}: neither JSON nor YAML"))?;
    let serde_yaml_ng::Value::Mapping(map) = value else {
        anyhow::bail!("--answers {shown}: must be a mapping of question id to answer");
    };
    let mut answers = BTreeMap::new();
    for (id, answer) in map {
        let id = match id {
            serde_yaml_ng::Value::String(id) => id,
            other => anyhow::bail!("--answers {shown}: the key {other:?} is not a question id (text)"),
        };
        // Only text: YAML would turn `1.10` into 1.1 and `0x1F` into 31.
        let serde_yaml_ng::Value::String(answer) = answer else {
            anyhow::bail!("--answers {shown}: field '{}': the answer must be text (quote it)", inert(&id));
        };
        if answer.trim().is_empty() {
            anyhow::bail!("--answers {shown}: field '{}': the answer is empty", inert(&id));
        }
        answers.insert(id, answer);
    }
    Ok(answers)
}

pub fn plan_gate(args: PlanGateArgs) -> anyhow::Result<Exit> {
    use reviewhost::review::ReviewError;
    use reviewhost::review::plan_gate::{self, GateOptions, GateStatus};
    if let Some(exit) = args.agents.cancel(&args.root)? {
        return Ok(exit);
    }
    let plan = args.plan.expect("clap requires the plan without --cancel");
    let ready = args.agents.load(&args.root)?;
    let answers = args.answers.as_deref().map(read_answers).transpose()?.unwrap_or_default();
    let questions = args.questions.or(ready.config.plan_gate.questions.clone()).unwrap_or_else(|| "ask".into());
    let questions = match questions.as_str() {
        "ask" => Questions::Ask,
        "block" => Questions::Block,
        "inform" => Questions::Inform,
        other => anyhow::bail!("[plan_gate] questions: '{other}' is not `ask`, `block` or `inform`"),
    };
    let options = GateOptions {
        root: args.root,
        plan,
        idea: args.idea,
        resume: args.resume,
        questions,
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
        answers,
        terminal: std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
    };
    let mut stdout = std::io::stdout().lock();
    match plan_gate::gate(&ready.runner, &options, &mut operator, &mut stdout) {
        Ok(state) => Ok(match state.status {
            GateStatus::Approved | GateStatus::Accepted => Exit::Clean,
            GateStatus::Aborted => Exit::Findings,
            GateStatus::NeedsDecision | GateStatus::NeedsAnswers | GateStatus::Running => Exit::Ended(4),
        }),
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
