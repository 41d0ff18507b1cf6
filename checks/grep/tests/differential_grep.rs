//! Differential test: `reviewhost_grep::grep` against the real GNU grep 3.8
//! (`/usr/bin/grep`, `LC_ALL=C.UTF-8`) on a fixture tree, comparing stdout bytes and
//! exit status exactly, and stderr only as empty versus non-empty.
//!
//! The cases are generated from data tables (patterns × flag sets × targets, plus a
//! list of special cases), not written one by one. Recursive cases compare output in
//! directory read order: both sides read the same directories with `readdir`, so the
//! order is the same on one machine.

mod common;

use reviewhost_tool::{Ctx, Io, NO_LIMIT};
use std::path::Path;
use std::process::{Command, Stdio};

const REAL_GREP: &str = "/usr/bin/grep";

/// The fixture tree: nested dirs, hidden file, binary, CRLF, UTF-8, invalid UTF-8, empty,
/// no trailing newline, long lines.
fn fixture(root: &Path) {
    let long_line = format!("{}foo{}\n", "x".repeat(5000), "y".repeat(7000));
    let files: Vec<(&str, Vec<u8>)> = vec![
        (
            "src/main.rs",
            b"fn main() {\n    println!(\"Hello, Foo\");\n    let foo = bar(1);\n}\n// TODO: fix foo|bar (x) {y} a+b? c*d\n\nfn bar(x: u32) -> u32 { x }\n"
                .to_vec(),
        ),
        ("src/lib/util.rs", b"pub fn foo_bar() {}\npub fn Foo() {}\n// aaa ab abab\n".to_vec()),
        ("src/_archive/old.rs", b"fn foo() {} // archived\n".to_vec()),
        ("docs/readme.md", "Café crème foo\nnaïve ÉCOLE\n日本語テキスト foo\nFOO upper\n".as_bytes().to_vec()),
        ("docs/notes.txt", b"first\nsecond foo\nthird\nfourth\nfifth foo\nsixth\nseventh\neighth\nninth foo\ntenth\n".to_vec()),
        (".hidden", b"foo hidden\n".to_vec()),
        ("bin.dat", b"foo\0bar\nfoo again\nzzz\n".to_vec()),
        ("crlf.txt", b"foo\r\nbar\r\nfoo bar\r\n".to_vec()),
        ("invalid.txt", b"caf\xe9 foo\nplain foo\nbar\n".to_vec()),
        ("empty.txt", Vec::new()),
        ("nonl.txt", b"first foo\nlast foo line without newline".to_vec()),
        ("long.txt", long_line.into_bytes()),
        ("words.txt", b"foo\nfoobar\nbar foo baz\nfoo_bar\nfoo-bar\naaa\nabab\nab\n\n(x) {y}\na+b?\nback\\slash\n".to_vec()),
        ("patterns.txt", b"foo\nbaz\n".to_vec()),
        ("loop/a.txt", b"foo loop\n".to_vec()),
        ("loop/sub/b.txt", b"foo sub\n".to_vec()),
    ];
    common::write_files(root, &files);
    // Symlinks met while recursing: `-r` skips them, `-R` follows them.
    std::os::unix::fs::symlink("docs", root.join("link_dir")).expect("symlink");
    std::os::unix::fs::symlink("words.txt", root.join("link.txt")).expect("symlink");
    // Symlink loops, which `-R` warns about once each instead of following (G8).
    std::os::unix::fs::symlink(".", root.join("loop/self")).expect("symlink");
    std::os::unix::fs::symlink("..", root.join("loop/sub/up")).expect("symlink");
}

struct Case {
    args: Vec<String>,
    stdin: Vec<u8>,
}

fn case(args: &[&str]) -> Case {
    Case { args: args.iter().map(|s| s.to_string()).collect(), stdin: Vec::new() }
}

fn cases() -> Vec<Case> {
    // Patterns with their syntax flags.
    let patterns: &[&[&str]] = &[
        &["foo"],
        &["Foo"],
        &["fo\\+"],
        &["foo\\|bar"],
        &["o\\{2\\}"],
        &["a\\{1,2\\}b"],
        &["(x) {y}"],
        &["a+b?"],
        &["c*d"],
        &["^foo"],
        &["foo$"],
        &["\\<foo"],
        &["foo\\>"],
        &["[[:upper:]]"],
        &["[^a-z ]"],
        &["caf."],
        &["-E", "foo|bar"],
        &["-E", "(fo)+o?"],
        &["-E", "a{2,}"],
        &["-E", "ab|abab"],
        &["-F", "a+b?"],
        &["-F", "(x)"],
        &["-F", "."],
        &["-e", "foo", "-e", "bar"],
        &["-E", "^$"],
    ];
    let flag_sets: &[&[&str]] = &[
        &[],
        &["-i"],
        &["-w"],
        &["-x"],
        &["-v"],
        &["-c"],
        &["-l"],
        &["-L"],
        &["-n"],
        &["-o"],
        &["-h"],
        &["-H"],
        &["-m", "1"],
        &["-nA1"],
        &["-B1"],
        &["-C1", "-n"],
        &["-on"],
        &["-cv"],
        &["-iwo"],
    ];
    let targets: &[&[&str]] = &[&["words.txt"], &["src/main.rs", "docs/readme.md", "crlf.txt", "nonl.txt"]];
    let mut out = Vec::new();
    for p in patterns {
        for f in flag_sets {
            for t in targets {
                let mut args: Vec<&str> = Vec::new();
                args.extend_from_slice(f);
                args.extend_from_slice(p);
                args.extend_from_slice(t);
                out.push(case(&args));
            }
        }
    }
    // Recursive searches.
    for p in patterns.iter().take(8) {
        for f in [&["-r"][..], &["-rn"], &["-rl"], &["-rc"], &["-ri", "--include=*.rs"]] {
            let mut args: Vec<&str> = f.to_vec();
            args.extend_from_slice(p);
            out.push(case(&args));
            let mut args: Vec<&str> = f.to_vec();
            args.extend_from_slice(p);
            args.push("src");
            out.push(case(&args));
        }
    }
    let special: &[&[&str]] = &[
        &["-r", "foo", "."],
        &["-r", "foo", "src/"],
        &["-r", "foo", "src/main.rs"],
        &["-R", "foo", "docs"],
        &["-R", "-l", "foo"],
        &["-r", "-l", "foo"],
        &["-r", "foo", "link_dir"],
        &["-c", "foo", "link.txt"],
        &["-r", "--exclude-dir=_archive", "foo", "src"],
        &["-r", "--exclude-dir=src", "foo", "src"],
        &["-r", "--exclude=*.rs", "foo"],
        &["-r", "--include=*.md", "--include=*.txt", "foo", "docs", "src"],
        &["--include=*.rs", "foo", "docs/notes.txt"],
        &["foo", "missing.txt"],
        &["foo", "missing.txt", "words.txt"],
        &["-s", "foo", "missing.txt", "words.txt"],
        &["-q", "foo", "missing.txt", "words.txt"],
        &["-q", "foo", "words.txt", "missing.txt"],
        &["-q", "zzzz", "words.txt"],
        &["foo", "src"],
        &["-s", "foo", "src"],
        &["-d", "skip", "foo", "src"],
        &["a\\{1", "words.txt"],
        &["-E", "(", "words.txt"],
        &["\\(", "words.txt"],
        &["\\)", "words.txt"],
        &["-E", ")", "words.txt"],
        &["[a", "words.txt"],
        &["[[:foo:]]", "words.txt"],
        &["[:alpha:]", "words.txt"],
        &["x\\", "words.txt"],
        &["-E", "a{1", "words.txt"],
        &["-E", "*foo", "words.txt"],
        &["*foo", "words.txt"],
        &["-E", "a{2,1}", "words.txt"],
        &["foo", "bin.dat"],
        &["-c", "foo", "bin.dat"],
        &["-v", "-c", "foo", "bin.dat"],
        &["-l", "foo", "bin.dat"],
        &["-a", "foo", "bin.dat"],
        &["-I", "foo", "bin.dat", "words.txt"],
        &["-L", "-I", "foo", "bin.dat"],
        &["--binary-files=text", "-n", "foo", "bin.dat"],
        &["foo", "invalid.txt"],
        &["bar", "invalid.txt"],
        &["-o", "foo", "invalid.txt"],
        &["-c", "foo", "invalid.txt"],
        &["-n", "foo", "long.txt"],
        &["-o", "x*foo", "long.txt"],
        &["foo", "empty.txt"],
        &["-L", "foo", "empty.txt", "words.txt"],
        &["-c", "foo", "empty.txt"],
        &["-v", "foo", "empty.txt"],
        &["-n", "foo", "nonl.txt"],
        &["-v", "xyz", "nonl.txt"],
        &["foo$", "crlf.txt"],
        &["-x", "foo", "crlf.txt"],
        &["-c", "bar.$", "crlf.txt"],
        &["-n", "-C2", "foo", "docs/notes.txt"],
        &["-n", "-A1", "foo", "docs/notes.txt", "words.txt"],
        &["-m1", "-A3", "-n", "foo", "docs/notes.txt"],
        &["-m2", "-c", "foo", "docs/notes.txt"],
        &["-m0", "foo", "docs/notes.txt"],
        &["-2", "-n", "foo", "docs/notes.txt"],
        // GNU saturates a context too large for its integers; a huge one found by fuzzing
        // took the sandbox's grep minutes to count down.
        &["-99999999999999999999", "-n", "foo", "docs/notes.txt"],
        &["-B", "9223372036854775807", "foo", "docs/notes.txt"],
        &["-555555555555555555555555555555", "foo", "docs/notes.txt"],
        &["-A0", "foo", "docs/notes.txt"],
        &["-o", "-A1", "foo", "docs/notes.txt"],
        &["-vn", "-B1", "o", "docs/notes.txt"],
        &["-f", "patterns.txt", "words.txt"],
        &["-f", "empty.txt", "words.txt"],
        &["-v", "-f", "empty.txt", "words.txt"],
        &["foo", "words.txt", "-n", "--", "-v"],
        &["--count", "--ignore-case", "foo", "docs/readme.md"],
        &["--files-with-matches", "--recursive", "foo", "docs"],
        &["--line-number", "--word-regexp", "--regexp=foo", "words.txt"],
        &["--max-count=1", "--with-filename", "foo", "words.txt"],
        &["--context=1", "--invert-match", "o", "docs/notes.txt"],
        &["--color=never", "foo", "words.txt"],
        &["--colour", "foo", "words.txt"],
        &["-Z", "-l", "foo", "words.txt", "nonl.txt"],
        &["-b", "foo", "docs/notes.txt"],
        &["-ob", "foo", "docs/notes.txt"],
        &["--foo", "x", "words.txt"],
        &["-k", "x", "words.txt"],
        &[],
        &["-A", "x", "foo", "words.txt"],
        &["-m", "x", "foo", "words.txt"],
        &["--binary-files=bogus", "foo", "words.txt"],
        &["-y", "FOO", "docs/readme.md"],
        &["-i", "CAFÉ", "docs/readme.md"],
        &["-o", "[[:alpha:]]*", "docs/readme.md"],
        &["-o", "\\w\\+", "docs/readme.md"],
        &["-ow", "caf", "docs/readme.md"],
        &["-o", "本.", "docs/readme.md"],
        &["-E", "-o", "a|ab", "words.txt"],
        &["-o", "\\Bb", "words.txt"],
        &["[\\]", "words.txt"],
        &["-c", "\\s", "words.txt", "docs/readme.md"],
        &["-c", "\\W", "words.txt"],
        &["-w", "", "words.txt"],
        &["-x", "", "words.txt"],
        &["-c", "", "words.txt"],
        &["-E", "a**", "words.txt"],
        &["-E", "a{1,2}{2}", "words.txt"],
        &["-e", "foo", "-f", "patterns.txt", "-c", "words.txt"],
        // Long options by unambiguous abbreviation, and glibc's ambiguity error (G2).
        &["-C1", "--group=XYZ", "foo", "docs/notes.txt"],
        &["-C1", "-n", "--group-separator=", "foo", "docs/notes.txt"],
        &["-C1", "--group-separator", "XX", "--no-group-separator", "foo", "docs/notes.txt"],
        &["-C1", "--no-group-separator", "--group-separator=XX", "foo", "docs/notes.txt"],
        &["--co", "foo", "words.txt"],
        &["--fi=patterns.txt", "words.txt"],
        &["--files-with", "foo", "words.txt", "nonl.txt"],
        &["--reg=foo", "-c", "words.txt"],
        &["--fixed-r", "a+b?", "words.txt"],
        &["--binary", "foo", "words.txt"],
        &["-u", "foo", "words.txt"],
        &["--foo=bar", "foo", "words.txt"],
        // `-v -o` with context prints the matches of the context lines (G3).
        &["-v", "-o", "-C1", "foo", "docs/notes.txt"],
        &["-nvo", "-B1", "foo", "docs/notes.txt"],
        &["-m2", "-nbvo", "-C1", "foo", "docs/notes.txt"],
        &["-vo", "-A1", "o", "words.txt"],
        // `-T` (G5).
        &["-T", "foo", "words.txt", "nonl.txt"],
        &["-T", "foo", "words.txt"],
        &["-Tn", "foo", "docs/notes.txt"],
        &["-Tnb", "-H", "foo", "docs/notes.txt"],
        &["-Tno", "fo*", "words.txt"],
        &["-T", "-ZH", "foo", "words.txt"],
        &["-Tn", "-C1", "^$", "words.txt"],
        &["-T", "-c", "foo", "words.txt", "nonl.txt"],
        &["-Tr", "foo", "docs"],
        &["-Tn", "foo", "long.txt"],
        // /dev/null, the one special file read (C1).
        &["-f", "/dev/null", "words.txt"],
        &["foo", "/dev/null", "words.txt"],
        &["-c", "foo", "/dev/null"],
        &["-L", "foo", "/dev/null"],
        // `-R` through symlink loops (G8).
        &["-R", "foo", "loop"],
        &["-Rn", "foo", "loop/sub"],
        &["-R", "-c", "foo", "loop/self"],
        &["-r", "foo", "loop"],
    ];
    for s in special {
        out.push(case(s));
    }
    // Standard input.
    for args in [&["foo"][..], &["-c", "foo"], &["-H", "foo"], &["-n", "foo", "-"], &["-l", "foo"], &["-TH", "foo"]] {
        let mut c = case(args);
        c.stdin = b"foo\nbar\nfoo bar\n".to_vec();
        out.push(c);
    }
    out
}

struct Outcome {
    status: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

fn real(dir: &Path, c: &Case) -> Outcome {
    use std::io::Write;
    let mut child = Command::new(REAL_GREP)
        .args(&c.args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run /usr/bin/grep");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(&c.stdin);
    }
    let out = child.wait_with_output().expect("wait for grep");
    Outcome { status: out.status.code().unwrap_or(-1), stdout: out.stdout, stderr: out.stderr }
}

fn ours(dir: &Path, c: &Case) -> Outcome {
    let ctx = Ctx::new(dir);
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut io =
        Io { stdin: &c.stdin, stdout: &mut stdout, stderr: &mut stderr, stdout_limit: NO_LIMIT, unnamed_file: None };
    let status = reviewhost_grep::grep(&c.args, &ctx, &mut io);
    Outcome { status, stdout, stderr }
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
fn grep_matches_gnu_grep() {
    assert!(Path::new(REAL_GREP).exists(), "{REAL_GREP} is needed for the differential test");
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path());
    common::settle();
    let cases = cases();
    let mut failures = Vec::new();
    // Guards against a vacuous pass (e.g. the real tool failing on every case).
    let mut real_outputs = 0;
    // Cases where the first pass let the search skip a file, and files skipped.
    let (mut prefiltered, mut skipped) = (0, 0);
    for c in &cases {
        let want = real(dir.path(), c);
        let got = ours(dir.path(), c);
        match common::both_ways(reviewhost_grep::grep, "grep", dir.path(), &c.args, &c.stdin) {
            Ok(0) => {}
            Ok(n) => {
                prefiltered += 1;
                skipped += n;
            }
            Err(difference) => failures.push(difference),
        }
        if !want.stdout.is_empty() {
            real_outputs += 1;
        }
        if want.status != got.status || want.stdout != got.stdout || want.stderr.is_empty() != got.stderr.is_empty() {
            failures.push(format!(
                "grep {:?}\n  expected status {} stdout {:?} stderr {:?}\n  got      status {} stdout {:?} stderr {:?}",
                c.args,
                want.status,
                show(&want.stdout),
                show(&want.stderr),
                got.status,
                show(&got.stdout),
                show(&got.stderr),
            ));
        }
    }
    println!(
        "grep differential: {} cases, {} pass, {} fail; {prefiltered} ran with the first pass skipping {skipped} files",
        cases.len(),
        cases.len() - failures.len(),
        failures.len()
    );
    assert!(prefiltered * 10 > cases.len(), "the first pass skipped files in only {prefiltered} cases");
    assert!(real_outputs * 2 > cases.len(), "the real tool printed something in only {real_outputs} cases");
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// FIFOs are never opened (opening one blocks forever in the sandbox): as an operand
/// it is an error, while recursing it is skipped. Not compared with GNU grep, which
/// would block.
#[test]
fn special_files_are_never_opened() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("d")).expect("mkdir");
    std::fs::write(dir.path().join("d/a.txt"), b"foo\n").expect("write");
    let status = Command::new("mkfifo").arg(dir.path().join("d/pipe")).status().expect("run mkfifo");
    assert!(status.success());
    let run = |args: &[&str]| {
        let c = case(args);
        let got = ours(dir.path(), &c);
        (
            got.status,
            String::from_utf8_lossy(&got.stdout).into_owned(),
            String::from_utf8_lossy(&got.stderr).into_owned(),
        )
    };
    assert_eq!(run(&["-r", "foo", "d"]), (0, "d/a.txt:foo\n".to_string(), String::new()));
    let (status, out, err) = run(&["foo", "d/pipe", "d/a.txt"]);
    assert_eq!((status, out.as_str()), (2, "d/a.txt:foo\n"));
    assert!(err.starts_with("grep: d/pipe: "), "{err}");
    let mut io_out = Vec::new();
    let mut io_err = Vec::new();
    let mut io =
        Io { stdin: b"", stdout: &mut io_out, stderr: &mut io_err, stdout_limit: NO_LIMIT, unnamed_file: None };
    assert_eq!(reviewhost_grep::rg(&["foo".to_string()], &Ctx::new(dir.path()), &mut io), 0);
    assert_eq!(io_out, b"d/a.txt:foo\n");
}

/// Odd patterns and option mixes end with a status, never a panic.
#[test]
fn odd_patterns_never_panic() {
    let patterns = [
        "",
        "\\",
        "[",
        "[]",
        "[^]",
        "[[:",
        "[[.",
        "[[=a=]]",
        "[[.a.]-z]",
        "a\\{",
        "\\{1\\}",
        "a\\{99999\\}",
        "((((",
        "\\(\\)",
        "x**+?",
        "^*",
        "$$",
        "\\<\\>*",
        "[z-a]",
        "[\\w]",
        "a{,}",
        "{",
        "}",
        "a|*b",
        "(|)",
        "(*)",
        "\\`*",
        "a{1}{2}{3}",
        "é*",
        "日本|",
        "[[:alpha:][:digit:]]+",
        "\\W*\\s*",
        "a{32767}",
        "a{1000}{1000}",
    ];
    let flags: [&[&str]; 7] = [&[], &["-E"], &["-F"], &["-o"], &["-Eow"], &["-ix"], &["-cv"]];
    let stdin = "foo bar\nécole 日本語\n\n(x) {y}\n".as_bytes();
    for p in patterns {
        for f in flags {
            let mut args: Vec<String> = f.iter().map(|s| s.to_string()).collect();
            args.push("-e".into());
            args.push(p.to_string());
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let mut io = Io { stdin, stdout: &mut out, stderr: &mut err, stdout_limit: NO_LIMIT, unnamed_file: None };
            let status = reviewhost_grep::grep(&args, &Ctx::new("/nonexistent"), &mut io);
            assert!((0..=2).contains(&status), "{args:?}");
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let mut io = Io { stdin, stdout: &mut out, stderr: &mut err, stdout_limit: NO_LIMIT, unnamed_file: None };
            let status = reviewhost_grep::rg(&args, &Ctx::new("/nonexistent"), &mut io);
            assert!((0..=2).contains(&status), "rg {args:?}");
        }
    }
    for name in ["grep", "egrep", "fgrep", "rg"] {
        assert!(reviewhost_grep::lookup(name).is_some());
    }
    assert!(reviewhost_grep::lookup("sed").is_none());
}

/// With a reader that needs only the start of stdout (`Io::stdout_limit`), grep's output
/// is a prefix of its whole output, and it drops nothing before it has kept
/// `KEPT_LINES` lines that are not all blank; status and stderr never change.
#[test]
fn a_limited_reader_gets_a_prefix_and_the_same_status() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root);
    let mut many = String::new();
    for i in 0..3000 {
        // Whitespace-only lines first, so that the kept output starts blank.
        many.push_str(if i < 500 { "   \n" } else { "word and more words\n" });
    }
    std::fs::write(root.join("many.txt"), &many).expect("write");
    std::fs::write(root.join("binary.dat"), b"word\0\n").expect("write");
    let cases: &[&[&str]] = &[
        &["-rn", "o", "."],
        &["-n", "^ *$\\|word", "many.txt"],
        &["-c", "word", "many.txt"],
        &["-o", "wor", "many.txt"],
        &["-r", "word", "many.txt", "binary.dat", "missing"],
        &["-C2", "-n", "word", "many.txt"],
        &["-rn", "nothing-matches-this", "."],
    ];
    let run = |args: &[&str], stdout_limit: usize| {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let mut io = Io { stdin: b"", stdout: &mut stdout, stderr: &mut stderr, stdout_limit, unnamed_file: None };
        let status = reviewhost_grep::grep(&args, &Ctx::new(root), &mut io);
        (status, stdout, stderr)
    };
    let mut dropped_some = false;
    for args in cases {
        let (status, whole, stderr) = run(args, NO_LIMIT);
        for limit in [0, 1, 100, 5000] {
            let (s, kept, e) = run(args, limit);
            assert_eq!((s, &e), (status, &stderr), "{args:?} limit {limit}");
            assert!(whole.starts_with(&kept), "{args:?} limit {limit}: not a prefix");
            if kept.len() < whole.len() {
                dropped_some = true;
                assert!(kept.len() >= limit, "{args:?} limit {limit}: dropped before the limit");
                assert!(kept.iter().filter(|&&b| b == b'\n').count() >= reviewhost_tool::KEPT_LINES, "{args:?}");
                assert!(!String::from_utf8_lossy(&kept).trim().is_empty(), "{args:?}: kept only blank lines");
            }
        }
    }
    assert!(dropped_some, "no case exercised the limit");
}
