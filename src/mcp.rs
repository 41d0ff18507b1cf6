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
//!
//! Every request gets an answer. rmcp's stdio transport drops a line that is not JSON
//! and one longer than its limit without a word, so the server reads stdin itself
//! ([`serve_io`]): a line that is not JSON is answered with a JSON-RPC parse error
//! (-32700, `"id": null`), valid JSON that is no request, notification or response with
//! an invalid request (-32600, or -32602 when only the params are wrong; the request's
//! id when it has a usable one, else null), a line longer than
//! [`MAX_REQUEST_LINE_BYTES`] with an invalid request naming the limit; the rest goes
//! to rmcp unchanged.

use std::sync::Arc;
use std::time::Instant;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RxJsonRpcMessage;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleServer, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

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
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("reviewhost", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "reviewhost's sandbox: `sh` runs read-only shell commands over the repository, `check` evaluates \
                 an assertion.",
            )
    }
}

/// The longest request line read, newline excluded (rmcp's own default): a longer one is
/// answered with an error naming this limit, and skipped.
pub const MAX_REQUEST_LINE_BYTES: usize = 16 << 20;

/// JSON-RPC 2.0's error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// Serves MCP on stdin/stdout until the client closes stdin (also before it initializes).
pub fn serve_stdio(server: Server) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let served = runtime.block_on(serve_io(server, tokio::io::stdin(), tokio::io::stdout()));
    // A read of stdin cannot be cancelled: when rmcp ends first, do not wait for it.
    runtime.shutdown_background();
    served
}

/// Serves MCP on `input` and `output` until `input` ends. Each line is screened first:
/// a malformed one is answered here, the others go on to rmcp; rmcp's replies and these
/// answers reach `output` as whole lines.
pub async fn serve_io<R, W>(server: Server, input: R, output: W) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    const PIPE: usize = 64 << 10;
    let (to_rmcp, rmcp_in) = tokio::io::duplex(PIPE);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE);
    let (answers, answered) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let output = Arc::new(tokio::sync::Mutex::new(output));
    let screen = tokio::spawn(screen(input, to_rmcp, answers));
    let relay = tokio::spawn(relay(from_rmcp, answered, output));
    // A screened line is at most the limit, its `\r\n` too: rmcp never drops one.
    let transport =
        AsyncRwTransport::<RoleServer, _, _>::new(rmcp_in, rmcp_out).with_max_line_length(MAX_REQUEST_LINE_BYTES + 2);
    let served = async {
        let service = match server.serve(transport).await {
            Ok(service) => service,
            // A client that leaves before it starts is a client that is done.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => return Err(std::io::Error::other(e)),
        };
        service.waiting().await.map_err(std::io::Error::other)?;
        Ok(())
    }
    .await;
    // rmcp is done and has dropped its end of the output pipe; what the screen still
    // answers, and what rmcp wrote, is written before returning.
    if served.is_err() {
        screen.abort();
    }
    let _ = screen.await;
    let relayed = relay.await.map_err(std::io::Error::other)?;
    served.and(relayed)
}

/// Reads `input` line by line (each at most [`MAX_REQUEST_LINE_BYTES`]), passing the
/// well-formed lines to rmcp and sending the answer to each malformed one to `answers`.
async fn screen<R: AsyncRead + Unpin>(
    input: R,
    mut to_rmcp: tokio::io::DuplexStream,
    answers: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        let read = match read_line(&mut input, &mut line, MAX_REQUEST_LINE_BYTES).await {
            Ok(read) => read,
            Err(_) => return,
        };
        let answer = match read {
            LineRead::End => return,
            LineRead::TooLong => Some(error_reply(
                Value::Null,
                INVALID_REQUEST,
                format!(
                    "Invalid Request: the line is longer than {} MiB ({MAX_REQUEST_LINE_BYTES} bytes), the longest \
                     request reviewhost mcp reads; it was skipped",
                    MAX_REQUEST_LINE_BYTES >> 20
                ),
                Some(json!({"limit_bytes": MAX_REQUEST_LINE_BYTES})),
            )),
            LineRead::Line => screened(&line),
        };
        match answer {
            Some(answer) => {
                if answers.send(answer).is_err() {
                    return;
                }
            }
            None => {
                if !line.ends_with(b"\n") {
                    line.push(b'\n');
                }
                if to_rmcp.write_all(&line).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Copies rmcp's output lines and the screen's answers to `output`, each line whole.
async fn relay<W: AsyncWrite + Unpin + Send + 'static>(
    from_rmcp: tokio::io::DuplexStream,
    mut answered: tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>,
    output: Arc<tokio::sync::Mutex<W>>,
) -> std::io::Result<()> {
    let out = output.clone();
    let answers = tokio::spawn(async move {
        while let Some(answer) = answered.recv().await {
            let mut out = out.lock().await;
            out.write_all(&answer).await?;
            out.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    });
    let mut from_rmcp = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    loop {
        line.clear();
        if from_rmcp.read_until(b'\n', &mut line).await? == 0 {
            break;
        }
        let mut out = output.lock().await;
        out.write_all(&line).await?;
        out.flush().await?;
    }
    answers.await.map_err(std::io::Error::other)?
}

enum LineRead {
    /// A line is in the buffer (with its newline, unless the input ended without one).
    Line,
    /// The line was longer than the limit; it was read to its end and dropped.
    TooLong,
    /// The input ended.
    End,
}

/// Reads one line into `line`, never holding more than `max` bytes of it.
async fn read_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<LineRead> {
    line.clear();
    let mut too_long = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => LineRead::TooLong,
                (false, true) => LineRead::End,
                (false, false) => LineRead::Line,
            });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let take = newline.map_or(available.len(), |at| at + 1);
        let content = line.len() + take - usize::from(newline.is_some());
        if too_long || content > max {
            too_long = true;
            line.clear();
        } else {
            line.extend_from_slice(&available[..take]);
        }
        input.consume(take);
        if newline.is_some() {
            return Ok(if too_long { LineRead::TooLong } else { LineRead::Line });
        }
    }
}

/// The answer to `line` when it is malformed, `None` when rmcp should have it.
fn screened(line: &[u8]) -> Option<Vec<u8>> {
    let text = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if text.trim_ascii().is_empty() {
        return None;
    }
    let value: Value = match serde_json::from_slice(text) {
        Ok(value) => value,
        Err(e) => {
            let why = crate::report::inert(&e.to_string()).into_owned();
            return Some(error_reply(
                Value::Null,
                PARSE_ERROR,
                format!("Parse error: the line is not JSON: {why}"),
                None,
            ));
        }
    };
    if serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()).is_ok() {
        return None;
    }
    let Some(object) = value.as_object() else {
        let why = match value {
            Value::Array(_) => "a batch (a JSON array) is not answered: send one request per line",
            _ => "a request is a JSON object",
        };
        return Some(error_reply(Value::Null, INVALID_REQUEST, format!("Invalid Request: {why}"), None));
    };
    // A notification (no id) is never answered; rmcp ignores the ones it does not know.
    let method = object.get("method").and_then(Value::as_str);
    if method.is_some() && !object.contains_key("id") && object.get("jsonrpc") == Some(&json!("2.0")) {
        return None;
    }
    let id = match object.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    let (code, why) = if object.get("jsonrpc") != Some(&json!("2.0")) {
        (INVALID_REQUEST, "`jsonrpc` must be \"2.0\"")
    } else if !matches!(object.get("id"), None | Some(Value::String(_) | Value::Number(_))) {
        (INVALID_REQUEST, "`id` must be a string or a number")
    } else if method.is_none() && !object.contains_key("result") && !object.contains_key("error") {
        (INVALID_REQUEST, "no `method` (nor a response's `result` or `error`)")
    } else if method.is_some() {
        (INVALID_PARAMS, "Invalid params for this method")
    } else {
        (INVALID_REQUEST, "not a JSON-RPC 2.0 request, notification or response")
    };
    let message = if code == INVALID_PARAMS { why.to_string() } else { format!("Invalid Request: {why}") };
    Some(error_reply(id, code, message, None))
}

/// A JSON-RPC 2.0 error response, as a line.
fn error_reply(id: Value, code: i64, message: String, data: Option<Value>) -> Vec<u8> {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    let mut line = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "error": error})).expect("serializable");
    line.push(b'\n');
    line
}
