//! `--format claude-hook`: the digest a coding agent's hook gives back to the model.
//!
//! In Claude Code, only a hook that exits 2 blocks the agent, and then its stderr is
//! what the model reads. So this report is short and made for a model: how many
//! assertions do not pass, then each (at most [`LISTED`]) with its id, type,
//! description and the first lines of its failure output, all [`inert`]. The CLI
//! writes it on stderr and exits 2 when something fails.

use std::io::{self, Write};

use super::{inert, inert_lines};
use crate::assertion::Status;
use crate::run::RunReport;

/// Failing assertions listed; the rest are counted.
pub const LISTED: usize = 20;
/// Characters of failure output shown per assertion.
const OUTPUT_CHARS: usize = 400;

pub fn write_digest(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    let failing: Vec<_> = report.results.iter().filter(|(_, o)| o.status != Status::Pass).collect();
    let c = report.confidence;
    if failing.is_empty() {
        return writeln!(out, "reviewhost: all {} assertions pass.", c.total);
    }
    writeln!(
        out,
        "reviewhost: {} of {} assertions do not pass (confidence {}%). Make each pass by changing the code, never \
         the assertions, then finish again:",
        failing.len(),
        c.total,
        c.percent()
    )?;
    for (assertion, outcome) in failing.iter().take(LISTED) {
        let what = if outcome.status == Status::Error { "could not be evaluated" } else { "fails" };
        writeln!(
            out,
            "- {} ({}) {what}: {}",
            inert(&assertion.id),
            inert(&assertion.type_name),
            inert(&assertion.description)
        )?;
        let output: String = outcome.message.chars().take(OUTPUT_CHARS).collect();
        let output = output.lines().take(4).collect::<Vec<_>>().join("\n");
        if !output.trim().is_empty() {
            writeln!(out, "  {}", inert_lines(&output, "  "))?;
        }
    }
    if failing.len() > LISTED {
        writeln!(out, "… and {} more (reviewhost run shows them all).", failing.len() - LISTED)?;
    }
    Ok(())
}
