//! `jq` on the jaq interpreter (jaq-core/jaq-std/jaq-json), with jq 1.7's command line and
//! output format: 2-space pretty printing by default, `-c`, `-r`, `-j`, `-e`, `-n`, `-s`,
//! `-R`, `-S`, `--tab`, `--indent N`, `--arg`, `--argjson`, `--slurpfile`, `--rawfile`,
//! `--args`, `--jsonargs`, `-f FILE`, and jq's exit statuses (2 usage/input, 3 compile,
//! 5 runtime error, `-e`'s 1 and 4).
//!
//! Left out on purpose: colour (`-C` is ignored), `--seq`, `--stream`, `-a` (ASCII
//! output), modules (`import`/`include` search paths), and `$__loc__`. What jaq itself
//! does differently from jq stays (the jaq manual lists it): `del(.k)` and `|= empty`
//! move the object's last key into the deleted key's place (jq keeps the order), paths
//! are not created through `null` (`{} | .a.b = 1` is an error), and error messages are
//! jaq's wording. Number output follows jq: integer literals keep their digits (jq 1.7),
//! other numbers print as doubles in jq's format (`1.0` prints `1`, as in jq 1.6, where
//! jq 1.7 keeps `1.0`). `$ENV` is the sandbox's (empty) environment.

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, DataT, Lut, Vars, data::HasLut, native};
use jaq_json::Val;
use jaq_json::write::Pp;
use jaq_std::input::{HasInputs, Inputs, RcIter};
use reviewhost_tool::getopt::{HasArg, Item, Long, Name, Order, Parser, Spec};
use reviewhost_tool::{Ctx, Io};

use crate::common::{ReadError, read_operand};

/// jq's exit statuses.
const EXIT_USAGE: i32 = 2;
const EXIT_COMPILE: i32 = 3;
const EXIT_NO_OUTPUT: i32 = 4;
const EXIT_RUNTIME: i32 = 5;
/// Largest `--indent` jq accepts.
const MAX_INDENT: usize = 7;
/// How far past its digits a float's decimal point may sit before jq switches to an
/// exponent (jq's modified g_fmt: `decpt > ndigits + 15`).
const JQ_DTOA_EXTRA_DIGITS: i64 = 15;
/// Default pretty-print indent.
const DEFAULT_INDENT: usize = 2;

/// jq builtins that jaq's standard library does not define.
const EXTRA_DEFS: &str = r#"
def env: $ENV;
def input_filename: null;
def leaf_paths: paths(scalars);
def @csv:
  if type != "array" then error("\(type) (\(tojson)) cannot be csv-formatted, only an array can be")
  else map(
    if type == "string" then "\"" + gsub("\""; "\"\"") + "\""
    elif type == "number" or type == "boolean" then tostring
    elif . == null then ""
    else error("\(type) (\(tojson)) is not valid in a csv row") end
  ) | join(",") end;
def @tsv:
  if type != "array" then error("\(type) (\(tojson)) cannot be tsv-formatted, only an array can be")
  else map(
    if type == "string" then gsub("\\\\"; "\\\\") | gsub("\t"; "\\t") | gsub("\n"; "\\n") | gsub("\r"; "\\r")
    elif type == "number" or type == "boolean" then tostring
    elif . == null then ""
    else error("\(type) (\(tojson)) is not valid in a tsv row") end
  ) | join("\t") end;
"#;

/// The data a filter run sees: the lookup table and the shared input stream (`input`,
/// `inputs`).
struct JqData;

impl DataT for JqData {
    type V<'a> = Val;
    type Data<'a> = &'a RunData<'a>;
}

struct RunData<'a> {
    lut: &'a Lut<JqData>,
    inputs: Inputs<'a, Val>,
}

impl<'a> HasLut<'a, JqData> for &'a RunData<'a> {
    fn lut(&self) -> &'a Lut<JqData> {
        self.lut
    }
}

impl<'a> HasInputs<'a, Val> for &'a RunData<'a> {
    fn inputs(&self) -> Inputs<'a, Val> {
        self.inputs
    }
}

/// The command line, parsed.
#[derive(Default)]
struct Opts {
    raw: bool,
    join: bool,
    compact: bool,
    exit_status: bool,
    null_input: bool,
    slurp: bool,
    raw_input: bool,
    sort_keys: bool,
    tab: bool,
    indent: Option<usize>,
    filter: Option<String>,
    filter_file: Option<String>,
    files: Vec<String>,
    /// `$name` variables in order.
    named: Vec<(String, Val)>,
    positional: Vec<Val>,
}

fn usage_error(io: &mut Io, msg: &str) -> i32 {
    io.stderr.extend_from_slice(format!("jq: error: {msg}\nUse jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://jqlang.github.io/jq\n").as_bytes());
    EXIT_USAGE
}

/// jq's options. Those with arguments (`-f`, `--arg NAME VALUE`, ...) are declared
/// without one and take the next arguments themselves, as jq does: `-fr FILE` reads
/// `FILE` and goes on with `-r`, and `--indent=3` is an unknown argument.
const SPEC: Spec = Spec {
    short: "rjcensRSCMf",
    long: &[
        Long::short("raw-output", 'r', HasArg::No),
        Long::short("join-output", 'j', HasArg::No),
        Long::short("compact-output", 'c', HasArg::No),
        Long::short("exit-status", 'e', HasArg::No),
        Long::short("null-input", 'n', HasArg::No),
        Long::short("slurp", 's', HasArg::No),
        Long::short("raw-input", 'R', HasArg::No),
        Long::short("sort-keys", 'S', HasArg::No),
        Long::short("color-output", 'C', HasArg::No),
        Long::short("monochrome-output", 'M', HasArg::No),
        Long::new("tab", HasArg::No),
        Long::new("args", HasArg::No),
        Long::new("jsonargs", HasArg::No),
        Long::new("indent", HasArg::No),
        Long::new("arg", HasArg::No),
        Long::new("argjson", HasArg::No),
        Long::new("slurpfile", HasArg::No),
        Long::new("rawfile", HasArg::No),
        Long::new("from-file", HasArg::No),
    ],
    order: Order::Permute,
    abbreviations: false,
    short_equals: false,
};

/// Parse jq's command line; `Err` carries the exit status (message already written).
fn parse_args(args: &[String], ctx: &Ctx, io: &mut Io) -> Result<Opts, i32> {
    let mut o = Opts::default();
    // After `--args`/`--jsonargs`, operands after the filter are positional values.
    let mut positional_mode: Option<bool> = None;
    let mut parser = Parser::new(&SPEC, args);
    let take = |parser: &mut Parser, n: usize, opt: &str, io: &mut Io| -> Result<Vec<String>, i32> {
        let Some(v) = parser.values(n) else {
            let what = if n == 1 { "an argument" } else { "two arguments" };
            return Err(usage_error(io, &format!("{opt} takes {what}")));
        };
        Ok(v.to_vec())
    };
    while let Some(item) = parser.next() {
        let item = match item {
            Ok(item) => item,
            Err(e) => return Err(usage_error(io, &format!("Unknown arguments: {}", e.arg))),
        };
        let name = match item {
            Item::Operand(a) => {
                if o.filter.is_none() && o.filter_file.is_none() {
                    o.filter = Some(a);
                } else if let Some(json) = positional_mode {
                    if json {
                        match jaq_json::read::parse_single(a.as_bytes()) {
                            Ok(v) => o.positional.push(v),
                            Err(_) => return Err(usage_error(io, "Invalid JSON text passed to --jsonargs")),
                        }
                    } else {
                        o.positional.push(Val::from(a));
                    }
                } else {
                    o.files.push(a);
                }
                continue;
            }
            Item::Opt(name, _) => name,
        };
        match name {
            Name::Short('r') => o.raw = true,
            Name::Short('j') => (o.raw, o.join) = (true, true),
            Name::Short('c') => o.compact = true,
            Name::Short('e') => o.exit_status = true,
            Name::Short('n') => o.null_input = true,
            Name::Short('s') => o.slurp = true,
            Name::Short('R') => o.raw_input = true,
            Name::Short('S') => o.sort_keys = true,
            Name::Short('C' | 'M') => {}
            Name::Long("tab") => o.tab = true,
            Name::Long("args") => positional_mode = Some(false),
            Name::Long("jsonargs") => positional_mode = Some(true),
            Name::Long("indent") => {
                let v = take(&mut parser, 1, "--indent", io)?;
                match v[0].parse::<usize>() {
                    Ok(n) if n <= MAX_INDENT => o.indent = Some(n),
                    Ok(_) => return Err(usage_error(io, "Cannot indent more than 7 characters")),
                    Err(_) => return Err(usage_error(io, "--indent takes a number")),
                }
            }
            Name::Long("arg") => {
                let v = take(&mut parser, 2, "--arg", io)?;
                o.named.push((v[0].clone(), Val::from(v[1].clone())));
            }
            Name::Long("argjson") => {
                let v = take(&mut parser, 2, "--argjson", io)?;
                match jaq_json::read::parse_single(v[1].as_bytes()) {
                    Ok(val) => o.named.push((v[0].clone(), val)),
                    Err(_) => return Err(usage_error(io, "Invalid JSON text passed to --argjson")),
                }
            }
            Name::Long(long @ ("slurpfile" | "rawfile")) => {
                let v = take(&mut parser, 2, &format!("--{long}"), io)?;
                let data = match read_operand(&v[1], ctx, io) {
                    Ok(d) => d,
                    Err(e) => {
                        let msg = format!("Could not open {}: {}", v[1], e.msg());
                        return Err(usage_error(io, &msg));
                    }
                };
                let val = if long == "rawfile" {
                    Val::from(String::from_utf8_lossy(&data).into_owned())
                } else {
                    match jaq_json::read::parse_many(&data).collect::<Result<Vec<_>, _>>() {
                        Ok(vs) => vs.into_iter().collect(),
                        Err(e) => return Err(usage_error(io, &format!("Invalid JSON in {}: {e}", v[1]))),
                    }
                };
                o.named.push((v[0].clone(), val));
            }
            Name::Short('f') | Name::Long("from-file") => {
                let opt = if name == Name::Short('f') { "-f" } else { "--from-file" };
                let v = take(&mut parser, 1, opt, io)?;
                o.filter_file = Some(v[0].clone());
                if let Some(f) = o.filter.take() {
                    o.files.push(f);
                }
            }
            _ => {}
        }
    }
    Ok(o)
}

/// One item of the input stream: a value, or an input error (message, to stderr).
type InputItem = Result<Val, String>;

/// Read all inputs (files or stdin) into values, as jq's parser would produce them.
fn read_inputs(o: &Opts, ctx: &Ctx, io: &Io) -> Vec<InputItem> {
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
            if o.slurp {
                raw_all.extend_from_slice(&data);
            } else {
                for line in data.split_inclusive(|b| *b == b'\n') {
                    let line = line.strip_suffix(b"\n").unwrap_or(line);
                    items.push(Ok(Val::from(String::from_utf8_lossy(line).into_owned())));
                }
            }
            continue;
        }
        let display = if name == "-" { "<stdin>" } else { name.as_str() };
        for v in jaq_json::read::parse_many(&data) {
            match v {
                Ok(v) => items.push(Ok(v)),
                Err(e) => {
                    items.push(Err(format!("jq: error (at {display}): Cannot parse input: {e}")));
                    return finish_slurp(o, items, raw_all);
                }
            }
        }
    }
    finish_slurp(o, items, raw_all)
}

/// With `-s`, turn the values into one array (or the raw text into one string).
fn finish_slurp(o: &Opts, items: Vec<InputItem>, raw_all: Vec<u8>) -> Vec<InputItem> {
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
    out.push(Ok(vals.into_iter().collect()));
    out
}

/// Render a compile (load or undefined-name) error the way jq reports it.
fn compile_error(io: &mut Io, msg: &str) -> i32 {
    io.stderr.extend_from_slice(format!("jq: error: {msg}\njq: 1 compile error\n").as_bytes());
    EXIT_COMPILE
}

/// `jq [OPTIONS] FILTER [FILE...]`.
pub fn jq(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    let o = match parse_args(args, ctx, io) {
        Ok(o) => o,
        Err(s) => return s,
    };
    let code = match (&o.filter_file, &o.filter) {
        (Some(f), _) => match read_operand(f, ctx, io) {
            Ok(d) => String::from_utf8_lossy(&d).into_owned(),
            Err(e) => return usage_error(io, &format!("Could not open {f}: {}", e.msg())),
        },
        (None, Some(f)) => f.clone(),
        (None, None) => {
            io.stderr.extend_from_slice(b"Usage:\tjq [OPTIONS] FILTER [FILES...]\n");
            return EXIT_USAGE;
        }
    };

    // Global variables: $ENV, $ARGS, then the named ones.
    let mut var_names: Vec<String> = vec!["$ENV".into(), "$ARGS".into()];
    var_names.extend(o.named.iter().map(|(n, _)| format!("${n}")));
    let env: Val = Val::obj(std::env::vars().map(|(k, v)| (Val::from(k), Val::from(v))).collect());
    let named_obj = Val::obj(o.named.iter().map(|(k, v)| (Val::from(k.clone()), v.clone())).collect());
    let args_obj = Val::obj(
        [
            (Val::from("positional".to_string()), o.positional.iter().cloned().collect()),
            (Val::from("named".to_string()), named_obj),
        ]
        .into_iter()
        .collect(),
    );
    let mut var_vals = vec![env, args_obj];
    var_vals.extend(o.named.iter().map(|(_, v)| v.clone()));
    let code = code.as_str();

    let extra = jaq_core::load::parse(EXTRA_DEFS, |p| p.defs()).unwrap_or_default();
    let defs = jaq_core::defs().chain(jaq_std::defs()).chain(jaq_json::defs()).chain(extra);
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let program = File { code, path: () };
    let modules = match loader.load(&arena, program) {
        Ok(m) => m,
        Err(errs) => {
            let msg = errs
                .iter()
                .map(|(_, e)| match e {
                    jaq_core::load::Error::Io(v) => v.iter().map(|(_, m)| m.clone()).collect::<Vec<_>>().join("; "),
                    jaq_core::load::Error::Lex(v) => v
                        .iter()
                        .map(|(exp, found)| format!("syntax error: expected {} before '{found}'", exp.as_str()))
                        .collect::<Vec<_>>()
                        .join("; "),
                    jaq_core::load::Error::Parse(v) => v
                        .iter()
                        .map(|(exp, found)| format!("syntax error: expected {} before '{found}'", exp.as_str()))
                        .collect::<Vec<_>>()
                        .join("; "),
                })
                .collect::<Vec<_>>()
                .join("\n");
            return compile_error(io, &msg);
        }
    };
    let funs = jaq_core::funs::<JqData>()
        .chain(jaq_std::funs::<JqData>())
        .chain(jaq_std::input::funs::<JqData>().into_vec().into_iter().map(native::run::<JqData>))
        .chain(jaq_json::funs::<JqData>());
    let global: Vec<&str> = var_names.iter().map(String::as_str).collect();
    let filter = match Compiler::default().with_funs(funs).with_global_vars(global.iter().copied()).compile(modules) {
        Ok(f) => f,
        Err(errs) => {
            let msg = errs
                .iter()
                .flat_map(|(_, es)| {
                    es.iter().map(|(name, undef)| format!("{name} is not defined ({})", undef.as_str()))
                })
                .collect::<Vec<_>>()
                .join("\n");
            return compile_error(io, &msg);
        }
    };

    let items = read_inputs(&o, ctx, io);
    let mut status = 0;
    // Input errors are printed when the main loop reaches them (and skipped by `inputs`).
    let input_iter = items.into_iter();
    let stream = RcIter::new(input_iter);
    let inputs: Inputs<Val> = &stream;
    let data = RunData { lut: &filter.lut, inputs };
    let pp = printer(&o);
    let mut last: Option<Val> = None;
    let run = |input: Val, io: &mut Io, status: &mut i32, last: &mut Option<Val>| {
        let jctx = jaq_core::Ctx::<JqData>::new(&data, Vars::new(var_vals.iter().cloned()));
        for r in filter.id.run((jctx, input)) {
            match r {
                Ok(v) => {
                    write_value(&v, &o, &pp, io.stdout);
                    *last = Some(v);
                }
                Err(exn) => match exn.get_err() {
                    Ok(e) => {
                        let msg = match e.into_val() {
                            Val::TStr(s) | Val::BStr(s) => String::from_utf8_lossy(&s).into_owned(),
                            other => format!("{other} (not a string)"),
                        };
                        io.stderr.extend_from_slice(format!("jq: error (at <unknown>): {msg}\n").as_bytes());
                        *status = EXIT_RUNTIME;
                        break;
                    }
                    Err(exn) => {
                        let code = exn.get_halt().unwrap_or(EXIT_RUNTIME);
                        return Some(code);
                    }
                },
            }
        }
        None
    };
    if o.null_input {
        if let Some(code) = run(Val::Null, io, &mut status, &mut last) {
            return code;
        }
    } else {
        loop {
            let next = (&stream).next();
            match next {
                None => break,
                Some(Err(msg)) => {
                    io.stderr.extend_from_slice(msg.as_bytes());
                    io.stderr.push(b'\n');
                    status = status.max(EXIT_USAGE);
                }
                Some(Ok(v)) => {
                    if let Some(code) = run(v, io, &mut status, &mut last) {
                        return code;
                    }
                }
            }
        }
    }
    if status != 0 {
        return status;
    }
    if o.exit_status {
        return match last {
            None => EXIT_NO_OUTPUT,
            Some(Val::Null | Val::Bool(false)) => 1,
            Some(_) => 0,
        };
    }
    0
}

/// The pretty printer for the chosen output options.
fn printer(o: &Opts) -> Pp {
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

fn write_value(v: &Val, o: &Opts, pp: &Pp, out: &mut Vec<u8>) {
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
fn write_json(v: &Val, pp: &Pp, level: usize, out: &mut Vec<u8>) {
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

fn write_string(s: &[u8], out: &mut Vec<u8>) {
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
fn format_num(n: &jaq_json::Num) -> String {
    use jaq_json::Num;
    match n {
        Num::Int(i) => i.to_string(),
        Num::BigInt(i) => i.to_string(),
        // Integer literals keep their digits (jq 1.7 preserves their precision); other
        // literals print as the double they denote, as jq does for `1e3` or `1e1000`.
        Num::Dec(s) if is_int_literal(s) => s.to_string(),
        Num::Dec(s) => format_float(s.parse().unwrap_or(f64::NAN)),
        Num::Float(x) => format_float(*x),
    }
}

fn is_int_literal(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn format_float(x: f64) -> String {
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
