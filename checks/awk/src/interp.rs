//! The tree-walking interpreter's state: variables (scalars, arrays, the special
//! variables), compiled regexes, and the limits that stop a runaway program. Its work
//! is split by job: statements in `exec.rs`, expressions and calls in `eval.rs`, the
//! record and its fields in `record.rs`, input in `reading.rs`, built-in functions in
//! `builtins.rs`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use reviewhost_tool::{Ctx, Io};

use crate::arrays::Array;
use crate::ast::{BinOp, Expr, LValue, Program, Var, slot};
use crate::error::{Error, Result};
use crate::input::{FieldSep, RecordSep, Source};
use crate::output::Output;
use crate::pattern::Pattern;
use crate::value::{Str, Value};

/// Most loop iterations and function calls one run makes: only they can make a
/// program run without end (the work per record is bounded by the input). The host's
/// deadline stops any check eventually; this stops `BEGIN { while (1); }` with a
/// message that says why, long before. Ten million is far beyond what a verification
/// command over a repository's files needs.
pub const MAX_STEPS: u64 = 10_000_000;

/// Deepest nesting of user function calls. The interpreter recurses several Rust frames
/// per call, about 2.3 KiB of stack in a release build (measured natively: 226 calls in
/// 512 KiB); the component's stack is 1 MiB and shared with the shell that runs awk,
/// which may itself be nested deep. A hundred levels is more than a verification
/// command's recursion needs and costs about a quarter of the stack.
pub const MAX_CALL_DEPTH: usize = 100;

/// Stack the interpreter may use below where the run started before it refuses a call:
/// natively (a debug build's frames are several times larger) the bound that holds
/// first; in the component [`MAX_CALL_DEPTH`] does.
pub const STACK_BUDGET: usize = 512 * 1024;

/// Most dynamic regexes (strings used as regexes) kept compiled.
const REGEX_CACHE: usize = 256;

/// A variable's storage: untyped until first used as a scalar or an array.
#[derive(Debug, Clone, Default)]
pub enum Cell {
    #[default]
    Uninit,
    Val(Value),
    Arr(Rc<RefCell<Array>>),
}

/// A resolved lvalue: a variable, a field, or an array element.
pub enum Place {
    Var(Var),
    Field(usize),
    Elem(Rc<RefCell<Array>>, Vec<u8>),
}

/// What a statement asks of the statements around it.
pub enum Flow {
    Normal,
    Break,
    Continue,
    Next,
    NextFile,
    Exit,
    Return(Value),
}

/// Which part of the program runs (`next` is an error in BEGIN and END).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Begin,
    Main,
    End,
}

/// The current record, split into fields on demand.
pub struct Record {
    pub line: Value,
    pub fields: Vec<Value>,
    pub split: bool,
    /// FS when the record was read: a change of FS applies to the next record.
    pub sep: FieldSep,
}

pub struct Interp<'p, 'c, 'io> {
    pub prog: &'p Program,
    pub ctx: &'c Ctx,
    pub io: &'c mut Io<'io>,
    pub out: Output,
    pub globals: Vec<Cell>,
    pub frames: Vec<Vec<Cell>>,
    /// The function each frame belongs to (for the names in messages).
    pub(crate) callees: Vec<usize>,
    pub record: Record,
    pub regexes: Vec<Rc<Pattern>>,
    pub(crate) dynamic: HashMap<Vec<u8>, Rc<Pattern>>,
    pub(crate) field_sep_cache: Option<(Str, FieldSep)>,
    pub range_on: Vec<bool>,
    pub(crate) steps: u64,
    pub(crate) stack_base: usize,
    pub phase: Phase,
    pub exit_status: i32,
    /// Main input: the next ARGV index, the open input, whether a file operand was seen.
    pub next_arg: usize,
    pub current: Option<Source>,
    pub saw_file: bool,
    pub getline_files: HashMap<Vec<u8>, Source>,
    pub rand_seed: f64,
    pub rand_state: u64,
}

impl<'p, 'c, 'io> Interp<'p, 'c, 'io> {
    pub fn new(prog: &'p Program, ctx: &'c Ctx, io: &'c mut Io<'io>) -> Result<Self> {
        let mut regexes = Vec::new();
        for r in &prog.regexes {
            regexes.push(Rc::new(Pattern::new(r).map_err(Error::Fatal)?));
        }
        let out = Output::new(io.stdout_limit);
        let mut me = Interp {
            prog,
            ctx,
            io,
            out,
            globals: vec![Cell::Uninit; prog.globals.len()],
            frames: Vec::new(),
            callees: Vec::new(),
            record: Record { line: Value::str(b""), fields: Vec::new(), split: true, sep: FieldSep::Blank },
            regexes,
            dynamic: HashMap::new(),
            field_sep_cache: None,
            range_on: vec![false; prog.ranges],
            steps: 0,
            stack_base: stack_position(),
            phase: Phase::Begin,
            exit_status: 0,
            next_arg: 1,
            current: None,
            saw_file: false,
            getline_files: HashMap::new(),
            rand_seed: 0.0,
            rand_state: 0,
        };
        me.srand(0.0);
        let defaults: &[(usize, &[u8])] = &[
            (slot::FS, b" "),
            (slot::OFS, b" "),
            (slot::ORS, b"\n"),
            (slot::RS, b"\n"),
            (slot::SUBSEP, b"\x1c"),
            (slot::CONVFMT, b"%.6g"),
            (slot::OFMT, b"%.6g"),
            (slot::FILENAME, b""),
        ];
        for (s, v) in defaults {
            me.globals[*s] = Cell::Val(Value::str(v));
        }
        for s in [slot::NR, slot::FNR, slot::RSTART, slot::NF] {
            me.globals[s] = Cell::Val(Value::Num(0.0));
        }
        // gawk starts RLENGTH at 0 (match() sets -1 when nothing matches).
        me.globals[slot::RLENGTH] = Cell::Val(Value::Num(0.0));
        me.globals[slot::ENVIRON] = Cell::Arr(Rc::default());
        me.globals[slot::ARGV] = Cell::Arr(Rc::default());
        Ok(me)
    }

    // ----- limits -----

    pub fn tick(&mut self) -> Result<()> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(Error::Fatal(format!(
                "stopped after {MAX_STEPS} loop iterations and function calls: the program does not end (a runaway loop?)"
            )));
        }
        Ok(())
    }

    // ----- special variables -----

    pub fn special(&self, s: usize) -> Value {
        match &self.globals[s] {
            Cell::Val(v) => v.clone(),
            _ => Value::Uninit,
        }
    }

    pub fn special_bytes(&self, s: usize) -> Str {
        let convfmt = self.convfmt();
        self.special(s).bytes(&convfmt)
    }

    pub fn convfmt(&self) -> Str {
        match &self.globals[slot::CONVFMT] {
            Cell::Val(v) => v.bytes(b"%.6g"),
            _ => Rc::from(&b"%.6g"[..]),
        }
    }

    pub fn ofmt(&self) -> Str {
        match &self.globals[slot::OFMT] {
            Cell::Val(v) => v.bytes(b"%.6g"),
            _ => Rc::from(&b"%.6g"[..]),
        }
    }

    pub fn to_bytes(&self, v: &Value) -> Str {
        v.bytes(&self.convfmt())
    }

    /// A value as print shows it: numbers through OFMT.
    pub fn output_bytes(&self, v: &Value) -> Str {
        match v {
            Value::Num(n) if *n != n.trunc() => v.bytes(&self.ofmt()),
            _ => self.to_bytes(v),
        }
    }

    pub fn add_special(&mut self, s: usize, delta: f64) {
        let n = self.special(s).num() + delta;
        self.globals[s] = Cell::Val(Value::Num(n));
    }

    pub fn record_sep(&mut self) -> Result<RecordSep> {
        let rs = self.special_bytes(slot::RS);
        Ok(match rs.len() {
            0 => RecordSep::Paragraph,
            1 => RecordSep::Byte(rs[0]),
            _ => RecordSep::Regex(self.dynamic_regex(&rs)?),
        })
    }

    pub(crate) fn field_sep(&mut self) -> Result<FieldSep> {
        let fs = self.special_bytes(slot::FS);
        if let Some((cached, sep)) = &self.field_sep_cache
            && *cached == fs
        {
            return Ok(sep.clone());
        }
        let sep = match &fs[..] {
            b" " => FieldSep::Blank,
            b"" => FieldSep::Chars,
            [b] => FieldSep::Byte(*b),
            other => FieldSep::Regex(self.dynamic_regex(other)?),
        };
        self.field_sep_cache = Some((fs, sep.clone()));
        Ok(sep)
    }

    pub(crate) fn paragraph_mode(&self) -> bool {
        self.special_bytes(slot::RS).is_empty()
    }

    // ----- variables -----

    pub(crate) fn cell(&mut self, v: Var) -> &mut Cell {
        match v {
            Var::Global(i) => &mut self.globals[i],
            Var::Local(i) => &mut self.frames.last_mut().expect("a local is read inside a call")[i],
        }
    }

    pub fn var_name(&self, v: Var) -> String {
        match v {
            Var::Global(i) => self.prog.globals[i].clone(),
            Var::Local(i) => match self.callees.last() {
                Some(&f) => self.prog.functions[f].param_names[i].clone(),
                None => format!("parameter #{}", i + 1),
            },
        }
    }

    pub fn array(&mut self, v: Var) -> Result<Rc<RefCell<Array>>> {
        let cell = self.cell(v);
        match cell {
            Cell::Arr(a) => Ok(a.clone()),
            Cell::Uninit => {
                let a: Rc<RefCell<Array>> = Rc::default();
                *cell = Cell::Arr(a.clone());
                Ok(a)
            }
            Cell::Val(_) => Err(Error::Fatal(format!("attempt to use scalar `{}' as an array", self.var_name(v)))),
        }
    }

    pub fn subscript(&mut self, subs: &[Expr]) -> Result<Vec<u8>> {
        if subs.len() == 1 {
            let v = self.eval(&subs[0])?;
            return Ok(self.to_bytes(&v).to_vec());
        }
        let subsep = self.special_bytes(slot::SUBSEP);
        let mut key = Vec::new();
        for (i, e) in subs.iter().enumerate() {
            if i > 0 {
                key.extend_from_slice(&subsep);
            }
            let v = self.eval(e)?;
            key.extend_from_slice(&self.to_bytes(&v));
        }
        Ok(key)
    }

    /// Where an lvalue points, its field index or subscript evaluated once: `a[i++] += 1`
    /// and `$(j++)++` change `i` and `j` once.
    pub fn resolve(&mut self, lv: &LValue) -> Result<Place> {
        Ok(match lv {
            LValue::Var(v) => Place::Var(*v),
            LValue::Field(e) => Place::Field(self.field_index(e)?),
            LValue::Index(a, subs) => {
                let key = self.subscript(subs)?;
                Place::Elem(self.array(*a)?, key)
            }
        })
    }

    pub fn get(&mut self, lv: &LValue) -> Result<Value> {
        let place = self.resolve(lv)?;
        self.get_place(&place)
    }

    pub fn set(&mut self, lv: &LValue, value: Value) -> Result<()> {
        let place = self.resolve(lv)?;
        self.set_place(&place, value)
    }

    pub fn get_place(&mut self, place: &Place) -> Result<Value> {
        match place {
            Place::Var(Var::Global(slot::NF)) => Ok(Value::Num(self.nf() as f64)),
            Place::Var(v) => match self.cell(*v) {
                Cell::Uninit => Ok(Value::Uninit),
                Cell::Val(x) => Ok(x.clone()),
                Cell::Arr(_) => {
                    Err(Error::Fatal(format!("attempt to use array `{}' in a scalar context", self.var_name(*v))))
                }
            },
            Place::Field(i) => Ok(self.get_field(*i)),
            Place::Elem(array, key) => {
                let mut array = array.borrow_mut();
                if let Some(v) = array.get(key) {
                    return Ok(v.clone());
                }
                // Referencing an element creates it, as in every awk.
                array.set(key.clone(), Value::Uninit);
                Ok(Value::Uninit)
            }
        }
    }

    pub fn set_place(&mut self, place: &Place, value: Value) -> Result<()> {
        match place {
            Place::Var(Var::Global(slot::NF)) => self.set_nf(value),
            Place::Var(v) => {
                let name = self.var_name(*v);
                let cell = self.cell(*v);
                if matches!(cell, Cell::Arr(_)) {
                    return Err(Error::Fatal(format!("attempt to use array `{name}' in a scalar context")));
                }
                *cell = Cell::Val(value);
                Ok(())
            }
            Place::Field(i) => self.set_field(*i, value),
            Place::Elem(array, key) => {
                array.borrow_mut().set(key.clone(), value);
                Ok(())
            }
        }
    }

    // ----- regexes -----

    pub fn dynamic_regex(&mut self, source: &[u8]) -> Result<Rc<Pattern>> {
        if let Some(p) = self.dynamic.get(source) {
            return Ok(p.clone());
        }
        let p = Rc::new(Pattern::new(source).map_err(Error::Fatal)?);
        if self.dynamic.len() >= REGEX_CACHE {
            self.dynamic.clear();
        }
        self.dynamic.insert(source.to_vec(), p.clone());
        Ok(p)
    }

    /// The regex an operand of `~`, `split`, `sub`... stands for: a literal, or a value
    /// read as a regex.
    pub fn regex_of(&mut self, e: &Expr) -> Result<Rc<Pattern>> {
        match crate::parser::strip_group(e) {
            Expr::Regex(i) => Ok(self.regexes[*i].clone()),
            other => {
                let v = self.eval(other)?;
                let s = self.to_bytes(&v);
                self.dynamic_regex(&s)
            }
        }
    }
}

pub fn bool_value(b: bool) -> Value {
    Value::Num(if b { 1.0 } else { 0.0 })
}

pub fn arith(op: BinOp, x: f64, y: f64) -> Result<f64> {
    Ok(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => {
            if y == 0.0 {
                return Err(Error::Fatal("division by zero attempted".into()));
            }
            x / y
        }
        BinOp::Mod => {
            if y == 0.0 {
                return Err(Error::Fatal("division by zero attempted in `%'".into()));
            }
            x % y
        }
        BinOp::Pow => x.powf(y),
    })
}

/// An address in the caller's stack frame: how far apart two of them are is the stack
/// used between them.
#[inline(never)]
pub fn stack_position() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}
