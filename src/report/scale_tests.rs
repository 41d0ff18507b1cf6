//! The report writers at CI scale: GitHub's limits on SARIF, annotations and step
//! summaries are kept, whatever the number of failing assertions.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::assertion::{self, Confidence, Status};
use crate::check::Outcome;
use crate::run::RunReport;

/// A report of `n` assertions in a file written to `dir`, each failing with a message of
/// `message_bytes` bytes.
fn failing(dir: &Path, n: usize, message_bytes: usize) -> RunReport {
    let list: Vec<Value> = (0..n)
        .map(|i| json!({"id": format!("A-{i}"), "type": "file_exists", "path": "x", "description": format!("check {i}")}))
        .collect();
    let path: PathBuf = dir.join("assertions.json");
    std::fs::write(&path, serde_json::to_string_pretty(&json!({"assertions": list})).unwrap()).unwrap();
    let file = assertion::load(&path).unwrap();
    let outcome = Outcome {
        status: Status::Fail,
        message: "m".repeat(message_bytes),
        evidence: Vec::new(),
        duration: Duration::ZERO,
    };
    RunReport {
        file: path,
        root: dir.to_path_buf(),
        results: file.assertions().iter().map(|a| (a.clone(), outcome.clone())).collect(),
        confidence: Confidence::new(0, n),
        shard: None,
        confinement: None,
    }
}

#[test]
fn sarif_has_rules_only_for_results_and_stops_at_githubs_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut report = failing(dir.path(), super::sarif::MAX_RESULTS + 7, 10);
    // Passing assertions get neither a result nor a rule.
    report.results[0].1.status = Status::Pass;
    let mut out = Vec::new();
    super::sarif::write_sarif(&report, &mut out).unwrap();
    let sarif: Value = serde_json::from_slice(&out).unwrap();
    let run = &sarif["runs"][0];
    let (rules, results) = (run["tool"]["driver"]["rules"].as_array().unwrap(), run["results"].as_array().unwrap());
    assert_eq!((rules.len(), results.len()), (super::sarif::MAX_RESULTS, super::sarif::MAX_RESULTS));
    assert_eq!(rules[0]["id"], "A-1");
    assert!(results.iter().enumerate().all(|(i, r)| r["ruleIndex"] == i && rules[i]["id"] == r["ruleId"]));
    // Each result is placed at its assertion's own line.
    assert_eq!(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 10);
    let note = run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"].as_str().unwrap();
    assert!(note.starts_with("6 more failing assertions are not in this SARIF file"), "{note}");
}

#[test]
fn annotations_stop_at_ten_per_kind_and_count_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut report = failing(dir.path(), 40, 10);
    for (_, outcome) in report.results.iter_mut().skip(30) {
        outcome.status = Status::Error;
    }
    let mut out = Vec::new();
    super::github::write_annotations(&report, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("::error ")).count(), 10);
    assert_eq!(text.lines().filter(|l| l.starts_with("::warning ")).count(), 10);
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("::notice title=reviewhost::20 more failing assertions are not annotated"), "{last}");
}

#[test]
fn the_step_summary_stays_under_githubs_cap() {
    let dir = tempfile::tempdir().unwrap();
    let mut report = failing(dir.path(), 8000, 10);
    for (assertion, _) in &mut report.results {
        assertion.description = "d".repeat(300);
    }
    let summary = dir.path().join("summary.md");
    super::github::write_step_summary(&report, &summary).unwrap();
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(text.len() < 1 << 20, "{} bytes", text.len());
    assert!(text.contains("more failing assertions not listed: a step summary holds at most 1 MiB"));
}
