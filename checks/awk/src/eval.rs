//! Expressions, user function calls (arrays by reference, the depth limit) and rule
//! patterns (ranges keep their state between records).

use std::rc::Rc;

use crate::ast::{BinOp, CmpOp, Expr, LValue, Pattern as Pat, Var};
use crate::error::{Error, Result};
use crate::interp::{Cell, Flow, Interp, MAX_CALL_DEPTH, STACK_BUDGET, arith, bool_value, stack_position};
use crate::value::{Value, compare};

impl Interp<'_, '_, '_> {
    /// An expression's value. Each kind is its own function: in a debug build one
    /// big match reserves stack for every arm's temporaries at each level of recursion,
    /// which would let only a few nested calls fit in the stack budget.
    pub fn eval(&mut self, e: &Expr) -> Result<Value> {
        match e {
            Expr::Num(n) => Ok(Value::Num(*n)),
            Expr::Str(s) => Ok(Value::Str(s.clone())),
            Expr::Regex(i) => self.eval_regex(*i),
            Expr::LValue(lv) => self.get(lv),
            Expr::Group(e) => self.eval(e),
            Expr::In(subs, array) => self.eval_in(subs, *array),
            Expr::Assign(lv, op, rhs) => self.eval_assign(lv, *op, rhs),
            Expr::Cond(c, a, b) => self.eval_cond(c, a, b),
            Expr::And(a, b) => self.eval_logic(a, b, true),
            Expr::Or(a, b) => self.eval_logic(a, b, false),
            Expr::Match(negated, s, re) => self.eval_match(*negated, s, re),
            Expr::Binary(op, a, b) => self.eval_binary(*op, a, b),
            Expr::Compare(op, a, b) => self.eval_compare(*op, a, b),
            Expr::Concat(a, b) => self.eval_concat(a, b),
            Expr::Not(a) => self.eval_unary(a, |v| bool_value(!v.truthy())),
            Expr::Neg(a) => self.eval_unary(a, |v| Value::Num(-v.num())),
            Expr::Plus(a) => self.eval_unary(a, |v| Value::Num(v.num())),
            Expr::IncDec(lv, delta, prefix) => self.eval_incdec(lv, *delta, *prefix),
            Expr::Call(f, args) => self.call(*f, args),
            Expr::Builtin(which, args) => self.builtin(*which, args),
            Expr::Getline(var, file) => self.getline(var.as_deref(), file.as_deref()),
        }
    }

    pub(crate) fn eval_regex(&mut self, i: usize) -> Result<Value> {
        let line = self.to_bytes(&self.record.line.clone());
        Ok(bool_value(self.regexes[i].is_match(&line)))
    }

    pub(crate) fn eval_in(&mut self, subs: &[Expr], array: Var) -> Result<Value> {
        let key = self.subscript(subs)?;
        let hit = self.array(array)?.borrow().contains(&key);
        Ok(bool_value(hit))
    }

    pub(crate) fn eval_assign(&mut self, lv: &LValue, op: Option<BinOp>, rhs: &Expr) -> Result<Value> {
        // The value first, then the place (gawk: `a[i++] = i` stores the old `i`).
        let mut v = self.eval(rhs)?;
        let place = self.resolve(lv)?;
        if let Some(op) = op {
            let cur = self.get_place(&place)?.num();
            v = Value::Num(arith(op, cur, v.num())?);
        }
        self.set_place(&place, v.clone())?;
        Ok(v)
    }

    pub(crate) fn eval_cond(&mut self, c: &Expr, a: &Expr, b: &Expr) -> Result<Value> {
        if self.eval(c)?.truthy() { self.eval(a) } else { self.eval(b) }
    }

    /// `&&` (`and`) or `||`, short-circuit.
    pub(crate) fn eval_logic(&mut self, a: &Expr, b: &Expr, and: bool) -> Result<Value> {
        let first = self.eval(a)?.truthy();
        if first != and {
            return Ok(bool_value(first));
        }
        Ok(bool_value(self.eval(b)?.truthy()))
    }

    pub(crate) fn eval_match(&mut self, negated: bool, s: &Expr, re: &Expr) -> Result<Value> {
        let v = self.eval(s)?;
        let s = self.to_bytes(&v);
        let re = self.regex_of(re)?;
        Ok(bool_value(re.is_match(&s) != negated))
    }

    pub(crate) fn eval_binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Result<Value> {
        let x = self.eval(a)?.num();
        let y = self.eval(b)?.num();
        Ok(Value::Num(arith(op, x, y)?))
    }

    pub(crate) fn eval_compare(&mut self, op: CmpOp, a: &Expr, b: &Expr) -> Result<Value> {
        let x = self.eval(a)?;
        let y = self.eval(b)?;
        let ord = compare(&x, &y, &self.convfmt());
        Ok(bool_value(match op {
            CmpOp::Lt => ord.is_lt(),
            CmpOp::Le => ord.is_le(),
            CmpOp::Eq => ord.is_eq(),
            CmpOp::Ne => ord.is_ne(),
            CmpOp::Gt => ord.is_gt(),
            CmpOp::Ge => ord.is_ge(),
        }))
    }

    pub(crate) fn eval_concat(&mut self, a: &Expr, b: &Expr) -> Result<Value> {
        let x = self.eval(a)?;
        let y = self.eval(b)?;
        let mut s = self.to_bytes(&x).to_vec();
        s.extend_from_slice(&self.to_bytes(&y));
        Ok(Value::Str(Rc::from(s)))
    }

    pub(crate) fn eval_unary(&mut self, a: &Expr, f: fn(Value) -> Value) -> Result<Value> {
        Ok(f(self.eval(a)?))
    }

    pub(crate) fn eval_incdec(&mut self, lv: &LValue, delta: f64, prefix: bool) -> Result<Value> {
        let place = self.resolve(lv)?;
        let old = self.get_place(&place)?.num();
        self.set_place(&place, Value::Num(old + delta))?;
        Ok(Value::Num(if prefix { old + delta } else { old }))
    }

    pub(crate) fn call(&mut self, index: usize, args: &[Expr]) -> Result<Value> {
        self.tick()?;
        let f = &self.prog.functions[index];
        if self.frames.len() >= MAX_CALL_DEPTH || self.stack_base.abs_diff(stack_position()) > STACK_BUDGET {
            return Err(Error::Fatal(format!(
                "function `{}' called too deeply (more than {} calls nested)",
                f.name,
                self.frames.len()
            )));
        }
        // gawk evaluates arguments beyond the parameters and ignores them, with a
        // warning (mawk refuses the program).
        for extra in args.iter().skip(f.params) {
            self.eval(extra)?;
        }
        let mut frame = vec![Cell::Uninit; f.params];
        for (i, arg) in args.iter().take(f.params).enumerate() {
            let bare = match crate::parser::strip_group(arg) {
                Expr::LValue(LValue::Var(v)) => Some(*v),
                _ => None,
            };
            frame[i] = match bare {
                Some(v) if f.array_params[i] => Cell::Arr(self.array(v)?),
                Some(v) if matches!(self.cell(v), Cell::Arr(_)) => self.cell(v).clone(),
                _ if f.array_params[i] => {
                    return Err(Error::Fatal(format!("function `{}': argument #{} must be an array", f.name, i + 1)));
                }
                _ => Cell::Val(self.eval(arg)?),
            };
            if matches!(frame[i], Cell::Val(Value::Uninit)) {
                frame[i] = Cell::Uninit;
            }
        }
        self.frames.push(frame);
        self.callees.push(index);
        let flow = self.exec_block(&f.body);
        self.callees.pop();
        let frame = self.frames.pop().unwrap_or_default();
        // An untyped variable passed to a parameter the function used as a scalar is a
        // scalar afterwards (gawk: `f(a); a[1]` is then an error).
        for (arg, cell) in args.iter().zip(&frame) {
            if let (Expr::LValue(LValue::Var(v)), Cell::Val(_)) = (crate::parser::strip_group(arg), cell)
                && matches!(self.cell(*v), Cell::Uninit)
            {
                *self.cell(*v) = Cell::Val(Value::Uninit);
            }
        }
        match flow? {
            Flow::Return(v) => Ok(v),
            Flow::Exit => Err(Error::Exit),
            Flow::Next => Err(Error::Next),
            Flow::NextFile => Err(Error::NextFile),
            _ => Ok(Value::Uninit),
        }
    }

    /// Whether a rule's pattern selects the current record.
    pub fn selects(&mut self, pattern: &Pat) -> Result<bool> {
        Ok(match pattern {
            Pat::All => true,
            Pat::Expr(e) => self.eval(e)?.truthy(),
            Pat::Range(start, end, i) => {
                if self.range_on[*i] {
                    if self.eval(end)?.truthy() {
                        self.range_on[*i] = false;
                    }
                    true
                } else if self.eval(start)?.truthy() {
                    self.range_on[*i] = !self.eval(end)?.truthy();
                    true
                } else {
                    false
                }
            }
        })
    }
}
