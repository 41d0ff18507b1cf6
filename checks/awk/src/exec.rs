//! Statements: print and printf, control flow, loops (each iteration counted against
//! the step limit), delete.

use std::rc::Rc;

use crate::ast::{Dest, Expr, LValue, Stmt, Var, slot};
use crate::error::{Error, Result};
use crate::format::sprintf;
use crate::interp::{Flow, Interp, Phase};
use crate::value::Value;

impl Interp<'_, '_, '_> {
    pub fn exec_block(&mut self, stmts: &[Stmt]) -> Result<Flow> {
        for s in stmts {
            match self.exec(s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    /// One statement; each kind is its own function, for the reason given at
    /// [`Interp::eval`].
    pub(crate) fn exec(&mut self, s: &Stmt) -> Result<Flow> {
        match s {
            Stmt::Expr(e) => self.eval(e).map(|_| Flow::Normal),
            Stmt::Print(args, dest) => self.exec_print(args, *dest),
            Stmt::Printf(args, dest) => self.exec_printf(args, *dest),
            Stmt::If(c, a, b) => self.exec_if(c, a, b.as_deref()),
            Stmt::While(c, body) => self.exec_while(c, body),
            Stmt::Do(body, c) => self.exec_do(body, c),
            Stmt::For(init, cond, step, body) => self.exec_for(init.as_deref(), cond.as_ref(), step.as_deref(), body),
            Stmt::ForIn(key, array, body) => self.exec_for_in(*key, *array, body),
            Stmt::Block(stmts) => self.exec_block(stmts),
            Stmt::Next | Stmt::NextFile => self.exec_next(matches!(s, Stmt::Next)),
            Stmt::Exit(e) => self.exec_exit(e.as_ref()),
            Stmt::Return(e) => self.exec_return(e.as_ref()),
            Stmt::Break => Ok(Flow::Break),
            Stmt::Continue => Ok(Flow::Continue),
            Stmt::Delete(array, subs) => self.exec_delete(*array, subs.as_deref()),
        }
    }

    pub(crate) fn exec_print(&mut self, args: &[Expr], dest: Dest) -> Result<Flow> {
        let ofs = self.special_bytes(slot::OFS);
        let mut line = Vec::new();
        if args.is_empty() {
            line.extend_from_slice(&self.to_bytes(&self.record.line.clone()));
        }
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                line.extend_from_slice(&ofs);
            }
            let v = self.eval(a)?;
            line.extend_from_slice(&self.output_bytes(&v));
        }
        line.extend_from_slice(&self.special_bytes(slot::ORS));
        self.emit(&line, dest);
        Ok(Flow::Normal)
    }

    pub(crate) fn exec_printf(&mut self, args: &[Expr], dest: Dest) -> Result<Flow> {
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(self.eval(a)?);
        }
        let fmt = self.to_bytes(&values[0]);
        let text = sprintf(&fmt, &values[1..], &self.convfmt()).map_err(Error::Fatal)?;
        self.emit(&text, dest);
        Ok(Flow::Normal)
    }

    pub(crate) fn exec_if(&mut self, c: &Expr, a: &Stmt, b: Option<&Stmt>) -> Result<Flow> {
        if self.eval(c)?.truthy() {
            self.exec(a)
        } else if let Some(b) = b {
            self.exec(b)
        } else {
            Ok(Flow::Normal)
        }
    }

    /// A loop body's flow: `Some` ends the loop with that flow (`Break` becomes
    /// `Normal`).
    pub(crate) fn after_body(flow: Flow) -> Option<Flow> {
        match flow {
            Flow::Break => Some(Flow::Normal),
            Flow::Normal | Flow::Continue => None,
            other => Some(other),
        }
    }

    pub(crate) fn exec_while(&mut self, c: &Expr, body: &Stmt) -> Result<Flow> {
        while self.eval(c)?.truthy() {
            self.tick()?;
            if let Some(flow) = Self::after_body(self.exec(body)?) {
                return Ok(flow);
            }
        }
        Ok(Flow::Normal)
    }

    pub(crate) fn exec_do(&mut self, body: &Stmt, c: &Expr) -> Result<Flow> {
        loop {
            self.tick()?;
            if let Some(flow) = Self::after_body(self.exec(body)?) {
                return Ok(flow);
            }
            if !self.eval(c)?.truthy() {
                return Ok(Flow::Normal);
            }
        }
    }

    pub(crate) fn exec_for(
        &mut self,
        init: Option<&Stmt>,
        cond: Option<&Expr>,
        step: Option<&Stmt>,
        body: &Stmt,
    ) -> Result<Flow> {
        if let Some(init) = init {
            self.exec(init)?;
        }
        loop {
            if let Some(c) = cond
                && !self.eval(c)?.truthy()
            {
                return Ok(Flow::Normal);
            }
            self.tick()?;
            if let Some(flow) = Self::after_body(self.exec(body)?) {
                return Ok(flow);
            }
            if let Some(step) = step {
                self.exec(step)?;
            }
        }
    }

    pub(crate) fn exec_for_in(&mut self, key: Var, array: Var, body: &Stmt) -> Result<Flow> {
        let keys = self.array(array)?.borrow().keys();
        for k in keys {
            self.tick()?;
            self.set(&LValue::Var(key), Value::Str(Rc::from(k)))?;
            if let Some(flow) = Self::after_body(self.exec(body)?) {
                return Ok(flow);
            }
        }
        Ok(Flow::Normal)
    }

    pub(crate) fn exec_next(&mut self, next: bool) -> Result<Flow> {
        if self.phase != Phase::Main {
            let which = if next { "next" } else { "nextfile" };
            let part = if self.phase == Phase::Begin { "BEGIN" } else { "END" };
            return Err(Error::Fatal(format!("`{which}' used in {part} action")));
        }
        Ok(if next { Flow::Next } else { Flow::NextFile })
    }

    pub(crate) fn exec_exit(&mut self, e: Option<&Expr>) -> Result<Flow> {
        if let Some(e) = e {
            self.exit_status = self.eval(e)?.num() as i32;
        }
        Ok(Flow::Exit)
    }

    pub(crate) fn exec_return(&mut self, e: Option<&Expr>) -> Result<Flow> {
        let v = match e {
            Some(e) => self.eval(e)?,
            None => Value::Uninit,
        };
        Ok(Flow::Return(v))
    }

    pub(crate) fn exec_delete(&mut self, array: Var, subs: Option<&[Expr]>) -> Result<Flow> {
        let key = match subs {
            Some(subs) => Some(self.subscript(subs)?),
            None => None,
        };
        let a = self.array(array)?;
        let mut a = a.borrow_mut();
        match key {
            Some(k) => a.remove(&k),
            None => a.clear(),
        }
        Ok(Flow::Normal)
    }

    pub fn emit(&mut self, bytes: &[u8], dest: Dest) {
        match dest {
            Dest::Stdout => self.out.write(self.io.stdout, bytes),
            Dest::Stderr => self.io.stderr.extend_from_slice(bytes),
            Dest::Null => {}
        }
    }
}
