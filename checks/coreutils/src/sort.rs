//! `sort`: GNU's keys (`-k`, `-t`), orders (`-n`, `-g`, `-h`, `-V`, `-f`, `-d`, `-i`, `-b`, `-r`), `-u`, `-s`, `-c`/`-C`, `-m`; byte-order collation.
//!
//! GNU coreutils 9.x under `LC_ALL=C.UTF-8`.
//!
//! Left out on purpose: `-o` (it writes a file), `-M`, `-R`, `--parallel`,
//! `--files0-from`, and locale-specific collation (collation is byte order). `-V` is a
//! natural-number comparison, close to but not exactly GNU's `filevercmp`.

use std::cmp::Ordering;

use reviewhost_tool::getopt::{HasArg, Long, Spec};
use reviewhost_tool::{Ctx, Io};

use crate::common::{ReadError, err, is_blank, parse_opts, read_operand, split_lines, usage};

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
    const SPEC: Spec = Spec::gnu(
        "k:t:o:S:T:bdfghinrVsuzcCm",
        &[
            Long::short("key", 'k', HasArg::Required),
            Long::short("field-separator", 't', HasArg::Required),
            Long::short("output", 'o', HasArg::Required),
            Long::short("ignore-leading-blanks", 'b', HasArg::No),
            Long::short("dictionary-order", 'd', HasArg::No),
            Long::short("ignore-case", 'f', HasArg::No),
            Long::short("general-numeric-sort", 'g', HasArg::No),
            Long::short("human-numeric-sort", 'h', HasArg::No),
            Long::short("ignore-nonprinting", 'i', HasArg::No),
            Long::short("numeric-sort", 'n', HasArg::No),
            Long::short("reverse", 'r', HasArg::No),
            Long::short("version-sort", 'V', HasArg::No),
            Long::short("stable", 's', HasArg::No),
            Long::short("unique", 'u', HasArg::No),
            Long::short("zero-terminated", 'z', HasArg::No),
            Long::short("check", 'c', HasArg::No),
            Long::short("merge", 'm', HasArg::No),
            Long::short("buffer-size", 'S', HasArg::Required),
            Long::short("temporary-directory", 'T', HasArg::Required),
        ],
    );
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
