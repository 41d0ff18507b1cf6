//! The JSON report: everything the text report says, plus evidence and timings, for
//! programs (an orchestrator, a CI step) that read the run rather than the file.

use std::io::{self, Write};

use serde::Serialize;

use crate::assertion::{Confidence, Status};
use crate::run::RunReport;
use crate::sandbox::Evidence;

#[derive(Serialize)]
struct Document<'a> {
    file: &'a std::path::Path,
    root: &'a std::path::Path,
    results: Vec<Result<'a>>,
    confidence: Confidence,
}

#[derive(Serialize)]
struct Result<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    type_name: &'a str,
    description: &'a str,
    status: Status,
    message: &'a str,
    evidence: &'a [Evidence],
    duration_ms: f64,
}

pub fn write_json(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    let doc = Document {
        file: &report.file,
        root: &report.root,
        results: report
            .results
            .iter()
            .map(|(a, o)| Result {
                id: &a.id,
                type_name: &a.type_name,
                description: &a.description,
                status: o.status,
                message: &o.message,
                evidence: &o.evidence,
                duration_ms: (o.duration.as_secs_f64() * 1e6).round() / 1e3,
            })
            .collect(),
        confidence: report.confidence,
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
