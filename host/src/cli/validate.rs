//! `reviewhost validate`: an assertions file against the schema, without running it.

use std::io::Write;
use std::path::PathBuf;

use reviewhost::assertion;
use reviewhost::report::inert_lines;

use crate::exit::Exit;

#[derive(clap::Args)]
#[command(after_help = "\
Lists every violation with its JSON pointer, then the checks the schema cannot express
(duplicate ids).

Examples:
  reviewhost validate
  reviewhost validate review.json

Exit codes: 0 valid, 1 invalid (every problem listed), 2 the file could not be read.")]
pub struct ValidateArgs {
    /// The assertions file [default: $ASSERTIONS_FILE, else .claude/state/review-assertions.json]
    file: Option<PathBuf>,
}

pub fn validate(args: ValidateArgs) -> anyhow::Result<Exit> {
    let file = args.file.unwrap_or_else(reviewhost::run::default_file);
    let bytes = assertion::read(&file)?;
    let problems = assertion::schema::problems(&file, &bytes);
    let mut stdout = std::io::stdout().lock();
    for problem in &problems {
        writeln!(stdout, "{}", inert_lines(problem, ""))?;
    }
    if problems.is_empty() {
        writeln!(stdout, "{}: valid", file.display())?;
    } else {
        writeln!(stdout, "{}: {} problem(s)", file.display(), problems.len())?;
    }
    Ok(Exit::clean_if(problems.is_empty()))
}
