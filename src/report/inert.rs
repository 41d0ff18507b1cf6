//! Untrusted text made inert for a terminal or a CI log.
//!
//! Everything reviewhost prints that came from an assertions file, the repository, a
//! check or an agent (ids, types, descriptions, messages, evidence, agents' answers and
//! errors quoting them) passes through [`inert`] on its way to stdout, stderr, a text
//! report or a Markdown report. The one rule set, in one place:
//!
//! - **Control characters are escaped visibly**: `\n`, `\r`, other C0 characters and DEL
//!   as `\x1b`, C1 (U+0080–U+009F), the line and paragraph separators U+2028/U+2029 and the
//!   bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) as `\u{2028}`.
//!   So no escape sequence reaches a terminal (OSC 52 clipboard writes, clear-screen,
//!   cursor moves, title changes), no text starts a line of its own, and no bidi control
//!   reorders what a reader sees. A tab stays: it only advances to the next tab stop,
//!   cannot erase or start a line, and source lines found by grep are often indented
//!   with tabs (the workflow-command rule below trims tabs like any whitespace).
//! - **GitHub workflow commands are neutralised.** The Actions runner
//!   (`src/Runner.Common/ActionCommand.cs`) reads a command from every line of a step's
//!   output in two forms: `TryParseV2` trims leading whitespace and looks for `::` at the
//!   start (`::error file=…::`, `::stop-commands::TOKEN`, `::add-mask::`), and the legacy
//!   `TryParse` looks for `##[` *anywhere* in the line, up to the next `]`. A leading `:`
//!   (after whitespace) is written `\x3a`, a single one too because the caller may print
//!   a `:` right after the text (`ID: finding`); the `[` of every `##[` is written `\x5b`.
//!   The runner matches with .NET's culture-sensitive `StartsWith`/`IndexOf`, which under
//!   ICU pass over default-ignorable characters (soft hyphen, zero-width space and
//!   joiners, variation selectors, …): both rules step over them as well.
//!
//! Each call treats its text as one line: text whose line breaks are wanted (an agent's
//! Markdown, a multi-line message) goes through [`inert_lines`], which applies `inert`
//! to every line. The escapes are for a reader, not for a decoder: a backslash in the
//! text is kept as it is (regexes and Windows paths stay legible), so `\x1b` in the
//! output is either an escaped ESC or those four characters; the JSON report has the
//! exact text. The structured formats (JSON, JUnit, SARIF) escape for their own syntax
//! and do not use this.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `text` safe to print on one line of a terminal or a CI log, with everything that
/// would act on either escaped visibly (see the module note for the rules).
pub fn inert(text: &str) -> Cow<'_, str> {
    // Allocated at the first character that changes, with the text before it.
    let mut out: Option<String> = None;
    // Still in the leading whitespace of the line (the runner trims it).
    let mut leading = true;
    // `#` characters just before, ignorable characters between them not counting.
    let mut hashes = 0;
    for (at, c) in text.char_indices() {
        let escaped = is_escaped(c);
        let neutralised = match c {
            _ if escaped || is_ignorable(c) => None,
            ':' if leading => Some("\\x3a"),
            '[' if hashes >= 2 => Some("\\x5b"),
            _ => None,
        };
        if escaped || neutralised.is_some() {
            let out = out.get_or_insert_with(|| {
                let mut s = String::with_capacity(text.len() + 8);
                s.push_str(&text[..at]);
                s
            });
            match neutralised {
                Some(replacement) => out.push_str(replacement),
                None => push_escaped(out, c),
            }
        } else if let Some(out) = &mut out {
            out.push(c);
        }
        if escaped {
            leading = false;
            hashes = 0;
        } else if !is_ignorable(c) {
            leading &= c.is_whitespace();
            hashes = if c == '#' { hashes + 1 } else { 0 };
        }
    }
    out.map_or(Cow::Borrowed(text), Cow::Owned)
}

/// `text` with its line breaks kept and every line made [`inert`]; each line after the
/// first starts with `indent` (the caller's continuation indentation).
pub fn inert_lines(text: &str, indent: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(indent);
        }
        out.push_str(&inert(line));
    }
    out
}

/// Whether [`inert`] escapes `c`: C0 controls but the tab, DEL, C1 controls, the line
/// and paragraph separators, and the bidi embedding, override and isolate controls.
pub fn is_escaped(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// Unicode's default-ignorable code points (DerivedCoreProperties.txt,
/// `Default_Ignorable_Code_Point`), which a culture-sensitive comparison skips. Those
/// that [`is_escaped`] covers (U+202A–U+202E, U+2066–U+2069) are escaped first.
fn is_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{AD}'
            | '\u{34F}'
            | '\u{61C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the Actions runner would take for a command in a line of output: `::` at
    /// the start after whitespace, or `##[` anywhere (ignorable characters skipped, as
    /// ICU's culture-sensitive matching does).
    fn runner_sees_a_command(line: &str) -> bool {
        let visible: String = line.chars().filter(|&c| !is_ignorable(c)).collect();
        visible.trim_start().starts_with("::") || visible.contains("##[")
    }

    const HOSTILE: &[&str] = &[
        "::error file=x::forged",
        "  ::stop-commands::tok",
        "\t::add-mask::secret",
        "\u{AD}::error::soft hyphen first",
        "\u{200B} \u{FEFF}::warning::zero-width first",
        "\u{3000}::notice::ideographic space first",
        ":",
        "x ##[error]anywhere in the line",
        "###[group]three hashes",
        "#\u{200B}#[error]a zero-width space between",
        "id\n::error file=x::forged on the next line",
        "id\r::error::a bare carriage return is a line end to the runner",
        "a\u{2028}::error::line separator",
        "\x1b]52;c;Y2xpcGJvYXJk\x07 and \x1b[2J",
        "\u{9b}2J C1 CSI, \u{85} NEL, \x7f DEL, \0 NUL",
        "\u{202E}evil\u{202C} \u{2066}isolate\u{2069}",
    ];

    #[test]
    fn hostile_text_has_no_control_character_and_no_workflow_command() {
        for text in HOSTILE {
            let line = inert(text);
            assert!(!line.chars().any(is_escaped), "{text:?} -> {line:?}");
            assert!(!runner_sees_a_command(&line), "{text:?} -> {line:?}");
            for (i, line) in inert_lines(text, "  ").split('\n').enumerate() {
                assert!(!line.chars().any(is_escaped), "{text:?} line {i} -> {line:?}");
                assert!(!runner_sees_a_command(line), "{text:?} line {i} -> {line:?}");
            }
        }
    }

    #[test]
    fn escapes_are_visible_and_name_the_character() {
        assert_eq!(inert("a\nb\rc"), "a\\nb\\rc");
        assert_eq!(inert("\x1b]52;c;eA==\x07"), "\\x1b]52;c;eA==\\x07");
        assert_eq!(inert("\x1b[2J\x7f\0"), "\\x1b[2J\\x7f\\x00");
        assert_eq!(inert("\u{9b}\u{85}"), "\\u{9b}\\u{85}");
        assert_eq!(inert("\u{2028}\u{2029}\u{202E}\u{2066}"), "\\u{2028}\\u{2029}\\u{202e}\\u{2066}");
        assert_eq!(inert("::error file=x::forged"), "\\x3a:error file=x::forged");
        assert_eq!(inert("  ::stop-commands::tok"), "  \\x3a:stop-commands::tok");
        assert_eq!(inert("x ##[error]y"), "x ##\\x5berror]y");
        assert_eq!(inert("id\n::error::x"), "id\\n::error::x", "after an escaped newline the line goes on");
        assert_eq!(inert_lines("ok\n::error::x\n", "  "), "ok\n  \\x3a:error::x\n  ");
    }

    #[test]
    fn ordinary_text_is_untouched_and_not_copied() {
        for text in [
            "",
            "A-1: grep_match — no TODO left in src",
            "\tindented with a tab",
            "a::b in the middle, [brackets], # heading, ## [spaced",
            "é ü 日本 ⚠️ 👨\u{200D}👩\u{200D}👧 emoji with joiners and a variation selector",
            r"C:\path and \x1b written out, a regex \d+\|x",
        ] {
            assert!(matches!(inert(text), Cow::Borrowed(_)), "{text:?}");
            assert_eq!(inert_lines(text, "  "), text);
        }
    }
}
