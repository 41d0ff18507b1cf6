//! The text report, line for line the shape of seed 000's runner:
//!
//! ```text
//!   ✅ T-001: grep_not_match — empty echo has no output
//!   ❌ F-001: file_exists — missing file
//!      Failure: Not found: /nonexistent/path
//!
//! Confidence: 50% (1/2 assertions passing)
//! ```
//!
//! An `error` outcome prints `Error:` where a `fail` prints `Failure:`, so a reader can
//! tell "the check says no" from "the check could not say".

use std::io::{self, Write};

use crate::assertion::Status;
use crate::run::RunReport;

/// Characters of the description shown, as in the seed.
const DESCRIPTION_CHARS: usize = 60;
/// Characters of the failure shown on the terminal (the file keeps up to 500).
const FAILURE_CHARS: usize = 80;

pub fn write_text(report: &RunReport, out: &mut impl Write) -> io::Result<()> {
    for (assertion, outcome) in &report.results {
        let icon = if outcome.status == Status::Pass { '✅' } else { '❌' };
        let description: String = assertion.description.chars().take(DESCRIPTION_CHARS).collect();
        writeln!(out, "  {icon} {}: {} — {description}", assertion.id, assertion.type_name)?;
        let label = match outcome.status {
            Status::Pass => continue,
            Status::Fail => "Failure",
            Status::Error => "Error",
        };
        let first_line = outcome.message.lines().next().unwrap_or("");
        let shown: String = first_line.chars().take(FAILURE_CHARS).collect();
        writeln!(out, "     {label}: {shown}")?;
    }
    let c = report.confidence;
    writeln!(out, "\nConfidence: {}% ({}/{} assertions passing)", c.percent(), c.passed, c.total)
}
