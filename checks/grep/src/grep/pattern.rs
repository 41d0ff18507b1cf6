//! The pattern list as one `regex` crate pattern (translated from BRE, ERE or fixed
//! strings, with `-i`, `-w`, `-x`), and the literals its matches contain, which the
//! run's first pass looks for: both the search and its plan need them.

use super::{Options, PatternSyntax};
use crate::translate::{self, Syntax};
use reviewhost_prefilter::Needles;

/// Builds the `regex` crate pattern for the pattern list, or GNU's error message.
/// Returns `None` for an empty pattern list (matches nothing) and the warnings.
pub fn build_pattern(o: &Options, patterns: &[String]) -> Result<(Option<String>, Vec<String>), String> {
    if o.syntax == PatternSyntax::Perl {
        return Err("-P is not supported in the reviewhost sandbox".into());
    }
    if patterns.is_empty() {
        return Ok((None, Vec::new()));
    }
    let mut warnings = Vec::new();
    let mut parts = Vec::with_capacity(patterns.len());
    for p in patterns {
        let part = match o.syntax {
            PatternSyntax::Fixed => regex::escape(p),
            PatternSyntax::Basic | PatternSyntax::Extended | PatternSyntax::Perl => {
                let syntax = if o.syntax == PatternSyntax::Extended { Syntax::Extended } else { Syntax::Basic };
                let t = translate::translate(p, syntax).map_err(|e| e.0)?;
                for w in t.warnings {
                    if !warnings.contains(&w) {
                        warnings.push(w);
                    }
                }
                t.regex
            }
        };
        parts.push(part);
    }
    let alternation = if parts.len() == 1 {
        parts.pop().unwrap_or_default()
    } else {
        parts.iter().map(|p| format!("(?:{p})")).collect::<Vec<_>>().join("|")
    };
    let flags = if o.ignore_case { "(?mi)" } else { "(?m)" };
    let body = if o.line {
        format!("^(?:{alternation})$")
    } else if o.word {
        format!(r"\b{{start-half}}(?:{alternation})\b{{end-half}}")
    } else {
        alternation
    };
    Ok((Some(format!("{flags}{body}")), warnings))
}

/// The literals every line a search selects contains one of, taken from its compiled
/// pattern. `-v` selects lines without a match: it has none, and reads every file.
pub(super) fn needles(o: &Options, pattern: Option<&str>) -> Option<Needles> {
    if o.invert {
        return None;
    }
    Needles::of_regex(pattern?)
}
