//! `reviewhost new --lang python|typescript|javascript`: each scaffold is built with the
//! command `reviewhost new` printed last, with its pinned toolchain, offline, and then
//! used as an author would: `reviewhost test` on its fixtures, `reviewhost inspect` for
//! the pin, and a pinned `custom` assertion on a passing and a failing repository, with a
//! config it cannot use, and in a repository that plants modules of the names the
//! validator imports (which must change nothing).
//!
//! The toolchains come from `.ci/authoring-tools DIR` (componentize-py's wheel for an
//! offline `pip install`, and a warm npm cache for an offline `npm ci`), found in
//! `$REVIEWHOST_AUTHORING_TOOLS`, else `target/authoring-tools`. Without them each test
//! says it is skipped and why, unless `REVIEWHOST_REQUIRE_AUTHORING_TOOLS=1` (CI), where
//! that is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::support::*;

/// The prepared toolchains, or `None` (the test is skipped, saying why).
fn tools(what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("REVIEWHOST_AUTHORING_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/authoring-tools"));
    let ready = match what {
        "python" => dir.join("wheels").read_dir().is_ok_and(|mut d| d.next().is_some()),
        _ => dir.join("npm/node_modules").is_dir(),
    };
    if ready {
        return Some(dir);
    }
    let why = format!(
        "skipped: no {what} toolchain in {} (run `bash .ci/authoring-tools {}` once, online)",
        dir.display(),
        dir.display()
    );
    assert!(std::env::var_os("REVIEWHOST_REQUIRE_AUTHORING_TOOLS").is_none(), "{why}");
    eprintln!("{why}");
    None
}

/// `reviewhost new --lang LANG NAME` in `dir`, then the last line it printed, run by `sh`
/// in `dir` offline. Returns the built component.
fn scaffold_and_build(dir: &Path, lang: &str, name: &str, tools: &Path) -> PathBuf {
    scaffold_and_build_edited(dir, lang, name, tools, &[])
}

/// An author's change to a file of a new check: its path in the check's directory, and
/// its new text made from the old.
type Edit<'a> = (&'a str, &'a dyn Fn(&str) -> String);

/// [`scaffold_and_build`] with `edits` made before the build.
fn scaffold_and_build_edited(dir: &Path, lang: &str, name: &str, tools: &Path, edits: &[Edit<'_>]) -> PathBuf {
    let out = reviewhost().args(["new", "--lang", lang, name]).current_dir(dir).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for (path, edit) in edits {
        let path = dir.join(name).join(path);
        let old = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, edit(&old)).unwrap();
    }
    let printed = stdout(&out);
    let build = printed.lines().last().unwrap().to_string();
    assert!(build.starts_with(&format!("cd {name} && ")), "the last line is the build command:\n{printed}");
    let out = Command::new("sh")
        .arg("-c")
        .arg(&build)
        .current_dir(dir)
        // Offline: the wheel from a local directory, npm from its cache.
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", tools.join("wheels"))
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env("npm_config_offline", "true")
        .output()
        .unwrap();
    assert!(out.status.success(), "`{build}` failed:\n{}{}", stdout(&out), stderr(&out));
    let wasm = dir.join(name).join(format!("{name}.wasm"));
    assert!(wasm.is_file(), "`{build}` made no {}", wasm.display());
    wasm
}

/// What an author does with a built check, and what a repository must not change.
fn use_as_an_author(dir: &Path, name: &str, wasm: &Path, planted: &[(&str, &str)]) {
    let out =
        reviewhost().arg("test").arg(wasm).arg("--fixtures").arg(dir.join(name).join("fixtures")).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("3 of 3 cases as expected"), "{}", stdout(&out));

    let out = reviewhost().args(["inspect", "--json"]).arg(wasm).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let inspected: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(inspected["sha256"], sha256(wasm));
    assert_eq!(inspected["world"], "reviewhost:check@0.1.0 custom-validator");

    let config = json!({"files": ["src/**/*.rs"], "text": "SPDX-License-Identifier"});
    let assertion = |id: &str, config: Value| {
        json!({"id": id, "type": "custom", "description": id, "component": wasm.to_str().unwrap(),
               "sha256": inspected["sha256"], "config": config})
    };
    let verdicts = |repo: &Path| -> Vec<(String, String, Value)> {
        let file = assertions_file(repo, json!([assertion("LIC-1", config.clone()), assertion("LIC-bad", json!(7))]));
        let out = run(&file, repo, &["--format", "json", "--no-write"]);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        report["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (r["status"].as_str().unwrap().into(), r["message"].as_str().unwrap().into(), r["evidence"].clone())
            })
            .collect()
    };
    let repo = |files: &[(&str, &str)]| {
        let repo = tempfile::tempdir().unwrap();
        write_files(repo.path(), files);
        repo
    };
    let licensed = "// SPDX-License-Identifier: MIT\n";
    let passing = repo(&[("src/main.rs", licensed), ("src/lib/util.rs", licensed)]);
    let results = verdicts(passing.path());
    assert_eq!(results[0].0, "pass", "{results:?}");
    assert!(results[0].1.contains("all 2 files"), "{results:?}");
    assert_eq!(results[1].0, "error", "a config it cannot use: {results:?}");

    let failing_files = [("src/main.rs", licensed), ("src/util.rs", "fn util() {}\n")];
    let failing = repo(&failing_files);
    let results = verdicts(failing.path());
    assert_eq!(results[0].0, "fail", "{results:?}");
    assert!(results[0].1.contains("1 of 2 files lack"), "{results:?}");
    assert_eq!(results[0].2[0]["path"], "src/util.rs", "{results:?}");

    // The same failing tree with modules planted where the language's runtime could look
    // for them: the verdict, message and evidence are the same.
    if !planted.is_empty() {
        let mut files: Vec<(&str, &str)> = failing_files.to_vec();
        files.extend_from_slice(planted);
        let hostile = repo(&files);
        assert_eq!(verdicts(hostile.path()), results, "planted modules changed the verdict");
    }
}

/// A module that, if ever imported, forges the verdict: the validator's `failed` then
/// returns a pass.
const FORGERY_PY: &str = "\
import sys
_v = sys.modules.get('validator')
if _v is not None:
    _v.failed = lambda message, evidence=(): _v.passed('forged by the repository')
";

#[test]
fn a_python_check_goes_from_new_to_a_pinned_passing_check() {
    let Some(tools) = tools("python") else { return };
    let dir = tempfile::tempdir().unwrap();
    // An author's lazy import, as the README warns against, behind a config key the
    // fixtures do not set: the scaffold otherwise as `reviewhost new` wrote it.
    let lazy_import = |source: &str| {
        let first = "    if not isinstance(config, dict):";
        let body = "    if isinstance(config, dict) and config.get(\"lazy\"):\n        import colorsys  # an author's lazy import\n";
        assert!(source.contains(first), "the example's first line");
        source.replacen(first, &format!("{body}{first}"), 1)
    };
    let wasm =
        scaffold_and_build_edited(dir.path(), "python", "license-check", &tools, &[("validator.py", &lazy_import)]);
    // Every place CPython in the component looks for modules, and the names the
    // validator and its helper import.
    let mut planted = Vec::new();
    for prefix in ["", "python/", "world/", "0/", "1/", "bundled/", "lib/python3.14/"] {
        for module in
            ["json", "re", "os", "fnmatch", "colorsys", "reviewhost_check", "validator", "wit_world", "encodings"]
        {
            planted.push((format!("{prefix}{module}.py"), FORGERY_PY));
        }
    }
    let planted: Vec<(&str, &str)> = planted.iter().map(|(p, t)| (p.as_str(), *t)).collect();
    use_as_an_author(dir.path(), "license-check", &wasm, &planted);

    // The lazy import, in a repository that plants `colorsys.py` everywhere CPython
    // looked: an error that says why, never the forged pass.
    let mut files = vec![("src/a.rs", "fn a() {}\n")];
    files.extend_from_slice(&planted);
    let repo = tempfile::tempdir().unwrap();
    write_files(repo.path(), &files);
    let assertion = json!({"id": "LAZY", "type": "custom", "description": "d", "component": wasm.to_str().unwrap(),
                           "config": {"files": ["src/**/*.rs"], "text": "SPDX", "lazy": true}});
    let file = assertions_file(repo.path(), json!([assertion]));
    let out = run(&file, repo.path(), &["--format", "json", "--no-write"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let result = &report["results"][0];
    assert_eq!(result["status"], "error", "{result}");
    assert!(result["message"].as_str().unwrap().contains("nothing can be imported while validating"), "{result}");
}

/// Modules a JavaScript repository could plant: the component bundles its modules at
/// build time and loads none at run time, so they must change nothing.
const PLANTED_JS: &[(&str, &str)] = &[
    ("reviewhost_check.js", "export const exportValidator = () => ({ validate: () => ({ passed: true }) });"),
    ("src/reviewhost_check.js", "throw 'planted module imported';"),
    ("build/validator.js", "throw 'planted module imported';"),
    ("node_modules/reviewhost_check.js", "throw 'planted module imported';"),
];

#[test]
fn a_typescript_check_goes_from_new_to_a_pinned_passing_check() {
    let Some(tools) = tools("typescript") else { return };
    let dir = tempfile::tempdir().unwrap();
    let wasm = scaffold_and_build(dir.path(), "typescript", "license-check", &tools);
    use_as_an_author(dir.path(), "license-check", &wasm, PLANTED_JS);
}

#[test]
fn a_javascript_check_goes_from_new_to_a_pinned_passing_check() {
    let Some(tools) = tools("javascript") else { return };
    let dir = tempfile::tempdir().unwrap();
    let wasm = scaffold_and_build(dir.path(), "javascript", "license-check", &tools);
    use_as_an_author(dir.path(), "license-check", &wasm, PLANTED_JS);

    // Built as componentize-js does by default, with HTTP: refused before compiling, with
    // the interface named and the flags that leave it out.
    let check = dir.path().join("license-check");
    let out = Command::new("npx")
        .args([
            "componentize-js",
            "src/validator.js",
            "--wit",
            "wit",
            "--world-name",
            "validator-files",
            "-o",
            "http.wasm",
        ])
        .current_dir(&check)
        .env("npm_config_offline", "true")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let out = reviewhost().args(["inspect"]).arg(check.join("http.wasm")).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("reviewhost would refuse it: it imports"), "{text}");
    assert!(text.contains("wasi:http/types@0.2.10 (NOT linked)"), "{text}");
    assert!(text.contains("`--disable http --disable fetch-event`"), "{text}");
}
