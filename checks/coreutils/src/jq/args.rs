//! jq's command line: its options (getopt_long without abbreviations), `--arg`-style
//! options that take two arguments, `--args`/`--jsonargs` positional values, and the
//! usage errors (exit 2) in jq's words. Kept apart from running the filter because jq
//! reads its options its own way, not GNU's.

use jaq_json::Val;
use reviewhost_tool::getopt::{HasArg, Item, Long, Name, Order, Parser, Spec};
use reviewhost_tool::{Ctx, Io};

use super::EXIT_USAGE;
use super::input::{parse_many, parse_single};
use crate::common::read_operand;

/// Largest `--indent` jq accepts.
const MAX_INDENT: usize = 7;

/// The command line, parsed.
#[derive(Default)]
pub(super) struct Opts {
    pub(super) raw: bool,
    pub(super) join: bool,
    pub(super) compact: bool,
    pub(super) exit_status: bool,
    pub(super) null_input: bool,
    pub(super) slurp: bool,
    pub(super) raw_input: bool,
    pub(super) sort_keys: bool,
    pub(super) tab: bool,
    pub(super) indent: Option<usize>,
    pub(super) filter: Option<String>,
    pub(super) filter_file: Option<String>,
    pub(super) files: Vec<String>,
    /// `$name` variables in order.
    pub(super) named: Vec<(String, Val)>,
    pub(super) positional: Vec<Val>,
}

pub(super) fn usage_error(io: &mut Io, msg: &str) -> i32 {
    io.stderr.extend_from_slice(format!("jq: error: {msg}\nUse jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://jqlang.github.io/jq\n").as_bytes());
    EXIT_USAGE
}

/// jq's options. Those with arguments (`-f`, `--arg NAME VALUE`, ...) are declared
/// without one and take the next arguments themselves, as jq does: `-fr FILE` reads
/// `FILE` and goes on with `-r`, and `--indent=3` is an unknown argument.
pub(super) const SPEC: Spec = Spec {
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
pub(super) fn parse_args(args: &[String], ctx: &Ctx, io: &mut Io) -> Result<Opts, i32> {
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
            // -c, --tab and --indent each set the layout: the last one counts, as in jq.
            Name::Short('c') => (o.compact, o.tab, o.indent) = (true, false, None),
            Name::Short('e') => o.exit_status = true,
            Name::Short('n') => o.null_input = true,
            Name::Short('s') => o.slurp = true,
            Name::Short('R') => o.raw_input = true,
            Name::Short('S') => o.sort_keys = true,
            Name::Short('C' | 'M') => {}
            Name::Long("tab") => (o.compact, o.tab, o.indent) = (false, true, None),
            Name::Long("args") => positional_mode = Some(false),
            Name::Long("jsonargs") => positional_mode = Some(true),
            Name::Long("indent") => {
                let v = take(&mut parser, 1, "--indent", io)?;
                match v[0].parse::<usize>() {
                    Ok(n) if n <= MAX_INDENT => (o.compact, o.tab, o.indent) = (n == 0, false, Some(n)),
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
