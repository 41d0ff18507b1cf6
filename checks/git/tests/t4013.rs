//! git's `t4013-diff-various.sh`, as far as `log`, `diff` and `show` go: its command
//! lines (and the ones a reviewer writes most) run through the real git and through
//! `reviewhost_git::git` on the same repository, stored three ways (loose objects, one
//! pack, loose objects on top of a pack). Every line either prints exactly what git
//! prints, with git's exit status, or is in [`REFUSED`]: refused by name (status 129,
//! "not supported"), never answered differently.

mod common;
use common::{Storage, have_git, ours, real, t4013_repo};

/// Command lines, split at spaces, that must match git byte for byte.
const SAME: &[&str] = &[
    // log and its diff output forms
    "log master",
    "log -p master",
    "log --root master",
    "log --root -p master",
    "log --patch-with-stat master",
    "log --root --patch-with-stat master",
    "log --root --patch-with-stat --summary master",
    "log --stat master",
    "log --numstat master",
    "log --shortstat master",
    "log --summary master",
    "log --name-only master",
    "log --name-status master",
    "log --raw master",
    "log -r master",
    "log --root -r master",
    "log --raw -r --abbrev=4 master",
    "log --raw --no-abbrev master",
    "log --patch-with-raw master",
    "log --stat -p master",
    "log --name-status -p master",
    "log --stat --summary master",
    "log -p --first-parent master",
    "log -m -p master",
    "log -m -p --first-parent master",
    "log -m --stat master",
    "log -m --name-status master",
    "log --first-parent --stat master",
    "log -U1 -p master",
    "log --unified=0 -p master",
    "log -p -2 master",
    "log -n 3 --stat master",
    "log --reverse master",
    "log --reverse --oneline master",
    "log --oneline master",
    "log --oneline --stat master",
    "log --oneline -p master",
    "log --oneline --name-only master",
    "log --format=%H master",
    "log --format=%h|%an|%ae|%ad|%s master",
    "log --format=%h|%cn|%ce|%cd master",
    "log --format=%s%n%b master",
    "log --format=%B master",
    "log --format=%P|%p|%T|%t master",
    "log --format=%d master",
    "log --format=%D master",
    "log --format=%h%d master --all",
    "log --format=%h|%s --date=short master",
    "log --format=%ad --date=short master",
    "log --format=%ad --date=iso master",
    "log --format=%ad --date=iso-strict master",
    "log --format=%ad --date=rfc master",
    "log --format=%ad --date=unix master",
    "log --format=%ad --date=raw master",
    "log --format=%ai|%aI|%as|%at|%aD|%ci|%cs master",
    "log --format= --stat master",
    "log --format= --name-only master",
    "log --format=%s --stat master",
    "log --format=%s -p master",
    "log --pretty=format:%s master",
    "log --pretty=format:%s --stat master",
    "log --pretty=tformat:%s --name-status master",
    "log --pretty=oneline master",
    "log --pretty=short master",
    "log --pretty=full master",
    "log --pretty=fuller master",
    "log --pretty=raw master",
    "log --pretty=medium --date=iso master",
    "log --abbrev-commit master",
    "log --abbrev-commit --abbrev=10 master",
    "log --oneline --abbrev=12 master",
    "log --no-abbrev --oneline master",
    "log --decorate master",
    "log --decorate --all",
    "log --decorate=full --all",
    "log --decorate=short --oneline --all",
    "log --oneline --decorate master",
    "log --oneline --no-decorate master",
    "log --all --oneline",
    "log --first-parent --oneline master",
    "log --merges --oneline master",
    "log --no-merges --oneline master",
    "log --oneline initial..master",
    "log --oneline master..side",
    "log --oneline side...master",
    "log --oneline master ^side",
    "log --oneline -- dir/sub",
    "log --oneline --stat -- dir",
    "log -p -- file0",
    "log --oneline master -- file1 file3",
    "log --stat=60 master",
    "log --stat=100,20 master",
    "log --stat-width=50 master",
    "log --stat-name-width=10 master",
    "log --stat-count=1 master",
    "log --skip=2 -n 2 --oneline master",
    "log -3 --format=%s master",
    // show
    "show initial",
    "show --root initial",
    "show side",
    "show master",
    "show master~1",
    "show -m master~1",
    "show --first-parent master~1",
    "show --stat side",
    "show --stat --summary side",
    "show --patch-with-stat side",
    "show --patch-with-raw side",
    "show --patch-with-stat --summary side",
    "show --name-status side",
    "show --name-only master~2",
    "show --raw side",
    "show --numstat side",
    "show --shortstat side",
    "show --summary master~2",
    "show -s side",
    "show -s --format=%H%n%an%n%s side",
    "show --format=%h%n%b master~2",
    "show --oneline side",
    "show --oneline --stat side",
    "show --stat master",
    "show --pretty=fuller side",
    "show --decorate side",
    "show -U1 side",
    "show side -- file0",
    "show --stat side -- dir",
    "show side:file3",
    "show master~3:dir/sub",
    "show initial side",
    "show master~2",
    "show --stat master~2",
    "show -s master~2 master",
    "show --name-only master",
    "log --name-only --name-status -1",
    "log -p --no-abbrev -2 master~1",
    "log -p --abbrev=9 -2 master~1",
    "log --full-index -p -1 master~1",
    "log --diff-merges=first-parent --stat master",
    "log --diff-merges=off -p -3 master",
    "log -s -p -2 master~1",
    "log -p -s -2 master~1",
    "log --no-patch --stat -2 master~1",
    "show -s --stat master~1",
    "show --oneline initial side",
    "show v1",
    "show light",
    // diff
    "diff",
    "diff --cached",
    "diff --staged --stat",
    "diff --stat --cached",
    "diff --cached -- file0",
    "diff HEAD",
    "diff HEAD --stat",
    "diff --abbrev initial..side",
    "diff -U initial..side",
    "diff -U1 initial..side",
    "diff -U0 initial..side",
    "diff --unified=5 initial..side",
    "diff -r initial..side",
    "diff --stat initial..side",
    "diff -r --stat initial..side",
    "diff initial..side",
    "diff --patch-with-stat initial..side",
    "diff --patch-with-raw initial..side",
    "diff --patch-with-stat -r initial..side",
    "diff --patch-with-raw -r initial..side",
    "diff --raw initial..side",
    "diff --raw --abbrev=4 initial..side",
    "diff --raw --no-abbrev initial..side",
    "diff --summary initial master",
    "diff --stat --summary initial master",
    "diff -p --stat initial master",
    "diff --numstat initial master",
    "diff --shortstat initial master",
    "diff --name-only initial master",
    "diff --name-status initial master",
    "diff --name-status initial master -- dir2",
    "diff initial master",
    "diff initial...side",
    "diff side...master",
    "diff master~2 master -- file0",
    "diff initial master -- dir",
    "diff initial master -- '*.txt'",
    "diff --stat=40 initial master",
    "diff --stat-width=40 initial master",
    "diff --stat-name-width=8 initial master",
    "diff --stat-count=2 initial master",
    "diff --no-renames --stat initial master",
    "diff -M initial master",
    "diff --no-abbrev initial master -- file0",
    "diff --abbrev=10 initial master -- file0",
    "diff --full-index initial master -- file0",
    "diff --binary initial master -- file0",
    "diff --quiet initial master",
    "diff --exit-code initial master -- file0",
    "diff --exit-code initial initial",
    "diff --text initial master -- bin.dat",
    "diff -a initial master -- bin.dat",
    "diff --numstat initial master -- bin.dat",
    "diff --stat initial master -- bin.dat",
    "diff -R initial master",
    "diff --src-prefix=x/ --dst-prefix=y/ initial master -- file0",
    "diff --no-prefix initial master -- file0",
    "diff --diff-filter=M --name-only initial master",
    "diff --diff-filter=AD --name-status initial master",
    "diff --diff-filter=d --name-status initial master",
    "diff -z --name-only initial master",
    "diff -z --name-status initial master",
];

/// Command lines git runs and the sandbox refuses, with the name the refusal must
/// give: each is a form whose output would take much more than it is worth
/// (combined diffs, directory statistics, commit-graph drawing) or that depends on
/// the clock.
const REFUSED: &[(&str, &str)] = &[
    ("log --root -c --patch-with-stat --summary master", "-c"),
    ("log --root --cc --patch-with-stat --summary master", "--cc"),
    ("show -c master~1", "-c"),
    ("diff --dirstat master~1 master~2", "--dirstat"),
    ("diff --dirstat-by-file initial master", "--dirstat-by-file"),
    ("diff master master^ side", "combined diff"),
    ("log --graph --oneline master", "--graph"),
    ("log --format=%ar master", "relative dates"),
    ("log --since=2.weeks master", "--since"),
    ("diff-tree initial", "diff-tree"),
    ("diff -w master~2 master", "-w"),
    ("diff --ignore-all-space master~2 master", "--ignore-all-space"),
    ("diff -b master~2 master", "-b"),
    ("diff --ignore-space-at-eol master~2 master", "--ignore-space-at-eol"),
    ("diff --ignore-blank-lines master~2 master", "--ignore-blank-lines"),
    ("diff --relative=dir initial master", "--relative"),
    ("diff --binary initial master -- bin.dat", "GIT binary patch"),
    ("log -z --name-only master", "-z"),
    ("show --cc master", "--cc"),
    ("log --diff-merges=combined master", "combined"),
    ("log -S3 master", "-S"),
    ("log -G3 master", "-G"),
    ("whatchanged master", "whatchanged"),
    ("format-patch -1 master", "format-patch"),
];

fn split(line: &str) -> Vec<String> {
    line.split(' ').map(|w| w.trim_matches('\'').to_string()).collect()
}

fn check(storage: Storage) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    t4013_repo(root, storage);
    // To look at the repository afterwards: a directory to copy it to.
    if let Some(keep) = std::env::var_os("REVIEWHOST_GIT_KEEP") {
        let keep = std::path::Path::new(&keep).join(format!("{storage:?}"));
        let _ = std::fs::remove_dir_all(&keep);
        std::fs::create_dir_all(&keep).unwrap();
        let status = std::process::Command::new("cp").arg("-a").arg(root.join(".")).arg(&keep).status();
        assert!(status.is_ok_and(|s| s.success()));
    }
    let mut failures = Vec::new();
    for line in SAME {
        let args = split(line);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (want, want_status) = real(root, &args, 999);
        let (got, stderr, status) = ours(root, &args);
        if want != got || want_status != status {
            failures.push(format!(
                "git {line}\n--- real (status {want_status})\n{}\n--- ours (status {status})\n{}\n--- our stderr\n{}",
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&stderr)
            ));
        }
    }
    for (line, name) in REFUSED {
        let args = split(line);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (got, stderr, status) = ours(root, &args);
        let stderr = String::from_utf8_lossy(&stderr);
        if status != 129 || !got.is_empty() || !stderr.contains("not supported") || !stderr.contains(name) {
            failures.push(format!("git {line}: not refused by name '{name}' (status {status}): {stderr}"));
        }
    }
    let total = SAME.len() + REFUSED.len();
    assert!(failures.is_empty(), "{storage:?}: {} of {total} differ:\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn t4013_loose() {
    if !have_git() {
        println!("skipped: git is not installed");
        return;
    }
    check(Storage::Loose);
}

#[test]
fn t4013_packed() {
    if !have_git() {
        println!("skipped: git is not installed");
        return;
    }
    check(Storage::Packed);
}

#[test]
fn t4013_loose_on_pack() {
    if !have_git() {
        println!("skipped: git is not installed");
        return;
    }
    check(Storage::LooseOnPack);
}
