//! The repository as a validator sees it: walking, capped reads, globs.
//!
//! In the component the root is `/` (read-only, nothing outside it exists); in native
//! tests it is a fixture directory. Every path a validator handles is root-relative with
//! `/` separators, the form evidence wants.

use std::io::Read;
use std::path::PathBuf;

use globset::{GlobSet, GlobSetBuilder};

/// Bytes [`Root::read`] returns at most unless told otherwise: a validator reads
/// source files, and a 64 MiB file is not one (the sandbox's memory limit is 256 MiB).
pub const DEFAULT_READ_LIMIT: u64 = 16 * 1024 * 1024;

/// The repository root.
#[derive(Debug, Clone)]
pub struct Root {
    dir: PathBuf,
}

impl Root {
    /// The sandbox's root, `/`: what [`crate::export_validator!`] passes.
    pub fn sandbox() -> Root {
        Root { dir: "/".into() }
    }

    /// A fixture directory, for native tests.
    pub fn at(dir: impl Into<PathBuf>) -> Root {
        Root { dir: dir.into() }
    }

    /// The real path of a root-relative path.
    pub fn path(&self, relative: &str) -> PathBuf {
        let relative = relative.trim_start_matches('/');
        if relative.is_empty() || relative == "." { self.dir.clone() } else { self.dir.join(relative) }
    }

    /// Reads a regular file of at most `limit` bytes. Special files (FIFOs, devices) are
    /// refused without being opened: opening a FIFO would block until the deadline.
    pub fn read(&self, relative: &str, limit: u64) -> Result<Vec<u8>, String> {
        let path = self.path(relative);
        let meta = std::fs::metadata(&path).map_err(|e| format!("{relative}: {e}"))?;
        if !meta.is_file() {
            return Err(format!("{relative}: not a regular file"));
        }
        if meta.len() > limit {
            return Err(format!("{relative}: {} bytes, more than the {limit}-byte limit", meta.len()));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        std::fs::File::open(&path)
            .and_then(|f| f.take(limit).read_to_end(&mut bytes))
            .map_err(|e| format!("{relative}: {e}"))?;
        Ok(bytes)
    }

    /// [`Root::read`] with [`DEFAULT_READ_LIMIT`], as UTF-8 text.
    pub fn read_to_string(&self, relative: &str) -> Result<String, String> {
        let bytes = self.read(relative, DEFAULT_READ_LIMIT)?;
        String::from_utf8(bytes).map_err(|_| format!("{relative}: not UTF-8 text"))
    }

    /// The root-relative directories this check can see: `["."]` for the whole root, or
    /// the directories an assertion's `paths` narrowed the view to (then `/` itself
    /// cannot be listed).
    pub fn visible(&self) -> Vec<String> {
        #[cfg(target_arch = "wasm32")]
        if self.dir == std::path::Path::new("/") {
            let mut dirs: Vec<String> = wasip2::filesystem::preopens::get_directories()
                .into_iter()
                .map(|(_, name)| name.trim_matches('/').to_string())
                .collect();
            if dirs.iter().any(String::is_empty) || dirs.is_empty() {
                return vec![".".into()];
            }
            dirs.sort();
            return dirs;
        }
        vec![".".into()]
    }

    /// The regular files under `under` (root-relative, `.` for everything visible),
    /// sorted by path. With `gitignore`, `.gitignore`/`.ignore` files and hidden entries
    /// are honoured as ripgrep does; without, every file is listed. Symlinks are not
    /// followed.
    pub fn files(&self, under: &str, gitignore: bool) -> Vec<String> {
        let starts = match under.trim_start_matches('/') {
            "" | "." => self.visible(),
            dir => vec![dir.to_string()],
        };
        let mut files: Vec<String> = starts.iter().flat_map(|start| self.walk(start, gitignore)).collect();
        files.sort();
        files.dedup();
        files
    }

    fn walk(&self, under: &str, gitignore: bool) -> Vec<String> {
        let start = self.path(under);
        ignore::WalkBuilder::new(&start)
            .standard_filters(gitignore)
            .require_git(false)
            .follow_links(false)
            .build()
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
            .filter_map(|entry| {
                let relative = entry.path().strip_prefix(&self.dir).ok()?;
                Some(relative.to_string_lossy().replace('\\', "/"))
            })
            .collect()
    }

    /// The files under `under` whose root-relative path matches any of `globs`
    /// (`**/*.rs`, `src/*.toml`; `*` does not cross `/`).
    pub fn files_matching(&self, under: &str, globs: &[String], gitignore: bool) -> Result<Vec<String>, String> {
        let set = glob_set(globs)?;
        Ok(self.files(under, gitignore).into_iter().filter(|p| set.is_match(p)).collect())
    }
}

/// Compiles globs with `*` not crossing `/` (as in `.gitignore`), with an error that
/// names the bad pattern.
pub fn glob_set(globs: &[String]) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let glob = globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("invalid glob '{glob}': {e}"))?;
        builder.add(glob);
    }
    builder.build().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_reads_and_matches() {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in
            [("src/a.rs", "fn a() {}"), ("src/b.txt", "b"), ("target/x.rs", "x"), (".gitignore", "target/\n")]
        {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let root = Root::at(dir.path());
        assert_eq!(root.files(".", true), ["src/a.rs", "src/b.txt"]);
        assert_eq!(root.files(".", false), [".gitignore", "src/a.rs", "src/b.txt", "target/x.rs"]);
        assert_eq!(root.files_matching(".", &["**/*.rs".into()], true).unwrap(), ["src/a.rs"]);
        assert_eq!(root.read_to_string("src/a.rs").unwrap(), "fn a() {}");
        assert!(root.read("src/a.rs", 3).unwrap_err().contains("limit"));
        assert!(root.read("src", 100).unwrap_err().contains("not a regular file"));
        assert!(glob_set(&["[".into()]).unwrap_err().contains("invalid glob '['"));
    }
}
