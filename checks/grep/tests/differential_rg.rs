//! Differential test: `reviewhost_grep::rg` against the real ripgrep, run as
//! `rg --sort path --color never ARGS` (ours always walks sorted by path and never
//! colours), on a fixture with a `.git` directory, `.gitignore`, `.ignore`, hidden and
//! binary files. Compares stdout bytes and exit status exactly, stderr only as empty
//! versus non-empty (ripgrep 13 words its errors differently).

mod common;

use reviewhost_tool::{Ctx, Io, NO_LIMIT};
use std::path::Path;
use std::process::{Command, Stdio};

fn fixture(root: &Path) {
    let files: Vec<(&str, &[u8])> = vec![
        (".git/HEAD", b"ref: refs/heads/main\n"),
        (".gitignore", b"target/\n*.log\n"),
        (".ignore", b"ignored_by_dot_ignore.txt\n!special.log\n"),
        ("src/main.rs", b"fn main() { Foo(); }\nstruct FooBar;\nlet foo = 1;\n// TODO fix Foo\n"),
        ("src/_archive/old.rs", b"fn Foo() {}\n"),
        ("src/lib/util.rs", b"pub fn Foo_x() {}\n// foo\nfn helper() { Foo::new() }\n"),
        ("src/app.py", b"def foo():\n    return Foo()\n"),
        ("src/index.js", b"const foo = require('foo');\n"),
        ("docs/ctx.txt", b"a\nfoo\nb\nc\nd\nfoo\ne\nf\ng\nh\nfoo\n"),
        ("docs/readme.md", "Café FOO\n日本語 foo\n".as_bytes()),
        ("target/out.rs", b"foo in target\n"),
        ("app.log", b"foo log\n"),
        ("ignored_by_dot_ignore.txt", b"foo\n"),
        (".hidden", b"foo hidden\n"),
        ("bin.dat", b"foo\0bar\nfoo again\n"),
        ("crlf.txt", b"foo\r\nbar\r\n"),
        ("empty.txt", b""),
        ("config.yaml", b"key: foo\n"),
        ("Cargo.toml", b"[package]\nname = \"foo\"\n"),
        // Ignore-file precedence: `.rgignore`, `.ignore` over `.gitignore`, nested rules,
        // whitelists, `.git/info/exclude`, and a nested repository, which the outer
        // repository's `.gitignore` does not reach.
        (".git/info/exclude", b"excluded_by_info.txt\n"),
        ("excluded_by_info.txt", b"foo\n"),
        (".rgignore", b"rg_ignored.txt\n"),
        ("rg_ignored.txt", b"foo\n"),
        ("special.log", b"foo special\n"),
        ("src/.gitignore", b"generated.rs\n!keep.log\n"),
        ("src/generated.rs", b"foo generated\n"),
        ("src/keep.log", b"foo kept log\n"),
        ("src/other.log", b"foo other log\n"),
        ("vendor/.git/HEAD", b"ref: refs/heads/main\n"),
        ("vendor/.gitignore", b"*.txt\n"),
        ("vendor/a.txt", b"foo vendored\n"),
        ("vendor/b.rs", b"foo b\n"),
        ("vendor/x.log", b"foo log in nested repo\n"),
        ("deep/er/still/deeper.rs", b"foo deep\n"),
        ("deep/.ignore", b"still/\n"),
        // `--ignore-file`, `--null-data`, `-M`, `--glob-case-insensitive`.
        ("extra.ignore", b"*.yaml\n/docs/readme.md\n"),
        ("more.ignore", b"!config.yaml\n"),
        ("nul.dat", b"foo\0bar\0\0foo again\0"),
        ("long.txt", b"short foo\nfoo and then a line that is much longer than forty bytes\n"),
        ("UP.TOML", b"foo upper toml\n"),
    ];
    common::write_files(root, &files);
    // A symlink loop, which `-L` reports instead of following.
    std::fs::create_dir_all(root.join("loopdir/sub")).expect("create fixture dir");
    std::fs::write(root.join("loopdir/a.txt"), b"foo in loop\n").expect("write fixture file");
    std::os::unix::fs::symlink(".", root.join("loopdir/self")).expect("symlink");
    std::os::unix::fs::symlink("..", root.join("loopdir/sub/up")).expect("symlink");
    std::os::unix::fs::symlink("../docs", root.join("loopdir/docs")).expect("symlink");
}

fn cases() -> Vec<(Vec<String>, Vec<u8>)> {
    let table: &[&[&str]] = &[
        &["foo"],
        &["Foo"],
        &["-n", "Foo\\b", "src", "--glob", "!**/_archive/**"],
        &["-g", "!**/_archive/**", "Foo"],
        &["-g", "*.rs", "foo", "-i"],
        &["-g", "*.rs", "-g", "!main.rs", "-i", "foo"],
        &["-n", "foo"],
        &["-N", "foo"],
        &["-i", "foo"],
        &["-S", "foo"],
        &["-S", "Foo"],
        &["-F", "Foo()"],
        &["-F", "("],
        &["-w", "foo"],
        &["-x", "foo"],
        &["-v", "foo", "docs"],
        &["-l", "foo"],
        &["--files-without-match", "foo"],
        &["-c", "foo"],
        &["--count-matches", "o"],
        &["-co", "o", "docs"],
        &["-o", "Fo+\\w*"],
        &["-on", "fo+", "docs"],
        &["-q", "foo"],
        &["-q", "zzzz"],
        &["-e", "foo", "-e", "Foo", "src"],
        &["-t", "rust", "foo"],
        &["-t", "py", "-i", "foo"],
        &["-T", "rust", "foo"],
        &["-t", "md", "foo"],
        &["-t", "yaml", "foo"],
        &["-t", "toml", "foo"],
        &["-t", "js", "foo"],
        &["-t", "nosuchtype", "foo"],
        &["--hidden", "foo"],
        &["--no-ignore", "foo"],
        &["-u", "foo"],
        &["-uu", "foo"],
        &["-uuu", "-l", "foo"],
        &["-a", "foo", "bin.dat"],
        &["foo", "bin.dat"],
        &["foo", "bin.dat", "crlf.txt"],
        &["-H", "foo", "crlf.txt"],
        &["foo", "crlf.txt"],
        &["--no-filename", "foo", "src"],
        &["-A1", "foo", "docs/ctx.txt"],
        &["-B1", "-n", "foo", "docs/ctx.txt"],
        &["-C1", "foo", "docs"],
        &["-A1", "foo", "docs/ctx.txt", "src/lib/util.rs"],
        &["-m1", "foo"],
        &["-m1", "-A2", "foo", "docs/ctx.txt"],
        &["--max-depth", "1", "foo"],
        &["--max-depth=2", "-l", "foo", "src"],
        &["--files"],
        &["--files", "src"],
        &["--files", "-g", "*.rs"],
        &["--files", "-t", "py"],
        &["foo", "missing", "src"],
        &["foo", "missing"],
        &["("],
        &["foo", "."],
        &["foo", "src/"],
        &["foo", "./src"],
        &["-L", "foo"],
        &["foo", "empty.txt"],
        &["-c", "foo", "docs/ctx.txt"],
        &["--column", "foo", "docs/ctx.txt"],
        &["-b", "foo", "docs/ctx.txt"],
        &["--null", "-l", "foo"],
        &["--bogus-flag", "foo"],
        &["日本"],
        &["(?i)café"],
        &["foo$", "crlf.txt"],
        &["-w", "Foo", "src"],
        &["-x", "a|b", "docs"],
        &["-l", "foo", "src"],
        &["-l", "foo", "src/"],
        &["-l", "foo", "vendor"],
        &["-l", "foo", "deep"],
        &["-l", "foo", "deep/er"],
        &["--no-ignore-parent", "-l", "foo", "src"],
        &["--no-ignore-parent", "-l", "foo", "deep/er"],
        &["--no-ignore-vcs", "-l", "foo"],
        &["--no-ignore-dot", "-l", "foo"],
        &["--hidden", "-l", "foo"],
        &["--files", "vendor", "src"],
        &["-g", "*.log", "-l", "foo"],
        &["-g", "!src", "-l", "foo"],
        // Flags ripgrep 13 has that were refused (R5) or ignored (R4).
        &["--ignore-file", "extra.ignore", "-l", "foo"],
        &["--ignore-file", "extra.ignore", "--ignore-file", "more.ignore", "-l", "foo"],
        &["--ignore-file", "extra.ignore", "--no-ignore-files", "-l", "foo"],
        &["--ignore-file", "extra.ignore", "--no-ignore", "-l", "foo"],
        &["--ignore-file", "extra.ignore", "foo", "docs"],
        &["--ignore-file", "missing.ignore", "-l", "foo"],
        &["--sort-files", "-l", "foo"],
        &["--sortr", "path", "-l", "foo"],
        &["--sortr", "path", "--sort", "path", "-n", "foo", "src", "docs"],
        &["--sort", "none", "--sortr", "path", "--files"],
        &["-A1", "--no-context-separator", "foo", "docs/ctx.txt"],
        &["-A1", "--context-separator", "AAA", "foo", "docs/ctx.txt"],
        &["-A1", "--context-separator", "", "foo", "docs/ctx.txt"],
        &["-A1", "--context-separator", "\\x41\\t", "foo", "docs/ctx.txt"],
        &["-A1", "--no-context-separator", "--context-separator", "X", "foo", "docs/ctx.txt"],
        &["-C1", "--context-separator", "==", "foo", "docs/ctx.txt", "src/lib/util.rs"],
        &["--dfa-size-limit", "10", "foo", "docs"],
        &["--dfa-size-limit", "1Q", "foo", "docs"],
        &["--regex-size-limit", "1M", "foo", "docs"],
        &["--null-data", "foo", "nul.dat"],
        &["--null-data", "-c", "foo", "nul.dat"],
        &["-M", "30", "foo", "long.txt"],
        &["-M30", "--max-columns-preview", "foo", "long.txt"],
        &["-M", "30", "-o", "foo", "long.txt"],
        &["-M", "0", "foo", "long.txt"],
        &["--glob-case-insensitive", "-g", "*.toml", "foo"],
        &["-g", "*.toml", "foo"],
        &["--crlf", "foo$", "crlf.txt"],
        &["--crlf", "-o", "bar$", "crlf.txt"],
        &["--crlf", "--no-crlf", "foo$", "crlf.txt"],
        &["--vimgrep", "foo", "docs"],
        &["--vimgrep", "o", "src/main.rs"],
        &["--vimgrep", "-N", "foo", "docs/ctx.txt"],
        &["--vimgrep", "-N", "--no-column", "foo", "docs/ctx.txt"],
        &["--no-ignore-exclude", "-l", "foo"],
        &["--path-separator", "Z", "-l", "foo", "src"],
        &["--path-separator", "Z", "foo", "src"],
        &["--path-separator", "Z", "--files", "src"],
        &["--path-separator", "ZZ", "foo", "src"],
        &["-i", "--no-unicode", "Δ", "docs"],
        &["--no-unicode", "日本", "docs"],
        &["--no-unicode", "\\w+", "-o", "docs/readme.md"],
        &["--include-zero", "-c", "foo", "docs", "empty.txt"],
        &["--heading", "foo", "docs", "src"],
        &["--heading", "-C1", "-n", "foo", "docs", "src/lib/util.rs"],
        &["--heading", "foo", "docs/ctx.txt"],
        &["--heading", "--no-heading", "foo", "docs"],
        &["--heading", "--vimgrep", "foo", "docs"],
        &["--heading", "-c", "foo", "docs"],
        &["--field-match-separator", "=", "-n", "foo", "docs"],
        &["--field-context-separator", "~", "--field-match-separator", "\\t", "-n", "-C1", "foo", "docs/ctx.txt"],
        &["--max-filesize", "20", "-l", "foo"],
        &["--max-filesize", "20", "foo", "docs/ctx.txt"],
        &["--max-filesize", "1K", "-l", "foo", "src"],
        &["--max-filesize", "1", "foo"],
        &["--max-filesize", "1X", "foo"],
        &["--color", "never", "-n", "foo", "docs"],
        &["--color", "bogus", "foo", "docs"],
        &["-p", "foo", "docs", "src/app.py"],
        &["-p", "-N", "--no-heading", "foo", "docs"],
        &["-L", "-l", "foo", "loopdir"],
        &["-L", "-c", "foo"],
        &["-l", "foo", "loopdir"],
        &["-L", "--files", "loopdir/sub"],
        &["-f", "/dev/null"],
        &["foo", "/dev/null", "docs/ctx.txt"],
        &["--include-zero", "-c", "foo", "/dev/null"],
        &["--files", "/dev/null", "src"],
    ];
    let mut out: Vec<(Vec<String>, Vec<u8>)> =
        table.iter().map(|a| (a.iter().map(|s| s.to_string()).collect(), Vec::new())).collect();
    for a in [&["foo"][..], &["-n", "bar"], &["-c", "foo"], &["foo", "-"], &["foo", "-", "docs/ctx.txt"]] {
        out.push((a.iter().map(|s| s.to_string()).collect(), b"foo\nbar\nfoo bar\n".to_vec()));
    }
    // `-f-` (R3): the patterns come from stdin, and the directory is searched.
    for a in [&["-f-"][..], &["-f", "-", "-l"], &["-f-", "docs"]] {
        out.push((a.iter().map(|s| s.to_string()).collect(), b"Foo\nbar\n".to_vec()));
    }
    // R2: stdin is read through the buffer, so a NUL after the first match is seen and
    // reported after the lines printed before it.
    let mut binary = b"foo first\n".to_vec();
    binary.extend(std::iter::repeat_n(b'x', 70_000));
    binary.extend_from_slice(b"\nfoo late\n\0tail foo\n");
    for a in [&["--no-mmap", "-n", "foo"][..], &["-c", "foo"], &["foo", "-"]] {
        out.push((a.iter().map(|s| s.to_string()).collect(), binary.clone()));
    }
    out
}

/// A tree outside any git repository: `.gitignore` applies only with `--no-require-git`.
fn fixture_without_git(root: &Path) {
    let files: Vec<(&str, &[u8])> = vec![
        (".gitignore", b"ignored.txt\n"),
        ("ignored.txt", b"foo\n"),
        ("kept.txt", b"foo\n"),
        ("Mixed.TXT", b"foo\n"),
        ("sub/.gitignore", b"mixed.txt\n"),
        ("sub/Mixed.TXT", b"foo\n"),
        (".myignore", b"kept.txt\n"),
    ];
    common::write_files(root, &files);
}

fn cases_without_git() -> Vec<(Vec<String>, Vec<u8>)> {
    let table: &[&[&str]] = &[
        &["-l", "foo"],
        &["--no-require-git", "-l", "foo"],
        &["--no-require-git", "--require-git", "-l", "foo"],
        &["--no-require-git", "--ignore-file-case-insensitive", "-l", "foo"],
        &["--no-require-git", "--ignore-file-case-insensitive", "--no-ignore-file-case-insensitive", "-l", "foo"],
        &["--ignore-file", ".myignore", "-l", "foo"],
        &["--ignore-file", ".myignore", "--no-ignore-files", "--ignore-files", "-l", "foo"],
        &["--files", "--no-require-git"],
    ];
    table.iter().map(|a| (a.iter().map(|s| s.to_string()).collect(), Vec::new())).collect()
}

/// At most `SHOW_LIMIT` characters of an output, for readable failure lists.
fn show(bytes: &[u8]) -> String {
    const SHOW_LIMIT: usize = 600;
    let s = String::from_utf8_lossy(bytes);
    if s.chars().count() > SHOW_LIMIT {
        format!("{}...", s.chars().take(SHOW_LIMIT).collect::<String>())
    } else {
        s.into_owned()
    }
}

#[test]
fn rg_matches_ripgrep() {
    let cases = cases();
    let prefiltered = compare(fixture, &cases);
    assert!(prefiltered * 10 > cases.len(), "the first pass skipped files in only {prefiltered} cases");
}

#[test]
fn rg_matches_ripgrep_outside_a_repository() {
    compare(fixture_without_git, &cases_without_git());
}

/// Runs every case through the real rg and ours in a fresh `fixture` and compares.
/// Returns how many cases ran with the first pass skipping a file.
fn compare(fixture: fn(&Path), cases: &[(Vec<String>, Vec<u8>)]) -> usize {
    let Ok(rg_path) = which_rg() else { panic!("install ripgrep (apt-get install -y ripgrep)") };
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path());
    common::settle();
    let mut failures = Vec::new();
    // Guards against a vacuous pass (e.g. the real tool failing on every case).
    let mut real_outputs = 0;
    // Cases where the first pass let the search skip a file, and files skipped.
    let (mut prefiltered, mut skipped) = (0, 0);
    for (args, stdin) in cases {
        match common::both_ways(reviewhost_grep::rg, "rg", dir.path(), args, stdin) {
            Ok(0) => {}
            Ok(n) => {
                prefiltered += 1;
                skipped += n;
            }
            Err(difference) => failures.push(difference),
        }
        use std::io::Write;
        let mut child = Command::new(&rg_path)
            .args(["--sort", "path", "--color", "never", "--no-config"])
            .args(args)
            .current_dir(dir.path())
            .env_remove("RIPGREP_CONFIG_PATH")
            .env("HOME", dir.path())
            .stdin(if stdin.is_empty() { Stdio::null() } else { Stdio::piped() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run rg");
        if let Some(mut s) = child.stdin.take() {
            let _ = s.write_all(stdin);
        }
        let want = child.wait_with_output().expect("wait for rg");
        let ctx = Ctx::new(dir.path());
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let mut io = Io { stdin, stdout: &mut stdout, stderr: &mut stderr, stdout_limit: NO_LIMIT, unnamed_file: None };
        let status = reviewhost_grep::rg(args, &ctx, &mut io);
        let want_status = want.status.code().unwrap_or(-1);
        if !want.stdout.is_empty() {
            real_outputs += 1;
        }
        if want_status != status || want.stdout != stdout || want.stderr.is_empty() != stderr.is_empty() {
            failures.push(format!(
                "rg {args:?}\n  expected status {want_status} stdout {:?} stderr {:?}\n  got      status {status} stdout {:?} stderr {:?}",
                show(&want.stdout),
                show(&want.stderr),
                show(&stdout),
                show(&stderr)
            ));
        }
    }
    println!(
        "rg differential: {} cases, {} pass, {} fail; {prefiltered} ran with the first pass skipping {skipped} files",
        cases.len(),
        cases.len() - failures.len(),
        failures.len()
    );
    assert!(real_outputs * 2 > cases.len(), "the real tool printed something in only {real_outputs} cases");
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
    prefiltered
}

fn which_rg() -> Result<String, ()> {
    for dir in std::env::var("PATH").unwrap_or_default().split(':') {
        let p = Path::new(dir).join("rg");
        if p.is_file() {
            return Ok(p.to_string_lossy().into_owned());
        }
    }
    Err(())
}
