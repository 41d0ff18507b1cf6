//! `printf` and `sprintf` formats, and number-to-string conversion through CONVFMT and
//! OFMT: C's conversions (`d i o x X u c s e E f F g G %`) with the flags `- + space # 0`,
//! a width and a precision, either of which may be `*`.
//!
//! A conversion with no argument left is an error, as in gawk. An unknown conversion
//! character is printed as it stands.

use crate::text;
use crate::value::Value;

/// One conversion's flags, width and precision.
#[derive(Debug, Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

/// Largest width or precision honoured: a format asking for more would only make a
/// check allocate gigabytes.
pub const MAX_WIDTH: usize = 1 << 16;

/// `n` through the one-conversion format `fmt` (CONVFMT or OFMT).
pub fn format_number(fmt: &[u8], n: f64) -> Vec<u8> {
    sprintf(fmt, &[Value::Num(n)], fmt)
        .unwrap_or_else(|_| float(n, b'g', &Spec { precision: Some(6), ..Spec::default() }))
}

/// `sprintf(fmt, args...)`; `convfmt` converts numbers given to `%s`.
pub fn sprintf(fmt: &[u8], all_args: &[Value], convfmt: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut args = all_args.iter();
    // Whether the conversions use gawk's positional `%N$` (all of them must, or none).
    let mut positional: Option<bool> = None;
    const MIXED: &str = "must use `count$' on all formats or none";
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let start = i - 1;
        let mut spec = Spec::default();
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        let (n, len) = digits(&fmt[i..]);
        let mut chosen: Option<&Value> = None;
        let is_positional = len > 0 && fmt.get(i + len) == Some(&b'$');
        let percent = fmt[i..].iter().find(|b| b.is_ascii_alphabetic() || **b == b'%') == Some(&b'%');
        if !percent && *positional.get_or_insert(is_positional) != is_positional {
            return Err(MIXED.into());
        }
        if is_positional {
            i += len + 1;
            if n == 0 || n > all_args.len() {
                return Err(format!("argument index {n} greater than total number of supplied arguments"));
            }
            chosen = Some(&all_args[n - 1]);
        }
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if chosen.is_some() && fmt[i..].iter().take_while(|b| !b.is_ascii_alphabetic()).any(|b| *b == b'*') {
            return Err(MIXED.into());
        }
        let mut next_arg = |what: &str| {
            if let Some(v) = chosen {
                return Ok(v.clone());
            }
            args.next().cloned().ok_or_else(|| {
                format!("not enough arguments to satisfy format string `{}' ({what})", String::from_utf8_lossy(fmt))
            })
        };
        if fmt.get(i) == Some(&b'*') {
            i += 1;
            let w = next_arg("*")?.num();
            if w < 0.0 {
                spec.left = true;
            }
            spec.width = (w.abs() as usize).min(MAX_WIDTH);
        } else {
            let (n, len) = digits(&fmt[i..]);
            spec.width = n.min(MAX_WIDTH);
            i += len;
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                let p = next_arg("*")?.num();
                spec.precision = (p >= 0.0).then_some((p as usize).min(MAX_WIDTH));
            } else {
                let (n, len) = digits(&fmt[i..]);
                spec.precision = Some(n.min(MAX_WIDTH));
                i += len;
            }
        }
        // C's length modifiers mean nothing in awk; gawk skips them.
        while matches!(fmt.get(i), Some(b'h' | b'l' | b'L' | b'q' | b'j' | b'z' | b't')) {
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        match conv {
            b'%' => out.push(b'%'),
            b'd' | b'i' | b'o' | b'x' | b'X' | b'u' | b'e' | b'E' | b'f' | b'F' | b'g' | b'G' => {
                let v = next_arg("a number")?.num();
                if !v.is_finite() {
                    // gawk prints these signed and unpadded, whatever the conversion.
                    out.extend_from_slice(&crate::value::num_to_str(v, b""));
                    continue;
                }
                let (body, integer_like) = match conv {
                    b'd' | b'i' => (integer(v, &spec), true),
                    b'o' | b'x' | b'X' | b'u' => (unsigned(v, conv, &spec), true),
                    _ => (float(v, conv, &spec), false),
                };
                pad_number(&mut out, &spec, body, integer_like);
            }
            b'c' => {
                let v = next_arg("%c")?;
                let s = match &v {
                    Value::Num(n) | Value::StrNum(_, n) => text::char_of_code(*n),
                    // An uninitialised value is the number 0: a NUL byte.
                    Value::Uninit => vec![0],
                    // gawk prints a NUL byte for the empty string too.
                    Value::Str(s) if s.is_empty() => vec![0],
                    Value::Str(s) => text::first_char(s).to_vec(),
                };
                pad_text(&mut out, &spec, &s);
            }
            b's' => {
                let v = next_arg("%s")?;
                let s = v.bytes(convfmt);
                let s = match spec.precision {
                    Some(p) => text::prefix_chars(&s, p),
                    None => &s[..],
                };
                pad_text(&mut out, &spec, s);
            }
            _ => out.extend_from_slice(&fmt[start..i]),
        }
    }
    Ok(out)
}

fn digits(s: &[u8]) -> (usize, usize) {
    let len = s.iter().take_while(|b| b.is_ascii_digit()).count();
    if len == 0 {
        return (0, 0);
    }
    let n = std::str::from_utf8(&s[..len]).ok().and_then(|t| t.parse().ok()).unwrap_or(usize::MAX);
    (n, len)
}

/// `text` padded to the width with spaces (width counts characters).
fn pad_text(out: &mut Vec<u8>, spec: &Spec, s: &[u8]) {
    let fill = spec.width.saturating_sub(text::char_len(s));
    if !spec.left {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
    out.extend_from_slice(s);
    if spec.left {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
}

/// A number (sign or prefix first) padded to the width: zeros go after the sign.
/// `no_zero`: zero padding does not apply (an integer with a precision, inf, nan).
fn pad_number(out: &mut Vec<u8>, spec: &Spec, body: Vec<u8>, integer_like: bool) {
    let zero_ok = spec.zero && !spec.left && !(integer_like && spec.precision.is_some());
    let fill = spec.width.saturating_sub(body.len());
    if fill == 0 {
        out.extend_from_slice(&body);
    } else if spec.left {
        out.extend_from_slice(&body);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if zero_ok && body.last().is_some_and(u8::is_ascii_alphanumeric) && !is_special(&body) {
        let prefix = sign_prefix_len(&body);
        out.extend_from_slice(&body[..prefix]);
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(&body[prefix..]);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(&body);
    }
}

fn is_special(body: &[u8]) -> bool {
    body.ends_with(b"inf") || body.ends_with(b"nan") || body.ends_with(b"INF") || body.ends_with(b"NAN")
}

fn sign_prefix_len(body: &[u8]) -> usize {
    let mut i = usize::from(matches!(body.first(), Some(b'-' | b'+' | b' ')));
    if body[i..].starts_with(b"0x") || body[i..].starts_with(b"0X") {
        i += 2;
    }
    i
}

fn sign(negative: bool, spec: &Spec) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

fn integer(v: f64, spec: &Spec) -> Vec<u8> {
    if !v.is_finite() {
        return float(v, b'f', spec);
    }
    let t = v.trunc();
    let mut digits = if t.abs() < 9.2e18 { (t.abs() as i64).to_string() } else { format!("{:.0}", t.abs()) };
    if let Some(p) = spec.precision {
        if p == 0 && t == 0.0 {
            digits.clear();
        }
        while digits.len() < p {
            digits.insert(0, '0');
        }
    }
    format!("{}{digits}", sign(t < 0.0, spec)).into_bytes()
}

fn unsigned(v: f64, conv: u8, spec: &Spec) -> Vec<u8> {
    if !v.is_finite() {
        return float(v, b'f', spec);
    }
    let t = v.trunc();
    let n = if t < 0.0 { (t as i64) as u64 } else { t as u64 };
    let mut digits = match conv {
        b'o' => format!("{n:o}"),
        b'x' => format!("{n:x}"),
        b'X' => format!("{n:X}"),
        _ => n.to_string(),
    };
    if let Some(p) = spec.precision {
        if p == 0 && n == 0 {
            digits.clear();
        }
        while digits.len() < p {
            digits.insert(0, '0');
        }
    }
    // gawk prefixes `0` to any octal of a value that is not exactly zero, even when the
    // precision already put zeros in front (`%#.3o` of 8 is `0010`, of 0.1 is `00`).
    if spec.alt && conv == b'o' && v != 0.0 {
        digits.insert(0, '0');
    }
    if spec.alt && n != 0 {
        match conv {
            b'x' => digits.insert_str(0, "0x"),
            b'X' => digits.insert_str(0, "0X"),
            _ => {}
        }
    }
    digits.into_bytes()
}

/// `%e %f %g` (and upper case) of `v`, with its sign.
fn float(v: f64, conv: u8, spec: &Spec) -> Vec<u8> {
    let upper = conv.is_ascii_uppercase();
    let negative = v.is_sign_negative();
    let body = if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        "inf".to_string()
    } else {
        let precision = spec.precision.unwrap_or(6);
        let a = v.abs();
        match conv.to_ascii_lowercase() {
            b'f' => {
                let mut s = format!("{a:.precision$}");
                if spec.alt && precision == 0 {
                    s.push('.');
                }
                s
            }
            b'e' => exponential(a, precision, spec.alt),
            _ => general(a, precision, spec.alt),
        }
    };
    let body = if upper { body.to_ascii_uppercase() } else { body };
    format!("{}{body}", sign(negative, spec)).into_bytes()
}

/// C's `%.Ne` of a non-negative number: `1.500000e+03`.
fn exponential(a: f64, precision: usize, alt: bool) -> String {
    let s = format!("{a:.precision$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut mantissa = mantissa.to_string();
    if alt && precision == 0 {
        mantissa.push('.');
    }
    format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

/// C's `%.Ng`: `%e` or `%f` by the exponent, trailing zeros removed unless `#`.
fn general(a: f64, precision: usize, alt: bool) -> String {
    let p = precision.max(1);
    let exp = if a == 0.0 {
        0
    } else {
        let e = format!("{a:.prec$e}", prec = p - 1);
        e.split_once('e').and_then(|(_, x)| x.parse::<i64>().ok()).unwrap_or(0)
    };
    let mut s = if exp < -4 || exp >= p as i64 {
        exponential(a, p - 1, alt)
    } else {
        let decimals = (p as i64 - 1 - exp) as usize;
        let mut s = format!("{a:.decimals$}");
        if alt && decimals == 0 {
            s.push('.');
        }
        s
    };
    if !alt {
        let (num, exp_part) = match s.find('e') {
            Some(i) => (s[..i].to_string(), s[i..].to_string()),
            None => (s.clone(), String::new()),
        };
        let num = if num.contains('.') { num.trim_end_matches('0').trim_end_matches('.').to_string() } else { num };
        s = num + &exp_part;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[Value]) -> String {
        String::from_utf8(sprintf(fmt.as_bytes(), args, b"%.6g").unwrap()).unwrap()
    }

    #[test]
    fn c_conversions() {
        let n = |v: f64| Value::Num(v);
        assert_eq!(
            f("%5.2f|%-5d|%05d|%x|%c", &[n(1.23656), n(42.0), n(42.0), n(255.0), n(65.0)]),
            " 1.24|42   |00042|ff|A"
        );
        assert_eq!(
            f("%e|%G|%g|%g", &[n(1234.5), n(0.00001234), n(100000.0), n(1e6)]),
            "1.234500e+03|1.234E-05|100000|1e+06"
        );
        assert_eq!(f("%+d|% d|%.3d|%#o|%#x", &[n(5.0), n(5.0), n(5.0), n(8.0), n(255.0)]), "+5| 5|005|010|0xff");
        assert_eq!(f("%-4s|%.2s|%4s", &[Value::str(b"ab"), Value::str(b"abc"), Value::str(b"x")]), "ab  |ab|   x");
        assert!(sprintf(b"%d %d", &[n(1.0)], b"%.6g").is_err());
    }
}
