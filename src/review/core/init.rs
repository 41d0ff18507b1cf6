//! `reviewhost init`: a commented `reviewhost.toml` for the agent CLI at hand, so that a
//! first review needs no hand-assembled argv.

use std::path::{Path, PathBuf};

use super::preset::Preset;

/// Which configuration `init` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Starter {
    /// `[agent] preset = "…"`.
    Preset(Preset),
    /// `[agent] command = [...]` for any other program.
    Command,
}

impl Starter {
    /// The preset whose program is on `PATH` (Claude Code first), else [`Starter::Command`].
    pub fn detect() -> Starter {
        [Preset::ClaudeCode, Preset::Codex]
            .into_iter()
            .find(|p| on_path(p.program()).is_some())
            .map_or(Starter::Command, Starter::Preset)
    }

    /// The file's text.
    pub fn template(self) -> String {
        let header = "\
# reviewhost.toml: how `reviewhost review` runs its agents (docs/review-loop.md).
# Agents: the analysts principles-analyst, ux-analyst, docs-analyst; implementer;
# fix-agent (`reviewhost agents` lists them, their roles and tools).
";
        let per_agent = "
# Per agent, any of the keys above, e.g.:
# [agents.implementer]
# timeout = \"30m\"
# max_turns = 120
";
        match self {
            Starter::Preset(preset) => {
                let (what, program) = match preset {
                    Preset::ClaudeCode => (
                        "\
# The claude-code preset builds each call: analysts are offered exactly their tools
# (--tools), the implementer and fix-agent write with --permission-mode acceptEdits, and
# the reviewed repository's .claude/settings.json hooks, .mcp.json servers and CLAUDE.md
# are never read (--setting-sources user --strict-mcp-config).",
                        "claude",
                    ),
                    Preset::Codex => (
                        "\
# The codex preset builds each call: analysts run with -s read-only, the implementer and
# fix-agent with -s workspace-write (not /tmp), and the reviewed repository's AGENTS.md,
# skills and .codex/config.toml are never read.",
                        "codex",
                    ),
                };
                format!(
                    "{header}
[agent]
{what}
preset = \"{name}\"
# The program, when the `{program}` on PATH is not the one to use:
# command = [\"/opt/{program}/bin/{program}\"]
# How long one call may take, and how many model turns (default: 40 for an
# analyst or the fix-agent, 80 for the implementer).
timeout = \"15m\"
# max_turns = 40
{per_agent}",
                    name = preset.name(),
                )
            }
            Starter::Command => format!(
                "{header}
[agent]
# Any program that reads its prompt on stdin and prints its answer on stdout. In the
# argv: {{system_prompt_file}} (the definition's body), {{tools}} (comma-separated),
# {{model}}, {{agent}}. reviewhost starts it directly, never through a shell.
command = [\"my-agent\", \"--system-prompt-file\", \"{{system_prompt_file}}\", \"--tools\", \"{{tools}}\"]
# text: stdout is the answer; claude-json or codex-json: the CLI's JSON output.
format = \"text\"
timeout = \"15m\"
{per_agent}"
            ),
        }
    }
}

/// `program` found in a directory of `$PATH`.
pub fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Why `init` wrote nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InitError {
    #[error("{}: exists; reviewhost init does not replace a configuration (pass --force to)", path.display())]
    Exists { path: PathBuf },
    #[error("{}: cannot write: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

/// Writes `text` to `path` atomically, never through a symlink, creating its directory.
/// An existing file is kept unless `force`.
pub fn write(path: &Path, text: &str, force: bool) -> Result<(), InitError> {
    let failed = |source| InitError::Write { path: path.to_path_buf(), source };
    if !force && std::fs::symlink_metadata(path).is_ok() {
        return Err(InitError::Exists { path: path.to_path_buf() });
    }
    std::fs::create_dir_all(crate::write::parent_dir(path)).map_err(failed)?;
    let (dir, name) = crate::write::open_parent(path).map_err(failed)?;
    crate::write::write_atomically(&dir, name, |out| out.write_all(text.as_bytes())).map_err(failed)
}
