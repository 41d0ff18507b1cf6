//! What must hold for any command string the shell check runs, over a fixed tree.
//!
//! The parser's invariant (`shell_parse.rs`) says nothing about running what it accepts.
//! Here every accepted script is interpreted, with the sandbox's own programs, over a
//! small tree with awkward names, and:
//!
//! - the interpreter neither panics nor loops (a step limit far below the real one keeps
//!   each run short; the caller watches the time);
//! - **a refusal anywhere makes the assertion an error, whatever the rest of the script
//!   does**: when the script records a refusal, so does each of `{ S; } || true`,
//!   `S; true`, `(S)`, `x=$(S)`, `S | cat` and `! S`, and judging any of them by any
//!   rule is an error;
//! - **an error anywhere makes every absence verdict fail closed**: when a program failed,
//!   no output, a count of 0 and an empty or zero value never pass.
//!
//! Shared by the stable test (`checks/shell/tests/fuzz.rs`) and the libFuzzer target
//! (`fuzz/fuzz_targets/shell_run.rs`), which both include this file with `#[path]`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use reviewhost_check_shell::exec::{self, Run, Trouble};
use reviewhost_check_shell::judge::{Rule, judge};
use reviewhost_check_shell::lookup;
use reviewhost_check_shell::parse::{Command, Compound, Piece, Script, parse};
use reviewhost_tool::{Ctx, NO_LIMIT};

/// Longest script run: the parser's target covers longer ones.
pub const MAX_INPUT: usize = 4 * 1024;

/// Loop iterations and calls one run may make: enough for every construct, few enough
/// that a runaway loop costs milliseconds.
const MAX_STEPS: u64 = 2_000;

/// The wrappers a refusal must survive: `S` is replaced by the script.
const WRAPPERS: &[&str] = &["{ S\n} || true", "S\ntrue", "(S\n)", "x=$(S\n); echo \"$x\"", "{ S\n} | cat", "! { S\n}"];

/// Wrapped scripts compared with their plain run, over all inputs: a check in which it
/// stays 0 compared nothing.
pub static WRAPPED: AtomicUsize = AtomicUsize::new(0);

/// The tree every script runs over, made once per process.
fn tree() -> &'static Path {
    static TREE: OnceLock<PathBuf> = OnceLock::new();
    TREE.get_or_init(|| {
        let dir = tempfile::Builder::new().prefix("reviewhost-fuzz-shell-").tempdir().expect("temporary directory");
        let root = dir.keep();
        let files: &[(&str, &[u8])] = &[
            ("a.txt", b"alpha\nbeta TOKEN\ngamma\n"),
            ("src/main.rs", b"fn main() {\n    println!(\"TOKEN\");\n}\n"),
            ("src/lib.rs", b"pub fn f() -> u8 { 0 }\n"),
            ("src/deep/x.ts", b"export const x: number = 1;\n"),
            ("bin.dat", b"\x00\x01TOKEN\x00"),
            ("utf16.txt", b"\xff\xfeT\x00O\x00K\x00"),
            ("crlf.txt", b"one\r\ntwo TOKEN\r\n"),
            ("sp ace/q'uote.md", b"# title\n"),
            ("empty", b""),
        ];
        for (name, data) in files {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, data).unwrap();
        }
        use std::os::unix::ffi::OsStrExt;
        std::fs::write(root.join(std::ffi::OsStr::from_bytes(b"src/bad\xffname.rs")), b"TOKEN\n").unwrap();
        let _ = std::os::unix::fs::symlink("/etc/passwd", root.join("out-link"));
        let _ = std::os::unix::fs::symlink("src", root.join("in-link"));
        root
    })
}

fn run(source: &str) -> Option<Run> {
    Some(execute(&parse(source).ok()?))
}

fn execute(script: &Script) -> Run {
    exec::run_limited(script, Ctx::new(tree()), lookup, None, NO_LIMIT, MAX_STEPS)
}

/// The script `WRAPPERS[i]` wraps, as parsed from the wrapped text: `None` when the
/// wrapper's text did not parse into that shape (a script ending inside an open
/// construct joins the wrapper's text, which then means something else).
fn wrapped(i: usize, script: &Script) -> Option<Script> {
    let first = script.0.first()?;
    let group_body = |command: &Command| match command {
        Command::Group { body, kind: Compound::Braces, .. } => Some(body.clone()),
        _ => None,
    };
    match i {
        0 | 4 | 5 => group_body(first.first.commands.first()?),
        1 => Some(Script(script.0[..script.0.len() - 1].to_vec())),
        2 => match first.first.commands.first()? {
            Command::Subshell { body, .. } => Some(body.clone()),
            _ => None,
        },
        3 => match first.first.commands.first()? {
            Command::Simple { assignments, .. } => match assignments.first()?.value.0.first()? {
                Piece::Substitution { script, .. } => Some(script.clone()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// `script` with its lists not marked as beginning lines (`AndOr::line`): the mark
/// says where a bad substitution stops abandoning, and a wrapper moves the lines of the
/// script it wraps into a compound command, where no list begins one.
fn without_lines(mut script: Script) -> Script {
    for list in &mut script.0 {
        list.line = false;
    }
    script
}

/// Whether running `source` over the tree records a refusal (`None`: it does not parse).
pub fn refuses(source: &str) -> Option<bool> {
    run(source).map(|run| refused(&run))
}

fn refused(run: &Run) -> bool {
    run.trouble.iter().any(|t| matches!(t, Trouble::Unavailable(_) | Trouble::Refused(_)))
}

fn failed(run: &Run) -> bool {
    run.trouble.iter().any(|t| matches!(t, Trouble::Failed { .. }))
}

/// Every rule an assertion can be judged by.
fn rules() -> Vec<Rule> {
    vec![
        Rule::OutputPresent,
        Rule::OutputAbsent,
        Rule::ExitZero { quiet: false },
        Rule::ExitZero { quiet: true },
        Rule::Count { at_least: false, n: 0 },
        Rule::Count { at_least: true, n: 0 },
        Rule::Equals { text: String::new() },
        Rule::Equals { text: "0".into() },
    ]
}

/// Panics when running `bytes` (read as UTF-8, lossily) breaks one of the rules above.
pub fn check(bytes: &[u8]) {
    if bytes.len() > MAX_INPUT {
        return;
    }
    let source = String::from_utf8_lossy(bytes);
    let Ok(script) = parse(&source) else { return };
    let plain = execute(&script);
    for rule in rules() {
        let verdict = judge(&rule, &plain, &[]);
        if refused(&plain) {
            assert!(verdict.is_err(), "a refused script judged {rule:?}: {verdict:?}\n{source}");
        }
        if failed(&plain) && matches!(verdict, Ok(ref v) if v.passed) {
            let absence = match &rule {
                Rule::OutputAbsent => true,
                Rule::Count { at_least: false, n: 0 } => true,
                Rule::Equals { text } => text.is_empty() || text == "0",
                _ => false,
            };
            assert!(!absence, "an absence passed although a command failed ({rule:?}): {:?}\n{source}", plain.trouble);
        }
    }
    if !refused(&plain) {
        return;
    }
    // A bad substitution abandons the rest of its line, and inside a wrapper the line is
    // the whole wrapper (bash runs a compound command as one unit): a refusal after it in
    // the script legitimately never runs there. `Piece::Fail` is what marks one.
    if format!("{script:?}").contains("Fail {") {
        return;
    }
    for (i, wrapper) in WRAPPERS.iter().enumerate() {
        let wrapped_text = wrapper.replace('S', &source);
        let Ok(whole) = parse(&wrapped_text) else { continue };
        if wrapped(i, &whole).map(without_lines) != Some(without_lines(script.clone())) {
            continue;
        }
        let run = execute(&whole);
        WRAPPED.fetch_add(1, Ordering::Relaxed);
        let wrapped = wrapped_text;
        assert!(
            refused(&run),
            "the refusal in {source:?} ({:?}) is lost in {wrapped:?}: status {}, trouble {:?}",
            plain.trouble,
            run.status,
            run.trouble
        );
    }
}
