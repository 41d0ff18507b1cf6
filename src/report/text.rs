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
//! tell "the check says no" from "the check could not say". `--quiet` keeps only what
//! needs attention; `--verbose` adds whole messages, evidence and timings. Colour is
//! decided by the caller (a terminal, no `NO_COLOR`) and only ever decorates.
//!
//! Ids, types, descriptions, messages and evidence are untrusted: each is printed
//! [`inert`], so this report, on a terminal or in a CI log, carries no escape sequence and
//! no workflow command from them.

use std::io::{self, Write};

use anstyle::{AnsiColor, Style};

use super::{inert, inert_lines};
use crate::assertion::Status;
use crate::run::RunReport;

/// Characters of the description shown, as in the seed.
const DESCRIPTION_CHARS: usize = 60;
/// Characters of the failure shown on the terminal (the file keeps up to 500).
const FAILURE_CHARS: usize = 80;

/// How much the text report says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Only the assertions that did not pass, and the confidence line.
    Quiet,
    /// The seed's report.
    #[default]
    Normal,
    /// The seed's report plus whole messages, evidence and durations.
    Verbose,
}

/// The shape of the text report.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextStyle {
    pub detail: Detail,
    /// ANSI colour (the caller checked for a terminal and `NO_COLOR`).
    pub color: bool,
}

impl TextStyle {
    fn paint(&self, style: Style, text: &str) -> String {
        if self.color { format!("{style}{text}{style:#}") } else { text.to_string() }
    }
}

const RED: Style = AnsiColor::Red.on_default().bold();
const YELLOW: Style = AnsiColor::Yellow.on_default().bold();
const GREEN: Style = AnsiColor::Green.on_default().bold();
const DIM: Style = Style::new().dimmed();

pub fn write_text(report: &RunReport, style: &TextStyle, out: &mut dyn Write) -> io::Result<()> {
    for (assertion, outcome) in &report.results {
        if style.detail == Detail::Quiet && outcome.status == Status::Pass {
            continue;
        }
        let icon = if outcome.status == Status::Pass { '✅' } else { '❌' };
        let description: String = assertion.description.chars().take(DESCRIPTION_CHARS).collect();
        let took = match style.detail {
            Detail::Verbose => style.paint(DIM, &format!(" ({:.1} ms)", outcome.duration.as_secs_f64() * 1e3)),
            _ => String::new(),
        };
        writeln!(
            out,
            "  {icon} {}: {} — {}{took}",
            inert(&assertion.id),
            inert(&assertion.type_name),
            inert(&description)
        )?;
        let (label, color) = match outcome.status {
            Status::Pass => continue,
            Status::Fail => ("Failure", RED),
            Status::Error => ("Error", YELLOW),
        };
        let label = style.paint(color, &format!("{label}:"));
        if style.detail == Detail::Verbose {
            writeln!(out, "     {label} {}", inert_lines(&outcome.message, "       "))?;
            for e in &outcome.evidence {
                let at = e.line.map(|l| format!(":{l}")).unwrap_or_default();
                writeln!(out, "       {} {}", style.paint(DIM, &format!("{}{at}:", inert(&e.path))), inert(&e.text))?;
            }
        } else {
            let first_line = outcome.message.lines().next().unwrap_or("");
            let shown: String = first_line.chars().take(FAILURE_CHARS).collect();
            writeln!(out, "     {label} {}", inert(&shown))?;
        }
    }
    let c = report.confidence;
    let color = if c.passed == c.total { GREEN } else { RED };
    let mut line = format!("Confidence: {}% ({}/{} assertions passing)", c.percent(), c.passed, c.total);
    if let Some(shard) = report.shard {
        line.push_str(&format!(" in shard {shard}"));
    }
    writeln!(out, "\n{}", style.paint(color, &line))
}
