//! awk's regular expressions: POSIX ERE with awk's escapes, matched leftmost-longest.
//!
//! An awk regex (a `/literal/` or a string used as one) is first rewritten into the ERE
//! that GNU grep reads: awk's escape sequences (`\t`, `\/`, `\"`, octal `\101`) become
//! the characters they stand for, and a bracket expression's backslash escapes (`[\]]`,
//! `[a\-z]`, which awk allows and grep does not) become POSIX bracket syntax. Then
//! `reviewhost_grep`'s translation makes it `regex` crate syntax, as sed's are.
//!
//! The `regex` crate finds the leftmost-first match; awk's `match`, `sub` and `gsub`
//! need POSIX's leftmost-longest (`match("ab", /a|ab/)` is 2 long), which a lazy DFA
//! searching for all matches from the start gives, as in grep's `-o`.
//!
//! Difference kept from the translation: a negated bracket (`[^a]`) and `\s` never match
//! a newline (grep's matching is line by line); `.` does, as in awk. Records hold a
//! newline only in paragraph mode (`RS=""`) or with an unusual `RS`.

use std::cell::RefCell;

use regex::bytes::{Regex, RegexBuilder};
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::{Anchored, Input, MatchKind};
use reviewhost_grep::translate::{Syntax, translate, translate_capturing};

/// Memory the compiled program of one regex may use: an awk program's regexes come
/// from the check, which is not allowed to exhaust the sandbox's memory.
pub const REGEX_SIZE_LIMIT: usize = 16 * 1024 * 1024;
/// Memory of the lazy DFA of one regex.
pub const DFA_SIZE_LIMIT: usize = 8 * 1024 * 1024;

/// A compiled awk regex.
pub struct Pattern {
    re: Regex,
    longest: Option<(DFA, RefCell<Cache>)>,
    /// The POSIX ERE, for the capturing variant built on first use.
    ere: String,
    /// `(?:pattern)\z`, for the groups of a known match (gawk's `match(s, re, arr)`).
    ending: std::cell::OnceCell<Option<Regex>>,
}

impl Pattern {
    /// Compiles the awk regex `source` (its text between the slashes, or a string's
    /// value), or gawk's words for why it is invalid.
    pub fn new(source: &[u8]) -> Result<Pattern, String> {
        let ere = to_posix(source);
        let text = String::from_utf8_lossy(&ere);
        let shown = String::from_utf8_lossy(source);
        let translated = translate(&text, Syntax::Extended).map_err(|e| format!("{}: /{shown}/", e.0))?;
        let pattern = format!("(?s){}", translated.regex);
        let re = RegexBuilder::new(&pattern)
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(DFA_SIZE_LIMIT)
            .build()
            .map_err(|e| format!("invalid regexp /{shown}/: {e}"))?;
        let longest = DFA::builder()
            .configure(
                DFA::config().match_kind(MatchKind::All).unicode_word_boundary(true).cache_capacity(DFA_SIZE_LIMIT),
            )
            .build(&pattern)
            .ok()
            .map(|dfa| {
                let cache = dfa.create_cache();
                (dfa, RefCell::new(cache))
            });
        Ok(Pattern { re, longest, ere: text.into_owned(), ending: std::cell::OnceCell::new() })
    }

    pub fn is_match(&self, s: &[u8]) -> bool {
        self.re.is_match(s)
    }

    /// The leftmost-longest match at or after `at` (possibly empty): start and end.
    pub fn find_at(&self, s: &[u8], at: usize) -> Option<(usize, usize)> {
        let m = self.re.find_at(s, at)?;
        let end = self.longest_end(s, m.start()).unwrap_or(m.end()).max(m.end());
        Some((m.start(), end))
    }

    /// The spans of the groups of the match `s[start..end]` (found by [`Pattern::find_at`]):
    /// the groups of the leftmost-first match of the pattern that starts at `start` and
    /// ends exactly at `end`. A `$` inside the pattern may also match at `end` here.
    pub fn groups(&self, s: &[u8], start: usize, end: usize) -> Vec<Option<(usize, usize)>> {
        let ending = self.ending.get_or_init(|| {
            let translated = translate_capturing(&self.ere, Syntax::Extended).ok()?;
            RegexBuilder::new(&format!("(?s)(?:{})\\z", translated.regex))
                .size_limit(REGEX_SIZE_LIMIT)
                .dfa_size_limit(DFA_SIZE_LIMIT)
                .build()
                .ok()
        });
        let caps = ending.as_ref().and_then(|re| re.captures_at(&s[..end], start));
        match caps {
            Some(caps) if caps.get(0).is_some_and(|m| m.start() == start) => {
                caps.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect()
            }
            _ => vec![Some((start, end))],
        }
    }

    fn longest_end(&self, s: &[u8], start: usize) -> Option<usize> {
        let (dfa, cache) = self.longest.as_ref()?;
        let mut cache = cache.try_borrow_mut().ok()?;
        let input = Input::new(s).range(start..).anchored(Anchored::Yes);
        dfa.try_search_fwd(&mut cache, &input).ok().flatten().map(|m| m.offset())
    }
}

/// Characters that are operators in an ERE outside brackets.
const ERE_SPECIAL: &[u8] = b"\\^$.[]|()*+?{}";

/// An awk regex as the POSIX ERE GNU grep reads (see the module note).
pub fn to_posix(src: &[u8]) -> Vec<u8> {
    let src = &numeric_escapes(src);
    let mut out = Vec::with_capacity(src.len());
    let mut i = 0;
    while i < src.len() {
        match src[i] {
            b'\\' if i + 1 < src.len() => {
                let (c, len) = escape(&src[i + 1..]);
                i += 1 + len;
                match c {
                    Escaped::Byte(b) => push_literal(&mut out, b),
                    Escaped::Keep(b) => {
                        out.push(b'\\');
                        out.push(b);
                    }
                }
            }
            b'[' => i = bracket(src, i, &mut out),
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// `src` with its octal and hexadecimal escapes (`\056`, `\x2e`) replaced by the
/// character they stand for, which the regex then reads as if written there: gawk (when
/// not `--traditional`) puts it into the pattern as it is, so `/a\056b/` matches `axb`
/// and `[a\135]` is `[a]]`.
fn numeric_escapes(src: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !src.contains(&b'\\') {
        return src.into();
    }
    let mut out = Vec::with_capacity(src.len());
    let mut i = 0;
    while i < src.len() {
        if src[i] != b'\\' || i + 1 == src.len() {
            out.push(src[i]);
            i += 1;
            continue;
        }
        let rest = &src[i + 1..];
        let numeric =
            (b'0'..=b'7').contains(&rest[0]) || (rest[0] == b'x' && rest.get(1).is_some_and(u8::is_ascii_hexdigit));
        match escape(rest) {
            (Escaped::Byte(b), len) if numeric => {
                out.push(b);
                i += 1 + len;
            }
            _ => {
                out.extend_from_slice(&src[i..i + 2]);
                i += 2;
            }
        }
    }
    out.into()
}

enum Escaped {
    /// A character that stands for itself.
    Byte(u8),
    /// An escape the ERE reads the same way (`\.`, `\<`, `\w`).
    Keep(u8),
}

/// The escape after a backslash, and how many bytes it used.
fn escape(rest: &[u8]) -> (Escaped, usize) {
    let c = rest[0];
    if (b'0'..=b'7').contains(&c) {
        let len = rest.iter().take(3).take_while(|b| (b'0'..=b'7').contains(*b)).count();
        let v = rest[..len].iter().fold(0u32, |v, d| v * 8 + u32::from(d - b'0'));
        return (Escaped::Byte(v as u8), len);
    }
    if c == b'x' && rest.get(1).is_some_and(u8::is_ascii_hexdigit) {
        let (v, len) = crate::lexer::hex_escape(&rest[1..]);
        return (Escaped::Byte(v), 1 + len);
    }
    let e = match c {
        b'n' => Escaped::Byte(b'\n'),
        b't' => Escaped::Byte(b'\t'),
        b'r' => Escaped::Byte(b'\r'),
        b'f' => Escaped::Byte(0x0c),
        b'v' => Escaped::Byte(0x0b),
        b'a' => Escaped::Byte(0x07),
        b'b' => Escaped::Byte(0x08),
        b'/' | b'"' | b'&' => Escaped::Byte(c),
        // gawk's word boundary.
        b'y' => Escaped::Keep(b'b'),
        c if ERE_SPECIAL.contains(&c) => Escaped::Keep(c),
        b'<' | b'>' | b'w' | b'W' | b's' | b'S' | b'B' | b'`' | b'\'' => Escaped::Keep(c),
        other => Escaped::Byte(other),
    };
    (e, 1)
}

fn push_literal(out: &mut Vec<u8>, b: u8) {
    if ERE_SPECIAL.contains(&b) {
        out.push(b'\\');
    }
    out.push(b);
}

/// Copies the bracket expression at `src[start]` (a `[`) to `out` in POSIX syntax,
/// returning the index after it. An unclosed bracket is copied as it is, for the
/// translation to report.
fn bracket(src: &[u8], start: usize, out: &mut Vec<u8>) -> usize {
    let mut i = start + 1;
    let negated = src.get(i) == Some(&b'^');
    if negated {
        i += 1;
    }
    let mut items: Vec<u8> = Vec::new();
    let (mut rbracket, mut dash, mut caret) = (false, false, false);
    if src.get(i) == Some(&b']') {
        rbracket = true;
        i += 1;
    }
    loop {
        let Some(&c) = src.get(i) else {
            out.extend_from_slice(&src[start..]);
            return src.len();
        };
        match c {
            b']' => {
                i += 1;
                break;
            }
            b'[' if matches!(src.get(i + 1), Some(b':' | b'.' | b'=')) => {
                let kind = src[i + 1];
                let close = src[i + 2..].windows(2).position(|w| w[0] == kind && w[1] == b']');
                match close {
                    Some(end) => {
                        items.extend_from_slice(&src[i..i + 2 + end + 2]);
                        i += 2 + end + 2;
                    }
                    None => {
                        items.push(c);
                        i += 1;
                    }
                }
            }
            b'\\' if i + 1 < src.len() => {
                let (e, len) = escape(&src[i + 1..]);
                i += 1 + len;
                let b = match e {
                    Escaped::Byte(b) | Escaped::Keep(b) => b,
                };
                match b {
                    b']' => rbracket = true,
                    b'-' => dash = true,
                    b'^' => caret = true,
                    b => items.push(b),
                }
            }
            b'^' => {
                caret = true;
                i += 1;
            }
            c => {
                items.push(c);
                i += 1;
            }
        }
    }
    if !negated && !rbracket && !dash && items.is_empty() && caret {
        out.extend_from_slice(b"\\^");
        return i;
    }
    out.push(b'[');
    if negated {
        out.push(b'^');
    }
    if rbracket {
        out.push(b']');
    }
    let caret_first = !rbracket && items.is_empty();
    if caret && !caret_first {
        items.push(b'^');
    }
    out.extend_from_slice(&items);
    if caret && caret_first {
        // Only `^` (and maybe `-`) remain: `[-^]` and `[^^]` read it as a member.
        if !negated && dash {
            out.push(b'-');
            dash = false;
        }
        out.push(b'^');
    }
    if dash {
        out.push(b'-');
    }
    out.push(b']');
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn awk_escapes_become_posix() {
        assert_eq!(to_posix(br"a\/b\tc"), b"a/b\tc");
        assert_eq!(to_posix(br"[\]a]"), b"[]a]");
        assert_eq!(to_posix(br"[a\-z]"), b"[az-]");
        assert_eq!(to_posix(br"\.\$"), br"\.\$");
        assert_eq!(to_posix(br"[\^]"), br"\^");
        assert_eq!(to_posix(br"\101"), b"A");
    }

    #[test]
    fn longest_match() {
        let p = Pattern::new(b"a|ab").unwrap();
        assert_eq!(p.find_at(b"xab", 0), Some((1, 3)));
        let p = Pattern::new(b"x*").unwrap();
        assert_eq!(p.find_at(b"abc", 0), Some((0, 0)));
        assert!(Pattern::new(b"[[:alpha:]]+").unwrap().is_match(b"abc"));
        assert!(Pattern::new(b"(").is_err());
    }
}
