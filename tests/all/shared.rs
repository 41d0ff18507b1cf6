//! Assertions that ask the same question share one evaluation within a run
//! (`Checks::execute_all`), and sharing never changes a verdict.

use std::sync::{Arc, Mutex};

use reviewhost::assertion;
use reviewhost::check::{Checks, Site};
use reviewhost::sandbox::{Limits, RootDir, Sandbox};
use serde_json::json;

use crate::support;

#[test]
fn repeated_questions_are_evaluated_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.rs"), "let c = MockConnection::new();\n").unwrap();
    let grep = "grep -rn MockConnection .";
    let doc = json!({ "assertions": [
        {"id": "G-1", "type": "grep_not_match", "command": grep, "description": "first finding"},
        {"id": "G-2", "type": "grep_not_match", "command": grep, "description": "second finding", "track": "UX"},
        {"id": "G-3", "type": "grep_not_match", "command": grep, "status": "pass"},
        // The same command judged by another rule is another question.
        {"id": "M-1", "type": "grep_match", "command": grep},
        {"id": "E-1", "type": "file_exists", "path": "src/a.rs"},
        {"id": "E-2", "type": "file_exists", "path": "./src/a.rs", "description": "same file, other spelling"},
        {"id": "E-3", "type": "file_exists", "path": "src/b.rs"},
        {"id": "C-1", "type": "file_content", "path": "src/a.rs", "needle": "MockConnection"},
        {"id": "C-2", "type": "file_content", "path": "src/a.rs", "needle": "Real"},
        // Decided without running anything (a path outside the root fails unread).
        {"id": "X-1", "type": "file_exists", "path": "../outside.rs"},
    ]});
    let file = assertion::parse(std::path::Path::new("shared.json"), doc.to_string().as_bytes()).unwrap();
    let cache = support::cache_at(&support::cache_dir());
    let checks = Checks::builtin(Arc::new(Sandbox::new(Limits::default(), 2, Some(cache)).unwrap()));
    let site = Site::new(RootDir::new(dir.path()).unwrap(), dir.path().to_path_buf());

    // One call of `finished` per evaluation, with the number of assertions it answered.
    let finished = Arc::new(Mutex::new(Vec::new()));
    let seen = finished.clone();
    let plans = file.assertions().iter().map(|a| checks.plan(a, &site)).collect();
    let together = checks.execute_all(plans, move |n| seen.lock().unwrap().push(n));
    let mut finished = finished.lock().unwrap().clone();
    finished.sort();
    // grep_not_match (3 ids), src/a.rs (2 spellings), and once each: grep_match,
    // src/b.rs, two needles; and the one decided plan, counted before anything runs.
    assert_eq!(finished, [1, 1, 1, 1, 1, 2, 3]);

    let alone: Vec<_> = file.assertions().iter().map(|a| checks.execute(checks.plan(a, &site))).collect();
    for ((a, shared), alone) in file.assertions().iter().zip(&together).zip(&alone) {
        assert_eq!((shared.status, &shared.message), (alone.status, &alone.message), "{}", a.id);
    }
    let statuses: Vec<_> = together.iter().map(|o| o.status.as_str()).collect();
    assert_eq!(statuses, ["fail", "fail", "fail", "pass", "pass", "pass", "fail", "pass", "fail", "fail"]);
}
