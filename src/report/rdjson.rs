//! reviewdog's Diagnostic Format, JSON wire form (`reviewdog -f=rdjson`): reviewdog
//! posts the diagnostics as review comments on the lines a pull request changed, on any
//! forge it supports.
//!
//! One diagnostic per location of an assertion that did not pass (each evidence line, or
//! the assertion's own line in the assertions file), so reviewdog can comment on every
//! line the check found; `code.value` is the assertion's id. `fail` is `ERROR`, `error`
//! (could not be evaluated) is `WARNING`. `original_output` keeps the whole result text.

use std::io::{self, Write};

use serde::Serialize;

use super::{Places, details, headline};
use crate::assertion::Status;
use crate::run::RunReport;

#[derive(Serialize)]
struct DiagnosticResult<'a> {
    source: Source,
    diagnostics: Vec<Diagnostic<'a>>,
}

#[derive(Serialize, Clone)]
struct Source {
    name: &'static str,
}

#[derive(Serialize)]
struct Diagnostic<'a> {
    message: String,
    location: Location,
    severity: &'static str,
    source: Source,
    code: Code<'a>,
    original_output: String,
}

#[derive(Serialize)]
struct Location {
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    range: Option<Range>,
}

#[derive(Serialize)]
struct Range {
    start: Position,
}

#[derive(Serialize)]
struct Position {
    line: u32,
}

#[derive(Serialize)]
struct Code<'a> {
    value: &'a str,
}

/// Diagnostics per assertion: the first ten of its locations, as in SARIF.
const MAX_LOCATIONS: usize = 10;

pub fn write_rdjson(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    let places = Places::new(report);
    let source = Source { name: "reviewhost" };
    let mut diagnostics = Vec::new();
    for (assertion, outcome) in &report.results {
        let severity = match outcome.status {
            Status::Pass => continue,
            Status::Fail => "ERROR",
            Status::Error => "WARNING",
        };
        let message = headline(assertion, outcome, &outcome.message);
        let text = details(outcome);
        for place in places.locations(assertion, outcome).into_iter().take(MAX_LOCATIONS) {
            diagnostics.push(Diagnostic {
                message: message.clone(),
                location: Location {
                    path: place.path,
                    range: place.line.map(|line| Range { start: Position { line: line.max(1) } }),
                },
                severity,
                source: source.clone(),
                code: Code { value: &assertion.id },
                original_output: text.clone(),
            });
        }
    }
    serde_json::to_writer_pretty(&mut *out, &DiagnosticResult { source, diagnostics })?;
    writeln!(out)
}
