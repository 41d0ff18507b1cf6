//! `reviewhost review` end to end, with scripted agents (`tests/agents/scripted_agent.py`)
//! that really edit files, in temporary git repositories. Each test checks the exit
//! code, the files, and the events the run left in `.reviewhost/events.jsonl`.
//!
//! The repositories here carry their own `reviewhost.toml`, which a review reads only
//! when trusted: every run passes `--trust-repo-config`, with an empty user configuration
//! directory (`tests/all/repo_trust.rs` covers what happens without the flag).

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::support::*;

struct Repo {
    _dir: tempfile::TempDir,
    root: PathBuf,
    script: PathBuf,
}

/// A git repository with one open problem (a TODO in src/lib.rs), a reviewhost.toml
/// whose agents are the scripted agent playing `script`, and `extra_config` appended.
fn repo(script: Value, extra_config: &str) -> Repo {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "// TODO: handle errors\npub fn f() {}\n").unwrap();
    std::fs::write(root.join("README.md"), "# demo\n").unwrap();
    let agent = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents/scripted_agent.py");
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let config = format!(
        "[agent]\ncommand = [\"python3\", {:?}, {:?}]\ntimeout = \"20s\"\n{extra_config}",
        agent.display().to_string(),
        script_path.display().to_string()
    );
    std::fs::write(root.join("reviewhost.toml"), config).unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["-c", "user.name=t", "-c", "user.email=t@t", "add", "-A"]);
    git(&root, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
    Repo { _dir: dir, root, script: script_path }
}

/// An analyst answer: findings, then the `## Assertions` block.
fn analysis(findings: &str, assertions: Value) -> Value {
    json!({"response": format!("{findings}\n\n## Assertions\n\n```json\n{}\n```\n", serde_json::to_string_pretty(&assertions).unwrap())})
}

fn nothing_open() -> Value {
    analysis("No open findings.", json!([]))
}

const TODO_CHECK: &str = "grep -rn TODO src";

fn todo_assertion() -> Value {
    json!({"id": "A-A-1", "finding_id": "P1", "track": "A", "type": "grep_not_match",
           "description": "no TODO left in src", "command": TODO_CHECK, "expected": "no_match"})
}

fn fixed_lib() -> Value {
    json!({"response": "## Implementation\nP1: src/lib.rs:1 — handled", "edits": {"src/lib.rs": "pub fn f() {}\n"}})
}

fn review(repo: &Repo, args: &[&str]) -> Output {
    reviewhost()
        .env("REVIEWHOST_CONFIG_DIR", repo._dir.path().join("user-config"))
        .env_remove("REVIEWHOST_TRUST_REPO_CONFIG")
        .arg("review")
        .arg(&repo.root)
        .arg("--trust-repo-config")
        .args(args)
        .output()
        .unwrap()
}

fn events(repo: &Repo) -> Vec<Value> {
    std::fs::read_to_string(repo.root.join(".reviewhost/events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn names(events: &[Value]) -> Vec<String> {
    events.iter().map(|e| e["event"].as_str().unwrap().to_string()).collect()
}

fn state(repo: &Repo) -> Value {
    serde_json::from_slice(&std::fs::read(repo.root.join(".reviewhost/state.json")).unwrap()).unwrap()
}

fn calls(repo: &Repo, agent: &str) -> usize {
    let counter = PathBuf::from(format!("{}.calls/{agent}.count", repo.script.display()));
    std::fs::read_to_string(counter).map_or(0, |n| n.parse().unwrap())
}

fn prompt(repo: &Repo, agent: &str, n: usize) -> String {
    std::fs::read_to_string(format!("{}.calls/{agent}-{n}.prompt", repo.script.display())).unwrap()
}

fn assertions(repo: &Repo) -> Vec<Value> {
    read_assertions(&repo.root.join(".claude/state/review-assertions.json"))
}

#[test]
fn a_loop_that_converges_in_two_passes() {
    let repo = repo(
        json!({
            "principles-analyst": [analysis("P1: src/lib.rs:1 has a TODO.", json!([todo_assertion()]))],
            "ux-analyst": [nothing_open()],
            "docs-analyst": [nothing_open()],
            // Pass 1: the implementer and the fix-agent change nothing; pass 2: fixed.
            "implementer": [{"response": "## Implementation\nP1: not changed — later"}, fixed_lib()],
            "fix-agent": [{"response": "## Fix-Agent Results — Pass 1\n\n### A-A-1 — no TODO\nUnresolvable: later"}]
        }),
        "",
    );
    let out = review(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("Pass 1: 1 total (1 new, 0 carried forward)"), "{text}");
    assert!(text.contains("# Review finished: Zero findings"), "{text}");
    assert!(text.contains("| A-A-1 | A | grep_not_match | ✅ | no TODO left in src |"), "{text}");

    let events = events(&repo);
    let names = names(&events);
    assert_eq!(names.first().unwrap(), "review_start");
    assert_eq!(names.last().unwrap(), "review_end");
    assert_eq!(events.last().unwrap()["end_state"], "Zero findings");
    assert_eq!(names.iter().filter(|n| *n == "pass_start").count(), 2);
    assert_eq!(names.iter().filter(|n| *n == "fix_agent").count(), 1, "the fix-agent ran in pass 1 only");
    let runs: Vec<&Value> = events.iter().filter(|e| e["event"] == "assertions_run").collect();
    assert_eq!(runs.len(), 3, "run + re-run after the fix-agent in pass 1, one run in pass 2");
    assert_eq!(runs.last().unwrap()["confidence"], 1.0);
    // Pass 2: nothing changed in pass 1, so only the always-on docs analyst re-ran.
    let selected: Vec<&Value> = events.iter().filter(|e| e["event"] == "analysts_selected").collect();
    assert_eq!(selected[1]["analysts"], json!(["docs-analyst"]), "{:?}", selected[1]);
    assert_eq!(calls(&repo, "principles-analyst"), 1);
    assert_eq!(calls(&repo, "docs-analyst"), 2);
    let ends: Vec<&Value> = events.iter().filter(|e| e["event"] == "agent_end").collect();
    assert!(ends.iter().all(|e| e["ok"] == true && e["duration_ms"].is_number()), "{ends:?}");

    // The fix-agent saw the failing assertion and its finding, inside fences.
    let fix_prompt = prompt(&repo, "fix-agent", 1);
    assert!(fix_prompt.contains(TODO_CHECK) && fix_prompt.contains("P1: src/lib.rs:1 has a TODO."), "{fix_prompt}");
    assert!(fix_prompt.contains("<untrusted-failing-assertions nonce=\""), "{fix_prompt}");

    assert_eq!(state(&repo)["status"], "ended");
    assert_eq!(state(&repo)["end_state"], "Zero findings");
    assert_eq!(assertions(&repo)[0]["status"], "pass");
    assert!(repo.root.join(".reviewhost/reports/final.md").exists());
    assert!(repo.root.join(".reviewhost/reports/pass-2.md").exists());
    // Each pass's starting tree is a commit under refs/reviewhost/ of reviewhost's
    // private git directory, and so is the end of each fix-diff review's range; the
    // repository's own refs and branch are untouched.
    assert_eq!(git(&repo.root, &["for-each-ref", "refs/reviewhost/"]), "");
    let private = reviewhost::hostgit::HostGit::kept_dir(&cache_dir(), &repo.root.canonicalize().unwrap());
    let private = private.display().to_string();
    let refs = git(&repo.root, &["--git-dir", &private, "for-each-ref", "--format=%(refname)", "refs/reviewhost/"]);
    assert_eq!(
        refs.lines().collect::<Vec<_>>(),
        [
            "refs/reviewhost/fix-review-pass-1-round-1",
            "refs/reviewhost/fix-review-pass-2-round-1",
            "refs/reviewhost/pass-1",
            "refs/reviewhost/pass-2"
        ]
    );
    assert_eq!(git(&repo.root, &["rev-list", "--count", "HEAD"]).trim(), "1");
    let snapshot = git(&repo.root, &["--git-dir", &private, "show", "refs/reviewhost/pass-2:src/lib.rs"]);
    assert!(snapshot.contains("TODO"), "pass 2 started before the implementer's fix");
}

#[test]
fn a_loop_that_hits_the_budget() {
    let repo = repo(
        json!({
            "principles-analyst": [analysis("P1: TODO.", json!([todo_assertion()]))],
            "ux-analyst": [nothing_open()],
            "docs-analyst": [nothing_open()],
            "implementer": [{"response": "nothing"}],
            "fix-agent": [{"response": "## Fix-Agent Results — Pass 1\nUnresolvable"}]
        }),
        "",
    );
    let out = review(&repo, &["--max-passes", "2"]);
    assert_eq!(out.status.code(), Some(1), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("# Review finished: Budget reached"), "{}", stdout(&out));
    let events = events(&repo);
    assert_eq!(events.last().unwrap()["end_state"], "Budget reached");
    assert_eq!(names(&events).iter().filter(|n| *n == "pass_end").count(), 2);
    assert_eq!(state(&repo)["passes"].as_array().unwrap().len(), 2);
    assert_eq!(assertions(&repo)[0]["status"], "fail");
    assert!(stdout(&out).contains("| A-A-1 | A | grep_not_match | ❌ |"), "{}", stdout(&out));
}

#[test]
fn broken_json_twice_aborts_the_pass_and_resume_continues() {
    let repo = repo(
        json!({
            "principles-analyst": [
                {"response": "I found things but forgot the block."},
                {"response": "## Assertions\n\n```json\n[{\"id\": \"A-A-1\",]\n```\n"},
                analysis("P1: TODO.", json!([todo_assertion()]))
            ],
            "ux-analyst": [nothing_open()],
            "docs-analyst": [nothing_open()],
            "implementer": [fixed_lib()],
            "fix-agent": [{"response": "none"}]
        }),
        "",
    );
    let out = review(&repo, &[]);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("pass 1 aborted: principles-analyst gave no usable `## Assertions` block twice"),
        "{}",
        stderr(&out)
    );
    // The re-ask carried the exact reason.
    assert!(prompt(&repo, "principles-analyst", 2).contains("the response has no `## Assertions` section"));
    let events = events(&repo);
    let gates: Vec<&Value> = events.iter().filter(|e| e["event"] == "parse_gate").collect();
    assert_eq!(gates.len(), 2, "{gates:?}");
    assert!(gates[1]["error"].as_str().unwrap().contains("not valid JSON: line 1 column 17"), "{gates:?}");
    assert_eq!(events.last().unwrap()["end_state"], "aborted");
    let saved = state(&repo);
    assert_eq!(
        (saved["status"].as_str(), saved["pass"].as_u64(), saved["phase"].as_str()),
        (Some("aborted"), Some(1), Some("analysts"))
    );
    assert!(!repo.root.join(".claude/state/review-assertions.json").exists(), "nothing was merged");
    assert_eq!(calls(&repo, "implementer"), 0);

    // A fresh start is refused while a review is unfinished.
    let again = review(&repo, &[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("--resume"), "{}", stderr(&again));

    let resumed = review(&repo, &["--resume"]);
    assert_eq!(resumed.status.code(), Some(0), "{}\n{}", stdout(&resumed), stderr(&resumed));
    assert_eq!(state(&repo)["end_state"], "Zero findings");
    let events = self::events(&repo);
    assert_eq!(events.iter().filter(|e| e["event"] == "review_start" && e["resume"] == true).count(), 1);
    assert_eq!(events.last().unwrap()["end_state"], "Zero findings");
}

#[test]
fn an_agent_that_times_out_is_killed_and_aborts_the_pass() {
    let repo = repo(
        json!({
            "principles-analyst": [analysis("P1: TODO.", json!([todo_assertion()]))],
            "ux-analyst": [nothing_open()],
            "docs-analyst": [nothing_open()],
            "implementer": [{"sleep": 30, "edits": {"late.txt": "written after the timeout"}}],
            "fix-agent": [{"response": "none"}]
        }),
        "[agents.implementer]\ntimeout = \"1s\"\n",
    );
    let started = std::time::Instant::now();
    let out = review(&repo, &[]);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(started.elapsed() < std::time::Duration::from_secs(15), "killed at its timeout");
    assert!(stderr(&out).contains("agent 'implementer': timed out after 1s"), "{}", stderr(&out));
    let end = events(&repo).into_iter().find(|e| e["event"] == "agent_end" && e["agent"] == "implementer").unwrap();
    assert_eq!(end["ok"], false);
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!repo.root.join("late.txt").exists(), "the agent's process was killed, not left running");
    assert_eq!(state(&repo)["phase"], "implement");
}

#[test]
fn a_claude_json_error_envelope_is_a_failed_call() {
    let repo = repo(
        json!({
            "principles-analyst": [{"claude": {"is_error": true, "subtype": "success", "result": "API rate limited"}}],
            "ux-analyst": [{"claude": {"result": "## Assertions\n```json\n[]\n```"}}],
            "docs-analyst": [{"claude": {"result": "## Assertions\n```json\n[]\n```"}}],
            "implementer": [{"claude": {"result": "done"}}],
            "fix-agent": [{"claude": {"result": "done"}}]
        }),
        "format = \"claude-json\"\n",
    );
    let out = review(&repo, &[]);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("claude reports an error (subtype success): API rate limited"), "{}", stderr(&out));
    let end =
        events(&repo).into_iter().find(|e| e["event"] == "agent_end" && e["agent"] == "principles-analyst").unwrap();
    assert!(end["error"].as_str().unwrap().contains("API rate limited"), "{end}");
}

#[test]
fn hostile_assertions_from_an_analyst_are_contained() {
    let dir_outside = tempfile::tempdir().unwrap();
    let planted = dir_outside.path().join("planted.txt");
    let hostile = json!([
        {"id": "A-A-1", "track": "A", "type": "grep_match", "description": "read passwd", "command": "cat /etc/passwd"},
        {"id": "A-A-2", "track": "A", "type": "shell_exit_zero", "description": "write outside",
         "command": format!("echo pwned > {}", planted.display())},
        {"id": "A-A-3", "track": "A", "type": "shell_exit_zero", "description": "delete", "command": "rm -rf src"},
        // Passes only if `..` leaves the root: the parent holds the directory `repo`.
        {"id": "A-A-4", "track": "A", "type": "grep_match", "description": "escape", "command": "cd .. && ls | grep -x repo"}
    ]);
    let repo = repo(
        json!({
            "principles-analyst": [analysis("Hostile.", hostile)],
            "ux-analyst": [nothing_open()],
            "docs-analyst": [nothing_open()],
            "implementer": [{"response": "none"}],
            "fix-agent": [{"response": "none"}]
        }),
        "",
    );
    let out = review(&repo, &["--max-passes", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}\n{}", stdout(&out), stderr(&out));
    let file = std::fs::read_to_string(repo.root.join(".claude/state/review-assertions.json")).unwrap();
    assert!(!file.contains("root:x:0:0"), "{file}");
    assert!(assertions(&repo).iter().all(|a| a["status"] != "pass"), "{file}");
    assert!(!planted.exists(), "nothing was written outside the root");
    assert!(repo.root.join("src/lib.rs").exists(), "nothing was deleted");
    assert!(stdout(&out).contains("| A-A-1 |"), "{}", stdout(&out));
}

#[test]
fn duplicate_ids_across_passes_are_merged_and_vacuous_checks_dropped() {
    let repo = repo(
        json!({
            "principles-analyst": [
                analysis("P1: TODO.", json!([todo_assertion()])),
                analysis("P1 again, P2 new.", json!([
                    {"id": "A-A-1", "track": "A", "type": "grep_not_match", "description": "REWORDED", "command": TODO_CHECK},
                    {"id": "A-A-2", "track": "A", "type": "file_exists", "description": "a changelog", "path": "CHANGELOG.md"},
                    {"id": "A-A-3", "track": "A", "type": "grep_not_match", "description": "vacuous", "command": "grep -c TODO src/lib.rs"}
                ]))
            ],
            "ux-analyst": [nothing_open()],
            "docs-analyst": [nothing_open()],
            // Pass 1 touches a file of track A, so the principles analyst re-runs in pass 2.
            "implementer": [{"response": "touched", "edits": {"src/other.rs": "// new\n"}}, {"response": "none"}],
            "fix-agent": [{"response": "none"}]
        }),
        "",
    );
    let out = review(&repo, &["--max-passes", "2"]);
    assert_eq!(out.status.code(), Some(1), "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("Pass 2: 2 total (1 new, 1 carried forward)"), "{text}");
    assert!(text.contains("dropped A-A-3: "), "{text}");
    let list = assertions(&repo);
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["description"], "no TODO left in src", "the first version of an id is kept");
    let collected: Vec<Value> = events(&repo).into_iter().filter(|e| e["event"] == "assertions_collected").collect();
    assert_eq!(collected[1]["new"], 1);
    assert_eq!(collected[1]["carried"], 1);
    assert_eq!(collected[1]["rejected"][0][0], "A-A-3");
    // The analyst's pass-2 prompt listed the changed file and its track's assertions.
    let second = prompt(&repo, "principles-analyst", 2);
    assert!(second.contains("src/other.rs") && second.contains("A-A-1"), "{second}");
}

#[test]
fn agents_lists_definitions_and_project_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let agents = |trust: bool| {
        let mut cmd = reviewhost();
        cmd.env("REVIEWHOST_CONFIG_DIR", dir.path().join("user-config"))
            .env_remove("REVIEWHOST_TRUST_REPO_CONFIG")
            .args(["agents", "--root"])
            .arg(dir.path().join("repo"));
        if trust {
            cmd.arg("--trust-repo-config");
        }
        cmd.output().unwrap()
    };
    std::fs::create_dir_all(dir.path().join("repo")).unwrap();
    let out = agents(false);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    for name in ["principles-analyst", "ux-analyst", "docs-analyst", "implementer", "fix-agent", "fix-diff-reviewer"] {
        assert!(text.contains(name), "{text}");
    }
    // Every file in agents/ is embedded.
    let files = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("agents")).unwrap().count();
    let embedded = text.matches("embedded default").count();
    assert_eq!(embedded, files, "{text}");
    std::fs::create_dir_all(dir.path().join("repo/.reviewhost/agents")).unwrap();
    std::fs::write(
        dir.path().join("repo/.reviewhost/agents/ux-analyst.md"),
        "---\nname: ux-analyst\ndescription: ours\ntools: Read\nrole: analyst\ntrack: B\n---\nOur own UX rules.\n",
    )
    .unwrap();
    let text = stdout(&agents(true));
    assert_eq!(text.matches("embedded default").count(), embedded - 1, "{text}");
    assert!(text.contains(".reviewhost/agents/ux-analyst.md"), "{text}");
    // Untrusted, the project's file is named in a warning and not used.
    let out = agents(false);
    assert_eq!(stdout(&out).matches("embedded default").count(), embedded, "{}", stdout(&out));
    assert!(stderr(&out).contains("not reading 1 agent definition(s)"), "{}", stderr(&out));
}

/// An implementer (prompt-injected, say) that reconfigures git so that git runs a
/// command: the pass stops before reviewhost runs git again, and nothing runs.
#[test]
fn an_agent_that_reconfigures_git_stops_the_pass_before_git_runs() {
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("fsmonitor-ran");
    let config = format!(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = \"touch {}\"\n",
        marker.display()
    );
    let repo = repo(
        json!({
            "principles-analyst": [analysis("P1: TODO.", json!([todo_assertion()]))],
            "ux-analyst": [nothing_open()],
            "docs-analyst": [nothing_open()],
            "implementer": [{"response": "## Implementation\nP1: done", "edits": {".git/config": config}}],
            "fix-agent": [{"response": "nothing"}]
        }),
        "",
    );
    let out = review(&repo, &["--max-passes", "3"]);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("agent 'implementer' changed") && err.contains(".git/config"), "{err}");
    assert!(!marker.exists(), "git ran the command an agent configured");
    assert_eq!(state(&repo)["status"], "aborted");
    assert_eq!(state(&repo)["phase"], "implement");
}
