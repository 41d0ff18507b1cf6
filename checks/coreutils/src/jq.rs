//! `jq` on the jaq interpreter (jaq-core/jaq-std/jaq-json), with jq's command line and
//! output format: 2-space pretty printing by default, `-c`, `-r`, `-j`, `-e`, `-n`, `-s`,
//! `-R`, `-S`, `--tab`, `--indent N`, `--arg`, `--argjson`, `--slurpfile`, `--rawfile`,
//! `--args`, `--jsonargs`, `-f FILE`, and jq's exit statuses (2 usage/input, 3 compile,
//! 5 runtime error, `-e`'s 1 and 4).
//!
//! Left out on purpose: colour (`-C` is ignored), `--seq`, `--stream`, `-a` (ASCII
//! output), modules (`import`/`include` search paths), and `$__loc__`. `$ENV` is the
//! sandbox's (empty) environment.
//!
//! jq's semantics where jaq's differ, matched against jq's own test suites (groups of
//! `../shared/design/peer-suite-findings.md`):
//!
//! - In the program's text (`jq/source.rs`): `.5` is a number (J3); `{$b: [$c]}` in a
//!   pattern binds `$b` too (J7); `E as P1 ?// P2 | BODY` tries the patterns in turn
//!   (J6); a constant object key that is not a string, in an object or an object
//!   pattern (`{(0): 1}`, `. as {(true): $x}`, J14), and constant `1 / 0` (J4) are
//!   compile errors.
//! - In the parsed program (`jq/term.rs`): `/` and `%` by zero are jq's error (J4); a
//!   string times NaN or a non-positive number is null (J12); `=`, `|=`, `op=`, `//=`
//!   fall back to jq's definitions over `setpath` where jaq's update fails, so they pad
//!   arrays with null and create paths through null (J9); indices and slice bounds are
//!   rounded (fractional, NaN) and slicing null gives null (J11, J12); binary operators
//!   give their outputs in jq's order (the right operand's outer).
//! - Definitions in `jq_defs.jq`, compiled after jaq's so they shadow them: `del` and
//!   `delpaths` delete all paths at once, keep key order and ignore missing paths (J1,
//!   J15); `join` (J2); `from_entries` (J5, with jq 1.7's `k`/`v`); `IN`, `INDEX`,
//!   `JOIN`, `builtins`, `tostream`, `fromstream`, `truncate_stream` (J8); `nth` (J10,
//!   jq 1.6's); `has(nan)` (J12); `setpath`/`getpath` (J13); `flatten` (J16);
//!   `match`/`test`/`capture`/`scan` on a native `_jq_match` with jq's match objects
//!   (J20); `@base64d` without padding (J21); `input` past the end is the error `break`
//!   (J22, jq 1.6); `tojson`/`tostring` print numbers as the output does.
//! - Input (J17–J19): a UTF-8 byte order mark is skipped, `-NaN` is read, and integers
//!   beyond 2^53 become the double jq holds (jq 1.6 computes and prints with doubles:
//!   `13911860366432393` is `13911860366432392`, `100000000000000000000` prints
//!   `1e+20`). Other numbers print as jq prints doubles (`1.0` is `1`), NaN as `null`,
//!   infinities as ±DBL_MAX. `fromjson` reads as jq 1.6 (`jq/parse.rs`): a literal is
//!   any run between blanks, quotes and brackets that `strtod` takes whole (`NaN`, `1.`,
//!   `Infinity`; `NaN1` is an error), and errors carry jq's words, line and column.
//!
//! Loud instead of different: a `?//` the rewriting cannot place (in a `reduce`/`foreach`
//! pattern, inside a string interpolation) is the compile error (exit 3) `the
//! destructuring alternative ?// is only supported as `E as P1 ?// P2 ... | BODY` in the
//! reviewhost sandbox` (J6).
//!
//! Still different, on purpose: error messages are mostly jaq's wording; `|= empty`
//! deletes every matched element (as jq 1.7; jq 1.6 leaves every other one); `.a?//1`
//! (no spaces) is `.a? // 1`, where jq's lexer reads `?//` and fails.

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, DataT, Lut, Vars, data::HasLut, native};
use jaq_json::Val;
use jaq_json::write::Pp;
use jaq_std::input::{HasInputs, Inputs, RcIter};
use reviewhost_tool::getopt::{HasArg, Item, Long, Name, Order, Parser, Spec};
use reviewhost_tool::{Ctx, Io};

use crate::common::{ReadError, read_operand};

mod parse;
mod source;
mod term;

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
/// The error for a destructuring alternative the rewriting could not place (J6).
const ALT_UNSUPPORTED: &str =
    "the destructuring alternative ?// is only supported as `E as P1 ?// P2 ... | BODY` in the reviewhost sandbox";
/// Default pretty-print indent.
const DEFAULT_INDENT: usize = 2;

/// jq builtins that jaq's standard library does not define, and jq's definitions where
/// jaq's differ (they shadow jaq's).
const EXTRA_DEFS: &str = include_str!("jq_defs.jq");

/// The largest integer a double holds exactly: jq computes with doubles, so integers
/// beyond it lose precision (J17).
const MAX_EXACT_INT_U: u64 = 1 << 53;

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
                        match parse_single(a.as_bytes()) {
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
                match parse_single(v[1].as_bytes()) {
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
                    match parse_many(&data).collect::<Result<Vec<_>, _>>() {
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

/// jq's reading of JSON text: a UTF-8 byte order mark at the start is skipped (J18),
/// `-NaN` is NaN (J19), and integers beyond 2^53 are doubles, as jq keeps them (J17).
fn preprocess_json(data: &[u8]) -> Vec<u8> {
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
fn as_jq_number(v: Val) -> Val {
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

fn parse_single(data: &[u8]) -> Result<Val, jaq_json::read::Error> {
    jaq_json::read::parse_single(&preprocess_json(data)).map(as_jq_number)
}

fn parse_many(data: &[u8]) -> impl Iterator<Item = Result<Val, jaq_json::read::Error>> {
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
        for v in parse_many(&data) {
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
    let code = match source::rewrite(&code) {
        Ok(c) => c,
        Err(source::CompileError(msg)) => return compile_error(io, &msg),
    };
    // Programs with modules are left as they are (the sandbox has none to load).
    let code =
        if code.contains("import") || code.contains("include") { code } else { term::rewrite(&code).unwrap_or(code) };
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
            if code.contains("?//") {
                return compile_error(io, ALT_UNSUPPORTED);
            }
            return compile_error(io, &msg);
        }
    };
    let funs = jaq_core::funs::<JqData>()
        .chain(jaq_std::funs::<JqData>())
        .chain(jaq_std::input::funs::<JqData>().into_vec().into_iter().map(native::run::<JqData>))
        .chain(jaq_json::funs::<JqData>())
        .chain(jq_funs());
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
fn is_exact_int(s: &str) -> bool {
    s.strip_prefix('-').unwrap_or(s).parse::<u128>().is_ok_and(|n| n <= u128::from(MAX_EXACT_INT_U))
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

/// Native helpers of `jq_defs.jq`: `_jq_tojson` (JSON text in jq's number format),
/// `_jq_fromjson` (jq 1.6's reader, [`parse`]) and
/// `_jq_match(re; flags; test)` (jq 1.6's `_match_impl`).
fn jq_funs() -> impl Iterator<Item = native::Fun<JqData>> {
    let natives: Box<[native::Filter<jaq_core::RunPtr<JqData>>]> = Box::new([
        ("_jq_tojson", native::v(0), |cv| {
            let mut out = Vec::new();
            write_json(&cv.1, &Pp { indent: None, sort_keys: false, sep_space: false, ..Pp::default() }, 0, &mut out);
            native::bome(Ok(Val::from(String::from_utf8_lossy(&out).into_owned())))
        }),
        ("_jq_fromjson", native::v(0), |cv| {
            let result = match &cv.1 {
                Val::TStr(s) | Val::BStr(s) => parse::fromjson(s).map(as_jq_number),
                other => Err(format!("{} only strings can be parsed", error_dump(other))),
            };
            native::bome(result.map_err(jaq_core::Error::str))
        }),
        ("_jq_match", native::v(3), |mut cv| {
            let test = cv.0.pop_var();
            let flags = cv.0.pop_var();
            let re = cv.0.pop_var();
            native::bome(jq_match(&cv.1, &re, &flags, matches!(test, Val::Bool(true))).map_err(jaq_core::Error::str))
        }),
    ]);
    natives.into_vec().into_iter().map(native::run::<JqData>)
}

fn type_name(v: &Val) -> &'static str {
    match v {
        Val::Null => "null",
        Val::Bool(_) => "boolean",
        Val::Num(_) => "number",
        Val::TStr(_) | Val::BStr(_) => "string",
        Val::Arr(_) => "array",
        Val::Obj(_) => "object",
    }
}

/// `v` as jq shows it in an error: `type (json)`, the JSON cut as jq cuts it.
fn error_dump(v: &Val) -> String {
    let mut out = Vec::new();
    write_json(v, &Pp { indent: None, sort_keys: false, sep_space: false, ..Pp::default() }, 0, &mut out);
    let mut json = String::from_utf8_lossy(&out).into_owned();
    if json.len() > 14 {
        let mut cut = 11;
        while !json.is_char_boundary(cut) {
            cut -= 1;
        }
        json.truncate(cut);
        json.push_str("...");
    }
    format!("{} ({json})", type_name(v))
}

fn as_str(v: &Val) -> Option<String> {
    match v {
        Val::TStr(s) | Val::BStr(s) => Some(String::from_utf8_lossy(s).into_owned()),
        _ => None,
    }
}

/// jq 1.6's `_match_impl`: the matches of `re` in the input as jq's match objects
/// (offsets and lengths in codepoints, every capture with its `name`, null when the group
/// has none, a group that took no part as offset -1 and string null; a zero-width match
/// has no captures), or whether there is one (`test`).
fn jq_match(input: &Val, re: &Val, flags: &Val, test: bool) -> Result<Val, String> {
    let Some(s) = as_str(input) else {
        return Err(format!("{} cannot be matched, as it is not a string", error_dump(input)));
    };
    let Some(re_src) = as_str(re) else { return Err(format!("{} is not a string", error_dump(re))) };
    let flags = match flags {
        Val::Null => String::new(),
        f => as_str(f).ok_or_else(|| format!("{} is not a string", error_dump(f)))?,
    };
    let (mut global, mut skip_empty) = (false, false);
    let mut builder = regex::RegexBuilder::new(&re_src);
    for c in flags.chars() {
        match c {
            'g' => global = true,
            'n' => skip_empty = true,
            'i' => _ = builder.case_insensitive(true),
            'x' => _ = builder.ignore_whitespace(true),
            'p' => _ = builder.dot_matches_new_line(true),
            'l' => _ = builder.swap_greed(true),
            's' => {}
            _ => return Err(format!("{flags} is not a valid modifier string")),
        }
    }
    let regex = builder.build().map_err(|e| format!("{re_src} (at offset 0) is not a valid regex: {e}"))?;
    if test && !skip_empty {
        return Ok(Val::Bool(regex.is_match(&s)));
    }
    let global = global && !test;
    let names: Vec<Option<&str>> = regex.capture_names().collect();
    let cp = |byte: usize| s[..byte].chars().count() as isize;
    let key = |k: &str| Val::from(k.to_string());
    let mut matches = Vec::new();
    let mut start = 0;
    while let Some(caps) = regex.captures_at(&s, start) {
        let whole = caps.get(0).expect("group 0 always takes part");
        if whole.start() == whole.end() {
            if skip_empty {
                // `n` looks for the first match that is not empty.
                if whole.end() >= s.len() {
                    break;
                }
                start = whole.end() + s[whole.end()..].chars().next().map_or(1, char::len_utf8);
                continue;
            }
            {
                let m = [
                    (key("offset"), Val::from(cp(whole.start()))),
                    (key("length"), Val::from(0isize)),
                    (key("string"), Val::from(String::new())),
                    (key("captures"), Val::Arr(Vec::new().into())),
                ];
                matches.push(Val::obj(m.into_iter().collect()));
            }
            // Past the empty match by one character.
            start = whole.end() + s[whole.end()..].chars().next().map_or(1, char::len_utf8);
        } else {
            let captures: Vec<Val> = (1..caps.len())
                .map(|g| {
                    let name = names[g].map_or(Val::Null, key);
                    let fields = match caps.get(g) {
                        Some(m) => [
                            (key("offset"), Val::from(cp(m.start()))),
                            (key("length"), Val::from(m.as_str().chars().count())),
                            (key("string"), Val::from(m.as_str().to_string())),
                            (key("name"), name),
                        ],
                        None => [
                            (key("offset"), Val::from(-1isize)),
                            (key("string"), Val::Null),
                            (key("length"), Val::from(0isize)),
                            (key("name"), name),
                        ],
                    };
                    Val::obj(fields.into_iter().collect())
                })
                .collect();
            let m = [
                (key("offset"), Val::from(cp(whole.start()))),
                (key("length"), Val::from(whole.as_str().chars().count())),
                (key("string"), Val::from(whole.as_str().to_string())),
                (key("captures"), captures.into_iter().collect()),
            ];
            matches.push(Val::obj(m.into_iter().collect()));
            start = whole.end();
        }
        if !global || start >= s.len() {
            break;
        }
    }
    if test {
        return Ok(Val::Bool(!matches.is_empty()));
    }
    Ok(matches.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reviewhost_tool::NO_LIMIT;

    /// `jq -c PROGRAM` on `input` (stdin): stdout, stderr, status.
    fn jq_c(program: &str, input: &str) -> (String, String, i32) {
        let (mut out, mut errs) = (Vec::new(), Vec::new());
        let args: Vec<String> = ["-c", program].iter().map(|a| a.to_string()).collect();
        let mut io = Io {
            stdin: input.as_bytes(),
            stdout: &mut out,
            stderr: &mut errs,
            stdout_limit: NO_LIMIT,
            unnamed_file: None,
        };
        let status = jq(&args, &Ctx::new("/nonexistent"), &mut io);
        (String::from_utf8(out).unwrap(), String::from_utf8(errs).unwrap(), status)
    }

    fn out(program: &str, input: &str) -> String {
        let (out, errs, status) = jq_c(program, input);
        assert_eq!(status, 0, "{program}: {errs}");
        out
    }

    #[test]
    fn del_deletes_several_paths_at_once() {
        // J1, J15
        assert_eq!(out("del(.[0], .[1])", r#"["a","b","c"]"#), "[\"c\"]\n");
        assert_eq!(out("del(.[1], .[-6], .[2], .[-3:9])", "[0,1,2,3,4,5,6,7,8,9]"), "[0,3,5,6,9]\n");
        assert_eq!(out("del(.)", "[1]"), "null\n");
        assert_eq!(out("delpaths([[-200]])", "[1,2,3]"), "[1,2,3]\n");
        assert_eq!(out("del(.a)", r#"{"a":1,"b":2,"c":3}"#), "{\"b\":2,\"c\":3}\n");
        assert_eq!(out("try delpaths(0) catch .", "null"), "\"Paths must be specified as an array\"\n");
    }

    #[test]
    fn join_as_jq() {
        // J2
        assert_eq!(out("join(\",\")", r#"["a",null,1,true]"#), "\"a,,1,true\"\n");
        assert_eq!(
            out("try join(\",\") catch .", r#"["1",[3,4,5]]"#),
            "\"string (\\\"1,\\\") and array ([3,4,5]) cannot be added\"\n"
        );
    }

    #[test]
    fn leading_dot_number() {
        // J3
        assert_eq!(out("[.[] | select(. > .5)]", "[0.25,1]"), "[1]\n");
    }

    #[test]
    fn division_by_zero_is_an_error() {
        // J4
        assert_eq!(
            out("try (1 / .) catch .", "0"),
            "\"number (1) and number (0) cannot be divided because the divisor is zero\"\n"
        );
        assert_eq!(out("[.[] | (1 / .)?]", "[1,0,-1]"), "[1,-1]\n");
        assert_eq!(jq_c("1/0", "null").2, EXIT_COMPILE);
        assert_eq!(out("[(1,2) / (1,2)]", "null"), "[1,2,0.5,1]\n");
        // jq's order of outputs for every binary operator: the right operand's outer.
        assert_eq!(out("[(1,2) - (10,20)]", "null"), "[-9,-8,-19,-18]\n");
        assert_eq!(out("[(1,2) < (1,2)]", "null"), "[false,false,true,false]\n");
    }

    #[test]
    fn from_entries_takes_jq_names() {
        // J5 (`k`/`v` as in jq 1.7)
        let input = r#"[{"key":"a","value":1},{"Key":"b","Value":2},{"name":"c","value":3},{"Name":"d","Value":4},{"k":"e","v":5}]"#;
        assert_eq!(out("from_entries", input), "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5}\n");
    }

    #[test]
    fn destructuring_alternatives() {
        // J6
        assert_eq!(out(".[] as [$a] ?// $a | $a", "[[1],2]"), "1\n2\n");
        assert_eq!(
            out(".[] as [$a] ?// [$b] | if $a != null then error(\"x\") else {$a,$b} end", "[[3]]"),
            "{\"a\":null,\"b\":3}\n"
        );
        let (_, errs, status) = jq_c("reduce .[] as [$a] ?// $a (0; . + $a)", "[[1],2]");
        assert_eq!((errs.contains("?//"), status), (true, EXIT_COMPILE));
    }

    #[test]
    fn object_pattern_binds_a_destructured_key() {
        // J7
        assert_eq!(out(". as {$a, $b:[$c]} | [$a, $b, $c]", r#"{"a":1,"b":[2]}"#), "[1,[2],2]\n");
    }

    #[test]
    fn sql_and_stream_builtins() {
        // J8
        assert_eq!(out("[range(5;8) | IN(range(6))]", "null"), "[true,false,false]\n");
        assert_eq!(out("INDEX(.[]; .id)", r#"[{"id":1},{"id":"x"}]"#), "{\"1\":{\"id\":1},\"x\":{\"id\":\"x\"}}\n");
        assert_eq!(out("[tostream]", r#"{"a":[1]}"#), "[[[\"a\",0],1],[[\"a\",0]],[[\"a\"]]]\n");
        assert_eq!(out("fromstream(tostream)", r#"{"a":[1,{"b":2}]}"#), "{\"a\":[1,{\"b\":2}]}\n");
        assert_eq!(out("[1 | truncate_stream([[0],1],[[1,0],2],[[1,0]],[[1]])]", "null"), "[[[0],2],[[0]]]\n");
        assert_eq!(out("builtins | map(select(. == \"map/1\")) | length", "null"), "1\n");
    }

    #[test]
    fn assignment_pads_and_creates_through_null() {
        // J9
        assert_eq!(out(".[5] = 1", "[1,2,3]"), "[1,2,3,null,null,1]\n");
        assert_eq!(out(".a.b += 1", "{}"), "{\"a\":{\"b\":1}}\n");
        assert_eq!(out(".[] |= . + 1", "[1,2]"), "[2,3]\n");
    }

    #[test]
    fn nth_as_jq() {
        // J10
        assert_eq!(out("[nth(1,2; .[])]", r#"["a","b","c"]"#), "[\"b\",\"c\"]\n");
        assert_eq!(out("try nth(-1; .[]) catch .", "[1]"), "\"nth doesn't support negative indices\"\n");
    }

    #[test]
    fn slices_of_null_and_fractional_indices() {
        // J11
        assert_eq!(out(".[1:3]", "null"), "null\n");
        assert_eq!(out(".[1.2:3.5]", "[0,1,2,3,4,5]"), "[1,2,3]\n");
        assert_eq!(out(".[1.1] = 5", "[0,1,2]"), "[0,5,2]\n");
        assert_eq!(out(".[1.5:3.5] = [\"x\"]", "[0,1,2,3,4]"), "[0,\"x\",4]\n");
    }

    #[test]
    fn nan_as_an_index_or_a_multiplier() {
        // J12
        assert_eq!(out("[has(nan), .[nan]]", "[0,1,2]"), "[false,null]\n");
        assert_eq!(out("[. * (nan, 0, 2)]", "\"ab\""), "[null,null,\"abab\"]\n");
    }

    #[test]
    fn setpath_type_errors() {
        // J13
        assert_eq!(out("try setpath([1]; 1) catch .", r#"{"a":1}"#), "\"Cannot index object with number\"\n");
        assert_eq!(out("setpath([\"a\", 1]; 1)", "null"), "{\"a\":[null,1]}\n");
    }

    #[test]
    fn constant_number_key_is_a_compile_error() {
        // J14
        assert_eq!(jq_c("{(0):1}", "null").2, EXIT_COMPILE);
        assert_eq!(out("{(\"a\"):1}", "null"), "{\"a\":1}\n");
    }

    #[test]
    fn negative_flatten_depth() {
        // J16
        assert_eq!(out("try flatten(-1) catch .", "[[1]]"), "\"flatten depth must not be negative\"\n");
        assert_eq!(out("flatten(1)", "[[[1]]]"), "[[1]]\n");
    }

    #[test]
    fn numbers_are_doubles() {
        // J17
        assert_eq!(out(". - 10", "13911860366432393"), "13911860366432382\n");
        assert_eq!(out("[., tostring]", "9007199254740993"), "[9007199254740992,\"9007199254740992\"]\n");
        assert_eq!(out("[1.0, (1.0 | tostring), 100000000000000000000]", "null"), "[1,\"1\",1e+20]\n");
        assert_eq!(out(".[.[1]]", "[5, 1000000000000000000]"), "null\n");
    }

    /// `fromjson` reads as jq 1.6's parser: any run of characters between blanks, quotes
    /// and brackets is one literal, taken when `strtod` takes all of it, and the first
    /// error is reported with its line and column (what `try ... catch .` shows).
    #[test]
    fn fromjson_reads_as_jq_1_6() {
        let caught = |text: &str| out(".[] | try fromjson catch .", &format!("[{}]", text));
        assert_eq!(
            caught(r#""NaN", "-NaN", "NaN1", "Infinity", "-inf", "1e1000", "1.", ".5", "+1", "01""#),
            "null\nnull\n\"Invalid numeric literal at EOF at line 1, column 4 (while parsing 'NaN1')\"\n\
             1.7976931348623157e+308\n-1.7976931348623157e+308\n1.7976931348623157e+308\n1\n0.5\n1\n1\n"
        );
        assert_eq!(
            caught(r#""nan", "tru", "[1,]", "1 2", "{\"a\" 1}", "NaN1\n", "", "[1:2]", "1]""#),
            "\"Invalid literal at EOF at line 1, column 3 (while parsing 'nan')\"\n\
             \"Invalid literal at EOF at line 1, column 3 (while parsing 'tru')\"\n\
             \"Expected another array element at line 1, column 4 (while parsing '[1,]')\"\n\
             \"Unexpected extra JSON values (while parsing '1 2')\"\n\
             \"Expected separator between values at line 1, column 7 (while parsing '{\\\"a\\\" 1}')\"\n\
             \"Invalid numeric literal at line 2, column 0 (while parsing 'NaN1\\n')\"\n\
             \"Expected JSON value (while parsing '')\"\n\
             \"':' not as part of an object at line 1, column 3 (while parsing '[1:2]')\"\n\
             \"Unmatched ']' at line 1, column 2 (while parsing '1]')\"\n"
        );
        assert_eq!(
            out("fromjson", r#""{\"a\":1,\"a\":[2],\"b\":\"\\u00e9\\ud83d\\ude00\"}""#),
            "{\"a\":[2],\"b\":\"é😀\"}\n"
        );
        assert_eq!(out("try fromjson catch .", "1"), "\"number (1) only strings can be parsed\"\n");
    }

    #[test]
    fn byte_order_mark_and_negative_nan_in_input() {
        // J18, J19
        assert_eq!(out(".", "\u{feff}\"bom\""), "\"bom\"\n");
        assert_eq!(out("map(. == null)", "[1,-NaN]"), "[false,false]\n");
        assert_eq!(out(".", "\"-NaN\""), "\"-NaN\"\n");
    }

    #[test]
    fn match_as_jq() {
        // J20
        assert_eq!(
            out("[match([\"(o)(x)?\", \"g\"])]", "\"fo\""),
            "[{\"offset\":1,\"length\":1,\"string\":\"o\",\"captures\":[{\"offset\":1,\"length\":1,\"string\":\"o\",\"name\":null},{\"offset\":-1,\"string\":null,\"length\":0,\"name\":null}]}]\n"
        );
        assert_eq!(out("[match(\"\"; \"g\") | .offset]", "\"ab\""), "[0,1]\n");
        assert_eq!(out("[test(\"( )*\"; \"gn\"), test([\"A\", \"i\"])]", "\"a\""), "[false,true]\n");
        assert_eq!(out("capture(\"(?<x>b)\")", "\"ab\""), "{\"x\":\"b\"}\n");
        assert_eq!(out("try test(\"a\"; \"q\") catch .", "\"a\""), "\"q is not a valid modifier string\"\n");
    }

    #[test]
    fn unpadded_base64() {
        // J21
        assert_eq!(out("@base64d", "\"cWl4YmF6Cg\""), "\"qixbaz\\n\"\n");
    }

    #[test]
    fn input_past_the_end() {
        // J22
        assert_eq!(out("try input catch .", "1"), "\"break\"\n");
        assert_eq!(out("[., input]", "1 2"), "[1,2]\n");
    }
}
