//! `reviewhost plan-review` (seed 002): yolo's plans with known verdicts, its reviewer
//! answers and delta-findings cases, and scripted runs of every way a loop ends, each
//! with its events.

use std::path::{Path, PathBuf};
use std::process::Output;

use reviewhost::review::plan_review::{self, Verdict};
use serde_json::{Value, json};

use crate::support::*;

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/review-loops/yolo");
    if dir.exists() {
        Some(dir)
    } else {
        eprintln!("skipped: {} is not there (the shared corpus sits beside the repository)", dir.display());
        None
    }
}

/// yolo's reviewer-answer cases, each read as the original meant: where the case
/// records the original's parser defect (`upstream_parse`), the fixed reading is
/// expected.
#[test]
fn yolo_reviewer_answers_are_read_as_meant() {
    let Some(dir) = corpus() else { return };
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("reviewer-output-cases.json")).unwrap()).unwrap();
    let cases = cases["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 5);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let expected = &case["expected"];
        let parsed = plan_review::parse_answer(case["text"].as_str().unwrap());
        if expected["parse_failure"] == true {
            // The original defaulted to reject and dropped its event; here it is a
            // parse failure: asked again, then the review fails closed (see
            // `an_unusable_reviewer_answer_is_asked_again_then_the_review_stops`).
            assert!(parsed.is_err(), "{name}: {parsed:?}");
            continue;
        }
        let parsed = parsed.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(parsed["verdict"], expected["verdict"], "{name}");
        for key in ["cycle", "resolved", "persistent", "new"] {
            if !expected[key].is_null() {
                assert_eq!(parsed[key], expected[key], "{name}: {key}");
            }
        }
        let findings = expected["findings"].as_array().unwrap();
        assert_eq!(parsed["findings"].as_array().unwrap().len(), findings.len(), "{name}: {parsed}");
        for (got, want) in parsed["findings"].as_array().unwrap().iter().zip(findings) {
            for (key, value) in want.as_object().unwrap() {
                assert_eq!(&got[key], value, "{name}: {key}");
            }
        }
    }
}

/// yolo's delta-findings cases: findings without ids keep their identity (the
/// original's `unique_by(.id)` collapsed three into one).
#[test]
fn yolo_delta_findings_keep_every_finding() {
    let Some(dir) = corpus() else { return };
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("delta-findings-cases.json")).unwrap()).unwrap();
    for case in cases["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let previous = case["previous"].as_array().unwrap();
        let current = case["current"].as_array().unwrap();
        let (delta, resolved) = plan_review::delta(Some(previous), current);
        if let Some(ids) = case["expected_delta_ids"].as_array() {
            let got: Vec<String> = delta.iter().map(plan_review::finding_id).collect();
            let want: Vec<&str> = ids.iter().map(|i| i.as_str().unwrap()).collect();
            assert_eq!(got, want, "{name}");
        }
        if let Some(n) = case["expected_delta_len"].as_u64() {
            assert_eq!(delta.len() as u64, n, "{name}: {delta:?}");
        }
        if let Some(ids) = case["expected_resolved_ids"].as_array() {
            let want: Vec<&str> = ids.iter().map(|i| i.as_str().unwrap()).collect();
            assert_eq!(resolved, want, "{name}");
        }
    }
    // The first cycle passes every high and medium finding.
    let current = [
        json!({"id": "a", "severity": "high"}),
        json!({"id": "b", "severity": "low"}),
        json!({"id": "c", "severity": "medium"}),
    ];
    let (first, _) = plan_review::delta(None, &current);
    assert_eq!(first.iter().map(plan_review::finding_id).collect::<Vec<_>>(), ["a", "c"]);
    assert_eq!(plan_review::computed(&current), Verdict::Reject);
}

// ---- Scripted runs ----

struct Repo(Scripted);

impl std::ops::Deref for Repo {
    type Target = Scripted;
    fn deref(&self) -> &Scripted {
        &self.0
    }
}

const GOOD: &str = "---\nphase: \"01\"\nplan: \"01\"\ntitle: \"Rate limits\"\nwave: 1\ndepends_on: []\nmust_haves:\n  - \"logins are limited\"\n---\n# Plan\n## Tasks\n### Task 1: Limit\n**Files:** `README.md`\nAdd the limiter.\n";

fn repo(script: Value, plans: &[(&str, &str)]) -> Repo {
    let repo = Repo(Scripted::new(&script));
    repo.write("README.md", "# demo\n");
    std::fs::create_dir_all(repo.root.join("plans")).unwrap();
    for (name, text) in plans {
        repo.write(name, text);
    }
    repo
}

impl Repo {
    fn review(&self, args: &[&str]) -> Output {
        self.0.command("plan-review").args(args).arg("--root").arg(&self.root).output().unwrap()
    }

    /// The review_loop_* events, as (event, plan, cycle or max or cycles_used, verdict).
    fn loop_events(&self) -> Vec<(String, String, u64, String)> {
        self.events()
            .into_iter()
            .filter(|e| e["event"].as_str().unwrap().starts_with("review_loop_"))
            .map(|e| {
                let n = e["cycle"].as_u64().or(e["max_cycles"].as_u64()).or(e["cycles_used"].as_u64()).unwrap();
                let verdict = e["verdict"].as_str().or(e["final_verdict"].as_str()).unwrap_or("").to_string();
                (e["event"].as_str().unwrap().to_string(), e["plan"].as_str().unwrap().to_string(), n, verdict)
            })
            .collect()
    }

    fn state(&self) -> Value {
        self.0.state("plan-review-state.json")
    }
}

fn verdict(verdict: &str, findings: Value) -> Value {
    json!({"response": json!({"verdict": verdict, "findings": findings}).to_string()})
}

fn high(id: &str) -> Value {
    json!({"id": id, "severity": "high", "file": "src/auth.rs", "title": "no lockout reset",
           "description": "a locked account stays locked", "suggestion": "reset after a minute", "auto_fixable": false})
}

fn event(name: &str, plan: &str, n: u64, verdict: &str) -> (String, String, u64, String) {
    (name.to_string(), plan.to_string(), n, verdict.to_string())
}

#[test]
fn yolo_plans_get_their_known_verdicts() {
    let Some(dir) = corpus() else { return };
    let plans: Vec<(String, String)> = ["01-01-PLAN.md", "01-02-PLAN.md", "01-03-PLAN.md"]
        .iter()
        .map(|n| (format!("plans/{n}"), std::fs::read_to_string(dir.join(n)).unwrap()))
        .collect();
    let named: Vec<(&str, &str)> = plans.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let approve = verdict("approve", json!([]));
    for ((plan, _), (code, word)) in plans.iter().zip([(0, "approved"), (3, "REJECTED"), (0, "conditional")]) {
        let repo = repo(json!({"plan-reviewer": [approve.clone()]}), &named);
        let out = repo.review(&[plan, "--max-cycles", "1"]);
        assert_eq!(out.status.code(), Some(code), "{plan}: {}\n{}", stdout(&out), stderr(&out));
        assert!(stdout(&out).contains(word), "{plan}: {}", stdout(&out));
    }
    // 01-02 (must_haves empty) is rejected by the pre-check alone: the reviewer is not
    // asked; 01-03 (six tasks) passes with the task count as a warning.
    let repo = repo(json!({"plan-reviewer": [approve]}), &named);
    let out = repo.review(&["plans/01-02-PLAN.md", "--max-cycles", "1"]);
    assert!(stdout(&out).contains("[high] must_haves is empty or missing"), "{}", stdout(&out));
    assert_eq!(repo.calls("plan-reviewer"), 0);
    let out = repo.review(&["plans/01-03-PLAN.md"]);
    assert!(stdout(&out).contains("warning: [medium] Plan has more than 5 tasks"), "{}", stdout(&out));
}

#[test]
fn a_plan_approved_at_once_is_bound_to_its_content() {
    let repo = repo(json!({"plan-reviewer": [verdict("approve", json!([]))]}), &[("plans/a.md", GOOD)]);
    let out = repo.review(&["plans/a.md"]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("✓ Plan plans/a.md review: approved (cycle 1/3)"), "{}", stdout(&out));
    assert_eq!(
        repo.loop_events(),
        [
            event("review_loop_start", "plans/a.md", 3, ""),
            event("review_loop_cycle", "plans/a.md", 1, "approve"),
            event("review_loop_end", "plans/a.md", 1, "approve")
        ]
    );
    let cid = repo.events().iter().find(|e| e["event"] == "review_loop_start").unwrap()["correlation_id"].clone();
    assert!(
        repo.events()
            .iter()
            .filter(|e| e["event"].as_str().unwrap().starts_with("review_loop"))
            .all(|e| e["correlation_id"] == cid)
    );
    let state = repo.state();
    let lp = &state["review_loops"]["plans/a.md"];
    assert_eq!((lp["status"].as_str(), lp["cycle"].as_u64()), (Some("passed"), Some(1)));
    assert_eq!(lp["findings_per_cycle"], json!([{"verdict": "approve", "finding_count": 0, "high": 0}]));

    let check = |repo: &Repo| repo.review(&["--check", "plans/a.md"]).status.code();
    assert_eq!(check(&repo), Some(0));
    std::fs::write(repo.root.join("plans/a.md"), format!("{GOOD}\nOne more line.\n")).unwrap();
    assert_eq!(check(&repo), Some(1));
    let never = self::repo(json!({}), &[("plans/a.md", GOOD)]);
    assert_eq!(check(&never), Some(3));
}

#[test]
fn a_rejected_plan_is_revised_by_the_architect_and_approved() {
    let revised = GOOD.replace("Add the limiter.", "Add the limiter, reset after a minute.");
    let repo = repo(
        json!({
            "plan-reviewer": [verdict("reject", json!([high("f-001")])), verdict("approve", json!([]))],
            "plan-architect": [{"response": "revised", "edits": {"plans/a.md": revised}}],
        }),
        &[("plans/a.md", GOOD)],
    );
    let out = repo.review(&["plans/a.md"]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("◆ Review loop cycle 2/3 — asking the architect to revise plan plans/a.md"));
    // The architect got the delta findings only, in a fence; the reviewer the findings before.
    let architect = repo.prompt("plan-architect", 1);
    assert!(architect.contains("<untrusted-findings") && architect.contains("f-001"), "{architect}");
    assert!(repo.prompt("plan-reviewer", 2).contains("<untrusted-previous-findings"));
    assert_eq!(
        repo.loop_events(),
        [
            event("review_loop_start", "plans/a.md", 3, ""),
            event("review_loop_cycle", "plans/a.md", 1, "reject"),
            event("review_loop_cycle", "plans/a.md", 2, "approve"),
            event("review_loop_end", "plans/a.md", 2, "approve")
        ]
    );
    let state = repo.state();
    assert_eq!(state["review_loops"]["plans/a.md"]["approved_sha256"].as_str().unwrap().len(), 64);
    assert_eq!(repo.review(&["--check", "plans/a.md"]).status.code(), Some(0), "the revised plan is the approved one");
}

#[test]
fn a_plan_rejected_until_the_cap_is_a_hard_stop_with_every_finding() {
    let second = json!({"id": "f-002", "severity": "medium", "file": "src/auth.rs", "title": "no metric",
                        "description": "lockouts are not counted", "suggestion": "count them", "auto_fixable": true});
    let repo = repo(
        json!({
            "plan-reviewer": [verdict("reject", json!([high("f-001")])), verdict("reject", json!([high("f-001"), second]))],
            "plan-architect": [{"response": "tried"}],
        }),
        &[("plans/a.md", GOOD)],
    );
    let out = repo.review(&["plans/a.md", "--max-cycles", "2"]);
    assert_eq!(out.status.code(), Some(3), "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("✗ Plan plans/a.md review: REJECTED after 2 cycles"), "{text}");
    assert!(text.contains("✗ [high] no lockout reset: a locked account stays locked (escalated)"), "{text}");
    assert!(text.contains("✗ [medium] no metric: lockouts are not counted"), "{text}");
    assert_eq!(text.matches("no lockout reset").count(), 1, "deduplicated by id: {text}");
    assert_eq!(repo.calls("plan-architect"), 1, "two reviews, one revision");
    let lp = &repo.state()["review_loops"]["plans/a.md"];
    assert_eq!((lp["status"].as_str(), lp["final_verdict"].as_str()), (Some("failed"), Some("reject")));
    assert!(lp["approved_sha256"].is_null());
    assert_eq!(repo.loop_events().last().unwrap(), &event("review_loop_end", "plans/a.md", 2, "reject"));
}

#[test]
fn a_conditional_plan_passes_with_its_findings_as_warnings() {
    let low = json!({"id": "f-003", "severity": "low", "file": "README.md", "title": "typo", "description": "in the title",
                     "suggestion": "fix it", "auto_fixable": true});
    let repo = repo(json!({"plan-reviewer": [verdict("conditional", json!([low]))]}), &[("plans/a.md", GOOD)]);
    let out = repo.review(&["plans/a.md"]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("⚠ Plan plans/a.md review: conditional (cycle 1/3)"), "{}", stdout(&out));
    assert!(stdout(&out).contains("warning: [low] typo: in the title"), "{}", stdout(&out));
    assert_eq!(repo.loop_events().last().unwrap(), &event("review_loop_end", "plans/a.md", 1, "conditional"));
}

#[test]
fn one_plan_at_the_cap_halts_the_set() {
    let repo = repo(
        json!({"plan-reviewer": [verdict("approve", json!([])), verdict("reject", json!([high("f-001")]))],
               "plan-architect": [{"response": "tried"}]}),
        &[("plans/a.md", GOOD), ("plans/b.md", GOOD), ("plans/c.md", GOOD)],
    );
    let out = repo.review(&["plans/a.md", "plans/b.md", "plans/c.md", "--max-cycles", "1"]);
    assert_eq!(out.status.code(), Some(3), "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    let table = &text[text.find("Review gate results:").expect("the table")..];
    assert!(table.contains("✓ Plan plans/a.md: approved (cycle 1/1)"), "{table}");
    assert!(table.contains("✗ Plan plans/b.md: REJECTED after 1 cycles"), "{table}");
    assert!(table.contains("○ Plan plans/c.md: not reviewed"), "{table}");
    assert_eq!(repo.calls("plan-reviewer"), 2, "c is never reviewed");
    let plans: Vec<String> = repo.loop_events().into_iter().map(|e| e.1).collect();
    assert!(!plans.iter().any(|p| p == "plans/c.md"), "{plans:?}");
}

#[test]
fn a_reviewer_that_approves_over_a_high_finding_is_overruled_and_logged() {
    let repo = repo(
        json!({"plan-reviewer": [verdict("approve", json!([high("f-001")]))], "plan-architect": [{"response": "tried"}]}),
        &[("plans/a.md", GOOD)],
    );
    let out = repo.review(&["plans/a.md", "--max-cycles", "1"]);
    assert_eq!(out.status.code(), Some(3), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("The reviewer said approve but its findings make it reject"), "{}", stdout(&out));
    let disagreement = repo.events().into_iter().find(|e| e["event"] == "review_verdict_disagreement").unwrap();
    assert_eq!(
        (disagreement["agent_verdict"].as_str(), disagreement["computed"].as_str()),
        (Some("approve"), Some("reject"))
    );
    assert_eq!(repo.loop_events()[1], event("review_loop_cycle", "plans/a.md", 1, "reject"));
}

#[test]
fn an_unusable_reviewer_answer_is_asked_again_then_the_review_stops() {
    // Prose without a verdict, then a reject without findings: both unusable.
    let repo = repo(
        json!({"plan-reviewer": [{"response": "Looks mostly fine."}, verdict("reject", json!([]))]}),
        &[("plans/a.md", GOOD)],
    );
    let out = repo.review(&["plans/a.md"]);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("the review of plans/a.md stopped in cycle 1"), "{}", stderr(&out));
    assert_eq!(repo.calls("plan-reviewer"), 2);
    let failures: Vec<Value> = repo.events().into_iter().filter(|e| e["event"] == "review_parse_failure").collect();
    assert_eq!(failures.len(), 2);
    assert!(failures[0]["reason"].as_str().unwrap().contains("no `VERDICT"), "{failures:?}");
    assert!(failures[1]["reason"].as_str().unwrap().contains("/findings"), "{failures:?}");
    // The loop was left running: --resume continues it with the same correlation id.
    assert_eq!(repo.state()["review_loops"]["plans/a.md"]["status"], "running");
    let refused = repo.review(&["plans/a.md"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("continue it with --resume"), "{}", stderr(&refused));
    let cid = repo.state()["correlation_id"].clone();
    std::fs::write(&repo.script, json!({"plan-reviewer": [verdict("approve", json!([]))]}).to_string()).unwrap();
    std::fs::remove_dir_all(format!("{}.calls", repo.script.display())).unwrap();
    let resumed = repo.review(&["plans/a.md", "--resume"]);
    assert_eq!(resumed.status.code(), Some(0), "{}\n{}", stdout(&resumed), stderr(&resumed));
    assert_eq!(repo.state()["correlation_id"], cid);
    assert_eq!(repo.events().last().unwrap()["correlation_id"], cid);
}

#[test]
fn a_plan_outside_the_root_is_refused() {
    let repo = repo(json!({}), &[("plans/a.md", GOOD)]);
    std::fs::write(repo.dir.path().join("outside.md"), GOOD).unwrap();
    let out = repo.review(&[repo.dir.path().join("outside.md").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not inside the reviewed root"), "{}", stderr(&out));
}

/// The options every loop takes: `--max-calls` stops the review before the architect
/// (exit 2), `--cancel` from another process stops it before its next call (exit 130).
#[test]
fn plan_review_takes_the_loops_shared_options() {
    let rejecting = || {
        json!({"plan-reviewer": [{"response": verdict("reject", json!([high("F1")]))["response"], "sleep": 2.0}],
               "plan-architect": [{"response": "revised", "edits": {"plans/01-01-PLAN.md": GOOD}}]})
    };
    let capped = repo(rejecting(), &[("plans/01-01-PLAN.md", GOOD)]);
    let out = capped.review(&["plans/01-01-PLAN.md", "--max-calls", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("calls"), "{}", stderr(&out));
    assert_eq!(capped.calls("plan-architect"), 0);

    let cancelled = repo(rejecting(), &[("plans/01-01-PLAN.md", GOOD)]);
    let mut running = cancelled.0.command("plan-review");
    running.args(["plans/01-01-PLAN.md", "--root"]).arg(&cancelled.root);
    let mut cancel = cancelled.0.command("plan-review");
    cancel.args(["--cancel", "--root"]).arg(&cancelled.root);
    let out = cancel_once_started(running, &cancelled.root, "plan-reviewer", cancel);
    assert_eq!(out.status.code(), Some(130), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(cancelled.calls("plan-architect"), 0);
}
