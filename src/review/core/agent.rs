//! Runs one agent: a subprocess started from an argv (never through a shell), the
//! prompt on stdin, the answer on stdout, killed with its process group at its timeout.
//!
//! Which program plays the agent is the operator's choice, in `reviewhost.toml` (found as
//! [`super::trust`] says: never the reviewed repository's own without the operator's
//! `--trust-repo-config`):
//!
//! ```toml
//! [agent]
//! preset = "claude-code"   # or "codex": the argv is built per call (super::preset)
//! timeout = "15m"
//!
//! [agents.fix-agent]       # any key, per agent
//! timeout = "30m"
//! max_turns = 60
//! ```
//!
//! Any other program is named by its argv, with placeholders (an argument that is only
//! an empty placeholder is dropped, with the flag before it):
//!
//! ```toml
//! [agent]
//! command = ["my-agent", "--system", "{system_prompt_file}", "--model", "{model}"]
//! format = "text"          # or "claude-json", "codex-json"
//! ```
//!
//! A call fails (and the orchestrator aborts the pass) on a non-zero exit, a timeout, or
//! an output that reports an error; the error says what the CLI said ([`super::reply`]).
//!
//! [`call`] runs one agent; [`Agents`] is how a loop calls its agents: within the prompt
//! budget, with an event before and after each call.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

// The error of an agent call is with the other errors, and how a response is read with
// the reading of it; both keep their paths here.
pub use super::error::AgentError;
pub use super::reply::ResponseFormat;

use super::definitions::{Definition, Role};
use super::error::AbortCause;
use super::event::Event;
use super::gitdir::Seal;
use super::preset::{self, Preset};
use super::prompt::Prompt;
use super::reply::{self, Reply, Usage};
use super::workspace::Workspace;
use crate::sandbox::{Base, HostReadError, read_text};

/// The config file's name (in the user's configuration directory, or at the root).
pub const CONFIG_FILE: &str = "reviewhost.toml";

/// `[agent]` or `[agents.NAME]`: every field optional so a per-agent table overrides
/// only what it names.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSettings {
    /// A CLI reviewhost builds the argv for; `command`, when given too, names its program
    /// (and arguments that come first).
    pub preset: Option<Preset>,
    pub command: Option<Vec<String>>,
    pub format: Option<ResponseFormat>,
    #[serde(default, with = "humantime_serde_opt")]
    pub timeout: Option<Duration>,
    /// Model turns a preset allows a call ([`super::preset::default_max_turns`]).
    pub max_turns: Option<u32>,
}

/// `reviewhost.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub agent: AgentSettings,
    #[serde(default)]
    pub agents: BTreeMap<String, AgentSettings>,
    /// `[plan_review]`: `reviewhost plan-review`'s settings.
    #[serde(default)]
    pub plan_review: PlanReviewSettings,
    /// `[plan_gate]`: `reviewhost plan-gate`'s settings.
    #[serde(default)]
    pub plan_gate: PlanGateSettings,
    /// `[run]`: the host programs command checks may run (`reviewhost run`).
    #[serde(default)]
    pub run: RunSettings,
    /// The `reviewhost` program, whose `mcp` subcommand a preset offers read-only agents
    /// (set by the command line, never by a file).
    #[serde(skip)]
    pub sandbox_program: Option<PathBuf>,
    /// What a run's agents may spend and how often they may be called (`--max-cost`,
    /// `--max-calls`; set by the command line, never by a file), the same for every loop.
    #[serde(skip)]
    pub limits: Limits,
}

/// The operator's caps on one run of a loop, checked by [`Agents`] around every call.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits {
    /// USD the agents may spend, as their CLIs price it (Claude Code reports a cost;
    /// Codex does not); checked after each call.
    pub max_cost: Option<f64>,
    /// Agent calls the run may make in all, retries included.
    pub max_calls: Option<u32>,
}

/// `[plan_review]` in `reviewhost.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanReviewSettings {
    /// Reviews a plan may get, the first one included (seed 002's `review_max_cycles`).
    pub max_cycles: Option<u32>,
}

/// `[plan_gate]` in `reviewhost.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanGateSettings {
    /// `ask` (seed 004's S03 and D11, the default: a person answers the overviewer's
    /// open clarifying questions before the author revises), `block` (they keep the
    /// overviewer at REVISE and go to the author unanswered) or `inform` (as tugplug
    /// later shipped: they are context).
    pub questions: Option<String>,
}

/// `[run]` in `reviewhost.toml`: grants of host programs to command checks. `reviewhost
/// run` reads it from the operator's own file only (`--config`, or the user's
/// configuration directory), never from the repository under review.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSettings {
    /// Programs granted by name, found on `PATH` when the run starts: `--allow-program`.
    #[serde(default)]
    pub allow_programs: Vec<String>,
    /// Directories granted programs may read besides the system ones: a toolchain that
    /// lives elsewhere (`~/.rustup`, `~/.nvm`, a virtualenv).
    #[serde(default)]
    pub toolchain_dirs: Vec<PathBuf>,
    /// Names of the operator's environment variables passed to granted programs (all
    /// others are cleared).
    #[serde(default)]
    pub program_env: Vec<String>,
    /// Memory each granted process may hold (`RLIMIT_DATA`), e.g. `"2GiB"`; default
    /// 1 GiB.
    #[serde(default)]
    pub program_memory: Option<String>,
    /// The confinement granted programs run under: `bwrap` or `landlock`. Unset, the
    /// machine's probe chooses (bwrap where user namespaces work, else Landlock).
    #[serde(default)]
    pub confinement: Option<ConfinementKind>,
}

/// `[run] confinement` in `reviewhost.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConfinementKind {
    Bwrap,
    Landlock,
}

/// What an agent is run with, after the per-agent overrides.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// With a preset: the program (and its first arguments); else the whole argv.
    pub command: Vec<String>,
    pub preset: Option<Preset>,
    pub format: ResponseFormat,
    pub timeout: Duration,
    pub max_turns: Option<u32>,
}

/// Largest agent configuration file read.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

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
        let text = match read_text(&Base::Ambient, path, MAX_CONFIG_BYTES) {
            Ok(text) => text,
            Err(HostReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound && !required => {
                return Ok(Config::default());
            }
            Err(HostReadError::Io(source)) => return Err(ConfigError::Read { path: path.into(), source }),
            Err(other) => {
                return Err(ConfigError::Read { path: path.into(), source: std::io::Error::other(other.to_string()) });
            }
        };
        let config: Config =
            toml::from_str(&text).map_err(|e| ConfigError::Invalid { path: path.into(), message: e.to_string() })?;
        for (name, settings) in
            std::iter::once(("agent", &config.agent)).chain(config.agents.iter().map(|(n, s)| (n.as_str(), s)))
        {
            let invalid = |message: String| Err(ConfigError::Invalid { path: path.into(), message });
            if settings.command.as_ref().is_some_and(|c| c.is_empty()) {
                return invalid(format!("[{name}] command: must name a program (an argv array, not empty)"));
            }
            if let (Some(preset), Some(format)) = (settings.preset, settings.format)
                && format != preset.format()
            {
                return invalid(format!(
                    "[{name}] format: the {} preset reads its CLI's own output; remove `format`",
                    preset.name()
                ));
            }
            if settings.max_turns == Some(0) {
                return invalid(format!("[{name}] max_turns: must be at least 1"));
            }
        }
        Ok(config)
    }

    /// The settings for agent `name`, or an error naming what is missing.
    pub fn resolve(&self, name: &str) -> Result<Resolved, String> {
        let own = self.agents.get(name);
        // A per-agent preset brings its own program unless that table names one: the
        // shared `[agent] command` may be another CLI's argv, placeholders and all.
        let (preset, command) = match own.and_then(|s| s.preset) {
            Some(preset) => (Some(preset), own.and_then(|s| s.command.clone())),
            None => (self.agent.preset, own.and_then(|s| s.command.clone()).or_else(|| self.agent.command.clone())),
        };
        let command = command.or_else(|| preset.map(|p| vec![p.program().to_string()])).ok_or_else(|| {
            format!(
                "no command for agent '{name}': set [agent] command = [...] or [agent] preset = \"claude-code\" \
                 or \"codex\" in the {CONFIG_FILE} in use, or run `reviewhost init` (see docs/review-loop.md)"
            )
        })?;
        let format = own.and_then(|s| s.format).or(self.agent.format);
        if let (Some(preset), Some(format)) = (preset, format)
            && format != preset.format()
        {
            return Err(format!(
                "agent '{name}': the {} preset reads its CLI's own output; remove `format` from {CONFIG_FILE}",
                preset.name()
            ));
        }
        Ok(Resolved {
            command,
            preset,
            format: preset.map(Preset::format).or(format).unwrap_or_default(),
            timeout: own.and_then(|s| s.timeout).or(self.agent.timeout).unwrap_or(DEFAULT_TIMEOUT),
            max_turns: own.and_then(|s| s.max_turns).or(self.agent.max_turns),
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

/// Set when the operator interrupts (the CLI's Ctrl-C handler): a running agent is
/// killed with its process group, and no agent is started again.
pub static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// One finished call.
#[derive(Debug, Clone)]
pub struct Answer {
    pub text: String,
    pub duration: Duration,
    pub exit: i32,
    /// What the call used, when the CLI says ([`ResponseFormat::ClaudeJson`],
    /// [`ResponseFormat::CodexJson`]).
    pub usage: Option<Usage>,
    /// Tools the agent tried and was refused (it was not offered or not permitted them).
    pub refused: Vec<String>,
}

/// Most bytes of an agent's stdout kept (the rest is read and dropped, so the agent is
/// never blocked on a full pipe): the first ones of a text answer, the last ones of a
/// CLI's JSON output, whose answer and usage come last. stderr keeps its last
/// [`MAX_STDERR_BYTES`].
pub const MAX_STDOUT_BYTES: usize = 64 << 20;
const MAX_STDERR_BYTES: usize = 64 << 10;

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
    let argv = match settings.preset {
        Some(preset) => {
            let max_turns = settings.max_turns.unwrap_or_else(|| preset::default_max_turns(definition.role));
            let mut argv = settings.command.clone();
            let sandbox = config.sandbox_program.as_deref();
            argv.extend(preset.args(definition, root, system.path(), max_turns, sandbox));
            argv
        }
        None => substitute(&settings.command, definition, system.path()),
    };

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
        let tail = settings.format != ResponseFormat::Text;
        std::thread::spawn(move || read_capped(pipe.as_mut(), MAX_STDOUT_BYTES, tail))
    };
    let stderr_reader = {
        let mut pipe = child.stderr.take();
        std::thread::spawn(move || read_capped(pipe.as_mut(), MAX_STDERR_BYTES, true))
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if interrupted() => {
                // SAFETY: signalling the child's own process group, which it leads.
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                let _ = child.wait();
                return Err(AgentError::Cancelled { agent });
            }
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
    let reply = match settings.format {
        ResponseFormat::Text => None,
        ResponseFormat::ClaudeJson => Some(reply::claude(&stdout)),
        ResponseFormat::CodexJson => Some(reply::codex(&stdout)),
    };
    if !status.success() {
        return Err(match reply {
            Some(Ok(Reply { failure: Some(reason), .. })) => AgentError::Reported { agent, code, reason },
            _ => AgentError::Exit { agent, code, stderr },
        });
    }
    let Some(reply) = reply else {
        return Ok(Answer { text: stdout, duration, exit: code, usage: None, refused: Vec::new() });
    };
    let reply = reply.map_err(|reason| AgentError::Response { agent: agent.clone(), reason })?;
    if let Some(reason) = reply.failure {
        return Err(AgentError::Response { agent, reason });
    }
    if settings.preset.is_some()
        && let Some(offered) = &reply.offered
    {
        let given = |t: &str| definition.tools.iter().any(|d| d == t) || preset::SANDBOX_TOOLS.contains(&t);
        let extra: Vec<&str> = offered.iter().map(String::as_str).filter(|t| !given(t)).collect();
        if !extra.is_empty() {
            return Err(AgentError::Response {
                agent,
                reason: format!("the CLI offered tools its definition does not give it: {}", extra.join(", ")),
            });
        }
    }
    let text = reply.answer.expect("a reply without a failure has an answer");
    Ok(Answer { text, duration, exit: code, usage: reply.usage, refused: reply.refused })
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
    /// What the calls used and were refused since the loop last took it.
    pub ledger: std::sync::Mutex<Ledger>,
    /// `--max-cost`: USD the review may spend; checked after each call.
    pub max_cost: Option<f64>,
    /// `--max-calls`: agent calls the loop may make in all, retries included.
    pub max_calls: Option<u32>,
}

/// An agent call in which the agent tried tools it was refused.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Refusal {
    pub agent: String,
    pub tools: Vec<String>,
}

/// What a loop's agent calls used and were refused, since the loop last took it
/// ([`Agents::take_ledger`]).
#[derive(Debug, Default)]
pub struct Ledger {
    pub usage: Option<Usage>,
    pub refused: Vec<Refusal>,
    /// USD spent before (earlier passes), for `--max-cost`.
    pub spent_before: f64,
    /// Agent calls started by this loop (kept across [`Agents::take_ledger`]).
    pub calls: u32,
}

impl Ledger {
    /// USD spent so far: before, plus what these calls cost as far as reported.
    fn spent(&self) -> f64 {
        self.spent_before + self.usage.as_ref().and_then(|u| u.cost_usd).unwrap_or(0.0)
    }
}

impl<'a> Agents<'a> {
    /// A loop's agents, with nothing spent yet, capped by the operator's
    /// [`Config::limits`]. A cancel request left from before the run (or shipped by the
    /// repository) is dropped: only one made while the run goes on cancels it.
    pub fn new(
        config: &'a Config,
        definitions: &'a [Definition],
        root: &'a Path,
        workspace: &'a Workspace,
        budget: usize,
    ) -> Agents<'a> {
        workspace.take_cancel();
        Agents {
            config,
            definitions,
            root,
            workspace,
            budget,
            ledger: std::sync::Mutex::new(Ledger::default()),
            max_cost: config.limits.max_cost,
            max_calls: config.limits.max_calls,
        }
    }
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

    /// What the calls used and were refused since the last take; the cost carries over.
    pub fn take_ledger(&self) -> Ledger {
        let mut ledger = self.ledger.lock().expect("no panics while held");
        let spent = ledger.spent();
        let calls = ledger.calls;
        std::mem::replace(&mut *ledger, Ledger { spent_before: spent, calls, ..Ledger::default() })
    }

    /// Books a finished call: its usage, its refusals (with an `agent_refused` event), and
    /// whether the review's spending has now passed `--max-cost`.
    fn book(&self, d: &Definition, pass: u32, answer: &Answer) -> Result<(), AgentError> {
        let mut ledger = self.ledger.lock().expect("no panics while held");
        if let Some(usage) = &answer.usage {
            ledger.usage = Some(Usage::sum(ledger.usage.take(), usage));
        }
        if !answer.refused.is_empty() {
            let _ = self.workspace.event(&Event::AgentRefused { pass, agent: &d.name, tools: &answer.refused });
            ledger.refused.push(Refusal { agent: d.name.clone(), tools: answer.refused.clone() });
        }
        let spent = ledger.spent();
        match self.max_cost {
            Some(limit) if spent > limit => Err(AgentError::CostLimit { agent: d.name.clone(), spent, limit }),
            _ => Ok(()),
        }
    }

    /// One call of agent `d` with `prompt`, between its start and end events (an event
    /// that cannot be written does not stop the call).
    pub fn call(&self, d: &Definition, pass: u32, prompt: &str) -> Result<String, AgentError> {
        if interrupted() || self.workspace.take_cancel() {
            return Err(AgentError::Cancelled { agent: d.name.clone() });
        }
        {
            let mut ledger = self.ledger.lock().expect("no panics while held");
            if let Some(limit) = self.max_calls.filter(|&limit| ledger.calls >= limit) {
                return Err(AgentError::CallLimit { agent: d.name.clone(), limit });
            }
            ledger.calls += 1;
        }
        let _ = self.workspace.event(&Event::AgentStart { pass, agent: &d.name, prompt_bytes: prompt.len() });
        let started = Instant::now();
        // A writing agent must leave alone what makes git run commands (super::gitdir).
        let seal = preset::writes(d.role).then(|| Seal::take(self.root));
        let result = call(self.config, d, self.root, prompt).and_then(|answer| {
            match seal.map(|seal| seal.changed(&Seal::take(self.root))) {
                Some(paths) if !paths.is_empty() => Err(AgentError::GitTampered { agent: d.name.clone(), paths }),
                _ => Ok(answer),
            }
        });
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
                usage: a.usage.as_ref(),
            },
            Err(e) => Event::AgentEnd {
                pass,
                agent,
                ok: false,
                exit: match e {
                    AgentError::Exit { code, .. } | AgentError::Reported { code, .. } => Some(*code),
                    _ => None,
                },
                duration_ms: ms,
                response_bytes: None,
                error: Some(e.to_string()),
                usage: None,
            },
        };
        let _ = self.workspace.event(&end);
        let answer = result?;
        self.book(d, pass, &answer)?;
        Ok(answer.text)
    }
}

/// `command` with its placeholders filled in. An argument that is only a placeholder
/// whose value is empty (`{model}` of a definition without a model) is dropped, and so
/// is the flag before it: `--model ""` would reach the API as an invalid model.
fn substitute(command: &[String], definition: &Definition, system_prompt_file: &Path) -> Vec<String> {
    let values = [
        ("{system_prompt_file}", system_prompt_file.to_string_lossy().into_owned()),
        ("{tools}", definition.tools.join(",")),
        ("{model}", definition.model.clone()),
        ("{agent}", definition.name.clone()),
    ];
    let mut argv: Vec<String> = Vec::with_capacity(command.len());
    for arg in command {
        if values.iter().any(|(key, value)| arg == key && value.is_empty()) {
            if argv.len() > 1 && argv.last().is_some_and(|flag| flag.starts_with('-')) {
                argv.pop();
            }
            continue;
        }
        argv.push(values.iter().fold(arg.clone(), |acc, (key, value)| acc.replace(key, value)));
    }
    argv
}

/// Reads `pipe` to its end, keeping at most `cap` bytes: the first ones, or with `tail`
/// the last ones.
fn read_capped(pipe: Option<&mut impl Read>, cap: usize, tail: bool) -> String {
    let mut kept = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    if let Some(pipe) = pipe {
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    kept.extend_from_slice(&chunk[..n]);
                    if kept.len() > cap {
                        if tail {
                            kept.drain(..kept.len() - cap);
                        } else {
                            kept.truncate(cap);
                        }
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_placeholders_drop_their_flag() {
        let mut d = super::super::definitions::load(&[]).unwrap().remove(0);
        d.model = String::new();
        let argv = |d: &Definition, command: &[&str]| {
            let command: Vec<String> = command.iter().map(|s| s.to_string()).collect();
            substitute(&command, d, Path::new("/s.md")).join(" ")
        };
        assert_eq!(argv(&d, &["a", "--model", "{model}", "-s", "{system_prompt_file}"]), "a -s /s.md");
        assert_eq!(argv(&d, &["a", "{model}", "x"]), "a x");
        assert_eq!(argv(&d, &["a", "--model={model}"]), "a --model=");
        d.model = "opus".into();
        assert_eq!(argv(&d, &["a", "--model", "{model}"]), "a --model opus");
    }

    #[test]
    fn presets_supply_program_and_format() {
        let config: Config =
            toml::from_str("[agent]\npreset = \"codex\"\n[agents.implementer]\nmax_turns = 9\n").unwrap();
        let r = config.resolve("implementer").unwrap();
        assert_eq!((r.command, r.format, r.max_turns), (vec!["codex".to_string()], ResponseFormat::CodexJson, Some(9)));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("r.toml");
        std::fs::write(&file, "[agent]\npreset = \"claude-code\"\nformat = \"text\"\n").unwrap();
        assert!(Config::load(&file, true).unwrap_err().to_string().contains("remove `format`"));
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
