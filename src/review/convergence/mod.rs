//! `reviewhost review`: seed 000's assertion-driven convergence loop.
//!
//! Each pass goes through the phases of [`Phase`], one method each:
//! [`Convergence::select`] snapshots the tree and picks the analysts (every track on
//! pass 1; later only the tracks whose files changed, plus the `always` ones);
//! [`Convergence::analyse`] asks them in parallel, each answer through the parse gate
//! (re-asked once, then the pass aborts); [`Convergence::collect`] drops vacuous
//! assertions (`lint`) and merges the rest into the assertions file by id;
//! [`Convergence::implement`] gives the open findings to the implementer;
//! [`Convergence::run`] runs the assertions in the sandbox; [`Convergence::fix`] gives
//! the failures to one fix-agent call and runs again; [`Convergence::report`] records
//! and reports the pass; [`Convergence::end_check`] decides: Zero findings, Budget
//! reached, Divergence, Plateau, or another pass.
//!
//! Every stage is an event in `.reviewhost/events.jsonl`; the position is in
//! `state.json`, so an aborted pass (a failed agent call, a second unusable answer) is
//! resumed with `--resume` from its start: merging by id makes redoing it harmless.

pub mod collect;
pub mod event;
pub mod state;
mod summary;

use std::io::Write;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSetBuilder};
use serde_json::{Value, json};

use self::event::{Aborted, Ending, Event};
use self::state::{EndState, PassRecord, Phase, ReviewFrom, State};
use crate::assertion::{self, AssertionsFile, FileLock, Status};
use crate::report::inert;
use crate::review::core::agent::{AgentError, Agents, Config, Ledger};
use crate::review::core::definitions::{Definition, Role};
use crate::review::core::error::{AbortCause, ReviewError};
use crate::review::core::gate::Gate;
use crate::review::core::prompt::Prompt;
use crate::review::core::reply::Usage;
use crate::review::core::workspace::{self, Workspace};
use crate::review::fix_review::{self, FixReviewError};
use crate::run::{RunOptions, RunReport, Runner};

/// What `reviewhost review` is asked to do.
#[derive(Debug, Clone)]
pub struct ReviewOptions {
    pub root: PathBuf,
    /// The assertions file (relative paths are relative to the root).
    pub assertions_file: PathBuf,
    pub max_passes: u32,
    pub resume: bool,
    /// The agent configuration and definitions, from the sources the operator trusts
    /// ([`crate::review::core::trust::load`]).
    pub config: Config,
    pub definitions: Vec<Definition>,
    /// Bytes a prompt may have.
    pub prompt_budget: usize,
    /// Fix-diff reviews per pass (0: none): after each one with critical or high
    /// findings, the fix-agent is called again, up to this many reviews.
    pub fix_review_rounds: u32,
    /// Changed lines from which a fix-diff review with zero findings is audited.
    pub zero_findings_lines: u64,
}

/// What a finished review returns.
#[derive(Debug, Clone)]
pub struct ReviewOutcome {
    pub end: EndState,
    pub passes: Vec<PassRecord>,
    pub final_report: PathBuf,
}

/// The analysts' parse gate: a `## Assertions` block, re-asked once.
const ASSERTIONS: Gate = Gate {
    wants: "`## Assertions` block",
    again: "Answer again, completely, ending with a `## Assertions` section holding one ```json block with a \
            JSON array.",
    retries: 1,
};

/// Directories a pass snapshot leaves out: reviewhost's own state and the assertions'.
const NOT_SNAPSHOT: [&str; 2] = [workspace::DIR, ".claude/state"];

/// Runs the loop; progress and reports go to `out`.
pub fn review(runner: &Runner, options: &ReviewOptions, out: &mut dyn Write) -> Result<ReviewOutcome, ReviewError> {
    let root = options.root.as_path();
    let file = if options.assertions_file.is_absolute() {
        options.assertions_file.clone()
    } else {
        workspace::refuse_symlinks_on_the_way(root, &options.assertions_file)?;
        root.join(&options.assertions_file)
    };
    let workspace = Workspace::open(root)?;
    let mut state = match (workspace.load_state::<State>(state::FILE)?, options.resume) {
        (Some(state), true) if state.status != state::Status::Ended => state,
        (_, true) => return Err(ReviewError::NothingToResume { dir: workspace.dir().to_path_buf() }),
        (Some(state), false) if state.status != state::Status::Ended => {
            return Err(ReviewError::InProgress {
                dir: workspace.dir().to_path_buf(),
                pass: state.pass,
                status: state.status.as_str(),
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
            usage: None,
            passed_ever: Default::default(),
            review_from: None,
            open_findings: Vec::new(),
        },
    };
    state.status = state::Status::Running;
    state.aborted = None;
    workspace.save_state(state::FILE, &state)?;
    workspace.event(&Event::ReviewStart {
        root,
        max_passes: state.max_passes,
        resume: options.resume,
        pass: state.pass,
    })?;

    let agents = Agents {
        ledger: std::sync::Mutex::new(Ledger {
            spent_before: state.usage.as_ref().and_then(|u| u.cost_usd).unwrap_or(0.0),
            ..Ledger::default()
        }),
        // Past `config.limits.max_cost` the review ends with [`EndState::CostLimit`].
        ..Agents::new(&options.config, &options.definitions, root, &workspace, options.prompt_budget)
    };
    let mut review = Convergence { agents, runner, root, workspace: &workspace, file, out, options };
    loop {
        match review.pass(&mut state) {
            Ok(Some(end)) => return review.end(state, end),
            Ok(None) => {
                state.pass += 1;
                state.phase = Phase::Analysts;
                workspace.save_state(state::FILE, &state)?;
            }
            Err(ReviewError::Aborted {
                cause: AbortCause::Agent(AgentError::CostLimit { spent, limit, .. }), ..
            }) => {
                writeln!(review.out, "Spent ${spent:.4}, over --max-cost ${limit:.4}: the review ends here.")?;
                let ledger = review.agents.take_ledger();
                if let Some(usage) = &ledger.usage {
                    state.usage = Some(Usage::sum(state.usage.take(), usage));
                }
                return review.end(state, EndState::CostLimit);
            }
            Err(ReviewError::Aborted { pass, cause }) => {
                let reason = cause.to_string();
                state.status = state::Status::Aborted;
                state.aborted = Some(reason.clone());
                workspace.save_state(state::FILE, &state)?;
                workspace.event(&Event::PassAborted { pass, phase: state.phase, reason: &reason })?;
                let end_state = Ending::Aborted(Aborted::Aborted);
                workspace.event(&Event::ReviewEnd { end_state, passes: None, pass: Some(pass) })?;
                return Err(ReviewError::Aborted { pass, cause });
            }
            Err(other) => return Err(other),
        }
    }
}

/// One run of the loop: what every pass works with.
struct Convergence<'a> {
    /// The agents, called from the analysts' threads too.
    agents: Agents<'a>,
    runner: &'a Runner,
    root: &'a Path,
    workspace: &'a Workspace,
    /// The assertions file, absolute or under the root.
    file: PathBuf,
    out: &'a mut dyn Write,
    options: &'a ReviewOptions,
}

/// What [`Convergence::select`] found at the start of a pass.
struct Selection<'d> {
    /// The snapshot of the tree the pass starts from, or why none could be made.
    snapshot: Result<String, String>,
    /// Files changed since the last pass (`None`: unknown).
    changed: Option<Vec<String>>,
    analysts: Vec<&'d Definition>,
}

/// One analyst's usable answer.
struct Analysis {
    name: String,
    track: String,
    text: String,
    assertions: Vec<Value>,
}

/// What [`Convergence::collect`] merged.
struct Merged {
    new: usize,
    carried: usize,
}

/// An assertion dropped at collection: (id, what `lint` found).
type Rejected = (String, String);

/// `ReviewError::Aborted` in pass `pass`, for `map_err`.
fn abort<E: Into<AbortCause>>(pass: u32) -> impl FnOnce(E) -> ReviewError {
    move |cause| ReviewError::Aborted { pass, cause: cause.into() }
}

impl<'a> Convergence<'a> {
    /// One pass, phase by phase; `Some(end)` when the review is over.
    fn pass(&mut self, state: &mut State) -> Result<Option<EndState>, ReviewError> {
        let n = state.pass;
        self.workspace.event(&Event::PassStart { pass: n })?;
        writeln!(self.out, "── Pass {n}/{} ──", state.max_passes)?;
        let selection = self.select(state)?;
        let analyses = self.analyse(state, &selection)?;
        let merged = self.collect(state, &analyses)?;
        let fixed = self.implement(state, &analyses)?;
        let report = self.run(state, false)?;
        let regressions = self.regressions(state, &report)?;
        let (report, mut fix_results) = self.fix(state, &analyses, report, &regressions, &[])?;
        let (report, reviewed) = self.review_fixes(state, &selection, &analyses, &fixed, report, &mut fix_results)?;
        let record = self.report(state, selection, merged, &report, fix_results.as_deref(), reviewed)?;
        self.end_check(state, &record)
    }

    /// Snapshots the tree and picks this pass's analysts: all on the first pass, then
    /// those whose track has changed files, and the `always` ones.
    fn select(&mut self, state: &State) -> Result<Selection<'a>, ReviewError> {
        let n = state.pass;
        let previous = state.passes.last().and_then(|p| p.snapshot.clone());
        let snapshot = self.workspace.snapshot(n, previous.as_deref(), &NOT_SNAPSHOT).map_err(|e| e.to_string());
        let changed = match (&previous, &snapshot) {
            (Some(from), Ok(to)) => self.workspace.changed(from, to).ok(),
            _ => None,
        };
        let definitions: &'a [Definition] = self.agents.definitions;
        let analysts: Vec<&Definition> = definitions
            .iter()
            .filter(|d| d.role == Role::Analyst)
            .filter(|d| state.passes.is_empty() || d.always || changed.as_ref().is_none_or(|c| touches(d, c)))
            .collect();
        self.workspace.event(&Event::AnalystsSelected {
            pass: n,
            analysts: analysts.iter().map(|d| d.name.as_str()).collect(),
            changed: changed.as_deref(),
        })?;
        Ok(Selection { snapshot, changed, analysts })
    }

    /// [`Phase::Analysts`]: the analysts in parallel, each answer through the parse gate;
    /// any failure aborts the pass.
    fn analyse(&mut self, state: &mut State, selection: &Selection<'_>) -> Result<Vec<Analysis>, ReviewError> {
        let n = state.pass;
        self.enter(state, Phase::Analysts)?;
        let existing = self.assertions()?;
        let agents = &self.agents;
        let answers: Vec<Result<Analysis, AbortCause>> = std::thread::scope(|scope| {
            let handles: Vec<_> = selection
                .analysts
                .iter()
                .map(|&d| {
                    let prompt = analyst_prompt(d, n, state.max_passes, selection.changed.as_deref(), &existing);
                    scope.spawn(move || {
                        let track = d.track.clone().unwrap_or_default();
                        let answer =
                            ASSERTIONS.ask(agents, d, n, prompt, |text, _| collect::assertions(text, &track))?;
                        Ok(Analysis { name: d.name.clone(), track, text: answer.text, assertions: answer.value })
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or(Err(AbortCause::Panicked(Role::Analyst)))).collect()
        });
        answers.into_iter().map(|answer| answer.map_err(abort(n))).collect()
    }

    /// [`Phase::Collect`]: drops what `lint` finds vacuous, merges the rest by id.
    fn collect(&mut self, state: &mut State, analyses: &[Analysis]) -> Result<Merged, ReviewError> {
        let n = state.pass;
        self.enter(state, Phase::Collect)?;
        let incoming: Vec<Value> = analyses.iter().flat_map(|a| a.assertions.iter().cloned()).collect();
        let (kept, mut rejected) = self.lint(incoming)?;
        let (kept, vacuous) = self.witness(kept)?;
        rejected.extend(vacuous);
        let (new, carried, total) = self.merge(state, &kept)?;
        self.workspace.event(&Event::AssertionsCollected { pass: n, total, new, carried, rejected: &rejected })?;
        writeln!(self.out, "Pass {n}: {total} total ({new} new, {carried} carried forward)")?;
        for (id, why) in &rejected {
            writeln!(self.out, "  dropped {}: {}", crate::report::inert(id), crate::report::inert_lines(why, "    "))?;
        }
        Ok(Merged { new, carried })
    }

    /// Splits `incoming` into what `reviewhost lint` accepts and (id, why) for the rest:
    /// a vacuous check would report progress that is not there.
    fn lint(&self, incoming: Vec<Value>) -> Result<(Vec<Value>, Vec<Rejected>), ReviewError> {
        if incoming.is_empty() {
            return Ok((incoming, Vec::new()));
        }
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("collected.json");
        std::fs::write(&path, json!({"assertions": incoming}).to_string())?;
        let rejected: Vec<Rejected> = self.runner.lint(&path, self.root)?;
        let kept = incoming.into_iter().filter(|a| !rejected.iter().any(|(id, _)| a["id"] == id.as_str())).collect();
        Ok((kept, rejected))
    }

    /// The witness check: seed 000 asks analysts for assertions that fail today, so
    /// each new assertion (an id not in the file yet) is run on the tree it was written
    /// against, before the implementer; one that already passes witnesses nothing and
    /// is dropped with the reason.
    fn witness(&self, kept: Vec<Value>) -> Result<(Vec<Value>, Vec<Rejected>), ReviewError> {
        let existing: Vec<String> =
            self.assertions()?.iter().filter_map(|a| a["id"].as_str().map(String::from)).collect();
        let new: Vec<&Value> = kept.iter().filter(|a| !existing.iter().any(|id| a["id"] == id.as_str())).collect();
        if new.is_empty() {
            return Ok((kept, Vec::new()));
        }
        let doc = json!({ "assertions": new });
        let file = assertion::parse(Path::new("(the analysts' new assertions)"), doc.to_string().as_bytes())?;
        let root = crate::sandbox::RootDir::new(self.root)
            .map_err(|source| crate::run::RunError::Root { root: self.root.to_path_buf(), source })?;
        let dir = std::path::absolute(crate::write::parent_dir(&self.file)).unwrap_or_else(|_| self.root.to_path_buf());
        let vacuous: Vec<Rejected> = self
            .runner
            .check_all(&file, &root, &dir)
            .into_iter()
            .filter(|(_, outcome)| outcome.status == Status::Pass)
            .map(|(a, _)| {
                (a.id, "passes already, before any fix: it witnesses nothing (write one that fails today)".into())
            })
            .collect();
        let kept = kept.into_iter().filter(|a| !vacuous.iter().any(|(id, _)| a["id"] == id.as_str())).collect();
        Ok((kept, vacuous))
    }

    /// Merges `kept` into the assertions file by id, under its lock: (new, carried,
    /// total).
    fn merge(&self, state: &State, kept: &[Value]) -> Result<(usize, usize, usize), ReviewError> {
        let n = state.pass;
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let _lock = FileLock::acquire(&self.file).map_err(AbortCause::Lock).map_err(abort(n))?;
        let mut file = self.load_or_create()?;
        file.set_field("current_pass", json!(n));
        file.set_field("max_passes", json!(state.max_passes));
        let (new, carried) = file.merge(kept).map_err(AbortCause::Merge).map_err(abort(n))?;
        file.save()?;
        Ok((new, carried, file.assertions().len()))
    }

    /// [`Phase::Implement`]: the implementer on the open findings (new assertions, and
    /// old ones still failing), if there are any.
    fn implement(&mut self, state: &mut State, analyses: &[Analysis]) -> Result<Vec<(String, String)>, ReviewError> {
        let n = state.pass;
        self.enter(state, Phase::Implement)?;
        let failing_before: Vec<Value> = self
            .assertions()?
            .into_iter()
            .filter(|a| a.get("status").and_then(Value::as_str) != Some("pass"))
            .collect();
        // What this pass sets out to fix, for the fix-diff review.
        let fixed = failing_before
            .iter()
            .map(|a| {
                let text = |k: &str| a[k].as_str().unwrap_or("").to_string();
                (text("id"), text("description"))
            })
            .collect();
        if failing_before.is_empty() {
            return Ok(fixed);
        }
        let implementer = self.agents.with_role(Role::Implementer).map_err(abort(n))?;
        let mut prompt = Prompt::new();
        prompt.say(&format!(
            "Pass {n} of {} of a reviewhost review. Implement the open findings below with minimal changes, \
             so that the assertions that state them pass. Do not edit the assertions file, `.reviewhost/` or \
             `.claude/state/`. End with the `## Implementation — Pass {n}` section.",
            state.max_passes
        ));
        for a in analyses {
            prompt.say(&format!("Findings of the {} (track {}):", a.name, a.track));
            prompt.fence("findings", &a.text);
        }
        prompt.say("Assertions not passing yet (JSON):");
        prompt.fence("assertions", &serde_json::to_string_pretty(&failing_before).expect("JSON"));
        self.agents.ask(implementer, n, prompt).map_err(abort(n))?;
        Ok(fixed)
    }

    /// Assertions failing in `report` that passed at the end of an earlier pass: named
    /// in an event, and given to the fix-agent first.
    fn regressions(&mut self, state: &State, report: &RunReport) -> Result<Vec<String>, ReviewError> {
        let ids: Vec<String> = report
            .results
            .iter()
            .filter(|(a, o)| o.status != Status::Pass && state.passed_ever.contains(&a.id))
            .map(|(a, _)| a.id.clone())
            .collect();
        if !ids.is_empty() {
            self.workspace.event(&Event::Regressions { pass: state.pass, ids: &ids })?;
            let names: Vec<String> = ids.iter().map(|id| crate::report::inert(id).into_owned()).collect();
            writeln!(self.out, "Regressions (passed in an earlier pass, fail now): {}", names.join(", "))?;
        }
        Ok(ids)
    }

    /// [`Phase::Run`]: runs the assertions file in the sandbox (the same library call as
    /// `reviewhost run`), writing the results back.
    fn run(&mut self, state: &mut State, after_fix: bool) -> Result<RunReport, ReviewError> {
        let pass = state.pass;
        if !after_fix {
            self.enter(state, Phase::Run)?;
        }
        let options =
            RunOptions { file: self.file.clone(), root: self.root.to_path_buf(), write: true, shard: None, only: None };
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

    /// [`Phase::Fix`]: on failures, one fix-agent call and a re-run. Returns the report
    /// to record and the fix-agent's answer, if it was called.
    fn fix(
        &mut self,
        state: &mut State,
        analyses: &[Analysis],
        report: RunReport,
        regressions: &[String],
        diff_findings: &[Value],
    ) -> Result<(RunReport, Option<String>), ReviewError> {
        let n = state.pass;
        let mut failing = self.failing(&report);
        if failing.is_empty() && diff_findings.is_empty() {
            return Ok((report, None));
        }
        self.enter(state, Phase::Fix)?;
        let fixer = self.agents.with_role(Role::FixAgent).map_err(abort(n))?;
        let mut prompt = Prompt::new();
        prompt.say(&format!(
            "Pass {n}: these assertions fail after implementation. Make the minimal change that makes each pass; \
             never edit or weaken an assertion. Answer with `## Fix-Agent Results — Pass {n}`."
        ));
        // Regressions first: they passed before this pass broke them.
        failing.sort_by_key(|a| !regressions.iter().any(|id| a["id"] == id.as_str()));
        let still: Vec<&String> =
            regressions.iter().filter(|id| failing.iter().any(|a| a["id"] == id.as_str())).collect();
        if !still.is_empty() {
            let ids: Vec<&str> = still.iter().map(|id| id.as_str()).collect();
            prompt.say("REGRESSIONS: these passed in an earlier pass and fail now; fix them first (ids):");
            prompt.fence("regressions", &ids.join("\n"));
        }
        if !diff_findings.is_empty() {
            prompt.say(
                "The fix-diff review of this pass found these critical or high problems in the changes made so far; \
                 fix them too:",
            );
            prompt.fence("fix-diff-findings", &serde_json::to_string_pretty(diff_findings).expect("JSON"));
        }
        prompt.say("Failing assertions (JSON, with failure_output):");
        prompt.fence("failing-assertions", &serde_json::to_string_pretty(&failing).expect("JSON"));
        for a in
            analyses.iter().filter(|a| failing.iter().any(|f| f.get("track").and_then(Value::as_str) == Some(&a.track)))
        {
            prompt.say(&format!("The findings these came from ({}):", a.name));
            prompt.fence("findings", &a.text);
        }
        let answer = self.agents.ask(fixer, n, prompt).map_err(abort(n))?;
        self.workspace.event(&Event::FixAgent { pass: n, failing: failing.len() })?;
        let report = self.run(state, true)?;
        Ok((report, Some(answer)))
    }

    /// [`Phase::FixReview`]: the diff from the start of the changes not yet reviewed
    /// clean (this pass's start snapshot, or an earlier pass's while its critical or
    /// high findings are open, [`State::review_from`]) to the working tree, reviewed by
    /// the fix-diff reviewer with the findings still open; critical and high findings go
    /// to the fix-agent with the failing assertions and the file is run again, up to
    /// `fix_review_rounds` reviews. A stage that cannot review (no snapshot, a diff git
    /// cannot give, an embedded repository, a prompt over budget) blocks the pass with
    /// the reason, never counts as zero findings.
    fn review_fixes(
        &mut self,
        state: &mut State,
        selection: &Selection<'_>,
        analyses: &[Analysis],
        fixed: &[(String, String)],
        mut report: RunReport,
        fix_results: &mut Option<String>,
    ) -> Result<(RunReport, Reviewed), ReviewError> {
        let n = state.pass;
        let rounds = self.options.fix_review_rounds;
        if rounds == 0 {
            return Ok((report, Reviewed::default()));
        }
        let from = match (state.review_from.clone(), &selection.snapshot) {
            (Some(from), _) => from,
            (None, Ok(snapshot)) => ReviewFrom::Snapshot(snapshot.clone()),
            (None, Err(why)) => ReviewFrom::Unknown(format!("no snapshot of the start of pass {n}: {why}")),
        };
        let start = match &from {
            ReviewFrom::Snapshot(start) => start.clone(),
            ReviewFrom::Unknown(why) => {
                writeln!(
                    self.out,
                    "Fix-diff review cannot run: {}: the pass cannot end at Zero findings.",
                    inert(why)
                )?;
                state.review_from = Some(from.clone());
                let reviewed = Reviewed {
                    unreviewed: Some(why.clone()),
                    open: state.open_findings.clone(),
                    ..Reviewed::default()
                };
                return Ok((report, reviewed));
            }
        };
        self.enter(state, Phase::FixReview)?;
        let definitions: &'a [Definition] = self.agents.definitions;
        let reviewer = definitions
            .iter()
            .find(|d| d.role == Role::FixReviewer)
            .ok_or(AbortCause::NoAgent(Role::FixReviewer))
            .map_err(abort(n))?;
        let mut open = state.open_findings.clone();
        let mut reviewed = Reviewed::default();
        for round in 1..=rounds {
            let carried: Vec<(String, String)> = open.iter().map(finding_text).collect();
            let outcome = fix_review::Round {
                agents: &self.agents,
                runner: self.runner,
                workspace: self.workspace,
                reviewer,
                start: &start,
                pass: n,
                round,
                fixed,
                open: &carried,
                zero_findings_lines: self.options.zero_findings_lines,
                exclude: &NOT_SNAPSHOT,
            }
            .run();
            let result = match outcome {
                Ok(result) => result,
                Err(AbortCause::Loop(why)) if why.is::<FixReviewError>() => {
                    let why = why.to_string();
                    writeln!(
                        self.out,
                        "Fix-diff review {round} cannot review: {}: the pass cannot end at Zero findings.",
                        inert(&why)
                    )?;
                    state.review_from = Some(from.clone());
                    reviewed.rounds = round;
                    reviewed.unreviewed = Some(why);
                    // What was open stays open: nothing reviewed it.
                    reviewed.open = open;
                    state.open_findings = reviewed.open.clone();
                    return Ok((report, reviewed));
                }
                Err(other) => return Err(abort(n)(other)),
            };
            let found: Vec<Value> = result.blocking().into_iter().cloned().collect();
            reviewed.rounds = round;
            writeln!(
                self.out,
                "Fix-diff review {round}: {} files, {} lines changed: {} findings ({} critical or high), {} \
                 rejected{}",
                result.files,
                result.lines_changed,
                result.findings.len(),
                found.len(),
                result.rejected.len(),
                if result.audited { ", recorded in the audit trail" } else { "" }
            )?;
            for (id, why) in &result.rejected {
                writeln!(self.out, "  rejected {}: {}", inert(id), inert(why))?;
            }
            open = found.clone();
            if found.is_empty() || round == rounds {
                break;
            }
            let regressions = self.regressions(state, &report)?;
            let (after, answer) = self.fix(state, analyses, report, &regressions, &found)?;
            report = after;
            *fix_results = answer.or(fix_results.take());
            self.enter(state, Phase::FixReview)?;
        }
        // Open findings keep the review's start where they were found; once none is
        // open, the next pass reviews its own changes.
        state.review_from = if open.is_empty() { None } else { Some(from) };
        state.open_findings = open.clone();
        reviewed.open = open;
        Ok((report, reviewed))
    }

    /// [`Phase::Report`]: records the pass in the state and writes its report.
    fn report(
        &mut self,
        state: &mut State,
        selection: Selection<'_>,
        merged: Merged,
        report: &RunReport,
        fix_results: Option<&str>,
        reviewed: Reviewed,
    ) -> Result<PassRecord, ReviewError> {
        let n = state.pass;
        state.phase = Phase::Report;
        let ledger = self.agents.take_ledger();
        let regressions: Vec<String> = report
            .results
            .iter()
            .filter(|(a, o)| o.status != Status::Pass && state.passed_ever.contains(&a.id))
            .map(|(a, _)| a.id.clone())
            .collect();
        state
            .passed_ever
            .extend(report.results.iter().filter(|(_, o)| o.status == Status::Pass).map(|(a, _)| a.id.clone()));
        let record = PassRecord {
            pass: n,
            total: report.results.len(),
            new: merged.new,
            carried: merged.carried,
            passed: report.confidence.passed,
            failing: report.results.iter().filter(|(_, o)| o.status != Status::Pass).count(),
            confidence: report.confidence.score,
            analysts: selection.analysts.iter().map(|d| d.name.clone()).collect(),
            snapshot: selection.snapshot.ok(),
            usage: ledger.usage,
            refused: ledger.refused,
            regressions,
            fix_review_rounds: reviewed.rounds,
            blocking_findings: reviewed.open.len(),
            unreviewed: reviewed.unreviewed,
            open_findings: reviewed.open,
        };
        if let Some(usage) = &record.usage {
            state.usage = Some(Usage::sum(state.usage.take(), usage));
        }
        state.passes.push(record.clone());
        self.workspace.save_state(state::FILE, state)?;
        let text = summary::pass_report(&record, &state.passes, fix_results);
        self.workspace.report(&format!("pass-{n}.md"), &text)?;
        writeln!(self.out, "{text}")?;
        Ok(record)
    }

    /// Decides whether the review is over after the pass `record` (see [`end_state`]).
    fn end_check(&mut self, state: &State, record: &PassRecord) -> Result<Option<EndState>, ReviewError> {
        let end = end_state(&state.passes, state.max_passes);
        self.workspace.event(&Event::PassEnd {
            pass: record.pass,
            confidence: record.confidence,
            passed: record.passed,
            total: record.total,
            failing: record.failing,
            end_state: end,
        })?;
        Ok(end)
    }

    /// Ends the review with `end`: the state, the final report, the last event.
    fn end(self, mut state: State, end: EndState) -> Result<ReviewOutcome, ReviewError> {
        state.status = state::Status::Ended;
        state.end_state = Some(end);
        state.phase = Phase::Done;
        self.workspace.save_state(state::FILE, &state)?;
        let assertions = self.assertions()?;
        let report = summary::final_report(end.as_str(), &state.passes, &assertions, state.usage.as_ref());
        let path = self.workspace.report("final.md", &report)?;
        writeln!(self.out, "\n{report}")?;
        let passes = Some(state.passes.len());
        self.workspace.event(&Event::ReviewEnd { end_state: Ending::Ended(end), passes, pass: None })?;
        Ok(ReviewOutcome { end, passes: state.passes, final_report: path })
    }

    /// Moves the pass to `phase`, saved before the phase starts.
    fn enter(&self, state: &mut State, phase: Phase) -> Result<(), ReviewError> {
        state.phase = phase;
        Ok(self.workspace.save_state(state::FILE, state)?)
    }

    /// The assertion objects of `report`'s failures, as the file holds them now.
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
        let name = self.root.canonicalize().ok().and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
        file.set_field("plugin", json!(name.unwrap_or_default()));
        Ok(file)
    }
}

/// What a pass's fix-diff review left.
#[derive(Debug, Default)]
struct Reviewed {
    rounds: u32,
    /// Why the changes could not be reviewed.
    unreviewed: Option<String>,
    /// The critical and high findings open at the end.
    open: Vec<Value>,
}

/// `(id, description)` of a finding, for the reviewer's prompt.
fn finding_text(f: &Value) -> (String, String) {
    let text = |key: &str| f.get(key).and_then(Value::as_str).unwrap_or("").to_string();
    let location = format!("{}:{}", f["location"]["file"].as_str().unwrap_or(""), f["location"]["lines"]);
    (text("id"), format!("[{}] {} ({location}): {}", text("severity"), text("title"), text("description")))
}

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

fn analyst_prompt(d: &Definition, pass: u32, max: u32, changed: Option<&[String]>, existing: &[Value]) -> Prompt {
    let track = d.track.as_deref().unwrap_or("");
    let mut p = Prompt::new();
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
    if last.failing == 0 && last.blocking_findings == 0 && last.unreviewed.is_none() {
        return Some(EndState::ZeroFindings);
    }
    if last.pass >= max_passes {
        return Some(EndState::BudgetReached);
    }
    // The fix-agent had the regressions first and could not repair them: the loop is
    // breaking what it had fixed.
    if !last.regressions.is_empty() {
        return Some(EndState::Divergence);
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
            usage: None,
            refused: Vec::new(),
            regressions: Vec::new(),
            fix_review_rounds: 0,
            blocking_findings: 0,
            unreviewed: None,
            open_findings: Vec::new(),
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
