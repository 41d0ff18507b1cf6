//! Checks on the source text before brush-parser sees it: inputs on which the parser
//! panics, recurses without bound or backtracks exponentially (each found by fuzzing,
//! `fuzz/`), and constructs the grammar would misread, refused by name.

/// A number brush-parser 0.4 would panic on (it unwraps its parse of them): a file
/// descriptor before `<` or `>` beyond `i32`, or a brace-sequence or tilde number
/// (after `{`, `..` or `~`, signed or not) beyond `i64`. Found by fuzzing (`fuzz/`): in the
/// component a panic is a trap, so the command is refused with the number instead.
pub(super) fn overflowing_number(source: &str) -> Option<&str> {
    let bytes = source.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let digits = source[start..i].trim_start_matches('0');
        let fits = |max: u64| digits.is_empty() || digits.parse::<u64>().is_ok_and(|n| n <= max);
        let before = source[..start].trim_end_matches(['-', '+']);
        let descriptor = matches!(bytes.get(i), Some(b'<' | b'>'));
        let sequence = before.ends_with('{') || before.ends_with("..") || before.ends_with('~');
        if (descriptor && !fits(i32::MAX as u64)) || (sequence && !fits(i64::MAX as u64)) {
            return Some(&source[start..i]);
        }
    }
    None
}

/// Whether `source` has an array subscript in a parameter expansion (`${a[0]}`,
/// `${#a[@]}`, `${!a[@]}`): arrays are refused, and brush-parser 0.4's word grammar
/// takes exponential time on nested ones (`${e[${e[…`, found by fuzzing), so they are
/// refused before it sees them. Quotes are ignored: refused, never misread.
pub(super) fn array_subscript(source: &str) -> bool {
    let bytes = source.as_bytes();
    source.match_indices("${").any(|(at, _)| {
        let mut i = at + 2;
        while matches!(bytes.get(i), Some(b'#' | b'!' | b' ' | b'\t' | b'\n')) {
            i += 1;
        }
        while bytes.get(i).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
            i += 1;
        }
        bytes.get(i) == Some(&b'[')
    })
}

/// For each byte of `source`, whether it is inside single quotes (a `'` outside double
/// quotes opens them; a backslash outside them escapes the next byte). Double quotes are
/// tracked only to tell a `'` inside them from one that quotes.
pub(super) fn single_quoted(source: &str) -> Vec<bool> {
    let bytes = source.as_bytes();
    let mut quoted = vec![false; bytes.len() + 1];
    let (mut single, mut double, mut i) = (false, false, 0);
    while i < bytes.len() {
        quoted[i] = single;
        match bytes[i] {
            b'\'' if !double => single = !single,
            _ if single => {}
            b'\\' => {
                i += 1;
                if i < bytes.len() {
                    quoted[i] = false;
                }
            }
            b'"' => double = !double,
            _ => {}
        }
        i += 1;
    }
    quoted
}

/// Whether `source` has bash's old `$[…]` arithmetic outside single quotes and not
/// escaped: brush-parser 0.4's tokenizer grows without bound on some of its forms
/// (`cat <<EOF$[` and two spaces took over 4 GiB, found by fuzzing). Analysts write
/// `$((…))`.
pub(super) fn old_arithmetic(source: &str) -> bool {
    let bytes = source.as_bytes();
    let (mut single, mut double, mut i) = (false, false, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\'' if !double => single = !single,
            _ if single => {}
            b'\\' => i += 1,
            b'"' => double = !double,
            b'$' if bytes.get(i + 1) == Some(&b'[') => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// The here-documents of `source`, or where an operator (`<<`, `<<-`) is followed by a
/// delimiter that is not a plain word (letters, digits, `_ . -`, whole or quoted with `'…'`, `"…"` or a
/// backslash): brush-parser 0.4's tokenizer runs away or panics on several such
/// delimiters (`<<EOF$[`, `<<- ` form feed `)`, `"$(cat << <>`, found by fuzzing), and
/// analysts write `EOF`, `'EOF'`, `PY`. Every `<<` outside single quotes counts, in
/// double quotes too: telling where the grammar's tokenizer thinks a double quote ends
/// is what it gets wrong, so `grep "<<" f` is refused (never misread), while
/// `python3 -c 'x = 1 << 20'` is not (unless the command has a `${`).
pub(super) fn here_documents(source: &str) -> Result<Vec<HereDocument>, usize> {
    let mut documents = Vec::new();
    let bytes = source.as_bytes();
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
    // Single quotes are trusted only without `${`, inside which the grammar's idea of
    // what a `'` does is not this scan's (found by fuzzing).
    let quoted = single_quoted(source);
    let trusted = !source.contains("${");
    let mut from = 0;
    while let Some(at) = source[from..].find("<<").map(|i| from + i) {
        if trusted && quoted[at] {
            from = at + 2;
            continue;
        }
        let mut i = at + 2;
        if bytes.get(i) == Some(&b'<') {
            // A here-string (`<<<`): no delimiter.
            from = at + 3;
            continue;
        }
        let strip_tabs = bytes.get(i) == Some(&b'-');
        if strip_tabs {
            i += 1;
        }
        while matches!(bytes.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        let quote = match bytes.get(i) {
            Some(q @ (b'\'' | b'"')) => {
                i += 1;
                Some(*q)
            }
            Some(b'\\') => {
                i += 1;
                None
            }
            _ => None,
        };
        let escaped = i > 0 && bytes[i - 1] == b'\\';
        let start = i;
        while i < bytes.len() && plain(bytes[i]) {
            i += 1;
        }
        if i == start {
            return Err(at);
        }
        let delimiter = source[start..i].to_string();
        if let Some(q) = quote {
            if bytes.get(i) != Some(&q) {
                return Err(at);
            }
            i += 1;
        }
        // An arithmetic shift (`$((1 << 2))`) reads as a plain word too.
        let ends = matches!(
            bytes.get(i),
            None | Some(b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b')' | b'<' | b'>' | b'"' | b'\'')
        );
        if !ends {
            return Err(at);
        }
        // An arithmetic shift has no body; only a line that starts after it can end one.
        // Told roughly (an unclosed `((` before it), so it is still checked for a
        // substitution after it ([`substitution_after`]): the tokenizer may take it for
        // an operator where this scan does not (found by fuzzing).
        let arithmetic = source[..at].rfind("((").is_some_and(|open| !source[open..at].contains("))"));
        documents.push(HereDocument { at, delimiter, strip_tabs, quoted: quote.is_some() || escaped, arithmetic });
        from = i;
    }
    Ok(documents)
}

/// A here-document operator of a command string, as [`here_documents`] found it.
pub(super) struct HereDocument {
    pub(super) at: usize,
    pub(super) delimiter: String,
    strip_tabs: bool,
    /// `<<'EOF'`, `<<"EOF"`, `<<\EOF`: a body without expansions.
    quoted: bool,
    /// Probably an arithmetic shift (`$((1 << 2))`), which has no body.
    pub(super) arithmetic: bool,
}

impl HereDocument {
    /// Whether a line after the operator's is the delimiter (after leading tabs, for
    /// `<<-`): brush-parser 0.4 reads an unterminated body with substitutions in it
    /// without end (found by fuzzing); bash would only warn.
    pub(super) fn ended(&self, source: &str) -> bool {
        self.body(source).is_some()
    }

    /// The body: the lines after the operator's line up to the end line.
    fn body<'s>(&self, source: &'s str) -> Option<&'s str> {
        let start = self.at + source[self.at..].find('\n')? + 1;
        let mut offset = start;
        for line in source[start..].split_inclusive('\n') {
            let bare = line.strip_suffix('\n').unwrap_or(line);
            let bare = if self.strip_tabs { bare.trim_start_matches('\t') } else { bare };
            if bare == self.delimiter {
                return Some(&source[start..offset]);
            }
            offset += line.len();
        }
        None
    }

    /// Whether the body expands (an unquoted delimiter) substitutions whose `(`, `{` or
    /// backquotes do not balance: brush-parser 0.4 reads such a body without end (found
    /// by fuzzing). Counted roughly, but a character after a backslash is text (`\``,
    /// `\$`, `\\` are how a body writes them literally); a quoted delimiter turns
    /// expansion off.
    pub(super) fn unbalanced_body(&self, source: &str) -> bool {
        if self.quoted {
            return false;
        }
        let Some(body) = self.body(source) else { return false };
        let mut counts = [0usize; 5];
        let mut chars = body.chars();
        let (mut substitution, mut closed_early) = (false, false);
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    chars.next();
                }
                '$' => substitution |= chars.as_str().starts_with(['(', '{']),
                _ => {}
            }
            if let Some(k) = "(){}`".find(c) {
                counts[k] += 1;
                substitution |= c == '`';
                // A `)` or `}` before the one it would close.
                closed_early |= counts[1] > counts[0] || counts[3] > counts[2];
            }
        }
        substitution && (closed_early || counts[0] != counts[1] || counts[2] != counts[3] || counts[4] % 2 == 1)
    }
}

/// Whether a substitution (`$(`, `${` or a backquote) follows the here-document
/// operator at `at` before the end of its logical line (a newline outside quotes):
/// brush-parser 0.4's tokenizer panics reading the here-document's body from inside a
/// nested construct (`<<F $(` newline `)` newline `F`, `<<F ${$$}` …, `<<F "` … newline
/// … `$(`: found by fuzzing). Counted roughly: such a command is refused, never
/// misread. Analysts put their substitutions in the body or on other lines.
///
/// After an arithmetic shift (`arithmetic`), another arithmetic expansion (`$((`) does
/// not count: `echo $((1 << 2)) $((x << y))` is arithmetic twice.
pub(super) fn substitution_after(source: &str, at: usize, arithmetic: bool) -> bool {
    let bytes = source.as_bytes();
    let (mut single, mut double, mut i) = (false, false, at + 2);
    while i < bytes.len() {
        match bytes[i] {
            b'\'' if !double => single = !single,
            _ if single => {}
            b'\\' => i += 1,
            b'"' => double = !double,
            b'`' => return true,
            b'$' if arithmetic && bytes[i + 1..].starts_with(b"((") => i += 2,
            b'$' if matches!(bytes.get(i + 1), Some(b'(' | b'{')) => return true,
            b'\n' if !double => break,
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether a `<<` stands inside a `${…}`, at any depth: there bash reads it as text
/// (or inside a command substitution within it, as an operator), but brush-parser 0.4's
/// tokenizer starts a here-document from inside the expansion and panics when the
/// body's lines end it (`${<<F` newline `}` newline `F`, and larger forms where the
/// grammar's idea of what closes what is not bash's: found by fuzzing). Counted
/// roughly, quotes and parentheses aside, and every `}` closing the latest `{` or `${`:
/// such a command is refused, never misread. Analysts write here-documents outside
/// expansions (`x=$(cat <<EOF` is fine; `${x:-$(cat <<EOF …)}` is refused).
pub(super) fn here_operator_in_parameter(source: &str) -> bool {
    let bytes = source.as_bytes();
    // `$` for each open `${`, `{` for each other open brace.
    let mut open: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'$' if bytes.get(i + 1) == Some(&b'{') => {
                open.push(b'$');
                i += 1;
            }
            b'{' => open.push(b'{'),
            b'}' => {
                open.pop();
            }
            b'<' if bytes.get(i + 1) == Some(&b'<') && open.contains(&b'$') => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// A cheap upper bound of the parenthesis/brace nesting, checked before brush-parser
/// (which recurses) sees a pathological input.
pub(super) fn nesting_depth(source: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    // `${` is open until a `}`: a `)` does not close it (`${)${)…`, which the grammar's
    // tokenizer follows one recursion a level, found by fuzzing).
    let (mut braces, mut max_braces) = (0usize, 0usize);
    let bytes = source.as_bytes();
    for (i, c) in bytes.iter().enumerate() {
        match c {
            b'(' | b'{' => {
                depth += 1;
                max = max.max(depth);
                if *c == b'{' && i > 0 && bytes[i - 1] == b'$' {
                    braces += 1;
                    max_braces = max_braces.max(braces);
                }
            }
            b')' => depth = depth.saturating_sub(1),
            b'}' => {
                depth = depth.saturating_sub(1);
                braces = braces.saturating_sub(1);
            }
            _ => {}
        }
    }
    max.max(max_braces)
}

/// The most unquoted `(` open at once in `source`: single-quoted text and escaped
/// characters do not count (a regex in quotes may have any number).
pub(crate) fn parenthesis_depth(source: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut bytes = source.bytes();
    while let Some(c) = bytes.next() {
        match c {
            b'\\' => {
                bytes.next();
            }
            b'\'' => {
                for q in bytes.by_ref() {
                    if q == b'\'' {
                        break;
                    }
                }
            }
            b'(' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Most `$((` in a command that are not arithmetic (`$((` whose two parentheses do not
/// close together, or never close): brush-parser 0.4 tries each both ways, arithmetic
/// and a command substitution of a subshell, so the time to parse doubles with each
/// (eight in a 81-byte here-document took minutes: found by fuzzing). Scripts write
/// `$((…))`, or `$( (…) )` with a space, which is not counted.
pub(super) const MAX_AMBIGUOUS_ARITHMETIC: usize = 2;

/// How many `$((` of `source` are not arithmetic (see [`MAX_AMBIGUOUS_ARITHMETIC`]),
/// counted roughly: parentheses are matched without regard to quotes.
pub(super) fn ambiguous_arithmetic(source: &str) -> usize {
    let bytes = source.as_bytes();
    let mut count = 0;
    for start in 0..bytes.len().saturating_sub(2) {
        if &bytes[start..start + 3] != b"$((" {
            continue;
        }
        // Depth after the outer `(` is 1, after the inner 2; arithmetic when the inner
        // closes right before the outer.
        let (mut depth, mut inner_closed_at) = (0usize, None);
        let mut arithmetic = false;
        for (i, &b) in bytes.iter().enumerate().skip(start + 1) {
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 1 && inner_closed_at.is_none() {
                        inner_closed_at = Some(i);
                    }
                    if depth == 0 {
                        arithmetic = inner_closed_at == Some(i - 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        count += usize::from(!arithmetic);
    }
    count
}

/// Deepest nesting of `case` statements handed to the parser: brush-parser 0.4 backtracks
/// over each `case` item's end (`;;`, `esac`, or another item), so the time to parse
/// doubles with each `case` open at once, closed or not (twenty nested took 2.5 s
/// natively and minutes in the fuzz build: found by fuzzing). Analysts nest one or two.
pub(super) const MAX_CASE_NESTING: usize = 6;

/// The most `case` statements open at once in `source`, counted roughly: a word `case`
/// opens one and a word `esac` closes one, outside single quotes; double quotes are not
/// tracked, so `echo "case case …"` counts (refused, never misread).
pub(super) fn case_nesting(source: &str) -> usize {
    let quoted = single_quoted(source);
    let bytes = source.as_bytes();
    let boundary = |b: u8| b.is_ascii_whitespace() || matches!(b, b';' | b'&' | b'|' | b'(' | b')' | b'`');
    let word_at = |at: usize, word: &[u8]| {
        bytes[at..].starts_with(word)
            && !quoted[at]
            && (at == 0 || boundary(bytes[at - 1]))
            && bytes.get(at + word.len()).is_none_or(|&b| boundary(b))
    };
    let (mut open, mut most) = (0usize, 0usize);
    for at in 0..bytes.len() {
        if word_at(at, b"case") {
            open += 1;
            most = most.max(open);
        } else if word_at(at, b"esac") {
            open = open.saturating_sub(1);
        }
    }
    most
}

#[cfg(test)]
mod tests {
    use super::{ambiguous_arithmetic, case_nesting, here_operator_in_parameter};

    #[test]
    fn a_here_document_operator_inside_a_parameter_expansion_is_found() {
        assert!(here_operator_in_parameter("${<<F\n}\nF"));
        assert!(here_operator_in_parameter("echo ${x:-a<<F}"));
        assert!(here_operator_in_parameter("echo $(f ${x:-<<F})"));
        assert!(here_operator_in_parameter("echo ${x:-$(cat <<F\nx\nF\n)}"));
        assert!(here_operator_in_parameter("${h ( ) ) { x } cat <<EOF"));
        for fine in
            ["cat <<F\nx\nF", "x=$(cat <<EOF\n${y}\nEOF\n)", "{ cat <<F; } 2>/dev/null\nx\nF", "echo $((1 << 2)) ${x}"]
        {
            assert!(!here_operator_in_parameter(fine), "{fine}");
        }
    }

    #[test]
    fn case_statements_open_at_once_are_counted() {
        assert_eq!(case_nesting("case $x in a) echo a;; esac; case $y in b) :;; esac"), 1);
        assert_eq!(case_nesting("case x in a) case y in b) :;; esac;; esac"), 2);
        assert_eq!(case_nesting(&"case x in a) x;".repeat(20)), 20, "unclosed");
        assert_eq!(case_nesting("echo 'case case case' showcase cases; grep -r case ."), 1);
        assert_eq!(case_nesting("(case x in a) :;; esac)"), 1);
    }

    #[test]
    fn arithmetic_is_told_from_subshells_and_strays() {
        assert_eq!(ambiguous_arithmetic("echo $((1 + $((2)))) $(( (3) * 4 ))"), 0);
        assert_eq!(ambiguous_arithmetic("echo $( (cd a; ls) )"), 0);
        // A subshell written without the space, and an unclosed one.
        assert_eq!(ambiguous_arithmetic("echo $((cd a; ls) | wc -l)"), 1);
        assert_eq!(ambiguous_arithmetic("echo $((1"), 1);
        // The fuzzer's input that took minutes to parse: refused.
        let slow =
            "<<EOF\n))$(($((\")\")$(()\n)$((\")\")\n)\")$(()c)\n$((\0)\0\")\n)O)\0$(($((xoN\"O)O)\0$((Fe\ny\nEOF";
        assert!(ambiguous_arithmetic(slow) > super::MAX_AMBIGUOUS_ARITHMETIC);
    }
}
