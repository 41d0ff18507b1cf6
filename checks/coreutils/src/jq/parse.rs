//! jq 1.6's reader of JSON text (`jv_parse.c`), for the input and `fromjson`: jaq's reader takes
//! standard JSON only and words its errors its own way, while jq reads any run of
//! characters between blanks, quotes and brackets as one literal and takes it when C's
//! `strtod` takes all of it (`1.`, `.5`, `+1`, `01`, `NaN`, `-NaN`, `Infinity`, `1e400`),
//! and reports the first error with its line and column, which a `try ... catch` shows.
//!
//! `fromjson` parses the whole string as one value, and more than one is an error
//! (`jv_parse_sized`); the input is read as a stream of values up to the first error.

use jaq_json::{Map, Num, Val};

/// jq's `MAX_PARSING_DEPTH`.
const MAX_DEPTH: usize = 256;

/// What an open bracket holds so far.
enum Frame {
    Arr(Vec<Val>),
    Obj(Map),
    /// A key read, its `:` seen, waiting for its value.
    Key(Val),
}

/// The parser's state between two characters (`struct jv_parser`).
struct Parser {
    stack: Vec<Frame>,
    /// The value read and not yet placed (`p->next`).
    next: Option<Val>,
    /// The literal or the string being read.
    token: Vec<u8>,
    in_string: bool,
    escaped: bool,
    line: usize,
    column: usize,
}

/// What one character, or the end of the text, produced.
enum Event {
    Value(Val),
    Error(String),
}

/// `text` as `fromjson` reads it: the one value, or jq 1.6's message.
pub fn fromjson(text: &[u8]) -> Result<Val, String> {
    // jq prints the text as a C string: up to its first NUL.
    let shown = String::from_utf8_lossy(text.split(|b| *b == 0).next().unwrap_or_default());
    let mut events = Parser::events(text).into_iter();
    let result = match events.next() {
        Some(Event::Value(v)) => match events.next() {
            Some(Event::Value(_)) => Err("Unexpected extra JSON values".to_string()),
            Some(Event::Error(e)) => Err(e),
            None => Ok(v),
        },
        Some(Event::Error(e)) => Err(e),
        None => Err("Expected JSON value".to_string()),
    };
    result.map_err(|e| format!("{e} (while parsing '{shown}')"))
}

/// The values of `text` as jq 1.6 reads its input, up to the first error, and that
/// error (`MESSAGE at line L, column C`).
pub fn stream(text: &[u8]) -> (Vec<Val>, Option<String>) {
    let mut values = Vec::new();
    for event in Parser::events(text) {
        match event {
            Event::Value(v) => values.push(v),
            Event::Error(e) => return (values, Some(e)),
        }
    }
    (values, None)
}

impl Parser {
    /// The values of `text` up to its first error, and that error (`jv_parser_next`
    /// called until it returns nothing).
    fn events(text: &[u8]) -> Vec<Event> {
        let mut p = Parser {
            stack: Vec::new(),
            next: None,
            token: Vec::new(),
            in_string: false,
            escaped: false,
            line: 1,
            column: 0,
        };
        let mut events = Vec::new();
        for &c in text {
            match p.scan(c) {
                Ok(Some(v)) => events.push(Event::Value(v)),
                Ok(None) => {}
                Err(e) => {
                    events.push(Event::Error(format!("{e} at line {}, column {}", p.line, p.column)));
                    return events;
                }
            }
        }
        let at = |e: &str, p: &Parser| format!("{e} at EOF at line {}, column {}", p.line, p.column);
        if p.in_string {
            events.push(Event::Error(at("Unfinished string", &p)));
        } else if let Err(e) = p.check_literal() {
            events.push(Event::Error(at(e, &p)));
        } else if !p.stack.is_empty() {
            events.push(Event::Error(at("Unfinished JSON term", &p)));
        } else if let Some(v) = p.next.take() {
            events.push(Event::Value(v));
        }
        events
    }

    /// One character (`scan`): a finished top-level value, or an error.
    fn scan(&mut self, c: u8) -> Result<Option<Val>, &'static str> {
        self.column += 1;
        if c == b'\n' {
            self.line += 1;
            self.column = 0;
        }
        if self.in_string {
            if c == b'"' && !self.escaped {
                self.in_string = false;
                self.found_string()?;
                return Ok(self.done());
            }
            self.escaped = c == b'\\' && !self.escaped;
            self.token.push(c);
            return Ok(None);
        }
        let literal = !matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b'"' | b'[' | b',' | b']' | b'{' | b':' | b'}');
        if literal {
            self.token.push(c);
            return Ok(None);
        }
        self.check_literal()?;
        let mut answer = self.done();
        match c {
            b'"' => self.in_string = true,
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => self.structure(c)?,
        }
        if let Some(v) = self.done() {
            answer = Some(v);
        }
        Ok(answer)
    }

    /// `check_done`: the value read, when it is a whole top-level value.
    fn done(&mut self) -> Option<Val> {
        if self.stack.is_empty() { self.next.take() } else { None }
    }

    /// `value`: a value read where one may stand.
    fn value(&mut self, v: Val) -> Result<(), &'static str> {
        if self.next.is_some() {
            return Err("Expected separator between values");
        }
        self.next = Some(v);
        Ok(())
    }

    /// `check_literal`: the literal read so far, if any, as a value.
    fn check_literal(&mut self) -> Result<(), &'static str> {
        if self.token.is_empty() {
            return Ok(());
        }
        let token = std::mem::take(&mut self.token);
        let pattern: Option<(&[u8], Val)> = match token[0] {
            b't' => Some((b"true", Val::Bool(true))),
            b'f' => Some((b"false", Val::Bool(false))),
            b'n' => Some((b"null", Val::Null)),
            _ => None,
        };
        let v = match pattern {
            Some((word, v)) if token == word => v,
            Some(_) => return Err("Invalid literal"),
            None => number(&token).ok_or("Invalid numeric literal")?,
        };
        self.value(v)
    }

    /// `token`: a bracket, a comma or a colon.
    fn structure(&mut self, c: u8) -> Result<(), &'static str> {
        match c {
            b'[' | b'{' => {
                if self.stack.len() >= MAX_DEPTH {
                    return Err("Exceeds depth limit for parsing");
                }
                if self.next.is_some() {
                    return Err("Expected separator between values");
                }
                self.stack.push(if c == b'[' { Frame::Arr(Vec::new()) } else { Frame::Obj(Map::default()) });
            }
            b':' => {
                let Some(key) = self.next.take() else { return Err("Expected string key before ':'") };
                if !matches!(self.stack.last(), Some(Frame::Obj(_))) {
                    self.next = Some(key);
                    return Err("':' not as part of an object");
                }
                if !matches!(key, Val::TStr(_) | Val::BStr(_)) {
                    return Err("Object keys must be strings");
                }
                self.stack.push(Frame::Key(key));
            }
            b',' => {
                let Some(v) = self.next.take() else { return Err("Expected value before ','") };
                match self.stack.last_mut() {
                    None => return Err("',' not as part of an object or array"),
                    Some(Frame::Arr(items)) => items.push(v),
                    Some(Frame::Key(_)) => self.set_key(v),
                    Some(Frame::Obj(_)) => return Err("Objects must consist of key:value pairs"),
                }
            }
            b']' => {
                let Some(Frame::Arr(items)) = self.stack.last_mut() else { return Err("Unmatched ']'") };
                match self.next.take() {
                    Some(v) => items.push(v),
                    None if !items.is_empty() => return Err("Expected another array element"),
                    None => {}
                }
                let Some(Frame::Arr(items)) = self.stack.pop() else { unreachable!("an array is open") };
                self.next = Some(items.into_iter().collect());
            }
            _ => {
                if self.stack.is_empty() {
                    return Err("Unmatched '}'");
                }
                match self.next.take() {
                    Some(v) => {
                        if !matches!(self.stack.last(), Some(Frame::Key(_))) {
                            return Err("Objects must consist of key:value pairs");
                        }
                        self.set_key(v);
                    }
                    None => match self.stack.last() {
                        Some(Frame::Obj(map)) if !map.is_empty() => return Err("Expected another key-value pair"),
                        Some(Frame::Obj(_)) => {}
                        _ => return Err("Unmatched '}'"),
                    },
                }
                let Some(Frame::Obj(map)) = self.stack.pop() else { unreachable!("an object is open") };
                self.next = Some(Val::obj(map));
            }
        }
        Ok(())
    }

    /// The pending key's value read: the pair joins its object.
    fn set_key(&mut self, v: Val) {
        let Some(Frame::Key(key)) = self.stack.pop() else { unreachable!("a key is pending") };
        if let Some(Frame::Obj(map)) = self.stack.last_mut() {
            map.insert(key, v);
        }
    }

    /// `found_string`: the string read, its escapes decoded.
    fn found_string(&mut self) -> Result<(), &'static str> {
        let token = std::mem::take(&mut self.token);
        let mut out: Vec<u8> = Vec::with_capacity(token.len());
        let mut i = 0;
        while i < token.len() {
            let c = token[i];
            i += 1;
            if c != b'\\' {
                if c > 0 && c < 0x1f {
                    return Err("Invalid string: control characters from U+0000 through U+001F must be escaped");
                }
                out.push(c);
                continue;
            }
            let e = token[i];
            i += 1;
            match e {
                b'\\' | b'"' | b'/' => out.push(e),
                b'b' => out.push(8),
                b'f' => out.push(12),
                b't' => out.push(b'\t'),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b'u' => {
                    if i + 4 > token.len() {
                        return Err("Invalid \\uXXXX escape");
                    }
                    let Some(mut code) = unhex4(&token[i..i + 4]) else {
                        return Err("Invalid characters in \\uXXXX escape");
                    };
                    i += 4;
                    if (0xD800..=0xDBFF).contains(&code) {
                        let pair = "Invalid \\uXXXX\\uXXXX surrogate pair escape";
                        if i + 6 > token.len() || token[i] != b'\\' || token[i + 1] != b'u' {
                            return Err(pair);
                        }
                        let low = unhex4(&token[i + 2..i + 6]).filter(|l| (0xDC00..=0xDFFF).contains(l)).ok_or(pair)?;
                        i += 6;
                        code = 0x10000 + (((code - 0xD800) << 10) | (low - 0xDC00));
                    }
                    let ch = char::from_u32(code).unwrap_or('\u{FFFD}');
                    out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                }
                _ => return Err("Invalid escape"),
            }
        }
        self.value(Val::from(String::from_utf8_lossy(&out).into_owned()))
    }
}

fn unhex4(digits: &[u8]) -> Option<u32> {
    std::str::from_utf8(digits)
        .ok()
        .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
        .and_then(|d| u32::from_str_radix(d, 16).ok())
}

/// A literal that C's `strtod` (David Gay's, as jq builds it) reads whole: a decimal
/// number with an optional sign, fraction and exponent, or `inf`, `infinity`, `nan` in
/// any case; `None` when any of it is left over.
fn number(token: &[u8]) -> Option<Val> {
    let text = std::str::from_utf8(token).ok()?;
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let negative = text.starts_with('-');
    let lower = unsigned.to_ascii_lowercase();
    if lower == "nan" {
        return Some(Val::Num(Num::Float(f64::NAN)));
    }
    if lower == "inf" || lower == "infinity" {
        return Some(Val::Num(Num::Float(if negative { f64::NEG_INFINITY } else { f64::INFINITY })));
    }
    let b = unsigned.as_bytes();
    let digits = |mut i: usize| {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i, i - start)
    };
    let (mut i, whole) = digits(0);
    let mut fraction = 0;
    if b.get(i) == Some(&b'.') {
        (i, fraction) = digits(i + 1);
    }
    if whole + fraction == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
        let (end, exponent) = digits(i + 1 + sign);
        if exponent == 0 {
            return None;
        }
        i = end;
    }
    if i != b.len() {
        return None;
    }
    let x: f64 = text.parse().ok()?;
    if x == 0.0 && negative {
        return Some(Val::Num(Num::Float(-0.0)));
    }
    // A number JSON spells the same way keeps jaq's reading (big integers, decimals), as
    // the input's numbers do; any other spelling is the double strtod gives.
    let json = text.strip_prefix('-').unwrap_or(text);
    let leading_zero = json.starts_with('0') && json.as_bytes().get(1).is_some_and(u8::is_ascii_digit);
    let odd = json.starts_with(['+', '.'])
        || leading_zero
        || json.contains(".e")
        || json.contains(".E")
        || json.ends_with('.');
    if !odd && x.is_finite() {
        return jaq_json::read::parse_single(text.as_bytes()).ok();
    }
    Some(Val::Num(Num::Float(x)))
}
