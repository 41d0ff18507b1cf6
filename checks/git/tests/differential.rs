//! Runs the same git command lines through the real git and through
//! `reviewhost_git::git` on the same repository, and compares stdout and exit status.
//! Skipped (with a message) where git is not installed.

use reviewhost_tool::{Ctx, Io, NO_LIMIT};
use std::path::Path;
use std::process::Command;

fn have_git() -> bool {
    Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Runs the real git in `dir` with a fixed identity, clock and no user config.
fn real(dir: &Path, args: &[&str], date: u32) -> (Vec<u8>, i32) {
    let stamp = format!("2024-03-{:02}T{:02}:00:00+0100", 1 + date / 24, date % 24);
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Ada Lovelace")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Charles Babbage")
        .env("GIT_COMMITTER_EMAIL", "cb@example.com")
        .env("GIT_AUTHOR_DATE", &stamp)
        .env("GIT_COMMITTER_DATE", &stamp)
        .env("GIT_PAGER", "cat")
        .output()
        .expect("git runs");
    (out.stdout, out.status.code().unwrap_or(-1))
}

fn ours(root: &Path, cwd: &str, args: &[&str]) -> (Vec<u8>, Vec<u8>, i32) {
    let mut ctx = Ctx::new(root);
    ctx.cwd = cwd.into();
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut io =
        Io { stdin: b"", stdout: &mut stdout, stderr: &mut stderr, stdout_limit: NO_LIMIT, unnamed_file: None };
    let status = reviewhost_git::git(&args, &ctx, &mut io);
    (stdout, stderr, status)
}

fn write(dir: &Path, path: &str, data: &[u8]) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, data).unwrap();
}

fn main_rs(extra: &str) -> String {
    let mut s =
        String::from("use std::io;\n\nstruct Point {\n    x: i32,\n    y: i32,\n}\n\nfn helper(a: i32) -> i32 {\n");
    for i in 0..12 {
        s.push_str(&format!("    let v{i} = a + {i};\n"));
    }
    s.push_str(extra);
    s.push_str("    a\n}\n\nfn main() {\n    println!(\"hi\");\n}\n");
    s
}

/// A repository with history: branches, a merge, a rename, a deletion, a binary file,
/// a file without a final newline, staged and unstaged changes, untracked files.
fn build(dir: &Path) {
    let mut date = 0;
    let mut git = |args: &[&str]| {
        date += 1;
        let (_, status) = real(dir, args, date);
        assert_eq!(status, 0, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    write(dir, "README.md", b"# Project\n\nSome text.\n");
    write(dir, "src/main.rs", main_rs("").as_bytes());
    write(dir, "a.txt", b"one\ntwo\nthree");
    write(dir, "bin.dat", b"\x00\x01\x02binary\n");
    write(dir, ".harness/contracts/sprint-01.md", b"# Sprint 1\n- [ ] task\n");
    write(dir, "spaced name.txt", b"spaces\n");
    write(dir, "notes.txt", (1..=12).map(|i| format!("note line {i}\n")).collect::<String>().as_bytes());
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "initial commit\n\nWith a body line.\nAnd another."]);
    write(dir, "src/main.rs", main_rs("    let extra = 1;\n").as_bytes());
    write(dir, "docs/x.md", b"doc\n");
    write(dir, "a.txt", b"one\ntwo\nthree\nfour");
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "feat: extend helper (sprint-02)"]);
    git(&["branch", "feature"]);
    git(&["mv", "a.txt", "b.txt"]);
    git(&["rm", "-q", "docs/x.md"]);
    write(dir, "bin.dat", b"\x00\x01\x03binary changed\n");
    write(dir, ".harness/contracts/sprint-02.md", b"# Sprint 2\n");
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "refactor: rename a to b\n\ncomplete sprint 02 (Phase 1)"]);
    git(&["checkout", "-q", "feature"]);
    write(dir, "README.md", b"# Project\n\nSome text.\nMore from feature.\n");
    git(&["commit", "-q", "-am", "docs: readme on feature"]);
    git(&["checkout", "-q", "main"]);
    git(&["merge", "-q", "--no-ff", "-m", "Merge branch 'feature'", "feature"]);
    // The history so far in a pack (with deltas), what follows loose, refs packed.
    git(&["repack", "-a", "-d", "-q"]);
    write(dir, "src/lib.rs", b"pub fn f() {}\n");
    // A rename with an edit (inexact, ~90% similar).
    std::fs::remove_file(dir.join("notes.txt")).unwrap();
    write(
        dir,
        "docs/notes.md",
        (1..=12).map(|i| format!("note line {}\n", if i == 5 { 50 } else { i })).collect::<String>().as_bytes(),
    );
    // An insertion whose placement is ambiguous (a slider): the indent heuristic decides.
    write(
        dir,
        "src/main.rs",
        main_rs("    let extra = 1;\n")
            .replace("fn main() {", "fn other() {\n    println!(\"hi\");\n}\n\nfn main() {")
            .as_bytes(),
    );
    let long = "very/long/directory/name/that/goes/on/and/on/with/more/segments/than/fit/file_name.txt";
    write(dir, long, (0..200).map(|i| format!("{i}\n")).collect::<String>().as_bytes());
    git(&["add", "-A", "src/lib.rs", "src/main.rs", "notes.txt", "docs/notes.md", long]);
    git(&["commit", "-q", "-m", "add lib"]);
    git(&["tag", "-a", "-m", "version 1", "v1"]);
    git(&["pack-refs", "--all"]);
    // Uncommitted: staged README, unstaged main.rs and a deleted file, untracked.
    write(dir, "README.md", b"# Project\n\nStaged text.\n");
    git(&["add", "README.md"]);
    write(
        dir,
        "src/main.rs",
        main_rs("    let extra = 2;\n").replace("println!(\"hi\")", "println!(\"bye\")").as_bytes(),
    );
    std::fs::remove_file(dir.join("spaced name.txt")).unwrap();
    write(dir, "untracked.txt", b"new\n");
    write(dir, "newdir/deep/x.txt", b"x\n");
    write(dir, "src/untracked.rs", b"x\n");
    write(dir, ".gitignore", b"*.log\n/build/\n!keep.log\n");
    write(dir, "debug.log", b"x\n");
    write(dir, "keep.log", b"x\n");
    write(dir, "build/out.o", b"x\n");
    write(dir, "ignored-only/a.log", b"x\n");
    std::fs::create_dir_all(dir.join("emptydir")).unwrap();
    git(&["mv", "b.txt", "c.txt"]);
}

const CASES: &[&[&str]] = &[
    &["rev-parse", "HEAD"],
    &["rev-parse", "HEAD~1", "HEAD^2", "HEAD~2^", "v1", "main", "feature"],
    &["rev-parse", "--short", "HEAD"],
    &["rev-parse", "HEAD", "HEAD~3", "--abbrev-ref", "HEAD", "--short", "HEAD~1", "--is-inside-work-tree"],
    &["rev-parse", "--short=10", "HEAD", "--", "HEAD"],
    &["rev-parse", "HEAD", "--", "HEAD", "x"],
    &["rev-parse", "--short", "HEAD", "HEAD~1"],
    &["rev-parse", "--abbrev-ref", "HEAD~1", "v1", "main"],
    &["rev-parse", "v1", "v1^{}", "v1^{commit}", "v1^{tree}", "HEAD:src", "HEAD~2:a.txt", "main~1^{tree}"],
    &["rev-parse", "--symbolic-full-name", "HEAD", "main"],
    &["rev-parse", "--abbrev-ref", "feature"],
    &["rev-parse", "--abbrev-ref", "HEAD"],
    &["rev-parse", "--verify", "HEAD~1"],
    &["rev-parse", "--verify", "nosuch"],
    &["rev-parse", "--verify", "-q", "nosuch"],
    &["rev-parse", "nosuch"],
    &["rev-parse", "HEAD~10^"],
    &["rev-parse", "HEAD~3..HEAD"],
    &["rev-list", "--count", "HEAD"],
    &["rev-list", "HEAD"],
    &["rev-list", "HEAD~2..HEAD"],
    &["rev-list", "--count", "main", "^feature"],
    &["rev-list", "--first-parent", "HEAD"],
    &["rev-list", "--no-merges", "--reverse", "HEAD"],
    &["log"],
    &["log", "--oneline"],
    &["log", "-2", "--format=%H %h %s"],
    &["log", "-n", "1", "--format=%an <%ae> %ad%n%cn %cd %P"],
    &["log", "--max-count=3", "--pretty=format:%h %s"],
    &["log", "--format=%s%n%b--", "-3"],
    &["log", "--format=%H", "--grep=(sprint-02)"],
    &["log", "--format=%H", "--grep=complete sprint 02 (Phase 1)", "-1"],
    &["log", "--format=%s", "-E", "--grep=rename|readme"],
    &["log", "--format=%s", "-i", "--grep=MERGE"],
    &["log", "--format=%s", "--grep=nothing-matches"],
    &["log", "--format=%s", "HEAD", "^feature"],
    &["log", "--format=%s", "feature..main"],
    &["log", "--format=%s", "main...feature"],
    &["log", "--format=%s", "--", "src/main.rs"],
    &["log", "--format=%s", "--", "README.md"],
    &["log", "--oneline", "--", "*.md"],
    &["log", "--format=%ai|%aI|%aD|%at|%as", "-1"],
    &["log", "--date=iso", "-1"],
    &["log", "--date=short", "--format=%ad %s"],
    &["log", "--name-status", "--format=%s"],
    &["log", "--name-only", "--oneline"],
    &["log", "--stat", "-2"],
    &["log", "-p", "-1", "HEAD~2"],
    &["log", "--format=%H", "nosuch"],
    &["merge-base", "HEAD", "feature"],
    &["merge-base", "main", "feature"],
    &["merge-base", "--is-ancestor", "feature", "main"],
    &["merge-base", "--is-ancestor", "main", "feature"],
    &["diff"],
    &["diff", "--cached"],
    &["diff", "HEAD"],
    &["diff", "HEAD", "--", "src"],
    &["diff", "HEAD~3..HEAD"],
    &["diff", "HEAD~3", "HEAD"],
    &["diff", "HEAD~4", "HEAD~2"],
    &["diff", "feature...main"],
    &["diff", "--name-only", "HEAD~4", "HEAD"],
    &["diff", "--name-status", "HEAD~4", "HEAD"],
    &["diff", "--name-status", "HEAD"],
    &["diff", "--stat", "HEAD~4", "HEAD"],
    &["diff", "--quiet", "HEAD~1", "HEAD"],
    &["diff", "--exit-code", "HEAD", "HEAD"],
    &["diff", "--exit-code", "--name-only", "HEAD~1", "HEAD"],
    &["diff", "-U1", "HEAD~4", "HEAD", "--", "src/main.rs"],
    &["diff", "HEAD~4", "HEAD", "--", ".harness/contracts/sprint-0[1-9]*.md"],
    &["diff", "HEAD~4", "HEAD", "--", "*.md", ":!README.md"],
    &["diff", "HEAD~1^..HEAD~1", "--", "nothing-here"],
    &["diff", "nosuch..HEAD"],
    &["diff", "--no-renames", "HEAD~4", "HEAD"],
    &["diff", "HEAD~1", "HEAD"],
    &["diff", "--name-status", "HEAD~1", "HEAD"],
    &["diff", "--stat", "HEAD~1", "HEAD"],
    &["show", "--stat", "HEAD"],
    &["diff", "--stat", "HEAD~2", "HEAD"],
    &["diff", "--name-only", "HEAD~1"],
    &["diff", "--stat"],
    &["log", "-n5", "--oneline", "--", "src"],
    &["log", "--format=%h %p %t", "--first-parent", "-3"],
    &["log", "--author=Ada", "--format=%an", "-2"],
    &["rev-list", "--all", "--count"],
    &["grep", "-h", "-e", "note", "-e", "fn"],
    &["grep", "-L", "let"],
    &["grep", "-q", "fn"],
    &["grep", "fn", "src", "no-such-dir"],
    &["grep", "fn", "--", "no-such-dir"],
    &["grep", "-c", "fn", "*.rs"],
    &["diff", "HEAD~1", "*.md"],
    &["log", "--format=%s", "no-such-path"],
    &["show"],
    &["show", "HEAD~3"],
    &["show", "--stat", "HEAD~3"],
    &["show", "--name-only", "--format=%s", "HEAD~3"],
    &["show", "-s", "--format=%H", "HEAD~1"],
    &["show", "HEAD~4:a.txt"],
    &["show", "v1:src/lib.rs"],
    &["ls-files"],
    &["ls-files", "src"],
    &["ls-files", "-s"],
    &["ls-files", "--others", "--exclude-standard"],
    &["ls-files", "-o", "--exclude-standard", "newdir"],
    &["grep", "-n", "let"],
    &["grep", "-rn", "-E", "extra|bye", "src/", "README.md"],
    &["grep", "-c", "let"],
    &["grep", "-l", "a"],
    &["grep", "-i", "-w", "PROJECT"],
    &["grep", "-v", "-n", "let", "--", "src/main.rs"],
    &["grep", "-F", "a + 1", "src"],
    &["grep", "nothing-matches-this"],
    &["grep", "binary"],
    &["status", "--porcelain"],
    &["status", "--short"],
    &["status", "-s", "-uno"],
    &["status", "--porcelain", "--", "src"],
    &["frobnicate"],
    &["commit", "-m", "x"],
];

#[test]
fn matches_real_git() {
    if !have_git() {
        println!("skipped: git is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    build(root);
    let mut failures = Vec::new();
    for case in CASES {
        let (want, want_status) = real(root, case, 999);
        let (got, stderr, status) = ours(root, "/", case);
        let unsupported = status == 129 && String::from_utf8_lossy(&stderr).contains("not supported in the sandbox");
        // Subcommands git has and this crate refuses are errors on our side only.
        let refused = matches!(case[0], "frobnicate" | "commit");
        if refused {
            assert!(status != 0, "{case:?} must fail");
            continue;
        }
        if unsupported || want != got || want_status != status {
            failures.push(format!(
                "git {}\n--- real (status {want_status})\n{}\n--- ours (status {status})\n{}\n--- our stderr\n{}",
                case.join(" "),
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n\n{}", failures.len(), CASES.len(), failures.join("\n\n"));
}

#[test]
fn from_a_subdirectory() {
    if !have_git() {
        println!("skipped: git is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    build(root);
    for case in [
        &["rev-parse", "--show-prefix"][..],
        &["ls-files"],
        &["diff", "HEAD", "--name-only", "--", "main.rs"],
        &["grep", "-n", "fn"],
        &["status", "--short"],
        &["status", "--porcelain"],
        &["ls-files", "-o", "--exclude-standard"],
        &["log", "--format=%s", "--", "main.rs"],
    ] {
        let (want, want_status) = real(&root.join("src"), case, 999);
        let (got, stderr, status) = ours(root, "/src", case);
        assert_eq!(
            (String::from_utf8_lossy(&got), status),
            (String::from_utf8_lossy(&want), want_status),
            "git {case:?} in src/: {}",
            String::from_utf8_lossy(&stderr)
        );
    }
}

#[test]
fn the_top_level_is_the_virtual_root() {
    if !have_git() {
        println!("skipped: git is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    build(tmp.path());
    let (out, _, status) = ours(tmp.path(), "/src", &["rev-parse", "--show-toplevel"]);
    assert_eq!((String::from_utf8_lossy(&out).as_ref(), status), ("/\n", 0));
}

#[test]
fn outside_a_repository_is_fatal_128() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, err, status) = ours(tmp.path(), "/", &["log"]);
    assert_eq!(status, 128);
    assert!(out.is_empty());
    assert_eq!(String::from_utf8_lossy(&err), "fatal: not a git repository (or any of the parent directories): .git\n");
}

#[test]
fn writing_subcommands_and_unknown_options_are_refused_with_129() {
    let tmp = tempfile::tempdir().unwrap();
    for case in [&["commit", "-m", "x"][..], &["checkout", "main"], &["stash"], &["frob"]] {
        let (_, err, status) = ours(tmp.path(), "/", case);
        assert_eq!(status, 129, "{case:?}");
        assert!(String::from_utf8_lossy(&err).contains(case[0]), "{case:?}: {}", String::from_utf8_lossy(&err));
    }
    if have_git() {
        build(tmp.path());
        for (case, named) in
            [(&["log", "--graph"][..], "--graph"), (&["diff", "-w"], "-w"), (&["status"], "long format")]
        {
            let (out, err, status) = ours(tmp.path(), "/", case);
            assert_eq!(status, 129, "{case:?}");
            assert!(out.is_empty(), "{case:?}");
            assert!(String::from_utf8_lossy(&err).contains(named), "{case:?}: {}", String::from_utf8_lossy(&err));
        }
    }
}

/// Renames with edits: a unique basename pairs first at 75% (git 2.33+), even where
/// another destination is more similar; the rest by best similarity.
#[test]
fn renames_are_paired_as_git_pairs_them() {
    if !have_git() {
        println!("skipped: git is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let lines = |changed: &[usize]| -> String {
        (0..20)
            .map(|i| if changed.contains(&i) { format!("changed line {i}\n") } else { format!("original line {i}\n") })
            .collect()
    };
    let mut step = 0;
    let mut git = |args: &[&str]| {
        step += 1;
        assert_eq!(real(dir, args, step).1, 0, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    write(dir, "a/config.txt", lines(&[]).as_bytes());
    write(dir, "x/data.txt", format!("{}{}", lines(&[]), "tail\n").as_bytes());
    write(dir, "keep.txt", b"keep\n");
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "one"]);
    std::fs::remove_dir_all(dir.join("a")).unwrap();
    std::fs::remove_dir_all(dir.join("x")).unwrap();
    write(dir, "b/config.txt", lines(&[1, 2, 3, 4]).as_bytes());
    write(dir, "c/other.txt", lines(&[1, 2]).as_bytes());
    write(dir, "y/data2.txt", format!("{}{}", lines(&[7]), "tail\n").as_bytes());
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "two"]);
    for case in [
        &["diff", "--name-status", "HEAD~1", "HEAD"][..],
        &["diff", "HEAD~1", "HEAD"],
        &["diff", "--stat", "HEAD~1", "HEAD"],
        &["show", "--name-status", "--format=%s"],
        &["log", "--name-status", "--format=%s"],
    ] {
        let (want, want_status) = real(dir, case, 99);
        let (got, stderr, status) = ours(dir, "/", case);
        assert_eq!(
            (String::from_utf8_lossy(&got), status),
            (String::from_utf8_lossy(&want), want_status),
            "git {case:?}: {}",
            String::from_utf8_lossy(&stderr)
        );
    }
}
