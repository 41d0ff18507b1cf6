//! The tree the interpreter runs: the subset of bash the sandbox keeps, every node
//! already checked, so the interpreter never meets a construct it cannot run.

/// Commands run one after another (`;` or newline).
#[derive(Debug, Clone, PartialEq)]
pub struct Script(pub Vec<AndOr>);

/// `a && b || c`, evaluated left to right.
#[derive(Debug, Clone, PartialEq)]
pub struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(Op, Pipeline)>,
    /// It begins a line of a command string (bash's unit of parsing and running): a
    /// bad substitution abandons the rest of its line, and the script goes on at the
    /// next one ([`Piece::Fail`]). Always false inside compound commands.
    pub line: bool,
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
    /// What bash rejects when it expands the word, not when it parses the script: its
    /// message (`${a&}: bad substitution`), printed when the word is expanded. `discard`:
    /// the rest of the line is abandoned with status 1 (a subshell ends; `set -e` ends
    /// the script); else only the command fails, with status 1.
    Fail {
        message: String,
        discard: bool,
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
    /// `N< file` (N is 0 unless given).
    Input { fd: i32, target: Word },
    /// `N>&-`.
    Close { fd: i32 },
    /// A here-document (`newline: false`, its text ends with one) or a here-string
    /// `<<< word` (a newline is added): the expanded text is the input of fd `fd`
    /// (stdin unless given).
    Here { fd: i32, text: Word, newline: bool },
}

/// A command the interpreter cannot run: the message names the construct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
