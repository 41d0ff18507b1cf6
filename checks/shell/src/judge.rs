//! From a finished [`Run`] to a verdict, by the rule the host chose for the assertion.
//!
//! The rule comes from the host (`reviewhost_rule` in the input), which owns the meaning
//! of `type` + `expected`; this module only applies it. Whatever the rule, a program the
//! sandbox does not have, or a refused write, makes the assertion an error: such a
//! command could not run as its author meant, so neither pass nor fail would be true.

use reviewhost_guest::Verdict;
use serde::Deserialize;

use crate::exec::{Run, Trouble};

/// How a command's run is judged.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Rule {
    /// `grep_match`: stdout is not blank.
    OutputPresent,
    /// `grep_not_match`: stdout is blank and nothing failed with an error.
    OutputAbsent,
    /// `shell_exit_zero`, `typescript_compile`: exit status 0; with `quiet`, also no
    /// output at all (`expected: no_output`).
    ExitZero { quiet: bool },
    /// `expected: count:N` / `count>=N`: stdout is one integer that compares.
    Count { at_least: bool, n: u64 },
    /// `expected: equals:TEXT`: stdout, trimmed, is TEXT, trimmed.
    Equals { text: String },
}

/// Most characters of output quoted in a message; the host keeps 500 of them in the file.
const MAX_QUOTED: usize = 2000;

/// Judges `run` by `rule`. `Err` means "could not evaluate": the host reports `error`.
pub fn judge(rule: &Rule, run: &Run, notes: &[String]) -> Result<Verdict, String> {
    if let Some(t) = run.trouble.iter().find(|t| matches!(t, Trouble::Unavailable(_) | Trouble::Refused(_))) {
        return Err(t.to_string());
    }
    let failed = run.trouble.iter().find(|t| matches!(t, Trouble::Failed { .. }));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stdout = stdout.trim();
    let both = || {
        let mut all = String::from_utf8_lossy(&run.stdout).into_owned();
        all.push_str(&String::from_utf8_lossy(&run.stderr));
        all.trim().to_string()
    };
    let verdict = match rule {
        Rule::OutputPresent if !stdout.is_empty() => Verdict::pass(quote(stdout)),
        Rule::OutputPresent => match failed {
            Some(t) => return Err(format!("the command failed, so the match could not be checked: {t}")),
            None => Verdict::fail("No output — pattern not found"),
        },
        Rule::OutputAbsent if !stdout.is_empty() => Verdict::fail(quote(stdout)),
        Rule::OutputAbsent => match failed {
            Some(t) => {
                return Err(format!("no output, but only because the command failed: {t}"));
            }
            None => Verdict::pass("No output"),
        },
        Rule::ExitZero { quiet } => {
            let output = both();
            if run.status != 0 {
                Verdict::fail(if output.is_empty() { format!("exit status {}", run.status) } else { quote(&output) })
            } else if *quiet && !output.is_empty() {
                Verdict::fail(quote(&output))
            } else {
                Verdict::pass(format!("exit status 0{}", if output.is_empty() { "" } else { " with output" }))
            }
        }
        Rule::Count { at_least, n } => {
            if let Some(t) = failed.filter(|_| stdout.is_empty()) {
                return Err(format!("the command failed, so there is no count: {t}"));
            }
            let (op, holds) = match stdout.parse::<u64>() {
                Ok(count) if *at_least => (">=", count >= *n),
                Ok(count) => ("==", count == *n),
                Err(_) => return Ok(Verdict::fail(format!("expected a count, got {:?}", quote(stdout)))),
            };
            let message = format!("count {stdout} (expected {op} {n})");
            if holds { Verdict::pass(message) } else { Verdict::fail(message) }
        }
        Rule::Equals { text } => {
            if let Some(t) = failed.filter(|_| stdout.is_empty()) {
                return Err(format!("the command failed, so there is no value: {t}"));
            }
            if stdout == text.trim() {
                Verdict::pass(quote(stdout))
            } else {
                Verdict::fail(format!("expected {:?}, got {:?}", text.trim(), quote(stdout)))
            }
        }
    };
    Ok(with_notes(with_evidence(verdict, &run.stdout), notes))
}

/// Cuts quoted output to [`MAX_QUOTED`] characters.
fn quote(text: &str) -> String {
    text.chars().take(MAX_QUOTED).collect()
}

/// Most evidence entries taken from grep-style output.
const MAX_EVIDENCE: usize = 50;

/// `path:line:text` lines of the output (grep -n, rg -n) become evidence.
fn with_evidence(mut verdict: Verdict, stdout: &[u8]) -> Verdict {
    let text = String::from_utf8_lossy(stdout);
    for line in text.lines().take(MAX_EVIDENCE) {
        let mut parts = line.splitn(3, ':');
        if let (Some(path), Some(number), Some(rest)) = (parts.next(), parts.next(), parts.next())
            && let Ok(number) = number.parse::<u32>()
            && !path.is_empty()
        {
            let path = path.trim_start_matches("./").trim_start_matches('/');
            verdict = verdict.with_evidence(path, Some(number), rest.chars().take(200).collect::<String>());
        }
    }
    verdict
}

/// Diagnostics go first, so the 500 characters the file keeps include them.
fn with_notes(mut verdict: Verdict, notes: &[String]) -> Verdict {
    if !notes.is_empty() {
        let mut message: String = notes.iter().map(|n| format!("reviewhost: {n}\n")).collect();
        message.push_str(&verdict.message);
        verdict.message = message;
    }
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(status: i32, stdout: &str, trouble: Vec<Trouble>) -> Run {
        Run { status, stdout: stdout.into(), stderr: Vec::new(), trouble, programs: Vec::new() }
    }

    fn failed() -> Trouble {
        Trouble::Failed { program: "grep".into(), status: 2, message: "grep: x: No such file or directory".into() }
    }

    #[test]
    fn grep_not_match_is_not_fail_open() {
        assert!(judge(&Rule::OutputAbsent, &run(1, "", vec![]), &[]).unwrap().passed);
        assert!(!judge(&Rule::OutputAbsent, &run(0, "hit\n", vec![]), &[]).unwrap().passed);
        let err = judge(&Rule::OutputAbsent, &run(2, "", vec![failed()]), &[]).unwrap_err();
        assert!(err.contains("No such file"), "{err}");
    }

    #[test]
    fn unavailable_programs_never_pass() {
        let t = vec![Trouble::Unavailable("npx".into())];
        for rule in [Rule::OutputPresent, Rule::OutputAbsent, Rule::ExitZero { quiet: false }] {
            assert_eq!(
                judge(&rule, &run(0, "x", t.clone()), &[]).unwrap_err(),
                "program 'npx' is not available in the reviewhost sandbox"
            );
        }
    }

    #[test]
    fn counts_and_values() {
        let count = |at_least, n, out| judge(&Rule::Count { at_least, n }, &run(0, out, vec![]), &[]).unwrap().passed;
        assert!(count(false, 1, "1\n"));
        assert!(!count(false, 1, "2\n"));
        assert!(count(true, 2, "5"));
        assert!(!count(false, 1, "one"));
        let equals = |text: &str, out| judge(&Rule::Equals { text: text.into() }, &run(0, out, vec![]), &[]).unwrap();
        assert!(equals("3", "3\n").passed);
        assert!(!equals("3", "4\n").passed);
    }

    #[test]
    fn evidence_and_notes() {
        let v = judge(&Rule::OutputPresent, &run(0, "src/a.rs:12:let x = Mock;\nplain\n", vec![]), &["vacuous".into()])
            .unwrap();
        assert_eq!(v.evidence[0].path, "src/a.rs");
        assert_eq!(v.evidence[0].line, Some(12));
        assert!(v.message.starts_with("reviewhost: vacuous\n"));
    }
}
