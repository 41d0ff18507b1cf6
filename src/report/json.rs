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
    /// How granted host programs ran; absent without grants.
    #[serde(skip_serializing_if = "Option::is_none")]
    confinement: Option<&'a str>,
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
        confinement: report.confinement,
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

/// One JSON report, read back (for `reviewhost merge`).
#[derive(serde::Deserialize)]
struct ReadDocument {
    file: std::path::PathBuf,
    root: std::path::PathBuf,
    results: Vec<ReadResult>,
}

#[derive(serde::Deserialize)]
struct ReadResult {
    id: String,
    #[serde(rename = "type")]
    type_name: String,
    #[serde(default)]
    description: String,
    status: Status,
    #[serde(default)]
    message: String,
    #[serde(default)]
    evidence: Vec<Evidence>,
    #[serde(default)]
    duration_ms: f64,
}

/// Why shard reports cannot be merged.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    #[error("{}: not a reviewhost JSON report: {reason}", path.display())]
    Report { path: std::path::PathBuf, reason: String },
    #[error("{}: its assertions file is {}, not {} as in {}", path.display(), theirs.display(), ours.display(), first.display())]
    OtherFile {
        path: std::path::PathBuf,
        theirs: std::path::PathBuf,
        ours: std::path::PathBuf,
        first: std::path::PathBuf,
    },
    #[error("assertion '{id}' is in {} and in {} (a shard merged twice, or shards of different splits)", first.display(), second.display())]
    Twice { id: String, first: std::path::PathBuf, second: std::path::PathBuf },
}

/// Merges the JSON reports of the shards of one run (`(path, text)` each) into one
/// report over all their results, with one confidence. Results keep the order of the
/// assertions file when it can be read, else the order the reports give them.
pub fn merge(reports: &[(std::path::PathBuf, String)]) -> std::result::Result<RunReport, MergeError> {
    use std::collections::HashMap;
    let mut merged: Option<(std::path::PathBuf, ReadDocument)> = None;
    let mut seen: HashMap<String, std::path::PathBuf> = HashMap::new();
    let mut results = Vec::new();
    for (path, text) in reports {
        let doc: ReadDocument =
            serde_json::from_str(text).map_err(|e| MergeError::Report { path: path.clone(), reason: e.to_string() })?;
        if let Some((first, head)) = &merged
            && head.file != doc.file
        {
            return Err(MergeError::OtherFile {
                path: path.clone(),
                theirs: doc.file.clone(),
                ours: head.file.clone(),
                first: first.clone(),
            });
        }
        for r in &doc.results {
            if let Some(first) = seen.insert(r.id.clone(), path.clone()) {
                return Err(MergeError::Twice { id: r.id.clone(), first, second: path.clone() });
            }
        }
        let ReadDocument { file, root, results: read } = doc;
        results.extend(read);
        if merged.is_none() {
            merged = Some((path.clone(), ReadDocument { file, root, results: Vec::new() }));
        }
    }
    let (file, root) = merged.map(|(_, d)| (d.file, d.root)).unwrap_or_default();
    // The file's assertions (and order), when it can be read; else each result's own
    // id, type and description (which is all a report shows of an assertion).
    let loaded = crate::assertion::load(&file).ok();
    let known: HashMap<&str, (usize, &crate::assertion::Assertion)> =
        loaded.iter().flat_map(|f| f.assertions().iter().enumerate().map(|(i, a)| (a.id.as_str(), (i, a)))).collect();
    results.sort_by_key(|r| known.get(r.id.as_str()).map_or(usize::MAX, |(i, _)| *i));
    let pairs: Vec<_> = results
        .into_iter()
        .map(|r| {
            let assertion = match known.get(r.id.as_str()) {
                Some((_, a)) => (*a).clone(),
                None => crate::assertion::Assertion {
                    object: serde_json::json!({"id": r.id, "type": r.type_name, "description": r.description})
                        .as_object()
                        .cloned()
                        .unwrap_or_default(),
                    id: r.id,
                    type_name: r.type_name,
                    kind: crate::assertion::Kind::Unknown,
                    description: r.description,
                },
            };
            let outcome = crate::check::Outcome {
                status: r.status,
                message: r.message,
                evidence: r.evidence,
                duration: std::time::Duration::from_secs_f64(r.duration_ms.max(0.0) / 1e3),
            };
            (assertion, outcome)
        })
        .collect();
    let passed = pairs.iter().filter(|(_, o)| o.status == Status::Pass).count();
    let confidence = Confidence::new(passed, pairs.len());
    Ok(RunReport { file, root, results: pairs, confidence, shard: None, confinement: None })
}
