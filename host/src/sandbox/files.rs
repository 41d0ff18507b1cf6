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

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use cap_primitives::fs::{OpenOptions, OpenOptionsExt};

use super::HostState;
use super::bindings::builtin::reviewhost::check::files::{DirEntry, EntryKind, Host, ReadError};

/// The root a store may read whole files from.
pub(super) struct Files {
    root: PathBuf,
    /// Opened on the first read: most checks read nothing through this interface.
    dir: Option<File>,
    /// Largest file read, in bytes.
    max_bytes: u64,
}

impl Files {
    pub(super) fn new(root: &Path, max_bytes: u64) -> Files {
        Files { root: root.to_path_buf(), dir: None, max_bytes }
    }

    /// The root, opened on first use.
    fn dir(&mut self) -> Result<&File, ReadError> {
        match &mut self.dir {
            Some(dir) => Ok(dir),
            empty => Ok(empty.insert(
                cap_primitives::fs::open_ambient_dir(&self.root, cap_primitives::ambient_authority())
                    .map_err(refusal)?,
            )),
        }
    }

    fn read(&mut self, path: &str) -> Result<Vec<u8>, ReadError> {
        let max_bytes = self.max_bytes;
        let mut options = OpenOptions::new();
        options.read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
        let file = cap_primitives::fs::open(self.dir()?, relative(path), &options).map_err(refusal)?;
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
        read_whole(&file, meta.len(), max_bytes)
    }

    fn list_dir(&mut self, path: &str) -> Result<Vec<Result<DirEntry, ReadError>>, ReadError> {
        let max_bytes = self.max_bytes;
        let entries = cap_primitives::fs::read_dir(self.dir()?, relative(path)).map_err(refusal)?;
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
                // library's words, as the guest's own listing says.
                let name = entry
                    .file_name()
                    .into_string()
                    .map_err(|_| ReadError::Other("Invalid or incomplete multibyte or wide character".into()))?;
                Ok(DirEntry { name, kind })
            }));
        }
        Ok(list)
    }
}

/// `path` (absolute inside the root, or relative to it) relative to the root.
fn relative(path: &str) -> &Path {
    let relative = path.trim_start_matches('/');
    Path::new(if relative.is_empty() { "." } else { relative })
}

/// The content of `file`, a regular file of `len` bytes when it was stat'ed, in a buffer
/// of that size: one `read` when the file has not changed since. A file that grew is read
/// on, never past `max_bytes`.
fn read_whole(file: &File, len: u64, max_bytes: u64) -> Result<Vec<u8>, ReadError> {
    let mut data: Vec<u8> = Vec::new();
    // One byte more than the stat said, so that a read filling it shows the file grew.
    data.try_reserve_exact(len as usize + 1).map_err(|_| ReadError::TooLarge)?;
    loop {
        if data.len() == data.capacity() {
            // The file grew: read on, but never hold more than one byte past the cap (that
            // byte is what shows the file is too large).
            let room = usize::try_from(max_bytes + 1).unwrap_or(usize::MAX).saturating_sub(data.len());
            if room == 0 {
                return Err(ReadError::TooLarge);
            }
            data.try_reserve_exact(data.len().max(1 << 16).min(room)).map_err(|_| ReadError::TooLarge)?;
        }
        let spare = data.spare_capacity_mut();
        // SAFETY: read(2) writes at most `spare.len()` bytes at `spare`, which is this
        // vector's allocated, unused capacity; `set_len` below covers only what it wrote.
        let n = unsafe { libc::read(file.as_raw_fd(), spare.as_mut_ptr().cast(), spare.len()) };
        if n < 0 {
            let error = io::Error::last_os_error();
            if error.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(refusal(error));
        }
        if n == 0 {
            break;
        }
        let asked = spare.len();
        // SAFETY: the kernel initialised the `n` bytes after `data.len()` (n <= asked).
        unsafe { data.set_len(data.len() + n as usize) };
        // A short read of a regular file that delivered all the stat promised is its end:
        // no second `read` just to see zero.
        if (n as usize) < asked && data.len() as u64 >= len {
            break;
        }
    }
    if data.len() as u64 > max_bytes {
        return Err(ReadError::TooLarge);
    }
    Ok(data)
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `read_whole` with a size from the stat that no longer holds: the file grew (the
    /// stat said less) or shrank (it said more) between the two.
    #[test]
    fn a_file_that_changed_since_its_stat_is_read_whole_and_capped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let content: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &content).unwrap();
        let file = File::open(&path).unwrap();
        let read = |len: u64, max: u64| {
            use std::io::{Seek, SeekFrom};
            (&file).seek(SeekFrom::Start(0)).unwrap();
            read_whole(&file, len, max)
        };
        assert_eq!(read(200_000, 200_000).unwrap(), content);
        // Grew since the stat: read on, in steps, up to the cap.
        assert_eq!(read(10, 1 << 20).unwrap(), content);
        assert_eq!(read(0, 200_000).unwrap(), content);
        assert!(matches!(read(10, 199_999), Err(ReadError::TooLarge)));
        assert!(matches!(read(150_000, 150_000), Err(ReadError::TooLarge)));
        // Shrank since the stat.
        assert_eq!(read(300_000, 1 << 20).unwrap(), content);
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
        assert!(matches!(names(&mut Files::new(dir.path(), 1 << 20)), Ok(100)));
        assert!(matches!(names(&mut Files::new(dir.path(), 2_000)), Err(ReadError::TooLarge)));
    }
}
