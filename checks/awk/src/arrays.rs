//! Associative arrays, and which function parameters are arrays.
//!
//! An array is passed to a function by reference, a scalar by value. A caller's
//! variable that was never used (`f(x)` where `f` fills `x`) has no type yet; awk gives
//! it the type the function uses its parameter as. That is known from the function's
//! body before the program runs: a parameter is an array when the body subscripts it,
//! deletes from it, loops over it, splits into it, tests `in` it, or passes it on to a
//! function whose parameter is an array.

use std::collections::HashMap;

use crate::ast::{Builtin, Expr, Function, LValue, Stmt, Var};
use crate::value::Value;

/// An awk array: string keys to values, iterated in insertion order (awk leaves the
/// order unspecified; insertion order is the least surprising).
#[derive(Debug, Default)]
pub struct Array {
    map: HashMap<Vec<u8>, (u64, Value)>,
    next: u64,
}

impl Array {
    pub fn get(&self, key: &[u8]) -> Option<&Value> {
        self.map.get(key).map(|(_, v)| v)
    }

    pub fn contains(&self, key: &[u8]) -> bool {
        self.map.contains_key(key)
    }

    pub fn set(&mut self, key: Vec<u8>, value: Value) {
        match self.map.get_mut(&key) {
            Some(slot) => slot.1 = value,
            None => {
                self.map.insert(key, (self.next, value));
                self.next += 1;
            }
        }
    }

    pub fn remove(&mut self, key: &[u8]) {
        self.map.remove(key);
    }

    pub fn clear(&mut self) {
        self.map.clear();
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// The keys, in insertion order.
    pub fn keys(&self) -> Vec<Vec<u8>> {
        let mut keys: Vec<(&u64, &Vec<u8>)> = self.map.iter().map(|(k, (seq, _))| (seq, k)).collect();
        keys.sort_unstable();
        keys.into_iter().map(|(_, k)| k.clone()).collect()
    }
}

/// Sets each function's `array_params` (see the module note).
pub fn mark_array_params(functions: &mut [Function]) {
    // Direct uses, and (caller, param) -> (callee, position) edges.
    let mut edges: Vec<(usize, usize, usize, usize)> = Vec::new();
    for (fi, f) in functions.iter_mut().enumerate() {
        let mut direct = vec![false; f.params];
        for s in &f.body {
            visit_stmt(s, &mut |use_| match use_ {
                Use::Array(Var::Local(i)) => direct[i] = true,
                Use::Passed(Var::Local(i), callee, pos) => edges.push((fi, i, callee, pos)),
                _ => {}
            });
        }
        f.array_params = direct;
    }
    loop {
        let mut changed = false;
        for &(caller, param, callee, pos) in &edges {
            let callee_is_array = functions[callee].array_params.get(pos).copied().unwrap_or(false);
            if callee_is_array && !functions[caller].array_params[param] {
                functions[caller].array_params[param] = true;
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

enum Use {
    /// Used as an array.
    Array(Var),
    /// Passed bare to function `.1` as its argument `.2`.
    Passed(Var, usize, usize),
}

fn visit_stmt(s: &Stmt, f: &mut dyn FnMut(Use)) {
    match s {
        Stmt::Expr(e) => visit_expr(e, f),
        Stmt::Print(args, _) | Stmt::Printf(args, _) => args.iter().for_each(|e| visit_expr(e, f)),
        Stmt::If(c, a, b) => {
            visit_expr(c, f);
            visit_stmt(a, f);
            if let Some(b) = b {
                visit_stmt(b, f);
            }
        }
        Stmt::While(c, body) | Stmt::Do(body, c) => {
            visit_expr(c, f);
            visit_stmt(body, f);
        }
        Stmt::For(init, cond, step, body) => {
            for s in [init, step].into_iter().flatten() {
                visit_stmt(s, f);
            }
            if let Some(c) = cond {
                visit_expr(c, f);
            }
            visit_stmt(body, f);
        }
        Stmt::ForIn(_, array, body) => {
            f(Use::Array(*array));
            visit_stmt(body, f);
        }
        Stmt::Block(stmts) => stmts.iter().for_each(|s| visit_stmt(s, f)),
        Stmt::Exit(e) | Stmt::Return(e) => {
            if let Some(e) = e {
                visit_expr(e, f);
            }
        }
        Stmt::Delete(array, subs) => {
            f(Use::Array(*array));
            subs.iter().flatten().for_each(|e| visit_expr(e, f));
        }
        Stmt::Next | Stmt::NextFile | Stmt::Break | Stmt::Continue => {}
    }
}

fn visit_lvalue(lv: &LValue, f: &mut dyn FnMut(Use)) {
    match lv {
        LValue::Var(_) => {}
        LValue::Field(e) => visit_expr(e, f),
        LValue::Index(array, subs) => {
            f(Use::Array(*array));
            subs.iter().for_each(|e| visit_expr(e, f));
        }
    }
}

fn visit_expr(e: &Expr, f: &mut dyn FnMut(Use)) {
    match e {
        Expr::Num(_) | Expr::Str(_) | Expr::Regex(_) => {}
        Expr::LValue(lv) => visit_lvalue(lv, f),
        Expr::In(subs, array) => {
            f(Use::Array(*array));
            subs.iter().for_each(|e| visit_expr(e, f));
        }
        Expr::Assign(lv, _, e) => {
            visit_lvalue(lv, f);
            visit_expr(e, f);
        }
        Expr::Cond(a, b, c) => [a, b, c].into_iter().for_each(|e| visit_expr(e, f)),
        Expr::And(a, b)
        | Expr::Or(a, b)
        | Expr::Match(_, a, b)
        | Expr::Binary(_, a, b)
        | Expr::Compare(_, a, b)
        | Expr::Concat(a, b) => {
            visit_expr(a, f);
            visit_expr(b, f);
        }
        Expr::Not(a) | Expr::Neg(a) | Expr::Plus(a) | Expr::Group(a) => visit_expr(a, f),
        Expr::IncDec(lv, _, _) => visit_lvalue(lv, f),
        Expr::Call(callee, args) => {
            for (pos, arg) in args.iter().enumerate() {
                if let Expr::LValue(LValue::Var(v)) = arg {
                    f(Use::Passed(*v, *callee, pos));
                }
                visit_expr(arg, f);
            }
        }
        Expr::Builtin(which, args) => {
            for (pos, arg) in args.iter().enumerate() {
                let array_arg = match which {
                    Builtin::Split => pos == 1 || pos == 3,
                    Builtin::Match => pos == 2,
                    _ => false,
                };
                if array_arg && let Expr::LValue(LValue::Var(v)) = arg {
                    f(Use::Array(*v));
                }
                visit_expr(arg, f);
            }
        }
        Expr::Getline(lv, file) => {
            if let Some(lv) = lv {
                visit_lvalue(lv, f);
            }
            if let Some(file) = file {
                visit_expr(file, f);
            }
        }
    }
}
