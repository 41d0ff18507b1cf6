//! What an assertion's `type` and optional `expected` ask of its check.
//!
//! Seed 000 wrote `expected` into every assertion and never read it. reviewhost reads it:
//! for the command types it selects the rule the shell check applies (and `count:N`,
//! `count>=N`, `equals:TEXT` state a value where the type alone could not); for every
//! type, an `expected` that contradicts the `type` makes the assertion an `error`
//! saying why, rather than silently picking one of the two.

use serde_json::{Value, json};

/// A parsed `expected` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    Match,
    NoMatch,
    Exists,
    Contains,
    NoOutput,
    ExitZero,
    /// `count:N` (`at_least` false) or `count>=N`.
    Count {
        at_least: bool,
        n: u64,
    },
    /// `equals:TEXT`.
    Equals(String),
}

const KNOWN: &str = "match, no_match, exists, contains, no_output, exit_zero, count:N, count>=N, equals:TEXT";

impl std::str::FromStr for Expected {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let count = |n: &str| n.trim().parse::<u64>().map_err(|_| format!("'{text}': the count must be a number"));
        Ok(match text {
            "match" => Expected::Match,
            "no_match" => Expected::NoMatch,
            "exists" => Expected::Exists,
            "contains" => Expected::Contains,
            "no_output" => Expected::NoOutput,
            "exit_zero" => Expected::ExitZero,
            _ if text.starts_with("count>=") => Expected::Count { at_least: true, n: count(&text[7..])? },
            _ if text.starts_with("count:") => Expected::Count { at_least: false, n: count(&text[6..])? },
            _ if text.starts_with("equals:") => Expected::Equals(text[7..].to_string()),
            _ => return Err(format!("unknown expected value '{text}' (use one of: {KNOWN})")),
        })
    }
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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

/// The judging instructions for a command assertion: the shell check's
/// `reviewhost_rule` and `reviewhost_intent` input fields.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandRule {
    pub rule: Value,
    pub intent: &'static str,
}

/// Checks `expected` against `type_name`. For a command type, returns its rule; for the
/// file types, `None`. `Err` names the contradiction.
pub fn resolve(type_name: &str, expected: Option<&Value>) -> Result<Option<CommandRule>, String> {
    let expected = match expected {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.parse::<Expected>()?),
        Some(other) => return Err(format!("`expected` must be a string, found {other}")),
    };
    let contradiction = |e: &Expected, what: &str| {
        Err(format!("expected '{e}' contradicts type '{type_name}' ({what}); fix one of the two"))
    };
    let count = |at_least: bool, n: u64| json!({"rule": "count", "at_least": at_least, "n": n});
    let rule = |rule: Value, intent| Ok(Some(CommandRule { rule, intent }));
    match (type_name, &expected) {
        ("file_exists", None | Some(Expected::Exists)) => Ok(None),
        ("file_exists", Some(e)) => contradiction(e, "it passes when the path exists"),
        ("file_content", None | Some(Expected::Contains)) => Ok(None),
        ("file_content", Some(e)) => contradiction(e, "it passes when the file contains the needle"),
        ("grep_match", None | Some(Expected::Match | Expected::Contains | Expected::Exists)) => {
            rule(json!({"rule": "output_present"}), "match")
        }
        ("grep_match", Some(Expected::Count { at_least, n })) => rule(count(*at_least, *n), "other"),
        ("grep_match", Some(Expected::Equals(text))) => rule(json!({"rule": "equals", "text": text}), "other"),
        ("grep_match", Some(e)) => contradiction(e, "it passes when the command prints something"),
        ("grep_not_match", None | Some(Expected::NoMatch | Expected::NoOutput)) => {
            rule(json!({"rule": "output_absent"}), "no_match")
        }
        ("grep_not_match", Some(Expected::Count { at_least: false, n: 0 })) => rule(count(false, 0), "other"),
        ("grep_not_match", Some(e)) => contradiction(e, "it passes when the command prints nothing"),
        ("shell_exit_zero" | "typescript_compile", None | Some(Expected::ExitZero)) => {
            rule(json!({"rule": "exit_zero", "quiet": false}), "other")
        }
        ("shell_exit_zero" | "typescript_compile", Some(Expected::NoOutput)) => {
            rule(json!({"rule": "exit_zero", "quiet": true}), "other")
        }
        ("shell_exit_zero", Some(Expected::Count { at_least, n })) => rule(count(*at_least, *n), "other"),
        ("shell_exit_zero", Some(Expected::Equals(text))) => rule(json!({"rule": "equals", "text": text}), "other"),
        ("shell_exit_zero" | "typescript_compile", Some(e)) => contradiction(e, "it passes when the command exits 0"),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(t: &str, e: &str) -> Result<Option<CommandRule>, String> {
        resolve(t, Some(&json!(e)))
    }

    #[test]
    fn parses_every_form() {
        assert_eq!("count:1".parse(), Ok(Expected::Count { at_least: false, n: 1 }));
        assert_eq!("count>=3".parse(), Ok(Expected::Count { at_least: true, n: 3 }));
        assert_eq!("equals:a b".parse(), Ok(Expected::Equals("a b".into())));
        assert!("count:x".parse::<Expected>().unwrap_err().contains("must be a number"));
        assert!("sometimes".parse::<Expected>().unwrap_err().contains("unknown expected value"));
    }

    #[test]
    fn rules_follow_type_and_expected() {
        assert_eq!(resolve("grep_match", None).unwrap().unwrap().rule, json!({"rule": "output_present"}));
        assert_eq!(r("grep_not_match", "no_match").unwrap().unwrap().intent, "no_match");
        assert_eq!(
            r("grep_match", "count:1").unwrap().unwrap().rule,
            json!({"rule": "count", "at_least": false, "n": 1})
        );
        assert_eq!(
            r("typescript_compile", "no_output").unwrap().unwrap().rule,
            json!({"rule": "exit_zero", "quiet": true})
        );
        assert_eq!(r("file_exists", "exists"), Ok(None));
    }

    #[test]
    fn contradictions_are_named() {
        let e = r("grep_match", "no_match").unwrap_err();
        assert_eq!(
            e,
            "expected 'no_match' contradicts type 'grep_match' (it passes when the command prints something); fix one of the two"
        );
        assert!(r("grep_not_match", "count:2").unwrap_err().contains("count:2"));
        assert!(r("file_exists", "contains").unwrap_err().contains("contradicts type 'file_exists'"));
        assert!(r("typescript_compile", "equals:x").is_err());
    }
}
