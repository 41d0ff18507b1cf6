//! Recursive-descent parser from tokens to the program's syntax tree (`ast.rs`).
//!
//! This file parses the program's items and statements; `parse_expr.rs` its
//! expressions.
//!
//! What would write or run a command (`print > file`, `print | cmd`, `cmd | getline`,
//! `system()`) is refused here, before anything runs.

use std::collections::HashMap;

use crate::ast::{Dest, Expr, Function, Pattern, Program, Rule, Stmt, Var, slot};
use crate::error::{Error, Result};
use crate::lexer::{Tok, Token, tokenize};

/// Deepest nesting of expressions and statements accepted. The parser and the
/// interpreter recurse once per level, so this keeps both within the component's stack
/// (a program nested this deep is not a verification command anyway).
pub const MAX_NESTING: usize = 100;

/// gawk's own functions, named in the error when a program calls one.
const GAWK_FUNCTIONS: &[&str] = &[
    "gensub",
    "asort",
    "asorti",
    "patsplit",
    "strftime",
    "systime",
    "mktime",
    "strtonum",
    "and",
    "or",
    "xor",
    "lshift",
    "rshift",
    "compl",
    "isarray",
    "typeof",
    "bindtextdomain",
    "dcgettext",
    "dcngettext",
];

/// gawk's special variables whose meaning this awk does not have: a program that uses
/// one is refused rather than misread (`IGNORECASE=1` silently ignored would change
/// what matches; `PROCINFO["sorted_in"]` the for-in order).
pub(crate) const GAWK_VARIABLES: &[&str] = &[
    "IGNORECASE",
    "PROCINFO",
    "RT",
    "FPAT",
    "FIELDWIDTHS",
    "BINMODE",
    "LINT",
    "TEXTDOMAIN",
    "ERRNO",
    "ARGIND",
    "SYMTAB",
    "FUNCTAB",
];

pub fn parse(src: &[u8]) -> Result<Program> {
    let toks = tokenize(src)?;
    let mut p = Parser {
        toks,
        pos: 0,
        globals: HashMap::new(),
        program: Program::default(),
        locals: None,
        functions: HashMap::new(),
        defined: Vec::new(),
        no_gt: false,
        depth: 0,
        in_function: false,
        in_loop: 0,
    };
    for name in slot::NAMES {
        p.global(name);
    }
    p.program_items()?;
    p.finish()
}

pub(crate) struct Parser {
    pub(crate) toks: Vec<Token>,
    pub(crate) pos: usize,
    pub(crate) globals: HashMap<String, usize>,
    pub(crate) program: Program,
    /// The parameters of the function being parsed.
    pub(crate) locals: Option<Vec<String>>,
    /// Function slots by name (a call may come before the definition).
    pub(crate) functions: HashMap<String, usize>,
    pub(crate) defined: Vec<Option<Function>>,
    /// Inside `print`'s unparenthesised arguments: `>` is redirection.
    pub(crate) no_gt: bool,
    pub(crate) depth: usize,
    pub(crate) in_function: bool,
    pub(crate) in_loop: usize,
}

impl Parser {
    pub(crate) fn tok(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    pub(crate) fn peek(&self, ahead: usize) -> &Tok {
        &self.toks[(self.pos + ahead).min(self.toks.len() - 1)].tok
    }

    pub(crate) fn advance(&mut self) -> Tok {
        let t = self.toks[self.pos].tok.clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    pub(crate) fn is_op(&self, op: &str) -> bool {
        matches!(self.tok(), Tok::Op(o) if *o == op)
    }

    pub(crate) fn is_kw(&self, kw: &str) -> bool {
        matches!(self.tok(), Tok::Keyword(k) if *k == kw)
    }

    pub(crate) fn eat_op(&mut self, op: &str) -> bool {
        let hit = self.is_op(op);
        if hit {
            self.advance();
        }
        hit
    }

    pub(crate) fn expect_op(&mut self, op: &str) -> Result<()> {
        if self.eat_op(op) { Ok(()) } else { Err(self.unexpected(&format!("expected `{op}'"))) }
    }

    pub(crate) fn unexpected(&self, what: &str) -> Error {
        let near = match self.tok() {
            Tok::Newline => "end of line".to_string(),
            Tok::Eof => "end of program".to_string(),
            Tok::Number(n) => format!("{n}"),
            Tok::Str(s) => format!("\"{}\"", String::from_utf8_lossy(s)),
            Tok::Regex(r) => format!("/{}/", String::from_utf8_lossy(r)),
            Tok::Name(n) | Tok::FuncName(n) => n.clone(),
            Tok::Builtin(n) | Tok::Keyword(n) | Tok::Op(n) => n.to_string(),
        };
        Error::Syntax { line: self.toks[self.pos].line, message: format!("{what} at or near {near}") }
    }

    pub(crate) fn opt_newlines(&mut self) {
        while matches!(self.tok(), Tok::Newline) {
            self.advance();
        }
    }

    pub(crate) fn skip_terminators(&mut self) {
        while matches!(self.tok(), Tok::Newline) || self.is_op(";") {
            self.advance();
        }
    }

    pub(crate) fn global(&mut self, name: &str) -> usize {
        if let Some(&i) = self.globals.get(name) {
            return i;
        }
        let i = self.program.globals.len();
        self.program.globals.push(name.to_string());
        self.globals.insert(name.to_string(), i);
        i
    }

    pub(crate) fn var(&mut self, name: &str) -> Result<Var> {
        if let Some(locals) = &self.locals
            && let Some(i) = locals.iter().position(|l| l == name)
        {
            return Ok(Var::Local(i));
        }
        if self.functions.contains_key(name) && self.defined.get(self.functions[name]).is_some_and(Option::is_some) {
            return Err(self.unexpected(&format!("function `{name}' used as a variable")));
        }
        Ok(Var::Global(self.global(name)))
    }

    pub(crate) fn function_slot(&mut self, name: &str) -> usize {
        if let Some(&i) = self.functions.get(name) {
            return i;
        }
        let i = self.defined.len();
        self.defined.push(None);
        self.functions.insert(name.to_string(), i);
        i
    }

    pub(crate) fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(Error::Fatal(format!("program nested more than {MAX_NESTING} levels deep")));
        }
        Ok(())
    }

    pub(crate) fn program_items(&mut self) -> Result<()> {
        loop {
            self.skip_terminators();
            match self.tok().clone() {
                Tok::Eof => return Ok(()),
                Tok::Keyword("BEGIN") => {
                    self.advance();
                    self.opt_newlines();
                    let body = self.block()?;
                    self.program.begin.push(body);
                }
                Tok::Keyword("END") => {
                    self.advance();
                    self.opt_newlines();
                    let body = self.block()?;
                    self.program.end.push(body);
                }
                Tok::Keyword("function") => self.function()?,
                _ => {
                    let pattern = if self.is_op("{") {
                        Pattern::All
                    } else {
                        let first = self.expr()?;
                        if self.eat_op(",") {
                            self.opt_newlines();
                            let second = self.expr()?;
                            self.program.ranges += 1;
                            Pattern::Range(first, second, self.program.ranges - 1)
                        } else {
                            Pattern::Expr(first)
                        }
                    };
                    let action = if self.is_op("{") { Some(self.block()?) } else { None };
                    if action.is_none() && !matches!(self.tok(), Tok::Newline | Tok::Eof) && !self.is_op(";") {
                        return Err(self.unexpected("syntax error"));
                    }
                    self.program.rules.push(Rule { pattern, action });
                }
            }
        }
    }

    pub(crate) fn function(&mut self) -> Result<()> {
        self.advance();
        let name = match self.advance() {
            Tok::Name(n) | Tok::FuncName(n) => n,
            _ => return Err(self.unexpected("expected a function name")),
        };
        if self.globals.contains_key(&name) || slot::NAMES.contains(&name.as_str()) {
            return Err(self.unexpected(&format!("function name `{name}' previously defined")));
        }
        let index = self.function_slot(&name);
        if self.defined[index].is_some() {
            return Err(self.unexpected(&format!("function `{name}' previously defined")));
        }
        self.expect_op("(")?;
        let mut params = Vec::new();
        self.opt_newlines();
        while !self.is_op(")") {
            match self.advance() {
                // gawk refuses both at parse time (exit status 1).
                Tok::Name(n) | Tok::FuncName(n) if n == name => {
                    return Err(
                        self.unexpected(&format!("function `{name}': cannot use function name as parameter name"))
                    );
                }
                Tok::Name(n) | Tok::FuncName(n) => {
                    if let Some(first) = params.iter().position(|p| *p == n) {
                        return Err(self.unexpected(&format!(
                            "function `{name}': parameter #{}, `{n}', duplicates parameter #{}",
                            params.len() + 1,
                            first + 1
                        )));
                    }
                    params.push(n)
                }
                _ => return Err(self.unexpected("expected a parameter name")),
            }
            self.opt_newlines();
            if !self.is_op(")") {
                self.expect_op(",")?;
                self.opt_newlines();
            }
        }
        self.advance();
        self.opt_newlines();
        self.locals = Some(params.clone());
        self.in_function = true;
        let body = self.block()?;
        self.in_function = false;
        self.locals = None;
        let count = params.len();
        self.defined[index] =
            Some(Function { name, params: count, param_names: params, array_params: vec![false; count], body });
        Ok(())
    }

    pub(crate) fn finish(mut self) -> Result<Program> {
        let mut functions = Vec::new();
        for (name, &i) in &self.functions {
            if self.defined[i].is_none() {
                if GAWK_FUNCTIONS.contains(&name.as_str()) {
                    return Err(Error::Fatal(format!("gawk's `{name}()' is not supported (POSIX awk functions only)")));
                }
                return Err(Error::Fatal(format!("function `{name}' called but never defined")));
            }
        }
        if let Some(name) = GAWK_VARIABLES.iter().find(|v| self.globals.contains_key(**v)) {
            return Err(Error::Fatal(format!("gawk's special variable `{name}' is not supported")));
        }
        for f in self.defined.drain(..) {
            functions.push(f.expect("checked above"));
        }
        crate::arrays::mark_array_params(&mut functions);
        self.program.functions = functions;
        Ok(self.program)
    }

    pub(crate) fn block(&mut self) -> Result<Vec<Stmt>> {
        self.expect_op("{")?;
        let mut stmts = Vec::new();
        loop {
            self.skip_terminators();
            if self.eat_op("}") {
                return Ok(stmts);
            }
            if matches!(self.tok(), Tok::Eof) {
                return Err(self.unexpected("unexpected end of program, missing `}'"));
            }
            stmts.push(self.stmt()?);
        }
    }

    /// The end of a simple statement: `;`, a newline, or before `}`.
    pub(crate) fn end_simple(&mut self) -> Result<()> {
        if self.is_op(";") || matches!(self.tok(), Tok::Newline) {
            self.advance();
            Ok(())
        } else if self.is_op("}") || matches!(self.tok(), Tok::Eof) {
            Ok(())
        } else {
            Err(self.unexpected("syntax error"))
        }
    }

    pub(crate) fn at_simple_end(&self) -> bool {
        self.is_op(";") || self.is_op("}") || matches!(self.tok(), Tok::Newline | Tok::Eof)
    }

    pub(crate) fn stmt(&mut self) -> Result<Stmt> {
        self.enter()?;
        let s = self.stmt_inner();
        self.depth -= 1;
        s
    }

    /// A loop's body, with `break`/`continue` allowed inside.
    pub(crate) fn loop_body(&mut self) -> Result<Stmt> {
        self.in_loop += 1;
        let body = self.body();
        self.in_loop -= 1;
        body
    }

    /// The statement after `if (...)`, `while (...)`, `else`: a lone `;` is empty.
    pub(crate) fn body(&mut self) -> Result<Stmt> {
        self.opt_newlines();
        if self.eat_op(";") {
            return Ok(Stmt::Block(Vec::new()));
        }
        self.stmt()
    }

    pub(crate) fn stmt_inner(&mut self) -> Result<Stmt> {
        if self.is_op("{") {
            return Ok(Stmt::Block(self.block()?));
        }
        if self.eat_op(";") {
            return Ok(Stmt::Block(Vec::new()));
        }
        let Tok::Keyword(kw) = self.tok().clone() else {
            let e = self.expr()?;
            self.end_simple()?;
            return Ok(Stmt::Expr(e));
        };
        match kw {
            "if" => {
                self.advance();
                self.expect_op("(")?;
                let cond = self.expr()?;
                self.expect_op(")")?;
                let then = self.body()?;
                // `else` may follow after newlines or a `;`.
                let save = self.pos;
                self.skip_terminators();
                if self.is_kw("else") {
                    self.advance();
                    let other = self.body()?;
                    Ok(Stmt::If(cond, Box::new(then), Some(Box::new(other))))
                } else {
                    self.pos = save;
                    Ok(Stmt::If(cond, Box::new(then), None))
                }
            }
            "while" => {
                self.advance();
                self.expect_op("(")?;
                let cond = self.expr()?;
                self.expect_op(")")?;
                if self.is_op(";") {
                    self.advance();
                    return Ok(Stmt::While(cond, Box::new(Stmt::Block(Vec::new()))));
                }
                let body = self.loop_body()?;
                Ok(Stmt::While(cond, Box::new(body)))
            }
            "do" => {
                self.advance();
                let body = self.loop_body()?;
                self.skip_terminators();
                if !self.is_kw("while") {
                    return Err(self.unexpected("expected `while' after `do' body"));
                }
                self.advance();
                self.expect_op("(")?;
                let cond = self.expr()?;
                self.expect_op(")")?;
                self.end_simple()?;
                Ok(Stmt::Do(Box::new(body), cond))
            }
            "for" => self.for_stmt(),
            "else" => Err(self.unexpected("`else' without `if'")),
            _ => {
                let s = self.simple_keyword(kw)?;
                self.end_simple()?;
                Ok(s)
            }
        }
    }

    pub(crate) fn for_stmt(&mut self) -> Result<Stmt> {
        self.advance();
        self.expect_op("(")?;
        // `for (k in a)` and `for ((k) in a)`.
        let for_in = match (self.tok().clone(), self.peek(1).clone(), self.peek(2).clone(), self.peek(3).clone()) {
            (Tok::Name(k), Tok::Keyword("in"), Tok::Name(a), Tok::Op(")")) => Some((k, a, 4)),
            (Tok::Name(_), Tok::Keyword("in"), Tok::Name(_), Tok::Op("[")) => {
                return Err(Error::Fatal("gawk's arrays of arrays (`for (k in a[i])`) are not supported".into()));
            }
            _ => None,
        };
        if let Some((k, a, len)) = for_in {
            self.pos += len;
            let key = self.var(&k)?;
            let array = self.var(&a)?;
            let body = self.loop_body()?;
            return Ok(Stmt::ForIn(key, array, Box::new(body)));
        }
        let init = if self.is_op(";") { None } else { Some(Box::new(self.simple_stmt()?)) };
        self.expect_op(";")?;
        self.opt_newlines();
        let cond = if self.is_op(";") { None } else { Some(self.expr()?) };
        self.expect_op(";")?;
        self.opt_newlines();
        let step = if self.is_op(")") { None } else { Some(Box::new(self.simple_stmt()?)) };
        self.expect_op(")")?;
        if self.is_op(";") {
            self.advance();
            return Ok(Stmt::For(init, cond, step, Box::new(Stmt::Block(Vec::new()))));
        }
        let body = self.loop_body()?;
        Ok(Stmt::For(init, cond, step, Box::new(body)))
    }

    /// A simple statement without its terminator (a `for` clause).
    pub(crate) fn simple_stmt(&mut self) -> Result<Stmt> {
        match self.tok().clone() {
            Tok::Keyword(kw) if kw != "getline" => self.simple_keyword(kw),
            _ => Ok(Stmt::Expr(self.expr()?)),
        }
    }

    pub(crate) fn simple_keyword(&mut self, kw: &str) -> Result<Stmt> {
        match kw {
            "print" | "printf" => self.print(kw == "printf"),
            "next" | "nextfile" => {
                self.advance();
                Ok(if kw == "next" { Stmt::Next } else { Stmt::NextFile })
            }
            "exit" | "return" => {
                self.advance();
                if kw == "return" && !self.in_function {
                    return Err(self.unexpected("`return' used outside function context"));
                }
                let value = if self.at_simple_end() { None } else { Some(self.expr()?) };
                Ok(if kw == "exit" { Stmt::Exit(value) } else { Stmt::Return(value) })
            }
            "break" | "continue" => {
                self.advance();
                if self.in_loop == 0 {
                    return Err(self.unexpected(&format!("`{kw}' is not allowed outside a loop")));
                }
                Ok(if kw == "break" { Stmt::Break } else { Stmt::Continue })
            }
            "delete" => {
                self.advance();
                let name = match self.advance() {
                    Tok::Name(n) => n,
                    _ => return Err(self.unexpected("expected an array name after `delete'")),
                };
                let array = self.var(&name)?;
                if self.eat_op("[") {
                    let subs = self.expr_list("]")?;
                    Ok(Stmt::Delete(array, Some(subs)))
                } else {
                    Ok(Stmt::Delete(array, None))
                }
            }
            "getline" => Ok(Stmt::Expr(self.expr()?)),
            _ => Err(self.unexpected("syntax error")),
        }
    }

    pub(crate) fn print(&mut self, printf: bool) -> Result<Stmt> {
        self.advance();
        let mut args = Vec::new();
        let at_end = |p: &Parser| p.at_simple_end() || p.is_op(">") || p.is_op(">>") || p.is_op("|");
        if !at_end(self) {
            // `print (a, b)`: a parenthesised list is the argument list when nothing follows.
            let mut grouped = None;
            if self.is_op("(") {
                let save = self.pos;
                self.advance();
                let list = self.expr_list(")");
                if let Ok(list) = list
                    && at_end(self)
                {
                    grouped = Some(list);
                } else {
                    self.pos = save;
                }
            }
            args = match grouped {
                Some(list) => list,
                None => {
                    let saved = std::mem::replace(&mut self.no_gt, true);
                    let list = self.bare_list();
                    self.no_gt = saved;
                    list?
                }
            };
        }
        let name = if printf { "printf" } else { "print" };
        let mut dest = Dest::Stdout;
        if self.is_op(">") || self.is_op(">>") {
            let op = if self.is_op(">") { ">" } else { ">>" };
            // The standard streams are not files: gawk and mawk name them specially.
            match self.peek(1).clone() {
                Tok::Str(s) if matches!(&s[..], b"/dev/stderr" | b"/dev/stdout" | b"/dev/null") => {
                    dest = match &s[..] {
                        b"/dev/stderr" => Dest::Stderr,
                        b"/dev/null" => Dest::Null,
                        _ => Dest::Stdout,
                    };
                    self.advance();
                    self.advance();
                }
                _ => return Err(Error::Refused(format!("output redirection `{name} {op} file'"))),
            }
        }
        if self.is_op("|") {
            return Err(Error::Refused(format!("piping output to a command `{name} | \"cmd\"'")));
        }
        if printf && args.is_empty() {
            return Err(self.unexpected("printf: no format"));
        }
        Ok(if printf { Stmt::Printf(args, dest) } else { Stmt::Print(args, dest) })
    }

    /// Comma-separated expressions (newlines allowed after a comma), not enclosed.
    pub(crate) fn bare_list(&mut self) -> Result<Vec<Expr>> {
        let mut list = vec![self.expr()?];
        while self.eat_op(",") {
            self.opt_newlines();
            list.push(self.expr()?);
        }
        Ok(list)
    }

    /// Comma-separated expressions up to `close` (consumed); `>` compares inside.
    pub(crate) fn expr_list(&mut self, close: &str) -> Result<Vec<Expr>> {
        let saved = std::mem::replace(&mut self.no_gt, false);
        let result = (|| {
            let mut list = Vec::new();
            self.opt_newlines();
            if self.eat_op(close) {
                return Ok(list);
            }
            loop {
                list.push(self.expr()?);
                self.opt_newlines();
                if self.eat_op(close) {
                    return Ok(list);
                }
                self.expect_op(",")?;
                self.opt_newlines();
            }
        })();
        self.no_gt = saved;
        result
    }
}

/// An expression without the parentheses around it.
pub fn strip_group(e: &Expr) -> &Expr {
    match e {
        Expr::Group(inner) => strip_group(inner),
        other => other,
    }
}
