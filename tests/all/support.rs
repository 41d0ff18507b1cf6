//! Helpers shared by the test modules.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use reviewhost::Runner;
use reviewhost::sandbox::{Cache, CacheKey, Limits};
use sha2::{Digest, Sha256};

/// One compiled-component cache for the whole test run, inside the target directory,
/// so the built-in components are compiled once, not once per test.
pub fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("reviewhost-cache")
}

/// The key that authenticates the test cache's entries (kept apart from the cache).
pub fn cache_key_path() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("reviewhost-keys").join("cache.key")
}

/// The compiled-component cache at `dir`, authenticated with the test key.
pub fn cache_at(dir: &Path) -> Cache {
    Cache::open(dir, CacheKey::load_or_create(&cache_key_path()).unwrap()).unwrap()
}

/// The `reviewhost` binary, with the test cache and no inherited `ASSERTIONS_FILE`.
pub fn reviewhost() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_reviewhost"));
    cmd.env("REVIEWHOST_CACHE_DIR", cache_dir())
        .env("REVIEWHOST_CACHE_KEY", cache_key_path())
        .env_remove("ASSERTIONS_FILE")
        .env("NO_COLOR", "1");
    cmd
}

/// Runs `reviewhost run FILE --root ROOT EXTRA...`.
pub fn run(file: &Path, root: &Path, extra: &[&str]) -> Output {
    reviewhost().arg("run").arg(file).arg("--root").arg(root).args(extra).output().expect("reviewhost runs")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A runner over the library with the test cache.
pub fn runner(limits: Limits, jobs: usize) -> Runner {
    Runner::new(limits, jobs, Some(cache_at(&cache_dir()))).unwrap()
}

pub fn sha256(path: &Path) -> String {
    format!("{:x}", Sha256::digest(std::fs::read(path).unwrap()))
}

/// Runs `git ARGS` in `root` with a committer identity of its own; returns stdout and
/// fails the test on a non-zero exit.
pub fn git(root: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    stdout(&out)
}

/// Writes an assertions file holding `assertions` (a JSON array) into `dir`.
pub fn assertions_file(dir: &Path, assertions: serde_json::Value) -> PathBuf {
    let path = dir.join("review-assertions.json");
    let doc = serde_json::json!({
        "plugin": "test",
        "max_passes": 5,
        "current_pass": 1,
        "assertions": assertions,
        "confidence": { "passed": 0, "total": 0, "score": 0.0 }
    });
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    path
}

/// The file's assertions, parsed.
pub fn read_assertions(path: &Path) -> Vec<serde_json::Value> {
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    doc["assertions"].as_array().unwrap().clone()
}

/// `(id, status)` of every assertion in the file.
pub fn statuses(path: &Path) -> Vec<(String, String)> {
    read_assertions(path)
        .iter()
        .map(|a| (a["id"].as_str().unwrap().to_string(), a["status"].as_str().unwrap_or("null").to_string()))
        .collect()
}

/// Copies the directory `from` to `to`, recursively (files and directories only).
/// Writes each (root-relative path, text) under `root`, making directories as needed.
pub fn write_files(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a file has a parent")).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A plan in the tugplan format (seed 004) that the plan validator accepts.
pub const TUGPLAN: &str = "## Phase 1.0: Rate limits {#phase-1}

**Purpose:** Limit login attempts.

---

### Plan Metadata {#plan-metadata}

| Field | Value |
|------|-------|
| Owner | Team |
| Status | draft |
| Target branch | main |
| Tracking issue/PR | TBD |
| Last updated | 2026-11-24 |

---

### Phase Overview {#phase-overview}

Logins can be brute-forced today.

---

### Design Decisions {#design-decisions}

#### [D01] A limiter in the handler (DECIDED) {#d01-limiter}

**Decision:** Count failures per account.

**Rationale:** No new service.

---

### 1.0.5 Execution Steps {#execution-steps}

#### Step 1: Add the limiter {#step-1}

**Commit:** `feat: limit logins`

**References:** [D01] A limiter in the handler

**Tasks:**
- [ ] Count failures in src/auth.rs

**Tests:**
- [ ] Six failures lock the account

**Checkpoint:**
- [ ] cargo test passes

---

### Deliverables {#deliverables}

- The limiter
";

/// A repository (`root`, empty) whose agents are the scripted agent
/// (`tests/agents/scripted_agent.py`) playing `script`, named in an operator's
/// configuration beside it, outside the root. Each loop's tests wrap it with their own
/// setup and subcommand.
pub struct Scripted {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
    pub script: PathBuf,
}

impl Scripted {
    pub fn new(script: &serde_json::Value) -> Scripted {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(&root).unwrap();
        let agent = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents/scripted_agent.py");
        let script_path = dir.path().join("script.json");
        std::fs::write(&script_path, script.to_string()).unwrap();
        std::fs::write(
            dir.path().join("reviewhost.toml"),
            format!(
                "[agent]\ncommand = [\"python3\", {:?}, {:?}]\ntimeout = \"20s\"\n",
                agent.display().to_string(),
                script_path.display().to_string()
            ),
        )
        .unwrap();
        Scripted { dir, root, script: script_path }
    }

    /// `reviewhost SUBCOMMAND --config (the operator's)`, with an empty user
    /// configuration and no trust in the repository's own.
    pub fn command(&self, subcommand: &str) -> Command {
        let mut command = reviewhost();
        command
            .env("REVIEWHOST_CONFIG_DIR", self.dir.path().join("user-config"))
            .env_remove("REVIEWHOST_TRUST_REPO_CONFIG")
            .arg(subcommand)
            .arg("--config")
            .arg(self.dir.path().join("reviewhost.toml"));
        command
    }

    /// Writes `text` to `path` under the root.
    pub fn write(&self, path: &str, text: &str) {
        let path = self.root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// How many times `agent` was called.
    pub fn calls(&self, agent: &str) -> usize {
        std::fs::read_to_string(format!("{}.calls/{agent}.count", self.script.display()))
            .map_or(0, |n| n.trim().parse().unwrap())
    }

    /// The prompt of `agent`'s call `n` (from 1).
    pub fn prompt(&self, agent: &str, n: usize) -> String {
        std::fs::read_to_string(format!("{}.calls/{agent}-{n}.prompt", self.script.display())).unwrap()
    }

    /// Every event in `.reviewhost/events.jsonl`.
    pub fn events(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.root.join(".reviewhost/events.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The state file `name` in `.reviewhost/`.
    pub fn state(&self, name: &str) -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(self.root.join(".reviewhost").join(name)).unwrap()).unwrap()
    }
}

/// Starts `running` (a loop over `root`), waits until agent `agent` has started (its
/// `agent_start` in `root`'s events), runs `cancel` (the loop's `--cancel` for that root,
/// which must exit 0), and returns how the loop ended.
pub fn cancel_once_started(mut running: Command, root: &Path, agent: &str, mut cancel: Command) -> Output {
    let child = running.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let started = std::time::Instant::now();
    let log = root.join(".reviewhost/events.jsonl");
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .any(|e| e["event"] == "agent_start" && e["agent"] == agent)
    {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "{agent} never started");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let asked = cancel.output().unwrap();
    assert_eq!(asked.status.code(), Some(0), "{}", String::from_utf8_lossy(&asked.stderr));
    assert!(String::from_utf8_lossy(&asked.stdout).contains("to stop before its next agent call"));
    child.wait_with_output().unwrap()
}
