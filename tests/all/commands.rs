//! The command types, end to end through the binary: realistic analyst commands with
//! their correct verdicts, escapes attempted through commands, and pathological input.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::*;

/// A small repository like the ones analysts review.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("src/db.rs", "use crate::MockConnection;\nfn connect() -> MockConnection { MockConnection::new() }\n"),
        ("src/lib.rs", "pub struct Foo;\npub struct FooBar;\n"),
        ("src/_archive/old.rs", "struct Foo; // archived\n"),
        ("web/index.ts", "// TODO: remove\nexport const x = 1;\n"),
        ("web/util.ts", "export const y = 2;\n"),
        ("config.json", "{\"review_max_cycles\": 3, \"name\": \"demo\"}\n"),
        ("f.txt", "a|b\nplain\n"),
        ("one.txt", "x marks\n"),
    ];
    for (path, contents) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, contents).unwrap();
    }
    dir
}

fn command(id: &str, kind: &str, command: &str) -> Value {
    json!({"id": id, "type": kind, "description": command, "command": command})
}

fn with_expected(mut a: Value, expected: &str) -> Value {
    a["expected"] = json!(expected);
    a
}

/// Runs `assertions` in `root` (the file outside the root) and returns (id, status,
/// failure_output) per assertion.
fn outcomes(root: &std::path::Path, assertions: Value, extra: &[&str]) -> Vec<(String, String, String)> {
    let state = tempfile::tempdir().unwrap();
    let file = assertions_file(state.path(), assertions);
    let out = run(&file, root, extra);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    read_assertions(&file)
        .iter()
        .map(|a| {
            (
                a["id"].as_str().unwrap().to_string(),
                a["status"].as_str().unwrap().to_string(),
                a["failure_output"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn assert_statuses(results: &[(String, String, String)], expected: &[(&str, &str)]) {
    for ((id, status, output), (want_id, want)) in results.iter().zip(expected) {
        assert_eq!(id, want_id);
        assert_eq!(status, want, "{id}: {output}");
    }
    assert_eq!(results.len(), expected.len());
}

#[test]
fn realistic_analyst_commands_get_their_correct_verdicts() {
    let repo = repo();
    let results = outcomes(
        repo.path(),
        json!([
            command("R-1", "grep_match", r#"grep -rn "MockConnection" src/"#),
            command("R-2", "grep_not_match", r#"grep -rn "MockConnection" src/"#),
            with_expected(command("R-3", "grep_match", "grep -c 'Foo' src/lib.rs"), "count:2"),
            with_expected(command("R-4", "grep_match", "grep -c 'x' one.txt"), "count:1"),
            command("R-5", "grep_match", r"rg -n 'Foo\b' src --glob '!**/_archive/**'"),
            command("R-6", "grep_match", "(cd web && grep -rl TODO .)"),
            command("R-7", "grep_not_match", r#"grep -cE "a\|b" f.txt"#),
            with_expected(command("R-8", "shell_exit_zero", "jq '.review_max_cycles' config.json"), "equals:3"),
            with_expected(command("R-9", "shell_exit_zero", "jq '.review_max_cycles' config.json"), "equals:4"),
            command("R-10", "grep_not_match", "grep -rn 'unsafe' src/"),
            command("R-11", "grep_not_match", "grep -rn Mock missing/ 2>/dev/null"),
            command("R-12", "typescript_compile", "cd web && npx tsc --noEmit 2>&1"),
            command("R-13", "shell_exit_zero", "npx tsc --noEmit"),
            command("R-14", "grep_match", "ls web | grep -c ts"),
            with_expected(command("R-15", "grep_match", "find src -name '*.rs' | wc -l"), "count>=3"),
            with_expected(command("R-16", "grep_match", "grep -c Foo src/lib.rs"), "no_match"),
            command("R-17", "grep_match", "cat <(ls src)"),
        ]),
        &[],
    );
    assert_statuses(
        &results,
        &[
            ("R-1", "pass"),
            ("R-2", "fail"),
            ("R-3", "pass"),
            ("R-4", "pass"),
            ("R-5", "pass"),
            ("R-6", "pass"),
            ("R-7", "fail"),
            ("R-8", "pass"),
            ("R-9", "fail"),
            ("R-10", "pass"),
            ("R-11", "error"),
            ("R-12", "error"),
            ("R-13", "error"),
            ("R-14", "pass"),
            ("R-15", "pass"),
            ("R-16", "error"),
            ("R-17", "error"),
        ],
    );
    let output = |id: &str| results.iter().find(|r| r.0 == id).unwrap().2.clone();
    assert!(output("R-2").contains("src/db.rs:1:use crate::MockConnection;"), "{}", output("R-2"));
    assert!(output("R-7").contains("can never pass"), "{}", output("R-7"));
    assert!(output("R-7").contains("literal bar"), "{}", output("R-7"));
    assert!(output("R-11").contains("No such file or directory"), "{}", output("R-11"));
    assert_eq!(output("R-12"), "program 'npx' is not available in the reviewhost sandbox");
    assert_eq!(output("R-13"), "program 'npx' is not available in the reviewhost sandbox");
    assert!(output("R-16").contains("contradicts type 'grep_match'"), "{}", output("R-16"));
    assert!(output("R-17").contains("process substitution"), "{}", output("R-17"));
}

#[test]
fn lint_reports_vacuous_and_contradictory_checks() {
    let repo = repo();
    let state = tempfile::tempdir().unwrap();
    let file = assertions_file(
        state.path(),
        json!([
            command("L-1", "grep_not_match", "grep -c TODO web/index.ts"),
            command("L-2", "grep_match", r#"grep -E "a\|b" f.txt"#),
            command("L-3", "grep_match", "grep 'a|b' f.txt"),
            command("L-4", "grep_not_match", "grep -rn Mock lib/"),
            command("L-5", "grep_match", "grep -q x one.txt; echo checked"),
            with_expected(command("L-6", "grep_not_match", "grep x one.txt"), "match"),
            command("L-7", "grep_match", "grep -rn Foo src/"),
            command("L-8", "shell_exit_zero", "cd web && npx tsc --noEmit 2>&1 | head -20 || true"),
            command("L-9", "typescript_compile", "npx tsc --noEmit 2>&1 | head -20"),
            command("L-10", "shell_exit_zero", "set -o pipefail; grep -q x one.txt | head -1"),
            command("L-11", "grep_match", "grep -rP 'fix(?=es)' . || echo none"),
            command("L-12", "grep_match", "echo pwned | tee one.txt; cat one.txt"),
        ]),
    );
    let before = sha256(&file);
    let out = reviewhost().arg("lint").arg(&file).arg("--root").arg(repo.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    for (id, needle) in [
        ("L-1", "can never pass"),
        ("L-2", "extended regex"),
        ("L-3", "basic regex"),
        ("L-4", "'lib/' does not exist"),
        ("L-5", "unconditional echo"),
        ("L-6", "contradicts type 'grep_not_match'"),
        ("L-8", "`|| true` turns every failure into success"),
        ("L-9", "a pipeline's status is its last command's, `head -20`"),
        ("L-9", "runs 'npx', which the sandbox does not have"),
        ("L-11", "`grep -rP fix(?=es) .` is refused in the sandbox (grep: -P is not supported"),
        ("L-12", "`tee one.txt` is refused in the sandbox"),
    ] {
        assert!(text.lines().any(|l| l.starts_with(&format!("{id}: ")) && l.contains(needle)), "{id}: {text}");
    }
    assert!(!text.contains("L-7:") && !text.contains("L-10:"), "{text}");
    assert_eq!(sha256(&file), before, "lint never writes");
    // At run time the finding leads the vacuous check's message.
    let file = assertions_file(state.path(), json!([command("V", "shell_exit_zero", "grep -q nothing f.txt || true")]));
    let out = run(&file, repo.path(), &["--format", "json", "--no-write"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = report["results"][0]["message"].as_str().unwrap();
    assert!(message.starts_with("reviewhost: the exit status of this command cannot be non-zero"), "{message}");
}

/// Every escape attempt, through commands. Outside the root sits a sentinel; none of
/// the commands may print it, and nothing on disk may change.
#[test]
fn commands_cannot_escape_or_change_anything() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    let outside = base.path().join("outside");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("src/a.rs"), "fn main() {}\n").unwrap();
    std::fs::write(outside.join("passwd"), "root:SENTINEL-OUTSIDE:0:0\n").unwrap();
    std::os::unix::fs::symlink(outside.join("passwd"), root.join("link-file")).unwrap();
    std::os::unix::fs::symlink("../outside", root.join("link-dir")).unwrap();
    let snapshot = || {
        let mut entries: Vec<_> = walk(base.path());
        entries.sort();
        entries
    };
    let before = snapshot();
    let attempts = [
        "cat /etc/passwd",
        "grep -r root /etc",
        "cat ../outside/passwd",
        "cd .. && ls",
        "cd .. && cat outside/passwd",
        "find / -name passwd",
        "cat link-file",
        "ls link-dir",
        "cat link-dir/passwd",
        "grep -r SENTINEL .",
        "grep -R SENTINEL .",
        "rg -L SENTINEL",
        "echo x > newfile",
        "rm -rf src",
        "echo pwned >> src/a.rs",
        "cat < ../outside/passwd",
    ];
    let assertions: Vec<Value> =
        attempts.iter().enumerate().map(|(i, c)| command(&format!("X-{i}"), "grep_match", c)).collect();
    let state = tempfile::tempdir().unwrap();
    let file = assertions_file(state.path(), json!(assertions));
    let out = run(&file, &root, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for r in report["results"].as_array().unwrap() {
        let (id, status, message) = (&r["id"], r["status"].as_str().unwrap(), r["message"].as_str().unwrap());
        assert!(!message.contains("SENTINEL"), "{id} read outside the root: {message}");
        match id.as_str().unwrap() {
            // `..` of `/` is `/`: this lists the root itself. `ls link-dir` may name the
            // link (it cannot list what is behind it).
            "X-3" | "X-7" => assert!(!message.contains("passwd"), "{id} listed outside the root: {message}"),
            _ => assert_ne!(status, "pass", "{id} should find nothing outside the root: {message}"),
        }
    }
    assert_eq!(snapshot(), before, "something on disk changed");
    assert_eq!(std::fs::read_to_string(root.join("src/a.rs")).unwrap(), "fn main() {}\n");
}

fn walk(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        let contents = if meta.is_file() { sha256(&path) } else { String::new() };
        out.push((path.display().to_string(), contents));
        if meta.is_dir() {
            out.extend(walk(&path));
        }
    }
    out
}

/// Hostile command strings end as pass, fail or error within the deadline; the host
/// survives and the rest of the file runs.
#[test]
fn pathological_commands_stay_within_the_deadline() {
    let repo = repo();
    let huge_regex = format!("grep -E '{}' f.txt", "(a|b)*".repeat(2000));
    let exponential = "grep -E '(a*)*(b*)*(a|aa)*c' f.txt".to_string();
    let long_pipeline = format!("echo x{}", " | cat".repeat(1000));
    let megabyte = format!("echo {}", "y".repeat(1 << 20));
    let nested = format!("{}echo deep{}", "(".repeat(200), ")".repeat(200));
    let subst = format!("echo {}x{}", "$(echo ".repeat(100), ")".repeat(100));
    let assertions: Vec<Value> = [huge_regex, exponential, long_pipeline, megabyte, nested, subst]
        .iter()
        .enumerate()
        .map(|(i, c)| command(&format!("P-{i}"), "grep_match", c))
        .chain([command("OK", "grep_match", "grep -rn Foo src/")])
        .collect();
    let started = Instant::now();
    let results = outcomes(repo.path(), json!(assertions), &["--timeout", "5s"]);
    // Six checks, two at a time, each bounded by 5 s + the watchdog's grace.
    assert!(started.elapsed() < Duration::from_secs(25), "took {:?}", started.elapsed());
    for (id, status, output) in &results {
        assert!(["pass", "fail", "error"].contains(&status.as_str()), "{id}: {status} {output}");
    }
    assert_eq!(results.last().unwrap().1, "pass");
    let status = |id: &str| results.iter().find(|r| r.0 == id).unwrap().1.clone();
    assert_eq!(status("P-2"), "pass", "a 1,000-stage pipeline runs");
    assert_eq!(status("P-3"), "pass", "a 1 MB command runs");
    assert_eq!(status("P-4"), "error", "nesting past the limit is refused");
}

/// In-sandbox grep against GNU grep on input shaped to reach every path of the searcher's
/// line counting and encoding check (blocks of 4,080 bytes and their remainders, long and
/// empty lines, non-ASCII and invalid UTF-8 lines) and of the directory walk: each
/// sandboxed pipeline must print exactly what the same pipeline prints natively.
#[test]
fn grep_line_numbers_and_walks_agree_with_gnu_tools() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut big = Vec::new();
    for i in 0..30_000usize {
        let width = (i * 7919) % 301;
        big.extend(std::iter::repeat_n(b'x', width));
        match i % 97 {
            0 => big.extend_from_slice(b" needle"),
            5 => big.extend_from_slice(" caf\u{e9} needle \u{65e5}\u{672c}".as_bytes()),
            11 if i % 3 == 0 => big.extend(std::iter::repeat_n(b'y', 9000)),
            _ => {}
        }
        big.push(b'\n');
    }
    std::fs::write(root.join("big.txt"), &big).unwrap();
    std::fs::write(root.join("bad.txt"), b"needle one\nneedle \xff\xfe two\nthree needle\n").unwrap();
    for d in 0..12 {
        for f in 0..9 {
            let path = root.join(format!("tree/d{d}/sub{}/f{f}.rs", f % 3));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, format!("fn f{f}() {{}}\n// needle {d}\n{}needle\n", "\n".repeat(d * f))).unwrap();
        }
    }
    std::os::unix::fs::symlink("d1", root.join("tree/link")).unwrap();
    std::fs::create_dir(root.join("tree/d2/empty")).unwrap();
    let pipelines = [
        "grep -n needle big.txt | cut -d: -f1 | tr '\\n' ,",
        "grep -c needle big.txt",
        "grep -n 'caf' big.txt | cut -d: -f1 | tr '\\n' ,",
        "grep -no 'needle.*' big.txt | tail -n 3",
        "grep -n needle bad.txt",
        "grep -rn needle tree | sort | tr '\\n' ,",
        "grep -rc needle tree --include='f1*' | sort | tr '\\n' ,",
        "grep -rl needle tree/d3 | sort | tr '\\n' ,",
        // find and ls list through the host (kinds from the directory, no stat per entry).
        "find tree -name 'f1*' | sort | tr '\\n' ,",
        "find tree -type d | sort | tr '\\n' ,",
        "find tree -type l -o -type f -name 'f8*' | sort | tr '\\n' ,",
        "find tree -type f -size +60c | sort | tr '\\n' ,",
        "find tree/d2 -empty -o -printf '%y %s %p\\n' | sort | tr '\\n' ,",
        "ls -R tree | tr '\\n' ,",
        "ls -p tree tree/d4 | tr '\\n' ,",
        "ls -F tree | tr '\\n' ,",
        "echo tree/d1*/sub?/f[12].rs tree/*/",
    ];
    let assertions: Vec<Value> = pipelines
        .iter()
        .enumerate()
        .map(|(i, pipeline)| {
            let native = std::process::Command::new("sh")
                .arg("-c")
                .arg(pipeline)
                .current_dir(root)
                .env("LC_ALL", "C.UTF-8")
                .output()
                .unwrap();
            let expected = String::from_utf8(native.stdout).unwrap();
            assert!(!expected.trim().is_empty(), "{pipeline}: the GNU tools printed nothing");
            with_expected(command(&format!("G-{i}"), "shell_exit_zero", pipeline), &format!("equals:{expected}"))
        })
        .collect();
    let state = tempfile::tempdir().unwrap();
    let file = assertions_file(state.path(), json!(assertions));
    let out = run(&file, root, &["--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (result, pipeline) in report["results"].as_array().unwrap().iter().zip(pipelines) {
        assert_eq!(result["status"], "pass", "{pipeline}: {}", result["message"]);
    }
}

/// A grep whose output is several times the check's memory limit still gets its verdict:
/// the output goes straight to a `grep_match` verdict, which reads only its start, so
/// the sandboxed grep stops keeping lines once it has what the verdict reads.
#[test]
fn output_larger_than_the_memory_limit_still_gets_a_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let lines = "needle in a line\n".repeat(60_000);
    for i in 0..20 {
        std::fs::write(dir.path().join(format!("f{i:02}.txt")), &lines).unwrap();
    }
    let assertions = json!([
        command("BIG", "grep_match", "grep -rn needle ."),
        command("NONE", "grep_not_match", "grep -rn needle ."),
        with_expected(command("COUNT", "shell_exit_zero", "grep -rn needle . | wc -l"), "count:1200000"),
    ]);
    let state = tempfile::tempdir().unwrap();
    let file = assertions_file(state.path(), assertions);
    // ~58 MB of grep output against a 48 MiB memory limit.
    let out = run(&file, dir.path(), &["--format", "json", "--memory", "48MiB", "--timeout", "60s"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = report["results"].as_array().unwrap();
    let (big, none, count) = (&results[0], &results[1], &results[2]);
    assert_eq!(big["status"], "pass", "{}", big["message"]);
    assert!(big["message"].as_str().unwrap().starts_with("./f"), "{}", big["message"]);
    assert_eq!(big["evidence"].as_array().unwrap().len(), 50);
    assert_eq!(none["status"], "fail", "{}", none["message"]);
    // Through a pipe, all of it is read: here it does not fit, and says so.
    assert_eq!(count["status"], "error", "{}", count["message"]);
    assert!(count["message"].as_str().unwrap().contains("memory limit"), "{}", count["message"]);
}

/// A repository that hides its files from rg cannot make a `grep_not_match` pass without
/// a search: an ignore file that filters out every file is rg's "No files were searched"
/// error, and a NUL past the first 64 KiB of a walked file makes it binary, skipped as
/// rg skips it, so a search for text in it finds nothing rather than a binary's bytes.
#[test]
fn a_repository_cannot_hide_files_from_rg_to_pass_a_check() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".ignore"), "*\n").unwrap();
    std::fs::write(dir.path().join("a.ts"), "// TODO: remove\n").unwrap();
    let results = outcomes(dir.path(), json!([command("HIDDEN", "grep_not_match", "rg -n TODO")]), &[]);
    assert_statuses(&results, &[("HIDDEN", "error")]);
    assert!(results[0].2.contains("No files were searched"), "{results:?}");

    let dir = tempfile::tempdir().unwrap();
    let mut blob = vec![b'x'; 70_000];
    blob.extend_from_slice(b"\nneedle\n\0");
    std::fs::write(dir.path().join("big.dat"), &blob).unwrap();
    std::fs::write(dir.path().join("text.txt"), "no match here\n").unwrap();
    let results = outcomes(
        dir.path(),
        json!([
            command("WALK", "grep_match", "rg -c needle ."),
            command("NAMED", "grep_match", "rg -c needle big.dat")
        ]),
        &[],
    );
    // Walked, the file is binary (rg stops at the NUL); named, rg maps it and matches.
    assert_statuses(&results, &[("WALK", "fail"), ("NAMED", "pass")]);
}

/// An analyst ran its commands in the operator's checkout and wrote its absolute path:
/// that path means the sandbox root, and every other absolute path stays inside it.
#[test]
fn the_roots_own_absolute_path_means_the_root() {
    let repo = repo();
    let root = repo.path().to_str().unwrap().to_string();
    let canonical = repo.path().canonicalize().unwrap().to_str().unwrap().to_string();
    let results = outcomes(
        repo.path(),
        json!([
            command("CD", "grep_match", &format!("cd {root} && grep -rn TODO web")),
            command("OPERAND", "shell_exit_zero", &format!("grep -q TODO {canonical}/web/index.ts")),
            command("OTHER", "grep_not_match", "cd /home/someone/src/project && grep -rn TODO ."),
            command("OUTSIDE", "shell_exit_zero", "test -e /etc/passwd"),
        ]),
        &[],
    );
    assert_statuses(&results, &[("CD", "pass"), ("OPERAND", "pass"), ("OTHER", "error"), ("OUTSIDE", "fail")]);
}
