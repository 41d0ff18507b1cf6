//! What must hold for any pattern given to `grep`'s pattern translation.
//!
//! The pattern comes from an LLM-written command. `translate` turns GNU BRE/ERE syntax
//! into `regex` crate syntax and `build_pattern` wraps the pattern list for `-i`, `-w`,
//! `-x` (and escapes it for `-F`); what either accepts must then compile with the
//! crate's own [`Matcher`], or a pattern grep accepts would fail later with a `regex`
//! error instead of GNU's message. The one exception is the documented size limit
//! ([`REGEX_SIZE_LIMIT`](reviewhost_grep::search::REGEX_SIZE_LIMIT), reported as "Regular expression too big"). A match must also
//! never contain a newline: the searcher runs the regex over whole buffers and relies
//! on it (see `translate.rs`).
//!
//! Shared by the stable test (`checks/grep/tests/fuzz.rs`) and the libFuzzer target
//! (`fuzz/fuzz_targets/grep_translate.rs`), which both include this file with `#[path]`.

use reviewhost_grep::grep::{Options, PatternSyntax, build_pattern};
use reviewhost_grep::search::Matcher;
use reviewhost_grep::translate::{Syntax, translate};

/// Panics when pattern translation breaks its contract on `bytes` (read as UTF-8,
/// lossily, as grep reads its arguments).
pub fn check(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    // grep splits its pattern argument on newlines: no single pattern contains one.
    let patterns: Vec<String> = text.split('\n').map(str::to_string).collect();
    for pattern in &patterns {
        for syntax in [Syntax::Basic, Syntax::Extended] {
            if let Ok(translated) = translate(pattern, syntax) {
                compiles(&format!("(?m){}", translated.regex), false, &text);
            }
        }
    }
    // The whole pattern list as grep builds it, with flags chosen by the input so that
    // the same input always runs the same way.
    let flags = bytes.iter().fold(0u8, |sum, b| sum.wrapping_add(*b));
    for syntax in [PatternSyntax::Basic, PatternSyntax::Extended, PatternSyntax::Fixed] {
        let options = Options {
            syntax,
            ignore_case: flags & 1 != 0,
            word: flags & 2 != 0,
            line: flags & 4 != 0,
            only_matching: flags & 8 != 0,
            ..Options::default()
        };
        if let Ok((Some(regex), _warnings)) = build_pattern(&options, &patterns) {
            compiles(&regex, options.only_matching, &text);
        }
    }
}

/// Panics unless `regex` compiles as grep compiles it (or is too big) and finds no match
/// spanning a newline in `text`, which has the pattern's own characters around newlines.
fn compiles(regex: &str, posix_longest: bool, text: &str) {
    let matcher = match Matcher::new(Some(regex), posix_longest) {
        Ok(matcher) => matcher,
        Err(regex::Error::CompiledTooBig(_)) => return,
        Err(e) => panic!("the translation {regex:?} does not compile: {e}"),
    };
    let haystack = format!("{text}\n{}\n\n", text.replace([' ', '\t'], "\n"));
    let mut at = 0;
    while let Some((start, end)) = matcher.next_match(haystack.as_bytes(), at) {
        assert!(!haystack.as_bytes()[start..end].contains(&b'\n'), "{regex:?} matched across a newline");
        at = end;
    }
}
