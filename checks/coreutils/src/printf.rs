//! `printf`, as bash 5.2's builtin: the format is reused while arguments remain, and
//! `'c` arguments give a character's code.
//!
//! `%q` quotes as bash does. `printf -v VAR` is the shell's (it sets a variable). Left out: the
//! floating-point conversions' `%a`. Error messages say `printf:` where bash says `bash: line 1: printf:`.

use reviewhost_tool::{Ctx, Io};

use crate::builtins::expand_escapes;

/// Exit status of `printf` called without a format.
const PRINTF_USAGE: i32 = 2;
/// Largest field width or precision honoured: keeps `%999999999s` from exhausting memory.
const MAX_FIELD_WIDTH: usize = 1 << 20;

/// One conversion of a printf format: flags, width, precision, conversion character.
struct Spec {
    flags: String,
    width: Option<usize>,
    precision: Option<usize>,
    conv: u8,
}

/// `printf FORMAT [ARG...]` like the bash builtin: the format is reused while arguments
/// remain, missing arguments read as empty or zero.
pub fn printf(args: &[String], _ctx: &Ctx, io: &mut Io) -> i32 {
    let mut args = args;
    if args.first().is_some_and(|a| a == "--") {
        args = &args[1..];
    }
    let Some((format, rest)) = args.split_first() else {
        io.stderr.extend_from_slice(b"printf: usage: printf [-v var] format [arguments]\n");
        return PRINTF_USAGE;
    };
    if format.starts_with('-') && format.len() > 1 {
        let c = format[1..].chars().next().unwrap_or('-');
        io.stderr.extend_from_slice(
            format!("printf: -{c}: invalid option\nprintf: usage: printf [-v var] format [arguments]\n").as_bytes(),
        );
        return PRINTF_USAGE;
    }
    let mut state = PrintfState { args: rest, next: 0, status: 0 };
    loop {
        let before = state.next;
        if run_format(format.as_bytes(), &mut state, io) {
            break;
        }
        if state.next >= rest.len() || state.next == before {
            break;
        }
    }
    state.status
}

struct PrintfState<'a> {
    args: &'a [String],
    next: usize,
    status: i32,
}

impl PrintfState<'_> {
    fn take(&mut self) -> Option<&str> {
        let a = self.args.get(self.next)?;
        self.next += 1;
        Some(a.as_str())
    }
}

/// Run the format once. Returns true when `%b`'s `\c` stopped all output.
fn run_format(fmt: &[u8], st: &mut PrintfState, io: &mut Io) -> bool {
    let mut i = 0;
    while i < fmt.len() {
        let b = fmt[i];
        if b == b'\\' {
            // Find the extent of one escape and expand it.
            let start = i;
            i += 1;
            if i < fmt.len() {
                let e = fmt[i];
                i += 1;
                let max_extra = match e {
                    b'0'..=b'7' => 2,
                    b'x' => 2,
                    b'u' => 4,
                    b'U' => 8,
                    _ => 0,
                };
                let mut k = 0;
                while k < max_extra && i < fmt.len() {
                    let ok = match e {
                        b'0'..=b'7' => (b'0'..=b'7').contains(&fmt[i]),
                        _ => fmt[i].is_ascii_hexdigit(),
                    };
                    if !ok {
                        break;
                    }
                    i += 1;
                    k += 1;
                }
            }
            expand_escapes(&fmt[start..i], io.stdout, false);
            continue;
        }
        if b != b'%' {
            io.stdout.push(b);
            i += 1;
            continue;
        }
        i += 1;
        if i >= fmt.len() {
            // bash: a lone `%` at the end is an error, and nothing is printed for it.
            io.stderr.extend_from_slice(b"printf: missing format character\n");
            st.status = 1;
            return true;
        }
        if fmt[i] == b'%' {
            io.stdout.push(b'%');
            i += 1;
            continue;
        }
        let mut spec = Spec { flags: String::new(), width: None, precision: None, conv: 0 };
        while i < fmt.len() && b"-+ #0".contains(&fmt[i]) {
            spec.flags.push(fmt[i] as char);
            i += 1;
        }
        if i < fmt.len() && fmt[i] == b'*' {
            i += 1;
            let w = st.take().map(|a| parse_int_prefix(a).unwrap_or_else(|v| v)).unwrap_or(0);
            if w < 0 {
                spec.flags.push('-');
            }
            spec.width = Some((w.unsigned_abs() as usize).min(MAX_FIELD_WIDTH));
        } else {
            let (w, j) = read_num(fmt, i);
            spec.width = w;
            i = j;
        }
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            if i < fmt.len() && fmt[i] == b'*' {
                i += 1;
                let p = st.take().map(|a| parse_int_prefix(a).unwrap_or_else(|v| v)).unwrap_or(0);
                spec.precision = if p < 0 { None } else { Some((p as usize).min(MAX_FIELD_WIDTH)) };
            } else {
                let (p, j) = read_num(fmt, i);
                spec.precision = Some(p.unwrap_or(0));
                i = j;
            }
        }
        // Length modifiers are accepted and ignored.
        while i < fmt.len() && b"hlLjzt".contains(&fmt[i]) {
            i += 1;
        }
        if i >= fmt.len() {
            io.stderr.extend_from_slice(b"printf: missing format character\n");
            st.status = 1;
            return true;
        }
        spec.conv = fmt[i];
        i += 1;
        if convert(&spec, st, io) {
            return true;
        }
    }
    false
}

fn read_num(fmt: &[u8], mut i: usize) -> (Option<usize>, usize) {
    let start = i;
    let mut v: usize = 0;
    while i < fmt.len() && fmt[i].is_ascii_digit() {
        v = v.saturating_mul(10).saturating_add(usize::from(fmt[i] - b'0'));
        i += 1;
    }
    if i == start { (None, i) } else { (Some(v.min(MAX_FIELD_WIDTH)), i) }
}

/// Parse a numeric printf argument like bash: leading blanks, sign, `0x`, leading `0`
/// octal, `'c` for a character code.
/// `Ok(value)` or `Err(value of the valid prefix)` when anything follows the number,
/// trailing blanks too (bash's `strtoimax` check: `' -123 '` prints -123, warns, and
/// sets status 1), or when there is no number at all (`' '`; an empty argument is 0).
fn parse_int_prefix(a: &str) -> Result<i64, i64> {
    let t = a.trim_start_matches([' ', '\t', '\n']);
    if let Some(rest) = t.strip_prefix(['\'', '"']) {
        return Ok(rest.chars().next().map_or(0, |c| i64::from(u32::from(c))));
    }
    if a.is_empty() {
        return Ok(0);
    }
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, digits) = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        (16, h)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    let mut v: i64 = 0;
    let mut used = 0;
    for c in digits.chars() {
        match c.to_digit(radix) {
            Some(d) => {
                v = v.saturating_mul(i64::from(radix)).saturating_add(i64::from(d));
                used += 1;
            }
            None => break,
        }
    }
    let v = if neg { -v } else { v };
    if (used == 0 && radix != 8) || used < digits.len() {
        return Err(v);
    }
    Ok(v)
}

/// bash's warning for a number argument [`parse_int_prefix`] rejected: it names the
/// base the argument was read in (`0x1g: invalid hex number`).
fn invalid_number(a: &str) -> String {
    let body = a.trim_start_matches([' ', '\t', '\n']).trim_start_matches(['-', '+']);
    let base = if body.starts_with("0x") || body.starts_with("0X") {
        "hex "
    } else if body.len() > 1 && body.starts_with('0') && !body.starts_with("0.") {
        "octal "
    } else {
        ""
    };
    format!("printf: {a}: invalid {base}number\n")
}

/// A floating-point argument like bash's `strtold`: leading blanks, then the longest
/// prefix that is a number (`1.5x` is 1.5). `Err` holds that prefix's value when
/// anything follows it (trailing blanks too) or nothing is a number.
fn parse_float_prefix(a: &str) -> Result<f64, f64> {
    let t = a.trim_start_matches([' ', '\t', '\n']);
    if t.starts_with(['\'', '"']) || t.starts_with("0x") || t.starts_with("0X") {
        return parse_int_prefix(a).map(|v| v as f64).map_err(|v| v as f64);
    }
    if a.is_empty() {
        return Ok(0.0);
    }
    // Rust reads `1.`, `.5`, `1e5`, `inf` and `nan` as strtold does.
    let prefix =
        (1..=t.len()).rev().filter(|&n| t.is_char_boundary(n)).find_map(|n| t[..n].parse::<f64>().ok().map(|v| (n, v)));
    match prefix {
        Some((n, v)) if n == t.len() => Ok(v),
        Some((_, v)) => Err(v),
        None => Err(0.0),
    }
}

/// Format one conversion. Returns true when `%b` hit `\c`.
fn convert(spec: &Spec, st: &mut PrintfState, io: &mut Io) -> bool {
    let left = spec.flags.contains('-');
    let zero = spec.flags.contains('0') && !left;
    let pad = |body: Vec<u8>, numeric: bool, out: &mut Vec<u8>| {
        let width = spec.width.unwrap_or(0);
        let len = String::from_utf8_lossy(&body).chars().count();
        if len >= width {
            out.extend_from_slice(&body);
        } else if left {
            out.extend_from_slice(&body);
            out.extend(std::iter::repeat_n(b' ', width - len));
        } else if zero && numeric {
            let sign_len = usize::from(matches!(body.first(), Some(b'-' | b'+' | b' ')));
            let prefix_len = if body[sign_len..].starts_with(b"0x") || body[sign_len..].starts_with(b"0X") {
                sign_len + 2
            } else {
                sign_len
            };
            out.extend_from_slice(&body[..prefix_len]);
            out.extend(std::iter::repeat_n(b'0', width - len));
            out.extend_from_slice(&body[prefix_len..]);
        } else {
            out.extend(std::iter::repeat_n(b' ', width - len));
            out.extend_from_slice(&body);
        }
    };
    match spec.conv {
        b's' => {
            let a = st.take().unwrap_or("");
            let mut body: Vec<u8> = a.as_bytes().to_vec();
            if let Some(p) = spec.precision {
                body.truncate(p);
            }
            pad(body, false, io.stdout);
        }
        b'b' => {
            let a = st.take().unwrap_or("");
            let mut body = Vec::new();
            let stop = expand_escapes(a.as_bytes(), &mut body, true);
            if let Some(p) = spec.precision {
                body.truncate(p);
            }
            pad(body, false, io.stdout);
            if stop {
                return true;
            }
        }
        b'q' => {
            let a = st.take().unwrap_or("");
            let mut body = shell_quoted(a).into_bytes();
            if let Some(p) = spec.precision {
                body.truncate(p);
            }
            pad(body, false, io.stdout);
        }
        b'c' => {
            let a = st.take().unwrap_or("");
            let body = a.as_bytes().first().map(|b| vec![*b]).unwrap_or_default();
            pad(body, false, io.stdout);
        }
        b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
            let a = st.take().unwrap_or("0").to_string();
            let v = match parse_int_prefix(&a) {
                Ok(v) => v,
                Err(v) => {
                    io.stderr.extend_from_slice(invalid_number(&a).as_bytes());
                    st.status = 1;
                    v
                }
            };
            let mut digits = match spec.conv {
                b'd' | b'i' => v.unsigned_abs().to_string(),
                b'u' => (v as u64).to_string(),
                b'x' => format!("{:x}", v as u64),
                b'X' => format!("{:X}", v as u64),
                _ => format!("{:o}", v as u64),
            };
            if let Some(p) = spec.precision {
                if p == 0 && v == 0 {
                    digits.clear();
                }
                while digits.len() < p {
                    digits.insert(0, '0');
                }
            }
            let signed = matches!(spec.conv, b'd' | b'i');
            let mut body = String::new();
            if signed && v < 0 {
                body.push('-');
            } else if signed && spec.flags.contains('+') {
                body.push('+');
            } else if signed && spec.flags.contains(' ') {
                body.push(' ');
            }
            if spec.flags.contains('#') && v != 0 {
                match spec.conv {
                    b'x' => body.push_str("0x"),
                    b'X' => body.push_str("0X"),
                    b'o' if !digits.starts_with('0') => body.push('0'),
                    _ => {}
                }
            }
            body.push_str(&digits);
            let numeric_zero = spec.precision.is_none();
            pad(body.into_bytes(), numeric_zero, io.stdout);
        }
        b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => {
            let a = st.take().unwrap_or("0").to_string();
            let v = match parse_float_prefix(&a) {
                Ok(v) => v,
                Err(v) => {
                    io.stderr.extend_from_slice(invalid_number(&a).as_bytes());
                    st.status = 1;
                    v
                }
            };
            let p = spec.precision.unwrap_or(6);
            let mut body = match spec.conv {
                b'f' | b'F' => format!("{v:.p$}"),
                b'e' | b'E' => c_exp(v, p),
                _ => c_general(v, p, spec.flags.contains('#')),
            };
            // `#`: the point stays even with no digits after it (`%#.0f` of 3 is `3.`).
            if spec.flags.contains('#') && p == 0 && v.is_finite() && matches!(spec.conv, b'f' | b'F' | b'e' | b'E') {
                let at = body.find(['e', 'E']).unwrap_or(body.len());
                body.insert(at, '.');
            }
            if spec.conv.is_ascii_uppercase() {
                body = body.to_uppercase();
            }
            if v >= 0.0 && spec.flags.contains('+') {
                body.insert(0, '+');
            } else if v >= 0.0 && spec.flags.contains(' ') {
                body.insert(0, ' ');
            }
            pad(body.into_bytes(), true, io.stdout);
        }
        other => {
            io.stderr.extend_from_slice(format!("printf: `{}': invalid format character\n", other as char).as_bytes());
            st.status = 1;
            return true;
        }
    }
    false
}

/// C's `%.*e`: mantissa with `p` decimals and an exponent of at least two digits.
fn c_exp(v: f64, p: usize) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let s = format!("{v:.p$e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            format!("{m}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

/// C's `%.*g`: the shorter of `%e` and `%f` with `p` significant digits, trailing zeros
/// removed unless `#`.
fn c_general(v: f64, p: usize, keep_zeros: bool) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let p = p.max(1);
    let exp = if v == 0.0 { 0 } else { v.abs().log10().floor() as i64 };
    // Rounding can bump the exponent: check with the %e rendering.
    let e_form = c_exp(v, p - 1);
    let exp = e_form.split_once('e').and_then(|(_, e)| e.parse::<i64>().ok()).unwrap_or(exp);
    let strip = |s: String| -> String {
        if keep_zeros || !s.contains('.') {
            return s;
        }
        let (m, e) = match s.find('e') {
            Some(k) => (s[..k].to_string(), s[k..].to_string()),
            None => (s.clone(), String::new()),
        };
        let m = m.trim_end_matches('0').trim_end_matches('.').to_string();
        m + &e
    };
    if exp < -4 || exp >= p as i64 {
        strip(e_form)
    } else {
        let decimals = (p as i64 - 1 - exp).max(0) as usize;
        strip(format!("{v:.decimals$}"))
    }
}

/// `%q`: `text` quoted for bash to read back, as bash's printf quotes it: `''` when
/// empty; `$'…'` when it holds a character that is not printable (a control character);
/// else each character special to the shell behind a backslash (`#` and `~` only at
/// the start).
fn shell_quoted(text: &str) -> String {
    if text.is_empty() {
        return "''".into();
    }
    if text.chars().any(char::is_control) {
        let mut out = String::from("$'");
        for c in text.chars() {
            match c {
                '\u{7}' => out.push_str("\\a"),
                '\u{8}' => out.push_str("\\b"),
                '\u{1b}' => out.push_str("\\E"),
                '\u{c}' => out.push_str("\\f"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{b}' => out.push_str("\\v"),
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                c if c.is_control() => {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("\\{b:03o}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('\'');
        return out;
    }
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        let special = matches!(
            c,
            ' ' | '\''
                | '"'
                | '\\'
                | '|'
                | '&'
                | ';'
                | '('
                | ')'
                | '<'
                | '>'
                | '!'
                | '{'
                | '}'
                | '*'
                | '['
                | '?'
                | ']'
                | '^'
                | '$'
                | '`'
                | ','
        ) || (i == 0 && matches!(c, '#' | '~'));
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
