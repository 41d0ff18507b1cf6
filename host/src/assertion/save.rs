//! Writing results back: only `status`, `failure_output` and `confidence` change, and the
//! file is replaced atomically so a reader (or a crash) never sees a half-written file.
//!
//! Every write goes through a handle on the file's directory and names one entry in it
//! (`openat`, `renameat`), and none follows a symbolic link: a file or lock that is a
//! symlink (a reviewed repository can commit one pointing at `~/.bashrc`) is refused with
//! an error naming it, never written through or replaced. [`write_json_atomically`] is
//! the one atomic writer (the assertions file, the review's `state.json`); [`FileLock`]
//! opens lock files the same way.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::hash::{BuildHasher, RandomState};
use std::io::{self, BufWriter, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;
use serde_json::{Map, Value, json};

use super::{AssertionsFile, Confidence, MAX_FAILURE_OUTPUT_CHARS, Status};

/// Why the results could not be written back. The original file is intact in every case.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot write the results back: {source}", file.display())]
pub struct SaveError {
    pub file: PathBuf,
    #[source]
    pub source: io::Error,
}

impl AssertionsFile {
    /// Records the result of the assertion at `index`: `status`, and `failure_output`
    /// (null on pass, else `message` cut to [`MAX_FAILURE_OUTPUT_CHARS`] characters).
    pub fn record(&mut self, index: usize, status: Status, message: &str) {
        let failure_output = match status {
            Status::Pass => Value::Null,
            Status::Fail | Status::Error => Value::String(message.chars().take(MAX_FAILURE_OUTPUT_CHARS).collect()),
        };
        let object = &mut self.assertion_objects()[index];
        object.insert("status".into(), Value::String(status.as_str().into()));
        object.insert("failure_output".into(), failure_output);
    }

    /// The confidence over the `status` fields now in the file (an assertion without one
    /// counts as not passing).
    pub fn recorded_confidence(&self) -> Confidence {
        let list = self.doc.get("assertions").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let passed = list.iter().filter(|a| a.get("status").and_then(Value::as_str) == Some("pass")).count();
        Confidence::new(passed, list.len())
    }

    /// Sets the file's `confidence` object, keeping its position and any extra keys in it.
    pub fn set_confidence(&mut self, confidence: Confidence) {
        let top = self.doc.as_object_mut().expect("validated on load");
        let slot = top.entry("confidence").or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        let object = slot.as_object_mut().expect("just made an object");
        object.insert("passed".into(), json!(confidence.passed));
        object.insert("total".into(), json!(confidence.total));
        object.insert("score".into(), json!(confidence.score));
    }

    /// Replaces the file on disk with the current document through
    /// [`write_json_atomically`], in the directory its path names. A file that is a
    /// symbolic link (or anything but a regular file) is refused and left as it is.
    pub fn save(&self) -> Result<(), SaveError> {
        let error = |source| SaveError { file: self.path.clone(), source };
        let (dir, name) = open_parent(&self.path).map_err(error)?;
        write_json_atomically(&dir, name, &self.doc).map_err(error)
    }

    /// An empty assertions file at `path` (not yet saved), in the seed's shape.
    pub fn empty(path: &Path) -> AssertionsFile {
        let doc = json!({
            "plugin": "",
            "max_passes": 5,
            "current_pass": 0,
            "assertions": [],
            "confidence": {"passed": 0, "total": 0, "score": 0.0}
        });
        AssertionsFile { path: path.to_path_buf(), doc, assertions: Vec::new() }
    }

    /// Sets a top-level field (`plugin`, `current_pass`, `max_passes`), keeping its place.
    pub fn set_field(&mut self, key: &str, value: Value) {
        self.doc.as_object_mut().expect("validated on load").insert(key.to_string(), value);
    }

    /// Appends the `incoming` assertions whose ids the file does not have yet (so an
    /// assertion's status carries over from pass to pass) and returns (added, carried).
    /// The result is validated as a whole, like a loaded file; on error nothing changes.
    pub fn merge(&mut self, incoming: &[Value]) -> Result<(usize, usize), super::LoadError> {
        let mut doc = self.doc.clone();
        let list = doc["assertions"].as_array_mut().expect("validated on load");
        let mut added = 0;
        for assertion in incoming {
            let id = assertion.get("id").and_then(Value::as_str);
            if list.iter().any(|a| a.get("id").and_then(Value::as_str) == id) {
                continue;
            }
            list.push(assertion.clone());
            added += 1;
        }
        let bytes = serde_json::to_vec(&doc).expect("a JSON value serializes");
        *self = super::load::parse(&self.path, &bytes)?;
        Ok((added, incoming.len() - added))
    }
}

/// Replaces the entry `name` of the directory `dir` with `value` as pretty JSON: a new
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
pub fn write_json_atomically(dir: impl AsFd, name: &OsStr, value: &Value) -> io::Result<()> {
    let dir = dir.as_fd();
    let old = regular_file(dir, name)?;
    let temp = TempFile::create(dir, name)?;
    let mut out = BufWriter::new(&temp.file);
    // Two-space indentation, like the seed runner's `json.dump(data, f, indent=2)`.
    serde_json::to_writer_pretty(&mut out, value)?;
    out.write_all(b"\n")?;
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

/// What a refused write says about the entry it would have gone through.
const SYMLINK: &str = "is a symbolic link; reviewhost does not write through symlinks";
const NOT_REGULAR: &str = "is not a regular file; reviewhost writes only regular files";

/// The error refusing `name`, saying `why` (one of the reasons above).
fn refused(name: &OsStr, why: &str) -> io::Error {
    io::Error::other(format!("{} {why}", Path::new(name).display()))
}

/// The entry `name` of `dir` itself (a symlink is not followed): its status when it is a
/// regular file, `None` when there is none, an error refusing anything else.
fn regular_file(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<Option<rustix::fs::Stat>> {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => Ok(Some(stat)),
            FileType::Symlink => Err(refused(name, SYMLINK)),
            _ => Err(refused(name, NOT_REGULAR)),
        },
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// `error` from opening `name` in `dir` without following it, explained when the entry
/// is a symlink (`ELOOP`) or not a regular file (`ENXIO` for a FIFO opened non-blocking).
fn explain(dir: BorrowedFd<'_>, name: &OsStr, error: Errno) -> io::Error {
    match regular_file(dir, name) {
        Err(refusal) => refusal,
        Ok(_) => error.into(),
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
fn open_parent(path: &Path) -> io::Result<(File, &OsStr)> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("{} names no file", path.display())))?;
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let dir = rustix::fs::open(parent_dir(path), flags, Mode::empty())?;
    Ok((File::from(dir), name))
}

impl AssertionsFile {
    fn assertion_objects(&mut self) -> Vec<&mut Map<String, Value>> {
        self.doc["assertions"]
            .as_array_mut()
            .expect("validated on load")
            .iter_mut()
            .map(|a| a.as_object_mut().expect("validated on load"))
            .collect()
    }
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// An exclusive lock that keeps two runs from interleaving on one assertions file (and
/// two reviews on one repository: `.reviewhost/lock`).
///
/// The lock is on a sidecar `<file>.lock`, not the file itself: the file is replaced by
/// a rename on save, so a lock on it would be a lock on an inode nobody opens any more.
/// Held from before the load to after the save; released on drop. A lock file is
/// opened read-only (`flock` needs no more), with `O_NOFOLLOW` and non-blocking, and
/// must be a regular file: a symlink is refused, never created or opened at its target.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

impl FileLock {
    /// Blocks until the lock for `assertions_file` is held. Refuses, naming it, a lock
    /// file or an assertions file that is a symbolic link or not a regular file (the
    /// assertions file is checked once the lock is held, so a run refuses before it
    /// evaluates anything rather than at its write-back).
    pub fn acquire(assertions_file: &Path) -> io::Result<FileLock> {
        let (dir, name) = open_parent(assertions_file)?;
        let mut lock_name = name.to_os_string();
        lock_name.push(".lock");
        let file = open_lock(dir.as_fd(), &lock_name)?;
        file.lock()?;
        regular_file(dir.as_fd(), name)?;
        Ok(FileLock { _file: file })
    }

    /// Takes the lock file `name` of the directory `dir` without waiting: `None` when
    /// another process holds it.
    pub fn try_acquire_in(dir: impl AsFd, name: &OsStr) -> io::Result<Option<FileLock>> {
        let file = open_lock(dir.as_fd(), name)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(FileLock { _file: file })),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }
}

/// Opens (creating it if needed) the lock file `name` of `dir`, refusing a symlink or
/// anything but a regular file.
fn open_lock(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<File> {
    let flags = OFlags::RDONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let file = rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(0o666))
        .map(File::from)
        .map_err(|e| explain(dir, name, e))?;
    if !file.metadata()?.is_file() {
        return Err(refused(name, NOT_REGULAR));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::super::load::parse;
    use super::*;

    #[test]
    fn write_back_keeps_unknown_fields_and_key_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        let original = r#"{"zeta": 1, "assertions": [{"x-extra": [1, {"b": 2, "a": 1}], "type": "file_exists", "id": "A", "path": "p", "status": "fail"}], "alpha": null, "confidence": {"note": "kept", "score": 0.0}}"#;
        std::fs::write(&path, original).unwrap();
        let mut file = parse(&path, original.as_bytes()).unwrap();
        file.record(0, Status::Pass, "");
        file.set_confidence(Confidence::new(1, 1));
        file.save().unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        let keys: Vec<_> =
            serde_json::from_str::<Value>(&written).unwrap().as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["zeta", "assertions", "alpha", "confidence"]);
        let expected = r#"{"zeta": 1, "assertions": [{"x-extra": [1, {"b": 2, "a": 1}], "type": "file_exists", "id": "A", "path": "p", "status": "pass", "failure_output": null}], "alpha": null, "confidence": {"note": "kept", "score": 1.0, "passed": 1, "total": 1}}"#;
        let expected: Value = serde_json::from_str(expected).unwrap();
        assert_eq!(
            serde_json::to_string(&serde_json::from_str::<Value>(&written).unwrap()).unwrap(),
            serde_json::to_string(&expected).unwrap()
        );
    }

    #[test]
    fn failure_output_is_cut_to_500_characters() {
        let mut file = parse(Path::new("a.json"), br#"{"assertions": [{"id": "A", "type": "t"}]}"#).unwrap();
        file.record(0, Status::Fail, &"é".repeat(600));
        let out = file.doc["assertions"][0]["failure_output"].as_str().unwrap();
        assert_eq!(out.chars().count(), 500);
    }

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

    #[test]
    fn a_lock_is_refused_for_a_symlinked_assertions_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("real.json"), "{}").unwrap();
        std::os::unix::fs::symlink("real.json", dir.path().join("a.json")).unwrap();
        let e = FileLock::acquire(&dir.path().join("a.json")).unwrap_err();
        assert!(e.to_string().starts_with("a.json is a symbolic link"), "{e}");
        let lock = FileLock::acquire(&dir.path().join("real.json")).unwrap();
        let handle = File::open(dir.path()).unwrap();
        assert!(FileLock::try_acquire_in(&handle, OsStr::new("real.json.lock")).unwrap().is_none(), "held");
        drop(lock);
        assert!(FileLock::try_acquire_in(&handle, OsStr::new("real.json.lock")).unwrap().is_some());
    }
}
