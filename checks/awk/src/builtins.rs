//! The built-in functions: string functions (counting characters, `text.rs`), `split`,
//! `sub`/`gsub` with `&` and `\&`, `match`, arithmetic, and a deterministic `rand`.

use std::rc::Rc;

use crate::ast::{Builtin, Expr, LValue, Var, slot};
use crate::error::{Error, Result};
use crate::format::sprintf;
use crate::input::{FieldSep, split_fields, split_with_seps};
use crate::interp::{Cell, Interp, Place};
use crate::parser::strip_group;
use crate::pattern::Pattern;
use crate::text;
use crate::value::Value;

impl Interp<'_, '_, '_> {
    pub fn builtin(&mut self, which: Builtin, args: &[Expr]) -> Result<Value> {
        match which {
            Builtin::Length => self.length(args),
            Builtin::Substr => {
                let s = self.string_arg(&args[0])?;
                let start = self.eval(&args[1])?.num();
                let len = match args.get(2) {
                    Some(e) => self.eval(e)?.num(),
                    None => f64::INFINITY,
                };
                Ok(Value::str(substr(&s, start, len)))
            }
            Builtin::Index => {
                let s = self.string_arg(&args[0])?;
                let t = self.string_arg(&args[1])?;
                let at = find(&s, &t).map_or(0, |i| text::char_index(&s, i) + 1);
                Ok(Value::Num(at as f64))
            }
            Builtin::Split => self.split(args),
            Builtin::Sub | Builtin::Gsub => self.substitute(args, which == Builtin::Gsub),
            Builtin::Match => {
                let s = self.string_arg(&args[0])?;
                let re = self.regex_of(&args[1])?;
                let found = re.find_at(&s, 0);
                let (start, len) = match found {
                    Some((ms, me)) => (text::char_index(&s, ms) as f64 + 1.0, text::char_len(&s[ms..me]) as f64),
                    None => (0.0, -1.0),
                };
                if let Some(Expr::LValue(LValue::Var(array))) = args.get(2) {
                    self.match_groups(*array, &re, &s, found)?;
                }
                self.globals[slot::RSTART] = Cell::Val(Value::Num(start));
                self.globals[slot::RLENGTH] = Cell::Val(Value::Num(len));
                Ok(Value::Num(start))
            }
            Builtin::Sprintf => {
                let mut values = Vec::with_capacity(args.len());
                for a in args {
                    values.push(self.eval(a)?);
                }
                let fmt = self.to_bytes(&values[0]);
                let s = sprintf(&fmt, &values[1..], &self.convfmt()).map_err(Error::Fatal)?;
                Ok(Value::Str(Rc::from(s)))
            }
            Builtin::Tolower | Builtin::Toupper => {
                let s = self.string_arg(&args[0])?;
                Ok(Value::str(&text::change_case(&s, which == Builtin::Toupper)))
            }
            Builtin::Int => Ok(Value::Num(self.eval(&args[0])?.num().trunc())),
            Builtin::Sqrt => Ok(Value::Num(self.eval(&args[0])?.num().sqrt())),
            Builtin::Exp => Ok(Value::Num(self.eval(&args[0])?.num().exp())),
            Builtin::Log => Ok(Value::Num(self.eval(&args[0])?.num().ln())),
            Builtin::Sin => Ok(Value::Num(self.eval(&args[0])?.num().sin())),
            Builtin::Cos => Ok(Value::Num(self.eval(&args[0])?.num().cos())),
            Builtin::Atan2 => {
                let y = self.eval(&args[0])?.num();
                let x = self.eval(&args[1])?.num();
                Ok(Value::Num(y.atan2(x)))
            }
            Builtin::Rand => Ok(Value::Num(self.rand())),
            Builtin::Srand => {
                let seed = match args.first() {
                    Some(e) => self.eval(e)?.num(),
                    None => 0.0,
                };
                let previous = self.rand_seed;
                self.srand(seed);
                Ok(Value::Num(previous))
            }
            Builtin::Close => {
                let name = self.string_arg(&args[0])?;
                let was_open = self.getline_files.remove(&name[..]).is_some();
                Ok(Value::Num(if was_open { 0.0 } else { -1.0 }))
            }
            Builtin::Fflush => {
                for a in args {
                    self.eval(a)?;
                }
                Ok(Value::Num(0.0))
            }
        }
    }

    /// gawk's `match(s, re, arr)`: `arr[n]` the text of group `n` (0: the whole match),
    /// `arr[n, "start"]` and `arr[n, "length"]` where it is, in characters.
    fn match_groups(&mut self, array: Var, re: &Pattern, s: &[u8], found: Option<(usize, usize)>) -> Result<()> {
        let subsep = self.special_bytes(slot::SUBSEP);
        let a = self.array(array)?;
        let mut a = a.borrow_mut();
        a.clear();
        let Some((ms, me)) = found else { return Ok(()) };
        for (n, span) in re.groups(s, ms, me).into_iter().enumerate() {
            let Some((gs, ge)) = span else { continue };
            let key = |what: &[u8]| [n.to_string().as_bytes(), &subsep, what].concat();
            a.set(n.to_string().into_bytes(), Value::input(&s[gs..ge]));
            a.set(key(b"start"), Value::Num(text::char_index(s, gs) as f64 + 1.0));
            a.set(key(b"length"), Value::Num(text::char_len(&s[gs..ge]) as f64));
        }
        Ok(())
    }

    fn string_arg(&mut self, e: &Expr) -> Result<Rc<[u8]>> {
        let v = self.eval(e)?;
        Ok(self.to_bytes(&v))
    }

    fn length(&mut self, args: &[Expr]) -> Result<Value> {
        let Some(arg) = args.first() else {
            let line = self.to_bytes(&self.record.line.clone());
            return Ok(Value::Num(text::char_len(&line) as f64));
        };
        if let Expr::LValue(LValue::Var(v)) = strip_group(arg) {
            let cell = match v {
                Var::Global(i) => self.globals[*i].clone(),
                Var::Local(i) => self.frames.last().map(|f| f[*i].clone()).unwrap_or_default(),
            };
            if let Cell::Arr(a) = cell {
                return Ok(Value::Num(a.borrow().len() as f64));
            }
        }
        let s = self.string_arg(arg)?;
        Ok(Value::Num(text::char_len(&s) as f64))
    }

    fn split(&mut self, args: &[Expr]) -> Result<Value> {
        let s = self.string_arg(&args[0])?;
        let Expr::LValue(LValue::Var(array)) = &args[1] else {
            return Err(Error::Fatal("split: second argument is not an array".into()));
        };
        let sep = match args.get(2) {
            None => {
                let fs = self.special_bytes(slot::FS);
                self.separator(&fs)?
            }
            Some(e) => match strip_group(e) {
                // `//` splits into characters, as `""` does (gawk).
                Expr::Regex(i) if self.prog.regexes[*i].is_empty() => FieldSep::Chars,
                Expr::Regex(i) => FieldSep::Regex(self.regexes[*i].clone()),
                other => {
                    let v = self.eval(other)?;
                    let text = self.to_bytes(&v);
                    self.separator(&text)?
                }
            },
        };
        let (fields, seps) = match args.get(3) {
            Some(_) => split_with_seps(&s, &sep),
            None => (split_fields(&s, &sep, false), Vec::new()),
        };
        if let Some(Expr::LValue(LValue::Var(seps_var))) = args.get(3) {
            let sa = self.array(*seps_var)?;
            let mut sa = sa.borrow_mut();
            sa.clear();
            for (i, text) in seps {
                sa.set(i.to_string().into_bytes(), Value::input(&text));
            }
        }
        let a = self.array(*array)?;
        let mut a = a.borrow_mut();
        a.clear();
        for (i, f) in fields.iter().enumerate() {
            a.set((i + 1).to_string().into_bytes(), Value::input(f));
        }
        Ok(Value::Num(fields.len() as f64))
    }

    /// A separator string as FS reads it.
    fn separator(&mut self, s: &[u8]) -> Result<FieldSep> {
        Ok(match s {
            b" " => FieldSep::Blank,
            b"" => FieldSep::Chars,
            [b] => FieldSep::Byte(*b),
            other => FieldSep::Regex(self.dynamic_regex(other)?),
        })
    }

    fn substitute(&mut self, args: &[Expr], global: bool) -> Result<Value> {
        let re = self.regex_of(&args[0])?;
        let repl = self.string_arg(&args[1])?;
        let target = match args.get(2) {
            Some(e) => match strip_group(e) {
                Expr::LValue(lv) => lv.clone(),
                _ => return Err(Error::Fatal("sub/gsub: third argument is not a variable".into())),
            },
            None => LValue::Field(Box::new(Expr::Num(0.0))),
        };
        let place = self.resolve(&target)?;
        let v = self.get_place(&place)?;
        let s = self.to_bytes(&v);
        let (out, count) = replace(&re, &s, &repl, global);
        if count > 0 {
            self.set_place(&place, Value::Str(Rc::from(out)))?;
        } else if let Place::Var(var) = place
            && matches!(self.cell(var), Cell::Uninit)
        {
            // The target is a scalar from now on, even when nothing matched (gawk).
            *self.cell(var) = Cell::Val(Value::Uninit);
        }
        Ok(Value::Num(count as f64))
    }

    pub fn srand(&mut self, seed: f64) {
        self.rand_seed = seed;
        self.rand_state = (seed as i64 as u64) ^ 0x9E37_79B9_7F4A_7C15;
    }

    /// A pseudo-random number in [0, 1): splitmix64, deterministic from the seed (the
    /// sandbox has no clock to seed from).
    fn rand(&mut self) -> f64 {
        self.rand_state = self.rand_state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rand_state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `substr(s, start, len)` as gawk computes it: both truncated toward zero, a start
/// before the first character starts at the first.
pub fn substr(s: &[u8], start: f64, len: f64) -> &[u8] {
    let chars = text::char_len(s) as f64;
    let start = if start.is_nan() { 1.0 } else { start.trunc().max(1.0) };
    let len = if len.is_nan() { 0.0 } else { len.trunc() };
    if len <= 0.0 || start > chars {
        return &[];
    }
    let end = (start - 1.0 + len).min(chars);
    let (from, to) = (text::byte_offset(s, start as usize - 1), text::byte_offset(s, end as usize));
    &s[from..to]
}

fn find(s: &[u8], t: &[u8]) -> Option<usize> {
    if t.is_empty() {
        return Some(0);
    }
    s.windows(t.len()).position(|w| w == t)
}

/// `s` with the first (or, `global`, every) match of `re` replaced by `repl`, where `&`
/// is the matched text, `\&` a literal `&` and `\\` a backslash; and the count.
pub fn replace(re: &Pattern, s: &[u8], repl: &[u8], global: bool) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(s.len());
    let mut pos = 0;
    let mut count = 0;
    let mut last_end: Option<usize> = None;
    while pos <= s.len() {
        let Some((ms, me)) = re.find_at(s, pos) else { break };
        if ms == me && last_end == Some(ms) {
            // An empty match right after a match does not count.
            if ms >= s.len() {
                break;
            }
            // gawk steps over one byte, not one character, after an empty match: in
            // UTF-8 text `gsub(/x*/, "-")` puts a `-` between a character's bytes too.
            out.extend_from_slice(&s[pos..ms + 1]);
            pos = ms + 1;
            continue;
        }
        out.extend_from_slice(&s[pos..ms]);
        expand(repl, &s[ms..me], &mut out);
        count += 1;
        last_end = Some(me);
        if me == ms {
            if ms >= s.len() {
                pos = s.len() + 1;
                break;
            }
            out.push(s[ms]);
            pos = ms + 1;
        } else {
            pos = me;
        }
        if !global {
            break;
        }
    }
    if pos <= s.len() {
        out.extend_from_slice(&s[pos..]);
    }
    (out, count)
}

fn expand(repl: &[u8], matched: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < repl.len() {
        match repl[i] {
            b'\\' if matches!(repl.get(i + 1), Some(b'&' | b'\\')) => {
                out.push(repl[i + 1]);
                i += 2;
            }
            b'&' => {
                out.extend_from_slice(matched);
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gsub(re: &str, repl: &str, s: &str) -> String {
        let p = Pattern::new(re.as_bytes()).unwrap();
        String::from_utf8(replace(&p, s.as_bytes(), repl.as_bytes(), true).0).unwrap()
    }

    #[test]
    fn empty_matches_as_awk() {
        assert_eq!(gsub("x*", "-", "abc"), "-a-b-c-");
        assert_eq!(gsub("a*", "-", "baaac"), "-b-c-");
        assert_eq!(gsub("a*", "-", "aaa"), "-");
        assert_eq!(gsub("o", "[&]", "foo"), "f[o][o]");
        assert_eq!(gsub("o", "\\&", "foo"), "f&&");
        assert_eq!(gsub("^a", "", "aaa"), "aa");
    }

    #[test]
    fn substr_as_gawk() {
        assert_eq!(substr(b"hello", 1.5, 2.3), b"he");
        assert_eq!(substr(b"hello", 0.0, 2.0), b"he");
        assert_eq!(substr(b"hello", 2.0, f64::INFINITY), b"ello");
        assert_eq!(substr(b"hello", 2.0, -1.0), b"");
        assert_eq!(substr(b"hello", 9.0, 1.0), b"");
    }
}
