//! The assertion's `expected` field: what its check must find.
//!
//! Seed 000 wrote `expected` into every assertion and never read it. reviewhost reads
//! it, so its grammar is part of the file format: the words `match`, `no_match`,
//! `exists`, `contains`, `no_output`, `exit_zero`, and the forms `count:N`, `count>=N`
//! and `equals:TEXT`.

use std::fmt;
use std::str::FromStr;

/// A parsed `expected` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    Match,
    NoMatch,
    Exists,
    Contains,
    NoOutput,
    ExitZero,
    /// `count:N` (`at_least` false) or `count>=N`; blanks around N are allowed.
    Count {
        at_least: bool,
        n: u64,
    },
    /// `equals:TEXT`.
    Equals(String),
}

/// Every form, for an error message.
const KNOWN: &str = "match, no_match, exists, contains, no_output, exit_zero, count:N, count>=N, equals:TEXT";

impl FromStr for Expected {
    /// The message names the value and the forms it may take.
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let count = |n: &str| n.trim().parse::<u64>().map_err(|_| format!("'{text}': the count must be a number"));
        if let Some(n) = text.strip_prefix("count>=") {
            return Ok(Expected::Count { at_least: true, n: count(n)? });
        }
        if let Some(n) = text.strip_prefix("count:") {
            return Ok(Expected::Count { at_least: false, n: count(n)? });
        }
        if let Some(value) = text.strip_prefix("equals:") {
            return Ok(Expected::Equals(value.to_string()));
        }
        Ok(match text {
            "match" => Expected::Match,
            "no_match" => Expected::NoMatch,
            "exists" => Expected::Exists,
            "contains" => Expected::Contains,
            "no_output" => Expected::NoOutput,
            "exit_zero" => Expected::ExitZero,
            _ => return Err(format!("unknown expected value '{text}' (use one of: {KNOWN})")),
        })
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Match => f.write_str("match"),
            Expected::NoMatch => f.write_str("no_match"),
            Expected::Exists => f.write_str("exists"),
            Expected::Contains => f.write_str("contains"),
            Expected::NoOutput => f.write_str("no_output"),
            Expected::ExitZero => f.write_str("exit_zero"),
            Expected::Count { at_least: true, n } => write!(f, "count>={n}"),
            Expected::Count { at_least: false, n } => write!(f, "count:{n}"),
            Expected::Equals(text) => write!(f, "equals:{text}"),
        }
    }
}

/// The schema of the field: a string of the grammar above. JSON Schema can only say so
/// with a pattern; the host's tests hold the pattern and [`Expected::from_str`] to
/// agreement on every form and on near misses.
#[cfg(feature = "schemars")]
impl schemars::JsonSchema for Expected {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Expected".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "What the assertion's check must find. The command types accept every value; a value that contradicts the `type` makes the assertion an `error` (see `reviewhost lint`).",
            "type": "string",
            "pattern": PATTERN,
        })
    }
}

/// [`Expected`]'s grammar as a JSON Schema pattern (ECMA-262: `\s` and `\d` as there).
#[cfg(feature = "schemars")]
pub const PATTERN: &str =
    r"^(match|no_match|exists|contains|no_output|exit_zero|count:\s*\d+\s*|count>=\s*\d+\s*|equals:[\s\S]*)$";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        assert_eq!("count:1".parse(), Ok(Expected::Count { at_least: false, n: 1 }));
        assert_eq!("count>= 3 ".parse(), Ok(Expected::Count { at_least: true, n: 3 }));
        assert_eq!("equals:a b".parse(), Ok(Expected::Equals("a b".into())));
        assert_eq!("no_output".parse(), Ok(Expected::NoOutput));
        assert!("count:x".parse::<Expected>().unwrap_err().contains("must be a number"));
        assert!("count:-1".parse::<Expected>().unwrap_err().contains("must be a number"));
        assert!("sometimes".parse::<Expected>().unwrap_err().contains("unknown expected value"));
        assert!("Match".parse::<Expected>().is_err());
    }

    #[test]
    fn display_is_the_parsers_inverse() {
        for text in ["match", "no_match", "exists", "contains", "no_output", "exit_zero", "count:0", "count>=7"] {
            assert_eq!(text.parse::<Expected>().unwrap().to_string(), text);
        }
        assert_eq!("equals: x ".parse::<Expected>().unwrap().to_string(), "equals: x ");
    }
}
