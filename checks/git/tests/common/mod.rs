//! What the differential tests share: running the real git with a fixed identity and
//! clock, running `reviewhost_git::git` on the same directory, and the repository of
//! git's `t4013-diff-various.sh` (extended), built by the real git.

#![allow(dead_code, reason = "each test file uses a part")]

use reviewhost_tool::{Ctx, Io, NO_LIMIT};
use std::path::Path;
use std::process::Command;

pub fn have_git() -> bool {
    Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Runs the real git in `dir` with a fixed identity, clock (`minute` minutes after
/// 2006-06-26 00:00 +0000, as t4013) and no user config.
pub fn real(dir: &Path, args: &[&str], minute: u32) -> (Vec<u8>, i32) {
    let stamp = format!("2006-06-26T{:02}:{:02}:00+0000", minute / 60, minute % 60);
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "A U Thor")
        .env("GIT_AUTHOR_EMAIL", "author@example.com")
        .env("GIT_COMMITTER_NAME", "C O Mitter")
        .env("GIT_COMMITTER_EMAIL", "committer@example.com")
        .env("GIT_AUTHOR_DATE", &stamp)
        .env("GIT_COMMITTER_DATE", &stamp)
        .env("GIT_PAGER", "cat")
        .env("TZ", "UTC")
        .output()
        .expect("git runs");
    (out.stdout, out.status.code().unwrap_or(-1))
}

/// Runs `reviewhost_git::git` with the virtual root at `root`: (stdout, stderr, status).
pub fn ours(root: &Path, args: &[&str]) -> (Vec<u8>, Vec<u8>, i32) {
    let ctx = Ctx::new(root);
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut io =
        Io { stdin: b"", stdout: &mut stdout, stderr: &mut stderr, stdout_limit: NO_LIMIT, unnamed_file: None };
    let status = reviewhost_git::git(&args, &ctx, &mut io);
    (stdout, stderr, status)
}

pub fn write(dir: &Path, path: &str, data: &[u8]) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, data).unwrap();
}

fn append(dir: &Path, path: &str, data: &[u8]) {
    let mut v = std::fs::read(dir.join(path)).unwrap_or_default();
    v.extend_from_slice(data);
    write(dir, path, &v);
}

#[cfg(unix)]
fn chmod(dir: &Path, path: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.join(path), std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Where the objects of the built repository live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// Every object loose, refs loose.
    Loose,
    /// `git gc`: one pack, refs packed.
    Packed,
    /// The first commits in a pack (`git repack -ad`), the rest loose on top.
    LooseOnPack,
}

/// t4013's history (initial, second, third on `master`; side from initial, merged
/// into master with `-s ours`), extended with what the test there lacks: a file
/// without a final newline, an empty file, a binary file, a mode change, a rename
/// with an edit, non-ASCII and spaced names, a second (clean) merge, tags, and
/// uncommitted changes (staged and not) for `diff` and `diff --cached`.
pub fn t4013_repo(dir: &Path, storage: Storage) {
    let mut minute = 0;
    let mut git = |args: &[&str], at: u32| {
        minute = at;
        let (_, status) = real(dir, args, minute);
        assert_eq!(status, 0, "git {args:?}");
    };
    git(&["init", "-q", "-b", "master"], 0);
    write(dir, "file0", b"1\n2\n3\n");
    write(dir, "dir/sub", b"A\nB\n");
    write(dir, "file2", b"1\n2\n3\n");
    write(dir, "empty", b"");
    write(dir, "bin.dat", b"\x00\x01\x02binary\n");
    write(dir, "nonl.txt", b"first\nlast");
    write(dir, "run.sh", b"#!/bin/sh\necho hi\n");
    write(dir, "dir/naïve café.txt", (1..=10).map(|i| format!("line {i}\n")).collect::<String>().as_bytes());
    git(&["add", "-A"], 0);
    git(&["commit", "-q", "-m", "Initial"], 0);
    git(&["branch", "initial"], 0);
    git(&["branch", "side"], 0);
    append(dir, "file0", b"4\n5\n6\n");
    append(dir, "dir/sub", b"C\nD\n");
    std::fs::remove_file(dir.join("file2")).unwrap();
    write(dir, "nonl.txt", b"first\nlast changed");
    write(dir, "bin.dat", b"\x00\x01\x03binary changed\n");
    #[cfg(unix)]
    chmod(dir, "run.sh", 0o755);
    git(&["add", "-A"], 60);
    git(&["commit", "-q", "-m", "Second\n\nThis is the second commit."], 60);
    write(dir, "file1", b"A\nB\nC\n");
    append(dir, "dir/sub", b"E\nF\n");
    std::fs::remove_file(dir.join("dir/naïve café.txt")).unwrap();
    write(
        dir,
        "dir2/naïve café.txt",
        (1..=10).map(|i| format!("line {}\n", if i == 4 { 40 } else { i })).collect::<String>().as_bytes(),
    );
    write(dir, "empty2", b"");
    git(&["add", "-A"], 120);
    git(&["commit", "-q", "-m", "Third"], 120);
    git(&["checkout", "-q", "side"], 180);
    append(dir, "file0", b"A\nB\nC\n");
    append(dir, "dir/sub", b"1\n2\n");
    write(dir, "file3", &std::fs::read(dir.join("dir/sub")).unwrap());
    git(&["add", "-A"], 180);
    git(&["commit", "-q", "-m", "Side"], 180);
    git(&["checkout", "-q", "master"], 180);
    git(&["merge", "-q", "-s", "ours", "-m", "Merge branch 'side'", "side"], 180);
    if storage == Storage::LooseOnPack {
        git(&["repack", "-a", "-d", "-q"], 180);
    }
    git(&["checkout", "-q", "-b", "feature"], 200);
    write(dir, "feature.txt", b"feature\n");
    git(&["add", "-A"], 200);
    git(&["commit", "-q", "-m", "Add a feature\n\nWith a body\nof two lines."], 200);
    git(&["checkout", "-q", "master"], 210);
    write(dir, "dir/sub", b"A\nB\nE\nF\nC\nD\n");
    git(&["commit", "-q", "-am", "Rearranged lines in dir/sub"], 220);
    git(&["merge", "-q", "--no-ff", "-m", "Merge branch 'feature'", "feature"], 230);
    git(&["tag", "-a", "-m", "version 1", "v1", "master~1"], 230);
    git(&["tag", "light", "side"], 230);
    git(&["update-ref", "refs/remotes/origin/master", "master~2"], 230);
    if storage == Storage::Packed {
        git(&["gc", "-q"], 240);
    }
    // Uncommitted: a staged change to file0, an unstaged one to dir/sub.
    append(dir, "file0", b"staged\n");
    git(&["add", "file0"], 240);
    append(dir, "dir/sub", b"unstaged\n");
}
