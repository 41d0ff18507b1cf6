//! The interpreter's own tests, with stand-in programs independent of the tool crates.

use super::*;
use crate::parse::parse;

/// Programs for interpreter tests, independent of the real tool crates.
fn programs(name: &str) -> Option<Program> {
    fn echo(args: &[String], _: &Ctx, io: &mut Io) -> i32 {
        io.stdout.extend_from_slice(format!("{}\n", args.join(" ")).as_bytes());
        0
    }
    fn cat(_: &[String], _: &Ctx, io: &mut Io) -> i32 {
        io.stdout.extend_from_slice(io.stdin);
        0
    }
    fn status(args: &[String], _: &Ctx, _: &mut Io) -> i32 {
        args.first().and_then(|a| a.parse().ok()).unwrap_or(0)
    }
    fn oops(_: &[String], _: &Ctx, io: &mut Io) -> i32 {
        io.stderr.extend_from_slice(b"oops: broken\n");
        io.stdout.extend_from_slice(b"partial\n");
        1
    }
    fn grep(args: &[String], _: &Ctx, io: &mut Io) -> i32 {
        if args.first().map(String::as_str) == Some("missing") {
            io.stderr.extend_from_slice(b"grep: missing: No such file or directory\n");
            return 2;
        }
        1
    }
    fn limit(_: &[String], _: &Ctx, io: &mut Io) -> i32 {
        let limit = if io.stdout_limit == NO_LIMIT { "none".to_string() } else { io.stdout_limit.to_string() };
        io.stdout.extend_from_slice(format!("{limit}\n").as_bytes());
        0
    }
    match name {
        "limit" => Some(limit),
        "echo" => Some(echo),
        "cat" => Some(cat),
        "status" => Some(status),
        "oops" => Some(oops),
        "grep" => Some(grep),
        _ => None,
    }
}

fn sh(command: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("web/src")).unwrap();
    std::fs::write(dir.path().join("web/src/a.ts"), "").unwrap();
    std::fs::write(dir.path().join("input.txt"), "from file\n").unwrap();
    run(&parse(command).unwrap(), Ctx::new(dir.path()), programs, NO_LIMIT)
}

fn out(run: &Run) -> String {
    String::from_utf8_lossy(&run.stdout).into_owned()
}

#[test]
fn lists_and_status() {
    assert_eq!(out(&sh("status 1 && echo no || echo yes")), "yes\n");
    assert_eq!(out(&sh("status 0 && echo a; echo b")), "a\nb\n");
    assert_eq!(out(&sh("status 3; echo $?")), "3\n");
    assert_eq!(out(&sh("! status 0; echo $?")), "1\n");
    assert_eq!(sh("status 0 | status 4").status, 4);
    assert_eq!(sh("exit 7; echo never").status, 7);
    assert_eq!(out(&sh("(exit 5); echo $?")), "5\n");
    assert_eq!(out(&sh("status 2 | echo piped")), "piped\n");
    assert_eq!(out(&sh("if status 1; then echo a; elif status 0; then echo b; else echo c; fi")), "b\n");
}

#[test]
fn pipes_redirections_and_substitution() {
    assert_eq!(out(&sh("echo hi | cat | cat")), "hi\n");
    assert_eq!(out(&sh("cat < input.txt")), "from file\n");
    let r = sh("oops 2>&1");
    assert_eq!(out(&r), "partial\noops: broken\n");
    let r = sh("oops 2>/dev/null");
    assert!(r.stderr.is_empty());
    assert_eq!(r.trouble.len(), 1, "a hidden error is still an error");
    assert_eq!(out(&sh("oops >/dev/null 2>&1")), "");
    assert_eq!(out(&sh("echo $(echo 'a  b') \"$(echo 'c  d')\"")), "a b c  d\n");
    assert_eq!(out(&sh("echo web/*/*.ts")), "web/src/a.ts\n");
    assert_eq!(out(&sh("echo '*.nothing' *.nothing")), "*.nothing *.nothing\n");
}

#[test]
fn cd_stays_inside_the_root_and_subshells_restore_it() {
    assert_eq!(out(&sh("cd web && pwd")), "/web\n");
    assert_eq!(out(&sh("(cd web/src && pwd); pwd")), "/web/src\n/\n");
    assert_eq!(out(&sh("cd .. && pwd")), "/\n");
    assert_eq!(out(&sh("cd ../../.. && pwd")), "/\n");
    let r = sh("cd nowhere && echo unreachable");
    assert_eq!(out(&r), "");
    assert!(matches!(&r.trouble[0], Trouble::Failed { program, .. } if program == "cd"));
}

#[test]
fn troubles_are_recorded() {
    let r = sh("npx tsc --noEmit");
    assert_eq!(r.status, NOT_FOUND);
    assert_eq!(r.trouble, [Trouble::Unavailable("npx".into())]);
    assert_eq!(
        String::from_utf8_lossy(&r.stderr),
        "reviewhost: program 'npx' is not available in the reviewhost sandbox\n"
    );
    let r = sh("echo x > newfile");
    assert_eq!(r.status, 1);
    assert!(matches!(&r.trouble[0], Trouble::Refused(m) if m.contains("read-only")));
    assert!(sh("grep nothing").trouble.is_empty(), "no match is not an error");
    assert_eq!(sh("grep missing 2>/dev/null").trouble.len(), 1);
    assert_eq!(sh("cat < absent").trouble.len(), 1);
}

#[test]
fn long_pipelines_run() {
    let command = std::iter::repeat_n("cat", 1000).collect::<Vec<_>>().join(" | ");
    assert_eq!(out(&sh(&format!("echo deep | {command}"))), "deep\n");
}

/// Only a program whose stdout goes straight to the script's stdout is told that its
/// reader needs only the start; pipes, substitutions and redirections read all of it.
#[test]
fn only_output_that_reaches_the_verdict_is_limited() {
    let dir = tempfile::tempdir().unwrap();
    let limited = |command: &str| {
        let run = run(&parse(command).unwrap(), Ctx::new(dir.path()), programs, 100);
        String::from_utf8(run.stdout).unwrap()
    };
    assert_eq!(limited("limit"), "100\n");
    assert_eq!(limited("limit; limit && limit"), "100\n100\n100\n");
    assert_eq!(limited("limit | cat"), "none\n");
    assert_eq!(limited("cat | limit"), "100\n");
    assert_eq!(limited("echo $(limit)"), "none\n");
    assert_eq!(limited("(limit) && { limit; }"), "100\n100\n");
    assert_eq!(limited("if limit; then limit; fi"), "100\n100\n");
    assert_eq!(limited("limit 1>&2; limit >/dev/null; limit"), "100\n");
    assert_eq!(limited("{ limit; limit; } | cat; limit"), "none\nnone\n100\n");
    let unlimited = run(&parse("limit").unwrap(), Ctx::new(dir.path()), programs, NO_LIMIT);
    assert_eq!(unlimited.stdout, b"none\n");
}

/// Runs `command` with the sandbox's real programs over a small tree.
fn real(command: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in [
        ("src/a.ts", "// Copyright 2024\nfoo\nbar foo\n"),
        ("src/b.ts", "foo\n"),
        ("src/sub/c.ts", "nothing\n"),
        ("list.txt", "src/a.ts\nsrc/b.ts\nsrc/gone.ts\n"),
        ("scripts/check.sh", "#!/usr/bin/env bash\nset -e\ncd src && grep -c foo a.ts\necho \"args: $# $1\"\n"),
        ("scripts/lib.sh", "greet() { echo \"hello $1\"; }\nLOADED=yes\n"),
        ("scripts/bad.sh", "echo start\nls <(true)\n"),
    ] {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    run(&parse(command).unwrap(), Ctx::new(dir.path()), crate::lookup, NO_LIMIT)
}

fn refused(run: &Run) -> Vec<String> {
    run.trouble
        .iter()
        .filter_map(|t| match t {
            Trouble::Refused(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

/// A sandboxed tool's "not supported" is a refusal, whatever the script does next.
#[test]
fn a_tool_that_says_not_supported_refuses_whatever_follows() {
    fn unsupported(_: &[String], _: &Ctx, io: &mut Io<'_>) -> i32 {
        io.stderr.extend_from_slice(b"tool: option -Z is not supported in the reviewhost sandbox\n");
        1
    }
    fn lookup(name: &str) -> Option<Program> {
        match name {
            "tool" => Some(unsupported as Program),
            _ => crate::lookup(name),
        }
    }
    let dir = tempfile::tempdir().unwrap();
    for script in ["tool -Z || echo none", "tool -Z; echo rc=$?", "echo x | tool -Z | cat", "x=$(tool -Z); echo ok"] {
        let r = run(&parse(script).unwrap(), Ctx::new(dir.path()), lookup, NO_LIMIT);
        assert!(refused(&r).iter().any(|m| m.contains("is not supported")), "{script}: {:?}", r.trouble);
    }
}

#[test]
fn variables_and_assignments() {
    assert_eq!(out(&sh("X=1; echo $X ${X} \"$X\"")), "1 1 1\n");
    assert_eq!(out(&sh("X=1 Y=$X; echo $Y")), "1\n", "assigned left to right");
    assert_eq!(out(&sh("X=a; X+=b; echo $X")), "ab\n");
    // A prefix assignment holds for that command only.
    assert_eq!(out(&sh("f() { echo \"in $X\"; }; X=1 f; echo \"out [$X]\"")), "in 1\nout []\n");
    // The status of `X=$(cmd)` is the command's.
    assert_eq!(out(&sh("X=$(status 3); echo $?; X=$(status 0); echo $?")), "3\n0\n");
    assert_eq!(sh("X=$(status 1) && echo no").stdout, b"");
    // The environment starts empty.
    assert_eq!(out(&sh("echo \"[$HOME][$PATH][$USER]\"")), "[][][]\n");
    assert_eq!(out(&sh("cd web; echo $PWD")), "/web\n");
    assert_eq!(out(&sh("export A=1 B; echo $A; unset A; echo \"[$A]\"")), "1\n[]\n");
    // `export X=$(...)` is an assignment: not split.
    assert_eq!(out(&sh("export X=$(echo 'a  b'); echo \"$X\"")), "a  b\n");
    let r = sh("readonly R=1; R=2; echo never");
    assert_eq!((r.status, out(&r)), (1, String::new()));
    assert!(String::from_utf8_lossy(&r.stderr).contains("R: readonly variable"));
    assert_eq!(out(&sh("readonly R=1; R=2 echo runs; unset R; echo $? $R")), "runs\n1 1\n");
    assert_eq!(out(&sh("echo $$")), "1000\n");
}

#[test]
fn parameter_expansion_operators() {
    assert_eq!(out(&sh("echo ${U:-d} ${U-d} [${U:+a}]; E=; echo [${E:-d}] [${E-d}] [${E:+a}]")), "d d []\n[d] [] []\n");
    assert_eq!(out(&sh("echo ${U:=set} $U")), "set set\n");
    assert_eq!(
        out(&sh("set -- ${U:-a b}; echo $#; set -- \"${U:-a b}\"; echo $#; set -- ${U:-\"a b\"}; echo $#")),
        "2\n1\n1\n"
    );
    assert_eq!(out(&sh("X=hello; echo ${#X} ${X#h} ${X%l*} ${X%%l*} ${X##*l}")), "5 ello hel he o\n");
    assert_eq!(
        out(&sh("X=hello; echo ${X/l/L} ${X//l/L} ${X/#h/H} ${X/%o/O} ${X//[aeiou]/}")),
        "heLlo heLLo Hello hellO hll\n"
    );
    assert_eq!(out(&sh("f=src/sub/c.ts; echo ${f##*/} ${f%/*} ${f%.ts}.js")), "c.ts src/sub src/sub/c.js\n");
    assert_eq!(out(&sh("X=abcdef; echo ${X:2} ${X:1:2} ${X: -2} ${X:1:-1} [${X:9}]")), "cdef bc ef bcde []\n");
    assert_eq!(out(&sh("X=hello; echo ${X^^} ${X^} ${X,,}; Y=ABC; echo ${Y,}")), "HELLO Hello hello\naBC\n");
    // A quoted part of a pattern is literal.
    assert_eq!(out(&sh("X='a*b'; echo ${X#\"a*\"} \"${X#a*}\"")), "b *b\n");
    let r = sh("echo ${U:?is required}; echo never");
    assert_eq!((r.status, out(&r)), (1, String::new()));
    assert!(String::from_utf8_lossy(&r.stderr).contains("U: is required"));
    // Only the subshell ends.
    assert_eq!(out(&sh("(echo ${U:?x}); echo after $?")), "after 1\n");
}

#[test]
fn positional_parameters_and_functions() {
    assert_eq!(out(&sh("echo $# [$1] [$@]")), "0 [] []\n", "empty at top level");
    assert_eq!(
        out(&sh("set -- a 'b c' d; echo $#; for x in \"$@\"; do echo \"<$x>\"; done; echo \"$*\"")),
        "3\n<a>\n<b c>\n<d>\na b c d\n"
    );
    assert_eq!(out(&sh("set -- 'b c'; for x in $@; do echo \"<$x>\"; done")), "<b>\n<c>\n");
    assert_eq!(out(&sh("f() { echo \"$# $1 $2\"; shift; echo \"$@\"; }; f 1 2 3; echo $#")), "3 1 2\n2 3\n0\n");
    assert_eq!(out(&sh("set -- a b c; echo ${@:2} ${#@}; f() { echo \"$@\"; }; f \"$@\"")), "b c 3\na b c\n");
    assert_eq!(out(&sh("f() { for a; do echo $a; done; }; f x y")), "x\ny\n");
    assert_eq!(sh("f() { :; }; set -- \"$@\"; echo $#").stdout, b"0\n", "\"$@\" without parameters is nothing");
    // `local` hides a variable until the function returns (bash's dynamic scoping).
    let r = sh("f() { local x=in; g; }; g() { echo $x; }; x=out; f; echo $x");
    assert_eq!(out(&r), "in\nout\n");
    assert_eq!(out(&sh("f() { x=set; }; f; echo $x")), "set\n");
    assert_eq!(out(&sh("f() { return 7; echo no; }; f; echo $?")), "7\n");
    assert_eq!(out(&sh("g() { status 3; return; }; g; echo $?")), "3\n");
    assert_eq!(out(&sh("function h { echo h $1; }; function i() { echo i; }; h 1; i")), "h 1\ni\n");
    assert_eq!(out(&sh("f() { echo x; }; f | cat; unset -f f; f; echo $?")), "x\n127\n");
    let r = sh("return 3; echo after $?");
    assert_eq!(out(&r), "after 2\n");
    assert!(String::from_utf8_lossy(&r.stderr).contains("can only `return'"));
    let fib = "fib() { if [[ $1 -le 1 ]]; then echo $1; else echo $(( $(fib $(($1-1))) + $(fib $(($1-2))) )); fi; }";
    assert_eq!(out(&sh(&format!("{fib}; fib 10"))), "55\n");
}

#[test]
fn field_splitting_and_globbing_of_expansions() {
    assert_eq!(out(&sh("x='a  b'; for w in $x \"$x\"; do echo \"[$w]\"; done")), "[a]\n[b]\n[a  b]\n");
    assert_eq!(out(&sh("x=' a '; echo \"[$x]\" [$x]")), "[ a ] [ a ]\n");
    assert_eq!(out(&sh("e=; set -- $e; echo $#; set -- \"$e\"; echo $#")), "0\n1\n");
    assert_eq!(out(&sh("IFS=:; x='a::b'; for w in $x; do echo \"[$w]\"; done")), "[a]\n[]\n[b]\n");
    assert_eq!(out(&sh("echo $(echo 'a ')b")), "a b\n");
    assert_eq!(out(&sh("p='web/*/*.ts'; echo $p \"$p\"")), "web/src/a.ts web/*/*.ts\n");
    assert_eq!(out(&sh("set -f; echo web/*; set +f; echo web/*")), "web/*\nweb/src\n");
    assert_eq!(out(&sh("cmd='echo hi'; $cmd there")), "hi there\n");
}

#[test]
fn arithmetic() {
    assert_eq!(
        out(&sh("echo $((1 + 2 * 3)) $(( (1+2)*3 )) $((7/2)) $((-7%3)) $((2**10)) $((~0)) $((1<2 && 3>2))")),
        "7 9 3 -1 1024 -1 1\n"
    );
    assert_eq!(out(&sh("x=5; echo $((x+=2)) $x $((x++)) $x; X='1+2'; echo $((X*2)) $(($x-1))")), "7 7 7 8\n6 7\n");
    assert_eq!(out(&sh("i=0; (( i++ )); echo $? $i; (( i-- )); echo $? $i")), "1 1\n0 0\n");
    assert_eq!(out(&sh("let 'y = 2 * 3' z=1; echo $? $y $z")), "0 6 1\n");
    let r = sh("echo $((1/0)); echo never");
    assert_eq!((r.status, out(&r)), (1, String::new()));
    assert!(String::from_utf8_lossy(&r.stderr).contains("1/0: division by 0"));
    // In `(( ))` an error is a status.
    assert_eq!(out(&sh("(( 1/0 )); echo after $?")), "after 1\n");
}

#[test]
fn loops_with_break_and_continue() {
    assert_eq!(out(&sh("for i in 1 2 3; do echo $i; done; echo end $i")), "1\n2\n3\nend 3\n");
    assert_eq!(out(&sh("for f in web/*/*.ts; do echo \"[$f]\"; done")), "[web/src/a.ts]\n");
    assert_eq!(out(&sh("i=0; while [[ $i -lt 3 ]]; do echo $i; i=$((i+1)); done")), "0\n1\n2\n");
    assert_eq!(out(&sh("i=0; until (( i >= 2 )); do echo $i; ((i++)); done")), "0\n1\n");
    assert_eq!(out(&sh("for ((i=0; i<3; i++)); do echo i=$i; done")), "i=0\ni=1\ni=2\n");
    assert_eq!(out(&sh("for i in 1 2 3 4; do [[ $i == 3 ]] && break; echo $i; done")), "1\n2\n");
    // `( )` starts outside the loop; a pipeline stage and `$(...)` stay inside it, and
    // `break` ends only the stage or the substitution.
    let r = sh("for i in 1 2; do (continue; echo in$i); echo x | break; echo \"[$(break; echo no)]\"; done");
    assert_eq!(out(&r), "in1\n[]\nin2\n[]\n");
    let nested = "for i in 1 2 3; do for j in a b; do [[ $j == b ]] && continue 2; echo $i$j; done; done";
    assert_eq!(out(&sh(nested)), "1a\n2a\n3a\n");
    assert_eq!(out(&sh("for i in 1 2; do for j in a b; do break 2; done; done; echo $i$j")), "1a\n");
    assert_eq!(out(&sh("while status 1; do echo no; done; echo $?")), "0\n");
    // `break` outside a loop (a function's caller's loop is not its own) is an error.
    let r = sh("f() { break; }; for i in 1 2; do f; echo $i; done");
    assert_eq!(out(&r), "1\n2\n");
    assert!(String::from_utf8_lossy(&r.stderr).contains("only meaningful in a `for'"));
    // A loop's output goes where its redirections say.
    assert_eq!(out(&sh("for i in 1 2; do echo $i; done | cat; for i in 3; do echo $i; done >/dev/null")), "1\n2\n");
}

#[test]
fn case_statements() {
    let case = |x: &str| {
        out(&sh(&format!("case {x} in a|b) echo ab;; *.ts) echo ts;; [0-9]) echo digit;; *) echo other;; esac")))
    };
    assert_eq!(case("b"), "ab\n");
    assert_eq!(case("x.ts"), "ts\n");
    assert_eq!(case("7"), "digit\n");
    assert_eq!(case("'a b'"), "other\n");
    assert_eq!(out(&sh("case x.ts in *.ts) echo ts;& *.md) echo fall;; *) echo no;; esac")), "ts\nfall\n");
    assert_eq!(out(&sh("case ab in a*) echo a;;& *b) echo b;; *) echo no;; esac")), "a\nb\n");
    assert_eq!(
        out(&sh(
            "p='*.ts'; case x.ts in $p) echo pattern;; esac; case x.ts in \"$p\") echo no;; *) echo literal;; esac"
        )),
        "pattern\nliteral\n"
    );
    assert_eq!(out(&sh("case z in a) echo a;; esac; echo $?")), "0\n");
}

#[test]
fn extended_tests() {
    let holds = |expr: &str| sh(&format!("[[ {expr} ]]")).status == 0;
    assert!(holds("-f web/src/a.ts && -d web && ! -e nowhere"));
    assert!(holds("x.ts == *.ts && x.ts != *.js"));
    assert!(!holds("x.ts == \"*.ts\""), "a quoted pattern is literal");
    assert!(holds("-z '' && -n x"));
    assert!(holds("10 -gt 9 && 1+1 -eq 2"));
    assert!(holds("( 1 -eq 2 || 3 -ne 4 ) && a < b"));
    assert!(holds("v1.20 =~ ^v([0-9]+)\\.[0-9]+$"));
    assert!(!holds("abc =~ \"a.c\""), "a quoted regex is literal");
    assert!(holds("\"a b\""));
    assert!(!holds("$unset"));
    assert_eq!(out(&sh("x=; [[ -v x ]] && echo set; [[ -v y ]] || echo unset")), "set\nunset\n");
    let r = sh("[[ a =~ x[ ]]; echo $?");
    assert_eq!(out(&r), "2\n");
    // bash reads an unquoted `-x` on the left as a unary operator, and fails to parse
    // (`parse::tests`); quoted, or from a variable, it is a string.

    assert!(holds("\"-x\" < b && $unset < -x"));
}

#[test]
fn read_here_documents_and_here_strings() {
    assert_eq!(out(&sh("while read -r line; do echo \"[$line]\"; done < input.txt")), "[from file]\n");
    assert_eq!(out(&sh("while read a b; do echo \"$b-$a\"; done <<< '1 2 3'")), "2 3-1\n");
    assert_eq!(out(&sh("IFS=: read -r a b c <<< '1:2:3:4'; echo \"$a|$b|$c\"")), "1|2|3:4\n");
    assert_eq!(
        out(&sh("read -r x <<< '  pad  '; echo \"[$x]\"; IFS= read -r y <<< '  pad  '; echo \"[$y]\"")),
        "[pad]\n[  pad  ]\n"
    );
    assert_eq!(out(&sh("echo 'a\\b' | { read x; read -r y; echo \"$x\"; }")), "ab\n");
    assert_eq!(
        out(&sh("read x < input.txt; echo \"$? $x\"; read x <<< ''; echo $?; read y < /dev/null; echo $?")),
        "0 from file\n0\n1\n"
    );
    assert_eq!(out(&sh("{ read -r first; cat; } <<< \"$(echo 1; echo 2)\"")), "2\n");
    // A pipeline stage is a subshell.
    assert_eq!(out(&sh("echo x | read y; echo \"[$y]\"")), "[]\n");
    assert_eq!(out(&sh("X=v; cat <<EOF\nsay \"$X\" \\$X $(echo sub) $((1+1))\nEOF")), "say \"v\" $X sub 2\n");
    assert_eq!(out(&sh("cat <<'EOF'\n$X `x` \"q\"\nEOF")), "$X `x` \"q\"\n");
    assert_eq!(out(&sh("cat <<-EOF\n\tindented\n\tEOF")), "indented\n");
    assert_eq!(out(&sh("t='a b'; cat <<< \"$t\"; cat <<< $t")), "a b\na b\n");
}

#[test]
fn set_options() {
    let r = sh("set -e; echo a; status 3; echo never");
    assert_eq!((r.status, out(&r)), (3, "a\n".into()));
    for (command, expected) in [
        ("set -e; status 1 || echo handled; echo after", "handled\nafter\n"),
        ("set -e; if status 1; then :; fi; ! status 0; echo after", "after\n"),
        ("set -e; { status 1 && :; }; echo after", "after\n"),
        ("set -e; f() { status 1; echo in; }; f || echo caught", "in\n"),
        ("set -e; while status 1; do :; done; echo after", "after\n"),
        ("set -e; (status 1); echo never", ""),
        ("set -e; x=$(status 1); echo never", ""),
        ("set -e; (( 0 )); echo never", ""),
        ("set -e; echo $(status 1; echo in-substitution)", "in-substitution\n"),
        ("status 1 | status 0; echo $?; set -o pipefail; status 1 | status 0; echo $?", "0\n1\n"),
        ("set -eo pipefail; status 1 | cat; echo never", ""),
        ("set -e; set +e; status 1; echo after", "after\n"),
    ] {
        assert_eq!(out(&sh(command)), expected, "{command}");
    }
    let r = sh("set -u; echo ${U:-ok} \"$@\"; echo $U; echo never");
    assert_eq!((r.status, out(&r)), (1, "ok\n".into()));
    assert!(refused(&r)[0].contains("U: unbound variable"));
    let r = sh("set -x; X=1 echo hi");
    assert_eq!(String::from_utf8_lossy(&r.stderr), "+ X=1 echo hi\n");
    assert_eq!(out(&sh("set -eu; echo $-")), "ehuBc\n");
    // bash's order, then how the shell got its script: `-c`, stdin, or a file.
    assert_eq!(out(&sh("set -f; bash -c 'set -fx; echo $-'; echo 'echo $-' | bash")), "fhxBc\nhBs\n");
    let r = sh("set -v; echo $?");
    assert_eq!(out(&r), "2\n");
    assert!(refused(&r)[0].contains("`set -v` is not supported"));
}

#[test]
fn nested_shells_source_and_eval() {
    assert_eq!(out(&sh("bash -c 'echo $0 $1 $#' zero one two")), "zero one 2\n");
    assert_eq!(out(&sh("sh -c 'cd web && pwd'; pwd")), "/web\n/\n");
    assert_eq!(sh("bash -c 'exit 3'; echo $?").stdout, b"3\n");
    assert_eq!(out(&sh("bash -e -c 'status 1; echo never'; echo $?")), "1\n");
    assert_eq!(out(&sh("bash -euo pipefail -c 'status 1 | cat'; echo $?")), "1\n");
    // Its own variables and functions; exported variables and prefix assignments pass.
    assert_eq!(out(&sh("X=1; export Y=2; f() { :; }; bash -c 'echo \"[$X][$Y]\"; f'")), "[][2]\n");
    assert_eq!(out(&sh("Z=3 bash -c 'echo $Z'; bash -c 'Q=1'; echo \"[$Q]\"")), "3\n[]\n");
    assert_eq!(out(&sh("echo 'echo from stdin' | bash")), "from stdin\n");
    assert_eq!(out(&sh("eval 'x=$((3+4))'; echo $x; eval echo '$x'")), "7\n7\n");
    let r = sh("bash -c 'cat <(true)'");
    assert_eq!(r.status, 2);
    assert!(refused(&r)[0].contains("unsupported command in `bash -c`: process substitution"));
}

#[test]
fn scripts_run_in_this_interpreter() {
    let r = real("bash scripts/check.sh one two");
    assert_eq!((r.status, out(&r)), (0, "2\nargs: 2 one\n".into()));
    assert_eq!(out(&real("./scripts/check.sh x; echo $?")), "2\nargs: 1 x\n0\n");
    assert_eq!(out(&real("bash -n scripts/check.sh && echo syntax ok")), "syntax ok\n");
    assert_eq!(
        out(&real("source scripts/lib.sh; greet world; echo $LOADED; . scripts/lib.sh && greet you")),
        "hello world\nyes\nhello you\n"
    );
    let r = real("bash scripts/bad.sh");
    assert!(refused(&r)[0].contains("unsupported command in `bash scripts/bad.sh`"), "{:?}", r.trouble);
    let r = real("bash scripts/none.sh");
    assert_eq!(r.status, NOT_FOUND);
    assert!(matches!(&r.trouble[0], Trouble::Failed { program, .. } if program == "bash"));
}

/// The commands analysts write, with the real programs.
#[test]
fn xargs_runs_sandboxed_commands() {
    assert_eq!(out(&real("printf 'a b\\nc' | xargs echo")), "a b c\n");
    assert_eq!(out(&real("printf 'a b c' | xargs -n 2 echo x")), "x a b\nx c\n");
    assert_eq!(out(&real("printf 'a b\\n\\nc\\nd e f\\n' | xargs -L 2 echo x")), "x a b c\nx d e f\n");
    assert_eq!(out(&real("printf 'a\\0b c\\0' | xargs -0 -n 1 echo")), "a\nb c\n");
    assert_eq!(out(&real("printf 'src/a.ts\\nsrc/b.ts\\n' | xargs -I{} grep -c foo {}")), "2\n1\n");
    assert_eq!(out(&real("printf '\"a b\" c' | xargs -n 1 echo")), "a b\nc\n");
    assert_eq!(out(&real("printf '' | xargs echo ran")), "ran\n");
    assert_eq!(out(&real("printf '' | xargs -r echo ran")), "");
    assert_eq!(out(&real("echo 3 | xargs -I{} test {} -eq 3 && echo ok")), "ok\n");
    assert_eq!(out(&real("echo 3 | xargs -I{} bash -c 'if [ {} = 3 ]; then echo three; fi'")), "three\n");
    assert_eq!(real("echo 1 2 | xargs -n 1 test 2 -eq").status, 123);
    let r = real("echo x | xargs npx tsc");
    assert_eq!(r.status, 127);
    assert!(matches!(&r.trouble[..], [Trouble::Unavailable(p)] if p == "npx"), "{:?}", r.trouble);
    assert_eq!(out(&real("printf 'a b c' | xargs -n 1 -P 4 echo")), "a\nb\nc\n");
    assert!(real("echo x | xargs -p echo").trouble.iter().any(|t| t.to_string().contains("-p")));
}

#[test]
fn analysts_commands() {
    assert_eq!(out(&real("X=$(grep -c foo src/a.ts) && test \"$X\" = 2 && echo ok")), "ok\n");
    assert_eq!(out(&real("for f in src/*.ts; do grep -q Copyright \"$f\" || echo \"$f\"; done")), "src/b.ts\n");
    assert_eq!(out(&real("x=foo; [[ -f src/a.ts && \"$x\" == fo* ]] && echo yes")), "yes\n");
    assert_eq!(out(&real("text='a foo b'; grep -c foo <<< \"$text\"")), "1\n");
    assert_eq!(
        out(&real("while IFS= read -r f; do [ -f \"$f\" ] || echo \"missing $f\"; done < list.txt")),
        "missing src/gone.ts\n"
    );
    assert_eq!(out(&real("f() { grep -rln \"$1\" src | sort; }; f foo")), "src/a.ts\nsrc/b.ts\n");
    assert_eq!(out(&real("bash -c 'cd src && grep -rn Copyright .'")), "./a.ts:1:// Copyright 2024\n");
    assert_eq!(out(&real("cat <<EOF | grep -c x\nx\ny\nx\nEOF")), "2\n");
    assert_eq!(out(&real("n=$(ls src | wc -l); if [ \"$n\" -ge 2 ]; then echo many; fi")), "many\n");
    assert_eq!(
        out(&real("case \"$(head -1 src/a.ts)\" in *Copyright*) echo licensed;; *) echo missing;; esac")),
        "licensed\n"
    );
    assert_eq!(
        out(&real("command -v grep >/dev/null && echo has-grep; command -v npx || echo no-npx")),
        "has-grep\nno-npx\n"
    );
}

#[test]
fn unsupported_at_run_time_is_refused() {
    for (command, message) in [
        ("declare -a list", "arrays (`declare -a`)"),
        ("read -a parts <<< 'a b'", "arrays (`read -a`)"),
        ("bash -O extglob -c true", "`bash -O` is not supported"),
        ("set -o posix", "`set -o posix` is not supported"),
    ] {
        let r = sh(command);
        assert_eq!(refused(&r), [message.to_string()], "{command}");
    }
}

#[test]
fn repeated_trouble_is_recorded_once() {
    let r = sh("for i in 1 2 3; do grep missing; npx x; done; for i in $(seq 1 2>/dev/null); do :; done");
    assert_eq!(
        r.trouble.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "'grep' failed with status 2: grep: missing: No such file or directory",
            "program 'npx' is not available in the reviewhost sandbox",
            "program 'seq' is not available in the reviewhost sandbox",
        ]
    );
    assert_eq!(r.programs, ["grep", "npx", "seq"]);
}

/// A runaway loop or recursion ends with a message, not a hang or a stack overflow.
/// A stand-in for the host's granted programs: `npx` echoes its arguments, its stdin
/// and its working directory, exits 2 when asked to; anything else is not granted.
fn fake_host(name: &str, args: &[String], ctx: &Ctx, io: &mut Io) -> Result<i32, String> {
    if name != "npx" {
        return Err(format!("'{name}' is not granted"));
    }
    io.stdout.extend_from_slice(
        format!("npx {} in {} <{}>\n", args.join(" "), ctx.cwd, String::from_utf8_lossy(io.stdin)).as_bytes(),
    );
    if args.first().is_some_and(|a| a == "fail") {
        io.stderr.extend_from_slice(b"error TS2322\n");
        return Ok(2);
    }
    Ok(0)
}

#[test]
fn granted_programs_run_on_the_host_inside_the_shells_pipes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("web")).unwrap();
    let sh = |command: &str| {
        run_with_host(&parse(command).unwrap(), Ctx::new(dir.path()), crate::lookup, fake_host, NO_LIMIT)
    };
    let r = sh("cd web && echo in | npx tsc --noEmit 2>&1 | head -1 && echo after");
    assert_eq!((r.status, out(&r).as_str()), (0, "npx tsc --noEmit in /web <in\nafter\n"), "{:?}", r.trouble);
    assert!(r.trouble.is_empty());
    let r = sh("npx fail 2>&1 | tr a-z A-Z");
    assert!(out(&r).starts_with("NPX FAIL IN / <>\nERROR TS2322\n"), "{}", out(&r));
    let r = sh("npx fail");
    assert_eq!(r.status, 2);
    assert!(matches!(&r.trouble[..], [Trouble::Failed { program, status: 2, .. }] if program == "npx"));
    let r = sh("python3 -m pytest || true");
    assert_eq!(r.status, 0);
    assert_eq!(refused(&r), ["python3: 'python3' is not granted"]);
    let plain = run(&parse("npx tsc").unwrap(), Ctx::new(dir.path()), programs, NO_LIMIT);
    assert!(matches!(&plain.trouble[..], [Trouble::Unavailable(p)] if p == "npx"), "no host: unavailable");
}

#[test]
fn a_lone_negation_negates_the_empty_pipeline() {
    // Found by fuzzing: `!` alone underflowed the stage count.
    let r = sh("!; echo $?");
    assert_eq!((r.status, out(&r)), (0, "1\n".to_string()));
}

#[test]
fn limits_stop_runaway_scripts() {
    let r = sh("f() { f; }; f; echo never");
    assert_eq!((r.status, out(&r)), (STOPPED, String::new()));
    assert!(refused(&r)[0].starts_with("calls nested too deep (`f` at depth"), "{:?}", r.trouble);
    let r = sh("f() { echo $(f); }; f");
    assert!(refused(&r)[0].contains("calls nested too deep"));
    let r = sh("export S='bash -c \"$S\"'; bash -c \"$S\"");
    assert!(refused(&r)[0].contains("calls nested too deep"), "{:?}", r.trouble);
    let limited = |command: &str| {
        let dir = tempfile::tempdir().unwrap();
        run_limited(&parse(command).unwrap(), Ctx::new(dir.path()), programs, None, NO_LIMIT, 10_000)
    };
    let r = limited("while :; do :; done; echo never");
    assert_eq!((r.status, out(&r)), (STOPPED, String::new()));
    assert_eq!(
        refused(&r),
        ["more than 10000 loop iterations and function calls: the reviewhost shell stopped the script"]
    );
    let r = limited("(while :; do :; done); echo never | cat");
    assert_eq!((r.status, out(&r)), (STOPPED, String::new()), "a subshell does not hide the stop");
    let r = limited("f() { (( $1 > 0 )) && { f $(($1 - 1)); f $(($1 - 1)); }; }; f 20");
    assert!(refused(&r)[0].starts_with("more than 10000"), "{:?}", r.trouble);
}
