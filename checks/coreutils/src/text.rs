//! The text filters: `cat`, `head`, `tail`, `wc`, `sort`, `uniq`, `cut`, `tr`, with GNU
//! coreutils 9.x's options, output formats and error wording under `LC_ALL=C.UTF-8`
//! (collation is byte order, `tr` and `cut -c` work on bytes as GNU's do).
//!
//! Left out on purpose: anything that writes files (`sort -o`, `uniq`'s OUTPUT operand) or
//! waits for more input (`tail -f`), `sort -M`/`-R`/`--parallel`/`--files0-from`, and
//! locale-specific collation. `sort -V` is a natural-number comparison, close to but not
//! exactly GNU's `filevercmp`. `wc` treats stdin as a pipe for its column width (the
//! shell hands programs stdin as bytes, so `wc < file` pads like `cat file | wc`).

use std::cmp::Ordering;

use reviewhost_tool::{Ctx, Io};

use crate::common::{OptSpec, ReadError, err, parse_opts, read_operand, split_lines, usage, usage_try};

/// Minimum `wc` column width when an input is not a regular file (GNU's constant).
const WC_MIN_PIPE_WIDTH: usize = 7;
/// `uniq -c` and `cat -n` widths, fixed by GNU's formats (`%7d `, `%6d\t`).
const UNIQ_COUNT_WIDTH: usize = 7;
const CAT_NUMBER_WIDTH: usize = 6;
/// Default count of `head` and `tail`.
const DEFAULT_LINES: u64 = 10;
/// Tab stops for `wc -L`.
const TAB_WIDTH: usize = 8;

/// The name GNU prints in `==> ... <==` headers for stdin.
fn display_name(name: &str) -> &str {
    if name == "-" { "standard input" } else { name }
}

// ---------------------------------------------------------------- cat

/// `cat [-nbsEAvTet] [FILE...]`.
pub fn cat(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    const SPEC: OptSpec = OptSpec {
        with_value: "",
        flags: "nbsEAvTetu",
        long: &[
            ("number", 'n', false),
            ("number-nonblank", 'b', false),
            ("squeeze-blank", 's', false),
            ("show-ends", 'E', false),
            ("show-all", 'A', false),
            ("show-nonprinting", 'v', false),
            ("show-tabs", 'T', false),
        ],
    };
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

// ---------------------------------------------------------------- head / tail

/// A parsed `-n`/`-c` count: the number, and whether it is relative to the other end
/// (`head -n -3`, `tail -n +3`).
#[derive(Clone, Copy)]
struct Count {
    n: u64,
    from_other_end: bool,
}

/// Parse a GNU count with an optional multiplier suffix (`b`, `K`, `KB`, `KiB`, `M`, ...).
fn parse_count(s: &str, other_end_sign: char) -> Option<Count> {
    let (from_other_end, body) = match s.strip_prefix(other_end_sign) {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix(if other_end_sign == '-' { '+' } else { '-' }).unwrap_or(s)),
    };
    let digits_end = body.find(|c: char| !c.is_ascii_digit()).unwrap_or(body.len());
    if digits_end == 0 {
        return None;
    }
    let n: u64 = body[..digits_end].parse().unwrap_or(u64::MAX);
    let mult: u64 = match &body[digits_end..] {
        "" => 1,
        "b" => 512,
        "K" | "KiB" | "k" => 1024,
        "KB" | "kB" => 1000,
        "M" | "MiB" => 1 << 20,
        "MB" => 1_000_000,
        "G" | "GiB" => 1 << 30,
        "GB" => 1_000_000_000,
        "T" | "TiB" => 1 << 40,
        "TB" => 1_000_000_000_000,
        _ => return None,
    };
    Some(Count { n: n.saturating_mul(mult), from_other_end })
}

/// Options common to `head` and `tail`.
struct HeadTail {
    count: Count,
    bytes: bool,
    headers: Option<bool>,
    delim: u8,
    files: Vec<String>,
}

/// Parse `head`/`tail` arguments, including the obsolete `-5` form. `tool` is the name,
/// `other_end` the sign that counts from the other end (`-` for head, `+` for tail).
fn parse_head_tail(tool: &str, args: &[String], other_end: char, io: &mut Io) -> Result<HeadTail, i32> {
    const SPEC: OptSpec = OptSpec {
        with_value: "nc",
        flags: "qvzf",
        long: &[
            ("lines", 'n', true),
            ("bytes", 'c', true),
            ("quiet", 'q', false),
            ("silent", 'q', false),
            ("verbose", 'v', false),
            ("zero-terminated", 'z', false),
            ("follow", 'f', false),
        ],
    };
    let mut args: Vec<String> = args.to_vec();
    // Obsolete `-N` (and tail's `+N`) as the first argument.
    if let Some(first) = args.first() {
        let legacy = first.strip_prefix('-').filter(|r| r.starts_with(|c: char| c.is_ascii_digit()));
        let legacy = legacy.or_else(|| {
            if other_end == '+' {
                first.strip_prefix('+').filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
            } else {
                None
            }
        });
        if let Some(rest) = legacy {
            let plus = first.starts_with('+');
            let (digits, unit) = rest.split_at(rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len()));
            let opt = if unit.starts_with('c') { "-c" } else { "-n" };
            let value = if plus { format!("+{digits}") } else { digits.to_string() };
            args.splice(0..1, [opt.to_string(), value]);
        }
    }
    let p = match parse_opts(tool, &args, &SPEC) {
        Ok(p) => p,
        Err(m) => return Err(usage(io, &m, 1)),
    };
    let mut ht = HeadTail {
        count: Count { n: DEFAULT_LINES, from_other_end: false },
        bytes: false,
        headers: None,
        delim: b'\n',
        files: p.operands,
    };
    for (c, v) in p.opts {
        match c {
            'n' | 'c' => {
                let v = v.unwrap_or_default();
                let Some(count) = parse_count(&v, other_end) else {
                    let what = if c == 'n' { "lines" } else { "bytes" };
                    err(io, tool, &format!("invalid number of {what}: '{v}'"));
                    return Err(1);
                };
                ht.count = count;
                ht.bytes = c == 'c';
            }
            'q' => ht.headers = Some(false),
            'v' => ht.headers = Some(true),
            'z' => ht.delim = 0,
            'f' => {
                err(io, tool, "following files is not supported in the sandbox");
                return Err(1);
            }
            _ => {}
        }
    }
    if ht.files.is_empty() {
        ht.files.push("-".into());
    }
    Ok(ht)
}

/// `head [-n N] [-c N] [-qvz] [FILE...]`.
pub fn head(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    let ht = match parse_head_tail("head", args, '-', io) {
        Ok(h) => h,
        Err(s) => return s,
    };
    head_tail("head", &ht, ctx, io, |data, ht| {
        let n = usize::try_from(ht.count.n).unwrap_or(usize::MAX);
        if ht.bytes {
            if ht.count.from_other_end { &data[..data.len().saturating_sub(n)] } else { &data[..n.min(data.len())] }
        } else {
            let ends: Vec<usize> =
                data.iter().enumerate().filter(|(_, b)| **b == ht.delim).map(|(i, _)| i + 1).collect();
            let total_lines = ends.len() + usize::from(!data.is_empty() && data.last() != Some(&ht.delim));
            let keep = if ht.count.from_other_end { total_lines.saturating_sub(n) } else { n.min(total_lines) };
            let end = if keep == 0 { 0 } else { ends.get(keep - 1).copied().unwrap_or(data.len()) };
            &data[..end]
        }
    })
}

/// `tail [-n [+]N] [-c [+]N] [-qvz] [FILE...]`.
pub fn tail(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    let ht = match parse_head_tail("tail", args, '+', io) {
        Ok(h) => h,
        Err(s) => return s,
    };
    head_tail("tail", &ht, ctx, io, |data, ht| {
        let n = usize::try_from(ht.count.n).unwrap_or(usize::MAX);
        if ht.bytes {
            if ht.count.from_other_end {
                &data[n.saturating_sub(1).min(data.len())..]
            } else {
                &data[data.len().saturating_sub(n)..]
            }
        } else {
            // Line start offsets.
            let mut starts = vec![0usize];
            for (i, b) in data.iter().enumerate() {
                if *b == ht.delim && i + 1 < data.len() {
                    starts.push(i + 1);
                }
            }
            if data.is_empty() {
                starts.clear();
            }
            let total = starts.len();
            let first = if ht.count.from_other_end { n.saturating_sub(1) } else { total.saturating_sub(n) };
            match starts.get(first) {
                Some(&s) => &data[s..],
                None => &data[data.len()..],
            }
        }
    })
}

/// The shared file loop of `head` and `tail`: headers, errors, the selection per file.
fn head_tail(
    tool: &str,
    ht: &HeadTail,
    ctx: &Ctx,
    io: &mut Io,
    select: impl for<'a> Fn(&'a [u8], &HeadTail) -> &'a [u8],
) -> i32 {
    let headers = ht.headers.unwrap_or(ht.files.len() > 1);
    let mut status = 0;
    let mut first = true;
    for f in &ht.files {
        let data = match read_operand(f, ctx, io) {
            Ok(d) => Ok(d),
            Err(ReadError::IsDir) => Err(None),
            Err(ReadError::Other(m)) => Err(Some(m)),
        };
        if let Err(Some(m)) = &data {
            err(io, tool, &format!("cannot open '{f}' for reading: {m}"));
            status = 1;
            continue;
        }
        if headers {
            let sep = if first { "" } else { "\n" };
            io.stdout.extend_from_slice(format!("{sep}==> {} <==\n", display_name(f)).as_bytes());
        }
        first = false;
        match data {
            Ok(d) => {
                let out = select(&d, ht);
                io.stdout.extend_from_slice(out);
            }
            Err(_) => {
                err(io, tool, &format!("error reading '{f}': Is a directory"));
                status = 1;
            }
        }
    }
    status
}

// ---------------------------------------------------------------- wc

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
            ch if !ch.is_control() => line_len += 1,
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
    const SPEC: OptSpec = OptSpec {
        with_value: "",
        flags: "lwcmL",
        long: &[
            ("lines", 'l', false),
            ("words", 'w', false),
            ("bytes", 'c', false),
            ("chars", 'm', false),
            ("max-line-length", 'L', false),
        ],
    };
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

// ---------------------------------------------------------------- sort

/// How one key (or the whole line) compares.
#[derive(Clone, Copy, Default, PartialEq)]
struct Order {
    numeric: bool,
    general: bool,
    human: bool,
    version: bool,
    fold: bool,
    dictionary: bool,
    nonprinting: bool,
    reverse: bool,
    skip_start_blanks: bool,
    skip_end_blanks: bool,
}

impl Order {
    fn has_any(&self) -> bool {
        *self != Order::default()
    }
}

/// A `-k` key: 0-based start field/char, optional 0-based end field and 1-based end char
/// (0 = end of field), GNU's representation.
#[derive(Clone, Copy)]
struct Key {
    sword: usize,
    schar: usize,
    eword: Option<usize>,
    echar: usize,
    order: Order,
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\n'
}

/// GNU's begfield.
fn begfield(line: &[u8], key: &Key, tab: Option<u8>) -> usize {
    let lim = line.len();
    let mut ptr = 0;
    let mut sword = key.sword;
    match tab {
        Some(t) => {
            while ptr < lim && sword > 0 {
                sword -= 1;
                while ptr < lim && line[ptr] != t {
                    ptr += 1;
                }
                if ptr < lim {
                    ptr += 1;
                }
            }
        }
        None => {
            while ptr < lim && sword > 0 {
                sword -= 1;
                while ptr < lim && is_blank(line[ptr]) {
                    ptr += 1;
                }
                while ptr < lim && !is_blank(line[ptr]) {
                    ptr += 1;
                }
            }
        }
    }
    if key.order.skip_start_blanks {
        while ptr < lim && is_blank(line[ptr]) {
            ptr += 1;
        }
    }
    (ptr.saturating_add(key.schar)).min(lim)
}

/// GNU's limfield.
fn limfield(line: &[u8], key: &Key, tab: Option<u8>) -> usize {
    let lim = line.len();
    let Some(eword) = key.eword else {
        return lim;
    };
    let mut eword = eword;
    let echar = key.echar;
    if echar == 0 {
        eword += 1;
    }
    let mut ptr = 0;
    match tab {
        Some(t) => {
            while ptr < lim && eword > 0 {
                eword -= 1;
                while ptr < lim && line[ptr] != t {
                    ptr += 1;
                }
                if ptr < lim && (eword > 0 || echar > 0) {
                    ptr += 1;
                }
            }
        }
        None => {
            while ptr < lim && eword > 0 {
                eword -= 1;
                while ptr < lim && is_blank(line[ptr]) {
                    ptr += 1;
                }
                while ptr < lim && !is_blank(line[ptr]) {
                    ptr += 1;
                }
            }
        }
    }
    if echar != 0 {
        if key.order.skip_end_blanks {
            while ptr < lim && is_blank(line[ptr]) {
                ptr += 1;
            }
        }
        ptr = ptr.saturating_add(echar).min(lim);
    }
    ptr
}

/// Split a number at the start of `s` (after blanks): sign, integer digits, fraction digits,
/// and the rest. No thousands separator in C.UTF-8.
fn split_number(s: &[u8]) -> (bool, &[u8], &[u8], &[u8]) {
    let mut i = 0;
    while i < s.len() && is_blank(s[i]) {
        i += 1;
    }
    let neg = s.get(i) == Some(&b'-');
    if neg {
        i += 1;
    }
    let int_start = i;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    let int = &s[int_start..i];
    let mut frac: &[u8] = &[];
    if s.get(i) == Some(&b'.') {
        let fs = i + 1;
        let mut j = fs;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
        }
        frac = &s[fs..j];
        i = j;
    }
    (neg, int, frac, &s[i..])
}

/// Compare magnitudes of two decimal numbers given as digit strings.
fn cmp_magnitude(ai: &[u8], af: &[u8], bi: &[u8], bf: &[u8]) -> Ordering {
    let strip = |d: &[u8]| -> usize { d.iter().take_while(|c| **c == b'0').count() };
    let ai = &ai[strip(ai)..];
    let bi = &bi[strip(bi)..];
    ai.len().cmp(&bi.len()).then_with(|| ai.cmp(bi)).then_with(|| {
        let af = &af[..af.len() - af.iter().rev().take_while(|c| **c == b'0').count()];
        let bf = &bf[..bf.len() - bf.iter().rev().take_while(|c| **c == b'0').count()];
        af.cmp(bf)
    })
}

/// `sort -n`: GNU's strnumcmp semantics (`-0` equals `0`, non-numbers are zero).
fn numeric_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let (an, ai, af, _) = split_number(a);
    let (bn, bi, bf, _) = split_number(b);
    let is_zero = |i: &[u8], f: &[u8]| i.iter().chain(f).all(|c| *c == b'0');
    let an = an && !is_zero(ai, af);
    let bn = bn && !is_zero(bi, bf);
    match (an, bn) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => cmp_magnitude(ai, af, bi, bf),
        (true, true) => cmp_magnitude(bi, bf, ai, af),
    }
}

/// `sort -h`: the unit suffix first, then the number.
fn human_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let order = |s: &[u8]| -> i32 {
        let (neg, int, frac, rest) = split_number(s);
        if int.is_empty() && frac.is_empty() {
            return 0;
        }
        let o = match rest.first() {
            Some(b'K' | b'k') => 1,
            Some(b'M') => 2,
            Some(b'G') => 3,
            Some(b'T') => 4,
            Some(b'P') => 5,
            Some(b'E') => 6,
            Some(b'Z') => 7,
            Some(b'Y') => 8,
            Some(b'R') => 9,
            Some(b'Q') => 10,
            _ => 0,
        };
        if neg { -o } else { o }
    };
    order(a).cmp(&order(b)).then_with(|| numeric_cmp(a, b))
}

/// `sort -g`: floating point, non-numbers first.
fn general_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let parse = |s: &[u8]| -> Option<f64> {
        let t = String::from_utf8_lossy(s);
        let t = t.trim_start();
        // Longest prefix that parses.
        (1..=t.len()).rev().filter(|&k| t.is_char_boundary(k)).find_map(|k| t[..k].parse::<f64>().ok())
    };
    match (parse(a), parse(b)) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => {
            if x.is_nan() || y.is_nan() {
                x.is_nan().cmp(&y.is_nan()).reverse()
            } else {
                x.partial_cmp(&y).unwrap_or(Ordering::Equal)
            }
        }
    }
}

/// `sort -V`: digit runs compare as numbers, everything else bytewise.
fn version_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let si = i;
            while i < a.len() && a[i].is_ascii_digit() {
                i += 1;
            }
            let sj = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let o = cmp_magnitude(&a[si..i], &[], &b[sj..j], &[]);
            if o != Ordering::Equal {
                return o;
            }
        } else {
            let o = a[i].cmp(&b[j]);
            if o != Ordering::Equal {
                return o;
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i).cmp(&(b.len() - j))
}

fn compare_text(a: &[u8], b: &[u8], o: &Order) -> Ordering {
    if o.numeric {
        return numeric_cmp(a, b);
    }
    if o.human {
        return human_cmp(a, b);
    }
    if o.general {
        return general_cmp(a, b);
    }
    if o.version {
        return version_cmp(a, b);
    }
    if o.fold || o.dictionary || o.nonprinting {
        let keep = |c: &&u8| {
            (!o.dictionary || c.is_ascii_alphanumeric() || is_blank(**c))
                && (!o.nonprinting || (0x20..0x7f).contains(*c))
        };
        let map = |c: &u8| if o.fold { c.to_ascii_uppercase() } else { *c };
        return a.iter().filter(keep).map(map).cmp(b.iter().filter(keep).map(map));
    }
    a.cmp(b)
}

struct SortConfig {
    keys: Vec<Key>,
    tab: Option<u8>,
    global: Order,
    unique: bool,
    stable: bool,
}

impl SortConfig {
    fn key_cmp(&self, a: &[u8], b: &[u8]) -> Ordering {
        for k in &self.keys {
            let ka = &a[begfield(a, k, self.tab)..];
            let ka = &ka[..limfield(a, k, self.tab).saturating_sub(a.len() - ka.len()).min(ka.len())];
            let kb = &b[begfield(b, k, self.tab)..];
            let kb = &kb[..limfield(b, k, self.tab).saturating_sub(b.len() - kb.len()).min(kb.len())];
            let mut o = compare_text(ka, kb, &k.order);
            if k.order.reverse {
                o = o.reverse();
            }
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    /// GNU's compare(): keys, then (unless -s/-u) the whole line, reversed with -r.
    fn cmp(&self, a: &[u8], b: &[u8]) -> Ordering {
        if !self.keys.is_empty() {
            let o = self.key_cmp(a, b);
            if o != Ordering::Equal || self.unique || self.stable {
                return o;
            }
        }
        let o = a.cmp(b);
        if self.global.reverse { o.reverse() } else { o }
    }
}

/// Parse a `-k` specification such as `2`, `2,2`, `1.3n`, `3,3nr`, `2b,2`.
fn parse_key(spec: &str) -> Result<Key, String> {
    let (start, end) = match spec.split_once(',') {
        Some((s, e)) => (s, Some(e)),
        None => (spec, None),
    };
    let mut order = Order::default();
    let num_prefix = |s: &str| -> (Option<usize>, usize) {
        let e = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        (if e == 0 { None } else { Some(s[..e].parse().unwrap_or(usize::MAX)) }, e)
    };
    let apply = |flags: &str, order: &mut Order, start: bool| -> Result<(), String> {
        for c in flags.chars() {
            match c {
                'b' if start => order.skip_start_blanks = true,
                'b' => order.skip_end_blanks = true,
                'd' => order.dictionary = true,
                'f' => order.fold = true,
                'g' => order.general = true,
                'h' => order.human = true,
                'i' => order.nonprinting = true,
                'n' => order.numeric = true,
                'r' => order.reverse = true,
                'V' => order.version = true,
                _ => return Err(format!("invalid field specification '{spec}'")),
            }
        }
        Ok(())
    };
    let (field, used) = num_prefix(start);
    let field = match field {
        Some(0) => return Err(format!("invalid number at field start: invalid count at start of '{start}'")),
        Some(f) => f,
        None => return Err(format!("invalid number at field start: invalid count at start of '{start}'")),
    };
    let mut rest = &start[used..];
    let mut schar = 0;
    if let Some(r) = rest.strip_prefix('.') {
        let (c, u) = num_prefix(r);
        match c {
            Some(0) | None => {
                return Err(format!("character offset is zero: invalid field specification '{spec}'"));
            }
            Some(c) => schar = c - 1,
        }
        rest = &r[u..];
    }
    apply(rest, &mut order, true)?;
    let mut key = Key { sword: field - 1, schar, eword: None, echar: 0, order };
    if let Some(end) = end {
        let (f, u) = num_prefix(end);
        match f {
            Some(0) | None => return Err(format!("invalid number after ',': invalid count at start of '{end}'")),
            Some(f) => key.eword = Some(f - 1),
        }
        let mut rest = &end[u..];
        if let Some(r) = rest.strip_prefix('.') {
            let (c, u2) = num_prefix(r);
            key.echar = c.unwrap_or(0);
            rest = &r[u2..];
        }
        let mut o = key.order;
        apply(rest, &mut o, false)?;
        key.order = o;
    }
    Ok(key)
}

/// `sort [-bdfghinrVsuz] [-k KEY]... [-t SEP] [-c] [FILE...]`.
pub fn sort(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    const SPEC: OptSpec = OptSpec {
        with_value: "ktoST",
        flags: "bdfghinrVsuzcCm",
        long: &[
            ("key", 'k', true),
            ("field-separator", 't', true),
            ("output", 'o', true),
            ("ignore-leading-blanks", 'b', false),
            ("dictionary-order", 'd', false),
            ("ignore-case", 'f', false),
            ("general-numeric-sort", 'g', false),
            ("human-numeric-sort", 'h', false),
            ("ignore-nonprinting", 'i', false),
            ("numeric-sort", 'n', false),
            ("reverse", 'r', false),
            ("version-sort", 'V', false),
            ("stable", 's', false),
            ("unique", 'u', false),
            ("zero-terminated", 'z', false),
            ("check", 'c', false),
            ("merge", 'm', false),
            ("buffer-size", 'S', true),
            ("temporary-directory", 'T', true),
        ],
    };
    let p = match parse_opts("sort", args, &SPEC) {
        Ok(p) => p,
        Err(m) => return usage(io, &m, 2),
    };
    let mut cfg = SortConfig { keys: Vec::new(), tab: None, global: Order::default(), unique: false, stable: false };
    let mut delim = b'\n';
    let mut check = None;
    for (c, v) in &p.opts {
        let g = &mut cfg.global;
        match c {
            'b' => (g.skip_start_blanks, g.skip_end_blanks) = (true, true),
            'd' => g.dictionary = true,
            'f' => g.fold = true,
            'g' => g.general = true,
            'h' => g.human = true,
            'i' => g.nonprinting = true,
            'n' => g.numeric = true,
            'r' => g.reverse = true,
            'V' => g.version = true,
            's' => cfg.stable = true,
            'u' => cfg.unique = true,
            'z' => delim = 0,
            'c' => check = Some(true),
            'C' => check = Some(false),
            'o' => {
                err(io, "sort", "writing an output file is not supported in the sandbox");
                return 2;
            }
            'k' => match parse_key(v.as_deref().unwrap_or("")) {
                Ok(k) => cfg.keys.push(k),
                Err(m) => {
                    err(io, "sort", &m);
                    return 2;
                }
            },
            't' => {
                let v = v.as_deref().unwrap_or("");
                let b = v.as_bytes();
                if b.is_empty() {
                    err(io, "sort", "empty tab");
                    return 2;
                }
                if b.len() > 1 && v != "\\0" {
                    err(io, "sort", &format!("multi-character tab '{v}'"));
                    return 2;
                }
                cfg.tab = Some(if v == "\\0" { 0 } else { b[0] });
            }
            _ => {}
        }
    }
    // Keys without their own ordering options inherit the global ones.
    for k in &mut cfg.keys {
        if !k.order.has_any() {
            k.order = cfg.global;
        }
    }
    let mut gkey_order = cfg.global;
    gkey_order.reverse = false;
    if cfg.keys.is_empty() && gkey_order.has_any() {
        cfg.keys.push(Key { sword: 0, schar: 0, eword: None, echar: 0, order: cfg.global });
    }
    let files = if p.operands.is_empty() { vec!["-".to_string()] } else { p.operands };
    let mut data = Vec::new();
    let mut line_src: Vec<(usize, usize)> = Vec::new();
    let mut bufs = Vec::new();
    for f in &files {
        match read_operand(f, ctx, io) {
            Ok(d) => bufs.push((f.clone(), d)),
            Err(ReadError::IsDir) => {
                err(io, "sort", &format!("read failed: {f}: Is a directory"));
                return 2;
            }
            Err(ReadError::Other(m)) => {
                err(io, "sort", &format!("cannot read: {f}: {m}"));
                return 2;
            }
        }
    }
    for (fi, (_, d)) in bufs.iter().enumerate() {
        for (li, l) in split_lines(d, delim).into_iter().enumerate() {
            data.push(l);
            line_src.push((fi, li + 1));
        }
    }
    if let Some(verbose) = check {
        for w in 1..data.len() {
            let o = cfg.cmp(data[w - 1], data[w]);
            if o == Ordering::Greater || (cfg.unique && o == Ordering::Equal) {
                if verbose {
                    let (fi, li) = line_src[w];
                    let name = &bufs[fi].0;
                    let line = String::from_utf8_lossy(data[w]);
                    err(io, "sort", &format!("{name}:{li}: disorder: {line}"));
                }
                return 1;
            }
        }
        return 0;
    }
    data.sort_by(|a, b| cfg.cmp(a, b));
    if cfg.unique {
        data.dedup_by(|b, a| cfg.cmp(a, b) == Ordering::Equal);
    }
    for l in data {
        io.stdout.extend_from_slice(l);
        io.stdout.push(delim);
    }
    0
}

// ---------------------------------------------------------------- uniq

/// `uniq [-cdDuiz] [-f N] [-s N] [-w N] [INPUT]`.
pub fn uniq(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    const SPEC: OptSpec = OptSpec {
        with_value: "fsw",
        flags: "cdDuiz",
        long: &[
            ("count", 'c', false),
            ("repeated", 'd', false),
            ("all-repeated", 'D', false),
            ("unique", 'u', false),
            ("ignore-case", 'i', false),
            ("zero-terminated", 'z', false),
            ("skip-fields", 'f', true),
            ("skip-chars", 's', true),
            ("check-chars", 'w', true),
        ],
    };
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

// ---------------------------------------------------------------- cut

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
    const SPEC: OptSpec = OptSpec {
        with_value: "bcfd",
        flags: "snz",
        long: &[
            ("bytes", 'b', true),
            ("characters", 'c', true),
            ("fields", 'f', true),
            ("delimiter", 'd', true),
            ("only-delimited", 's', false),
            ("zero-terminated", 'z', false),
            ("output-delimiter", OUTPUT_DELIM, true),
            ("complement", COMPLEMENT, false),
        ],
    };
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
        for line in split_lines(&data, line_delim) {
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

// ---------------------------------------------------------------- tr

/// One element of a parsed `tr` set.
enum SetItem {
    Bytes(Vec<u8>),
    Class(&'static str),
    /// `[c*n]`; `None` means fill up to the length of SET1.
    Repeat(u8, Option<usize>),
}

fn class_bytes(name: &str) -> Option<Vec<u8>> {
    let f: fn(&u8) -> bool = match name {
        "alpha" => u8::is_ascii_alphabetic,
        "digit" => u8::is_ascii_digit,
        "alnum" => u8::is_ascii_alphanumeric,
        "upper" => u8::is_ascii_uppercase,
        "lower" => u8::is_ascii_lowercase,
        "space" => |b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
        "blank" => |b| matches!(b, b' ' | b'\t'),
        "punct" => u8::is_ascii_punctuation,
        "print" => |b| (0x20..0x7f).contains(b),
        "graph" => u8::is_ascii_graphic,
        "cntrl" => u8::is_ascii_control,
        "xdigit" => u8::is_ascii_hexdigit,
        _ => return None,
    };
    Some((0u8..=255).filter(f).collect())
}

/// Unescape one `tr` operand into bytes, remembering which bytes came from escapes (so
/// `\-` is not a range and `\[` is not a class).
fn tr_unescape(s: &str) -> Vec<(u8, bool)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            i += 1;
            let c = b[i];
            i += 1;
            let v = match c {
                b'a' => 7,
                b'b' => 8,
                b'f' => 0x0c,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'v' => 0x0b,
                b'0'..=b'7' => {
                    let mut v: u32 = u32::from(c - b'0');
                    let mut k = 1;
                    while k < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                        v = v * 8 + u32::from(b[i] - b'0');
                        i += 1;
                        k += 1;
                    }
                    (v & 0xff) as u8
                }
                other => other,
            };
            out.push((v, true));
        } else {
            out.push((b[i], false));
            i += 1;
        }
    }
    out
}

/// Parse a `tr` set into items.
fn tr_parse(s: &str) -> Result<Vec<SetItem>, String> {
    let u = tr_unescape(s);
    let mut items = Vec::new();
    let mut i = 0;
    let lit = |k: usize| -> Option<u8> { u.get(k).filter(|(_, esc)| !esc).map(|(b, _)| *b) };
    while i < u.len() {
        if lit(i) == Some(b'[') {
            // [:class:], [=c=], [c*n]
            if lit(i + 1) == Some(b':')
                && let Some(end) = (i + 2..u.len()).find(|&k| lit(k) == Some(b':') && lit(k + 1) == Some(b']'))
            {
                let name: String = u[i + 2..end].iter().map(|(b, _)| *b as char).collect();
                let class = match name.as_str() {
                    "alpha" => "alpha",
                    "digit" => "digit",
                    "alnum" => "alnum",
                    "upper" => "upper",
                    "lower" => "lower",
                    "space" => "space",
                    "blank" => "blank",
                    "punct" => "punct",
                    "print" => "print",
                    "graph" => "graph",
                    "cntrl" => "cntrl",
                    "xdigit" => "xdigit",
                    _ => return Err(format!("invalid character class '{name}'")),
                };
                items.push(SetItem::Class(class));
                i = end + 2;
                continue;
            }
            if lit(i + 1) == Some(b'=') && lit(i + 3) == Some(b'=') && lit(i + 4) == Some(b']') {
                items.push(SetItem::Bytes(vec![u[i + 2].0]));
                i += 5;
                continue;
            }
            if i + 2 < u.len()
                && lit(i + 2) == Some(b'*')
                && let Some(end) = (i + 3..u.len()).find(|&k| lit(k) == Some(b']'))
            {
                let digits: String = u[i + 3..end].iter().map(|(b, _)| *b as char).collect();
                let c = u[i + 1].0;
                let n = if digits.is_empty() {
                    None
                } else {
                    let radix = if digits.starts_with('0') { 8 } else { 10 };
                    match usize::from_str_radix(&digits, radix) {
                        Ok(0) => None,
                        Ok(n) => Some(n),
                        Err(_) => return Err(format!("invalid repeat count '{digits}' in [c*n] construct")),
                    }
                };
                items.push(SetItem::Repeat(c, n));
                i = end + 1;
                continue;
            }
        }
        if i + 2 < u.len() && lit(i + 1) == Some(b'-') {
            let (a, b) = (u[i].0, u[i + 2].0);
            if b < a {
                return Err(format!(
                    "range-endpoints of '{}-{}' are in reverse collating sequence order",
                    a as char, b as char
                ));
            }
            items.push(SetItem::Bytes((a..=b).collect()));
            i += 3;
            continue;
        }
        items.push(SetItem::Bytes(vec![u[i].0]));
        i += 1;
    }
    Ok(items)
}

/// Expand a set to its byte sequence; `fill_to` is the length `[c*]` fills up to.
fn tr_expand(items: &[SetItem], fill_to: usize) -> Vec<u8> {
    let fixed: usize = items
        .iter()
        .map(|it| match it {
            SetItem::Bytes(b) => b.len(),
            SetItem::Class(c) => class_bytes(c).map_or(0, |v| v.len()),
            SetItem::Repeat(_, Some(n)) => *n,
            SetItem::Repeat(_, None) => 0,
        })
        .sum();
    let mut out = Vec::new();
    for it in items {
        match it {
            SetItem::Bytes(b) => out.extend_from_slice(b),
            SetItem::Class(c) => out.extend(class_bytes(c).unwrap_or_default()),
            SetItem::Repeat(c, Some(n)) => out.extend(std::iter::repeat_n(*c, (*n).min(fill_to.max(256)))),
            SetItem::Repeat(c, None) => out.extend(std::iter::repeat_n(*c, fill_to.saturating_sub(fixed))),
        }
    }
    out
}

/// `tr [-cdst] SET1 [SET2]`, on bytes.
pub fn tr(args: &[String], _ctx: &Ctx, io: &mut Io) -> i32 {
    const SPEC: OptSpec = OptSpec {
        with_value: "",
        flags: "cCdst",
        long: &[
            ("complement", 'c', false),
            ("delete", 'd', false),
            ("squeeze-repeats", 's', false),
            ("truncate-set1", 't', false),
        ],
    };
    let p = match parse_opts("tr", args, &SPEC) {
        Ok(p) => p,
        Err(m) => return usage(io, &m, 1),
    };
    let (mut complement, mut delete, mut squeeze, mut truncate) = (false, false, false, false);
    for (c, _) in &p.opts {
        match c {
            'c' | 'C' => complement = true,
            'd' => delete = true,
            's' => squeeze = true,
            't' => truncate = true,
            _ => {}
        }
    }
    let ops = &p.operands;
    let needed = if delete && squeeze {
        2
    } else if delete || (squeeze && ops.len() < 2) {
        1
    } else {
        2
    };
    if ops.is_empty() {
        return usage_try(io, "tr", "missing operand", 1);
    }
    if ops.len() < needed {
        let msg = format!(
            "missing operand after '{}'\n{}",
            ops[ops.len() - 1],
            if delete {
                "Two strings must be given when both deleting and squeezing repeats."
            } else {
                "Two strings must be given when translating."
            }
        );
        return usage_try(io, "tr", &msg, 1);
    }
    if ops.len() > needed {
        let mut msg = format!("extra operand '{}'", ops[needed]);
        if delete && !squeeze {
            msg.push_str("\nOnly one string may be given when deleting without squeezing repeats.");
        }
        return usage_try(io, "tr", &msg, 1);
    }
    let set1_items = match tr_parse(&ops[0]) {
        Ok(s) => s,
        Err(m) => {
            err(io, "tr", &m);
            return 1;
        }
    };
    let mut set1 = tr_expand(&set1_items, 0);
    if complement {
        let mut member = [false; 256];
        for b in &set1 {
            member[usize::from(*b)] = true;
        }
        set1 = (0u8..=255).filter(|b| !member[usize::from(*b)]).collect();
    }
    let set2 = match ops.get(1) {
        Some(s2) => match tr_parse(s2) {
            Ok(items) => Some(tr_expand(&items, set1.len())),
            Err(m) => {
                err(io, "tr", &m);
                return 1;
            }
        },
        None => None,
    };
    let mut in_set1 = [false; 256];
    for b in &set1 {
        in_set1[usize::from(*b)] = true;
    }
    let input = io.stdin;
    let mut out = Vec::with_capacity(input.len());
    if delete {
        let mut squeeze_set = [false; 256];
        if let Some(s2) = &set2 {
            for b in s2 {
                squeeze_set[usize::from(*b)] = true;
            }
        }
        for &b in input {
            if in_set1[usize::from(b)] {
                continue;
            }
            if squeeze && squeeze_set[usize::from(b)] && out.last() == Some(&b) {
                continue;
            }
            out.push(b);
        }
    } else if let Some(mut s2) = set2 {
        if s2.is_empty() && !truncate {
            err(io, "tr", "when not truncating set1, string2 must be non-empty");
            return 1;
        }
        if truncate {
            set1.truncate(s2.len());
        } else if let Some(&last) = s2.last() {
            while s2.len() < set1.len() {
                s2.push(last);
            }
        }
        let mut map: [u8; 256] = std::array::from_fn(|i| i as u8);
        for (a, b) in set1.iter().zip(&s2) {
            map[usize::from(*a)] = *b;
        }
        let mut squeeze_set = [false; 256];
        for b in &s2 {
            squeeze_set[usize::from(*b)] = true;
        }
        for &b in input {
            let m = map[usize::from(b)];
            if squeeze && squeeze_set[usize::from(m)] && out.last() == Some(&m) {
                continue;
            }
            out.push(m);
        }
    } else {
        // squeeze only
        for &b in input {
            if in_set1[usize::from(b)] && out.last() == Some(&b) {
                continue;
            }
            out.push(b);
        }
    }
    io.stdout.extend_from_slice(&out);
    0
}
