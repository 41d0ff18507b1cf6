//! The `files` interface of `wit/check.wit`: whole-file reads and directory listings for
//! the built-in checks.
//!
//! Grepping a tree through WASI costs, per file, an open, a stat, a host call and a
//! zeroed 64 KiB buffer per 64 KiB read, and a close, and per directory entry a `stat`
//! (WASI's `read-directory` reports each entry's type from a `stat`); here a file is
//! one call that reads it into a buffer of its exact size with one `read`, and a
//! directory is one call whose entry types come from the directory itself. Both keep
//! WASI's guarantees and add two:
//!
//! - paths resolve inside the root with cap-std's resolver (the one WASI uses): `..`
//!   past the root, absolute symlinks and symlinks leading out are refused;
//! - nothing is written: files and directories are opened read-only;
//! - a special file is never read, and opening one cannot block: the open is
//!   non-blocking (a FIFO without a writer opens at once) and anything but a regular
//!   file is refused after the open, on the descriptor, so a swap between a check and
//!   the open cannot slip one through;
//! - a file larger than the check's memory limit is refused before it is read.
//!
//! Only a built-in check seeing the whole root gets it; a custom validator reads through
//! WASI, within its `paths`, and every call here is refused.

use std::io;
use std::path::Path;
use std::sync::Arc;

use cap_primitives::fs::{OpenOptions, OpenOptionsExt};

use super::bindings::builtin::reviewhost::check::files::{DirEntry, EntryKind, Host, ReadError};
use super::evaluate::HostState;
use super::handle::DirHandle;
use super::host_read::{Cut, read_whole};
use reviewhost_prefilter::{Index, NeedleSet};

/// The root a store may read whole files from.
pub(crate) struct Files {
    /// The root as opened when the run began.
    root: Arc<DirHandle>,
    /// Largest file read, in bytes.
    max_bytes: u64,
    /// The run's first pass over the files its searches read ([`super::prefilter`]).
    prefilter: Option<Arc<Index>>,
    /// The needle sets this store's searches asked for, numbered by position.
    sets: Vec<NeedleSet>,
}

impl Files {
    pub(crate) fn new(root: Arc<DirHandle>, max_bytes: u64, prefilter: Option<Arc<Index>>) -> Files {
        Files { root, max_bytes, prefilter, sets: Vec::new() }
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, ReadError> {
        self.read_stamped(path).map(|(data, _)| data)
    }

    /// The whole file and its metadata, taken on the open descriptor.
    pub(crate) fn read_stamped(&self, path: &str) -> Result<(Vec<u8>, std::fs::Metadata), ReadError> {
        bounded(path)?;
        let max_bytes = self.max_bytes;
        let mut options = OpenOptions::new();
        options.read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
        let file = cap_primitives::fs::open(self.root.file(), relative(path), &options).map_err(refusal)?;
        let meta = file.metadata().map_err(refusal)?;
        if meta.is_dir() {
            return Err(ReadError::IsDirectory);
        }
        if !meta.is_file() {
            return Err(ReadError::NotRegularFile);
        }
        if meta.len() > max_bytes {
            return Err(ReadError::TooLarge);
        }
        let data = read_whole(&file, meta.len(), max_bytes).map_err(|e| match e {
            Cut::TooLarge => ReadError::TooLarge,
            Cut::Io(e) => refusal(e),
        })?;
        Ok((data, meta))
    }

    /// The stamp of what is at `path` now, for the first pass's question "is this still
    /// the file you read?": one `fstatat` from the root, a final symlink not followed.
    /// Unlike a read it does not resolve the path inside the root (cap-std's resolver
    /// opens every directory on the way, several times the cost): nothing is read, and a
    /// path an intermediate symlink leads elsewhere names another inode, which never
    /// equals the stamp the pass recorded inside the root, so the answer is "read it",
    /// and the read is refused as ever.
    /// Whether the entry at `path` is itself a symlink (the last component not followed).
    pub(crate) fn is_symlink(&self, path: &str) -> bool {
        rustix::fs::statat(self.root.file(), relative(path), rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|stat| rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Symlink)
    }

    pub(crate) fn stamp(&self, path: &str) -> Option<reviewhost_prefilter::Stamp> {
        let stat = rustix::fs::statat(self.root.file(), relative(path), rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
        Some(reviewhost_prefilter::Stamp {
            device: stat.st_dev,
            inode: stat.st_ino,
            len: u64::try_from(stat.st_size).ok()?,
            modified: (stat.st_mtime, i64::try_from(stat.st_mtime_nsec).ok()?),
            changed: (stat.st_ctime, i64::try_from(stat.st_ctime_nsec).ok()?),
        })
    }

    /// The permission bits of what is at `path`, resolved inside the root as a read is
    /// (cap-std's resolver: nothing outside the root is ever stat-ed), the final symlink
    /// followed or not.
    fn mode(&self, path: &str, follow: bool) -> Result<u32, ReadError> {
        use cap_primitives::fs::{FollowSymlinks, MetadataExt};
        bounded(path)?;
        // `link/` and `link/.` name what the link leads to, as `lstat` reads them; cap-std
        // takes a single name's trailing `/` away and would answer for the link itself.
        let follow = follow || path.ends_with('/') || path.ends_with("/.") || relative(path) == Path::new(".");
        let follow = if follow { FollowSymlinks::Yes } else { FollowSymlinks::No };
        let meta = cap_primitives::fs::stat(self.root.file(), relative(path), follow).map_err(refusal)?;
        Ok(meta.mode() & 0o7777)
    }

    pub(crate) fn list_dir(&self, path: &str) -> Result<Vec<Result<DirEntry, ReadError>>, ReadError> {
        bounded(path)?;
        let max_bytes = self.max_bytes;
        let entries = cap_primitives::fs::read_dir(self.root.file(), relative(path)).map_err(refusal)?;
        let mut list = Vec::new();
        // The listing is built on the host, outside the check's memory limit: a directory
        // whose listing would not fit in the check's memory is refused as a file would be.
        let mut bytes = 0u64;
        for entry in entries {
            bytes += std::mem::size_of::<DirEntry>() as u64 + entry.as_ref().map_or(0, |e| e.file_name().len() as u64);
            if bytes > max_bytes {
                return Err(ReadError::TooLarge);
            }
            list.push(entry.map_err(refusal).and_then(|entry| {
                let mut kind = entry.file_type().map_err(refusal)?;
                if !(kind.is_file() || kind.is_dir() || kind.is_symlink()) {
                    // A filesystem that records no type (DT_UNKNOWN): ask the entry itself,
                    // without following it.
                    kind = entry.metadata().map_err(refusal)?.file_type();
                }
                let kind = if kind.is_file() {
                    EntryKind::File
                } else if kind.is_dir() {
                    EntryKind::Directory
                } else if kind.is_symlink() {
                    EntryKind::Symlink
                } else {
                    EntryKind::Other
                };
                // No path in the sandbox can name it (paths are strings): EILSEQ, in the C
                // library's words, after the name escaped, so a tool can say which it is.
                let name = entry.file_name().into_string().map_err(|name| {
                    ReadError::Other(format!("{}: Invalid or incomplete multibyte or wide character", escaped(&name)))
                })?;
                Ok(DirEntry { name, kind })
            }));
        }
        Ok(list)
    }
}

/// `name` printable, as GNU tools quote a name in a diagnostic: a byte that is not UTF-8
/// or a control character as a `\ooo` octal escape, a backslash doubled.
fn escaped(name: &std::ffi::OsStr) -> String {
    use std::fmt::Write;
    let mut text = String::new();
    let octal = |text: &mut String, bytes: &[u8]| bytes.iter().for_each(|b| _ = write!(text, "\\{b:03o}"));
    for chunk in std::os::unix::ffi::OsStrExt::as_bytes(name).utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => text.push_str("\\\\"),
                c if c.is_control() => octal(&mut text, c.encode_utf8(&mut [0; 4]).as_bytes()),
                c => text.push(c),
            }
        }
        octal(&mut text, chunk.invalid());
    }
    text
}

/// `path` (absolute inside the root, or relative to it) relative to the root.
fn relative(path: &str) -> &Path {
    let relative = path.trim_start_matches('/');
    Path::new(if relative.is_empty() { "." } else { relative })
}

/// Longest path asked for, in bytes: the kernel's `PATH_MAX` less its NUL. The kernel
/// refuses longer ones itself, but where `openat2` is missing cap-std resolves a path
/// step by step, with a descriptor and memory per component and no bound of its own.
const MAX_PATH: usize = 4095;

fn bounded(path: &str) -> Result<(), ReadError> {
    if path.len() > MAX_PATH {
        return Err(ReadError::Other("File name too long".into()));
    }
    Ok(())
}

/// The refusal the guest sees for an I/O error, with the C library's words for the rest.
fn refusal(error: io::Error) -> ReadError {
    match error.kind() {
        io::ErrorKind::NotFound => ReadError::NotFound,
        io::ErrorKind::PermissionDenied => ReadError::NotPermitted,
        io::ErrorKind::IsADirectory => ReadError::IsDirectory,
        io::ErrorKind::NotADirectory => ReadError::NotDirectory,
        _ => {
            let text = error.to_string();
            ReadError::Other(text.split(" (os error").next().unwrap_or(&text).to_string())
        }
    }
}

impl Files {
    pub(super) fn needle_set(&mut self, needles: &[String]) -> Option<u32> {
        let set = self.prefilter.as_ref()?.needle_set(needles)?;
        // A search asks once; a store that asks without end is refused more numbers.
        if self.sets.len() >= MAX_NEEDLE_SETS {
            return None;
        }
        self.sets.push(set);
        u32::try_from(self.sets.len() - 1).ok()
    }

    pub(super) fn cannot_match(&self, set: u32, path: &str) -> bool {
        let (Some(index), Some(set)) = (&self.prefilter, self.sets.get(set as usize)) else { return false };
        index.cannot_match(set, path, |key| self.stamp(key))
    }
}

/// Needle sets one store may hold: far more than the searches of one command.
const MAX_NEEDLE_SETS: usize = 4096;

impl Host for HostState {
    fn read(&mut self, path: String) -> Result<Vec<u8>, ReadError> {
        match &mut self.files {
            Some(files) => files.read(&path),
            None => Err(ReadError::NotPermitted),
        }
    }

    fn list_dir(&mut self, path: String) -> Result<Vec<Result<DirEntry, ReadError>>, ReadError> {
        match &mut self.files {
            Some(files) => files.list_dir(&path),
            None => Err(ReadError::NotPermitted),
        }
    }

    fn mode(&mut self, path: String, follow: bool) -> Result<u32, ReadError> {
        match &self.files {
            Some(files) => files.mode(&path, follow),
            None => Err(ReadError::NotPermitted),
        }
    }

    fn needle_set(&mut self, needles: Vec<String>) -> Option<u32> {
        self.files.as_mut()?.needle_set(&needles)
    }

    fn cannot_match(&mut self, set: u32, path: String) -> bool {
        self.files.as_ref().is_some_and(|files| files.cannot_match(set, &path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name that is not UTF-8 is an error in its place, naming it escaped.
    #[test]
    fn an_undecodable_name_is_escaped_in_its_error() {
        use std::os::unix::ffi::OsStrExt;
        assert_eq!(escaped(std::ffi::OsStr::from_bytes(b"prod\xff.pem")), "prod\\377.pem");
        assert_eq!(escaped(std::ffi::OsStr::from_bytes(b"a\\b\n\xc3\xa9")), "a\\\\b\\012\u{e9}");
    }

    /// `mode` of `link/` and `link/.` is the target's, as `lstat` reads a trailing slash
    /// (cap-std answered for the link itself); a path past `PATH_MAX` is refused before
    /// any resolution.
    #[test]
    fn modes_follow_a_trailing_slash_and_paths_are_bounded() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("inner")).unwrap();
        std::fs::set_permissions(dir.path().join("inner"), std::fs::Permissions::from_mode(0o700)).unwrap();
        std::os::unix::fs::symlink("inner", dir.path().join("link")).unwrap();
        let files = Files::new(Arc::new(DirHandle::open_ambient(dir.path()).unwrap()), 1 << 20, None);
        assert_eq!(files.mode("link", false).ok(), Some(0o777));
        for path in ["link/", "link/.", "./link/", "link"] {
            assert_eq!(files.mode(path, path == "link").ok(), Some(0o700), "{path}");
        }
        let long = "a/".repeat(3000);
        assert!(matches!(files.mode(&long, true), Err(ReadError::Other(m)) if m == "File name too long"));
        assert!(matches!(files.read(&long), Err(ReadError::Other(m)) if m == "File name too long"));
        assert!(matches!(files.list_dir(&long), Err(ReadError::Other(m)) if m == "File name too long"));
    }

    /// A listing is built on the host: one that would not fit in the check's memory is
    /// refused rather than allocated.
    #[test]
    fn a_listing_larger_than_the_memory_limit_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..100 {
            std::fs::write(dir.path().join(format!("file-with-a-long-name-{i:04}")), "").unwrap();
        }
        let names = |files: &mut Files| files.list_dir("/").map(|list| list.len());
        let root = || Arc::new(DirHandle::open_ambient(dir.path()).unwrap());
        assert!(matches!(names(&mut Files::new(root(), 1 << 20, None)), Ok(100)));
        assert!(matches!(names(&mut Files::new(root(), 2_000, None)), Err(ReadError::TooLarge)));
    }
}
