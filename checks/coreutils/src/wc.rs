//! `wc`: line, word, character, byte and longest-line counts, in GNU's column widths.
//!
//! GNU coreutils 9.x under `LC_ALL=C.UTF-8`.
//!
//! `wc` treats stdin as a pipe for its column width (the shell hands programs stdin as
//! bytes, so `wc < file` pads like `cat file | wc`).

use reviewhost_tool::getopt::{HasArg, Long, Spec};
use reviewhost_tool::{Ctx, Io};
use unicode_width::UnicodeWidthChar;

use crate::common::{ReadError, err, parse_opts, read_operand, usage};

/// Minimum `wc` column width when an input is not a regular file (GNU's constant).
const WC_MIN_PIPE_WIDTH: usize = 7;

/// Tab stops for `wc -L`.
const TAB_WIDTH: usize = 8;

#[derive(Default, Clone, Copy)]
struct WcCounts {
    lines: u64,
    words: u64,
    chars: u64,
    bytes: u64,
    max_len: u64,
}

fn wc_count(data: &[u8]) -> WcCounts {
    let mut c = WcCounts { bytes: data.len() as u64, ..Default::default() };
    let text = String::from_utf8_lossy(data);
    let mut in_word = false;
    let mut line_len = 0usize;
    for ch in text.chars() {
        if ch != char::REPLACEMENT_CHARACTER {
            c.chars += 1;
        }
        match ch {
            '\n' => {
                c.lines += 1;
                c.max_len = c.max_len.max(line_len as u64);
                line_len = 0;
            }
            '\t' => line_len = (line_len / TAB_WIDTH + 1) * TAB_WIDTH,
            '\r' | '\x0c' => line_len = 0,
            // Columns as wcwidth(3) counts them: a combining mark takes none, a wide
            // (East Asian) character two.
            ch if !ch.is_control() => line_len += ch.width().unwrap_or(0),
            _ => {}
        }
        if ch.is_whitespace() {
            in_word = false;
        } else if !in_word {
            in_word = true;
            c.words += 1;
        }
    }
    // Lossy decoding hides invalid bytes from the char count but keeps them in words.
    c.max_len = c.max_len.max(line_len as u64);
    c
}

/// `wc [-lwcmL] [FILE...]`, with GNU's column width rules.
pub fn wc(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    const SPEC: Spec = Spec::gnu(
        "lwcmL",
        &[
            Long::short("lines", 'l', HasArg::No),
            Long::short("words", 'w', HasArg::No),
            Long::short("bytes", 'c', HasArg::No),
            Long::short("chars", 'm', HasArg::No),
            Long::short("max-line-length", 'L', HasArg::No),
        ],
    );
    let p = match parse_opts("wc", args, &SPEC) {
        Ok(p) => p,
        Err(m) => return usage(io, &m, 1),
    };
    let mut sel = [false; 5]; // lines words chars bytes max
    for (c, _) in &p.opts {
        let k = match c {
            'l' => 0,
            'w' => 1,
            'm' => 2,
            'c' => 3,
            _ => 4,
        };
        sel[k] = true;
    }
    if !sel.iter().any(|s| *s) {
        sel = [true, true, false, true, false];
    }
    let from_stdin = p.operands.is_empty();
    let files: Vec<String> = if from_stdin { vec!["-".into()] } else { p.operands };
    let nsel = sel.iter().filter(|s| **s).count();
    // GNU's compute_number_width.
    let width = if files.len() == 1 && nsel == 1 {
        1
    } else {
        let mut min_width = 1;
        let mut total: u64 = 0;
        for f in &files {
            if f == "-" {
                min_width = WC_MIN_PIPE_WIDTH;
            } else if let Ok(m) = std::fs::metadata(ctx.real(f)) {
                if m.is_file() {
                    total = total.saturating_add(m.len());
                } else {
                    min_width = WC_MIN_PIPE_WIDTH;
                }
            }
        }
        total.to_string().len().max(min_width)
    };
    let print = |c: &WcCounts, name: Option<&str>, out: &mut Vec<u8>| {
        let vals = [c.lines, c.words, c.chars, c.bytes, c.max_len];
        let mut parts = Vec::new();
        for (k, v) in vals.iter().enumerate() {
            if sel[k] {
                parts.push(format!("{v:>width$}"));
            }
        }
        let mut line = parts.join(" ");
        if let Some(n) = name {
            line.push(' ');
            line.push_str(n);
        }
        line.push('\n');
        out.extend_from_slice(line.as_bytes());
    };
    let mut status = 0;
    let mut total = WcCounts::default();
    for f in &files {
        let c = match read_operand(f, ctx, io) {
            Ok(d) => wc_count(&d),
            Err(ReadError::IsDir) => {
                err(io, "wc", &format!("{f}: Is a directory"));
                status = 1;
                WcCounts::default()
            }
            Err(ReadError::Other(m)) => {
                err(io, "wc", &format!("{f}: {m}"));
                status = 1;
                continue;
            }
        };
        total.lines += c.lines;
        total.words += c.words;
        total.chars += c.chars;
        total.bytes += c.bytes;
        total.max_len = total.max_len.max(c.max_len);
        print(&c, if from_stdin { None } else { Some(f) }, io.stdout);
    }
    if files.len() > 1 {
        print(&total, Some("total"), io.stdout);
    }
    status
}
