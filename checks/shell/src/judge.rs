//! From a finished [`Run`] to a verdict, by the rule the host chose for the assertion.
//!
//! The rule comes from the host (the input's `rule`), which owns the meaning
//! of `type` + `expected`; this module only applies it. Two rules hold whatever the
//! assertion's: a refusal anywhere (a program the sandbox does not have, a refused
//! write, an option, subcommand or construct the sandbox does not support), whatever
//! the script did after it, makes the assertion an error: such a command could not run
//! as its author meant, so neither pass nor fail would be true; and an error anywhere
//! (a program that failed) makes every verdict that passes on absence (no output, a
//! count of 0, an empty or zero value) an error instead of a pass.

use reviewhost_guest::Verdict;
pub use reviewhost_protocol::Rule;

use crate::exec::{Run, Trouble};

/// Most characters of output quoted in a message; the host keeps 500 of them in the file.
const MAX_QUOTED: usize = 2000;

/// Bytes of the script's stdout that the rules reading only its start need. A program
/// printing straight to the verdict may drop what comes after them, once what it kept is
/// not blank and holds [`reviewhost_tool::KEPT_LINES`] lines ([`reviewhost_tool::Io`]):
/// the verdict, its quote and its evidence are the same either way.
const READ_BYTES: usize = 1 << 20;
const _: () = assert!(QUOTE_WINDOW <= READ_BYTES && MAX_EVIDENCE <= reviewhost_tool::KEPT_LINES);

/// How much of the script's stdout judging by `rule` reads: the start, or, for a count
/// or a value, all of it.
pub fn stdout_limit(rule: &Rule) -> usize {
    match rule {
        Rule::OutputPresent | Rule::OutputAbsent | Rule::ExitZero { .. } => READ_BYTES,
        Rule::Count { .. } | Rule::Equals { .. } => reviewhost_tool::NO_LIMIT,
    }
}

/// Judges `run` by `rule`. `Err` means "could not evaluate": the host reports `error`.
pub fn judge(rule: &Rule, run: &Run, notes: &[String]) -> Result<Verdict, String> {
    if let Some(t) = run.trouble.iter().find(|t| matches!(t, Trouble::Unavailable(_) | Trouble::Refused(_))) {
        return Err(t.to_string());
    }
    let failed = run.trouble.iter().find(|t| matches!(t, Trouble::Failed { .. }));
    // Only `count` and `equals` compare the whole output; the other rules need to know
    // whether it is blank and to quote its start. A grep of a large tree can print tens of
    // megabytes: decoding all of it for a 2,000-character quote cost more than the search.
    let whole = || String::from_utf8_lossy(&run.stdout).trim().to_string();
    let verdict = match rule {
        Rule::OutputPresent if !is_blank(&run.stdout) => Verdict::pass(quote(&[&run.stdout])),
        Rule::OutputPresent => match failed {
            Some(t) => return Err(format!("the command failed, so the match could not be checked: {t}")),
            None => Verdict::fail("No output — pattern not found"),
        },
        Rule::OutputAbsent if !is_blank(&run.stdout) => Verdict::fail(quote(&[&run.stdout])),
        Rule::OutputAbsent => match failed {
            Some(t) => {
                return Err(format!("no output, but only because the command failed: {t}"));
            }
            None => Verdict::pass("No output"),
        },
        Rule::ExitZero { quiet } => {
            let silent = is_blank(&run.stdout) && is_blank(&run.stderr);
            if run.status != 0 {
                Verdict::fail(if silent {
                    format!("exit status {}", run.status)
                } else {
                    quote(&[&run.stdout, &run.stderr])
                })
            } else if *quiet && !silent {
                Verdict::fail(quote(&[&run.stdout, &run.stderr]))
            } else {
                Verdict::pass(format!("exit status 0{}", if silent { "" } else { " with output" }))
            }
        }
        Rule::Count { at_least, n } => {
            let stdout = whole();
            if let Some(t) = failed.filter(|_| stdout.is_empty()) {
                return Err(format!("the command failed, so there is no count: {t}"));
            }
            let (op, holds) = match stdout.parse::<u64>() {
                Ok(count) if *at_least => (">=", count >= *n),
                Ok(count) => ("==", count == *n),
                Err(_) => return Ok(Verdict::fail(format!("expected a count, got {:?}", quote(&[&run.stdout])))),
            };
            let message = format!("count {stdout} (expected {op} {n})");
            // An absence (`count:0`) holds only if every command ran: a failed `find`
            // counts nothing.
            if let Some(t) = failed.filter(|_| holds && !*at_least && *n == 0) {
                return Err(format!("a count of 0, but a command failed: {t}"));
            }
            if holds { Verdict::pass(message) } else { Verdict::fail(message) }
        }
        Rule::Equals { text } => {
            let stdout = whole();
            if let Some(t) = failed.filter(|_| stdout.is_empty()) {
                return Err(format!("the command failed, so there is no value: {t}"));
            }
            if let Some(t) = failed.filter(|_| stdout == text.trim() && matches!(text.trim(), "" | "0")) {
                return Err(format!("the expected empty or zero value, but a command failed: {t}"));
            }
            if stdout == text.trim() {
                Verdict::pass(quote(&[&run.stdout]))
            } else {
                Verdict::fail(format!("expected {:?}, got {:?}", text.trim(), quote(&[&run.stdout])))
            }
        }
    };
    Ok(with_notes(with_evidence(verdict, &run.stdout, run.unnamed_file.as_deref()), notes))
}

/// Whether `bytes`, decoded as (lossy) UTF-8, is only whitespace: what `trim` would
/// leave empty, without decoding past the first byte that is not ASCII whitespace.
fn is_blank(bytes: &[u8]) -> bool {
    match bytes.iter().position(|b| !is_ascii_space(*b)) {
        None => true,
        Some(at) if bytes[at].is_ascii() => false,
        // Unicode whitespace (U+00A0, U+2028, ...) is rare: decode the rest.
        Some(at) => String::from_utf8_lossy(&bytes[at..]).trim().is_empty(),
    }
}

/// The ASCII bytes `char::is_whitespace` accepts.
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ')
}

/// Bytes decoded for a quote: enough for [`MAX_QUOTED`] characters of UTF-8.
const QUOTE_WINDOW: usize = MAX_QUOTED * 4;

/// The output `parts`, joined, trimmed and cut to [`MAX_QUOTED`] characters: only the
/// bytes a quote can show are copied and decoded.
fn quote(parts: &[&[u8]]) -> String {
    let mut window = Vec::new();
    for part in parts {
        let part = if window.is_empty() {
            let start = part.iter().position(|b| !is_ascii_space(*b)).unwrap_or(part.len());
            &part[start..]
        } else {
            part
        };
        let room = QUOTE_WINDOW.saturating_sub(window.len());
        window.extend_from_slice(&part[..part.len().min(room)]);
    }
    String::from_utf8_lossy(&window).trim().chars().take(MAX_QUOTED).collect()
}

/// Most evidence entries taken from grep-style output.
const MAX_EVIDENCE: usize = 50;

/// `path:line:text` lines of the output (grep -n, rg -n) become evidence. When the
/// output is one file's lines without its name (`grep -n X a.txt`), `unnamed_file` names
/// it: `line:text` lines, or every line without `-n`, are evidence in that file.
fn with_evidence(mut verdict: Verdict, stdout: &[u8], unnamed_file: Option<&str>) -> Verdict {
    // The first lines only, each decoded on its own (`str::lines` on the whole output
    // would decode all of it first).
    let first = stdout.split(|&b| b == b'\n').take(MAX_EVIDENCE);
    for line in first.map(|line| String::from_utf8_lossy(line.strip_suffix(b"\r").unwrap_or(line))) {
        if let Some(file) = unnamed_file {
            let file = file.trim_start_matches('/');
            let numbered = line.split_once(':').and_then(|(n, rest)| Some((n.parse::<u32>().ok()?, rest)));
            match numbered {
                Some((number, rest)) => verdict = verdict.with_evidence(file, Some(number), excerpt(rest)),
                None if !line.trim().is_empty() => verdict = verdict.with_evidence(file, None, excerpt(&line)),
                None => {}
            }
            continue;
        }
        let mut parts = line.splitn(3, ':');
        if let (Some(path), Some(number), Some(rest)) = (parts.next(), parts.next(), parts.next())
            && let Ok(number) = number.parse::<u32>()
            && !path.is_empty()
        {
            let path = path.trim_start_matches("./").trim_start_matches('/');
            verdict = verdict.with_evidence(path, Some(number), excerpt(rest));
        }
    }
    verdict
}

/// The start of a line quoted as evidence.
fn excerpt(text: &str) -> String {
    text.chars().take(200).collect()
}

/// Diagnostics go first, so the 500 characters the file keeps include them.
fn with_notes(mut verdict: Verdict, notes: &[String]) -> Verdict {
    if !notes.is_empty() {
        let mut message: String = notes.iter().map(|n| format!("reviewhost: {n}\n")).collect();
        message.push_str(&verdict.message);
        verdict.message = message;
    }
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(status: i32, stdout: &str, trouble: Vec<Trouble>) -> Run {
        Run { status, stdout: stdout.into(), trouble, ..Run::default() }
    }

    fn failed() -> Trouble {
        Trouble::Failed { program: "grep".into(), status: 2, message: "grep: x: No such file or directory".into() }
    }

    #[test]
    fn grep_not_match_is_not_fail_open() {
        assert!(judge(&Rule::OutputAbsent, &run(1, "", vec![]), &[]).unwrap().passed);
        assert!(!judge(&Rule::OutputAbsent, &run(0, "hit\n", vec![]), &[]).unwrap().passed);
        let err = judge(&Rule::OutputAbsent, &run(2, "", vec![failed()]), &[]).unwrap_err();
        assert!(err.contains("No such file"), "{err}");
    }

    #[test]
    fn unavailable_programs_never_pass() {
        let t = vec![Trouble::Unavailable("npx".into())];
        for rule in [Rule::OutputPresent, Rule::OutputAbsent, Rule::ExitZero { quiet: false }] {
            assert_eq!(
                judge(&rule, &run(0, "x", t.clone()), &[]).unwrap_err(),
                "program 'npx' is not available in the reviewhost sandbox"
            );
        }
    }

    #[test]
    fn counts_and_values() {
        let count = |at_least, n, out| judge(&Rule::Count { at_least, n }, &run(0, out, vec![]), &[]).unwrap().passed;
        assert!(count(false, 1, "1\n"));
        assert!(!count(false, 1, "2\n"));
        assert!(count(true, 2, "5"));
        assert!(!count(false, 1, "one"));
        let equals = |text: &str, out| judge(&Rule::Equals { text: text.into() }, &run(0, out, vec![]), &[]).unwrap();
        assert!(equals("3", "3\n").passed);
        assert!(!equals("3", "4\n").passed);
    }

    /// An error anywhere fails every absence verdict closed: `find … | wc -l` with
    /// `count:0` while `find` failed, an empty or zero `equals`.
    #[test]
    fn absence_never_passes_after_an_error() {
        let find =
            || Trouble::Failed { program: "find".into(), status: 1, message: "find: 'keys/prod\\377.pem'".into() };
        let count = |at_least, n, out| judge(&Rule::Count { at_least, n }, &run(0, out, vec![find()]), &[]);
        assert!(count(false, 0, "0\n").unwrap_err().contains("a count of 0, but a command failed"));
        assert!(!count(false, 0, "2\n").unwrap().passed, "a count that fails still fails");
        assert!(count(true, 1, "3\n").unwrap().passed, "presence still passes on what was found");
        let equals = |text: &str, out| judge(&Rule::Equals { text: text.into() }, &run(0, out, vec![find()]), &[]);
        assert!(equals("0", "0").is_err() && equals("", "").is_err());
        assert!(equals("3", "3").unwrap().passed);
    }

    #[test]
    fn evidence_and_notes() {
        let v = judge(&Rule::OutputPresent, &run(0, "src/a.rs:12:let x = Mock;\nplain\n", vec![]), &["vacuous".into()])
            .unwrap();
        assert_eq!(v.evidence[0].path, "src/a.rs");
        assert_eq!(v.evidence[0].line, Some(12));
        assert!(v.message.starts_with("reviewhost: vacuous\n"));
    }

    #[test]
    fn blank_output_is_what_trim_leaves_empty() {
        for blank in ["", " \n\t\r\x0b\x0c", "\u{a0}", " \u{2028}\n"] {
            assert!(is_blank(blank.as_bytes()), "{blank:?}");
            assert_eq!(is_blank(blank.as_bytes()), blank.trim().is_empty());
        }
        for text in ["x", "  \n x", "\u{a0}x", "\u{e9}", "\n\u{2028}é"] {
            assert!(!is_blank(text.as_bytes()), "{text:?}");
        }
        // Invalid UTF-8 decodes to U+FFFD, which is not whitespace.
        assert!(!is_blank(b" \xff "));
    }

    #[test]
    fn a_huge_output_is_quoted_from_its_start_only() {
        let mut stdout = Vec::new();
        for i in 0..200_000 {
            stdout.extend_from_slice(format!("src/f{i}.rs:{i}:  let config = load();\r\n").as_bytes());
        }
        let v = judge(&Rule::OutputPresent, &Run { stdout: stdout.clone(), ..Run::default() }, &[]).unwrap();
        assert!(v.passed);
        let expected: String = String::from_utf8_lossy(&stdout).trim().chars().take(MAX_QUOTED).collect();
        assert_eq!(v.message, expected);
        assert_eq!(v.evidence.len(), MAX_EVIDENCE);
        assert_eq!((v.evidence[0].path.as_str(), v.evidence[0].line), ("src/f0.rs", Some(0)));
        assert_eq!(v.evidence[0].text, "  let config = load();");
        let v = judge(&Rule::OutputAbsent, &Run { stdout, ..Run::default() }, &[]).unwrap();
        assert!(!v.passed);
        assert_eq!(v.message, expected);
    }

    #[test]
    fn exit_status_quotes_stdout_then_stderr() {
        let r = Run { status: 1, stdout: b"  out\n".to_vec(), stderr: b"err\n".to_vec(), ..Run::default() };
        assert_eq!(judge(&Rule::ExitZero { quiet: false }, &r, &[]).unwrap().message, "out\nerr");
        let r = Run { status: 1, stdout: b" \n".to_vec(), stderr: b" \t".to_vec(), ..Run::default() };
        assert_eq!(judge(&Rule::ExitZero { quiet: false }, &r, &[]).unwrap().message, "exit status 1");
        let r = Run { status: 0, stdout: Vec::new(), stderr: b"warning\n".to_vec(), ..Run::default() };
        let v = judge(&Rule::ExitZero { quiet: true }, &r, &[]).unwrap();
        assert_eq!((v.passed, v.message.as_str()), (false, "warning"));
    }
}
