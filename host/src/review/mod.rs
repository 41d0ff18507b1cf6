//! `reviewhost review`: seed 000's assertion-driven convergence loop as a program.
//!
//! Each pass: snapshot the tree → analysts in parallel (every track on pass 1; later
//! only the tracks whose files changed, plus the `always` ones) → parse gate on each
//! answer (re-asked once, then the pass aborts) → vacuous assertions dropped (`lint`) →
//! merge into the assertions file by id → implementer on the open findings → run the
//! assertions in the sandbox → on failures one fix-agent call and a re-run → pass
//! report → end check: Zero findings, Budget reached, Divergence, Plateau.
//!
//! Every stage is an event in `.reviewhost/events.jsonl`; the position is in
//! `state.json`, so an aborted pass (a failed agent call, a second unusable answer) is
//! resumed with `--resume` from its start: merging by id makes redoing it harmless.

pub mod agent;
pub mod collect;
pub mod definitions;
pub mod event;
pub mod init;
pub mod preset;
pub mod prompt;
pub mod reply;
pub mod state;
mod summary;
pub mod trust;

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use globset::{Glob, GlobSetBuilder};
use serde_json::{Value, json};

use crate::assertion::{self, AssertionsFile, FileLock, Status};
use crate::run::{RunOptions, RunReport, Runner};
use agent::{AgentError, Config};
use definitions::{Definition, Role};
use event::{Aborted, Ending, Event};
use state::{PassRecord, Phase, State, StateError, Workspace};

/// What `reviewhost review` is asked to do.
#[derive(Debug, Clone)]
pub struct ReviewOptions {
    pub root: PathBuf,
    /// The assertions file (relative paths are relative to the root).
    pub assertions_file: PathBuf,
    pub max_passes: u32,
    pub resume: bool,
    /// The agent configuration and definitions, from the sources the operator trusts
    /// ([`trust::load`]).
    pub config: Config,
    pub definitions: Vec<Definition>,
    /// Bytes a prompt may have.
    pub prompt_budget: usize,
}

/// How a review ended (exit 0 for `ZeroFindings`, 1 for the others).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EndState {
    /// Every assertion passes.
    #[serde(rename = "Zero findings")]
    ZeroFindings,
    /// The pass budget is spent with assertions still failing.
    #[serde(rename = "Budget reached")]
    BudgetReached,
    /// Confidence did not rise for two passes.
    Plateau,
    /// More open findings than the pass before.
    Divergence,
}

impl EndState {
    pub fn as_str(self) -> &'static str {
        match self {
            EndState::ZeroFindings => "Zero findings",
            EndState::BudgetReached => "Budget reached",
            EndState::Plateau => "Plateau",
            EndState::Divergence => "Divergence",
        }
    }
}

/// Why a review stopped without an end state (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReviewError {
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    Definition(#[from] definitions::DefinitionError),
    #[error("a review is in progress in {} (pass {pass}, {status}): continue it with --resume, or remove the directory to start over", dir.display())]
    InProgress { dir: PathBuf, pass: u32, status: state::Status },
    #[error("there is no review to resume in {}", dir.display())]
    NothingToResume { dir: PathBuf },
    #[error("pass {pass} aborted: {reason} (state kept; continue with `reviewhost review --resume`)")]
    Aborted { pass: u32, reason: String },
    #[error(transparent)]
    Run(#[from] crate::run::RunError),
    #[error(transparent)]
    Load(#[from] assertion::LoadError),
    #[error(transparent)]
    Save(#[from] assertion::SaveError),
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}

/// What a finished review returns.
#[derive(Debug, Clone)]
pub struct ReviewOutcome {
    pub end: EndState,
    pub passes: Vec<PassRecord>,
    pub final_report: PathBuf,
}

/// One analyst's usable answer.
struct Analysis {
    name: String,
    track: String,
    text: String,
    assertions: Vec<Value>,
}

/// Runs the loop; progress and reports go to `out`.
pub fn review(runner: &Runner, options: &ReviewOptions, out: &mut dyn Write) -> Result<ReviewOutcome, ReviewError> {
    let root = options.root.as_path();
    let file = if options.assertions_file.is_absolute() {
        options.assertions_file.clone()
    } else {
        state::refuse_symlinks_on_the_way(root, &options.assertions_file)?;
        root.join(&options.assertions_file)
    };
    let workspace = Workspace::open(root)?;
    let definitions = &options.definitions;
    let mut state = match (workspace.load_state()?, options.resume) {
        (Some(state), true) if state.status != state::Status::Ended => state,
        (_, true) => return Err(ReviewError::NothingToResume { dir: workspace.dir().to_path_buf() }),
        (Some(state), false) if state.status != state::Status::Ended => {
            return Err(ReviewError::InProgress {
                dir: workspace.dir().to_path_buf(),
                pass: state.pass,
                status: state.status,
            });
        }
        (_, false) => State {
            version: 1,
            status: state::Status::Running,
            pass: 1,
            phase: Phase::Analysts,
            max_passes: options.max_passes,
            assertions_file: options.assertions_file.display().to_string(),
            passes: Vec::new(),
            aborted: None,
            end_state: None,
        },
    };
    state.status = state::Status::Running;
    state.aborted = None;
    workspace.save_state(&state)?;
    workspace.event(&Event::ReviewStart {
        root,
        max_passes: state.max_passes,
        resume: options.resume,
        pass: state.pass,
    })?;

    let ctx = Agents { options, workspace: &workspace, definitions };
    let mut review = Loop { ctx: &ctx, runner, options, workspace: &workspace, file, out };
    loop {
        match review.pass(&mut state) {
            Ok(Some(end)) => {
                state.status = state::Status::Ended;
                state.end_state = Some(end);
                state.phase = Phase::Done;
                workspace.save_state(&state)?;
                let assertions = review.assertions()?;
                let report = summary::final_report(end.as_str(), &state.passes, &assertions);
                let path = workspace.report("final.md", &report)?;
                writeln!(review.out, "\n{report}")?;
                let passes = Some(state.passes.len());
                workspace.event(&Event::ReviewEnd { end_state: Ending::Ended(end), passes, pass: None })?;
                return Ok(ReviewOutcome { end, passes: state.passes, final_report: path });
            }
            Ok(None) => {
                state.pass += 1;
                state.phase = Phase::Analysts;
                workspace.save_state(&state)?;
            }
            Err(ReviewError::Aborted { pass, reason }) => {
                state.status = state::Status::Aborted;
                state.aborted = Some(reason.clone());
                workspace.save_state(&state)?;
                workspace.event(&Event::PassAborted { pass, phase: state.phase, reason: &reason })?;
                let end_state = Ending::Aborted(Aborted::Aborted);
                workspace.event(&Event::ReviewEnd { end_state, passes: None, pass: Some(pass) })?;
                return Err(ReviewError::Aborted { pass, reason });
            }
            Err(other) => return Err(other),
        }
    }
}

/// What agent calls need, shared by the analyst threads.
struct Agents<'a> {
    options: &'a ReviewOptions,
    workspace: &'a Workspace,
    definitions: &'a [Definition],
}

struct Loop<'a> {
    ctx: &'a Agents<'a>,
    runner: &'a Runner,
    options: &'a ReviewOptions,
    workspace: &'a Workspace,
    file: PathBuf,
    out: &'a mut dyn Write,
}

impl Loop<'_> {
    /// One pass; `Some(end)` when the review is over.
    fn pass(&mut self, state: &mut State) -> Result<Option<EndState>, ReviewError> {
        let n = state.pass;
        let abort = |reason: String| ReviewError::Aborted { pass: n, reason };
        self.workspace.event(&Event::PassStart { pass: n })?;
        writeln!(self.out, "── Pass {n}/{} ──", state.max_passes)?;

        let excluded = [state::DIR, ".claude/state"];
        let snapshot = self.workspace.snapshot(n, &excluded);
        let previous = state.passes.last().and_then(|p| p.snapshot.clone());
        let changed = match (&previous, &snapshot) {
            (Some(from), Some(to)) => self.workspace.changed(from, to),
            _ => None,
        };
        let analysts: Vec<&Definition> = self
            .ctx
            .definitions
            .iter()
            .filter(|d| d.role == Role::Analyst)
            .filter(|d| state.passes.is_empty() || d.always || changed.as_ref().is_none_or(|c| touches(d, c)))
            .collect();
        self.workspace.event(&Event::AnalystsSelected {
            pass: n,
            analysts: analysts.iter().map(|d| d.name.as_str()).collect(),
            changed: changed.as_deref(),
        })?;

        // Analysts, in parallel; any failure aborts the pass.
        state.phase = Phase::Analysts;
        self.workspace.save_state(state)?;
        let existing = self.assertions()?;
        let answers: Vec<Result<Analysis, String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = analysts
                .iter()
                .map(|d| {
                    let prompt = analyst_prompt(d, n, state.max_passes, changed.as_deref(), &existing);
                    let ctx = self.ctx;
                    scope.spawn(move || ctx.analyse(d, n, prompt))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("analyst thread panicked".into()))).collect()
        });
        let mut analyses = Vec::new();
        for answer in answers {
            analyses.push(answer.map_err(abort)?);
        }

        // Collect: drop vacuous checks, merge by id.
        state.phase = Phase::Collect;
        self.workspace.save_state(state)?;
        let incoming: Vec<Value> = analyses.iter().flat_map(|a| a.assertions.iter().cloned()).collect();
        let (kept, rejected) = self.reject_vacuous(incoming)?;
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let (new, carried, total) = {
            let _lock =
                FileLock::acquire(&self.file).map_err(|e| abort(format!("cannot lock the assertions file: {e}")))?;
            let mut file = self.load_or_create()?;
            file.set_field("current_pass", json!(n));
            file.set_field("max_passes", json!(state.max_passes));
            let (new, carried) = file.merge(&kept).map_err(|e| abort(format!("merging the assertions: {e}")))?;
            file.save()?;
            (new, carried, file.assertions().len())
        };
        self.workspace.event(&Event::AssertionsCollected { pass: n, total, new, carried, rejected: &rejected })?;
        writeln!(self.out, "Pass {n}: {total} total ({new} new, {carried} carried forward)")?;
        for (id, why) in &rejected {
            writeln!(self.out, "  dropped {}: {}", crate::report::inert(id), crate::report::inert_lines(why, "    "))?;
        }

        // Implement the open findings: new assertions, and old ones still failing.
        state.phase = Phase::Implement;
        self.workspace.save_state(state)?;
        let failing_before: Vec<Value> = self
            .assertions()?
            .into_iter()
            .filter(|a| a.get("status").and_then(Value::as_str) != Some("pass"))
            .collect();
        if !failing_before.is_empty() {
            let implementer = self.ctx.agent(Role::Implementer).map_err(abort)?;
            let mut prompt = prompt::Prompt::new();
            prompt.say(&format!(
                "Pass {n} of {} of a reviewhost review. Implement the open findings below with minimal changes, \
                 so that the assertions that state them pass. Do not edit the assertions file, `.reviewhost/` or \
                 `.claude/state/`. End with the `## Implementation — Pass {n}` section.",
                state.max_passes
            ));
            for a in &analyses {
                prompt.say(&format!("Findings of the {} (track {}):", a.name, a.track));
                prompt.fence("findings", &a.text);
            }
            prompt.say("Assertions not passing yet (JSON):");
            prompt.fence("assertions", &serde_json::to_string_pretty(&failing_before).expect("JSON"));
            let text =
                prompt.finish(&implementer.name, self.options.prompt_budget).map_err(|e| abort(e.to_string()))?;
            self.ctx.call(implementer, n, &text).map_err(abort)?;
        }

        // Run, then one fix-agent round on failures.
        state.phase = Phase::Run;
        self.workspace.save_state(state)?;
        let mut report = self.run(n, false)?;
        let mut fix_results = None;
        let failing: Vec<Value> = self.failing(&report);
        if !failing.is_empty() {
            state.phase = Phase::Fix;
            self.workspace.save_state(state)?;
            let fixer = self.ctx.agent(Role::FixAgent).map_err(abort)?;
            let mut prompt = prompt::Prompt::new();
            prompt.say(&format!(
                "Pass {n}: these assertions fail after implementation. Make the minimal change that makes each pass; \
                 never edit or weaken an assertion. Answer with `## Fix-Agent Results — Pass {n}`."
            ));
            prompt.say("Failing assertions (JSON, with failure_output):");
            prompt.fence("failing-assertions", &serde_json::to_string_pretty(&failing).expect("JSON"));
            for a in analyses
                .iter()
                .filter(|a| failing.iter().any(|f| f.get("track").and_then(Value::as_str) == Some(&a.track)))
            {
                prompt.say(&format!("The findings these came from ({}):", a.name));
                prompt.fence("findings", &a.text);
            }
            let text = prompt.finish(&fixer.name, self.options.prompt_budget).map_err(|e| abort(e.to_string()))?;
            let answer = self.ctx.call(fixer, n, &text).map_err(abort)?;
            self.workspace.event(&Event::FixAgent { pass: n, failing: failing.len() })?;
            fix_results = Some(answer);
            report = self.run(n, true)?;
        }

        // Record, report, decide.
        state.phase = Phase::Report;
        let failing_now = report.results.iter().filter(|(_, o)| o.status != Status::Pass).count();
        let record = PassRecord {
            pass: n,
            total: report.results.len(),
            new,
            carried,
            passed: report.confidence.passed,
            failing: failing_now,
            confidence: report.confidence.score,
            analysts: analysts.iter().map(|d| d.name.clone()).collect(),
            snapshot,
        };
        state.passes.push(record.clone());
        self.workspace.save_state(state)?;
        let text = summary::pass_report(&record, &state.passes, fix_results.as_deref());
        self.workspace.report(&format!("pass-{n}.md"), &text)?;
        writeln!(self.out, "{text}")?;
        let end = end_state(&state.passes, state.max_passes);
        self.workspace.event(&Event::PassEnd {
            pass: n,
            confidence: record.confidence,
            passed: record.passed,
            total: record.total,
            failing: record.failing,
            end_state: end,
        })?;
        Ok(end)
    }

    /// Runs the assertions file in the sandbox (the same library call as `reviewhost run`).
    fn run(&mut self, pass: u32, after_fix: bool) -> Result<RunReport, ReviewError> {
        let options = RunOptions { file: self.file.clone(), root: self.options.root.clone(), write: true, shard: None };
        let report = self.runner.run(&options)?;
        let c = report.confidence;
        self.workspace.event(&Event::AssertionsRun {
            pass,
            after_fix,
            passed: c.passed,
            total: c.total,
            confidence: c.score,
        })?;
        writeln!(
            self.out,
            "Confidence: {}% ({}/{} assertions passing){}",
            c.percent(),
            c.passed,
            c.total,
            if after_fix { " after the fix-agent" } else { "" }
        )?;
        Ok(report)
    }

    fn failing(&self, report: &RunReport) -> Vec<Value> {
        let objects = self.assertions().unwrap_or_default();
        report
            .results
            .iter()
            .filter(|(_, o)| o.status != Status::Pass)
            .filter_map(|(a, _)| objects.iter().find(|o| o["id"] == a.id.as_str()).cloned())
            .collect()
    }

    /// The assertion objects in the file now (empty before the first merge).
    fn assertions(&self) -> Result<Vec<Value>, ReviewError> {
        if !self.file.exists() {
            return Ok(Vec::new());
        }
        let file = assertion::load(&self.file)?;
        Ok(file.assertions().iter().map(|a| Value::Object(a.object.clone())).collect())
    }

    fn load_or_create(&self) -> Result<AssertionsFile, ReviewError> {
        if self.file.exists() {
            return Ok(assertion::load(&self.file)?);
        }
        let mut file = AssertionsFile::empty(&self.file);
        let name =
            self.options.root.canonicalize().ok().and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
        file.set_field("plugin", json!(name.unwrap_or_default()));
        Ok(file)
    }

    /// Splits `incoming` into what `reviewhost lint` accepts and (id, why) for the rest:
    /// a vacuous check would report progress that is not there.
    fn reject_vacuous(&self, incoming: Vec<Value>) -> Result<(Vec<Value>, Vec<Rejected>), ReviewError> {
        if incoming.is_empty() {
            return Ok((incoming, Vec::new()));
        }
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("collected.json");
        std::fs::write(&path, json!({"assertions": incoming}).to_string())?;
        let rejected: Vec<Rejected> = self.runner.lint(&path, &self.options.root)?;
        let kept = incoming.into_iter().filter(|a| !rejected.iter().any(|(id, _)| a["id"] == id.as_str())).collect();
        Ok((kept, rejected))
    }
}

impl Agents<'_> {
    /// Asks analyst `d`, re-asking once with the exact reason when the answer is unusable.
    fn analyse(&self, d: &Definition, pass: u32, prompt: prompt::Prompt) -> Result<Analysis, String> {
        let track = d.track.clone().unwrap_or_default();
        let first = prompt.finish(&d.name, self.options.prompt_budget).map_err(|e| e.to_string())?;
        let answer = self.call(d, pass, &first)?;
        let reason = match collect::assertions(&answer, &track) {
            Ok(assertions) => return Ok(Analysis { name: d.name.clone(), track, text: answer, assertions }),
            Err(reason) => reason,
        };
        self.workspace
            .event(&Event::ParseGate { pass, agent: &d.name, attempt: 1, error: &reason })
            .map_err(|e| e.to_string())?;
        let mut again = prompt::Prompt::new();
        again.say(&first);
        again.say(&format!(
            "Your previous answer could not be used: {reason}\nAnswer again, completely, ending with a `## Assertions` \
             section holding one ```json block with a JSON array."
        ));
        let second = again.finish(&d.name, self.options.prompt_budget).map_err(|e| e.to_string())?;
        let answer = self.call(d, pass, &second)?;
        match collect::assertions(&answer, &track) {
            Ok(assertions) => Ok(Analysis { name: d.name.clone(), track, text: answer, assertions }),
            Err(reason) => {
                let _ = self.workspace.event(&Event::ParseGate { pass, agent: &d.name, attempt: 2, error: &reason });
                Err(format!("{} gave no usable `## Assertions` block twice: {reason}", d.name))
            }
        }
    }

    /// One agent call with its start and end events.
    fn call(&self, d: &Definition, pass: u32, prompt: &str) -> Result<String, String> {
        let _ = self.workspace.event(&Event::AgentStart { pass, agent: &d.name, prompt_bytes: prompt.len() });
        let started = Instant::now();
        let result = agent::call(&self.options.config, d, &self.options.root, prompt);
        let ms = (started.elapsed().as_secs_f64() * 1e3).round();
        let agent = &d.name;
        let end = match &result {
            Ok(a) => Event::AgentEnd {
                pass,
                agent,
                ok: true,
                exit: Some(a.exit),
                duration_ms: ms,
                response_bytes: Some(a.text.len()),
                error: None,
            },
            Err(e) => Event::AgentEnd {
                pass,
                agent,
                ok: false,
                exit: match e {
                    AgentError::Exit { code, .. } | AgentError::Reported { code, .. } => Some(*code),
                    _ => None,
                },
                duration_ms: ms,
                response_bytes: None,
                error: Some(e.to_string()),
            },
        };
        let _ = self.workspace.event(&end);
        result.map(|a| a.text).map_err(|e| e.to_string())
    }

    fn agent(&self, role: Role) -> Result<&Definition, String> {
        self.definitions
            .iter()
            .find(|d| d.role == role)
            .ok_or_else(|| format!("no agent definition with role {role:?}"))
    }
}

/// An assertion dropped at collection: (id, what `lint` found).
type Rejected = (String, String);

/// Whether any changed file is in analyst `d`'s track.
fn touches(d: &Definition, changed: &[String]) -> bool {
    let mut set = GlobSetBuilder::new();
    for pattern in &d.paths {
        if let Ok(glob) = Glob::new(pattern) {
            set.add(glob);
        }
    }
    set.build().is_ok_and(|set| changed.iter().any(|c| set.is_match(c)))
}

fn analyst_prompt(
    d: &Definition,
    pass: u32,
    max: u32,
    changed: Option<&[String]>,
    existing: &[Value],
) -> prompt::Prompt {
    let track = d.track.as_deref().unwrap_or("");
    let mut p = prompt::Prompt::new();
    p.say(&format!(
        "Pass {pass} of {max} of a reviewhost review of the repository in your working directory. You are the {} \
         (track {track}).",
        d.name
    ));
    match changed {
        Some(files) if pass > 1 => {
            p.say("Files changed since the last pass (review these first):");
            p.fence("changed-files", &files.join("\n"));
        }
        _ => {
            p.say("Review everything in your track.");
        }
    }
    let mine: Vec<&Value> = existing.iter().filter(|a| a.get("track").and_then(Value::as_str) == Some(track)).collect();
    if !mine.is_empty() {
        p.say("Your track's assertions already in the file, with their last status (keep an id when you re-emit its check):");
        p.fence("assertions", &serde_json::to_string_pretty(&mine).expect("JSON"));
    }
    p.say("End your answer with the `## Assertions` section: one ```json block holding a JSON array (`[]` when nothing is open).");
    p
}

/// The end state after `passes`, if the review is over.
fn end_state(passes: &[PassRecord], max_passes: u32) -> Option<EndState> {
    let last = passes.last()?;
    if last.failing == 0 {
        return Some(EndState::ZeroFindings);
    }
    if last.pass >= max_passes {
        return Some(EndState::BudgetReached);
    }
    if let [.., before, now] = passes
        && now.failing > before.failing
    {
        return Some(EndState::Divergence);
    }
    if let [.., first, second, third] = passes
        && second.confidence <= first.confidence
        && third.confidence <= second.confidence
    {
        return Some(EndState::Plateau);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(pass: u32, failing: usize, confidence: f64) -> PassRecord {
        PassRecord {
            pass,
            total: 10,
            new: 0,
            carried: 0,
            passed: 10 - failing,
            failing,
            confidence,
            analysts: vec![],
            snapshot: None,
        }
    }

    #[test]
    fn end_states() {
        assert_eq!(end_state(&[record(1, 0, 1.0)], 5), Some(EndState::ZeroFindings));
        assert_eq!(end_state(&[record(1, 3, 0.7)], 5), None);
        assert_eq!(end_state(&[record(1, 3, 0.7), record(2, 2, 0.8)], 2), Some(EndState::BudgetReached));
        assert_eq!(end_state(&[record(1, 3, 0.7), record(2, 4, 0.6)], 5), Some(EndState::Divergence));
        assert_eq!(end_state(&[record(1, 3, 0.7), record(2, 3, 0.7), record(3, 3, 0.7)], 5), Some(EndState::Plateau));
        assert_eq!(end_state(&[record(1, 3, 0.6), record(2, 3, 0.7), record(3, 3, 0.7)], 5), None);
    }
}
