//! `reviewhost plan-review`: seed 002's review gate (yolo's execute-protocol Step 2b).
//! Each plan is reviewed in cycles until it passes or the cap is reached:
//!
//! 1. **Stage 1, deterministic**: the pre-check of the original, as the output contract
//!    of the `plan-architect` definition (the contract of every plan it writes) run over
//!    the plan (`answer.md`, with its front matter as `front-matter.json`), and a
//!    `file_exists` check of every path its `**Files:**` lines name, run in the sandbox
//!    on the repository; each failed rule is a finding with the rule's severity and id.
//! 2. **Stage 2, the reviewer** (`plan-reviewer`), unless stage 1 already rejects: a JSON
//!    verdict and findings under its contract's schema (yolo's documented text format is
//!    read too, with its parser's defects fixed); an answer that does not parse, or a
//!    reject without findings, is asked again once, then the review fails closed.
//! 3. **The verdict is computed** from the findings (any high: reject; any finding:
//!    conditional; none: approve); a reviewer that said otherwise is logged.
//! 4. On reject, below `--max-cycles` (the first review is cycle 1), the architect
//!    (`plan-architect`) revises the plan file, given only the delta findings (new ids
//!    and changed severities, high and medium); a high finding that persists two cycles
//!    is marked escalated. Conditional proceeds with its findings as warnings. At the
//!    cap: HARD STOP, with every finding of every cycle, deduplicated by id; it halts
//!    the whole set of plans.
//!
//! An approved plan's SHA-256 is recorded: `--check` says whether it changed since.

pub mod event;
mod verdict;

pub use self::verdict::Verdict;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use self::event::Event;
use crate::report::inert;
use crate::review::core::agent::{Agents, Config};
use crate::review::core::contract::{self, ContractError};
use crate::review::core::definitions::{Definition, Role, Source};
use crate::review::core::error::{AbortCause, PlanCommand, ReviewError};
use crate::review::core::gate::{Gate, Rejection};
use crate::review::core::prompt::Prompt;
use crate::review::core::sha256_hex;
use crate::review::core::workspace::Workspace;
use crate::run::Runner;
use crate::sandbox::{Base, RootDir, read_text};

/// The state file of `reviewhost plan-review` in `.reviewhost/`.
pub const STATE_FILE: &str = "plan-review-state.json";
/// Largest plan read.
const MAX_PLAN_BYTES: u64 = 1 << 20;
/// The default `review_max_cycles`.
pub const DEFAULT_MAX_CYCLES: u32 = 3;

/// The verdict of `findings`, computed: any high, reject; any finding, conditional;
/// none, approve. A model's own verdict is never trusted.
pub fn computed(findings: &[Value]) -> Verdict {
    if findings.iter().any(|f| f["severity"] == "high") {
        Verdict::Reject
    } else if findings.is_empty() {
        Verdict::Approve
    } else {
        Verdict::Conditional
    }
}

/// A finding's identity: its `id`, else `h-` and a hash of its check, file and
/// normalised text (yolo's pre-check findings have no id, and deduplicating on the
/// missing one collapsed them all into one).
pub fn finding_id(f: &Value) -> String {
    if let Some(id) = f["id"].as_str().filter(|id| !id.trim().is_empty()) {
        return id.to_string();
    }
    let text = f["issue"].as_str().or(f["title"].as_str()).unwrap_or("");
    let normalised = text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    let key =
        format!("{}\u{0}{}\u{0}{normalised}", f["check"].as_str().unwrap_or(""), f["file"].as_str().unwrap_or(""));
    let digest = Sha256::digest(key.as_bytes());
    format!("h-{}", digest.iter().take(6).map(|b| format!("{b:02x}")).collect::<String>())
}

/// The findings the architect is given: on the first cycle every high and medium one;
/// later the high and medium ones whose id is new or whose severity changed, once per
/// id. Also returns the ids of the previous cycle that are gone (resolved).
pub fn delta(previous: Option<&[Value]>, current: &[Value]) -> (Vec<Value>, Vec<String>) {
    let serious = |f: &&Value| matches!(f["severity"].as_str(), Some("high" | "medium"));
    let mut seen = std::collections::BTreeSet::new();
    let Some(previous) = previous else {
        let all = current.iter().filter(serious).filter(|f| seen.insert(finding_id(f))).cloned().collect();
        return (all, Vec::new());
    };
    let before: BTreeMap<String, &Value> = previous.iter().map(|f| (finding_id(f), f)).collect();
    let delta = current
        .iter()
        .filter(serious)
        .filter(|f| match before.get(&finding_id(f)) {
            None => true,
            Some(old) => old["severity"] != f["severity"],
        })
        .filter(|f| seen.insert(finding_id(f)))
        .cloned()
        .collect();
    let now: std::collections::BTreeSet<String> = current.iter().map(finding_id).collect();
    let resolved = before.keys().filter(|id| !now.contains(*id)).cloned().collect();
    (delta, resolved)
}

/// Reads a reviewer's answer: a JSON object (the whole answer, or one fenced block), or
/// yolo's documented text format (`VERDICT: …`, `FINDINGS:` and one `[id:…]
/// [severity:…] [file:…] issue: … | suggestion: …` line per finding), read as the
/// original meant it: a leading `- `, a `[status:…]` tag, quotes in the text and any
/// case of the verdict are all fine. No verdict is a parse failure, never a default.
pub fn parse_answer(text: &str) -> Result<Value, String> {
    let trimmed = text.trim();
    if trimmed.starts_with('{') || trimmed.starts_with("```") {
        return serde_json::from_str::<Value>(contract::json_text(trimmed))
            .map_err(|e| format!("the answer is not a JSON object: {e}"));
    }
    let mut verdict = None;
    let mut answer = json!({});
    let mut findings = Vec::new();
    for line in trimmed.lines().map(str::trim) {
        let Some((key, value)) = line.split_once(':') else { continue };
        match key.trim().to_ascii_uppercase().as_str() {
            "VERDICT" if verdict.is_none() => verdict = Verdict::parse(value),
            "CYCLE" => {
                if let Some((n, max)) = value.trim().split_once('/')
                    && let (Ok(n), Ok(max)) = (n.trim().parse::<u32>(), max.trim().parse::<u32>())
                {
                    answer["cycle"] = json!([n, max]);
                }
            }
            k @ ("RESOLVED" | "PERSISTENT" | "NEW") => {
                if let Ok(n) = value.trim().parse::<u32>() {
                    answer[k.to_ascii_lowercase()] = json!(n);
                }
            }
            _ => {}
        }
        if let Some(finding) = finding_line(line) {
            findings.push(finding);
        }
    }
    let verdict = verdict.ok_or("no `VERDICT: approve|conditional|reject` line and no JSON object")?;
    answer["verdict"] = json!(verdict.as_str());
    answer["findings"] = Value::Array(findings);
    Ok(answer)
}

/// One `[key:value] … issue: … | suggestion: …` line, with or without a leading `- `.
fn finding_line(line: &str) -> Option<Value> {
    let mut rest = line.strip_prefix("- ").unwrap_or(line).trim_start();
    if !rest.starts_with("[id:") {
        return None;
    }
    let mut finding = json!({});
    while let Some(tag) = rest.strip_prefix('[') {
        let end = tag.find(']')?;
        let (key, value) = tag[..end].split_once(':')?;
        finding[key.trim()] = json!(value.trim());
        rest = tag[end + 1..].trim_start();
    }
    let issue = rest.strip_prefix("issue:").unwrap_or(rest).trim();
    let (title, suggestion) = match issue.rsplit_once("| suggestion:") {
        Some((title, suggestion)) => (title.trim(), suggestion.trim()),
        None => (issue, ""),
    };
    finding["title"] = json!(title);
    finding["description"] = json!(title);
    finding["suggestion"] = json!(suggestion);
    finding["auto_fixable"] = json!(false);
    Some(finding)
}

/// One cycle, as the state records it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CycleRecord {
    pub verdict: Verdict,
    pub finding_count: usize,
    pub high: usize,
}

/// Where a plan's loop is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopStatus {
    Running,
    Passed,
    Failed,
}

/// One plan's loop, in the state's `review_loops`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReviewLoop {
    pub cycle: u32,
    pub max: u32,
    pub status: LoopStatus,
    pub findings_per_cycle: Vec<CycleRecord>,
    pub final_verdict: Option<Verdict>,
    /// Every finding of every cycle, the last of each id.
    pub findings: Vec<Value>,
    /// The last cycle's findings (what the delta is computed against).
    pub last_findings: Option<Vec<Value>>,
    /// SHA-256 of the plan when it passed.
    pub approved_sha256: Option<String>,
}

/// `.reviewhost/plan-review-state.json`.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct PlanReviewState {
    pub version: u32,
    /// Kept across a resumed run; in every event.
    pub correlation_id: String,
    /// Per plan, by its path relative to the root.
    pub review_loops: BTreeMap<String, ReviewLoop>,
}

/// What `reviewhost plan-review` is asked to do.
#[derive(Debug, Clone)]
pub struct PlanReviewOptions {
    pub root: PathBuf,
    pub plans: Vec<PathBuf>,
    pub max_cycles: u32,
    /// Continue the loops the last run left running, with its correlation id.
    pub resume: bool,
    pub config: Config,
    pub definitions: Vec<Definition>,
    pub prompt_budget: usize,
}

/// How the set of plans came out.
#[derive(Debug, Clone)]
pub struct PlanReviewOutcome {
    /// Per plan (as named in the state): its loop, or `None` when it was not reviewed
    /// because an earlier plan halted the set.
    pub results: Vec<(String, Option<ReviewLoop>)>,
    /// A plan hit HARD STOP.
    pub halted: bool,
}

/// Why a plan cannot be reviewed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlanReviewError {
    #[error("{}: {reason}", path.display())]
    Plan { path: PathBuf, reason: String },
    #[error("a plan review is in progress in {} (plan {plan}): continue it with --resume", dir.display())]
    InProgress { dir: PathBuf, plan: String },
}

/// A plan that cannot be reviewed stops the loop as its own error, its message unchanged.
impl From<PlanReviewError> for ReviewError {
    fn from(error: PlanReviewError) -> ReviewError {
        ReviewError::Loop(Box::new(error))
    }
}

/// A plan file: its name relative to the root, and its text.
fn read_plan(root: &Path, plan: &Path) -> Result<(String, String), PlanReviewError> {
    let error = |reason: String| PlanReviewError::Plan { path: plan.to_path_buf(), reason };
    let full = if plan.is_absolute() { plan.to_path_buf() } else { root.join(plan) };
    let canonical = full.canonicalize().map_err(|e| error(e.to_string()))?;
    let root = root.canonicalize().map_err(|e| error(format!("the root: {e}")))?;
    let name = canonical
        .strip_prefix(&root)
        .map_err(|_| error(format!("not inside the reviewed root {}", root.display())))?
        .to_string_lossy()
        .into_owned();
    // Read by its name inside the root, from a handle on it: whatever is swapped in
    // since, no symlink leads out, no FIFO or device is read, no more than the bound.
    let base = Base::dir(&root).map_err(|e| error(format!("the root: {e}")))?;
    let text = read_text(&base, Path::new(&name), MAX_PLAN_BYTES).map_err(|e| error(e.to_string()))?;
    Ok((name, text))
}

/// A plan's front matter as JSON (`{}` when it has none or it does not parse).
fn front_matter(text: &str) -> Value {
    let Some(rest) = text.strip_prefix("---\n") else { return json!({}) };
    let Some(end) = rest.find("\n---") else { return json!({}) };
    match serde_yaml_ng::from_str::<Value>(&rest[..end]) {
        Ok(value @ Value::Object(_)) => value,
        _ => json!({}),
    }
}

/// The paths the plan's `**Files:**` lines name in backticks, without those marked
/// `(new)`.
fn named_files(text: &str) -> Vec<String> {
    let mut files = Vec::new();
    for line in text.lines() {
        let Some(at) = line.find("**Files:**") else { continue };
        let mut rest = &line[at + "**Files:**".len()..];
        while let Some(open) = rest.find('`') {
            let Some(close) = rest[open + 1..].find('`') else { break };
            let path = &rest[open + 1..open + 1 + close];
            rest = &rest[open + 2 + close..];
            let new = rest.trim_start().starts_with("(new)");
            if !path.trim().is_empty() && !new && !files.iter().any(|f| f == path) {
                files.push(path.to_string());
            }
        }
    }
    files
}

/// Stage 1 on the plan `name` with `text`: the architect's contract over the plan, and
/// a `file_exists` check of each named file on the repository.
pub fn precheck(
    runner: &Runner,
    architect: &Definition,
    root: &Path,
    name: &str,
    text: &str,
) -> Result<Vec<Value>, AbortCause> {
    let mut findings = Vec::new();
    if let Some(spec) = &architect.contract {
        let components = match &architect.source {
            Source::Embedded => None,
            Source::User(path) | Source::Project(path) => path.parent(),
        };
        let front = serde_json::to_string_pretty(&front_matter(text)).expect("JSON");
        let extra = [("front-matter.json", front.as_str())];
        let judgement = contract::judge_with(runner, &architect.name, spec, components, text, &extra)?;
        for v in judgement.violations {
            findings.push(json!({
                "id": format!("pre-{}", v.rule), "check": v.rule, "severity": v.severity.as_deref().unwrap_or("medium"),
                "file": name, "title": v.message, "description": v.message,
                "suggestion": v.suggestion.unwrap_or_default(), "auto_fixable": false, "source": "pre-check",
            }));
        }
    }
    let files = named_files(text);
    if !files.is_empty() {
        let checks: Vec<Value> = files
            .iter()
            .enumerate()
            .map(|(i, path)| json!({"id": format!("file-{i}"), "type": "file_exists", "path": path}))
            .collect();
        let doc = json!({ "assertions": checks });
        let file = crate::assertion::parse(Path::new("(the plan's files)"), doc.to_string().as_bytes())
            .map_err(|e| ContractError::Invalid { agent: architect.name.clone(), reason: e.to_string() })?;
        let dir =
            RootDir::new(root).map_err(|source| ContractError::Scratch { agent: architect.name.clone(), source })?;
        for ((_, outcome), path) in runner.check_all(&file, &dir, root).into_iter().zip(&files) {
            if outcome.status != crate::assertion::Status::Pass {
                let f = json!({
                    "check": "files_exist", "severity": "low", "file": name,
                    "title": format!("{path} does not exist in the repository"),
                    "description": format!("The plan names {path} under **Files:** without marking it (new)."),
                    "suggestion": format!("Fix the path, or mark it `{path}` (new)."), "auto_fixable": false,
                    "source": "pre-check",
                });
                findings.push(f);
            }
        }
    }
    for f in &mut findings {
        f["id"] = json!(finding_id(f));
    }
    Ok(findings)
}

/// Runs the gate over every plan in turn; stops the set at the first HARD STOP.
pub fn review(
    runner: &Runner,
    options: &PlanReviewOptions,
    out: &mut dyn Write,
) -> Result<PlanReviewOutcome, ReviewError> {
    let root = options.root.as_path();
    let workspace = Workspace::open(root)?;
    let mut state: PlanReviewState = workspace.load_state(STATE_FILE)?.unwrap_or_default();
    let plans: Vec<(String, PathBuf)> = options
        .plans
        .iter()
        .map(|p| read_plan(root, p).map(|(name, _)| (name, p.clone())))
        .collect::<Result<_, _>>()
        .map_err(ReviewError::from)?;
    if !options.resume
        && let Some((plan, _)) = state.review_loops.iter().find(|(_, l)| l.status == LoopStatus::Running)
    {
        return Err(PlanReviewError::InProgress { dir: workspace.dir().to_path_buf(), plan: plan.clone() }.into());
    }
    if !options.resume || state.correlation_id.is_empty() {
        state.correlation_id = correlation_id();
    }
    state.version = 1;
    let role = |role: Role| options.definitions.iter().find(|d| d.role == role).ok_or(AbortCause::NoAgent(role));
    let stop = |cause: AbortCause| ReviewError::CycleStopped {
        command: PlanCommand::PlanReview,
        plan: "(every plan)".into(),
        cycle: 0,
        cause,
    };
    let reviewer = role(Role::PlanReviewer).map_err(stop)?;
    let architect = role(Role::Architect).map_err(stop)?;
    let agents = Agents::new(&options.config, &options.definitions, root, &workspace, options.prompt_budget);
    let gate = PlanGate { reviewer, architect, runner, agents: &agents, workspace: &workspace, root };
    let mut results = Vec::new();
    let mut halted = false;
    for (name, path) in &plans {
        if halted {
            results.push((name.clone(), None));
            continue;
        }
        let resumed =
            state.review_loops.get(name).filter(|l| options.resume && l.status == LoopStatus::Running).cloned();
        let mut lp = resumed.unwrap_or(ReviewLoop {
            cycle: 1,
            max: options.max_cycles,
            status: LoopStatus::Running,
            findings_per_cycle: Vec::new(),
            final_verdict: None,
            findings: Vec::new(),
            last_findings: None,
            approved_sha256: None,
        });
        state.review_loops.insert(name.clone(), lp.clone());
        workspace.save_state(STATE_FILE, &state)?;
        workspace.event(&Event::ReviewLoopStart {
            plan: name,
            max_cycles: lp.max,
            correlation_id: &state.correlation_id,
        })?;
        gate.run(name, path, &mut lp, &mut state, out)?;
        halted |= lp.status == LoopStatus::Failed;
        results.push((name.clone(), Some(lp)));
    }
    if results.len() > 1 || halted {
        writeln!(out, "\nReview gate results:")?;
        for (name, lp) in &results {
            let line = match lp {
                Some(l) if l.status == LoopStatus::Passed => format!(
                    "✓ Plan {}: {} (cycle {}/{})",
                    inert(name),
                    l.final_verdict.map_or("approved", |v| if v == Verdict::Approve {
                        "approved"
                    } else {
                        "conditional"
                    }),
                    l.cycle,
                    l.max
                ),
                Some(l) => format!("✗ Plan {}: REJECTED after {} cycles", inert(name), l.cycle),
                None => format!("○ Plan {}: not reviewed", inert(name)),
            };
            writeln!(out, "{line}")?;
        }
        if halted {
            writeln!(out, "Review halted: every plan must pass review before execution.")?;
        }
    }
    Ok(PlanReviewOutcome { results, halted })
}

/// 128 random bits as a UUID-shaped string.
fn correlation_id() -> String {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).expect("the OS random generator is available");
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
}

/// What one plan's loop works with.
struct PlanGate<'a> {
    reviewer: &'a Definition,
    architect: &'a Definition,
    runner: &'a Runner,
    agents: &'a Agents<'a>,
    workspace: &'a Workspace,
    root: &'a Path,
}

impl PlanGate<'_> {
    /// The loop of one plan, from `lp.cycle`, until it passes or hits the cap.
    fn run(
        &self,
        name: &str,
        path: &Path,
        lp: &mut ReviewLoop,
        state: &mut PlanReviewState,
        out: &mut dyn Write,
    ) -> Result<(), ReviewError> {
        let cid = state.correlation_id.clone();
        loop {
            let cycle = lp.cycle;
            let (_, text) = read_plan(self.root, path).map_err(ReviewError::from)?;
            let abort = |cause: AbortCause| ReviewError::CycleStopped {
                command: PlanCommand::PlanReview,
                plan: name.into(),
                cycle,
                cause,
            };
            let mut findings = precheck(self.runner, self.architect, self.root, name, &text).map_err(abort)?;
            let mut agent_verdict = None;
            if computed(&findings) != Verdict::Reject {
                let (verdict, found) = self.ask_reviewer(name, cycle, lp, &text, &findings, &cid).map_err(abort)?;
                agent_verdict = Some(verdict);
                findings.extend(found);
            }
            let verdict = computed(&findings);
            if let Some(said) = agent_verdict.filter(|&v| v != verdict) {
                self.workspace.event(&Event::ReviewVerdictDisagreement {
                    plan: name,
                    cycle,
                    agent_verdict: said,
                    computed: verdict,
                    correlation_id: &cid,
                })?;
                writeln!(
                    out,
                    "  The reviewer said {} but its findings make it {}: the computed verdict stands.",
                    said.as_str(),
                    verdict.as_str()
                )?;
            }
            // A high finding that was high in the cycle before too is escalated.
            for f in &mut findings {
                let id = finding_id(f);
                let was_high =
                    lp.last_findings.iter().flatten().any(|p| finding_id(p) == id && p["severity"] == "high");
                if f["severity"] == "high" && was_high {
                    f["escalated"] = json!(true);
                }
            }
            let high = findings.iter().filter(|f| f["severity"] == "high").count();
            lp.findings_per_cycle.push(CycleRecord { verdict, finding_count: findings.len(), high });
            for f in &findings {
                let id = finding_id(f);
                lp.findings.retain(|g| finding_id(g) != id);
                lp.findings.push(f.clone());
            }
            let previous = lp.last_findings.replace(findings.clone());
            self.workspace.event(&Event::ReviewLoopCycle {
                plan: name,
                cycle,
                verdict,
                high_count: high,
                finding_count: findings.len(),
                correlation_id: &cid,
            })?;
            let done = match verdict {
                Verdict::Approve => {
                    writeln!(out, "✓ Plan {} review: approved (cycle {cycle}/{})", inert(name), lp.max)?;
                    Some(LoopStatus::Passed)
                }
                Verdict::Conditional => {
                    writeln!(out, "⚠ Plan {} review: conditional (cycle {cycle}/{})", inert(name), lp.max)?;
                    for f in &findings {
                        writeln!(out, "  warning: {}", describe(f))?;
                    }
                    Some(LoopStatus::Passed)
                }
                Verdict::Reject if cycle >= lp.max => {
                    writeln!(out, "✗ Plan {} review: REJECTED after {cycle} cycles", inert(name))?;
                    for f in &lp.findings {
                        writeln!(out, "  ✗ {}", describe(f))?;
                    }
                    writeln!(
                        out,
                        "Review loop exhausted after {cycle} cycles: fix the plan by hand and review it again."
                    )?;
                    Some(LoopStatus::Failed)
                }
                Verdict::Reject => None,
            };
            if let Some(status) = done {
                lp.status = status;
                lp.final_verdict = Some(verdict);
                if status == LoopStatus::Passed {
                    lp.approved_sha256 = Some(sha256_hex(&text));
                }
                state.review_loops.insert(name.to_string(), lp.clone());
                self.workspace.save_state(STATE_FILE, state)?;
                self.workspace.event(&Event::ReviewLoopEnd {
                    plan: name,
                    cycles_used: cycle,
                    final_verdict: verdict,
                    correlation_id: &cid,
                })?;
                return Ok(());
            }
            let (delta, _) = delta(previous.as_deref(), &findings);
            writeln!(
                out,
                "◆ Review loop cycle {}/{} — asking the architect to revise plan {}",
                cycle + 1,
                lp.max,
                inert(name)
            )?;
            let mut p = Prompt::new();
            p.say(&format!(
                "The review of the plan `{name}` (relative to your working directory) rejected it in cycle {cycle} of \
                 {}. Revise that file in place to resolve these findings (JSON); keep its front matter and scope.",
                lp.max
            ));
            p.fence("findings", &serde_json::to_string_pretty(&delta).expect("JSON"));
            self.agents.ask(self.architect, cycle, p).map_err(abort)?;
            lp.cycle += 1;
            state.review_loops.insert(name.to_string(), lp.clone());
            self.workspace.save_state(STATE_FILE, state)?;
        }
    }

    /// Stage 2: the reviewer's verdict and findings, through its contract.
    fn ask_reviewer(
        &self,
        name: &str,
        cycle: u32,
        lp: &ReviewLoop,
        text: &str,
        precheck: &[Value],
        cid: &str,
    ) -> Result<(Verdict, Vec<Value>), AbortCause> {
        let mut p = Prompt::new();
        p.say(&format!("Review the plan `{name}`, cycle {cycle} of {}.", lp.max));
        p.fence("plan", text);
        if !precheck.is_empty() {
            p.say("The deterministic pre-check found these (do not repeat them):");
            p.fence("precheck-findings", &serde_json::to_string_pretty(precheck).expect("JSON"));
        }
        if let Some(last) = &lp.last_findings {
            p.say("The findings of the cycle before (keep an id when a finding persists):");
            p.fence("previous-findings", &serde_json::to_string_pretty(last).expect("JSON"));
        }
        let spec = self.reviewer.contract.clone().unwrap_or_default();
        let gate = Gate {
            wants: "plan review (a verdict with findings)",
            again: "Answer again with only the JSON object {\"verdict\", \"findings\"}; a reject needs findings.",
            retries: spec.retries.unwrap_or(1),
        };
        let answer = gate.ask(self.agents, self.reviewer, cycle, p, |answer, attempt| {
            let fail = |reason: String| {
                let _ = self.workspace.event(&Event::ReviewParseFailure {
                    plan: name,
                    cycle,
                    attempt,
                    reason: &reason,
                    correlation_id: cid,
                });
                Rejection::Again(reason)
            };
            let value = parse_answer(answer).map_err(fail)?;
            let judgement = contract::judge(self.runner, &self.reviewer.name, &spec, None, &value.to_string())
                .map_err(|e| Rejection::Stop(e.into()))?;
            if !judgement.met() {
                return Err(fail(judgement.explain()));
            }
            Ok(value)
        })?;
        let verdict = Verdict::parse(answer.value["verdict"].as_str().unwrap_or("")).unwrap_or(Verdict::Reject);
        let findings = answer.value["findings"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .map(|mut f| {
                f["id"] = json!(finding_id(&f));
                f["source"] = json!("reviewer");
                f
            })
            .collect();
        Ok((verdict, findings))
    }
}

/// `[sev] title: description`, inert.
fn describe(f: &Value) -> String {
    let escalated = if f["escalated"] == true { " (escalated)" } else { "" };
    format!(
        "[{}] {}: {}{escalated}",
        inert(f["severity"].as_str().unwrap_or("?")),
        inert(f["title"].as_str().unwrap_or("")),
        inert(f["description"].as_str().unwrap_or(""))
    )
}

/// What `--check` found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// The plan is as it was approved.
    Unchanged,
    /// The plan changed since it was approved.
    Changed,
    /// No approval is recorded for it.
    Never,
}

/// Whether `plan` changed since its review passed.
pub fn check(root: &Path, plan: &Path) -> Result<Approval, ReviewError> {
    let (name, text) = read_plan(root, plan).map_err(ReviewError::from)?;
    let workspace = Workspace::open(root)?;
    let state: PlanReviewState = workspace.load_state(STATE_FILE)?.unwrap_or_default();
    Ok(match state.review_loops.get(&name).and_then(|l| l.approved_sha256.as_deref()) {
        None => Approval::Never,
        Some(sha) if sha == sha256_hex(&text) => Approval::Unchanged,
        Some(_) => Approval::Changed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_that_cannot_be_reviewed_stops_with_its_own_message() {
        let error = ReviewError::from(PlanReviewError::Plan { path: "plans/a.md".into(), reason: "gone".into() });
        assert!(matches!(&error, ReviewError::Loop(e) if e.is::<PlanReviewError>()));
        assert_eq!(error.to_string(), "plans/a.md: gone");
    }

    #[test]
    fn the_verdict_is_computed_from_the_findings() {
        assert_eq!(computed(&[]), Verdict::Approve);
        assert_eq!(computed(&[json!({"severity": "low"})]), Verdict::Conditional);
        assert_eq!(computed(&[json!({"severity": "low"}), json!({"severity": "high"})]), Verdict::Reject);
    }

    #[test]
    fn named_files_skip_new_ones() {
        let text = "**Files:** `a.rs`, `b.rs` (new), `a.rs`\nno files here `c.rs`\n**Files:** `d/e.md`";
        assert_eq!(named_files(text), ["a.rs", "d/e.md"]);
    }
}
