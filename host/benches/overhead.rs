//! Micro-benchmarks of what every assertion pays: one check end to end (plan, a fresh
//! store, instantiation from the pre-linked component, the call, teardown, and the
//! watchdog thread), for the file check and for a command check; and loading an
//! assertions file of 1,000 assertions. `cargo bench -p reviewhost`.

use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use reviewhost::assertion;
use reviewhost::check::{Checks, Site};
use reviewhost::sandbox::{Cache, Limits, RootDir, Sandbox};

fn file_of(assertions: serde_json::Value) -> Vec<u8> {
    serde_json::json!({ "assertions": assertions }).to_string().into_bytes()
}

fn per_check(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let cache = Cache::open(&dir.path().join("cache")).unwrap();
    let sandbox = Arc::new(Sandbox::new(Limits::default(), 1, Some(cache)).unwrap());
    let checks = Checks::builtin(sandbox);
    let site = Site { root: RootDir::new(dir.path()).unwrap(), file_dir: dir.path().to_path_buf() };
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
        group.bench_function(label, |b| b.iter(|| checks.execute(checks.plan(assertion, &site))));
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
