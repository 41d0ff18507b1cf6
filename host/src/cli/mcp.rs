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
}

pub fn mcp(args: &McpArgs) -> anyhow::Result<Exit> {
    let root = RootDir::new(&args.root).map_err(|e| anyhow::anyhow!("{}: {e}", args.root.display()))?;
    let limits = Limits { timeout: args.timeout, memory: args.memory, ..Limits::default() };
    let runner = crate::runner::runner(limits, Some(1), &args.root)?;
    serve_stdio(Server::new(Arc::new(runner), root))?;
    Ok(Exit::Clean)
}
