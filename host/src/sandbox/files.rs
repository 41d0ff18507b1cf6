//! The `files` interface of `wit/check.wit`: whole-file reads for the built-in checks.
//!
//! Grepping a tree through WASI costs, per file, an open, a stat, a host call and a
//! zeroed 64 KiB buffer per 64 KiB read, and a close; this is one call that reads the
//! file into a buffer of its exact size. It keeps WASI's guarantees and adds two:
//!
//! - paths resolve inside the root with cap-std's resolver (the one WASI uses): `..`
//!   past the root, absolute symlinks and symlinks leading out are refused;
//! - nothing is written: the file is opened read-only;
//! - a special file is never read, and opening one cannot block: the open is
//!   non-blocking (a FIFO without a writer opens at once) and anything but a regular
//!   file is refused after the open, on the descriptor, so a swap between a check and
//!   the open cannot slip one through;
//! - a file larger than the check's memory limit is refused before it is read.
//!
//! Only a built-in check seeing the whole root gets it; a custom validator reads through
//! WASI, within its `paths`, and every call here is refused.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use cap_primitives::fs::{OpenOptions, OpenOptionsExt};

use super::HostState;
use super::bindings::builtin::reviewhost::check::files::{Host, ReadError};

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

    fn read(&mut self, path: &str) -> Result<Vec<u8>, ReadError> {
        let relative = path.trim_start_matches('/');
        let relative = Path::new(if relative.is_empty() { "." } else { relative });
        let dir = match &mut self.dir {
            Some(dir) => dir,
            empty => empty.insert(
                cap_primitives::fs::open_ambient_dir(&self.root, cap_primitives::ambient_authority())
                    .map_err(refusal)?,
            ),
        };
        let mut options = OpenOptions::new();
        options.read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
        let file = cap_primitives::fs::open(dir, relative, &options).map_err(refusal)?;
        let meta = file.metadata().map_err(refusal)?;
        if meta.is_dir() {
            return Err(ReadError::IsDirectory);
        }
        if !meta.is_file() {
            return Err(ReadError::NotRegularFile);
        }
        if meta.len() > self.max_bytes {
            return Err(ReadError::TooLarge);
        }
        let mut data = Vec::new();
        data.try_reserve_exact(meta.len() as usize + 1).map_err(|_| ReadError::TooLarge)?;
        // The file may grow after the stat: never read past the cap.
        (&file).take(self.max_bytes + 1).read_to_end(&mut data).map_err(refusal)?;
        if data.len() as u64 > self.max_bytes {
            return Err(ReadError::TooLarge);
        }
        Ok(data)
    }
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
}
