//! JUnit XML: the one test-report format every CI system renders. A run is one
//! `<testsuite>` named after the assertions file; each assertion is a `<testcase>`
//! (`name` = id and description, `classname` = type). A `fail` is a `<failure>` (the
//! check says no), an `error` an `<error>` (the check could not say); both carry the
//! first line of the message as `message` and the whole message plus evidence as text.

use std::io::{self, Write};

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{details, file_label};
use crate::assertion::Status;
use crate::run::RunReport;

pub fn write_junit(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    let mut suite = TestSuite::new(file_label(report));
    let mut total = std::time::Duration::ZERO;
    for (assertion, outcome) in &report.results {
        let status = match outcome.status {
            Status::Pass => TestCaseStatus::success(),
            Status::Fail | Status::Error => {
                let kind = if outcome.status == Status::Fail { NonSuccessKind::Failure } else { NonSuccessKind::Error };
                let mut status = TestCaseStatus::non_success(kind);
                status
                    .set_message(outcome.message.lines().next().unwrap_or(""))
                    .set_type(assertion.type_name.as_str())
                    .set_description(details(outcome));
                status
            }
        };
        // The name is the id alone: CI systems key timing history and flakiness on it,
        // and a reworded description must not make a new test.
        let mut case = TestCase::new(assertion.id.as_str(), status);
        case.set_classname(format!("reviewhost.{}", assertion.type_name)).set_time(outcome.duration);
        if !assertion.description.is_empty() {
            case.set_system_out(assertion.description.as_str());
        }
        total += outcome.duration;
        suite.add_test_case(case);
    }
    suite.set_time(total);
    let mut junit = Report::new("reviewhost");
    junit.set_time(total).add_test_suite(suite);
    junit.serialize(&mut *out).map_err(io::Error::other)?;
    writeln!(out)
}
