//! What `reviewhost run` reports for CI: JUnit validated against an XSD, SARIF against
//! the SARIF 2.1.0 schema with GitHub's required fields, GitHub annotations and step
//! summary, several reports in one run, `--shard`, `--fail-on`, and the schema,
//! `validate` and `completions` subcommands.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::support::*;

/// A repository whose assertions end in every status: P-1 passes; F-1 fails with a
/// grep hit in one file as evidence (src/a.rs line 2); F-2 fails without evidence; E-1 cannot be
/// evaluated. Descriptions carry the characters that need escaping.
fn repository() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.rs"), "fn main() {}\n// TODO: 100%, really\n").unwrap();
    std::fs::write(dir.path().join("README.md"), "# x\n").unwrap();
    let file = assertions_file(
        dir.path(),
        json!([
            {"id": "P-1", "type": "file_exists", "description": "readme exists", "path": "README.md"},
            {"id": "F-1", "type": "grep_not_match", "description": "no TODO: in src, 100% <done>",
             "command": "grep -n TODO src/a.rs"},
            {"id": "F-2", "type": "file_exists", "description": "a missing file", "path": "missing.txt"},
            {"id": "E-1", "type": "frobnicate", "description": "unknown type"}
        ]),
    );
    (dir, file)
}

/// `reviewhost run FILE --root DIR ARGS` with DIR as the working directory.
fn run_in(dir: &Path, file: &Path, args: &[&str]) -> Output {
    reviewhost().current_dir(dir).arg("run").arg(file).arg("--root").arg(dir).args(args).output().unwrap()
}

fn xmllint() -> &'static str {
    assert!(
        Command::new("xmllint").arg("--version").output().is_ok(),
        "xmllint is needed to validate JUnit output (Debian: libxml2-utils; .ci/run installs it)"
    );
    "xmllint"
}

#[test]
fn junit_validates_against_the_xsd_and_carries_each_outcome() {
    let (dir, file) = repository();
    let out = run_in(dir.path(), &file, &["--format", "junit", "--output", "junit.xml", "--no-write"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // The terminal still gets the text summary.
    assert!(stdout(&out).contains("Confidence: 25% (1/4 assertions passing)"), "{}", stdout(&out));

    let report = dir.path().join("junit.xml");
    let xsd = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/junit.xsd");
    let lint = Command::new(xmllint()).arg("--noout").arg("--schema").arg(&xsd).arg(&report).output().unwrap();
    assert!(lint.status.success(), "{}\n{}", stderr(&lint), std::fs::read_to_string(&report).unwrap());

    let xml = std::fs::read_to_string(&report).unwrap();
    assert!(xml.contains(r#"tests="4""#) && xml.contains(r#"failures="2""#) && xml.contains(r#"errors="1""#), "{xml}");
    // The case's name is the id alone (timing history survives a reworded description),
    // the description its system-out.
    assert!(xml.contains(r#"<testcase name="P-1" classname="reviewhost.file_exists""#), "{xml}");
    assert!(xml.contains("<system-out>readme exists</system-out>"), "{xml}");
    // A fail is a <failure> with the evidence in its body, an error an <error>.
    let failure = &xml[xml.find(r#"name="F-1"#).unwrap()..];
    let failure = &failure[..failure.find("</testcase>").unwrap()];
    assert!(failure.contains("<failure") && failure.contains("src/a.rs:2: // TODO: 100%, really"), "{failure}");
    assert!(failure.contains("&lt;done&gt;"), "description is escaped: {failure}");
    let error = &xml[xml.find(r#"name="E-1"#).unwrap()..];
    assert!(error[..error.find("</testcase>").unwrap()].contains("<error"), "{error}");
}

#[test]
fn sarif_validates_against_the_2_1_0_schema_with_what_github_requires() {
    let (dir, file) = repository();
    let out = run_in(dir.path(), &file, &["--format", "sarif", "-o", "review.sarif", "--no-write"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let sarif: Value = serde_json::from_slice(&std::fs::read(dir.path().join("review.sarif")).unwrap()).unwrap();

    let schema_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif-schema-2.1.0.json");
    let mut schema: Value = serde_json::from_slice(&std::fs::read(schema_path).unwrap()).unwrap();
    // The published schema's language-tag patterns (`run.language`,
    // `toolComponent.language`) have a stray `]` (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`)
    // that a strict regex engine rejects; their intent (`en`, `en-US`) is restored here.
    // reviewhost emits no `language`.
    let fixed = repair_pattern(&mut schema, "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$", "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$");
    assert_eq!(fixed, 2, "the vendored schema changed");
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&sarif).map(|e| format!("{}: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");

    assert!(sarif["$schema"].as_str().unwrap().contains("sarif"));
    assert_eq!(sarif["version"], "2.1.0");
    let run = &sarif["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "reviewhost");
    let rule_ids: Vec<&str> =
        run["tool"]["driver"]["rules"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    // A rule per assertion with a result: GitHub caps a run at 25,000 rules.
    assert_eq!(rule_ids, ["F-1", "F-2", "E-1"]);
    let results = run["results"].as_array().unwrap();
    let by_rule = |id: &str| results.iter().find(|r| r["ruleId"] == id).unwrap_or_else(|| panic!("{id}: {results:#?}"));
    assert!(results.iter().all(|r| r["ruleId"] != "P-1"), "passing assertions are not results");
    for result in results {
        assert!(result["message"]["text"].as_str().is_some_and(|t| !t.is_empty()));
        assert!(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].is_string(), "{result}");
        assert!(!result["partialFingerprints"].as_object().unwrap().is_empty(), "{result}");
    }
    let f1 = by_rule("F-1");
    assert_eq!(f1["level"], "error");
    assert_eq!(f1["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "src/a.rs");
    assert_eq!(f1["locations"][0]["physicalLocation"]["region"]["startLine"], 2);
    // The assertion that found it is a related location: its own line in the file.
    let related = &f1["relatedLocations"][0];
    assert_eq!(related["physicalLocation"]["artifactLocation"]["uri"], "review-assertions.json", "{f1}");
    let text = std::fs::read_to_string(&file).unwrap();
    let line = text.lines().position(|l| l.contains(r#""id": "F-1""#)).unwrap() + 1;
    assert_eq!(related["physicalLocation"]["region"]["startLine"], line, "{f1}");
    assert_eq!(related["message"]["text"], "the assertion F-1");
    // Without evidence, a result points at its assertion in the assertions file.
    let f2 = by_rule("F-2");
    assert_eq!(f2["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "review-assertions.json");
    let text = std::fs::read_to_string(&file).unwrap();
    let line = text.lines().position(|l| l.contains(r#""id": "F-2""#)).unwrap() + 1;
    assert_eq!(f2["locations"][0]["physicalLocation"]["region"]["startLine"], line);
    assert_eq!(by_rule("E-1")["level"], "warning");

    // Fingerprints are stable from run to run.
    let again = run_in(dir.path(), &file, &["--format", "sarif", "--no-write"]);
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["runs"][0]["results"][0]["partialFingerprints"], results[0]["partialFingerprints"]);
}

/// The schema in `tests/fixtures/NAME`, compiled.
fn fixture_schema(name: &str) -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let schema: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn schema_errors(validator: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    validator.iter_errors(doc).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

#[test]
fn gitlab_code_quality_validates_and_points_at_the_code() {
    let (dir, file) = repository();
    let out =
        run_in(dir.path(), &file, &["--format", "codequality", "-o", "gl-code-quality-report.json", "--no-write"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("gl-code-quality-report.json")).unwrap()).unwrap();
    let validator = fixture_schema("gitlab-codequality.schema.json");
    let errors = schema_errors(&validator, &report);
    assert!(errors.is_empty(), "{errors:#?}");
    // The schema is not vacuous: a path-less issue and an unknown severity are refused.
    assert!(!validator.is_valid(&json!([{"description": "d", "check_name": "c", "fingerprint": "f",
        "severity": "error", "location": {"lines": {"begin": 1}}}])));

    let issues = report.as_array().unwrap();
    let ids: Vec<&str> = issues.iter().map(|i| i["check_name"].as_str().unwrap()).collect();
    assert_eq!(ids, ["F-1", "F-2", "E-1"], "one issue per assertion that did not pass");
    let by_id = |id: &str| issues.iter().find(|i| i["check_name"] == id).unwrap();
    let f1 = by_id("F-1");
    assert_eq!(
        (f1["severity"].as_str(), &f1["location"]["path"], &f1["location"]["lines"]["begin"]),
        (Some("major"), &json!("src/a.rs"), &json!(2)),
        "{f1}"
    );
    assert!(f1["description"].as_str().unwrap().contains("src/a.rs:2: // TODO: 100%, really"), "{f1}");
    let text = std::fs::read_to_string(&file).unwrap();
    let line = text.lines().position(|l| l.contains(r#""id": "F-2""#)).unwrap() + 1;
    assert_eq!(by_id("F-2")["location"], json!({"path": "review-assertions.json", "lines": {"begin": line}}));
    assert_eq!(by_id("E-1")["severity"], "minor");
    // GitLab tells new findings from existing ones by fingerprint: unique, and stable.
    let mut prints: Vec<&str> = issues.iter().map(|i| i["fingerprint"].as_str().unwrap()).collect();
    prints.dedup();
    assert_eq!(prints.len(), 3);
    let again = run_in(dir.path(), &file, &["--format", "codequality", "--no-write"]);
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again[0]["fingerprint"], issues[0]["fingerprint"]);
}

#[test]
fn reviewdog_rdjson_validates_and_points_at_the_code() {
    let (dir, file) = repository();
    let out = run_in(dir.path(), &file, &["--format", "rdjson", "--no-write"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let validator = fixture_schema("rdjson-DiagnosticResult.jsonschema");
    let errors = schema_errors(&validator, &report);
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(!validator.is_valid(&json!({"diagnostics": [{"location": {"range": {"start": {"line": "two"}}}}]})));

    assert_eq!(report["source"]["name"], "reviewhost");
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let codes: Vec<&str> = diagnostics.iter().map(|d| d["code"]["value"].as_str().unwrap()).collect();
    assert_eq!(codes, ["F-1", "F-2", "E-1"]);
    let f1 = &diagnostics[0];
    assert_eq!(f1["location"], json!({"path": "src/a.rs", "range": {"start": {"line": 2}}}));
    assert_eq!(f1["severity"], "ERROR");
    assert!(f1["original_output"].as_str().unwrap().contains("src/a.rs:2: // TODO: 100%, really"), "{f1}");
    assert_eq!(diagnostics[1]["location"]["path"], "review-assertions.json");
    assert_eq!(diagnostics[2]["severity"], "WARNING");
}

/// Replaces every `"pattern": from` in `schema`; returns how many.
fn repair_pattern(schema: &mut Value, from: &str, to: &str) -> usize {
    match schema {
        Value::Object(map) => {
            let mut n = 0;
            for (key, value) in map.iter_mut() {
                if key == "pattern" && value == from {
                    *value = json!(to);
                    n += 1;
                } else {
                    n += repair_pattern(value, from, to);
                }
            }
            n
        }
        Value::Array(items) => items.iter_mut().map(|v| repair_pattern(v, from, to)).sum(),
        _ => 0,
    }
}

#[test]
fn github_annotations_escape_and_the_step_summary_is_appended() {
    let (dir, _file) = repository();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let out = reviewhost()
        .current_dir(dir.path())
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["run", "review-assertions.json", "--format", "github", "--no-write"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("Confidence: 25%"), "the text report is kept: {text}");
    let annotations: Vec<&str> = text.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(annotations.len(), 3, "{text}");
    let f1 = annotations.iter().find(|l| l.contains("F-1")).unwrap();
    assert!(f1.starts_with("::error file=src/a.rs,line=2,title=F-1 failed (grep_not_match)::"), "{f1}");
    // The message's newline and % are escaped; the evidence line is in it.
    assert!(f1.contains("%0Asrc/a.rs:2: // TODO: 100%25, really"), "{f1}");
    let e1 = annotations.iter().find(|l| l.contains("E-1")).unwrap();
    assert!(e1.starts_with("::warning file=review-assertions.json,line="), "{e1}");

    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.starts_with("earlier step\n### reviewhost: review-assertions.json"), "{md}");
    assert!(md.contains("**25%** (1/4 assertions passing)"), "{md}");
    assert!(md.contains("| ❌ | F-1 | grep\\_not\\_match | no TODO: in src, 100% &lt;done&gt; |"), "{md}");
    assert!(md.contains("| ⚠️ | E-1 |"), "{md}");
}

#[test]
fn several_reports_in_one_run() {
    let (dir, file) = repository();
    let out = run_in(
        dir.path(),
        &file,
        &["--format", "junit", "-o", "j.xml", "--format", "json", "--format", "sarif", "-o", "s.sarif"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // json has no --output after it: it is the stdout report.
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["results"].as_array().unwrap().len(), 4);
    assert!(std::fs::read_to_string(dir.path().join("j.xml")).unwrap().contains("<testsuites"));
    assert!(std::fs::read_to_string(dir.path().join("s.sarif")).unwrap().contains("\"2.1.0\""));
    assert_eq!(statuses(&file)[1], ("F-1".into(), "fail".into()), "the file is still written back");
}

#[test]
fn report_arguments_that_cannot_work_exit_2_before_running() {
    let (dir, file) = repository();
    let before = sha256(&file);
    for (args, says) in [
        (&["--output", "x.xml"][..], "has no --format before it"),
        (&["--format", "json", "--format", "sarif"][..], "only one report can go to stdout"),
        (&["--format", "junit", "--output", "no/such/dir/j.xml"][..], "does not exist"),
        (&["--shard", "3/2"][..], "expected K/N"),
    ] {
        let out = run_in(dir.path(), &file, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(sha256(&file), before, "nothing ran, nothing was written");
}

#[test]
fn fail_on_chooses_which_outcomes_fail_the_job() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a"), "").unwrap();
    let only_error = assertions_file(
        dir.path(),
        json!([{"id": "E", "type": "nope"}, {"id": "P", "type": "file_exists", "path": "a"}]),
    );
    let code = |args: &[&str]| run_in(dir.path(), &only_error, args).status.code();
    assert_eq!(code(&["--no-write"]), Some(1));
    assert_eq!(code(&["--no-write", "--fail-on", "any"]), Some(1));
    assert_eq!(code(&["--no-write", "--fail-on", "fail"]), Some(0));
    let with_fail = assertions_file(dir.path(), json!([{"id": "F", "type": "file_exists", "path": "missing"}]));
    let code = |args: &[&str]| run_in(dir.path(), &with_fail, args).status.code();
    assert_eq!(code(&["--no-write", "--fail-on", "fail"]), Some(1));
    assert_eq!(code(&["--no-write", "--fail-on", "never"]), Some(0));
}

#[test]
fn shards_run_disjoint_parts_that_cover_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("here"), "").unwrap();
    let assertions: Vec<Value> = (0..30)
        .map(|i| json!({"id": format!("S-{i:02}"), "type": "file_exists", "path": if i % 3 == 0 { "gone" } else { "here" }}))
        .collect();
    let file = assertions_file(dir.path(), Value::Array(assertions));
    let mut seen = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let out = run_in(dir.path(), &file, &["--shard", &shard, "--format", "json"]);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let ids: Vec<String> =
            report["results"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
        assert!(!ids.is_empty() && ids.len() < 30, "shard {shard}: {ids:?}");
        // The same shard twice is the same set.
        let again = run_in(dir.path(), &file, &["--shard", &shard, "--format", "json", "--no-write"]);
        let again: Value = serde_json::from_slice(&again.stdout).unwrap();
        assert_eq!(again["results"].as_array().unwrap().len(), ids.len());
        seen.extend(ids);
    }
    seen.sort();
    let all: Vec<String> = (0..30).map(|i| format!("S-{i:02}")).collect();
    assert_eq!(seen, all, "every assertion in exactly one shard");
    // Shards taking turns on one file leave every status and a whole-file confidence.
    let doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(doc["confidence"], json!({"passed": 20, "total": 30, "score": 0.6667}));
    assert!(statuses(&file).iter().all(|(_, s)| s == "pass" || s == "fail"));
}

#[test]
fn schema_is_printed_and_validate_lists_every_problem() {
    let out = reviewhost().arg("schema").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let schema: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(schema["$schema"].as_str().unwrap().contains("json-schema.org"), "{schema}");
    assert!(jsonschema::meta::is_valid(&schema), "the schema is itself a valid JSON Schema");
    // Its `$id` resolves: the repository keeps the printed schema where the `$id` points.
    let id = schema["$id"].as_str().unwrap();
    let path = reviewhost::assertion::schema::SCHEMA_PATH;
    assert!(id.ends_with(&format!("/raw/v{}/{path}", env!("CARGO_PKG_VERSION"))), "{id}");
    let kept = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    assert!(kept == out.stdout, "{path} is not what `reviewhost schema` prints: run `reviewhost schema > {path}`");

    // Every bundled example conforms, by the printed schema and by `validate`.
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let validator = jsonschema::validator_for(&schema).unwrap();
    for example in ["basic/assertions.json", "custom/assertions.json"] {
        let path = examples.join(example);
        let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert!(validator.is_valid(&doc), "{example}");
        let out = reviewhost().arg("validate").arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{example}: {}", stdout(&out));
    }

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    let before = r#"{"assertions": [
        {"id": "A", "type": "file_exists", "path": ""},
        {"id": "B", "type": "grep_match"},
        {"id": "C", "type": "grep_matchh", "command": "true"},
        {"id": "D", "type": "custom", "component": "c.wasm", "sha256": "xyz"}
    ]}"#;
    std::fs::write(&bad, before).unwrap();
    let out = reviewhost().arg("validate").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    for pointer in ["/assertions/0", "/assertions/1", "/assertions/2", "/assertions/3"] {
        assert!(text.contains(&format!("bad.json: {pointer}")), "{pointer} in {text}");
    }
    assert_eq!(std::fs::read_to_string(&bad).unwrap(), before, "validate writes nothing");

    std::fs::write(&bad, r#"{"assertions": [{"id": "A", "type": "file_exists", "path": "x"}, {"id": "A", "type": "file_exists", "path": "y"}]}"#).unwrap();
    let out = reviewhost().arg("validate").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("duplicate id"), "{}", stdout(&out));

    std::fs::write(&bad, "{\n  \"assertions\": [,]\n}").unwrap();
    let out = reviewhost().arg("validate").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("bad.json:2:18: invalid JSON"), "{}", stdout(&out));

    let out = reviewhost().arg("validate").arg(dir.path().join("none.json")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("hint: pass the assertions file"), "{}", stderr(&out));
}

#[test]
fn completions_for_each_shell() {
    for (shell, marker) in
        [("bash", "_reviewhost()"), ("zsh", "#compdef reviewhost"), ("fish", "complete -c reviewhost")]
    {
        let out = reviewhost().args(["completions", shell]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = stdout(&out);
        assert!(script.contains(marker), "{shell}: {}", &script[..script.len().min(300)]);
        assert!(script.contains("fail-on") && script.contains("validate"), "{shell} completes flags and subcommands");
    }
}

/// Shards run apart (`--shard K/N`, or `auto` from the CI system's variables) and merged
/// with `reviewhost merge` give the report of the whole run.
#[test]
fn shards_merge_into_the_report_of_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# x\n").unwrap();
    let list: Vec<serde_json::Value> = (0..12)
        .map(|i| {
            let path = if i % 3 == 0 { "missing.md" } else { "README.md" };
            json!({"id": format!("A-{i:02}"), "type": "file_exists", "description": format!("check {i}"), "path": path})
        })
        .collect();
    let file = assertions_file(dir.path(), serde_json::Value::Array(list));
    let whole = run_in(dir.path(), &file, &["--no-write", "--format", "json", "-o", "whole.json"]);
    assert_eq!(whole.status.code(), Some(1));
    let mut shards = Vec::new();
    for k in 1..=3 {
        let name = format!("shard-{k}.json");
        let out =
            run_in(dir.path(), &file, &["--no-write", "--shard", &format!("{k}/3"), "--format", "json", "-o", &name]);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
        shards.push(name);
    }
    let merge = |args: &[&str]| reviewhost().current_dir(dir.path()).arg("merge").args(args).output().unwrap();
    let mut args: Vec<&str> = shards.iter().map(String::as_str).collect();
    args.extend([
        "--format",
        "json",
        "-o",
        "merged.json",
        "--format",
        "junit",
        "-o",
        "merged.xml",
        "--format",
        "codequality",
        "-o",
        "gl-code-quality-report.json",
        "--format",
        "sarif",
    ]);
    let out = merge(&args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(name)).unwrap()).unwrap()
    };
    let summary = |report: &serde_json::Value| -> Vec<(String, String)> {
        report["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["id"].as_str().unwrap().to_string(), r["status"].as_str().unwrap().to_string()))
            .collect()
    };
    let (whole, merged) = (read("whole.json"), read("merged.json"));
    assert_eq!(summary(&merged), summary(&whole), "the file's order, every result");
    assert_eq!(merged["confidence"], whole["confidence"]);
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 4);
    assert!(std::fs::read_to_string(dir.path().join("merged.xml")).unwrap().contains(r#"tests="12""#));
    // GitLab's recipe: the shards' JSON merged into one Code Quality report.
    assert_eq!(read("gl-code-quality-report.json").as_array().unwrap().len(), 4);
    // A shard merged twice, or a report of another file, is refused.
    let twice = merge(&[shards[0].as_str(), shards[0].as_str()]);
    assert_eq!(twice.status.code(), Some(2));
    assert!(stderr(&twice).contains("is in shard-1.json and in shard-1.json"), "{}", stderr(&twice));
    std::fs::write(dir.path().join("other.json"), r#"{"file": "x.json", "root": ".", "results": []}"#).unwrap();
    let other = merge(&[shards[0].as_str(), "other.json"]);
    assert_eq!(other.status.code(), Some(2));
    assert!(stderr(&other).contains("its assertions file is x.json"), "{}", stderr(&other));

    // `--shard auto` takes the CI system's numbering: GitLab 1-based, Buildkite 0-based.
    let auto = |vars: &[(&str, &str)]| {
        let mut command = reviewhost();
        command.current_dir(dir.path()).args(["run"]).arg(&file).args([
            "--root",
            ".",
            "--no-write",
            "--shard",
            "auto",
            "--format",
            "json",
        ]);
        for (k, v) in vars {
            command.env(k, v);
        }
        let out = command.output().unwrap();
        summary(&serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr(&out))))
    };
    assert_eq!(auto(&[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "3")]), summary(&read("shard-2.json")));
    assert_eq!(
        auto(&[("BUILDKITE_PARALLEL_JOB", "0"), ("BUILDKITE_PARALLEL_JOB_COUNT", "3")]),
        summary(&read("shard-1.json"))
    );
}

/// `--format claude-hook`: the digest on stderr, exit 2 on failures (what blocks a
/// Claude Code agent), 1 when the run cannot be done, and no second block when the
/// hook's input says the agent is already continuing because of it.
#[test]
fn the_claude_hook_format_blocks_on_failures_once() {
    let (dir, file) = repository();
    let hook = |stdin: &str| {
        use std::io::Write;
        let mut child = reviewhost()
            .current_dir(dir.path())
            .arg("run")
            .arg(&file)
            .args(["--root", ".", "--no-write", "--format", "claude-hook"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    };
    let out = hook(r#"{"hook_event_name": "Stop", "stop_hook_active": false}"#);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "the digest is on stderr: {}", stdout(&out));
    let digest = stderr(&out);
    assert!(digest.starts_with("reviewhost: 3 of 4 assertions do not pass (confidence 25%)"), "{digest}");
    assert!(digest.contains("- F-1 (grep_not_match) fails: no TODO: in src, 100% <done>"), "{digest}");
    assert!(digest.contains("- E-1 (frobnicate) could not be evaluated"), "{digest}");
    let again = hook(r#"{"hook_event_name": "Stop", "stop_hook_active": true}"#);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(stderr(&again).contains("not blocking again"), "{}", stderr(&again));
    let broken = reviewhost()
        .current_dir(dir.path())
        .args(["run", "no-such.json", "--format", "claude-hook"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(broken.status.code(), Some(1), "a broken setup does not trap the agent: {}", stderr(&broken));
}

#[test]
fn validate_takes_several_files_and_says_each_error_once() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let (basic, custom) = (examples.join("basic/assertions.json"), examples.join("custom/assertions.json"));
    let out = reviewhost().arg("validate").arg(&basic).arg(&custom).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(stdout(&out).matches(": valid\n").count(), 2, "{}", stdout(&out));
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let out = reviewhost().arg("validate").arg(&basic).arg(&missing).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("missing.json: cannot read the assertions file"), "{err}");
    assert_eq!(err.matches("No such file or directory").count(), 1, "the cause is said once: {err}");
}
