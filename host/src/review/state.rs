//! What a review leaves in `.reviewhost/`: `state.json` (where the loop is, written
//! atomically), `events.jsonl` (one line per stage, appended), `reports/`, a lock that
//! keeps two reviews of one repository apart, and a git snapshot of the working tree at
//! each pass start under `refs/reviewhost/` (a commit object made with a private index:
//! nothing is committed on the user's branch, their index is untouched).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::assertion::write_json_atomically;

/// The directory at the root.
pub const DIR: &str = ".reviewhost";

/// The loop's position, in `state.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct State {
    pub version: u32,
    /// `running`, `aborted` or `ended`.
    pub status: String,
    /// The pass in progress (1-based).
    pub pass: u32,
    /// The phase of that pass: analysts, collect, implement, run, fix, report.
    pub phase: String,
    pub max_passes: u32,
    /// The assertions file, relative to the root when inside it.
    pub assertions_file: String,
    /// Finished passes.
    pub passes: Vec<PassRecord>,
    /// Why the last pass was aborted, while `status` is `aborted`.
    #[serde(default)]
    pub aborted: Option<String>,
    /// How the review ended, once `status` is `ended`.
    #[serde(default)]
    pub end_state: Option<String>,
}

/// One finished pass.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PassRecord {
    pub pass: u32,
    pub total: usize,
    pub new: usize,
    pub carried: usize,
    pub passed: usize,
    /// Assertions failing at the end of the pass: the open findings.
    pub failing: usize,
    pub confidence: f64,
    /// Analysts that ran this pass.
    pub analysts: Vec<String>,
    /// The commit under `refs/reviewhost/` holding the tree the pass started from.
    #[serde(default)]
    pub snapshot: Option<String>,
}

/// `.reviewhost/` of one root, locked for as long as this value lives.
pub struct Workspace {
    root: PathBuf,
    dir: PathBuf,
    _lock: File,
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: another review of this repository is running (its lock is held)", path.display())]
    Locked { path: PathBuf },
    #[error("{}: not a review state file: {reason}", path.display())]
    Corrupt { path: PathBuf, reason: String },
}

impl Workspace {
    /// Creates `.reviewhost/` under `root` if needed and takes its lock (without waiting).
    pub fn open(root: &Path) -> Result<Workspace, StateError> {
        let dir = root.join(DIR);
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StateError::Io { path, source }
        };
        std::fs::create_dir_all(dir.join("reports")).map_err(io(&dir))?;
        let lock_path = dir.join("lock");
        let lock =
            OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).map_err(io(&lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Err(StateError::Locked { path: lock_path }),
            Err(std::fs::TryLockError::Error(source)) => return Err(StateError::Io { path: lock_path, source }),
        }
        Ok(Workspace { root: root.to_path_buf(), dir, _lock: lock })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn state_path(&self) -> PathBuf {
        self.dir.join("state.json")
    }

    /// The saved state, if a review has been started here.
    pub fn load_state(&self) -> Result<Option<State>, StateError> {
        let path = self.state_path();
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| StateError::Corrupt { path, reason: e.to_string() }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(StateError::Io { path, source }),
        }
    }

    pub fn save_state(&self, state: &State) -> Result<(), StateError> {
        let path = self.state_path();
        let value = serde_json::to_value(state).expect("the state serializes");
        write_json_atomically(&path, &value).map_err(|source| StateError::Io { path, source })
    }

    /// Appends one event: `{"ts": …, "event": name, …fields}` on one line.
    pub fn event(&self, name: &str, fields: Value) -> Result<(), StateError> {
        let path = self.dir.join("events.jsonl");
        let mut line = json!({
            "ts": humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
            "event": name,
        });
        if let (Some(line), Value::Object(fields)) = (line.as_object_mut(), fields) {
            line.extend(fields);
        }
        let mut text = line.to_string();
        text.push('\n');
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|source| StateError::Io { path, source })
    }

    /// Writes `reports/NAME`.
    pub fn report(&self, name: &str, text: &str) -> Result<PathBuf, StateError> {
        let path = self.dir.join("reports").join(name);
        std::fs::write(&path, text).map_err(|source| StateError::Io { path: path.clone(), source })?;
        Ok(path)
    }

    /// Snapshots the working tree (tracked and untracked files, minus ignored ones and
    /// reviewhost's own state) as a commit under `refs/reviewhost/pass-N`. `None` outside
    /// a git repository or when git fails: the loop then treats every file as changed.
    pub fn snapshot(&self, pass: u32, exclude: &[&str]) -> Option<String> {
        let index = tempfile::tempdir().ok()?;
        let index = index.path().join("index");
        let git = |args: &[&str]| -> Option<String> {
            let out = Command::new("git")
                .args(args)
                .current_dir(&self.root)
                .env("GIT_INDEX_FILE", &index)
                .env("GIT_AUTHOR_NAME", "reviewhost")
                .env("GIT_AUTHOR_EMAIL", "reviewhost@localhost")
                .env("GIT_COMMITTER_NAME", "reviewhost")
                .env("GIT_COMMITTER_EMAIL", "reviewhost@localhost")
                .output()
                .ok()?;
            out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        };
        let head = git(&["rev-parse", "--verify", "-q", "HEAD"]);
        if let Some(head) = &head {
            git(&["read-tree", head])?;
        }
        let mut add = vec!["add", "-A", "--", "."];
        let excluded: Vec<String> = exclude.iter().map(|e| format!(":(exclude){e}")).collect();
        add.extend(excluded.iter().map(String::as_str));
        git(&add)?;
        let tree = git(&["write-tree"])?;
        let message = format!("reviewhost: working tree at the start of pass {pass}");
        let commit = match &head {
            Some(head) => git(&["commit-tree", &tree, "-p", head, "-m", &message])?,
            None => git(&["commit-tree", &tree, "-m", &message])?,
        };
        git(&["update-ref", &format!("refs/reviewhost/pass-{pass}"), &commit])?;
        Some(commit)
    }

    /// Files that differ between two snapshots.
    pub fn changed(&self, from: &str, to: &str) -> Option<Vec<String>> {
        let out = Command::new("git").args(["diff", "--name-only", from, to]).current_dir(&self.root).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect())
    }
}
