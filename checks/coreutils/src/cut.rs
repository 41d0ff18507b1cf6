//! `cut`: bytes, characters (as bytes, as GNU's) or fields of each line.
//!
//! GNU coreutils 9.x under `LC_ALL=C.UTF-8`.

use reviewhost_tool::getopt::{HasArg, Long, Spec};
use reviewhost_tool::{Ctx, Io};

use crate::common::{err, parse_opts, read_operand, split_lines, usage, usage_try};

/// A list of 1-based inclusive ranges (`usize::MAX` for an open end).
fn parse_list(list: &str, fields: bool) -> Result<Vec<(usize, usize)>, String> {
    let what = if fields { "field" } else { "byte/character position" };
    let numbered = if fields { "fields are numbered from 1" } else { "byte/character positions are numbered from 1" };
    let mut out = Vec::new();
    for part in list.split([',', ' ', '\t']) {
        if part.is_empty() {
            return Err(if fields { numbered.into() } else { format!("invalid {what} list") });
        }
        let num = |s: &str| -> Result<usize, String> {
            if !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("invalid {what} value '{s}'"));
            }
            match s.parse::<usize>() {
                Ok(0) => Err(numbered.into()),
                Ok(n) => Ok(n),
                Err(_) => Err(format!("{what} number '{s}' is too large")),
            }
        };
        let (a, b) = match part.split_once('-') {
            None => {
                let n = num(part)?;
                (n, n)
            }
            Some(("", "")) => return Err("invalid range with no endpoint: -".into()),
            Some(("", e)) => (1, num(e)?),
            Some((s, "")) => (num(s)?, usize::MAX),
            Some((s, e)) => {
                let (s, e) = (num(s)?, num(e)?);
                if e < s {
                    return Err("invalid decreasing range".into());
                }
                (s, e)
            }
        };
        out.push((a, b));
    }
    out.sort();
    Ok(out)
}

fn in_list(list: &[(usize, usize)], n: usize) -> bool {
    list.iter().any(|&(a, b)| a <= n && n <= b)
}

/// `cut -b|-c|-f LIST [-d DELIM] [-s] [--complement] [--output-delimiter S] [FILE...]`.
pub fn cut(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    const OUTPUT_DELIM: char = '\u{1}';
    const COMPLEMENT: char = '\u{2}';
    const SPEC: Spec = Spec::gnu(
        "b:c:f:d:snz",
        &[
            Long::short("bytes", 'b', HasArg::Required),
            Long::short("characters", 'c', HasArg::Required),
            Long::short("fields", 'f', HasArg::Required),
            Long::short("delimiter", 'd', HasArg::Required),
            Long::short("only-delimited", 's', HasArg::No),
            Long::short("zero-terminated", 'z', HasArg::No),
            Long::short("output-delimiter", OUTPUT_DELIM, HasArg::Required),
            Long::short("complement", COMPLEMENT, HasArg::No),
        ],
    );
    let p = match parse_opts("cut", args, &SPEC) {
        Ok(p) => p,
        Err(m) => return usage(io, &m, 1),
    };
    let mut mode: Option<(char, String)> = None;
    let mut delim: Option<String> = None;
    let (mut only_delimited, mut complement) = (false, false);
    let mut out_delim: Option<String> = None;
    let mut line_delim = b'\n';
    for (c, v) in p.opts {
        match c {
            'b' | 'c' | 'f' => {
                if mode.is_some() {
                    return usage_try(io, "cut", "only one list may be specified", 1);
                }
                mode = Some((c, v.unwrap_or_default()));
            }
            'd' => delim = v,
            's' => only_delimited = true,
            'z' => line_delim = 0,
            OUTPUT_DELIM => out_delim = v,
            COMPLEMENT => complement = true,
            _ => {}
        }
    }
    let Some((mode, list)) = mode else {
        return usage_try(io, "cut", "you must specify a list of bytes, characters, or fields", 1);
    };
    let fields = mode == 'f';
    if !fields && delim.is_some() {
        return usage_try(io, "cut", "an input delimiter may be specified only when operating on fields", 1);
    }
    if !fields && only_delimited {
        return usage_try(io, "cut", "suppressing non-delimited lines makes sense\n\tonly when operating on fields", 1);
    }
    let d = match delim.as_deref() {
        None => b'\t',
        Some("") => b'\0',
        Some(s) if s.len() == 1 => s.as_bytes()[0],
        Some(_) => return usage_try(io, "cut", "the delimiter must be a single character", 1),
    };
    let ranges = match parse_list(&list, fields) {
        Ok(r) => r,
        Err(m) => return usage_try(io, "cut", &m, 1),
    };
    let selected = |n: usize| in_list(&ranges, n) != complement;
    let files = if p.operands.is_empty() { vec!["-".to_string()] } else { p.operands };
    let mut status = 0;
    for f in &files {
        let data = match read_operand(f, ctx, io) {
            Ok(d) => d,
            Err(e) => {
                err(io, "cut", &format!("{f}: {}", e.msg()));
                status = 1;
                continue;
            }
        };
        // With the line delimiter as the field delimiter (`-d $'\n'`), GNU makes the whole
        // input one record whose fields are its lines.
        let records = if fields && d == line_delim && !data.is_empty() {
            vec![data.strip_suffix(&[line_delim]).unwrap_or(&data)]
        } else {
            split_lines(&data, line_delim)
        };
        for line in records {
            if fields {
                if !line.contains(&d) {
                    if !only_delimited {
                        io.stdout.extend_from_slice(line);
                        io.stdout.push(line_delim);
                    }
                    continue;
                }
                let od = out_delim.as_deref().map(str::as_bytes).unwrap_or(std::slice::from_ref(&d));
                let mut first = true;
                for (k, field) in line.split(|b| *b == d).enumerate() {
                    if selected(k + 1) {
                        if !first {
                            io.stdout.extend_from_slice(od);
                        }
                        io.stdout.extend_from_slice(field);
                        first = false;
                    }
                }
            } else {
                let mut prev_selected = None;
                for (k, b) in line.iter().enumerate() {
                    if selected(k + 1) {
                        if let (Some(od), Some(prev)) = (&out_delim, prev_selected)
                            && prev + 1 != k
                        {
                            io.stdout.extend_from_slice(od.as_bytes());
                        }
                        io.stdout.push(*b);
                        prev_selected = Some(k);
                    }
                }
            }
            io.stdout.push(line_delim);
        }
    }
    status
}
