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
}

#[test]
fn read_takes_inputs_opened_on_other_descriptors() {
    // Input on another descriptor is not stdin; `read -u` reads it, every reader inside
    // the command that opened it sharing its position.
    let script = "cat 3<f.txt <<< stdin\nwhile read -u 3 a; do echo \"[$a]\"; done 3<f.txt\n\
                  read -u 3 x 3<<EOF\nhi there\nEOF\necho \"$x\"\n\
                  { read -u 4 a; read -u 4 b; echo \"$b$a\"; } 4<two.txt\nread -u 3 -N 2 z 3<<< abc; echo $z";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "one\n").unwrap();
    std::fs::write(dir.path().join("two.txt"), "l1\nl2\n").unwrap();
    let run = exec::run(&parse::parse(script).unwrap(), Ctx::new(dir.path()), lookup, NO_LIMIT);
    assert_eq!(String::from_utf8_lossy(&run.stdout), "stdin\n[one]\nhi there\nl2l1\nab\n");
    assert!(run.trouble.is_empty(), "{:?}", run.trouble);
    // One that nothing opened: bash's error, status 1, not a refusal.
    let (stdout, status, trouble, stderr) = run_script("read -u 5 y; echo rc=$?");
    assert_eq!((stdout.as_str(), status), ("rc=1\n", 0));
    assert!(stderr.contains("read: 5: invalid file descriptor: Bad file descriptor"), "{stderr}");
    assert!(!trouble.iter().any(|t| matches!(t, exec::Trouble::Refused(_))));
    // Input on stdout or stderr would make the command's output fail: refused.
    let (_, _, trouble, _) = run_script("echo a 1<f.txt");
    assert!(trouble.iter().any(|t| matches!(t, exec::Trouble::Refused(_))));
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

/// Stdout, status and stderr of a script bash rejects as it runs it: a failure of the
/// script, never a refusal.
fn failed(script: &str) -> (String, i32, String) {
    let (stdout, status, trouble, stderr) = run(script).unwrap_or_else(|| panic!("refused: {script}"));
    assert!(!trouble.iter().any(|t| matches!(t, exec::Trouble::Refused(_))), "{script}: {trouble:?}");
    (stdout, status, stderr)
}

#[test]
fn a_bad_substitution_abandons_the_rest_of_its_line() {
    let (stdout, status, stderr) = failed("echo a; echo ${a&}; echo b");
    assert_eq!((stdout.as_str(), status), ("a\n", 1));
    assert_eq!(stderr, "bash: ${a&}: bad substitution\n");
    assert_eq!(failed("echo a\necho ${#x-default}\necho b $?").0, "a\nb 1\n");
    assert_eq!(failed("(\necho ${#x-default}\necho in\n)\necho out $?").0, "out 1\n");
    assert_eq!(failed("v=abcde\necho ${#v:1:3}; echo same line\necho next").0, "next\n");
    assert_eq!(failed("echo a $(echo ${a&}; echo in) b; echo c").0, "a b\nc\n");
    assert_eq!(failed("echo ${a&} | cat; echo b").0, "b\n");
    assert_eq!(failed("echo a && echo ${a&} || echo c; echo d\necho e").0, "a\ne\n");
    assert_eq!(failed("if echo ${a&}; then echo t; else echo f; fi\necho e $?").0, "e 1\n");
    assert_eq!(failed("f() { echo ${a&}; }; f; echo b\necho c $?").0, "c 1\n");
    assert_eq!(failed("x=${a&}; echo b").1, 1);
    let (stdout, status, _) = failed("set -e; echo ${a&}\necho after");
    assert_eq!((stdout.as_str(), status), ("", 1));
    // A later `exit` is not a bad substitution.
    assert_eq!(failed("(echo ${a&}) || exit 3\necho never").1, 3);
}

#[test]
fn names_bash_rejects_fail_the_command() {
    let (stdout, _, stderr) = failed("for - in a b c; do echo hi; done; echo st=$?");
    assert_eq!(stdout, "st=1\n");
    assert_eq!(stderr, "bash: `-': not a valid identifier\n");
    let (stdout, _, stderr) = failed("echo a; $foo-bar() { ls ; }; echo st=$?");
    assert_eq!(stdout, "a\nst=1\n");
    assert_eq!(stderr, "bash: `$foo-bar': not a valid identifier\n");
    assert_eq!(failed("(\n$foo-bar() { ls ; }\n)").1, 1);
}

#[test]
fn parameter_expansion_patterns_as_bash_reads_them() {
    let script = "x='slash / brace } hi'; echo 'ambiguous:' ${x///}; echo ${x///b/Z}";
    assert_eq!(out(script), "ambiguous: slash brace } hi\nslash / brace } hi\n");
    assert_eq!(out("x=a/b/c; echo ${x////} ${x///b/Z} ${x/#/Z} ${x/%/Z}"), "abc aZ/c Za/b/c a/b/cZ\n");
    // bash 5.2 gives `[^]]` a fixed length of two in `${X/pat/rep}`: nothing matches.
    assert_eq!(out("pat='[^]]'\ns='ab^cd^'\necho ${s//$pat/z}"), "ab^cd^\n");
    // Blanks inside `${…}` are kept.
    let script =
        "foo='a b c d'; echo \"[${foo%c d}]\" \"[${foo%c  d}]\"; y='a  b'; echo \"[${y/a  b/c  d}]\" \"[${q:-1  2}]\"";
    assert_eq!(out(script), "[a b ] [a b c d]\n[c  d] [1  2]\n");
    assert_eq!(out("z=${q:-a\t b}; echo \"[$z]\""), "[a\t b]\n");
    // A backslash keeps `}` from closing the expansion and goes.
    assert_eq!(
        out("echo \"${var-}}\"\necho \"${var-\\}}\"\necho \"${var-'}'}\"\necho \"${var-\"}\"}\""),
        "}\n}\n'}'\n}\n"
    );
}

#[test]
fn backslashes_inside_backquotes() {
    let script = "echo \"x `echo hi`\"\necho \"x `echo \"hi\"`\"\necho \"x `echo \\\"hi\\\"`\"";
    assert_eq!(out(script), "x hi\nx hi\nx hi\n");
    let script =
        "echo 1 `echo $`\necho 2 `echo \\$`\necho 3 `echo \\\\$`\necho 4 `echo \\\\\\$`\necho 5 `echo \\\\\\\\$`";
    assert_eq!(out(script), "1 $\n2 $\n3 $\n4 $\n5 \\$\n");
    let quoted = "echo \"1 `echo $`\"\necho \"2 `echo \\$`\"\necho \"3 `echo \\\\$`\"\necho \"4 `echo \\\\\\$`\"\necho \"5 `echo \\\\\\\\$`\"";
    assert_eq!(out(quoted), "1 $\n2 $\n3 $\n4 $\n5 \\$\n");
    let script = "echo `echo \\\\\\\"foo\\\\\\\"` -\necho `echo \\\\\\\\\"foo\\\\\\\\\"` -\necho `echo \\\\\\\\\\\"foo\\\\\\\\\\\"` -";
    assert_eq!(out(script), "\\foo\\ -\n\\foo\\ -\n\\\"foo\\\" -\n");
    assert_eq!(out("echo `echo \\`echo nested\\``"), "nested\n");
    assert_eq!(out("x=1; echo `echo \\$x $x`"), "1 1\n");
}

#[test]
fn brace_expansion_on_the_text_as_written() {
    assert_eq!(out("echo -{\\X\"b\",'cd'}-"), "-Xb- -cd-\n");
    assert_eq!(out("a=A\necho -{$a,b}-"), "-A- -b-\n");
    assert_eq!(
        out("echo \\{{a,b} {{a,b} {a,b}} {a,b}_{ {x}_{a,b} {x{a,b}}"),
        "{a {b {a {b a} b} a_{ b_{ {x}_a {x}_b {xa} {xb}\n"
    );
    assert_eq!(
        out("echo -{01..03}-\necho -{09..12}-\necho -{12..07}-"),
        "-01- -02- -03-\n-09- -10- -11- -12-\n-12- -11- -10- -09- -08- -07-\n"
    );
    assert_eq!(
        out("echo -{01..3}- {-05..2} {1..10..3} {a..e..-2} {1..4..0}"),
        "-01- -02- -03- -05 -04 -03 -02 -01 000 001 002 1 4 7 10 a c e 1 2 3 4\n"
    );
    assert_eq!(
        out("echo a{X,,Y}b -{A,={a,b}=,B}- {a,b{c,d}e} {,a} \"{a,b}\" {a\\,b,c} {a..c}{1,2}"),
        "aXb ab aYb -A- -=a=- -=b=- -B- a bce bde a {a,b} a,b c a1 a2 b1 b2 c1 c2\n"
    );
    assert_eq!(
        out("echo {1.3} {1...3} {1__3} {1..3..} -{a,b,1..3}- ${x:-{a,b\\}} $'{a,b}'"),
        "{1.3} {1...3} {1__3} {1..3..} -a- -b- -1..3- {a,b} {a,b}\n"
    );
}

/// [`run`] of a script the parser accepts.
fn run_script(script: &str) -> (String, i32, Vec<exec::Trouble>, String) {
    run(script).unwrap_or_else(|| panic!("the parser refused {script:?}"))
}

#[test]
fn positional_parameters_with_operators_and_empty_lists() {
    // `for x in;` loops over nothing (not over "$@"); an operator on `$@` applies to each
    // parameter; `$*`'s null test joins by IFS's first character only in double quotes;
    // unquoted `$@` keeps an empty parameter between others when IFS is not blank.
    let script = "set -- a b; for x in; do echo hi $x; done; for y\nin\ndo echo y$y; done\n\
                  set -- 1a 2a 3a; printf '<%s>' ${@%a} \"${@%a}\" ${@/a/b} \"${*#?}\" ${@^^}; echo\n\
                  f() { printf '<%s>' \"$@\"; echo; }\n\
                  set -- \"\" \"\"; IFS=; f \"${*:-x}\" ${*:-x} \"${@:+y}\" \"${*:+y}\" \"argv=${*-minus}\"; \
                  IFS=:; set -- a \"\" b; f $@ $*; unset IFS";
    assert_eq!(out(script), "<1><2><3><1><2><3><1b><2b><3b><a a a><1A><2A><3A>\n<x><y><><argv=>\n<a><><b><a><><b>\n");
}

#[test]
fn printf_into_a_variable_and_printenv() {
    let script = "printf -v v '%s-%d' x 7; echo \"$v\"; printf -v w %d zz; echo \"$? [$w]\"; printf -v 1x a; echo $?\n\
                  export E=1; printenv E; F=2 printenv F; printenv G; echo $?";
    assert_eq!(out(script), "x-7\n1 [0]\n2\n1\n2\n1\n");
    // An array element is what the sandbox lacks: a refusal, in printf -v as in arithmetic.
    for script in ["printf -v a[1] %s b", "s=42; echo $(( s[0] ))"] {
        let (_, _, trouble, _) = run(script).unwrap();
        assert!(trouble.iter().any(|t| matches!(t, exec::Trouble::Refused(m) if m.contains("arrays"))), "{script}");
    }
}
