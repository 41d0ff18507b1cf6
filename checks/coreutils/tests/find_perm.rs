//! Generative differential test of `find -perm` and `-printf '%m %M'`: random octal and
//! symbolic modes (`chmod`'s grammar, with invalid ones among them), each with no prefix,
//! `-` and `/`, run by the real `/usr/bin/find` (GNU findutils 4.9) and by the sandbox's
//! `find` over one tree whose files and directories carry varied permission bits
//! (setuid, setgid and sticky included); sorted stdout and exit status must be identical.
//!
//! `REVIEWHOST_FIND_PERM_SEED` picks the seed (printed), `REVIEWHOST_FIND_PERM_CASES` the
//! number of generated cases.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Command;

use reviewhost_tool::{Ctx, Io, NO_LIMIT};

#[path = "../../../fuzz/stable/rng.rs"]
mod rng;
use rng::Rng;

/// Files and directories of the tree, with their modes.
const TREE: &[(&str, bool, u32)] = &[
    ("d", true, 0o755),
    ("d/private", true, 0o700),
    ("d/shared", true, 0o1777),
    ("d/group", true, 0o2775),
    ("a", false, 0o644),
    ("b", false, 0o755),
    ("c", false, 0o4750),
    ("d/ro", false, 0o444),
    ("d/none", false, 0o000),
    ("d/private/w", false, 0o222),
    ("d/shared/x", false, 0o111),
    ("d/group/g", false, 0o2640),
    ("d/group/t", false, 0o1604),
    ("d/group/all", false, 0o777),
];

fn build(root: &Path) {
    for (name, dir, _) in TREE {
        let path = root.join(name);
        if *dir { std::fs::create_dir_all(&path) } else { std::fs::write(&path, name) }.expect("create");
    }
    // Children first, so that a directory without permissions is filled before closing.
    for (name, _, mode) in TREE.iter().rev() {
        std::fs::set_permissions(root.join(name), std::fs::Permissions::from_mode(*mode)).expect("chmod");
    }
    std::os::unix::fs::symlink("a", root.join("link")).expect("symlink");
}

fn symbolic(rng: &mut Rng) -> String {
    let clauses = 1 + rng.below(3);
    let mut out = Vec::new();
    for _ in 0..clauses {
        let mut clause = String::new();
        for _ in 0..rng.below(3) {
            clause.push_str(rng.pick(&["u", "g", "o", "a"]));
        }
        for _ in 0..1 + rng.below(2) {
            clause.push_str(rng.pick(&["+", "-", "="]));
            match rng.below(10) {
                0 => clause.push_str(rng.pick(&["u", "g", "o"])),
                1 => clause.push_str(&format!("{:o}", rng.below(0o10000))),
                _ => {
                    for _ in 0..rng.below(4) {
                        clause.push_str(rng.pick(&["r", "w", "x", "X", "s", "t"]));
                    }
                }
            }
        }
        out.push(clause);
    }
    out.join(",")
}

fn mode(rng: &mut Rng) -> String {
    let body = match rng.below(12) {
        0 => rng.pick(&["", "+644", "99", "u", ",u=r", "u=r,", "10000", "0"]).to_string(),
        1..=5 => format!("{:o}", rng.below(0o10000)),
        _ => symbolic(rng),
    };
    format!("{}{body}", rng.pick(&["", "", "-", "/"]))
}

fn real(dir: &Path, args: &[String]) -> (String, i32) {
    let out =
        Command::new("/usr/bin/find").args(args).current_dir(dir).env("LC_ALL", "C.UTF-8").output().expect("find");
    (sorted(&out.stdout), out.status.code().unwrap_or(-1))
}

fn ours(dir: &Path, args: &[String]) -> (String, i32) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = {
        let mut io = Io { stdin: b"", stdout: &mut out, stderr: &mut err, stdout_limit: NO_LIMIT, unnamed_file: None };
        reviewhost_coreutils::find(args, &Ctx::new(dir), &mut io)
    };
    (sorted(&out), status)
}

fn sorted(bytes: &[u8]) -> String {
    let mut lines: Vec<&str> = std::str::from_utf8(bytes).expect("utf-8").lines().collect();
    lines.sort_unstable();
    lines.join("\n")
}

fn gnu_find() -> bool {
    Command::new("/usr/bin/find")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("GNU findutils"))
}

#[test]
fn generated_modes_match_gnu_find() {
    if !gnu_find() {
        eprintln!("skipped: /usr/bin/find is not GNU find");
        return;
    }
    let seed = std::env::var("REVIEWHOST_FIND_PERM_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x0f1d_u64);
    let cases = std::env::var("REVIEWHOST_FIND_PERM_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(600usize);
    eprintln!("find -perm differential: seed {seed}, {cases} cases");
    let dir = tempfile::tempdir().expect("tempdir");
    build(dir.path());
    let mut rng = Rng(seed.max(1));
    let fixed = [vec!["-printf".to_string(), "%m %M %p\\n".to_string()]];
    let generated = (0..cases).map(|_| {
        let mut args = vec!["-perm".to_string(), mode(&mut rng)];
        if rng.chance(30) {
            args = vec!["!".to_string(), args[0].clone(), args[1].clone()];
        }
        if rng.chance(30) {
            args.extend(["-type".to_string(), rng.pick(&["f", "d", "l"]).to_string()]);
        }
        args
    });
    let mut failures = Vec::new();
    for args in fixed.into_iter().chain(generated) {
        let args: Vec<String> = std::iter::once(".".to_string()).chain(args).collect();
        let (want, got) = (real(dir.path(), &args), ours(dir.path(), &args));
        if want != got {
            failures.push(format!("find {args:?}\n  real: {want:?}\n  ours: {got:?}"));
        }
    }
    eprintln!("find -perm differential: {} of {} cases differ", failures.len(), cases + 1);
    for f in failures.iter().take(10) {
        eprintln!("{f}");
    }
    // Leave the tree removable.
    for (name, _, _) in TREE {
        let _ = std::fs::set_permissions(dir.path().join(name), std::fs::Permissions::from_mode(0o755));
    }
    assert!(failures.is_empty(), "{} cases differ from GNU find (seed {seed})", failures.len());
}
