//! `tr`: translate, squeeze or delete bytes, with GNU's classes, ranges and escapes.
//!
//! GNU coreutils 9.x under `LC_ALL=C.UTF-8`.

use reviewhost_tool::getopt::{HasArg, Long, Spec};
use reviewhost_tool::{Ctx, Io};

use crate::common::{err, parse_opts, usage, usage_try};

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
    const SPEC: Spec = Spec::gnu(
        "cCdst",
        &[
            Long::short("complement", 'c', HasArg::No),
            Long::short("delete", 'd', HasArg::No),
            Long::short("squeeze-repeats", 's', HasArg::No),
            Long::short("truncate-set1", 't', HasArg::No),
        ],
    );
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
