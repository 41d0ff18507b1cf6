//! A grant: a program name the operator allowed, resolved once, at start, on the
//! operator's `PATH`.
//!
//! Resolving at start means a repository cannot shadow the program later (a `./tsc` in
//! the root, a `PATH` a script changes): every invocation runs the file found here.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// A granted program: the name commands use and the file it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub name: String,
    /// Absolute, as found on `PATH` (a symlink is kept: `npx` is a link whose target
    /// decides how it runs).
    pub path: PathBuf,
}

/// Why a grant cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrantError {
    #[error("'{0}' is not a program name: a grant names a program on PATH, without a '/'")]
    NotAName(String),
    #[error("program '{0}' was not found on PATH")]
    NotFound(String),
}

/// Resolves `name` on `path_var` (the operator's `PATH`) to an absolute path.
pub fn resolve(name: &str, path_var: &OsStr) -> Result<Grant, GrantError> {
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return Err(GrantError::NotAName(name.to_string()));
    }
    // Only absolute PATH entries: a relative one (`.`, `node_modules/.bin`) would resolve
    // against wherever reviewhost was started, which may be the repository under review.
    let absolute: Vec<PathBuf> = std::env::split_paths(path_var).filter(|dir| dir.is_absolute()).collect();
    let joined = std::env::join_paths(&absolute).map_err(|_| GrantError::NotFound(name.to_string()))?;
    let cwd = Path::new("/");
    let path = which::which_in(name, Some(joined), cwd).map_err(|_| GrantError::NotFound(name.to_string()))?;
    Ok(Grant { name: name.to_string(), path })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grant_is_an_executable_on_an_absolute_path_entry() {
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("tool");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        let not_executable = dir.path().join("data");
        std::fs::write(&not_executable, "").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path_var = std::env::join_paths([Path::new("relative"), dir.path()]).unwrap();
        assert_eq!(resolve("tool", &path_var).unwrap(), Grant { name: "tool".into(), path: tool });
        assert_eq!(resolve("data", &path_var), Err(GrantError::NotFound("data".into())));
        assert_eq!(resolve("./tool", &path_var), Err(GrantError::NotAName("./tool".into())));
        assert_eq!(resolve("", &path_var), Err(GrantError::NotAName(String::new())));
    }

    #[test]
    fn a_relative_path_entry_is_never_searched() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        let tool = dir.path().join("bin/planted");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        // Whatever the current directory, `bin` is not an entry a grant resolves on.
        assert_eq!(resolve("planted", OsStr::new("bin")), Err(GrantError::NotFound("planted".into())));
    }
}
