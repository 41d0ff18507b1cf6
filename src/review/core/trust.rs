//! Whose configuration a review runs with: the operator's, and the reviewed
//! repository's own only when the operator says so.
//!
//! A reviewed repository is untrusted input, like the assertions its analysts write. Its
//! `reviewhost.toml` names the programs reviewhost starts on this machine, outside any
//! sandbox, and its `.reviewhost/agents/` can give an agent other tools (an analyst
//! `Bash` and `Write`), another prompt or another model. So neither is read unless the
//! operator trusts the repository: `--trust-repo-config`, or
//! `REVIEWHOST_TRUST_REPO_CONFIG=1` in the environment. Without that, a repository file
//! that would have been read is named in a warning and ignored.
//!
//! | | configuration: the first found | agent definitions: each later one replaces |
//! |---|---|---|
//! | 1 | `--config PATH` (must exist) | the embedded ones |
//! | 2 | the repository's `reviewhost.toml`, when trusted | `USER/agents/*.md` |
//! | 3 | `USER/reviewhost.toml` | the repository's `.reviewhost/agents/*.md`, when trusted |
//!
//! `USER` is `$REVIEWHOST_CONFIG_DIR`, else the user's configuration directory +
//! `reviewhost` (`~/.config/reviewhost` on Linux). A file the operator names with
//! `--config` is the operator's choice wherever it lies, in the repository too.
//!
//! What this does not do: it does not confine the agents. An agent runs as the operator,
//! with whatever its CLI lets it do; `{tools}` is only as good as the CLI that honours
//! it. It also does not hide the repository's content from the agents: a README can
//! still say "ignore your instructions" (the answers are checked by the parse gate, the
//! assertions run in the sandbox).

use std::path::{Path, PathBuf};

use super::agent::{CONFIG_FILE, Config, ConfigError};
use super::definitions::{self, Definition, DefinitionError, OVERRIDE_DIR, Source, SourceOf};

/// The environment variable that trusts the reviewed repository's configuration, like
/// `--trust-repo-config` (`1`, `true`, `yes` or `on`).
pub const TRUST_ENV: &str = "REVIEWHOST_TRUST_REPO_CONFIG";

/// The environment variable naming the user's configuration directory (tests, and
/// operators who keep theirs elsewhere).
pub const CONFIG_DIR_ENV: &str = "REVIEWHOST_CONFIG_DIR";

/// Where a review's configuration and agent definitions may come from: the operator's
/// choices.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// `--config PATH`: the operator's file, which must exist.
    pub config: Option<PathBuf>,
    /// The user's configuration directory ([`Sources::user_dir`]).
    pub user_dir: Option<PathBuf>,
    /// Whether the reviewed repository's `reviewhost.toml` and `.reviewhost/agents/`
    /// may be read.
    pub trust_repo: bool,
}

impl Sources {
    /// The operator's `--config` and trust, with the user's configuration directory.
    pub fn new(config: Option<PathBuf>, trust_repo: bool) -> Sources {
        Sources { config, user_dir: Sources::user_dir(), trust_repo }
    }

    /// `$REVIEWHOST_CONFIG_DIR`, else the user's configuration directory + `reviewhost`.
    pub fn user_dir() -> Option<PathBuf> {
        match std::env::var_os(CONFIG_DIR_ENV) {
            Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
            _ => dirs::config_dir().map(|d| d.join("reviewhost")),
        }
    }
}

/// What a review runs with.
#[derive(Debug, Clone)]
pub struct Setup {
    pub config: Config,
    /// The configuration file read, if any.
    pub config_file: Option<PathBuf>,
    pub definitions: Vec<Definition>,
    /// One line each (without a `warning:` prefix) for the repository files not read.
    pub warnings: Vec<String>,
    /// The user's configuration directory searched.
    pub user_dir: Option<PathBuf>,
    /// Whether the repository's `reviewhost.toml` exists and was not read.
    pub repo_config_ignored: bool,
}

impl Setup {
    /// Refuses a setup in which some agent has no command: the review would abort at
    /// that agent's first call, so it does not start.
    pub fn check_commands(&self) -> Result<(), SetupError> {
        match self.definitions.iter().find(|d| self.config.resolve(&d.name).is_err()) {
            None => Ok(()),
            Some(d) => Err(SetupError::NoCommand {
                agent: d.name.clone(),
                config_file: self.config_file.clone(),
                user_dir: self.user_dir.clone(),
                repo_ignored: self.repo_config_ignored,
            }),
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Definition(#[from] DefinitionError),
    /// No configuration read names a command for this agent: the review would abort at
    /// its first call, so it does not start.
    #[error("no command for agent '{agent}': {}", no_command(config_file.as_deref(), user_dir.as_deref(), *repo_ignored))]
    NoCommand { agent: String, config_file: Option<PathBuf>, user_dir: Option<PathBuf>, repo_ignored: bool },
}

fn no_command(config_file: Option<&Path>, user_dir: Option<&Path>, repo_ignored: bool) -> String {
    let mut text = match config_file {
        Some(file) => format!("{} sets no [agent] preset or command = [...] for it", shown(file)),
        None => {
            let user = user_dir.map(|d| format!(" or in {}", shown(&d.join(CONFIG_FILE)))).unwrap_or_default();
            format!(
                "no configuration was read; set [agent] preset or command = [...] in a file named with --config PATH{user}"
            )
        }
    };
    if repo_ignored {
        text.push_str(&format!(
            " (the repository's own {CONFIG_FILE} was not read: it is used only with --trust-repo-config)"
        ));
    }
    text.push_str("; `reviewhost init` writes a starting one (see docs/review-loop.md)");
    text
}

/// The configuration and agent definitions for reviewing `root`, and a warning for each
/// repository source left unread (print them, then [`Setup::check_commands`]).
pub fn load(root: &Path, sources: &Sources) -> Result<Setup, SetupError> {
    let mut warnings = Vec::new();
    let repo_config = root.join(CONFIG_FILE);
    let repo_config_ignored = sources.config.is_none() && !sources.trust_repo && exists(&repo_config);
    let config_file = match (&sources.config, &sources.user_dir) {
        (Some(path), _) => Some(path.clone()),
        (None, _) if sources.trust_repo && exists(&repo_config) => Some(repo_config.clone()),
        (None, Some(dir)) if exists(&dir.join(CONFIG_FILE)) => Some(dir.join(CONFIG_FILE)),
        _ => None,
    };
    if repo_config_ignored {
        warnings.push(format!(
            "not reading {}: a reviewed repository's own configuration names the commands reviewhost runs on \
             this machine; use it with --trust-repo-config (or {TRUST_ENV}=1) only if you trust this repository, \
             or name your own with --config PATH",
            shown(&repo_config)
        ));
    }
    let config = match &config_file {
        Some(path) => Config::load(path, true)?,
        None => Config::default(),
    };
    let (definitions, mut more) = load_definitions(root, sources)?;
    warnings.append(&mut more);
    Ok(Setup { config, config_file, definitions, warnings, user_dir: sources.user_dir.clone(), repo_config_ignored })
}

/// The agent definitions for reviewing `root` (embedded, the user's, the repository's
/// when trusted), and a warning when the repository has some that are not read.
pub fn load_definitions(root: &Path, sources: &Sources) -> Result<(Vec<Definition>, Vec<String>), DefinitionError> {
    let repo_dir = root.join(OVERRIDE_DIR);
    let user_dir = sources.user_dir.as_ref().map(|d| d.join("agents"));
    let mut dirs: Vec<(&Path, SourceOf)> = Vec::new();
    if let Some(dir) = &user_dir {
        dirs.push((dir, Source::User));
    }
    let mut warnings = Vec::new();
    if sources.trust_repo {
        dirs.push((&repo_dir, Source::Project));
    } else {
        let ignored = definitions::files(&repo_dir).len();
        if ignored > 0 {
            warnings.push(format!(
                "not reading {ignored} agent definition(s) in {}: a reviewed repository's own definitions can give \
                 an agent other tools and instructions; use them with --trust-repo-config (or {TRUST_ENV}=1) only \
                 if you trust this repository",
                shown(&repo_dir)
            ));
        }
    }
    Ok((definitions::load(&dirs)?, warnings))
}

/// Whether `path` names anything (a dangling symlink too: it is still the repository's).
fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// A path for a warning, made inert (the root is the operator's, but the rest of a path
/// may come from the repository).
fn shown(path: &Path) -> String {
    crate::report::inert(&path.display().to_string()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_with_config() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE), "[agent]\ncommand = [\"repo-agent\"]\n").unwrap();
        std::fs::create_dir_all(dir.path().join(OVERRIDE_DIR)).unwrap();
        std::fs::write(
            dir.path().join(OVERRIDE_DIR).join("ux-analyst.md"),
            "---\nname: ux-analyst\ntools: Bash, Write\nrole: analyst\ntrack: B\n---\nbody\n",
        )
        .unwrap();
        dir
    }

    fn user(command: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE), format!("[agent]\ncommand = [\"{command}\"]\n")).unwrap();
        dir
    }

    #[test]
    fn an_untrusted_repository_is_not_read_and_named_in_warnings() {
        let repo = repo_with_config();
        let home = user("user-agent");
        let sources = Sources { config: None, user_dir: Some(home.path().into()), trust_repo: false };
        let setup = load(repo.path(), &sources).unwrap();
        setup.check_commands().unwrap();
        assert_eq!(setup.config.resolve("ux-analyst").unwrap().command, ["user-agent"]);
        let ux = setup.definitions.iter().find(|d| d.name == "ux-analyst").unwrap();
        assert_eq!((&ux.source, ux.tools.join(",")), (&Source::Embedded, "Read,Grep,Glob".to_string()));
        assert_eq!(setup.warnings.len(), 2, "{:?}", setup.warnings);
        assert!(setup.warnings[0].contains("reviewhost.toml") && setup.warnings[0].contains("--trust-repo-config"));
        assert!(
            setup.warnings[1].contains("1 agent definition(s)") && setup.warnings[1].contains(".reviewhost/agents")
        );
    }

    #[test]
    fn a_trusted_repository_is_read() {
        let repo = repo_with_config();
        let home = user("user-agent");
        let sources = Sources { config: None, user_dir: Some(home.path().into()), trust_repo: true };
        let setup = load(repo.path(), &sources).unwrap();
        assert_eq!(setup.config.resolve("fix-agent").unwrap().command, ["repo-agent"]);
        let ux = setup.definitions.iter().find(|d| d.name == "ux-analyst").unwrap();
        assert_eq!(ux.tools, ["Bash", "Write"]);
        assert!(setup.warnings.is_empty());
    }

    #[test]
    fn the_operators_config_wins_and_no_config_refuses_to_start() {
        let repo = repo_with_config();
        let mine = user("mine");
        let sources = Sources { config: Some(mine.path().join(CONFIG_FILE)), user_dir: None, trust_repo: true };
        assert_eq!(load(repo.path(), &sources).unwrap().config.resolve("x").unwrap().command, ["mine"]);

        let empty = tempfile::tempdir().unwrap();
        let sources = Sources { config: None, user_dir: Some(empty.path().into()), trust_repo: false };
        let setup = load(repo.path(), &sources).unwrap();
        assert_eq!(setup.warnings.len(), 2, "{:?}", setup.warnings);
        let e = setup.check_commands().unwrap_err().to_string();
        assert!(e.starts_with("no command for agent 'principles-analyst': no configuration was read"), "{e}");
        assert!(e.contains("was not read: it is used only with --trust-repo-config"), "{e}");
    }
}
