//! `uniq`: adjacent duplicate lines, with `-c`, `-d`, `-D`, `-u`, `-i`, `-f`, `-s`, `-w`.
//!
//! GNU coreutils 9.x under `LC_ALL=C.UTF-8`.
//!
//! Left out on purpose: an OUTPUT operand other than `-` (it writes a file).

use reviewhost_tool::getopt::{HasArg, Long, Spec};
use reviewhost_tool::{Ctx, Io};

use crate::common::{ReadError, err, is_blank, parse_opts, read_operand, split_lines, usage, usage_try};

/// `uniq -c`'s width, fixed by GNU's format (`%7d `).
const UNIQ_COUNT_WIDTH: usize = 7;

/// `uniq [-cdDuiz] [-f N] [-s N] [-w N] [INPUT]`.
pub fn uniq(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    const SPEC: Spec = Spec::gnu(
        "f:s:w:cdDuiz",
        &[
            Long::short("count", 'c', HasArg::No),
            Long::short("repeated", 'd', HasArg::No),
            Long::short("all-repeated", 'D', HasArg::No),
            Long::short("unique", 'u', HasArg::No),
            Long::short("ignore-case", 'i', HasArg::No),
            Long::short("zero-terminated", 'z', HasArg::No),
            Long::short("skip-fields", 'f', HasArg::Required),
            Long::short("skip-chars", 's', HasArg::Required),
            Long::short("check-chars", 'w', HasArg::Required),
        ],
    );
    let p = match parse_opts("uniq", args, &SPEC) {
        Ok(p) => p,
        Err(m) => return usage(io, &m, 1),
    };
    let (mut count, mut repeated, mut all_repeated, mut unique, mut icase) = (false, false, false, false, false);
    let (mut skip_fields, mut skip_chars, mut check_chars) = (0usize, 0usize, usize::MAX);
    let mut delim = b'\n';
    for (c, v) in &p.opts {
        let num = |what: &str, io: &mut Io| -> Result<usize, i32> {
            let v = v.as_deref().unwrap_or("");
            v.parse::<usize>().map_err(|_| {
                err(io, "uniq", &format!("{v}: invalid number of {what}"));
                1
            })
        };
        match c {
            'c' => count = true,
            'd' => repeated = true,
            'D' => all_repeated = true,
            'u' => unique = true,
            'i' => icase = true,
            'z' => delim = 0,
            'f' => match num("fields to skip", io) {
                Ok(n) => skip_fields = n,
                Err(s) => return s,
            },
            's' => match num("bytes to skip", io) {
                Ok(n) => skip_chars = n,
                Err(s) => return s,
            },
            'w' => match num("bytes to compare", io) {
                Ok(n) => check_chars = n,
                Err(s) => return s,
            },
            _ => {}
        }
    }
    if all_repeated && count {
        return usage_try(io, "uniq", "printing all duplicated lines and repeat counts is meaningless", 1);
    }
    match p.operands.len() {
        0 | 1 => {}
        // `-` as OUTPUT is standard output: nothing is written.
        2 if p.operands[1] == "-" => {}
        2 => {
            err(io, "uniq", "writing an output file is not supported in the sandbox");
            return 1;
        }
        _ => return usage_try(io, "uniq", &format!("extra operand '{}'", p.operands[2]), 1),
    }
    let name = p.operands.first().cloned().unwrap_or_else(|| "-".into());
    let data = match read_operand(&name, ctx, io) {
        Ok(d) => d,
        Err(ReadError::IsDir) => {
            err(io, "uniq", &format!("error reading '{name}'"));
            return 1;
        }
        Err(ReadError::Other(m)) => {
            err(io, "uniq", &format!("{name}: {m}"));
            return 1;
        }
    };
    let key = |l: &[u8]| -> Vec<u8> {
        let mut i = 0;
        for _ in 0..skip_fields {
            while i < l.len() && is_blank(l[i]) {
                i += 1;
            }
            while i < l.len() && !is_blank(l[i]) {
                i += 1;
            }
        }
        i = (i.saturating_add(skip_chars)).min(l.len());
        let end = i.saturating_add(check_chars).min(l.len());
        let k = &l[i..end];
        if icase { k.to_ascii_lowercase() } else { k.to_vec() }
    };
    let lines = split_lines(&data, delim);
    let mut i = 0;
    while i < lines.len() {
        let k = key(lines[i]);
        let mut j = i + 1;
        while j < lines.len() && key(lines[j]) == k {
            j += 1;
        }
        let n = j - i;
        if all_repeated {
            if n > 1 {
                for l in &lines[i..j] {
                    io.stdout.extend_from_slice(l);
                    io.stdout.push(delim);
                }
            }
        } else if (n > 1 || !repeated) && (n == 1 || !unique) {
            if count {
                io.stdout.extend_from_slice(format!("{n:>UNIQ_COUNT_WIDTH$} ").as_bytes());
            }
            io.stdout.extend_from_slice(lines[i]);
            io.stdout.push(delim);
        }
        i = j;
    }
    0
}
