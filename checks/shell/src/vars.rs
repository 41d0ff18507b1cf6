//! Shell variables, positional parameters, and the string operations of parameter
//! expansion (`${X#pat}`, `${X/pat/rep}`, field splitting by `IFS`).
//!
//! The environment starts empty: `$HOME`, `$PATH`, `$USER` are unset, because a check
//! must not depend on the machine that runs it. Programs get no environment at all, so
//! `export` only marks a variable for the nested shells `bash -c` starts. Functions see
//! the caller's variables (bash's dynamic scoping); `local` hides a variable until the
//! function returns.

use std::collections::HashMap;
use std::rc::Rc;

use crate::parse::Replace;

/// One variable. The value is shared, so that copying the variables for a subshell (every
/// stage of a pipeline is one) does not copy a large `$(cat file)`.
#[derive(Debug, Clone, Default)]
pub struct Var {
    pub value: Rc<str>,
    pub exported: bool,
    pub readonly: bool,
}

/// What a running function saved: the variables its `local`s hide and the caller's
/// positional parameters.
#[derive(Debug, Clone, Default)]
struct Frame {
    hidden: HashMap<String, Option<Var>>,
    positional: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Vars {
    map: HashMap<String, Var>,
    frames: Vec<Frame>,
    /// `$1`, `$2`, ...
    pub positional: Vec<String>,
    /// `$0`.
    pub arg0: String,
}

impl Default for Vars {
    fn default() -> Vars {
        Vars { map: HashMap::new(), frames: Vec::new(), positional: Vec::new(), arg0: "bash".into() }
    }
}

/// Whether `name` is a valid variable name.
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Vars {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.map.get(name).map(|v| &*v.value)
    }

    /// The names of every variable set.
    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.map.keys()
    }

    pub fn var(&self, name: &str) -> Option<&Var> {
        self.map.get(name)
    }

    /// Sets `name`, keeping its attributes. A read-only variable is an error in bash's
    /// words (`X: readonly variable`).
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        match self.map.get_mut(name) {
            Some(var) if var.readonly => Err(format!("{name}: readonly variable")),
            Some(var) => {
                var.value = value.into();
                Ok(())
            }
            None => {
                self.map.insert(name.to_string(), Var { value: value.into(), ..Var::default() });
                Ok(())
            }
        }
    }

    /// Sets `name` for one command (`X=1 cmd`), exported so that a nested shell sees
    /// it, and records in `saved` how to put it back ([`Vars::restore`]).
    pub fn set_scoped(
        &mut self,
        name: &str,
        value: &str,
        saved: &mut Vec<(String, Option<Var>)>,
    ) -> Result<(), String> {
        let old = self.map.get(name).cloned();
        self.set(name, value)?;
        saved.push((name.to_string(), old));
        self.mark(name, true, false);
        Ok(())
    }

    pub fn mark(&mut self, name: &str, exported: bool, readonly: bool) {
        let var = self.map.entry(name.to_string()).or_default();
        var.exported |= exported;
        var.readonly |= readonly;
    }

    pub fn unset(&mut self, name: &str) -> Result<(), String> {
        match self.map.get(name) {
            Some(var) if var.readonly => Err(format!("{name}: cannot unset: readonly variable")),
            _ => {
                self.map.remove(name);
                Ok(())
            }
        }
    }

    /// Puts back a variable exactly as it was (after a prefix assignment `X=1 cmd`).
    pub fn restore(&mut self, name: &str, old: Option<Var>) {
        match old {
            Some(var) => self.map.insert(name.to_string(), var),
            None => self.map.remove(name),
        };
    }

    /// Whether a function is running (where `local` is allowed).
    pub fn in_function(&self) -> bool {
        !self.frames.is_empty()
    }

    /// `local name`: the current value is hidden until the function returns; the
    /// variable starts unset (bash: declared but without a value).
    pub fn local(&mut self, name: &str) -> Result<(), String> {
        let Some(frame) = self.frames.last_mut() else {
            return Err("local: can only be used in a function".into());
        };
        if let Some(var) = self.map.get(name)
            && var.readonly
        {
            return Err(format!("{name}: readonly variable"));
        }
        if !frame.hidden.contains_key(name) {
            frame.hidden.insert(name.to_string(), self.map.remove(name));
        }
        Ok(())
    }

    /// Enters a function called with `args`.
    pub fn push_frame(&mut self, args: Vec<String>) {
        let positional = std::mem::replace(&mut self.positional, args);
        self.frames.push(Frame { hidden: HashMap::new(), positional });
    }

    /// Leaves the function: its locals disappear and the caller's values come back.
    pub fn pop_frame(&mut self) {
        if let Some(frame) = self.frames.pop() {
            self.positional = frame.positional;
            for (name, old) in frame.hidden {
                self.restore(&name, old);
            }
        }
    }

    /// The exported variables, for a nested shell.
    pub fn exported(&self) -> Vars {
        let map = self.map.iter().filter(|(_, v)| v.exported).map(|(k, v)| (k.clone(), v.clone())).collect();
        Vars { map, ..Vars::default() }
    }

    /// Every variable, sorted by name (`set`, `export -p`).
    pub fn sorted(&self) -> Vec<(&str, &Var)> {
        let mut all: Vec<(&str, &Var)> = self.map.iter().map(|(k, v)| (k.as_str(), v)).collect();
        all.sort_by(|a, b| a.0.cmp(b.0));
        all
    }
}

/// `value` quoted for the shell when it needs it, as `set` and `set -x` print it.
pub fn quote(value: &str) -> String {
    let plain = !value.is_empty()
        && value.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | ',' | '+' | '=' | '@' | '%')
        });
    if plain { value.to_string() } else { format!("'{}'", value.replace('\'', r"'\''")) }
}

/// The result of splitting an unquoted expansion: its fields, and whether separators
/// touch its start and end (then it does not join the text around it).
#[derive(Debug, Default, PartialEq)]
pub struct Split {
    pub fields: Vec<String>,
    pub leading: bool,
    pub trailing: bool,
}

fn is_ifs_space(c: char, ifs: &str) -> bool {
    matches!(c, ' ' | '\t' | '\n') && ifs.contains(c)
}

/// Field splitting by `ifs` (POSIX 2.6.5): runs of IFS white space separate fields and
/// are dropped at both ends; every other IFS character ends one field, so `a::b` with
/// `IFS=:` is `a`, ``, `b`. `at_most` fields, the last keeping the rest of the text (for
/// `read`); `None` for no limit.
pub fn split(text: &str, ifs: &str, at_most: Option<usize>) -> Split {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    let mut i = 0;
    while i < n && is_ifs_space(chars[i], ifs) {
        i += 1;
    }
    let mut out = Split { leading: i > 0, ..Split::default() };
    while i < n {
        if at_most.is_some_and(|max| out.fields.len() + 1 >= max) {
            let rest: String = chars[i..].iter().collect();
            let trimmed = rest.trim_end_matches(|c| is_ifs_space(c, ifs));
            out.fields.push(trimmed.to_string());
            return out;
        }
        let start = i;
        while i < n && !ifs.contains(chars[i]) {
            i += 1;
        }
        out.fields.push(chars[start..i].iter().collect());
        if i == n {
            break;
        }
        while i < n && is_ifs_space(chars[i], ifs) {
            i += 1;
        }
        if i < n && !is_ifs_space(chars[i], ifs) && ifs.contains(chars[i]) {
            i += 1;
            while i < n && is_ifs_space(chars[i], ifs) {
                i += 1;
            }
        }
        out.trailing = i == n;
    }
    out
}

/// `text` as an fnmatch pattern that matches it literally (a quoted part of a pattern).
pub fn escape_pattern(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `text` as an extended regular expression that matches it literally (a quoted part of
/// the right-hand side of `=~`).
pub fn escape_regex(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '.' | '[' | ']' | '(' | ')' | '*' | '+' | '?' | '{' | '}' | '|' | '^' | '$' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Whether `text` matches the shell pattern `pattern` (`case`, `[[ == ]]`): `*` and `?`
/// match anything, `/` and a leading dot included. The match is by byte (fnmatch), so a
/// `?` does not match one non-ASCII character as bash does in a UTF-8 locale.
pub fn matches(pattern: &str, text: &str) -> bool {
    reviewhost_tool::fnmatch(pattern.as_bytes(), text.as_bytes())
}

/// Whether `pattern` has no special characters (then it is matched as plain text, fast).
fn is_literal(pattern: &str) -> bool {
    !pattern.contains(['*', '?', '[', '\\'])
}

/// The character boundaries of `text`, from 0 to its length.
fn boundaries(text: &str) -> Vec<usize> {
    text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len())).collect()
}

/// `${X#pat}` (shortest) and `${X##pat}` (longest): `text` without a matching prefix.
pub fn remove_prefix<'a>(text: &'a str, pattern: &str, longest: bool) -> &'a str {
    let mut cuts = boundaries(text);
    if longest {
        cuts.reverse();
    }
    cuts.into_iter().find(|&i| matches(pattern, &text[..i])).map_or(text, |i| &text[i..])
}

/// `${X%pat}` (shortest) and `${X%%pat}` (longest): `text` without a matching suffix.
pub fn remove_suffix<'a>(text: &'a str, pattern: &str, longest: bool) -> &'a str {
    let mut cuts = boundaries(text);
    if !longest {
        cuts.reverse();
    }
    cuts.into_iter().find(|&i| matches(pattern, &text[i..])).map_or(text, |i| &text[..i])
}

/// How many characters `pattern` matches when that is fixed (no `*`), computed as bash
/// 5.2's `umatchlen` does. bash's `${X/pat/rep}` tries only substrings of that length,
/// and its count takes the character after `[` as the bracket's first member without
/// looking at a negation, so `[^]]` or `[!]a]` count two (the bracket ends at the first
/// `]`) and match nothing there, while `case` and `${X#pat}` match them.
fn match_length(pattern: &str) -> Option<usize> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut length = 0;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '\\' => i += 1,
            '*' => return None,
            '?' | '+' | '!' | '@' if chars.get(i) == Some(&'(') => return None,
            '[' => {
                let start = i;
                // The first member cannot close the bracket (`[]]`), whatever it is.
                let mut first = true;
                loop {
                    match chars.get(i) {
                        None => {
                            // No closing `]`: the text is literal.
                            length += chars.len() - start;
                            break;
                        }
                        Some(']') if !first => break,
                        Some('[') if matches!(chars.get(i + 1), Some(':' | '=' | '.')) => {
                            let close = chars[i + 1];
                            let end = (i + 2..chars.len().saturating_sub(1))
                                .find(|&k| chars[k] == close && chars[k + 1] == ']');
                            i = end.map_or(i + 1, |k| k + 2);
                        }
                        Some('\\') => i += 2,
                        Some(_) => i += 1,
                    }
                    first = false;
                }
                i += 1;
            }
            _ => {}
        }
        length += 1;
    }
    Some(length)
}

/// `${X/pat/rep}`, `${X//pat/rep}`, `${X/#pat/rep}`, `${X/%pat/rep}`: the longest match
/// at the leftmost position where one starts, of the pattern's fixed length when it has
/// one ([`match_length`]). An empty pattern replaces nothing, but is matched by `/#` and
/// `/%` (it adds the replacement at the start or the end), and an empty value is
/// replaced whole when the pattern matches it (`${X/*/rep}`).
pub fn replace(text: &str, pattern: &str, replacement: &str, kind: Replace) -> String {
    let anchored = matches!(kind, Replace::Prefix | Replace::Suffix);
    if pattern.is_empty() && !anchored {
        return text.to_string();
    }
    if text.is_empty() {
        return if matches(pattern, "") { replacement.to_string() } else { String::new() };
    }
    let cuts = boundaries(text);
    let fixed = match_length(pattern);
    // Whether the match from cut `a` to cut `b` (indices into `cuts`) has the length.
    let fits = |a: usize, b: usize| fixed.is_none_or(|n| b - a == n);
    let last = cuts.len() - 1;
    match kind {
        Replace::Prefix => match (0..=last).rev().find(|&b| fits(0, b) && matches(pattern, &text[..cuts[b]])) {
            Some(b) => format!("{replacement}{}", &text[cuts[b]..]),
            None => text.to_string(),
        },
        Replace::Suffix => match (0..=last).find(|&a| fits(a, last) && matches(pattern, &text[cuts[a]..])) {
            Some(a) => format!("{}{replacement}", &text[..cuts[a]]),
            None => text.to_string(),
        },
        Replace::First if is_literal(pattern) => text.replacen(pattern, replacement, 1),
        Replace::All if is_literal(pattern) => text.replace(pattern, replacement),
        Replace::First | Replace::All => {
            let mut out = String::new();
            let mut k = 0;
            while k < cuts.len() {
                let start = cuts[k];
                let end = (k + 1..cuts.len()).rev().find(|&b| fits(k, b) && matches(pattern, &text[start..cuts[b]]));
                match end {
                    Some(b) => {
                        out.push_str(replacement);
                        if kind == Replace::First {
                            out.push_str(&text[cuts[b]..]);
                            return out;
                        }
                        k = b;
                    }
                    None => {
                        if let Some(&next) = cuts.get(k + 1) {
                            out.push_str(&text[start..next]);
                        }
                        k += 1;
                    }
                }
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting_follows_ifs() {
        let s = split("  a b\t\nc  ", " \t\n", None);
        assert_eq!(s, Split { fields: vec!["a".into(), "b".into(), "c".into()], leading: true, trailing: true });
        assert_eq!(split("a::b:", ":", None).fields, ["a", "", "b"]);
        assert_eq!(split("a : b", " :", None).fields, ["a", "b"]);
        assert_eq!(split("1:2:3:4", ":", Some(3)).fields, ["1", "2", "3:4"]);
        assert_eq!(split("  one two  three  ", " \t\n", Some(2)).fields, ["one", "two  three"]);
        assert!(split("   ", " ", None).fields.is_empty());
    }

    #[test]
    fn pattern_operations() {
        assert_eq!(remove_prefix("a/b/c.ts", "*/", false), "b/c.ts");
        assert_eq!(remove_prefix("a/b/c.ts", "*/", true), "c.ts");
        assert_eq!(remove_suffix("a/b/c.d.ts", ".*", false), "a/b/c.d");
        assert_eq!(remove_suffix("a/b/c.d.ts", ".*", true), "a/b/c");
        assert_eq!(remove_suffix("abc", "x", true), "abc");
        assert_eq!(replace("a-b-c", "-", "+", Replace::First), "a+b-c");
        assert_eq!(replace("a-b-c", "-", "", Replace::All), "abc");
        assert_eq!(replace("aXbXc", "[X]", "_", Replace::All), "a_b_c");
        assert_eq!(replace("foo.ts", "*.", "x.", Replace::First), "x.ts");
        assert_eq!(replace("abc", "a", "z", Replace::Prefix), "zbc");
        assert_eq!(replace("abc", "c", "z", Replace::Suffix), "abz");
        // bash 5.2 counts `[^]]` two characters long, so it replaces nothing.
        assert_eq!(replace("ab^cd^", "[^]]", "z", Replace::All), "ab^cd^");
        assert_eq!(replace("a]b", "[!]a]", "z", Replace::First), "a]b");
        assert_eq!(replace("a]b", "[]]", "z", Replace::First), "azb");
        assert_eq!(replace("a]b", "[^]]*", "z", Replace::First), "z");
        assert_eq!(replace("a.b", "[[:punct:]]", "Z", Replace::All), "aZb");
        assert_eq!(replace("a/b/c", "", "Z", Replace::Prefix), "Za/b/c");
        assert_eq!(replace("a/b/c", "", "Z", Replace::Suffix), "a/b/cZ");
        assert_eq!(replace("", "*", "Z", Replace::All), "Z");
        assert!(matches(&format!("{}*", escape_pattern("a*")), "a*b"));
        assert!(!matches(&escape_pattern("a*"), "ab"));
    }
}
