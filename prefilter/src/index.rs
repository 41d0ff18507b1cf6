//! The one pass: which files of the searched scopes hold which needles.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

use aho_corasick::{AhoCorasick, MatchKind};

use crate::{MAX_SUBTREE_HEIGHT, Needles};

/// What a directory entry is, as the directory records it (a symlink is `Other`: the
/// pass never follows one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    File,
    Dir,
    Other,
}

/// The files the pass reads, through whatever guards the caller's reads have (the host
/// reads as its `files` interface does: inside the root, no special file, capped).
/// Paths are relative to the root, `/`-separated; `""` is the root.
pub trait Tree: Sync {
    /// The entries of the directory at `dir`; `None` when it cannot be listed.
    fn list(&self, dir: &str) -> Option<Vec<(String, Entry)>>;
    /// The whole regular file at `path` and its stamp taken on the open file; `None`
    /// when a search could not read it whole either (refused, too large, gone).
    fn read(&self, path: &str) -> Option<(Vec<u8>, Stamp)>;
    /// The stamp of what is at `path` now, a final symlink not followed.
    fn stamp(&self, path: &str) -> Option<Stamp>;
}

/// Enough of a file's metadata to tell it is the file the pass read, unchanged: the
/// same inode, size, and modification and status-change times (any write moves the
/// status-change time, which no one can set back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub device: u64,
    pub inode: u64,
    pub len: u64,
    /// Seconds and nanoseconds since the epoch.
    pub modified: (i64, i64),
    pub changed: (i64, i64),
}

/// A file changed this recently before the pass read it may change again within the
/// same timestamp tick of a coarse filesystem clock, unseen: it is not indexed.
const RACY: Duration = Duration::from_millis(25);

impl Stamp {
    /// Whether the last change is old enough, at `at` (since the epoch, taken before
    /// the read or listing this stamp describes), that any later one will show: more
    /// than [`RACY`] before.
    fn settled_at(&self, at: Duration) -> bool {
        let (Ok(secs), Ok(nanos)) = (u64::try_from(self.changed.0), u32::try_from(self.changed.1)) else {
            return false;
        };
        Duration::new(secs, nanos) + RACY <= at
    }
}

/// Now, since the epoch: taken before a read or a listing, for [`Stamp::settled_at`].
fn now() -> Option<Duration> {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).ok()
}

/// Bounds of a pass. A needle set over the bounds is not looked for at all (every
/// search reads its files); files past the bounds are left out of the index.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_needles: usize,
    /// Total bytes of the needles: what the matcher's automaton grows with.
    pub max_needle_bytes: usize,
    /// Largest file read (the searches' own cap).
    pub max_file_bytes: u64,
    /// Memory for the index itself: paths, stamps and bits.
    pub max_index_bytes: usize,
    /// When the pass gives up on the files it has not read yet.
    pub deadline: Option<Instant>,
    /// Files read at once.
    pub threads: usize,
    /// Files sampled first: a literal found in more than half of them is taken as held
    /// by every file, not looked for (0: every literal is looked for).
    pub sample: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_needles: 4096,
            max_needle_bytes: 256 * 1024,
            max_file_bytes: 256 * 1024 * 1024,
            max_index_bytes: 256 * 1024 * 1024,
            deadline: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            sample: 32,
        }
    }
}

/// What a pass did, for `--verbose`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    pub needles: usize,
    pub files: usize,
    pub bytes: u64,
    pub elapsed: Duration,
    /// Why no pass was made, when none was.
    pub skipped: Option<String>,
}

/// A set of needles as the index numbers them ([`Index::needle_set`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeedleSet(Vec<u64>);

/// Which needles each file of the scopes holds.
#[derive(Debug, Default)]
pub struct Index {
    ids: HashMap<String, usize>,
    /// Words of bits per file.
    words: usize,
    files: HashMap<String, (Stamp, Vec<u64>)>,
    /// The directories whose whole subtree the pass read, by path.
    dirs: HashMap<String, Subtree>,
    stats: Stats,
    /// How many questions were answered "cannot match".
    skipped: AtomicUsize,
}

/// A directory every file and directory under which the pass read: whether a search may
/// skip it whole.
#[derive(Debug)]
struct Subtree {
    /// Levels of directories below it.
    height: usize,
    stamp: Stamp,
    files: Vec<String>,
    dirs: Vec<String>,
    /// The needles held by any file under it.
    bits: Vec<u64>,
}

/// The subtrees of `dirs` (walked order: parents first) the pass read whole.
fn subtrees(dirs: Vec<Dir>, files: &HashMap<String, (Stamp, Vec<u64>)>, words: usize) -> HashMap<String, Subtree> {
    let mut whole: Vec<Option<Subtree>> = Vec::with_capacity(dirs.len());
    whole.resize_with(dirs.len(), || None);
    for (at, dir) in dirs.iter().enumerate().rev() {
        let (Some(stamp), true) = (dir.stamp, dir.complete) else { continue };
        let mut bits = vec![0u64; words];
        let mut held = |more: &[u64]| bits.iter_mut().zip(more).for_each(|(b, m)| *b |= m);
        let mut complete = true;
        let mut height = 0;
        for file in &dir.files {
            match files.get(file) {
                Some((_, file_bits)) => held(file_bits),
                None => complete = false,
            }
        }
        for &sub in &dir.dirs {
            match &whole[sub] {
                Some(subtree) => {
                    held(&subtree.bits);
                    height = height.max(subtree.height + 1);
                }
                None => complete = false,
            }
        }
        if complete && height <= MAX_SUBTREE_HEIGHT {
            let dirs = dir.dirs.iter().map(|&sub| dirs[sub].path.clone()).collect();
            whole[at] = Some(Subtree { height, stamp, files: dir.files.clone(), dirs, bits });
        }
    }
    dirs.into_iter().zip(whole).filter_map(|(dir, subtree)| Some((dir.path, subtree?))).collect()
}

impl Index {
    /// Reads the files under `scopes` (root-relative paths, files or directories walked
    /// without following symlinks, `.git` directories left out unless named) and
    /// records which of `needles` each holds. Never fails: what cannot be read or would
    /// pass the limits is left out, and a file left out is read by its searches.
    pub fn build<'a>(
        tree: &dyn Tree,
        needles: impl IntoIterator<Item = &'a Needles>,
        scopes: impl IntoIterator<Item = &'a str>,
        limits: Limits,
    ) -> Index {
        let began = Instant::now();
        let mut dictionary: Vec<&str> = Vec::new();
        let mut ids = HashMap::new();
        for needle in needles.into_iter().flat_map(|n| n.as_slice()) {
            ids.entry(needle.clone()).or_insert_with(|| {
                dictionary.push(needle);
                dictionary.len() - 1
            });
        }
        let skipped = |reason: String| Index {
            stats: Stats {
                needles: dictionary.len(),
                skipped: Some(reason),
                elapsed: began.elapsed(),
                ..Stats::default()
            },
            ..Index::default()
        };
        let needle_bytes: usize = dictionary.iter().map(|n| n.len()).sum();
        if dictionary.is_empty() {
            return skipped("no search has required literals".into());
        }
        if dictionary.len() > limits.max_needles || needle_bytes > limits.max_needle_bytes {
            return skipped(format!(
                "{} literals of {needle_bytes} bytes: more than the pass looks for",
                dictionary.len()
            ));
        }
        let all: Vec<usize> = (0..dictionary.len()).collect();
        let full = match Matcher::new(&dictionary, &all) {
            Ok(matcher) => matcher,
            Err(e) => return skipped(format!("the literals' matcher: {e}")),
        };
        let walked = walk(tree, scopes, limits, full.always.len());
        let paths = &walked.files;
        // A literal in most files (`return`, ` request`) costs the scan a report at every
        // occurrence and spares its searches almost nothing: found in most of a sample,
        // it is taken as held by every file (which only ever makes a search read more).
        let common = common_needles(tree, paths, &full, limits);
        if common.len() == dictionary.len() {
            return skipped("every literal is in most files".into());
        }
        let rare: Vec<usize> = all.into_iter().filter(|id| !common.contains(id)).collect();
        let mut matcher = match Matcher::new(&dictionary, &rare) {
            Ok(matcher) => matcher,
            Err(e) => return skipped(format!("the literals' matcher: {e}")),
        };
        for id in common {
            matcher.always[id / 64] |= 1 << (id % 64);
        }
        let words = matcher.always.len();
        let next = AtomicUsize::new(0);
        let found = Mutex::new(Vec::with_capacity(paths.len()));
        let bytes = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..limits.threads.max(1) {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = paths.get(i) else { break };
                        if limits.deadline.is_some_and(|d| Instant::now() > d) {
                            break;
                        }
                        if let Some((stamp, bits, len)) = scan(tree, path, &matcher, limits) {
                            bytes.fetch_add(len, Ordering::Relaxed);
                            mine.push((path.clone(), (stamp, bits)));
                        }
                    }
                    found.lock().unwrap_or_else(|e| e.into_inner()).extend(mine);
                });
            }
        });
        let files: HashMap<String, (Stamp, Vec<u64>)> =
            found.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().collect();
        let dirs = subtrees(walked.dirs, &files, words);
        let stats = Stats {
            needles: dictionary.len(),
            files: files.len(),
            bytes: bytes.into_inner() as u64,
            elapsed: began.elapsed(),
            skipped: None,
        };
        Index { ids, words, files, dirs, stats, skipped: AtomicUsize::new(0) }
    }

    /// `needles` as this index numbers them; `None` when one was not looked for.
    pub fn needle_set(&self, needles: &[String]) -> Option<NeedleSet> {
        if needles.is_empty() || self.files.is_empty() {
            return None;
        }
        let mut bits = vec![0u64; self.words];
        for needle in needles {
            let id = *self.ids.get(needle)?;
            bits[id / 64] |= 1 << (id % 64);
        }
        Some(NeedleSet(bits))
    }

    /// Whether the file at `path` certainly holds no needle of `set`: the pass read it,
    /// found none, and `now` (a stamp at the time of asking) shows the same file. For a
    /// directory: whether no file under it does, the pass having read every file and
    /// directory under it (no symlink, special file or unread file among them), and all
    /// of them being unchanged.
    pub fn cannot_match(&self, set: &NeedleSet, path: &str, now: impl Fn(&str) -> Option<Stamp>) -> bool {
        let Some(key) = normalized(path) else { return false };
        let holds = |bits: &[u64]| bits.iter().zip(&set.0).any(|(have, want)| have & want != 0);
        let skip = match (self.files.get(&key), self.dirs.get(&key)) {
            (Some((stamp, bits)), _) => !holds(bits) && now(&key) == Some(*stamp),
            (None, Some(subtree)) => !holds(&subtree.bits) && self.unchanged(&key, subtree, &now),
            (None, None) => false,
        };
        if skip {
            self.skipped.fetch_add(1, Ordering::Relaxed);
        }
        skip
    }

    /// How many files and directories searches skipped on this index's answer.
    pub fn skipped(&self) -> usize {
        self.skipped.load(Ordering::Relaxed)
    }

    /// Whether the directory and everything under it are as the pass saw them.
    fn unchanged(&self, path: &str, subtree: &Subtree, now: &impl Fn(&str) -> Option<Stamp>) -> bool {
        now(path) == Some(subtree.stamp)
            && subtree.files.iter().all(|f| self.files.get(f).is_some_and(|(stamp, _)| now(f) == Some(*stamp)))
            && subtree.dirs.iter().all(|d| self.dirs.get(d).is_some_and(|sub| self.unchanged(d, sub, now)))
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }
}

/// The needle ids found in more than half of a sample of `paths` spread over the list.
fn common_needles(tree: &dyn Tree, paths: &[String], full: &Matcher, limits: Limits) -> Vec<usize> {
    let sample = limits.sample;
    if sample == 0 {
        return Vec::new();
    }
    let step = (paths.len() / sample).max(1);
    let mut counts = vec![0usize; full.ids.len()];
    let mut sampled = 0;
    for path in paths.iter().step_by(step).take(sample) {
        if let Some((_, bits, _)) = scan(tree, path, full, limits) {
            sampled += 1;
            for (id, count) in counts.iter_mut().enumerate() {
                *count += usize::from(bits[id / 64] & (1 << (id % 64)) != 0);
            }
        }
    }
    if sampled < sample / 4 {
        return Vec::new();
    }
    (0..counts.len()).filter(|&id| counts[id] * 2 > sampled).collect()
}

/// The automaton over some of the needles, and the bits every file gets regardless.
struct Matcher {
    ac: AhoCorasick,
    /// The needle id of each of the automaton's patterns.
    ids: Vec<usize>,
    /// Set for every file: the needles taken as held everywhere.
    always: Vec<u64>,
}

impl Matcher {
    fn new(dictionary: &[&str], ids: &[usize]) -> Result<Matcher, aho_corasick::BuildError> {
        // Every needle present is wanted, not the leftmost: overlapping matches.
        let ac = AhoCorasick::builder().match_kind(MatchKind::Standard).build(ids.iter().map(|&id| dictionary[id]))?;
        Ok(Matcher { ac, ids: ids.to_vec(), always: vec![0; dictionary.len().div_ceil(64)] })
    }
}

/// Reads one file and finds its needles: the stamp, a bit per needle held, the size.
fn scan(tree: &dyn Tree, path: &str, matcher: &Matcher, limits: Limits) -> Option<(Stamp, Vec<u64>, usize)> {
    // Before the read: a write after it has a later status-change time than this.
    let read_at = now()?;
    let (data, stamp) = tree.read(path)?;
    if data.len() as u64 > limits.max_file_bytes || !stamp.settled_at(read_at) {
        return None;
    }
    let mut bits = matcher.always.clone();
    // Files the searches do not read as plain lines are never skipped, as if they held
    // every needle. A NUL makes a file binary, and a binary file without a match is not
    // an empty one (ripgrep stops reading it at the NUL, and then neither lists it with
    // `--files-without-match` nor counts it with `--include-zero`). After a UTF-16 byte
    // order mark, ripgrep searches the text transcoded: the bytes say nothing of it.
    if data.contains(&0) || data.starts_with(&[0xFF, 0xFE]) || data.starts_with(&[0xFE, 0xFF]) {
        bits.iter_mut().for_each(|w| *w = u64::MAX);
        return Some((stamp, bits, data.len()));
    }
    let total = matcher.ac.patterns_len();
    let mut seen = 0;
    if total > 0 {
        for m in matcher.ac.find_overlapping_iter(&data) {
            let id = matcher.ids[m.pattern().as_usize()];
            let (word, bit) = (id / 64, 1u64 << (id % 64));
            if bits[word] & bit == 0 {
                bits[word] |= bit;
                seen += 1;
                if seen == total {
                    break;
                }
            }
        }
    }
    Some((stamp, bits, data.len()))
}

/// What the pass's walk found: the regular files under the scopes, each once, and the
/// directories, within the index's memory bound.
#[derive(Default)]
struct Walk {
    files: Vec<String>,
    /// In the order walked: a directory before those under it.
    dirs: Vec<Dir>,
}

/// A directory the pass listed.
struct Dir {
    path: String,
    /// Taken before the listing; `None` when it could not be, or the directory changed
    /// too recently to be sure of.
    stamp: Option<Stamp>,
    files: Vec<String>,
    /// Indexes into [`Walk::dirs`].
    dirs: Vec<usize>,
    /// Whether every entry is a regular file or a directory the walk went into: no
    /// symlink, special file, skipped `.git` or file past the memory bound.
    complete: bool,
}

fn walk<'a>(tree: &dyn Tree, scopes: impl IntoIterator<Item = &'a str>, limits: Limits, words: usize) -> Walk {
    let mut scopes: Vec<String> = scopes.into_iter().filter_map(normalized).collect();
    scopes.sort();
    scopes.dedup();
    // A scope inside another is walked with it.
    let mut kept: Vec<String> = Vec::new();
    for scope in scopes {
        if !kept.iter().any(|k| k.is_empty() || scope == *k || scope.starts_with(&format!("{k}/"))) {
            kept.push(scope);
        }
    }
    let mut walk = Walk::default();
    let mut seen = HashSet::new();
    let mut budget = limits.max_index_bytes;
    let per_file = std::mem::size_of::<(String, Stamp, Vec<u64>)>() + words * 8 + 32;
    let mut afford = |path: &str| {
        let cost = per_file + path.len();
        let fits = budget >= cost;
        budget = budget.saturating_sub(cost);
        fits
    };
    for scope in kept {
        // A scope may be a file; a directory's listing says what its entries are.
        let stamp = stamp_of_dir(tree, &scope);
        let Some(listing) = tree.list(&scope) else {
            if afford(&scope) && seen.insert(scope.clone()) {
                walk.files.push(scope);
            }
            continue;
        };
        let in_git = scope.split('/').any(|c| c == ".git");
        let mut pending = vec![(walk.dirs.len(), listing)];
        walk.dirs.push(Dir { path: scope, stamp, files: Vec::new(), dirs: Vec::new(), complete: true });
        while let Some((at, entries)) = pending.pop() {
            for (name, kind) in entries {
                let dir = &walk.dirs[at].path;
                let path = if dir.is_empty() { name.clone() } else { format!("{dir}/{name}") };
                match kind {
                    Entry::File if afford(&path) && seen.insert(path.clone()) => {
                        walk.files.push(path.clone());
                        walk.dirs[at].files.push(path);
                    }
                    Entry::Dir if (name != ".git" || in_git) && afford(&path) => {
                        let stamp = stamp_of_dir(tree, &path);
                        match tree.list(&path) {
                            Some(listing) => {
                                let index = walk.dirs.len();
                                walk.dirs[at].dirs.push(index);
                                walk.dirs.push(Dir {
                                    path,
                                    stamp,
                                    files: Vec::new(),
                                    dirs: Vec::new(),
                                    complete: true,
                                });
                                pending.push((index, listing));
                            }
                            None => walk.dirs[at].complete = false,
                        }
                    }
                    Entry::File | Entry::Dir | Entry::Other => walk.dirs[at].complete = false,
                }
            }
        }
    }
    walk
}

/// The stamp of a directory, taken before it is listed: any entry added, removed or
/// renamed afterwards moves its times. `None` when it changed too recently to be sure.
fn stamp_of_dir(tree: &dyn Tree, path: &str) -> Option<Stamp> {
    let listed_at = now()?;
    let stamp = tree.stamp(path)?;
    stamp.settled_at(listed_at).then_some(stamp)
}

/// `path` relative to the root in one form: no leading `/`, no `.` or empty component;
/// `None` with a `..` (not answered for).
fn normalized(path: &str) -> Option<String> {
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// A directory on the host read with `std::fs`, for tools and tests without a sandbox:
/// symlinks are never followed, special files never opened.
#[derive(Debug, Clone)]
pub struct DirTree(pub std::path::PathBuf);

impl DirTree {
    fn at(&self, path: &str) -> std::path::PathBuf {
        if path.is_empty() { self.0.clone() } else { self.0.join(path) }
    }
}

impl From<&std::fs::Metadata> for Stamp {
    fn from(meta: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            device: meta.dev(),
            inode: meta.ino(),
            len: meta.len(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

impl Tree for DirTree {
    fn list(&self, dir: &str) -> Option<Vec<(String, Entry)>> {
        // A directory named through a symlink would be listed through it while its stamp
        // is the link's own: never answered for.
        if std::fs::symlink_metadata(self.at(dir)).ok()?.file_type().is_symlink() {
            return None;
        }
        let entries = std::fs::read_dir(self.at(dir)).ok()?;
        Some(
            entries
                .enumerate()
                .map(|(i, e)| {
                    let entry = e.ok().and_then(|e| {
                        let kind = e.file_type().ok()?;
                        let kind = if kind.is_file() {
                            Entry::File
                        } else if kind.is_dir() {
                            Entry::Dir
                        } else {
                            Entry::Other
                        };
                        Some((e.file_name().into_string().ok()?, kind))
                    });
                    // An entry that could not be listed, or whose name is not UTF-8 (which a
                    // search fails on): the directory was not read whole.
                    entry.unwrap_or_else(|| (format!("\0unlisted {i}"), Entry::Other))
                })
                .collect(),
        )
    }

    fn read(&self, path: &str) -> Option<(Vec<u8>, Stamp)> {
        use std::io::Read;
        use std::os::unix::fs::OpenOptionsExt;
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
            .open(self.at(path))
            .ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file() {
            return None;
        }
        let mut data = Vec::with_capacity(meta.len() as usize);
        file.read_to_end(&mut data).ok()?;
        Some((data, Stamp::from(&meta)))
    }

    fn stamp(&self, path: &str) -> Option<Stamp> {
        std::fs::symlink_metadata(self.at(path)).ok().map(|m| Stamp::from(&m))
    }
}
