//! Character positions in byte strings. awk's string functions count characters: in a
//! UTF-8 string (the usual case) a character is a UTF-8 sequence, as in gawk under a
//! UTF-8 locale; in other bytes each byte is one, as in mawk.

/// Whether `s` is counted by UTF-8 characters.
fn utf8(s: &[u8]) -> Option<&str> {
    if s.is_ascii() { None } else { std::str::from_utf8(s).ok() }
}

/// The number of characters in `s`.
pub fn char_len(s: &[u8]) -> usize {
    match utf8(s) {
        Some(t) => t.chars().count(),
        None => s.len(),
    }
}

/// The byte offset of character `n` (0-based; the length past the end).
pub fn byte_offset(s: &[u8], n: usize) -> usize {
    match utf8(s) {
        Some(t) => t.char_indices().nth(n).map_or(s.len(), |(i, _)| i),
        None => n.min(s.len()),
    }
}

/// The character count of `s[..offset]`.
pub fn char_index(s: &[u8], offset: usize) -> usize {
    match utf8(s) {
        Some(_) => char_len(&s[..offset]),
        None => offset,
    }
}

/// The first `n` characters of `s`.
pub fn prefix_chars(s: &[u8], n: usize) -> &[u8] {
    &s[..byte_offset(s, n)]
}

/// The first character of `s` (empty for an empty string).
pub fn first_char(s: &[u8]) -> &[u8] {
    prefix_chars(s, 1)
}

/// `%c` of a number: the character with that code (UTF-8 above 127, as gawk in a UTF-8
/// locale; a byte when it is not a character).
///
/// As gawk through glibc's `wcrtomb`: the code is the number's low 32 bits as a signed
/// `wchar_t`; a negative one or a surrogate cannot be encoded and prints its low byte;
/// above U+10FFFF the original UTF-8 encoding's longer forms are used.
pub fn char_of_code(n: f64) -> Vec<u8> {
    let uval = if n < 0.0 { (n as i64) as u64 } else { n as u64 };
    let wc = uval as u32 as i32;
    if wc < 0 || (0xD800..=0xDFFF).contains(&wc) {
        return vec![uval as u8];
    }
    let code = wc as u32;
    if code < 0x80 {
        return vec![code as u8];
    }
    let len = match code {
        0..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        0x1_0000..=0x1F_FFFF => 4,
        0x20_0000..=0x3FF_FFFF => 5,
        _ => 6,
    };
    let mut out = vec![0u8; len];
    let mut rest = code;
    for byte in out[1..].iter_mut().rev() {
        *byte = 0x80 | (rest & 0x3F) as u8;
        rest >>= 6;
    }
    out[0] = (0xFF00u32 >> len) as u8 | rest as u8;
    out
}

/// `tolower`/`toupper`: ASCII letters always, other letters when `s` is UTF-8.
pub fn change_case(s: &[u8], upper: bool) -> Vec<u8> {
    match utf8(s) {
        Some(t) => if upper { t.to_uppercase() } else { t.to_lowercase() }.into_bytes(),
        None => s.iter().map(|b| if upper { b.to_ascii_uppercase() } else { b.to_ascii_lowercase() }).collect(),
    }
}
