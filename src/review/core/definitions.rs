//! The agents the loop drives: Markdown files with YAML front matter, the body being the
//! agent's system prompt. reviewhost embeds its own (`agents/` in the repository); a file
//! of the same name in an override directory replaces one. Which directories are read
//! (the user's, and the reviewed repository's `.reviewhost/agents/` only when the
//! operator trusts it) is decided in [`super::trust`].

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::contract::ContractSpec;
use crate::sandbox::{Base, read_text};

/// The defaults, embedded at build time.
const EMBEDDED: &[(&str, &str)] = &[
    ("principles-analyst", include_str!("../../../agents/principles-analyst.md")),
    ("ux-analyst", include_str!("../../../agents/ux-analyst.md")),
    ("docs-analyst", include_str!("../../../agents/docs-analyst.md")),
    ("implementer", include_str!("../../../agents/implementer.md")),
    ("fix-agent", include_str!("../../../agents/fix-agent.md")),
    ("plan-understand", include_str!("../../../agents/plan-understand.md")),
    ("plan-explore", include_str!("../../../agents/plan-explore.md")),
    ("plan-alternatives", include_str!("../../../agents/plan-alternatives.md")),
    ("plan-draft", include_str!("../../../agents/plan-draft.md")),
    ("plan-critique", include_str!("../../../agents/plan-critique.md")),
    ("plan-revise", include_str!("../../../agents/plan-revise.md")),
    ("fix-diff-reviewer", include_str!("../../../agents/fix-diff-reviewer.md")),
    ("plan-reviewer", include_str!("../../../agents/plan-reviewer.md")),
    ("plan-architect", include_str!("../../../agents/plan-architect.md")),
    ("plan-author", include_str!("../../../agents/plan-author.md")),
    ("plan-critic", include_str!("../../../agents/plan-critic.md")),
    ("plan-overviewer", include_str!("../../../agents/plan-overviewer.md")),
];

/// Largest definition file read (the embedded ones are a few KiB).
pub const MAX_DEFINITION_BYTES: u64 = 1 << 20;

/// Where a project's overrides live, relative to the root.
pub const OVERRIDE_DIR: &str = ".reviewhost/agents";

/// What an agent does in the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Read-only: findings plus an `## Assertions` block.
    Analyst,
    /// Write-capable: implements the open findings.
    Implementer,
    /// Write-capable: repairs failing assertions.
    FixAgent,
    /// Read-only: one phase of `reviewhost plan` (seed 003).
    Planner,
    /// Read-only: reviews a fix round's diff (seed 001).
    FixReviewer,
    /// Read-only: reviews a plan before it is executed (seed 002).
    PlanReviewer,
    /// Write-capable: revises a plan a review rejected (seed 002).
    Architect,
    /// Write-capable: writes or revises the plan of the plan gate (seed 004).
    Author,
    /// Read-only: critiques the plan of the plan gate.
    Critic,
    /// Read-only: reads the plan of the plan gate with fresh eyes.
    Overviewer,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Analyst => "analyst",
            Role::Implementer => "implementer",
            Role::FixAgent => "fix-agent",
            Role::Planner => "planner",
            Role::FixReviewer => "fix-reviewer",
            Role::PlanReviewer => "plan-reviewer",
            Role::Architect => "architect",
            Role::Author => "author",
            Role::Critic => "critic",
            Role::Overviewer => "overviewer",
        }
    }
}

/// Where a definition came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Embedded,
    /// A file in the user's configuration directory.
    User(PathBuf),
    /// A file in the reviewed repository's `.reviewhost/agents/` (read only when trusted).
    Project(PathBuf),
}

/// One agent definition.
#[derive(Debug, Clone)]
pub struct Definition {
    pub name: String,
    pub description: String,
    pub tools: Vec<String>,
    pub model: String,
    pub role: Role,
    /// Analysts: the track letter their assertion ids carry.
    pub track: Option<String>,
    /// Analysts: globs of the files the track reviews (it re-runs when one changed).
    pub paths: Vec<String>,
    /// Analysts: re-run every pass regardless of what changed.
    pub always: bool,
    pub body: String,
    pub source: Source,
    /// The output contract every answer must meet before it is used.
    pub contract: Option<ContractSpec>,
    /// The contract of an answer that ends its loop (the plan's revise phase: an answer
    /// that carries the completion promise), judged instead of `contract`.
    pub completion: Option<ContractSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    tools: Tools,
    #[serde(default)]
    model: Option<String>,
    role: Role,
    #[serde(default)]
    track: Option<String>,
    #[serde(default)]
    paths: Option<Vec<String>>,
    #[serde(default)]
    always: bool,
    #[serde(default)]
    contract: Option<ContractSpec>,
    #[serde(default)]
    completion: Option<ContractSpec>,
    /// The output contract's name (documentation for humans; the role decides parsing).
    #[serde(default)]
    #[expect(dead_code, reason = "documentation for humans in the front matter; accepted, never read")]
    output: Option<String>,
}

/// `tools: Read, Grep` or `tools: [Read, Grep]`.
#[derive(Deserialize, Default)]
#[serde(untagged)]
enum Tools {
    #[default]
    None,
    Text(String),
    List(Vec<String>),
}

#[derive(Debug, thiserror::Error)]
#[error("{origin}: {reason}")]
pub struct DefinitionError {
    origin: String,
    reason: String,
}

/// Parses one definition file's text.
pub fn parse(text: &str, source: Source, origin: &str) -> Result<Definition, DefinitionError> {
    let error = |reason: String| DefinitionError { origin: origin.to_string(), reason };
    let rest = text.strip_prefix("---\n").ok_or_else(|| error("must start with a `---` front matter line".into()))?;
    let end = rest.find("\n---\n").ok_or_else(|| error("front matter has no closing `---` line".into()))?;
    let front: FrontMatter = serde_yaml_ng::from_str(&rest[..end]).map_err(|e| error(format!("front matter: {e}")))?;
    let tools = match front.tools {
        Tools::None => Vec::new(),
        Tools::Text(text) => text.split(',').map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect(),
        Tools::List(list) => list,
    };
    if front.role == Role::Analyst && front.track.as_deref().is_none_or(str::is_empty) {
        return Err(error("front matter: an analyst needs a `track`".into()));
    }
    for (field, spec) in [("contract", &front.contract), ("completion", &front.completion)] {
        if let Some(spec) = spec {
            spec.validate().map_err(|reason| error(format!("front matter: `{field}`: {reason}")))?;
        }
    }
    Ok(Definition {
        name: front.name,
        description: front.description,
        tools,
        model: front.model.unwrap_or_default(),
        role: front.role,
        track: front.track,
        paths: front.paths.unwrap_or_else(|| vec!["**".into()]),
        always: front.always,
        body: rest[end + 5..].trim_start().to_string(),
        source,
        contract: front.contract,
        completion: front.completion,
    })
}

/// Makes the [`Source`] of a file found in an override directory: `Source::User` or
/// `Source::Project`.
pub type SourceOf = fn(PathBuf) -> Source;

/// The embedded definitions, then the `NAME.md` files of each directory of `dirs` in
/// order (a missing directory adds nothing), each file replacing the definition of the
/// same name or adding one; `source` records where a file came from.
pub fn load(dirs: &[(&Path, SourceOf)]) -> Result<Vec<Definition>, DefinitionError> {
    let mut found: Vec<Definition> = EMBEDDED
        .iter()
        .map(|(name, text)| parse(text, Source::Embedded, &format!("agents/{name}.md (embedded)")))
        .collect::<Result<_, _>>()?;
    for (dir, source) in dirs {
        let files = files(dir);
        // A repository's definitions are read by name from a handle on their directory
        // (no symlink leads out of it); the user's own may be links to anywhere.
        let base = match source(PathBuf::new()) {
            Source::Project(_) if !files.is_empty() => Some(
                Base::dir(dir)
                    .map_err(|e| DefinitionError { origin: dir.display().to_string(), reason: e.to_string() })?,
            ),
            _ => None,
        };
        for path in files {
            let read = match (&base, path.file_name()) {
                (Some(base), Some(name)) => read_text(base, Path::new(name), MAX_DEFINITION_BYTES),
                _ => read_text(&Base::Ambient, &path, MAX_DEFINITION_BYTES),
            };
            let text =
                read.map_err(|e| DefinitionError { origin: path.display().to_string(), reason: e.to_string() })?;
            let definition = parse(&text, source(path.clone()), &path.display().to_string())?;
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            if definition.name != stem {
                return Err(DefinitionError {
                    origin: path.display().to_string(),
                    reason: format!("front matter name '{}' differs from the file name '{stem}'", definition.name),
                });
            }
            match found.iter_mut().find(|d| d.name == definition.name) {
                Some(slot) => *slot = definition,
                None => found.push(definition),
            }
        }
    }
    Ok(found)
}

/// The definition files (`*.md`) in `dir`, sorted; none when it cannot be listed.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => {
            entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "md")).collect()
        }
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_definitions_parse_and_cover_every_role() {
        let all = load(&[(Path::new("/nonexistent"), Source::User)]).unwrap();
        assert_eq!(all.len(), 17);
        assert_eq!(all.iter().filter(|d| d.role == Role::Planner && d.contract.is_some()).count(), 6);
        assert_eq!(all.iter().filter(|d| d.role == Role::Analyst).count(), 3);
        assert!(all.iter().all(|d| !d.body.is_empty() && d.source == Source::Embedded));
        let tracks: Vec<_> = all.iter().filter_map(|d| d.track.clone()).collect();
        assert_eq!(tracks, ["A", "B", "C"]);
    }

    #[test]
    fn front_matter_errors_name_the_file() {
        let e = parse("no front matter", Source::Embedded, "x.md").unwrap_err().to_string();
        assert!(e.starts_with("x.md: must start"), "{e}");
        let e = parse("---\nname: a\nrole: analyst\n---\nbody", Source::Embedded, "a.md").unwrap_err().to_string();
        assert!(e.contains("needs a `track`"), "{e}");
        let d =
            parse("---\nname: a\nrole: fix-agent\ntools: Read, Edit\n---\n\nbody\n", Source::Embedded, "a.md").unwrap();
        assert_eq!((d.tools, d.body.as_str()), (vec!["Read".to_string(), "Edit".to_string()], "body\n"));
    }
}
