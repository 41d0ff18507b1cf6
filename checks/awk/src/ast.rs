//! The parsed program: rules, functions, statements and expressions.
//!
//! Names are resolved while parsing: a global variable is a slot in one table, a
//! function's parameter a slot in its frame, a function a slot in the function table,
//! a regex literal an index in the program's regex list (compiled once).

use std::rc::Rc;

/// A variable: a global slot or a parameter (local) of the running function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    Global(usize),
    Local(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Eq,
    Ne,
    Gt,
    Ge,
}

/// The built-in functions that run (`system` is refused by the parser).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    Length,
    Substr,
    Index,
    Split,
    Sub,
    Gsub,
    Match,
    Sprintf,
    Tolower,
    Toupper,
    Int,
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Atan2,
    Rand,
    Srand,
    Close,
    Fflush,
}

#[derive(Debug, Clone)]
pub enum LValue {
    Var(Var),
    Field(Box<Expr>),
    Index(Var, Vec<Expr>),
}

#[derive(Debug, Clone)]
pub enum Expr {
    Num(f64),
    Str(Rc<[u8]>),
    /// A regex literal: as a value, whether `$0` matches it.
    Regex(usize),
    LValue(LValue),
    /// `(i, j) in a`.
    In(Vec<Expr>, Var),
    /// `lv = e`, or `lv op= e`.
    Assign(Box<LValue>, Option<BinOp>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    /// `s ~ re` (`negated`: `!~`).
    Match(bool, Box<Expr>, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Compare(CmpOp, Box<Expr>, Box<Expr>),
    Concat(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Plus(Box<Expr>),
    /// `++x` / `x--`...: the change and whether the new value is the result.
    IncDec(Box<LValue>, f64, bool),
    Call(usize, Vec<Expr>),
    Builtin(Builtin, Vec<Expr>),
    /// `getline [var] [< file]`.
    Getline(Option<Box<LValue>>, Option<Box<Expr>>),
    /// A parenthesised expression: kept so that `print (a, b)` and `(x) in a` can tell
    /// a group from an operand.
    Group(Box<Expr>),
}

/// Where `print` writes: the redirections kept are to the special files that are not
/// files (gawk and mawk name them specially too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dest {
    Stdout,
    /// `> "/dev/stderr"`.
    Stderr,
    /// `> "/dev/null"`: evaluated, then discarded.
    Null,
}

#[derive(Debug, Clone)]
pub enum Stmt {
    Expr(Expr),
    /// `print` / `printf` and where the output goes.
    Print(Vec<Expr>, Dest),
    Printf(Vec<Expr>, Dest),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    Do(Box<Stmt>, Expr),
    For(Option<Box<Stmt>>, Option<Expr>, Option<Box<Stmt>>, Box<Stmt>),
    ForIn(Var, Var, Box<Stmt>),
    Block(Vec<Stmt>),
    Next,
    NextFile,
    Exit(Option<Expr>),
    Return(Option<Expr>),
    Break,
    Continue,
    /// `delete a` (no subscript) or `delete a[i, j]`.
    Delete(Var, Option<Vec<Expr>>),
}

#[derive(Debug, Clone)]
pub enum Pattern {
    All,
    Expr(Expr),
    /// `p1, p2`: the index of its on/off state in the interpreter.
    Range(Expr, Expr, usize),
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub pattern: Pattern,
    /// `None`: print the record.
    pub action: Option<Vec<Stmt>>,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    pub params: usize,
    pub param_names: Vec<String>,
    /// Which parameters the body uses as arrays (passed by reference).
    pub array_params: Vec<bool>,
    pub body: Vec<Stmt>,
}

#[derive(Debug, Default)]
pub struct Program {
    pub begin: Vec<Vec<Stmt>>,
    pub end: Vec<Vec<Stmt>>,
    pub rules: Vec<Rule>,
    pub functions: Vec<Function>,
    /// Global variable names by slot (the special variables first, see `vars.rs`).
    pub globals: Vec<String>,
    /// Regex literals' texts, by index.
    pub regexes: Vec<Vec<u8>>,
    pub ranges: usize,
}

/// The global slots of the special variables, registered before any other name.
pub mod slot {
    pub const NF: usize = 0;
    pub const NR: usize = 1;
    pub const FNR: usize = 2;
    pub const FS: usize = 3;
    pub const OFS: usize = 4;
    pub const ORS: usize = 5;
    pub const RS: usize = 6;
    pub const SUBSEP: usize = 7;
    pub const FILENAME: usize = 8;
    pub const RSTART: usize = 9;
    pub const RLENGTH: usize = 10;
    pub const CONVFMT: usize = 11;
    pub const OFMT: usize = 12;
    pub const ENVIRON: usize = 13;
    pub const ARGC: usize = 14;
    pub const ARGV: usize = 15;
    /// Their names, by slot.
    pub const NAMES: &[&str] = &[
        "NF", "NR", "FNR", "FS", "OFS", "ORS", "RS", "SUBSEP", "FILENAME", "RSTART", "RLENGTH", "CONVFMT", "OFMT",
        "ENVIRON", "ARGC", "ARGV",
    ];
}
