//! The sandbox's view of paths: a virtual absolute path (`/src/main.rs`) inside the root,
//! mapped to the real path to open.
//!
//! In the component the root *is* `/` (WASI preopen), so the mapping is the identity. In
//! native tests the root is a temporary directory, so the same program code runs in
//! both. The lexical `..` handling here never climbs above `/`: like the kernel, `/..` is
//! `/`. What the filesystem itself refuses (symlinks leading out) comes back as an
//! `io::Error` from WASI.

use std::io;
use std::path::{Path, PathBuf};

/// Where programs run: the root on the host and the current directory inside it.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The real directory that is `/` to the programs (`/` in the component).
    pub root: PathBuf,
    /// The current directory, virtual and absolute: `/` or `/web/src`.
    pub cwd: String,
    /// The root's absolute paths on the host ([`reviewhost_protocol`'s `root_paths`]): a
    /// path under one of them names the same place under `/`.
    pub host_roots: Vec<String>,
    /// The run's shared first pass over the files searched, outside the component (in
    /// the component it is the host's, through the `files` interface).
    pub prefilter: Option<std::sync::Arc<dyn Prefilter>>,
}

/// The shared first pass of a run's searches (`reviewhost-prefilter`), as a program
/// asks it: [`Ctx::needle_set`], [`Ctx::cannot_match`].
pub trait Prefilter: std::fmt::Debug + Send + Sync {
    fn needle_set(&self, needles: &[String]) -> Option<u32>;
    /// `path` is relative to the root.
    fn cannot_match(&self, set: u32, path: &str) -> bool;
}

impl Ctx {
    pub fn new(root: impl Into<PathBuf>) -> Ctx {
        Ctx { root: root.into(), cwd: "/".into(), host_roots: Vec::new(), prefilter: None }
    }

    /// This context, where a path under one of `host_roots` (the root's own absolute
    /// paths on the host) means that path under `/`.
    pub fn with_host_roots(mut self, host_roots: Vec<String>) -> Ctx {
        self.host_roots = host_roots.into_iter().filter(|r| r.starts_with('/') && r != "/").collect();
        self
    }

    /// The virtual absolute path of `path` (relative to `cwd`, or absolute), normalised:
    /// no `.`, no `..`, no trailing slash, never above `/`.
    pub fn virtual_path(&self, path: &str) -> String {
        let path = self.unaliased(path);
        let joined = if path.starts_with('/') { path.to_string() } else { format!("{}/{}", self.cwd, path) };
        let mut parts: Vec<&str> = Vec::new();
        for part in joined.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                p => parts.push(p),
            }
        }
        format!("/{}", parts.join("/"))
    }

    /// `path` with a leading host root (see [`Ctx::with_host_roots`]) replaced by `/`.
    fn unaliased<'p>(&self, path: &'p str) -> std::borrow::Cow<'p, str> {
        for host_root in &self.host_roots {
            let host_root = host_root.trim_end_matches('/');
            if let Some(rest) = path.strip_prefix(host_root)
                && (rest.is_empty() || rest.starts_with('/'))
            {
                return format!("/{}", rest.trim_start_matches('/')).into();
            }
        }
        path.into()
    }

    /// Whether `path` names `/dev/null`, the one special file programs may read (it is
    /// empty): `uniq /dev/null`, `grep -f /dev/null`. A repository cannot plant its own
    /// `dev/null`: the name is answered here and never opened.
    pub fn is_null_device(&self, path: &str) -> bool {
        self.virtual_path(path) == "/dev/null"
    }

    /// The real path to open for `path`.
    pub fn real(&self, path: &str) -> PathBuf {
        let v = self.virtual_path(path);
        let rel = v.trim_start_matches('/');
        if rel.is_empty() { self.root.clone() } else { self.root.join(rel) }
    }

    /// The whole file at `real` (from [`Ctx::real`] or a walk under it).
    ///
    /// In the component this is one call to the host's `files` interface instead of
    /// WASI's open, stat, 64 KiB reads and close: most of the time a grep of a tree
    /// spends is here. The host refuses the same paths WASI would (outside the root)
    /// and special files; errors come back with the kinds `std::fs` gives.
    pub fn read(&self, real: &Path) -> io::Result<Vec<u8>> {
        #[cfg(target_arch = "wasm32")]
        if let Some(path) = real.to_str() {
            return reviewhost_guest::bindings::builtin::reviewhost::check::files::read(path).map_err(read_error);
        }
        std::fs::read(real)
    }

    /// The permission bits (`st_mode & 0o7777`) of what is at `real` (from
    /// [`Ctx::real`]), the final symlink followed when `follow` is true (as `stat`) and
    /// not otherwise (as `lstat`). WASI reports none; in the component the host's `files`
    /// interface answers, resolving the path inside the root as a read does.
    pub fn mode(&self, real: &Path, follow: bool) -> io::Result<u32> {
        #[cfg(target_arch = "wasm32")]
        if let Some(path) = real.to_str() {
            return reviewhost_guest::bindings::builtin::reviewhost::check::files::mode(path, follow)
                .map_err(read_error);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let meta = if follow { std::fs::metadata(real)? } else { std::fs::symlink_metadata(real)? };
            Ok(meta.permissions().mode() & 0o7777)
        }
        #[cfg(not(unix))]
        Err(io::Error::new(io::ErrorKind::Unsupported, "permission bits are not available"))
    }

    /// `needles` (literals every match of a search contains one of) numbered for
    /// [`Ctx::cannot_match`], when the run's first pass looked for all of them.
    pub fn needle_set(&self, needles: &[String]) -> Option<u32> {
        #[cfg(target_arch = "wasm32")]
        return reviewhost_guest::bindings::builtin::reviewhost::check::files::needle_set(needles);
        #[cfg(not(target_arch = "wasm32"))]
        self.prefilter.as_ref()?.needle_set(needles)
    }

    /// Whether the file at `real` certainly holds no needle of `set` (from
    /// [`Ctx::needle_set`]): then it holds no match, and a search may take it as read and
    /// found without one. `false` means "read it".
    pub fn cannot_match(&self, set: u32, real: &Path) -> bool {
        let Some(relative) = real.strip_prefix(&self.root).ok().and_then(Path::to_str) else { return false };
        #[cfg(target_arch = "wasm32")]
        return reviewhost_guest::bindings::builtin::reviewhost::check::files::cannot_match(set, relative);
        #[cfg(not(target_arch = "wasm32"))]
        self.prefilter.as_ref().is_some_and(|p| p.cannot_match(set, relative))
    }

    /// The entries of the directory at `real`, in the order the filesystem returns them,
    /// each with its kind as the directory records it (a symlink is not followed).
    ///
    /// In the component this is one call to the host's `files` interface; through WASI a
    /// listing costs a stream and a `stat` of every entry. An entry that cannot be
    /// listed (a name that is not UTF-8) is an error in its place.
    pub fn read_dir(&self, real: &Path) -> io::Result<Vec<io::Result<DirEntry>>> {
        #[cfg(target_arch = "wasm32")]
        if let Some(path) = real.to_str() {
            use reviewhost_guest::bindings::builtin::reviewhost::check::files::{EntryKind, list_dir};
            let entries = list_dir(path).map_err(read_error)?;
            return Ok(entries
                .into_iter()
                .map(|entry| {
                    let entry = entry.map_err(read_error)?;
                    let kind = match entry.kind {
                        EntryKind::File => Kind::File,
                        EntryKind::Directory => Kind::Dir,
                        EntryKind::Symlink => Kind::Symlink,
                        EntryKind::Other => Kind::Other,
                    };
                    Ok(DirEntry { name: entry.name, kind })
                })
                .collect());
        }
        Ok(std::fs::read_dir(real)?
            .map(|entry| {
                let entry = entry?;
                let kind = Kind::from(entry.file_type()?);
                let name = entry.file_name().into_string().map_err(|_| io::Error::other(NOT_UTF8))?;
                Ok(DirEntry { name, kind })
            })
            .collect())
    }

    /// `path` as a real path (for `std::fs`) when it is already real (from a directory
    /// walk that started at `self.real(..)`), back to the name the user would see.
    /// Programs print paths the way the user wrote them, as GNU tools do: this helper is
    /// only for turning a walked real path into its virtual form.
    pub fn virtual_of_real(&self, real: &Path) -> Option<String> {
        let rel = real.strip_prefix(&self.root).ok()?;
        Some(format!("/{}", rel.to_string_lossy()))
    }
}

/// What a directory entry is, from the directory itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    /// Not followed: a program that follows symlinks asks `std::fs::metadata`.
    Symlink,
    /// A FIFO, socket or device: never opened.
    Other,
}

impl From<std::fs::FileType> for Kind {
    /// The kind of a `std::fs` file type: from `symlink_metadata` or a directory entry a
    /// symlink, from `metadata` (which follows it) what it leads to.
    fn from(kind: std::fs::FileType) -> Kind {
        if kind.is_file() {
            Kind::File
        } else if kind.is_dir() {
            Kind::Dir
        } else if kind.is_symlink() {
            Kind::Symlink
        } else {
            Kind::Other
        }
    }
}

/// One entry of [`Ctx::read_dir`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    pub kind: Kind,
}

/// The error of an entry whose name is not UTF-8: `EILSEQ` in the C library's words.
const NOT_UTF8: &str = "Invalid or incomplete multibyte or wide character";

/// A refusal of the host's `files` interface as the `io::Error` `std::fs` would give.
#[cfg(target_arch = "wasm32")]
fn read_error(e: reviewhost_guest::bindings::builtin::reviewhost::check::files::ReadError) -> io::Error {
    use reviewhost_guest::bindings::builtin::reviewhost::check::files::ReadError;
    match e {
        ReadError::NotFound => io::ErrorKind::NotFound.into(),
        ReadError::NotPermitted => io::ErrorKind::PermissionDenied.into(),
        ReadError::IsDirectory => io::ErrorKind::IsADirectory.into(),
        ReadError::NotDirectory => io::ErrorKind::NotADirectory.into(),
        ReadError::NotRegularFile => io::Error::other("Not a regular file"),
        ReadError::TooLarge => io::Error::other("File too large"),
        ReadError::Other(text) => io::Error::other(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_roots_own_host_path_means_the_root() {
        let ctx = Ctx::new("/tmp/r").with_host_roots(vec!["/home/me/project/".into(), "/".into(), "rel".into()]);
        assert_eq!(ctx.host_roots, ["/home/me/project/"], "only absolute paths other than /");
        assert_eq!(ctx.virtual_path("/home/me/project"), "/");
        assert_eq!(ctx.virtual_path("/home/me/project/src/a.rs"), "/src/a.rs");
        assert_eq!(ctx.real("/home/me/project/src"), Path::new("/tmp/r/src"));
        // Not a path under it: stays inside the sandbox as any absolute path does.
        assert_eq!(ctx.virtual_path("/home/me/project-other/x"), "/home/me/project-other/x");
        assert_eq!(ctx.virtual_path("/home/me/projectx"), "/home/me/projectx");
        assert_eq!(ctx.virtual_path("/home/me/project/../../etc"), "/etc", "never above the root");
    }

    #[test]
    fn paths_resolve_inside_the_root() {
        let mut ctx = Ctx::new("/tmp/r");
        assert_eq!(ctx.virtual_path("src/a.rs"), "/src/a.rs");
        assert_eq!(ctx.virtual_path("../../etc/passwd"), "/etc/passwd");
        assert_eq!(ctx.virtual_path("/"), "/");
        ctx.cwd = "/web".into();
        assert_eq!(ctx.virtual_path("./x/../y"), "/web/y");
        assert_eq!(ctx.virtual_path(".."), "/");
        assert_eq!(ctx.real("a"), PathBuf::from("/tmp/r/web/a"));
        assert_eq!(ctx.real("/"), PathBuf::from("/tmp/r"));
        assert!(ctx.is_null_device("../dev/null") && ctx.is_null_device("/dev//null"));
        assert!(!ctx.is_null_device("dev/null"), "relative to /web: /web/dev/null");
    }
}
