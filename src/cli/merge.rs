//! `reviewhost merge`: the JSON reports of a run's shards, as one report.

use std::path::PathBuf;

use clap::ArgAction;
use reviewhost::assertion::MAX_ASSERTIONS_BYTES;
use reviewhost::report::{self, Detail, Format};
use reviewhost::sandbox::{Base, read_text};

use crate::exit::Exit;
use crate::output::Reports;
use crate::run::{FailOn, deliver};

#[derive(clap::Args)]
#[command(after_help = "\
Reads the JSON reports the shards of one run wrote (`reviewhost run FILE --shard K/N
--format json -o shard-K.json`) and writes one report over all their results, in the
assertions file's order, with one confidence: in any format, to stdout or files, as
`reviewhost run` does. The reports must hold a result for each assertion of their file
exactly once: the assertions file they name is read (run merge where that path leads to
it) and an assertion without a result (a shard missing, or run with --only, --filter or
--changed-since), an assertion in two reports, a result of an assertion the file does not
have, reports of different files or roots, and a file that cannot be read are refused
(exit 2), naming the assertions.

Examples:
  reviewhost merge shard-1.json shard-2.json shard-3.json
  reviewhost merge shard-*.json --format sarif -o review.sarif --format junit -o junit.xml

Exit codes: 0 all pass, 1 some fail or error (see --fail-on), 2 the reports could not be
merged.")]
pub struct MergeArgs {
    /// The shards' JSON reports.
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// A report format; repeat for several. Each goes to stdout, or to the --output that follows it.
    #[arg(long, short = 'f', value_enum, action = ArgAction::Append)]
    format: Vec<Format>,
    /// Write the report of the --format before it to PATH.
    #[arg(long, short = 'o', value_name = "PATH", action = ArgAction::Append)]
    output: Vec<PathBuf>,
    /// Which outcomes make the exit code 1.
    #[arg(long, value_enum, default_value_t = FailOn::Any)]
    fail_on: FailOn,
    /// Print only the assertions that did not pass.
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub fn merge(args: MergeArgs, matches: &clap::ArgMatches) -> anyhow::Result<Exit> {
    let reports = Reports::of(&args.format, &args.output, matches)?;
    let mut texts = Vec::new();
    for path in &args.reports {
        // A shard report is at most what a run writes of an assertions file's size.
        let text = read_text(&Base::Ambient, path, MAX_ASSERTIONS_BYTES)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        texts.push((path.clone(), text));
    }
    let merged = report::merge(&texts)?;
    let detail = if args.quiet { Detail::Quiet } else { Detail::Normal };
    deliver(&merged, &reports, detail, args.fail_on)
}
