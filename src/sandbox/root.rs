//! The repository root a check sees, and how host paths map into it.
//!
//! Path fields in assertions are translated lexically, without touching the filesystem:
//! the host never opens, stats or canonicalizes a path an assertion names. Whatever is
//! left (symlinks) is decided inside the sandbox, where a path leading outside the root
//! is refused.

use std::hash::{Hash, Hasher};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::handle::DirHandle;

/// The directory every check sees read-only at `/`.
#[derive(Debug, Clone)]
pub struct RootDir {
    /// As given, made absolute.
    given: PathBuf,
    /// With symlinks resolved (the operator's choice of root is trusted).
    canonical: PathBuf,
    /// The root, opened once: every check sees this directory, whatever its name
    /// comes to mean during the run.
    handle: Arc<DirHandle>,
}

impl PartialEq for RootDir {
    fn eq(&self, other: &RootDir) -> bool {
        self.handle == other.handle
    }
}

impl Eq for RootDir {}

impl Hash for RootDir {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.handle.hash(state);
    }
}

/// A path that lies outside the root: the assertion fails without anything being read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Outside the sandbox root: {0} (not read)")]
pub struct OutsideRoot(pub String);

impl RootDir {
    /// Opens `path` as a root. It must be an existing directory.
    pub fn new(path: &Path) -> io::Result<RootDir> {
        let canonical = path.canonicalize()?;
        let handle = Arc::new(DirHandle::open_ambient(&canonical)?);
        let given = std::path::absolute(path)?;
        Ok(RootDir { given, canonical, handle })
    }

    /// The root on the host (for messages and for what the operator names; checks see
    /// [`RootDir::handle`]).
    pub fn path(&self) -> &Path {
        &self.canonical
    }

    /// The root's absolute paths on the host, as given and with symlinks resolved: what
    /// an analyst working in this checkout would have written.
    pub fn host_paths(&self) -> Vec<String> {
        let mut paths: Vec<String> =
            [&self.given, &self.canonical].iter().filter_map(|p| p.to_str().map(String::from)).collect();
        paths.dedup();
        paths
    }

    /// The root as opened when the run began.
    pub(crate) fn handle(&self) -> &Arc<DirHandle> {
        &self.handle
    }

    /// Whether `path` (absolute or relative to the working directory; symlinks resolved
    /// as far as it exists) is the root or lies inside it.
    pub fn contains(&self, path: &Path) -> bool {
        let Ok(absolute) = std::path::absolute(path) else { return true };
        // The longest existing ancestor, resolved: the rest cannot hold a symlink yet.
        let mut existing = absolute.as_path();
        let mut rest = Vec::new();
        let resolved = loop {
            match existing.canonicalize() {
                Ok(resolved) => break resolved,
                Err(_) => match (existing.parent(), existing.file_name()) {
                    (Some(parent), Some(name)) => {
                        rest.push(name.to_owned());
                        existing = parent;
                    }
                    _ => return true,
                },
            }
        };
        let full = rest.iter().rev().fold(resolved, |acc, name| acc.join(name));
        let full = normalize(&full).unwrap_or(full);
        [&self.canonical, &self.given].into_iter().any(|root| full.starts_with(root) || absolute.starts_with(root))
    }

    /// Translates a `path` field into the root-relative form a check receives (`.` for
    /// the root itself). Relative paths are relative to the root; absolute paths must lie
    /// inside it (under the root as given or as canonicalized); `..` may not climb out.
    pub fn relative(&self, path: &str) -> Result<String, OutsideRoot> {
        let outside = || OutsideRoot(path.to_string());
        let p = Path::new(path);
        let parts = if p.is_absolute() {
            let normal = normalize(p).ok_or_else(outside)?;
            let inside = [&self.canonical, &self.given].into_iter().find_map(|root| normal.strip_prefix(root).ok());
            inside.ok_or_else(outside)?.to_path_buf()
        } else {
            normalize(p).ok_or_else(outside)?
        };
        let parts: Vec<_> = parts.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        Ok(if parts.is_empty() { ".".into() } else { parts.join("/") })
    }
}

/// Resolves `.` and `..` lexically. For a relative path, `None` when `..` climbs above
/// the start; for an absolute one, `..` at `/` stays at `/` (as the kernel does).
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    let mut depth = 0usize;
    for component in path.components() {
        match component {
            Component::Prefix(_) => return None,
            Component::RootDir => out.push("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                if depth == 0 {
                    if path.is_absolute() {
                        continue;
                    }
                    return None;
                }
                out.pop();
                depth -= 1;
            }
            Component::Normal(name) => {
                out.push(name);
                depth += 1;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        let root = RootDir::new(dir.path()).unwrap();
        assert_eq!(root.relative("src/main.rs").unwrap(), "src/main.rs");
        assert_eq!(root.relative("./src/../README.md").unwrap(), "README.md");
        assert_eq!(root.relative(".").unwrap(), ".");
        assert_eq!(root.relative("../x"), Err(OutsideRoot("../x".into())));
        assert_eq!(root.relative("a/../../x"), Err(OutsideRoot("a/../../x".into())));
    }

    #[test]
    fn absolute_paths_must_be_under_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = RootDir::new(dir.path()).unwrap();
        let inside = root.path().join("docs/a.md");
        assert_eq!(root.relative(inside.to_str().unwrap()).unwrap(), "docs/a.md");
        assert_eq!(root.relative(root.path().to_str().unwrap()).unwrap(), ".");
        assert!(root.relative("/etc/passwd").is_err());
        let sneaky = format!("{}/../outside", root.path().display());
        assert!(root.relative(&sneaky).is_err());
        // A sibling whose name merely starts with the root's name is outside.
        let sibling = format!("{}-other/x", root.path().display());
        assert!(root.relative(&sibling).is_err());
    }
}
