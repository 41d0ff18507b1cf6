//! What an agent CLI printed, read: the answer, what the call cost, and the tools it was
//! refused.
//!
//! Claude Code (`-p --output-format stream-json --verbose`) prints one JSON object per
//! line: a `system`/`init` line with the tools it offers, the conversation (tool calls
//! and their results), and a last `result` line, the envelope, with the answer, the
//! usage, the cost, and `permission_denials`. A tool that was not offered is refused in
//! the conversation only (`No such tool available`), never in the envelope, which is why
//! the whole stream is read. An API error is an envelope with `is_error` and exit 1, with
//! nothing on stderr.
//!
//! Codex (`exec --json`) prints events: `item.completed` with the `agent_message`,
//! `turn.completed` with the token usage (no cost, no turn count), `turn.failed` or
//! `error` with the API's message. A write its read-only sandbox refuses leaves no event.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How agent responses are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ResponseFormat {
    /// stdout is the answer.
    #[default]
    Text,
    /// stdout is Claude Code's `-p --output-format json` envelope or its `stream-json`
    /// lines; the answer is the envelope's `result` ([`claude`]).
    ClaudeJson,
    /// stdout is Codex's `exec --json` events ([`codex`]).
    CodexJson,
}

/// Tokens, turns and cost of one call, as far as the CLI reports them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Input tokens read from the provider's prompt cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to it.
    pub cache_write_tokens: u64,
    /// Model turns; `None` when the CLI does not say (Codex).
    pub turns: Option<u64>,
    /// In USD, as the CLI prices it; `None` when it does not (Codex).
    pub cost_usd: Option<f64>,
}

impl Usage {
    /// `total` plus `usage`, where `total` is `None` before the first call that reported.
    pub fn sum(total: Option<Usage>, usage: &Usage) -> Usage {
        match total {
            None => usage.clone(),
            Some(mut total) => {
                total.add(usage);
                total
            }
        }
    }

    /// One line for a report: tokens, turns, and cost where known.
    pub fn line(&self) -> String {
        let mut text = format!("{} input + {} output tokens", self.input_tokens, self.output_tokens);
        if self.cache_read_tokens + self.cache_write_tokens > 0 {
            text.push_str(&format!(
                " ({} cache read, {} cache write)",
                self.cache_read_tokens, self.cache_write_tokens
            ));
        }
        if let Some(turns) = self.turns {
            text.push_str(&format!(", {turns} turns"));
        }
        match self.cost_usd {
            Some(cost) => text.push_str(&format!(", ${cost:.4}")),
            None => text.push_str(", cost not reported"),
        }
        text
    }

    /// Adds `other` in: a sum is known only where every part is.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.turns = self.turns.zip(other.turns).map(|(a, b)| a + b);
        self.cost_usd = self.cost_usd.zip(other.cost_usd).map(|(a, b)| a + b);
    }
}

/// A CLI's output, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reply {
    /// The answer; `None` when the CLI reports a failure.
    pub answer: Option<String>,
    /// Why it failed, in the CLI's words (the API's message, the subtype, the status).
    pub failure: Option<String>,
    pub usage: Option<Usage>,
    /// Tools the agent tried and was refused: not offered, or not permitted.
    pub refused: Vec<String>,
    /// The tools the CLI says it offered (Claude's `init` line), when it says.
    pub offered: Option<Vec<String>>,
}

/// Longest failure text kept from a CLI's output.
const MAX_FAILURE_CHARS: usize = 500;

fn cut(text: &str) -> String {
    text.chars().take(MAX_FAILURE_CHARS).collect()
}

fn lines(stdout: &str) -> impl Iterator<Item = Value> + '_ {
    stdout.lines().filter_map(|line| serde_json::from_str::<Value>(line.trim()).ok()).filter(Value::is_object)
}

fn count(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// Reads Claude Code's `stream-json` output (or the single envelope of `json`).
pub fn claude(stdout: &str) -> Result<Reply, String> {
    let mut reply = Reply::default();
    let mut envelope = None;
    // Tool-call ids to names, to name the tool a refusal answers.
    let mut calls = std::collections::HashMap::new();
    for line in lines(stdout) {
        match line.get("type").and_then(Value::as_str) {
            Some("system") if line.get("subtype").and_then(Value::as_str) == Some("init") => {
                reply.offered = line
                    .get("tools")
                    .and_then(Value::as_array)
                    .map(|tools| tools.iter().filter_map(Value::as_str).map(str::to_string).collect());
            }
            Some("assistant") => {
                for block in content(&line) {
                    if block.get("type").and_then(Value::as_str) == Some("tool_use")
                        && let (Some(id), Some(name)) =
                            (block.get("id").and_then(Value::as_str), block.get("name").and_then(Value::as_str))
                    {
                        calls.insert(id.to_string(), name.to_string());
                    }
                }
            }
            Some("user") => {
                for block in content(&line) {
                    let refused = block.get("type").and_then(Value::as_str) == Some("tool_result")
                        && block.get("is_error").and_then(Value::as_bool) == Some(true)
                        && text_of(block.get("content")).contains("No such tool available");
                    if refused {
                        let id = block.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                        reply.refused.push(calls.get(id).cloned().unwrap_or_else(|| "(unknown tool)".into()));
                    }
                }
            }
            Some("result") => envelope = Some(line),
            _ => {}
        }
    }
    let envelope =
        envelope.ok_or("claude: no result line in its output (is the command's --output-format stream-json?)")?;
    if let Some(denials) = envelope.get("permission_denials").and_then(Value::as_array) {
        for denial in denials {
            let name = denial.get("tool_name").and_then(Value::as_str).unwrap_or("(unknown tool)");
            reply.refused.push(name.to_string());
        }
    }
    let usage = envelope.get("usage").cloned().unwrap_or(Value::Null);
    reply.usage = Some(Usage {
        input_tokens: count(&usage, "input_tokens"),
        output_tokens: count(&usage, "output_tokens"),
        cache_read_tokens: count(&usage, "cache_read_input_tokens"),
        cache_write_tokens: count(&usage, "cache_creation_input_tokens"),
        turns: envelope.get("num_turns").and_then(Value::as_u64),
        cost_usd: envelope.get("total_cost_usd").and_then(Value::as_f64),
    });
    let subtype = envelope.get("subtype").and_then(Value::as_str).unwrap_or("none");
    let is_error = envelope.get("is_error").and_then(Value::as_bool).unwrap_or(false);
    let result = envelope.get("result").and_then(Value::as_str);
    if is_error || subtype != "success" {
        let status = envelope
            .get("api_error_status")
            .and_then(Value::as_u64)
            .map(|s| format!(", API status {s}"))
            .unwrap_or_default();
        let said = result.map(|r| format!(": {}", cut(r))).unwrap_or_default();
        reply.failure = Some(format!("claude reports an error (subtype {subtype}{status}){said}"));
    } else {
        reply.answer = Some(result.ok_or("claude: the result line has no `result`")?.to_string());
    }
    Ok(reply)
}

/// Reads Codex's `exec --json` events.
pub fn codex(stdout: &str) -> Result<Reply, String> {
    let mut reply = Reply::default();
    let mut usage: Option<Usage> = None;
    let mut seen = false;
    for line in lines(stdout) {
        seen = true;
        match line.get("type").and_then(Value::as_str) {
            Some("item.completed") => {
                let item = line.get("item").cloned().unwrap_or(Value::Null);
                if item.get("type").and_then(Value::as_str) == Some("agent_message") {
                    reply.answer = item.get("text").and_then(Value::as_str).map(str::to_string);
                }
            }
            Some("turn.completed") => {
                let u = line.get("usage").cloned().unwrap_or(Value::Null);
                usage.get_or_insert_with(Usage::default).add(&Usage {
                    input_tokens: count(&u, "input_tokens"),
                    output_tokens: count(&u, "output_tokens"),
                    cache_read_tokens: count(&u, "cached_input_tokens"),
                    cache_write_tokens: count(&u, "cache_write_input_tokens"),
                    turns: None,
                    cost_usd: None,
                });
            }
            Some("turn.failed") | Some("error") => {
                let message = line
                    .pointer("/error/message")
                    .or_else(|| line.get("message"))
                    .and_then(Value::as_str)
                    .unwrap_or("no message");
                reply.failure = Some(format!("codex reports an error: {}", cut(message)));
            }
            _ => {}
        }
    }
    if !seen {
        return Err("codex: no JSON events in its output (is the command `codex exec --json`?)".into());
    }
    reply.usage = usage.map(|u| Usage { turns: None, cost_usd: None, ..u });
    if reply.failure.is_some() {
        reply.answer = None;
    } else if reply.answer.is_none() {
        return Err("codex: no agent_message in its output".into());
    }
    Ok(reply)
}

fn content(line: &Value) -> impl Iterator<Item = &Value> {
    line.pointer("/message/content").and_then(Value::as_array).into_iter().flatten()
}

/// The text of a tool result's `content`: a string, or blocks with `text`.
fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape Claude Code 2.1.197 prints for an analyst offered Read, Grep and Glob
    /// whose model tried Write (measured against the fake model server).
    const CLAUDE_REFUSED: &str = r#"{"type":"system","subtype":"init","tools":["Glob","Grep","Read"],"mcp_servers":[]}
{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Write","input":{}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"<tool_use_error>Error: No such tool available: Write. Write exists but is not enabled in this context.</tool_use_error>"}]}}
{"type":"assistant","message":{"content":[{"type":"text","text":"done"}]}}
{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":"done","total_cost_usd":0.5,"usage":{"input_tokens":300,"output_tokens":60,"cache_read_input_tokens":7,"cache_creation_input_tokens":1},"permission_denials":[{"tool_name":"Edit","tool_use_id":"t9","tool_input":{}}]}
"#;

    #[test]
    fn claude_streams_give_the_answer_the_usage_and_every_refusal() {
        let reply = claude(CLAUDE_REFUSED).unwrap();
        assert_eq!(reply.answer.as_deref(), Some("done"));
        assert_eq!(reply.refused, ["Write", "Edit"]);
        assert_eq!(reply.offered, Some(vec!["Glob".into(), "Grep".into(), "Read".into()]));
        let usage = reply.usage.unwrap();
        assert_eq!((usage.input_tokens, usage.output_tokens, usage.cache_read_tokens), (300, 60, 7));
        assert_eq!((usage.turns, usage.cost_usd), (Some(3), Some(0.5)));
    }

    #[test]
    fn claude_errors_carry_the_apis_message_and_status() {
        let reply = claude(
            r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":400,"result":"API Error: 400 bad model"}"#,
        )
        .unwrap();
        assert_eq!(reply.answer, None);
        assert_eq!(
            reply.failure.as_deref(),
            Some("claude reports an error (subtype success, API status 400): API Error: 400 bad model")
        );
        let turns = claude(r#"{"type":"result","subtype":"error_max_turns","is_error":true}"#).unwrap();
        assert_eq!(turns.failure.as_deref(), Some("claude reports an error (subtype error_max_turns)"));
        assert!(claude("not json").unwrap_err().contains("no result line"));
    }

    #[test]
    fn codex_events_give_the_last_message_and_summed_tokens() {
        let out = r#"{"type":"thread.started"}
{"type":"item.completed","item":{"type":"agent_message","text":"first"}}
{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":2}}
{"type":"item.completed","item":{"type":"agent_message","text":"final"}}
{"type":"turn.completed","usage":{"input_tokens":5,"output_tokens":1}}
"#;
        let reply = codex(out).unwrap();
        assert_eq!(reply.answer.as_deref(), Some("final"));
        let usage = reply.usage.unwrap();
        assert_eq!((usage.input_tokens, usage.output_tokens, usage.cache_read_tokens), (15, 3, 4));
        assert_eq!((usage.turns, usage.cost_usd), (None, None));
        let failed = codex(r#"{"type":"turn.failed","error":{"message":"model not found"}}"#).unwrap();
        assert_eq!(failed.failure.as_deref(), Some("codex reports an error: model not found"));
        assert!(codex("").is_err());
    }
}
