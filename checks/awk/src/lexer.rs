//! Tokens of an awk program.
//!
//! awk's grammar depends on two lexical facts the parser cannot recover later: whether a
//! `/` starts a regular expression or divides (decided here from the previous token, as
//! the reference implementations do), and whether a name is immediately followed by `(`
//! (a user function call must be, `foo (x)` is a concatenation). Newlines are tokens:
//! they end statements, and the parser skips them where the grammar allows.

use crate::error::Error;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Newline,
    Eof,
    Number(f64),
    /// A string literal, escapes processed.
    Str(Vec<u8>),
    /// A regex literal's text between the slashes (`\/` already unescaped).
    Regex(Vec<u8>),
    Name(String),
    /// A name immediately followed by `(`: a call of a user-defined function.
    FuncName(String),
    Builtin(&'static str),
    Keyword(&'static str),
    /// Punctuation and operators, by their spelling.
    Op(&'static str),
}

const KEYWORDS: &[&str] = &[
    "BEGIN", "END", "function", "func", "if", "else", "while", "for", "do", "break", "continue", "next", "nextfile",
    "exit", "return", "delete", "in", "getline", "print", "printf",
];

/// Built-in functions, including the ones that are refused (`system`) so that the
/// refusal names them rather than calling an undefined function.
pub const BUILTINS: &[&str] = &[
    "length", "substr", "index", "split", "sub", "gsub", "match", "sprintf", "tolower", "toupper", "int", "sqrt",
    "exp", "log", "sin", "cos", "atan2", "rand", "srand", "close", "fflush", "system",
];

/// Operators, longest first so that the first prefix that matches is the token.
const OPS: &[&str] = &[
    "**=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "==", "<=", ">=", "!=", "!~", ">>", "**", "{",
    "}", "(", ")", "[", "]", ";", ",", "+", "-", "*", "/", "%", "^", "!", ">", "<", "|", "?", ":", "~", "$", "=",
];

/// A token and the line it starts on (for error messages).
#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
}

pub fn tokenize(src: &[u8]) -> Result<Vec<Token>, Error> {
    // gawk refuses a NUL byte anywhere in the source, before parsing (exit status 2).
    if src.contains(&0) {
        return Err(Error::Fatal("error: invalid character '\\000' in source code".into()));
    }
    let mut lexer = Lexer { src, pos: 0, line: 1, out: Vec::new() };
    lexer.run()?;
    Ok(lexer.out)
}

struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    line: usize,
    out: Vec<Token>,
}

impl Lexer<'_> {
    fn push(&mut self, tok: Tok) {
        self.out.push(Token { tok, line: self.line });
    }

    /// Whether a `/` here divides: the previous token ends an operand. A `/=` after
    /// an operand is division-assignment only when that operand is a variable that
    /// begins an expression; after one in the middle of a concatenation it starts a
    /// regex, as in gawk's grammar (`print $/= b/ c /= d/` prints `$1` then 0).
    fn slash_divides(&self) -> bool {
        let ends_operand = |tok: &Tok| match tok {
            Tok::Number(_) | Tok::Str(_) | Tok::Name(_) | Tok::Regex(_) | Tok::Builtin(_) => true,
            Tok::Op(op) => matches!(*op, ")" | "]" | "++" | "--"),
            _ => false,
        };
        match self.out.last() {
            Some(last) if ends_operand(&last.tok) => {
                self.src.get(self.pos + 1) != Some(&b'=')
                    || !self.lvalue_start().is_some_and(|i| i > 0 && ends_operand(&self.out[i - 1].tok))
            }
            _ => false,
        }
    }

    /// Where the variable the last tokens spell starts (`x`, `a[i]`, `$x`, `$$1`):
    /// the index of its first token, or `None` when they spell none.
    fn lvalue_start(&self) -> Option<usize> {
        let mut i = self.out.len().checked_sub(1)?;
        if matches!(self.out[i].tok, Tok::Op("]")) {
            let mut depth = 0usize;
            loop {
                match self.out[i].tok {
                    Tok::Op("]") => depth += 1,
                    Tok::Op("[") => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                i = i.checked_sub(1)?;
            }
            i = i.checked_sub(1)?;
        }
        match self.out[i].tok {
            Tok::Name(_) | Tok::Number(_) => {}
            _ => return None,
        }
        while i > 0 && matches!(self.out[i - 1].tok, Tok::Op("$")) {
            i -= 1;
        }
        Some(i)
    }

    fn run(&mut self) -> Result<(), Error> {
        while self.pos < self.src.len() {
            let c = self.src[self.pos];
            match c {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\\' if matches!(self.src.get(self.pos + 1), Some(b'\n')) => {
                    self.pos += 2;
                    self.line += 1;
                }
                b'\\' if self.src[self.pos + 1..].starts_with(b"\r\n") => {
                    self.pos += 3;
                    self.line += 1;
                }
                b'\n' => {
                    self.push(Tok::Newline);
                    self.pos += 1;
                    self.line += 1;
                }
                b'#' => {
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b'"' => {
                    self.pos += 1;
                    let s = self.string()?;
                    self.push(Tok::Str(s));
                }
                b'/' if !self.slash_divides() => {
                    self.pos += 1;
                    let r = self.regex()?;
                    self.push(Tok::Regex(r));
                }
                b'0'..=b'9' | b'.' if c != b'.' || self.src.get(self.pos + 1).is_some_and(u8::is_ascii_digit) => {
                    let n = self.number();
                    self.push(Tok::Number(n));
                }
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    let start = self.pos;
                    while self.pos < self.src.len()
                        && (self.src[self.pos].is_ascii_alphanumeric() || self.src[self.pos] == b'_')
                    {
                        self.pos += 1;
                    }
                    let word = String::from_utf8_lossy(&self.src[start..self.pos]).into_owned();
                    let next = self.src[self.pos..].iter().find(|b| !matches!(b, b' ' | b'\t'));
                    if word == "switch" && next == Some(&b'(') {
                        return Err(Error::Fatal("gawk's `switch' statement is not supported".into()));
                    }
                    let tok = if let Some(k) = KEYWORDS.iter().find(|k| **k == word) {
                        Tok::Keyword(if *k == "func" { "function" } else { k })
                    } else if let Some(b) = BUILTINS.iter().find(|b| **b == word) {
                        Tok::Builtin(b)
                    } else if self.src.get(self.pos) == Some(&b'(') {
                        Tok::FuncName(word)
                    } else {
                        Tok::Name(word)
                    };
                    self.push(tok);
                }
                // gawk's own syntax, named rather than a syntax error, so that the assertion
                // is an error saying what the sandbox lacks.
                b'@' => {
                    return Err(Error::Fatal(
                        "gawk's `@` syntax (`@load`, `@include`, `@namespace`, `@/re/`, `@f()`) is not supported"
                            .into(),
                    ));
                }
                b'|' if self.src.get(self.pos + 1) == Some(&b'&') => {
                    return Err(Error::Fatal("gawk's two-way pipe `|&` is not supported".into()));
                }
                _ => {
                    let rest = &self.src[self.pos..];
                    let Some(op) = OPS.iter().find(|op| rest.starts_with(op.as_bytes())) else {
                        return Err(self.syntax(&format!("invalid char '{}' in expression", c as char)));
                    };
                    self.pos += op.len();
                    self.push(Tok::Op(op));
                }
            }
        }
        self.push(Tok::Newline);
        self.push(Tok::Eof);
        Ok(())
    }

    fn syntax(&self, what: &str) -> Error {
        Error::Syntax { line: self.line, message: what.to_string() }
    }

    fn number(&mut self) -> f64 {
        let s = &self.src[self.pos..];
        // Hexadecimal constants in the source (`0x1F`), which gawk and mawk both accept.
        if s.len() > 2 && s[0] == b'0' && (s[1] | 0x20) == b'x' && s[2].is_ascii_hexdigit() {
            let digits: Vec<u8> = s[2..].iter().copied().take_while(u8::is_ascii_hexdigit).collect();
            self.pos += 2 + digits.len();
            return u64::from_str_radix(std::str::from_utf8(&digits).unwrap_or("0"), 16)
                .map_or(f64::INFINITY, |v| v as f64);
        }
        // gawk reads `017` as octal (mawk as 17): gawk is the reference.
        let octal_len = s.iter().take_while(|b| b.is_ascii_digit()).count();
        if s[0] == b'0'
            && octal_len > 1
            && s[..octal_len].iter().all(|b| (b'0'..=b'7').contains(b))
            && !matches!(s.get(octal_len), Some(b'.' | b'e' | b'E'))
        {
            self.pos += octal_len;
            return s[1..octal_len].iter().fold(0.0, |v, d| v * 8.0 + f64::from(d - b'0'));
        }
        let len = crate::value::numeric_prefix_len(s);
        self.pos += len;
        std::str::from_utf8(&s[..len]).ok().and_then(|t| t.parse().ok()).unwrap_or(0.0)
    }

    fn string(&mut self) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.src.get(self.pos) else { return Err(self.syntax("unterminated string")) };
            self.pos += 1;
            match c {
                b'"' => return Ok(out),
                b'\n' => return Err(self.syntax("unterminated string")),
                b'\\' => {
                    let Some(&e) = self.src.get(self.pos) else { return Err(self.syntax("unterminated string")) };
                    self.pos += 1;
                    match e {
                        b'\n' => self.line += 1,
                        b'\r' if self.src.get(self.pos) == Some(&b'\n') => {
                            self.pos += 1;
                            self.line += 1;
                        }
                        b'x' if self.src.get(self.pos).is_some_and(u8::is_ascii_hexdigit) => {
                            let (v, len) = hex_escape(&self.src[self.pos..]);
                            self.pos += len;
                            out.push(v);
                        }
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                match self.src.get(self.pos) {
                                    Some(&d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            out.push(v as u8);
                        }
                        // gawk treats an unknown escape (`"\."`) as the plain character.
                        other => out.push(simple_escape(other).unwrap_or(other)),
                    }
                }
                c => out.push(c),
            }
        }
    }

    /// A regex literal's text: escapes are kept for the regex translation, except `\/`.
    fn regex(&mut self) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        let mut in_bracket = false;
        loop {
            let Some(&c) = self.src.get(self.pos) else { return Err(self.syntax("unterminated regexp")) };
            self.pos += 1;
            match c {
                b'\n' => return Err(self.syntax("unterminated regexp")),
                b'/' if !in_bracket => return Ok(out),
                b'\\' if self.src.get(self.pos) == Some(&b'/') => {
                    out.push(b'/');
                    self.pos += 1;
                }
                // A continuation inside the regex (also with a CR before the newline).
                b'\\' if self.src.get(self.pos) == Some(&b'\n') => {
                    self.pos += 1;
                    self.line += 1;
                }
                b'\\' if self.src[self.pos..].starts_with(b"\r\n") => {
                    self.pos += 2;
                    self.line += 1;
                }
                b'\\' => {
                    out.push(c);
                    if let Some(&n) = self.src.get(self.pos) {
                        out.push(n);
                        self.pos += 1;
                    }
                }
                b'[' if !in_bracket => {
                    in_bracket = true;
                    out.push(c);
                    // `[]...]` and `[^]...]`: a `]` first is a member.
                    if self.src.get(self.pos) == Some(&b'^') {
                        out.push(b'^');
                        self.pos += 1;
                    }
                    if self.src.get(self.pos) == Some(&b']') {
                        out.push(b']');
                        self.pos += 1;
                    }
                }
                b'[' if self.src.get(self.pos) == Some(&b':') => {
                    // A character class inside a bracket: copy through its `:]`.
                    out.push(c);
                    while let Some(&n) = self.src.get(self.pos) {
                        out.push(n);
                        self.pos += 1;
                        if n == b']' || n == b'\n' {
                            break;
                        }
                    }
                }
                b']' if in_bracket => {
                    in_bracket = false;
                    out.push(c);
                }
                c => out.push(c),
            }
        }
    }
}

/// The byte of a one-letter escape sequence (`\n`, `\t`, `\\`, `\"`, `\/`...).
pub fn simple_escape(c: u8) -> Option<u8> {
    Some(match c {
        b'n' => b'\n',
        b't' => b'\t',
        b'r' => b'\r',
        b'a' => 0x07,
        b'b' => 0x08,
        b'f' => 0x0c,
        b'v' => 0x0b,
        b'\\' => b'\\',
        b'"' => b'"',
        b'/' => b'/',
        _ => return None,
    })
}

/// A `\x` escape's value from the hex digits after the `x` (at most two, as gawk 5.2
/// reads them), and how many digits it used.
pub fn hex_escape(s: &[u8]) -> (u8, usize) {
    let len = s.iter().take(2).take_while(|b| b.is_ascii_hexdigit()).count();
    let v = s[..len].iter().fold(0u32, |v, d| v * 16 + (*d as char).to_digit(16).unwrap_or(0));
    (v as u8, len)
}

/// Escape processing for text that did not come from a string literal but is read as
/// one: `-v var=val`, `var=val` operands and `-F`.
pub fn unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\\' && i + 1 < s.len() {
            let e = s[i + 1];
            i += 2;
            if e == b'x' && s.get(i).is_some_and(u8::is_ascii_hexdigit) {
                let (v, len) = hex_escape(&s[i..]);
                i += len;
                out.push(v);
            } else if (b'0'..=b'7').contains(&e) {
                let mut v = u32::from(e - b'0');
                let mut n = 1;
                while n < 3 && i < s.len() && (b'0'..=b'7').contains(&s[i]) {
                    v = v * 8 + u32::from(s[i] - b'0');
                    i += 1;
                    n += 1;
                }
                out.push(v as u8);
            } else {
                match simple_escape(e) {
                    Some(b) => out.push(b),
                    None => {
                        out.push(b'\\');
                        out.push(e);
                    }
                }
            }
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}
