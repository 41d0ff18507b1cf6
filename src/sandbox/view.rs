//! What part of the root a check sees.
//!
//! A view is made once per assertion, before any check runs, and holds open directory
//! handles: the store mounts those handles, never a path looked up again by name.

use std::sync::Arc;

use super::handle::DirHandle;
use super::root::RootDir;
use reviewhost_prefilter::Index;

/// The part of the root a check sees: all of it at `/`, or only some subdirectories
/// (a `custom` assertion's `paths`), each at `/<path>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct View {
    pub(super) root: RootDir,
    /// (directory, guest path) pairs; empty means the whole root at `/`. Each directory
    /// was opened when the view was made, and is used only as that handle.
    pub(super) mounts: Vec<(Arc<DirHandle>, String)>,
    /// The run's first pass over the files its searches read, for a built-in check
    /// seeing the whole root ([`super::prefilter`]).
    pub(super) pass: Pass,
}

/// The run's first pass, the same for every view of a run: compared by address.
#[derive(Debug, Clone, Default)]
pub struct Pass(pub(super) Option<Arc<Index>>);

impl PartialEq for Pass {
    fn eq(&self, other: &Pass) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        }
    }
}

impl Eq for Pass {}

impl std::hash::Hash for Pass {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.as_ref().map(Arc::as_ptr).hash(state);
    }
}

impl View {
    /// The whole root, at `/`.
    pub fn whole(root: &RootDir) -> View {
        View { root: root.clone(), mounts: Vec::new(), pass: Pass::default() }
    }

    /// This view, with the run's first pass to answer its searches.
    pub fn with_pass(mut self, pass: Arc<Index>) -> View {
        self.pass = Pass(Some(pass));
        self
    }

    /// The root this view is of.
    pub fn root(&self) -> &RootDir {
        &self.root
    }

    /// Whether the check sees the whole root (what the `files` interface needs).
    pub fn is_whole(&self) -> bool {
        self.mounts.is_empty()
    }

    /// Only `paths` (root-relative directories), each at `/<path>`. Each is opened now,
    /// from the root's handle with cap-std's resolver (symlinks only while they stay
    /// inside the root), and the check sees that open directory: replacing it with a
    /// symlink afterwards changes nothing for this view.
    pub fn narrowed(root: &RootDir, paths: &[String]) -> Result<View, String> {
        let mut mounts = Vec::new();
        for path in paths {
            let relative = root.relative(path).map_err(|e| format!("`paths`: {e}"))?;
            let dir = root.handle().open_dir(std::path::Path::new(&relative)).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotADirectory => format!("`paths`: {path} is not a directory"),
                std::io::ErrorKind::PermissionDenied => format!("`paths`: {path} leads outside the sandbox root"),
                _ => format!("`paths`: {path}: {e}"),
            })?;
            mounts.push((Arc::new(dir), format!("/{relative}")));
        }
        Ok(View { root: root.clone(), mounts, pass: Pass::default() })
    }
}
