//! `reviewhost mcp`: an MCP client speaking to the server over stdio (handshake, tool
//! listing, `sh` and `check`), and the sandboxed `sh` against every command seed 003's
//! read-only policy must deny.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use reviewhost::sandbox::{Limits, RootDir};
use serde_json::{Value, json};

use crate::support::{reviewhost, runner};

/// A client of one `reviewhost mcp` process.
struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Client {
    fn start(root: &Path) -> Client {
        Client::start_with(root, &[])
    }

    fn start_with(root: &Path, extra: &[&str]) -> Client {
        let mut child = reviewhost()
            .args(["mcp", "--root"])
            .arg(root)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut client = Client { child, stdin, stdout, next: 1 };
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}),
        );
        assert!(init["serverInfo"]["name"].is_string(), "{init}");
        assert!(init["capabilities"]["tools"].is_object(), "{init}");
        client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its `result` (panics on an error response).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "the server closed stdout");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                assert!(message.get("error").is_none(), "{message}");
                return message["result"].clone();
            }
        }
    }

    /// Writes `bytes` and a newline as one line, and returns the next message the server
    /// writes (these tests send one line at a time).
    fn raw(&mut self, bytes: &[u8]) -> Value {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        assert!(self.stdout.read_line(&mut line).unwrap() > 0, "the server closed stdout");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// Calls `tool`; returns (is_error, the text content parsed as JSON or as a string).
    fn call(&mut self, tool: &str, arguments: Value) -> (bool, Value) {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let text = result["content"][0]["text"].as_str().unwrap().to_string();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (result["isError"] == true, body)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn repo(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("repo");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("etc")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "// TODO: handle errors\npub fn f() {}\n").unwrap();
    std::fs::write(root.join("etc/passwd"), "the root's own etc/passwd\n").unwrap();
    root
}

#[test]
fn a_client_lists_the_tools_and_runs_sh_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let root = repo(dir.path());
    let mut client = Client::start(&root);

    let tools = client.request("tools/list", json!({}));
    let mut names: Vec<&str> = tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["check", "sh"]);
    let sh = tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == "sh").unwrap();
    assert_eq!(sh["inputSchema"]["required"], json!(["command"]), "{sh}");

    let (error, out) = client.call("sh", json!({"command": "grep -rn TODO src"}));
    assert!(!error, "{out}");
    assert_eq!(out["status"], 0);
    assert_eq!(out["stdout"], "src/lib.rs:1:// TODO: handle errors\n");
    assert_eq!(out["cut"], false);

    // `/` is the root: /etc/passwd is the repository's own file, never the host's.
    let (_, out) = client.call("sh", json!({"command": "cat /etc/passwd"}));
    assert_eq!(out["stdout"], "the root's own etc/passwd\n", "{out}");

    // No program deletes; the tree is unchanged.
    let (error, out) = client.call("sh", json!({"command": "rm -rf src"}));
    assert!(error, "{out}");
    assert!(out["trouble"][0].as_str().unwrap().contains("'rm' is not available"), "{out}");
    assert!(root.join("src/lib.rs").exists());

    // Output larger than the cap is cut, and says so.
    let (_, out) = client.call("sh", json!({"command": "cat src/lib.rs src/lib.rs | head -c 10"}));
    assert_eq!(out["stdout"], "// TODO: h");
    let (_, out) = client.call("sh", json!({"command": "find / -type f | wc -l"}));
    assert_eq!(out["stdout"].as_str().unwrap().trim(), "2", "{out}");

    let todo = json!({"id": "A-1", "type": "grep_not_match", "command": "grep -rn TODO src", "expected": "no_match"});
    let (error, verdict) = client.call("check", json!({"assertion": todo}));
    assert!(!error, "{verdict}");
    assert_eq!(verdict["status"], "fail", "{verdict}");
    assert_eq!(verdict["id"], "A-1");
    let exists = json!({"id": "B", "type": "file_exists", "path": "src/lib.rs"});
    assert_eq!(client.call("check", json!({"assertion": exists})).1["status"], "pass");
    let (error, why) = client.call("check", json!({"assertion": {"id": "C", "type": "file_exists"}}));
    assert!(error && why.as_str().unwrap().contains("field `path`: missing"), "{why}");
}

/// The server names itself, and answers every line: one that is not JSON with a parse
/// error (-32700, id null), JSON that is no request with an invalid request (-32600),
/// and a line over the limit with an error naming it; it goes on serving after each.
/// rmcp's transport dropped all three without a reply, and said it was `rmcp`.
#[test]
fn every_line_gets_an_answer_and_the_server_names_itself() {
    let dir = tempfile::tempdir().unwrap();
    let root = repo(dir.path());
    let mut child =
        reviewhost().args(["mcp", "--root"]).arg(&root).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    // A line without an answer would leave the test waiting: after a minute the
    // server is stopped, and the read fails instead.
    let (done, watching) = std::sync::mpsc::channel::<()>();
    let pid = child.id().to_string();
    let watchdog = std::thread::spawn(move || {
        if watching.recv_timeout(std::time::Duration::from_secs(60)).is_err() {
            let _ = std::process::Command::new("kill").arg(&pid).status();
        }
    });
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut client = Client { child, stdin, stdout, next: 1 };

    // Before the handshake too.
    let answer = client.raw(b"this is not JSON");
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert!(answer.as_object().unwrap().contains_key("id") && answer["id"].is_null(), "{answer}");

    let init = client.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}),
    );
    assert_eq!(init["serverInfo"]["name"], "reviewhost", "{init}");
    assert_eq!(init["serverInfo"]["version"], env!("CARGO_PKG_VERSION"), "{init}");
    client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    for line in [&b"{\"jsonrpc\": \"2.0\", \"id\": 1,"[..], b"\xff\xfe", b"{\"a\": 1} trailing"] {
        let answer = client.raw(line);
        assert_eq!(answer["error"]["code"], -32700, "{answer}");
        assert!(answer["id"].is_null(), "{answer}");
    }
    for (line, id) in [
        (json!(42), Value::Null),
        (json!([{"jsonrpc": "2.0", "id": 5, "method": "ping"}]), Value::Null),
        (json!({"jsonrpc": "2.0", "id": 6}), json!(6)),
        (json!({"jsonrpc": "1.0", "id": 7, "method": "tools/list"}), json!(7)),
        (json!({"jsonrpc": "2.0", "id": {"x": 1}, "method": "tools/list"}), Value::Null),
    ] {
        let answer = client.raw(line.to_string().as_bytes());
        assert_eq!(answer["error"]["code"], -32600, "{line}: {answer}");
        assert_eq!(answer["id"], id, "{line}: {answer}");
    }
    let answer =
        client.raw(json!({"jsonrpc": "2.0", "id": "p", "method": "tools/call", "params": 5}).to_string().as_bytes());
    assert_eq!((answer["id"].clone(), answer["error"]["code"].clone()), (json!("p"), json!(-32602)), "{answer}");

    // One byte over the limit (16 MiB), a request otherwise: answered, naming the limit.
    let limit = reviewhost::mcp::MAX_REQUEST_LINE_BYTES;
    let head = br#"{"jsonrpc": "2.0", "id": 99, "method": "ping", "params": {"pad": ""#;
    let tail = br#""}}"#;
    let mut long = head.to_vec();
    long.resize(limit + 1 - tail.len(), b'a');
    long.extend_from_slice(tail);
    assert_eq!(long.len(), limit + 1);
    let answer = client.raw(&long);
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert!(answer["id"].is_null(), "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("16 MiB") && message.contains(&limit.to_string()), "{message}");
    // At the limit, the same request is served.
    long.truncate(long.len() - tail.len() - 1);
    long.extend_from_slice(tail);
    assert_eq!(client.raw(&long)["id"], 99);

    // Still serving.
    let (error, out) = client.call("sh", json!({"command": "grep -c TODO src/lib.rs"}));
    assert!(!error, "{out}");
    assert_eq!(out["stdout"], "1\n");
    drop(client);
    drop(done);
    watchdog.join().unwrap();
}

/// Started by a review's agent, the server records each call in the review's
/// `events.jsonl`; it never follows a planted `.reviewhost` symlink to do so.
#[test]
fn calls_inside_a_review_are_events() {
    let dir = tempfile::tempdir().unwrap();
    let root = repo(dir.path());
    std::fs::create_dir(root.join(".reviewhost")).unwrap();
    let mut client = Client::start_with(&root, &["--review-events", "--agent", "ux-analyst"]);
    client.call("sh", json!({"command": "grep -c TODO src/lib.rs"}));
    client.call("check", json!({"assertion": {"id": "E-1", "type": "file_exists", "path": "nope"}}));
    drop(client);
    let events: Vec<Value> = std::fs::read_to_string(root.join(".reviewhost/events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let seen: Vec<(&str, &str, &str, &str)> = events
        .iter()
        .map(|e| {
            assert_eq!(e["event"], "sandbox_call");
            assert!(e["ts"].is_string() && e["duration_ms"].is_number(), "{e}");
            let s = |k: &str| e[k].as_str().unwrap();
            (s("agent"), s("tool"), s("subject"), s("result"))
        })
        .collect();
    assert_eq!(
        seen,
        [("ux-analyst", "sh", "grep -c TODO src/lib.rs", "exit 0"), ("ux-analyst", "check", "E-1", "fail")]
    );

    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::remove_dir_all(root.join(".reviewhost")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join(".reviewhost")).unwrap();
    let out = reviewhost().args(["mcp", "--review-events", "--root"]).arg(&root).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("symbolic link"), "{out:?}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
}

/// Seed 003 (plansmith) guards its planning phase with an allow-list over Bash commands;
/// every command its cases say a read-only policy must deny, run through `sh`, leaves
/// the root, a sentinel in it and a canary beside it unchanged.
#[test]
fn commands_a_read_only_policy_denies_change_nothing() {
    let cases =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/review-loops/plansmith/pretooluse-cases.json");
    let Ok(text) = std::fs::read_to_string(&cases) else {
        eprintln!("skipped: {} is not there (the shared corpus sits beside the repository)", cases.display());
        return;
    };
    let cases: Value = serde_json::from_str(&text).unwrap();
    let denied: Vec<&str> = cases["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["tool"] == "Bash" && c["expected"] == "deny")
        .map(|c| c["command"].as_str().unwrap())
        .collect();
    assert!(denied.len() >= 15, "{}", denied.len());

    let dir = tempfile::tempdir().unwrap();
    let root = repo(dir.path());
    std::fs::write(root.join("in.txt"), "b\na\n").unwrap();
    std::fs::create_dir_all(root.join("tmp/foo")).unwrap();
    std::fs::write(root.join("tmp/foo/sentinel"), "sentinel\n").unwrap();
    let canary = dir.path().join("canary");
    std::fs::write(&canary, "canary\n").unwrap();
    let tree = |root: &Path| {
        let out = std::process::Command::new("find").arg(root).arg("-printf").arg("%p %s %T@\n").output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let before = tree(&root);
    let runner = runner(Limits::default(), 1);
    let root_dir = RootDir::new(&root).unwrap();
    for command in denied {
        let output = runner.shell(command, &root_dir);
        assert_eq!(tree(&root), before, "{command:?} changed the root: {output:?}");
        assert_eq!(std::fs::read_to_string(&canary).unwrap(), "canary\n", "{command:?}");
        assert_eq!(std::fs::read_to_string(root.join("tmp/foo/sentinel")).unwrap(), "sentinel\n");
        // Whatever it was meant to do, it did not do it: it failed, or could not run.
        if let Ok(output) = &output {
            assert!(output.status != 0 || !output.trouble.is_empty(), "{command:?} succeeded: {output:?}");
        }
    }
}
