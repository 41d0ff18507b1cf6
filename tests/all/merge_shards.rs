//! `reviewhost merge` answers only for the whole file: each assertion of the shards'
//! assertions file has a result exactly once, in reports of one file and one root;
//! anything else is refused (exit 2) naming what is missing, doubled or foreign.

use std::path::Path;
use std::process::Output;

use reviewhost::run::Shard;
use serde_json::{Value, json};

use crate::support::*;

/// A root where every check passes, four assertions split over two non-empty shards,
/// and each shard's JSON report (`shard-1.json`, `shard-2.json`) written beside them.
fn sharded() -> (tempfile::TempDir, std::path::PathBuf, [Vec<String>; 2]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# x\n").unwrap();
    let first: Shard = "1/2".parse().unwrap();
    // Four ids, two in each shard (the split is by a hash of the id).
    let (mut one, mut two) = (Vec::new(), Vec::new());
    for i in 0.. {
        let id = format!("A-{i}");
        let side = if first.contains(&id) { &mut one } else { &mut two };
        if side.len() < 2 {
            side.push(id);
        }
        if one.len() == 2 && two.len() == 2 {
            break;
        }
    }
    let list: Vec<Value> = one
        .iter()
        .chain(&two)
        .map(|id| json!({"id": id, "type": "file_exists", "description": "readme", "path": "README.md"}))
        .collect();
    let file = assertions_file(dir.path(), Value::Array(list));
    for k in 1..=2 {
        let out = reviewhost()
            .current_dir(dir.path())
            .arg("run")
            .arg(&file)
            .args(["--root", ".", "--no-write", "--shard", &format!("{k}/2"), "--format", "json"])
            .args(["-o", &format!("shard-{k}.json")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    (dir, file, [one, two])
}

fn merge(dir: &Path, reports: &[&str]) -> Output {
    reviewhost().current_dir(dir).arg("merge").args(reports).output().unwrap()
}

fn read(dir: &Path, name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
}

fn write(dir: &Path, name: &str, report: &Value) {
    std::fs::write(dir.join(name), serde_json::to_string_pretty(report).unwrap()).unwrap();
}

#[test]
fn the_whole_file_merges_to_its_confidence() {
    let (dir, _, _) = sharded();
    let out = merge(dir.path(), &["shard-1.json", "shard-2.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("Confidence: 100% (4/4"), "{}", stdout(&out));
}

/// Merging only shard 1 of 2, all passing, used to exit 0 with `100% (2/2)`.
#[test]
fn a_missing_shard_is_refused_naming_its_assertions() {
    let (dir, _, [one, two]) = sharded();
    let out = merge(dir.path(), &["shard-1.json"]);
    assert_eq!(out.status.code(), Some(2), "{}{}", stdout(&out), stderr(&out));
    let why = stderr(&out);
    assert!(why.contains("2 of the 4 assertions"), "{why}");
    for id in &two {
        assert!(why.contains(&format!("'{id}'")), "{id} is named: {why}");
    }
    for id in &one {
        assert!(!why.contains(&format!("'{id}'")), "{id} has its result: {why}");
    }
    assert!(!stdout(&out).contains("Confidence"), "no report: {}", stdout(&out));
}

/// An emptied shard report beside the passing one (a job that ran nothing, or lost its
/// results) is the same hole.
#[test]
fn an_emptied_shard_is_refused() {
    let (dir, _, [one, _]) = sharded();
    let mut empty = read(dir.path(), "shard-2.json");
    empty["results"] = json!([]);
    write(dir.path(), "empty.json", &empty);
    let out = merge(dir.path(), &["empty.json", "shard-1.json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("have no result"), "{}", stderr(&out));
    // The other way round too: shard 1 emptied, shard 2 whole.
    let mut empty = read(dir.path(), "shard-1.json");
    empty["results"] = json!([]);
    write(dir.path(), "empty.json", &empty);
    let out = merge(dir.path(), &["shard-2.json", "empty.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(&format!("'{}'", one[0])), "{}", stderr(&out));
}

#[test]
fn a_result_twice_is_refused() {
    let (dir, _, [one, _]) = sharded();
    // One assertion of shard 1 also in shard 2's report.
    let first = read(dir.path(), "shard-1.json");
    let mut second = read(dir.path(), "shard-2.json");
    second["results"].as_array_mut().unwrap().push(first["results"][0].clone());
    write(dir.path(), "shard-2.json", &second);
    let out = merge(dir.path(), &["shard-1.json", "shard-2.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(&format!("assertion '{}' is in shard-1.json and in shard-2.json", one[0])));
}

/// The file is what says which assertions there are: one that cannot be read refuses
/// the merge, and a result of an assertion it no longer has (the file changed since)
/// is refused too.
#[test]
fn the_assertions_file_must_be_readable_and_hold_every_result() {
    let (dir, file, [_, two]) = sharded();
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    let out = merge(dir.path(), &["shard-1.json", "shard-2.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("the reports' assertions file cannot be read"), "{}", stderr(&out));

    let mut doc: Value = serde_json::from_str(&text).unwrap();
    doc["assertions"].as_array_mut().unwrap().retain(|a| a["id"] != two[1].as_str());
    std::fs::write(&file, doc.to_string()).unwrap();
    let out = merge(dir.path(), &["shard-1.json", "shard-2.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(&format!("not in {}", file.display())), "{}", stderr(&out));
    assert!(stderr(&out).contains(&format!("'{}'", two[1])), "{}", stderr(&out));
}

/// Shards of one file run over two different roots are not one run.
#[test]
fn shards_of_different_roots_are_refused() {
    let (dir, _, _) = sharded();
    let mut second = read(dir.path(), "shard-2.json");
    second["root"] = json!("/somewhere/else");
    write(dir.path(), "shard-2.json", &second);
    let out = merge(dir.path(), &["shard-1.json", "shard-2.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("shard-2.json: its root is /somewhere/else"), "{}", stderr(&out));
}
