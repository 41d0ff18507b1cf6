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
    #[error("{}: its root is {}, not {} as in {}", path.display(), theirs.display(), ours.display(), first.display())]
    OtherRoot {
        path: std::path::PathBuf,
        theirs: std::path::PathBuf,
        ours: std::path::PathBuf,
        first: std::path::PathBuf,
    },
    #[error("assertion '{id}' is in {} and in {} (a shard merged twice, or shards of different splits)", first.display(), second.display())]
    Twice { id: String, first: std::path::PathBuf, second: std::path::PathBuf },
    #[error(
        "{}: the reports' assertions file cannot be read ({reason}); merge needs it to know that every \
         assertion has a result (run merge where the shards' path to it leads to the same file)",
        file.display()
    )]
    File { file: std::path::PathBuf, reason: String },
    #[error(
        "{} of the {total} assertions of {} have no result in these reports (a shard missing, or shards run with \
         --only, --filter or --changed-since): {}",
        ids.len(),
        file.display(),
        name_some(ids)
    )]
    Missing { file: std::path::PathBuf, total: usize, ids: Vec<String> },
    #[error(
        "{} results are of assertions that are not in {} (the file changed since the shards ran): {}",
        ids.len(),
        file.display(),
        name_some(ids)
    )]
    Unknown { file: std::path::PathBuf, ids: Vec<String> },
}

/// The first ids of `ids`, quoted, and how many more.
fn name_some(ids: &[String]) -> String {
    const SHOWN: usize = 20;
    let mut text = ids.iter().take(SHOWN).map(|id| format!("'{}'", super::inert(id))).collect::<Vec<_>>().join(", ");
    if ids.len() > SHOWN {
        text.push_str(&format!(" and {} more", ids.len() - SHOWN));
    }
    text
}

/// Merges the JSON reports of the shards of one run (`(path, text)` each) into one
/// report over all their results, in the assertions file's order, with one confidence.
///
/// The reports must be of one assertions file and one root, and hold a result for each
/// assertion of that file exactly once: the file (the path the reports name) is read to
/// know its ids, and a file that cannot be read, an assertion without a result, one
/// with two, or a result of an assertion the file does not have is refused, so an
/// incomplete merge never reports the confidence of a whole run.
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
        if let Some((first, head)) = &merged
            && head.root != doc.root
        {
            return Err(MergeError::OtherRoot {
                path: path.clone(),
                theirs: doc.root.clone(),
                ours: head.root.clone(),
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
    // The file's assertions: every one must have exactly one result (duplicates were
    // refused above), and every result must be of one of them.
    let loaded =
        crate::assertion::load(&file).map_err(|e| MergeError::File { file: file.clone(), reason: e.to_string() })?;
    let known: HashMap<&str, (usize, &crate::assertion::Assertion)> =
        loaded.assertions().iter().enumerate().map(|(i, a)| (a.id.as_str(), (i, a))).collect();
    let unknown: Vec<String> =
        results.iter().filter(|r| !known.contains_key(r.id.as_str())).map(|r| r.id.clone()).collect();
    if !unknown.is_empty() {
        return Err(MergeError::Unknown { file, ids: unknown });
    }
    let missing: Vec<String> =
        loaded.assertions().iter().filter(|a| !seen.contains_key(&a.id)).map(|a| a.id.clone()).collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing { file, total: loaded.assertions().len(), ids: missing });
    }
    results.sort_by_key(|r| known.get(r.id.as_str()).map_or(usize::MAX, |(i, _)| *i));
    let pairs: Vec<_> = results
        .into_iter()
        .map(|r| {
            // Every result's id is the file's (checked above).
            let assertion = known[r.id.as_str()].1.clone();
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
