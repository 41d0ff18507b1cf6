//! The corpus commands that run `git` (`../shared/corpus/agent-commands/commands.jsonl`
//! lines 75, 80, 82, 90 and 102, from a repository whose sprints are guarded by
//! "no prior-sprint file modified" checks), run by the interpreter with the sandbox's
//! git and by the real `bash -c` with the real git in the same repository: stdout and
//! status must agree, and the verdict must be the one the repository deserves — PASS
//! on a clean history, FAIL where a prior sprint's file was modified.
//!
//! Skips with a message when the shared corpus is absent or git or bash is not
//! installed.

use std::path::{Path, PathBuf};
use std::process::Command;

use reviewhost_check_shell::{exec, lookup, parse};
use reviewhost_tool::{Ctx, NO_LIMIT};

/// The corpus lines (1-based) of the git commands.
const LINES: [usize; 5] = [75, 80, 82, 90, 102];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/agent-commands/commands.jsonl")
}

fn commands() -> Option<Vec<(usize, String)>> {
    let text = std::fs::read_to_string(corpus()).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    Some(
        LINES
            .iter()
            .map(|&n| {
                let v: serde_json::Value = serde_json::from_str(lines[n - 1]).expect("a JSON line");
                (n, v["command"].as_str().expect("a command").to_string())
            })
            .collect(),
    )
}

fn have(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// The real git with a fixed identity and clock, and no user or system config.
fn git(dir: &Path, args: &[&str], step: u32) {
    let stamp = format!("2025-01-{:02}T10:00:00+0000", 1 + step);
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Agent")
        .env("GIT_AUTHOR_EMAIL", "agent@example.com")
        .env("GIT_COMMITTER_NAME", "Agent")
        .env("GIT_COMMITTER_EMAIL", "agent@example.com")
        .env("GIT_AUTHOR_DATE", &stamp)
        .env("GIT_COMMITTER_DATE", &stamp)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

fn write(dir: &Path, path: &str, text: &str) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A project with sprints of two phases on `main` and sprint 5 on the branch `work`
/// (checked out). With `violate`, sprint commits touch earlier sprints' contracts and
/// evals, pyproject.toml names a banned dependency, and an eval has an uncommitted edit.
fn build(dir: &Path, violate: bool) {
    let mut step = 0;
    let mut commit = |message: &str| {
        step += 1;
        git(dir, &["add", "-A"], step);
        git(dir, &["commit", "-q", "-m", message], step);
    };
    git(dir, &["init", "-q", "-b", "main"], 0);
    write(dir, "pyproject.toml", "[project]\nname = \"trine-eval\"\ndependencies = [\"pydantic\"]\n");
    write(dir, "src/trine/__init__.py", "\"\"\"Trine.\"\"\"\n");
    write(dir, "tests/test_basic.py", "def test_ok():\n    assert True\n");
    write(dir, ".harness/contracts/sprint-01.md", "# Sprint 01\n\n- [x] scaffold\n");
    write(dir, ".harness/evals/sprint-01.md", "# Eval 01\n\nscore: 9\n");
    commit("chore: scaffold (sprint-01)");
    write(dir, ".harness/contracts/sprint-02.md", "# Sprint 02\n\n- [x] models\n");
    write(dir, ".harness/evals/sprint-02.md", "# Eval 02\n\nscore: 8\n");
    write(dir, "src/trine/models.py", "class Model:\n    pass\n");
    commit("feat: models (sprint-02)\n\ncomplete sprint 02 (Phase 1)");
    write(dir, ".harness/contracts/phase-02/sprint-03.md", "# Phase 2 sprint 03\n\n- [x] runner\n");
    write(dir, ".harness/evals/phase-02/sprint-03.md", "# Phase 2 eval 03\n");
    write(dir, "src/trine/runner.py", "def run():\n    return 1\n");
    commit("chore: complete sprint 03 (Phase 2)");
    write(dir, ".harness/contracts/phase-02/sprint-04.md", "# Phase 2 sprint 04\n\n- [ ] scoring\n");
    write(dir, "src/trine/scoring.py", "def score(x):\n    return x\n");
    commit("feat: scoring (sprint-04)");
    write(dir, "src/trine/scoring.py", "def score(x):\n    return x * 2\n");
    if violate {
        write(
            dir,
            ".harness/contracts/phase-02/sprint-03.md",
            "# Phase 2 sprint 03\n\n- [x] runner\n- [x] rewritten later\n",
        );
    }
    commit("fix: double the score (sprint-04)");
    write(dir, ".harness/contracts/phase-02/sprint-04.md", "# Phase 2 sprint 04\n\n- [x] scoring\n");
    commit("chore: complete sprint 04 (Phase 2)");
    git(dir, &["checkout", "-q", "-b", "work"], 0);
    write(dir, "src/trine/report.py", "def report():\n    return \"ok\"\n");
    write(dir, ".harness/contracts/phase-02/sprint-05.md", "# Phase 2 sprint 05\n");
    if violate {
        write(dir, ".harness/contracts/sprint-01.md", "# Sprint 01\n\n- [x] scaffold\n- [x] amended\n");
        write(
            dir,
            "pyproject.toml",
            "[project]\nname = \"trine-eval\"\ndependencies = [\"pydantic\", \"langgraph\"]\n",
        );
    }
    commit("feat: report (sprint-05)");
    if violate {
        write(dir, ".harness/evals/sprint-02.md", "# Eval 02\n\nscore: 10\n");
    }
}

/// The real bash and git in `dir`.
fn real(dir: &Path, command: &str) -> (String, i32) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_PAGER", "cat")
        .output()
        .expect("bash runs");
    (String::from_utf8_lossy(&out.stdout).into(), out.status.code().unwrap_or(-1))
}

/// The interpreter, with the sandbox's programs, on the same directory.
fn sandboxed(dir: &Path, command: &str) -> (String, i32, String) {
    let script = parse::parse(command).unwrap_or_else(|e| panic!("{command}: {e}"));
    let run = exec::run(&script, Ctx::new(dir), lookup, NO_LIMIT);
    let trouble = run.trouble.iter().map(|t| t.to_string()).collect::<Vec<_>>().join("; ");
    (String::from_utf8_lossy(&run.stdout).into(), run.status, trouble)
}

fn check(violate: bool) {
    check_with(violate, |_| {}, true);
}

/// Builds the repository, lets `adjust` change it, then compares every command; with
/// `verdicts`, also that each passes (clean history) or fails (violations).
fn check_with(violate: bool, adjust: impl Fn(&Path), verdicts: bool) {
    let Some(commands) = commands() else {
        eprintln!("skipped: {} is not there (the shared corpus sits beside the repository)", corpus().display());
        return;
    };
    if !have("git") || !have("bash") {
        eprintln!("skipped: git or bash is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), violate);
    adjust(dir.path());
    for (line, command) in commands {
        let (want, want_status) = real(dir.path(), &command);
        let (got, status, trouble) = sandboxed(dir.path(), &command);
        println!("line {line} ({}): status {status}\n{got}", if violate { "fail case" } else { "pass case" });
        assert_eq!((&got, status), (&want, want_status), "line {line}: {command}\ntrouble: {trouble}");
        assert!(
            !verdicts || (status == 0) != violate,
            "line {line}: the check must {}\n{got}",
            if violate { "fail" } else { "pass" }
        );
    }
}

#[test]
fn git_checks_pass_on_a_clean_history() {
    check(false);
}

#[test]
fn git_checks_fail_where_a_prior_sprint_was_modified() {
    check(true);
}

/// Line 90 falls back on `git rev-parse HEAD~$(git rev-list --count HEAD)^` when there is
/// no `main`: that names no commit, git prints the name it could not resolve, and the
/// diff of that "range" fails, so the check passes even with violations. The sandbox
/// must reproduce exactly that, output and status.
#[test]
fn without_a_main_branch_the_fallback_behaves_as_in_git() {
    check_with(true, |dir| git(dir, &["branch", "-m", "main", "trunk"], 0), false);
}
