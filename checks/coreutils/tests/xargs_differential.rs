//! Generative differential test of `xargs`: hand-written cases, then random command lines
//! from a small grammar of the options the module note claims (`-0 -d -a -E -e -I -i -L
//! -l -n -s -x -r -t -P --process-slot-var` and their long forms), over inputs with
//! quotes, backslashes, blank lines, trailing blanks, empty items, multibyte text, words
//! that look like options, and no final newline. Each case runs the real
//! `/usr/bin/xargs` (GNU findutils 4.9, `LC_ALL=C.UTF-8`) with `echo`, `printf` or `false`
//! from `/usr/bin` as the command, and the sandbox's [`xargs::plan`] with the sandbox's
//! own `echo`, `printf` and `false` run by [`xargs::run`]; stdout and exit status must be
//! identical.
//!
//! `REVIEWHOST_XARGS_SEED` picks the seed (printed), `REVIEWHOST_XARGS_CASES` the number of
//! generated cases, `REVIEWHOST_XARGS_SHOW` how many differences to print. Left out of the
//! grammar: `-p` and `-o` (refused: they read the terminal), `--show-limits` (refused: it
//! describes the host's environment), `-P` above 1 (the real output order changes from run
//! to run; the sandbox gives the order of `-P 1`), and `-s` with `-I` (GNU sizes a
//! replaced line by rules of its insertion buffer the sandbox does not model: it keeps
//! the default limit there).

use std::path::Path;
use std::process::{Command, Stdio};

use reviewhost_coreutils::xargs;
use reviewhost_tool::{Ctx, Io, NO_LIMIT};

#[path = "../../../fuzz/stable/rng.rs"]
mod rng;
use rng::Rng;

const WORDS: &[&str] = &[
    "a",
    "b",
    "foo",
    "x y",
    "é",
    "日本",
    "'q q'",
    "\"d q\"",
    "back\\ slash",
    "-n",
    "-e",
    "''",
    "\"\"",
    "END",
    "_",
    "a,b",
    "tab\there",
    "c\\td",
    "\\",
    "{}",
    "x{}y",
    "it's",
    "\"open",
    " ",
    "%s",
];

fn input(rng: &mut Rng, delimiter: Option<u8>) -> Vec<u8> {
    let lines = rng.below(6);
    let mut out = Vec::new();
    for i in 0..lines {
        let words = rng.below(4);
        let sep = match delimiter {
            Some(d) if rng.chance(50) => (d as char).to_string(),
            _ => rng.pick(&[" ", " ", "  ", "\t"]).to_string(),
        };
        let line: Vec<&str> = (0..words).map(|_| rng.pick(WORDS)).collect();
        out.extend_from_slice(line.join(&sep).as_bytes());
        if rng.chance(10) {
            out.push(b' ');
        }
        let end = match delimiter {
            Some(d) if rng.chance(70) => d,
            _ => b'\n',
        };
        if i + 1 < lines || rng.chance(70) {
            out.push(end);
        }
    }
    out
}

struct Case {
    args: Vec<String>,
    stdin: Vec<u8>,
    file: Vec<u8>,
}

fn command(rng: &mut Rng, replace: Option<&str>) -> Vec<String> {
    let r = replace.unwrap_or("{}");
    let words: Vec<String> = match rng.below(8) {
        0 => vec![],
        1 => vec!["echo".into()],
        2 => vec!["echo".into(), "pre".into()],
        3 => vec!["printf".into(), "[%s]\\n".into()],
        4 => vec!["printf".into(), "<%s>".into(), "--".into()],
        5 => vec!["false".into()],
        6 if replace.is_some() => vec!["echo".into(), format!("x{r}y"), r.into(), format!("{r}{r}")],
        _ => vec!["printf".into(), "%s|".into()],
    };
    if replace.is_some() && words.len() > 1 && rng.chance(70) {
        let mut w = words;
        w.push(r.to_string());
        return w;
    }
    words
}

fn case(rng: &mut Rng) -> Case {
    let mut args = Vec::new();
    let mut delimiter = None;
    match rng.below(10) {
        0 => {
            args.push(rng.pick(&["-0", "--null"]).to_string());
            delimiter = Some(0);
        }
        1 => {
            let (spec, byte) =
                [("\\n", b'\n'), (",", b','), ("x", b'x'), ("\\t", b'\t'), ("\\x2c", b','), ("\\054", b',')]
                    [rng.below(6)];
            if rng.chance(50) {
                args.push("-d".into());
                args.push(spec.into());
            } else {
                args.push(format!("--delimiter={spec}"));
            }
            delimiter = Some(byte);
        }
        _ => {}
    }
    let mut replace = None;
    for _ in 0..rng.below(4) {
        match rng.below(14) {
            0 => args.push(format!("-n{}", 1 + rng.below(4))),
            1 => args.extend(["-n".to_string(), format!("{}", 1 + rng.below(3))]),
            2 => args.push(format!("-L{}", 1 + rng.below(3))),
            3 => args.push(rng.pick(&["-l", "-l2", "--max-lines", "--max-lines=2"]).to_string()),
            4 => {
                let r = rng.pick(&["{}", "XX", "é"]);
                args.extend(["-I".to_string(), r.to_string()]);
                replace = Some(r);
            }
            5 => {
                args.push(rng.pick(&["-i", "--replace"]).to_string());
                replace = Some("{}");
            }
            6 => args.push(rng.pick(&["-EEND", "-E_", "-eEND", "--eof=_", "-e"]).to_string()),
            7 if replace.is_none() && !args.iter().any(|a| a.starts_with("-I") || a.starts_with("-i")) => {
                args.extend(["-s".to_string(), format!("{}", 8 + rng.below(40))])
            }
            8 => args.push("-x".into()),
            9 => args.push(rng.pick(&["-r", "--no-run-if-empty"]).to_string()),
            10 => args.push(rng.pick(&["-t", "--verbose"]).to_string()),
            11 => args.push(rng.pick(&["-P1", "-P", "--max-procs=1"]).to_string()),
            12 => args.push("--process-slot-var=SLOT".into()),
            _ => args.push(format!("--max-args={}", 1 + rng.below(3))),
        }
        if args.last().is_some_and(|a| a == "-P") {
            args.push("1".into());
        }
    }
    let file = input(rng, delimiter);
    if rng.chance(10) {
        args.push(rng.pick(&["-a", "--arg-file="]).to_string());
        if args.last().is_some_and(|a| a == "-a") {
            args.push("list".into());
        } else {
            args.last_mut().expect("an option").push_str("list");
        }
    }
    // A later -n/-L/-I may have cancelled -I: the command uses the last replacement.
    let replace = last_replace(&args);
    if replace.is_some() && args.iter().any(|a| a == "-s") {
        args.retain(|a| a != "-s");
    }
    args.extend(command(rng, replace.as_deref()));
    Case { args, stdin: input(rng, delimiter), file }
}

/// The replacement string in force after the options, as GNU's option loop leaves it.
fn last_replace(args: &[String]) -> Option<String> {
    let mut replace: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "-I" {
            replace = args.get(i + 1).cloned();
            i += 1;
        } else if a == "-i" || a == "--replace" {
            replace = Some("{}".into());
        } else if a.starts_with("-L")
            || a.starts_with("-l")
            || a.starts_with("--max-lines")
            || ((a.starts_with("-n") || a.starts_with("--max-args")) && a != "-n" && !a.ends_with('1'))
        {
            replace = None;
        } else if a == "-n" {
            if args.get(i + 1).is_some_and(|n| n != "1") {
                replace = None;
            }
            i += 1;
        } else if matches!(a, "-s" | "-d" | "-a" | "-P") {
            i += 1;
        }
        i += 1;
    }
    replace
}

/// Hand-written cases: (arguments, stdin).
const FIXED: &[(&[&str], &str)] = &[
    (&["-n", "1", "-P", "1"], "one\ntwo\nthree\n"),
    (&["-n", "1", "-P", "1", "--process-slot-var=V", "echo"], "one\ntwo\n"),
    (&["-E", "_", "echo"], "a _\n"),
    (&["-E", "_", "echo"], "a _"),
    (&["echo"], "\""),
    (&["echo"], "a \""),
    (&["-n1", "echo"], "a ''"),
    (&["-n1", "echo"], "a ''\n"),
    (&["-n1", "echo"], "a b\n\"c\nd\n"),
    (&["-L1", "echo"], "a b\n\"c\nd\n"),
    (&["-s", "12", "echo"], "a b c\n"),
    (&["-s", "5", "echo"], "a b c\n"),
    (&["-s", "10", "echo"], "aaaaaaa b\n"),
    (&["-x", "-s", "8", "-n", "2", "echo"], "a b c\n"),
    (&["-s", "11", "echo"], "a b c d e f\n"),
    (&["-d", "\\n", "-n", "1", "printf", "[%s]\\n"], "a\nb"),
    (&["-d", "ab", "echo"], ""),
    (&["-n", "0"], "x\n"),
    (&["-n", "x"], "x\n"),
    (&["-P", "x"], "x\n"),
    (&["--process-slot-var=a=b", "echo"], "x\n"),
    (&["-n", "1", "-L", "1", "echo"], "a b\n"),
    (&["-L", "1", "-n", "1", "echo"], "a b\n"),
    (&["-I{}", "-n", "1", "echo", "{}"], "a b\n"),
    (&["-n", "2", "-I{}", "echo", "{}", "x"], "a b\n"),
    (&["-I{}", "echo", "[{}]"], " a\n\n  b c  \n"),
    (&["-I{}"], "a\nb\n"),
    (&["-n1", "printf", "[%s]\\n"], "x\ry a\x0b\n"),
    (&["-E"], "a\n"),
    (&["-e", "echo"], "a\nb\n"),
    (&["-eEOF", "echo"], "a\nb\nEOF\nc\n"),
    (&["-0", "-EEOF", "echo"], "a\nb\nEOF\nc\n"),
    (&["-l", "echo"], "a b\nc d\n"),
    (&["-l2", "echo"], "a b\nc d\ne\n"),
    (&["-L", "1", "echo"], "a \nb\nc\n"),
    (&["-I", "{}", "echo", "{}{}", "x{}y"], "a{}b\n"),
    (&["-r", "echo", "ran"], ""),
    (&["echo", "ran"], ""),
    (&["-r", "echo", "ran"], " \n\t\n"),
    (&["-n", "2", "false"], "a b c\n"),
    (&["--max-args", "2", "echo"], "a b c\n"),
    (&["--max-a=2", "echo"], "a b c\n"),
    (&["--bogus", "echo"], "a\n"),
    (&["-k", "echo"], "a\n"),
    (&["-n"], "a\n"),
    (&["-0", "-n", "1", "printf", "[%s]\\n"], "a\0\0b c\0"),
    (&["-d", ",", "printf", "[%s]\\n"], "a,,b\n,"),
    (&["-d", "\\x", "echo"], "a\n"),
    (&["-d", "\\x41", "echo"], "xAy\n"),
    (&["-d", "\\101z", "echo"], "xAy\n"),
    (&["-d", "\\400", "echo"], "xAy\n"),
    (&["-d", "\\8", "echo"], "xAy\n"),
    (&["-d", "\\nx", "echo"], "a\nb\n"),
    (&["-d", "\\q", "echo"], "a\n"),
    (&["--", "echo", "-n"], "a\n"),
    (&["printf", "%s|"], "a\\ b 'c d' \"e 'f\" g\\\nh\n"),
];

fn real(case: &Case, dir: &Path) -> (Vec<u8>, i32) {
    let mut child = Command::new("/usr/bin/xargs")
        .args(&case.args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .env("PATH", "/usr/bin:/bin")
        .env_remove("POSIXLY_CORRECT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run /usr/bin/xargs");
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(&case.stdin);
    }
    let out = child.wait_with_output().expect("wait");
    (out.stdout, out.status.code().unwrap_or(-1))
}

fn ours(case: &Case, dir: &Path) -> (Vec<u8>, Vec<u8>, i32) {
    let ctx = Ctx::new(dir);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = match xargs::plan(&case.args, &ctx, &case.stdin) {
        Err(refusal) => {
            err.extend_from_slice(refusal.message.as_bytes());
            refusal.status
        }
        Ok(plan) => xargs::run(&plan, &mut err, |call, _| {
            let Some(program) = reviewhost_coreutils::lookup(&call[0]) else { return 127 };
            let mut io = Io {
                stdin: b"",
                stdout: &mut out,
                stderr: &mut Vec::new(),
                stdout_limit: NO_LIMIT,
                unnamed_file: None,
            };
            program(&call[1..], &ctx, &mut io)
        }),
    };
    (out, err, status)
}

fn gnu_xargs() -> bool {
    Command::new("/usr/bin/xargs")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("(GNU findutils) 4."))
}

#[test]
fn generated_command_lines_match_gnu_xargs() {
    if !gnu_xargs() {
        eprintln!("skipped: /usr/bin/xargs is not GNU xargs");
        return;
    }
    let seed = std::env::var("REVIEWHOST_XARGS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x00a9_9e55_u64);
    let cases = std::env::var("REVIEWHOST_XARGS_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(1000usize);
    eprintln!("xargs differential: seed {seed}, {} hand-written and {cases} generated cases", FIXED.len());
    let mut rng = Rng(seed.max(1));
    let dir = tempfile::tempdir().expect("tempdir");
    let fixed = FIXED.iter().map(|(args, stdin)| Case {
        args: args.iter().map(|a| a.to_string()).collect(),
        stdin: stdin.as_bytes().to_vec(),
        file: Vec::new(),
    });
    let generated = (0..cases).map(|_| case(&mut rng));
    let mut failures = Vec::new();
    for (n, case) in fixed.collect::<Vec<_>>().into_iter().chain(generated).enumerate() {
        std::fs::write(dir.path().join("list"), &case.file).expect("write list");
        let (real_out, real_status) = real(&case, dir.path());
        let (our_out, our_err, our_status) = ours(&case, dir.path());
        if (&real_out, real_status) != (&our_out, our_status) {
            failures.push(format!(
                "case {n}: xargs {:?}\n  stdin {:?} list {:?}\n  real: {:?} exit {real_status}\n  ours: {:?} exit {our_status} {}",
                case.args,
                String::from_utf8_lossy(&case.stdin),
                String::from_utf8_lossy(&case.file),
                String::from_utf8_lossy(&real_out),
                String::from_utf8_lossy(&our_out),
                String::from_utf8_lossy(&our_err),
            ));
        }
    }
    let total = FIXED.len() + cases;
    eprintln!("xargs differential: {} of {total} cases differ", failures.len());
    let show = std::env::var("REVIEWHOST_XARGS_SHOW").ok().and_then(|s| s.parse().ok()).unwrap_or(15);
    for f in failures.iter().take(show) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} of {total} cases differ from GNU xargs (seed {seed})", failures.len());
}
