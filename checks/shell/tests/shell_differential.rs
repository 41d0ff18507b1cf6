//! Generative differential test of the interpreter against the real bash: hand-written
//! cases, then random scripts from a grammar of what the interpreter claims (simple
//! commands with the sandbox's programs, pipelines, `&&`/`||`/`!`, subshells, groups,
//! `if`/`for`/`while`/`until`/`case`, functions with `local`, `shift` and `return`,
//! `[[ ]]`, `(( ))`, `$(( ))`, parameter expansion, quoting, `$(…)` and backquotes, globs,
//! here-documents and here-strings, `set -e`/`-u`/`-o pipefail`, `exit`, `$?`). Each runs
//! in `/bin/bash --norc --noprofile -c` (bash 5.2, `LC_ALL=C.UTF-8`, an environment of
//! `PATH` alone, stdin `/dev/null`) and in the interpreter, over the same tree of files
//! with odd names (spaces, a leading dash, non-ASCII, a hidden file, a missing final
//! newline); stdout and exit status must be identical. A script the interpreter refuses
//! (a parse error naming the construct, or [`exec::Trouble::Refused`]/`Unavailable`) is
//! counted apart: the assertion is an `error`, never a silent difference. More than a
//! tenth refused would mean the grammar strays from what the interpreter claims.
//!
//! `REVIEWHOST_SHELL_SEED` picks the seed (printed), `REVIEWHOST_SHELL_CASES` the number
//! of generated cases, `REVIEWHOST_SHELL_SHOW` how many differences to print;
//! `REVIEWHOST_SHELL_ONLY` runs one given script instead. Skips with a message when
//! `/bin/bash` is missing.
//!
//! Left out of the grammar, each with its reason:
//! - writes to files and `tee` (refused by design: the sandbox is read-only);
//! - `$$`, `$RANDOM`, `$PPID`, `$0`, `pwd`/`$PWD`, `~` and `date` (they name a process, a
//!   host path or a moment, so they cannot agree); `type`/`command -v` (bash names
//!   `/usr/bin/...`, paths the sandbox does not have);
//! - `seq`, `rev` and the like (not in the sandbox), `grep -r` and `find` (directory
//!   order, which is the filesystem's);
//! - `2>&1` (error messages are bash's and each tool's own wording; only stdout is
//!   compared); arrays, `BASH_REMATCH` and `PIPESTATUS` (refused by design);
//! - early-exiting readers (`head`, `grep -q`, `tail -n 0`) after a pipe under
//!   `pipefail` (the writer may die of SIGPIPE, or not: a race in bash, never in the
//!   buffered pipelines here);
//! - until the interpreter matches bash there: `${x:?msg}` on an unset `x` (bash ends
//!   the shell with status 127, the interpreter with 1); arithmetic errors (a division
//!   by zero, an operand from an unset variable: bash abandons the rest of the current
//!   line and goes on with the next with `$?` 1, the interpreter ends the script), so
//!   the numeric variables are always set and never divide by zero; `printf`'s `%c` of
//!   an empty argument (bash writes a NUL byte), field widths and precisions over
//!   multibyte text (bash counts bytes), and numeric conversions of blank arguments or
//!   of numbers with trailing blanks (`printf %d ' '` fails in bash); `for v in ; do` with no words (brush-parser reads it as
//!   `for v; do`, over `"$@"`); assignments in a here-document or here-string of a
//!   program (`$((n+=1))`, `${x:=v}`: bash expands a program's redirections in the
//!   child process, so they are lost; the interpreter keeps them);
//!   `${1:=v}` (bash abandons the line, the interpreter ends the script); `[[ -v 1 ]]`
//!   (bash tests the positional parameter, the interpreter a variable named `1`);
//!   a substitution's output that is not UTF-8 (`$(cut -c1-3 é.txt)`: bash keeps the
//!   bytes, the interpreter's variables are text and take U+FFFD);
//! - globs from the root (`/*`, say from `${x: -2}` of `sub/*`): the sandbox's root is
//!   the tree, the host's is not.

use std::path::Path;
use std::process::{Command, Stdio};

use reviewhost_check_shell::{exec, lookup, parse};
use reviewhost_tool::{Ctx, NO_LIMIT};

#[path = "../../../fuzz/stable/rng.rs"]
mod rng;
use rng::Rng;

/// The tree every script runs in.
const TREE: &[(&str, &str)] = &[
    ("a.txt", "alpha\nbeta\ngamma\n"),
    ("b.txt", "one two\nthree\n\nfour"),
    ("c d.txt", "x y z\n"),
    ("-dash", "dash\n"),
    ("é.txt", "日本語\nçé\n"),
    (".hidden", "h\n"),
    ("nums", "3\n10\n2\n10\n-1\n"),
    ("csv", "a,b,c\n1,,3\n,x,\n"),
    ("empty", ""),
    ("sub/one.log", "x\n"),
    ("sub/two.log", "y\ny\n"),
];

/// Files as a script names them.
const FILES: &[&str] = &[
    "a.txt",
    "b.txt",
    "'c d.txt'",
    "\"c d.txt\"",
    "./-dash",
    "é.txt",
    ".hidden",
    "nums",
    "csv",
    "empty",
    "sub/one.log",
    "sub/two.log",
    "nope",
];

const LITERALS: &[&str] =
    &["foo", "bar", "a", "b", "abc", "A1", "x.y", "-x", "--", "é", "日本", "a=b", "1", "2", "10", "-3", "0", "x,y"];

const QUOTED: &[&str] = &[
    "'a b'",
    "\"a  b\"",
    "''",
    "\"\"",
    "'*'",
    "'it'\\''s'",
    "$'a\\tb'",
    "$'\\x41\\u00e9'",
    "$'l1\\nl2'",
    "a\\ b",
    "\\*",
    "\"\\\\\"",
    "\"a\\\"b\"",
    "'\\n'",
    "\"\\$x\"",
    "'$x'",
    "\"a'b\"",
];

/// Values of the string variables `x`, `y` and `p`.
const VALUES: &[&str] = &[
    "foo",
    "'a b'",
    "'  lead'",
    "'x*'",
    "'*.txt'",
    "''",
    "-n",
    "é日",
    "a.b.c",
    "path/to/file.tar.gz",
    "AbC",
    "'a  b  c'",
    "1",
    "42",
    "bar",
    "'a,b,,c'",
];

/// Values of the numeric variables `n` and `m`.
const NUMBERS: &[&str] = &["0", "1", "2", "3", "7", "-4", "10", "255"];

const GLOBS: &[&str] = &[
    "*",
    "*.txt",
    "*.log",
    "sub/[ot]*",
    "?.txt",
    "[a-c]*",
    ".*",
    "*.none",
    "s*",
    "*[[:space:]]*",
    "[!a]*",
    "sub/*.log",
    "-*",
    "*.[tl]*",
    "\"*\".txt",
    "'*'",
];

fn is_positional(name: &str) -> bool {
    name.bytes().all(|b| b.is_ascii_digit())
}

struct Gen {
    rng: Rng,
    depth: usize,
    /// Inside a function body: `$1`, `local`, `shift` and `return` make sense.
    in_function: bool,
    /// Loops around: `break` and `continue` make sense.
    loops: usize,
    /// Functions defined so far (called only after their definition, never from inside
    /// one, so no recursion).
    functions: Vec<&'static str>,
    /// `set -o pipefail` is on: no early-exiting reader after a pipe.
    pipefail: bool,
    /// Loop counters handed out (`k0`, `k1`, ...), apart from the script's variables.
    counters: usize,
    /// Writing a here-document or here-string: no expansion that assigns.
    pure: bool,
    /// Writing a command substitution: no reader that cuts a character in two.
    captured: bool,
}

impl Gen {
    fn chance(&mut self, percent: usize) -> bool {
        self.rng.chance(percent)
    }

    fn pick(&mut self, items: &[&'static str]) -> &'static str {
        self.rng.pick(items)
    }

    fn below(&mut self, n: usize) -> usize {
        self.rng.below(n)
    }

    fn string_var(&mut self) -> &'static str {
        if self.in_function && self.chance(30) {
            return self.pick(&["1", "2", "v"]);
        }
        self.pick(&["x", "y", "p", "x", "unset_var"])
    }

    fn number_var(&mut self) -> &'static str {
        self.pick(&["n", "m", "n"])
    }

    fn parameter(&mut self) -> String {
        let v = self.string_var();
        let braced = |body: String| format!("${{{body}}}");
        match self.below(34) {
            0 => format!("${v}"),
            1 => braced(v.into()),
            2 => braced(format!("{v}:-dflt")),
            3 => braced(format!("{v}-dflt")),
            4 => braced(format!("{v}:+set")),
            5 => braced(format!("{v}+set")),
            6 if !self.pure && !is_positional(v) => braced(format!("{v}:=asg")),
            6 | 7 => braced(format!("#{v}")),
            8 => braced(format!("{v}#*.")),
            9 => braced(format!("{v}##*.")),
            10 => braced(format!("{v}%.*")),
            11 => braced(format!("{v}%%.*")),
            12 => braced(format!("{v}#a")),
            13 => braced(format!("{v}/a/X")),
            14 => braced(format!("{v}//a/X")),
            15 => braced(format!("{v}/#a/X")),
            16 => braced(format!("{v}/%c/X")),
            17 => braced(format!("{v}:1")),
            18 => braced(format!("{v}:1:2")),
            19 => braced(format!("{v}: -2")),
            20 => braced(format!("{v}:0:1")),
            21 => braced(format!("{v}^^")),
            22 => braced(format!("{v},,")),
            23 => braced(format!("{v}^")),
            24 => braced(format!("{v}//[ab]/_")),
            25 => braced(format!("{v}/ /_")),
            26 => braced(format!("{v}##*/")),
            27 => braced(format!("{v}%/*")),
            28 => braced(format!("{v}:-$n")),
            29 => braced(format!("{v}:-\"a b\"")),
            30 => braced(format!("{v}//\\*/S")),
            31 => braced(format!("{v}:+\"[${v}]\"")),
            32 => braced(format!("{v}%\"${{{v}#?}}\"")),
            _ => {
                let n = self.number_var();
                braced(format!("{v}:{n}:1"))
            }
        }
    }

    fn arith(&mut self) -> String {
        let n = self.number_var();
        let m = self.number_var();
        let pick = self.below(22);
        let pick = if self.pure && matches!(pick, 8 | 19 | 20) { 0 } else { pick };
        match pick {
            0 => format!("{n}+1"),
            1 => format!("{n}*{m}"),
            2 => format!("{n}/2"),
            3 => format!("{n}%3"),
            4 => format!("{n}<{m}"),
            5 => format!("{n}==1?5:6"),
            6 => "1<<3".into(),
            7 => format!("{n}**2"),
            8 => format!("{n}+={m}"),
            9 => format!("({n}+1)*2"),
            10 => format!("0x10+{n}"),
            11 => "010+1".into(),
            12 => format!("-{n}"),
            13 => format!("!{n}"),
            14 => format!("~{n}"),
            15 => format!("{n}&3|4^1"),
            16 => format!("{n}>2&&{m}<3"),
            17 => format!("{n}/({m}|1)"),
            18 => format!("${n}+${m}"),
            19 => format!("{n}++"),
            20 => format!("{n}--, {m}"),
            _ => format!("{n}>={m}||{n}!=0"),
        }
    }

    fn substitution(&mut self) -> String {
        if self.depth > 2 {
            return "$(echo deep)".into();
        }
        match self.below(9) {
            0 => "$(echo hi)".into(),
            1 => format!("$(cat {})", self.pick(FILES)),
            2 => {
                let v = self.string_var();
                format!("$(printf '%s' \"${v}\")")
            }
            3 => "`echo b`".into(),
            4 => format!("$(head -n 1 {})", self.pick(FILES)),
            5 => {
                let v = self.string_var();
                format!("$(echo \"${v}\" | tr a-z A-Z)")
            }
            6 if !self.functions.is_empty() => {
                let f = self.pick(&self.functions.clone());
                let args = self.words(2);
                format!("$({f} {args})")
            }
            7 => "$(echo $(echo in) out)".into(),
            _ => {
                self.depth += 1;
                let inner = self.captured_pipeline();
                self.depth -= 1;
                format!("$({inner})")
            }
        }
    }

    fn word(&mut self) -> String {
        match self.below(20) {
            0..=3 => self.pick(LITERALS).into(),
            4..=6 => self.pick(QUOTED).into(),
            7..=9 => self.parameter(),
            10..=11 => format!("\"{}\"", self.parameter()),
            12 => format!("$(({}))", self.arith()),
            13 => self.substitution(),
            14 => format!("\"{}\"", self.substitution()),
            15 => self.pick(GLOBS).into(),
            16 => format!("\"${} ${}\"", self.string_var(), self.number_var()),
            17 => self.pick(&["$#", "\"$@\"", "\"$*\"", "$@", "$*", "$-"]).into(),
            18 => self.pick(&["{a,b}", "x{1..3}", "{b..a}", "{1,2}{x,y}", "a{,.}b"]).into(),
            _ => {
                let a = self.pick(LITERALS);
                let b = self.parameter();
                format!("{a}{b}")
            }
        }
    }

    fn words(&mut self, max: usize) -> String {
        let n = self.below(max + 1);
        (0..n).map(|_| self.word()).collect::<Vec<_>>().join(" ")
    }

    fn file(&mut self) -> &'static str {
        self.pick(FILES)
    }

    /// A program reading a file or stdin: `None` for the file reads stdin.
    fn reader(&mut self, file: Option<&str>, stage_after_pipe: bool) -> String {
        let f = file.map(|f| format!(" {f}")).unwrap_or_default();
        let early = stage_after_pipe && self.pipefail;
        loop {
            let command = match self.below(38) {
                0 => format!("cat{f}"),
                1 => format!("cat -n{f}"),
                2 => format!("wc -l{f}"),
                3 => format!("wc -c{f}"),
                4 => format!("wc -w{f}"),
                5 => format!("sort{f}"),
                6 => format!("sort -n{f}"),
                7 => format!("sort -rn{f}"),
                8 => format!("sort -u{f}"),
                9 => format!("sort -t, -k2{f}"),
                10 if !early => format!("head -n {}{f}", self.below(4)),
                11 if !early && !self.captured => format!("head -c 3{f}"),
                // `tail -n 0` exits before reading, as `head` may.
                12 => format!("tail -n {}{f}", usize::from(early) + self.below(4)),
                13 => format!("tail -n +2{f}"),
                14 => format!("cut -d, -f2{f}"),
                15 if !self.captured => format!("cut -c1-3{f}"),
                16 => format!("tr a-z A-Z{}", file.map(|f| format!(" < {f}")).unwrap_or_default()),
                17 => format!("tr -d a{}", file.map(|f| format!(" < {f}")).unwrap_or_default()),
                18 => format!("tr -s ' '{}", file.map(|f| format!(" < {f}")).unwrap_or_default()),
                19 => format!("grep {}{f}", self.pick(&["a", "o", "'^t'", "x", "é", "'[0-9]'", "''"])),
                20 => format!("grep -c {}{f}", self.pick(&["a", "e", "."])),
                21 => format!("grep -n {}{f}", self.pick(&["a", "e", "."])),
                22 => format!("grep -v {}{f}", self.pick(&["a", "e", "^$"])),
                23 => format!("grep -i {}{f}", self.pick(&["A", "E"])),
                24 => format!("grep -o {}{f}", self.pick(&["a", "[a-z]*", "."])),
                25 if !early => format!("grep -q {}{f}", self.pick(&["a", "zz"])),
                26 => format!("grep -E {}{f}", self.pick(&["'a|o'", "'^(t|o)'", "'e+'"])),
                27 => format!("grep -w {}{f}", self.pick(&["two", "a"])),
                28 => format!("grep -x {}{f}", self.pick(&["three", "3", "h"])),
                29 => format!("sed -n 2p{f}"),
                30 => format!("sed 's/a/X/g'{f}"),
                31 => format!("sed 1d{f}"),
                32 => format!("awk '{{print $1}}'{f}"),
                33 => format!("awk -F, '{{print $2}}'{f}"),
                34 => format!("awk 'NR==2'{f}"),
                35 => format!("awk '{{n+=length($0)}} END {{print n+0}}'{f}"),
                36 => format!("uniq{f}"),
                37 => format!("uniq -c{f}"),
                _ => continue,
            };
            return command;
        }
    }

    /// A command that writes something without reading stdin.
    fn producer(&mut self) -> String {
        match self.below(14) {
            0..=3 => format!("echo {}", self.words(3)),
            4 => format!("echo -n {}", self.words(2)),
            5 => format!("echo -e {}", self.pick(&["'a\\tb'", "'x\\ny'", "'\\x41'", "'c\\c'"])),
            6..=7 => {
                let format = self.pick(&[
                    "'%s\\n'",
                    "'%s|'",
                    "'%d\\n'",
                    "'%03d\\n'",
                    "'%x\\n'",
                    "'%s=%s\\n'",
                    "'%b\\n'",
                    "'%%\\n'",
                    "'<%s>'",
                ]);
                let args = if format.contains('d') || format.contains('x') {
                    // Numbers, or words that are plainly not: not blank ones.
                    let n = self.below(4);
                    let args: Vec<String> = (0..n)
                        .map(|_| match self.below(3) {
                            0 => format!("${}", self.number_var()),
                            1 => format!("$(({}))", self.arith()),
                            _ => self.pick(&["1", "10", "-3", "0", "abc", "x.y", "''", "0x1f", "010"]).to_string(),
                        })
                        .collect();
                    args.join(" ")
                } else {
                    self.words(3)
                };
                format!("printf {format} {args}")
            }
            8..=10 => {
                let f = self.file();
                self.reader(Some(f), false)
            }
            11 => format!("ls {}", self.pick(&["", "sub", "-a sub", "*.txt", "-1", "nope"])),
            12 => {
                format!("basename {}", self.pick(&["sub/one.log", "sub/one.log .log", "/a/b/", "x", "\"$x\"", "-- -a"]))
            }
            _ => format!("dirname {}", self.pick(&["sub/one.log", "/a/b/", "x", "\"$p\"", "/"])),
        }
    }

    /// A pipeline inside `$(...)`.
    fn captured_pipeline(&mut self) -> String {
        let was = std::mem::replace(&mut self.captured, true);
        let p = self.pipeline();
        self.captured = was;
        p
    }

    fn pipeline(&mut self) -> String {
        let mut stages = vec![self.producer()];
        let more = if self.chance(40) { 1 + self.below(2) } else { 0 };
        for _ in 0..more {
            stages.push(self.reader(None, true));
        }
        let p = stages.join(" | ");
        if self.chance(8) { format!("! {p}") } else { p }
    }

    fn test_expr(&mut self) -> String {
        let v = self.string_var();
        let n = self.number_var();
        match self.below(14) {
            0 => format!("[ -f {} ]", self.file()),
            1 => format!("[ -d {} ]", self.pick(&["sub", "a.txt", "nope"])),
            2 => format!("[ -n \"${v}\" ]"),
            3 => format!("[ -z \"${v}\" ]"),
            4 => format!("[ \"${v}\" = {} ]", self.pick(&["foo", "''", "bar", "'a b'"])),
            5 => format!("[ \"${n}\" -lt {} ]", self.pick(&["3", "0", "-1"])),
            6 => format!("test -s {}", self.file()),
            7 => format!("[ ! -e {} ]", self.file()),
            8 => format!("[ \"${v}\" != x -a -e a.txt ]"),
            9 => format!("[ ${n} -ge 2 -o ${n} -eq 0 ]"),
            10 => format!("test \"${v}\""),
            11 => format!("[ {} \\< {} ]", self.pick(LITERALS), self.pick(LITERALS)),
            12 => format!("[ ${v} ]"),
            _ => format!("[ -e {} ]", self.pick(GLOBS)),
        }
    }

    fn double_bracket(&mut self) -> String {
        let v = self.string_var();
        let n = self.number_var();
        let term = match self.below(16) {
            0 => format!("${v} == {}", self.pick(&["a*", "*.*", "foo", "\"a*\"", "?", "*[[:space:]]*", "[a-f]*"])),
            1 => format!("${v} != {}", self.pick(&["b", "\"\"", "*o"])),
            2 => format!("${v} =~ {}", self.pick(&["^[a-z]+$", "\\.", "^a", "b|c", "'a.b'", "[[:digit:]]", "^$"])),
            3 => format!("-n ${v}"),
            4 => format!("-z ${v}"),
            5 => format!("${n} -gt {}", self.pick(&["1", "-5", "0"])),
            6 => format!("${n} -eq {}", self.pick(&["2", "0", "$m"])),
            7 => format!("{} < {}", self.pick(LITERALS), self.pick(LITERALS)),
            8 => format!("-f {}", self.file()),
            9 => format!("-d {}", self.pick(&["sub", "a.txt"])),
            10 => format!("! -e {}", self.file()),
            11 => format!("${v} == \"${v}\""),
            12 => format!("{n} -lt 3"),
            13 if !is_positional(v) => format!("-v {v}"),
            14 => format!("${v} > {}", self.pick(LITERALS)),
            _ => format!("( -n ${v} ) && ${n} -ne 1"),
        };
        let extra = match self.below(6) {
            0 => format!(" && -e {}", self.file()),
            1 => " || -z $y".into(),
            _ => String::new(),
        };
        let neg = if self.chance(10) { "! " } else { "" };
        format!("[[ {neg}{term}{extra} ]]")
    }

    fn condition(&mut self) -> String {
        match self.below(10) {
            0..=2 => self.test_expr(),
            3..=5 => self.double_bracket(),
            6 => format!("(( {} ))", self.arith()),
            7 => self.pick(&["true", "false", "! false", ":"]).into(),
            8 => format!("grep -q {} {}", self.pick(&["a", "zz", "o"]), self.file()),
            _ => {
                let a = self.condition();
                let b = self.condition();
                format!("{a} {} {b}", self.pick(&["&&", "||"]))
            }
        }
    }

    /// Statements joined by `;` or newlines, ending so that a keyword may follow.
    fn list(&mut self, max: usize) -> String {
        let n = 1 + self.below(max);
        let mut out = String::new();
        for _ in 0..n {
            let s = self.statement();
            out.push_str(&s);
            if !s.ends_with('\n') {
                out.push_str(if self.chance(70) { "; " } else { "\n" });
            }
        }
        out
    }

    fn counter(&mut self) -> String {
        self.counters += 1;
        format!("k{}", self.counters)
    }

    fn compound(&mut self) -> String {
        self.depth += 1;
        let s = match self.below(11) {
            0 => format!("( {})", self.list(3)),
            1 => format!("{{ {}}}", self.list(3)),
            2 => {
                let cond = self.condition();
                let then = self.list(2);
                let mut s = format!("if {cond}; then {then}");
                if self.chance(30) {
                    let c = self.condition();
                    let l = self.list(2);
                    s.push_str(&format!("elif {c}; then {l}"));
                }
                if self.chance(50) {
                    let l = self.list(2);
                    s.push_str(&format!("else {l}"));
                }
                s + "fi"
            }
            3 | 4 => {
                let var = self.pick(&["i", "x", "w"]);
                let words = match self.below(4) {
                    0 => self.pick(GLOBS).to_string(),
                    1 => "\"$@\"".to_string(),
                    // At least one word: brush-parser reads `for v in ; do` as `for v; do`.
                    _ => {
                        let first = self.word();
                        format!("{first} {}", self.words(3))
                    }
                };
                self.loops += 1;
                let body = self.list(2);
                self.loops -= 1;
                format!("for {var} in {words}; do echo \"[${var}]\"; {body}done")
            }
            5 => {
                let k = self.counter();
                self.loops += 1;
                let body = self.list(2);
                self.loops -= 1;
                let end = 1 + self.below(3);
                format!("for (({k}=0; {k}<{end}; {k}++)); do echo \"${k}\"; {body}done")
            }
            6 => {
                let k = self.counter();
                let until = self.chance(40);
                let cond = if until { format!("[ ${k} -ge 2 ]") } else { format!("(( {k} < 2 ))") };
                self.loops += 1;
                let body = self.list(2);
                self.loops -= 1;
                format!("{k}=0; {} {cond}; do {k}=$(({k}+1)); {body}done", if until { "until" } else { "while" })
            }
            7 | 8 => {
                // No substitution in the subject: `$?` in an arm would see its status.
                let subject = match self.below(3) {
                    0 => format!("\"${}\"", self.string_var()),
                    1 => format!("${}", self.string_var()),
                    _ => self.pick(LITERALS).to_string(),
                };
                let mut s = format!("case {subject} in ");
                for _ in 0..1 + self.below(3) {
                    let pattern = self.pick(&[
                        "foo",
                        "a*",
                        "*.*",
                        "''",
                        "\"a b\"",
                        "[0-9]*",
                        "-*",
                        "?",
                        "*' '*",
                        "bar|baz",
                        "[[:upper:]]*",
                        "x\\*",
                        "\"$y\"",
                        "$x",
                    ]);
                    let body = self.list(2);
                    let end = self.pick(&[";;", ";;", ";;", ";&", ";;&"]);
                    s.push_str(&format!("{pattern}) {body}{end} "));
                }
                if self.chance(50) {
                    let body = self.list(1);
                    s.push_str(&format!("*) {body};; "));
                }
                s + "esac"
            }
            9 => {
                let k = self.counter();
                let f = self.file();
                format!("{k}=0; while read -r line; do {k}=$(({k}+1)); echo \"${k}:$line\"; done < {f}")
            }
            _ => self.here_document(),
        };
        self.depth -= 1;
        s
    }

    fn here_document(&mut self) -> String {
        self.pure = true;
        let document = self.here_document_text();
        self.pure = false;
        document
    }

    fn here_document_text(&mut self) -> String {
        let reader = if self.chance(50) { "cat".to_string() } else { self.reader(None, true) };
        let after = if self.chance(30) { format!(" | {}", self.reader(None, true)) } else { String::new() };
        match self.below(5) {
            0 | 1 => {
                let lines: Vec<String> = (0..1 + self.below(3))
                    .map(|_| {
                        let p = self.parameter();
                        let a = self.arith();
                        self.pick(&["line $x", "plain text", "tab\there", "\\$x is \\`q\\`", "'quoted' \"dq\"", ""])
                            .to_string()
                            + &match self.below(4) {
                                0 => format!(" {p}"),
                                1 => format!(" $(({a}))"),
                                2 => " $(echo sub)".into(),
                                _ => String::new(),
                            }
                    })
                    .collect();
                format!("{reader} <<EOF{after}\n{}\nEOF\n", lines.join("\n"))
            }
            2 => format!("{reader} <<'EOF'{after}\n$x ${{y}} $(echo no) `q`\n\\t\nEOF\n"),
            3 => format!("{reader} <<-EOF{after}\n\tindented $n\n\t\tmore\nEOF\n"),
            _ => {
                let w = self.word();
                format!("{reader} <<< {w}{after}")
            }
        }
    }

    fn function_definition(&mut self, name: &'static str) -> String {
        let was = std::mem::replace(&mut self.in_function, true);
        let loops = std::mem::replace(&mut self.loops, 0);
        self.depth += 1;
        let mut body = String::new();
        // First a command that sets `$?`: a call's arguments may hold substitutions.
        body.push_str(&format!("local v={}; ", self.pick(&["\"$1\"", "$1", "x", "\"${2:-none}\"", "\"$*\""])));
        body.push_str(&self.list(3));
        if self.chance(40) {
            body.push_str(&format!("return {}; ", self.pick(&["0", "1", "3", "$#", "$n"])));
        }
        self.depth -= 1;
        self.in_function = was;
        self.loops = loops;
        let style = if self.chance(80) { format!("{name}()") } else { format!("function {name}") };
        format!("{style} {{ {body}}}")
    }

    fn statement(&mut self) -> String {
        match self.below(26) {
            0..=5 => self.pipeline(),
            6 => {
                let v = self.string_var();
                let v = if is_positional(v) { "x" } else { v };
                let value = match self.below(4) {
                    0 => self.pick(VALUES).to_string(),
                    1 => self.substitution(),
                    _ => self.word(),
                };
                format!("{v}={value}")
            }
            7 => {
                let n = self.number_var();
                match self.below(3) {
                    0 => format!("{n}={}", self.pick(NUMBERS)),
                    1 => format!("{n}=$(({}))", self.arith()),
                    _ => format!("(( {} ))", self.arith()),
                }
            }
            8 | 9 => "echo \"s=$?\"".into(),
            10..=12 if self.depth < 3 => self.compound(),
            13 => {
                let a = self.pipeline();
                let b = self.pipeline();
                let op = self.pick(&["&&", "||"]);
                format!("{a} {op} {b}")
            }
            14 => {
                let c = self.condition();
                let p = self.pipeline();
                format!("{c} {} {p}", self.pick(&["&&", "||"]))
            }
            15 if !self.functions.is_empty() && !self.in_function => {
                let f = self.pick(&self.functions.clone());
                let args = self.words(3);
                format!("{f} {args}")
            }
            16 if self.in_function => match self.below(4) {
                0 => "shift".into(),
                1 => format!("local {}={}", self.pick(&["x", "w"]), self.word()),
                2 => "echo \"$#:$1:${2-}\"".into(),
                _ => format!("return {}", self.pick(&["0", "2", "$?"])),
            },
            17 if self.loops > 0 => self.pick(&["break", "continue"]).into(),
            18 => format!("({}exit {})", if self.chance(50) { "echo in; " } else { "" }, self.below(4)),
            19 if self.depth == 0 && self.chance(20) => format!("exit {}", self.pick(&["0", "1", "3", "$?"])),
            20 => format!("set -- {}", self.words(3)),
            21 => format!("{} 2>/dev/null", self.pipeline()),
            22 => format!("{} >/dev/null", self.pipeline()),
            23 => self.condition(),
            24 => format!("echo \"{} {}\"", self.parameter(), self.parameter()),
            _ => format!("{}=$( {} )", self.pick(&["x", "y"]), self.captured_pipeline()),
        }
    }

    fn script(&mut self) -> String {
        let mut s = String::new();
        for (option, percent) in [("set -e", 12), ("set -u", 10), ("set -o pipefail", 10)] {
            if self.chance(percent) {
                s.push_str(option);
                s.push('\n');
                self.pipefail |= option.ends_with("pipefail");
            }
        }
        for v in ["x", "y", "p"] {
            if self.chance(80) {
                s.push_str(&format!("{v}={}\n", self.pick(VALUES)));
            }
        }
        for v in ["n", "m"] {
            s.push_str(&format!("{v}={}\n", self.pick(NUMBERS)));
        }
        for name in ["f", "g"] {
            if self.chance(30) {
                let def = self.function_definition(name);
                s.push_str(&def);
                s.push('\n');
                self.functions.push(name);
            }
        }
        s.push_str(&self.list(5));
        if self.chance(50) {
            s.push_str("echo \"end $?\"\n");
        }
        s
    }
}

/// Hand-written cases, run before the generated ones.
const FIXED: &[&str] = &[
    "f() { local v=$1; shift; echo \"$v:$#:$*\"; return 3; }; f a b c; echo $?",
    "false; echo $(true) $?; false; x=$(true); echo $?; false; echo \"$(false)\" $?; f() { echo $?; }; false; f $(true)",
    "echo $-; set -eu; echo $-; bash -c 'set -f; echo $-'",
    "for i in 1 2; do (continue; echo in$i); echo x | break; echo \"[$(break; echo no)]\"; done",
    "tail -n 0 nope a.txt; echo $?; tail -c 0 nope; echo $?; tail -n +0 a.txt",
    "[[ \"-x\" < b ]] && echo yes",
    "for f in *; do echo \"[$f]\"; done; echo .* s*/*",
    "cat b.txt | while read -r l; do echo \"<$l>\"; done; echo $?",
    "set -o pipefail; false | true; echo $?; set -e; ! false; (false) || echo or; echo end",
    "x='a b'; case $x in a\\ b) echo one;;& *) echo two;& q) echo three;; esac",
];

fn real(script: &str, dir: &Path) -> (Vec<u8>, i32) {
    let out = Command::new("timeout")
        .args(["10", "/bin/bash", "--norc", "--noprofile", "-c", script])
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run /bin/bash");
    (out.stdout, out.status.code().unwrap_or(-1))
}

enum Ours {
    Answer(Vec<u8>, i32, Vec<u8>),
    Refused(String),
}

fn ours(script: &str, dir: &Path) -> Ours {
    let parsed = match parse::parse(script) {
        Ok(parsed) => parsed,
        Err(e) => return Ours::Refused(format!("unsupported: {e}")),
    };
    let run = exec::run(&parsed, Ctx::new(dir), lookup, NO_LIMIT);
    if let Some(t) = run.trouble.iter().find(|t| matches!(t, exec::Trouble::Refused(_) | exec::Trouble::Unavailable(_)))
    {
        return Ours::Refused(t.to_string());
    }
    Ours::Answer(run.stdout, run.status, run.stderr)
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn compare_all() {
    let seed = env_number("REVIEWHOST_SHELL_SEED", 0x5e11_d1ff);
    let cases = env_number("REVIEWHOST_SHELL_CASES", 1200) as usize;
    let show = env_number("REVIEWHOST_SHELL_SHOW", 15) as usize;
    eprintln!("shell differential: seed {seed}, {} hand-written and {cases} generated cases", FIXED.len());
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text) in TREE {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    let mut rng = Rng(seed.max(1));
    let generated = (0..cases).map(|_| {
        let mut g = Gen {
            rng: Rng(rng.next()),
            depth: 0,
            in_function: false,
            loops: 0,
            functions: Vec::new(),
            pipefail: false,
            counters: 0,
            pure: false,
            captured: false,
        };
        g.script()
    });
    let (mut identical, mut refused, mut failures) = (0, Vec::new(), Vec::new());
    let started = std::time::Instant::now();
    // One script alone, to look at a difference found before.
    let scripts: Box<dyn Iterator<Item = String>> = match std::env::var("REVIEWHOST_SHELL_ONLY") {
        Ok(script) => Box::new(std::iter::once(script)),
        Err(_) => Box::new(FIXED.iter().map(|s| s.to_string()).chain(generated)),
    };
    for (n, script) in scripts.enumerate() {
        if std::env::var_os("REVIEWHOST_SHELL_TRACE").is_some() {
            eprintln!("case {n}: {script:?}");
        }
        let (real_out, real_status) = real(&script, dir.path());
        let ours = std::panic::catch_unwind(|| ours(&script, dir.path()));
        match ours {
            Err(_) => failures.push(format!("case {n}: panicked\n{script}\n")),
            Ok(Ours::Refused(why)) => refused.push(format!("case {n}: {why}\n{script}\n")),
            Ok(Ours::Answer(out, status, err)) if (&out, status) == (&real_out, real_status) => {
                let _ = err;
                identical += 1;
            }
            Ok(Ours::Answer(out, status, err)) => failures.push(format!(
                "case {n}:\n{script}\n  bash: {:?} exit {real_status}\n  ours: {:?} exit {status}\n  our stderr: {:?}\n",
                String::from_utf8_lossy(&real_out),
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&err),
            )),
        }
    }
    let total = identical + refused.len() + failures.len();
    eprintln!(
        "shell differential: {total} cases, {identical} identical, {} refused, {} different ({:.1}s)",
        refused.len(),
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    for r in refused.iter().take(if std::env::var_os("REVIEWHOST_SHELL_REFUSALS").is_some() { usize::MAX } else { 3 }) {
        eprintln!("refused {r}");
    }
    for f in failures.iter().take(show) {
        eprintln!("{f}");
    }
    assert!(refused.len() * 10 <= total, "{} of {total} cases refused: the grammar strays", refused.len());
    assert!(failures.is_empty(), "{} of {total} cases differ from bash (seed {seed})", failures.len());
}

#[test]
fn generated_scripts_match_bash() {
    if !Path::new("/bin/bash").exists() {
        eprintln!("skipped: /bin/bash is missing");
        return;
    }
    // The interpreter's stack budget is the component's; a debug build's frames are larger.
    std::thread::Builder::new().stack_size(256 << 20).spawn(compare_all).expect("thread").join().expect("compare");
}
