//! Which assertions a run runs: `--only ID`, `--filter REGEX` on ids, and
//! `--changed-since REF`, the assertions whose scope touches a file changed since REF.
//!
//! An assertion's scope is what it reads: the `path` of a file check, the `paths` of a
//! custom validator, the path operands of a command (the words that name a file or a
//! directory of the root). An assertion whose scope cannot be determined (a command
//! that names no path of the root, a custom validator without `paths`, a type reviewhost
//! does not know) always runs: skipping it could hide a failure.

use std::collections::BTreeSet;
use std::path::Path;

use crate::assertion::{AssertionsFile, Kind};
use crate::hostgit::{GitError, HostGit};

/// What the operator selected.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// `--only`: these ids (each must exist).
    pub only: Vec<String>,
    /// `--filter`: ids that match.
    pub filter: Option<regex::Regex>,
    /// `--changed-since`: the files changed (relative to the root).
    pub changed: Option<Vec<String>>,
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SelectError {
    #[error("--only {0}: no assertion has this id")]
    UnknownId(String),
    #[error("--changed-since {reference}: {reason}")]
    Git { reference: String, reason: String },
}

impl Selection {
    /// Whether nothing narrows the run.
    pub fn is_all(&self) -> bool {
        self.only.is_empty() && self.filter.is_none() && self.changed.is_none()
    }

    /// The ids of `file` this selection runs.
    pub fn ids(&self, file: &AssertionsFile, root: &Path) -> Result<BTreeSet<String>, SelectError> {
        for id in &self.only {
            if !file.assertions().iter().any(|a| &a.id == id) {
                return Err(SelectError::UnknownId(id.clone()));
            }
        }
        Ok(file
            .assertions()
            .iter()
            .filter(|a| self.only.is_empty() || self.only.contains(&a.id))
            .filter(|a| self.filter.as_ref().is_none_or(|re| re.is_match(&a.id)))
            .filter(|a| match &self.changed {
                None => true,
                Some(changed) => match scope(&a.kind, root) {
                    None => true,
                    Some(paths) => paths.iter().any(|p| touches(p, changed)),
                },
            })
            .map(|a| a.id.clone())
            .collect())
    }
}

/// The paths an assertion reads, relative to the root, or `None` when that cannot be
/// told.
fn scope(kind: &Kind, root: &Path) -> Option<Vec<String>> {
    let clean = |p: &str| p.trim_start_matches("./").trim_start_matches('/').trim_end_matches('/').to_string();
    match kind {
        Kind::FileExists { path } | Kind::FileContent { path, .. } => Some(vec![clean(path)]),
        Kind::Custom { paths: Some(paths), .. } => Some(paths.iter().map(|p| clean(p)).collect()),
        Kind::Command { command } => {
            let operands: Vec<String> = command
                .split(|c: char| c.is_whitespace() || matches!(c, ';' | '|' | '&' | '(' | ')'))
                .map(|w| w.trim_matches(|c| c == '"' || c == '\''))
                .filter(|w| !w.is_empty() && !w.starts_with('-'))
                .filter(|w| {
                    let relative = w.trim_start_matches('/');
                    !relative.contains("..") && root.join(relative).exists()
                })
                .map(clean)
                .collect();
            (!operands.is_empty()).then_some(operands)
        }
        Kind::Custom { paths: None, .. } | Kind::Unknown => None,
    }
}

/// Whether `path` (a file or a directory; empty is the whole root) is or contains one of
/// `changed`.
fn touches(path: &str, changed: &[String]) -> bool {
    path.is_empty() || path == "." || changed.iter().any(|c| c == path || c.starts_with(&format!("{path}/")))
}

/// The files changed since `reference` in the git repository at `root`: committed,
/// staged, unstaged and untracked, relative to the root. git runs with reviewhost's
/// private git directory ([`HostGit`]): nothing the repository configures runs.
pub fn changed_since(root: &Path, reference: &str) -> Result<Vec<String>, SelectError> {
    let error = |e: GitError| SelectError::Git { reference: reference.to_string(), reason: e.to_string() };
    HostGit::temporary(root).and_then(|git| git.changed_since(reference)).map_err(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_touches_what_is_under_it() {
        let changed = vec!["src/a.rs".to_string(), "docs/x.md".to_string()];
        assert!(touches("src", &changed) && touches("src/a.rs", &changed) && touches("", &changed));
        assert!(!touches("sr", &changed) && !touches("src/b.rs", &changed));
    }
}
