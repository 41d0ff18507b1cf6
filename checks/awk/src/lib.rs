//! `awk` in its read-only uses, for the shell interpreter in `checks/shell`: a small
//! POSIX awk interpreter (lexer, parser to an AST, tree-walking interpreter) over the
//! sandbox's [`Ctx`] and in-memory streams.
//!
//! No crate fitted: the awk interpreters on crates.io (`awk-rs`, `rawk-core`, `awkrs`)
//! open files and run commands themselves, have no bound on a runaway program, or do
//! not build for wasm32-wasip2 (JIT, GMP).
//!
//! # Supported
//!
//! `awk [-F fs] [-v var=val]... [-f progfile]... [--] 'program' [var=val | file]...`
//! (`-f` reads through the [`Ctx`]; `-f -` reads the program from stdin). BEGIN and END, pattern-action rules, `/re/` and
//! expression patterns, ranges `p1, p2`; fields `$0 $1 $NF`, assignment to fields, to
//! `$0` and to NF (rebuilding the record with OFS); NF NR FNR FS OFS ORS RS (one
//! character, `""` for paragraphs, longer as a regex) SUBSEP FILENAME RSTART RLENGTH
//! CONVFMT OFMT ARGC ARGV ENVIRON; associative and `a[i,j]` arrays, `in`, `delete`;
//! every operator, with awk's strnum comparison rules; if, while, do, for, for-in,
//! break, continue, next, nextfile, exit (END still runs), getline (`getline`,
//! `getline var`, `getline [var] < file`); print and printf (C's conversions, `*`
//! widths); length (of arrays too, and without parentheses) substr index split sub
//! gsub match sprintf tolower toupper int sqrt exp log sin cos atan2 rand srand close
//! fflush, gawk's `match(s, re, arr)` and `split(s, a, sep, seps)`, printf's positional
//! `%N$`, user functions (array parameters by reference, recursion). Regular
//! expressions are POSIX EREs with awk's escapes, matched leftmost-longest
//! (`pattern.rs`). `print > "/dev/stderr"` and `"/dev/stdout"` write to the streams,
//! `> "/dev/null"` discards.
//!
//! # Refused (exit status 2, `awk: ... is not supported in the reviewhost sandbox
//! (read-only)`), before anything runs
//!
//! Output redirection to files (`print > file`, `>>`), pipes (`print | "cmd"`,
//! `"cmd" | getline`), `system()`. gawk's own
//! functions (`gensub`, `asort`, `strftime`...) and special variables whose meaning
//! this awk lacks (`IGNORECASE`, `PROCINFO`, `RT`, `FPAT`...), its `@` syntax
//! (`@load`, `@include`, `@namespace`, typed regexes `@/re/`, indirect calls), its
//! two-way pipe `|&` and its arrays of arrays (`a[i][j]`) are an error naming them
//! (exit 2), not a silent misreading or a bare syntax error.
//!
//! # Limits
//!
//! A run stops with an error after [`MAX_STEPS`] loop iterations and function
//! calls, at [`MAX_CALL_DEPTH`] nested calls (or a stack budget, whichever
//! comes first), and the parser refuses programs nested deeper than
//! [`MAX_NESTING`]: no hang, no stack overflow. A field index or printf width
//! is bounded too. Output past [`Io::stdout_limit`] is dropped as the other tools drop
//! it, the program running on to its real exit status.
//!
//! # Deliberate differences from the reference
//!
//! The reference is gawk 5.2 (checked by `tests/differential.rs`); where gawk and mawk
//! differ this follows gawk: `017` in the source is octal, integral numbers print in
//! full (`2^53`, `1e30`), `+inf`/`-nan` are spelled with a sign, `"\."` in a string
//! is a plain `.`, a call with more arguments than parameters evaluates and ignores the
//! extra ones, `substr` truncates its start and length toward zero and a start before 1
//! starts at 1 without shortening the length, and `0x1A` in input is not a number.
//! Differences from gawk itself:
//!
//! - ENVIRON is empty: the sandbox has no environment.
//! - `srand()` without an argument seeds with 0, not the time: runs are reproducible.
//!   `rand()`'s sequence is not gawk's.
//! - for-in visits keys in insertion order (awk leaves the order unspecified), and the
//!   keys are strings as POSIX says: gawk compares an integer-looking key with a number
//!   numerically (`for (k in a) if (k < 9)`), this compares it as a string.
//! - A negated bracket (`[^a]`) and `\s` in a regex never match a newline (the regex
//!   translation is grep's, which matches line by line); this shows only in records
//!   holding newlines (`RS=""`).
//! - Strings are bytes; `length`, `substr`, `index`, `match`, `%c` and printf widths
//!   count UTF-8 characters when the string is valid UTF-8 (gawk in a UTF-8 locale),
//!   bytes otherwise.
//! - Error messages use gawk's words without its `cmd. line:1:` source excerpts, and
//!   gawk's warnings (an unknown escape, extra arguments) are not printed. Syntax errors
//!   exit 1 (gawk; mawk exits 2); a division by zero is always a run-time error (exit
//!   2), where gawk reports one between constants while parsing (exit 1).
//! - `print > "/dev/stderr"` (or `"/dev/stdout"`, `"/dev/null"`) writes to that
//!   stream, as in gawk and mawk; any other redirection target is refused.
//! - A main-input file that cannot be read stops the run (exit 2) as in gawk; a
//!   directory operand is skipped with a warning.
//! - Only `awk` is provided, not the `gawk`/`mawk` command names.

mod arrays;
mod ast;
mod builtins;
mod error;
mod eval;
mod exec;
mod format;
mod input;
mod interp;
mod lexer;
mod output;
mod parse_expr;
mod parser;
mod pattern;
mod reading;
mod record;
mod run;
mod text;
mod value;

use reviewhost_tool::{Ctx, EXIT_TROUBLE, Io, Program};

use crate::run::Invocation;

pub use interp::{MAX_CALL_DEPTH, MAX_STEPS};
pub use parser::MAX_NESTING;

const USAGE: &str = "usage: awk [-F fs][-v var=value][prog | -f progfile][file ...]\n";

/// `awk`: `args` excludes the program name.
pub fn awk(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    let mut invocation = Invocation { assignments: Vec::new(), field_sep: None, operands: Vec::new() };
    let mut sources: Vec<String> = Vec::new();
    let mut i = 0;
    // Options come before the program text, as in gawk and mawk.
    while i < args.len() {
        let arg = &args[i];
        if arg == "--" {
            i += 1;
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        let letter = arg.as_bytes()[1];
        let attached = &arg[2..];
        let mut value = || -> Option<String> {
            if !attached.is_empty() {
                return Some(attached.to_string());
            }
            i += 1;
            args.get(i).cloned()
        };
        match letter {
            b'F' | b'v' | b'f' => {
                let Some(v) = value() else {
                    io.stderr.extend_from_slice(
                        format!("awk: option requires an argument -- {}\n", letter as char).as_bytes(),
                    );
                    io.stderr.extend_from_slice(USAGE.as_bytes());
                    return EXIT_TROUBLE;
                };
                match letter {
                    b'F' => invocation.field_sep = Some(lexer::unescape(v.as_bytes())),
                    b'v' => match reading::assignment(v.as_bytes()) {
                        Some((name, val)) => invocation.assignments.push((name.to_string(), val.to_vec())),
                        None => {
                            io.stderr.extend_from_slice(
                                format!("awk: fatal: `{v}' argument to `-v' not in `var=value' form\n").as_bytes(),
                            );
                            return EXIT_TROUBLE;
                        }
                    },
                    // `-f -`: the program is stdin, which the main input then finds read.
                    _ if v == "-" || v == "/dev/stdin" => {
                        sources.push(String::from_utf8_lossy(io.stdin).into_owned());
                        io.stdin = b"";
                    }
                    _ => match read_program(&v, ctx) {
                        Ok(text) => sources.push(text),
                        Err(message) => {
                            io.stderr.extend_from_slice(message.as_bytes());
                            return EXIT_TROUBLE;
                        }
                    },
                }
            }
            _ => {
                let shown = if arg.starts_with("--") { arg.clone() } else { format!("-{}", letter as char) };
                io.stderr.extend_from_slice(format!("awk: option {shown} is not supported\n{USAGE}").as_bytes());
                return EXIT_TROUBLE;
            }
        }
        i += 1;
    }
    let mut rest = args[i.min(args.len())..].iter();
    let text = if sources.is_empty() {
        match rest.next() {
            Some(text) => text.clone(),
            None => {
                io.stderr.extend_from_slice(USAGE.as_bytes());
                return EXIT_TROUBLE;
            }
        }
    } else {
        sources.join("\n")
    };
    invocation.operands = rest.cloned().collect();
    let program = match parser::parse(text.as_bytes()) {
        Ok(program) => program,
        Err(e) => {
            io.stderr.extend_from_slice(e.message().as_bytes());
            return e.status();
        }
    };
    run::run(&program, &invocation, ctx, io)
}

/// A `-f` program file's text, or gawk's message.
fn read_program(name: &str, ctx: &Ctx) -> Result<String, String> {
    ctx.read(&ctx.real(name)).map(|d| String::from_utf8_lossy(&d).into_owned()).map_err(|e| {
        format!("awk: fatal: can't open source file `{name}' for reading: {}\n", reviewhost_tool::io_message(&e))
    })
}

/// The program for a command name, if this crate provides it.
pub fn lookup(name: &str) -> Option<Program> {
    match name {
        "awk" => Some(awk),
        _ => None,
    }
}
