//! Generative differential test of `log`, `show` and `diff`: random command lines
//! composed from the options the crate supports, each run by the real git and by
//! `reviewhost_git::git` on t4013's repository (loose objects on top of a pack);
//! stdout and exit status must be identical, and nothing may be refused.
//!
//! `REVIEWHOST_GIT_SEED` picks the seed (printed), `REVIEWHOST_GIT_CASES` the number of
//! cases (default 600, a few seconds in a debug build), `REVIEWHOST_GIT_SHOW` how many
//! differences to print; `REVIEWHOST_GIT_ARGS` runs that one command line instead.
//!
//! Left out of the grammar, each because the crate refuses it by name: `-c`/`--cc` and
//! `--diff-merges=combined` (combined diffs, past the empty case `show` prints), a `--diff-filter` of
//! exclusions only in `log`/`show` (git then selects no commit at all), `-w`,
//! `-b`, `--ignore-*` (whitespace-insensitive line matching), `--relative`, `--dirstat`,
//! `--graph`, `-S`/`-G` (pickaxe), `--since`/`--until` and `%ar` (they depend on the
//! clock), `-z` for `log`, and `--binary` (git's base-85 patches). Also left out: `-s`
//! combined with `--name-only`/`--name-status` and those two together (git fails on
//! them with status 128, which is tested once in `t4013.rs`, not worth a grammar rule).

mod common;
use common::{Storage, have_git, ours, real, t4013_repo};

#[path = "../../../fuzz/stable/rng.rs"]
mod rng;
use rng::Rng;

/// Output forms that combine with each other.
const FORMS: &[&str] = &[
    "-p",
    "--stat",
    "--numstat",
    "--shortstat",
    "--summary",
    "--raw",
    "--patch-with-stat",
    "--patch-with-raw",
    "-U1",
    "--unified=0",
    "-U5",
    "--stat=50",
    "--stat=100,12",
    "--stat-count=2",
    "--stat-name-width=6",
    "--stat-width=40",
    "--stat-graph-width=5",
    "--no-renames",
    "-M",
    "--abbrev=5",
    "--abbrev=12",
    "--no-abbrev",
    "--full-index",
    "--diff-filter=M",
    "--diff-filter=AD",
    "-a",
    "--no-prefix",
    "--src-prefix=old/",
    "--dst-prefix=new/",
    "-r",
];

/// Output forms that replace all the others.
const EXCLUSIVE: &[&str] = &["--name-only", "--name-status", "-s"];

const FORMATS: &[&str] = &[
    "--oneline",
    "--pretty=oneline",
    "--pretty=short",
    "--pretty=medium",
    "--pretty=full",
    "--pretty=fuller",
    "--pretty=raw",
    "--format=%H",
    "--format=%h %s",
    "--format=%h%d %s",
    "--format=%D|%an|%ae|%ad",
    "--format=%P %p %T %t",
    "--format=%s%n%b",
    "--format=%B",
    "--format=",
    "--format=tformat:%cn %ce %cd",
    "--pretty=format:%h %s",
    "--pretty=format:%x41%n%f",
    "--format=%ai %aI %as %at %ci %cs",
    "--abbrev-commit",
    "--no-abbrev-commit",
    "--decorate",
    "--decorate=full",
    "--decorate=short",
    "--no-decorate",
    "--date=short",
    "--date=iso",
    "--date=iso-strict",
    "--date=rfc",
    "--date=raw",
    "--date=unix",
];

const LOG_ONLY: &[&str] = &[
    "-n2",
    "-3",
    "--max-count=1",
    "--skip=1",
    "--reverse",
    "--first-parent",
    "--merges",
    "--no-merges",
    "-m",
    "--diff-merges=first-parent",
    "--diff-merges=off",
    "--diff-merges=separate",
    "--root",
    "--all",
    "--grep=Side",
    "--author=Thor",
];

const LOG_REVS: &[&str] = &[
    "master",
    "side",
    "feature",
    "initial..master",
    "side...master",
    "master ^side",
    "master~2",
    "v1",
    "light",
    "HEAD",
];

const SHOW_REVS: &[&str] = &[
    "HEAD",
    "side",
    "initial",
    "master~1",
    "master~2",
    "master~3",
    "master",
    "v1",
    "light",
    "initial side",
    "feature",
];

const DIFF_SIDES: &[&str] = &[
    "",
    "--cached",
    "HEAD",
    "initial master",
    "initial..side",
    "side...master",
    "master~2 master",
    "HEAD~1",
    "master side",
    "--cached initial",
    "-R initial master",
    "-R HEAD",
];

/// `diff` only: `log` and `show` refuse a `--diff-filter` of exclusions only.
const DIFF_ONLY: &[&str] = &["--exit-code", "--quiet", "--diff-filter=r", "--diff-filter=d"];

const PATHS: &[&str] =
    &["file0", "dir", "dir/sub", "dir2", "*.txt", "file1 file3", "bin.dat", "run.sh", "nonl.txt", "empty2"];

fn words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(' ').filter(|w| !w.is_empty()).map(str::to_string)
}

/// One random command line.
fn command(rng: &mut Rng) -> Vec<String> {
    let which = rng.pick(&["log", "log", "show", "diff", "diff"]);
    let mut args = vec![which.to_string()];
    let mut options = Vec::new();
    for _ in 0..rng.below(4) {
        options.push(rng.pick(FORMS).to_string());
    }
    if rng.chance(15) {
        options.push(rng.pick(EXCLUSIVE).to_string());
    }
    if which != "diff" {
        for _ in 0..rng.below(3) {
            options.push(rng.pick(FORMATS).to_string());
        }
    }
    if which == "log" {
        for _ in 0..rng.below(3) {
            options.push(rng.pick(LOG_ONLY).to_string());
        }
        if !options.iter().any(|o| o.starts_with("-n") || o.starts_with("--max") || o == "-3") {
            options.push("-4".into());
        }
    }
    if which == "diff" && rng.chance(15) {
        options.push(rng.pick(DIFF_ONLY).to_string());
    }
    let revs = match which {
        "log" => rng.pick(LOG_REVS),
        "show" => rng.pick(SHOW_REVS),
        _ => rng.pick(DIFF_SIDES),
    };
    // Options before and after the revisions, as people write them.
    let split = rng.below(options.len() + 1);
    args.extend(options[..split].iter().cloned());
    args.extend(words(revs));
    args.extend(options[split..].iter().cloned());
    if rng.chance(30) {
        args.push("--".into());
        args.extend(words(rng.pick(PATHS)));
    }
    args
}

#[test]
fn generated_command_lines_match_real_git() {
    if !have_git() {
        println!("skipped: git is not installed");
        return;
    }
    let seed = std::env::var("REVIEWHOST_GIT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x0000_4013_u64);
    let cases = std::env::var("REVIEWHOST_GIT_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(600usize);
    println!("REVIEWHOST_GIT_SEED={seed} REVIEWHOST_GIT_CASES={cases}");
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    t4013_repo(root, Storage::LooseOnPack);
    let mut rng = Rng(seed.max(1));
    let mut failures = Vec::new();
    // One command line to look at (words split at spaces) instead of generated ones.
    let only: Option<Vec<String>> =
        std::env::var("REVIEWHOST_GIT_ARGS").ok().map(|a| a.split(' ').map(str::to_string).collect());
    for _ in 0..if only.is_some() { 1 } else { cases } {
        let args = only.clone().unwrap_or_else(|| command(&mut rng));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (want, want_status) = real(root, &args, 999);
        let (got, stderr, status) = ours(root, &args);
        if want != got || want_status != status {
            failures.push(format!(
                "git {}\n--- real (status {want_status})\n{}\n--- ours (status {status})\n{}\n--- our stderr\n{}",
                args.join(" "),
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&stderr)
            ));
        }
    }
    let show = std::env::var("REVIEWHOST_GIT_SHOW").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    assert!(
        failures.is_empty(),
        "seed {seed}: {} of {cases} differ; the first {}:\n\n{}",
        failures.len(),
        show.min(failures.len()),
        failures.iter().take(show).cloned().collect::<Vec<_>>().join("\n\n")
    );
}
