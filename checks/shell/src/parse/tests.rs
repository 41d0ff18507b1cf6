//! The parser's own tests.

use super::*;

#[test]
fn parentheses_open_at_once_are_bounded_before_parsing() {
    // Found by fuzzing: the parser's backtracking is exponential in unclosed `(`.
    let deep = format!("{}~((| sort | uniq -c > /dev/null", "(".repeat(29));
    let started = std::time::Instant::now();
    let error = parse(&deep).unwrap_err();
    assert!(error.0.contains("parentheses open at once"), "{error:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    // Quoted and escaped parentheses are text, not nesting.
    let quoted = format!("grep -E '{}x' f && echo \\( \\(", "(".repeat(40));
    assert!(parse(&quoted).is_ok());
    assert!(parse("(cd web && (grep -q x f || true))").is_ok());
}

#[test]
fn ansi_c_quoting_decodes_what_bash_does() {
    let text = |source: &str| match &parse(source).unwrap().0[0].first.commands[0] {
        Command::Simple { words, .. } => literal(&words[1]).unwrap(),
        other => panic!("{other:?}"),
    };
    assert_eq!(text("echo $'_\\u03bc_'"), "_\u{3bc}_");
    assert_eq!(text("echo $'\\U0001F600'"), "\u{1f600}");
    assert_eq!(text("echo $'a\\tb\\x41\\101\\0101\\cA\\e\\?'"), "a\tbAA\u{8}1\u{1}\u{1b}?");
    assert!(parse("echo $'\\xff'").unwrap_err().0.contains("not a character"));
    assert!(parse("echo '${x' \\${y}").is_ok());
    assert!(parse("for x_1 in a b; do echo hi; done").is_ok());
}

#[test]
fn numbers_the_grammar_would_panic_on_are_refused() {
    // Found by fuzzing: brush-parser unwraps these parses.
    for source in [
        "grep x f 22222222222222222222222222>&1",
        "echo 2147483648>out",
        "echo {1..99999999999999999999}",
        "echo {-9223372036854775808..1}",
        "echo {1..3..99999999999999999999}",
    ] {
        let error = parse(source).unwrap_err();
        assert!(error.0.contains("is too large"), "{source}: {error:?}");
    }
    // Found by fuzzing: brush-parser's tokenizer panics in these here-documents.
    for source in [
        "<<F $(\n)\nF",
        "cat <<EOF | grep $(echo\nx)\nEOF",
        "cat <<E `echo\n`\nE",
        "gr<<F $))))<F $(\n)\nF",
        "<<F $())))${$$}<F $(?)\nF",
        "nullgr<<F $)\"))\n\n)<F $(\n)\nF",
    ] {
        let error = parse(source).unwrap_err();
        assert!(error.0.contains("here-document"), "{source:?}: {error:?}");
    }
    // Found by fuzzing: the tokenizer runs away on delimiters that are not plain words.
    for source in [
        "(\u{ff}@)<<-\u{c})\u{1}\u{17}lll ",
        "cat <<EOF$x",
        "cat <<'EOF",
        "cat << 'E F'",
        "\"$(grcat@\u{fe}<< <>\u{1}|fs ",
        "''\"$(<< >s ",
        "grep -n \"<<\" f",
    ] {
        assert!(parse(source).unwrap_err().0.contains("not a plain word"), "{source:?}");
    }
    // Every `<<` outside single quotes counts: refused, never misread.
    assert!(parse("echo \"a << b\"").is_err());
    assert!(parse("python3 -c 'b = bytearray(64 << 20)\nprint(len(b))'").is_ok());
    assert!(parse("echo '<<'").is_ok());
    assert!(parse("echo '${x}' '<<'").is_err(), "single quotes are not trusted with a ${{");
    // Found by fuzzing: nested array subscripts took exponential time.
    for source in ["${e[${e[\"!${e[${e[o\"\"}} \" }}j", "echo ${a[0]}", "echo ${#a[@]} ${!a[@]}", "!${ e[@F"] {
        assert!(parse(source).unwrap_err().0.contains("arrays"), "{source:?}");
    }
    assert!(parse("echo ${a} ${#a} ${a:-[x]} [x]").is_ok());
    // Found by fuzzing: a body with unbalanced substitutions never ended.
    let unbalanced = "cat <<EOF\nitest \"$(grep -c x\n\"$((i\nEOF\n";
    assert!(parse(unbalanced).unwrap_err().0.contains("unbalanced substitutions"));
    assert!(parse("cat <<'EOF'\nitest \"$(grep -c x\nEOF\n").is_ok());
    assert!(parse("cat <<EOF\nvalue: $(echo x) ${HOME} `date`\nEOF\n").is_ok());
    // Found by fuzzing: an unterminated body with substitutions in it never ended.
    for source in ["cat 0<<EOF | grep -c x\n###s\ng< $(\n)\n", "cat <<-EOF\nx\n  EOF"] {
        assert!(parse(source).unwrap_err().0.contains("without its end line `EOF`"), "{source:?}");
    }
    for source in [
        "cat <<EOF\nx\nEOF",
        "cat <<-'EOF'\n\tx\n\tEOF",
        "python3 - <<\"PY\"\nprint(1)\nPY",
        "cat <<\\END\nx\nEND",
        "echo $((1 << 2)) $((x<<y))",
        "cat <<EOF|grep x\nx\nEOF",
        "cat <<< word",
    ] {
        assert!(parse(source).is_ok(), "{source:?}");
    }
    // Found by fuzzing: an operator this scan takes for an arithmetic shift (an unclosed
    // `((` before it) that the tokenizer reads as a here-document, with a substitution
    // after it on its line: the tokenizer's unwrap panicked.
    for source in ["x ((i <<F $)))<F $(\n)\nF", "echo $((1 << 2)) $(date)"] {
        assert!(parse(source).unwrap_err().0.contains("a substitution after a here-document operator"), "{source:?}");
    }
    // Found by fuzzing: nested or unclosed `case` statements, each doubling the time.
    for source in ["case x in a) x;".repeat(20), format!("{}x{}", "case x in a) ".repeat(20), "; esac".repeat(20))] {
        assert!(parse(&source).unwrap_err().0.contains("`case` statements nested"), "{source:?}");
    }
    assert!(parse("case $1 in a) case $2 in b) echo ab;; esac;; *) echo other;; esac").is_ok());
    // Found by fuzzing: the tokenizer grows without bound on `$[` in a delimiter.
    for source in ["cat <<EOF$[  ", "echo $[1+2]", "echo \"it's $[1]\""] {
        assert!(parse(source).unwrap_err().0.contains("`$[…]` arithmetic"), "{source:?}");
    }
    assert!(parse("grep -E '\\$[0-9]' f && echo \\$[ \"\\$[\"").is_ok());
    for source in [
        "cat <<EOF | grep x\n$(echo body) ${x}\nEOF",
        "cat <<< \"$(echo 1)\"",
        "cat <<<${x}",
        "cat <<EOF\n$(date)\nEOF\necho $(pwd)",
    ] {
        assert!(parse(source).is_ok(), "{source:?}");
    }
    // Found by fuzzing: brush-parser's brace grammar backtracked exponentially in
    // unclosed braces; the expansion here reads them once (bash prints the word as is).
    let braces = format!("echo z{{a,b{}B{{zfz}}", "{".repeat(14));
    let started = std::time::Instant::now();
    assert!(parse(&braces).is_ok());
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    let nested = format!("echo {}", "{a,".repeat(12) + &"b}".repeat(12));
    assert!(parse(&nested).unwrap_err().0.contains("more than 8 `{`"));
    assert!(parse("ls src/{a,b}/{c,d}.ts").is_ok());
    for source in [
        "echo 2147483647>/dev/null",
        "echo {1..3}",
        "git log --since=1700000000000000000000",
        "echo 0000000000000001>&2",
        "jq '. < 0.12345678901234567890123456788' in.json",
    ] {
        assert!(parse(source).is_ok(), "{source}");
    }
}

fn words(source: &str) -> Vec<Vec<Piece>> {
    let script = parse(source).unwrap();
    match &script.0[0].first.commands[0] {
        Command::Simple { words, .. } => words.iter().map(|w| w.0.clone()).collect(),
        other => panic!("not simple: {other:?}"),
    }
}

fn text(source: &str) -> Vec<String> {
    words(source)
        .iter()
        .map(|w| {
            w.iter()
                .map(|p| match p {
                    Piece::Text { text, .. } => text.clone(),
                    other => format!("{other:?}"),
                })
                .collect()
        })
        .collect()
}

#[test]
fn quoting_keeps_backslashes_where_bash_does() {
    assert_eq!(text(r"grep '\bTug\b' f"), ["grep", r"\bTug\b", "f"]);
    assert_eq!(text(r#"grep "a\|b" f"#), ["grep", r"a\|b", "f"]);
    assert_eq!(text(r#"echo "say \"hi\" \$x""#), ["echo", r#"say "hi" $x"#]);
    assert_eq!(text(r"echo a\ b \| c"), ["echo", "a b", "|", "c"]);
    assert_eq!(text(r#"echo '' """#), ["echo", "", ""]);
    assert_eq!(text(r"echo $'a\tb'"), ["echo", "a\tb"]);
    assert_eq!(text("echo status=ok"), ["echo", "status=ok"]);
}

#[test]
fn lists_pipelines_and_subshells() {
    let script = parse("(cd web && grep -rl TODO .) | wc -l; ! true || false").unwrap();
    assert_eq!(script.0.len(), 2);
    assert_eq!(script.0[0].first.commands.len(), 2);
    assert!(matches!(script.0[0].first.commands[0], Command::Subshell { .. }));
    assert!(script.0[1].first.negated);
    assert_eq!(script.0[1].rest[0].0, Op::Or);
}

#[test]
fn redirections() {
    let script = parse("grep x f 2>&1 >/dev/null 2>/dev/null < in &>/dev/null").unwrap();
    let Command::Simple { redirects, .. } = &script.0[0].first.commands[0] else { panic!() };
    assert_eq!(redirects[0], Redirect::Duplicate { fd: 2, to: 1 });
    assert!(matches!(&redirects[1], Redirect::Output { fds, .. } if fds == &[1]));
    assert!(matches!(&redirects[2], Redirect::Output { fds, .. } if fds == &[2]));
    assert!(matches!(&redirects[3], Redirect::Input { .. }));
    assert!(matches!(&redirects[4], Redirect::Output { fds, .. } if fds == &[1, 2]));
}

#[test]
fn unsupported_constructs_are_named() {
    for (source, construct) in [
        ("a=(1 2)", "arrays"),
        ("a[0]=1", "arrays"),
        ("echo ${a[0]}", "arrays"),
        ("echo ${!name}", "indirect expansion"),
        ("echo ${x@Q}", "parameter transformation"),
        ("echo $!", "background jobs"),
        ("diff <(ls) <(ls)", "process substitution"),
        ("sleep 1 &", "background jobs"),
        ("coproc cat", "`coproc`"),
        ("[[ -R x ]]", "name references"),
        ("f() { [[ ! -x < b ]]; }", "unary operator"),
        ("[[ a && -n > b ]]", "unary operator"),
        ("echo ~", "tilde expansion"),
        ("time grep x f", "`time`"),
    ] {
        let err = parse(source).unwrap_err();
        assert!(err.0.contains(construct), "{source}: {err}");
    }
    assert!(parse("echo 'unterminated").unwrap_err().0.contains("syntax error"));
}

#[test]
fn brace_expansion() {
    let all = |source: &str| -> Vec<String> { text(source) };
    assert_eq!(all("echo src/{a,b}.ts"), ["echo", "src/a.ts", "src/b.ts"]);
    assert_eq!(
        all("echo {1..3} {a..c} {5..1..2} x{,y}"),
        ["echo", "1", "2", "3", "a", "b", "c", "5", "3", "1", "x", "xy"]
    );
    assert_eq!(all("echo {a,{b,c}}{1,2}"), ["echo", "a1", "a2", "b1", "b2", "c1", "c2"]);
    // Quoted, escaped, or not a list: not an expansion.
    assert_eq!(
        all(r#"grep -E 'a{1,3}' "{x,y}" \{p,q\} {} {z} x{"#),
        ["grep", "-E", "a{1,3}", "{x,y}", "{p,q}", "{}", "{z}", "x{"]
    );
    let Command::Group { kind: Compound::For { words: Some(words), .. }, .. } =
        &parse("for i in {1..3}; do :; done").unwrap().0[0].first.commands[0]
    else {
        panic!()
    };
    assert_eq!(words.len(), 3);
    for (source, error) in [
        ("echo {1..100000}", "of more than 10000 words"),
        ("echo {a,b}{1..5001}", "of more than 10000 words"),
        ("echo {1..6000}; echo {1..6000}", "brace expansions of more than 10000 words"),
    ] {
        assert!(parse(source).err().is_some_and(|e| e.0.contains(error)), "{source}");
    }
    assert!(parse("echo ${x:-a,b} $(echo {a,b})").is_ok());
}

#[test]
fn compound_commands_and_expansions() {
    let kind = |source: &str| match &parse(source).unwrap().0[0].first.commands[0] {
        Command::Group { kind, .. } => kind.clone(),
        other => panic!("not a group: {other:?}"),
    };
    assert!(matches!(kind("for f in a b; do :; done"), Compound::For { words: Some(w), .. } if w.len() == 2));
    assert!(matches!(kind("for f; do :; done"), Compound::For { words: None, .. }));
    assert!(matches!(kind("until false; do :; done"), Compound::While { until: true, .. }));
    assert!(matches!(kind("case $x in a|b) ;; *) ;& esac"), Compound::Case { arms, .. }
        if arms[0].patterns.len() == 2 && arms[1].then == CaseThen::FallThrough));
    assert!(matches!(kind("f() { :; }"), Compound::Function { name } if name == "f"));
    assert!(matches!(kind("[[ -f a && $x == b* ]]"), Compound::Test(TestExpr::And(..))));
    assert!(matches!(kind("(( i++ ))"), Compound::Arithmetic(_)));
    assert!(matches!(kind("for ((i=0; i<3; i++)); do :; done"), Compound::ArithmeticFor { .. }));
    let Command::Simple { assignments, words: argv, .. } = &parse("X=1 Y+=2 cmd").unwrap().0[0].first.commands[0]
    else {
        panic!()
    };
    assert_eq!((assignments.len(), assignments[1].append, argv.len()), (2, true, 1));
    let op = |source: &str| match &words(source)[1][0] {
        Piece::Parameter { expansion, .. } => expansion.op.clone(),
        other => panic!("not a parameter: {other:?}"),
    };
    assert!(matches!(op("echo ${X:-d}"), ParameterOp::Default { colon: true, .. }));
    assert!(matches!(op("echo ${X-d}"), ParameterOp::Default { colon: false, .. }));
    assert!(matches!(op("echo ${X##*/}"), ParameterOp::RemovePrefix { longest: true, .. }));
    assert!(matches!(op("echo ${X//a/b}"), ParameterOp::Replace { kind: Replace::All, .. }));
    assert!(matches!(op("echo ${#X}"), ParameterOp::Length));
    assert!(matches!(words("echo $((1 + 2))")[1][0], Piece::Arithmetic { .. }));
    // A here-document's quotes are text; a quoted delimiter turns expansion off.
    let here = |source: &str| match &parse(source).unwrap().0[0].first.commands[0] {
        Command::Simple { redirects, .. } => redirects[0].clone(),
        other => panic!("{other:?}"),
    };
    let Redirect::Here { text, newline: false, .. } = here("cat <<EOF\nsay \"$x\"\nEOF") else { panic!() };
    assert!(text.0.iter().any(|p| matches!(p, Piece::Parameter { .. })));
    let Redirect::Here { text, .. } = here("cat <<'EOF'\n$x\nEOF") else { panic!() };
    assert_eq!(literal(&text).as_deref(), Some("$x\n"));
    assert!(matches!(here("cat <<< word"), Redirect::Here { newline: true, .. }));
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let deep = format!("{}true{}", "(".repeat(500), ")".repeat(500));
    assert!(parse(&deep).unwrap_err().0.contains("nested more than"));
    // Found by fuzzing: `${` stays open past a `)`.
    let braces = format!("))){}", "${)\u{15})))".repeat(250));
    assert!(parse(&braces).unwrap_err().0.contains("nested more than"));
}
