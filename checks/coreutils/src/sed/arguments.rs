//! The arguments of commands that take delimited text, read as GNU sed's `compile.c`
//! reads them: addresses (`/re/I`, `\cREc`, `first~step`, `+N`), the pattern,
//! replacement and flags of `s`, and the strings of `y`.

use std::rc::Rc;

use super::address::Addr;
use super::pattern::{self, Flags, Pattern};
use super::script::{Compiler, Op, Res, Subst, chars};
use super::text::{self, Kind};

impl Compiler {
    /// An address, if `c` starts one.
    pub(super) fn address(&mut self, c: u8) -> Res<Option<Addr>> {
        let gnu = !self.flags.posix;
        Ok(Some(match c {
            b'/' | b'\\' => {
                let delimiter = if c == b'\\' { self.inchar() } else { Some(c) };
                let Some(re) = self.match_slash(delimiter, true)? else {
                    return Err(self.bad("unterminated address regex"));
                };
                let mut flags = self.flags;
                loop {
                    let c = self.in_nonblank();
                    match c {
                        Some(b'I') if gnu => flags.icase = true,
                        Some(b'M') if gnu => flags.multiline = true,
                        _ => {
                            self.savchar(c);
                            break;
                        }
                    }
                }
                let mut regex = self.regex(&re, flags, 0)?;
                if let Some(p) = regex.as_mut().and_then(Rc::get_mut) {
                    p.no_sub = true;
                }
                Addr::Regex(regex)
            }
            b'0'..=b'9' => {
                let n = self.in_integer(c);
                let next = self.in_nonblank();
                if next == Some(b'~') && gnu {
                    let c = self.in_nonblank();
                    let step = match c {
                        Some(d @ b'0'..=b'9') => self.in_integer(d),
                        _ => {
                            self.savchar(c);
                            0
                        }
                    };
                    if step > 0 { Addr::Step { first: n, step } } else { Addr::Line(n) }
                } else {
                    self.savchar(next);
                    Addr::Line(n)
                }
            }
            b'+' | b'~' if gnu => {
                let c2 = self.in_nonblank();
                let n = match c2 {
                    Some(d @ b'0'..=b'9') => self.in_integer(d),
                    _ => {
                        self.savchar(c2);
                        0
                    }
                };
                if c == b'+' { Addr::Plus(n) } else { Addr::MultipleOf(n) }
            }
            b'$' => Addr::Last,
            _ => return Ok(None),
        }))
    }

    /// GNU's `match_slash`: the text up to the unescaped `delimiter`. In a regex `\n` is
    /// a newline; an escaped delimiter becomes the bare character; a bracket expression
    /// may contain the delimiter.
    fn match_slash(&mut self, delimiter: Option<u8>, regex: bool) -> Res<Option<Vec<u8>>> {
        let Some(slash) = delimiter else { return Ok(None) };
        if slash >= 0x80 {
            return Err(self.bad("delimiter character is not a single-byte character"));
        }
        let mut out = Vec::new();
        loop {
            let Some(mut c) = self.inchar() else { return Ok(None) };
            if c == b'\n' {
                self.savchar(Some(c));
                return Ok(None);
            }
            if c == slash {
                return Ok(Some(out));
            }
            if c == b'\\' {
                let Some(next) = self.inchar() else { return Ok(None) };
                c = next;
                if c == slash && (regex || c != b'&') {
                    // The bare delimiter, read by the regex syntax as any other (`\n` is
                    // an `n` when `n` is the delimiter).
                } else if c == b'n' && regex {
                    c = b'\n';
                } else if c != b'\n' {
                    out.push(b'\\');
                }
            } else if c == b'[' && regex {
                out.push(c);
                match self.bracket_body(&mut out) {
                    Some(b']') => c = b']',
                    last => {
                        if last == Some(b'\n') {
                            self.savchar(last);
                        }
                        return Ok(None);
                    }
                }
            }
            out.push(c);
        }
    }

    /// GNU's `snarf_char_class`: copies a bracket expression's body, returning the
    /// character that ended it (`]`, or a newline or the end when unterminated).
    fn bracket_body(&mut self, out: &mut Vec<u8>) -> Option<u8> {
        let mut c = self.inchar();
        if c == Some(b'^') {
            out.push(b'^');
            c = self.inchar();
        }
        if c == Some(b']') {
            out.push(b']');
            c = self.inchar();
        }
        let (mut state, mut delim) = (0, 0u8);
        loop {
            let b = c?;
            match b {
                b'\n' => return Some(b),
                b'.' | b':' | b'=' => {
                    if state == 1 {
                        delim = b;
                        state = 2;
                    } else if state == 2 && b == delim {
                        state = 3;
                    } else {
                        state &= !1;
                    }
                }
                b'[' => {
                    if state == 0 {
                        state = 1;
                    }
                }
                b']' => {
                    if state == 0 || state == 1 {
                        return Some(b);
                    } else if state == 3 {
                        state = 0;
                    }
                    state &= !1;
                }
                _ => state &= !1,
            }
            out.push(b);
            c = self.inchar();
        }
    }

    /// Compiles a pattern after `match_slash`; the empty pattern is the last one used.
    fn regex(&self, re: &[u8], flags: Flags, needed: usize) -> Res<Option<Rc<Pattern>>> {
        if re.is_empty() {
            if flags.icase != self.flags.icase || flags.multiline != self.flags.multiline {
                return Err(self.bad("cannot specify modifiers on empty regexp"));
            }
            return Ok(None);
        }
        let normalized = text::normalize(re, Kind::Regex).map_err(|m| self.bad(&m))?;
        let source = pattern::decode(&normalized);
        let compiled = pattern::compile(&source, flags).map_err(|m| self.bad(&m))?;
        if needed > compiled.groups && !self.flags.posix {
            return Err(self.bad(&format!("invalid reference \\{needed} on `s' command's RHS")));
        }
        Ok(Some(Rc::new(compiled)))
    }

    pub(super) fn substitute(&mut self) -> Res<Op> {
        let slash = self.inchar();
        let Some(re) = self.match_slash(slash, true)? else {
            return Err(self.bad("unterminated `s' command"));
        };
        let Some(rep) = self.match_slash(slash, false)? else {
            return Err(self.bad("unterminated `s' command"));
        };
        let rep = text::normalize(&rep, Kind::Replacement).map_err(|m| self.bad(&m))?;
        let replacement = text::parse_replacement(&rep, self.flags.posix);
        let mut flags = self.flags;
        let (mut global, mut print, mut nth, mut write) = (false, false, 0usize, None);
        let gnu = !self.flags.posix;
        loop {
            let c = self.in_nonblank();
            match c {
                Some(b'i' | b'I') if gnu => flags.icase = true,
                Some(b'm' | b'M') if gnu => flags.multiline = true,
                Some(b'e' | b'w') if self.sandbox => {
                    return Err(self.bad("e/r/w commands disabled in sandbox mode"));
                }
                Some(b'e') => {
                    return Err(self.refused("the `e' flag of `s' (running a shell command) is not supported"));
                }
                Some(b'p') => {
                    if print {
                        return Err(self.bad("multiple `p' options to `s' command"));
                    }
                    print = true;
                }
                Some(b'g') => {
                    if global {
                        return Err(self.bad("multiple `g' options to `s' command"));
                    }
                    global = true;
                }
                Some(b'w') => {
                    let name = self.read_filename()?;
                    write = Some(self.destination(&name, b'w')?);
                    break;
                }
                Some(d @ b'0'..=b'9') => {
                    if nth != 0 {
                        return Err(self.bad("multiple number options to `s' command"));
                    }
                    nth = usize::try_from(self.in_integer(d)).unwrap_or(usize::MAX);
                    if nth == 0 {
                        return Err(self.bad("number option to `s' command may not be zero"));
                    }
                }
                Some(b'}' | b'#') => {
                    self.savchar(c);
                    break;
                }
                None | Some(b'\n' | b';') => break,
                Some(_) => return Err(self.bad("unknown option to `s'")),
            }
        }
        let regex = self.regex(&re, flags, replacement.max_group)?;
        Ok(Op::Subst(Box::new(Subst { regex, replacement, global, nth: nth.max(1), print, write })))
    }

    pub(super) fn translate(&mut self) -> Res<Op> {
        let slash = self.inchar();
        let Some(from) = self.match_slash(slash, false)? else {
            return Err(self.bad("unterminated `y' command"));
        };
        let Some(to) = self.match_slash(slash, false)? else {
            return Err(self.bad("unterminated `y' command"));
        };
        let from = text::normalize(&from, Kind::Buffer).map_err(|m| self.bad(&m))?;
        let to = text::normalize(&to, Kind::Buffer).map_err(|m| self.bad(&m))?;
        let (from, to) = (chars(&from), chars(&to));
        if from.len() != to.len() {
            return Err(self.bad("strings for `y' command are different lengths"));
        }
        self.end_of_command()?;
        Ok(Op::Translate(from.into_iter().zip(to).collect()))
    }
}
