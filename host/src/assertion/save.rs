//! Writing results back: only `status`, `failure_output` and `confidence` change, and the
//! file is replaced atomically so a reader (or a crash) never sees a half-written file.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

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

    /// Replaces the file on disk with the current document: a temporary file in the same
    /// directory, written, flushed to disk, given the original's permissions, then renamed
    /// over the original, and the directory synced.
    pub fn save(&self) -> Result<(), SaveError> {
        self.save_to(&self.path).map_err(|source| SaveError { file: self.path.clone(), source })
    }

    fn save_to(&self, path: &Path) -> io::Result<()> {
        write_json_atomically(path, &self.doc)
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

/// Replaces `path` with `value` as pretty JSON: a temporary file in the same directory,
/// fsync, the old file's permissions, rename, fsync of the directory. A reader sees the
/// old file or the new one, never a part; a crash leaves one of the two.
pub fn write_json_atomically(path: &Path, value: &Value) -> io::Result<()> {
    let dir = parent_dir(path);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut tmp = tempfile::Builder::new().prefix(&format!(".{name}.")).suffix(".tmp").tempfile_in(dir)?;
    // Two-space indentation, like the seed runner's `json.dump(data, f, indent=2)`.
    serde_json::to_writer_pretty(&mut tmp, value)?;
    tmp.write_all(b"\n")?;
    tmp.as_file().sync_all()?;
    if let Ok(meta) = std::fs::metadata(path) {
        tmp.as_file().set_permissions(meta.permissions())?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    File::open(dir)?.sync_all()
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

/// An exclusive lock that keeps two runs from interleaving on one assertions file.
///
/// The lock is on a sidecar `<file>.lock`, not the file itself: the file is replaced by
/// a rename on save, so a lock on it would be a lock on an inode nobody opens any more.
/// Held from before the load to after the save; released on drop.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

impl FileLock {
    /// Blocks until the lock for `assertions_file` is held.
    pub fn acquire(assertions_file: &Path) -> io::Result<FileLock> {
        let mut name = assertions_file.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        let lock_path = parent_dir(assertions_file).join(name);
        let file = OpenOptions::new().create(true).truncate(false).write(true).open(lock_path)?;
        file.lock()?;
        Ok(FileLock { _file: file })
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
}
