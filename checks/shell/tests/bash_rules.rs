//! Rules of bash 5.2's manual the interpreter follows, each checked against what bash
//! 5.2.15 printed for the same script (the expected texts are bash's output, verbatim):
//! backquote substitution, brace expansion, parameter expansion, bash's own errors,
//! here-document bodies, redirections of other descriptors, printf's number arguments.

use reviewhost_check_shell::{exec, lookup, parse};
use reviewhost_tool::{Ctx, NO_LIMIT};

/// What the script prints on stdout, its status, and whether the sandbox refused
/// something (`None` when the parser refused the whole script).
fn run(script: &str) -> Option<(String, i32, Vec<exec::Trouble>, String)> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "one\n").unwrap();
    let parsed = parse::parse(script).ok()?;
    let run = exec::run(&parsed, Ctx::new(dir.path()), lookup, NO_LIMIT);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    Some((text(&run.stdout), run.status, run.trouble, text(&run.stderr)))
}

/// Stdout and status of a script that must run without refusal.
fn answer(script: &str) -> (String, i32) {
    let (stdout, status, trouble, stderr) = run(script).unwrap_or_else(|| panic!("refused: {script}"));
    let refused = trouble.iter().any(|t| matches!(t, exec::Trouble::Refused(_) | exec::Trouble::Unavailable(_)));
    assert!(!refused, "{script}: {trouble:?} {stderr}");
    (stdout, status)
}

fn out(script: &str) -> String {
    answer(script).0
}

#[test]
fn duplicating_onto_a_descriptor_nothing_reads_is_harmless() {
    assert_eq!(out("echo hi 9>&1\necho hi 99>&1\necho hi 100>&1"), "hi\nhi\nhi\n");
    // The swap idiom: stderr to stdout and stdout to stderr.
    assert_eq!(out("ls nothing-here 3>&1 1>&2 2>&3 | wc -l"), "1\n");
    assert_eq!(out("echo a 3>/dev/null 2>&3"), "a\n");
    // A closed descriptor: bash's "Bad file descriptor", refused here.
    let (_, _, trouble, _) = run("echo a 3>&1 3>&- 1>&3").unwrap();
    assert!(trouble.iter().any(|t| matches!(t, exec::Trouble::Refused(_))));
    // Input from another descriptor is not stdin.
    assert!(parse::parse("cat 3<f.txt").is_err());
}

#[test]
fn printf_numbers_with_trailing_text_warn() {
    let (stdout, status) = answer("printf '%d\\n' ' -123 '");
    assert_eq!((stdout.as_str(), status), ("-123\n", 1));
    assert_eq!(answer("printf '%d\\n' ' -123'"), ("-123\n".into(), 0));
    assert_eq!(out("printf '[%.0f][%#.0f]\\n' 3 3"), "[3][3.]\n");
}

#[test]
fn here_document_bodies_escape_with_backslashes() {
    assert_eq!(out("cat <<EOF\n\\\\ \\\" \\$ \\`\nEOF"), "\\ \\\" $ `\n");
    assert_eq!(out("cat <<EOF\n\\$( a \\` \\${\nEOF"), "$( a ` ${\n");
    assert_eq!(out("x=1; cat <<EOF\n\\`$x\\` \\\\$x (\nEOF"), "`1` \\1 (\n");
}
