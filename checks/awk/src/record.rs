//! The current record and its fields: split on demand with the FS of the time the
//! record was read, rebuilt with OFS when a field or NF is assigned.

use std::rc::Rc;

use crate::ast::{Expr, slot};
use crate::error::{Error, Result};
use crate::input::split_fields;
use crate::interp::{Cell, Interp, Record};
use crate::value::Value;

/// Most fields a record may be given by assignment (`$100000000 = 1` would otherwise
/// allocate without bound).
const MAX_FIELDS: usize = 1 << 20;

impl Interp<'_, '_, '_> {
    pub fn set_record(&mut self, line: &[u8]) -> Result<()> {
        let sep = self.field_sep()?;
        self.record = Record { line: Value::input(line), fields: Vec::new(), split: false, sep };
        Ok(())
    }

    pub(crate) fn ensure_split(&mut self) {
        if self.record.split {
            return;
        }
        let line = self.to_bytes(&self.record.line);
        let paragraph = self.paragraph_mode();
        self.record.fields = split_fields(&line, &self.record.sep, paragraph).iter().map(|f| Value::input(f)).collect();
        self.record.split = true;
        self.globals[slot::NF] = Cell::Val(Value::Num(self.record.fields.len() as f64));
    }

    pub(crate) fn nf(&mut self) -> usize {
        self.ensure_split();
        self.record.fields.len()
    }

    pub(crate) fn rebuild_record(&mut self) {
        let ofs = self.special_bytes(slot::OFS);
        let mut line = Vec::new();
        for (i, f) in self.record.fields.iter().enumerate() {
            if i > 0 {
                line.extend_from_slice(&ofs);
            }
            line.extend_from_slice(&self.to_bytes(f));
        }
        self.record.line = Value::Str(Rc::from(line));
        self.globals[slot::NF] = Cell::Val(Value::Num(self.record.fields.len() as f64));
    }

    pub(crate) fn field_index(&mut self, e: &Expr) -> Result<usize> {
        let n = self.eval(e)?.num();
        if n < 0.0 {
            return Err(Error::Fatal(format!("attempt to access field {}", n as i64)));
        }
        Ok(n as usize)
    }

    pub(crate) fn get_field(&mut self, i: usize) -> Value {
        if i == 0 {
            return self.record.line.clone();
        }
        self.ensure_split();
        // A field past NF is the empty string, not an uninitialised value: `$5 == 0` is
        // a string comparison, false (gawk).
        self.record.fields.get(i - 1).cloned().unwrap_or_else(|| Value::str(b""))
    }

    pub(crate) fn set_field(&mut self, i: usize, v: Value) -> Result<()> {
        if i == 0 {
            // `$0 = "0"` keeps the assigned value's type (a string, true); its fields
            // are input, strnums when they look numeric.
            let sep = self.field_sep()?;
            self.record = Record { line: v, fields: Vec::new(), split: false, sep };
            return Ok(());
        }
        if i > MAX_FIELDS {
            return Err(Error::Fatal(format!("field index {i} is too large")));
        }
        self.ensure_split();
        if self.record.fields.len() < i {
            self.record.fields.resize(i, Value::str(b""));
        }
        self.record.fields[i - 1] = v;
        self.rebuild_record();
        Ok(())
    }

    pub(crate) fn set_nf(&mut self, v: Value) -> Result<()> {
        let n = v.num();
        if n < 0.0 || n as usize > MAX_FIELDS {
            return Err(Error::Fatal(format!("NF set to invalid value {n}")));
        }
        self.ensure_split();
        self.record.fields.resize(n as usize, Value::str(b""));
        self.rebuild_record();
        Ok(())
    }
}
