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
//!   infinities as ±DBL_MAX. The input, `fromjson` and `tonumber` read as jq 1.6
//!   (`jq/parse.rs`): a literal is any run between blanks, quotes and brackets that
//!   `strtod` takes whole (`NaN`, `1.`, `Infinity`, `-0`; `NaN1` is an error), and errors
//!   carry jq's words, line and column. `-R` reads the files as one text.
//! - Exit status as jq 1.6 sets it: the last input's run counts (5 for an uncaught
//!   error, with `-e` 4 for no output and 1 for a last output false or null), an input
//!   that does not parse stops with 4, a file that cannot be opened makes it 2.
//! - jq 1.6's `//` raises an error of its left side (jaq's swallows it); `error(null)`
//!   and `null | error` give no value; `add`, `reverse`, `any`, `all`, `ltrimstr`,
//!   `rtrimstr` (anything but two strings is left as it is) and `@text`, `@html`,
//!   `@uri`, `@base64`, `@sh` (numbers in jq's format) are jq 1.6's definitions. The
//!   last of `-c`, `--tab` and `--indent N` sets the layout.
//!
//! Loud instead of different: a `?//` the rewriting cannot place (in a `reduce`/`foreach`
//! pattern, inside a string interpolation) is the compile error (exit 3) `the
//! destructuring alternative ?// is only supported as `E as P1 ?// P2 ... | BODY` in the
//! reviewhost sandbox` (J6).
//!
//! Still different, on purpose: error messages are mostly jaq's wording; `|= empty`
//! deletes every matched element (as jq 1.7; jq 1.6 leaves every other one); `.a?//1`
//! (no spaces) is `.a? // 1`, where jq's lexer reads `?//` and fails.
//!
//! Still different, not yet matched: an object indexed by a number (`{} | .[0]`, and so
//! `first`, `last`, `reverse` of a non-empty object) is null, where jq 1.6 raises "Cannot
//! index object with number"; jq 1.6's `try` and `?` also catch an error raised further
//! down the pipe after the body gave a value, the sandbox's only the body's (as jq 1.7);
//! `input_line_number` is not defined (a compile error, exit 3); builtins given a value of
//! a type jq 1.6 leaves alone or handles otherwise (`index`, `indices`, `contains`,
//! `inside`, `flatten`, `implode`, `to_entries` on arrays, `@base64d`) may differ.
//!
//! This file runs a filter: it loads the program with jq's definitions, feeds it the
//! inputs and maps the outcome to jq's exit status. The rest is one concern a file:
//! `jq/args.rs` (the command line), `jq/input.rs` (reading inputs), `jq/output.rs`
//! (printing), `jq/natives.rs` (native functions), `jq/parse.rs` (jq 1.6's JSON reader),
//! `jq/source.rs` (rewriting the program's text) and `jq/term.rs` (rewriting the parsed
//! program).

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, DataT, Lut, Vars, data::HasLut, native};
use jaq_json::Val;
use jaq_std::input::{HasInputs, Inputs, RcIter};
use reviewhost_tool::{Ctx, Io};

use crate::common::read_operand;

mod args;
mod input;
mod natives;
mod output;
mod parse;
mod source;
mod term;

use args::{parse_args, usage_error};
use input::read_inputs;
use natives::jq_funs;
use output::{printer, write_value};

/// jq's exit statuses.
const EXIT_USAGE: i32 = 2;
const EXIT_COMPILE: i32 = 3;
const EXIT_NO_OUTPUT: i32 = 4;
const EXIT_RUNTIME: i32 = 5;
/// jq 1.6's own codes for a run: no output, and a last output false or null (`-e`
/// gives them as 4 and 1).
const EXIT_NO_RESULT: i32 = 14;
const EXIT_FALSE_RESULT: i32 = 11;
/// The error for a destructuring alternative the rewriting could not place (J6).
const ALT_UNSUPPORTED: &str =
    "the destructuring alternative ?// is only supported as `E as P1 ?// P2 ... | BODY` in the reviewhost sandbox";

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
    // jq 1.6's status: each input's run sets it (the last one counts), 5 for an
    // uncaught error, 14 for no output and 11 for a last output false or null (with
    // `-e` they become 4 and 1, else 0); an input that does not parse stops the
    // reading with 4; a file that cannot be opened makes it 2 in the end.
    let mut status = 0;
    let mut unopened = false;
    // Input errors are printed when the main loop reaches them (and skipped by `inputs`).
    let input_iter = items.into_iter();
    let stream = RcIter::new(input_iter);
    let inputs: Inputs<Val> = &stream;
    let data = RunData { lut: &filter.lut, inputs };
    let pp = printer(&o);
    let run = |input: Val, io: &mut Io| -> Result<i32, i32> {
        let jctx = jaq_core::Ctx::<JqData>::new(&data, Vars::new(var_vals.iter().cloned()));
        let mut status = EXIT_NO_RESULT;
        for r in filter.id.run((jctx, input)) {
            match r {
                Ok(v) => {
                    write_value(&v, &o, &pp, io.stdout);
                    status = match v {
                        Val::TStr(_) | Val::BStr(_) if o.raw => 0,
                        Val::Null | Val::Bool(false) => EXIT_FALSE_RESULT,
                        _ => 0,
                    };
                }
                Err(exn) => match exn.get_err() {
                    Ok(e) => {
                        let msg = match e.into_val() {
                            Val::TStr(s) | Val::BStr(s) => String::from_utf8_lossy(&s).into_owned(),
                            other => format!("{other} (not a string)"),
                        };
                        io.stderr.extend_from_slice(format!("jq: error (at <unknown>): {msg}\n").as_bytes());
                        return Ok(EXIT_RUNTIME);
                    }
                    Err(exn) => return Err(exn.get_halt().unwrap_or(EXIT_RUNTIME)),
                },
            }
        }
        Ok(status)
    };
    if o.null_input {
        match run(Val::Null, io) {
            Ok(code) => status = code,
            Err(code) => return code,
        }
    } else {
        loop {
            let next = (&stream).next();
            match next {
                None => break,
                Some(Err(msg)) => {
                    io.stderr.extend_from_slice(msg.as_bytes());
                    io.stderr.push(b'\n');
                    if msg.starts_with(input::PARSE_ERROR) {
                        status = EXIT_NO_OUTPUT;
                        break;
                    }
                    unopened = true;
                }
                Some(Ok(v)) => match run(v, io) {
                    Ok(code) => status = code,
                    Err(code) => return code,
                },
            }
        }
    }
    if unopened {
        return EXIT_USAGE;
    }
    match status {
        EXIT_NO_RESULT | EXIT_FALSE_RESULT if o.exit_status => status - 10,
        EXIT_NO_RESULT | EXIT_FALSE_RESULT => 0,
        _ => status,
    }
}

#[cfg(test)]
mod tests;
