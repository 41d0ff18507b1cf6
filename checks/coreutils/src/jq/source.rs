//! jq syntax that jaq's parser does not take, rewritten into jaq's before loading, and
//! jq's compile-time errors that jaq has not got:
//!
//! - `.5` (J3): a number, as in jq; becomes `0.5`.
//! - `{$b: [$c, $d]}` in a pattern (J7): binds `$b` to `.b` and destructures it; becomes
//!   `{$b, "b": [$c, $d]}`.
//! - `E as P1 ?// P2 ?// ... | BODY` (J6): becomes
//!   `E as $v | . as $d | [null, ...] as [$all, ...] | try ($v as P1 | BODY) catch ($d | try ... catch ($d | $v as Pn | BODY))`,
//!   so every variable of every pattern is bound (null where its pattern did not bind
//!   it), an error in a pattern or in the body goes on to the next pattern, and the last
//!   one's error is the result. A `?//` this cannot place is left for jaq to reject, and
//!   the caller names it in the error.
//! - A constant key that is not a string (`{(0): 1}`, `. as {(true): $x}`, J14) and
//!   `1 / 0` (J4, constant operands) are jq compile errors.
//!
//! The scanner knows jq's strings (with `\(...)` interpolations, kept whole), comments,
//! numbers, identifiers, `$names` and punctuation; nothing inside an interpolation is
//! rewritten.

/// A token: its kind and its byte range in the source.
#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Str,
    Num,
    Ident,
    Var,
    Punct,
}

#[derive(Clone, Debug)]
struct Tok {
    kind: Kind,
    start: usize,
    end: usize,
}

const PUNCTS: [&str; 22] = [
    "?//", "|=", "+=", "-=", "*=", "/=", "%=", "//=", "==", "!=", "<=", ">=", "//", "..", "?", "|", ",", ":", ";", "=",
    "<", ">",
];

/// The tokens of `src`, or `None` when it does not scan (jaq reports the error).
fn tokens(src: &str) -> Option<Vec<Tok>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'"' {
            let end = string_end(b, i + 1)?;
            out.push(Tok { kind: Kind::Str, start: i, end });
            i = end;
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let start = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            out.push(Tok { kind: Kind::Num, start, end: i });
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c == b'@' {
            let start = i;
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b':' && b.get(i + 1) == Some(&b':'))
            {
                i += if b[i] == b':' { 2 } else { 1 };
            }
            let kind = if c == b'$' { Kind::Var } else { Kind::Ident };
            out.push(Tok { kind, start, end: i });
        } else {
            let rest = &src[i..];
            let len = PUNCTS
                .iter()
                .find(|p| rest.starts_with(**p))
                .map_or_else(|| rest.chars().next().map_or(1, char::len_utf8), |p| p.len());
            out.push(Tok { kind: Kind::Punct, start: i, end: i + len });
            i += len;
        }
    }
    Some(out)
}

/// The end (after the closing quote) of a string whose body starts at `i`.
fn string_end(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() {
        match b[i] {
            b'"' => return Some(i + 1),
            b'\\' if b.get(i + 1) == Some(&b'(') => {
                // An interpolation: balanced parentheses, with strings inside.
                i += 2;
                let mut depth = 1;
                while depth > 0 {
                    match *b.get(i)? {
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        b'"' => {
                            i = string_end(b, i + 1)?;
                            continue;
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    None
}

/// A jq compile error found in the source (the message, without `jq: error: `).
#[derive(Debug, PartialEq)]
pub struct CompileError(pub String);

/// `src` with jq's syntax rewritten for jaq.
pub fn rewrite(src: &str) -> Result<String, CompileError> {
    let Some(toks) = tokens(src) else { return Ok(src.to_string()) };
    check(src, &toks)?;
    let mut out = numbers_and_patterns(src, &toks);
    // Rewrite one `?//` at a time, the last first (its body holds no other).
    for n in 0.. {
        let Some(toks) = tokens(&out) else { break };
        match alternative(&out, &toks, n) {
            Some(next) => out = next,
            None => break,
        }
    }
    Ok(out)
}

fn text<'a>(src: &'a str, t: &Tok) -> &'a str {
    &src[t.start..t.end]
}

fn is(src: &str, t: Option<&Tok>, s: &str) -> bool {
    t.is_some_and(|t| t.kind != Kind::Str && text(src, t) == s)
}

/// jq's compile errors: a constant that is not a string as an object key, in an object
/// or an object pattern (jq folds constants when it compiles, and checks the keys it
/// folded); a constant division by zero.
fn check(src: &str, toks: &[Tok]) -> Result<(), CompileError> {
    // The innermost open bracket at each token: an object key stands right after `{` or
    // after a `,` directly inside braces.
    let mut open: Vec<&str> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let at = |k: usize| toks.get(k);
        let in_braces = open.last() == Some(&"{");
        if t.kind == Kind::Punct {
            match text(src, t) {
                p @ ("{" | "[" | "(") => open.push(p),
                "}" | "]" | ")" => {
                    open.pop();
                }
                _ => {}
            }
        }
        if (is(src, Some(t), "{") || (in_braces && is(src, Some(t), ",")))
            && is(src, at(i + 1), "(")
            && let Some(close) = closing(src, toks, i + 1)
            && is(src, at(close + 1), ":")
            && let Some((kind, dump)) = constant(src, &toks[i + 2..close])
            && kind != "string"
        {
            return Err(CompileError(format!("Cannot use {kind} ({dump}) as object key")));
        }
        if t.kind == Kind::Num
            && (is(src, at(i + 1), "/") || is(src, at(i + 1), "%"))
            && at(i + 2).is_some_and(|n| n.kind == Kind::Num && text(src, n).parse::<f64>().is_ok_and(|x| x == 0.0))
            && !at(i + 3).is_some_and(|n| n.kind == Kind::Num || is(src, Some(n), "."))
            && (i == 0 || ["(", "|", ",", "[", ";", ":", "+", "-"].iter().any(|p| is(src, at(i - 1), p)))
        {
            let what = if is(src, at(i + 1), "/") { "Division" } else { "Remainder" };
            return Err(CompileError(format!("{what} by zero?")));
        }
    }
    Ok(())
}

/// The index of the bracket closing the one at `i`.
fn closing(src: &str, toks: &[Tok], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(i) {
        if t.kind != Kind::Punct {
            continue;
        }
        match text(src, t) {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The type and the error dump of `toks` when they are a constant jq folds when it
/// compiles: a literal (in parentheses or not), `[]`, `{}`, an array of literals, or an
/// arithmetic operator between two numbers.
fn constant(src: &str, toks: &[Tok]) -> Option<(&'static str, String)> {
    match toks {
        [open, inner @ .., close] if is(src, Some(open), "(") && closing(src, toks, 0) == Some(toks.len() - 1) => {
            let _ = close;
            constant(src, inner)
        }
        [t] => literal(src, t),
        [a, b] if is(src, Some(a), "[") && is(src, Some(b), "]") => Some(("array", "[]".into())),
        [a, b] if is(src, Some(a), "{") && is(src, Some(b), "}") => Some(("object", "{}".into())),
        [a, inner @ .., b] if is(src, Some(a), "[") && is(src, Some(b), "]") => {
            let mut items = Vec::new();
            for (k, t) in inner.iter().enumerate() {
                if k % 2 == 1 {
                    if !is(src, Some(t), ",") {
                        return None;
                    }
                    continue;
                }
                items.push(literal(src, t)?.1);
            }
            (inner.len() % 2 == 1).then(|| ("array", truncated(&format!("[{}]", items.join(",")))))
        }
        [a, op, b] if a.kind == Kind::Num && b.kind == Kind::Num => {
            let (x, y): (f64, f64) = (text(src, a).parse().ok()?, text(src, b).parse().ok()?);
            let v = match text(src, op) {
                "+" => x + y,
                "-" => x - y,
                "*" => x * y,
                "/" if y != 0.0 => x / y,
                _ => return None,
            };
            Some(("number", truncated(&number(v))))
        }
        _ => None,
    }
}

/// A literal's type and dump: a number, a string without interpolation, `true`, `false`,
/// `null`.
fn literal(src: &str, t: &Tok) -> Option<(&'static str, String)> {
    let s = text(src, t);
    match t.kind {
        Kind::Num => Some(("number", truncated(&number(s.parse().ok()?)))),
        Kind::Str if !s.contains("\\(") => Some(("string", s.to_string())),
        Kind::Ident if s == "true" || s == "false" => Some(("boolean", s.to_string())),
        Kind::Ident if s == "null" => Some(("null", s.to_string())),
        _ => None,
    }
}

/// A number as jq 1.6 prints it in an error (17 significant digits, no trailing `.0`).
fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e17 { format!("{x:.0}") } else { format!("{x}") }
}

/// jq's error dump of a value: at most 11 bytes, then `...`.
fn truncated(dump: &str) -> String {
    if dump.len() > 14 {
        let mut end = 11;
        while !dump.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &dump[..end])
    } else {
        dump.to_string()
    }
}

/// `.5` as `0.5`; `$name:` inside a pattern as `$name, "name":`.
fn numbers_and_patterns(src: &str, toks: &[Tok]) -> String {
    let mut out = String::with_capacity(src.len() + 8);
    let mut last = 0;
    let mut pattern_end = 0;
    for (i, t) in toks.iter().enumerate() {
        if is(src, Some(t), "as") {
            pattern_end = pattern_units_end(src, toks, i + 1);
        }
        if t.kind == Kind::Num && src[t.start..].starts_with('.') {
            out.push_str(&src[last..t.start]);
            out.push('0');
            last = t.start;
        }
        if t.kind == Kind::Var && i < pattern_end && is(src, toks.get(i + 1), ":") {
            let name = &text(src, t)[1..];
            out.push_str(&src[last..t.end]);
            out.push_str(&format!(", \"{name}\""));
            last = t.end;
        }
    }
    out.push_str(&src[last..]);
    out
}

/// The index after the pattern starting at `i` (a `$name` or a bracketed group).
fn unit_end(src: &str, toks: &[Tok], i: usize) -> Option<usize> {
    let t = toks.get(i)?;
    if t.kind == Kind::Var {
        return Some(i + 1);
    }
    if !(is(src, Some(t), "[") || is(src, Some(t), "{")) {
        return None;
    }
    let mut depth = 0i32;
    for (k, t) in toks.iter().enumerate().skip(i) {
        if t.kind != Kind::Punct {
            continue;
        }
        match text(src, t) {
            "[" | "{" | "(" => depth += 1,
            "]" | "}" | ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The index after the patterns (`P1 ?// P2 ...`) starting at `i`.
fn pattern_units_end(src: &str, toks: &[Tok], mut i: usize) -> usize {
    while let Some(end) = unit_end(src, toks, i) {
        i = end;
        if is(src, toks.get(i), "?//") {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// Rewrites the last `as P1 ?// P2 ... | BODY` of `src` (`n` numbers its variables).
fn alternative(src: &str, toks: &[Tok], n: usize) -> Option<String> {
    let (as_at, units, bar) = toks.iter().enumerate().rev().find_map(|(i, t)| {
        if !is(src, Some(t), "as") {
            return None;
        }
        let mut units = Vec::new();
        let mut k = i + 1;
        while let Some(end) = unit_end(src, toks, k) {
            units.push((k, end));
            k = end;
            if is(src, toks.get(k), "?//") {
                k += 1;
            } else {
                break;
            }
        }
        (units.len() > 1 && is(src, toks.get(k), "|")).then_some((i, units, k))
    })?;
    let body_end = body_end(src, toks, bar + 1);
    let body_text = match (toks.get(bar + 1), body_end) {
        (Some(first), e) if bar + 1 < e => &src[first.start..toks[e - 1].end],
        _ => return None,
    };
    // Every variable the patterns bind, once each.
    let mut vars: Vec<&str> = Vec::new();
    for &(s, e) in &units {
        let mut parens = 0;
        for t in &toks[s..e] {
            match (t.kind.clone(), text(src, t)) {
                (Kind::Punct, "(") => parens += 1,
                (Kind::Punct, ")") => parens -= 1,
                (Kind::Var, v) if parens == 0 && !vars.contains(&v) => vars.push(v),
                _ => {}
            }
        }
    }
    let (alt, dot) = (format!("$__jq_alt{n}"), format!("$__jq_dot{n}"));
    let nulls = vec!["null"; vars.len()].join(", ");
    let mut expr = String::new();
    for (k, &(s, e)) in units.iter().enumerate().rev() {
        let pattern = &src[toks[s].start..toks[e - 1].end];
        let branch = format!("{alt} as {pattern} | {body_text}");
        expr = if k + 1 == units.len() {
            format!("({dot} | {branch})")
        } else {
            format!("({dot} | try ({branch}) catch {expr})")
        };
    }
    let head = &src[..toks[as_at].start];
    let tail = match toks.get(body_end) {
        Some(t) => &src[t.start..],
        None => "",
    };
    Some(format!("{head}as {alt} | . as {dot} | [{nulls}] as [{}] | {expr} {tail}", vars.join(", ")))
}

/// The index of the token that ends the body starting at `i` (or the token count).
fn body_end(src: &str, toks: &[Tok], i: usize) -> usize {
    let (mut depth, mut defs, mut ifs, mut tries) = (0i32, 0, 0, 0);
    for (k, t) in toks.iter().enumerate().skip(i) {
        if t.kind == Kind::Str || t.kind == Kind::Num || t.kind == Kind::Var {
            continue;
        }
        match text(src, t) {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                if depth == 0 {
                    return k;
                }
                depth -= 1;
            }
            _ if depth > 0 => {}
            "def" => defs += 1,
            ";" if defs > 0 => defs -= 1,
            ";" => return k,
            "if" => ifs += 1,
            "end" if ifs > 0 => ifs -= 1,
            "then" | "elif" | "else" | "end" if ifs == 0 => return k,
            "try" => tries += 1,
            "catch" if tries > 0 => tries -= 1,
            "catch" => return k,
            _ => {}
        }
    }
    toks.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_dot_numbers() {
        assert_eq!(rewrite("select(. > .5)").unwrap(), "select(. > 0.5)");
        assert_eq!(rewrite(".a | 1.5").unwrap(), ".a | 1.5");
        assert_eq!(rewrite("\".5\"").unwrap(), "\".5\"");
    }

    #[test]
    fn object_pattern_with_a_bound_key() {
        assert_eq!(rewrite(". as {$a, $b:[$c]} | $b").unwrap(), ". as {$a, $b, \"b\":[$c]} | $b");
        assert_eq!(rewrite("{$a: 1}").unwrap(), "{$a: 1}");
    }

    #[test]
    fn compile_errors() {
        assert!(rewrite("{(0):1}").is_err());
        assert!(rewrite("{a: 1, (0):1}").is_err());
        assert!(rewrite("{(\"a\"):1}").is_ok());
        assert!(rewrite("1/0").is_err());
        assert!(rewrite("1/.").is_ok());
        assert!(rewrite(".a/0").is_ok());
    }

    /// jq folds a constant key and refuses one that is not a string, in an object and
    /// in an object pattern alike; a key it computes at run time is a run-time matter.
    #[test]
    fn constant_object_keys() {
        let error = |src: &str| rewrite(src).err().map(|CompileError(m)| m);
        assert_eq!(error(". as {(true):$foo} | $foo").as_deref(), Some("Cannot use boolean (true) as object key"));
        assert_eq!(error("{(null): 1}").as_deref(), Some("Cannot use null (null) as object key"));
        assert_eq!(error("{([]): 1}").as_deref(), Some("Cannot use array ([]) as object key"));
        assert_eq!(error("{({}): 1}").as_deref(), Some("Cannot use object ({}) as object key"));
        assert_eq!(error("{(1+1): 1}").as_deref(), Some("Cannot use number (2) as object key"));
        assert_eq!(error(". as [$a, {((1e3)):$x}] | $x").as_deref(), Some("Cannot use number (1000) as object key"));
        assert_eq!(error("{a: 1, (false): 2}").as_deref(), Some("Cannot use boolean (false) as object key"));
        for ok in ["{(\"a\"): 1}", ". as {(-1):$x} | $x", "{(.a): 1}", ". as {(\"a\"+\"b\"):$x} | $x", "[1, (true)]"] {
            assert_eq!(error(ok), None, "{ok}");
        }
    }

    #[test]
    fn destructuring_alternatives() {
        let out = rewrite(".[] as [$a] ?// $a | $a").unwrap();
        assert!(!out.contains("?//"), "{out}");
        assert!(out.contains("try"), "{out}");
        // `.a?//1` is not a destructuring alternative: left alone.
        assert_eq!(rewrite(".a?//1").unwrap(), ".a?//1");
    }
}
