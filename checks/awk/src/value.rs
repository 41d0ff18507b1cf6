//! awk's values: numbers, strings, and the "strnum" strings that came from input and
//! look numeric, which compare as numbers (POSIX "numeric string").
//!
//! Strings are bytes, as in mawk and in gawk under `LC_ALL=C`; the functions that count
//! characters (`length`, `substr`, `index`, `match`, printf widths) count UTF-8
//! characters when the string is valid UTF-8, as gawk does in a UTF-8 locale
//! (`text.rs`).

use std::cmp::Ordering;
use std::rc::Rc;

use crate::format::format_number;

pub type Str = Rc<[u8]>;

#[derive(Debug, Clone, Default)]
pub enum Value {
    /// Never assigned: `""` and `0` at once.
    #[default]
    Uninit,
    Num(f64),
    Str(Str),
    /// Input that looks numeric (a field, `getline var`, `split` element, `-v`).
    StrNum(Str, f64),
}

impl Value {
    pub fn str(s: &[u8]) -> Value {
        Value::Str(Rc::from(s))
    }

    /// A value read from input: a strnum when it looks numeric.
    pub fn input(s: &[u8]) -> Value {
        match looks_numeric(s) {
            Some(n) => Value::StrNum(Rc::from(s), n),
            None => Value::Str(Rc::from(s)),
        }
    }

    pub fn num(&self) -> f64 {
        match self {
            Value::Uninit => 0.0,
            Value::Num(n) | Value::StrNum(_, n) => *n,
            Value::Str(s) => str_to_num(s),
        }
    }

    /// The string value, converting a number with `convfmt` (CONVFMT, or OFMT for
    /// output).
    pub fn bytes(&self, convfmt: &[u8]) -> Str {
        match self {
            Value::Uninit => Rc::from(&b""[..]),
            Value::Num(n) => Rc::from(num_to_str(*n, convfmt)),
            Value::Str(s) | Value::StrNum(s, _) => s.clone(),
        }
    }

    pub fn truthy(&self) -> bool {
        match self {
            Value::Uninit => false,
            Value::Num(n) | Value::StrNum(_, n) => *n != 0.0,
            Value::Str(s) => !s.is_empty(),
        }
    }

    /// Whether it compares as a number (POSIX: a number, a strnum, or uninitialised).
    fn numeric(&self) -> bool {
        !matches!(self, Value::Str(_))
    }
}

/// awk's comparison: numeric when both sides are numeric, else as strings.
pub fn compare(a: &Value, b: &Value, convfmt: &[u8]) -> Ordering {
    if a.numeric() && b.numeric() {
        let (x, y) = (a.num(), b.num());
        return x.partial_cmp(&y).unwrap_or_else(|| x.is_nan().cmp(&y.is_nan()));
    }
    a.bytes(convfmt).cmp(&b.bytes(convfmt))
}

/// A number as a string: an integral value prints as an integer, others through
/// `fmt` (CONVFMT or OFMT, `%.6g` by default).
pub fn num_to_str(n: f64, fmt: &[u8]) -> Vec<u8> {
    if n.is_nan() {
        return if n.is_sign_negative() { b"-nan".to_vec() } else { b"+nan".to_vec() };
    }
    if n.is_infinite() {
        // gawk's spelling, signed either way.
        return if n < 0.0 { b"-inf".to_vec() } else { b"+inf".to_vec() };
    }
    if n == n.trunc() {
        if n == 0.0 {
            return b"0".to_vec();
        }
        return format!("{n:.0}").into_bytes();
    }
    format_number(fmt, n)
}

/// The length of the longest prefix of `s` that is a decimal floating-point number
/// (sign, digits, fraction, exponent), 0 when there is none.
pub fn numeric_prefix_len(s: &[u8]) -> usize {
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_start = i;
    while s.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let mut digits = i - int_start;
    if s.get(i) == Some(&b'.') {
        let frac_start = i + 1;
        let mut j = frac_start;
        while s.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        digits += j - frac_start;
        if digits > 0 {
            i = j;
        }
    }
    if digits == 0 {
        return 0;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(s.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_start = j;
        while s.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    i
}

fn is_blank(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn parse_f64(s: &[u8]) -> f64 {
    std::str::from_utf8(s).ok().and_then(|t| t.parse().ok()).unwrap_or(0.0)
}

/// A string's numeric value: its longest numeric prefix after leading blanks (`"3x"` is
/// 3, `"x"` is 0).
pub fn str_to_num(s: &[u8]) -> f64 {
    let start = s.iter().position(|b| !is_blank(b)).unwrap_or(s.len());
    let s = &s[start..];
    let len = numeric_prefix_len(s);
    if len == 0 {
        return special_number(s).unwrap_or(0.0);
    }
    parse_f64(&s[..len])
}

/// gawk's `+inf`, `-inf`, `+nan`, `-nan` (a sign is required, as in gawk).
fn special_number(s: &[u8]) -> Option<f64> {
    let lower: Vec<u8> = s.iter().take(4).map(u8::to_ascii_lowercase).collect();
    match lower.as_slice() {
        b"+inf" => Some(f64::INFINITY),
        b"-inf" => Some(f64::NEG_INFINITY),
        b"+nan" => Some(f64::NAN),
        b"-nan" => Some(-f64::NAN),
        _ => None,
    }
}

/// The number a string from input stands for, when all of it (but surrounding blanks)
/// is a number.
pub fn looks_numeric(s: &[u8]) -> Option<f64> {
    let start = s.iter().position(|b| !is_blank(b))?;
    let end = s.iter().rposition(|b| !is_blank(b))? + 1;
    let t = &s[start..end];
    let len = numeric_prefix_len(t);
    if len == 0 {
        return special_number(t).filter(|_| t.len() == 4);
    }
    (len == t.len()).then(|| parse_f64(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_strings() {
        assert_eq!(looks_numeric(b" 12 "), Some(12.0));
        assert_eq!(looks_numeric(b"1e3"), Some(1000.0));
        assert_eq!(looks_numeric(b"-.5"), Some(-0.5));
        assert_eq!(looks_numeric(b"1e"), None);
        assert_eq!(looks_numeric(b"abc"), None);
        assert_eq!(looks_numeric(b""), None);
        assert_eq!(looks_numeric(b"."), None);
        assert_eq!(str_to_num(b"  3x"), 3.0);
        assert_eq!(str_to_num(b"0x1A"), 0.0);
    }

    #[test]
    fn numbers_print_as_awk_prints_them() {
        assert_eq!(num_to_str(3.0, b"%.6g"), b"3");
        assert_eq!(num_to_str(0.1 + 0.2, b"%.6g"), b"0.3");
        assert_eq!(num_to_str(-0.0, b"%.6g"), b"0");
        assert_eq!(num_to_str(1e30, b"%.6g"), b"1000000000000000019884624838656");
        assert_eq!(num_to_str(1.23656, b"%.2f"), b"1.24");
    }
}
