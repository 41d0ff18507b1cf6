//! The bash builtins that checks use as plain programs: `true`, `false`, `echo`, `printf`,
//! `test` and `[`, with bash 5.2's behaviour (not /usr/bin's: `echo` interprets no escapes
//! unless `-e`, `printf` reuses its format and accepts `'c` character arguments).
//!
//! Left out: `printf -v VAR` (no variables here), `%q`, the floating-point conversions'
//! `%a`, `test -t` (never a terminal: always false), `-O`/`-G`/`-N`/`-nt`/`-ot` beyond
//! plain metadata, and bash's `test -v` (variables). Error messages say `printf:` where
//! bash says `bash: line 1: printf:`.

use reviewhost_tool::{Ctx, Io};

/// Exit status of a `test` syntax error, as in bash.
const TEST_SYNTAX: i32 = 2;
/// Exit status of `printf` called without a format.
const PRINTF_USAGE: i32 = 2;
/// Largest field width or precision honoured: keeps `%999999999s` from exhausting memory.
const MAX_FIELD_WIDTH: usize = 1 << 20;

/// `true`: succeed, ignoring arguments.
pub fn r#true(_args: &[String], _ctx: &Ctx, _io: &mut Io) -> i32 {
    0
}

/// `false`: fail, ignoring arguments.
pub fn r#false(_args: &[String], _ctx: &Ctx, _io: &mut Io) -> i32 {
    1
}

/// `echo [-neE] ARG...` like the bash builtin: options only while every argument is a
/// cluster of `n`, `e`, `E`; escapes only with `-e`.
pub fn echo(args: &[String], _ctx: &Ctx, io: &mut Io) -> i32 {
    let mut newline = true;
    let mut escapes = false;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a.len() < 2 || !a.starts_with('-') || !a[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E')) {
            break;
        }
        for c in a[1..].chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        i += 1;
    }
    for (k, a) in args[i..].iter().enumerate() {
        if k > 0 {
            io.stdout.push(b' ');
        }
        if escapes {
            if expand_escapes(a.as_bytes(), io.stdout, true) {
                return 0;
            }
        } else {
            io.stdout.extend_from_slice(a.as_bytes());
        }
    }
    if newline {
        io.stdout.push(b'\n');
    }
    0
}

/// Expand backslash escapes (`echo -e` and `printf %b` when `echo_style`; the printf
/// format otherwise). Returns true when `\c` asked to stop all output.
fn expand_escapes(s: &[u8], out: &mut Vec<u8>, echo_style: bool) -> bool {
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        i += 1;
        if b != b'\\' || i >= s.len() {
            out.push(b);
            continue;
        }
        let e = s[i];
        i += 1;
        match e {
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'e' | b'E' => out.push(0x1b),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'\\' => out.push(b'\\'),
            b'"' if !echo_style => out.push(b'"'),
            b'\'' if !echo_style => out.push(b'\''),
            b'?' if !echo_style => out.push(b'?'),
            b'c' if echo_style => return true,
            b'0'..=b'7' => {
                // echo/%b: `\0NNN` (up to three digits after the 0); format: `\NNN`.
                let (start, max) = if echo_style && e == b'0' { (i, 3) } else { (i - 1, 3) };
                if echo_style && e != b'0' {
                    // `\1` in echo -e is not an escape.
                    out.push(b'\\');
                    out.push(e);
                    continue;
                }
                let mut v: u32 = 0;
                let mut j = start;
                while j < s.len() && j - start < max && (b'0'..=b'7').contains(&s[j]) {
                    v = v * 8 + u32::from(s[j] - b'0');
                    j += 1;
                }
                out.push((v & 0xff) as u8);
                i = j;
            }
            b'x' => {
                let mut v: u32 = 0;
                let mut j = i;
                while j < s.len() && j - i < 2 && s[j].is_ascii_hexdigit() {
                    v = v * 16 + hex_val(s[j]);
                    j += 1;
                }
                if j == i {
                    out.extend_from_slice(b"\\x");
                } else {
                    out.push(v as u8);
                    i = j;
                }
            }
            b'u' | b'U' => {
                let max = if e == b'u' { 4 } else { 8 };
                let mut v: u32 = 0;
                let mut j = i;
                while j < s.len() && j - i < max && s[j].is_ascii_hexdigit() {
                    v = v.saturating_mul(16).saturating_add(hex_val(s[j]));
                    j += 1;
                }
                if j == i {
                    out.push(b'\\');
                    out.push(e);
                } else {
                    let c = char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER);
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    i = j;
                }
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    false
}

fn hex_val(b: u8) -> u32 {
    (b as char).to_digit(16).unwrap_or(0)
}

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
            io.stdout.push(b'%');
            break;
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
        while i < fmt.len() && b"hlLqjzt".contains(&fmt[i]) {
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
/// `Ok(value)` or `Err(value of the valid prefix)` when there is trailing garbage.
fn parse_int_prefix(a: &str) -> Result<i64, i64> {
    let t = a.trim_start_matches([' ', '\t', '\n']);
    if let Some(rest) = t.strip_prefix(['\'', '"']) {
        return Ok(rest.chars().next().map_or(0, |c| i64::from(u32::from(c))));
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
    let rest = &digits[used..];
    if (used == 0 && radix == 10) || !rest.trim_end_matches([' ', '\t', '\n']).is_empty() {
        if used == 0 && radix == 10 && rest.is_empty() && t.is_empty() {
            return Ok(0);
        }
        return Err(v);
    }
    Ok(v)
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
                    io.stderr.extend_from_slice(format!("printf: {a}: invalid number\n").as_bytes());
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
            let v: f64 = match a.trim().parse() {
                Ok(v) => v,
                Err(_) => match parse_int_prefix(&a) {
                    Ok(v) => v as f64,
                    Err(v) => {
                        io.stderr.extend_from_slice(format!("printf: {a}: invalid number\n").as_bytes());
                        st.status = 1;
                        v as f64
                    }
                },
            };
            let p = spec.precision.unwrap_or(6);
            let mut body = match spec.conv {
                b'f' | b'F' => format!("{v:.p$}"),
                b'e' | b'E' => c_exp(v, p),
                _ => c_general(v, p, spec.flags.contains('#')),
            };
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

/// `test EXPR`.
pub fn test(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    run_test("test", args, ctx, io)
}

/// `[ EXPR ]`: `test` that insists on the closing bracket.
pub fn bracket(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    match args.split_last() {
        Some((last, rest)) if last == "]" => run_test("[", rest, ctx, io),
        _ => {
            io.stderr.extend_from_slice(b"[: missing `]'\n");
            TEST_SYNTAX
        }
    }
}

fn run_test(name: &str, args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let t = Test { args: &args, ctx };
    match t.eval_top() {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(msg) => {
            io.stderr.extend_from_slice(format!("{name}: {msg}\n").as_bytes());
            TEST_SYNTAX
        }
    }
}

const UNARY_OPS: &[&str] = &[
    "-e", "-f", "-d", "-s", "-r", "-w", "-x", "-L", "-h", "-z", "-n", "-p", "-S", "-b", "-c", "-t", "-g", "-u", "-k",
    "-O", "-G", "-N", "-a",
];
const BINARY_OPS: &[&str] =
    &["=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef", "-a", "-o"];

struct Test<'a> {
    args: &'a [&'a str],
    ctx: &'a Ctx,
}

impl Test<'_> {
    /// POSIX's rules by argument count (what bash does for up to four arguments), then the
    /// general grammar.
    fn eval_top(&self) -> Result<bool, String> {
        let a = self.args;
        match a.len() {
            0 => Ok(false),
            1 => Ok(!a[0].is_empty()),
            2 => self.two(a[0], a[1]),
            3 => self.three(a),
            4 if a[0] == "!" => self.three(&a[1..]).map(|r| !r),
            4 if a[0] == "(" && a[3] == ")" => self.two(a[1], a[2]),
            _ => self.general(),
        }
    }

    fn two(&self, a: &str, b: &str) -> Result<bool, String> {
        if a == "!" {
            return Ok(b.is_empty());
        }
        if is_unary(a) {
            return self.unary(a, b);
        }
        Err(format!("{a}: unary operator expected"))
    }

    fn three(&self, a: &[&str]) -> Result<bool, String> {
        if is_binary(a[1]) {
            return self.binary(a[0], a[1], a[2]);
        }
        if a[0] == "!" {
            return self.two(a[1], a[2]).map(|r| !r);
        }
        if a[0] == "(" && a[2] == ")" {
            return Ok(!a[1].is_empty());
        }
        Err(format!("{}: binary operator expected", a[1]))
    }

    fn general(&self) -> Result<bool, String> {
        let mut pos = 0;
        let v = self.or(&mut pos)?;
        if pos < self.args.len() {
            return Err("too many arguments".into());
        }
        Ok(v)
    }

    fn or(&self, pos: &mut usize) -> Result<bool, String> {
        let mut v = self.and(pos)?;
        while *pos < self.args.len() && self.args[*pos] == "-o" {
            *pos += 1;
            let r = self.and(pos)?;
            v = v || r;
        }
        Ok(v)
    }

    fn and(&self, pos: &mut usize) -> Result<bool, String> {
        let mut v = self.not(pos)?;
        while *pos < self.args.len() && self.args[*pos] == "-a" {
            *pos += 1;
            let r = self.not(pos)?;
            v = v && r;
        }
        Ok(v)
    }

    fn not(&self, pos: &mut usize) -> Result<bool, String> {
        if *pos < self.args.len() && self.args[*pos] == "!" && *pos + 1 < self.args.len() {
            *pos += 1;
            return self.not(pos).map(|v| !v);
        }
        self.primary(pos)
    }

    fn primary(&self, pos: &mut usize) -> Result<bool, String> {
        let a = self.args;
        let Some(&cur) = a.get(*pos) else {
            return Err("argument expected".into());
        };
        if cur == "(" {
            *pos += 1;
            let v = self.or(pos)?;
            if a.get(*pos) != Some(&")") {
                return Err("`)' expected".into());
            }
            *pos += 1;
            return Ok(v);
        }
        if *pos + 2 < a.len() && is_binary(a[*pos + 1]) {
            let op = a[*pos + 1];
            if op != "-a" && op != "-o" {
                let v = self.binary(cur, op, a[*pos + 2])?;
                *pos += 3;
                return Ok(v);
            }
        }
        if is_unary(cur) && cur != "-a" && *pos + 1 < a.len() {
            let v = self.unary(cur, a[*pos + 1])?;
            *pos += 2;
            return Ok(v);
        }
        *pos += 1;
        Ok(!cur.is_empty())
    }

    fn unary(&self, op: &str, arg: &str) -> Result<bool, String> {
        match op {
            "-z" => return Ok(arg.is_empty()),
            "-n" => return Ok(!arg.is_empty()),
            "-t" => return Ok(false),
            _ => {}
        }
        let real = self.ctx.real(arg);
        if arg.is_empty() {
            return Ok(false);
        }
        if op == "-L" || op == "-h" {
            return Ok(std::fs::symlink_metadata(&real).is_ok_and(|m| m.file_type().is_symlink()));
        }
        let Ok(meta) = std::fs::metadata(&real) else {
            return Ok(false);
        };
        Ok(match op {
            "-e" | "-a" => true,
            "-f" => meta.is_file(),
            "-d" => meta.is_dir(),
            "-s" => meta.len() > 0,
            "-r" => mode_allows(&meta, 0o444, false),
            "-w" => mode_allows(&meta, 0o222, false),
            "-x" => mode_allows(&meta, 0o111, true),
            "-p" | "-S" | "-b" | "-c" => special_matches(&meta, op),
            "-u" => mode_bits(&meta) & 0o4000 != 0,
            "-g" => mode_bits(&meta) & 0o2000 != 0,
            "-k" => mode_bits(&meta) & 0o1000 != 0,
            _ => true,
        })
    }

    fn binary(&self, l: &str, op: &str, r: &str) -> Result<bool, String> {
        Ok(match op {
            "=" | "==" => l == r,
            "!=" => l != r,
            "<" => l.as_bytes() < r.as_bytes(),
            ">" => l.as_bytes() > r.as_bytes(),
            "-a" => !l.is_empty() && !r.is_empty(),
            "-o" => !l.is_empty() || !r.is_empty(),
            "-nt" | "-ot" => {
                let m = |p: &str| std::fs::metadata(self.ctx.real(p)).and_then(|m| m.modified()).ok();
                match (m(l), m(r), op) {
                    (Some(a), Some(b), "-nt") => a > b,
                    (Some(a), Some(b), _) => a < b,
                    (Some(_), None, "-nt") | (None, Some(_), "-ot") => true,
                    _ => false,
                }
            }
            "-ef" => {
                let c = |p: &str| std::fs::canonicalize(self.ctx.real(p)).ok();
                matches!((c(l), c(r)), (Some(a), Some(b)) if a == b)
            }
            _ => {
                let a = test_int(l)?;
                let b = test_int(r)?;
                match op {
                    "-eq" => a == b,
                    "-ne" => a != b,
                    "-lt" => a < b,
                    "-le" => a <= b,
                    "-gt" => a > b,
                    _ => a >= b,
                }
            }
        })
    }
}

fn is_unary(s: &str) -> bool {
    UNARY_OPS.contains(&s)
}

fn is_binary(s: &str) -> bool {
    BINARY_OPS.contains(&s)
}

/// An integer operand of `-eq` and friends: blanks around, optional sign, decimal digits.
fn test_int(s: &str) -> Result<i64, String> {
    let t = s.trim_matches([' ', '\t', '\n']);
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{s}: integer expression expected"));
    }
    t.parse::<i64>().map_err(|_| format!("{s}: integer expression expected"))
}

#[cfg(unix)]
fn mode_bits(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode()
}

#[cfg(not(unix))]
fn mode_bits(meta: &std::fs::Metadata) -> u32 {
    if meta.permissions().readonly() { 0o555 } else { 0o755 }
}

#[cfg(unix)]
fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    // The effective user is not available without libc; the owner of `/proc/self` is it.
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

#[cfg(not(unix))]
fn is_root() -> bool {
    false
}

/// Permission by metadata: any of the `mask` bits set (root reads anything and executes
/// anything with an x bit or a directory, as access(2) answers for root).
fn mode_allows(meta: &std::fs::Metadata, mask: u32, exec: bool) -> bool {
    let mode = mode_bits(meta);
    if is_root() {
        return !exec || meta.is_dir() || mode & 0o111 != 0;
    }
    mode & mask != 0
}

fn special_matches(meta: &std::fs::Metadata, op: &str) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let ft = meta.file_type();
        match op {
            "-p" => ft.is_fifo(),
            "-S" => ft.is_socket(),
            "-b" => ft.is_block_device(),
            _ => ft.is_char_device(),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (meta, op);
        false
    }
}
