//! Text as sed's script holds it: GNU's escapes (`\t`, `\dNNN`, `\oNNN`, `\xHH`, `\cX`)
//! in patterns, replacements, `y` strings and `a`/`i`/`c` text; the replacement of `s`
//! with `&`, `\1`…`\9` and the case conversions `\L \U \l \u \E`; and the `l` command's
//! unambiguous form of the pattern space.

/// Where an escape is read: it decides what an unknown `\X` becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `a`/`i`/`c` text and `y` strings: `\X` is `X`.
    Buffer,
    /// A replacement: `\X` stays for the replacement parser; a produced `&` is escaped.
    Replacement,
    /// A pattern: `\X` stays for the regex translator.
    Regex,
}

/// GNU's `normalize_text`: the escapes decoded.
pub(super) fn normalize(buf: &[u8], kind: Kind) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(buf.len());
    let mut p = 0;
    while p < buf.len() {
        if buf[p] != b'\\' || p + 1 >= buf.len() {
            out.push(buf[p]);
            p += 1;
            continue;
        }
        p += 1;
        let simple = match buf[p] {
            b'a' => Some(0x07),
            b'f' => Some(0x0c),
            b'\n' | b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(0x0b),
            _ => None,
        };
        if let Some(byte) = simple {
            out.push(byte);
            p += 1;
            continue;
        }
        let base = match buf[p] {
            b'd' => 10,
            b'x' => 16,
            b'o' => 8,
            _ => 0,
        };
        if base > 0 {
            let (byte, next) = convert_number(buf, p, base);
            // In a replacement a produced `&` or `\` is literal: GNU escapes them for the
            // replacement parser (in a pattern they stay operators).
            if kind == Kind::Replacement && (byte == b'&' || byte == b'\\') {
                out.push(b'\\');
            }
            out.push(byte);
            p = next;
            continue;
        }
        if buf[p] == b'c' {
            if p + 1 < buf.len() {
                p += 1;
                out.push(buf[p].to_ascii_uppercase() ^ 0x40);
                if buf[p] == b'\\' {
                    p += 1;
                    if buf.get(p) != Some(&b'\\') {
                        return Err("recursive escaping after \\c not allowed".into());
                    }
                }
                p += 1;
            } else if kind != Kind::Buffer {
                out.push(b'\\');
            }
            continue;
        }
        if kind != Kind::Buffer {
            out.push(b'\\');
        }
        out.push(buf[p]);
        p += 1;
    }
    Ok(out)
}

/// GNU's `convert_number`: up to 3 decimal or octal digits or 2 hex digits after the
/// letter at `at`; with none, the letter itself.
fn convert_number(buf: &[u8], at: usize, base: u32) -> (u8, usize) {
    let mut n: u32 = 0;
    let mut max = 1;
    let mut p = at + 1;
    while p < buf.len() && max <= 255 {
        match (buf[p] as char).to_digit(16) {
            Some(d) if d < base => n = n * base + d,
            _ => break,
        }
        p += 1;
        max *= base;
    }
    if p == at + 1 { (buf[at], p) } else { (n as u8, p) }
}

/// How a part of a replacement is case-converted.
pub(super) const UPPER: u8 = 1;
pub(super) const LOWER: u8 = 2;
pub(super) const UPPER_FIRST: u8 = 4;
pub(super) const LOWER_FIRST: u8 = 8;
const FIRST: u8 = UPPER_FIRST | LOWER_FIRST;

/// One piece of a replacement: literal text, then a group (`&` is group 0).
#[derive(Debug, Clone)]
pub(super) struct Part {
    prefix: Vec<u8>,
    group: Option<usize>,
    case: u8,
}

/// A parsed replacement and the highest group it refers to.
#[derive(Debug, Clone)]
pub(super) struct Replacement {
    parts: Vec<Part>,
    pub max_group: usize,
}

/// GNU's `setup_replacement`, over the normalized text; `posix` reads `\L` and the like
/// as plain letters (`--posix`).
pub(super) fn parse_replacement(text: &[u8], posix: bool) -> Replacement {
    let mut parts = Vec::new();
    let mut max_group = 0;
    let (mut case, mut saved) = (0u8, 0u8);
    let mut prefix = Vec::new();
    let mut p = 0;
    while p < text.len() {
        match text[p] {
            b'\\' => {
                let mut part = Part { prefix: std::mem::take(&mut prefix), group: None, case };
                case = saved;
                p += 1;
                match text.get(p) {
                    None => part.prefix.push(b'\\'),
                    Some(&c) if posix && !c.is_ascii_digit() => part.prefix.push(c),
                    Some(&c @ b'0'..=b'9') => {
                        let n = usize::from(c - b'0');
                        part.group = Some(n);
                        max_group = max_group.max(n);
                    }
                    Some(b'L') => (case, saved) = (LOWER, LOWER),
                    Some(b'U') => (case, saved) = (UPPER, UPPER),
                    Some(b'E') => (case, saved) = (0, 0),
                    Some(b'l') => (saved, case) = (case, case | LOWER_FIRST),
                    Some(b'u') => (saved, case) = (case, case | UPPER_FIRST),
                    Some(&c) => part.prefix.push(c),
                }
                parts.push(part);
                p += 1;
            }
            b'&' => {
                parts.push(Part { prefix: std::mem::take(&mut prefix), group: Some(0), case });
                case = saved;
                p += 1;
            }
            c => {
                prefix.push(c);
                p += 1;
            }
        }
    }
    if !prefix.is_empty() {
        parts.push(Part { prefix, group: None, case });
    }
    Replacement { parts, max_group }
}

/// GNU's `append_replacement`: the replacement for one match. `groups[i]` is group i's
/// span, if it took part. A `\u` or `\l` before an empty group applies to what follows.
pub(super) fn expand(rep: &Replacement, hay: &[u8], groups: &[Option<(usize, usize)>], out: &mut Vec<u8>) {
    let mut pending = 0u8;
    for part in &rep.parts {
        let mut current = if part.case & FIRST != 0 { part.case } else { part.case | pending };
        pending = 0;
        if !part.prefix.is_empty() {
            append_modified(out, &part.prefix, current);
            current &= !FIRST;
        }
        if let Some(i) = part.group {
            let span = groups.get(i).copied().flatten().unwrap_or((0, 0));
            if span.0 == span.1 {
                if part.case & FIRST != 0 {
                    pending = current & FIRST;
                }
            } else {
                append_modified(out, &hay[span.0..span.1], current);
            }
        }
    }
}

/// GNU's `str_append_modified`: `text` with the case conversion `kind` applied.
fn append_modified(out: &mut Vec<u8>, text: &[u8], mut kind: u8) {
    if kind == 0 {
        out.extend_from_slice(text);
        return;
    }
    let mut i = 0;
    while i < text.len() {
        if text[i] == 0 {
            // mbrtowc's L'\0': GNU copies the rest unconverted.
            out.extend_from_slice(&text[i..]);
            return;
        }
        let len = super::pattern::utf8_len(&text[i..]);
        if len == 0 {
            kind &= !FIRST;
            if kind == 0 {
                out.extend_from_slice(&text[i..]);
                return;
            }
            out.push(text[i]);
            i += 1;
            continue;
        }
        let c = std::str::from_utf8(&text[i..i + len]).ok().and_then(|s| s.chars().next()).unwrap_or('\0');
        i += len;
        let converted = if kind & FIRST != 0 {
            let c = if kind & UPPER_FIRST != 0 { upper(c) } else { lower(c) };
            kind &= !FIRST;
            if kind == 0 {
                push_char(out, c);
                out.extend_from_slice(&text[i..]);
                return;
            }
            c
        } else if kind & UPPER != 0 {
            upper(c)
        } else {
            lower(c)
        };
        push_char(out, converted);
    }
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// `towupper`: one character for one (a conversion to several keeps the original).
fn upper(c: char) -> char {
    let mut it = c.to_uppercase();
    match (it.next(), it.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

fn lower(c: char) -> char {
    let mut it = c.to_lowercase();
    match (it.next(), it.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// The `l` command's output for `space`: C escapes, octal for other non-printable or
/// non-ASCII bytes, `\` before each line break at `width` (0: none), `$` at the end.
pub(super) fn list(space: &[u8], width: usize, delimiter: u8, out: &mut Vec<u8>) {
    let mut column = 0;
    for &b in space {
        let item: Vec<u8> = match b {
            b'\\' => b"\\\\".to_vec(),
            0x20..=0x7e => vec![b],
            0x07 => b"\\a".to_vec(),
            0x08 => b"\\b".to_vec(),
            0x0c => b"\\f".to_vec(),
            b'\n' => b"\\n".to_vec(),
            b'\r' => b"\\r".to_vec(),
            b'\t' => b"\\t".to_vec(),
            0x0b => b"\\v".to_vec(),
            _ => format!("\\{b:03o}").into_bytes(),
        };
        if width > 0 && column + item.len() >= width {
            out.push(b'\\');
            out.push(delimiter);
            column = 0;
        }
        column += item.len();
        out.extend_from_slice(&item);
    }
    out.push(b'$');
    out.push(delimiter);
}
