//! The one way reviewhost's host code runs git on a reviewed repository.
//!
//! The reviewed repository is untrusted, `.git/` included: its `config` can name
//! commands (`core.fsmonitor`, `filter.*.clean`, `diff.*.textconv`, `core.hooksPath`,
//! `include.path`, promisor remotes), its `hooks/` are programs, its `.gitattributes`
//! choose filter drivers and conversions (`-diff`, `working-tree-encoding`, `ident`,
//! `eol`), and a repository can commit a bare repository in a subdirectory that git's
//! discovery takes for the repository. Any of them, honoured by a `git` the host runs,
//! runs the repository's code on the host or hides a change from the reviewer.
//!
//! So the host never runs git *in* the repository. Every call goes through [`HostGit`],
//! which runs the real `git` with:
//!
//! - a **private git directory** (`GIT_DIR`) that reviewhost made and owns: its own
//!   `config` (no hooks, no fsmonitor, no untracked cache, no auto-gc, no drivers), no
//!   `hooks/`, and an `info/attributes` that unsets every attribute git converts
//!   content or picks a driver by (`text`, `eol`, `crlf`, `filter`, `ident`,
//!   `working-tree-encoding`, `diff`, `merge`): `info/attributes` outranks every
//!   `.gitattributes` in the tree, so none of those takes effect. The repository's own
//!   `.git/config`, `.git/hooks` and `.git/info/` are never read by git;
//! - the repository's refs **copied** by reviewhost's own bounded reader
//!   ([`copy_refs`]: `HEAD`, loose refs, `packed-refs`, never through a symlink, names
//!   and ids validated) into the private `packed-refs`, so revisions such as `HEAD~1`
//!   or `origin/main` resolve without git opening the repository's git directory (an
//!   ambiguous name is refused, not resolved by git's preference);
//! - the repository's objects **imported, verified**: the private directory has no
//!   alternate. A commit of the repository a review starts from is read from its object
//!   store (checked first: only directories and regular files, no `alternates`),
//!   hashed again (`hash-object`), and its whole tree written into the private store by
//!   `git fast-import`, which hashes every blob itself; the import counts only when the
//!   tree it makes has the commit's tree id ([`HostGit::import`]). A planted object
//!   whose contents do not match its id, a forged commit-graph or pack index, or
//!   another repository's objects reached through `alternates` cannot change what the
//!   reviewer is shown: every later read is of objects reviewhost wrote itself;
//! - the work tree named explicitly (`GIT_WORK_TREE`): no discovery. Only `<root>/.git`
//!   counts, and only when it is a real directory (not a symlink, not a `gitdir:`
//!   file); a bare repository anywhere in the tree is never taken for the repository;
//! - an **empty environment** (`env_clear`) but for `PATH`, a private `HOME`, and the
//!   variables below: no `GIT_*` of the caller (a hook that runs reviewhost has
//!   `GIT_DIR` and `GIT_INDEX_FILE` set), no system or global configuration, no pager,
//!   no terminal prompt, no lazy fetch, no replace objects;
//! - **bounds**: what git prints is read up to a limit, each call has a deadline and an
//!   address-space cap, after which it is killed and the call fails with the bound in
//!   the message; git is run by its absolute path, found on the absolute entries of
//!   `PATH` only.
//!
//! What git is allowed to do, then: read the work tree's files (following its
//! `.gitignore`s), read the repository's objects while importing one commit, write
//! objects, a temporary index and refs under `refs/reviewhost/` in the private
//! directory. Diffs are asked for with `--text --no-ext-diff --no-textconv
//! --no-renames --ignore-submodules=none`, so what the reviewer sees is the bytes that
//! changed. Replacing git with gitoxide in-process was the alternative; it
//! would add gitoxide's worktree and diff machinery to the host (the host has none of
//! gix today) for the same guarantee, and git's own `add -A` and diff are what the
//! snapshots and the reviewer's patch have always been.
//!
//! A private directory for a review is kept in reviewhost's per-user cache
//! (`<cache>/git/<hash of the root>`, `0700`, checked as the compiled-component cache
//! is), so the snapshots of one pass outlive the process for `review --resume`;
//! reviewhost no longer writes anything into the reviewed repository's `.git/`.
//! `tests/all/host_git.rs` keeps any other `Command::new("git")` out of the host.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The most a git call may print before it is stopped: a diff larger than this cannot
/// be reviewed anyway (the prompt budget is far smaller).
pub const MAX_OUTPUT: usize = 64 << 20;
/// How long one git call may take before it is killed.
pub const DEADLINE: std::time::Duration = std::time::Duration::from_secs(300);
/// The address space one git call may map (`RLIMIT_AS`).
const MAX_GIT_MEMORY: u64 = 4 << 30;
/// Largest blob imported from the repository.
const MAX_IMPORTED_BLOB: u64 = 256 << 20;
/// The most refs copied from the repository.
const MAX_REFS: usize = 200_000;
/// Largest `packed-refs` read.
const MAX_PACKED_REFS: u64 = 64 << 20;
/// Largest loose ref or `HEAD` read.
const MAX_REF_FILE: u64 = 4096;

/// What the private `info/attributes` says for every path: every attribute that makes
/// git convert content, run a driver, or call a file binary is unspecified.
const ATTRIBUTES: &str = "* !text !eol !crlf !filter !ident !working-tree-encoding !diff !merge !binary\n";

/// Why git could not answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GitError {
    #[error("{}: not a git repository ({reason})", root.display())]
    NotARepository { root: PathBuf, reason: String },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("git {args}: {reason}")]
    Failed { args: String, reason: String },
    #[error("git {args}: printed more than {} MiB, the most reviewhost reads", limit >> 20)]
    TooLarge { args: String, limit: usize },
    #[error("a revision cannot start with '-': {0}")]
    BadRevision(String),
    #[error("git {args}: still running after {} s, killed", DEADLINE.as_secs())]
    TimedOut { args: String },
    #[error("{revision}: {reason}")]
    Untrusted { revision: String, reason: String },
    #[error("the work tree cannot be shown whole: {reason}")]
    Unreviewable { reason: String },
}

/// git, run for one root with a private git directory (see the module note).
#[derive(Debug)]
pub struct HostGit {
    root: PathBuf,
    /// The private git directory.
    dir: PathBuf,
    /// Keeps a temporary private directory alive (none for a kept one).
    _temp: Option<tempfile::TempDir>,
    /// Whether `<root>/.git` is a repository whose objects and refs were taken.
    repository: Result<(), String>,
    /// git, by its absolute path.
    program: PathBuf,
    /// `HEAD`'s tree, imported once.
    head: std::sync::OnceLock<Option<String>>,
}

impl HostGit {
    /// git for `root` with a private directory kept in reviewhost's per-user cache, so
    /// snapshots outlive the process (`review`, `fix-review`); a temporary one when no
    /// private cache directory can be had.
    pub fn kept(root: &Path) -> Result<HostGit, GitError> {
        let root = canonical(root)?;
        let kept = crate::sandbox::Cache::default_dir().and_then(|cache| {
            let dir = HostGit::kept_dir(&cache, &root);
            let private = crate::sandbox::create_private_dir(&dir)
                .and_then(|()| crate::sandbox::check_private(&dir))
                .and_then(|()| crate::sandbox::check_private(dir.parent().expect("a parent")));
            private.is_ok().then_some(dir)
        });
        match kept {
            Some(dir) => HostGit::at(root, dir, None),
            None => HostGit::at_temporary(root),
        }
    }

    /// The private directory [`HostGit::kept`] keeps for the canonical `root` under the
    /// cache directory `cache`: `<cache>/git/<BLAKE3 of the root's path>`. Its refs
    /// `refs/reviewhost/*` are the snapshots (`git --git-dir DIR log refs/reviewhost/pass-1`).
    pub fn kept_dir(cache: &Path, root: &Path) -> PathBuf {
        cache.join("git").join(crate::sandbox::hex(&blake3::hash(root.as_os_str().as_encoded_bytes()).as_bytes()[..16]))
    }

    /// git for `root` with a private directory removed when this value is dropped
    /// (`run --changed-since`).
    pub fn temporary(root: &Path) -> Result<HostGit, GitError> {
        HostGit::at_temporary(canonical(root)?)
    }

    fn at_temporary(root: PathBuf) -> Result<HostGit, GitError> {
        let temp = tempfile::Builder::new()
            .prefix("reviewhost-git-")
            .tempdir()
            .map_err(|source| GitError::Io { path: std::env::temp_dir(), source })?;
        let dir = temp.path().to_path_buf();
        HostGit::at(root, dir, Some(temp))
    }

    fn at(root: PathBuf, dir: PathBuf, temp: Option<tempfile::TempDir>) -> Result<HostGit, GitError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| GitError::Io { path, source }
        };
        for sub in ["objects/info", "info", "hooks", "refs/heads", "refs/tags", "refs/reviewhost"] {
            crate::sandbox::create_private_dir(&dir.join(sub)).map_err(io(&dir.join(sub)))?;
        }
        let write = |name: &str, text: &str| {
            let path = dir.join(name);
            crate::write::open_parent(&path)
                .and_then(|(parent, name)| {
                    crate::write::write_atomically(&parent, name, |out| out.write_all(text.as_bytes()))
                })
                .map_err(io(&path))
        };
        write(
            "config",
            &format!(
                "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfilemode = true\n\tsymlinks = true\n\t\
                 commitGraph = false\n\tmultiPackIndex = false\n\twarnAmbiguousRefs = true\n\t\
                 fsmonitor = false\n\tuntrackedCache = false\n\tautocrlf = false\n\tsafecrlf = false\n\t\
                 hooksPath = {hooks}\n\tattributesFile = /dev/null\n\texcludesFile = /dev/null\n\t\
                 quotePath = false\n\tpager = cat\n\tbigFileThreshold = 512m\n\
                 [gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n[index]\n\tskipHash = false\n\
                 [diff]\n\trenames = false\n\tnoprefix = false\n\tmnemonicPrefix = false\n\t\
                 relative = false\n\tsubmodule = short\n\tignoreSubmodules = none\n[submodule]\n\trecurse = false\n\
                 [protocol]\n\tallow = never\n",
                hooks = dir.join("hooks").display()
            ),
        )?;
        write("info/attributes", ATTRIBUTES)?;
        write("info/exclude", "")?;
        let git_dir = root.join(".git");
        let repository = match std::fs::symlink_metadata(&git_dir) {
            Ok(meta) if meta.is_dir() => check_object_store(&git_dir.join("objects")),
            Ok(meta) if meta.is_symlink() => Err(format!("{} is a symlink", git_dir.display())),
            Ok(_) => {
                Err(format!("{} is not a directory (worktrees and submodules are not supported)", git_dir.display()))
            }
            Err(_) => Err(format!("{} does not exist (reviewhost does not look above the root)", git_dir.display())),
        };
        let (head, refs) = match &repository {
            Ok(()) => {
                let refs = copy_refs(&git_dir)?;
                (refs.head, refs.packed)
            }
            Err(_) => ("ref: refs/heads/reviewhost-none\n".to_string(), String::new()),
        };
        // The private store never has an alternate (an older layout had one).
        write("objects/info/alternates", "")?;
        write("packed-refs", &format!("# pack-refs with: sorted \n{refs}"))?;
        write("HEAD", &head)?;
        let program = find_git()?;
        Ok(HostGit { root, dir, program, _temp: temp, repository, head: std::sync::OnceLock::new() })
    }

    /// The root, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Fails unless `<root>/.git` is a repository whose refs were taken.
    fn repository(&self) -> Result<(), GitError> {
        self.repository.clone().map_err(|reason| GitError::NotARepository { root: self.root.clone(), reason })
    }

    /// The tree of the commit `revision` names in the repository, imported into the
    /// private store and verified (see the module note); later calls with the same tree
    /// find it there and read nothing of the repository.
    pub fn import(&self, revision: &str) -> Result<String, GitError> {
        if revision.starts_with('-') {
            return Err(GitError::BadRevision(revision.to_string()));
        }
        self.repository()?;
        // Again at each import: a writing agent may have changed the store since.
        check_object_store(&self.root.join(".git/objects"))
            .map_err(|reason| GitError::NotARepository { root: self.root.clone(), reason })?;
        let untrusted = |reason: String| GitError::Untrusted { revision: revision.to_string(), reason };
        let spec = format!("{revision}^{{commit}}");
        let resolved = self.git(&["rev-parse", "--verify", "--end-of-options", &spec]).repository().run()?;
        if String::from_utf8_lossy(&resolved.stderr).contains("ambiguous") {
            return Err(untrusted(
                "the name is ambiguous (name the ref in full, e.g. refs/heads/… or refs/tags/…)".into(),
            ));
        }
        let commit = String::from_utf8_lossy(&resolved.stdout).trim().to_string();
        // The commit's own bytes, hashed again: its tree id is what the import must make.
        let body = self.git(&["cat-file", "commit", &commit]).repository().run()?.stdout;
        let rehashed = self.git(&["hash-object", "-t", "commit", "--stdin"]).stdin(body.clone()).run()?;
        if String::from_utf8_lossy(&rehashed.stdout).trim() != commit {
            return Err(untrusted(format!("the repository's object {commit} does not hash to its id")));
        }
        let tree = body
            .strip_prefix(b"tree ")
            .and_then(|rest| rest.get(..40))
            .map(|id| String::from_utf8_lossy(id).into_owned())
            .filter(|id| is_id(id))
            .ok_or_else(|| untrusted(format!("commit {commit} names no tree")))?;
        if self.git(&["cat-file", "-e", &format!("{tree}^{{tree}}")]).run().is_ok() {
            return Ok(tree);
        }
        let made = self.fast_import(&tree).map_err(|e| untrusted(e.to_string()))?;
        if made != tree {
            return Err(untrusted(format!(
                "the repository's objects for tree {tree} do not match their ids (they make {made})"
            )));
        }
        Ok(tree)
    }

    /// Writes the tree `tree` of the repository into the private store through `git
    /// fast-import`, blob by blob as `git cat-file --batch` reads them; the tree id
    /// fast-import made.
    fn fast_import(&self, tree: &str) -> Result<String, GitError> {
        let listing = self.git(&["ls-tree", "-r", "-z", "--full-tree", tree]).repository().run()?.stdout;
        let mut reader = self.git(&["cat-file", "--batch"]).repository().spawn()?;
        let mut writer = self.git(&["fast-import", "--quiet", "--done"]).spawn()?;
        let mut commands: Vec<u8> = Vec::new();
        let mut files: Vec<u8> = Vec::new();
        let failed = |reason: String| GitError::Failed { args: "fast-import".into(), reason };
        let mut mark = 0u64;
        for entry in listing.split(|b| *b == 0).filter(|e| !e.is_empty()) {
            // `MODE TYPE ID\tPATH`
            let Some(tab) = entry.iter().position(|b| *b == b'\t') else { continue };
            let (head, path) = (String::from_utf8_lossy(&entry[..tab]).into_owned(), &entry[tab + 1..]);
            let fields: Vec<&str> = head.split(' ').collect();
            let [mode, kind, id] = fields[..] else { continue };
            if !is_id(id) {
                return Err(failed(format!("a tree entry with id {id}")));
            }
            let quoted = quote_path(path);
            if kind == "commit" {
                files.extend_from_slice(format!("M 160000 {id} ").as_bytes());
            } else {
                let content = reader.blob(id)?;
                mark += 1;
                commands.extend_from_slice(format!("blob\nmark :{mark}\ndata {}\n", content.len()).as_bytes());
                commands.extend_from_slice(&content);
                commands.push(b'\n');
                writer.feed(&commands)?;
                commands.clear();
                files.extend_from_slice(format!("M {mode} :{mark} ").as_bytes());
            }
            files.extend_from_slice(&quoted);
            files.push(b'\n');
        }
        reader.finish()?;
        let mut tail =
            b"commit refs/reviewhost/import\ncommitter reviewhost <reviewhost@localhost> 0 +0000\ndata 0\ndeleteall\n"
                .to_vec();
        tail.extend_from_slice(&files);
        tail.extend_from_slice(b"\ndone\n");
        writer.feed(&tail)?;
        writer.finish()?;
        let made = self.text(&["rev-parse", "refs/reviewhost/import^{tree}"], None)?.trim().to_string();
        // The objects stay (the private store never collects garbage); the ref goes.
        self.text(&["update-ref", "-d", "refs/reviewhost/import"], None)?;
        Ok(made)
    }

    /// The tree of the repository's `HEAD`, imported, if it has one (once per value:
    /// the refs were copied once).
    pub fn head(&self) -> Option<String> {
        self.head
            .get_or_init(|| {
                self.repository().ok()?;
                self.git(&["rev-parse", "--verify", "-q", "HEAD^{commit}"]).repository().run().ok()?;
                self.import("HEAD").ok()
            })
            .clone()
    }

    /// The work tree as git's `add -A` sees it (tracked and untracked files, minus
    /// ignored ones and `exclude`), as a tree object. The index starts from `base` (a
    /// tree or commit in the private store; `HEAD`'s tree when `None`), so every file
    /// `base` holds stays in, ignored or not. Refused, before git reads the tree, when
    /// it holds what git would hide or wait on ([`check_work_tree`]), and after, when a
    /// `.gitignore` hides itself.
    pub fn worktree_tree(&self, base: Option<&str>, exclude: &[&str]) -> Result<String, GitError> {
        let unreviewable = |reason: String| GitError::Unreviewable { reason };
        let base = match base {
            Some(base) => Some(base.to_string()),
            None => self.head(),
        };
        let gitlinks = match &base {
            Some(base) => self.gitlink_paths(base)?,
            None => Vec::new(),
        };
        let ignore_files = check_work_tree(&self.root, exclude, &gitlinks).map_err(unreviewable)?;
        let index = tempfile::Builder::new()
            .prefix("index-")
            .tempfile_in(&self.dir)
            .map_err(|source| GitError::Io { path: self.dir.clone(), source })?;
        // git wants to make the index itself: the name is ours, the file is not yet.
        let index = index.into_temp_path();
        let _ = std::fs::remove_file(&index);
        let index_path = index.to_path_buf();
        if let Some(base) = &base {
            self.text(&["read-tree", base], Some(&index_path))?;
        }
        let excluded: Vec<String> = exclude.iter().map(|e| format!(":(exclude){e}")).collect();
        let mut add = vec!["add", "-A", "--", "."];
        add.extend(excluded.iter().map(String::as_str));
        self.text(&add, Some(&index_path))?;
        self.refuse_self_ignored(&ignore_files, &index_path)?;
        let tree = self.text(&["write-tree"], Some(&index_path))?.trim().to_string();
        Ok(tree)
    }

    /// The paths of `tree`'s gitlinks (submodules), which may hold a `.git`.
    fn gitlink_paths(&self, tree: &str) -> Result<Vec<String>, GitError> {
        let listing = self.bytes(&["ls-tree", "-r", "-z", tree], None)?;
        Ok(listing
            .split(|b| *b == 0)
            .filter(|e| e.starts_with(b"160000 "))
            .filter_map(|e| {
                e.iter().position(|b| *b == b'\t').map(|tab| String::from_utf8_lossy(&e[tab + 1..]).into_owned())
            })
            .collect())
    }

    /// Refuses a `.gitignore` that hides itself from the snapshot (not in the index
    /// after `add -A`) while its directory is not ignored by another: its rules would
    /// hide files without the rule itself being shown.
    fn refuse_self_ignored(&self, ignore_files: &[String], index: &Path) -> Result<(), GitError> {
        if ignore_files.is_empty() {
            return Ok(());
        }
        let mut args = vec!["ls-files", "-z", "--cached", "--"];
        args.extend(ignore_files.iter().map(String::as_str));
        let listed = self.bytes(&args, Some(index))?;
        let listed: Vec<&[u8]> = listed.split(|b| *b == 0).collect();
        let hidden: Vec<&String> = ignore_files.iter().filter(|f| !listed.contains(&f.as_bytes())).collect();
        for file in hidden {
            let dir = Path::new(file).parent().map(|d| d.to_string_lossy().into_owned()).unwrap_or_default();
            let dir_ignored = !dir.is_empty()
                && self
                    // Without a trailing slash: with one, git applies the directory's own
                    // .gitignore to it.
                    .git(&["check-ignore", "-q", "--no-index", "--", &dir])
                    .run()
                    .is_ok();
            if !dir_ignored {
                return Err(GitError::Unreviewable {
                    reason: format!("{file} ignores itself: the files it hides would not be shown"),
                });
            }
        }
        Ok(())
    }

    /// Snapshots the work tree as a commit under `refs/reviewhost/NAME` of the private
    /// directory.
    pub fn snapshot(&self, name: &str, base: Option<&str>, exclude: &[&str]) -> Result<String, GitError> {
        let tree = self.worktree_tree(base, exclude)?;
        let message = format!("reviewhost: working tree ({name})");
        let commit = self.text(&["commit-tree", &tree, "-m", &message], None)?;
        let commit = commit.trim().to_string();
        self.text(&["update-ref", &format!("refs/reviewhost/{name}"), &commit], None)?;
        Ok(commit)
    }

    /// The paths that differ between two trees or commits.
    pub fn changed(&self, from: &str, to: &str) -> Result<Vec<String>, GitError> {
        let out = self.bytes(
            &[
                "diff",
                "--no-ext-diff",
                "--no-textconv",
                "--no-renames",
                "--ignore-submodules=none",
                "--name-only",
                "-z",
                from,
                to,
            ],
            None,
        )?;
        Ok(out.split(|b| *b == 0).filter(|n| !n.is_empty()).map(|n| String::from_utf8_lossy(n).into_owned()).collect())
    }

    /// The paths changed from `revision` of the repository to the work tree now:
    /// committed, staged, unstaged and untracked (not ignored).
    pub fn changed_since(&self, revision: &str) -> Result<Vec<String>, GitError> {
        let start = self.import(revision)?;
        let tree = self.worktree_tree(Some(&start), &[])?;
        self.changed(&start, &tree)
    }

    /// The entries of the diff from `from` to `to` whose new side is a gitlink (an
    /// embedded repository, whose files a diff does not show).
    pub fn gitlinks(&self, from: &str, to: &str) -> Result<Vec<String>, GitError> {
        let raw = self.bytes(
            &["diff", "--no-ext-diff", "--no-renames", "--ignore-submodules=none", "--raw", "-z", from, to],
            None,
        )?;
        // `:old new oldsha newsha status\0path\0` per entry.
        let mut found = Vec::new();
        let mut fields = raw.split(|b| *b == 0);
        while let Some(header) = fields.next() {
            let Some(path) = fields.next() else { break };
            let header = String::from_utf8_lossy(header);
            if header.split(' ').nth(1) == Some("160000") {
                found.push(String::from_utf8_lossy(path).into_owned());
            }
        }
        Ok(found)
    }

    /// The unified diff from `from` to `to`: every changed file as text, whatever its
    /// attributes or contents say (`--text`), no drivers, no renames.
    pub fn patch(&self, from: &str, to: &str) -> Result<String, GitError> {
        self.text(
            &[
                "diff",
                "--no-ext-diff",
                "--no-textconv",
                "--no-renames",
                "--ignore-submodules=none",
                "--no-color",
                "--text",
                "-U3",
                from,
                to,
            ],
            None,
        )
    }

    /// The paths under `dirs` in the tree of `commit`.
    pub fn ls_tree(&self, commit: &str, dirs: &[&str]) -> Result<Vec<String>, GitError> {
        let mut args = vec!["ls-tree", "-r", "-z", "--name-only", commit, "--"];
        args.extend_from_slice(dirs);
        let out = self.bytes(&args, None)?;
        Ok(out.split(|b| *b == 0).filter(|n| !n.is_empty()).map(|n| String::from_utf8_lossy(n).into_owned()).collect())
    }

    /// The blob `commit:path`, or `Ok(None)` when it is larger than `max` bytes (its
    /// size is asked first; nothing larger is read).
    pub fn blob(&self, commit: &str, path: &str, max: u64) -> Result<Option<Vec<u8>>, GitError> {
        let spec = format!("{commit}:{path}");
        let size: u64 = self.text(&["cat-file", "-s", &spec], None)?.trim().parse().unwrap_or(u64::MAX);
        if size > max {
            return Ok(None);
        }
        self.bytes(&["cat-file", "blob", &spec], None).map(Some)
    }

    fn text(&self, args: &[&str], index: Option<&Path>) -> Result<String, GitError> {
        self.bytes(args, index).map(|out| String::from_utf8_lossy(&out).into_owned())
    }

    fn bytes(&self, args: &[&str], index: Option<&Path>) -> Result<Vec<u8>, GitError> {
        let mut call = self.git(args);
        call.index = index.map(Path::to_path_buf);
        call.run().map(|out| out.stdout)
    }

    /// A git call with `args`, under the hardened environment.
    fn git<'a>(&'a self, args: &'a [&'a str]) -> Call<'a> {
        Call { git: self, args, index: None, repository: false, stdin: None }
    }

    /// The whole environment git runs with.
    fn environment(&self, index: Option<&Path>, repository: bool) -> Vec<(&'static str, OsString)> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let absolute: Vec<PathBuf> = std::env::split_paths(&path).filter(|p| p.is_absolute()).collect();
        let path = std::env::join_paths(absolute).unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
        let mut env: Vec<(&'static str, OsString)> = vec![
            ("PATH", path),
            ("HOME", self.dir.clone().into()),
            ("XDG_CONFIG_HOME", self.dir.join("xdg").into()),
            ("LC_ALL", "C".into()),
            ("GIT_DIR", self.dir.clone().into()),
            ("GIT_WORK_TREE", self.root.clone().into()),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
            ("GIT_CONFIG_GLOBAL", "/dev/null".into()),
            ("GIT_CONFIG_SYSTEM", "/dev/null".into()),
            ("GIT_ATTR_NOSYSTEM", "1".into()),
            ("GIT_TERMINAL_PROMPT", "0".into()),
            ("GIT_NO_LAZY_FETCH", "1".into()),
            ("GIT_NO_REPLACE_OBJECTS", "1".into()),
            ("GIT_OPTIONAL_LOCKS", "0".into()),
            ("GIT_PAGER", "cat".into()),
            ("GIT_AUTHOR_NAME", "reviewhost".into()),
            ("GIT_AUTHOR_EMAIL", "reviewhost@localhost".into()),
            ("GIT_COMMITTER_NAME", "reviewhost".into()),
            ("GIT_COMMITTER_EMAIL", "reviewhost@localhost".into()),
        ];
        env.push(("GIT_INDEX_FILE", index.map_or_else(|| self.dir.join("index-unused"), Path::to_path_buf).into()));
        if repository {
            // Only the reads of an import see the repository's objects.
            env.push(("GIT_ALTERNATE_OBJECT_DIRECTORIES", self.root.join(".git/objects").into()));
        }
        env
    }
}

/// One git call being set up.
struct Call<'a> {
    git: &'a HostGit,
    args: &'a [&'a str],
    index: Option<PathBuf>,
    /// Whether the repository's objects are readable (an import's reads).
    repository: bool,
    stdin: Option<Vec<u8>>,
}

/// What a finished call printed.
struct Output {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl Call<'_> {
    fn repository(mut self) -> Self {
        self.repository = true;
        self
    }

    fn stdin(mut self, bytes: Vec<u8>) -> Self {
        self.stdin = Some(bytes);
        self
    }

    fn describe(&self) -> String {
        self.args.join(" ")
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.git.program);
        command
            .env_clear()
            .args(["--no-pager", "-c", "safe.directory=*", "-c", "core.quotePath=false"])
            .args(self.args)
            .current_dir(&self.git.root)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in self.git.environment(self.index.as_deref(), self.repository) {
            command.env(name, value);
        }
        cap_memory(&mut command);
        command
    }

    /// Runs the call to its end, within [`DEADLINE`] and [`MAX_OUTPUT`].
    fn run(self) -> Result<Output, GitError> {
        let args = self.describe();
        let failed = |reason: String| GitError::Failed { args: args.clone(), reason };
        let mut command = self.command();
        command.stdin(if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        let mut child = command.spawn().map_err(|e| failed(format!("cannot start git: {e}")))?;
        let watchdog = Watchdog::start(child.id());
        if let (Some(bytes), Some(mut pipe)) = (self.stdin, child.stdin.take()) {
            std::thread::spawn(move || drop(std::io::Write::write_all(&mut pipe, &bytes)));
        }
        let mut stderr = child.stderr.take().expect("piped");
        let errors = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = (&mut stderr).take(64 << 10).read_to_end(&mut text);
            let _ = io::copy(&mut stderr, &mut io::sink());
            text
        });
        let mut out = Vec::new();
        let read = child.stdout.take().expect("piped").take(MAX_OUTPUT as u64 + 1).read_to_end(&mut out);
        if out.len() > MAX_OUTPUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(GitError::TooLarge { args, limit: MAX_OUTPUT });
        }
        let status = child.wait().map_err(|e| failed(e.to_string()))?;
        if watchdog.stop() {
            return Err(GitError::TimedOut { args });
        }
        let errors = errors.join().unwrap_or_default();
        read.map_err(|e| failed(e.to_string()))?;
        if !status.success() {
            let reason = String::from_utf8_lossy(&errors).trim().to_string();
            return Err(failed(if reason.is_empty() { status.to_string() } else { reason }));
        }
        Ok(Output { stdout: out, stderr: errors })
    }

    /// Starts the call with its stdin and stdout as pipes, for a conversation.
    fn spawn(self) -> Result<Running, GitError> {
        let args = self.describe();
        let mut command = self.command();
        command.stdin(Stdio::piped()).stderr(Stdio::null());
        let mut child = command
            .spawn()
            .map_err(|e| GitError::Failed { args: args.clone(), reason: format!("cannot start git: {e}") })?;
        let watchdog = Watchdog::start(child.id());
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().map(io::BufReader::new);
        Ok(Running { args, child, stdin, stdout, watchdog: Some(watchdog) })
    }
}

/// A git process being talked to (`cat-file --batch`, `fast-import`).
struct Running {
    args: String,
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: Option<io::BufReader<std::process::ChildStdout>>,
    watchdog: Option<Watchdog>,
}

impl Running {
    fn failed(&self, reason: impl std::fmt::Display) -> GitError {
        GitError::Failed { args: self.args.clone(), reason: reason.to_string() }
    }

    /// Writes `bytes` to the process's stdin.
    fn feed(&mut self, bytes: &[u8]) -> Result<(), GitError> {
        let written = match self.stdin.as_mut() {
            Some(pipe) => std::io::Write::write_all(pipe, bytes),
            None => Err(io::Error::other("stdin closed")),
        };
        written.map_err(|e| self.failed(e))
    }

    /// Asks `cat-file --batch` for the blob `id`: its contents, at most
    /// [`MAX_IMPORTED_BLOB`] bytes.
    fn blob(&mut self, id: &str) -> Result<Vec<u8>, GitError> {
        use std::io::BufRead;
        self.feed(format!("{id}\n").as_bytes())?;
        let mut header = String::new();
        let stdout = self
            .stdout
            .as_mut()
            .ok_or_else(|| GitError::Failed { args: self.args.clone(), reason: "no stdout".into() })?;
        stdout
            .take(256)
            .read_line(&mut header)
            .map_err(|e| GitError::Failed { args: self.args.clone(), reason: e.to_string() })?;
        let fields: Vec<&str> = header.split_whitespace().collect();
        let size = match fields[..] {
            [got, "blob", size] if got == id => size.parse::<u64>().unwrap_or(u64::MAX),
            _ => return Err(self.failed(format!("{id} is not a blob of the repository ({})", header.trim()))),
        };
        if size > MAX_IMPORTED_BLOB {
            return Err(self.failed(format!("blob {id} is larger than {} MiB", MAX_IMPORTED_BLOB >> 20)));
        }
        let mut content = Vec::with_capacity(size as usize);
        let stdout = self.stdout.as_mut().expect("checked above");
        let read = stdout.take(size + 1).read_to_end(&mut content);
        read.map_err(|e| GitError::Failed { args: self.args.clone(), reason: e.to_string() })?;
        if content.pop() != Some(b'\n') || content.len() as u64 != size {
            return Err(self.failed(format!("blob {id}: a short read")));
        }
        Ok(content)
    }

    /// Closes stdin and waits for the process to end well.
    fn finish(mut self) -> Result<(), GitError> {
        drop(self.stdin.take());
        if let Some(mut stdout) = self.stdout.take() {
            let _ = io::copy(&mut stdout, &mut io::sink());
        }
        let status = self.child.wait().map_err(|e| self.failed(e))?;
        if self.watchdog.take().is_some_and(Watchdog::stop) {
            return Err(GitError::TimedOut { args: self.args.clone() });
        }
        if !status.success() {
            return Err(self.failed(status));
        }
        Ok(())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.watchdog.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Kills a git process still running at [`DEADLINE`].
struct Watchdog {
    done: std::sync::mpsc::Sender<()>,
    fired: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Watchdog {
    fn start(pid: u32) -> Watchdog {
        let (done, wait) = std::sync::mpsc::channel::<()>();
        let fired = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = fired.clone();
        std::thread::spawn(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(DEADLINE) {
                flag.store(true, std::sync::atomic::Ordering::SeqCst);
                // SAFETY: kill has no memory effects; the child has not been waited
                // for yet (the waiter stops the watchdog first), so the pid is still
                // the child's.
                unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
            }
        });
        Watchdog { done, fired }
    }

    /// Stops the watchdog; whether it had killed the process.
    fn stop(self) -> bool {
        let _ = self.done.send(());
        self.fired.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Caps the address space of a git call ([`MAX_GIT_MEMORY`]): a huge file must not
/// take the host's memory with it.
fn cap_memory(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec the closure only calls setrlimit, which is
    // async-signal-safe, and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: MAX_GIT_MEMORY, rlim_max: MAX_GIT_MEMORY };
            libc::setrlimit(libc::RLIMIT_AS, &limit);
            Ok(())
        });
    }
}

/// git, by its absolute path, from the absolute entries of `PATH` (a relative entry
/// would find a `git` in the reviewed root).
fn find_git() -> Result<PathBuf, GitError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("git"))
        .find(|candidate| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(candidate).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .ok_or_else(|| GitError::Failed { args: String::new(), reason: "git is not installed (no git on PATH)".into() })
}

/// `path` as a fast-import path: as it is, or C-quoted when it has a newline, a
/// double quote at its start, or a byte git would quote.
fn quote_path(path: &[u8]) -> Vec<u8> {
    if !path.iter().any(|b| matches!(b, b'\n' | b'"' | b'\\') || *b < 0x20) {
        return path.to_vec();
    }
    let mut out = vec![b'"'];
    for &b in path {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b if b < 0x20 => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
            b => out.push(b),
        }
    }
    out.push(b'"');
    out
}

/// The most entries [`check_work_tree`] walks.
const MAX_WALKED: usize = 4_000_000;

/// Walks the work tree (never following a symlink, skipping the root's `.git` and the
/// `exclude`d paths) for what git would hide from a snapshot or wait on: a `.git`
/// anywhere below the root that is not a submodule of `gitlinks` (git skips what is
/// inside it), and a `.gitignore`, `.gitattributes` or `.gitmodules` that is not a
/// regular file (a FIFO would block git's open). Returns the `.gitignore` files found.
fn check_work_tree(root: &Path, exclude: &[&str], gitlinks: &[String]) -> Result<Vec<String>, String> {
    let mut ignore_files = Vec::new();
    let mut stack: Vec<(PathBuf, String)> = vec![(root.to_path_buf(), String::new())];
    let mut walked = 0usize;
    while let Some((dir, relative)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            walked += 1;
            if walked > MAX_WALKED {
                return Err(format!("more than {MAX_WALKED} entries in the work tree"));
            }
            let name = entry.file_name();
            let name_text = name.to_string_lossy();
            let path = if relative.is_empty() { name_text.to_string() } else { format!("{relative}/{name_text}") };
            if exclude.iter().any(|e| path == *e || path.starts_with(&format!("{e}/"))) {
                continue;
            }
            let Ok(kind) = entry.file_type() else { continue };
            if name == ".git" {
                if relative.is_empty() {
                    continue;
                }
                if gitlinks.contains(&relative) {
                    continue;
                }
                return Err(format!("{}: a nested .git, whose contents git leaves out of every snapshot", path));
            }
            if matches!(name.to_str(), Some(".gitignore" | ".gitattributes" | ".gitmodules")) {
                if !kind.is_file() && !kind.is_symlink() {
                    return Err(format!("{path}: not a regular file"));
                }
                if name == ".gitignore" && kind.is_file() {
                    ignore_files.push(path.clone());
                }
            }
            if kind.is_dir() {
                stack.push((entry.path(), path));
            }
        }
    }
    Ok(ignore_files)
}

/// Refuses an object store git could hang or be misled on: anything but directories
/// and regular files in `objects/`, its fan-out directories, `pack/` and `info/`
/// (a FIFO would block git's open, a symlink to `/dev/zero` feed it forever), and an
/// `alternates` file (which would make another repository's objects this one's).
fn check_object_store(objects: &Path) -> Result<(), String> {
    let refused = |path: &Path, why: &str| Err(format!("{}: {why}", path.display()));
    match std::fs::symlink_metadata(objects) {
        Ok(meta) if meta.is_dir() => {}
        _ => return refused(objects, "not a directory"),
    }
    let entries = std::fs::read_dir(objects).map_err(|e| format!("{}: {e}", objects.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", objects.display()))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| format!("{}: {e}", path.display()))?;
        if !kind.is_dir() {
            if kind.is_file() {
                continue;
            }
            return refused(&path, "not a regular file or directory");
        }
        let inner = std::fs::read_dir(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        for file in inner {
            let file = file.map_err(|e| format!("{}: {e}", path.display()))?;
            let kind = file.file_type().map_err(|e| format!("{}: {e}", file.path().display()))?;
            if !kind.is_file() && !kind.is_dir() {
                return refused(&file.path(), "not a regular file (a FIFO, device or symlink in the object store)");
            }
            let name = file.file_name();
            if entry.file_name() == "info" && (name == "alternates" || name == "http-alternates") {
                return refused(&file.path(), "the repository borrows another one's objects (not supported)");
            }
        }
    }
    Ok(())
}

fn canonical(root: &Path) -> Result<PathBuf, GitError> {
    root.canonicalize().map_err(|source| GitError::Io { path: root.to_path_buf(), source })
}

/// The repository's refs, as the private directory holds them.
struct Refs {
    /// The private `HEAD`'s contents.
    head: String,
    /// `packed-refs` lines, sorted by name.
    packed: String,
}

/// Reads `git_dir`'s refs without git: `packed-refs`, then loose refs under `refs/`
/// (which win), symbolic ones resolved once, `HEAD`. Every file is read bounded,
/// without following a symlink; a name or id that is not well formed is left out;
/// `refs/reviewhost/` is left out (the private directory has its own).
fn copy_refs(git_dir: &Path) -> Result<Refs, GitError> {
    let mut refs: BTreeMap<String, String> = BTreeMap::new();
    let mut symbolic: Vec<(String, String)> = Vec::new();
    if let Some(text) = read_small(&git_dir.join("packed-refs"), MAX_PACKED_REFS)? {
        for line in String::from_utf8_lossy(&text).lines() {
            if let Some((id, name)) = line.split_once(' ')
                && is_id(id)
                && is_ref_name(name)
                && refs.len() < MAX_REFS
            {
                refs.insert(name.to_string(), id.to_string());
            }
        }
    }
    // `refs` itself and every directory below are taken only when they are real
    // directories: a symlink could lead the walk over the host.
    let mut stack = Vec::new();
    if std::fs::symlink_metadata(git_dir.join("refs")).is_ok_and(|m| m.is_dir()) {
        stack.push((git_dir.join("refs"), "refs".to_string()));
    }
    let mut seen = 0usize;
    while let Some((dir, prefix)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_REFS {
                break;
            }
            let Some(name) = entry.file_name().to_str().map(str::to_string) else { continue };
            let full = format!("{prefix}/{name}");
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                stack.push((entry.path(), full));
            } else if kind.is_file() && is_ref_name(&full) {
                let Some(text) = read_small(&entry.path(), MAX_REF_FILE)? else { continue };
                let text = String::from_utf8_lossy(&text).trim().to_string();
                if is_id(&text) {
                    refs.insert(full, text);
                } else if let Some(target) = text.strip_prefix("ref: ")
                    && is_ref_name(target)
                {
                    symbolic.push((full, target.to_string()));
                }
            }
        }
    }
    for (name, target) in symbolic {
        if let Some(id) = refs.get(&target).cloned() {
            refs.insert(name, id);
        }
    }
    refs.retain(|name, _| !name.starts_with("refs/reviewhost/"));
    let head = match read_small(&git_dir.join("HEAD"), MAX_REF_FILE)? {
        Some(text) => {
            let text = String::from_utf8_lossy(&text).trim().to_string();
            match text.strip_prefix("ref: ") {
                Some(target) if is_ref_name(target) && !target.starts_with("refs/reviewhost/") => {
                    format!("ref: {target}\n")
                }
                _ if is_id(&text) => format!("{text}\n"),
                _ => "ref: refs/heads/reviewhost-none\n".to_string(),
            }
        }
        None => "ref: refs/heads/reviewhost-none\n".to_string(),
    };
    let packed = refs.iter().map(|(name, id)| format!("{id} {name}\n")).collect();
    Ok(Refs { head, packed })
}

/// The file at `path` if it is a regular file (not a symlink, FIFO or device) of at
/// most `max` bytes; `None` when absent or not regular; an error when larger.
fn read_small(path: &Path, max: u64) -> Result<Option<Vec<u8>>, GitError> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
    {
        Ok(file) => file,
        Err(_) => return Ok(None),
    };
    let io = |source| GitError::Io { path: path.to_path_buf(), source };
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() || meta.nlink() == 0 {
        return Ok(None);
    }
    if meta.len() > max {
        return Err(GitError::Io {
            path: path.to_path_buf(),
            source: io::Error::other(format!("larger than {max} bytes")),
        });
    }
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes).map_err(io)?;
    Ok(Some(bytes))
}

/// A SHA-1 object id in hex.
fn is_id(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A ref name git accepts in `packed-refs` (a strict subset of `check-ref-format`).
fn is_ref_name(name: &str) -> bool {
    name.starts_with("refs/")
        && name.len() < 1024
        && !name.contains("..")
        && !name.contains("//")
        && !name.contains("@{")
        && !name.ends_with('/')
        && !name.ends_with(".lock")
        && !name.ends_with('.')
        && name.split('/').all(|part| !part.is_empty() && !part.starts_with('.'))
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"/-_.+@".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_names_and_ids() {
        assert!(is_ref_name("refs/heads/main") && is_ref_name("refs/remotes/origin/feature-1.2"));
        for bad in ["HEAD", "refs/heads/../x", "refs/heads/x.lock", "refs/heads/.x", "refs/x y", "refs/h@{1}"] {
            assert!(!is_ref_name(bad), "{bad}");
        }
        assert!(is_id(&"a".repeat(40)) && !is_id(&"g".repeat(40)) && !is_id("abc"));
    }
}
