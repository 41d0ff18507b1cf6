//! The sandbox's `git`, in the component, on repositories real git just wrote: loose
//! objects (every fresh commit, every repository an agent just committed to), packs, and
//! loose objects on top of a pack, and hostile loose files. Each command's output must be
//! the real git's, byte for byte.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{assertions_file, git, run};

/// The commands compared with the real git.
const COMMANDS: &[&str] = &[
    "git log --oneline",
    "git log --format='%H %an %s'",
    "git show --stat HEAD",
    "git show HEAD:src/a.rs",
    "git diff HEAD~1 HEAD",
    "git diff --name-status HEAD~2 HEAD",
    "git show HEAD~1:src/b/c.txt",
    "git status --short",
    "git grep -n fn",
    "git ls-files",
    "git rev-list --count HEAD",
    "git log --stat",
    "git log --numstat --format=%h",
    "git log --name-status --format='%h %s'",
    "git log --name-only --oneline",
    "git log --format='%h|%H|%an|%ae|%ad|%s|%P|%T|%cn|%ce|%cd' --date=iso",
    "git log --format=%B -1",
    "git log --reverse --oneline",
    "git log --oneline -- src/a.rs",
    "git log -p -1",
    "git log --shortstat --oneline",
    "git diff --stat HEAD~2 HEAD",
    "git diff --numstat HEAD~2 HEAD",
    "git diff --shortstat HEAD~2 HEAD",
    "git diff --name-only HEAD~2",
    "git diff -U1 HEAD~1 HEAD",
    "git diff HEAD~2 HEAD -- README.md",
    "git show --name-status HEAD~1",
    "git show --format=%s --stat HEAD",
    "git show HEAD --oneline --no-patch",
    "git rev-parse --short HEAD",
    "git ls-files src",
    "git show --numstat --oneline HEAD",
];

/// What the sandbox's git refuses by name rather than answering differently.
const REFUSED: &[&str] = &["git log --format='%h %ar %s' -2", "git cat-file -p HEAD", "git log --follow src/a.rs"];

/// Three commits with a file, a directory and an executable; `pack` packs them and adds
/// a fourth, loose, commit on top.
fn repository(dir: &Path, pack: bool) {
    git(dir, &["init", "-q", "-b", "main"]);
    let step = |n: u32, files: &[(&str, &str)]| {
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        git(dir, &["add", "-A"]);
        let date = format!("2026-01-0{n}T10:00:00+0000");
        git(dir, &["-c", "core.commitGraph=false", "commit", "-q", "--date", &date, "-m", &format!("commit {n}")]);
    };
    step(1, &[("src/a.rs", "fn a() {}\n"), ("README.md", "# r\n")]);
    step(2, &[("src/a.rs", "fn a() {}\nfn b() {}\n"), ("src/b/c.txt", "c\n")]);
    step(3, &[("README.md", "# r\n\nmore\n")]);
    if pack {
        git(dir, &["gc", "-q"]);
        step(4, &[("src/a.rs", "fn a() {}\nfn b() {}\nfn d() {}\n")]);
    }
}

/// The real git's stdout for `command` in `dir`.
fn real(dir: &Path, command: &str) -> String {
    let out = std::process::Command::new("bash").arg("-c").arg(command).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "{command}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn results(dir: &Path, assertions: Value) -> Vec<Value> {
    let state = tempfile::tempdir().unwrap();
    let file = assertions_file(state.path(), assertions);
    let out = run(&file, dir, &["--format", "json", "--no-write"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["results"].as_array().unwrap().clone()
}

#[test]
fn git_reads_loose_packed_and_mixed_repositories_as_real_git_prints_them() {
    for pack in [false, true] {
        let repo = tempfile::tempdir().unwrap();
        repository(repo.path(), pack);
        let loose = std::fs::read_dir(repo.path().join(".git/objects"))
            .unwrap()
            .flatten()
            .any(|e| e.file_name().len() == 2 && e.file_name() != "pa");
        assert!(loose, "the repository has loose objects");
        let assertions: Vec<Value> = COMMANDS
            .iter()
            .enumerate()
            .map(|(i, command)| {
                json!({"id": format!("G-{i}"), "type": "shell_exit_zero", "command": command,
                       "description": command, "expected": format!("equals:{}", real(repo.path(), command))})
            })
            .collect();
        let mut wrong = Vec::new();
        for (result, command) in results(repo.path(), Value::Array(assertions)).iter().zip(COMMANDS) {
            if result["status"] != "pass" {
                wrong.push(format!("pack {pack}: {command}: {} {}", result["status"], result["message"]));
            }
        }
        assert!(wrong.is_empty(), "{} of {} differ:\n{}", wrong.len(), COMMANDS.len(), wrong.join("\n"));
        let refused: Vec<Value> = REFUSED
            .iter()
            .enumerate()
            .map(|(i, command)| json!({"id": format!("R-{i}"), "type": "grep_match", "command": command, "description": command}))
            .collect();
        for (result, command) in results(repo.path(), Value::Array(refused)).iter().zip(REFUSED) {
            let message = result["message"].as_str().unwrap_or("");
            assert!(result["status"] == "error" && message.contains("not supported"), "{command}: {result}");
        }
    }
}

#[test]
fn hostile_loose_objects_are_errors_not_answers() {
    let repo = tempfile::tempdir().unwrap();
    repository(repo.path(), false);
    let head = git(repo.path(), &["rev-parse", "HEAD"]).trim().to_string();
    let path = repo.path().join(".git/objects").join(&head[..2]).join(&head[2..]);
    let compress = |data: &[u8]| {
        let out = std::process::Command::new("python3")
            .args(["-c", "import sys, zlib; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read()))"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(data)?;
                child.wait_with_output()
            })
            .unwrap();
        out.stdout
    };
    let original = std::fs::read(&path).unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated", original[..original.len() / 2].to_vec()),
        ("claims 8 GiB", compress(b"commit 8589934592\0tree x\n")),
        ("longer than its header", compress(b"commit 3\0tree 0000000000000000000000000000000000000000\n")),
        ("shorter than its header", compress(b"commit 999\0tree\n")),
        ("not zlib", b"not zlib at all".to_vec()),
        ("empty", Vec::new()),
    ];
    for (name, bytes) in cases {
        let _ = std::fs::remove_file(&path);
        std::fs::write(&path, &bytes).unwrap();
        let result = &results(
            repo.path(),
            json!([{"id": "H", "type": "grep_not_match", "command": "git log --oneline | grep -v x", "description": name}]),
        )[0];
        assert_eq!(result["status"], "error", "{name}: {result}");
    }
    // A symlink in place of the object is refused, never followed.
    let _ = std::fs::remove_file(&path);
    std::os::unix::fs::symlink("/etc/passwd", &path).unwrap();
    let result = &results(
        repo.path(),
        json!([{"id": "S", "type": "grep_not_match", "command": "git log --oneline", "description": "symlink"}]),
    )[0];
    assert_eq!(result["status"], "error", "symlink: {result}");
}
