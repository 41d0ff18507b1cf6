//! Built-in check for the command types: `grep_match`, `grep_not_match`,
//! `shell_exit_zero`, `typescript_compile`.
//!
//! The command string an analyst wrote is parsed ([`parse`]) and interpreted ([`exec`])
//! inside the component: no host shell ever sees it. Programs are the sandboxed
//! implementations in `reviewhost-grep`, `reviewhost-coreutils`, `reviewhost-awk` and
//! `reviewhost-git`; anything else exits
//! 127 and makes the assertion an error. [`judge`] turns the run into a verdict by the
//! rule the host chose; [`lint`] adds diagnostics for vacuous checks.
//!
//! The input is a [`ShellInput`]: the command, the rule the host chose, the intent the
//! lint diagnostics depend on and, for `reviewhost lint`, [`Mode::Lint`], which returns
//! the diagnostics as evidence without running the script (its literal commands are
//! probed one at a time against an empty tree for refusals, [`lint::refusals`]), and [`Mode::Plan`], which returns the
//! searches the command makes ([`plan`]) for the run's shared first pass.

mod arith;
pub mod exec;
mod glob;
#[cfg(all(feature = "granted", target_arch = "wasm32"))]
mod granted;
pub mod judge;
pub mod lint;
pub mod parse;
pub mod plan;
mod vars;

use reviewhost_guest::{Check, Verdict};
use reviewhost_protocol::{Mode, ShellInput, ShellOutput};
use reviewhost_tool::{Ctx, Program};

pub struct ShellCheck;

/// Every program the sandbox has.
pub fn lookup(name: &str) -> Option<Program> {
    reviewhost_grep::lookup(name)
        .or_else(|| reviewhost_coreutils::lookup(name))
        .or_else(|| reviewhost_awk::lookup(name))
        .or_else(|| reviewhost_git::lookup(name))
}

/// Granted host programs: the `programs` import in the component built with the
/// `granted` feature, none otherwise.
#[cfg(all(feature = "granted", target_arch = "wasm32"))]
const HOST: Option<exec::HostProgram> = Some(granted::run);
#[cfg(not(all(feature = "granted", target_arch = "wasm32")))]
const HOST: Option<exec::HostProgram> = None;

/// Evaluates an input with the root at `root` (`/` in the component).
pub fn evaluate_at(input: &str, root: &std::path::Path) -> Result<Verdict, String> {
    evaluate_with(input, root, HOST)
}

/// [`evaluate_at`] with `host` for the programs the sandbox does not have.
pub fn evaluate_with(input: &str, root: &std::path::Path, host: Option<exec::HostProgram>) -> Result<Verdict, String> {
    let input: ShellInput = serde_json::from_str(input).map_err(|e| format!("invalid input: {e}"))?;
    let script = parse::parse(&input.command).map_err(|e| format!("unsupported command: {e}"))?;
    let ctx = Ctx::new(root).with_host_roots(input.root_paths);
    if input.mode == Mode::Plan {
        let plans = plan::searches(&script, &ctx);
        let json = serde_json::to_string(&plans).map_err(|e| e.to_string())?;
        return Ok(Verdict { passed: true, message: json, evidence: Vec::new() });
    }
    let mut notes = lint::diagnose(&script, input.intent, &ctx);
    if input.mode == Mode::Lint {
        notes.extend(lint::refusals(&script, lookup, host.is_some()));
        let verdict = if notes.is_empty() { Verdict::pass("no findings") } else { Verdict::fail("findings") };
        return Ok(notes.into_iter().fold(verdict, |v, note| v.with_evidence("", None, note)));
    }
    if input.mode == Mode::Output {
        let run = execute(&script, ctx, host, ShellOutput::MAX_BYTES + 1);
        let text =
            |bytes: &[u8]| String::from_utf8_lossy(&bytes[..bytes.len().min(ShellOutput::MAX_BYTES)]).into_owned();
        let output = ShellOutput {
            status: run.status,
            stdout: text(&run.stdout),
            stderr: text(&run.stderr),
            cut: run.stdout.len() > ShellOutput::MAX_BYTES || run.stderr.len() > ShellOutput::MAX_BYTES,
            trouble: run.trouble.iter().map(ToString::to_string).collect(),
        };
        let json = serde_json::to_string(&output).map_err(|e| e.to_string())?;
        return Ok(Verdict { passed: run.status == 0, message: json, evidence: Vec::new() });
    }
    let run = execute(&script, ctx, host, judge::stdout_limit(&input.rule));
    judge::judge(&input.rule, &run, &notes)
}

fn execute(script: &parse::Script, ctx: Ctx, host: Option<exec::HostProgram>, stdout_limit: usize) -> exec::Run {
    match host {
        Some(host) => exec::run_with_host(script, ctx, lookup, host, stdout_limit),
        None => exec::run(script, ctx, lookup, stdout_limit),
    }
}

impl Check for ShellCheck {
    fn evaluate(input: &str) -> Result<Verdict, String> {
        evaluate_at(input, std::path::Path::new("/"))
    }
}

reviewhost_guest::export_check!(ShellCheck);
