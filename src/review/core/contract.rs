//! Output contracts: what an agent's answer must meet before anything in it is used.
//!
//! An agent definition declares its contract in its front matter (`contract:`, and for
//! an answer that ends its loop `completion:`):
//!
//! ```yaml
//! contract:
//!   schema: {type: array}          # JSON answers: a JSON Schema the answer must meet
//!   rules:                         # assertions over the answer, run in the sandbox
//!     - id: no-plan-headings
//!       type: grep_not_match
//!       description: "Do NOT write a plan yet: plan section headings found"
//!       command: "grep -inE '^#+ +(goal|steps)' answer.md"
//!   retries: 3                     # times a violated contract is asked again
//! ```
//!
//! The rules are assertions in the format of an assertions file (any type, `custom`
//! validator components included), so a project writes its own contract rules the way
//! it writes review assertions, and one mechanism serves every loop. They run in the
//! sandbox against a scratch root that holds only the answer, as `answer.md` (and, for
//! a JSON answer, `answer.json`); a custom component is looked for beside the
//! definition file. A rule that fails is a violation, told to the agent by its
//! `description`; a rule that cannot be judged (`error`) stops the loop: the contract,
//! not the answer, is broken, and an answer is never used unjudged.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::assertion::{self, AssertionsFile, Status};
use crate::run::Runner;
use crate::sandbox::RootDir;

/// Times a violated contract is asked again when the contract does not say.
pub const DEFAULT_RETRIES: u32 = 3;

/// The answer's file name in the scratch root the rules see.
pub const ANSWER_FILE: &str = "answer.md";
/// A JSON answer's value, pretty-printed, beside it.
pub const ANSWER_JSON: &str = "answer.json";

/// A contract as the front matter declares it.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ContractSpec {
    /// The answer is JSON (the whole answer, or one fenced block that is the whole
    /// answer) and meets this JSON Schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    /// Assertion objects run over the answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<Value>,
    /// Times a violated contract is asked again ([`DEFAULT_RETRIES`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
}

impl ContractSpec {
    /// Checks that the schema compiles and the rules are well-formed assertions, so a
    /// broken contract is refused when its definition is read, not mid-loop.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(schema) = &self.schema {
            jsonschema::validator_for(schema).map_err(|e| format!("`schema` is not a usable JSON Schema: {e}"))?;
        }
        self.rules_file()?;
        Ok(())
    }

    /// The rules as an assertions file (a name for messages, no file on disk).
    fn rules_file(&self) -> Result<AssertionsFile, String> {
        let doc = serde_json::json!({ "assertions": self.rules });
        assertion::parse(Path::new("rules"), doc.to_string().as_bytes()).map_err(|e| e.to_string())
    }

    /// Times a violated answer is asked again.
    pub fn retries(&self) -> u32 {
        self.retries.unwrap_or(DEFAULT_RETRIES)
    }
}

/// One way an answer misses its contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The rule's id, or `schema` (with the JSON pointer of what is wrong).
    pub rule: String,
    /// What the agent is told.
    pub message: String,
    /// The rule's `severity`, when it has one (a plan pre-check's findings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severity: Option<String>,
    /// The rule's `suggestion`, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)
    }
}

/// What the contract made of an answer.
#[derive(Debug, Clone, Default)]
pub struct Judgement {
    /// Empty: the contract is met.
    pub violations: Vec<Violation>,
    /// A JSON answer's value (when it parsed).
    pub json: Option<Value>,
}

impl Judgement {
    pub fn met(&self) -> bool {
        self.violations.is_empty()
    }

    /// The violations as the agent is told them, one per line.
    pub fn explain(&self) -> String {
        let lines: Vec<String> = self.violations.iter().map(|v| format!("- {v}")).collect();
        format!("it does not meet its output contract:\n{}", lines.join("\n"))
    }
}

/// Why a contract could not judge an answer: the loop stops, fail-closed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ContractError {
    #[error("contract of {agent}: {reason}")]
    Invalid { agent: String, reason: String },
    #[error("contract of {agent}: rule '{rule}' could not be judged: {message}")]
    Rule { agent: String, rule: String, message: String },
    #[error("contract of {agent}: cannot make the scratch root for the answer: {source}")]
    Scratch { agent: String, source: std::io::Error },
}

/// Judges `answer` by `spec` (the contract of agent `agent`, whose definition file lies
/// in `components`, where its custom rules' components are looked for).
pub fn judge(
    runner: &Runner,
    agent: &str,
    spec: &ContractSpec,
    components: Option<&Path>,
    answer: &str,
) -> Result<Judgement, ContractError> {
    judge_with(runner, agent, spec, components, answer, &[])
}

/// [`judge`], with `extra` files (name, text) beside the answer in the scratch root.
pub fn judge_with(
    runner: &Runner,
    agent: &str,
    spec: &ContractSpec,
    components: Option<&Path>,
    answer: &str,
    extra: &[(&str, &str)],
) -> Result<Judgement, ContractError> {
    let invalid = |reason: String| ContractError::Invalid { agent: agent.to_string(), reason };
    let mut judgement = Judgement::default();
    if let Some(schema) = &spec.schema {
        let validator = jsonschema::validator_for(schema).map_err(|e| invalid(format!("schema: {e}")))?;
        match serde_json::from_str::<Value>(json_text(answer)) {
            Err(e) => judgement.violations.push(Violation {
                rule: "schema".into(),
                message: format!(
                    "the answer must be JSON and nothing else (one ```json block at most), but it does not parse: {e}"
                ),
                severity: None,
                suggestion: None,
            }),
            Ok(value) => {
                judgement.violations.extend(validator.iter_errors(&value).map(|e| Violation {
                    rule: format!("schema at '{}'", e.instance_path()),
                    message: e.to_string(),
                    severity: None,
                    suggestion: None,
                }));
                judgement.json = Some(value);
            }
        }
    }
    // Without the JSON a schema asks for, the rules (which may read answer.json) have
    // nothing to judge: the answer is re-asked for that alone.
    let unparsed = spec.schema.is_some() && judgement.json.is_none();
    if spec.rules.is_empty() || unparsed {
        return Ok(judgement);
    }
    let rules = spec.rules_file().map_err(invalid)?;
    let scratch = |source| ContractError::Scratch { agent: agent.to_string(), source };
    let dir = tempfile::Builder::new().prefix("reviewhost-answer-").tempdir().map_err(scratch)?;
    let mut text = answer.trim_end().to_string();
    text.push('\n');
    std::fs::write(dir.path().join(ANSWER_FILE), text).map_err(scratch)?;
    if let Some(value) = &judgement.json {
        let pretty = serde_json::to_string_pretty(value).expect("a JSON value serializes");
        std::fs::write(dir.path().join(ANSWER_JSON), pretty).map_err(scratch)?;
    }
    for (name, text) in extra {
        std::fs::write(dir.path().join(name), text).map_err(scratch)?;
    }
    let root = RootDir::new(dir.path()).map_err(scratch)?;
    for (rule, outcome) in runner.check_all(&rules, &root, components.unwrap_or(dir.path())) {
        match outcome.status {
            Status::Pass => {}
            Status::Fail => {
                let detail = outcome.message.trim();
                let message = match detail.is_empty() {
                    true => rule.description.clone(),
                    false => format!("{} ({detail})", rule.description),
                };
                let field = |k: &str| rule.object.get(k).and_then(Value::as_str).map(String::from);
                judgement.violations.push(Violation {
                    rule: rule.id.clone(),
                    message,
                    severity: field("severity"),
                    suggestion: field("suggestion"),
                });
            }
            _ => {
                return Err(ContractError::Rule {
                    agent: agent.to_string(),
                    rule: rule.id.clone(),
                    message: outcome.message.clone(),
                });
            }
        }
    }
    Ok(judgement)
}

/// The JSON in an answer: the whole answer, or the inside of one fenced block that is
/// the whole answer (models often fence JSON; prose around it is still refused).
pub(crate) fn json_text(answer: &str) -> &str {
    let trimmed = answer.trim();
    let Some(rest) = trimmed.strip_prefix("```") else { return trimmed };
    let Some(body) = rest.strip_suffix("```") else { return trimmed };
    let Some((info, inside)) = body.split_once('\n') else { return trimmed };
    match info.trim() {
        "" | "json" if !inside.contains("```") => inside,
        _ => trimmed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_answers_may_be_fenced_once_and_nothing_more() {
        assert_eq!(json_text(" [1] \n"), "[1]");
        assert_eq!(json_text("```json\n[1]\n```"), "[1]\n");
        assert_eq!(json_text("```\n{}\n```\n"), "{}\n");
        assert_eq!(json_text("Here:\n```json\n[1]\n```"), "Here:\n```json\n[1]\n```");
        assert_eq!(json_text("```json\n[1]\n```\n```json\n[2]\n```"), "```json\n[1]\n```\n```json\n[2]\n```");
    }

    #[test]
    fn broken_contracts_are_refused_when_read() {
        let spec = |yaml: &str| serde_yaml_ng::from_str::<ContractSpec>(yaml).unwrap().validate();
        assert!(spec("schema: {type: 7}").unwrap_err().contains("not a usable JSON Schema"));
        let e = spec("rules: [{id: r, type: grep_match, description: d}]").unwrap_err();
        assert!(e.contains("command"), "{e}");
        assert!(spec("rules: [{id: r, type: grep_match, description: d, command: 'grep x answer.md'}]").is_ok());
        assert!(serde_yaml_ng::from_str::<ContractSpec>("rulez: []").is_err());
    }
}
