//! Words: brush-parser's word pieces turned into [`Word`]s (quoting, parameter
//! expansions, substitutions, brace expansion, `$'…'`), each construct kept or refused
//! by name.

use brush_parser::ParserOptions;
use brush_parser::word::{
    self, ParameterExpr, ParameterTestType, SpecialParameter, SubstringMatchKind, WordPiece, WordPieceWithSource,
};

use super::{
    BRACE_WORDS, Expansion, MAX_BRACE_WORDS, MAX_NESTING, Parameter, ParameterOp, Piece, Replace, Unsupported, Word,
    options, parse_nested, too_deep,
};

/// The text of a word that has no substitutions, if it is one.
pub fn literal(word: &Word) -> Option<String> {
    word.0
        .iter()
        .map(|p| match p {
            Piece::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

pub(super) fn parse_word(raw: &str, depth: usize) -> Result<Word, Unsupported> {
    parse_word_in(raw, false, depth)
}

/// Most `{` in one brace-expanded word: analysts write one or two (brush-parser's brace
/// grammar, used before, backtracked exponentially in unclosed ones, found by fuzzing).
pub(super) const MAX_BRACES: usize = 8;

/// A word of a command or of a `for` list, brace-expanded into several when it has a
/// brace expression (`src/{a,b}.ts`, `{1..3}`, `-{$a,'b c'}-`), as bash does before any
/// other expansion: on the text as written, where quoted or escaped braces and commas
/// and those of `${…}`, `$(…)` and backquotes are text. Each word is then parsed.
pub(super) fn command_words(raw: &str, depth: usize) -> Result<Vec<Word>, Unsupported> {
    if !raw.contains('{') {
        return Ok(vec![parse_word(raw, depth)?]);
    }
    let chars: Vec<char> = raw.chars().collect();
    let texts = brace_expand(&chars, raw, 0)?;
    if texts.len() == 1 && texts[0] == raw {
        return Ok(vec![parse_word(raw, depth)?]);
    }
    if raw.matches('{').count() > MAX_BRACES {
        return Err(Unsupported(format!("brace expansion with more than {MAX_BRACES} `{{` in one word")));
    }
    let total = BRACE_WORDS.get() + texts.len();
    if total > MAX_BRACE_WORDS {
        return Err(Unsupported(format!("brace expansions of more than {MAX_BRACE_WORDS} words")));
    }
    BRACE_WORDS.set(total);
    texts.iter().map(|text| parse_word(text, depth)).collect()
}

/// The index after the quoted or substituted text starting at `i` (`'…'`, `"…"`,
/// `$'…'`, `\x`, `${…}`, `$(…)`, a backquoted command), or `None` when none starts there.
fn skip_quoted(chars: &[char], i: usize) -> Option<usize> {
    // `escapes`: a backslash inside escapes the next character.
    let until = |from: usize, end: char, escapes: bool| {
        let mut k = from;
        while k < chars.len() && chars[k] != end {
            k += if chars[k] == '\\' && escapes { 2 } else { 1 };
        }
        (k + 1).min(chars.len())
    };
    match chars[i] {
        '\\' => Some((i + 2).min(chars.len())),
        '\'' => Some(until(i + 1, '\'', false)),
        '"' => Some(until(i + 1, '"', true)),
        '`' => Some(until(i + 1, '`', true)),
        '$' => match chars.get(i + 1) {
            Some('\'') => Some(until(i + 2, '\'', true)),
            Some('(' | '{') => Some(closing(chars, i + 1)),
            _ => None,
        },
        _ => None,
    }
}

/// The `}` that closes the `{` at `open` and the top-level commas between them.
fn brace_body(chars: &[char], open: usize) -> Option<(usize, Vec<usize>)> {
    let (mut depth, mut commas, mut i) = (0usize, Vec::new(), open + 1);
    while i < chars.len() {
        if let Some(next) = skip_quoted(chars, i) {
            i = next;
            continue;
        }
        match chars[i] {
            '{' => depth += 1,
            '}' if depth == 0 => return Some((i, commas)),
            '}' => depth -= 1,
            ',' if depth == 0 => commas.push(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// bash's brace expansion of a word's text: the first brace expression (a later `{` when
/// an earlier one is not one: `{x}_{a,b}`), its alternatives expanded in turn, times the
/// expansions of the rest.
/// `level`: brace expressions around and before this text, at most [`MAX_BRACES`].
fn brace_expand(chars: &[char], raw: &str, level: usize) -> Result<Vec<String>, Unsupported> {
    if level > MAX_BRACES {
        return Err(Unsupported(format!("brace expansion with more than {MAX_BRACES} `{{` in one word")));
    }
    let too_many = || Unsupported(format!("brace expansion `{raw}` of more than {MAX_BRACE_WORDS} words"));
    let mut i = 0;
    while i < chars.len() {
        if let Some(next) = skip_quoted(chars, i) {
            i = next;
            continue;
        }
        if chars[i] != '{' {
            i += 1;
            continue;
        }
        let open = i;
        i += 1;
        let Some((close, commas)) = brace_body(chars, open) else { continue };
        let alternatives = if commas.is_empty() {
            let inside: String = chars[open + 1..close].iter().collect();
            match sequence(&inside, raw)? {
                Some(items) => items,
                None => continue,
            }
        } else {
            let mut alternatives = Vec::new();
            let bounds = std::iter::once(open).chain(commas.iter().copied()).zip(commas.iter().copied().chain([close]));
            for (from, to) in bounds {
                alternatives.extend(brace_expand(&chars[from + 1..to], raw, level + 1)?);
                if alternatives.len() > MAX_BRACE_WORDS {
                    return Err(too_many());
                }
            }
            alternatives
        };
        let prefix: String = chars[..open].iter().collect();
        let rest = brace_expand(&chars[close + 1..], raw, level + 1)?;
        if alternatives.len().saturating_mul(rest.len()) > MAX_BRACE_WORDS {
            return Err(too_many());
        }
        let prefix = prefix.as_str();
        return Ok(alternatives.iter().flat_map(|a| rest.iter().map(move |r| format!("{prefix}{a}{r}"))).collect());
    }
    Ok(vec![chars.iter().collect()])
}

/// The words of a sequence expression `x..y` or `x..y..step` (numbers, or single
/// characters), or `None` when `inside` is not one. A bound written with a leading zero
/// pads every number to the width of the wider bound (`{01..10}`, `{-05..2}`); the
/// step's sign is ignored and a step of 0 is 1.
fn sequence(inside: &str, raw: &str) -> Result<Option<Vec<String>>, Unsupported> {
    let parts: Vec<&str> = inside.split("..").collect();
    let (start, end, step) = match parts.as_slice() {
        [start, end] => (*start, *end, None),
        [start, end, step] => (*start, *end, Some(*step)),
        _ => return Ok(None),
    };
    let number = |t: &str| {
        let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then(|| t.parse::<i64>().ok()).flatten()
    };
    let step = match step {
        None => 1,
        Some(t) => match number(t) {
            Some(n) => n.unsigned_abs().max(1),
            None => return Ok(None),
        },
    };
    let count = |from: i64, to: i64| -> Result<Vec<i64>, Unsupported> {
        if from.abs_diff(to) / step >= MAX_BRACE_WORDS as u64 {
            return Err(Unsupported(format!("brace expansion `{raw}` of more than {MAX_BRACE_WORDS} words")));
        }
        let n = from.abs_diff(to) / step;
        let step = step as i64;
        Ok((0..=n as i64).map(|k| if from <= to { from + k * step } else { from - k * step }).collect())
    };
    if let (Some(from), Some(to)) = (number(start), number(end)) {
        let padded = |t: &str| {
            t.strip_prefix(['-', '+']).unwrap_or(t).len() > 1 && t.trim_start_matches(['-', '+']).starts_with('0')
        };
        let width = if padded(start) || padded(end) { start.len().max(end.len()) } else { 0 };
        return Ok(Some(count(from, to)?.into_iter().map(|n| format!("{n:0width$}")).collect()));
    }
    let single = |t: &str| {
        let mut chars = t.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => Some(c),
            _ => None,
        }
    };
    if let (Some(from), Some(to)) = (single(start), single(end)) {
        let items = count(i64::from(u32::from(from)), i64::from(u32::from(to)))?;
        return Ok(Some(items.into_iter().filter_map(|c| char::from_u32(c as u32)).map(String::from).collect()));
    }
    Ok(None)
}

/// The text of an arithmetic expression, to expand before it is evaluated: `$x` and
/// `$(cmd)` are expanded, a `~` is the operator.
pub(super) fn arithmetic_word(raw: &str, depth: usize) -> Result<Word, Unsupported> {
    word_with(raw, false, depth, &ParserOptions { tilde_expansion_at_word_start: false, ..options() })
}

/// Parses `raw` as a word; `quoted`: it stands inside double quotes, so none of it is
/// split or globbed.
pub(super) fn parse_word_in(raw: &str, quoted: bool, depth: usize) -> Result<Word, Unsupported> {
    word_with(raw, quoted, depth, &options())
}

pub(super) fn word_with(raw: &str, quoted: bool, depth: usize, options: &ParserOptions) -> Result<Word, Unsupported> {
    if depth > MAX_NESTING {
        return Err(too_deep());
    }
    let pieces = word::parse(raw, options).map_err(|e| Unsupported(format!("cannot parse word `{raw}`: {e}")))?;
    let mut out = Vec::new();
    pieces_into(raw, &pieces, quoted, depth, &mut out)?;
    Ok(Word(out))
}

/// The word inside `${X:-word}` (also `:=`, `:+`, `:?` and the replacement of `${X/a/b}`).
/// Inside double quotes it is read as double-quoted text, as bash does: `"${X:-'a'}"`
/// keeps the single quotes.
pub(super) fn operand_word(raw: &str, quoted: bool, depth: usize) -> Result<Word, Unsupported> {
    if quoted {
        parse_word_in(&format!("\"{}\"", unescape_braces(raw)), true, depth + 1)
    } else {
        parse_word(raw, depth + 1)
    }
}

/// `raw` with each `\}` made `}`: a backslash that kept a `}` from closing the
/// expansion is removed, as bash does inside double quotes (`"${X-\}}"` is `}`), where
/// a backslash before other characters stays.
fn unescape_braces(raw: &str) -> String {
    let chars: Vec<char> = raw.chars().collect();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' if chars.get(i + 1) == Some(&'}') => {
                out.push('}');
                i += 2;
            }
            '\\' => {
                out.extend(&chars[i..(i + 2).min(chars.len())]);
                i += 2;
            }
            '$' if matches!(chars.get(i + 1), Some('(' | '{')) => {
                let end = closing(&chars, i + 1);
                out.extend(&chars[i..end]);
                i = end;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// A here-document's text: `$` expansions, backquotes, and a backslash before `$`, `` ` ``,
/// `\` or a newline are special; quotes are text. That is a double-quoted word whose bare
/// `"` are escaped, so the word parser reads it (inside `$(...)` and `${...}` quotes keep
/// their meaning and are copied as they are).
pub(super) fn here_document(raw: &str, depth: usize) -> Result<Word, Unsupported> {
    let chars: Vec<char> = raw.chars().collect();
    let mut text = String::from("\"");
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' if chars.get(i + 1) == Some(&'"') => {
                text.push_str(r#"\\\""#);
                i += 2;
            }
            '\\' => {
                text.push('\\');
                text.extend(chars.get(i + 1));
                i += 2;
            }
            '"' => {
                text.push_str("\\\"");
                i += 1;
            }
            '$' if matches!(chars.get(i + 1), Some('(' | '{')) => {
                let end = closing(&chars, i + 1);
                text.extend(&chars[i..end]);
                i = end;
            }
            '`' => {
                let end = chars[i + 1..].iter().position(|c| *c == '`').map_or(chars.len(), |p| i + 2 + p);
                text.extend(&chars[i..end]);
                i = end;
            }
            c => {
                text.push(c);
                i += 1;
            }
        }
    }
    text.push('"');
    parse_word_in(&text, true, depth)
}

/// The index after the bracket that closes the `(` or `{` at `open`; single-quoted text
/// inside `$( )` does not count.
pub(super) fn closing(chars: &[char], open: usize) -> usize {
    let (left, right) = if chars[open] == '(' { ('(', ')') } else { ('{', '}') };
    let mut level = 0usize;
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '\'' if left == '(' => {
                i += chars[i + 1..].iter().position(|c| *c == '\'').map_or(chars.len(), |p| p + 1);
            }
            c if c == left => level += 1,
            c if c == right => {
                level -= 1;
                if level == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    chars.len()
}

/// The command of a backquoted substitution: inside backquotes a backslash keeps its
/// literal meaning except before `$`, `` ` `` and `\` (and, in double quotes, `"`), where
/// it goes (bash's manual, Command Substitution). So `` `echo \\$` `` runs `echo \$`,
/// and a nested substitution is written `` \` ``.
fn backquoted(source: &str, quoted: bool) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(&next)) if matches!(next, '$' | '`' | '\\') || (quoted && next == '"') => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// Whether a piece is `$@` (then `"$@"` with no parameters is no argument at all).
pub(super) fn is_all_parameters(piece: &WordPiece) -> bool {
    matches!(
        piece,
        WordPiece::ParameterExpansion(ParameterExpr::Parameter {
            parameter: word::Parameter::Special(SpecialParameter::AllPositionalParameters { concatenate: false }),
            ..
        })
    )
}

pub(super) fn pieces_into(
    raw: &str,
    pieces: &[WordPieceWithSource],
    quoted: bool,
    depth: usize,
    out: &mut Vec<Piece>,
) -> Result<(), Unsupported> {
    for (i, p) in pieces.iter().enumerate() {
        let next_opens_brace =
            || matches!(pieces.get(i + 1).map(|n| &n.piece), Some(WordPiece::Text(t)) if t.starts_with('{'));
        match &p.piece {
            // What the grammar could not read as an expansion (`${#x-default}`, `${a&}`,
            // left as the texts `$` and `{…}`): bash's "bad substitution" when the word
            // is expanded.
            WordPiece::Text(text) if text.contains("${") || (text.ends_with('$') && next_opens_brace()) => {
                let dollar = match text.find("${") {
                    Some(at) => p.start_index + at,
                    None => p.start_index + text.len() - 1,
                };
                let chars: Vec<char> = raw.get(dollar..).unwrap_or("").chars().collect();
                let end = if chars.len() > 1 { closing(&chars, 1) } else { chars.len() };
                let written: String = chars[..end].iter().collect();
                out.push(Piece::Fail { message: format!("{written}: bad substitution"), discard: true });
                return Ok(());
            }
            WordPiece::Text(text) => out.push(Piece::Text { text: text.clone(), quoted }),
            WordPiece::SingleQuotedText(text) => out.push(Piece::Text { text: text.clone(), quoted: true }),
            WordPiece::AnsiCQuotedText(text) => out.push(Piece::Text { text: ansi_c(text)?, quoted: true }),
            WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                // `""` must still produce an (empty) argument; `"$@"` decides for itself.
                if !inner.iter().any(|p| is_all_parameters(&p.piece)) {
                    out.push(Piece::Text { text: String::new(), quoted: true });
                }
                pieces_into(raw, inner, true, depth, out)?;
            }
            WordPiece::EscapeSequence(seq) => {
                let escaped = seq.strip_prefix('\\').unwrap_or(seq);
                // Inside double quotes a backslash only escapes $ ` " \ and newline.
                let text = if quoted && !matches!(escaped, "$" | "`" | "\"" | "\\" | "\n") {
                    seq.clone()
                } else if escaped == "\n" {
                    String::new()
                } else {
                    escaped.to_string()
                };
                out.push(Piece::Text { text, quoted: true });
            }
            WordPiece::ParameterExpansion(expr) => {
                let text = raw.get(p.start_index..p.end_index).unwrap_or("$...");
                let expansion = Box::new(expansion(expr, quoted, depth, text)?);
                out.push(Piece::Parameter { expansion, quoted });
            }
            WordPiece::CommandSubstitution(_) | WordPiece::BackquotedCommandSubstitution(_) => {
                let source = match &p.piece {
                    WordPiece::BackquotedCommandSubstitution(source) => backquoted(source, quoted),
                    WordPiece::CommandSubstitution(source) => source.clone(),
                    _ => unreachable!(),
                };
                let mut script = parse_nested(&source, depth + 1)?;
                // A bad substitution ends the substitution's subshell, whatever its line.
                script.0.iter_mut().for_each(|item| item.line = false);
                out.push(Piece::Substitution { script, quoted });
            }
            WordPiece::TildeExpansion(_) => {
                return Err(Unsupported("tilde expansion `~` (the sandbox has no home directory)".into()));
            }
            WordPiece::ArithmeticExpression(expr) => {
                out.push(Piece::Arithmetic { expression: arithmetic_word(&expr.value, depth + 1)?, quoted })
            }
        }
    }
    Ok(())
}

pub(super) fn is_empty(pattern: &Option<String>) -> bool {
    pattern.as_deref().is_none_or(str::is_empty)
}

/// A parameter expansion piece; `text` is how it was written, for errors.
pub(super) fn expansion(
    expr: &ParameterExpr,
    quoted: bool,
    depth: usize,
    text: &str,
) -> Result<Expansion, Unsupported> {
    let unsupported = |what: &str| Err(Unsupported(format!("{what} `{text}`")));
    let operand = |raw: &Option<String>| operand_word(raw.as_deref().unwrap_or(""), quoted, depth);
    let pattern = |raw: &str| parse_word(raw, depth + 1);
    let colon = |t: &ParameterTestType| matches!(t, ParameterTestType::UnsetOrNull);
    let (parameter, indirect, op) = match expr {
        ParameterExpr::Parameter { parameter, indirect } => (parameter, indirect, ParameterOp::Value),
        ParameterExpr::UseDefaultValues { parameter, indirect, test_type, default_value } => {
            (parameter, indirect, ParameterOp::Default { word: operand(default_value)?, colon: colon(test_type) })
        }
        ParameterExpr::AssignDefaultValues { parameter, indirect, test_type, default_value } => {
            (parameter, indirect, ParameterOp::Assign { word: operand(default_value)?, colon: colon(test_type) })
        }
        ParameterExpr::UseAlternativeValue { parameter, indirect, test_type, alternative_value } => {
            let word = operand(alternative_value)?;
            (parameter, indirect, ParameterOp::Alternative { word, colon: colon(test_type) })
        }
        ParameterExpr::IndicateErrorIfNullOrUnset { parameter, indirect, test_type, error_message } => {
            let word = match error_message {
                Some(message) => Some(operand_word(message, quoted, depth)?),
                None => None,
            };
            (parameter, indirect, ParameterOp::Error { word, colon: colon(test_type) })
        }
        ParameterExpr::ParameterLength { parameter, indirect } => (parameter, indirect, ParameterOp::Length),
        ParameterExpr::RemoveSmallestSuffixPattern { parameter, indirect, pattern: p }
        | ParameterExpr::RemoveLargestSuffixPattern { parameter, indirect, pattern: p } => {
            let longest = matches!(expr, ParameterExpr::RemoveLargestSuffixPattern { .. });
            let op = ParameterOp::RemoveSuffix { pattern: pattern(p.as_deref().unwrap_or(""))?, longest };
            (parameter, indirect, op)
        }
        ParameterExpr::RemoveSmallestPrefixPattern { parameter, indirect, pattern: p }
        | ParameterExpr::RemoveLargestPrefixPattern { parameter, indirect, pattern: p } => {
            let longest = matches!(expr, ParameterExpr::RemoveLargestPrefixPattern { .. });
            let op = ParameterOp::RemovePrefix { pattern: pattern(p.as_deref().unwrap_or(""))?, longest };
            (parameter, indirect, op)
        }
        ParameterExpr::Substring { parameter, indirect, offset, length } => {
            let length = match length {
                Some(length) => Some(arithmetic_word(&length.value, depth + 1)?),
                None => None,
            };
            (parameter, indirect, ParameterOp::Substring { offset: arithmetic_word(&offset.value, depth + 1)?, length })
        }
        ParameterExpr::UppercaseFirstChar { parameter, indirect, pattern } if is_empty(pattern) => {
            (parameter, indirect, ParameterOp::Case { upper: true, all: false })
        }
        ParameterExpr::UppercasePattern { parameter, indirect, pattern } if is_empty(pattern) => {
            (parameter, indirect, ParameterOp::Case { upper: true, all: true })
        }
        ParameterExpr::LowercaseFirstChar { parameter, indirect, pattern } if is_empty(pattern) => {
            (parameter, indirect, ParameterOp::Case { upper: false, all: false })
        }
        ParameterExpr::LowercasePattern { parameter, indirect, pattern } if is_empty(pattern) => {
            (parameter, indirect, ParameterOp::Case { upper: false, all: true })
        }
        ParameterExpr::UppercaseFirstChar { .. }
        | ParameterExpr::UppercasePattern { .. }
        | ParameterExpr::LowercaseFirstChar { .. }
        | ParameterExpr::LowercasePattern { .. } => return unsupported("case conversion of a pattern"),
        ParameterExpr::ReplaceSubstring { parameter, indirect, pattern: p, replacement, match_kind } => {
            let kind = match match_kind {
                SubstringMatchKind::Prefix => Replace::Prefix,
                SubstringMatchKind::Suffix => Replace::Suffix,
                SubstringMatchKind::FirstOccurrence => Replace::First,
                SubstringMatchKind::Anywhere => Replace::All,
            };
            let (p, replacement) = match slash_pattern(text) {
                Some((p, replacement)) if kind == Replace::All => (p, replacement),
                _ => (p.clone(), replacement.clone()),
            };
            let op = ParameterOp::Replace { pattern: pattern(&p)?, replacement: operand(&replacement)?, kind };
            (parameter, indirect, op)
        }
        ParameterExpr::Transform { .. } => return unsupported("parameter transformation"),
        ParameterExpr::VariableNames { .. } => return unsupported("variable-name expansion"),
        ParameterExpr::MemberKeys { .. } => return unsupported("arrays"),
    };
    if *indirect {
        return unsupported("indirect expansion");
    }
    let parameter = match parameter {
        word::Parameter::Named(name) => Parameter::Named(name.clone()),
        word::Parameter::Positional(n) => Parameter::Positional(*n),
        word::Parameter::Special(special) => match special {
            SpecialParameter::AllPositionalParameters { concatenate } => Parameter::All { joined: *concatenate },
            SpecialParameter::PositionalParameterCount => Parameter::Count,
            SpecialParameter::LastExitStatus => Parameter::Status,
            SpecialParameter::CurrentOptionFlags => Parameter::Options,
            SpecialParameter::ProcessId => Parameter::ProcessId,
            SpecialParameter::ShellName => Parameter::Positional(0),
            SpecialParameter::LastBackgroundProcessId => {
                return unsupported("`$!` (there are no background jobs)");
            }
        },
        word::Parameter::NamedWithIndex { .. } | word::Parameter::NamedWithAllIndices { .. } => {
            return unsupported("arrays");
        }
    };
    Ok(Expansion { parameter, op })
}

/// The pattern and replacement of `${X//pat/rep}` whose pattern starts with `/`
/// (`${X///}` replaces every `/` with nothing): bash looks for the `/` that ends the
/// pattern from its second character on, where the grammar takes that first `/` as the
/// end of an empty pattern. `None` for any other expansion.
fn slash_pattern(text: &str) -> Option<(String, Option<String>)> {
    let inner = text.strip_prefix("${")?.strip_suffix('}')?;
    let name_end = match inner.chars().next()? {
        c if c.is_ascii_alphabetic() || c == '_' => {
            inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(inner.len())
        }
        c if c.is_ascii_digit() => inner.find(|c: char| !c.is_ascii_digit()).unwrap_or(inner.len()),
        c => c.len_utf8(),
    };
    let rest = inner[name_end..].strip_prefix("//")?;
    if !rest.starts_with('/') {
        return None;
    }
    let chars: Vec<char> = rest.chars().collect();
    let mut i = 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '\'' => i += chars[i + 1..].iter().position(|c| *c == '\'').map_or(chars.len(), |p| p + 2),
            '"' => i += chars[i + 1..].iter().position(|c| *c == '"').map_or(chars.len(), |p| p + 2),
            '$' if matches!(chars.get(i + 1), Some('(' | '{')) => i = closing(&chars, i + 1),
            '/' => {
                let pattern: String = chars[..i].iter().collect();
                return Some((pattern, Some(chars[i + 1..].iter().collect())));
            }
            _ => i += 1,
        }
    }
    Some((rest.to_string(), None))
}

/// `$'...'` escapes: the common ones.
pub(super) fn ansi_c(text: &str) -> Result<String, Unsupported> {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    // Up to `max` digits of `radix` after the escape letter, as a number.
    let digits = |chars: &mut std::iter::Peekable<std::str::Chars>, radix: u32, max: usize| {
        let mut value: Option<u32> = None;
        for _ in 0..max {
            match chars.peek().and_then(|c| c.to_digit(radix)) {
                Some(d) => {
                    value = Some(value.unwrap_or(0) * radix + d);
                    chars.next();
                }
                None => break,
            }
        }
        value
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let byte = |value: u32| match char::from_u32(value) {
            Some(c) if value < 0x80 => Ok(c),
            _ => Err(Unsupported(format!("`$'…'` byte \\{value:o} that is not a character of UTF-8 text"))),
        };
        match e {
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'e' | 'E' => out.push('\u{1b}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '\\' | '\'' | '"' | '?' => out.push(e),
            '0'..='7' => {
                // `\nnn`: one to three octal digits in all.
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(byte(value)?);
            }
            'x' => match digits(&mut chars, 16, 2) {
                Some(value) => out.push(byte(value)?),
                None => out.push_str("\\x"),
            },
            'u' | 'U' => match digits(&mut chars, 16, if e == 'u' { 4 } else { 8 }) {
                Some(value) => out.push(char::from_u32(value).unwrap_or('\u{fffd}')),
                None => {
                    out.push('\\');
                    out.push(e);
                }
            },
            'c' => match chars.next() {
                Some(x) if x.is_ascii() => out.push(char::from((x as u8).to_ascii_uppercase() ^ 0x40)),
                Some(x) => return Err(Unsupported(format!("`$'\\c{x}'`"))),
                None => out.push_str("\\c"),
            },
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Ok(out)
}
