//! Runs one agent: a subprocess started from an argv (never through a shell), the
//! prompt on stdin, the answer on stdout, killed with its process group at its timeout.
//!
//! Which program plays the agent is the operator's choice, in `reviewhost.toml` (found as
//! [`super::trust`] says: never the reviewed repository's own without the operator's
//! `--trust-repo-config`):
//!
//! ```toml
//! [agent]
//! command = ["claude", "-p", "--output-format", "json", "--model", "{model}",
//!            "--append-system-prompt-file", "{system_prompt_file}", "--allowedTools", "{tools}"]
//! format = "claude-json"   # or "text": stdout is the answer
//! timeout = "15m"
//!
//! [agents.fix-agent]       # any of the three, per agent
//! timeout = "30m"
//! ```
//!
//! A call fails (and the orchestrator aborts the pass) on a non-zero exit, a timeout, or
//! a `claude-json` envelope with `is_error: true` or a subtype other than `success`.
//!
//! [`call`] runs one agent; [`Agents`] is how a loop calls its agents: within the prompt
//! budget, with an event before and after each call.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::definitions::{Definition, Role};
use super::error::AbortCause;
use super::event::Event;
use super::prompt::Prompt;
use super::workspace::Workspace;

/// The config file's name (in the user's configuration directory, or at the root).
pub const CONFIG_FILE: &str = "reviewhost.toml";

/// How agent responses are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ResponseFormat {
    /// stdout is the answer.
    #[default]
    Text,
    /// stdout is Claude Code's `-p --output-format json` envelope; the answer is `result`.
    ClaudeJson,
}

/// `[agent]` or `[agents.NAME]`: every field optional so a per-agent table overrides
/// only what it names.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSettings {
    pub command: Option<Vec<String>>,
    pub format: Option<ResponseFormat>,
    #[serde(default, with = "humantime_serde_opt")]
    pub timeout: Option<Duration>,
}

/// `reviewhost.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub agent: AgentSettings,
    #[serde(default)]
    pub agents: BTreeMap<String, AgentSettings>,
}

/// What an agent is run with, after the per-agent overrides.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub command: Vec<String>,
    pub format: ResponseFormat,
    pub timeout: Duration,
}

/// Default time an agent may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15 * 60);

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("{}: cannot read: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

impl Config {
    /// Reads `path`; a missing file is an error only when `required` (an explicit `--config`).
    pub fn load(path: &Path, required: bool) -> Result<Config, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => return Ok(Config::default()),
            Err(source) => return Err(ConfigError::Read { path: path.into(), source }),
        };
        let config: Config =
            toml::from_str(&text).map_err(|e| ConfigError::Invalid { path: path.into(), message: e.to_string() })?;
        for (name, settings) in
            std::iter::once(("agent", &config.agent)).chain(config.agents.iter().map(|(n, s)| (n.as_str(), s)))
        {
            if settings.command.as_ref().is_some_and(|c| c.is_empty()) {
                return Err(ConfigError::Invalid {
                    path: path.into(),
                    message: format!("[{name}] command: must name a program (an argv array, not empty)"),
                });
            }
        }
        Ok(config)
    }

    /// The settings for agent `name`, or an error naming what is missing.
    pub fn resolve(&self, name: &str) -> Result<Resolved, String> {
        let own = self.agents.get(name);
        let command = own.and_then(|s| s.command.clone()).or_else(|| self.agent.command.clone()).ok_or_else(|| {
            format!(
                "no command for agent '{name}': set [agent] command = [...] in the {CONFIG_FILE} in use \
                 (see docs/review-loop.md)"
            )
        })?;
        Ok(Resolved {
            command,
            format: own.and_then(|s| s.format).or(self.agent.format).unwrap_or_default(),
            timeout: own.and_then(|s| s.timeout).or(self.agent.timeout).unwrap_or(DEFAULT_TIMEOUT),
        })
    }
}

/// `timeout = "15m"` through humantime.
mod humantime_serde_opt {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer};

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        let text = Option::<String>::deserialize(d)?;
        text.map(|t| humantime::parse_duration(&t).map_err(serde::de::Error::custom)).transpose()
    }
}

/// Why an agent call produced no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    #[error("agent '{agent}': {reason}")]
    Config { agent: String, reason: String },
    #[error("agent '{agent}': cannot start {program}: {reason}")]
    Spawn { agent: String, program: String, reason: String },
    #[error("agent '{agent}': timed out after {}", humantime::format_duration(*timeout))]
    Timeout { agent: String, timeout: Duration },
    #[error("agent '{agent}': exited with status {code}{}", tail(stderr))]
    Exit { agent: String, code: i32, stderr: String },
    #[error("agent '{agent}': {reason}")]
    Response { agent: String, reason: String },
}

fn tail(stderr: &str) -> String {
    let last: Vec<&str> = stderr.lines().rev().take(3).collect();
    if last.is_empty() {
        String::new()
    } else {
        format!(": {}", last.into_iter().rev().collect::<Vec<_>>().join(" | "))
    }
}

/// One finished call.
#[derive(Debug, Clone)]
pub struct Answer {
    pub text: String,
    pub duration: Duration,
    pub exit: i32,
}

/// Runs agent `definition` in `root` with `prompt` on stdin.
pub fn call(config: &Config, definition: &Definition, root: &Path, prompt: &str) -> Result<Answer, AgentError> {
    let agent = definition.name.clone();
    let settings = config.resolve(&agent).map_err(|reason| AgentError::Config { agent: agent.clone(), reason })?;
    // The system prompt goes to a file the command names with {system_prompt_file}.
    let mut system = tempfile::Builder::new()
        .prefix("reviewhost-agent-")
        .suffix(".md")
        .tempfile()
        .and_then(|mut f| f.write_all(definition.body.as_bytes()).map(|()| f))
        .map_err(|e| AgentError::Spawn {
            agent: agent.clone(),
            program: "(system prompt file)".into(),
            reason: e.to_string(),
        })?;
    let _ = system.flush();
    let values = [
        ("{system_prompt_file}", system.path().to_string_lossy().into_owned()),
        ("{tools}", definition.tools.join(",")),
        ("{model}", definition.model.clone()),
        ("{agent}", agent.clone()),
    ];
    let argv: Vec<String> = settings
        .command
        .iter()
        .map(|arg| values.iter().fold(arg.clone(), |acc, (key, value)| acc.replace(key, value)))
        .collect();

    let started = Instant::now();
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(root)
        .env("REVIEWHOST_AGENT", &agent)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so the timeout kills what it started too.
        .process_group(0)
        .spawn()
        .map_err(|e| AgentError::Spawn { agent: agent.clone(), program: argv[0].clone(), reason: e.to_string() })?;
    let mut stdin = child.stdin.take().expect("piped");
    let prompt = prompt.to_owned();
    let writer = std::thread::spawn(move || {
        // An agent that does not read its prompt closes the pipe: not an error here.
        let _ = stdin.write_all(prompt.as_bytes());
    });
    let stdout_reader = {
        let mut pipe = child.stdout.take();
        std::thread::spawn(move || read_all(pipe.as_mut()))
    };
    let stderr_reader = {
        let mut pipe = child.stderr.take();
        std::thread::spawn(move || read_all(pipe.as_mut()))
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= settings.timeout => {
                // SAFETY: signalling the child's own process group, which it leads.
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                let _ = child.wait();
                return Err(AgentError::Timeout { agent, timeout: settings.timeout });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(AgentError::Spawn { agent, program: argv[0].clone(), reason: e.to_string() }),
        }
    };
    let _ = writer.join();
    let stdout = stdout_reader.join().unwrap_or_default();
    let stderr = stderr_reader.join().unwrap_or_default();
    let duration = started.elapsed();
    let code = status.code().unwrap_or(-1);
    if !status.success() {
        return Err(AgentError::Exit { agent, code, stderr });
    }
    let text = match settings.format {
        ResponseFormat::Text => stdout,
        ResponseFormat::ClaudeJson => {
            claude_result(&stdout).map_err(|reason| AgentError::Response { agent, reason })?
        }
    };
    Ok(Answer { text, duration, exit: code })
}

/// How a loop calls its agents: each prompt finished within the byte budget, each call
/// between an `agent_start` and an `agent_end` event. Shared by reference between the
/// threads of agents that run in parallel.
pub struct Agents<'a> {
    pub config: &'a Config,
    pub definitions: &'a [Definition],
    /// Where the agents run.
    pub root: &'a Path,
    /// Where the events go.
    pub workspace: &'a Workspace,
    /// Bytes a prompt may have ([`super::prompt::DEFAULT_BUDGET`] unless the operator
    /// says otherwise): over it, the call is not made.
    pub budget: usize,
}

impl Agents<'_> {
    /// The definition of the agent that plays `role` (the first one defined).
    pub fn with_role(&self, role: Role) -> Result<&Definition, AbortCause> {
        self.definitions.iter().find(|d| d.role == role).ok_or(AbortCause::NoAgent(role))
    }

    /// Finishes `prompt` within the budget and calls agent `d` with it.
    pub fn ask(&self, d: &Definition, pass: u32, prompt: Prompt) -> Result<String, AbortCause> {
        let text = prompt.finish(&d.name, self.budget)?;
        Ok(self.call(d, pass, &text)?)
    }

    /// One call of agent `d` with `prompt`, between its start and end events (an event
    /// that cannot be written does not stop the call).
    pub fn call(&self, d: &Definition, pass: u32, prompt: &str) -> Result<String, AgentError> {
        let _ = self.workspace.event(&Event::AgentStart { pass, agent: &d.name, prompt_bytes: prompt.len() });
        let started = Instant::now();
        let result = call(self.config, d, self.root, prompt);
        let ms = (started.elapsed().as_secs_f64() * 1e3).round();
        let agent = &d.name;
        let end = match &result {
            Ok(a) => Event::AgentEnd {
                pass,
                agent,
                ok: true,
                exit: Some(a.exit),
                duration_ms: ms,
                response_bytes: Some(a.text.len()),
                error: None,
            },
            Err(e) => Event::AgentEnd {
                pass,
                agent,
                ok: false,
                exit: match e {
                    AgentError::Exit { code, .. } => Some(*code),
                    _ => None,
                },
                duration_ms: ms,
                response_bytes: None,
                error: Some(e.to_string()),
            },
        };
        let _ = self.workspace.event(&end);
        result.map(|a| a.text)
    }
}

fn read_all(pipe: Option<&mut impl Read>) -> String {
    let mut bytes = Vec::new();
    if let Some(pipe) = pipe {
        let _ = pipe.read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The answer inside Claude Code's `--output-format json` envelope.
fn claude_result(stdout: &str) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Envelope {
        #[serde(default)]
        subtype: Option<String>,
        #[serde(default)]
        is_error: bool,
        #[serde(default)]
        result: Option<String>,
    }
    let envelope: Envelope = serde_json::from_str(stdout.trim())
        .map_err(|e| format!("claude-json: stdout is not the JSON result object: {e}"))?;
    if envelope.is_error {
        return Err(format!(
            "claude-json: is_error is true (subtype {}): {}",
            envelope.subtype.as_deref().unwrap_or("none"),
            envelope.result.as_deref().unwrap_or("").chars().take(200).collect::<String>()
        ));
    }
    match envelope.subtype.as_deref() {
        Some("success") | None => {}
        Some(other) => return Err(format!("claude-json: subtype '{other}', not 'success'")),
    }
    envelope.result.ok_or_else(|| "claude-json: no `result` field".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_envelopes() {
        assert_eq!(
            claude_result(r#"{"type":"result","subtype":"success","is_error":false,"result":"hi"}"#),
            Ok("hi".into())
        );
        assert!(
            claude_result(r#"{"subtype":"success","is_error":true,"result":"x"}"#).unwrap_err().contains("is_error")
        );
        assert!(
            claude_result(r#"{"subtype":"error_max_turns","is_error":false}"#).unwrap_err().contains("error_max_turns")
        );
        assert!(claude_result("not json").is_err());
    }

    #[test]
    fn per_agent_settings_override_the_defaults() {
        let config: Config = toml::from_str(
            "[agent]\ncommand = [\"a\", \"{agent}\"]\ntimeout = \"2m\"\n[agents.fix-agent]\ntimeout = \"5s\"\nformat = \"claude-json\"\n",
        )
        .unwrap();
        let fix = config.resolve("fix-agent").unwrap();
        assert_eq!(
            (fix.command[0].as_str(), fix.timeout, fix.format),
            ("a", Duration::from_secs(5), ResponseFormat::ClaudeJson)
        );
        let other = config.resolve("ux-analyst").unwrap();
        assert_eq!((other.timeout, other.format), (Duration::from_secs(120), ResponseFormat::Text));
        assert!(Config::default().resolve("x").unwrap_err().contains("[agent] command"));
    }
}
