//! What rg's patterns imply beyond the matcher: the literals their matches contain, which
//! the run's first pass looks for (so both the search and its plan need them), and the
//! patterns ripgrep 13 refuses under `--no-unicode`.

use super::{Case, Options};
use reviewhost_prefilter::Needles;

/// The literals every line a search selects contains one of: the patterns parsed with
/// the case and Unicode modes the matcher compiles them with (smart case as
/// insensitive: its matches are a subset). `-v` selects lines without a match: it has
/// none, and reads every file.
pub(super) fn needles(o: &Options, patterns: &[String]) -> Option<Needles> {
    if o.invert {
        return None;
    }
    let case = if o.case == Case::Sensitive { "" } else { "(?i)" };
    let unicode = if o.no_unicode { "(?-u)" } else { "" };
    Needles::any_of(patterns.iter().map(|p| {
        let p = if o.fixed { Needles::escape(p) } else { p.clone() };
        Needles::of_regex(&format!("{case}{unicode}{p}"))
    }))
}

/// Whether ripgrep 13 refuses `pattern` under `--no-unicode` ("Unicode not allowed
/// here"): its regex parser rejects any non-ASCII character there, written as such, as
/// `\x{...}` or through a `(?u)` group. Today's parser accepts them as UTF-8 bytes, so
/// they are refused here to give ripgrep's answer.
pub(super) fn needs_unicode(pattern: &str) -> bool {
    if !pattern.is_ascii() || pattern.contains("(?u") {
        return true;
    }
    let mut rest = pattern;
    while let Some(at) = rest.find("\\x{") {
        let digits = &rest[at + 3..];
        let end = digits.find('}').unwrap_or(digits.len());
        if u32::from_str_radix(&digits[..end], 16).is_ok_and(|n| n > 0x7f) {
            return true;
        }
        rest = &rest[at + 3..];
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unicode_refused_as_ripgrep_13_refuses_it() {
        assert!(needs_unicode("Δ") && needs_unicode(r"\x{e9}") && needs_unicode(r"(?u)\w"));
        assert!(!needs_unicode(r"\w+") && !needs_unicode(r"\x{41}") && !needs_unicode(r"\xFF"));
    }
}
