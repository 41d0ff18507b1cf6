//! GitLab Code Quality (`artifacts:reports:codequality`): a JSON array of issues in the
//! subset of the Code Climate format GitLab reads, shown in the merge request widget and
//! its diff.
//!
//! One issue per assertion that did not pass, at its first location ([`Places`]: the
//! evidence in the code, else the assertion's own line in the assertions file), so the
//! widget lists each failing assertion once. `fingerprint` is [`super::fingerprint`]:
//! GitLab compares the issues of a merge request with those of its target branch by
//! fingerprint, so the same failure is "existing" and a new finding is "new". `fail` is
//! severity `major`, `error` (could not be evaluated) is `minor`.

use std::io::{self, Write};

use serde::Serialize;

use super::{Places, details, headline};
use crate::assertion::Status;
use crate::run::RunReport;

#[derive(Serialize)]
struct Issue<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    check_name: &'a str,
    description: String,
    categories: [&'static str; 1],
    fingerprint: String,
    severity: &'static str,
    location: IssueLocation,
}

#[derive(Serialize)]
struct IssueLocation {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: u32,
}

pub fn write_codequality(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    let places = Places::new(report);
    let mut issues = Vec::new();
    for (assertion, outcome) in &report.results {
        let severity = match outcome.status {
            Status::Pass => continue,
            Status::Fail => "major",
            Status::Error => "minor",
        };
        let place = places.locations(assertion, outcome).swap_remove(0);
        let description = headline(assertion, outcome, &details(outcome));
        issues.push(Issue {
            kind: "issue",
            check_name: &assertion.id,
            description,
            categories: ["Bug Risk"],
            fingerprint: super::fingerprint(assertion, outcome),
            severity,
            location: IssueLocation { path: place.path, lines: Lines { begin: place.line.unwrap_or(1).max(1) } },
        });
    }
    serde_json::to_writer_pretty(&mut *out, &issues)?;
    writeln!(out)
}
