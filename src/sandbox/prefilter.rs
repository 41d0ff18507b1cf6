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

/// The pass answers only for files of at most a check's memory divided by this: what a
/// search can certainly hold with its own working memory beside it.
pub const HOLD_FACTOR: u64 = 8;

/// The root as the pass reads it: through the `files` interface's own reads.
struct RootTree(Files);

impl Tree for RootTree {
    fn list(&self, dir: &str) -> Option<Vec<(String, Entry)>> {
        // A directory named through a symlink is listed through it, while its stamp
        // (`statat` without following) would be the link's own: never answered for.
        if self.0.is_symlink(dir) {
            return None;
        }
        let entries = self.0.list_dir(dir).ok()?;
        Some(
            entries
                .into_iter()
                .enumerate()
                .map(|(i, entry)| match entry {
                    Ok(e) => {
                        let kind = match e.kind {
                            EntryKind::File => Entry::File,
                            EntryKind::Directory => Entry::Dir,
                            EntryKind::Symlink | EntryKind::Other => Entry::Other,
                        };
                        (e.name, kind)
                    }
                    // An entry the listing could not give (a name that is not UTF-8, which
                    // a search fails on): the directory was not read whole, and neither
                    // was any above it.
                    Err(_) => (format!("\0unlisted {i}"), Entry::Other),
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
        // A search holds the file whole and works beside it: a file near the memory
        // limit may be one the search cannot hold, and the pass must not answer for it.
        max_file_bytes: max_file_bytes / HOLD_FACTOR,
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

    /// What the pass could not read whole, it never answers for: a directory with an
    /// entry it could not list (a name that is not UTF-8) and every directory above;
    /// a directory named through a symlink (its listing follows the link, a stamp would
    /// not); a file too large for a search to hold beside its own working memory.
    #[test]
    fn the_pass_answers_only_for_what_it_read_whole() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/keys")).unwrap();
        std::fs::create_dir_all(dir.path().join("real")).unwrap();
        std::fs::write(dir.path().join("src/plain.rs"), "nothing here\n").unwrap();
        let odd = std::ffi::OsStr::from_bytes(b"prod\xff.pem");
        std::fs::write(dir.path().join("src/keys").join(odd), "the needle\n").unwrap();
        std::fs::write(dir.path().join("real/a.rs"), "nothing here\n").unwrap();
        std::os::unix::fs::symlink("real", dir.path().join("link")).unwrap();
        std::fs::write(dir.path().join("big.txt"), vec![b'x'; 300 << 10]).unwrap();
        std::thread::sleep(Duration::from_millis(60));
        let root = RootDir::new(dir.path()).unwrap();
        let scopes = ["/src".to_string(), "/link".to_string(), "/big.txt".to_string()];
        let plans = [SearchPlan { needles: vec!["needle".into()], scopes: scopes.to_vec() }];
        let memory = 1 << 20;
        let index = pass(&root, &plans, memory, Duration::from_secs(10));
        let mut files = Files::new(root.handle().clone(), memory, Some(index));
        let set = files.needle_set(&["needle".into()]).unwrap();
        assert!(files.cannot_match(set, "/src/plain.rs"), "an ordinary file is answered for");
        for path in ["/src/keys", "/src"] {
            assert!(!files.cannot_match(set, path), "{path}: a directory holding an unlisted entry");
        }
        // A file with the needle added behind the link after the pass.
        std::fs::write(dir.path().join("real/new.rs"), "the needle\n").unwrap();
        assert!(!files.cannot_match(set, "/link"));
        assert!(!files.cannot_match(set, "/big.txt"), "more than a search can hold with its work");
    }
}
