//! `reviewhost plan`: seed 003's phase machine (plansmith v4), one read-only agent
//! answering the phases of [`phases`] in turn: understand, explore, alternatives,
//! draft, then critique and revise `refine` times.
//!
//! Each phase is a fresh call of its agent definition (`plan-<phase>`), given the
//! original request and the accepted answers it builds on. Its answer must meet the
//! definition's output contract ([`contract`]), negative rules included, so the phases
//! cannot collapse into each other; a violated contract is asked again with the exact
//! violations, up to the contract's retries, through the one parse gate ([`Gate`]).
//! [`Machine::judge`] is the whole decision, block, advance or complete, and is what the
//! plansmith phase cases test. Its events are in [`event`].
//!
//! Fixed against the original: a critique that rewrites the plan is refused; explored
//! files are counted as distinct paths, not lines; the completion promise counts only
//! as `<promise>PLAN_OK</promise>` alone on the last line, and an answer that names
//! PLAN_OK otherwise is judged as a (failed) completion; a phase that keeps failing
//! ends the run at its retry cap, and `--max-calls` bounds every agent call. Ends:
//! [`PlanEnd`], each with its own exit status.

pub mod event;
mod phases;

pub use self::phases::{PlanEnd, PlanPhase};

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use self::event::Event;
use crate::review::core::agent::{self, AgentError, Agents, Config};
use crate::review::core::contract::{self, ContractError, ContractSpec, Judgement};
use crate::review::core::definitions::{Definition, Source};
use crate::review::core::error::{AbortCause, ReviewError};
use crate::review::core::gate::{Gate, Passed, Rejection};
use crate::review::core::prompt::Prompt;
use crate::review::core::sha256_hex;
use crate::review::core::workspace::Workspace;
use crate::run::Runner;
use crate::sandbox::{Base, HostReadError, read_text};

/// The state file of `reviewhost plan` in `.reviewhost/`.
pub const STATE_FILE: &str = "plan-state.json";
/// Where the plan is saved in `.reviewhost/`.
pub const PLAN_FILE: &str = "plan.md";
/// The completion promise, as the final revision's last line.
pub const PROMISE: &str = "<promise>PLAN_OK</promise>";
/// What marks an answer as an attempt to complete.
const PROMISE_WORD: &str = "PLAN_OK";

/// The phases for `refine` critique/revise rounds.
pub fn phases(refine: u32) -> Vec<PlanPhase> {
    let mut phases = vec![PlanPhase::Understand, PlanPhase::Explore, PlanPhase::Alternatives, PlanPhase::Draft];
    for _ in 0..refine {
        phases.extend([PlanPhase::Critique, PlanPhase::Revise]);
    }
    phases
}

/// What one judged answer leads to.
#[derive(Debug, Clone)]
pub enum Step {
    /// The contract is missed: stay in the phase and ask again with the violations.
    Block(Judgement),
    /// The contract is met: go on to this phase.
    Advance(PlanPhase),
    /// The final revision met its completion contract: the plan is done.
    Complete,
}

/// The phase machine: the phases and the agent definitions whose contracts judge them.
pub struct Machine<'a> {
    pub phases: Vec<PlanPhase>,
    pub definitions: &'a [Definition],
    /// Overrides every contract's retries.
    pub retries: Option<u32>,
}

impl Machine<'_> {
    /// The phase at 0-based `index`: past the list, [`PlanPhase::Iterate`].
    pub fn phase_at(&self, index: u32) -> PlanPhase {
        self.phases.get(index as usize).copied().unwrap_or(PlanPhase::Iterate)
    }

    /// The definition of `phase`'s agent.
    pub fn definition(&self, phase: PlanPhase) -> Result<&Definition, ContractError> {
        self.definitions.iter().find(|d| d.name == phase.agent()).ok_or_else(|| ContractError::Invalid {
            agent: phase.agent().into(),
            reason: "no agent definition of this name".into(),
        })
    }

    /// Times a missed contract is asked again in `phase`.
    pub fn retries(&self, phase: PlanPhase) -> Result<u32, ContractError> {
        let d = self.definition(phase)?;
        Ok(self.retries.unwrap_or_else(|| d.contract.as_ref().map_or(contract::DEFAULT_RETRIES, ContractSpec::retries)))
    }

    /// Judges `answer`, given in the phase at `index`. In a revise (or iterate) phase,
    /// an answer that names PLAN_OK anywhere is judged by the completion contract (the
    /// promise alone on the last line, every section); any other answer by the phase's
    /// contract.
    pub fn judge(&self, runner: &Runner, index: u32, answer: &str) -> Result<Step, ContractError> {
        let phase = self.phase_at(index);
        let d = self.definition(phase)?;
        let completing = matches!(phase, PlanPhase::Revise | PlanPhase::Iterate) && answer.contains(PROMISE_WORD);
        let spec = match completing {
            true => d.completion.as_ref(),
            false => d.contract.as_ref(),
        };
        let components = match &d.source {
            Source::Embedded => None,
            Source::User(path) | Source::Project(path) => path.parent(),
        };
        let judgement = match spec {
            Some(spec) => contract::judge(runner, &d.name, spec, components, answer)?,
            None => Judgement::default(),
        };
        Ok(match (judgement.met(), completing) {
            (false, _) => Step::Block(judgement),
            (true, true) => Step::Complete,
            (true, false) => Step::Advance(self.phase_at(index + 1)),
        })
    }
}

/// What `reviewhost plan` is asked to do.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    pub root: PathBuf,
    /// The request, in the operator's words (re-injected into every phase); on a resume,
    /// the stopped run's.
    pub request: String,
    /// Continue the run in `.reviewhost/plan-state.json` from the phase it stopped in
    /// (failed, cancelled, or at its call limit), with its phases, request and accepted
    /// answers.
    pub resume: bool,
    /// Critique/revise rounds (1 to 4).
    pub refine: u32,
    /// Phases that may run, iterate phases included.
    pub max_phases: u32,
    /// Agent calls that may be made in all, retries included.
    pub max_calls: u32,
    /// Overrides every contract's retries.
    pub retries: Option<u32>,
    pub config: Config,
    pub definitions: Vec<Definition>,
    pub prompt_budget: usize,
}

/// Where a plan run is, in `.reviewhost/plan-state.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlanState {
    pub version: u32,
    pub status: PlanStatus,
    pub request: String,
    pub phases: Vec<PlanPhase>,
    /// 0-based index of the phase running (or last run).
    pub index: u32,
    pub max_phases: u32,
    pub max_calls: u32,
    /// Agent calls made.
    pub calls: u32,
    /// The accepted answer of each phase run, in order.
    pub accepted: Vec<Accepted>,
    pub end_state: Option<PlanEnd>,
    /// Why the run stopped without an end state.
    pub error: Option<String>,
    /// The saved plan.
    pub plan: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    Running,
    Ended,
    Failed,
}

/// A phase's accepted answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Accepted {
    pub index: u32,
    pub phase: PlanPhase,
    /// Calls it took.
    pub attempts: u32,
    pub answer: String,
}

/// What a finished plan run returns.
#[derive(Debug, Clone)]
pub struct PlanOutcome {
    pub end: PlanEnd,
    pub phases_run: u32,
    pub calls: u32,
    /// The saved plan: the completed one, or the latest accepted draft or revision.
    pub plan: Option<PathBuf>,
}

/// The contract gate of a phase.
fn gate(retries: u32) -> Gate {
    Gate {
        wants: "answer that meets its output contract",
        again: "Answer again, completely, meeting every rule of this phase.",
        retries,
    }
}

/// Runs the machine; progress goes to `out`.
pub fn plan(runner: &Runner, options: &PlanOptions, out: &mut dyn Write) -> Result<PlanOutcome, ReviewError> {
    let root = options.root.as_path();
    let workspace = Workspace::open(root)?;
    let resumed = match (options.resume, workspace.load_state::<PlanState>(STATE_FILE)?) {
        (false, _) => None,
        (true, Some(mut state)) if resumable(&state) => {
            state.status = PlanStatus::Running;
            state.end_state = None;
            state.error = None;
            state.max_calls = options.max_calls;
            Some(state)
        }
        (true, _) => return Err(ReviewError::NothingToResume { dir: workspace.dir().to_path_buf() }),
    };
    let phases = resumed.as_ref().map_or_else(|| phases(options.refine), |s| s.phases.clone());
    let machine = Machine { phases, definitions: &options.definitions, retries: options.retries };
    let mut state = resumed.unwrap_or_else(|| PlanState {
        version: 1,
        status: PlanStatus::Running,
        request: options.request.clone(),
        phases: machine.phases.clone(),
        index: 0,
        max_phases: options.max_phases,
        max_calls: options.max_calls,
        calls: 0,
        accepted: Vec::new(),
        end_state: None,
        error: None,
        plan: None,
    });
    workspace.save_state(STATE_FILE, &state)?;
    workspace.event(&Event::PlanStart {
        root,
        request_bytes: state.request.len(),
        phases: &state.phases,
        max_phases: state.max_phases,
        max_calls: state.max_calls,
    })?;
    let agents = Agents {
        // This run's calls; a resumed run gets the cap afresh.
        max_calls: Some(options.max_calls),
        ..Agents::new(&options.config, &options.definitions, root, &workspace, options.prompt_budget)
    };
    let calls_before = state.calls;
    let end = loop {
        if state.index >= state.max_phases {
            break PlanEnd::MaxPhasesReached;
        }
        let index = state.index;
        let phase = machine.phase_at(index);
        let number = index + 1;
        writeln!(out, "[{number}/{}] {phase}", state.max_phases)?;
        workspace.event(&Event::PhaseStart { index: number, phase })?;
        let step = ask(&machine, runner, &agents, &workspace, &state, index);
        state.calls = calls_before + agents.ledger.lock().expect("no panics while held").calls;
        let passed = match step {
            Ok(passed) => passed,
            Err(AbortCause::Unusable { attempts, reason, .. }) => {
                writeln!(out, "  {phase}: no answer met the contract in {attempts} attempts: {reason}")?;
                break PlanEnd::RetriesExhausted;
            }
            Err(AbortCause::Agent(AgentError::CallLimit { .. })) => break PlanEnd::CallLimitReached,
            Err(AbortCause::Agent(AgentError::Cancelled { .. })) => break PlanEnd::Cancelled,
            Err(cause) => {
                let reason = cause.to_string();
                state.status = PlanStatus::Failed;
                state.error = Some(reason.clone());
                workspace.save_state(STATE_FILE, &state)?;
                workspace.event(&Event::PlanAborted { index: number, phase, reason: &reason })?;
                return Err(ReviewError::PlanStopped { index: number, phase: phase.as_str(), cause });
            }
        };
        let attempts = passed.value.1;
        state.accepted.push(Accepted { index, phase, attempts, answer: passed.text });
        let next = match passed.value.0 {
            Step::Advance(next) => Some(next),
            _ => None,
        };
        workspace.event(&Event::PhaseEnd { index: number, phase, attempts, next })?;
        state.index += 1;
        workspace.save_state(STATE_FILE, &state)?;
        if next.is_none() {
            break PlanEnd::Completed;
        }
    };
    state.calls = calls_before + agents.take_ledger().calls;
    state.status = PlanStatus::Ended;
    state.end_state = Some(end);
    let phases_run = state.accepted.len() as u32;
    state.plan = save_plan(&workspace, &state, end)?;
    workspace.save_state(STATE_FILE, &state)?;
    workspace.event(&Event::PlanEnd { end_state: end, phases_run, calls: state.calls, plan: state.plan.as_deref() })?;
    writeln!(out, "Plan: {} after {phases_run} phases and {} agent calls.", end.as_str(), state.calls)?;
    Ok(PlanOutcome { end, phases_run, calls: state.calls, plan: state.plan })
}

/// Whether a run can be continued: it stopped on an error, or ended cancelled or at its
/// call limit (with room to give it more); never one that completed or ran out of
/// phases or retries.
fn resumable(state: &PlanState) -> bool {
    match state.status {
        PlanStatus::Running | PlanStatus::Failed => true,
        PlanStatus::Ended => matches!(state.end_state, Some(PlanEnd::Cancelled | PlanEnd::CallLimitReached)),
    }
}

/// Asks the phase at `index` through the contract gate; returns the step and the
/// attempts it took.
fn ask(
    machine: &Machine<'_>,
    runner: &Runner,
    agents: &Agents<'_>,
    workspace: &Workspace,
    state: &PlanState,
    index: u32,
) -> Result<Passed<(Step, u32)>, AbortCause> {
    let phase = machine.phase_at(index);
    let d = machine.definition(phase)?;
    let prompt = phase_prompt(machine, state, index);
    gate(machine.retries(phase)?).ask(agents, d, index + 1, prompt, |answer, attempt| {
        let step = machine.judge(runner, index, answer).map_err(|e| Rejection::Stop(e.into()))?;
        let violations = match &step {
            Step::Block(judgement) => judgement.violations.as_slice(),
            _ => &[],
        };
        workspace
            .event(&Event::ContractResult {
                index: index + 1,
                phase,
                agent: &d.name,
                attempt,
                met: violations.is_empty(),
                violations,
            })
            .map_err(|e| Rejection::Stop(e.into()))?;
        match step {
            Step::Block(judgement) => Err(Rejection::Again(judgement.explain())),
            step => Ok((step, attempt)),
        }
    })
}

/// The prompt of the phase at `index`: where the loop is, the original request, and
/// the accepted answers it builds on (fenced: an agent's text is data).
fn phase_prompt(machine: &Machine<'_>, state: &PlanState, index: u32) -> Prompt {
    let phase = machine.phase_at(index);
    let mut p = Prompt::new();
    p.say(&format!("[reviewhost plan] [{}/{}] Phase: {}", index + 1, state.max_phases, phase.as_str().to_uppercase()));
    p.say("Original request (the operator's words):");
    p.say(&state.request);
    match phase {
        PlanPhase::Revise | PlanPhase::Iterate
            if machine.phases.get(index as usize + 1..).unwrap_or(&[]).contains(&PlanPhase::Critique) =>
        {
            p.say("Another critique follows this revision: do NOT write the completion promise, nor mention it.");
        }
        PlanPhase::Revise | PlanPhase::Iterate => {
            p.say(&format!("This is the final revision: when the plan is ready, end your answer with {PROMISE} alone on its last line."));
        }
        _ => {}
    }
    let earlier = |wanted: PlanPhase| state.accepted.iter().rev().find(|a| a.phase == wanted);
    for context in [PlanPhase::Understand, PlanPhase::Explore, PlanPhase::Alternatives] {
        if let Some(a) = earlier(context) {
            p.say(&format!("The accepted answer of the {context} phase:"));
            p.fence(context.as_str(), &a.answer);
        }
    }
    if !matches!(phase, PlanPhase::Draft) {
        if let Some(plan) = state.accepted.iter().rev().find(|a| a.phase.is_plan()) {
            p.say(&format!("The latest plan (from the {} phase):", plan.phase));
            p.fence("plan", &plan_body(&plan.answer));
        }
        if matches!(phase, PlanPhase::Revise | PlanPhase::Iterate)
            && let Some(critique) = earlier(PlanPhase::Critique)
        {
            p.say("The latest critique of it:");
            p.fence("critique", &critique.answer);
        }
    }
    p
}

/// A plan answer without its promise line.
fn plan_body(answer: &str) -> String {
    let trimmed = answer.trim_end();
    let body = trimmed.strip_suffix(PROMISE).unwrap_or(trimmed);
    let mut body = body.trim_end().to_string();
    body.push('\n');
    body
}

/// The saved plan's front matter.
#[derive(Serialize)]
struct FrontMatter<'a> {
    generated_at: String,
    end_state: &'a str,
    phases_run: usize,
    /// SHA-256 of the body below the front matter, hex.
    sha256: String,
    request: &'a str,
}

/// Saves the completed plan, or else the latest accepted draft or revision, with its
/// front matter, to `.reviewhost/plan.md` (atomically); `None` when no plan was written.
fn save_plan(workspace: &Workspace, state: &PlanState, end: PlanEnd) -> Result<Option<PathBuf>, ReviewError> {
    let Some(latest) = state.accepted.iter().rev().find(|a| a.phase.is_plan()) else { return Ok(None) };
    let body = plan_body(&latest.answer);
    let front = FrontMatter {
        generated_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        end_state: end.as_str(),
        phases_run: state.accepted.len(),
        sha256: sha256_hex(&body),
        request: &state.request,
    };
    let yaml = serde_yaml_ng::to_string(&front).expect("the front matter serializes");
    Ok(Some(workspace.save(PLAN_FILE, &format!("---\n{yaml}---\n{body}"))?))
}

/// Whether `path` holds a saved plan whose body still has the digest its front matter
/// records. That says the body is intact, not who wrote it: anyone can write a plan
/// with a matching digest. Read bounded: an answer's worth and its front matter.
pub fn verify_saved(path: &Path) -> Result<bool, std::io::Error> {
    let max = agent::MAX_STDOUT_BYTES as u64 + (1 << 20);
    let text = read_text(&Base::Ambient, path, max).map_err(|e| match e {
        HostReadError::Io(e) => e,
        other => std::io::Error::other(format!("{}: {other}", path.display())),
    })?;
    let Some(rest) = text.strip_prefix("---\n") else { return Ok(false) };
    let Some((front, body)) = rest.split_once("\n---\n") else { return Ok(false) };
    let digest = sha256_hex(body);
    Ok(front.lines().any(|line| line.trim() == format!("sha256: {digest}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_follow_the_refine_count_and_iterate_after() {
        assert_eq!(phases(1).len(), 6);
        let two = phases(2);
        assert_eq!(
            two.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(","),
            "understand,explore,alternatives,draft,critique,revise,critique,revise"
        );
        let m = Machine { phases: two, definitions: &[], retries: None };
        assert_eq!(
            (m.phase_at(7), m.phase_at(8), m.phase_at(20)),
            (PlanPhase::Revise, PlanPhase::Iterate, PlanPhase::Iterate)
        );
    }

    #[test]
    fn the_promise_line_is_not_part_of_the_plan() {
        assert_eq!(plan_body("## Goal\nx\n\n<promise>PLAN_OK</promise>\n\n"), "## Goal\nx\n");
        assert_eq!(plan_body("## Goal\nx"), "## Goal\nx\n");
    }

    #[test]
    fn every_end_state_has_its_own_exit_status() {
        let all = [
            PlanEnd::Completed,
            PlanEnd::MaxPhasesReached,
            PlanEnd::RetriesExhausted,
            PlanEnd::CallLimitReached,
            PlanEnd::Cancelled,
        ];
        let mut codes: Vec<u8> = all.iter().map(|e| e.exit_code()).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), all.len());
        assert!(!codes.contains(&2), "2 is 'could not run'");
    }
}
