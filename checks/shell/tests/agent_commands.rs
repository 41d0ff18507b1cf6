//! Commands LLM agents really wrote to verify code (`../shared/corpus/agent-commands/`,
//! 214 from public repositories): each is parsed and run by the interpreter on an empty
//! root. Counted: how many parse, and how many run without an "unsupported" error (a
//! construct or a program the sandbox refuses); the figures are printed.
//!
//! Every command that names no program that cannot run in WASI ([`HOST_ONLY`]: runtimes
//! and toolchains, which only an operator's grant can run) must parse and run without
//! such an error, except those listed with a reason in `agent_unsupported.txt`; a listed command
//! that runs cleanly fails the test, so the list only shrinks. Skips with a message when
//! the shared corpus is not beside the repository.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use reviewhost_check_shell::exec::Trouble;
use reviewhost_check_shell::lint::{Intent, diagnose};
use reviewhost_check_shell::{exec, lookup, parse};
use reviewhost_tool::{Ctx, NO_LIMIT};
use serde_json::Value;

/// The programs of the corpus's `host_programs` that cannot run inside WASI.
const HOST_ONLY: &[&str] = &[
    "npx",
    "python",
    "python3",
    ".venv/bin/python",
    "cargo",
    "pnpm",
    "npm",
    "node",
    "bun",
    "bunx",
    "go",
    "uv",
    "pytest",
    "mypy",
    "sqlite3",
    "just",
    "./target/debug/grade",
];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/agent-commands/commands.jsonl")
}

/// `line number (1-based) → reason` from `agent_unsupported.txt`.
fn listed() -> BTreeMap<usize, String> {
    include_str!("agent_unsupported.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (n, reason) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            (n.parse().expect("a line number"), reason.trim().to_string())
        })
        .collect()
}

/// Why `command` is unsupported, or `None` when it parsed and ran without a refusal.
/// A program of [`HOST_ONLY`] reached inside the script (`bash -c 'uv run …'`) is
/// reported as `host-only: NAME`.
fn unsupported(command: &str) -> Option<String> {
    let script = match parse::parse(command) {
        Ok(script) => script,
        Err(e) => return Some(format!("parse: {e}")),
    };
    let dir = tempfile::tempdir().unwrap();
    let run = exec::run(&script, Ctx::new(dir.path()), lookup, NO_LIMIT);
    if let Some(Trouble::Unavailable(program)) =
        run.trouble.iter().find(|t| matches!(t, Trouble::Unavailable(p) if HOST_ONLY.contains(&p.as_str())))
    {
        return Some(format!("host-only: {program}"));
    }
    run.trouble.iter().find(|t| matches!(t, Trouble::Unavailable(_) | Trouble::Refused(_))).map(|t| t.to_string())
}

#[test]
fn agent_commands_run_unless_they_need_a_program_outside_the_sandbox() {
    let Ok(text) = std::fs::read_to_string(corpus()) else {
        eprintln!("skipped: {} is not there (the shared corpus sits beside the repository)", corpus().display());
        return;
    };
    let listed = listed();
    let (mut parsed, mut clean, mut inside, mut inside_clean) = (0, 0, 0, 0);
    let (mut status_checks, mut vacuous) = (0, 0);
    let mut failures = Vec::new();
    let mut stale = Vec::new();
    let rows: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for (index, row) in rows.iter().enumerate() {
        let number = index + 1;
        let command = row["command"].as_str().unwrap();
        let outside = row["host_programs"]
            .as_array()
            .map(|programs| programs.iter().filter_map(Value::as_str).any(|p| HOST_ONLY.contains(&p)))
            .unwrap_or(false);
        let why = unsupported(command);
        let outside = outside || why.as_deref().is_some_and(|w| w.starts_with("host-only: "));
        if matches!(row["type"].as_str(), Some("shell_exit_zero" | "typescript_compile"))
            && let Ok(script) = parse::parse(command)
        {
            status_checks += 1;
            let root = tempfile::tempdir().unwrap();
            vacuous += usize::from(!diagnose(&script, Intent::ExitStatus, &Ctx::new(root.path())).is_empty());
        }
        parsed += usize::from(why.as_deref().is_none_or(|w| !w.starts_with("parse:")));
        clean += usize::from(why.is_none());
        if outside {
            continue;
        }
        inside += 1;
        inside_clean += usize::from(why.is_none());
        match (why, listed.contains_key(&number)) {
            (Some(why), false) => failures.push(format!("line {number}: {command}\n  {why}")),
            (None, true) => stale.push(number),
            _ => {}
        }
    }
    eprintln!(
        "agent commands: {parsed}/{} parse, {clean}/{} run without an unsupported error; of the {inside} that \
         need no program outside the sandbox, {inside_clean} run cleanly; {vacuous} of {status_checks} \
         exit-status checks cannot fail (lint)",
        rows.len(),
        rows.len()
    );
    assert!(
        failures.is_empty() && stale.is_empty(),
        "{} command(s) unsupported and not in agent_unsupported.txt:\n{}\n\nlisted but running cleanly now: {stale:?}",
        failures.len(),
        failures.join("\n")
    );
}
