//! Built-in ways to run the agent CLIs reviewhost knows: Claude Code and OpenAI Codex.
//!
//! A preset builds each call's argv from the agent definition, so nobody assembles the
//! flags by hand, and so the flags that keep a review safe cannot be forgotten:
//!
//! - The reviewed repository cannot configure the CLI. Claude Code in `-p` mode runs the
//!   repository's `.claude/settings.json` hooks, starts its `.mcp.json` servers and sends
//!   its `CLAUDE.md` unless given `--setting-sources user --strict-mcp-config`. Codex sends
//!   `AGENTS.md` whatever the trust (`project_doc_max_bytes=0` stops it), lists the
//!   repository's skills (`skills.include_instructions=false`), and loads
//!   `.codex/config.toml` (MCP servers, hooks) for a project the user once trusted (the
//!   inline `projects` table makes it untrusted for the call).
//! - Read-only agents (analysts) are offered exactly their tools: Claude's `--tools`
//!   (`--allowedTools` only pre-approves; every other tool stays offered), Codex's
//!   `-s read-only`. Agents that write get a mode that writes without a prompt
//!   (`--permission-mode acceptEdits`, `-s workspace-write` without `/tmp` and `$TMPDIR`).
//! - No session is kept, turns are capped per role, the definition's model is passed
//!   when it has one and its body is the system prompt.
//!
//! Each flag was measured with Claude Code 2.1.197 and Codex 0.169.0 against a fake model
//! server (`tests/agents/README.md`); the end-to-end tests run the pinned CLIs.

use std::path::Path;

use serde::Deserialize;

use super::definitions::{Definition, Role};
use super::reply::ResponseFormat;

/// An agent CLI reviewhost has a preset for (`[agent] preset = "…"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// Anthropic's Claude Code (`claude -p`).
    ClaudeCode,
    /// OpenAI's Codex (`codex exec`).
    Codex,
}

impl Preset {
    /// The name in `reviewhost.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Preset::ClaudeCode => "claude-code",
            Preset::Codex => "codex",
        }
    }

    /// The program it runs when `[agent] command` does not name another (a wrapper, a
    /// pinned install).
    pub fn program(self) -> &'static str {
        match self {
            Preset::ClaudeCode => "claude",
            Preset::Codex => "codex",
        }
    }

    /// How its stdout is read.
    pub fn format(self) -> ResponseFormat {
        match self {
            Preset::ClaudeCode => ResponseFormat::ClaudeJson,
            Preset::Codex => ResponseFormat::CodexJson,
        }
    }

    /// The arguments after the program for one call of `definition` in `root`, with its
    /// body in `system_prompt_file` and at most `max_turns` model turns (Codex has no
    /// such limit; its own timeout applies).
    ///
    /// With `sandbox` (the `reviewhost` program), a read-only agent of Claude Code is also
    /// offered the sandboxed shell and checks of `reviewhost mcp` ([`SANDBOX_TOOLS`]),
    /// started for `root` and nothing else.
    pub fn args(
        self,
        definition: &Definition,
        root: &Path,
        system_prompt_file: &Path,
        max_turns: u32,
        sandbox: Option<&Path>,
    ) -> Vec<String> {
        let writes = writes(definition.role);
        let mut args: Vec<String> = Vec::new();
        let mut push = |items: &[&str]| args.extend(items.iter().map(|s| s.to_string()));
        match self {
            Preset::ClaudeCode => {
                // The whole stream: a tool refused for not being offered shows only there.
                push(&["-p", "--output-format", "stream-json", "--verbose"]);
                // Exactly these tools are offered; an empty list offers none.
                push(&["--tools", &definition.tools.join(",")]);
                if let (false, Some(program)) = (writes, sandbox) {
                    let server = serde_json::json!({"mcpServers": {SANDBOX_SERVER: {
                        "command": program, "args": sandbox_args(root, &definition.name),
                    }}});
                    push(&["--mcp-config", &server.to_string(), "--allowedTools", &SANDBOX_TOOLS.join(",")]);
                }
                if writes {
                    push(&["--permission-mode", "acceptEdits"]);
                }
                // The repository's settings, hooks, MCP servers and CLAUDE.md stay unread.
                push(&["--setting-sources", "user", "--strict-mcp-config", "--no-session-persistence"]);
                push(&["--max-turns", &max_turns.to_string()]);
                push(&["--system-prompt-file", &system_prompt_file.to_string_lossy()]);
                if !definition.model.is_empty() {
                    push(&["--model", &definition.model]);
                }
            }
            Preset::Codex => {
                push(&["exec", "--skip-git-repo-check", "--ephemeral", "--json"]);
                push(&["-s", if writes { "workspace-write" } else { "read-only" }]);
                if writes {
                    push(&["-c", "sandbox_workspace_write.exclude_slash_tmp=true"]);
                    push(&["-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true"]);
                }
                let instructions = toml_string(&system_prompt_file.to_string_lossy());
                push(&["-c", &format!("model_instructions_file={instructions}")]);
                // AGENTS.md and the repository's skills are sent whatever the trust.
                push(&["-c", "project_doc_max_bytes=0", "-c", "skills.include_instructions=false"]);
                // A repository the user once trusted would load its .codex/config.toml.
                // An inline table: Codex splits a dotted `-c` key on every dot.
                let root_text = root.to_string_lossy().into_owned();
                let root = toml_string(&root_text);
                push(&["-c", &format!("projects={{{root}={{trust_level=\"untrusted\"}}}}")]);
                if let (false, Some(program)) = (writes, sandbox) {
                    let program = toml_string(&program.to_string_lossy());
                    let args = toml::Value::Array(
                        sandbox_args(Path::new(&root_text), &definition.name)
                            .into_iter()
                            .map(toml::Value::String)
                            .collect(),
                    );
                    push(&["-c", &format!("mcp_servers.{SANDBOX_SERVER}.command={program}")]);
                    push(&["-c", &format!("mcp_servers.{SANDBOX_SERVER}.args={args}")]);
                }
                if !definition.model.is_empty() {
                    push(&["-m", &definition.model]);
                }
                push(&["-"]);
            }
        }
        args
    }
}

/// The name of `reviewhost mcp` in the MCP configuration a preset gives.
pub const SANDBOX_SERVER: &str = "reviewhost";

/// The tools of `reviewhost mcp` as Claude Code names them (`mcp__SERVER__TOOL`).
pub const SANDBOX_TOOLS: [&str; 2] = ["mcp__reviewhost__sh", "mcp__reviewhost__check"];

/// The arguments that start `reviewhost mcp` for an agent of a review of `root`.
fn sandbox_args(root: &Path, agent: &str) -> Vec<String> {
    let root = root.to_string_lossy().into_owned();
    ["mcp", "--root", &root, "--review-events", "--agent", agent].map(str::to_string).to_vec()
}

/// Whether agents of `role` change the repository.
pub fn writes(role: Role) -> bool {
    match role {
        Role::Analyst | Role::Planner | Role::FixReviewer | Role::PlanReviewer | Role::Critic | Role::Overviewer => {
            false
        }
        Role::Implementer | Role::FixAgent | Role::Architect | Role::Author => true,
    }
}

/// Model turns an agent of `role` may take by default: an analyst reads and answers, an
/// implementer works through every finding.
pub fn default_max_turns(role: Role) -> u32 {
    match role {
        Role::Analyst | Role::Planner | Role::FixReviewer | Role::PlanReviewer | Role::Critic | Role::Overviewer => 40,
        Role::Architect | Role::Author => 60,
        Role::Implementer => 80,
        Role::FixAgent => 40,
    }
}

/// `text` as a TOML basic string, quoted and escaped (for Codex's `-c key=value`).
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::core::definitions::Source;

    fn definition(role: Role, tools: &[&str], model: &str) -> Definition {
        Definition {
            name: "a".into(),
            description: String::new(),
            tools: tools.iter().map(|t| t.to_string()).collect(),
            model: model.into(),
            role,
            track: None,
            paths: Vec::new(),
            always: false,
            body: String::new(),
            source: Source::Embedded,
            contract: None,
            completion: None,
        }
    }

    #[test]
    fn claude_analysts_are_offered_their_tools_and_read_no_project_settings() {
        let args = Preset::ClaudeCode.args(
            &definition(Role::Analyst, &["Read", "Grep"], ""),
            Path::new("/r"),
            Path::new("/t/s.md"),
            7,
            None,
        );
        let line = args.join(" ");
        assert_eq!(
            line,
            "-p --output-format stream-json --verbose --tools Read,Grep --setting-sources user --strict-mcp-config \
             --no-session-persistence --max-turns 7 --system-prompt-file /t/s.md"
        );
        let writer = Preset::ClaudeCode.args(
            &definition(Role::FixAgent, &["Read", "Edit"], "opus"),
            Path::new("/r"),
            Path::new("/t/s.md"),
            7,
            None,
        );
        assert!(writer.join(" ").contains("--tools Read,Edit --permission-mode acceptEdits"));
        assert!(writer.ends_with(&["--model".to_string(), "opus".to_string()]));
    }

    /// Which roles write is a security decision: every reviewing or planning role is
    /// read-only (its agents get the sandboxed shell, never Edit or Write).
    #[test]
    fn only_the_roles_that_change_the_repository_write() {
        let all = [
            Role::Analyst,
            Role::Implementer,
            Role::FixAgent,
            Role::Planner,
            Role::FixReviewer,
            Role::PlanReviewer,
            Role::Architect,
            Role::Author,
            Role::Critic,
            Role::Overviewer,
        ];
        let writers: Vec<&str> = all.iter().filter(|r| writes(**r)).map(|r| r.as_str()).collect();
        assert_eq!(writers, ["implementer", "fix-agent", "architect", "author"]);
    }

    #[test]
    fn only_read_only_agents_get_the_sandboxed_shell() {
        let program = Some(Path::new("/bin/reviewhost"));
        for preset in [Preset::ClaudeCode, Preset::Codex] {
            let args = |role| {
                preset.args(&definition(role, &["Read"], ""), Path::new("/r"), Path::new("/s"), 7, program).join(" ")
            };
            let analyst = args(Role::Analyst);
            assert!(analyst.contains("mcp") && analyst.contains("/bin/reviewhost"), "{analyst}");
            assert!(analyst.replace(", ", ",").contains(r#""mcp","--root","/r""#), "{analyst}");
            assert!(!args(Role::Implementer).contains("/bin/reviewhost"));
            assert!(!args(Role::FixAgent).contains("/bin/reviewhost"));
        }
        let claude = Preset::ClaudeCode
            .args(&definition(Role::Analyst, &["Read"], ""), Path::new("/r"), Path::new("/s"), 7, program)
            .join(" ");
        assert!(claude.contains("--allowedTools mcp__reviewhost__sh,mcp__reviewhost__check"), "{claude}");
    }

    #[test]
    fn codex_reads_no_project_instructions_and_writes_only_the_workspace() {
        let root = Path::new("/home/u/my.repo \"x\"");
        let analyst =
            Preset::Codex.args(&definition(Role::Analyst, &["Read"], ""), root, Path::new("/t/s.md"), 7, None);
        let line = analyst.join(" ");
        assert!(line.starts_with("exec --skip-git-repo-check --ephemeral --json -s read-only "), "{line}");
        assert!(line.contains("-c model_instructions_file=\"/t/s.md\""), "{line}");
        assert!(line.contains("-c project_doc_max_bytes=0 -c skills.include_instructions=false"), "{line}");
        // The path is one TOML key, quotes escaped, dots kept.
        assert!(line.contains(r#"-c projects={'/home/u/my.repo "x"'={trust_level="untrusted"}}"#), "{line}");
        assert!(!line.contains("-m ") && analyst.last().unwrap() == "-");
        let implementer =
            Preset::Codex.args(&definition(Role::Implementer, &[], "gpt-5.5"), root, Path::new("/t/s.md"), 7, None);
        let line = implementer.join(" ");
        assert!(line.contains("-s workspace-write -c sandbox_workspace_write.exclude_slash_tmp=true"), "{line}");
        assert!(line.contains("sandbox_workspace_write.exclude_tmpdir_env_var=true"), "{line}");
        assert!(line.ends_with("-m gpt-5.5 -"), "{line}");
    }
}
