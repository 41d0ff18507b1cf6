//! The workspace every loop keeps in `.reviewhost/`: `state.json` (where the loop is,
//! in the loop's own typed state, written atomically), `events.jsonl` (one line per stage, appended), `reports/`, a lock that
//! keeps two reviews of one repository apart, and a git snapshot of the working tree at
//! each pass start under `refs/reviewhost/` of reviewhost's private git directory
//! ([`crate::hostgit`]: nothing is written into the repository's `.git/`).
//!
//! `.reviewhost/` lies in the reviewed repository, which is untrusted: it can ship
//! `.reviewhost` itself, `reports/pass-1.md`, `events.jsonl`, `lock` or `state.json` as
//! a symlink to `~/.bashrc`. So the directory is opened once, as a handle, with
//! `O_DIRECTORY | O_NOFOLLOW` (a symlink is refused), `reports/` the same way from it,
//! and every file is opened from those handles by name with `O_NOFOLLOW`: a symlink is
//! refused with an error naming it, a FIFO or device is refused on the descriptor
//! (opened non-blocking), and a file written in place (events, reports) must have no
//! other hard link. `state.json` is replaced through the assertions file's atomic
//! writer ([`crate::write`]). Nothing here is written through a symlink, whatever is
//! swapped in when.
//!
//! Nor is anything the repository put there believed: a state file (`state.json`, the
//! plan loops' `*-state.json`) is read back only when it carries the MAC this user's
//! reviewhost made for it in this root ([`super::sealed`]); any other is refused with
//! [`StateError::Unauthenticated`], never resumed from or counted as an approval. The
//! other files here (`events.jsonl`, `reports/`, findings, the audit trail) are only
//! ever written, never read back.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::event::LogEvent;
use super::sealed::StateKey;
use crate::assertion::FileLock;
use crate::hostgit::{GitError, HostGit};
use crate::write::{NOT_REGULAR, SYMLINK, Want, explain, open_in_place, refused, subdir, write_atomically};

/// The directory at the root.
pub const DIR: &str = ".reviewhost";

/// The entry that asks a running loop to stop before its next agent call.
const CANCEL: &str = "cancel";

/// Largest `state.json` read: a review's state is a few KB; the file lies in the
/// repository, which could ship a huge one.
pub const MAX_STATE_BYTES: u64 = 16 << 20;

/// `.reviewhost/` of one root, locked for as long as this value lives.
pub struct Workspace {
    root: PathBuf,
    /// `<root>/.reviewhost`, for messages; never opened by this path again.
    path: PathBuf,
    /// `.reviewhost`, opened without following a symlink: every file below is reached
    /// from this handle.
    dir: File,
    /// `.reviewhost/reports`, opened the same way from `dir`.
    reports: File,
    /// git with reviewhost's private directory, made when first asked for.
    git: std::sync::OnceLock<Result<HostGit, String>>,
    _lock: FileLock,
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
    /// A state file this user's reviewhost did not write for this repository (the
    /// repository shipped it, or it was copied from elsewhere): never read as state.
    #[error(
        "{}: refused: {reason}; it was not written by this user's reviewhost for this repository, so nothing in it \
         is trusted (remove it to start over)",
        path.display()
    )]
    Unauthenticated { path: PathBuf, reason: super::sealed::Unsealed },
    /// The per-user key that authenticates state files cannot be had: a state file is
    /// then neither trusted nor written.
    #[error("{}: cannot be authenticated: {reason}", path.display())]
    NoKey { path: PathBuf, reason: String },
}

impl Workspace {
    /// Creates `.reviewhost/` and `.reviewhost/reports/` under `root` if needed, opens
    /// both as handles (refusing a symlink) and takes the lock (without waiting).
    pub fn open(root: &Path) -> Result<Workspace, StateError> {
        let path = root.join(DIR);
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StateError::Io { path, source }
        };
        // The root is the operator's: a symlink on the way to it is followed.
        let root_dir = rustix::fs::open(root, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
            .map(File::from)
            .map_err(|e| StateError::Io { path: root.to_path_buf(), source: e.into() })?;
        let dir = subdir(&root_dir, DIR).map_err(io(&path))?;
        let reports = subdir(&dir, "reports").map_err(io(&path.join("reports")))?;
        let lock_path = path.join("lock");
        let lock = match FileLock::try_acquire_in(&dir, OsStr::new("lock")) {
            Ok(Some(lock)) => lock,
            Ok(None) => return Err(StateError::Locked { path: lock_path }),
            Err(source) => return Err(StateError::Io { path: lock_path, source }),
        };
        Ok(Workspace { root: root.to_path_buf(), path, dir, reports, git: std::sync::OnceLock::new(), _lock: lock })
    }

    /// `<root>/.reviewhost`, for messages.
    pub fn dir(&self) -> &Path {
        &self.path
    }

    /// The saved state, if a review has been started here. Each loop has its own state
    /// type, kept in the loop's folder (seed 000's is the convergence loop's `State`).
    pub fn load_state<S: DeserializeOwned>(&self, name: &str) -> Result<Option<S>, StateError> {
        let path = self.path.join(name);
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let file = match rustix::fs::openat(&self.dir, name, flags, Mode::empty()) {
            Ok(fd) => File::from(fd),
            Err(Errno::NOENT) => return Ok(None),
            Err(e) => return Err(StateError::Io { source: explain(&self.dir, name, e, Want::File), path }),
        };
        let mut bytes = Vec::new();
        let read = match file.metadata() {
            Ok(meta) if !meta.is_file() => Err(refused(name, NOT_REGULAR)),
            Ok(meta) if meta.len() > MAX_STATE_BYTES => {
                Err(io::Error::other(format!("larger than {} MiB", MAX_STATE_BYTES >> 20)))
            }
            Ok(_) => file.take(MAX_STATE_BYTES).read_to_end(&mut bytes).map(drop),
            Err(e) => Err(e),
        };
        read.map_err(|source| StateError::Io { path: path.clone(), source })?;
        let (key, root) = self.state_key(name)?;
        let body = key
            .open(name, &root, &bytes)
            .map_err(|reason| StateError::Unauthenticated { path: path.clone(), reason })?;
        serde_json::from_slice(&body).map(Some).map_err(|e| StateError::Corrupt { path, reason: e.to_string() })
    }

    /// Replaces the state file `name` atomically, with the MAC that [`Workspace::load_state`]
    /// checks ([`super::sealed`]).
    pub fn save_state<S: Serialize>(&self, name: &str, state: &S) -> Result<(), StateError> {
        let path = self.path.join(name);
        let mut body = serde_json::to_vec_pretty(state).expect("the state serializes");
        body.push(b'\n');
        let (key, root) = self.state_key(name)?;
        let Some(file) = key.seal(name, &root, &body) else {
            let reason = "the state is not a JSON object with members".to_string();
            return Err(StateError::Corrupt { path, reason });
        };
        write_atomically(&self.dir, OsStr::new(name), |out| out.write_all(&file))
            .map_err(|source| StateError::Io { path, source })
    }

    /// The key that authenticates the state file `name`, and the canonical root its MAC
    /// binds it to.
    fn state_key(&self, name: &str) -> Result<(StateKey, PathBuf), StateError> {
        let path = self.path.join(name);
        let root = self.root.canonicalize().map_err(|source| StateError::Io { path: self.root.clone(), source })?;
        let key = StateKey::for_root(&root).map_err(|reason| StateError::NoKey { path, reason })?;
        Ok((key, root))
    }

    /// Replaces `.reviewhost/NAME` with `text` atomically (a loop's output, such as the
    /// saved plan); returns its path.
    pub fn save(&self, name: &str, text: &str) -> Result<PathBuf, StateError> {
        let path = self.path.join(name);
        write_atomically(&self.dir, OsStr::new(name), |out| out.write_all(text.as_bytes()))
            .map_err(|source| StateError::Io { path: path.clone(), source })?;
        Ok(path)
    }

    /// Whether the operator asked the loop to stop ([`request_cancel`]); the request is
    /// consumed. Removing the entry never follows it, whatever it is.
    pub fn take_cancel(&self) -> bool {
        rustix::fs::unlinkat(&self.dir, CANCEL, rustix::fs::AtFlags::empty()).is_ok()
    }

    /// Appends one event, the blocks' ([`super::event::Event`]) or a loop's own:
    /// `{"ts": …, "event": NAME, …fields}` on one line.
    pub fn event(&self, event: &impl LogEvent) -> Result<(), StateError> {
        append_event(&self.dir, &self.path, event)
    }

    /// Appends `line` (and a newline) to `.reviewhost/NAME` in one write.
    pub fn append(&self, name: &str, line: &str) -> Result<(), StateError> {
        append_line(&self.dir, &self.path, name, line)
    }

    /// The root the workspace belongs to.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Writes `reports/NAME`.
    pub fn report(&self, name: &str, text: &str) -> Result<PathBuf, StateError> {
        let path = self.path.join("reports").join(name);
        open_in_place(&self.reports, name, OFlags::empty())
            .and_then(|mut f| {
                f.set_len(0)?;
                f.write_all(text.as_bytes())
            })
            .map_err(|source| StateError::Io { path: path.clone(), source })?;
        Ok(path)
    }

    /// git for this root, with reviewhost's private git directory ([`HostGit`]): made on
    /// first use, kept for the workspace's life.
    pub fn git(&self) -> Result<&HostGit, GitError> {
        let made = self.git.get_or_init(|| HostGit::kept(&self.root).map_err(|e| e.to_string()));
        made.as_ref().map_err(|reason| GitError::NotARepository { root: self.root.clone(), reason: reason.clone() })
    }

    /// Snapshots the working tree (tracked and untracked files, minus ignored ones and
    /// `exclude`) as a commit under `refs/reviewhost/pass-N` of reviewhost's private git
    /// directory, its index started from `base` (the previous snapshot; `HEAD` when
    /// `None`) so no file once seen can hide behind a `.gitignore`. Works outside a git
    /// repository too.
    pub fn snapshot(&self, pass: u32, base: Option<&str>, exclude: &[&str]) -> Result<String, GitError> {
        self.snapshot_ref(&format!("pass-{pass}"), base, exclude)
    }

    /// Snapshots the working tree as [`Workspace::snapshot`] does, as the commit of
    /// `refs/reviewhost/NAME`.
    pub fn snapshot_ref(&self, name: &str, base: Option<&str>, exclude: &[&str]) -> Result<String, GitError> {
        self.git()?.snapshot(name, base, exclude)
    }

    /// Files that differ between two snapshots.
    pub fn changed(&self, from: &str, to: &str) -> Result<Vec<String>, GitError> {
        self.git()?.changed(from, to)
    }
}

/// Appends `event` to `events.jsonl` in `dir` (`path`, for messages). One write(2) per
/// line with O_APPEND: lines from parallel analysts, and from `reviewhost mcp` processes
/// the agents start, never mix.
fn append_event(dir: &File, path: &Path, event: &impl LogEvent) -> Result<(), StateError> {
    let mut line = json!({
        "ts": humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
    });
    if let (Some(line), Ok(Value::Object(fields))) = (line.as_object_mut(), serde_json::to_value(event)) {
        line.extend(fields);
    }
    append_line(dir, path, "events.jsonl", &line.to_string())
}

/// Appends `line` and a newline to `name` in `dir` (`path`, for messages) with one
/// write(2) and O_APPEND, so lines from several processes never mix.
fn append_line(dir: &File, path: &Path, name: &str, line: &str) -> Result<(), StateError> {
    let mut text = line.to_string();
    text.push('\n');
    open_in_place(dir, name, OFlags::APPEND)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|source| StateError::Io { path: path.join(name), source })
}

/// The event log of a review in progress, for another process that adds to it:
/// `reviewhost mcp`, started by an agent of the review. It takes no lock (the review
/// holds it) and creates nothing: `.reviewhost/` must exist and not be a symlink.
pub struct EventLog {
    path: PathBuf,
    dir: File,
}

impl EventLog {
    /// The log of the review of `root`.
    pub fn open(root: &Path) -> Result<EventLog, StateError> {
        let path = root.join(DIR);
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let root_dir = rustix::fs::open(root, flags, Mode::empty())
            .map(File::from)
            .map_err(|e| StateError::Io { path: root.to_path_buf(), source: e.into() })?;
        let dir = rustix::fs::openat(&root_dir, DIR, flags | OFlags::NOFOLLOW, Mode::empty())
            .map(File::from)
            .map_err(|e| StateError::Io { path: path.clone(), source: explain(&root_dir, DIR, e, Want::Directory) })?;
        Ok(EventLog { path, dir })
    }

    /// Appends one event.
    pub fn event(&self, event: &impl LogEvent) -> Result<(), StateError> {
        append_event(&self.dir, &self.path, event)
    }
}

/// Asks the loop running in `root` to stop before its next agent call (`reviewhost plan
/// --cancel`): creates `.reviewhost/cancel` without taking the lock the loop holds,
/// refusing a symlinked `.reviewhost` and never opening an existing entry.
pub fn request_cancel(root: &Path) -> Result<PathBuf, StateError> {
    let log = EventLog::open(root)?;
    let path = log.path.join(CANCEL);
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    match rustix::fs::openat(&log.dir, CANCEL, flags, Mode::from_raw_mode(0o600)) {
        Ok(_) | Err(Errno::EXIST) => Ok(path),
        Err(e) => Err(StateError::Io { path, source: e.into() }),
    }
}

/// Refuses `relative` (the assertions file a review writes, relative to `root`) when it
/// or a directory on its way inside the root is a symbolic link: a repository that
/// ships `.claude -> ~/somewhere` would otherwise have the review create and replace
/// files there. Checked when the review starts, on what the repository holds; the
/// assertions file itself and its lock are refused again, race-free, by every write
/// ([`FileLock::acquire`], [`crate::write::write_json_atomically`]). Stops at the first component that
/// does not exist or is not a plain name.
pub fn refuse_symlinks_on_the_way(root: &Path, relative: &Path) -> Result<(), StateError> {
    let mut path = root.to_path_buf();
    for component in relative.components() {
        let Component::Normal(name) = component else { return Ok(()) };
        path.push(name);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_symlink() => {
                return Err(StateError::Io { source: refused(name, SYMLINK), path });
            }
            Ok(_) => {}
            Err(_) => return Ok(()),
        }
    }
    Ok(())
}
