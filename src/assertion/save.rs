//! Writing results back: only `status`, `failure_output` and `confidence` change, and the
//! file is replaced atomically so a reader (or a crash) never sees a half-written file.
//!
//! The file and its lock are written as every file reviewhost writes is ([`crate::write`]):
//! through a handle on the directory, never through a symbolic link.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::write::{open_lock, open_parent, regular_file, write_json_atomically};

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
        // Straight to the one object: collecting them all per record made a write-back of
        // n assertions quadratic.
        let object = self.doc["assertions"][index].as_object_mut().expect("validated on load");
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
