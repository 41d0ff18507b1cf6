//! What the sandbox adds to awk: refusals of writing and running commands, the bounds
//! on a runaway program, the reader's stdout limit, and the corpus command that made
//! awk necessary.

use std::path::Path;
use std::process::{Command, Stdio};

use reviewhost_tool::{Ctx, Io, KEPT_LINES, NO_LIMIT};

struct Run {
    stdout: String,
    stderr: String,
    status: i32,
}

fn awk_in(dir: &Path, args: &[&str], limit: usize) -> Run {
    let ctx = Ctx::new(dir);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let status = {
        let mut io = Io { stdin: b"", stdout: &mut out, stderr: &mut err, stdout_limit: limit, unnamed_file: None };
        reviewhost_awk::awk(&args, &ctx, &mut io)
    };
    Run {
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
        status,
    }
}

fn awk(args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "a b\nc d\n").unwrap();
    awk_in(dir.path(), args, NO_LIMIT)
}

fn assert_refused(program: &str, construct: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "a b\n").unwrap();
    let run = awk_in(dir.path(), &[program, "f.txt"], NO_LIMIT);
    assert_eq!(run.status, 2, "{program}: {}", run.stderr);
    assert!(run.stdout.is_empty(), "{program}: nothing runs before the refusal");
    assert!(run.stderr.contains("is not supported in the reviewhost sandbox (read-only)"), "{}", run.stderr);
    assert!(run.stderr.contains(construct), "{program}: the message names {construct}: {}", run.stderr);
    let entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(entries, ["f.txt"], "{program}: no file was written");
}

#[test]
fn writing_and_commands_are_refused() {
    assert_refused("BEGIN{print \"x\"} {print > \"out.txt\"}", "print > file");
    assert_refused("{print $1 >> \"out.txt\"}", "print >> file");
    assert_refused("{printf \"%s\", $1 > \"out.txt\"}", "printf > file");
    assert_refused("{print | \"sort\"}", "print | \"cmd\"");
    assert_refused("{printf \"x\" | \"cat\"}", "printf | \"cmd\"");
    assert_refused("BEGIN{\"date\" | getline d; print d}", "\"cmd\" | getline");
    assert_refused("BEGIN{\"ls\" | getline}", "\"cmd\" | getline");
    assert_refused("BEGIN{system(\"rm -rf /\")}", "system()");
    assert_refused("{x = system(\"true\")}", "system()");
    assert_refused("{f = \"out\"; print $0 > f}", "print > file");
}

#[test]
fn the_standard_streams_are_not_files() {
    let run =
        awk(&["{print \"warn:\", $1 > \"/dev/stderr\"; print $2 > \"/dev/stdout\"; print > \"/dev/null\"}", "f.txt"]);
    assert_eq!((run.status, run.stdout.as_str(), run.stderr.as_str()), (0, "b\nd\n", "warn: a\nwarn: c\n"));
}

#[test]
fn a_runaway_loop_stops_with_an_error() {
    let programs = [
        "BEGIN{while(1);}",
        "BEGIN{for(;;) x++}",
        "BEGIN{do {} while (1)}",
        "{while (1) n++}",
        "BEGIN{while (1) for (k in a) n++; a[1]}",
        "function f() {while (1);} BEGIN {f()}",
    ];
    for program in programs {
        let started = std::time::Instant::now();
        let run = awk(&[program, "f.txt"]);
        assert_eq!(run.status, 2, "{program}");
        assert!(run.stderr.contains("loop iterations"), "{program}: {}", run.stderr);
        assert!(started.elapsed().as_secs() < 60, "{program} took {:?}", started.elapsed());
    }
}

#[test]
fn deep_recursion_stops_with_an_error_not_a_stack_overflow() {
    let run = awk(&["function f(n) { return n == 0 ? 0 : 1 + f(n - 1) } BEGIN { print f(1000000) }"]);
    assert_eq!(run.status, 2);
    assert!(run.stderr.contains("called too deeply"), "{}", run.stderr);
    // Ordinary recursion still works.
    let run = awk(&["function f(n) { return n == 0 ? 0 : 1 + f(n - 1) } BEGIN { print f(60) }"]);
    assert_eq!((run.status, run.stdout.as_str()), (0, "60\n"), "{}", run.stderr);
}

#[test]
fn deeply_nested_programs_are_refused_not_overflowed() {
    let nested = format!("BEGIN {{ x = {}1{} }}", "(".repeat(100_000), ")".repeat(100_000));
    let run = awk(&[&nested]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(run.stderr.contains("nested"), "{}", run.stderr);
    let minus = format!("BEGIN {{ x = {}1 }}", "- ".repeat(100_000));
    let run = awk(&[&minus]);
    assert_eq!(run.status, 2, "{}", run.stderr);
}

#[test]
fn huge_fields_and_widths_are_bounded() {
    let run = awk(&["BEGIN { $100000000 = 1 }"]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    let run = awk(&["BEGIN { printf \"%999999999d\", 1 }"]);
    assert_eq!(run.status, 0);
    assert!(run.stdout.len() <= 1 << 17);
}

#[test]
fn output_past_the_readers_limit_is_dropped_but_the_status_kept() {
    let dir = tempfile::tempdir().unwrap();
    let run = awk_in(dir.path(), &["BEGIN { for (i = 0; i < 100000; i++) print i; exit 3 }"], 10);
    assert_eq!(run.status, 3);
    let lines = run.stdout.lines().count();
    assert!((KEPT_LINES..1000).contains(&lines), "kept {lines} lines");
    let all = awk_in(dir.path(), &["BEGIN { for (i = 0; i < 100000; i++) print i }"], NO_LIMIT);
    assert_eq!(all.stdout.lines().count(), 100000);
}

/// Line 84 of the agent-command corpus: the lines of a Markdown file's YAML front
/// matter, checked against the installed awk when there is one.
#[test]
fn the_front_matter_program_of_the_corpus() {
    const PROGRAM: &str = "BEGIN{c=0} /^---$/{c++; if (c==2) exit; next} c==1";
    const FILE: &str = "---\nname: evaluator\ndescription: grades the work\nthinking:\n  type: adaptive\n  effort: high\n---\n\n# Evaluator\n\nthinking: not this one\n---\nnor this\n";
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("agents")).unwrap();
    std::fs::write(dir.path().join("agents/evaluator.md"), FILE).unwrap();
    let run = awk_in(dir.path(), &[PROGRAM, "agents/evaluator.md"], NO_LIMIT);
    let expected = "name: evaluator\ndescription: grades the work\nthinking:\n  type: adaptive\n  effort: high\n";
    assert_eq!((run.status, run.stdout.as_str()), (0, expected), "{}", run.stderr);
    for reference in ["gawk", "awk"] {
        let Ok(output) = Command::new(reference)
            .args([PROGRAM, "agents/evaluator.md"])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
        else {
            println!("SKIPPED: no {reference} to compare with");
            continue;
        };
        assert_eq!(String::from_utf8_lossy(&output.stdout), run.stdout, "{reference}");
        assert_eq!(output.status.code(), Some(run.status), "{reference}");
    }
}

#[test]
fn usage_errors() {
    assert_eq!(awk(&[]).status, 2);
    assert_eq!(awk(&["-f"]).status, 2);
    assert_eq!(awk(&["-f", "missing.awk"]).status, 2);
    assert_eq!(awk(&["-v", "novalue", "BEGIN{}"]).status, 2);
    let run = awk(&["BEGIN{print gensub(/a/, \"b\", \"g\", \"aa\")}"]);
    assert_eq!(run.status, 2);
    assert!(run.stderr.contains("gawk's `gensub()' is not supported"), "{}", run.stderr);
    for args in [
        &["BEGIN{IGNORECASE = 1} /A/", "f.txt"][..],
        &["-v", "IGNORECASE=1", "/A/", "f.txt"],
        &["/A/", "IGNORECASE=1", "f.txt"],
    ] {
        let run = awk(args);
        assert_eq!((run.status, run.stdout.as_str()), (2, ""), "{args:?}");
        assert!(run.stderr.contains("`IGNORECASE' is not supported"), "{}", run.stderr);
    }
    // gawk's own syntax is named, not a syntax error: the shell takes it as a refusal.
    for (program, named) in [
        ("@load \"fork\"\nBEGIN{print 1}", "`@` syntax"),
        ("BEGIN{x = @/a+/; print typeof(x)}", "`@` syntax"),
        ("BEGIN{print \"a\" |& \"cat\"}", "`|&`"),
        ("BEGIN{a[1][2] = 3; print a[1][2]}", "arrays of arrays"),
        ("BEGIN{for (i in PROCINFO[\"identifiers\"]) print i}", "arrays of arrays"),
        ("BEGIN{switch (1) { case 1: print 1 }}", "`switch'"),
    ] {
        let run = awk(&[program]);
        assert_eq!((run.status, run.stdout.as_str()), (2, ""), "{program}");
        assert!(run.stderr.contains(named) && run.stderr.contains("not supported"), "{program}: {}", run.stderr);
    }
    let run = awk(&["BEGIN{n = length(ENVIRON); print ENVIRON[\"HOME\"] \"|\" n}"]);
    assert_eq!(run.stdout, "|0\n", "the sandbox has no environment");
}
