//! `reviewhost fix-review`: one fix round's diff reviewed (`reviewhost::review::fix_review`).

use std::path::PathBuf;

use reviewhost::report::{inert, inert_lines};
use reviewhost::sandbox::{Base, read_text};

use crate::exit::Exit;
use crate::loop_args::LoopArgs;

#[derive(clap::Args)]
#[command(after_help = "\
Reviews the changes since REF (a commit, resolved once; the working tree is snapshotted,
untracked files included) with the fix-diff-reviewer agent: the rules in .claude/rules/
and .reviewhost/rules/ whose `paths:` match a changed file (read as they were at REF), the
findings the round fixed (--findings) and the diff, in nonce'd fences; the answer must be
a JSON array of findings located in the diff (asked again once, then exit 2). Findings
that copy added lines are rejected. Findings are saved to
.reviewhost/fix-review-pass-0-round-1.json; zero findings on a diff of
--zero-findings-lines or more is recorded in .reviewhost/audit-trail.jsonl.

Examples:
  reviewhost fix-review --since HEAD
  reviewhost fix-review --since main --findings round-2-findings.json

Exit codes: 0 no critical or high finding, 1 critical or high findings, 2 could not run
(a bad REF, a prompt over --prompt-budget, an unusable answer twice, a failed agent call,
--max-cost or --max-calls reached), 130 cancelled (Ctrl-C or --cancel).")]
pub struct FixReviewArgs {
    /// Where the round started: a commit, branch or tag.
    #[arg(long, value_name = "REF", required_unless_present = "cancel")]
    since: Option<String>,
    /// The repository.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// The findings the round fixed: a JSON array of {id, description}, or {"findings": [...]}.
    #[arg(long, value_name = "FILE")]
    findings: Option<PathBuf>,
    /// Changed lines from which zero findings is recorded in the audit trail.
    #[arg(long, default_value_t = reviewhost::review::fix_review::ZERO_FINDINGS_LINES)]
    zero_findings_lines: u64,
    #[command(flatten)]
    agents: LoopArgs,
}

/// Largest `--findings` file read.
const MAX_FINDINGS_BYTES: u64 = 16 << 20;

pub fn fix_review(args: FixReviewArgs) -> anyhow::Result<Exit> {
    use reviewhost::review::ReviewError;
    use reviewhost::review::fix_review::{self, StandaloneOptions};
    if let Some(exit) = args.agents.cancel(&args.path)? {
        return Ok(exit);
    }
    let since = args.since.expect("clap requires --since without --cancel");
    let fixed = match &args.findings {
        None => Vec::new(),
        Some(path) => {
            let text = read_text(&Base::Ambient, path, MAX_FINDINGS_BYTES)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            fix_review::read_fixed(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        }
    };
    let ready = args.agents.load(&args.path)?;
    let options = StandaloneOptions {
        root: args.path,
        since,
        fixed,
        zero_findings_lines: args.zero_findings_lines,
        config: ready.config,
        definitions: ready.definitions,
        prompt_budget: ready.prompt_budget,
    };
    let result = match fix_review::standalone(&ready.runner, &options) {
        Ok(result) => result,
        // Cancelled by the operator (`--cancel`, Ctrl-C): 130, as a shell reports SIGINT.
        Err(error) if error.cancelled() => {
            eprintln!("reviewhost: {}", inert_lines(&error.to_string(), ""));
            return Ok(Exit::Ended(130));
        }
        Err(error @ ReviewError::RoundStopped(_)) => {
            eprintln!("reviewhost: {}", inert_lines(&error.to_string(), ""));
            return Ok(Exit::CouldNotRun);
        }
        Err(error) => return Err(error.into()),
    };
    for f in &result.findings {
        let lines = &f["location"]["lines"];
        println!(
            "{} {} {}:{}-{} {}",
            inert(f["id"].as_str().unwrap_or("")),
            inert(f["severity"].as_str().unwrap_or("")),
            inert(f["location"]["file"].as_str().unwrap_or("")),
            lines[0],
            lines[1],
            inert(f["title"].as_str().unwrap_or(""))
        );
    }
    for (id, why) in &result.rejected {
        println!("rejected {}: {}", inert(id), inert(why));
    }
    let blocking = result.blocking().len();
    println!(
        "{} files, {} lines changed: {} findings ({blocking} critical or high){}",
        result.files,
        result.lines_changed,
        result.findings.len(),
        if result.audited { "; zero findings on a large diff, recorded in the audit trail" } else { "" }
    );
    if let Some(path) = &result.saved {
        println!("Saved to {}", path.display());
    }
    Ok(Exit::clean_if(blocking == 0))
}
