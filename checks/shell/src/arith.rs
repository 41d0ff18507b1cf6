//! Shell arithmetic (`$(( ))`, `(( ))`, `let`, `for ((;;))`, the operands of `-eq` in
//! `[[ ]]`): 64-bit integers that wrap as bash's do, over the shell variables.
//!
//! brush-parser parses the (already expanded) text; this module evaluates the tree. A
//! variable whose value is not a number is evaluated as an expression in turn (bash:
//! `X=1+2; echo $((X*2))` prints 6), a bounded number of times.

use brush_parser::ast::{ArithmeticExpr, ArithmeticTarget, BinaryOperator, UnaryAssignmentOperator, UnaryOperator};

use crate::vars::Vars;

/// Longest expression text evaluated. The parser and the evaluator recurse, so a
/// generated expression of thousands of operators must not reach them.
const MAX_TEXT: usize = 10_000;

/// Deepest nesting of operators and of variables that hold expressions.
const MAX_DEPTH: usize = 200;

/// Evaluates `text`. `nounset`: an unset variable is an error (`set -u`), not 0. The
/// error is bash's message without the expression it is about (`division by 0`).
pub fn evaluate(text: &str, vars: &mut Vars, nounset: bool) -> Result<i64, String> {
    Eval { vars, nounset, depth: 0 }.text(text)
}

struct Eval<'a> {
    vars: &'a mut Vars,
    nounset: bool,
    depth: usize,
}

impl Eval<'_> {
    fn text(&mut self, text: &str) -> Result<i64, String> {
        if text.len() > MAX_TEXT {
            return Err(format!("expression longer than {MAX_TEXT} characters"));
        }
        if crate::parse::parenthesis_depth(text) > crate::parse::MAX_PARENTHESES {
            return Err(format!("more than {} parentheses open at once", crate::parse::MAX_PARENTHESES));
        }
        let tree = brush_parser::arithmetic::parse(text).map_err(|_| "arithmetic syntax error".to_string())?;
        self.expr(&tree)
    }

    fn expr(&mut self, e: &ArithmeticExpr) -> Result<i64, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("expression nested more than {MAX_DEPTH} levels deep"));
        }
        let value = match e {
            ArithmeticExpr::Literal(n) => Ok(*n),
            ArithmeticExpr::Reference(target) => self.read(target),
            ArithmeticExpr::UnaryOp(op, x) => {
                let x = self.expr(x)?;
                Ok(match op {
                    UnaryOperator::UnaryPlus => x,
                    UnaryOperator::UnaryMinus => x.wrapping_neg(),
                    UnaryOperator::BitwiseNot => !x,
                    UnaryOperator::LogicalNot => i64::from(x == 0),
                })
            }
            ArithmeticExpr::BinaryOp(BinaryOperator::LogicalAnd, a, b) => {
                Ok(i64::from(self.expr(a)? != 0 && self.expr(b)? != 0))
            }
            ArithmeticExpr::BinaryOp(BinaryOperator::LogicalOr, a, b) => {
                Ok(i64::from(self.expr(a)? != 0 || self.expr(b)? != 0))
            }
            ArithmeticExpr::BinaryOp(op, a, b) => {
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                apply(op, a, b)
            }
            ArithmeticExpr::Conditional(c, t, f) => {
                if self.expr(c)? != 0 {
                    self.expr(t)
                } else {
                    self.expr(f)
                }
            }
            ArithmeticExpr::Assignment(target, x) => {
                let value = self.expr(x)?;
                self.write(target, value)
            }
            ArithmeticExpr::BinaryAssignment(op, target, x) => {
                let current = self.read(target)?;
                let operand = self.expr(x)?;
                let value = apply(op, current, operand)?;
                self.write(target, value)
            }
            ArithmeticExpr::UnaryAssignment(op, target) => {
                let current = self.read(target)?;
                let (new, result) = match op {
                    UnaryAssignmentOperator::PrefixIncrement => (current.wrapping_add(1), current.wrapping_add(1)),
                    UnaryAssignmentOperator::PrefixDecrement => (current.wrapping_sub(1), current.wrapping_sub(1)),
                    UnaryAssignmentOperator::PostfixIncrement => (current.wrapping_add(1), current),
                    UnaryAssignmentOperator::PostfixDecrement => (current.wrapping_sub(1), current),
                };
                self.write(target, new)?;
                Ok(result)
            }
        };
        self.depth -= 1;
        value
    }

    fn name(target: &ArithmeticTarget) -> Result<&str, String> {
        match target {
            ArithmeticTarget::Variable(name) => Ok(name),
            ArithmeticTarget::ArrayElement(name, _) => {
                Err(format!("{name}[...]: arrays are not supported by the reviewhost shell"))
            }
        }
    }

    fn read(&mut self, target: &ArithmeticTarget) -> Result<i64, String> {
        let name = Self::name(target)?;
        let value = match self.vars.get(name) {
            None if self.nounset => return Err(format!("{name}: unbound variable")),
            None => return Ok(0),
            Some(value) => value.trim().to_string(),
        };
        if value.is_empty() {
            return Ok(0);
        }
        if let Ok(n) = value.parse::<i64>() {
            return Ok(n);
        }
        self.text(&value)
    }

    fn write(&mut self, target: &ArithmeticTarget, value: i64) -> Result<i64, String> {
        let name = Self::name(target)?;
        self.vars.set(name, &value.to_string())?;
        Ok(value)
    }
}

fn apply(op: &BinaryOperator, a: i64, b: i64) -> Result<i64, String> {
    Ok(match op {
        BinaryOperator::Power => {
            if b < 0 {
                return Err("exponent less than 0".into());
            }
            power(a, b)
        }
        BinaryOperator::Multiply => a.wrapping_mul(b),
        BinaryOperator::Divide | BinaryOperator::Modulo if b == 0 => return Err("division by 0".into()),
        BinaryOperator::Divide => a.wrapping_div(b),
        BinaryOperator::Modulo => a.wrapping_rem(b),
        BinaryOperator::Comma => b,
        BinaryOperator::Add => a.wrapping_add(b),
        BinaryOperator::Subtract => a.wrapping_sub(b),
        BinaryOperator::ShiftLeft => a.wrapping_shl((b & 63) as u32),
        BinaryOperator::ShiftRight => a.wrapping_shr((b & 63) as u32),
        BinaryOperator::LessThan => i64::from(a < b),
        BinaryOperator::LessThanOrEqualTo => i64::from(a <= b),
        BinaryOperator::GreaterThan => i64::from(a > b),
        BinaryOperator::GreaterThanOrEqualTo => i64::from(a >= b),
        BinaryOperator::Equals => i64::from(a == b),
        BinaryOperator::NotEquals => i64::from(a != b),
        BinaryOperator::BitwiseAnd => a & b,
        BinaryOperator::BitwiseXor => a ^ b,
        BinaryOperator::BitwiseOr => a | b,
        BinaryOperator::LogicalAnd => i64::from(a != 0 && b != 0),
        BinaryOperator::LogicalOr => i64::from(a != 0 || b != 0),
    })
}

/// `a ** b` by squaring, wrapping like bash.
fn power(mut base: i64, mut exponent: i64) -> i64 {
    let mut result: i64 = 1;
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exponent >>= 1;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str, vars: &mut Vars) -> Result<i64, String> {
        evaluate(text, vars, false)
    }

    #[test]
    fn operators_and_variables() {
        let mut vars = Vars::default();
        assert_eq!(eval("1 + 2 * 3", &mut vars), Ok(7));
        assert_eq!(eval("(1 + 2) * 3", &mut vars), Ok(9));
        assert_eq!(eval("7 / 2", &mut vars), Ok(3));
        assert_eq!(eval("-7 % 3", &mut vars), Ok(-1));
        assert_eq!(eval("2 ** 10", &mut vars), Ok(1024));
        assert_eq!(eval("3 > 2 && 0 || 5 == 5", &mut vars), Ok(1));
        assert_eq!(eval("1 ? 10 : 20", &mut vars), Ok(10));
        assert_eq!(eval("x = 5, x += 2, x++", &mut vars), Ok(7));
        assert_eq!(vars.get("x"), Some("8"));
        assert_eq!(eval("unset_var + 1", &mut vars), Ok(1));
        vars.set("e", "x * 2").unwrap();
        assert_eq!(eval("e + 1", &mut vars), Ok(17));
        assert_eq!(eval("0x10 + 010", &mut vars), Ok(24));
        assert_eq!(eval("", &mut vars), Ok(0));
    }

    #[test]
    fn errors_are_bash_messages() {
        let mut vars = Vars::default();
        assert_eq!(eval("1 / 0", &mut vars), Err("division by 0".into()));
        assert_eq!(eval("2 ** -1", &mut vars), Err("exponent less than 0".into()));
        assert!(eval("1 +", &mut vars).unwrap_err().contains("syntax error"));
        assert_eq!(evaluate("nope", &mut vars, true), Err("nope: unbound variable".into()));
        vars.set("loop", "loop + 1").unwrap();
        assert!(eval("loop", &mut vars).unwrap_err().contains("nested more than"));
        // Long and deep expressions are refused before the recursive parser sees them.
        assert!(eval(&"1+".repeat(6_000), &mut vars).unwrap_err().contains("longer than"));
        assert!(
            eval(&format!("{}1{}", "(".repeat(40), ")".repeat(40)), &mut vars).unwrap_err().contains("parentheses")
        );
    }
}
