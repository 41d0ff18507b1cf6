//! From a command string to the small AST the interpreter runs.
//!
//! brush-parser does the POSIX/bash grammar; this module keeps the subset analysts write
//! and names everything else, so an unsupported construct is an error that says what it
//! is (`arrays`, `process substitution`, `coproc`), never a silent misreading.
//!
//! Kept: simple commands with variable assignments (`X=1`, `X=1 cmd`), pipelines,
//! `&&`/`||`, `;`/newlines, `!`, subshells `( )`, groups `{ ;}`, `if/elif/else`, `for`
//! (also `for ((;;))`), `while`/`until`, `case`, function definitions, `[[ ]]`, `(( ))`,
//! quoting (single, double, `$'..'`, backslash), parameter expansion (`$X`, `${X:-d}`,
//! `${#X}`, `${X%pat}`, `${X/a/b}`, `$1`, `$@`, `$?`, ...), arithmetic `$(( ))`, command
//! substitution `$(..)`/backquotes, globs, the redirections `<`, `>`, `>>`, `N>&M`, `&>`,
//! here-documents and here-strings. Output redirections to files parse; the interpreter
//! refuses them unless the target is `/dev/null`.

use brush_parser::ast;
use brush_parser::word::{
    self, BraceExpressionMember, BraceExpressionOrText, ParameterExpr, ParameterTestType, SpecialParameter,
    SubstringMatchKind, WordPiece, WordPieceWithSource,
};
use brush_parser::{Parser, ParserOptions};

/// Commands run one after another (`;` or newline).
#[derive(Debug, Clone, PartialEq)]
pub struct Script(pub Vec<AndOr>);

/// `a && b || c`, evaluated left to right.
#[derive(Debug, Clone, PartialEq)]
pub struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(Op, Pipeline)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    And,
    Or,
}

/// `[!] a | b | c`.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    pub negated: bool,
    pub commands: Vec<Command>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `X=1 Y=2 cmd args`: without words, the assignments stay; with them, they hold
    /// for that command only.
    Simple { words: Vec<Word>, redirects: Vec<Redirect>, assignments: Vec<Assignment> },
    /// `( ... )`: `cd` and variables set inside do not leak out.
    Subshell { body: Script, redirects: Vec<Redirect> },
    /// `{ ...; }` and the other compound commands that run a body ([`Compound`]): loops,
    /// `case`, function definitions, `[[ ]]`, `(( ))`. One variant for all of them, so
    /// that code looking for the commands inside ([`crate::lint`]) sees loop and function
    /// bodies without knowing every construct.
    Group { body: Script, redirects: Vec<Redirect>, kind: Compound },
    /// `if c; then t; elif c2; then t2; else e; fi`.
    If { branches: Vec<(Script, Script)>, otherwise: Option<Script>, redirects: Vec<Redirect> },
}

/// What a [`Command::Group`] does with its body.
#[derive(Debug, Clone, PartialEq)]
pub enum Compound {
    /// `{ body; }`.
    Braces,
    /// `for name in words; do body; done`; without `in`, over the positional parameters.
    For { name: String, words: Option<Vec<Word>> },
    /// `for ((init; condition; step)); do body; done`.
    ArithmeticFor { init: Option<Word>, condition: Option<Word>, step: Option<Word> },
    /// `while condition; do body; done`, or `until`.
    While { condition: Script, until: bool },
    /// `case subject in arms esac` (the body is empty).
    Case { subject: Word, arms: Vec<CaseArm> },
    /// `name() body`: defines the function; the body is its command.
    Function { name: String },
    /// `[[ expression ]]` (the body is empty).
    Test(TestExpr),
    /// `(( expression ))` (the body is empty).
    Arithmetic(Word),
}

/// `pattern | pattern) body ;;`.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseArm {
    pub patterns: Vec<Word>,
    pub body: Script,
    pub then: CaseThen,
}

/// What follows a `case` arm that ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseThen {
    /// `;;`: the `case` is done.
    Stop,
    /// `;&`: the next arm's body runs too.
    FallThrough,
    /// `;;&`: the next arms' patterns are tested.
    TestNext,
}

/// The expression of `[[ ]]`. Words are not split or globbed; the right side of `==`
/// and `!=` is a pattern, of `=~` an extended regular expression.
#[derive(Debug, Clone, PartialEq)]
pub enum TestExpr {
    And(Box<TestExpr>, Box<TestExpr>),
    Or(Box<TestExpr>, Box<TestExpr>),
    Not(Box<TestExpr>),
    /// `-f path`, `-z text`, ...: the operator as `test` spells it.
    Unary(&'static str, Word),
    Binary(TestOp, Word, Word),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestOp {
    /// `==`, `=`: the right side is a pattern.
    Match,
    /// `!=`.
    NoMatch,
    /// `=~`.
    Regex,
    /// `<`, `>`: byte order.
    Before,
    After,
    /// `-eq`, `-lt`, ...: both sides are arithmetic.
    Integer(&'static str),
    /// `-nt`, `-ot`, `-ef`.
    Files(&'static str),
}

/// `NAME=value` or `NAME+=value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    pub name: String,
    pub value: Word,
    pub append: bool,
}

/// A word before expansion: pieces that are quoted or not (only unquoted text globs and
/// only unquoted substitutions are split into fields).
#[derive(Debug, Clone, PartialEq)]
pub struct Word(pub Vec<Piece>);

#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Text {
        text: String,
        quoted: bool,
    },
    /// `$X`, `${X:-default}`, `$1`, `$@`, `$?`, ...
    Parameter {
        expansion: Box<Expansion>,
        quoted: bool,
    },
    /// `$(...)` or backquotes.
    Substitution {
        script: Script,
        quoted: bool,
    },
    /// `$(( ... ))`: the text is expanded, then evaluated.
    Arithmetic {
        expression: Word,
        quoted: bool,
    },
}

/// A parameter expansion: which parameter, and what is done with its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Expansion {
    pub parameter: Parameter,
    pub op: ParameterOp,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parameter {
    Named(String),
    /// `$0`, `$1`, ...
    Positional(u32),
    /// `$?`.
    Status,
    /// `$#`.
    Count,
    /// `$@` (`joined: false`) and `$*`.
    All {
        joined: bool,
    },
    /// `$$`.
    ProcessId,
    /// `$-`.
    Options,
}

/// Words inside an operator are expanded only when the operator needs them. `colon`: an
/// empty value counts as unset (`${X:-d}` versus `${X-d}`).
#[derive(Debug, Clone, PartialEq)]
pub enum ParameterOp {
    Value,
    /// `${#X}`.
    Length,
    /// `${X:-word}`.
    Default {
        word: Word,
        colon: bool,
    },
    /// `${X:=word}`.
    Assign {
        word: Word,
        colon: bool,
    },
    /// `${X:+word}`.
    Alternative {
        word: Word,
        colon: bool,
    },
    /// `${X:?message}`.
    Error {
        word: Option<Word>,
        colon: bool,
    },
    /// `${X#pat}`, `${X##pat}`.
    RemovePrefix {
        pattern: Word,
        longest: bool,
    },
    /// `${X%pat}`, `${X%%pat}`.
    RemoveSuffix {
        pattern: Word,
        longest: bool,
    },
    /// `${X/pat/rep}` and its `//`, `/#`, `/%` forms.
    Replace {
        pattern: Word,
        replacement: Word,
        kind: Replace,
    },
    /// `${X:offset:length}`.
    Substring {
        offset: Word,
        length: Option<Word>,
    },
    /// `${X^^}`, `${X^}`, `${X,,}`, `${X,}`.
    Case {
        upper: bool,
        all: bool,
    },
}

/// Where `${X/pat/rep}` replaces: the first match, every match (`//`), a prefix (`/#`),
/// a suffix (`/%`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    First,
    All,
    Prefix,
    Suffix,
}

/// A redirection, by file descriptor (0 stdin, 1 stdout, 2 stderr).
#[derive(Debug, Clone, PartialEq)]
pub enum Redirect {
    /// `N>&M`: writes to N go where M goes.
    Duplicate { fd: i32, to: i32 },
    /// `N> target` / `N>> target`; `&> target` is fd 1 and 2.
    Output { fds: Vec<i32>, target: Word },
    /// `< file`.
    Input { target: Word },
    /// `N>&-`.
    Close { fd: i32 },
    /// A here-document (`newline: false`, its text ends with one) or a here-string
    /// `<<< word` (a newline is added): the expanded text is stdin.
    Here { text: Word, newline: bool },
}

/// A command the interpreter cannot run: the message names the construct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Deepest nesting of subshells, groups and substitutions accepted. Deeper input is an
/// error rather than a stack overflow in the interpreter.
pub const MAX_NESTING: usize = 64;

/// Deepest nesting of unquoted parentheses handed to the parser. brush-parser backtracks
/// over `(` versus `((` (a subshell or arithmetic), which costs time exponential in the
/// number of parentheses open at once: found by fuzzing, 29 unclosed `(` took minutes
/// (each level doubles it; 16 take ~2 ms natively). Analysts' commands nest two or three.
pub const MAX_PARENTHESES: usize = 16;

/// Most words the brace expansions (`{1..100}`) of one command string may produce
/// together: argument lists, not loops.
pub const MAX_BRACE_WORDS: usize = 10_000;

thread_local! {
    /// Words the brace expansions of the command string being parsed produced so far
    /// ([`MAX_BRACE_WORDS`]); [`parse`] starts it at 0.
    static BRACE_WORDS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn options() -> ParserOptions {
    ParserOptions {
        enable_extended_globbing: false,
        posix_mode: false,
        sh_mode: false,
        tilde_expansion_at_word_start: true,
        tilde_expansion_after_colon: false,
        ..ParserOptions::default()
    }
}

/// Parses `source` into a [`Script`].
pub fn parse(source: &str) -> Result<Script, Unsupported> {
    BRACE_WORDS.set(0);
    parse_nested(source, 0)
}

fn parse_nested(source: &str, depth: usize) -> Result<Script, Unsupported> {
    if depth > MAX_NESTING || nesting_depth(source) > MAX_NESTING {
        return Err(Unsupported(format!("commands nested more than {MAX_NESTING} levels deep")));
    }
    if parenthesis_depth(source) > MAX_PARENTHESES {
        return Err(Unsupported(format!("more than {MAX_PARENTHESES} parentheses open at once")));
    }
    if let Some(number) = overflowing_number(source) {
        return Err(Unsupported(format!("the number {number} is too large")));
    }
    if array_subscript(source) {
        return Err(Unsupported("arrays (`${name[…]}`)".into()));
    }
    if old_arithmetic(source) {
        return Err(Unsupported("`$[…]` arithmetic (bash's old form; write `$((…))`)".into()));
    }
    match here_documents(source) {
        Err(at) => {
            return Err(Unsupported(format!(
                "a here-document delimiter that is not a plain word (at byte {at}; write <<EOF, <<'EOF' or <<\"EOF\")"
            )));
        }
        Ok(documents) => {
            if let Some(delimiter) = documents.iter().find(|d| !d.ended(source)).map(|d| &d.delimiter) {
                return Err(Unsupported(format!("a here-document without its end line `{delimiter}`")));
            }
            if let Some(delimiter) = documents.iter().find(|d| d.unbalanced_body(source)).map(|d| &d.delimiter) {
                return Err(Unsupported(format!(
                    "a here-document `{delimiter}` whose body has unbalanced substitutions (quote its delimiter: <<'{delimiter}')"
                )));
            }
            if documents.iter().any(|d| substitution_after(source, d.at)) {
                return Err(Unsupported("a substitution after a here-document operator on the same line".into()));
            }
        }
    }
    let program = Parser::new(std::io::Cursor::new(source.as_bytes()), &options())
        .parse_program()
        .map_err(|e| Unsupported(format!("shell syntax error: {e}")))?;
    let mut items = Vec::new();
    for complete in program.complete_commands {
        items.extend(compound_list(&complete, depth)?);
    }
    Ok(Script(items))
}

/// A number brush-parser 0.4 would panic on (it unwraps its parse of them): a file
/// descriptor before `<` or `>` beyond `i32`, or a brace-sequence or tilde number
/// (after `{`, `..` or `~`, signed or not) beyond `i64`. Found by fuzzing (`fuzz/`): in the
/// component a panic is a trap, so the command is refused with the number instead.
fn overflowing_number(source: &str) -> Option<&str> {
    let bytes = source.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let digits = source[start..i].trim_start_matches('0');
        let fits = |max: u64| digits.is_empty() || digits.parse::<u64>().is_ok_and(|n| n <= max);
        let before = source[..start].trim_end_matches(['-', '+']);
        let descriptor = matches!(bytes.get(i), Some(b'<' | b'>'));
        let sequence = before.ends_with('{') || before.ends_with("..") || before.ends_with('~');
        if (descriptor && !fits(i32::MAX as u64)) || (sequence && !fits(i64::MAX as u64)) {
            return Some(&source[start..i]);
        }
    }
    None
}

/// Whether `source` has an array subscript in a parameter expansion (`${a[0]}`,
/// `${#a[@]}`, `${!a[@]}`): arrays are refused, and brush-parser 0.4's word grammar
/// takes exponential time on nested ones (`${e[${e[…`, found by fuzzing), so they are
/// refused before it sees them. Quotes are ignored: refused, never misread.
fn array_subscript(source: &str) -> bool {
    let bytes = source.as_bytes();
    source.match_indices("${").any(|(at, _)| {
        let mut i = at + 2;
        while matches!(bytes.get(i), Some(b'#' | b'!' | b' ' | b'\t' | b'\n')) {
            i += 1;
        }
        while bytes.get(i).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
            i += 1;
        }
        bytes.get(i) == Some(&b'[')
    })
}

/// For each byte of `source`, whether it is inside single quotes (a `'` outside double
/// quotes opens them; a backslash outside them escapes the next byte). Double quotes are
/// tracked only to tell a `'` inside them from one that quotes.
fn single_quoted(source: &str) -> Vec<bool> {
    let bytes = source.as_bytes();
    let mut quoted = vec![false; bytes.len() + 1];
    let (mut single, mut double, mut i) = (false, false, 0);
    while i < bytes.len() {
        quoted[i] = single;
        match bytes[i] {
            b'\'' if !double => single = !single,
            _ if single => {}
            b'\\' => {
                i += 1;
                if i < bytes.len() {
                    quoted[i] = false;
                }
            }
            b'"' => double = !double,
            _ => {}
        }
        i += 1;
    }
    quoted
}

/// Whether `source` has bash's old `$[…]` arithmetic outside single quotes and not
/// escaped: brush-parser 0.4's tokenizer grows without bound on some of its forms
/// (`cat <<EOF$[` and two spaces took over 4 GiB, found by fuzzing). Analysts write
/// `$((…))`.
fn old_arithmetic(source: &str) -> bool {
    let bytes = source.as_bytes();
    let (mut single, mut double, mut i) = (false, false, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\'' if !double => single = !single,
            _ if single => {}
            b'\\' => i += 1,
            b'"' => double = !double,
            b'$' if bytes.get(i + 1) == Some(&b'[') => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// The here-documents of `source`, or where an operator (`<<`, `<<-`) is followed by a
/// delimiter that is not a plain word (letters, digits, `_ . -`, whole or quoted with `'…'`, `"…"` or a
/// backslash): brush-parser 0.4's tokenizer runs away or panics on several such
/// delimiters (`<<EOF$[`, `<<- ` form feed `)`, `"$(cat << <>`, found by fuzzing), and
/// analysts write `EOF`, `'EOF'`, `PY`. Every `<<` outside single quotes counts, in
/// double quotes too: telling where the grammar's tokenizer thinks a double quote ends
/// is what it gets wrong, so `grep "<<" f` is refused (never misread), while
/// `python3 -c 'x = 1 << 20'` is not (unless the command has a `${`).
fn here_documents(source: &str) -> Result<Vec<HereDocument>, usize> {
    let mut documents = Vec::new();
    let bytes = source.as_bytes();
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
    // Single quotes are trusted only without `${`, inside which the grammar's idea of
    // what a `'` does is not this scan's (found by fuzzing).
    let quoted = single_quoted(source);
    let trusted = !source.contains("${");
    let mut from = 0;
    while let Some(at) = source[from..].find("<<").map(|i| from + i) {
        if trusted && quoted[at] {
            from = at + 2;
            continue;
        }
        let mut i = at + 2;
        if bytes.get(i) == Some(&b'<') {
            // A here-string (`<<<`): no delimiter.
            from = at + 3;
            continue;
        }
        let strip_tabs = bytes.get(i) == Some(&b'-');
        if strip_tabs {
            i += 1;
        }
        while matches!(bytes.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        let quote = match bytes.get(i) {
            Some(q @ (b'\'' | b'"')) => {
                i += 1;
                Some(*q)
            }
            Some(b'\\') => {
                i += 1;
                None
            }
            _ => None,
        };
        let escaped = i > 0 && bytes[i - 1] == b'\\';
        let start = i;
        while i < bytes.len() && plain(bytes[i]) {
            i += 1;
        }
        if i == start {
            return Err(at);
        }
        let delimiter = source[start..i].to_string();
        if let Some(q) = quote {
            if bytes.get(i) != Some(&q) {
                return Err(at);
            }
            i += 1;
        }
        // An arithmetic shift (`$((1 << 2))`) reads as a plain word too.
        let ends = matches!(
            bytes.get(i),
            None | Some(b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b')' | b'<' | b'>' | b'"' | b'\'')
        );
        if !ends {
            return Err(at);
        }
        // An arithmetic shift has no body; only a line that starts after it can end one.
        let arithmetic = source[..at].rfind("((").is_some_and(|open| !source[open..at].contains("))"));
        if !arithmetic {
            documents.push(HereDocument { at, delimiter, strip_tabs, quoted: quote.is_some() || escaped });
        }
        from = i;
    }
    Ok(documents)
}

/// A here-document operator of a command string, as [`here_documents`] found it.
struct HereDocument {
    at: usize,
    delimiter: String,
    strip_tabs: bool,
    /// `<<'EOF'`, `<<"EOF"`, `<<\EOF`: a body without expansions.
    quoted: bool,
}

impl HereDocument {
    /// Whether a line after the operator's is the delimiter (after leading tabs, for
    /// `<<-`): brush-parser 0.4 reads an unterminated body with substitutions in it
    /// without end (found by fuzzing); bash would only warn.
    fn ended(&self, source: &str) -> bool {
        self.body(source).is_some()
    }

    /// The body: the lines after the operator's line up to the end line.
    fn body<'s>(&self, source: &'s str) -> Option<&'s str> {
        let start = self.at + source[self.at..].find('\n')? + 1;
        let mut offset = start;
        for line in source[start..].split_inclusive('\n') {
            let bare = line.strip_suffix('\n').unwrap_or(line);
            let bare = if self.strip_tabs { bare.trim_start_matches('\t') } else { bare };
            if bare == self.delimiter {
                return Some(&source[start..offset]);
            }
            offset += line.len();
        }
        None
    }

    /// Whether the body expands (an unquoted delimiter) substitutions whose `(`, `{` or
    /// backquotes do not balance: brush-parser 0.4 reads such a body without end (found
    /// by fuzzing). Counted roughly; a quoted delimiter turns expansion off.
    fn unbalanced_body(&self, source: &str) -> bool {
        if self.quoted {
            return false;
        }
        let Some(body) = self.body(source) else { return false };
        if !(body.contains("$(") || body.contains("${") || body.contains('`')) {
            return false;
        }
        let count = |c: char| body.matches(c).count();
        count('(') != count(')') || count('{') != count('}') || count('`') % 2 == 1
    }
}

/// Whether a substitution (`$(`, `${` or a backquote) follows the here-document
/// operator at `at` before the end of its logical line (a newline outside quotes):
/// brush-parser 0.4's tokenizer panics reading the here-document's body from inside a
/// nested construct (`<<F $(` newline `)` newline `F`, `<<F ${$$}` …, `<<F "` … newline
/// … `$(`: found by fuzzing). Counted roughly: such a command is refused, never
/// misread. Analysts put their substitutions in the body or on other lines.
fn substitution_after(source: &str, at: usize) -> bool {
    let bytes = source.as_bytes();
    let (mut single, mut double, mut i) = (false, false, at + 2);
    while i < bytes.len() {
        match bytes[i] {
            b'\'' if !double => single = !single,
            _ if single => {}
            b'\\' => i += 1,
            b'"' => double = !double,
            b'`' => return true,
            b'$' if matches!(bytes.get(i + 1), Some(b'(' | b'{')) => return true,
            b'\n' if !double => break,
            _ => {}
        }
        i += 1;
    }
    false
}

/// A cheap upper bound of the parenthesis/brace nesting, checked before brush-parser
/// (which recurses) sees a pathological input.
fn nesting_depth(source: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    // `${` is open until a `}`: a `)` does not close it (`${)${)…`, which the grammar's
    // tokenizer follows one recursion a level, found by fuzzing).
    let (mut braces, mut max_braces) = (0usize, 0usize);
    let bytes = source.as_bytes();
    for (i, c) in bytes.iter().enumerate() {
        match c {
            b'(' | b'{' => {
                depth += 1;
                max = max.max(depth);
                if *c == b'{' && i > 0 && bytes[i - 1] == b'$' {
                    braces += 1;
                    max_braces = max_braces.max(braces);
                }
            }
            b')' => depth = depth.saturating_sub(1),
            b'}' => {
                depth = depth.saturating_sub(1);
                braces = braces.saturating_sub(1);
            }
            _ => {}
        }
    }
    max.max(max_braces)
}

/// The most unquoted `(` open at once in `source`: single-quoted text and escaped
/// characters do not count (a regex in quotes may have any number).
pub(crate) fn parenthesis_depth(source: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut bytes = source.bytes();
    while let Some(c) = bytes.next() {
        match c {
            b'\\' => {
                bytes.next();
            }
            b'\'' => {
                for q in bytes.by_ref() {
                    if q == b'\'' {
                        break;
                    }
                }
            }
            b'(' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

fn compound_list(list: &ast::CompoundList, depth: usize) -> Result<Vec<AndOr>, Unsupported> {
    list.0
        .iter()
        .map(|ast::CompoundListItem(and_or, separator)| {
            if matches!(separator, ast::SeparatorOperator::Async) {
                return Err(Unsupported("background jobs (`&`)".into()));
            }
            let first = pipeline(&and_or.first, depth)?;
            let rest = and_or
                .additional
                .iter()
                .map(|next| match next {
                    ast::AndOr::And(p) => Ok((Op::And, pipeline(p, depth)?)),
                    ast::AndOr::Or(p) => Ok((Op::Or, pipeline(p, depth)?)),
                })
                .collect::<Result<_, _>>()?;
            Ok(AndOr { first, rest })
        })
        .collect()
}

fn pipeline(p: &ast::Pipeline, depth: usize) -> Result<Pipeline, Unsupported> {
    if p.timed.is_some() {
        return Err(Unsupported("`time`".into()));
    }
    let commands = p.seq.iter().map(|c| command(c, depth)).collect::<Result<_, _>>()?;
    Ok(Pipeline { negated: p.bang, commands })
}

fn too_deep() -> Unsupported {
    Unsupported(format!("commands nested more than {MAX_NESTING} levels deep"))
}

fn redirect_list(list: &Option<ast::RedirectList>, depth: usize) -> Result<Vec<Redirect>, Unsupported> {
    match list {
        Some(list) => list.0.iter().map(|r| redirect(r, depth)).collect(),
        None => Ok(Vec::new()),
    }
}

/// A script of one command (a function's body).
fn single(command: Command) -> Script {
    Script(vec![AndOr { first: Pipeline { negated: false, commands: vec![command] }, rest: Vec::new() }])
}

fn command(c: &ast::Command, depth: usize) -> Result<Command, Unsupported> {
    match c {
        ast::Command::Simple(simple) => simple_command(simple, depth),
        ast::Command::Compound(compound, list) => compound_command(compound, redirect_list(list, depth)?, depth),
        ast::Command::Function(function) => {
            let name = function.fname.value.clone();
            if name.is_empty() || name.contains(['$', '`', '\'', '"', '\\', '=']) {
                return Err(Unsupported(format!("function name `{name}`")));
            }
            // The definition is a level, and its body another.
            if depth + 1 > MAX_NESTING {
                return Err(too_deep());
            }
            let ast::FunctionBody(body, list) = &function.body;
            let body = compound_command(body, redirect_list(list, depth + 1)?, depth + 1)?;
            Ok(Command::Group { body: single(body), redirects: Vec::new(), kind: Compound::Function { name } })
        }
        ast::Command::ExtendedTest(test, list) => {
            let redirects = redirect_list(list, depth)?;
            let expr = test_expr(&test.expr, depth, 0)?;
            Ok(Command::Group { body: Script(Vec::new()), redirects, kind: Compound::Test(expr) })
        }
    }
}

fn compound_command(
    compound: &ast::CompoundCommand,
    redirects: Vec<Redirect>,
    depth: usize,
) -> Result<Command, Unsupported> {
    if depth + 1 > MAX_NESTING {
        return Err(too_deep());
    }
    let nested = |list: &ast::CompoundList| compound_list(list, depth + 1).map(Script);
    let arithmetic = |e: &Option<ast::UnexpandedArithmeticExpr>| {
        e.as_ref().map(|e| arithmetic_word(&e.value, depth + 1)).transpose()
    };
    let group = |body: Script, kind: Compound| Ok(Command::Group { body, redirects: redirects.clone(), kind });
    match compound {
        ast::CompoundCommand::Subshell(s) => Ok(Command::Subshell { body: nested(&s.list)?, redirects }),
        ast::CompoundCommand::BraceGroup(g) => group(nested(&g.list)?, Compound::Braces),
        ast::CompoundCommand::IfClause(clause) => {
            let mut branches = vec![(nested(&clause.condition)?, nested(&clause.then)?)];
            let mut otherwise = None;
            for e in clause.elses.iter().flatten() {
                match &e.condition {
                    Some(condition) => branches.push((nested(condition)?, nested(&e.body)?)),
                    None => otherwise = Some(nested(&e.body)?),
                }
            }
            Ok(Command::If { branches, otherwise, redirects })
        }
        ast::CompoundCommand::ForClause(f) => {
            let words = match &f.values {
                Some(values) => {
                    let words = values.iter().map(|w| command_words(&w.value, depth)).collect::<Result<Vec<_>, _>>()?;
                    Some(words.into_iter().flatten().collect())
                }
                None => None,
            };
            // bash refuses a loop variable that is not a name (`for - in a`): an error.
            if !crate::vars::is_name(&f.variable_name) {
                return Err(Unsupported(format!("`{}': not a valid identifier", f.variable_name)));
            }
            group(nested(&f.body.list)?, Compound::For { name: f.variable_name.clone(), words })
        }
        ast::CompoundCommand::ArithmeticForClause(f) => {
            let kind = Compound::ArithmeticFor {
                init: arithmetic(&f.initializer)?,
                condition: arithmetic(&f.condition)?,
                step: arithmetic(&f.updater)?,
            };
            group(nested(&f.body.list)?, kind)
        }
        ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
            let until = matches!(compound, ast::CompoundCommand::UntilClause(_));
            group(nested(&w.1.list)?, Compound::While { condition: nested(&w.0)?, until })
        }
        ast::CompoundCommand::CaseClause(c) => {
            let arms = c
                .cases
                .iter()
                .map(|item| {
                    Ok(CaseArm {
                        patterns: item
                            .patterns
                            .iter()
                            .map(|w| parse_word(&w.value, depth))
                            .collect::<Result<_, _>>()?,
                        body: item.cmd.as_ref().map(nested).transpose()?.unwrap_or(Script(Vec::new())),
                        then: match item.post_action {
                            ast::CaseItemPostAction::ExitCase => CaseThen::Stop,
                            ast::CaseItemPostAction::UnconditionallyExecuteNextCaseItem => CaseThen::FallThrough,
                            ast::CaseItemPostAction::ContinueEvaluatingCases => CaseThen::TestNext,
                        },
                    })
                })
                .collect::<Result<_, Unsupported>>()?;
            group(Script(Vec::new()), Compound::Case { subject: parse_word(&c.value.value, depth)?, arms })
        }
        ast::CompoundCommand::Arithmetic(a) => {
            group(Script(Vec::new()), Compound::Arithmetic(arithmetic_word(&a.expr.value, depth + 1)?))
        }
        ast::CompoundCommand::Coprocess(_) => Err(Unsupported("`coproc`".into())),
    }
}

fn test_expr(e: &ast::ExtendedTestExpr, depth: usize, level: usize) -> Result<TestExpr, Unsupported> {
    use ast::ExtendedTestExpr as E;
    if level > MAX_NESTING {
        return Err(Unsupported(format!("`[[ ]]` expressions nested more than {MAX_NESTING} levels deep")));
    }
    let inner = |e: &E| test_expr(e, depth, level + 1).map(Box::new);
    Ok(match e {
        E::And(a, b) => TestExpr::And(inner(a)?, inner(b)?),
        E::Or(a, b) => TestExpr::Or(inner(a)?, inner(b)?),
        E::Not(a) => TestExpr::Not(inner(a)?),
        E::Parenthesized(a) => test_expr(a, depth, level + 1)?,
        E::UnaryTest(predicate, w) => TestExpr::Unary(unary_test(predicate)?, parse_word(&w.value, depth)?),
        E::BinaryTest(predicate, l, r) => {
            TestExpr::Binary(binary_test(predicate), parse_word(&l.value, depth)?, parse_word(&r.value, depth)?)
        }
    })
}

/// The `test` operator of a `[[ ]]` unary predicate.
fn unary_test(p: &ast::UnaryPredicate) -> Result<&'static str, Unsupported> {
    use ast::UnaryPredicate as U;
    Ok(match p {
        U::FileExists => "-e",
        U::FileExistsAndIsBlockSpecialFile => "-b",
        U::FileExistsAndIsCharSpecialFile => "-c",
        U::FileExistsAndIsDir => "-d",
        U::FileExistsAndIsRegularFile => "-f",
        U::FileExistsAndIsSetgid => "-g",
        U::FileExistsAndIsSymlink => "-h",
        U::FileExistsAndHasStickyBit => "-k",
        U::FileExistsAndIsFifo => "-p",
        U::FileExistsAndIsReadable => "-r",
        U::FileExistsAndIsNotZeroLength => "-s",
        U::FdIsOpenTerminal => "-t",
        U::FileExistsAndIsSetuid => "-u",
        U::FileExistsAndIsWritable => "-w",
        U::FileExistsAndIsExecutable => "-x",
        U::FileExistsAndOwnedByEffectiveGroupId => "-G",
        U::FileExistsAndModifiedSinceLastRead => "-N",
        U::FileExistsAndOwnedByEffectiveUserId => "-O",
        U::FileExistsAndIsSocket => "-S",
        U::ShellOptionEnabled => "-o",
        U::ShellVariableIsSetAndAssigned => "-v",
        U::StringHasZeroLength => "-z",
        U::StringHasNonZeroLength => "-n",
        U::ShellVariableIsSetAndNameRef => return Err(Unsupported("`[[ -R ]]` (name references)".into())),
    })
}

fn binary_test(p: &ast::BinaryPredicate) -> TestOp {
    use ast::BinaryPredicate as B;
    match p {
        B::FilesReferToSameDeviceAndInodeNumbers => TestOp::Files("-ef"),
        B::LeftFileIsNewerOrExistsWhenRightDoesNot => TestOp::Files("-nt"),
        B::LeftFileIsOlderOrDoesNotExistWhenRightDoes => TestOp::Files("-ot"),
        B::StringExactlyMatchesPattern | B::StringExactlyMatchesString => TestOp::Match,
        B::StringDoesNotExactlyMatchPattern | B::StringDoesNotExactlyMatchString => TestOp::NoMatch,
        // brush-parser calls a quoted right side a substring test: quoted text in a regex
        // matches literally, which the interpreter does for any quoted part.
        B::StringMatchesRegex | B::StringContainsSubstring => TestOp::Regex,
        B::LeftSortsBeforeRight => TestOp::Before,
        B::LeftSortsAfterRight => TestOp::After,
        B::ArithmeticEqualTo => TestOp::Integer("-eq"),
        B::ArithmeticNotEqualTo => TestOp::Integer("-ne"),
        B::ArithmeticLessThan => TestOp::Integer("-lt"),
        B::ArithmeticLessThanOrEqualTo => TestOp::Integer("-le"),
        B::ArithmeticGreaterThan => TestOp::Integer("-gt"),
        B::ArithmeticGreaterThanOrEqualTo => TestOp::Integer("-ge"),
    }
}

fn simple_command(simple: &ast::SimpleCommand, depth: usize) -> Result<Command, Unsupported> {
    let mut words = Vec::new();
    let mut redirects = Vec::new();
    let mut assignments = Vec::new();
    let mut item = |item: &ast::CommandPrefixOrSuffixItem, is_suffix: bool| -> Result<(), Unsupported> {
        match item {
            ast::CommandPrefixOrSuffixItem::Word(w) => words.extend(command_words(&w.value, depth)?),
            ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(redirect(r, depth)?),
            // After the command name `a=b` is an ordinary argument (`echo status=$?`);
            // `export`/`local` read it as an assignment themselves.
            ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) if is_suffix => {
                words.push(parse_word(&w.value, depth)?)
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(a, _) => assignments.push(assignment(a, depth)?),
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {
                return Err(Unsupported("process substitution `<( )`".into()));
            }
        }
        Ok(())
    };
    for i in simple.prefix.iter().flat_map(|p| p.0.iter()) {
        item(i, false)?;
    }
    if let Some(name) = &simple.word_or_name {
        item(&ast::CommandPrefixOrSuffixItem::Word(name.clone()), true)?;
    }
    for i in simple.suffix.iter().flat_map(|s| s.0.iter()) {
        item(i, true)?;
    }
    Ok(Command::Simple { words, redirects, assignments })
}

fn assignment(a: &ast::Assignment, depth: usize) -> Result<Assignment, Unsupported> {
    let name = match &a.name {
        ast::AssignmentName::VariableName(name) => name.clone(),
        ast::AssignmentName::ArrayElementName(name, _) => {
            return Err(Unsupported(format!("arrays (`{name}[...]=`)")));
        }
    };
    match &a.value {
        ast::AssignmentValue::Scalar(w) => {
            Ok(Assignment { name, value: parse_word(&w.value, depth)?, append: a.append })
        }
        ast::AssignmentValue::Array(_) => Err(Unsupported(format!("arrays (`{name}=(...)`)"))),
    }
}

fn redirect(r: &ast::IoRedirect, depth: usize) -> Result<Redirect, Unsupported> {
    match r {
        ast::IoRedirect::File(fd, kind, target) => {
            let target_word = |target: &ast::IoFileRedirectTarget| match target {
                ast::IoFileRedirectTarget::Filename(w) => parse_word(&w.value, depth),
                ast::IoFileRedirectTarget::Fd(n) => Ok(Word(vec![Piece::Text { text: n.to_string(), quoted: true }])),
                ast::IoFileRedirectTarget::Duplicate(w) => parse_word(&w.value, depth),
                ast::IoFileRedirectTarget::ProcessSubstitution(..) => {
                    Err(Unsupported("process substitution `<( )`".into()))
                }
            };
            match kind {
                ast::IoFileRedirectKind::Read => Ok(Redirect::Input { target: target_word(target)? }),
                ast::IoFileRedirectKind::Write | ast::IoFileRedirectKind::Clobber | ast::IoFileRedirectKind::Append => {
                    Ok(Redirect::Output { fds: vec![fd.unwrap_or(1)], target: target_word(target)? })
                }
                ast::IoFileRedirectKind::DuplicateOutput | ast::IoFileRedirectKind::DuplicateInput => {
                    let from =
                        fd.unwrap_or(if matches!(kind, ast::IoFileRedirectKind::DuplicateOutput) { 1 } else { 0 });
                    let to = literal(&target_word(target)?).unwrap_or_default();
                    match to.as_str() {
                        "-" => Ok(Redirect::Close { fd: from }),
                        n => n
                            .parse()
                            .map(|to| Redirect::Duplicate { fd: from, to })
                            .map_err(|_| Unsupported(format!("redirection `{from}>&{n}`"))),
                    }
                }
                ast::IoFileRedirectKind::ReadAndWrite => Err(Unsupported("`<>` redirections".into())),
            }
        }
        ast::IoRedirect::OutputAndError(target, _append) => {
            Ok(Redirect::Output { fds: vec![1, 2], target: parse_word(&target.value, depth)? })
        }
        ast::IoRedirect::HereDocument(fd, doc) => {
            stdin_only(*fd, "here-documents")?;
            let text = if doc.requires_expansion {
                here_document(&doc.doc.value, depth)?
            } else {
                Word(vec![Piece::Text { text: doc.doc.value.clone(), quoted: true }])
            };
            Ok(Redirect::Here { text, newline: false })
        }
        ast::IoRedirect::HereString(fd, w) => {
            stdin_only(*fd, "here-strings")?;
            Ok(Redirect::Here { text: parse_word(&w.value, depth)?, newline: true })
        }
    }
}

fn stdin_only(fd: Option<ast::IoFd>, what: &str) -> Result<(), Unsupported> {
    match fd {
        Some(fd) if fd != 0 => Err(Unsupported(format!("{what} to file descriptor {fd}"))),
        _ => Ok(()),
    }
}

/// The text of a word that has no substitutions, if it is one.
pub fn literal(word: &Word) -> Option<String> {
    word.0
        .iter()
        .map(|p| match p {
            Piece::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn parse_word(raw: &str, depth: usize) -> Result<Word, Unsupported> {
    parse_word_in(raw, false, depth)
}

/// Most `{` in one brace-expanded word: brush-parser's brace grammar backtracks
/// exponentially in unclosed ones (`z{a,b{{{{{{{{{{{{B{zfz}` took seconds, found by
/// fuzzing); analysts write one or two.
const MAX_BRACES: usize = 8;

/// A word of a command or of a `for` list, brace-expanded into several when it has a
/// brace expression (`src/{a,b}.ts`, `{1..3}`), as bash does before any other expansion.
/// Brace expressions next to quotes or substitutions are refused rather than guessed.
fn command_words(raw: &str, depth: usize) -> Result<Vec<Word>, Unsupported> {
    if !has_brace_expression(raw) {
        return Ok(vec![parse_word(raw, depth)?]);
    }
    if raw.contains(['\'', '"', '\\', '$', '`']) {
        return Err(Unsupported(format!("brace expansion next to quotes or substitutions in `{raw}`")));
    }
    if zero_padded(raw) {
        return Err(Unsupported(format!("zero-padded brace sequences in `{raw}`")));
    }
    if raw.matches('{').count() > MAX_BRACES {
        return Err(Unsupported(format!("brace expansion with more than {MAX_BRACES} `{{` in one word")));
    }
    let pieces = word::parse_brace_expansions(raw, &options())
        .map_err(|e| Unsupported(format!("cannot parse word `{raw}`: {e}")))?
        .unwrap_or_default();
    let texts = brace_words(&pieces, raw)?;
    let total = BRACE_WORDS.get() + texts.len();
    if total > MAX_BRACE_WORDS {
        return Err(Unsupported(format!("brace expansions of more than {MAX_BRACE_WORDS} words")));
    }
    BRACE_WORDS.set(total);
    texts.iter().map(|text| parse_word(text, depth)).collect()
}

/// Whether `raw` has an unquoted `{...}` with a `,` or `..` inside (not `${X}`, not `{}`).
fn has_brace_expression(raw: &str) -> bool {
    let chars: Vec<char> = raw.chars().collect();
    let mut quote = None;
    let mut i = 0;
    while i < chars.len() {
        match (quote, chars[i]) {
            (_, '\\') => i += 1,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, c @ ('\'' | '"')) => quote = Some(c),
            (None, '$') if matches!(chars.get(i + 1), Some('{' | '(')) => {
                i = closing(&chars, i + 1);
                continue;
            }
            (None, '{') => {
                let end = closing(&chars, i);
                let inside: String = chars[i + 1..end.saturating_sub(1).max(i + 1)].iter().collect();
                if end <= chars.len()
                    && chars.get(end - 1) == Some(&'}')
                    && (inside.contains(',') || inside.contains(".."))
                {
                    return true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether `raw` has a sequence bound with a leading zero (`{01..10}`), which bash pads
/// and brush-parser reads as a plain number.
fn zero_padded(raw: &str) -> bool {
    let b = raw.as_bytes();
    (0..b.len().saturating_sub(1))
        .any(|k| b[k] == b'0' && b[k + 1].is_ascii_digit() && (b[..k].ends_with(b"{") || b[..k].ends_with(b"..")))
}

/// The words a parsed brace expansion stands for, in order.
fn brace_words(pieces: &[BraceExpressionOrText], raw: &str) -> Result<Vec<String>, Unsupported> {
    let mut words = vec![String::new()];
    for piece in pieces {
        let alternatives = match piece {
            BraceExpressionOrText::Text(text) => vec![text.clone()],
            BraceExpressionOrText::Expr(members) => {
                let mut alternatives = Vec::new();
                for member in members {
                    alternatives.extend(brace_member(member, raw)?);
                }
                alternatives
            }
        };
        if words.len().saturating_mul(alternatives.len()) > MAX_BRACE_WORDS {
            return Err(Unsupported(format!("brace expansion `{raw}` of more than {MAX_BRACE_WORDS} words")));
        }
        words = words.iter().flat_map(|w| alternatives.iter().map(move |a| format!("{w}{a}"))).collect();
    }
    Ok(words)
}

fn brace_member(member: &BraceExpressionMember, raw: &str) -> Result<Vec<String>, Unsupported> {
    let sequence = |start: i64, end: i64, increment: i64| -> Result<Vec<i64>, Unsupported> {
        let step = increment.unsigned_abs().max(1);
        if start.abs_diff(end) / step >= MAX_BRACE_WORDS as u64 {
            return Err(Unsupported(format!("brace expansion `{raw}` of more than {MAX_BRACE_WORDS} words")));
        }
        let step = step as i64;
        let count = start.abs_diff(end) as i64 / step;
        Ok((0..=count).map(|k| if start <= end { start + k * step } else { start - k * step }).collect())
    };
    Ok(match member {
        BraceExpressionMember::NumberSequence { start, end, increment } => {
            sequence(*start, *end, *increment)?.iter().map(i64::to_string).collect()
        }
        BraceExpressionMember::CharSequence { start, end, increment } => {
            sequence(i64::from(u32::from(*start)), i64::from(u32::from(*end)), *increment)?
                .into_iter()
                .filter_map(|c| u32::try_from(c).ok().and_then(char::from_u32))
                .map(String::from)
                .collect()
        }
        BraceExpressionMember::Child(pieces) => brace_words(pieces, raw)?,
    })
}

/// The text of an arithmetic expression, to expand before it is evaluated: `$x` and
/// `$(cmd)` are expanded, a `~` is the operator.
fn arithmetic_word(raw: &str, depth: usize) -> Result<Word, Unsupported> {
    word_with(raw, false, depth, &ParserOptions { tilde_expansion_at_word_start: false, ..options() })
}

/// Parses `raw` as a word; `quoted`: it stands inside double quotes, so none of it is
/// split or globbed.
fn parse_word_in(raw: &str, quoted: bool, depth: usize) -> Result<Word, Unsupported> {
    word_with(raw, quoted, depth, &options())
}

fn word_with(raw: &str, quoted: bool, depth: usize, options: &ParserOptions) -> Result<Word, Unsupported> {
    if depth > MAX_NESTING {
        return Err(too_deep());
    }
    let pieces = word::parse(raw, options).map_err(|e| Unsupported(format!("cannot parse word `{raw}`: {e}")))?;
    let mut out = Vec::new();
    pieces_into(raw, &pieces, quoted, depth, &mut out)?;
    Ok(Word(out))
}

/// The word inside `${X:-word}` (also `:=`, `:+`, `:?` and the replacement of `${X/a/b}`).
/// Inside double quotes it is read as double-quoted text, as bash does: `"${X:-'a'}"`
/// keeps the single quotes.
fn operand_word(raw: &str, quoted: bool, depth: usize) -> Result<Word, Unsupported> {
    if quoted { parse_word_in(&format!("\"{raw}\""), true, depth + 1) } else { parse_word(raw, depth + 1) }
}

/// A here-document's text: `$` expansions, backquotes, and a backslash before `$`, `` ` ``,
/// `\` or a newline are special; quotes are text. That is a double-quoted word whose bare
/// `"` are escaped, so the word parser reads it (inside `$(...)` and `${...}` quotes keep
/// their meaning and are copied as they are).
fn here_document(raw: &str, depth: usize) -> Result<Word, Unsupported> {
    let chars: Vec<char> = raw.chars().collect();
    let mut text = String::from("\"");
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' if chars.get(i + 1) == Some(&'"') => {
                text.push_str(r#"\\\""#);
                i += 2;
            }
            '\\' => {
                text.push('\\');
                text.extend(chars.get(i + 1));
                i += 2;
            }
            '"' => {
                text.push_str("\\\"");
                i += 1;
            }
            '$' if matches!(chars.get(i + 1), Some('(' | '{')) => {
                let end = closing(&chars, i + 1);
                text.extend(&chars[i..end]);
                i = end;
            }
            '`' => {
                let end = chars[i + 1..].iter().position(|c| *c == '`').map_or(chars.len(), |p| i + 2 + p);
                text.extend(&chars[i..end]);
                i = end;
            }
            c => {
                text.push(c);
                i += 1;
            }
        }
    }
    text.push('"');
    parse_word_in(&text, true, depth)
}

/// The index after the bracket that closes the `(` or `{` at `open`; single-quoted text
/// inside `$( )` does not count.
fn closing(chars: &[char], open: usize) -> usize {
    let (left, right) = if chars[open] == '(' { ('(', ')') } else { ('{', '}') };
    let mut level = 0usize;
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '\'' if left == '(' => {
                i += chars[i + 1..].iter().position(|c| *c == '\'').map_or(chars.len(), |p| p + 1);
            }
            c if c == left => level += 1,
            c if c == right => {
                level -= 1;
                if level == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    chars.len()
}

/// Whether a piece is `$@` (then `"$@"` with no parameters is no argument at all).
fn is_all_parameters(piece: &WordPiece) -> bool {
    matches!(
        piece,
        WordPiece::ParameterExpansion(ParameterExpr::Parameter {
            parameter: word::Parameter::Special(SpecialParameter::AllPositionalParameters { concatenate: false }),
            ..
        })
    )
}

fn pieces_into(
    raw: &str,
    pieces: &[WordPieceWithSource],
    quoted: bool,
    depth: usize,
    out: &mut Vec<Piece>,
) -> Result<(), Unsupported> {
    for (i, p) in pieces.iter().enumerate() {
        let next_opens_brace =
            || matches!(pieces.get(i + 1).map(|n| &n.piece), Some(WordPiece::Text(t)) if t.starts_with('{'));
        match &p.piece {
            // What the grammar could not read as an expansion (`${#x-default}`, `${a&}`,
            // left as the texts `$` and `{…}`): bash's "bad substitution", which ends
            // the script.
            WordPiece::Text(text) if text.contains("${") || (text.ends_with('$') && next_opens_brace()) => {
                return Err(Unsupported(format!("bad substitution in `{raw}`")));
            }
            WordPiece::Text(text) => out.push(Piece::Text { text: text.clone(), quoted }),
            WordPiece::SingleQuotedText(text) => out.push(Piece::Text { text: text.clone(), quoted: true }),
            WordPiece::AnsiCQuotedText(text) => out.push(Piece::Text { text: ansi_c(text)?, quoted: true }),
            WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                // `""` must still produce an (empty) argument; `"$@"` decides for itself.
                if !inner.iter().any(|p| is_all_parameters(&p.piece)) {
                    out.push(Piece::Text { text: String::new(), quoted: true });
                }
                pieces_into(raw, inner, true, depth, out)?;
            }
            WordPiece::EscapeSequence(seq) => {
                let escaped = seq.strip_prefix('\\').unwrap_or(seq);
                // Inside double quotes a backslash only escapes $ ` " \ and newline.
                let text = if quoted && !matches!(escaped, "$" | "`" | "\"" | "\\" | "\n") {
                    seq.clone()
                } else if escaped == "\n" {
                    String::new()
                } else {
                    escaped.to_string()
                };
                out.push(Piece::Text { text, quoted: true });
            }
            WordPiece::ParameterExpansion(expr) => {
                let text = raw.get(p.start_index..p.end_index).unwrap_or("$...");
                let expansion = Box::new(expansion(expr, quoted, depth, text)?);
                out.push(Piece::Parameter { expansion, quoted });
            }
            WordPiece::CommandSubstitution(source) | WordPiece::BackquotedCommandSubstitution(source) => {
                let script = parse_nested(source, depth + 1)?;
                out.push(Piece::Substitution { script, quoted });
            }
            WordPiece::TildeExpansion(_) => {
                return Err(Unsupported("tilde expansion `~` (the sandbox has no home directory)".into()));
            }
            WordPiece::ArithmeticExpression(expr) => {
                out.push(Piece::Arithmetic { expression: arithmetic_word(&expr.value, depth + 1)?, quoted })
            }
        }
    }
    Ok(())
}

fn is_empty(pattern: &Option<String>) -> bool {
    pattern.as_deref().is_none_or(str::is_empty)
}

/// A parameter expansion piece; `text` is how it was written, for errors.
fn expansion(expr: &ParameterExpr, quoted: bool, depth: usize, text: &str) -> Result<Expansion, Unsupported> {
    let unsupported = |what: &str| Err(Unsupported(format!("{what} `{text}`")));
    let operand = |raw: &Option<String>| operand_word(raw.as_deref().unwrap_or(""), quoted, depth);
    let pattern = |raw: &str| parse_word(raw, depth + 1);
    let colon = |t: &ParameterTestType| matches!(t, ParameterTestType::UnsetOrNull);
    let (parameter, indirect, op) = match expr {
        ParameterExpr::Parameter { parameter, indirect } => (parameter, indirect, ParameterOp::Value),
        ParameterExpr::UseDefaultValues { parameter, indirect, test_type, default_value } => {
            (parameter, indirect, ParameterOp::Default { word: operand(default_value)?, colon: colon(test_type) })
        }
        ParameterExpr::AssignDefaultValues { parameter, indirect, test_type, default_value } => {
            (parameter, indirect, ParameterOp::Assign { word: operand(default_value)?, colon: colon(test_type) })
        }
        ParameterExpr::UseAlternativeValue { parameter, indirect, test_type, alternative_value } => {
            let word = operand(alternative_value)?;
            (parameter, indirect, ParameterOp::Alternative { word, colon: colon(test_type) })
        }
        ParameterExpr::IndicateErrorIfNullOrUnset { parameter, indirect, test_type, error_message } => {
            let word = match error_message {
                Some(message) => Some(operand_word(message, quoted, depth)?),
                None => None,
            };
            (parameter, indirect, ParameterOp::Error { word, colon: colon(test_type) })
        }
        ParameterExpr::ParameterLength { parameter, indirect } => (parameter, indirect, ParameterOp::Length),
        ParameterExpr::RemoveSmallestSuffixPattern { parameter, indirect, pattern: p }
        | ParameterExpr::RemoveLargestSuffixPattern { parameter, indirect, pattern: p } => {
            let longest = matches!(expr, ParameterExpr::RemoveLargestSuffixPattern { .. });
            let op = ParameterOp::RemoveSuffix { pattern: pattern(p.as_deref().unwrap_or(""))?, longest };
            (parameter, indirect, op)
        }
        ParameterExpr::RemoveSmallestPrefixPattern { parameter, indirect, pattern: p }
        | ParameterExpr::RemoveLargestPrefixPattern { parameter, indirect, pattern: p } => {
            let longest = matches!(expr, ParameterExpr::RemoveLargestPrefixPattern { .. });
            let op = ParameterOp::RemovePrefix { pattern: pattern(p.as_deref().unwrap_or(""))?, longest };
            (parameter, indirect, op)
        }
        ParameterExpr::Substring { parameter, indirect, offset, length } => {
            let length = match length {
                Some(length) => Some(arithmetic_word(&length.value, depth + 1)?),
                None => None,
            };
            (parameter, indirect, ParameterOp::Substring { offset: arithmetic_word(&offset.value, depth + 1)?, length })
        }
        ParameterExpr::UppercaseFirstChar { parameter, indirect, pattern } if is_empty(pattern) => {
            (parameter, indirect, ParameterOp::Case { upper: true, all: false })
        }
        ParameterExpr::UppercasePattern { parameter, indirect, pattern } if is_empty(pattern) => {
            (parameter, indirect, ParameterOp::Case { upper: true, all: true })
        }
        ParameterExpr::LowercaseFirstChar { parameter, indirect, pattern } if is_empty(pattern) => {
            (parameter, indirect, ParameterOp::Case { upper: false, all: false })
        }
        ParameterExpr::LowercasePattern { parameter, indirect, pattern } if is_empty(pattern) => {
            (parameter, indirect, ParameterOp::Case { upper: false, all: true })
        }
        ParameterExpr::UppercaseFirstChar { .. }
        | ParameterExpr::UppercasePattern { .. }
        | ParameterExpr::LowercaseFirstChar { .. }
        | ParameterExpr::LowercasePattern { .. } => return unsupported("case conversion of a pattern"),
        ParameterExpr::ReplaceSubstring { parameter, indirect, pattern: p, replacement, match_kind } => {
            let kind = match match_kind {
                SubstringMatchKind::Prefix => Replace::Prefix,
                SubstringMatchKind::Suffix => Replace::Suffix,
                SubstringMatchKind::FirstOccurrence => Replace::First,
                SubstringMatchKind::Anywhere => Replace::All,
            };
            let op = ParameterOp::Replace { pattern: pattern(p)?, replacement: operand(replacement)?, kind };
            (parameter, indirect, op)
        }
        ParameterExpr::Transform { .. } => return unsupported("parameter transformation"),
        ParameterExpr::VariableNames { .. } => return unsupported("variable-name expansion"),
        ParameterExpr::MemberKeys { .. } => return unsupported("arrays"),
    };
    if *indirect {
        return unsupported("indirect expansion");
    }
    let parameter = match parameter {
        word::Parameter::Named(name) => Parameter::Named(name.clone()),
        word::Parameter::Positional(n) => Parameter::Positional(*n),
        word::Parameter::Special(special) => match special {
            SpecialParameter::AllPositionalParameters { concatenate } => Parameter::All { joined: *concatenate },
            SpecialParameter::PositionalParameterCount => Parameter::Count,
            SpecialParameter::LastExitStatus => Parameter::Status,
            SpecialParameter::CurrentOptionFlags => Parameter::Options,
            SpecialParameter::ProcessId => Parameter::ProcessId,
            SpecialParameter::ShellName => Parameter::Positional(0),
            SpecialParameter::LastBackgroundProcessId => {
                return unsupported("`$!` (there are no background jobs)");
            }
        },
        word::Parameter::NamedWithIndex { .. } | word::Parameter::NamedWithAllIndices { .. } => {
            return unsupported("arrays");
        }
    };
    Ok(Expansion { parameter, op })
}

/// `$'...'` escapes: the common ones.
fn ansi_c(text: &str) -> Result<String, Unsupported> {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    // Up to `max` digits of `radix` after the escape letter, as a number.
    let digits = |chars: &mut std::iter::Peekable<std::str::Chars>, radix: u32, max: usize| {
        let mut value: Option<u32> = None;
        for _ in 0..max {
            match chars.peek().and_then(|c| c.to_digit(radix)) {
                Some(d) => {
                    value = Some(value.unwrap_or(0) * radix + d);
                    chars.next();
                }
                None => break,
            }
        }
        value
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let byte = |value: u32| match char::from_u32(value) {
            Some(c) if value < 0x80 => Ok(c),
            _ => Err(Unsupported(format!("`$'…'` byte \\{value:o} that is not a character of UTF-8 text"))),
        };
        match e {
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'e' | 'E' => out.push('\u{1b}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '\\' | '\'' | '"' | '?' => out.push(e),
            '0'..='7' => {
                // `\nnn`: one to three octal digits in all.
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(byte(value)?);
            }
            'x' => match digits(&mut chars, 16, 2) {
                Some(value) => out.push(byte(value)?),
                None => out.push_str("\\x"),
            },
            'u' | 'U' => match digits(&mut chars, 16, if e == 'u' { 4 } else { 8 }) {
                Some(value) => out.push(char::from_u32(value).unwrap_or('\u{fffd}')),
                None => {
                    out.push('\\');
                    out.push(e);
                }
            },
            'c' => match chars.next() {
                Some(x) if x.is_ascii() => out.push(char::from((x as u8).to_ascii_uppercase() ^ 0x40)),
                Some(x) => return Err(Unsupported(format!("`$'\\c{x}'`"))),
                None => out.push_str("\\c"),
            },
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
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
        for bad in ["echo ${#x-default}", "echo ${a&}", "v=x; echo ${#v:1:3}"] {
            assert!(parse(bad).unwrap_err().0.contains("bad substitution"), "{bad}");
        }
        assert!(parse("echo '${x' \\${y}").is_ok());
        assert!(parse("for - in a b; do echo hi; done").unwrap_err().0.contains("not a valid identifier"));
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
        // Found by fuzzing: exponential backtracking in unclosed braces.
        let braces = format!("echo z{{a,b{}B{{zfz}}", "{".repeat(14));
        let started = std::time::Instant::now();
        assert!(parse(&braces).unwrap_err().0.contains("more than 8 `{`"));
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
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
            ("echo ~", "tilde expansion"),
            ("cat 3<<EOF\nx\nEOF", "here-documents to file descriptor 3"),
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
            ("echo \"$x\"{a,b}", "brace expansion next to quotes or substitutions"),
            ("echo {01..10}", "zero-padded brace sequences"),
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
        let Redirect::Here { text, newline: false } = here("cat <<EOF\nsay \"$x\"\nEOF") else { panic!() };
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
}
