//! Reading input: the main input (the ARGV operands in turn, `var=value` operands
//! assigned when reached, stdin when there is no file operand) and `getline`, from the
//! main input or from a file. Everything is read through the [`Ctx`], whole.

use std::rc::Rc;

use reviewhost_tool::io_message;

use crate::ast::{Expr, LValue, slot};
use crate::error::{Error, Result};
use crate::input::Source;
use crate::interp::{Cell, Interp, Phase};
use crate::lexer::unescape;
use crate::value::Value;

impl Interp<'_, '_, '_> {
    /// The next record of the main input, opening the next operand when one ends.
    pub fn next_main_record(&mut self) -> Result<Option<Vec<u8>>> {
        loop {
            if self.current.is_some() {
                let sep = self.record_sep()?;
                if let Some(record) = self.current.as_mut().and_then(|s| s.next_record(&sep)) {
                    return Ok(Some(record));
                }
                self.current = None;
            }
            if !self.open_next_operand()? {
                return Ok(None);
            }
        }
    }

    /// Opens the next file operand (assigning `var=value` operands on the way); false
    /// when there is none left.
    fn open_next_operand(&mut self) -> Result<bool> {
        let argv = self.array(crate::ast::Var::Global(slot::ARGV))?;
        loop {
            let argc = self.special(slot::ARGC).num();
            if (self.next_arg as f64) >= argc {
                break;
            }
            let key = self.next_arg.to_string().into_bytes();
            self.next_arg += 1;
            let Some(arg) = argv.borrow().get(&key).cloned() else { continue };
            let arg = self.to_bytes(&arg);
            if arg.is_empty() {
                continue;
            }
            if let Some((name, value)) = assignment(&arg) {
                self.assign_operand(name, value)?;
                continue;
            }
            self.saw_file = true;
            let Some(data) = self.read_input(&arg)? else { continue };
            self.globals[slot::FILENAME] = Cell::Val(Value::str(&arg));
            self.globals[slot::FNR] = Cell::Val(Value::Num(0.0));
            self.current = Some(Source::new(data));
            return Ok(true);
        }
        if !self.saw_file {
            self.saw_file = true;
            self.globals[slot::FNR] = Cell::Val(Value::Num(0.0));
            self.current = Some(Source::new(Rc::from(self.io.stdin)));
            return Ok(true);
        }
        Ok(false)
    }

    /// `name=value` from the command line (`-v` or an operand): escapes processed, a
    /// numeric string. A name the program never uses needs no assignment.
    pub fn assign_operand(&mut self, name: &str, value: &[u8]) -> Result<()> {
        if crate::parser::GAWK_VARIABLES.contains(&name) {
            return Err(Error::Fatal(format!("gawk's special variable `{name}' is not supported")));
        }
        let value = Value::input(&unescape(value));
        if let Some(i) = self.prog.globals.iter().position(|g| g == name)
            && !matches!(self.globals[i], Cell::Arr(_))
        {
            self.globals[i] = Cell::Val(value);
        }
        Ok(())
    }

    /// A main-input operand's contents; `None` for a directory (skipped with a warning,
    /// as gawk does).
    fn read_input(&mut self, name: &[u8]) -> Result<Option<Rc<[u8]>>> {
        let name = String::from_utf8_lossy(name).into_owned();
        match self.read_named(&name) {
            Ok(data) => Ok(Some(data)),
            Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
                let warning = format!("awk: warning: command line argument `{name}' is a directory: skipped\n");
                self.io.stderr.extend_from_slice(warning.as_bytes());
                Ok(None)
            }
            Err(e) => Err(Error::Fatal(format!("cannot open file `{name}' for reading: {}", io_message(&e)))),
        }
    }

    fn read_named(&self, name: &str) -> std::io::Result<Rc<[u8]>> {
        if name == "-" || name == "/dev/stdin" {
            return Ok(Rc::from(self.io.stdin));
        }
        if self.ctx.is_null_device(name) {
            return Ok(Rc::from(&b""[..]));
        }
        let real = self.ctx.real(name);
        if std::fs::metadata(&real).is_ok_and(|m| m.is_dir()) {
            return Err(std::io::ErrorKind::IsADirectory.into());
        }
        self.ctx.read(&real).map(Rc::from)
    }

    /// `getline`, `getline var`, `getline < file`, `getline var < file`: 1 for a record,
    /// 0 at the end, -1 when the file cannot be read.
    pub fn getline(&mut self, var: Option<&LValue>, file: Option<&Expr>) -> Result<Value> {
        let Some(file) = file else {
            if self.phase == Phase::End {
                return Ok(Value::Num(0.0));
            }
            let Some(record) = self.next_main_record()? else { return Ok(Value::Num(0.0)) };
            self.add_special(slot::NR, 1.0);
            self.add_special(slot::FNR, 1.0);
            match var {
                Some(lv) => self.set(lv, Value::input(&record))?,
                None => self.set_record(&record)?,
            }
            return Ok(Value::Num(1.0));
        };
        let name = self.eval(file)?;
        let name = self.to_bytes(&name).to_vec();
        if !self.getline_files.contains_key(&name) {
            match self.read_named(&String::from_utf8_lossy(&name)) {
                Ok(data) => {
                    self.getline_files.insert(name.clone(), Source::new(data));
                }
                Err(_) => return Ok(Value::Num(-1.0)),
            }
        }
        let sep = self.record_sep()?;
        let record = self.getline_files.get_mut(&name).and_then(|s| s.next_record(&sep));
        let Some(record) = record else { return Ok(Value::Num(0.0)) };
        match var {
            Some(lv) => self.set(lv, Value::input(&record))?,
            None => self.set_record(&record)?,
        }
        Ok(Value::Num(1.0))
    }
}

/// A `name=value` operand: the name must be an identifier.
pub fn assignment(arg: &[u8]) -> Option<(&str, &[u8])> {
    let eq = arg.iter().position(|b| *b == b'=')?;
    let name = std::str::from_utf8(&arg[..eq]).ok()?;
    let mut chars = name.chars();
    let first = chars.next()?;
    if !(first.is_ascii_alphabetic() || first == '_') || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    Some((name, &arg[eq + 1..]))
}
