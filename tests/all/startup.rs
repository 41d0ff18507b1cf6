//! The built-in checks start from code compiled when reviewhost was built: a first run
//! on a fresh machine, with an empty cache, compiles nothing and writes no cache entry.

use std::sync::Arc;

use reviewhost::assertion::{self, Status};
use reviewhost::check::{Checks, Plan, Site};
use reviewhost::sandbox::{Limits, RootDir, Sandbox};
use serde_json::json;

#[test]
fn builtin_checks_run_precompiled_with_an_empty_cache() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let cache_dir = dir.path().join("cache");
    let cache = crate::support::cache_at(&cache_dir);
    let checks = Checks::builtin(Arc::new(Sandbox::new(Limits::default(), 1, Some(cache)).unwrap()));
    let site = Site::new(RootDir::new(dir.path()).unwrap(), dir.path().to_path_buf());
    let doc = json!({ "assertions": [
        {"id": "F", "type": "file_content", "path": "a.txt", "needle": "hello"},
        {"id": "C", "type": "grep_match", "command": "grep -n hello a.txt"},
    ]});
    let file = assertion::parse(std::path::Path::new("startup.json"), doc.to_string().as_bytes()).unwrap();
    for a in file.assertions() {
        let plan = checks.plan(a, &site);
        let Plan::Evaluate(task) = &plan else { panic!("{}: nothing to evaluate", a.id) };
        assert!(task.component.precompiled(), "{}: {:?} was compiled at run time", a.id, task.component);
        assert_eq!(checks.execute(plan).status, Status::Pass, "{}", a.id);
    }
    assert_eq!(std::fs::read_dir(&cache_dir).unwrap().count(), 0, "a cache entry was written");
}
