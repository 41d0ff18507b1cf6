//! sed's regular expressions: GNU BRE/ERE as `regcomp` reads them for sed, translated to
//! the `regex` crate.
//!
//! It differs from grep's translation (`reviewhost_grep::translate`) where sed differs
//! from grep: the pattern space may hold newlines (after `N`, `G`), and without the `M`
//! flag `.` and `[^a]` match them and `^`/`$` anchor the whole buffer; an unmatched `)` in
//! an ERE and a leading `*` in an ERE are errors; escapes such as `\t` or `\x41` arrive
//! already decoded by [`super::text::normalize`]. Back-references inside a pattern (`\(a\)\1`) are
//! refused: the `regex` crate has none.
//!
//! POSIX matching takes the longest of the matches that start leftmost; the `regex` crate
//! takes the first alternative that matches. Alternatives that are plain strings are put
//! longest first (`cat\|category`), and `s` looks for a longer match at the same start
//! when the pattern has alternatives and does not look past its end; a pattern with `$`,
//! `\b`, `\>` or `\'` and alternatives that are not plain strings may still differ.

use regex::bytes::{Regex, RegexBuilder};

/// Largest repetition count GNU accepts (`RE_DUP_MAX`).
const RE_DUP_MAX: u32 = 32767;
/// Deepest nesting of groups (and of groups added around repeated atoms) accepted, to
/// stay within the `regex` crate's nesting limit.
const MAX_NESTING: usize = 64;

/// A pattern as GNU sed hands it to `regcomp`, as characters.
pub(super) type Source = Vec<char>;

/// A byte that is not part of valid UTF-8, carried through [`Source`] as a private
/// character so the pattern stays a string.
const RAW_BYTE_BASE: u32 = 0x10_FF00;

/// Turns bytes into [`Source`] characters; invalid UTF-8 bytes become private characters.
pub(super) fn decode(bytes: &[u8]) -> Source {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let len = utf8_len(&bytes[i..]);
        match std::str::from_utf8(&bytes[i..i + len]).ok().and_then(|s| s.chars().next()) {
            Some(c) if len > 0 => {
                out.push(c);
                i += len;
            }
            _ => {
                out.push(char::from_u32(RAW_BYTE_BASE + u32::from(bytes[i])).unwrap_or('?'));
                i += 1;
            }
        }
    }
    out
}

/// Length of the UTF-8 character at the start of `b` (0 when it is not valid).
pub(super) fn utf8_len(b: &[u8]) -> usize {
    let want = match b.first() {
        Some(0..=0x7f) => 1,
        Some(0xc2..=0xdf) => 2,
        Some(0xe0..=0xef) => 3,
        Some(0xf0..=0xf4) => 4,
        _ => return 0,
    };
    if b.len() >= want && std::str::from_utf8(&b[..want]).is_ok() { want } else { 0 }
}

/// The `I` and `M` modifiers, and the buffer delimiter (`-z`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Flags {
    pub icase: bool,
    pub multiline: bool,
    pub extended: bool,
    pub posix: bool,
    pub null_data: bool,
}

/// A compiled pattern and how many groups it has (for `\N` in a replacement).
#[derive(Debug)]
pub(super) struct Pattern {
    pub regex: Regex,
    pub groups: usize,
    /// Whether GNU's matcher moves by bytes past an empty match it does not replace
    /// (splitting a multibyte character): glibc does so for patterns of characters, `.`
    /// and brackets of ASCII characters without `I`, and moves by characters otherwise.
    pub bytewise: bool,
    /// Compiled for an address, without groups: GNU compiles it again when an empty
    /// `s//` regex reuses it, and then checks the replacement's `\N`.
    pub no_sub: bool,
    /// For a pattern with alternatives, the pattern anchored at the end (`(?:re)\z`): run
    /// on a truncated buffer it tells whether a match spans exactly a given range, which
    /// finds POSIX's longest match where the first alternative that matches is shorter.
    /// `None` when the pattern may look past its end (`$`, `\b`, `\>`, `\'`), where
    /// truncating could make a match out of a non-match.
    pub anchored_end: Option<Regex>,
}

/// Compiles a pattern, or GNU's message for why it is invalid.
pub(super) fn compile(source: &Source, flags: Flags) -> Result<Pattern, String> {
    let mut t = Translator {
        chars: source,
        pos: 0,
        flags,
        out: String::new(),
        groups: 0,
        deepest: 0,
        wraps: 0,
        alternatives: vec![vec![(0, Some(0))]],
        plain_step: false,
        bytewise: true,
        alternation: false,
        end_context: false,
    };
    t.run()?;
    let build = |pattern: &str| {
        RegexBuilder::new(pattern)
            .case_insensitive(flags.icase)
            .multi_line(flags.multiline)
            .dot_matches_new_line(!flags.multiline)
            .line_terminator(if flags.null_data { 0 } else { b'\n' })
            .size_limit(64 << 20)
            .build()
            .map_err(|_| "Regular expression too big".to_string())
    };
    let regex = build(&t.out)?;
    let anchored_end = if t.alternation && !t.end_context { Some(build(&format!("(?:{})\\z", t.out))?) } else { None };
    Ok(Pattern { regex, groups: t.groups, bytewise: t.bytewise && !flags.icase, no_sub: false, anchored_end })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    Start,
    Anchor,
    Atom(usize),
    Repeated(usize, Option<char>),
}

struct Translator<'a> {
    chars: &'a [char],
    pos: usize,
    flags: Flags,
    out: String,
    groups: usize,
    deepest: usize,
    wraps: usize,
    /// The alternatives of each open group (the first entry: the whole pattern), with
    /// how many characters each has while it is a plain string.
    alternatives: Vec<Vec<(usize, Option<usize>)>>,
    /// Whether the item just read kept its alternative a plain string.
    plain_step: bool,
    /// Whether glibc would match this pattern byte by byte ([`Pattern::bytewise`]).
    bytewise: bool,
    /// Whether the pattern has alternatives, and whether it looks past a match's end.
    alternation: bool,
    end_context: bool,
}

fn err<T>(msg: &str) -> Result<T, String> {
    Err(msg.to_string())
}

impl Translator<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn ere(&self) -> bool {
        self.flags.extended
    }

    fn run(&mut self) -> Result<(), String> {
        let mut open: Vec<usize> = Vec::new();
        let mut last = Last::Start;
        while let Some(&c) = self.chars.get(self.pos) {
            self.pos += 1;
            self.plain_step = false;
            self.step(c, &mut open, &mut last)?;
            if !self.plain_step
                && let Some((_, len)) = self.alternatives.last_mut().and_then(|alts| alts.last_mut())
            {
                *len = None;
            }
        }
        if !open.is_empty() {
            return err("Unmatched ( or \\(");
        }
        self.close_alternatives();
        Ok(())
    }

    /// POSIX takes the longest match, the `regex` crate the first alternative that
    /// matches: alternatives that are all plain strings (`cat\|category`) are put
    /// longest first, which makes the two agree for them.
    fn close_alternatives(&mut self) {
        let Some(alts) = self.alternatives.pop() else { return };
        if alts.len() < 2 || alts.iter().any(|a| a.1.is_none()) {
            return;
        }
        let mut pieces: Vec<(usize, String)> = Vec::new();
        for (i, (start, len)) in alts.iter().enumerate() {
            let end = alts.get(i + 1).map_or(self.out.len(), |next| next.0 - 1);
            pieces.push((len.unwrap_or(0), self.out[*start..end].to_string()));
        }
        pieces.sort_by_key(|piece| std::cmp::Reverse(piece.0));
        let joined: Vec<String> = pieces.into_iter().map(|p| p.1).collect();
        self.out.truncate(alts[0].0);
        self.out.push_str(&joined.join("|"));
    }

    fn step(&mut self, c: char, open: &mut Vec<usize>, last: &mut Last) -> Result<(), String> {
        {
            let escaped = c == '\\';
            let c = if escaped {
                match self.peek(0) {
                    Some(n) => {
                        self.pos += 1;
                        n
                    }
                    None => return err("Trailing backslash"),
                }
            } else {
                c
            };
            let gnu = !self.flags.posix;
            let operator = escaped != self.ere();
            match (c, operator, escaped) {
                ('(', true, _) => {
                    open.push(self.out.len());
                    self.groups += 1;
                    self.deepest = self.deepest.max(open.len());
                    self.check_nesting()?;
                    self.out.push('(');
                    self.alternatives.push(vec![(self.out.len(), Some(0))]);
                    self.plain_step = true;
                    *last = Last::Start;
                }
                (')', true, _) => {
                    let Some(start) = open.pop() else {
                        return err("Unmatched ) or \\)");
                    };
                    self.close_alternatives();
                    self.out.push(')');
                    *last = Last::Atom(start);
                }
                ('|', true, _) if gnu || self.ere() => {
                    self.out.push('|');
                    self.alternation = true;
                    if let Some(alts) = self.alternatives.last_mut() {
                        alts.push((self.out.len(), Some(0)));
                    }
                    self.plain_step = true;
                    *last = Last::Start;
                }
                ('*', _, false) => {
                    // glibc's BRE: `a**` and `a\+*` have nothing to repeat.
                    if !self.ere() && matches!(*last, Last::Repeated(..)) {
                        return err("Invalid preceding regular expression");
                    }
                    if matches!(*last, Last::Start | Last::Anchor) {
                        if self.ere() {
                            return err("Invalid preceding regular expression");
                        }
                        *last = self.literal('*');
                        return Ok(());
                    }
                    *last = self.repeat(*last, "*")?;
                }
                ('+' | '?', true, _) if gnu || self.ere() => {
                    if matches!(*last, Last::Start | Last::Anchor) {
                        if self.ere() {
                            return err("Invalid preceding regular expression");
                        }
                        *last = self.literal(c);
                        return Ok(());
                    }
                    *last = self.repeat(*last, if c == '+' { "+" } else { "?" })?;
                }
                ('{', true, _) => {
                    let save = self.pos;
                    match self.interval()? {
                        Some((min, max)) => {
                            if matches!(*last, Last::Start | Last::Anchor)
                                || (!self.ere() && matches!(*last, Last::Repeated(..)))
                            {
                                return err("Invalid preceding regular expression");
                            }
                            let op = match max {
                                Some(max) if max == min => format!("{{{min}}}"),
                                Some(max) => format!("{{{min},{max}}}"),
                                None => format!("{{{min},}}"),
                            };
                            *last = self.repeat(*last, &op)?;
                        }
                        None => {
                            self.pos = save;
                            *last = self.literal('{');
                        }
                    }
                }
                ('^', _, false) => {
                    if self.ere() || *last == Last::Start {
                        self.out.push('^');
                        *last = Last::Anchor;
                    } else {
                        *last = self.literal('^');
                    }
                }
                ('$', _, false) => {
                    let next_is = |t: &Self, k: usize| t.chars.get(t.pos + k).copied();
                    let at_end =
                        matches!((next_is(self, 0), next_is(self, 1)), (None, _) | (Some('\\'), Some(')' | '|')));
                    if self.ere() || at_end {
                        let start = self.out.len();
                        self.out.push('$');
                        self.end_context = true;
                        *last = Last::Atom(start);
                    } else {
                        *last = self.literal('$');
                    }
                }
                ('.', _, false) => {
                    let start = self.out.len();
                    // With `M` and `-z` GNU matches each NUL-separated line apart, and `.`
                    // still excludes the newline.
                    self.out.push_str(if self.flags.multiline && self.flags.null_data { "[^\\n\\x00]" } else { "." });
                    *last = Last::Atom(start);
                }
                ('[', _, false) => {
                    let start = self.out.len();
                    self.bracket()?;
                    *last = Last::Atom(start);
                }
                ('1'..='9', _, true) => {
                    let n = c as usize - '0' as usize;
                    if n > self.groups {
                        return err("Invalid back reference");
                    }
                    return err("back-references in a regular expression (\\1 to \\9) are not supported");
                }
                (_, _, true) if gnu && "<>bBwWsS`'".contains(c) => {
                    self.bytewise &= "`'".contains(c);
                    // Truncating the buffer can only make `\<` and `\B` fail, never
                    // succeed, so they do not stop the search for the longest match.
                    self.end_context |= ">b'".contains(c);
                    let start = self.out.len();
                    self.out.push_str(match c {
                        '<' => r"\b{start}",
                        '>' => r"\b{end}",
                        'b' => r"\b",
                        'B' => r"\B",
                        'w' => r"[\w]",
                        'W' => r"[^\w]",
                        's' => r"[\s]",
                        'S' => r"[^\s]",
                        '`' => r"\A",
                        _ => r"\z",
                    });
                    // GNU's regcomp takes the word and buffer anchors as anchors: a
                    // repetition after one has nothing to repeat.
                    *last = if "<>bB`'".contains(c) { Last::Anchor } else { Last::Atom(start) };
                }
                _ => *last = self.literal(c),
            }
        }
        Ok(())
    }

    fn literal(&mut self, c: char) -> Last {
        self.plain_step = true;
        if let Some((_, Some(len))) = self.alternatives.last_mut().and_then(|alts| alts.last_mut()) {
            *len += 1;
        }
        let start = self.out.len();
        push_literal(&mut self.out, c);
        Last::Atom(start)
    }

    fn repeat(&mut self, last: Last, op: &str) -> Result<Last, String> {
        let simple = match op {
            "*" | "+" | "?" => op.chars().next(),
            _ => None,
        };
        Ok(match (last, simple) {
            (Last::Atom(start), _) => {
                self.out.push_str(op);
                Last::Repeated(start, simple)
            }
            (Last::Repeated(start, Some(inner)), Some(outer)) => {
                let merged = if inner == outer { inner } else { '*' };
                self.out.pop();
                self.out.push(merged);
                Last::Repeated(start, Some(merged))
            }
            (Last::Repeated(start, _), _) => {
                self.wraps += 1;
                self.check_nesting()?;
                self.out.insert_str(start, "(?:");
                self.out.push(')');
                self.out.push_str(op);
                Last::Repeated(start, simple)
            }
            (Last::Start | Last::Anchor, _) => last,
        })
    }

    fn check_nesting(&self) -> Result<(), String> {
        if self.deepest + self.wraps > MAX_NESTING { err("Regular expression too big") } else { Ok(()) }
    }

    /// An interval after `{` (ERE) or `\{` (BRE); `None` in an ERE when it is not one.
    fn interval(&mut self) -> Result<Option<(u32, Option<u32>)>, String> {
        let ere = self.ere();
        let number = |t: &mut Self| {
            let mut value: Option<u32> = None;
            while let Some(d) = t.peek(0).and_then(|c| c.to_digit(10)) {
                t.pos += 1;
                value = Some(value.unwrap_or(0).saturating_mul(10).saturating_add(d).min(RE_DUP_MAX + 1));
            }
            value
        };
        let min = number(self);
        let max = if self.peek(0) == Some(',') {
            self.pos += 1;
            number(self)
        } else {
            if min.is_none() {
                return Err(self.brace_error());
            }
            min
        };
        let closed = if ere {
            self.peek(0) == Some('}') && {
                self.pos += 1;
                true
            }
        } else if self.peek(0) == Some('\\') && self.peek(1) == Some('}') {
            self.pos += 2;
            true
        } else {
            false
        };
        if !closed {
            return Err(self.brace_error());
        }
        let lo = min.unwrap_or(0);
        if max.is_some_and(|hi| hi < lo) {
            return err("Invalid content of \\{\\}");
        }
        if lo > RE_DUP_MAX || max.is_some_and(|m| m > RE_DUP_MAX) {
            return err("Regular expression too big");
        }
        Ok(Some((lo, max)))
    }

    fn brace_error(&self) -> String {
        let rest: String = self.chars[self.pos.min(self.chars.len())..].iter().collect();
        let close = if self.ere() { "}" } else { "\\}" };
        if rest.contains(close) { "Invalid content of \\{\\}".into() } else { "Unmatched \\{".into() }
    }

    /// A bracket expression (the `[` is consumed). Without `M`, `[^a]` matches a newline.
    fn bracket(&mut self) -> Result<(), String> {
        const UNMATCHED: &str = "Unmatched [, [^, [:, [., or [=";
        let negated = self.peek(0) == Some('^');
        if negated {
            self.pos += 1;
        }
        // glibc's plain bracket: ASCII members only, no range, class or negation.
        let start = self.pos;
        let mut end = start + 1;
        while end < self.chars.len() && self.chars[end] != ']' {
            end += 1;
        }
        let members = &self.chars[start..end.min(self.chars.len())];
        let inner = members.len().saturating_sub(1);
        self.bytewise &= !negated
            && members.iter().enumerate().all(|(i, &c)| c.is_ascii() && c != '[' && (c != '-' || i == 0 || i == inner));
        let mut items = String::new();
        let mut first = true;
        loop {
            let Some(c) = self.peek(0) else {
                return err(UNMATCHED);
            };
            self.pos += 1;
            if c == ']' && !first {
                break;
            }
            first = false;
            let lo = if c == '[' && matches!(self.peek(0), Some(':' | '.' | '=')) {
                let kind = self.peek(0).unwrap_or(':');
                self.pos += 1;
                let start = self.pos;
                loop {
                    match (self.peek(0), self.peek(1)) {
                        (Some(k), Some(']')) if k == kind => break,
                        (None, _) => return err(UNMATCHED),
                        _ => self.pos += 1,
                    }
                }
                let name: String = self.chars[start..self.pos].iter().collect();
                self.pos += 2;
                if kind == ':' {
                    // glibc reads `upper` and `lower` as `alpha` when case is ignored.
                    let name = if self.flags.icase && (name == "upper" || name == "lower") { "alpha" } else { &name };
                    items.push_str(class_items(name)?);
                    continue;
                }
                let mut it = name.chars();
                match (it.next(), it.next()) {
                    (Some(one), None) => one,
                    _ => return err("Invalid collation character"),
                }
            } else {
                c
            };
            if self.peek(0) == Some('-') && self.peek(1).is_some_and(|n| n != ']') {
                self.pos += 1;
                let hi = self.peek(0).unwrap_or(']');
                self.pos += 1;
                if hi < lo {
                    return err("Invalid range end");
                }
                push_class_char(&mut items, lo);
                items.push('-');
                push_class_char(&mut items, hi);
            } else {
                push_class_char(&mut items, lo);
            }
        }
        let newline = match (self.flags.multiline, self.flags.null_data) {
            (true, true) => "\\n\\x00",
            (true, false) => "\\n",
            _ => "",
        };
        if negated {
            self.out.push_str(&format!("[^{items}{newline}]"));
        } else {
            self.out.push_str(&format!("[{items}]"));
        }
        Ok(())
    }
}

fn push_literal(out: &mut String, c: char) {
    let code = c as u32;
    if code >= RAW_BYTE_BASE {
        out.push_str(&format!("(?-u:\\x{:02X})", code - RAW_BYTE_BASE));
    } else {
        let mut buf = [0u8; 4];
        out.push_str(&regex::escape(c.encode_utf8(&mut buf)));
    }
}

fn push_class_char(items: &mut String, c: char) {
    let code = c as u32;
    if code >= RAW_BYTE_BASE {
        // A class mixing Unicode and raw bytes is not expressible; the byte is dropped.
        return;
    }
    if matches!(c, '\\' | ']' | '[' | '^' | '-' | '&' | '~') {
        items.push('\\');
    }
    if c == '\n' {
        items.push_str("\\n");
    } else {
        items.push(c);
    }
}

/// The members of a POSIX character class in a UTF-8 locale.
fn class_items(name: &str) -> Result<&'static str, String> {
    Ok(match name {
        "alpha" => r"\p{Alphabetic}",
        "alnum" => r"\p{Alphabetic}\p{Nd}",
        "digit" => "0-9",
        "upper" => r"\p{Uppercase}",
        "lower" => r"\p{Lowercase}",
        "space" => r"\s",
        "blank" => r" \t",
        "punct" => r"!-/:-@\[-`{-\~",
        "print" => r"\P{C}",
        "graph" => r"\p{L}\p{M}\p{N}\p{P}\p{S}",
        "cntrl" => r"\p{Cc}",
        "xdigit" => "0-9A-Fa-f",
        _ => return err("Invalid character class name"),
    })
}
