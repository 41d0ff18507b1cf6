//! The run's shared first pass over the files its searches read
//! ([`reviewhost_prefilter`]), made by the host before the checks run.
//!
//! The pass reads the root as the `files` interface does ([`Files`]): inside the root
//! only, no special file, no symlink followed, nothing larger than a check may read.
//! Its answers reach a search through `files.cannot-match`, which says "cannot match"
//! only for a file the pass read, still the same (same inode, size and times), holding
//! none of the search's literals.

use std::sync::Arc;
use std::time::Instant;

use reviewhost_prefilter::{Entry, Index, Limits, Needles, Stamp, Tree};
use reviewhost_protocol::SearchPlan;

use super::bindings::builtin::reviewhost::check::files::EntryKind;
use super::files::Files;
use super::root::RootDir;

/// The longest a pass reads. It may read what no search of the run would (a directory
/// rg skips by `.gitignore`, such as `node_modules`): on a tree too large for this, the
/// files left are read by their searches, as without a pass.
pub const MAX_PASS_TIME: std::time::Duration = std::time::Duration::from_secs(2);

/// The root as the pass reads it: through the `files` interface's own reads.
struct RootTree(Files);

impl Tree for RootTree {
    fn list(&self, dir: &str) -> Option<Vec<(String, Entry)>> {
        let entries = self.0.list_dir(dir).ok()?;
        Some(
            entries
                .into_iter()
                .filter_map(Result::ok)
                .map(|e| {
                    let kind = match e.kind {
                        EntryKind::File => Entry::File,
                        EntryKind::Directory => Entry::Dir,
                        EntryKind::Symlink | EntryKind::Other => Entry::Other,
                    };
                    (e.name, kind)
                })
                .collect(),
        )
    }

    fn read(&self, path: &str) -> Option<(Vec<u8>, Stamp)> {
        let (data, meta) = self.0.read_stamped(path).ok()?;
        Some((data, Stamp::from(&meta)))
    }

    fn stamp(&self, path: &str) -> Option<Stamp> {
        self.0.stamp(path)
    }
}

/// Reads the scopes of `plans` under `root` once and indexes their needles. Files
/// larger than `max_file_bytes` (a check's memory) are left to their searches, and so
/// is everything after `timeout` or [`MAX_PASS_TIME`], whichever comes first.
pub fn pass(root: &RootDir, plans: &[SearchPlan], max_file_bytes: u64, timeout: std::time::Duration) -> Arc<Index> {
    let needles: Vec<Needles> = plans.iter().map(|p| Needles::from(p.needles.clone())).collect();
    let scopes = plans.iter().flat_map(|p| &p.scopes).map(String::as_str);
    let tree = RootTree(Files::new(root.handle().clone(), max_file_bytes, None));
    let limits = Limits {
        max_file_bytes,
        max_index_bytes: usize::try_from(max_file_bytes).unwrap_or(usize::MAX),
        deadline: Some(Instant::now() + timeout.min(MAX_PASS_TIME)),
        ..Limits::default()
    };
    Arc::new(Index::build(&tree, &needles, scopes, limits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The stamp of the pass's read and the stamp a search's question takes come from
    /// two calls (the open descriptor, a `stat` through the root): they must agree on
    /// an unchanged file, or the pass would never answer, and differ once it changed.
    #[test]
    fn the_host_answers_for_an_unchanged_file_and_reads_a_changed_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "nothing here\n").unwrap();
        std::fs::write(dir.path().join("b.rs"), "the needle\n").unwrap();
        std::thread::sleep(Duration::from_millis(60));
        let root = RootDir::new(dir.path()).unwrap();
        let plans = [SearchPlan { needles: vec!["needle".into()], scopes: vec!["/".into()] }];
        let index = pass(&root, &plans, 1 << 20, Duration::from_secs(10));
        let mut files = Files::new(root.handle().clone(), 1 << 20, Some(index));
        assert_eq!(files.needle_set(&["not looked for".into()]), None);
        let set = files.needle_set(&["needle".into()]).unwrap();
        assert!(files.cannot_match(set, "/a.rs"));
        assert!(!files.cannot_match(set, "/b.rs"));
        assert!(!files.cannot_match(set + 1, "/a.rs"), "a set the store was not given");
        std::fs::write(dir.path().join("a.rs"), "the needle!!\n").unwrap();
        assert!(!files.cannot_match(set, "/a.rs"));
    }
}
