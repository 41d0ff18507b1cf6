//! The literals every match of a pattern contains.

use regex_syntax::ParserBuilder;
use regex_syntax::hir::literal::{ExtractKind, Extractor};

/// Literals such that every match of a pattern contains at least one of them: a file
/// holding none of them holds no match.
///
/// Taken with `regex-syntax`'s extractor from the pattern's own syntax tree, so case
/// folding (`(?i)`, Unicode's `ſ` for `s` and `K` for `k`) is in the literals, and a
/// pattern whose literals would be too many or too short has none ([`Needles::of_regex`]
/// is `None`): its searches read every file, as without a pass.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Needles(Vec<String>);

/// Shortest literal worth looking for: one of one or two bytes is in nearly every file,
/// and would only make the pass slower.
const MIN_LEN: usize = 3;

impl Needles {
    /// The needles of `pattern`, in the `regex` crate's syntax, parsed as
    /// `regex::bytes::Regex` parses it (Unicode on unless the pattern turns it off,
    /// invalid UTF-8 allowed where the pattern asks for it). `None` when no small set
    /// of literals is required by every match (`.*`, `\w+`, `a|b`, a pattern that
    /// matches nothing or does not parse), or when one is not text or spans a line end
    /// or a NUL (a line-oriented search may see different lines than the raw bytes).
    pub fn of_regex(pattern: &str) -> Option<Needles> {
        let hir = ParserBuilder::new().utf8(false).build().parse(pattern).ok()?;
        [ExtractKind::Prefix, ExtractKind::Suffix]
            .into_iter()
            .filter_map(|kind| {
                let seq = Extractor::new().kind(kind).extract(&hir);
                let literals = seq.literals()?;
                let needles = literals
                    .iter()
                    .map(|l| String::from_utf8(l.as_bytes().to_vec()).ok())
                    .collect::<Option<Vec<String>>>()?;
                let usable = !needles.is_empty()
                    && needles.iter().all(|n| n.len() >= MIN_LEN && !n.contains(['\n', '\r', '\0']));
                usable.then_some(needles)
            })
            // The longer shortest literal filters better; then the fewer literals.
            .max_by_key(|needles| {
                let shortest = needles.iter().map(String::len).min().unwrap_or(0);
                (shortest, std::cmp::Reverse(needles.len()))
            })
            .map(Needles::from)
    }

    /// `text` as a regex matching it literally: for fixed-string searches (`-F`).
    pub fn escape(text: &str) -> String {
        regex_syntax::escape(text)
    }

    /// The needles of a search with several patterns, a match of any of which counts:
    /// the union, or `None` when one pattern has none.
    pub fn any_of(all: impl IntoIterator<Item = Option<Needles>>) -> Option<Needles> {
        let mut union = Vec::new();
        for needles in all {
            union.extend(needles?.0);
        }
        (!union.is_empty()).then(|| Needles::from(union))
    }

    pub fn as_slice(&self) -> &[String] {
        &self.0
    }
}

impl From<Vec<String>> for Needles {
    /// Sorted and deduplicated, so the same set has one form.
    fn from(mut needles: Vec<String>) -> Needles {
        needles.sort_unstable();
        needles.dedup();
        Needles(needles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(pattern: &str) -> Option<Vec<String>> {
        Needles::of_regex(pattern).map(|n| n.0)
    }

    #[test]
    fn a_plain_pattern_is_its_own_needle() {
        assert_eq!(of("(?m)MockConnection").unwrap(), ["MockConnection"]);
        assert_eq!(of(r"(?m)todo!\(|unimplemented!\(").unwrap(), ["todo!(", "unimplemented!("]);
        assert_eq!(of(r"\bhandler [a-z]+ request").unwrap(), [" request"], "the suffix, on a tie");
        assert_eq!(of(r".*suffix_only$").unwrap(), ["suffix_only"]);
    }

    #[test]
    fn case_folding_is_in_the_needles() {
        let needles = of("(?i)kiss").unwrap();
        assert!(needles.contains(&"kiss".to_string()) && needles.contains(&"KISS".to_string()));
        // Unicode's simple case folding: KELVIN SIGN for k, LONG S for s.
        assert!(needles.iter().any(|n| n.starts_with('\u{212A}')), "{needles:?}");
        assert!(needles.iter().any(|n| n.contains('\u{17F}')), "{needles:?}");
    }

    #[test]
    fn patterns_without_a_usable_literal_have_none() {
        for pattern in [".*", r"\w+", "a|b", "ab", "[a-z]{3}", "", "x*", "(", r"[^\s\S]", r"foo\nbar", "a\0bc|abc"] {
            assert_eq!(of(pattern), None, "{pattern:?}");
        }
        assert_eq!(of(r"(?-u)\xFFabc"), None, "not text");
    }

    /// Whatever the extractor keeps, every match of the pattern contains a needle.
    #[test]
    fn every_match_contains_a_needle() {
        let texts = ["say KISS or kiss", "xKissy", "the \u{212A}iss", "fooBARbaz", "a foo9 b", "ſtop STOP"];
        for pattern in ["(?i)kiss", "(?i)foobar", r"foo\d", "(?i)stop", "(?i)(foo|stop)[a-z]*", "foo(bar|baz)+"] {
            let Some(needles) = Needles::of_regex(pattern) else { continue };
            let re = regex::Regex::new(pattern).unwrap();
            for text in texts {
                for m in re.find_iter(text) {
                    assert!(
                        needles.as_slice().iter().any(|n| m.as_str().contains(n.as_str())),
                        "{pattern}: match {:?} holds none of {needles:?}",
                        m.as_str()
                    );
                }
            }
        }
    }

    #[test]
    fn a_search_with_several_patterns_needs_all_of_them_to_have_needles() {
        let both = Needles::any_of([Needles::of_regex("alpha"), Needles::of_regex("beta")]).unwrap();
        assert_eq!(both.as_slice(), ["alpha", "beta"]);
        assert_eq!(Needles::any_of([Needles::of_regex("alpha"), Needles::of_regex(".*")]), None);
        assert_eq!(Needles::of_regex(&Needles::escape("a.b*c")).unwrap().as_slice(), ["a.b*c"]);
    }
}
