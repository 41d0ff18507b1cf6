//! `reviewhost lint`: vacuous, impossible or contradictory assertions, found without
//! running them.

use std::io::Write;
use std::path::PathBuf;

use reviewhost::report::{inert, inert_lines};
use reviewhost::sandbox::Limits;

use crate::exit::Exit;

#[derive(clap::Args)]
#[command(after_help = "\
Finds: an `expected` that contradicts the `type`, an unknown type or expected value,
`grep -c` under grep_not_match (a count is always printed), `\\|` in an -E pattern or `|`
in a basic one (a literal bar), a grep_not_match on a path that does not exist, a
grep_match whose command ends with an unconditional echo, an exit-status check whose
status cannot be non-zero, and a command the sandbox refuses (an option, subcommand or
construct it does not support, a write, a program it does not have): such an assertion
is an error whatever `||`, `;` or a pipeline does after it. Each literal command is
probed alone against an empty tree; the script itself is not run.

Examples:
  reviewhost lint
  reviewhost lint review.json --root .

Exit codes: 0 no findings, 1 findings, 2 the file could not be read or is invalid.")]
pub struct LintArgs {
    /// The assertions file [default: $ASSERTIONS_FILE, else .claude/state/review-assertions.json]
    file: Option<PathBuf>,
    /// The directory the commands would see as `/`.
    #[arg(long, default_value = ".")]
    root: PathBuf,
}

pub fn lint(args: LintArgs) -> anyhow::Result<Exit> {
    let runner = crate::runner::runner(Limits::default(), None, &args.root)?;
    let file = args.file.unwrap_or_else(reviewhost::run::default_file);
    let findings = runner.lint(&file, &args.root)?;
    let mut stdout = std::io::stdout().lock();
    for (id, finding) in &findings {
        let _ = writeln!(stdout, "{}: {}", inert(id), inert_lines(finding, "    "));
    }
    let _ = writeln!(stdout, "{} finding(s) in {}", findings.len(), file.display());
    Ok(Exit::clean_if(findings.is_empty()))
}
