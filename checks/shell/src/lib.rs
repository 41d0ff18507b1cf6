//! Built-in check for the command types: `grep_match`, `grep_not_match`,
//! `shell_exit_zero`, `typescript_compile`.
//!
//! The command string an analyst wrote is parsed ([`parse`]) and interpreted ([`exec`])
//! inside the component: no host shell ever sees it. Programs are the sandboxed
//! implementations in `reviewhost-grep` and `reviewhost-coreutils`; anything else exits
//! 127 and makes the assertion an error. [`judge`] turns the run into a verdict by the
//! rule the host chose; [`lint`] adds diagnostics for vacuous checks.
//!
//! Input fields (besides the assertion's own): `reviewhost_rule` (a [`judge::Rule`]),
//! `reviewhost_intent` (`match`, `no_match` or `other`) and, for `reviewhost lint`,
//! `reviewhost_mode: "lint"`, which returns the diagnostics as evidence without running.

pub mod exec;
mod glob;
pub mod judge;
pub mod lint;
pub mod parse;

use reviewhost_guest::{Check, Verdict};
use reviewhost_tool::{Ctx, Program};
use serde::Deserialize;

use lint::Intent;

pub struct ShellCheck;

#[derive(Deserialize)]
struct Input {
    command: String,
    reviewhost_rule: judge::Rule,
    #[serde(default)]
    reviewhost_intent: Option<String>,
    #[serde(default)]
    reviewhost_mode: Option<String>,
}

/// Every program the sandbox has.
pub fn lookup(name: &str) -> Option<Program> {
    reviewhost_grep::lookup(name).or_else(|| reviewhost_coreutils::lookup(name))
}

/// Evaluates an assertion with the root at `root` (`/` in the component).
pub fn evaluate_at(assertion: &str, root: &std::path::Path) -> Result<Verdict, String> {
    let input: Input = serde_json::from_str(assertion).map_err(|e| format!("invalid assertion: {e}"))?;
    let script = parse::parse(&input.command).map_err(|e| format!("unsupported command: {e}"))?;
    let intent = match input.reviewhost_intent.as_deref() {
        Some("match") => Intent::Match,
        Some("no_match") => Intent::NoMatch,
        _ => Intent::Other,
    };
    let ctx = Ctx::new(root);
    let notes = lint::diagnose(&script, intent, &ctx);
    if input.reviewhost_mode.as_deref() == Some("lint") {
        let verdict = if notes.is_empty() { Verdict::pass("no findings") } else { Verdict::fail("findings") };
        return Ok(notes.into_iter().fold(verdict, |v, note| v.with_evidence("", None, note)));
    }
    let run = exec::run(&script, ctx, lookup, judge::stdout_limit(&input.reviewhost_rule));
    judge::judge(&input.reviewhost_rule, &run, &notes)
}

impl Check for ShellCheck {
    fn evaluate(assertion: &str) -> Result<Verdict, String> {
        evaluate_at(assertion, std::path::Path::new("/"))
    }
}

reviewhost_guest::export_check!(ShellCheck);
