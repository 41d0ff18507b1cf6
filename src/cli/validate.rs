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
  reviewhost validate review.json .claude/state/review-assertions.json

Exit codes: 0 valid, 1 invalid (every problem listed), 2 the file could not be read.")]
pub struct ValidateArgs {
    /// The assertions files [default: $ASSERTIONS_FILE, else .claude/state/review-assertions.json]
    files: Vec<PathBuf>,
}

pub fn validate(args: ValidateArgs) -> anyhow::Result<Exit> {
    let files = match args.files {
        files if files.is_empty() => vec![reviewhost::run::default_file()],
        files => files,
    };
    let mut stdout = std::io::stdout().lock();
    let mut valid = true;
    for file in files {
        let bytes = assertion::read(&file)?;
        let problems = assertion::schema::problems(&file, &bytes);
        for problem in &problems {
            writeln!(stdout, "{}", inert_lines(problem, ""))?;
        }
        let shown = inert_lines(&file.display().to_string(), "");
        if problems.is_empty() {
            writeln!(stdout, "{shown}: valid")?;
        } else {
            writeln!(stdout, "{shown}: {} problem(s)", problems.len())?;
        }
        valid &= problems.is_empty();
    }
    Ok(Exit::clean_if(valid))
}
