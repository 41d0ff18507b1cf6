//! A hostile repository must not lead the program outside the root: a `.git` file or a
//! symlink naming a git directory elsewhere, and alternates naming object directories
//! elsewhere, are refused rather than followed.

use reviewhost_tool::{Ctx, Io, NO_LIMIT};
use std::path::Path;
use std::process::Command;

fn have_git() -> bool {
    Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success())
}

fn git_in(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "A")
        .env("GIT_AUTHOR_EMAIL", "a@example.com")
        .env("GIT_COMMITTER_NAME", "A")
        .env("GIT_COMMITTER_EMAIL", "a@example.com")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// A repository with one commit in `dir`.
fn repo_with_commit(dir: &Path) {
    git_in(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("secret.txt"), "outside the root\n").unwrap();
    git_in(dir, &["add", "secret.txt"]);
    git_in(dir, &["commit", "-q", "-m", "secret"]);
}

fn run(root: &Path, args: &[&str]) -> (String, String, i32) {
    let ctx = Ctx::new(root);
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut io = Io { stdin: b"", stdout: &mut out, stderr: &mut err, stdout_limit: NO_LIMIT, unnamed_file: None };
    let status = reviewhost_git::git(&args, &ctx, &mut io);
    (String::from_utf8_lossy(&out).into(), String::from_utf8_lossy(&err).into(), status)
}

#[test]
fn a_git_file_pointing_outside_the_root_is_refused() {
    if !have_git() {
        println!("skipped: git is not installed");
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    repo_with_commit(outside.path());
    let root = tempfile::tempdir().unwrap();
    for target in [
        outside.path().join(".git").display().to_string(),
        "../../../../../../../../..".to_string() + &outside.path().join(".git").display().to_string(),
    ] {
        std::fs::write(root.path().join(".git"), format!("gitdir: {target}\n")).unwrap();
        let (out, err, status) = run(root.path(), &["log", "--format=%s"]);
        assert_eq!(status, 128, "{err}");
        assert!(out.is_empty(), "nothing read: {out}");
        assert!(err.contains("refusing git directory outside the root"), "{err}");
    }
}

#[test]
fn a_symlinked_git_directory_outside_the_root_is_refused() {
    if !have_git() {
        println!("skipped: git is not installed");
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    repo_with_commit(outside.path());
    let root = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path().join(".git"), root.path().join(".git")).unwrap();
    let (out, err, status) = run(root.path(), &["show", "HEAD:secret.txt"]);
    assert_eq!(status, 128, "{err}");
    assert!(out.is_empty(), "nothing read: {out}");
    assert!(err.contains("outside the root"), "{err}");
}

#[test]
fn alternates_outside_the_root_are_refused() {
    if !have_git() {
        println!("skipped: git is not installed");
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    repo_with_commit(outside.path());
    let root = tempfile::tempdir().unwrap();
    git_in(root.path(), &["init", "-q", "-b", "main"]);
    let objects = outside.path().join(".git/objects");
    std::fs::write(root.path().join(".git/objects/info/alternates"), format!("{}\n", objects.display())).unwrap();
    // The outside commit is what HEAD names: only the alternate could provide it.
    let head = Command::new("git").args(["rev-parse", "HEAD"]).current_dir(outside.path()).output().unwrap();
    std::fs::write(root.path().join(".git/refs/heads/main"), head.stdout).unwrap();
    let (out, err, status) = run(root.path(), &["log", "--format=%s"]);
    assert_eq!(status, 128, "{err}");
    assert!(out.is_empty(), "nothing read: {out}");
    assert!(err.contains("refusing alternate object directory outside the root"), "{err}");
    // A relative alternate climbing out is refused as well.
    std::fs::write(root.path().join(".git/objects/info/alternates"), "../../../../../../../../../../../../tmp\n")
        .unwrap();
    let (_, err, status) = run(root.path(), &["rev-parse", "HEAD"]);
    assert_eq!(status, 128, "{err}");
}

#[test]
fn an_alternate_inside_the_root_is_used() {
    if !have_git() {
        println!("skipped: git is not installed");
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let inner = root.path().join("store");
    std::fs::create_dir(&inner).unwrap();
    repo_with_commit(&inner);
    let work = root.path().join("work");
    std::fs::create_dir(&work).unwrap();
    git_in(&work, &["init", "-q", "-b", "main"]);
    std::fs::write(work.join(".git/objects/info/alternates"), "../../../store/.git/objects\n").unwrap();
    let head = Command::new("git").args(["rev-parse", "HEAD"]).current_dir(&inner).output().unwrap();
    std::fs::write(work.join(".git/refs/heads/main"), &head.stdout).unwrap();
    let mut ctx = Ctx::new(root.path());
    ctx.cwd = "/work".into();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut io = Io { stdin: b"", stdout: &mut out, stderr: &mut err, stdout_limit: NO_LIMIT, unnamed_file: None };
    let status = reviewhost_git::git(&["log".into(), "--format=%s".into()], &ctx, &mut io);
    assert_eq!((String::from_utf8_lossy(&out).as_ref(), status), ("secret\n", 0), "{}", String::from_utf8_lossy(&err));
}

/// A blob over the size cap is never read into memory: `show` refuses it, `diff` shows
/// it as binary.
#[test]
fn a_giant_blob_is_not_read() {
    if !have_git() {
        println!("skipped: git is not installed");
        return;
    }
    let root = tempfile::tempdir().unwrap();
    repo_with_commit(root.path());
    let size = reviewhost_git::MAX_OBJECT_SIZE as usize + 1;
    std::fs::write(root.path().join("big.txt"), "a\n".repeat(size / 2 + 1)).unwrap();
    git_in(root.path(), &["add", "big.txt"]);
    git_in(root.path(), &["commit", "-q", "-m", "big"]);
    let (out, err, status) = run(root.path(), &["show", "HEAD:big.txt"]);
    assert_eq!(status, 128, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("larger than"), "{err}");
    let (out, err, status) = run(root.path(), &["diff", "HEAD~1", "HEAD"]);
    assert_eq!(status, 0, "{err}");
    assert!(out.ends_with("Binary files /dev/null and b/big.txt differ\n"), "{out}");
}
