//! Running part of an assertions file (`--only`, `--filter`, `--changed-since`) and
//! accepting known failures (`--baseline`, `--update-baseline`).

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::support::*;

/// A git repository with README.md and src/a.rs committed, and an assertions file
/// (outside the root) with a pass, two fails and an error.
fn repository() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/a.rs"), "fn main() {}\n// TODO: later\n").unwrap();
    std::fs::write(root.join("README.md"), "# x\n").unwrap();
    for args in [&["init", "-q"][..], &["add", "-A"], &["commit", "-qm", "x"]] {
        git(&root, args);
    }
    let file = assertions_file(
        dir.path(),
        json!([
            {"id": "P-1", "type": "file_exists", "description": "readme", "path": "README.md"},
            {"id": "F-1", "type": "grep_not_match", "description": "no TODO", "command": "grep -rn TODO src"},
            {"id": "F-2", "type": "file_exists", "description": "notes", "path": "NOTES.md"},
            {"id": "E-1", "type": "frobnicate", "description": "unknown"}
        ]),
    );
    (dir, root, file)
}

fn ran(file: &Path, root: &Path, args: &[&str]) -> (Output, Vec<String>) {
    let out = run(file, root, &[&["--no-write", "--format", "json"][..], args].concat());
    let ids = serde_json::from_slice::<Value>(&out.stdout)
        .map(|r| r["results"].as_array().unwrap().iter().map(|x| x["id"].as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    (out, ids)
}

#[test]
fn only_filter_and_changed_since_choose_what_runs() {
    let (_dir, root, file) = repository();
    assert_eq!(ran(&file, &root, &["--only", "F-2", "--only", "P-1"]).1, ["P-1", "F-2"]);
    let (out, _) = ran(&file, &root, &["--only", "Z-9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--only Z-9: no assertion has this id"), "{}", stderr(&out));
    assert_eq!(ran(&file, &root, &["--filter", "^F-"]).1, ["F-1", "F-2"]);
    assert_eq!(run(&file, &root, &["--filter", "("]).status.code(), Some(2), "a bad regex is bad input");

    // Nothing changed: only what has no determinable scope (the unknown type) runs.
    assert_eq!(ran(&file, &root, &["--changed-since", "HEAD"]).1, ["E-1"]);
    // README.md changed, and a new file under src/: P-1 (its path) and F-1 (its
    // command's operand `src`) run; F-2 (NOTES.md, untouched) does not.
    std::fs::write(root.join("README.md"), "# y\n").unwrap();
    std::fs::write(root.join("src/b.rs"), "fn b() {}\n").unwrap();
    assert_eq!(ran(&file, &root, &["--changed-since", "HEAD"]).1, ["P-1", "F-1", "E-1"]);
    let (out, _) = ran(&file, &root, &["--changed-since", "no-such-ref"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn a_baseline_accepts_known_failures_until_they_change() {
    let (dir, root, file) = repository();
    let baseline = dir.path().join("known.json");
    let base = |args: &[&str]| {
        run(&file, &root, &[&["--no-write", "--baseline", baseline.to_str().unwrap()][..], args].concat())
    };
    let out = base(&["--update-baseline"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&baseline).unwrap()).unwrap();
    let ids: Vec<&String> = written["entries"].as_object().unwrap().keys().collect();
    assert_eq!(ids, ["E-1", "F-1", "F-2"]);
    // The same failures: reported as baselined, the run passes.
    let out = base(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("3 baselined failures"), "{}", stderr(&out));
    // F-2 fixed: reported for pruning. F-1 failing differently (a new TODO line): a new
    // failure, the run fails.
    std::fs::write(root.join("NOTES.md"), "notes\n").unwrap();
    std::fs::write(root.join("src/a.rs"), "// TODO: first\nfn main() {}\n// TODO: later\n").unwrap();
    let out = base(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("prune with --update-baseline: F-2"), "{}", stderr(&out));
    assert!(stderr(&out).contains("1 baselined failures (accepted in"), "{}", stderr(&out));
    // A baseline that is not one is bad input, and the file is never followed as a link.
    std::fs::write(&baseline, "nonsense").unwrap();
    assert_eq!(base(&[]).status.code(), Some(2));
    let target = dir.path().join("elsewhere.json");
    std::fs::write(&target, "keep").unwrap();
    std::fs::remove_file(&baseline).unwrap();
    std::os::unix::fs::symlink(&target, &baseline).unwrap();
    assert_eq!(base(&["--update-baseline"]).status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
}
