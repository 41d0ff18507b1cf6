//! Generative differential test of `find`: hand-written cases, then random command lines
//! from a small grammar of what the module note claims (operands, `( ) ! -not -a -and -o
//! -or`, `-name -iname -path -ipath -wholename -iwholename -lname -ilname -type -empty
//! -newer -size -true -false -print -print0 -printf -prune`, `-maxdepth -mindepth -depth
//! -xdev -mount -noleaf -ignore_readdir_race`, and `-printf`'s `%p %P %f %h %s %d %y %l
//! %%` with flags, width and precision), over one tree with odd names (spaces, a newline,
//! leading dashes, non-ASCII, dot files), empty files and directories, and symlinks to a
//! file, to a directory and to nothing. Each case runs the real `/usr/bin/find` (GNU
//! findutils 4.9, `LC_ALL=C.UTF-8`) and the sandbox's `find` on the same tree; the exit
//! status and the sorted output records (lines, or NUL-ended records with `-print0`) must
//! be identical: the order of a directory's entries is the file system's, which the
//! sandbox does not promise to follow.
//!
//! `REVIEWHOST_FIND_SEED` picks the seed (printed), `REVIEWHOST_FIND_CASES` the number of
//! generated cases, `REVIEWHOST_FIND_SHOW` how many differences to print. Actions stand
//! only where GNU's optimiser (`-O1`) leaves them: it swaps the operands of `-o` and `-a`
//! by cost even when the left one prints (`find x -print -size 1 -o -true` prints nothing),
//! and the sandbox evaluates the expression as written. Left out of the grammar: `-quit` (which files come before it depends on that order), `,` (the module note
//! leaves it out), the predicates the module note refuses (what
//! WASI cannot tell: permissions, owners, links, inodes, other times; the actions that
//! run or write), and `-printf` directives other than the ones above.

use std::path::Path;
use std::process::{Command, Stdio};

use reviewhost_tool::{Ctx, Io, NO_LIMIT};

#[path = "../../../fuzz/stable/rng.rs"]
mod rng;
use rng::Rng;

/// The tree: (path, contents); a path ending in `/` is a directory, `@target` a symlink.
const TREE: &[(&str, &str)] = &[
    ("src/", ""),
    ("src/main.rs", "fn main() {}\n"),
    ("src/lib.RS", "x"),
    ("src/a b.txt", "spaces\n"),
    ("src/-dash.txt", ""),
    ("src/.hidden", "h"),
    ("src/日本.md", "multibyte\n"),
    ("src/new\nline", "nl"),
    ("src/deep/", ""),
    ("src/deep/er/", ""),
    ("src/deep/er/file.rs", "0123456789012345678901234567890123456789012345678901234567890123456789"),
    ("empty/", ""),
    ("zero", ""),
    ("big.bin", ""),
    ("link-file", "@src/main.rs"),
    ("link-dir", "@src"),
    ("dangling", "@nowhere"),
    ("-n", "dash operand\n"),
];

fn make_tree(root: &Path) {
    for (path, contents) in TREE {
        let p = root.join(path);
        if let Some(dir) = path.strip_suffix('/') {
            std::fs::create_dir_all(root.join(dir)).expect("mkdir");
        } else if let Some(target) = contents.strip_prefix('@') {
            std::os::unix::fs::symlink(target, &p).expect("symlink");
        } else {
            std::fs::write(&p, contents).expect("write");
        }
    }
    std::fs::write(root.join("big.bin"), vec![b'x'; 5000]).expect("write big");
    // `-newer` needs files older and newer than the reference.
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
    for (path, _) in TREE.iter().filter(|(p, c)| !p.ends_with('/') && !c.starts_with('@')).step_by(2) {
        let file = std::fs::OpenOptions::new().write(true).open(root.join(path)).expect("open");
        file.set_modified(old).expect("set mtime");
    }
}

const PATTERNS: &[&str] = &[
    "*.rs",
    "*.RS",
    "*",
    ".*",
    "a b*",
    "-*",
    "*日本*",
    "new*",
    "[a-m]*",
    "[!a-m]*",
    "?",
    "??*",
    "*/deep/*",
    "src/*",
    "./src/*",
    "*e*",
    "main.rs",
    "\\-dash.txt",
    "*[[:upper:]]*",
    "link*",
    "*line",
    "src",
    "deep",
];

/// A test: no side effect, so GNU's optimiser may reorder it freely.
fn primary(rng: &mut Rng) -> Vec<String> {
    let one = |s: &str| vec![s.to_string()];
    let two = |a: &str, b: &str| vec![a.to_string(), b.to_string()];
    match rng.below(12) {
        0 => two(rng.pick(&["-name", "-iname"]), rng.pick(PATTERNS)),
        1 => two(rng.pick(&["-path", "-ipath", "-wholename", "-iwholename"]), rng.pick(PATTERNS)),
        2 => two(rng.pick(&["-lname", "-ilname"]), rng.pick(&["*", "src*", "*MAIN*", "nowhere", "*.rs"])),
        3 => two("-type", rng.pick(&["f", "d", "l", "f,d", "l,f", "p", "s"])),
        4 => one("-empty"),
        5 => two("-newer", rng.pick(&["zero", "src/main.rs", "-n", "big.bin"])),
        6 => two(
            "-size",
            rng.pick(&["0", "-1", "+1", "1", "-5000c", "+10c", "70c", "1k", "-2k", "+0", "10w", "0M", "1G"]),
        ),
        7 => one(rng.pick(&["-true", "-false"])),
        8 | 9 => two("-name", rng.pick(PATTERNS)),
        10 => two("-type", rng.pick(&["f", "d"])),
        _ => one("-empty"),
    }
}

/// An action, put where GNU's optimiser leaves it in place.
fn action(rng: &mut Rng) -> Vec<String> {
    match rng.below(4) {
        0 => vec!["-print".to_string()],
        1 => vec!["-print0".to_string()],
        _ => vec!["-printf".to_string(), printf_format(rng)],
    }
}

fn printf_format(rng: &mut Rng) -> String {
    let mut f = String::new();
    for _ in 0..1 + rng.below(3) {
        f.push_str(
            rng.pick(&["%p", "%P", "%f", "%h", "%s", "%d", "%y", "%l", "%%", "[%-8f]", "%10p", "%.3P", "x", " "]),
        );
    }
    f.push_str(rng.pick(&["\\n", "\\n", "\\0", "\\t|\\n"]));
    f
}

fn expression(rng: &mut Rng, depth: usize) -> Vec<String> {
    if depth > 2 {
        return primary(rng);
    }
    match rng.below(10) {
        0..=3 => primary(rng),
        4 | 5 => {
            let mut e = expression(rng, depth + 1);
            if rng.chance(50) {
                e.push(rng.pick(&["-a", "-and"]).to_string());
            }
            e.extend(expression(rng, depth + 1));
            e
        }
        6 | 7 => {
            let mut e = expression(rng, depth + 1);
            e.push(rng.pick(&["-o", "-or"]).to_string());
            e.extend(expression(rng, depth + 1));
            e
        }
        8 => {
            let mut e = vec![rng.pick(&["!", "-not"]).to_string()];
            e.extend(expression(rng, depth + 1));
            e
        }
        _ => {
            let mut e = vec!["(".to_string()];
            e.extend(expression(rng, depth + 1));
            e.push(")".into());
            e
        }
    }
}

fn case(rng: &mut Rng) -> Vec<String> {
    let mut args = Vec::new();
    for _ in 0..rng.below(3) {
        args.push(
            rng.pick(&[
                ".",
                "src",
                "src/",
                "./src",
                "empty",
                "zero",
                "missing",
                "link-dir",
                "link-file",
                "dangling",
                "src/a b.txt",
                "src/deep",
                "./",
                "src//",
            ])
            .to_string(),
        );
    }
    for _ in 0..rng.below(3) {
        match rng.below(6) {
            0 => args.extend(["-maxdepth".to_string(), rng.below(3).to_string()]),
            1 => args.extend(["-mindepth".to_string(), rng.below(3).to_string()]),
            2 => args.push("-depth".into()),
            _ => args.push(rng.pick(&["-xdev", "-mount", "-noleaf", "-ignore_readdir_race"]).to_string()),
        }
    }
    match rng.below(10) {
        0 => {}
        1..=4 => args.extend(expression(rng, 0)),
        5..=7 => {
            args.push("(".into());
            args.extend(expression(rng, 0));
            args.push(")".into());
            args.extend(action(rng));
            if rng.chance(30) {
                args.push("-o".into());
                args.extend(action(rng));
            }
        }
        _ => {
            // The pruning idiom: `TEST -prune -o EXPR ACTION`.
            args.extend(primary(rng));
            args.extend(["-prune".to_string(), "-o".to_string()]);
            args.extend(expression(rng, 1));
            args.extend(action(rng));
        }
    }
    args
}

/// Hand-written cases.
const FIXED: &[&[&str]] = &[
    &[],
    &["."],
    &["src", "-name", "*.rs"],
    &[".", "-name", "src", "-prune", "-o", "-print"],
    &[".", "-type", "l", "-printf", "%p -> %l %y\\n"],
    &[".", "-empty"],
    &[".", "-newer", "zero"],
    &["src/", "-maxdepth", "1"],
    &["missing", "src", "-name", "main*"],
    &["--", "-n"],
    &["-n"],
    &[".", "-size", "-1k", "-type", "f"],
    &[".", "-printf", "%d %y %P|%h|%f\\n"],
    &["src", "-depth", "-print0"],
    &[".", "-name"],
    &[".", "-type", "x"],
    &[".", "("],
    &[".", ")"],
    &[".", "-bogus"],
    &[".", "-name", "a", "b"],
    &["", "."],
];

fn real(args: &[String], dir: &Path) -> (Vec<u8>, i32) {
    let out = Command::new("/usr/bin/find")
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .env_remove("POSIXLY_CORRECT")
        .stdin(Stdio::null())
        .output()
        .expect("run /usr/bin/find");
    (out.stdout, out.status.code().unwrap_or(-1))
}

fn ours(args: &[String], dir: &Path) -> (Vec<u8>, Vec<u8>, i32) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = {
        let mut io = Io { stdin: b"", stdout: &mut out, stderr: &mut err, stdout_limit: NO_LIMIT, unnamed_file: None };
        reviewhost_coreutils::find(args, &Ctx::new(dir), &mut io)
    };
    (out, err, status)
}

/// The output's records in order: NUL-ended ones when there is a NUL, else lines.
fn records(out: &[u8]) -> Vec<&[u8]> {
    let sep = if out.contains(&0) { 0 } else { b'\n' };
    let mut r: Vec<&[u8]> = out.split(|b| *b == sep).collect();
    r.sort();
    r
}

fn gnu_find() -> bool {
    Command::new("/usr/bin/find")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("(GNU findutils) 4."))
}

#[test]
fn generated_expressions_match_gnu_find() {
    if !gnu_find() {
        eprintln!("skipped: /usr/bin/find is not GNU find");
        return;
    }
    let seed = std::env::var("REVIEWHOST_FIND_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x000f_19d0_u64);
    let cases = std::env::var("REVIEWHOST_FIND_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(1000usize);
    eprintln!("find differential: seed {seed}, {} hand-written and {cases} generated cases", FIXED.len());
    let mut rng = Rng(seed.max(1));
    let dir = tempfile::tempdir().expect("tempdir");
    make_tree(dir.path());
    let fixed = FIXED.iter().map(|args| args.iter().map(|a| a.to_string()).collect::<Vec<_>>());
    let generated = (0..cases).map(|_| case(&mut rng));
    let mut failures = Vec::new();
    for (n, args) in fixed.collect::<Vec<_>>().into_iter().chain(generated).enumerate() {
        let (real_out, real_status) = real(&args, dir.path());
        let (our_out, our_err, our_status) = ours(&args, dir.path());
        if (records(&real_out), real_status) != (records(&our_out), our_status) {
            failures.push(format!(
                "case {n}: find {args:?}\n  real: {:?} exit {real_status}\n  ours: {:?} exit {our_status} {}",
                String::from_utf8_lossy(&real_out),
                String::from_utf8_lossy(&our_out),
                String::from_utf8_lossy(&our_err),
            ));
        }
    }
    let total = FIXED.len() + cases;
    eprintln!("find differential: {} of {total} cases differ", failures.len());
    let show = std::env::var("REVIEWHOST_FIND_SHOW").ok().and_then(|s| s.parse().ok()).unwrap_or(15);
    for f in failures.iter().take(show) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} of {total} cases differ from GNU find (seed {seed})", failures.len());
}
