//! Every file reviewhost writes: the assertions file, lock files, a review's state,
//! events and reports. Each write goes through a handle on the file's directory and
//! names one entry in it (`openat`, `renameat`), and none follows a symbolic link: an
//! entry that is a symlink (a reviewed repository can commit one pointing at
//! `~/.bashrc`) is refused with an error naming it, never written through, created at
//! its target or replaced. [`write_atomically`] is the one atomic writer (the
//! assertions file, a review's state, report files, cache entries); [`open_in_place`]
//! the one in-place writer; [`open_lock`] opens lock files.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::hash::{BuildHasher, RandomState};
use std::io::{self, BufWriter, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;
use serde_json::Value;

/// What a refused write says about the entry it would have gone through.
pub(crate) const SYMLINK: &str = "is a symbolic link; reviewhost does not write through symlinks";
pub(crate) const NOT_REGULAR: &str = "is not a regular file; reviewhost writes only regular files";
pub(crate) const NOT_DIRECTORY: &str = "is not a directory";
pub(crate) const HARD_LINKED: &str = "has other hard links; reviewhost does not write through them";

/// The error refusing `name`, saying `why` (one of the reasons above).
pub(crate) fn refused(name: impl AsRef<OsStr>, why: &str) -> io::Error {
    io::Error::other(format!("{} {why}", Path::new(name.as_ref()).display()))
}

/// What an entry is expected to be.
#[derive(Clone, Copy)]
pub(crate) enum Want {
    File,
    Directory,
}

/// `error` from opening `name` in `dir` without following it, explained when the entry
/// is a symlink (`ELOOP`) or not what was wanted (`ENXIO` for a FIFO opened
/// non-blocking, `ENOTDIR`).
pub(crate) fn explain(dir: impl AsFd, name: impl AsRef<OsStr>, error: Errno, want: Want) -> io::Error {
    let name = name.as_ref();
    let Ok(stat) = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) else { return error.into() };
    refusal(name, FileType::from_raw_mode(stat.st_mode), want).unwrap_or_else(|| error.into())
}

/// Why the entry `name`, of type `kind`, is refused where `want` is expected; `None`
/// when it is what was wanted. A symlink is always refused.
fn refusal(name: &OsStr, kind: FileType, want: Want) -> Option<io::Error> {
    match (kind, want) {
        (FileType::Symlink, _) => Some(refused(name, SYMLINK)),
        (FileType::RegularFile, Want::File) | (FileType::Directory, Want::Directory) => None,
        (_, Want::File) => Some(refused(name, NOT_REGULAR)),
        (_, Want::Directory) => Some(refused(name, NOT_DIRECTORY)),
    }
}

/// Creates the directory `name` in `parent` if needed and opens it with
/// `O_DIRECTORY | O_NOFOLLOW`: a symlink is refused (`mkdirat` never follows one either).
pub(crate) fn subdir(parent: impl AsFd, name: &str) -> io::Result<File> {
    let parent = parent.as_fd();
    match rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o777)) {
        Ok(()) | Err(Errno::EXIST) => {}
        Err(e) => return Err(e.into()),
    }
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    rustix::fs::openat(parent, name, flags, Mode::empty())
        .map(File::from)
        .map_err(|e| explain(parent, name, e, Want::Directory))
}

/// Opens `name` in `dir` to write it in place (`extra`: `O_APPEND`, or nothing to write
/// from the start), creating it if needed. Never through a symlink (`O_NOFOLLOW`), never
/// a FIFO or device (opened non-blocking, so an open cannot hang, then checked on the
/// descriptor), never a file with another hard link (its other name may be outside the
/// repository, and an in-place write would change that file too).
pub(crate) fn open_in_place(dir: &File, name: &str, extra: OFlags) -> io::Result<File> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | extra;
    let file = rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(0o666))
        .map(File::from)
        .map_err(|e| explain(dir, name, e, Want::File))?;
    let stat = rustix::fs::fstat(&file)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err(refused(name, NOT_REGULAR));
    }
    if stat.st_nlink != 1 {
        return Err(refused(name, HARD_LINKED));
    }
    Ok(file)
}

/// Replaces the entry `name` of the directory `dir` with `value` as pretty JSON, two-space
/// indented like the seed runner's `json.dump(data, f, indent=2)` ([`write_atomically`]).
pub fn write_json_atomically(dir: impl AsFd, name: &OsStr, value: &Value) -> io::Result<()> {
    write_atomically(dir, name, |out| {
        serde_json::to_writer_pretty(&mut *out, value)?;
        out.write_all(b"\n")
    })
}

/// Replaces the entry `name` of the directory `dir` with what `contents` writes: a new
/// temporary file in `dir` (created with `O_EXCL | O_NOFOLLOW`), written, given the old
/// file's permissions, fsynced, renamed over `name` within `dir`, and `dir` fsynced. A
/// reader sees the old file or the new one, never a part; a crash leaves one of the two
/// (and perhaps a `.NAME.*.tmp` file).
///
/// `name` must be a regular file or absent: a symbolic link (or a directory, a FIFO, …)
/// is refused with an error naming it, checked on the directory entry itself
/// (`fstatat(AT_SYMLINK_NOFOLLOW)`) before the write and again just before the rename.
/// What is left between that last check and the rename is a swap of the directory
/// entry: `renameat` replaces whatever entry `name` is then (a symlink planted in that
/// instant is itself replaced), and never writes through it.
pub fn write_atomically(
    dir: impl AsFd,
    name: &OsStr,
    contents: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let dir = dir.as_fd();
    let old = regular_file(dir, name)?;
    let temp = TempFile::create(dir, name)?;
    let mut out = BufWriter::new(&temp.file);
    contents(&mut out)?;
    out.flush()?;
    drop(out);
    if let Some(old) = old {
        rustix::fs::fchmod(&temp.file, Mode::from_raw_mode(old.st_mode))?;
    }
    temp.file.sync_all()?;
    regular_file(dir, name)?;
    temp.rename_to(name)?;
    rustix::fs::fsync(dir)?;
    Ok(())
}

/// The entry `name` of `dir` itself (a symlink is not followed): its status when it is a
/// regular file, `None` when there is none, an error refusing anything else.
pub(crate) fn regular_file(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<Option<rustix::fs::Stat>> {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => match refusal(name, FileType::from_raw_mode(stat.st_mode), Want::File) {
            Some(refused) => Err(refused),
            None => Ok(Some(stat)),
        },
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// A temporary file beside the one it will replace, removed unless renamed.
struct TempFile<'a> {
    dir: BorrowedFd<'a>,
    name: OsString,
    file: File,
    renamed: bool,
}

impl<'a> TempFile<'a> {
    /// Attempts at a fresh name before giving up (each name is 64 random bits).
    const ATTEMPTS: u32 = 16;

    /// Creates `.NAME.<random>.tmp` in `dir`, mode 0600, refusing any existing entry
    /// (`O_EXCL`, which also never follows a symlink).
    fn create(dir: BorrowedFd<'a>, name: &OsStr) -> io::Result<TempFile<'a>> {
        let random = RandomState::new();
        for attempt in 0..Self::ATTEMPTS {
            let mut temp = OsString::from(".");
            temp.push(name);
            temp.push(format!(".{:016x}.tmp", random.hash_one((std::process::id(), attempt))));
            let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            match rustix::fs::openat(dir, &temp, flags, Mode::from_raw_mode(0o600)) {
                Ok(fd) => return Ok(TempFile { dir, name: temp, file: File::from(fd), renamed: false }),
                Err(Errno::EXIST) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(io::Error::new(io::ErrorKind::AlreadyExists, "no free temporary file name"))
    }

    fn rename_to(mut self, name: &OsStr) -> io::Result<()> {
        rustix::fs::renameat(self.dir, &self.name, self.dir, name)?;
        self.renamed = true;
        Ok(())
    }
}

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = rustix::fs::unlinkat(self.dir, &self.name, AtFlags::empty());
        }
    }
}

/// The directory `path` is in, opened (the operator's path: symlinks on the way to it
/// are followed), and the name of `path` in it.
pub(crate) fn open_parent(path: &Path) -> io::Result<(File, &OsStr)> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("{} names no file", path.display())))?;
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let dir = rustix::fs::open(parent_dir(path), flags, Mode::empty())?;
    Ok((File::from(dir), name))
}

/// The directory `path` is in: its parent, or `.` for a bare file name.
pub fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Opens (creating it if needed) the lock file `name` of `dir`, refusing a symlink or
/// anything but a regular file.
pub(crate) fn open_lock(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<File> {
    let flags = OFlags::RDONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let file = rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(0o666))
        .map(File::from)
        .map_err(|e| explain(dir, name, e, Want::File))?;
    if !file.metadata()?.is_file() {
        return Err(refused(name, NOT_REGULAR));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::assertion::FileLock;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_symlinked_destination_is_refused_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("bashrc");
        std::fs::write(&target, "original").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("a.json")).unwrap();
        let handle = File::open(dir.path()).unwrap();
        let e = write_json_atomically(&handle, OsStr::new("a.json"), &json!({"x": 1})).unwrap_err();
        assert_eq!(e.to_string(), "a.json is a symbolic link; reviewhost does not write through symlinks");
        assert!(std::fs::symlink_metadata(dir.path().join("a.json")).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "original");
        assert_eq!(entries(dir.path()), ["a.json"], "no temporary file left behind");
    }

    #[test]
    fn a_new_file_is_written_and_no_temporary_file_stays() {
        let dir = tempfile::tempdir().unwrap();
        let handle = File::open(dir.path()).unwrap();
        write_json_atomically(&handle, OsStr::new("s.json"), &json!({"x": 1})).unwrap();
        write_json_atomically(&handle, OsStr::new("s.json"), &json!({"x": 2})).unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join("s.json")).unwrap(), "{\n  \"x\": 2\n}\n");
        assert_eq!(entries(dir.path()), ["s.json"]);
    }

    #[test]
    fn a_lock_file_that_is_a_symlink_or_a_fifo_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        std::os::unix::fs::symlink(outside.path().join("created"), dir.path().join("a.json.lock")).unwrap();
        let e = FileLock::acquire(&file).unwrap_err();
        assert_eq!(e.to_string(), "a.json.lock is a symbolic link; reviewhost does not write through symlinks");
        assert!(entries(outside.path()).is_empty(), "nothing created at the link's target");

        std::fs::remove_file(dir.path().join("a.json.lock")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.path().join("a.json.lock"),
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let e = FileLock::acquire(&file).unwrap_err();
        assert_eq!(e.to_string(), "a.json.lock is not a regular file; reviewhost writes only regular files");
    }
}
