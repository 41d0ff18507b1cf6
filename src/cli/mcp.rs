//! `reviewhost mcp`: the sandboxed shell and checks as an MCP server on stdio.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use reviewhost::mcp::{Server, serve_stdio};
use reviewhost::sandbox::{Limits, RootDir, parse_memory, parse_timeout};

use crate::exit::Exit;

#[derive(clap::Args)]
#[command(after_help = "\
Speaks the Model Context Protocol on stdin/stdout. Tools: `sh` runs one command line in
the sandbox (the same interpreter, programs and limits as an assertion's command, the
root read-only at /, no network); `check` evaluates one assertion object. The limits are
these flags, never the client's.

Examples:
  reviewhost mcp --root .
  reviewhost mcp --root . --timeout 5s --memory 128MiB

From Claude Code (the claude-code preset does this for read-only agents):
  claude -p --strict-mcp-config --mcp-config '{\"mcpServers\":{\"reviewhost\":{\"command\":\"reviewhost\",\"args\":[\"mcp\",\"--root\",\".\"]}}}'

Exit codes: 0 the client closed the connection, 2 the server could not start.")]
pub struct McpArgs {
    /// The directory the tools see, read-only, as `/`.
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Time limit per tool call, e.g. 10s.
    #[arg(long, default_value = "10s", value_parser = parse_timeout)]
    timeout: Duration,
    /// Memory limit per tool call, e.g. 256MiB.
    #[arg(long, default_value = "256MiB", value_parser = parse_memory)]
    memory: u64,
    /// Record every call in the events.jsonl of the review in ROOT/.reviewhost/ (the
    /// presets pass it; the directory must exist).
    #[arg(long)]
    review_events: bool,
    /// The agent the calls are for, in those events.
    #[arg(long, value_name = "NAME", requires = "review_events")]
    agent: Option<String>,
}

pub fn mcp(args: &McpArgs) -> anyhow::Result<Exit> {
    let root = RootDir::new(&args.root).map_err(|e| anyhow::anyhow!("{}: {e}", args.root.display()))?;
    let limits = Limits { timeout: args.timeout, memory: args.memory, ..Limits::default() };
    let runner = crate::runner::runner(limits, Some(1), &args.root)?;
    let mut server = Server::new(Arc::new(runner), root);
    if args.review_events {
        let log = reviewhost::review::workspace::EventLog::open(&args.root)?;
        server = server.logging_to(log, args.agent.clone());
    }
    serve_stdio(server)?;
    Ok(Exit::Clean)
}
