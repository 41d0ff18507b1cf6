//! `custom` assertions: validator components named by the assertions file, pinned by
//! sha256, narrowed by `paths`; every way a component can be unusable ends that one
//! assertion as `error` with a precise message while the rest of the file runs.

use serde_json::{Value, json};

use crate::components;
use crate::support::*;

fn sha256_hex(path: &str) -> String {
    sha256(std::path::Path::new(path))
}

fn custom(id: &str, component: &str, config: Value) -> Value {
    json!({"id": id, "type": "custom", "description": id, "component": component, "config": config})
}

/// (status, failure_output or message) per assertion, via the JSON report.
fn results(file: &std::path::Path, root: &std::path::Path) -> Vec<(String, String, String)> {
    let out = run(file, root, &["--format", "json"]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().into(),
                r["status"].as_str().unwrap().into(),
                r["message"].as_str().unwrap().into(),
            )
        })
        .collect()
}

#[test]
fn unusable_components_are_errors_and_the_rest_runs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("notes.txt"), "text, not wasm").unwrap();
    std::fs::write(root.join("core.wasm"), b"\0asm\x01\0\0\0").unwrap();
    // Beside the assertions file, where what is wrong with a component is reported (of a
    // path elsewhere, nothing is: `host_reads::components_outside_the_root_are_never_probed`).
    for (name, component) in [
        ("probe.wasm", components::PROBE),
        ("future.wasm", components::FUTURE_VALIDATOR),
        ("rogue.wasm", components::ROGUE_IMPORT),
        ("spin.wasm", components::SPIN),
    ] {
        std::fs::copy(component, root.join(name)).unwrap();
    }
    let probe = "probe.wasm";
    let mut pinned_wrong = custom("C-sha", probe, json!({"pass": true}));
    pinned_wrong["sha256"] = json!("0".repeat(64));
    let mut pinned_right = custom("C-pinned", probe, json!({"pass": true}));
    pinned_right["sha256"] = json!(sha256_hex(components::PROBE));
    let file = assertions_file(
        root,
        json!([
            pinned_wrong,
            custom("C-missing", "no/such.wasm", json!({})),
            custom("C-text", "notes.txt", json!({})),
            custom("C-core", "core.wasm", json!({})),
            custom("C-future", "future.wasm", json!({})),
            custom("C-rogue", "rogue.wasm", json!({})),
            custom("C-builtin-world", "spin.wasm", json!({})),
            pinned_right,
            {"id": "F-1", "type": "file_exists", "path": "notes.txt"}
        ]),
    );
    let results = results(&file, root);
    let get = |id: &str| results.iter().find(|r| r.0 == id).unwrap().clone();
    for (id, needle) in [
        ("C-sha", "sha256 mismatch: the assertion pins 0000"),
        ("C-missing", "component no/such.wasm: not found beside the assertions file or in the root"),
        ("C-text", "not a WebAssembly file"),
        ("C-core", "a core WebAssembly module, not a component"),
        (
            "C-future",
            "built against reviewhost:check/validator@9.0.0, but this reviewhost expects reviewhost:check/validator@0.1.0",
        ),
        ("C-rogue", "reviewhost:check/exfiltrate"),
        ("C-builtin-world", "does not export reviewhost:check/validator@0.1.0"),
    ] {
        let (_, status, message) = get(id);
        assert_eq!(status, "error", "{id}: {message}");
        assert!(message.contains(needle), "{id}: expected {needle:?} in {message:?}");
    }
    let (_, status, message) = get("C-pinned");
    assert_eq!(status, "pass", "{message}");
    assert!(message.starts_with("id C-pinned"), "{message}");
    assert_eq!(get("F-1").1, "pass");
}

#[test]
fn paths_narrow_what_a_validator_can_see() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (path, text) in [("src/lib.rs", "fn f() {}"), ("secrets/key", "SECRET"), ("README.md", "# r")] {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let config = json!({"list": [".", "src", "secrets"], "read": ["src/lib.rs", "secrets/key", "README.md", "src/../secrets/key"], "pass": true});
    let mut narrowed = custom("N-1", components::PROBE, config.clone());
    narrowed["paths"] = json!(["src"]);
    let mut outside = custom("N-2", components::PROBE, config.clone());
    outside["paths"] = json!(["../"]);
    let file = assertions_file(root, json!([narrowed, custom("N-3", components::PROBE, config), outside]));
    let results = results(&file, root);
    let narrowed = &results[0].2;
    assert!(narrowed.contains("list src: lib.rs"), "{narrowed}");
    assert!(narrowed.contains("read src/lib.rs: 9 bytes"), "{narrowed}");
    for line in [
        "list .: error",
        "list secrets: error",
        "read secrets/key: error",
        "read README.md: error",
        "read src/../secrets/key: error",
    ] {
        assert!(narrowed.contains(line), "{line} in {narrowed}");
    }
    assert!(narrowed.contains("\nfiles: src/lib.rs\n") || narrowed.ends_with("\nfiles: src/lib.rs"), "{narrowed}");
    let whole = &results[1].2;
    assert!(whole.contains("secrets/key") && whole.contains("src/lib.rs"), "{whole}");
    assert!(whole.contains("read secrets/key: 6 bytes"), "without paths the whole root is visible: {whole}");
    assert_eq!(results[2].1, "error");
    assert!(results[2].2.contains("Outside the sandbox root: ../"), "{}", results[2].2);
}

#[test]
fn a_tampered_cache_entry_is_recompiled_not_executed() {
    let dir = tempfile::tempdir().unwrap();
    // Outside the root: a cache inside it is never used.
    let (cache, root) = (dir.path().join("cache"), dir.path().join("root"));
    std::fs::create_dir(&root).unwrap();
    let file = assertions_file(&root, json!([custom("T-1", components::PROBE, json!({"pass": true}))]));
    let run_with_cache = || {
        reviewhost()
            .env("REVIEWHOST_CACHE_DIR", &cache)
            .arg("run")
            .arg(&file)
            .arg("--root")
            .arg(&root)
            .output()
            .unwrap()
    };
    assert_eq!(run_with_cache().status.code(), Some(0));
    let entries: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cwasm"))
        .collect();
    assert!(!entries.is_empty());
    let mut tampered = Vec::new();
    for entry in &entries {
        let mut bytes = std::fs::read(entry).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0xff;
        std::fs::write(entry, &bytes).unwrap();
        tampered.push(bytes);
    }
    let out = run_with_cache();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for (entry, tampered) in entries.iter().zip(tampered) {
        assert_ne!(std::fs::read(entry).unwrap(), tampered, "{} was not rewritten", entry.display());
    }
}

/// Exactly what a new check author does: scaffold, test natively, build the component,
/// test it on its fixtures, reference it from an assertions file.
#[test]
fn a_scaffolded_validator_builds_tests_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = reviewhost().arg("new").arg("license-check").current_dir(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let crate_dir = dir.path().join("license-check");
    // A shared target directory keeps repeated test runs fast; the crate is its own workspace.
    let target = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("scaffold-target");
    let cargo = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO"))
            .args(args)
            .current_dir(&crate_dir)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .output()
            .unwrap();
        assert!(out.status.success(), "cargo {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    cargo(&["test"]);
    cargo(&["build", "--release", "--target", "wasm32-wasip2"]);
    let wasm = target.join("wasm32-wasip2/release/license_check.wasm");

    let out = reviewhost().arg("test").arg(&wasm).arg("--fixtures").arg(crate_dir.join("fixtures")).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("3 of 3 cases as expected"), "{}", stdout(&out));

    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(repo.join("src/main.rs"), "// SPDX-License-Identifier: MIT\nfn main() {}\n").unwrap();
    std::fs::write(repo.join("src/util.rs"), "fn util() {}\n").unwrap();
    let mut assertion =
        custom("LIC-1", wasm.to_str().unwrap(), json!({"files": ["src/**/*.rs"], "text": "SPDX-License-Identifier"}));
    assertion["sha256"] = json!(sha256(&wasm));
    let file = assertions_file(&repo, json!([assertion]));
    let out = run(&file, &repo, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let a = &read_assertions(&file)[0];
    assert_eq!(a["status"], "fail");
    assert!(a["failure_output"].as_str().unwrap().contains("1 of 2 files lack"), "{a}");

    // A fixture whose expectation is wrong is reported with a diff and exit 1.
    let case = crate_dir.join("fixtures/one-missing/case.json");
    std::fs::write(&case, std::fs::read_to_string(&case).unwrap().replace("\"fail\"", "\"pass\"")).unwrap();
    let out = reviewhost().arg("test").arg(&wasm).arg("--fixtures").arg(crate_dir.join("fixtures")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("❌ one-missing\n     expected: pass"), "{}", stdout(&out));
}

/// What is decided from a component's sections before compiling (its export, its
/// imports) refuses exactly the components wasmtime itself would refuse after
/// compiling: over every test component, the built-in checks and the examples.
#[test]
fn the_checks_before_compiling_agree_with_wasmtime() {
    use reviewhost::sandbox::{Declared, Limits, Sandbox, usable_validator};
    let mut paths: Vec<&str> = Vec::new();
    macro_rules! collect {
        ($name:ident, $path:literal, $doc:literal) => {
            paths.push($path);
        };
    }
    reviewhost_tests::foreach_component!(collect);
    let sandbox = Sandbox::new(Limits::default(), 1, None).unwrap();
    let (mut accepted, mut refused) = (0, 0);
    for path in paths {
        let wasm = std::fs::read(path).unwrap();
        let before = usable_validator(&Declared::read(&wasm).unwrap(), Limits::default().memory);
        let wasmtime = sandbox.link_validator(path, &wasm);
        assert_eq!(
            before.is_ok(),
            wasmtime.is_ok(),
            "{path}: before compiling {before:?}; wasmtime: {:?}",
            wasmtime.err()
        );
        if before.is_ok() { accepted += 1 } else { refused += 1 }
    }
    assert!(accepted >= 5 && refused >= 5, "both answers are exercised: {accepted} accepted, {refused} refused");
}

/// A component that imports what the sandbox does not link is refused from its sections:
/// nothing is compiled (the cache stays empty), and the message names the interface.
#[test]
fn an_unlinkable_component_is_refused_before_it_is_compiled() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir(&root).unwrap();
    std::fs::copy(components::ROGUE_IMPORT, root.join("rogue.wasm")).unwrap();
    std::fs::copy(components::PROBE, root.join("probe.wasm")).unwrap();
    let file = assertions_file(&root, json!([custom("C-rogue", "rogue.wasm", json!(null))]));
    let cache = dir.path().join("cache");
    let entries = || {
        std::fs::read_dir(&cache)
            .map_or(0, |d| d.filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "cwasm")).count())
    };
    let out = reviewhost()
        .arg("run")
        .arg(&file)
        .arg("--root")
        .arg(&root)
        .arg("--format")
        .arg("json")
        .env("REVIEWHOST_CACHE_DIR", &cache)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = report["results"][0]["message"].as_str().unwrap();
    assert_eq!(report["results"][0]["status"], "error");
    assert!(
        message.contains("it imports reviewhost:check/exfiltrate@0.1.0, which the sandbox does not provide"),
        "{message}"
    );
    assert_eq!(entries(), 0, "nothing was compiled");
    // The same bytes under two names: each assertion's error names its own file.
    std::fs::copy(components::ROGUE_IMPORT, root.join("rogue-copy.wasm")).unwrap();
    let file = assertions_file(
        &root,
        json!([custom("C-a", "rogue.wasm", json!(null)), custom("C-b", "rogue-copy.wasm", json!(null))]),
    );
    let out = reviewhost()
        .arg("run")
        .arg(&file)
        .arg("--root")
        .arg(&root)
        .args(["--format", "json", "--jobs", "1"])
        .env("REVIEWHOST_CACHE_DIR", &cache)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (result, name) in report["results"].as_array().unwrap().iter().zip(["'rogue.wasm'", "'rogue-copy.wasm'"]) {
        assert!(
            result["message"].as_str().unwrap().starts_with(&format!("component {name} cannot be loaded")),
            "{result}"
        );
    }
    // The same run with a usable component compiles it (and caches it): the cache works here.
    let file = assertions_file(&root, json!([custom("C-probe", "probe.wasm", json!({"pass": true}))]));
    let out = reviewhost()
        .arg("run")
        .arg(&file)
        .arg("--root")
        .arg(&root)
        .env("REVIEWHOST_CACHE_DIR", &cache)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(entries(), 1);
}

/// A `--memory` below what a component starts with is named, with the size it needs.
#[test]
fn a_memory_limit_below_the_components_start_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(components::PROBE, dir.path().join("probe.wasm")).unwrap();
    let file = assertions_file(dir.path(), json!([custom("C-small", "probe.wasm", json!({"pass": true}))]));
    let out = run(&file, dir.path(), &["--memory", "1MiB", "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = report["results"][0]["message"].as_str().unwrap();
    assert_eq!(report["results"][0]["status"], "error");
    assert!(
        message.contains("of linear memory to start, more than the limit of 1 MiB; raise it with --memory 2MiB"),
        "{message}"
    );
    let out = run(&file, dir.path(), &["--memory", "2MiB"]);
    assert_eq!(out.status.code(), Some(0), "the size it names is enough: {}", stderr(&out));
}

/// `reviewhost inspect`: the pin to paste, the world, each import with whether it is
/// linked, and an exit code that says whether a custom assertion can use it.
#[test]
fn inspect_shows_the_pin_the_world_and_what_is_not_linked() {
    let out = reviewhost().arg("inspect").arg(components::PROBE).output().unwrap();
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(text.contains(&format!("sha256     {}", sha256_hex(components::PROBE))), "{text}");
    assert!(text.contains("world      reviewhost:check@0.1.0 custom-validator"), "{text}");
    assert!(text.contains("wasi:filesystem/preopens@0.2.12 (linked)"), "{text}");
    assert!(text.contains("A custom assertion can use it"), "{text}");

    let out = reviewhost().args(["inspect", "--json"]).arg(components::ROGUE_IMPORT).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    let unlinked: Vec<&str> = found["imports"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["linked"] == false)
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(unlinked, ["reviewhost:check/exfiltrate@0.1.0"]);
    assert!(found["refused"].as_str().unwrap().contains("exfiltrate"));

    let out = reviewhost().args(["inspect", "--memory", "1MiB"]).arg(components::PROBE).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("raise it with --memory 2MiB"), "{}", stdout(&out));

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let out = reviewhost().arg("inspect").arg(dir.path().join("x.wasm")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("x.wasm: a core WebAssembly module, not a component"), "{}", stderr(&out));
}

/// `REVIEWHOST_CACHE_SIZE`: `0` runs without a cache (nothing written), a value that is
/// not a size stops the run (exit 2) naming the variable.
#[test]
fn the_cache_size_is_configured_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(components::PROBE, dir.path().join("probe.wasm")).unwrap();
    let file = assertions_file(dir.path(), json!([custom("C-1", "probe.wasm", json!({"pass": true}))]));
    // Outside the root: a cache inside the reviewed root is never used.
    let elsewhere = tempfile::tempdir().unwrap();
    let cache = elsewhere.path().join("cache");
    let with_size = |size: &str| {
        reviewhost()
            .arg("run")
            .arg(&file)
            .arg("--root")
            .arg(dir.path())
            .arg("--no-write")
            .env("REVIEWHOST_CACHE_DIR", &cache)
            .env("REVIEWHOST_CACHE_SIZE", size)
            .output()
            .unwrap()
    };
    let out = with_size("0");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!cache.exists(), "no cache with REVIEWHOST_CACHE_SIZE=0");
    for bad in ["lots", "12 parsecs", "512K"] {
        let out = with_size(bad);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(stderr(&out).contains("REVIEWHOST_CACHE_SIZE: "), "{bad}: {}", stderr(&out));
    }
    let out = with_size("64MiB");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(cache.exists());
}

/// A validator that starts with an interpreter's memory and writes hundreds of scattered
/// pages in every check runs its evaluations one at a time once four were seen (each
/// such page is a TLB shoot-down to the other cores); one that writes a few stays in
/// parallel; and one that writes as many but runs into its timeout never takes the
/// single place, where it would hold up the honest checks queued behind it.
#[test]
fn only_validators_whose_checks_fault_heavily_and_end_run_alone() {
    use reviewhost::sandbox::{Input, Limits, RootDir, Sandbox, Task, View};
    use std::sync::Arc;
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { timeout: Duration::from_millis(500), ..Limits::default() };
    let sandbox = Sandbox::new(limits, 2, Some(cache_at(&cache_dir()))).unwrap();
    let wasm = std::fs::read(components::PAGE_WRITER).unwrap();
    let view = View::whole(&RootDir::new(dir.path()).unwrap());
    let alone_after = |config: Value| {
        let component = Arc::new(sandbox.load_validator("page-writer", &wasm).unwrap());
        assert!(!component.alone());
        let tasks = (0..6)
            .map(|i| Task {
                component: component.clone(),
                input: Input::Validate { id: format!("P-{i}"), config: config.to_string() },
                view: view.clone(),
            })
            .collect();
        let evaluations = sandbox.evaluate_all(tasks, |_| {});
        (component.alone(), evaluations.into_iter().map(|e| e.result.map(|v| v.passed)).collect::<Vec<_>>())
    };
    let (heavy, results) = alone_after(json!({"pages": 700}));
    assert!(results.iter().all(|r| r == &Ok(true)), "{results:?}");
    assert!(heavy, "700 pages written a check: its checks run alone");
    let (light, _) = alone_after(json!({"pages": 20}));
    assert!(!light, "20 pages a check: in parallel");
    let (spinning, results) = alone_after(json!({"pages": 700, "spin": true}));
    assert!(results.iter().all(Result::is_err), "{results:?}");
    assert!(!spinning, "a check stopped by its timeout never takes the single place");
}
