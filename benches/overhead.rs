//! Micro-benchmarks of what every assertion pays: one check end to end (a fresh store,
//! instantiation from the pre-linked component, the call, teardown, on the sandbox's
//! watched thread as a run evaluates it), for the file check and for command checks;
//! and loading an assertions file of 1,000 assertions. `cargo bench -p reviewhost`.

use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use reviewhost::assertion;
use reviewhost::check::{Checks, Plan, Site};
use reviewhost::sandbox::{Cache, CacheKey, Limits, RootDir, Sandbox};

fn file_of(assertions: serde_json::Value) -> Vec<u8> {
    serde_json::json!({ "assertions": assertions }).to_string().into_bytes()
}

fn per_check(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let key = CacheKey::load_or_create(&dir.path().join("keys/cache.key")).unwrap();
    let cache = Cache::open(&dir.path().join("cache"), key).unwrap();
    let sandbox = Arc::new(Sandbox::new(Limits::default(), 1, Some(cache)).unwrap());
    let checks = Checks::builtin(sandbox);
    let site = Site::new(RootDir::new(dir.path()).unwrap(), dir.path().to_path_buf());
    let file = assertion::parse(
        Path::new("bench.json"),
        &file_of(serde_json::json!([
            {"id": "F", "type": "file_exists", "path": "a.txt"},
            {"id": "C", "type": "shell_exit_zero", "command": "true"},
            {"id": "G", "type": "grep_match", "command": "grep -n hello a.txt"}
        ])),
    )
    .unwrap();
    let mut group = c.benchmark_group("per-check");
    for (assertion, label) in file.assertions().iter().zip(["file_exists", "command `true`", "command `grep -n`"]) {
        let Plan::Evaluate(task) = checks.plan(assertion, &site) else { panic!("{label}: nothing to evaluate") };
        // As a run does it: a batch of evaluations on one thread (`--jobs 1`); the
        // batch's thread start is shared by its `iters` checks.
        group.bench_function(label, |b| {
            b.iter_custom(|iters| {
                let tasks = vec![task.clone(); iters as usize];
                let started = std::time::Instant::now();
                let evaluations = checks.sandbox().evaluate_all(tasks, |_| {});
                let took = started.elapsed();
                assert!(evaluations.iter().all(|e| e.result.as_ref().is_ok_and(|v| v.passed)), "{label}");
                took
            })
        });
    }
    group.finish();
}

fn load(c: &mut Criterion) {
    let items: Vec<serde_json::Value> = (0..1000)
        .map(|i| serde_json::json!({"id": format!("A-{i}"), "type": "grep_not_match", "description": "d",
                                     "command": format!("grep -rn 'x{i}' src/"), "status": null, "failure_output": null}))
        .collect();
    let bytes = file_of(serde_json::Value::Array(items));
    c.bench_function("load: 1,000 assertions", |b| {
        b.iter(|| assertion::parse(Path::new("bench.json"), &bytes).unwrap())
    });
}

criterion_group!(benches, per_check, load);
criterion_main!(benches);
