//! The bash builtins that checks use as plain programs: `true`, `false` and `echo`, with
//! bash 5.2's behaviour (not /usr/bin's: `echo` interprets no escapes unless `-e`);
//! `printf` and `test`/`[` are in their own files.

use reviewhost_tool::{Ctx, Io};

/// `true`: succeed, ignoring arguments.
pub fn r#true(_args: &[String], _ctx: &Ctx, _io: &mut Io) -> i32 {
    0
}

/// `false`: fail, ignoring arguments.
pub fn r#false(_args: &[String], _ctx: &Ctx, _io: &mut Io) -> i32 {
    1
}

/// `echo [-neE] ARG...` like the bash builtin: options only while every argument is a
/// cluster of `n`, `e`, `E`; escapes only with `-e`.
pub fn echo(args: &[String], _ctx: &Ctx, io: &mut Io) -> i32 {
    let mut newline = true;
    let mut escapes = false;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a.len() < 2 || !a.starts_with('-') || !a[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E')) {
            break;
        }
        for c in a[1..].chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        i += 1;
    }
    for (k, a) in args[i..].iter().enumerate() {
        if k > 0 {
            io.stdout.push(b' ');
        }
        if escapes {
            if expand_escapes(a.as_bytes(), io.stdout, true) {
                return 0;
            }
        } else {
            io.stdout.extend_from_slice(a.as_bytes());
        }
    }
    if newline {
        io.stdout.push(b'\n');
    }
    0
}

/// Expand backslash escapes (`echo -e` and `printf %b` when `echo_style`; the printf
/// format otherwise). Returns true when `\c` asked to stop all output.
pub(crate) fn expand_escapes(s: &[u8], out: &mut Vec<u8>, echo_style: bool) -> bool {
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        i += 1;
        if b != b'\\' || i >= s.len() {
            out.push(b);
            continue;
        }
        let e = s[i];
        i += 1;
        match e {
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'e' | b'E' => out.push(0x1b),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'\\' => out.push(b'\\'),
            b'"' if !echo_style => out.push(b'"'),
            b'\'' if !echo_style => out.push(b'\''),
            b'?' if !echo_style => out.push(b'?'),
            b'c' if echo_style => return true,
            b'0'..=b'7' => {
                // echo/%b: `\0NNN` (up to three digits after the 0); format: `\NNN`.
                let (start, max) = if echo_style && e == b'0' { (i, 3) } else { (i - 1, 3) };
                if echo_style && e != b'0' {
                    // `\1` in echo -e is not an escape.
                    out.push(b'\\');
                    out.push(e);
                    continue;
                }
                let mut v: u32 = 0;
                let mut j = start;
                while j < s.len() && j - start < max && (b'0'..=b'7').contains(&s[j]) {
                    v = v * 8 + u32::from(s[j] - b'0');
                    j += 1;
                }
                out.push((v & 0xff) as u8);
                i = j;
            }
            b'x' => {
                let mut v: u32 = 0;
                let mut j = i;
                while j < s.len() && j - i < 2 && s[j].is_ascii_hexdigit() {
                    v = v * 16 + hex_val(s[j]);
                    j += 1;
                }
                if j == i {
                    out.extend_from_slice(b"\\x");
                } else {
                    out.push(v as u8);
                    i = j;
                }
            }
            b'u' | b'U' => {
                let max = if e == b'u' { 4 } else { 8 };
                let mut v: u32 = 0;
                let mut j = i;
                while j < s.len() && j - i < max && s[j].is_ascii_hexdigit() {
                    v = v.saturating_mul(16).saturating_add(hex_val(s[j]));
                    j += 1;
                }
                if j == i {
                    out.push(b'\\');
                    out.push(e);
                } else {
                    let c = char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER);
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    i = j;
                }
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    false
}

fn hex_val(b: u8) -> u32 {
    (b as char).to_digit(16).unwrap_or(0)
}
