//! Translation of POSIX regular expressions, as GNU grep reads them, into the syntax of
//! the `regex` crate.
//!
//! GNU grep has two syntaxes: basic (BRE, the default, where `\|`, `\+`, `\?`, `\{m,n\}`
//! and `\(\)` are operators and `|+?{}()` are ordinary characters) and extended (ERE,
//! `-E`, the other way round). Both differ from the `regex` crate in details that
//! matter to analysts: bracket expressions (`[]a]`, a backslash is literal inside
//! brackets, `[[:alpha:]]` is Unicode-aware in a UTF-8 locale), `\<` and `\>`, a leading
//! `*` is literal in a BRE, `a**` is valid, `{,n}` means `{0,n}`, an ERE `{` that does not
//! start a valid interval is literal.
//!
//! The output never matches a newline: grep matches line by line, and the searcher
//! runs the regex over a whole buffer, so `[^a]`, `\W` and `\s` exclude `\n`.
//!
//! Deliberately not supported: back-references (`\1`..`\9`; the `regex` crate has none,
//! so they are an error naming the feature), collating elements other than a single
//! character (`[[.space.]]`), and GNU's "stray backslash" warnings.

use std::fmt::Write as _;

/// The largest repetition count GNU accepts (`RE_DUP_MAX`); above it GNU says
/// "Regular expression too big".
pub const RE_DUP_MAX: u32 = 32767;

/// Deepest nesting of groups accepted, counting each group added around a repeated atom
/// (`a{2}{3}`) as one more level; deeper patterns are "Regular expression too big". The
/// `regex` crate refuses patterns nested more than 250 levels deep (a group costs it up
/// to three) and its compiler recurses, so this keeps every translation compilable.
pub const MAX_NESTING: usize = 64;

/// Which POSIX syntax the pattern is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Basic,
    Extended,
}

/// A translated pattern: `regex` crate syntax, plus GNU's warnings (ERE only, e.g.
/// `* at start of expression`), which grep prints to stderr without failing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translated {
    pub regex: String,
    pub warnings: Vec<String>,
}

/// A pattern GNU grep rejects, with GNU's message (printed as `grep: MESSAGE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError(pub String);

impl PatternError {
    fn new(msg: &str) -> PatternError {
        PatternError(msg.to_string())
    }
}

const UNMATCHED_BRACKET: &str = "Unmatched [, [^, [:, [., or [=";
const UNMATCHED_OPEN: &str = "Unmatched ( or \\(";
const UNMATCHED_CLOSE: &str = "Unmatched ) or \\)";
const UNMATCHED_BRACE: &str = "Unmatched \\{";
const BAD_INTERVAL: &str = "Invalid content of \\{\\}";
const TOO_BIG: &str = "Regular expression too big";

/// Translates one GNU pattern (one line of the pattern list) into `regex` crate syntax.
pub fn translate(pattern: &str, syntax: Syntax) -> Result<Translated, PatternError> {
    translate_groups(pattern, syntax, false)
}

/// [`translate`], with the pattern's own groups capturing (numbered as `\1`… in the
/// pattern), for a tool that replaces with them (`sed s/\(a\)/\1/`). grep never needs
/// the groups, so its translation leaves them non-capturing.
pub fn translate_capturing(pattern: &str, syntax: Syntax) -> Result<Translated, PatternError> {
    translate_groups(pattern, syntax, true)
}

fn translate_groups(pattern: &str, syntax: Syntax, capture: bool) -> Result<Translated, PatternError> {
    let chars = pattern.chars().collect();
    Translator { chars, pos: 0, syntax, capture, out: String::new(), warnings: Vec::new(), deepest: 0, wraps: 0 }.run()
}

/// What the last emitted item was, for deciding how a following `*` is read and
/// whether a repetition needs a group around its operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    /// Start of the pattern, of a group or of an alternative: a `*` here is literal
    /// (BRE) or ignored with a warning (ERE).
    Start,
    /// A `^` anchor: same as `Start` for a following `*`.
    Anchor,
    /// An atom beginning at this byte offset of the output.
    Atom(usize),
    /// A repeated atom beginning at this byte offset (`a*`), with its operator when that
    /// is `*`, `+` or `?`: another repetition merges with it or wraps it.
    Repeated(usize, Option<char>),
}

struct Translator {
    chars: Vec<char>,
    pos: usize,
    syntax: Syntax,
    /// Whether the pattern's groups capture ([`translate_capturing`]).
    capture: bool,
    out: String,
    warnings: Vec<String>,
    /// The most groups open at once, and the groups added around repeated atoms: their
    /// sum bounds the output's nesting.
    deepest: usize,
    wraps: usize,
}

impl Translator {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn ere(&self) -> bool {
        self.syntax == Syntax::Extended
    }

    fn run(mut self) -> Result<Translated, PatternError> {
        // Stack of output offsets where the open groups start, to report unmatched ones.
        let mut groups: Vec<usize> = Vec::new();
        let mut last = Last::Start;
        while let Some(c) = self.peek(0) {
            self.pos += 1;
            let escaped = c == '\\';
            let c = if escaped {
                match self.peek(0) {
                    Some(n) => {
                        self.pos += 1;
                        n
                    }
                    None => return Err(PatternError::new("Trailing backslash")),
                }
            } else {
                c
            };
            // Normalise to the operator meaning independent of syntax: in a BRE the
            // escaped form is the operator, in an ERE the bare form.
            let operator = escaped != self.ere();
            match (c, operator, escaped) {
                ('(', true, _) => {
                    groups.push(self.out.len());
                    self.deepest = self.deepest.max(groups.len());
                    self.check_nesting()?;
                    self.out.push_str(if self.capture { "(" } else { "(?:" });
                    last = Last::Start;
                }
                (')', true, _) => {
                    let Some(start) = groups.pop() else {
                        if self.ere() {
                            // GNU ERE: an unmatched `)` is an ordinary character.
                            last = self.literal(')');
                            continue;
                        }
                        return Err(PatternError::new(UNMATCHED_CLOSE));
                    };
                    self.out.push(')');
                    last = Last::Atom(start);
                }
                ('|', true, _) => {
                    self.out.push('|');
                    last = Last::Start;
                }
                ('*', _, false) => {
                    if matches!(last, Last::Start | Last::Anchor) {
                        if self.ere() {
                            self.warn("* at start of expression");
                        } else {
                            last = self.literal('*');
                        }
                        continue;
                    }
                    last = self.repeat(last, "*")?;
                }
                ('+' | '?', true, _) => {
                    if matches!(last, Last::Start | Last::Anchor) {
                        if self.ere() {
                            self.warn(&format!("{c} at start of expression"));
                        } else {
                            last = self.literal(c);
                        }
                        continue;
                    }
                    last = self.repeat(last, if c == '+' { "+" } else { "?" })?;
                }
                ('{', true, _) => {
                    let save = self.pos;
                    match self.interval()? {
                        Some((min, max)) => {
                            if matches!(last, Last::Start | Last::Anchor) {
                                if self.ere() {
                                    self.warn("{...} at start of expression");
                                    continue;
                                }
                                // BRE `\{` at the start: GNU treats the interval as literal text.
                                self.pos = save;
                                last = self.literal('{');
                                continue;
                            }
                            let op = match max {
                                Some(max) if max == min => format!("{{{min}}}"),
                                Some(max) => format!("{{{min},{max}}}"),
                                None => format!("{{{min},}}"),
                            };
                            last = self.repeat(last, &op)?;
                        }
                        None => {
                            // Only an ERE gets here: not an interval, so a literal `{`.
                            self.pos = save;
                            last = self.literal('{');
                        }
                    }
                }
                ('^', _, false) => {
                    // ERE: always an anchor. BRE: an anchor only where an expression starts.
                    if self.ere() || last == Last::Start {
                        self.out.push('^');
                        last = Last::Anchor;
                    } else {
                        last = self.literal('^');
                    }
                }
                ('$', _, false) => {
                    let at_end = matches!((self.peek(0), self.peek(1)), (None, _) | (Some('\\'), Some(')' | '|')));
                    if self.ere() || at_end {
                        let start = self.out.len();
                        self.out.push('$');
                        last = Last::Atom(start);
                    } else {
                        last = self.literal('$');
                    }
                }
                ('.', _, false) => {
                    let start = self.out.len();
                    self.out.push('.');
                    last = Last::Atom(start);
                }
                ('[', _, false) => {
                    let start = self.out.len();
                    self.bracket()?;
                    last = Last::Atom(start);
                }
                ('1'..='9', _, true) => {
                    return Err(PatternError::new(
                        "back-references (\\1 to \\9) are not supported in the reviewhost sandbox",
                    ));
                }
                (_, _, true) if "<>bBwWsS`'".contains(c) => {
                    let start = self.out.len();
                    self.out.push_str(match c {
                        '<' => r"\b{start}",
                        '>' => r"\b{end}",
                        'b' => r"\b",
                        'B' => r"\B",
                        'w' => r"\w",
                        'W' => r"[^\w\n]",
                        's' => r"[\s&&[^\n]]",
                        'S' => r"\S",
                        '`' => "^",
                        _ => "$",
                    });
                    // `\`` is a start anchor like `^`; the others are atoms a `*` may follow.
                    last = if c == '`' { Last::Anchor } else { Last::Atom(start) };
                }
                _ => last = self.literal(c),
            }
        }
        if !groups.is_empty() {
            return Err(PatternError::new(UNMATCHED_OPEN));
        }
        Ok(Translated { regex: self.out, warnings: self.warnings })
    }

    fn warn(&mut self, msg: &str) {
        if !self.warnings.iter().any(|w| w == msg) {
            self.warnings.push(msg.to_string());
        }
    }

    fn literal(&mut self, c: char) -> Last {
        let start = self.out.len();
        let mut buf = [0u8; 4];
        self.out.push_str(&regex::escape(c.encode_utf8(&mut buf)));
        Last::Atom(start)
    }

    /// Appends a repetition operator to the last atom. Stacked repetitions are valid in
    /// POSIX and an error in the `regex` crate: `*`, `+` and `?` merge (`(a*)*` is `a*`,
    /// `(a+)+` is `a+`, `(a?)?` is `a?`, any other pair is `a*`), so a run like `a***`
    /// stays flat; otherwise the repeated atom is wrapped in a group first (`a{2}{3}`).
    fn repeat(&mut self, last: Last, op: &str) -> Result<Last, PatternError> {
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

    fn check_nesting(&self) -> Result<(), PatternError> {
        if self.deepest + self.wraps > MAX_NESTING { Err(PatternError::new(TOO_BIG)) } else { Ok(()) }
    }

    /// Reads an interval after `{` (ERE) or `\{` (BRE): `{n}`, `{n,}`, `{,m}`, `{n,m}`.
    /// Returns `None` in an ERE when the text is not an interval (then `{` is literal).
    fn interval(&mut self) -> Result<Option<(u32, Option<u32>)>, PatternError> {
        let ere = self.ere();
        let number = |t: &mut Translator| -> Result<Option<u32>, PatternError> {
            let mut value: Option<u32> = None;
            while let Some(d) = t.peek(0).and_then(|c| c.to_digit(10)) {
                t.pos += 1;
                let v = value.unwrap_or(0).saturating_mul(10).saturating_add(d);
                value = Some(v.min(RE_DUP_MAX + 1));
            }
            Ok(value)
        };
        let min = number(self)?;
        let max = if self.peek(0) == Some(',') {
            self.pos += 1;
            number(self)?
        } else {
            if min.is_none() {
                // GNU ERE: `a{}` is an error, other braces without a count (`a{x}`, `a{`)
                // are ordinary characters.
                if ere && self.peek(0) == Some('}') {
                    return Err(PatternError::new(BAD_INTERVAL));
                }
                if ere {
                    return Ok(None);
                }
                return Err(self.brace_error());
            }
            min
        };
        let closed = if ere {
            if self.peek(0) == Some('}') {
                self.pos += 1;
                true
            } else {
                false
            }
        } else if self.peek(0) == Some('\\') && self.peek(1) == Some('}') {
            self.pos += 2;
            true
        } else {
            false
        };
        if !closed {
            if ere {
                return Ok(None);
            }
            return Err(self.brace_error());
        }
        let lo = min.unwrap_or(0);
        if let Some(hi) = max
            && hi < lo
        {
            return Err(PatternError::new(BAD_INTERVAL));
        }
        if lo > RE_DUP_MAX || max.is_some_and(|m| m > RE_DUP_MAX) {
            return Err(PatternError::new(TOO_BIG));
        }
        Ok(Some((lo, max)))
    }

    /// The BRE error for a bad `\{`: GNU says "Unmatched" when no `\}` follows at all.
    fn brace_error(&self) -> PatternError {
        let rest: String = self.chars[self.pos.min(self.chars.len())..].iter().collect();
        if rest.contains("\\}") { PatternError::new(BAD_INTERVAL) } else { PatternError::new(UNMATCHED_BRACE) }
    }

    /// Reads a bracket expression (the `[` is consumed) and emits a `regex` class that
    /// never matches a newline.
    fn bracket(&mut self) -> Result<(), PatternError> {
        let negated = self.peek(0) == Some('^');
        if negated {
            self.pos += 1;
        }
        // `[:alpha:]` instead of `[[:alpha:]]`: GNU rejects it with a hint.
        if self.peek(0) == Some(':') {
            let rest: String = self.chars[self.pos..].iter().collect();
            // As GNU's dfa decides it: something between the colons, no `]` before the
            // closing `:]`, no range and no class inside (`[::]`, `[:-:]` are ordinary).
            if let Some(end) = rest.find(":]")
                && end > 1
                && !rest[1..end].contains([']', '-', '['])
            {
                return Err(PatternError::new("character class syntax is [[:space:]], not [:space:]"));
            }
        }
        let mut items = String::new();
        let mut first = true;
        loop {
            let Some(c) = self.peek(0) else {
                return Err(PatternError::new(UNMATCHED_BRACKET));
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
                        (None, _) => return Err(PatternError::new(UNMATCHED_BRACKET)),
                        _ => self.pos += 1,
                    }
                }
                let name: String = self.chars[start..self.pos].iter().collect();
                self.pos += 2;
                if kind == ':' {
                    items.push_str(class_items(&name)?);
                    continue;
                }
                let mut it = name.chars();
                match (it.next(), it.next()) {
                    (Some(one), None) => one,
                    _ => return Err(PatternError::new("Invalid collation character")),
                }
            } else {
                c
            };
            // A range `lo-hi`, unless the `-` is the last character before `]`.
            if self.peek(0) == Some('-') && self.peek(1).is_some_and(|n| n != ']') {
                self.pos += 1;
                let mut hi = self.peek(0).unwrap_or(']');
                self.pos += 1;
                if hi == '[' && matches!(self.peek(0), Some('.' | '=')) {
                    let kind = self.peek(0).unwrap_or('.');
                    self.pos += 1;
                    match (self.peek(0), self.peek(1), self.peek(2)) {
                        (Some(one), Some(k), Some(']')) if k == kind => {
                            hi = one;
                            self.pos += 3;
                        }
                        _ => return Err(PatternError::new(UNMATCHED_BRACKET)),
                    }
                }
                if hi < lo {
                    return Err(PatternError::new("Invalid range end"));
                }
                push_class_char(&mut items, lo);
                items.push('-');
                push_class_char(&mut items, hi);
            } else {
                push_class_char(&mut items, lo);
            }
        }
        if negated {
            let _ = write!(self.out, "[^{items}\\n]");
        } else {
            let _ = write!(self.out, "[{items}&&[^\\n]]");
        }
        Ok(())
    }
}

/// A character inside a `regex` class, escaped when it is special there.
fn push_class_char(items: &mut String, c: char) {
    if matches!(c, '\\' | ']' | '[' | '^' | '-' | '&' | '~') {
        items.push('\\');
    }
    items.push(c);
}

/// The members of a POSIX character class in a UTF-8 locale (GNU grep with
/// `LC_ALL=C.UTF-8` classifies non-ASCII letters as `alpha`).
fn class_items(name: &str) -> Result<&'static str, PatternError> {
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
        _ => return Err(PatternError::new("Invalid character class name")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bre(p: &str) -> String {
        translate(p, Syntax::Basic).map(|t| t.regex).unwrap_or_else(|e| format!("ERR {}", e.0))
    }
    fn ere(p: &str) -> String {
        translate(p, Syntax::Extended).map(|t| t.regex).unwrap_or_else(|e| format!("ERR {}", e.0))
    }
    /// Whether the translated pattern matches `hay`.
    fn m(syntax: Syntax, p: &str, hay: &str) -> bool {
        let t = translate(p, syntax).expect("pattern translates");
        regex::Regex::new(&format!("(?m){}", t.regex)).expect("regex compiles").is_match(hay)
    }

    #[test]
    fn bre_operators_are_escaped_forms() {
        assert_eq!(bre(r"a\|b"), "a|b");
        assert_eq!(bre(r"a\+"), "a+");
        assert_eq!(bre(r"a\?"), "a?");
        assert_eq!(bre(r"a\{2\}"), "a{2}");
        assert_eq!(bre(r"a\{2,\}"), "a{2,}");
        assert_eq!(bre(r"a\{,3\}"), "a{0,3}");
        assert_eq!(bre(r"a\{1,3\}"), "a{1,3}");
        assert_eq!(bre(r"\(ab\)*"), "(?:ab)*");
    }

    #[test]
    fn bre_bare_operators_are_literals() {
        assert_eq!(bre("a|b"), r"a\|b");
        assert_eq!(bre("a+"), r"a\+");
        assert_eq!(bre("a?"), r"a\?");
        assert_eq!(bre("a{2}"), r"a\{2\}");
        assert_eq!(bre("(a)"), r"\(a\)");
        assert!(m(Syntax::Basic, "f(x)", "call f(x) now"));
        assert!(!m(Syntax::Basic, "f(x)", "fx"));
    }

    #[test]
    fn bre_star_anchor_and_dollar_positions() {
        assert_eq!(bre("*a"), r"\*a");
        assert_eq!(bre(r"\(*a\)"), r"(?:\*a)");
        assert_eq!(bre("^*a"), r"^\*a");
        assert_eq!(bre("a^b"), r"a\^b");
        assert_eq!(bre("a$b"), r"a\$b");
        assert_eq!(bre("a$"), "a$");
        assert_eq!(bre(r"\(a$\)"), "(?:a$)");
        assert_eq!(bre(r"a$\|b"), "a$|b");
    }

    #[test]
    fn ere_operators() {
        assert_eq!(ere("a|b"), "a|b");
        assert_eq!(ere("(ab)+c?"), "(?:ab)+c?");
        assert_eq!(ere("a{2,3}"), "a{2,3}");
        assert_eq!(ere("a{,3}"), "a{0,3}");
        assert_eq!(ere(r"a\|b"), r"a\|b");
        assert_eq!(ere(r"\(a\)"), r"\(a\)");
        assert_eq!(ere("a{1,2}{3}"), "(?:a{1,2}){3}");
        assert_eq!(ere("a*{2}"), "(?:a*){2}");
    }

    #[test]
    fn stacked_repetitions_merge() {
        assert_eq!(ere("a**"), "a*");
        assert_eq!(ere("a++"), "a+");
        assert_eq!(ere("a??"), "a?");
        assert_eq!(ere("a+?"), "a*");
        assert_eq!(bre(r"a*\?\+"), "a*");
        assert_eq!(ere("a{2}*+"), "(?:a{2})*");
        // Found by fuzzing: 126 stars nested past the `regex` crate's limit.
        assert!(m(Syntax::Basic, &format!("x{}y", "*".repeat(300)), "xxxy"));
    }

    #[test]
    fn nesting_is_bounded() {
        let groups = |n: usize| format!("{}a\\|b{}", "\\(x".repeat(n), "\\)".repeat(n));
        assert!(m(Syntax::Basic, &groups(MAX_NESTING), &format!("{}a", "x".repeat(MAX_NESTING))));
        assert_eq!(bre(&groups(MAX_NESTING + 1)), "ERR Regular expression too big");
        // The first interval repeats `a`, each further one wraps what is before it.
        assert!(m(Syntax::Extended, &format!("a{}", "{1}".repeat(MAX_NESTING + 1)), "a"));
        assert_eq!(ere(&format!("a{}", "{1}".repeat(MAX_NESTING + 2))), "ERR Regular expression too big");
    }

    #[test]
    fn ere_literal_braces_and_parens() {
        assert_eq!(ere("a{1"), r"a\{1");
        assert_eq!(ere("a{x}"), r"a\{x\}");
        assert_eq!(translate("a{}", Syntax::Extended), Err(PatternError::new(BAD_INTERVAL)));
        assert_eq!(translate("a{1}{}", Syntax::Extended), Err(PatternError::new(BAD_INTERVAL)));
        assert_eq!(ere(")"), r"\)");
        let t = translate("*a", Syntax::Extended).expect("valid");
        assert_eq!(t.regex, "a");
        assert_eq!(t.warnings, vec!["* at start of expression".to_string()]);
        let t = translate("{1}a", Syntax::Extended).expect("valid");
        assert_eq!(t.warnings, vec!["{...} at start of expression".to_string()]);
    }

    #[test]
    fn errors_have_gnu_messages() {
        assert_eq!(bre(r"a\{1"), r"ERR Unmatched \{");
        assert_eq!(bre(r"a\{x\}"), r"ERR Invalid content of \{\}");
        assert_eq!(ere("a{2,1}"), r"ERR Invalid content of \{\}");
        assert_eq!(ere("x{99999}"), "ERR Regular expression too big");
        assert_eq!(ere("("), r"ERR Unmatched ( or \(");
        assert_eq!(bre(r"\("), r"ERR Unmatched ( or \(");
        assert_eq!(bre(r"\)"), r"ERR Unmatched ) or \)");
        assert_eq!(bre("[a"), "ERR Unmatched [, [^, [:, [., or [=");
        assert_eq!(bre("[[:alpha:]"), "ERR Unmatched [, [^, [:, [., or [=");
        assert_eq!(bre("[[:foo:]]"), "ERR Invalid character class name");
        assert_eq!(bre("[:alpha:]"), "ERR character class syntax is [[:space:]], not [:space:]");
        assert_eq!(bre("[:a b:]"), "ERR character class syntax is [[:space:]], not [:space:]");
        assert!(!bre("[::]").starts_with("ERR") && !bre("[:-:]").starts_with("ERR"));
        assert_eq!(bre("[z-a]"), "ERR Invalid range end");
        assert_eq!(bre("x\\"), "ERR Trailing backslash");
        assert!(bre(r"\(a\)\1").starts_with("ERR back-references"));
    }

    #[test]
    fn brackets() {
        assert_eq!(bre("[]a]"), r"[\]a&&[^\n]]");
        assert_eq!(bre("[^]a]"), r"[^\]a\n]");
        assert_eq!(bre("[a-]"), r"[a\-&&[^\n]]");
        assert_eq!(bre(r"[\]"), r"[\\&&[^\n]]");
        assert!(m(Syntax::Basic, "[[:alpha:]]", "é"));
        assert!(m(Syntax::Basic, "[[:digit:]x]", "7"));
        assert!(!m(Syntax::Basic, "[^a]", "\n"));
        assert!(m(Syntax::Basic, "[a-c]", "b"));
        assert!(m(Syntax::Basic, "[[.-.]]", "-"));
    }

    #[test]
    fn gnu_escapes() {
        assert_eq!(bre(r"\<a\>"), r"\b{start}a\b{end}");
        assert_eq!(bre(r"\bx\B"), r"\bx\B");
        assert_eq!(bre(r"\w\W\s\S"), r"\w[^\w\n][\s&&[^\n]]\S");
        assert_eq!(bre(r"\d"), "d");
        assert_eq!(bre(r"\."), r"\.");
        assert!(!m(Syntax::Basic, r"a\sb", "a\nb"));
    }

    #[test]
    fn literals_are_escaped_for_the_regex_crate() {
        assert_eq!(bre("a.b"), "a.b");
        assert_eq!(bre(r"a\.b"), r"a\.b");
        assert_eq!(bre("#&~"), r"\#\&\~");
        assert!(m(Syntax::Extended, "日本.", "日本語"));
    }
}
