//! The events every loop appends to `.reviewhost/events.jsonl` from the building blocks:
//! an agent call's start and end and the tools it was refused ([`super::agent`]), an
//! answer the parse gate turned down ([`super::gate`]), a call of the sandbox's tools
//! (`reviewhost mcp`). Each loop's own events are an enum of the same shape in the
//! loop's `event.rs`, so an event's name and fields are defined once and cannot be
//! misspelt at a call site. [`super::workspace::Workspace::event`] writes any of them,
//! each line `{"ts": …, "event": NAME, …fields}`.

use serde::Serialize;

use super::reply::Usage;

/// An event of `events.jsonl`: an enum serialized with its name in `event` and its
/// fields beside it (`#[serde(tag = "event", rename_all = "snake_case")]`). Only such
/// enums are written, so a line always has its event's name.
pub trait LogEvent: Serialize {}

/// One line of `events.jsonl` that any loop writes.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event<'a> {
    /// An answer did not pass the parse gate (`attempt` from 1).
    ParseGate {
        pass: u32,
        agent: &'a str,
        attempt: u32,
        error: &'a str,
    },
    AgentStart {
        pass: u32,
        agent: &'a str,
        prompt_bytes: usize,
    },
    /// An agent call ended: `ok` with its exit status and answer size, or not, with the
    /// error (and the exit status when the agent exited).
    AgentEnd {
        pass: u32,
        agent: &'a str,
        ok: bool,
        exit: Option<i32>,
        duration_ms: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        response_bytes: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// Tokens, turns and cost, when the CLI reports them.
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<&'a Usage>,
    },
    /// An agent used the sandbox's `sh` or `check` tool (`reviewhost mcp`).
    SandboxCall {
        agent: Option<&'a str>,
        tool: &'a str,
        /// `sh`'s command line, or `check`'s assertion id.
        subject: &'a str,
        /// `sh`: the exit status; `check`: pass, fail or error; or why the call failed.
        result: &'a str,
        duration_ms: f64,
    },
    /// An agent tried tools it was refused (not offered, or not permitted): a
    /// read-only agent that tried to write, for one.
    AgentRefused {
        pass: u32,
        agent: &'a str,
        tools: &'a [String],
    },
}

impl LogEvent for Event<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_events_serialize_with_their_name_first_and_their_fields() {
        let line =
            serde_json::to_value(Event::ParseGate { pass: 1, agent: "ux-analyst", attempt: 2, error: "e" }).unwrap();
        assert_eq!(line.to_string(), r#"{"event":"parse_gate","pass":1,"agent":"ux-analyst","attempt":2,"error":"e"}"#);
    }
}
