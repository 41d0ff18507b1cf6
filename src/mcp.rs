//! `reviewhost mcp`: the sandbox offered to agents as an MCP server over stdio.
//!
//! Read-only agents need to explore the repository (grep, find, cat, jq, wc). The agent
//! CLIs' own shells run on the host with the operator's rights; this server runs every
//! command line in the same WASI sandbox as an assertion's `command`: it cannot write,
//! reach the network or leave the root. Two tools:
//!
//! - `sh`: one command line; returns its exit status, stdout and stderr (each cut to
//!   64 KiB, saying so) and what kept it from running as written (a program the sandbox
//!   lacks, a refused write).
//! - `check`: one assertion object, evaluated as `reviewhost run` would: its status,
//!   message and evidence, so an analyst can confirm the assertion it is about to emit
//!   fails on today's tree.
//!
//! The limits are the server's (its flags), never the agent's.

use std::sync::Arc;
use std::time::Instant;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde_json::{Value, json};

use crate::report::inert;
use crate::review::event::Event;
use crate::review::workspace::EventLog;
use crate::run::Runner;
use crate::sandbox::RootDir;

/// The server: a runner and the root it serves.
#[derive(Clone)]
pub struct Server {
    runner: Arc<Runner>,
    root: RootDir,
    /// The review's event log and the agent's name, when a review started the server.
    log: Option<Arc<(EventLog, Option<String>)>>,
    #[expect(dead_code, reason = "read by the code #[tool_handler] generates")]
    tool_router: ToolRouter<Self>,
}

/// `sh`'s arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct ShArgs {
    /// One command line, as an assertion's `command` (pipelines, `&&`, `||`, redirections
    /// to /dev/null; programs: grep, rg, find, cat, head, tail, wc, sort, uniq, cut, tr,
    /// ls, jq, test, printf, echo, …). The repository root is `/`, read-only.
    pub command: String,
}

/// `check`'s arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct CheckArgs {
    /// One assertion object, as in an assertions file: `id`, `type` (grep_match,
    /// grep_not_match, file_exists, file_content, shell_exit_zero, typescript_compile,
    /// custom) and its fields.
    pub assertion: Value,
}

#[tool_router]
impl Server {
    pub fn new(runner: Arc<Runner>, root: RootDir) -> Server {
        Server { runner, root, log: None, tool_router: Self::tool_router() }
    }

    /// Records every call as a `sandbox_call` event in `log`, for `agent`.
    pub fn logging_to(mut self, log: EventLog, agent: Option<String>) -> Server {
        self.log = Some(Arc::new((log, agent)));
        self
    }

    /// Writes the `sandbox_call` event of one call (an event that cannot be written does
    /// not fail the call).
    fn record(&self, tool: &str, subject: &str, result: &str, started: Instant) {
        if let Some(log) = &self.log {
            let (log, agent) = &**log;
            let duration_ms = (started.elapsed().as_secs_f64() * 1e3).round();
            let _ = log.event(&Event::SandboxCall { agent: agent.as_deref(), tool, subject, result, duration_ms });
        }
    }

    #[tool(description = "Run one shell command line in reviewhost's sandbox: read-only view of the repository \
                          at /, no network, no writes. Returns the exit status, stdout and stderr (each cut at \
                          64 KiB).")]
    fn sh(&self, Parameters(ShArgs { command }): Parameters<ShArgs>) -> CallToolResult {
        let started = Instant::now();
        let output = self.runner.shell(&command, &self.root);
        let result = match &output {
            Ok(output) => format!("exit {}", output.status),
            Err(reason) => reason.clone(),
        };
        self.record("sh", &command, &result, started);
        match output {
            Ok(output) => {
                let text = serde_json::to_string_pretty(&output).expect("serializable");
                let content = vec![ContentBlock::text(text)];
                if output.trouble.is_empty() {
                    CallToolResult::success(content)
                } else {
                    CallToolResult::error(content)
                }
            }
            Err(reason) => CallToolResult::error(vec![ContentBlock::text(reason)]),
        }
    }

    #[tool(description = "Evaluate one assertion object against the repository as `reviewhost run` would, and \
                          return its status (pass, fail, error), message and evidence.")]
    fn check(&self, Parameters(CheckArgs { assertion }): Parameters<CheckArgs>) -> CallToolResult {
        let started = Instant::now();
        let checked = self.runner.check_one(&assertion, &self.root);
        match &checked {
            Ok((assertion, outcome)) => self.record("check", &assertion.id, outcome.status.as_str(), started),
            Err(e) => self.record("check", "", &e.to_string(), started),
        }
        match checked {
            Ok((assertion, outcome)) => {
                let evidence: Vec<Value> =
                    outcome.evidence.iter().map(|e| json!({"path": e.path, "line": e.line, "text": e.text})).collect();
                let result = json!({
                    "id": assertion.id,
                    "status": outcome.status.as_str(),
                    "message": outcome.message,
                    "evidence": evidence,
                });
                CallToolResult::success(vec![ContentBlock::text(
                    serde_json::to_string_pretty(&result).expect("serializable"),
                )])
            }
            Err(e) => CallToolResult::error(vec![ContentBlock::text(inert(&e.to_string()).into_owned())]),
        }
    }
}

#[tool_handler]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            "reviewhost's sandbox: `sh` runs read-only shell commands over the repository, `check` evaluates \
             an assertion.",
        )
    }
}

/// Serves MCP on stdin/stdout until the client closes stdin (also before it initializes).
pub fn serve_stdio(server: Server) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async move {
        let service = match server.serve(rmcp::transport::stdio()).await {
            Ok(service) => service,
            // A client that leaves before it starts is a client that is done.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => return Err(std::io::Error::other(e)),
        };
        service.waiting().await.map_err(std::io::Error::other)?;
        Ok(())
    })
}
