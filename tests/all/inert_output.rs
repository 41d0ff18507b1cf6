//! Untrusted text reaches a terminal or a CI log inert (issue 15, item 7).
//!
//! Ids, types and descriptions from the assertions file, repository content found by a
//! check, and agents' answers carry escape sequences (OSC 52 clipboard writes,
//! clear-screen), bidi controls, line breaks followed by GitHub workflow commands
//! (`::error file=…::`, `::stop-commands::`) and the legacy `##[` form. Every human
//! output of `run` and `review` must show them escaped and never as something a
//! terminal or the Actions runner acts on; SARIF and annotations must not point at an
//! evidence path that leaves the root once percent-decoded.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::support::*;

/// Repository content with everything a terminal or the runner would act on.
const EVIL_FILE: &str = "MARK \x1b]52;c;ZXZpbA==\x07 \x1b[2J\n\
    ::error file=src/evil.txt::MARK forged from the repo\n  \
    ::stop-commands::MARKtok\n\
    x ##[warning]MARK legacy form\n\
    MARK \u{202e}reversed\u{2028}separated\u{85}nel\rcarriage return\n";

/// Reviewhost's own annotations on `text`: lines the runner would parse as commands
/// (`::` after leading whitespace), checked to be `::error`/`::warning` with only the
/// properties reviewhost writes.
fn own_annotations(text: &str) -> Vec<&str> {
    let commands: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with("::")).collect();
    for line in &commands {
        let rest = line
            .strip_prefix("::error ")
            .or_else(|| line.strip_prefix("::warning "))
            .unwrap_or_else(|| panic!("a workflow command that is not reviewhost's own annotation: {line:?}\n{text}"));
        let properties = &rest[..rest.find("::").expect("an annotation has a message")];
        for property in properties.split(',') {
            let key = property.split('=').next().unwrap();
            assert!(["file", "line", "title"].contains(&key), "property {key:?} in {line:?}");
        }
    }
    commands
}

/// What no human output may hold: a control character (a line end aside), a line
/// separator or bidi control, a workflow command other than reviewhost's own, `##[`.
fn assert_inert(what: &str, text: &str) {
    let raw: Vec<char> = text
        .chars()
        .filter(|&c| {
            (c.is_control() && c != '\n')
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        })
        .collect();
    assert!(raw.is_empty(), "{what}: raw control characters {raw:?} in\n{text:?}");
    assert!(!text.contains("##["), "{what}: a legacy workflow command in\n{text}");
    own_annotations(text);
}

fn hostile_repository() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/evil.txt"), EVIL_FILE).unwrap();
    let file = assertions_file(
        dir.path(),
        json!([
            {"id": "ID\n::error file=x::forged by an id", "type": "grep_not_match",
             "description": "desc \u{1b}[2J\n::stop-commands::tok", "command": "grep -rn MARK src"},
            {"id": "::stop-commands::tok", "type": "file_exists",
             "description": "\u{1b}]52;c;Y2xpcA==\u{7} clipboard", "path": "missing"},
            {"id": "T-1", "type": "\n::error file=x::forged by a type\u{1b}[2J", "description": "unknown type"},
            {"id": "CAT", "type": "grep_not_match", "description": "the file's lines as the message",
             "command": "cat src/evil.txt"},
            {"id": "P-1", "type": "file_exists", "path": "src/evil.txt",
             "description": "\u{202e}bidi\u{2028}separator\u{85}nel ##[group]legacy"}
        ]),
    );
    (dir, file)
}

fn run_in(dir: &Path, args: &[&str], summary: &Path) -> Output {
    reviewhost()
        .current_dir(dir)
        .env("GITHUB_STEP_SUMMARY", summary)
        .args(["run", "review-assertions.json", "--root", ".", "--no-write"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn hostile_ids_descriptions_types_and_repository_content_print_inert_in_text_and_github() {
    let (dir, _file) = hostile_repository();
    let summary = dir.path().join("summary.md");
    for args in [
        &["--format", "text"][..],
        &["--format", "text", "--verbose"],
        &["--format", "text", "--quiet"],
        &["--format", "github"],
        &["--format", "github", "--verbose"],
        &["--format", "text", "--verbose", "--format", "text", "--output", "report.txt"],
    ] {
        let out = run_in(dir.path(), args, &summary);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let text = stdout(&out);
        assert_inert(&format!("{args:?} stdout"), &text);
        assert_inert(&format!("{args:?} stderr"), &stderr(&out));
        let github = args.contains(&"github");
        assert_eq!(own_annotations(&text).len(), if github { 4 } else { 0 }, "{args:?}:\n{text}");

        // The hostile text is still there, escaped.
        assert!(text.contains(r"ID\n::error file=x::forged by an id"), "{args:?}:\n{text}");
        assert!(text.contains(r"\x3a:stop-commands::tok"), "{args:?}:\n{text}");
        assert!(text.contains(r"\n::error file=x::forged by a type\x1b[2J"), "{args:?}:\n{text}");
        if !args.contains(&"--quiet") {
            assert!(text.contains(r"\u{202e}bidi\u{2028}separator\u{85}nel ##\x5bgroup]legacy"), "{args:?}:\n{text}");
        }
        if args.contains(&"--verbose") {
            // Repository content, in the message and in the evidence.
            assert!(text.contains(r"MARK \x1b]52;c;ZXZpbA==\x07 \x1b[2J"), "{args:?}:\n{text}");
            assert!(text.contains(r"\x3a:error file=src/evil.txt::MARK forged from the repo"), "{args:?}:\n{text}");
            assert!(text.contains(r"x ##\x5bwarning]MARK legacy form"), "{args:?}:\n{text}");
            assert!(text.contains(r"nel\rcarriage return"), "{args:?}:\n{text}");
        }
        if github {
            let cat = own_annotations(&text).into_iter().find(|l| l.contains("title=CAT")).unwrap();
            assert!(cat.contains(r"%0A  \x3a:stop-commands::MARKtok%0A"), "{cat}");
        }
        if args.contains(&"--output") {
            let report = std::fs::read_to_string(dir.path().join("report.txt")).unwrap();
            assert_inert("report.txt", &report);
            assert!(report.contains(r"\x3a:error file=src/evil.txt::MARK forged from the repo"), "{report}");
        }
    }
    let md = std::fs::read_to_string(&summary).unwrap();
    assert_inert("step summary", &md);
    assert!(md.contains(r"\\x3a:stop-commands::tok"), "{md}");
}

#[test]
fn an_evidence_path_that_leaves_the_root_once_percent_decoded_is_no_location() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = dir.path().join("%2e%2e/%2e%2e/etc");
    std::fs::create_dir_all(&hostile).unwrap();
    std::fs::write(hostile.join("passwd"), "root:x:0:0:MARK\n").unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/ok.rs"), "// MARK\n").unwrap();
    assertions_file(
        dir.path(),
        json!([
            {"id": "S-1", "type": "grep_not_match", "command": "grep -rn MARK %2e%2e src"},
            {"id": "S-2", "type": "grep_not_match", "command": "grep -rn MARK %2e%2e"}
        ]),
    );
    let summary = dir.path().join("summary.md");
    let out = run_in(dir.path(), &["--format", "sarif", "-o", "review.sarif", "--format", "github"], &summary);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // The evidence is there (the check did find the file) ...
    let text = stdout(&out);
    assert!(text.contains("%252e%252e/%252e%252e/etc/passwd:1: root"), "{text}");

    // ... but no location is made of it.
    let sarif: Value = serde_json::from_slice(&std::fs::read(dir.path().join("review.sarif")).unwrap()).unwrap();
    let uris: Vec<(&str, &str)> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| {
            let id = r["ruleId"].as_str().unwrap();
            r["locations"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |l| (id, l["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap()))
        })
        .collect();
    assert_eq!(uris, [("S-1", "src/ok.rs"), ("S-2", "review-assertions.json")]);
    let annotations = own_annotations(&text);
    assert!(annotations[0].starts_with("::error file=src/ok.rs,line=1,title=S-1 "), "{text}");
    assert!(annotations[1].starts_with("::error file=review-assertions.json,line="), "{text}");
}

/// A git repository for `reviewhost review` and, beside it, a configuration whose
/// agents are the scripted agent (`tests/agents/scripted_agent.py`) playing `script`.
struct ReviewRepository {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: PathBuf,
}

impl ReviewRepository {
    fn review(&self, args: &[&str]) -> Output {
        reviewhost().arg("review").arg(&self.root).arg("--config").arg(&self.config).args(args).output().unwrap()
    }
}

fn review_repository(script: Value) -> ReviewRepository {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "// TODO: \u{1b}]52;c;ZXZpbA==\u{7}\n::error file=x::forged\n").unwrap();
    let agent = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents/scripted_agent.py");
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let config = format!(
        "[agent]\ncommand = [\"python3\", {:?}, {:?}]\ntimeout = \"20s\"\n",
        agent.display().to_string(),
        script_path.display().to_string()
    );
    let config_path = dir.path().join("reviewhost.toml");
    std::fs::write(&config_path, config).unwrap();
    for args in [&["init", "-q"][..], &["add", "-A"], &["commit", "-qm", "init"]] {
        git(&root, args);
    }
    ReviewRepository { _dir: dir, root, config: config_path }
}

fn answer(findings: &str, assertions: Value) -> Value {
    json!({"response": format!("{findings}\n\n## Assertions\n\n```json\n{assertions}\n```\n")})
}

#[test]
fn review_prints_agents_answers_and_dropped_ids_inert() {
    let repo = review_repository(json!({
        "principles-analyst": [answer("P1: a TODO.", json!([
            {"id": "A-A-1\u{1b}[2J\n::error file=x::forged by an id", "track": "A", "type": "grep_not_match",
             "description": "no TODO \u{1b}]52;c;Y2xpcA==\u{7}\n::stop-commands::tok", "command": "grep -rn TODO src"},
            {"id": "A-A-2\n::warning::dropped", "track": "A", "type": "grep_not_match",
             "description": "vacuous", "command": "grep -c TODO src/lib.rs"}
        ]))],
        "ux-analyst": [answer("None.", json!([]))],
        "docs-analyst": [answer("None.", json!([]))],
        "implementer": [{"response": "## Implementation\n::error file=y::forged by the implementer"}],
        "fix-agent": [{"response": "## Fix-Agent Results — Pass 1\n::error file=z::forged by the fix-agent\n\
                                    ##[warning]legacy \u{1b}[2J\u{1b}]52;c;Y2xpcA==\u{7}\r\n\u{202e}done"}]
    }));
    let out = repo.review(&["--max-passes", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert_inert("review stdout", &text);
    assert_inert("review stderr", &stderr(&out));
    assert!(text.contains(r"dropped A-A-2\n::warning::dropped: "), "{text}");
    assert!(text.contains(r"\x3a:error file=z::forged by the fix-agent"), "{text}");
    assert!(text.contains(r"##\x5bwarning]legacy \x1b[2J\x1b]52;c;Y2xpcA==\x07\r"), "{text}");
    assert!(text.contains(r"\u{202e}done"), "{text}");
    assert!(text.contains(r"A-A-1\x1b[2J\n::error file=x::forged by an id"), "{text}");
    assert!(text.contains(r"no TODO \x1b]52;c;Y2xpcA==\x07\n::stop-commands::tok"), "{text}");
    // The reports kept in .reviewhost/reports are the same Markdown, as inert.
    for report in ["pass-1.md", "final.md"] {
        let md = std::fs::read_to_string(repo.root.join(".reviewhost/reports").join(report)).unwrap();
        assert_inert(report, &md);
    }
}

#[test]
fn an_agents_stderr_in_an_abort_message_prints_inert() {
    let repo = review_repository(json!({
        "principles-analyst": [{"exit": 3, "stderr": "boom\n::error file=x::forged by stderr\n\u{1b}[2J##[error]x"}],
        "ux-analyst": [answer("None.", json!([]))],
        "docs-analyst": [answer("None.", json!([]))]
    }));
    let out = repo.review(&[]);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    let err = stderr(&out);
    assert_inert("review stdout", &stdout(&out));
    assert_inert("review stderr", &err);
    assert!(err.contains(r"\x1b[2J##\x5berror]x"), "{err}");
    assert!(err.contains("::error file=x::forged by stderr"), "the text is shown, joined by the tail: {err}");
}
