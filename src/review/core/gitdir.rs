//! The reviewed repository's git configuration, held still while agents that write run.
//!
//! An implementer or fix-agent may write anywhere in the repository, `.git/` included,
//! and its model reads untrusted text (the repository, the analysts' findings). A prompt
//! injected there could have it set `core.fsmonitor`, a filter driver or a hook in
//! `.git/`: each is a command git runs. reviewhost's own git never reads them
//! ([`crate::hostgit`] runs git with a private git directory), but the operator runs
//! git in the checkout afterwards, outside any sandbox. So the files that make git run
//! commands are sealed before each call of a writing agent and compared after it; any
//! change aborts the pass, naming what changed, so the operator learns of it before
//! their next `git`.

use std::path::{Path, PathBuf};

/// The files under `.git/` whose contents can make git run a command.
const WATCHED_FILES: &[&str] = &["config", "info/attributes", "commondir"];
/// The most of one watched file read into its digest.
const MAX_SEALED_BYTES: u64 = 16 << 20;
/// The directories whose every entry can (hooks).
const WATCHED_DIRS: &[&str] = &["hooks"];

/// A digest of each watched file (`None`: absent), in a fixed order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seal(Vec<(PathBuf, Option<[u8; 32]>)>);

impl Seal {
    /// The watched files of `root`'s `.git` directory as they are now (nothing when `.git`
    /// is not a directory: no repository, or a worktree whose git directory is elsewhere).
    pub fn take(root: &Path) -> Seal {
        let git = root.join(".git");
        let mut entries = Vec::new();
        if !std::fs::symlink_metadata(&git).is_ok_and(|m| m.is_dir()) {
            return Seal(entries);
        }
        for file in WATCHED_FILES {
            let path = git.join(file);
            entries.push((path.clone(), digest(&path)));
        }
        for dir in WATCHED_DIRS {
            let dir = git.join(dir);
            entries.push((dir.clone(), digest(&dir)));
            let mut names: Vec<PathBuf> =
                std::fs::read_dir(&dir).into_iter().flatten().flatten().map(|e| e.path()).collect();
            names.sort();
            entries.extend(names.into_iter().map(|path| {
                let d = digest(&path);
                (path, d)
            }));
        }
        Seal(entries)
    }

    /// The watched paths that differ between `self` (before) and `after`.
    pub fn changed(&self, after: &Seal) -> Vec<PathBuf> {
        let mut changed: Vec<PathBuf> = Vec::new();
        for (path, digest) in &after.0 {
            if !self.0.iter().any(|(p, d)| p == path && d == digest) {
                changed.push(path.clone());
            }
        }
        for (path, _) in &self.0 {
            if !after.0.iter().any(|(p, _)| p == path) {
                changed.push(path.clone());
            }
        }
        changed.sort();
        changed.dedup();
        changed
    }
}

/// What identifies the entry at `path` without following it: a symlink's target, a
/// file's contents, a directory's existence and permissions.
fn digest(path: &Path) -> Option<[u8; 32]> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(path).ok()?;
    let mut hasher = blake3::Hasher::new();
    hasher.update(&meta.permissions().mode().to_le_bytes());
    if meta.file_type().is_symlink() {
        hasher.update(b"link:");
        hasher.update(std::fs::read_link(path).ok()?.as_os_str().as_encoded_bytes());
    } else if meta.is_file() {
        // Read bounded, without blocking (a FIFO swapped in after the stat) or
        // following a symlink: past the bound the size and times stand for the rest.
        use std::io::Read;
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
            .ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file() {
            return None;
        }
        let mut bytes = Vec::new();
        file.take(MAX_SEALED_BYTES).read_to_end(&mut bytes).ok()?;
        hasher.update(b"file:");
        hasher.update(&meta.len().to_le_bytes());
        if meta.len() > MAX_SEALED_BYTES {
            hasher.update(&meta.mtime_nsec().to_le_bytes()).update(&meta.mtime().to_le_bytes());
            hasher.update(&meta.ino().to_le_bytes());
        }
        hasher.update(&bytes);
    }
    Some(*hasher.finalize().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_hook_or_a_changed_config_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir_all(git.join("hooks")).unwrap();
        std::fs::write(git.join("config"), "[core]\n").unwrap();
        std::fs::write(git.join("hooks/pre-commit.sample"), "#!/bin/sh\n").unwrap();
        let before = Seal::take(dir.path());
        assert_eq!(before.changed(&Seal::take(dir.path())), Vec::<PathBuf>::new());

        std::fs::write(git.join("config"), "[core]\nfsmonitor = touch /tmp/x\n").unwrap();
        std::fs::write(git.join("hooks/post-checkout"), "#!/bin/sh\n").unwrap();
        assert_eq!(before.changed(&Seal::take(dir.path())), [git.join("config"), git.join("hooks/post-checkout")]);

        std::fs::write(git.join("config"), "[core]\n").unwrap();
        std::fs::remove_file(git.join("hooks/post-checkout")).unwrap();
        std::fs::remove_file(git.join("hooks/pre-commit.sample")).unwrap();
        std::os::unix::fs::symlink("/tmp/evil", git.join("hooks/pre-commit.sample")).unwrap();
        assert_eq!(before.changed(&Seal::take(dir.path())), [git.join("hooks/pre-commit.sample")]);
        assert_eq!(Seal::take(&dir.path().join("none")), Seal(Vec::new()));
    }
}
