//! Printing values as jq 1.6 prints them: 2-space (or `--indent N`, `--tab`) pretty
//! printing, `-c`, `-r`, `-j`, `-S`, jq's number format (its dtoa rule for exponents,
//! integers past 2^53 as doubles, NaN as `null`, infinities as ±DBL_MAX) and its string
//! escapes. Kept apart because jaq's printer differs on each of these.

use jaq_json::Val;
use jaq_json::write::Pp;

use super::MAX_EXACT_INT_U;
use super::args::Opts;

/// Default pretty-print indent.
const DEFAULT_INDENT: usize = 2;
/// How far past its digits a float's decimal point may sit before jq switches to an
/// exponent (jq's modified g_fmt: `decpt > ndigits + 15`).
const JQ_DTOA_EXTRA_DIGITS: i64 = 15;

/// The pretty printer for the chosen output options.
pub(super) fn printer(o: &Opts) -> Pp {
    let indent = if o.tab {
        Some("\t".to_string())
    } else {
        match o.indent {
            Some(0) => None,
            Some(n) => Some(" ".repeat(n)),
            None => Some(" ".repeat(DEFAULT_INDENT)),
        }
    };
    let indent = if o.compact { None } else { indent };
    let sep_space = indent.is_some();
    Pp { indent, sort_keys: o.sort_keys, sep_space, ..Pp::default() }
}

pub(super) fn write_value(v: &Val, o: &Opts, pp: &Pp, out: &mut Vec<u8>) {
    match v {
        Val::TStr(s) | Val::BStr(s) if o.raw => out.extend_from_slice(String::from_utf8_lossy(s).as_bytes()),
        _ => write_json(v, pp, 0, out),
    }
    if !o.join {
        out.push(b'\n');
    }
}

/// Write `v` as jq prints JSON: jq's number format, `\u00XX` for controls and DEL,
/// invalid UTF-8 replaced, `"key": value` with a space only when indenting.
pub(super) fn write_json(v: &Val, pp: &Pp, level: usize, out: &mut Vec<u8>) {
    let newline_indent = |out: &mut Vec<u8>, level: usize| {
        if let Some(ind) = &pp.indent {
            out.push(b'\n');
            for _ in 0..level {
                out.extend_from_slice(ind.as_bytes());
            }
        }
    };
    match v {
        Val::Null => out.extend_from_slice(b"null"),
        Val::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Val::Num(n) => out.extend_from_slice(format_num(n).as_bytes()),
        Val::TStr(s) | Val::BStr(s) => write_string(s, out),
        Val::Arr(a) => {
            if a.is_empty() {
                out.extend_from_slice(b"[]");
                return;
            }
            out.push(b'[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                newline_indent(out, level + 1);
                write_json(x, pp, level + 1, out);
            }
            newline_indent(out, level);
            out.push(b']');
        }
        Val::Obj(o) => {
            if o.is_empty() {
                out.extend_from_slice(b"{}");
                return;
            }
            let mut entries: Vec<(&Val, &Val)> = o.iter().collect();
            if pp.sort_keys {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            out.push(b'{');
            for (i, (k, x)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                newline_indent(out, level + 1);
                match k {
                    Val::TStr(s) | Val::BStr(s) => write_string(s, out),
                    other => {
                        let mut key = Vec::new();
                        write_json(other, pp, 0, &mut key);
                        write_string(&key, out);
                    }
                }
                out.push(b':');
                if pp.sep_space {
                    out.push(b' ');
                }
                write_json(x, pp, level + 1, out);
            }
            newline_indent(out, level);
            out.push(b'}');
        }
    }
}

pub(super) fn write_string(s: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    for c in String::from_utf8_lossy(s).chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes());
            }
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

/// jq's number output: integers as digits, literals as written (jq 1.7 keeps them),
/// floats in the shortest form that reads back, with an exponent only when the decimal
/// point is far out (jq's jvp_dtoa_fmt rule), NaN as `null`, infinities as ±DBL_MAX.
pub(super) fn format_num(n: &jaq_json::Num) -> String {
    use jaq_json::Num;
    match n {
        // Integers a double holds exactly print as digits; larger ones as the double jq
        // holds (J17: jq 1.6 computes and prints with doubles).
        Num::Int(i) if i.unsigned_abs() as u64 <= MAX_EXACT_INT_U => i.to_string(),
        Num::Int(i) => format_float(*i as f64),
        Num::BigInt(i) if is_exact_int(&i.to_string()) => i.to_string(),
        Num::BigInt(i) => format_float(i.to_string().parse().unwrap_or(f64::NAN)),
        Num::Dec(s) if is_int_literal(s) && is_exact_int(s) => s.to_string(),
        Num::Dec(s) => format_float(s.parse().unwrap_or(f64::NAN)),
        Num::Float(x) => format_float(*x),
    }
}

/// Whether the integer written `s` is one a double holds exactly (|n| <= 2^53).
pub(super) fn is_exact_int(s: &str) -> bool {
    s.strip_prefix('-').unwrap_or(s).parse::<u128>().is_ok_and(|n| n <= u128::from(MAX_EXACT_INT_U))
}

pub(super) fn is_int_literal(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

pub(super) fn format_float(x: f64) -> String {
    if x.is_nan() {
        return "null".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "1.7976931348623157e+308".into() } else { "-1.7976931348623157e+308".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let sci = format!("{:e}", x.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let exp: i64 = exp.parse().unwrap_or(0);
    let nd = digits.len() as i64;
    let decpt = exp + 1;
    let sign = if x < 0.0 { "-" } else { "" };
    let body = if decpt <= -4 || decpt > nd + JQ_DTOA_EXTRA_DIGITS {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{first}{dot}e{esign}{:02}", exp.abs())
    } else if decpt <= 0 {
        format!("0.{}{digits}", "0".repeat(decpt.unsigned_abs() as usize))
    } else if decpt >= nd {
        format!("{digits}{}", "0".repeat((decpt - nd) as usize))
    } else {
        let (a, b) = digits.split_at(decpt as usize);
        format!("{a}.{b}")
    };
    format!("{sign}{body}")
}
