//! `reviewhost plan` and output contracts: the plansmith phase cases judged by the
//! embedded contracts, a project's own contract rule as a custom validator component,
//! and scripted-agent runs (`tests/agents/scripted_agent.py`) for every end state.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use reviewhost::review::definitions::{self, Source};
use reviewhost::review::plan::{self, Machine, PlanPhase, Step};
use reviewhost::sandbox::Limits;
use serde_json::{Value, json};

use crate::components;
use crate::support::*;

fn phase_named(name: &str) -> PlanPhase {
    serde_json::from_value(json!(name)).unwrap()
}

/// What a step says, as the cases' `expected` and `expected_reason_contains` read it:
/// (block|advance|complete, the violations or the next phase in capitals).
fn describe(step: &Step) -> (&'static str, String) {
    match step {
        Step::Block(judgement) => ("block", judgement.explain()),
        Step::Advance(next) => ("advance", next.as_str().to_uppercase()),
        Step::Complete => ("complete", String::new()),
    }
}

#[test]
fn the_plansmith_phase_cases_are_judged_by_the_embedded_contracts() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/review-loops/plansmith/phase-cases.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {} is not there (the shared corpus sits beside the repository)", path.display());
        return;
    };
    let corpus: Value = serde_json::from_str(&text).unwrap();
    // The corpus's state: 2 refine rounds, PLAN_OK, the seven sections (embedded).
    assert_eq!(
        corpus["state"]["phases"],
        json!(plan::phases(2).iter().map(|p| p.as_str()).collect::<Vec<_>>().join(","))
    );
    let definitions = definitions::load(&[]).unwrap();
    let machine = Machine { phases: plan::phases(2), definitions: &definitions, retries: None };
    let runner = runner(Limits::default(), 2);
    let cases: Vec<&Value> = corpus["cases"]
        .as_array()
        .unwrap()
        .iter()
        .chain(corpus["extra_adversarial_cases"].as_array().unwrap())
        .collect();
    assert_eq!(cases.len(), 23);
    let mut failures = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        let index = case["phase_index"].as_u64().unwrap() as u32;
        assert_eq!(machine.phase_at(index), phase_named(case["phase"].as_str().unwrap()), "case {n}");
        let answer = case["last_assistant_message"].as_str().unwrap();
        let step = machine.judge(&runner, index, answer).unwrap();
        let (got, reason) = describe(&step);
        // Every case expects the fixed behaviour. Those that pin a defect of the original
        // say what the original did (`upstream_behavior`); the fixes are:
        // - a critique that rewrites the plan is blocked (the original advances);
        // - three paths on one line are three files explored (the original counts lines
        //   and blocks);
        // - a bare PLAN_OK is no promise: it is judged as a failed completion, sections
        //   missing and the tag not on the last line (the original took it as the promise).
        let expected = case["expected"].as_str().unwrap();
        let wanted = case["expected_reason_contains"].as_str().unwrap_or("");
        if got != expected || !reason.contains(wanted) {
            failures.push(format!(
                "case {n} ({}): expected {expected} with {wanted:?}, got {got}: {reason}",
                case.get("upstream_test").or(case.get("upstream_behavior")).unwrap()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_completion_promise_counts_only_alone_on_the_last_line() {
    let definitions = definitions::load(&[]).unwrap();
    let machine = Machine { phases: plan::phases(1), definitions: &definitions, retries: None };
    let runner = runner(Limits::default(), 2);
    let plan_text = "## Goal\ng\n## Scope\ns\n## Non-Scope\nn\n## Steps\n1. src/a.rs\n## Verification\nv\n## Risks\nr\n## Open Questions\nq\n";
    let last = 5; // the final revise of one round
    let judge = |answer: &str| describe(&machine.judge(&runner, last, answer).unwrap());
    assert_eq!(judge(&format!("{plan_text}\n<promise>PLAN_OK</promise>\n\n")).0, "complete");
    // Prose about the promise, the tag mid-answer, or a bare word: refused, not complete.
    for answer in [
        format!("{plan_text}I will write <promise>PLAN_OK</promise> when done.\n"),
        format!("<promise>PLAN_OK</promise>\n{plan_text}"),
        format!("{plan_text}PLAN_OK"),
        format!("{plan_text}<promise>PLAN_OK</promise> done"),
    ] {
        let (got, reason) = judge(&answer);
        assert_eq!(got, "block", "{answer}");
        assert!(reason.contains("promise-last-line"), "{reason}");
    }
    // Another tag is refused in a revision too; no promise at all moves on.
    assert_eq!(judge(&format!("{plan_text}<promise>DONE</promise>")).0, "block");
    assert_eq!(judge(plan_text), ("advance", "ITERATE".to_string()));
}

#[test]
fn a_project_contract_rule_written_as_a_custom_validator_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents");
    std::fs::create_dir(&agents).unwrap();
    std::fs::copy(components::EXAMPLE_LICENSE_HEADER, agents.join("title.wasm")).unwrap();
    let embedded = definitions::load(&[]).unwrap();
    let draft = embedded.iter().find(|d| d.name == "plan-draft").unwrap();
    // The project's draft: the embedded contract plus a rule of its own, a validator
    // component found beside the definition file.
    let mut contract = serde_json::to_value(draft.contract.as_ref().unwrap()).unwrap();
    contract["rules"].as_array_mut().unwrap().push(json!({
        "id": "plan-title", "type": "custom", "component": "title.wasm",
        "description": "The plan starts with the line `# Plan`",
        "config": {"files": ["answer.md"], "header": "# Plan", "lines": 1},
    }));
    let front = json!({"name": "plan-draft", "role": "planner", "tools": "Read, Grep", "contract": contract});
    let text = format!("---\n{}---\n\n{}", serde_yaml_ng::to_string(&front).unwrap(), draft.body);
    std::fs::write(agents.join("plan-draft.md"), text).unwrap();
    let definitions = definitions::load(&[(&agents, Source::Project)]).unwrap();
    let machine = Machine { phases: plan::phases(1), definitions: &definitions, retries: None };
    let runner = runner(Limits::default(), 2);
    let sections = "## Goal\ng\n## Scope\ns\n## Non-Scope\nn\n## Steps\n1. x\n## Verification\nv\n## Risks\nr\n## Open Questions\nq\n";
    let draft_index = 3;
    match machine.judge(&runner, draft_index, sections).unwrap() {
        Step::Block(j) => {
            assert_eq!(j.violations.len(), 1, "{j:?}");
            assert_eq!(j.violations[0].rule, "plan-title");
            assert!(j.violations[0].message.starts_with("The plan starts with the line `# Plan`"), "{j:?}");
        }
        other => panic!("the custom rule was not applied: {other:?}"),
    }
    let titled = format!("# Plan\n{sections}");
    assert!(matches!(machine.judge(&runner, draft_index, &titled).unwrap(), Step::Advance(PlanPhase::Critique)));

    // A rule that cannot be judged (here, a component that is not there) stops the
    // loop rather than passing or blaming the answer.
    std::fs::remove_file(agents.join("title.wasm")).unwrap();
    let e = machine.judge(&runner, draft_index, &titled).unwrap_err().to_string();
    assert!(e.contains("rule 'plan-title' could not be judged"), "{e}");

    // A contract that is not well-formed is refused when the definitions are read.
    let broken =
        json!({"name": "plan-draft", "role": "planner", "contract": {"rules": [{"id": "r", "type": "grep_match"}]}});
    std::fs::write(
        agents.join("plan-draft.md"),
        format!("---\n{}---\nbody\n", serde_yaml_ng::to_string(&broken).unwrap()),
    )
    .unwrap();
    let e = definitions::load(&[(&agents, Source::Project)]).unwrap_err().to_string();
    assert!(e.contains("plan-draft.md") && e.contains("`contract`"), "{e}");
}

#[test]
fn a_json_contract_refuses_prose_and_names_each_schema_violation() {
    use reviewhost::review::contract::{self, ContractSpec};
    let spec: ContractSpec = serde_yaml_ng::from_str(
        "schema:\n  type: array\n  items: {type: object, required: [id, severity], properties: {\
         id: {type: string, pattern: '^FD-[0-9]{3}$'}, severity: {enum: [high, low]}}}\n\
         rules:\n  - {id: one-finding, type: grep_match, description: exactly one finding, \
         command: 'grep -cF \"{\" answer.json', expected: 'count:1'}\n",
    )
    .unwrap();
    spec.validate().unwrap();
    let runner = runner(Limits::default(), 2);
    let judge = |answer: &str| contract::judge(&runner, "reviewer", &spec, None, answer).unwrap();
    let good = judge("```json\n[{\"id\": \"FD-001\", \"severity\": \"high\"}]\n```");
    assert!(good.met(), "{:?}", good.violations);
    assert_eq!(good.json.unwrap()[0]["id"], "FD-001");
    let prose = judge("Here are my findings:\n[]");
    assert_eq!(prose.violations[0].rule, "schema");
    assert!(prose.violations[0].message.contains("must be JSON and nothing else"), "{:?}", prose.violations);
    let wrong = judge(r#"[{"id": "F-1", "severity": "urgent"}, {"id": "FD-002"}]"#);
    let rules: Vec<&str> = wrong.violations.iter().map(|v| v.rule.as_str()).collect();
    // The rules run over answer.json as well: two findings where one is allowed.
    assert_eq!(rules, ["schema at '/0/id'", "schema at '/0/severity'", "schema at '/1'", "one-finding"], "{wrong:?}");
    assert!(wrong.explain().contains("- schema at '/1': \"severity\" is a required property"), "{}", wrong.explain());
}

// ---- Scripted runs ----

const PLAN: &str = "## Goal\nRate-limit logins.\n\n## Scope\nsrc/auth/login.ts\n\n## Non-Scope\nSignup.\n\n## Steps\n1. Add a limiter to src/auth/login.ts\n2. Test it in tests/login.test.ts\n\n## Verification\nnpm test\n\n## Risks\nLockouts.\n\n## Open Questions\nLimits per IP or per account?\n";

fn say(text: &str) -> Value {
    json!({"response": text})
}

fn understand() -> Value {
    say(
        "1. The problem: logins can be brute-forced.\n2. Success: 5 failures lock for a minute.\n3. Constraint: no new service.\n",
    )
}

fn explore() -> Value {
    say("Read src/auth/login.ts (the handler) and src/auth/session.ts (sessions).\n")
}

fn alternatives() -> Value {
    say(
        "1. A limiter in the handler. Pros: simple. Cons: per process.\n2. A shared store. Trade-off: a dependency.\nI recommend option 1.\n",
    )
}

fn critique() -> Value {
    let points: Vec<String> =
        (1..=8).map(|p| format!("{p}. P{p}: {} — evidence", if p % 3 == 0 { "FAIL" } else { "PASS" })).collect();
    say(&points.join("\n"))
}

/// A repository with `src/auth/login.ts`, the agents played by `script`.
struct Repo(Scripted);

impl std::ops::Deref for Repo {
    type Target = Scripted;
    fn deref(&self) -> &Scripted {
        &self.0
    }
}

fn repo(script: Value) -> Repo {
    let repo = Repo(Scripted::new(&script));
    repo.write("src/auth/login.ts", "export function login() {}\n");
    repo
}

impl Repo {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = self.0.command("plan");
        command.arg("Add rate limiting to the login endpoint").arg("--root").arg(&self.root).args(args);
        command
    }

    fn plan(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn state(&self) -> Value {
        self.0.state("plan-state.json")
    }
}

fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

#[test]
fn a_plan_completes_after_its_draft_is_asked_again_with_the_violation() {
    let without_risks = PLAN.replace("## Risks\nLockouts.\n\n", "");
    let repo = repo(json!({
        "plan-understand": [understand()],
        "plan-explore": [explore()],
        "plan-alternatives": [alternatives()],
        "plan-draft": [say(&without_risks), say(PLAN)],
        "plan-critique": [critique()],
        "plan-revise": [say(PLAN), say(&format!("{PLAN}\n<promise>PLAN_OK</promise>\n"))],
    }));
    // A cancel request the repository ships is not this run's.
    std::fs::create_dir_all(repo.root.join(".reviewhost")).unwrap();
    std::fs::write(repo.root.join(".reviewhost/cancel"), "").unwrap();
    let out = repo.plan(&[]);
    assert_eq!(code(&out), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("Plan: completed after 8 phases and 9 agent calls."), "{}", stdout(&out));

    // The draft was asked again with the exact violation, and the request re-injected.
    assert_eq!(repo.calls("plan-draft"), 2);
    let again = repo.prompt("plan-draft", 2);
    assert!(again.contains("section-risks: Missing sections: `## Risks`"), "{again}");
    assert!(again.contains("Add rate limiting to the login endpoint"), "{again}");
    // The non-final revision is told not to finish; the final one how to.
    assert!(repo.prompt("plan-revise", 1).contains("do NOT write the completion promise"));
    assert!(repo.prompt("plan-revise", 2).contains("This is the final revision"));
    assert!(repo.prompt("plan-critique", 1).contains("<untrusted-plan nonce="));

    // The saved plan: front matter, the body without the promise, its digest.
    let saved = std::fs::read_to_string(repo.root.join(".reviewhost/plan.md")).unwrap();
    assert!(saved.starts_with("---\ngenerated_at: "), "{saved}");
    assert!(saved.contains("\nend_state: completed\nphases_run: 8\n"), "{saved}");
    assert!(saved.ends_with(&format!("---\n{PLAN}")), "{saved}");
    assert!(plan::verify_saved(&repo.root.join(".reviewhost/plan.md")).unwrap());

    let state = repo.state();
    assert_eq!((state["status"].as_str(), state["end_state"].as_str()), (Some("ended"), Some("completed")));
    assert_eq!(state["accepted"][3]["attempts"], 2);
    let events = repo.events();
    let names: Vec<&str> = events.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(names.iter().filter(|n| **n == "phase_start").count(), 8);
    let draft_checks: Vec<&Value> =
        events.iter().filter(|e| e["event"] == "contract_result" && e["phase"] == "draft").collect();
    assert_eq!(draft_checks.len(), 2);
    assert_eq!(draft_checks[0]["met"], false);
    assert_eq!(draft_checks[0]["violations"][0]["rule"], "section-risks");
    assert_eq!(draft_checks[1]["met"], true);
    assert_eq!(events.last().unwrap()["event"], "plan_end");
    assert_eq!(events.last().unwrap()["end_state"], "completed");
}

#[test]
fn a_plan_ends_when_its_phases_run_out() {
    let repo = repo(json!({
        "plan-understand": [understand()],
        "plan-explore": [explore()],
        "plan-alternatives": [alternatives()],
        "plan-draft": [say(PLAN)],
        "plan-critique": [critique()],
        // Never final: revise, then iterate, without the promise.
        "plan-revise": [say(PLAN)],
    }));
    let out = repo.plan(&["--refine", "1", "--max-phases", "7"]);
    assert_eq!(code(&out), Some(1), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("Plan: max_phases_reached after 7 phases"), "{}", stdout(&out));
    assert_eq!(repo.calls("plan-revise"), 2, "revise, then one iterate");
    let phases: Vec<String> = repo
        .events()
        .iter()
        .filter(|e| e["event"] == "phase_start")
        .map(|e| e["phase"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(phases.last().unwrap(), "iterate");
    // The latest accepted plan is saved, marked as not completed.
    let saved = std::fs::read_to_string(repo.root.join(".reviewhost/plan.md")).unwrap();
    assert!(saved.contains("end_state: max_phases_reached"), "{saved}");
}

#[test]
fn a_phase_that_keeps_missing_its_contract_ends_the_run_at_its_retry_cap() {
    // The original loops forever on this: an understand phase that writes the plan.
    let repo = repo(json!({"plan-understand": [say("## Goal\n1. a\n2. b\n3. c problem\n")]}));
    let out = repo.plan(&["--retries", "2"]);
    assert_eq!(code(&out), Some(3), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(repo.calls("plan-understand"), 3);
    assert!(stdout(&out).contains("no answer met the contract in 3 attempts"), "{}", stdout(&out));
    assert!(stdout(&out).contains("Do NOT write a plan"), "{}", stdout(&out));
    assert_eq!(repo.state()["end_state"], "retries_exhausted");
    assert!(!repo.root.join(".reviewhost/plan.md").exists(), "no plan was ever accepted");
}

#[test]
fn every_agent_call_counts_against_max_calls() {
    let repo = repo(json!({
        "plan-understand": [understand()],
        "plan-explore": [say("I looked around.")],
    }));
    let out = repo.plan(&["--max-calls", "3"]);
    assert_eq!(code(&out), Some(4), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!((repo.calls("plan-understand"), repo.calls("plan-explore")), (1, 2));
    assert_eq!(repo.state()["end_state"], "call_limit_reached");
    assert_eq!(repo.state()["calls"], 3);
}

/// Waits until `events.jsonl` has an `agent_start` of `agent`.
fn wait_for_agent(repo: &Repo, agent: &str) {
    let started = Instant::now();
    while !repo.events().iter().any(|e| e["event"] == "agent_start" && e["agent"] == agent) {
        assert!(started.elapsed() < Duration::from_secs(60), "{agent} never started");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_plan_is_cancelled_by_its_cancel_command_or_by_ctrl_c() {
    let script = json!({
        "plan-understand": [understand()],
        "plan-explore": [{"response": "Read src/auth/login.ts and src/auth/session.ts.", "sleep": 2.0}],
        "plan-alternatives": [{"response": "never asked", "sleep": 30.0}],
    });

    // `--cancel` from another process: the explore call finishes, nothing more starts.
    let repo1 = repo(script.clone());
    let running = repo1.command(&[]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    wait_for_agent(&repo1, "plan-explore");
    let cancel = reviewhost().args(["plan", "--cancel", "--root"]).arg(&repo1.root).output().unwrap();
    assert_eq!(code(&cancel), Some(0), "{}", stderr(&cancel));
    let out = running.wait_with_output().unwrap();
    assert_eq!(code(&out), Some(130), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(repo1.calls("plan-alternatives"), 0);
    assert_eq!(repo1.state()["end_state"], "cancelled");

    // Ctrl-C: the running agent is killed at once, the run ends as cancelled.
    let repo2 = repo(script);
    let mut running = repo2.command(&[]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    wait_for_agent(&repo2, "plan-alternatives");
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    // SAFETY: signalling the child this test started.
    unsafe { libc::kill(running.id() as i32, libc::SIGINT) };
    let status = running.wait().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10), "the 30 s agent was not killed");
    assert_eq!(status.code(), Some(130));
    assert_eq!(repo2.state()["end_state"], "cancelled");
    let end = repo2.events().into_iter().last().unwrap();
    assert_eq!((end["event"].as_str(), end["end_state"].as_str()), (Some("plan_end"), Some("cancelled")));
}

#[test]
fn a_plan_refuses_bad_input_with_exit_2() {
    let repo = repo(json!({}));
    let out = repo.plan(&["--refine", "5"]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    let empty = reviewhost().args(["plan", " ", "--root"]).arg(&repo.root).output().unwrap();
    assert_eq!(code(&empty), Some(2));
    assert!(stderr(&empty).contains("the request is empty"), "{}", stderr(&empty));
    // A failed agent call stops the run without an end state.
    let out = repo.plan(&[]);
    assert_eq!(code(&out), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("plan stopped in phase 1 (understand)"), "{}", stderr(&out));
    assert_eq!(repo.state()["status"], "failed");
}

/// A run stopped at its call limit continues with `--resume` from the phase it stopped
/// in, with its request and accepted answers; a completed run is not resumed.
#[test]
fn a_plan_stopped_at_its_call_limit_is_resumed() {
    let repo = repo(json!({
        "plan-understand": [understand()],
        "plan-explore": [explore()],
        "plan-alternatives": [alternatives()],
        "plan-draft": [say(PLAN)],
        "plan-critique": [critique()],
        "plan-revise": [say(PLAN), say(&format!("{PLAN}\n<promise>PLAN_OK</promise>\n"))],
    }));
    let out = repo.plan(&["--max-calls", "2"]);
    assert_eq!(code(&out), Some(4), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(
        (repo.state()["end_state"].as_str(), repo.state()["index"].as_u64()),
        (Some("call_limit_reached"), Some(2))
    );
    let resume = |args: &[&str]| {
        repo.0.command("plan").arg("--resume").arg("--root").arg(&repo.root).args(args).output().unwrap()
    };
    let out = resume(&[]);
    assert_eq!(code(&out), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("Plan: completed after 8 phases and 8 agent calls."), "{}", stdout(&out));
    assert_eq!(
        (repo.calls("plan-understand"), repo.calls("plan-explore")),
        (1, 1),
        "accepted phases are not asked again"
    );
    let alternatives = repo.prompt("plan-alternatives", 1);
    assert!(alternatives.contains("Add rate limiting to the login endpoint"), "the request is the stopped run's");
    assert!(alternatives.contains("src/auth/session.ts"), "the accepted answers are given: {alternatives}");
    // Nothing to resume once it completed.
    let out = resume(&[]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("there is no review to resume"), "{}", stderr(&out));
}
