//! How rg reads a flag's value: numbers, sizes with a `K`, `M` or `G` suffix, and
//! separators with grep-cli's escapes. Apart from the flags, since several flags share
//! each of these readers.

pub(super) fn number<T: std::str::FromStr>(name: &str, v: &str) -> Result<T, String> {
    v.parse::<T>().map_err(|_| format!("invalid value '{v}' for '--{name}': expected a non-negative number"))
}

/// A size as rg reads it: digits and an optional `K`, `M` or `G` suffix.
pub(super) fn human_size(name: &str, v: &str) -> Result<usize, String> {
    let invalid = || {
        format!(
            "invalid format for size '{v}', which should be a sequence of digits followed by an optional 'K', 'M' or 'G' suffix"
        )
    };
    let (digits, shift) = match v.as_bytes().last() {
        Some(b'K') => (&v[..v.len() - 1], 10),
        Some(b'M') => (&v[..v.len() - 1], 20),
        Some(b'G') => (&v[..v.len() - 1], 30),
        _ => (v, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    let n: u64 = digits.parse().map_err(|_| invalid())?;
    n.checked_mul(1 << shift)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| format!("number too large for '--{name}': {v}"))
}

/// ripgrep's `unescape` (grep-cli) for separators: `\\`, `\n`, `\r`, `\t` and `\xHH`;
/// any other backslash stays as written.
pub fn unescape(s: &str) -> Vec<u8> {
    enum State {
        Literal,
        Escape,
        HexFirst,
        HexSecond(char),
    }
    let mut out = Vec::new();
    let mut state = State::Literal;
    let mut buf = [0u8; 4];
    for c in s.chars() {
        state = match state {
            State::Literal if c == '\\' => State::Escape,
            State::Literal => {
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                State::Literal
            }
            State::Escape => {
                match c {
                    '\\' => out.push(b'\\'),
                    'n' => out.push(b'\n'),
                    'r' => out.push(b'\r'),
                    't' => out.push(b'\t'),
                    'x' => {}
                    c => {
                        out.push(b'\\');
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                }
                if c == 'x' { State::HexFirst } else { State::Literal }
            }
            State::HexFirst if c.is_ascii_hexdigit() => State::HexSecond(c),
            State::HexFirst => {
                out.extend_from_slice(b"\\x");
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                State::Literal
            }
            State::HexSecond(first) if c.is_ascii_hexdigit() => {
                let hex = |d: char| d.to_digit(16).unwrap_or_default() as u8;
                out.push(hex(first) << 4 | hex(c));
                State::Literal
            }
            State::HexSecond(first) => {
                out.extend_from_slice(format!("\\x{first}{c}").as_bytes());
                State::Literal
            }
        };
    }
    match state {
        State::Literal => {}
        State::Escape => out.push(b'\\'),
        State::HexFirst => out.extend_from_slice(b"\\x"),
        State::HexSecond(first) => out.extend_from_slice(format!("\\x{first}").as_bytes()),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_and_sizes_as_ripgrep_reads_them() {
        assert_eq!(unescape(r"a\tb\x41\\\n"), b"a\tbA\\\n");
        assert_eq!(unescape(r"\0\q\x4\x41\"), br"\0\q\x4\x41\");
        assert_eq!(unescape(r"\xZZ\x"), br"\xZZ\x");
        assert_eq!(human_size("n", "10"), Ok(10));
        assert_eq!(human_size("n", "2K"), Ok(2048));
        assert_eq!(human_size("n", "1M"), Ok(1 << 20));
        assert!(human_size("n", "1Q").is_err() && human_size("n", "K").is_err());
    }
}
