//! Reading the input values as jq 1.6 reads them (J17–J19): the byte order mark,
//! `-NaN`, integers beyond 2^53 as doubles, `-R` lines, `-s` slurping, and the first
//! parse error ending the stream. Kept apart because it is where jq's reader and jaq's
//! differ, not the filter.

use jaq_json::Val;
use reviewhost_tool::{Ctx, Io};

use super::MAX_EXACT_INT_U;
use super::args::Opts;
use super::output::{is_exact_int, is_int_literal};
use super::parse;

/// How an input that does not parse starts its message; it ends jq 1.6's reading with
/// exit status 4.
pub(super) const PARSE_ERROR: &str = "parse error: ";
use crate::common::{ReadError, read_operand};

/// jq's reading of JSON text: a UTF-8 byte order mark at the start is skipped (J18),
/// `-NaN` is NaN (J19), and integers beyond 2^53 are doubles, as jq keeps them (J17).
pub(super) fn preprocess_json(data: &[u8]) -> Vec<u8> {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let mut out = Vec::with_capacity(data.len());
    let (mut in_string, mut escaped) = (false, false);
    let mut i = 0;
    while i < data.len() {
        let c = data[i];
        if !in_string && data[i..].starts_with(b"-NaN") {
            out.extend_from_slice(b"NaN");
            i += 4;
            continue;
        }
        if c == b'"' && !escaped {
            in_string = !in_string;
        }
        escaped = in_string && c == b'\\' && !escaped;
        out.push(c);
        i += 1;
    }
    out
}

/// Integers too large for a double to hold exactly, as the double jq would hold.
pub(super) fn as_jq_number(v: Val) -> Val {
    use jaq_json::Num;
    match v {
        Val::Num(Num::Int(i)) if i.unsigned_abs() as u64 > MAX_EXACT_INT_U => Val::Num(Num::Float(i as f64)),
        Val::Num(Num::BigInt(i)) if !is_exact_int(&i.to_string()) => {
            Val::Num(Num::Float(i.to_string().parse().unwrap_or(f64::NAN)))
        }
        Val::Num(Num::Dec(d)) if is_int_literal(&d) && !is_exact_int(&d) => {
            Val::Num(Num::Float(d.parse().unwrap_or(f64::NAN)))
        }
        Val::Arr(a) => a.iter().cloned().map(as_jq_number).collect(),
        Val::Obj(o) => Val::obj(o.iter().map(|(k, v)| (k.clone(), as_jq_number(v.clone()))).collect()),
        v => v,
    }
}

pub(super) fn parse_single(data: &[u8]) -> Result<Val, jaq_json::read::Error> {
    jaq_json::read::parse_single(&preprocess_json(data)).map(as_jq_number)
}

pub(super) fn parse_many(data: &[u8]) -> impl Iterator<Item = Result<Val, jaq_json::read::Error>> {
    // The parser does not move past an error: stop at the first.
    let mut values = Vec::new();
    for v in jaq_json::read::parse_many(&preprocess_json(data)) {
        let err = v.is_err();
        values.push(v.map(as_jq_number));
        if err {
            break;
        }
    }
    values.into_iter()
}

/// One item of the input stream: a value, or an input error (message, to stderr).
pub(super) type InputItem = Result<Val, String>;

/// Read all inputs (files or stdin) into values, as jq's parser would produce them.
pub(super) fn read_inputs(o: &Opts, ctx: &Ctx, io: &Io) -> Vec<InputItem> {
    let names: Vec<String> = if o.files.is_empty() { vec!["-".into()] } else { o.files.clone() };
    let mut items = Vec::new();
    let mut raw_all = Vec::new();
    for name in &names {
        let data = match read_operand(name, ctx, io) {
            Ok(d) => d,
            Err(e) => {
                let why = match e {
                    ReadError::IsDir => "Is a directory".to_string(),
                    ReadError::Other(m) => m,
                };
                items.push(Err(format!("jq: error: Could not open {name}: {why}")));
                continue;
            }
        };
        if o.raw_input {
            // jq reads the files as one text: a last line without its newline goes on
            // in the next file.
            raw_all.extend_from_slice(&data);
            continue;
        }
        let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&data);
        let (values, error) = parse::stream(data);
        items.extend(values.into_iter().map(|v| Ok(as_jq_number(v))));
        if let Some(e) = error {
            items.push(Err(format!("{PARSE_ERROR}{e}")));
            return finish_slurp(o, items, raw_all);
        }
    }
    if o.raw_input && !o.slurp {
        for line in raw_all.split_inclusive(|b| *b == b'\n') {
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            items.push(Ok(Val::from(String::from_utf8_lossy(line).into_owned())));
        }
    }
    finish_slurp(o, items, raw_all)
}

/// With `-s`, turn the values into one array (or the raw text into one string).
pub(super) fn finish_slurp(o: &Opts, items: Vec<InputItem>, raw_all: Vec<u8>) -> Vec<InputItem> {
    if !o.slurp {
        return items;
    }
    if o.raw_input {
        let mut errs: Vec<InputItem> = items.into_iter().filter(Result::is_err).collect();
        errs.push(Ok(Val::from(String::from_utf8_lossy(&raw_all).into_owned())));
        return errs;
    }
    let mut vals = Vec::new();
    let mut out = Vec::new();
    for it in items {
        match it {
            Ok(v) => vals.push(v),
            Err(e) => out.push(Err(e)),
        }
    }
    // jq slurps as it parses: an input that does not parse leaves nothing to run on.
    if !out.iter().any(|e| e.as_ref().is_err_and(|e| e.starts_with(PARSE_ERROR))) {
        out.push(Ok(vals.into_iter().collect()));
    }
    out
}
