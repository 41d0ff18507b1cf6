//! The run's shared first pass, made in-process over a fixture, so that every
//! differential case runs both ways: each file read by the search, and with the files
//! the pass says cannot match taken as read without a match. Both must print the same
//! bytes and exit the same.

#![allow(dead_code, reason = "each test binary that includes it uses a part")]

use reviewhost_prefilter::{DirTree, Index, Limits, NeedleSet, Tree};
use reviewhost_tool::{Ctx, Io, NO_LIMIT, Prefilter};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The first pass of a run whose one search is `name args`, over the tree at a root.
#[derive(Debug)]
pub struct Pass {
    index: Index,
    tree: DirTree,
    sets: Mutex<Vec<NeedleSet>>,
    /// Files the search took as read without a match.
    pub skipped: AtomicUsize,
}

impl Prefilter for Pass {
    fn needle_set(&self, needles: &[String]) -> Option<u32> {
        let set = self.index.needle_set(needles)?;
        let mut sets = self.sets.lock().unwrap();
        sets.push(set);
        Some(sets.len() as u32 - 1)
    }

    fn cannot_match(&self, set: u32, path: &str) -> bool {
        let sets = self.sets.lock().unwrap();
        let skip = self.index.cannot_match(&sets[set as usize], path, |key| self.tree.stamp(key));
        if skip {
            self.skipped.fetch_add(1, Ordering::Relaxed);
        }
        skip
    }
}

impl Pass {
    /// The pass for `name args` run at `root`, when the search has needles.
    pub fn of(root: &Path, name: &str, args: &[String]) -> Option<Arc<Pass>> {
        let search = reviewhost_grep::search_plan(name, args)?;
        let ctx = Ctx::new(root);
        let scopes: Vec<String> = search.scopes.iter().map(|s| ctx.virtual_path(s)).collect();
        let tree = DirTree(root.to_path_buf());
        // Every literal looked for, even one in most files: as many skipped files as can be.
        // One thread: the fixtures are small, and a fuzzer builds a pass per input.
        let limits = Limits { sample: 0, threads: 1, ..Limits::default() };
        let index = Index::build(&tree, [&search.needles], scopes.iter().map(String::as_str), limits);
        Some(Arc::new(Pass { index, tree, sets: Mutex::new(Vec::new()), skipped: AtomicUsize::new(0) }))
    }
}

/// What a program run printed and its status.
#[derive(Debug, PartialEq, Eq)]
pub struct Run {
    pub status: i32,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Runs `program` at `root` with `pass` as the run's first pass (none: every file read).
pub fn run(
    program: reviewhost_tool::Program,
    root: &Path,
    args: &[String],
    stdin: &[u8],
    pass: Option<Arc<Pass>>,
) -> Run {
    let mut ctx = Ctx::new(root);
    ctx.prefilter = pass.map(|p| p as Arc<dyn Prefilter>);
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut io = Io { stdin, stdout: &mut stdout, stderr: &mut stderr, stdout_limit: NO_LIMIT, unnamed_file: None };
    let status = program(args, &ctx, &mut io);
    Run { status, stdout, stderr }
}

/// Writes each `(path, bytes)` under `root`, making the directories on the way.
pub fn write_files<D: AsRef<[u8]>>(root: &Path, files: &[(&str, D)]) {
    for (name, data) in files {
        let path = root.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create fixture dir");
        }
        std::fs::write(&path, data).expect("write fixture file");
    }
}

/// Waits until files just written are older than the pass's racy window: the pass does
/// not trust a file changed in the last few milliseconds before it read it.
pub fn settle() {
    std::thread::sleep(Duration::from_millis(60));
}

/// Runs the case with and without its pass; `Err` describes a difference. `Ok(n)`: the
/// pass let the search skip `n` files.
pub fn both_ways(
    program: reviewhost_tool::Program,
    name: &str,
    root: &Path,
    args: &[String],
    stdin: &[u8],
) -> Result<usize, String> {
    let plain = run(program, root, args, stdin, None);
    let Some(pass) = Pass::of(root, name, args) else { return Ok(0) };
    let with = run(program, root, args, stdin, Some(pass.clone()));
    if with != plain {
        return Err(format!(
            "{name} {args:?} differs with the first pass\n  without: status {} stdout {:?} stderr {:?}\n  with:    status {} stdout {:?} stderr {:?}",
            plain.status,
            String::from_utf8_lossy(&plain.stdout),
            String::from_utf8_lossy(&plain.stderr),
            with.status,
            String::from_utf8_lossy(&with.stdout),
            String::from_utf8_lossy(&with.stderr),
        ));
    }
    Ok(pass.skipped.load(Ordering::Relaxed))
}
