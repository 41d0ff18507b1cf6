//! Files the host reads on an assertion's behalf (a custom component's `.wasm`, the
//! assertions file itself) and every file a review loop reads from the reviewed
//! repository or the operator names (plans, agent definitions, the agent
//! configuration, a findings file, merged shards): [`read_file`], and [`read_text`] for
//! text, are the one way the host reads such a file.
//!
//! Whatever such a path names may be hostile: `/proc/self/pagemap` (a "regular file"
//! that never ends), `/proc/kmsg` (blocks until the kernel logs), a FIFO swapped in
//! after a type check (an open that waits for a writer forever), a symlink to
//! `/dev/zero`. So every such read:
//!
//! - opens non-blocking (`O_NONBLOCK | O_NOCTTY`): opening a FIFO or a terminal returns
//!   at once;
//! - checks the type on the descriptor it will read, never on the name: anything but a
//!   regular file is refused, however it got there;
//! - reads at most `max_bytes` (and one byte more, to tell a file that is too large);
//! - happens on a thread of its own, abandoned after [`READ_DEADLINE`], so a read that
//!   blocks anyway (a hung network filesystem) cannot hold the run.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use cap_primitives::fs::OpenOptionsExt as _;

use super::handle::DirHandle;
use super::limits::{Bytes, Seconds};
use super::supervise::{self, Lost};

/// Longest a host read on an assertion's behalf may take.
pub const READ_DEADLINE: Duration = Duration::from_secs(10);

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostReadError {
    #[error("is not a regular file ({0})")]
    NotRegular(&'static str),
    #[error("is larger than {}, the most reviewhost reads of it", Bytes(*.0))]
    TooLarge(u64),
    #[error("is not UTF-8 text")]
    NotUtf8,
    #[error("reading it took longer than {}; abandoned", Seconds(READ_DEADLINE))]
    TimedOut,
    #[error("{0}")]
    Io(#[from] io::Error),
}

impl HostReadError {
    /// The file is not there, or a path leading outside its directory was refused.
    pub fn is_not_found(&self) -> bool {
        matches!(self, HostReadError::Io(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied))
    }
}

/// Where a path is opened from.
#[derive(Debug, Clone)]
pub enum Base {
    /// Inside this directory, with cap-std's resolver: `..` past it, absolute symlinks
    /// and symlinks leading out are refused (as WASI refuses them to a check).
    Inside(Arc<DirHandle>),
    /// As the operator's own path: symlinks followed wherever they lead.
    Ambient,
}

impl Base {
    /// The directory at `path` (the operator's), opened once.
    pub fn dir(path: &Path) -> io::Result<Base> {
        Ok(Base::Inside(Arc::new(DirHandle::open_ambient(path)?)))
    }
}

/// The bytes of the regular file `path` (relative to `base`), at most `max_bytes`.
pub fn read_file(base: &Base, path: &Path, max_bytes: u64) -> Result<Vec<u8>, HostReadError> {
    let item = (base.clone(), path.to_path_buf());
    let read = move |_: usize, (base, path): &(Base, PathBuf)| read_now(base, path, max_bytes);
    let mut results = supervise::map(vec![item], 1, READ_DEADLINE, read, |_, _, lost| match lost {
        Lost::Stuck => Err(HostReadError::TimedOut),
        Lost::NoThread(reason) | Lost::Panicked(reason) => Err(HostReadError::Io(io::Error::other(reason))),
    });
    results.pop().expect("one result per item")
}

/// [`read_file`] of a text file: its bytes, which must be UTF-8.
pub fn read_text(base: &Base, path: &Path, max_bytes: u64) -> Result<String, HostReadError> {
    String::from_utf8(read_file(base, path, max_bytes)?).map_err(|_| HostReadError::NotUtf8)
}

/// [`read_file`] on this thread, without the deadline.
fn read_now(base: &Base, path: &Path, max_bytes: u64) -> Result<Vec<u8>, HostReadError> {
    // Looked at before it is opened, so that a device is not even opened (opening some
    // has effects of its own); checked again on the descriptor below, which is what
    // holds if the path changes in between.
    let before = match base {
        Base::Inside(dir) => cap_primitives::fs::stat(dir.file(), path, cap_primitives::fs::FollowSymlinks::Yes)?,
        Base::Ambient => cap_primitives::fs::Metadata::from_just_metadata(std::fs::metadata(path)?),
    };
    if !before.is_file() {
        return Err(HostReadError::NotRegular(kind_before(&before.file_type())));
    }
    let flags = libc::O_NONBLOCK | libc::O_NOCTTY;
    let file = match base {
        Base::Inside(dir) => {
            let mut options = cap_primitives::fs::OpenOptions::new();
            options.read(true).custom_flags(flags);
            cap_primitives::fs::open(dir.file(), path, &options)?
        }
        Base::Ambient => std::fs::OpenOptions::new().read(true).custom_flags(flags).open(path)?,
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(HostReadError::NotRegular(kind(&meta.file_type())));
    }
    if meta.len() > max_bytes {
        return Err(HostReadError::TooLarge(max_bytes));
    }
    read_whole(&file, meta.len(), max_bytes).map_err(|e| match e {
        Cut::TooLarge => HostReadError::TooLarge(max_bytes),
        Cut::Io(e) => HostReadError::Io(e),
    })
}

/// What a file type is, for a message (std's type: the descriptor's).
fn kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    describe([t.is_dir(), t.is_fifo(), t.is_socket(), t.is_char_device(), t.is_block_device()])
}

/// [`kind`] for cap-std's type (the path's, before opening).
fn kind_before(t: &cap_primitives::fs::FileType) -> &'static str {
    use cap_primitives::fs::FileTypeExt;
    describe([t.is_dir(), t.is_fifo(), t.is_socket(), t.is_char_device(), t.is_block_device()])
}

fn describe([dir, fifo, socket, char_device, block_device]: [bool; 5]) -> &'static str {
    match () {
        _ if dir => "a directory",
        _ if fifo => "a FIFO",
        _ if socket => "a socket",
        _ if char_device => "a character device",
        _ if block_device => "a block device",
        _ => "a special file",
    }
}

/// Why [`read_whole`] stopped.
#[derive(Debug)]
pub(super) enum Cut {
    /// More than `max_bytes`.
    TooLarge,
    Io(io::Error),
}

/// The content of `file`, a regular file of `len` bytes when it was stat'ed, in a buffer
/// of that size: one `read` when the file has not changed since. A file that grew is read
/// on, never past `max_bytes` (nor holding more than one byte past it). A file whose stat
/// says nothing of its size (`/proc`) is cut at `max_bytes` the same way.
pub(super) fn read_whole(file: &File, len: u64, max_bytes: u64) -> Result<Vec<u8>, Cut> {
    let mut data: Vec<u8> = Vec::new();
    // One byte more than the stat said, so that a read filling it shows the file grew.
    data.try_reserve_exact(len as usize + 1).map_err(|_| Cut::TooLarge)?;
    loop {
        if data.len() == data.capacity() {
            // The file grew: read on, but never hold more than one byte past the cap (that
            // byte is what shows the file is too large).
            let room = usize::try_from(max_bytes + 1).unwrap_or(usize::MAX).saturating_sub(data.len());
            if room == 0 {
                return Err(Cut::TooLarge);
            }
            data.try_reserve_exact(data.len().max(1 << 16).min(room)).map_err(|_| Cut::TooLarge)?;
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
            return Err(Cut::Io(error));
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
        return Err(Cut::TooLarge);
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_and_endless_files_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero")).unwrap();
        let base = Base::Ambient;
        let refused = |path: &Path| read_file(&base, path, 1 << 20).unwrap_err();
        assert!(matches!(refused(&fifo), HostReadError::NotRegular("a FIFO")));
        assert!(matches!(refused(&dir.path().join("zero")), HostReadError::NotRegular("a character device")));
        assert!(matches!(refused(dir.path()), HostReadError::NotRegular("a directory")));
        // A "regular file" of size 0 that goes on for terabytes: refused, at once.
        for endless in ["/proc/self/pagemap"] {
            if Path::new(endless).exists() {
                let _ = refused(Path::new(endless));
            }
        }
        let big = dir.path().join("big");
        std::fs::write(&big, vec![0u8; 4096]).unwrap();
        assert!(matches!(read_file(&base, &big, 4095), Err(HostReadError::TooLarge(4095))));
    }

    #[test]
    fn inside_a_directory_nothing_outside_is_opened() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("in")).unwrap();
        std::fs::write(dir.path().join("secret"), "s").unwrap();
        std::fs::write(dir.path().join("in/ok"), "ok").unwrap();
        std::os::unix::fs::symlink("../secret", dir.path().join("in/out")).unwrap();
        let base = Base::dir(&dir.path().join("in")).unwrap();
        assert_eq!(read_file(&base, Path::new("ok"), 10).unwrap(), b"ok");
        for escape in ["../secret", "out", "/etc/passwd"] {
            let error = read_file(&base, Path::new(escape), 10).unwrap_err();
            assert!(error.is_not_found(), "{escape}: {error}");
        }
        assert!(matches!(read_file(&base, Path::new("ok"), 1), Err(HostReadError::TooLarge(1))));
    }

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
        assert!(matches!(read(10, 199_999), Err(Cut::TooLarge)));
        assert!(matches!(read(150_000, 150_000), Err(Cut::TooLarge)));
        // Shrank since the stat.
        assert_eq!(read(300_000, 1 << 20).unwrap(), content);
    }
}
