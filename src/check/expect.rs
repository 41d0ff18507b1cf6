//! What an assertion's `type` and optional `expected` ask of its check.
//!
//! The grammar of `expected` is [`reviewhost_protocol::Expected`]'s; its meaning is
//! decided here: for the command types it selects the rule the shell check applies (and `count:N`,
//! `count>=N`, `equals:TEXT` state a value where the type alone could not); for every
//! type, an `expected` that contradicts the `type` makes the assertion an `error`
//! saying why, rather than silently picking one of the two.

use reviewhost_protocol::{Expected, Intent, Rule};
use serde_json::Value;

/// The judging instructions for a command assertion: the shell check's `rule` and
/// `intent` ([`reviewhost_protocol::ShellInput`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CommandRule {
    pub rule: Rule,
    pub intent: Intent,
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
    let count = |at_least: bool, n: u64| Rule::Count { at_least, n };
    let rule = |rule: Rule, intent| Ok(Some(CommandRule { rule, intent }));
    match (type_name, &expected) {
        ("file_exists", None | Some(Expected::Exists)) => Ok(None),
        ("file_exists", Some(e)) => contradiction(e, "it passes when the path exists"),
        ("file_content", None | Some(Expected::Contains)) => Ok(None),
        ("file_content", Some(e)) => contradiction(e, "it passes when the file contains the needle"),
        ("grep_match", None | Some(Expected::Match | Expected::Contains | Expected::Exists)) => {
            rule(Rule::OutputPresent, Intent::Match)
        }
        ("grep_match", Some(Expected::Count { at_least, n })) => rule(count(*at_least, *n), Intent::Other),
        ("grep_match", Some(Expected::Equals(text))) => rule(Rule::Equals { text: text.clone() }, Intent::Other),
        ("grep_match", Some(e)) => contradiction(e, "it passes when the command prints something"),
        ("grep_not_match", None | Some(Expected::NoMatch | Expected::NoOutput)) => {
            rule(Rule::OutputAbsent, Intent::NoMatch)
        }
        ("grep_not_match", Some(Expected::Count { at_least: false, n: 0 })) => rule(count(false, 0), Intent::Other),
        ("grep_not_match", Some(e)) => contradiction(e, "it passes when the command prints nothing"),
        ("shell_exit_zero" | "typescript_compile", None | Some(Expected::ExitZero)) => {
            rule(Rule::ExitZero { quiet: false }, Intent::ExitStatus)
        }
        ("shell_exit_zero" | "typescript_compile", Some(Expected::NoOutput)) => {
            rule(Rule::ExitZero { quiet: true }, Intent::Other)
        }
        ("shell_exit_zero", Some(Expected::Count { at_least, n })) => rule(count(*at_least, *n), Intent::Other),
        ("shell_exit_zero", Some(Expected::Equals(text))) => rule(Rule::Equals { text: text.clone() }, Intent::Other),
        ("shell_exit_zero" | "typescript_compile", Some(e)) => contradiction(e, "it passes when the command exits 0"),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn r(t: &str, e: &str) -> Result<Option<CommandRule>, String> {
        resolve(t, Some(&json!(e)))
    }

    #[test]
    fn rules_follow_type_and_expected() {
        assert_eq!(resolve("grep_match", None).unwrap().unwrap().rule, Rule::OutputPresent);
        assert_eq!(r("grep_not_match", "no_match").unwrap().unwrap().intent, Intent::NoMatch);
        assert_eq!(r("grep_match", "count:1").unwrap().unwrap().rule, Rule::Count { at_least: false, n: 1 });
        assert_eq!(r("typescript_compile", "no_output").unwrap().unwrap().rule, Rule::ExitZero { quiet: true });
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
