//! `reviewhost plan-gate` (seed 004), every branch with scripted agents
//! (`tests/agents/scripted_agent.py`): conformance is the deterministic validator, the
//! critic, the overviewer and the author are scripted; each run's exit status,
//! messages, state and events are checked.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::support::*;

const PLAN: &str = TUGPLAN;

struct Repo(Scripted);

impl std::ops::Deref for Repo {
    type Target = Scripted;
    fn deref(&self) -> &Scripted {
        &self.0
    }
}

/// A repository with `src/auth.rs` (40 lines) and, when given, `plans/plan.md`.
fn repo(script: Value, plan: Option<&str>) -> Repo {
    let repo = Repo(Scripted::new(&script));
    repo.write("src/auth.rs", &(1..=40).map(|n| format!("// line {n}\n")).collect::<String>());
    std::fs::create_dir_all(repo.root.join("plans")).unwrap();
    if let Some(plan) = plan {
        repo.write("plans/plan.md", plan);
    }
    repo
}

impl Repo {
    fn gate(&self, args: &[&str]) -> Output {
        self.0
            .command("plan-gate")
            .args(["plans/plan.md", "--root"])
            .arg(&self.root)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    }

    fn events(&self, name: &str) -> Vec<Value> {
        self.0.events().into_iter().filter(|e| e["event"] == name).collect()
    }

    fn state(&self) -> Value {
        self.0.state("plan-gate-state.json")
    }
}

fn critic(findings: Value, recommendation: &str) -> Value {
    let ratings = json!({"internal_consistency": "PASS", "technical_soundness": "PASS", "implementability": "PASS",
                         "completeness": "PASS", "risk_feasibility": "PASS"});
    let answer = json!({"findings": findings, "assessment": {"quality": "Sound. Details follow."},
                        "clarifying_questions": [], "area_ratings": ratings, "recommendation": recommendation});
    json!({"response": answer.to_string()})
}

fn critic_high(id: &str) -> Value {
    json!({"id": id, "severity": "HIGH", "area": "technical_soundness", "title": "no reset",
           "description": "a locked account stays locked", "references": ["[D01]"], "suggestion": "reset after a minute"})
}

fn overviewer(findings: Value, questions: Value, recommendation: &str) -> Value {
    let answer = json!({"findings": findings, "clarifying_questions": questions,
                        "assessment": "The plan is close. One hole remains.", "recommendation": recommendation});
    json!({"response": answer.to_string()})
}

fn of(id: &str, severity: &str, file: &str, lines: [u64; 2]) -> Value {
    json!({"id": id, "severity": severity, "title": "the counter is not persisted", "description": "a restart resets it",
           "code_evidence": {"file": file, "line_start": lines[0], "line_end": lines[1], "claim": "in memory only"},
           "suggestion": "persist it"})
}

fn author(plan: &str) -> Value {
    json!({"response": "Revised.", "edits": {"plans/plan.md": plan}})
}

fn revised() -> String {
    PLAN.replace("Count failures per account.", "Count failures per account, reset after a minute.")
}

#[test]
fn a_plan_approved_the_first_time() {
    let repo = repo(
        json!({"plan-critic": [critic(json!([]), "APPROVE")], "plan-overviewer": [overviewer(json!([]), json!([]), "APPROVE")]}),
        Some(PLAN),
    );
    let out = repo.gate(&[]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("**Plan** — Revising existing plan at plans/plan.md"), "{text}");
    assert!(
        text.contains("**reviewhost:conformance**(Complete)\n  Recommendation: APPROVE\n  Errors: 0 | Warnings: 0"),
        "{text}"
    );
    assert!(
        text.contains("**reviewhost:plan-overviewer**(Complete)\n  Recommendation: APPROVE\n  Findings: 0\n  Clarifying questions: 0\n  Assessment: The plan is close."),
        "{text}"
    );
    assert!(
        text.contains("**Plan**(Complete)\n  Plan: plans/plan.md\n  Steps: 1 | Decisions: 1\n  Revisions: 0"),
        "{text}"
    );
    assert_eq!(repo.calls("plan-author"), 0, "an existing plan is reviewed as it is");
    // The overviewer got the plan's path and nothing else.
    let asked = repo.prompt("plan-overviewer", 1);
    assert!(asked.starts_with("{\"plan_path\": \"plans/plan.md\"}"), "{asked}");
    assert!(!asked.contains("untrusted-"), "no history, no feedback: {asked}");
    let state = repo.state();
    assert_eq!(state["status"], "approved");
    assert_eq!(state["approved_sha256"].as_str().unwrap(), sha256(&repo.root.join("plans/plan.md")));
    let end = &repo.events("gate_end")[0];
    assert_eq!((end["status"].as_str(), end["revisions"].as_u64()), (Some("approved"), Some(0)));
}

#[test]
fn a_critic_revise_goes_to_the_author_then_the_re_review_approves() {
    let repo = repo(
        json!({
            "plan-critic": [critic(json!([critic_high("F1")]), "REVISE"), critic(json!([]), "APPROVE")],
            "plan-author": [author(&revised())],
            "plan-overviewer": [overviewer(json!([]), json!([]), "APPROVE")],
        }),
        Some(PLAN),
    );
    let out = repo.gate(&[]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    let author = repo.prompt("plan-author", 1);
    assert!(
        author.contains("<untrusted-critic-feedback") && author.contains("a locked account stays locked"),
        "{author}"
    );
    assert!(!author.contains("<untrusted-conformance-feedback"), "{author}");
    // The re-review is given its earlier critique (no session is resumed).
    let again = repo.prompt("plan-critic", 2);
    assert!(again.contains("This is a re-review") && again.contains("<untrusted-previous-critique"), "{again}");
    assert!(stdout(&out).contains("**reviewhost:plan-critic**(Complete, revision 1)"), "{}", stdout(&out));
    let rounds: Vec<(String, String)> = repo
        .events("gate_round")
        .iter()
        .map(|e| (e["conformance"].as_str().unwrap().into(), e["critic"].as_str().unwrap().into()))
        .collect();
    assert_eq!(rounds, [("APPROVE".into(), "REVISE".into()), ("APPROVE".into(), "APPROVE".into())]);
    assert_eq!(repo.state()["revision_count"], 1);
}

#[test]
fn a_conformance_escalate_drops_the_critics_result_and_waits_for_a_decision() {
    let broken = PLAN.replace("| Owner | Team |\n", "");
    let repo = repo(
        json!({
            "plan-critic": [critic(json!([critic_high("F1")]), "REVISE"), critic(json!([]), "APPROVE")],
            "plan-author": [author(PLAN)],
            "plan-overviewer": [overviewer(json!([]), json!([]), "APPROVE")],
        }),
        Some(&broken),
    );
    // No flag and no terminal: the run stops for a person.
    let out = repo.gate(&[]);
    assert_eq!(out.status.code(), Some(4), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("Conformance found errors in the plan's structure"), "{}", stdout(&out));
    assert!(stdout(&out).contains("--resume --decision start-over|accept|abort"), "{}", stdout(&out));
    let state = repo.state();
    assert_eq!(
        (state["status"].as_str(), state["pending"].as_str()),
        (Some("needs_decision"), Some("conformance_escalate"))
    );
    assert!(state["critic_feedback"].is_null(), "the critic's result is dropped for that round");
    assert_eq!(state["conformance_feedback"]["validation_result"]["issues"][0]["code"], "E002");
    // Start over: the author revises from conformance's feedback only.
    let out = repo.gate(&["--resume", "--decision", "start-over"]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    let author = repo.prompt("plan-author", 1);
    assert!(
        author.contains("<untrusted-conformance-feedback") && !author.contains("<untrusted-critic-feedback"),
        "{author}"
    );
    let escalations = repo.events("gate_escalation");
    assert_eq!(escalations.len(), 2);
    assert_eq!((escalations[0]["decision"].is_null(), escalations[1]["decision"].as_str()), (true, Some("start-over")));
}

#[test]
fn the_same_high_findings_two_rounds_running_escalate_as_stagnation() {
    let repo = repo(
        json!({
            "plan-critic": [critic(json!([critic_high("F1")]), "REVISE")],
            "plan-author": [author(&revised())],
        }),
        Some(PLAN),
    );
    let out = repo.gate(&["--on-escalate", "accept"]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("The critic raised the same HIGH findings after a revision"), "{}", stdout(&out));
    assert!(stdout(&out).contains("**Plan**(Complete — accepted as-is)"), "{}", stdout(&out));
    assert_eq!((repo.calls("plan-critic"), repo.calls("plan-author"), repo.calls("plan-overviewer")), (2, 1, 0));
    assert_eq!(repo.state()["status"], "accepted");
    assert_eq!(repo.events("gate_escalation")[0]["escalation"], "stagnation");
}

#[test]
fn an_overviewer_revise_goes_to_the_author_then_a_fresh_overviewer_approves() {
    let repo = repo(
        json!({
            "plan-critic": [critic(json!([]), "APPROVE")],
            "plan-overviewer": [overviewer(json!([of("OF1", "HIGH", "src/auth.rs", [3, 9])]), json!([]), "REVISE"),
                                overviewer(json!([]), json!([]), "APPROVE")],
            "plan-author": [author(&revised())],
        }),
        Some(PLAN),
    );
    let out = repo.gate(&[]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    let author = repo.prompt("plan-author", 1);
    assert!(author.contains("<untrusted-overviewer-feedback") && author.contains("OF1"), "{author}");
    assert!(!author.contains("critic-feedback") && !author.contains("conformance-feedback"), "{author}");
    let second = repo.prompt("plan-overviewer", 2);
    assert!(!second.contains("OF1") && !second.contains("untrusted-"), "fresh: {second}");
    assert!(stdout(&out).contains("Recommendation: REVISE\n  Findings: 1 (1 HIGH)"), "{}", stdout(&out));
    assert_eq!(repo.state()["overviewer_round"], 2);
}

#[test]
fn three_overviewer_revise_rounds_escalate_and_on_escalate_answers() {
    let repo = repo(
        json!({
            "plan-critic": [critic(json!([]), "APPROVE")],
            "plan-overviewer": [overviewer(json!([of("OF1", "HIGH", "src/auth.rs", [3, 9])]), json!([]), "REVISE")],
            "plan-author": [author(&revised())],
        }),
        Some(PLAN),
    );
    let out = repo.gate(&["--on-escalate", "abort"]);
    assert_eq!(out.status.code(), Some(1), "{}\n{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("Overviewer still has concerns after 3 rounds. How should we proceed?"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("**Plan** — Aborted by user"), "{}", stdout(&out));
    assert_eq!((repo.calls("plan-overviewer"), repo.calls("plan-author")), (3, 2));
    assert_eq!(repo.state()["status"], "aborted");
    // Start over is not offered there.
    let waiting = self::repo(
        json!({"plan-critic": [critic(json!([]), "APPROVE")],
               "plan-overviewer": [overviewer(json!([of("OF1", "HIGH", "src/auth.rs", [3, 9])]), json!([]), "REVISE")],
               "plan-author": [author(&revised())]}),
        Some(PLAN),
    );
    let out = waiting.gate(&[]);
    assert_eq!(out.status.code(), Some(4));
    assert!(stdout(&out).contains("--resume --decision accept|abort"), "{}", stdout(&out));
}

#[test]
fn a_contradictory_example_is_recomputed_to_revise() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/review-loops/tugplug/contract-examples/overviewer-agent-example-2.json");
    let Ok(text) = std::fs::read_to_string(&example) else {
        eprintln!("skipped: {} is not there (the shared corpus sits beside the repository)", example.display());
        return;
    };
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (answer["findings"][0]["severity"].as_str(), answer["recommendation"].as_str()),
        (Some("HIGH"), Some("APPROVE"))
    );
    let repo = repo(
        json!({
            "plan-critic": [critic(json!([]), "APPROVE")],
            "plan-overviewer": [{"response": text}, overviewer(json!([]), json!([]), "APPROVE")],
            "plan-author": [author(&revised())],
        }),
        Some(PLAN),
    );
    // The file it cites, so the citation checks out.
    let cited = repo.root.join("tugrust/crates/tugtool-core/src/commit.rs");
    std::fs::create_dir_all(cited.parent().unwrap()).unwrap();
    std::fs::write(&cited, (1..=40).map(|n| format!("// {n}\n")).collect::<String>()).unwrap();
    // Its clarifying question goes to the author unanswered (`block`): no person here.
    let out = repo.gate(&["--questions", "block"]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("Recommendation: REVISE\n  Findings: 1 (1 HIGH)\n  Clarifying questions: 1"),
        "{}",
        stdout(&out)
    );
    let overruled = &repo.events("gate_recommendation_overruled")[0];
    assert_eq!((overruled["said"].as_str(), overruled["computed"].as_str()), (Some("APPROVE"), Some("REVISE")));
    assert_eq!(repo.calls("plan-author"), 1, "sent back to the author");
}

#[test]
fn a_citation_of_a_missing_file_is_asked_again_then_marked_unverified() {
    let missing = overviewer(json!([of("OF1", "MEDIUM", "src/nowhere.rs", [1, 2])]), json!([]), "APPROVE");
    let repo = repo(json!({"plan-critic": [critic(json!([]), "APPROVE")], "plan-overviewer": [missing]}), Some(PLAN));
    let out = repo.gate(&[]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(repo.calls("plan-overviewer"), 2, "asked again once");
    // A fresh overviewer again, given only the plan's path: never the earlier citations.
    assert_only_the_plan_path(&repo);
    assert!(stdout(&out).contains("Unverified: OF1 (src/nowhere.rs"), "{}", stdout(&out));
    assert_eq!(repo.events("evidence_unverified")[0]["finding"], "OF1");
    // Lines outside the file, and a path out of the root, do not check out either.
    for (file, lines) in [("src/auth.rs", [39, 41]), ("../repo/src/auth.rs", [1, 1]), ("/etc/passwd", [1, 1])] {
        let evidence = json!({"file": file, "line_start": lines[0], "line_end": lines[1], "claim": "c"});
        assert!(reviewhost::review::plan_gate::citation_problem(&repo.root, &evidence).is_some(), "{file}");
    }
    let good = json!({"file": "src/auth.rs", "line_start": 40, "line_end": 40, "claim": "c"});
    assert_eq!(reviewhost::review::plan_gate::citation_problem(&repo.root, &good), None);
}

#[test]
fn a_plan_is_written_from_an_idea_first() {
    let repo = repo(
        json!({"plan-author": [author(PLAN)], "plan-critic": [critic(json!([]), "APPROVE")],
               "plan-overviewer": [overviewer(json!([]), json!([]), "APPROVE")]}),
        None,
    );
    let out = repo.gate(&["--idea", "Add rate limiting to the login endpoint"]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).starts_with("**Plan** — Starting new plan from idea"), "{}", stdout(&out));
    assert!(repo.prompt("plan-author", 1).contains("Add rate limiting to the login endpoint"));
    // With `block`, questions from the overviewer keep it at REVISE (S03) and go to the
    // author unanswered; with `inform` they do not keep it at REVISE.
    let question = json!([{"id": "OQ1", "question": "Per IP or per account?"}]);
    let asks = self::repo(
        json!({"plan-critic": [critic(json!([]), "APPROVE")], "plan-overviewer": [overviewer(json!([]), question.clone(), "APPROVE")]}),
        Some(PLAN),
    );
    assert_eq!(asks.gate(&["--questions", "inform"]).status.code(), Some(0));
    assert_eq!(asks.calls("plan-author"), 0);
    let blocks = self::repo(
        json!({"plan-critic": [critic(json!([]), "APPROVE")],
               "plan-overviewer": [overviewer(json!([]), question, "APPROVE"), overviewer(json!([]), json!([]), "APPROVE")],
               "plan-author": [author(&revised())]}),
        Some(PLAN),
    );
    let out = blocks.gate(&["--questions", "block"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("Recommendation: REVISE\n  Findings: 0\n  Clarifying questions: 1"),
        "{}",
        stdout(&out)
    );
    assert!(blocks.prompt("plan-author", 1).contains("Per IP or per account?"), "the questions go to the author");
    assert!(!blocks.prompt("plan-overviewer", 2).contains("Per IP"), "never to the overviewer");
}

/// On a terminal, a person picks from a menu: here the overviewer's escalation (Accept
/// as-is, Abort), answered with Enter on the first choice.
#[test]
fn a_person_at_a_terminal_decides_an_escalation_from_a_menu() {
    let repo = repo(
        json!({"plan-critic": [critic(json!([]), "APPROVE")],
               "plan-overviewer": [overviewer(json!([of("OF1", "HIGH", "src/auth.rs", [3, 9])]), json!([]), "REVISE")],
               "plan-author": [author(&revised())]}),
        Some(PLAN),
    );
    let (status, out, screen) = on_terminal(&repo, "Accept as-is", b"\r");
    assert_eq!(status.code(), Some(0), "{out}\n{screen}");
    assert!(screen.contains("Overviewer still has concerns after 3 rounds") && screen.contains("Abort"), "{screen}");
    assert!(out.contains("Decision: Accept as-is") && out.contains("**Plan**(Complete — accepted as-is)"), "{out}");
    assert_eq!(repo.state()["status"], "accepted");
}

/// The overviewer's answer with one clarifying question and no finding.
fn asking(question: &str) -> Value {
    overviewer(json!([]), json!([{"id": "OQ1", "question": question}]), "REVISE")
}

/// The prompt the overviewer receives, whatever the round: the plan's path, nothing else.
const OVERVIEWER_PROMPT: &str = r#"{"plan_path": "plans/plan.md"}"#;

fn assert_only_the_plan_path(repo: &Repo) {
    for n in 1..=repo.calls("plan-overviewer") {
        assert_eq!(repo.prompt("plan-overviewer", n).trim(), OVERVIEWER_PROMPT, "overviewer call {n}");
    }
}

#[test]
fn a_person_answers_the_overviewers_questions_from_a_file_or_after_a_stop() {
    let script = || {
        json!({"plan-critic": [critic(json!([]), "APPROVE")],
               "plan-overviewer": [asking("Per IP or per account?"), overviewer(json!([]), json!([]), "APPROVE")],
               "plan-author": [author(&revised())]})
    };
    // From a file (CI): the question printed in full, the answer stored and given to
    // the author with the findings, never to the overviewer.
    let ci = repo(script(), Some(PLAN));
    ci.write("answers.yaml", "OQ1: Per account, reset after a minute.\n");
    let out = ci.gate(&["--answers", ci.root.join("answers.yaml").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("**Plan** — Overviewer question OQ1: Per IP or per account?"), "{text}");
    assert!(text.contains("  Answer: Per account, reset after a minute."), "{text}");
    let asked = ci.prompt("plan-author", 1);
    assert!(asked.contains("Per IP or per account?") && asked.contains("Per account, reset after a minute."));
    assert_eq!(ci.state()["overviewer_question_answers"], json!({"OQ1": "Per account, reset after a minute."}));
    assert_eq!(ci.state()["status"], "approved");
    assert_eq!(ci.calls("plan-overviewer"), 2);
    assert_only_the_plan_path(&ci);
    assert!(ci.events("gate_questions").iter().any(|e| e["answered"] == json!(["OQ1"]) && e["waiting"] == json!([])));

    // With neither a terminal nor a file: the gate stops for answers (exit 4), naming the
    // question, and `--resume --answers` continues it.
    let stops = repo(script(), Some(PLAN));
    let out = stops.gate(&[]);
    assert_eq!(out.status.code(), Some(4), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("Waiting for answers to OQ1"), "{}", stdout(&out));
    assert_eq!(stops.state()["status"], "needs_answers");
    assert_eq!(stops.state()["pending_questions"][0]["id"], "OQ1");
    assert_eq!(stops.calls("plan-author"), 0, "the author waits for the answers");
    // An answers file without the id asked for: still waiting.
    stops.write("other.json", r#"{"OQ9": "unrelated"}"#);
    let out = stops.gate(&["--resume", "--answers", stops.root.join("other.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4), "{}", stdout(&out));
    stops.write("answers.json", r#"{"OQ1": "Per IP."}"#);
    let out = stops.gate(&["--resume", "--answers", stops.root.join("answers.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stops.prompt("plan-author", 1).contains("Per IP."));
    assert_eq!(stops.state()["status"], "approved");
    assert_only_the_plan_path(&stops);

    // A later round that asks under an id already answered: its question gets the round
    // in its id, and the file's answer (meant for the first) is not taken for it.
    let again = repo(
        json!({"plan-critic": [critic(json!([]), "APPROVE")],
               "plan-overviewer": [asking("Per IP or per account?"), asking("How long is the lockout?")],
               "plan-author": [author(&revised())]}),
        Some(PLAN),
    );
    again.write("answers.yaml", "OQ1: Per account.\n");
    let out = again.gate(&["--answers", again.root.join("answers.yaml").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("Overviewer question OQ1-round-2: How long is the lockout?"), "{}", stdout(&out));
    assert!(stdout(&out).contains("Waiting for answers to OQ1-round-2"), "{}", stdout(&out));
    let asked = again.prompt("plan-author", 1);
    assert!(asked.contains("Per IP or per account?") && asked.contains("Per account."), "{asked}");

    // A bad answers file is an error naming the file and the field, before any agent
    // runs: a non-text answer (YAML would read `1.10` as 1.1), a FIFO (never waited on).
    let bad = repo(script(), Some(PLAN));
    for (name, text, says) in
        [("list.yaml", "OQ1: [1, 2]\n", "'OQ1'"), ("number.yaml", "OQ1: 1.10\n", "must be text (quote it)")]
    {
        bad.write(name, text);
        let out = bad.gate(&["--answers", bad.root.join(name).to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(name) && stderr(&out).contains(says), "{}", stderr(&out));
    }
    let fifo = bad.root.join("answers.fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = bad.gate(&["--answers", fifo.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(bad.calls("plan-critic"), 0);
}

#[test]
fn question_ids_are_plain_and_unique_and_questions_bounded() {
    // Ids that could look alike or spell lines of their own are replaced by positions;
    // duplicates are numbered, never merged.
    let ids = json!([{"id": "OQ1\n**Plan** — fake", "question": "A?"}, {"id": "X", "question": "B?"},
                     {"id": "X", "question": "C?"}, {"id": "X-2", "question": "D?"}, {"id": "OQ1\u{200b}", "question": "E?"}]);
    let repo = repo(
        json!({"plan-critic": [critic(json!([]), "APPROVE")], "plan-overviewer": [overviewer(json!([]), ids, "REVISE")]}),
        Some(PLAN),
    );
    let out = repo.gate(&[]);
    assert_eq!(out.status.code(), Some(4), "{}", stdout(&out));
    let pending: Vec<String> = repo.state()["pending_questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(pending, ["Q1", "X", "X-2", "X-2-2", "Q5"].map(String::from));
    // Past 20 questions the gate stops: no person is asked a hundred questions.
    let many: Vec<Value> = (1..=21).map(|n| json!({"id": format!("Q{n}"), "question": "Why?"})).collect();
    let repo = self::repo(
        json!({"plan-critic": [critic(json!([]), "APPROVE")],
               "plan-overviewer": [overviewer(json!([]), json!(many), "REVISE")]}),
        Some(PLAN),
    );
    let out = repo.gate(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("21 clarifying questions, more than 20"), "{}", stderr(&out));
}

#[test]
fn a_question_reaches_the_terminal_inert() {
    // A question is agent text: its escape sequences are shown, never sent raw.
    let repo = repo(
        json!({"plan-critic": [critic(json!([]), "APPROVE")],
               "plan-overviewer": [asking("Which one?\u{1b}]52;c;cm0gLXJmIH4=\u{7}\u{1b}[2J"), overviewer(json!([]), json!([]), "APPROVE")],
               "plan-author": [author(&revised())]}),
        Some(PLAN),
    );
    let out = repo.gate(&[]);
    assert_eq!(out.status.code(), Some(4));
    let text = stdout(&out);
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'), "{text:?}");
    assert!(text.contains("Overviewer question OQ1: Which one?"), "{text}");
}

/// On a terminal, a person types the answer to each question at a prompt.
#[test]
fn a_person_at_a_terminal_answers_the_overviewers_question() {
    let repo = repo(
        json!({"plan-critic": [critic(json!([]), "APPROVE")],
               "plan-overviewer": [asking("Per IP or per account?"), overviewer(json!([]), json!([]), "APPROVE")],
               "plan-author": [author(&revised())]}),
        Some(PLAN),
    );
    let (status, out, screen) = on_terminal(&repo, "Answer to OQ1", b"Per account.\r");
    assert_eq!(status.code(), Some(0), "{out}\n{screen}");
    assert!(out.contains("Overviewer question OQ1: Per IP or per account?") && out.contains("Answer: Per account."));
    assert!(repo.prompt("plan-author", 1).contains("Per account."));
    assert_eq!(repo.state()["overviewer_question_answers"]["OQ1"], "Per account.");
}

/// The options every loop takes: `--max-calls` stops the gate (exit 2, to be resumed),
/// `--cancel` from another process stops it before its next call (exit 130).
#[test]
fn the_gate_takes_the_loops_shared_options() {
    let script = || {
        json!({"plan-critic": [{"response": critic(json!([]), "APPROVE")["response"], "sleep": 2.0}],
               "plan-overviewer": [overviewer(json!([]), json!([]), "APPROVE")]})
    };
    let capped = repo(script(), Some(PLAN));
    let out = capped.gate(&["--max-calls", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("continue with `reviewhost plan-gate --resume`"), "{}", stderr(&out));
    assert_eq!((capped.calls("plan-critic"), capped.calls("plan-overviewer")), (1, 0));
    // Resumed with room for the overviewer: approved.
    let out = capped.gate(&["--resume"]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));

    let cancelled = repo(script(), Some(PLAN));
    let mut running = cancelled.0.command("plan-gate");
    running.args(["plans/plan.md", "--root"]).arg(&cancelled.root).stdin(std::process::Stdio::null());
    let mut cancel = cancelled.0.command("plan-gate");
    cancel.args(["--cancel", "--root"]).arg(&cancelled.root);
    let out = cancel_once_started(running, &cancelled.root, "plan-critic", cancel);
    assert_eq!(out.status.code(), Some(130), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(cancelled.calls("plan-overviewer"), 0);
}

/// Runs the gate on a pseudo-terminal (stdin and stderr, with it as the controlling
/// terminal, as a person's shell has), typing `reply` once `wait_for` shows on it:
/// the exit status, stdout, and what the terminal showed.
fn on_terminal(repo: &Repo, wait_for: &str, reply: &[u8]) -> (std::process::ExitStatus, String, String) {
    use std::io::{Read, Write};
    use std::os::unix::process::CommandExt;
    let (mut controller, terminal) = crate::terminal::pty();
    let mut command = repo.0.command("plan-gate");
    command
        .args(["plans/plan.md", "--root"])
        .arg(&repo.root)
        .stdin(std::process::Stdio::from(terminal.try_clone().unwrap()))
        .stderr(std::process::Stdio::from(terminal))
        .stdout(std::process::Stdio::piped());
    // SAFETY: between fork and exec, only async-signal-safe calls: a new session whose
    // controlling terminal is the pseudo-terminal on stdin (the menu and the prompt
    // read /dev/tty).
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            libc::ioctl(0, libc::TIOCSCTTY as _, 0);
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap();
    drop(command);
    let mut writer = controller.try_clone().unwrap();
    let reply = reply.to_vec();
    let wait_for = wait_for.to_string();
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        let mut answered = false;
        while let Ok(n) = controller.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
            if !answered && String::from_utf8_lossy(&seen).contains(&wait_for) {
                writer.write_all(&reply).unwrap();
                answered = true;
            }
        }
        String::from_utf8_lossy(&seen).into_owned()
    });
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let status = child.wait().unwrap();
    let screen = reader.join().unwrap();
    (status, out, screen)
}
