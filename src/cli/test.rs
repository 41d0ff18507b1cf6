//! `reviewhost test COMPONENT --fixtures DIR`: a validator against its fixture cases.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use reviewhost::report::{inert, inert_lines};
use reviewhost::sandbox::{Limits, parse_memory, parse_timeout};

use crate::exit::Exit;

#[derive(clap::Args)]
#[command(after_help = "\
Each case is a directory under --fixtures with a case.json and the tree to check in root/:
  {\"config\": {...}, \"expect\": {\"status\": \"pass\"|\"fail\"|\"error\", \"message_contains\": \"...\"}}

Examples:
  reviewhost test license_check.wasm --fixtures fixtures
  reviewhost test license_check.wasm --fixtures fixtures --timeout 2s --memory 64MiB

A crate from `reviewhost new NAME` builds its component to
target/wasm32-wasip2/release/NAME.wasm (with '-' as '_').

Exit codes: 0 every case as expected, 1 some not, 2 the component or fixtures are unusable.")]
pub struct TestArgs {
    /// The validator component (.wasm).
    component: PathBuf,
    /// The directory of fixture cases.
    #[arg(long)]
    fixtures: PathBuf,
    /// Time limit per case, e.g. 10s.
    #[arg(long, default_value = "10s", value_parser = parse_timeout)]
    timeout: Duration,
    /// Memory limit per case, e.g. 256MiB.
    #[arg(long, default_value = "256MiB", value_parser = parse_memory)]
    memory: u64,
}

pub fn test(args: TestArgs) -> anyhow::Result<Exit> {
    let limits = Limits { timeout: args.timeout, memory: args.memory, ..Limits::default() };
    let runner = crate::runner::runner(limits, Some(1), &args.fixtures)?;
    let spinner = crate::progress::Progress::spinner(true);
    runner.sandbox().on_compile(spinner.compile_observer());
    let results = runner.test_fixtures(&args.component, &args.fixtures);
    spinner.finish();
    let results = results?;
    let mut stdout = std::io::stdout().lock();
    let mut failed = 0;
    for case in &results {
        let ok = case.matches();
        let _ = writeln!(stdout, "  {} {}", if ok { '✅' } else { '❌' }, inert(&case.name));
        if !ok {
            failed += 1;
            let contains =
                case.expect.message_contains.as_deref().map(|m| format!(", message containing \"{}\"", inert(m)));
            let _ = writeln!(stdout, "     expected: {}{}", case.expect.status.as_str(), contains.unwrap_or_default());
            let message = inert_lines(&case.outcome.message, "               ");
            let _ = writeln!(stdout, "     actual:   {}: {message}", case.outcome.status.as_str());
        }
    }
    let _ = writeln!(stdout, "\n{} of {} cases as expected", results.len() - failed, results.len());
    Ok(Exit::clean_if(failed == 0))
}
