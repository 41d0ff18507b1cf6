//! References: `HEAD`, loose refs under `refs/` and `packed-refs`, read as files (gix's
//! ref store maps a large `packed-refs` into memory, which WASI cannot do).

use gix::ObjectId;
use std::path::{Path, PathBuf};

/// How many symbolic refs are followed before giving up (git: 5).
const MAX_SYMREF_DEPTH: usize = 5;

pub struct Refs {
    /// The worktree's git directory (its `HEAD`).
    git_dir: PathBuf,
    /// The common directory (`refs/`, `packed-refs`).
    common: PathBuf,
    packed: Vec<(String, ObjectId)>,
}

/// What a ref holds.
pub enum Target {
    Id(ObjectId),
    Symbolic(String),
}

impl Refs {
    pub fn open(git_dir: &Path, common: &Path) -> Refs {
        let mut packed = Vec::new();
        if let Ok(text) = std::fs::read_to_string(common.join("packed-refs")) {
            for line in text.lines() {
                if line.starts_with('#') || line.starts_with('^') {
                    continue;
                }
                if let Some((hex, name)) = line.split_once(' ')
                    && let Ok(id) = ObjectId::from_hex(hex.as_bytes())
                {
                    packed.push((name.to_string(), id));
                }
            }
        }
        Refs { git_dir: git_dir.to_path_buf(), common: common.to_path_buf(), packed }
    }

    /// The raw content of the ref `name` (a full name: `HEAD`, `refs/heads/main`).
    pub fn raw(&self, name: &str) -> Option<Target> {
        if name.split('/').any(|part| part.is_empty() || part == "." || part == "..") {
            return None;
        }
        let per_worktree =
            !name.starts_with("refs/") || name.starts_with("refs/bisect/") || name.starts_with("refs/worktree/");
        let dir = if per_worktree { &self.git_dir } else { &self.common };
        if let Ok(text) = std::fs::read_to_string(dir.join(name)) {
            let text = text.trim_end();
            if let Some(target) = text.strip_prefix("ref: ") {
                return Some(Target::Symbolic(target.trim().to_string()));
            }
            return ObjectId::from_hex(text.get(..40)?.as_bytes()).ok().map(Target::Id);
        }
        self.packed.iter().find(|(n, _)| n == name).map(|(_, id)| Target::Id(*id))
    }

    /// The id a full ref name leads to, following symbolic refs.
    pub fn resolve_full(&self, name: &str) -> Option<ObjectId> {
        let mut name = name.to_string();
        for _ in 0..MAX_SYMREF_DEPTH {
            match self.raw(&name)? {
                Target::Id(id) => return Some(id),
                Target::Symbolic(next) => name = next,
            }
        }
        None
    }

    /// The full name of the ref a short name means, by git's search order, and its id.
    pub fn dwim(&self, short: &str) -> Option<(String, ObjectId)> {
        let candidates = [
            short.to_string(),
            format!("refs/{short}"),
            format!("refs/tags/{short}"),
            format!("refs/heads/{short}"),
            format!("refs/remotes/{short}"),
            format!("refs/remotes/{short}/HEAD"),
        ];
        for (i, full) in candidates.iter().enumerate() {
            // Only names in all capitals (HEAD, FETCH_HEAD) are looked up at the top.
            if i == 0 && !full.starts_with("refs/") && !full.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
                continue;
            }
            if let Some(id) = self.resolve_full(full) {
                return Some((full.clone(), id));
            }
        }
        None
    }

    /// The branch `HEAD` is on (`refs/heads/main`), None when detached.
    pub fn head_name(&self) -> Option<String> {
        match self.raw("HEAD")? {
            Target::Symbolic(name) => Some(name),
            Target::Id(_) => None,
        }
    }

    /// Every ref under `refs/` with its id, in name order.
    pub fn all(&self) -> Vec<(String, ObjectId)> {
        let mut out: Vec<(String, ObjectId)> = Vec::new();
        let mut stack = vec![("refs".to_string(), self.common.join("refs"))];
        while let Some((name, path)) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&path) else { continue };
            for e in entries.flatten() {
                let child = format!("{name}/{}", e.file_name().to_string_lossy());
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push((child, e.path()));
                } else if let Some(id) = self.resolve_full(&child) {
                    out.push((child, id));
                }
            }
        }
        for (name, id) in &self.packed {
            if !out.iter().any(|(n, _)| n == name) {
                out.push((name.clone(), *id));
            }
        }
        out.sort();
        out
    }
}

/// A full ref name as git shortens it (`refs/heads/main` → `main`).
pub fn shorten(full: &str) -> &str {
    for prefix in ["refs/heads/", "refs/tags/", "refs/remotes/", "refs/"] {
        if let Some(rest) = full.strip_prefix(prefix) {
            return rest;
        }
    }
    full
}
