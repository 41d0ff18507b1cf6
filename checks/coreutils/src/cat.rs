//! `cat`: concatenate files, with GNU's `-n`, `-b`, `-s`, `-E`, `-T`, `-v` and their combinations (`-A`, `-e`, `-t`).
//!
//! GNU coreutils 9.x under `LC_ALL=C.UTF-8`.

use reviewhost_tool::getopt::{HasArg, Long, Spec};
use reviewhost_tool::{Ctx, Io};

use crate::common::{err, parse_opts, read_operand, usage};

const CAT_NUMBER_WIDTH: usize = 6;

/// `cat [-nbsEAvTet] [FILE...]`.
pub fn cat(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    const SPEC: Spec = Spec::gnu(
        "nbsEAvTetu",
        &[
            Long::short("number", 'n', HasArg::No),
            Long::short("number-nonblank", 'b', HasArg::No),
            Long::short("squeeze-blank", 's', HasArg::No),
            Long::short("show-ends", 'E', HasArg::No),
            Long::short("show-all", 'A', HasArg::No),
            Long::short("show-nonprinting", 'v', HasArg::No),
            Long::short("show-tabs", 'T', HasArg::No),
        ],
    );
    let p = match parse_opts("cat", args, &SPEC) {
        Ok(p) => p,
        Err(m) => return usage(io, &m, 1),
    };
    let (mut number, mut nonblank, mut squeeze, mut ends, mut tabs, mut nonprint) =
        (false, false, false, false, false, false);
    for (c, _) in &p.opts {
        match c {
            'n' => number = true,
            'b' => nonblank = true,
            's' => squeeze = true,
            'E' => ends = true,
            'T' => tabs = true,
            'v' => nonprint = true,
            'A' => (nonprint, ends, tabs) = (true, true, true),
            'e' => (nonprint, ends) = (true, true),
            't' => (nonprint, tabs) = (true, true),
            _ => {}
        }
    }
    if nonblank {
        number = false;
    }
    let files = if p.operands.is_empty() { vec!["-".to_string()] } else { p.operands };
    let plain = !(number || nonblank || squeeze || ends || tabs || nonprint);
    let mut status = 0;
    let mut line_no = 0u64;
    let mut prev_blank = false;
    // Whether the previous file ended mid-line: GNU cat -n does not restart numbering there.
    let mut at_line_start = true;
    for f in &files {
        let data = match read_operand(f, ctx, io) {
            Ok(d) => d,
            Err(e) => {
                err(io, "cat", &format!("{f}: {}", e.msg()));
                status = 1;
                continue;
            }
        };
        if plain {
            io.stdout.extend_from_slice(&data);
            continue;
        }
        for line in data.split_inclusive(|&b| b == b'\n') {
            let has_nl = line.last() == Some(&b'\n');
            let body = if has_nl { &line[..line.len() - 1] } else { line };
            let blank = body.is_empty() && has_nl && at_line_start;
            if squeeze && blank && prev_blank {
                continue;
            }
            if at_line_start && (number || (nonblank && !blank)) {
                line_no += 1;
                io.stdout.extend_from_slice(format!("{line_no:>CAT_NUMBER_WIDTH$}\t").as_bytes());
            }
            for &b in body {
                if tabs && b == b'\t' {
                    io.stdout.extend_from_slice(b"^I");
                } else if nonprint && b != b'\t' {
                    push_visible(b, io.stdout);
                } else {
                    io.stdout.push(b);
                }
            }
            if has_nl {
                if ends {
                    io.stdout.push(b'$');
                }
                io.stdout.push(b'\n');
                prev_blank = blank;
            }
            at_line_start = has_nl;
        }
    }
    status
}

/// `cat -v` notation: `^X` for controls, `M-` for high bytes, `^?` for DEL.
fn push_visible(b: u8, out: &mut Vec<u8>) {
    let mut c = b;
    if c >= 0x80 {
        out.extend_from_slice(b"M-");
        c -= 0x80;
    }
    if c < 0x20 {
        out.push(b'^');
        out.push(c + 0x40);
    } else if c == 0x7f {
        out.extend_from_slice(b"^?");
    } else {
        out.push(c);
    }
}
