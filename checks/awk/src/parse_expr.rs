//! Expressions. The precedence ladder is POSIX awk's, lowest first: `?:` and
//! assignment, `||`, `&&`, `in`, `~ !~`, comparisons, concatenation, `+ -`, `* / %`,
//! unary `! - +`, `^`, `++ --`, `$`, grouping. Inside `print`'s arguments a bare `>` is
//! output redirection (refused), not a comparison, as in every awk; `"cmd" | getline`
//! and `system()` are refused here.

use std::rc::Rc;

use crate::ast::{BinOp, Builtin, CmpOp, Expr, LValue, Var};
use crate::error::{Error, Result};
use crate::lexer::Tok;
use crate::parser::{Parser, strip_group};

impl Parser {
    pub(crate) fn expr(&mut self) -> Result<Expr> {
        self.enter()?;
        let e = self.assignment();
        self.depth -= 1;
        e
    }

    pub(crate) fn assignment(&mut self) -> Result<Expr> {
        let lhs = self.ternary()?;
        self.finish_assignment(lhs)
    }

    /// `lhs` and, when an assignment operator follows, the assignment.
    pub(crate) fn finish_assignment(&mut self, lhs: Expr) -> Result<Expr> {
        let op = match self.tok() {
            Tok::Op("=") => None,
            Tok::Op("+=") => Some(BinOp::Add),
            Tok::Op("-=") => Some(BinOp::Sub),
            Tok::Op("*=") => Some(BinOp::Mul),
            Tok::Op("/=") => Some(BinOp::Div),
            Tok::Op("%=") => Some(BinOp::Mod),
            Tok::Op("^=") | Tok::Op("**=") => Some(BinOp::Pow),
            _ => return Ok(lhs),
        };
        let Expr::LValue(lv) = lhs else {
            return Err(self.unexpected("assignment to something that is not a variable"));
        };
        self.advance();
        self.opt_newlines();
        let rhs = self.expr()?;
        Ok(Expr::Assign(Box::new(lv), op, Box::new(rhs)))
    }

    pub(crate) fn ternary(&mut self) -> Result<Expr> {
        let cond = self.or()?;
        if !self.eat_op("?") {
            return Ok(cond);
        }
        self.opt_newlines();
        let yes = self.expr()?;
        self.opt_newlines();
        self.expect_op(":")?;
        self.opt_newlines();
        let no = self.expr()?;
        Ok(Expr::Cond(Box::new(cond), Box::new(yes), Box::new(no)))
    }

    pub(crate) fn or(&mut self) -> Result<Expr> {
        let mut e = self.and()?;
        while self.eat_op("||") {
            self.opt_newlines();
            let rhs = self.and()?;
            let rhs = self.assignment_tail(rhs)?;
            e = Expr::Or(Box::new(e), Box::new(rhs));
        }
        Ok(e)
    }

    pub(crate) fn and(&mut self) -> Result<Expr> {
        let mut e = self.in_expr()?;
        while self.eat_op("&&") {
            self.opt_newlines();
            let rhs = self.in_expr()?;
            let rhs = self.assignment_tail(rhs)?;
            e = Expr::And(Box::new(e), Box::new(rhs));
        }
        Ok(e)
    }

    pub(crate) fn in_expr(&mut self) -> Result<Expr> {
        let mut e = self.match_expr()?;
        while self.is_kw("in") {
            self.advance();
            let array = self.array_name()?;
            e = Expr::In(vec![e], array);
        }
        Ok(e)
    }

    pub(crate) fn array_name(&mut self) -> Result<Var> {
        match self.advance() {
            Tok::Name(n) => self.var(&n),
            _ => Err(self.unexpected("expected an array name")),
        }
    }

    pub(crate) fn match_expr(&mut self) -> Result<Expr> {
        let mut e = self.compare()?;
        loop {
            let negated = match self.tok() {
                Tok::Op("~") => false,
                Tok::Op("!~") => true,
                _ => return Ok(e),
            };
            self.advance();
            let rhs = self.compare()?;
            let rhs = self.assignment_tail(rhs)?;
            e = Expr::Match(negated, Box::new(e), Box::new(rhs));
        }
    }

    /// A comparison. Comparisons do not chain (`a < b < c` is a syntax error in gawk,
    /// whose grammar makes them non-associative).
    pub(crate) fn compare(&mut self) -> Result<Expr> {
        let mut e = self.concat()?;
        let mut compared = false;
        loop {
            let op = match self.tok() {
                Tok::Op("<") => CmpOp::Lt,
                Tok::Op("<=") => CmpOp::Le,
                Tok::Op("==") => CmpOp::Eq,
                Tok::Op("!=") => CmpOp::Ne,
                Tok::Op(">=") => CmpOp::Ge,
                Tok::Op(">") if !self.no_gt => CmpOp::Gt,
                Tok::Op("|") if matches!(self.peek(1), Tok::Keyword("getline")) => {
                    return Err(Error::Refused("reading a command's output `\"cmd\" | getline'".into()));
                }
                _ => return Ok(e),
            };
            if compared {
                return Err(self.unexpected("syntax error"));
            }
            compared = true;
            self.advance();
            let rhs = self.concat()?;
            let rhs = self.assignment_tail(rhs)?;
            e = Expr::Compare(op, Box::new(e), Box::new(rhs));
        }
    }

    /// The right operand of `||`, `&&`, `~` or a comparison may be an assignment in
    /// gawk's grammar (`x != x = $1` is `x != (x = $1)`): a variable followed by an
    /// assignment operator takes the rest of the expression.
    pub(crate) fn assignment_tail(&mut self, rhs: Expr) -> Result<Expr> {
        let is_assign = matches!(self.tok(), Tok::Op("=" | "+=" | "-=" | "*=" | "/=" | "%=" | "^=" | "**="));
        if is_assign && matches!(rhs, Expr::LValue(_)) {
            return self.finish_assignment(rhs);
        }
        Ok(rhs)
    }

    /// Whether the current token can start the right operand of a concatenation.
    pub(crate) fn starts_operand(&self) -> bool {
        match self.tok() {
            Tok::Number(_) | Tok::Str(_) | Tok::Regex(_) | Tok::Name(_) | Tok::FuncName(_) | Tok::Builtin(_) => true,
            // `a !b` concatenates `a` and `!b` (gawk's grammar allows it).
            Tok::Op(op) => matches!(*op, "$" | "(" | "++" | "--" | "!"),
            _ => false,
        }
    }

    pub(crate) fn concat(&mut self) -> Result<Expr> {
        let mut e = self.additive()?;
        while self.starts_operand() {
            let rhs = self.additive()?;
            e = Expr::Concat(Box::new(e), Box::new(rhs));
        }
        Ok(e)
    }

    pub(crate) fn additive(&mut self) -> Result<Expr> {
        let mut e = self.multiplicative()?;
        loop {
            let op = match self.tok() {
                Tok::Op("+") => BinOp::Add,
                Tok::Op("-") => BinOp::Sub,
                _ => return Ok(e),
            };
            self.advance();
            let rhs = self.multiplicative()?;
            e = Expr::Binary(op, Box::new(e), Box::new(rhs));
        }
    }

    pub(crate) fn multiplicative(&mut self) -> Result<Expr> {
        let mut e = self.unary()?;
        loop {
            let op = match self.tok() {
                Tok::Op("*") => BinOp::Mul,
                Tok::Op("/") => BinOp::Div,
                Tok::Op("%") => BinOp::Mod,
                _ => return Ok(e),
            };
            self.advance();
            let rhs = self.unary()?;
            e = Expr::Binary(op, Box::new(e), Box::new(rhs));
        }
    }

    pub(crate) fn unary(&mut self) -> Result<Expr> {
        self.enter()?;
        let e = match self.tok() {
            Tok::Op("!") => {
                self.advance();
                self.unary().map(|e| Expr::Not(Box::new(e)))
            }
            Tok::Op("-") => {
                self.advance();
                self.unary().map(|e| Expr::Neg(Box::new(e)))
            }
            Tok::Op("+") => {
                self.advance();
                self.unary().map(|e| Expr::Plus(Box::new(e)))
            }
            _ => self.power(),
        };
        self.depth -= 1;
        e
    }

    pub(crate) fn power(&mut self) -> Result<Expr> {
        let base = self.incdec()?;
        if self.is_op("^") || self.is_op("**") {
            self.advance();
            // Right associative, and `2^-1` takes a sign.
            let exponent = self.unary()?;
            return Ok(Expr::Binary(BinOp::Pow, Box::new(base), Box::new(exponent)));
        }
        Ok(base)
    }

    pub(crate) fn incdec(&mut self) -> Result<Expr> {
        if self.is_op("++") || self.is_op("--") {
            let delta = if self.is_op("++") { 1.0 } else { -1.0 };
            self.advance();
            let Expr::LValue(lv) = self.primary()? else {
                return Err(self.unexpected("`++' or `--' of something that is not a variable"));
            };
            return Ok(Expr::IncDec(Box::new(lv), delta, true));
        }
        let e = self.primary()?;
        if let Expr::LValue(lv) = &e
            && (self.is_op("++") || self.is_op("--"))
        {
            let delta = if self.is_op("++") { 1.0 } else { -1.0 };
            self.advance();
            return Ok(Expr::IncDec(Box::new(lv.clone()), delta, false));
        }
        Ok(e)
    }

    pub(crate) fn primary(&mut self) -> Result<Expr> {
        self.enter()?;
        let e = self.primary_inner();
        self.depth -= 1;
        e
    }

    pub(crate) fn primary_inner(&mut self) -> Result<Expr> {
        match self.advance() {
            Tok::Number(n) => Ok(Expr::Num(n)),
            Tok::Str(s) => Ok(Expr::Str(Rc::from(s))),
            Tok::Regex(r) => {
                self.program.regexes.push(r);
                Ok(Expr::Regex(self.program.regexes.len() - 1))
            }
            Tok::Op("$") => {
                let operand = match self.tok() {
                    // `$$a++` is `$($a++)`: an inner field takes its own `++`.
                    Tok::Op("++") | Tok::Op("--") | Tok::Op("$") => self.incdec()?,
                    Tok::Op("-") => {
                        self.advance();
                        Expr::Neg(Box::new(self.primary()?))
                    }
                    _ => self.primary()?,
                };
                Ok(Expr::LValue(LValue::Field(Box::new(operand))))
            }
            Tok::Op("(") => {
                let mut list = self.expr_list(")")?;
                if list.len() > 1 {
                    if !self.is_kw("in") {
                        return Err(self.unexpected("a parenthesised list must be followed by `in'"));
                    }
                    self.advance();
                    let array = self.array_name()?;
                    return Ok(Expr::In(list, array));
                }
                match list.pop() {
                    Some(e) => Ok(Expr::Group(Box::new(e))),
                    None => Err(self.unexpected("empty parentheses")),
                }
            }
            Tok::Op("-") => Ok(Expr::Neg(Box::new(self.unary()?))),
            Tok::Op("+") => Ok(Expr::Plus(Box::new(self.unary()?))),
            Tok::Op("!") => Ok(Expr::Not(Box::new(self.unary()?))),
            Tok::Name(name) => {
                let var = self.var(&name)?;
                if self.eat_op("[") {
                    let subs = self.expr_list("]")?;
                    if subs.is_empty() {
                        return Err(self.unexpected("empty subscript"));
                    }
                    if self.eat_op("[") {
                        return Err(Error::Fatal("gawk's arrays of arrays (`a[i][j]`) are not supported".into()));
                    }
                    return Ok(Expr::LValue(LValue::Index(var, subs)));
                }
                Ok(Expr::LValue(LValue::Var(var)))
            }
            Tok::FuncName(name) => {
                if self.locals.as_ref().is_some_and(|l| l.contains(&name)) || self.globals.contains_key(&name) {
                    return Err(self.unexpected(&format!("`{name}' is a variable, not a function")));
                }
                let index = self.function_slot(&name);
                self.expect_op("(")?;
                let args = self.expr_list(")")?;
                Ok(Expr::Call(index, args))
            }
            Tok::Builtin(name) => self.builtin(name),
            Tok::Keyword("getline") => self.getline(),
            _ => {
                self.pos -= 1;
                Err(self.unexpected("syntax error"))
            }
        }
    }

    pub(crate) fn getline(&mut self) -> Result<Expr> {
        let var = match self.tok() {
            Tok::Name(_) | Tok::Op("$") => match self.primary()? {
                Expr::LValue(lv) => Some(Box::new(lv)),
                _ => return Err(self.unexpected("getline into something that is not a variable")),
            },
            _ => None,
        };
        let file = if self.eat_op("<") { Some(Box::new(self.primary()?)) } else { None };
        Ok(Expr::Getline(var, file))
    }

    pub(crate) fn builtin(&mut self, name: &'static str) -> Result<Expr> {
        let which = match name {
            "length" => Builtin::Length,
            "substr" => Builtin::Substr,
            "index" => Builtin::Index,
            "split" => Builtin::Split,
            "sub" => Builtin::Sub,
            "gsub" => Builtin::Gsub,
            "match" => Builtin::Match,
            "sprintf" => Builtin::Sprintf,
            "tolower" => Builtin::Tolower,
            "toupper" => Builtin::Toupper,
            "int" => Builtin::Int,
            "sqrt" => Builtin::Sqrt,
            "exp" => Builtin::Exp,
            "log" => Builtin::Log,
            "sin" => Builtin::Sin,
            "cos" => Builtin::Cos,
            "atan2" => Builtin::Atan2,
            "rand" => Builtin::Rand,
            "srand" => Builtin::Srand,
            "close" => Builtin::Close,
            "fflush" => Builtin::Fflush,
            _ => return Err(Error::Refused(format!("`{name}()' (running a command)"))),
        };
        if which == Builtin::Length && !self.is_op("(") {
            return Ok(Expr::Builtin(which, Vec::new()));
        }
        self.expect_op("(")?;
        let args = self.expr_list(")")?;
        let (min, max) = match which {
            Builtin::Length | Builtin::Srand | Builtin::Fflush => (0, 1),
            Builtin::Rand => (0, 0),
            Builtin::Substr => (2, 3),
            Builtin::Index | Builtin::Atan2 => (2, 2),
            Builtin::Match => (2, 3),
            Builtin::Split => (2, 4),
            Builtin::Sub | Builtin::Gsub => (2, 3),
            Builtin::Sprintf => (1, usize::MAX),
            _ => (1, 1),
        };
        if args.len() < min || args.len() > max {
            return Err(self.unexpected(&format!(
                "{} arguments to `{name}'",
                if args.len() < min { "too few" } else { "too many" }
            )));
        }
        match which {
            Builtin::Split if !matches!(args[1], Expr::LValue(LValue::Var(_))) => {
                return Err(self.unexpected("split: second argument is not an array"));
            }
            Builtin::Match if args.len() == 3 && !matches!(args[2], Expr::LValue(LValue::Var(_))) => {
                return Err(self.unexpected("match: third argument is not an array"));
            }
            Builtin::Split if args.len() == 4 && !matches!(args[3], Expr::LValue(LValue::Var(_))) => {
                return Err(self.unexpected("split: fourth argument is not an array"));
            }
            Builtin::Sub | Builtin::Gsub if args.len() == 3 && !matches!(strip_group(&args[2]), Expr::LValue(_)) => {
                return Err(self.unexpected(&format!("{name}: third argument is not a variable")));
            }
            _ => {}
        }
        Ok(Expr::Builtin(which, args))
    }
}
