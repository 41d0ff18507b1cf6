//! What a person at a terminal sees, and what a pipe or a CI log does not: a progress
//! bar (stderr on a terminal, outside CI, once a run takes a moment) and colour (stdout
//! on a terminal, without `NO_COLOR`). Driven through a real pseudo-terminal. Also:
//! every example in every `--help` runs.

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;

use crate::components;
use crate::support::*;

/// A pseudo-terminal: (the side we read, the side the child writes to).
pub(crate) fn pty() -> (std::fs::File, OwnedFd) {
    let (mut controller, mut terminal) = (-1, -1);
    // SAFETY: openpty writes two new descriptors into the out-parameters; the name,
    // termios and window-size arguments may be null.
    let rc = unsafe {
        libc::openpty(&mut controller, &mut terminal, std::ptr::null_mut(), std::ptr::null(), std::ptr::null())
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned by nobody else.
    unsafe { (std::fs::File::from_raw_fd(controller), OwnedFd::from_raw_fd(terminal)) }
}

/// Runs `cmd` with stdout (or stderr) on a terminal; returns (terminal text, pipe text).
fn on_terminal(mut cmd: Command, stream: &str) -> (String, String) {
    let (mut controller, terminal) = pty();
    match stream {
        "stdout" => cmd.stdout(Stdio::from(terminal)).stderr(Stdio::piped()),
        _ => cmd.stderr(Stdio::from(terminal)).stdout(Stdio::piped()),
    };
    let mut child = cmd.stdin(Stdio::null()).spawn().unwrap();
    // Our copies of the terminal side are gone (moved into the Command, dropped with it),
    // so reading ends with EIO once the child exits.
    drop(cmd);
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = controller.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&seen).into_owned()
    });
    let mut piped = String::new();
    match stream {
        "stdout" => child.stderr.take().unwrap().read_to_string(&mut piped).unwrap(),
        _ => child.stdout.take().unwrap().read_to_string(&mut piped).unwrap(),
    };
    assert!(matches!(child.wait().unwrap().code(), Some(0 | 1)));
    (reader.join().unwrap(), piped)
}

/// A run that takes about two seconds (a validator that computes for 2 s) and fails once.
fn slow_repository() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = assertions_file(
        dir.path(),
        json!([
            {"id": "SLOW", "type": "custom", "description": "slow", "component": components::PROBE,
             "config": {"busy_ms": 2000, "pass": true}},
            {"id": "MISSING", "type": "file_exists", "description": "fails", "path": "missing"}
        ]),
    );
    (dir, file)
}

fn terminal_run(file: &Path, root: &Path) -> Command {
    let mut cmd = reviewhost();
    cmd.env_remove("NO_COLOR").env_remove("CI").env_remove("CLICOLOR_FORCE").env("TERM", "xterm");
    cmd.arg("run").arg(file).arg("--root").arg(root).arg("--no-write");
    cmd
}

#[test]
fn a_progress_bar_on_a_terminal_never_in_a_pipe_or_ci() {
    let (dir, file) = slow_repository();
    let (terminal, piped_stdout) = on_terminal(terminal_run(&file, dir.path()), "stderr");
    assert!(terminal.contains("assertions"), "progress bar on the terminal: {terminal:?}");
    assert!(!piped_stdout.contains('\r') && !piped_stdout.contains("\x1b["), "{piped_stdout:?}");

    let mut ci = terminal_run(&file, dir.path());
    ci.env("CI", "true");
    let (terminal, _) = on_terminal(ci, "stderr");
    assert!(!terminal.contains("assertions"), "no progress bar in CI: {terminal:?}");

    let mut quiet = terminal_run(&file, dir.path());
    quiet.arg("--quiet");
    let (terminal, _) = on_terminal(quiet, "stderr");
    assert!(!terminal.contains("assertions"), "no progress bar with --quiet: {terminal:?}");

    let piped = terminal_run(&file, dir.path()).output().unwrap();
    assert!(!stderr(&piped).contains("assertions"), "no progress bar in a pipe: {}", stderr(&piped));
}

#[test]
fn colour_on_a_terminal_only_and_never_with_no_color() {
    let dir = tempfile::tempdir().unwrap();
    let file = assertions_file(dir.path(), json!([{"id": "M", "type": "file_exists", "path": "missing"}]));
    let (terminal, _) = on_terminal(terminal_run(&file, dir.path()), "stdout");
    assert!(terminal.contains("\x1b[") && terminal.contains("Failure:"), "{terminal:?}");

    let mut no_color = terminal_run(&file, dir.path());
    no_color.env("NO_COLOR", "1");
    let (terminal, _) = on_terminal(no_color, "stdout");
    assert!(!terminal.contains("\x1b[") && terminal.contains("Failure:"), "{terminal:?}");

    let piped = terminal_run(&file, dir.path()).output().unwrap();
    assert!(!stdout(&piped).contains("\x1b[") && stdout(&piped).contains("Failure:"), "{}", stdout(&piped));
}

#[test]
fn quiet_and_verbose() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\nTODO two\n").unwrap();
    let file = assertions_file(
        dir.path(),
        json!([
            {"id": "OK", "type": "file_exists", "path": "a.txt"},
            {"id": "BAD", "type": "grep_not_match", "command": "grep -Hn TODO a.txt"}
        ]),
    );
    let quiet = stdout(&run(&file, dir.path(), &["--quiet", "--no-write"]));
    assert!(!quiet.contains("OK") && quiet.contains("BAD") && quiet.contains("Confidence: 50%"), "{quiet}");
    let verbose = stdout(&run(&file, dir.path(), &["--verbose", "--no-write"]));
    assert!(verbose.contains("OK") && verbose.contains(" ms)"), "{verbose}");
    assert!(verbose.contains("a.txt:2: TODO two"), "evidence is shown: {verbose}");
}

/// The `Examples:` lines of a subcommand's `--help`.
fn examples(subcommand: &str) -> Vec<String> {
    let out = reviewhost().args([subcommand, "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{subcommand} --help");
    let help = stdout(&out);
    let start = help.find("Examples:\n").unwrap_or_else(|| panic!("{subcommand} --help has no examples:\n{help}"));
    help[start + "Examples:\n".len()..]
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_string())
        .collect()
}

/// `init` writes the user's configuration and `mcp` serves a client until stdin closes:
/// each example runs with a HOME of its own, stdin closed.
#[test]
fn init_and_mcp_help_examples_run() {
    let bin = Path::new(env!("CARGO_BIN_EXE_reviewhost")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    for subcommand in ["init", "mcp"] {
        for example in examples(subcommand) {
            let here = tempfile::tempdir().unwrap();
            let out = Command::new("sh")
                .arg("-c")
                .arg(&example)
                .current_dir(here.path())
                .env("PATH", &path)
                .env("HOME", here.path())
                .env("REVIEWHOST_CACHE_DIR", cache_dir())
                .env("REVIEWHOST_CACHE_KEY", cache_key_path())
                .env_remove("XDG_CONFIG_HOME")
                .env_remove("REVIEWHOST_CONFIG_DIR")
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "`{example}`:\n{}{}", stdout(&out), stderr(&out));
            ran += 1;
        }
    }
    assert!(ran >= 5, "{ran} examples");
}

#[test]
fn every_help_example_runs() {
    // A working directory with everything the examples name: the default assertions
    // file, review.json, the bundled example, a validator and its fixtures.
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    copy_tree(&repo.join("examples/basic"), &here.join("examples/basic"));
    for name in ["review.json", ".claude/state/review-assertions.json"] {
        std::fs::create_dir_all(here.join(name).parent().unwrap()).unwrap();
        std::fs::copy(repo.join("examples/basic/assertions.json"), here.join(name)).unwrap();
    }
    copy_tree(&repo.join("examples/basic"), &here.join("review-root"));
    std::fs::copy(components::EXAMPLE_LICENSE_HEADER, here.join("license_check.wasm")).unwrap();
    let case = here.join("fixtures/has-header");
    std::fs::create_dir_all(case.join("root/src")).unwrap();
    std::fs::write(case.join("root/src/lib.rs"), "// SPDX-License-Identifier: MIT\nfn f() {}\n").unwrap();
    std::fs::write(
        case.join("case.json"),
        r#"{"config": {"files": ["src/**/*.rs"], "header": "// SPDX-License-Identifier: MIT"}, "expect": {"status": "pass"}}"#,
    )
    .unwrap();

    // Agents for `reviewhost review`: every one answers that nothing is open.
    let agent = repo.join("tests/agents/scripted_agent.py");
    let quiet = json!({"response": "Nothing open.\n\n## Assertions\n\n```json\n[]\n```\n"});
    // And for `reviewhost plan`, in `.` and in `service/`: answers that meet each phase's contract.
    let plan = "## Goal\ng\n## Scope\ns\n## Non-Scope\nn\n## Steps\n1. src/lib.rs\n## Verification\nv\n## Risks\nr\n## Open Questions\nq\n";
    let say = |text: &str| json!({"response": text});
    let critique: Vec<String> = (1..=6).map(|p| format!("{p}. P{p}: PASS")).collect();
    let script = json!({"principles-analyst": [quiet], "ux-analyst": [quiet], "docs-analyst": [quiet],
                        "implementer": [{"response": "done"}], "fix-agent": [{"response": "done"}],
                        "plan-understand": [say("1. problem\n2. success\n3. constraint\n")],
                        "plan-explore": [say("src/lib.rs and src/main.rs")],
                        "plan-alternatives": [say("1. a, pros\n2. b, cons\nI recommend a.")],
                        "plan-draft": [say(plan)],
                        "plan-critique": [say(&critique.join("\n"))],
                        "plan-revise": [say(plan), say(&format!("{plan}<promise>PLAN_OK</promise>"))],
                        "plan-reviewer": [say(r#"{"verdict": "approve", "findings": []}"#)],
                        "plan-author": [{"response": "written", "edits": {"plans/plan.md": TUGPLAN}}],
                        "plan-critic": [say(&json!({"findings": [], "assessment": {}, "clarifying_questions": [],
                            "area_ratings": {"internal_consistency": "PASS", "technical_soundness": "PASS",
                                             "implementability": "PASS", "completeness": "PASS", "risk_feasibility": "PASS"},
                            "recommendation": "APPROVE"}).to_string())],
                        "plan-overviewer": [say(r#"{"findings": [], "clarifying_questions": [], "assessment": "Ready.", "recommendation": "APPROVE"}"#)]});
    // And plans for `reviewhost plan-review`.
    let good =
        "---\nphase: \"01\"\nplan: \"01\"\ntitle: \"t\"\nwave: 1\ndepends_on: []\nmust_haves: [\"x\"]\n---\n# Plan\n";
    std::fs::create_dir_all(here.join("plans")).unwrap();
    std::fs::write(here.join("plans/01-01-PLAN.md"), good).unwrap();
    std::fs::write(here.join("plans/01-02-PLAN.md"), good).unwrap();
    copy_tree(&repo.join("examples/basic"), &here.join("service"));
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let config = format!(
        "[agent]\ncommand = [\"python3\", {:?}, {:?}]\n",
        agent.display().to_string(),
        script_path.display().to_string()
    );
    // The repository's own (read with --trust-repo-config), one the operator names, and
    // the user's (HOME is `here`).
    for place in ["reviewhost.toml", "review/claude.toml", ".config/reviewhost/reviewhost.toml"] {
        std::fs::create_dir_all(here.join(place).parent().unwrap()).unwrap();
        std::fs::write(here.join(place), &config).unwrap();
    }

    // A git repository on `main` (`run --changed-since HEAD`, `fix-review --since`).
    for args in [&["init", "-q", "-b", "main"][..], &["add", "-A"], &["commit", "-qm", "start"]] {
        git(here, args);
    }

    let bin = Path::new(env!("CARGO_BIN_EXE_reviewhost")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    for subcommand in [
        "run",
        "lint",
        "new",
        "test",
        "inspect",
        "schema",
        "validate",
        "completions",
        "review",
        "agents",
        "plan",
        "fix-review",
        "plan-review",
        "plan-gate",
        "merge",
    ] {
        if subcommand == "merge" {
            // The shards' JSON reports the examples merge.
            for k in 1..=3 {
                let out = reviewhost()
                    .current_dir(here)
                    .args(["run", "review.json", "--root", "review-root", "--no-write", "--shard", &format!("{k}/3")])
                    .args(["--format", "json", "-o", &format!("shard-{k}.json")])
                    .output()
                    .unwrap();
                assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
            }
        }
        if subcommand == "fix-review" {
            // The git repository holding what the examples before made, and a round's
            // findings.
            std::fs::write(here.join("round-2-findings.json"), r#"{"findings": [{"id": "QA-1", "description": "d"}]}"#)
                .unwrap();
            for args in [&["add", "-A"][..], &["commit", "-qm", "examples"]] {
                git(here, args);
            }
        }
        for example in examples(subcommand) {
            let out = Command::new("sh")
                .arg("-c")
                .arg(&example)
                .current_dir(here)
                .env("PATH", &path)
                .env("HOME", here)
                .env("REVIEWHOST_CACHE_DIR", cache_dir())
                .env("REVIEWHOST_CACHE_KEY", cache_key_path())
                .env_remove("ASSERTIONS_FILE")
                .env_remove("XDG_CONFIG_HOME")
                .env_remove("REVIEWHOST_CONFIG_DIR")
                .output()
                .unwrap();
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "`{example}` exited {:?}:\n{}{}",
                out.status.code(),
                stdout(&out),
                stderr(&out)
            );
            ran += 1;
        }
    }
    assert!(ran >= 35, "{ran} examples");
}

/// `--color always|never` overrides the terminal test, on any subcommand.
#[test]
fn color_always_and_never_override_the_terminal_test() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/basic/assertions.json");
    let root = file.parent().unwrap();
    let text = |color: &str| {
        let out = reviewhost()
            .env_remove("NO_COLOR")
            .args(["--color", color, "run"])
            .arg(&file)
            .arg("--root")
            .arg(root)
            .arg("--no-write")
            .output()
            .unwrap();
        stdout(&out)
    };
    assert!(text("always").contains("\x1b["), "a pipe gets colour when asked");
    assert!(!text("never").contains("\x1b["));
    assert!(!text("auto").contains("\x1b["), "a pipe gets none by default");
}

/// `reviewhost man` prints the man page from the same definitions as --help.
#[test]
fn the_man_page_is_generated_from_the_commands() {
    let out = reviewhost().arg("man").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let page = stdout(&out);
    assert!(
        page.contains(".TH reviewhost 1") && page.contains(".SH NAME") && page.contains(".SH SUBCOMMANDS"),
        "{page}"
    );
    for subcommand in ["run", "review", "plan", "plan\\-review", "plan\\-gate", "fix\\-review", "merge"] {
        assert!(page.contains(&format!("reviewhost\\-{subcommand}")), "{subcommand} missing from the man page");
    }
}
