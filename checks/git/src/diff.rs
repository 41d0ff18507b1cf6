//! Differences between two sides (a tree, the index, the working tree) and git's ways
//! of printing them: the unified patch, `--name-only`, `--name-status`, `--stat`,
//! `--numstat`, `--shortstat`.
//!
//! Line differences come from imara-diff's Myers algorithm (a port of git's xdiff,
//! with the common head and tail trimmed as git does), then its indent-heuristic slider
//! post-processing (git's default `diff.indentHeuristic`). The patch text — headers,
//! hunk grouping with 3 lines of context, hunk header function names by git's default
//! rule, `\ No newline at end of file`, binary detection — is written here to git's
//! byte format.
//!
//! Renames are paired as git's default `diff.renames` does (diffcore-rename): identical
//! content, unique basenames, then the most similar pairs by diffcore-delta's span
//! hashes; see the crate note for what may differ.

use crate::Error;
use crate::pathspec::Pathspec;
use crate::repo::{Entry, MODE_GITLINK, MODE_LINK, Repo};
use crate::stat::{counts, print_stat, rename_name, stat_summary};
use gix::ObjectId;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One side of a comparison.
#[derive(Debug, Clone, Copy)]
pub enum Side {
    Tree(ObjectId),
    Index,
    Worktree,
}

/// A file on one side: its mode, id and, for the working tree, its content.
#[derive(Debug, Clone)]
pub struct File {
    pub mode: u32,
    pub id: ObjectId,
    /// Read from the working tree (not in the object database).
    pub data: Option<Vec<u8>>,
}

/// One changed path.
#[derive(Debug, Clone)]
pub struct Change {
    pub old_path: Vec<u8>,
    pub new_path: Vec<u8>,
    pub old: Option<File>,
    pub new: Option<File>,
    /// A rename's similarity in percent (100 for identical content).
    pub similarity: Option<u32>,
}

impl Change {
    pub fn status(&self) -> String {
        match (&self.old, &self.new) {
            _ if self.similarity.is_some() => format!("R{:03}", self.similarity.unwrap_or(100)),
            (None, Some(_)) => "A".into(),
            (Some(_), None) => "D".into(),
            (Some(o), Some(n)) if kind(o.mode) != kind(n.mode) => "T".into(),
            _ => "M".into(),
        }
    }
}

pub(crate) fn kind(mode: u32) -> u32 {
    mode & 0o170000
}

/// The output forms of a diff: several at once, as git allows (`--stat -p`), printed
/// in git's order (raw or names, then the statistics, the summary, the patch).
pub mod form {
    pub const RAW: u16 = 1;
    pub const NAME_ONLY: u16 = 2;
    pub const NAME_STATUS: u16 = 4;
    pub const NUMSTAT: u16 = 8;
    pub const STAT: u16 = 16;
    pub const SHORTSTAT: u16 = 32;
    pub const SUMMARY: u16 = 64;
    pub const PATCH: u16 = 128;
    /// `-s`: nothing, whatever else was asked.
    pub const NO_OUTPUT: u16 = 256;
}

/// How object ids are abbreviated (`--abbrev[=N]`, `--no-abbrev`, `--full-index`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Abbrev {
    /// git's automatic length (`core.abbrev`, or from the object count).
    #[default]
    Default,
    /// At least this many digits, more where a prefix is ambiguous.
    Len(usize),
    Full,
}

/// `--stat[=width[,name-width[,count]]]` and its separate forms: None is git's
/// default (80 columns for output that is no terminal, every file).
#[derive(Debug, Clone, Copy, Default)]
pub struct StatLimits {
    pub width: Option<usize>,
    pub name_width: Option<usize>,
    pub graph_width: Option<usize>,
    pub count: Option<usize>,
}

/// The options of a diff that change its result.
#[derive(Debug, Clone)]
pub struct Options {
    /// A set of [`form`] bits; 0 is each command's default.
    pub forms: u16,
    pub context: usize,
    pub renames: bool,
    pub abbrev: Abbrev,
    pub full_index: bool,
    pub stat: StatLimits,
    /// `-z`: NUL after names instead of newlines, names never quoted.
    pub nul: bool,
    pub src_prefix: String,
    pub dst_prefix: String,
    /// `-a`/`--text`: binary files compared as text.
    pub text: bool,
    /// `--diff-filter`: status letters to keep (upper case) or drop (lower case).
    pub filter: Option<String>,
    /// `--binary`: a binary file's patch would be git's base-85 form, not written here.
    pub binary: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            forms: 0,
            context: 3,
            renames: true,
            abbrev: Abbrev::Default,
            full_index: false,
            stat: StatLimits::default(),
            nul: false,
            src_prefix: "a/".into(),
            dst_prefix: "b/".into(),
            text: false,
            filter: None,
            binary: false,
        }
    }
}

impl Options {
    /// Whether `forms` asks for any output at all.
    pub fn shows(&self, f: u16) -> bool {
        self.forms & form::NO_OUTPUT == 0 && self.forms & f != 0
    }

    /// Whether nothing is printed.
    pub fn silent(&self) -> bool {
        self.forms & form::NO_OUTPUT != 0 || self.forms == 0
    }

    /// Reads one diff option common to `diff`, `log` and `show`; false when `arg` is
    /// none of them.
    pub fn parse(&mut self, arg: &str, a: &mut crate::Args) -> Result<bool, Error> {
        let mut set = |f: u16| self.forms = (self.forms & !form::NO_OUTPUT) | f;
        match arg {
            "-p" | "-u" | "--patch" => set(form::PATCH),
            "--raw" => set(form::RAW),
            "--name-only" => set(form::NAME_ONLY),
            "--name-status" => set(form::NAME_STATUS),
            "--numstat" => set(form::NUMSTAT),
            "--shortstat" => set(form::SHORTSTAT),
            "--summary" => set(form::SUMMARY),
            "--stat" => set(form::STAT),
            "--patch-with-stat" => set(form::PATCH | form::STAT),
            "--patch-with-raw" => set(form::PATCH | form::RAW),
            "-s" | "--no-patch" => self.forms = form::NO_OUTPUT,
            "--binary" => {
                set(form::PATCH);
                self.binary = true;
            }
            "--no-renames" => self.renames = false,
            "-M" | "--find-renames" => self.renames = true,
            "--full-index" => self.full_index = true,
            "--no-abbrev" => self.abbrev = Abbrev::Full,
            "--abbrev" => self.abbrev = Abbrev::Default,
            "-z" => self.nul = true,
            "-a" | "--text" => self.text = true,
            "--no-prefix" => {
                self.src_prefix.clear();
                self.dst_prefix.clear();
            }
            "--default-prefix" => {
                self.src_prefix = "a/".into();
                self.dst_prefix = "b/".into();
            }
            "-r" | "--root" | "--no-color" | "--color=never" | "--no-ext-diff" | "--no-textconv" => {}
            "-U" | "--unified" => {
                set(form::PATCH);
                self.context = 3;
            }
            _ => {
                if let Some(v) = arg.strip_prefix("-U").or_else(|| arg.strip_prefix("--unified=")) {
                    set(form::PATCH);
                    self.context = v.parse().map_err(|_| Error::Fatal(format!("invalid context length: {v}")))?;
                } else if let Some(v) = arg.strip_prefix("--abbrev=") {
                    let n: usize = v.parse().map_err(|_| Error::Fatal(format!("bad --abbrev value: {v}")))?;
                    self.abbrev = if n == 0 { Abbrev::Default } else { Abbrev::Len(n.clamp(4, 40)) };
                } else if let Some(v) = arg.strip_prefix("--stat=") {
                    set(form::STAT);
                    let mut parts = v.split(',');
                    let num = |p: Option<&str>| -> Result<Option<usize>, Error> {
                        p.filter(|p| !p.is_empty())
                            .map(|p| p.parse().map_err(|_| Error::Fatal(format!("invalid --stat value: {v}"))))
                            .transpose()
                    };
                    self.stat.width = num(parts.next())?.or(self.stat.width);
                    self.stat.name_width = num(parts.next())?.or(self.stat.name_width);
                    self.stat.count = num(parts.next())?.or(self.stat.count);
                } else if let Some((which, v)) =
                    ["--stat-width=", "--stat-name-width=", "--stat-graph-width=", "--stat-count="]
                        .iter()
                        .find_map(|p| arg.strip_prefix(p).map(|v| (*p, v)))
                {
                    set(form::STAT);
                    let n: usize = v.parse().map_err(|_| Error::Fatal(format!("{which} expects a numerical value")))?;
                    match which {
                        "--stat-width=" => self.stat.width = Some(n),
                        "--stat-name-width=" => self.stat.name_width = Some(n),
                        "--stat-graph-width=" => self.stat.graph_width = Some(n),
                        _ => self.stat.count = Some(n),
                    }
                } else if let Some(v) = a.value_only_eq(arg, "--src-prefix")? {
                    self.src_prefix = v;
                } else if let Some(v) = a.value_only_eq(arg, "--dst-prefix")? {
                    self.dst_prefix = v;
                } else if let Some(v) = a.value_only_eq(arg, "--diff-filter")? {
                    if let Some(bad) = v.chars().find(|c| !"ADMRTadmrt".contains(*c)) {
                        return Err(Error::Unsupported(format!("--diff-filter letter '{bad}'")));
                    }
                    // Given again, the letters add up.
                    self.filter = Some(self.filter.take().unwrap_or_default() + &v);
                } else {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// An id as this diff abbreviates it on a `--raw` line (`--full-index` is for
    /// patches only).
    pub fn id(&self, repo: &Repo, id: ObjectId) -> String {
        repo.abbrev_as(id, self.abbrev)
    }

    /// An id on a patch's `index` line: `--no-abbrev` leaves it as it is, only
    /// `--full-index` or `--abbrev=N` change it.
    fn index_id(&self, repo: &Repo, id: ObjectId) -> String {
        match (self.full_index, self.abbrev) {
            (true, _) => id.to_string(),
            (false, Abbrev::Len(n)) => repo.abbrev_as(id, Abbrev::Len(n)),
            _ => repo.abbrev(id),
        }
    }

    /// What git's `diff_setup_done` makes of the forms given: `--name-only`,
    /// `--name-status` and `-s` override the others, and exclude each other.
    pub fn finish(&mut self) -> Result<(), Error> {
        let exclusive = [form::NAME_ONLY, form::NAME_STATUS, form::NO_OUTPUT];
        if exclusive.iter().filter(|f| self.forms & **f != 0).count() > 1 {
            return Err(Error::Fatal(
                "options '--name-only', '--name-status', '--check', and '-s' cannot be used together".into(),
            ));
        }
        if self.forms & (form::NAME_ONLY | form::NAME_STATUS | form::NO_OUTPUT) != 0 {
            self.forms &= form::NAME_ONLY | form::NAME_STATUS | form::NO_OUTPUT;
        }
        Ok(())
    }

    /// Keeps the changes `--diff-filter` selects.
    pub fn filtered(&self, changes: Vec<Change>) -> Vec<Change> {
        let Some(f) = &self.filter else { return changes };
        let upper: Vec<char> = f.chars().filter(char::is_ascii_uppercase).collect();
        let lower: Vec<char> = f.chars().filter(char::is_ascii_lowercase).map(|c| c.to_ascii_uppercase()).collect();
        changes
            .into_iter()
            .filter(|c| {
                let s = c.status().chars().next().unwrap_or('M');
                (upper.is_empty() || upper.contains(&s)) && !lower.contains(&s)
            })
            .collect()
    }
}

/// The files of one side under `pathspec`, by path.
pub fn side_files(repo: &Repo, side: Side, pathspec: &Pathspec) -> Result<BTreeMap<Vec<u8>, File>, Error> {
    let mut out = BTreeMap::new();
    match side {
        Side::Tree(tree) => {
            for (path, Entry { mode, id }) in repo.flatten_tree(tree)? {
                if pathspec.matches(&path) {
                    out.insert(path, File { mode, id, data: None });
                }
            }
        }
        Side::Index => {
            for (path, Entry { mode, id }) in repo.index_entries()? {
                if pathspec.matches(&path) {
                    out.insert(path, File { mode, id, data: None });
                }
            }
        }
        Side::Worktree => {
            for (path, entry) in repo.index_entries()? {
                if !pathspec.matches(&path) {
                    continue;
                }
                if let Some(file) = worktree_file(repo, &path, entry)? {
                    out.insert(path, file);
                }
            }
        }
    }
    Ok(out)
}

/// The working tree's version of a tracked file, or None when it is gone.
fn worktree_file(repo: &Repo, path: &[u8], entry: Entry) -> Result<Option<File>, Error> {
    if entry.mode == MODE_GITLINK {
        // A submodule's checkout is its own repository: git compares its HEAD, which
        // is not read here; it is taken as unchanged.
        return Ok(Some(File { mode: entry.mode, id: entry.id, data: None }));
    }
    let real = repo.work_path(path);
    let Ok(meta) = std::fs::symlink_metadata(&real) else { return Ok(None) };
    let (mode, data) = if meta.file_type().is_symlink() {
        let target = std::fs::read_link(&real).map_err(|e| Error::Fatal(format!("{}: {e}", real.display())))?;
        (MODE_LINK, target.to_string_lossy().as_bytes().to_vec())
    } else if meta.is_file() {
        if meta.len() > crate::repo::MAX_OBJECT_SIZE {
            return Err(Error::Fatal(format!(
                "{}: file larger than {} bytes, not read",
                String::from_utf8_lossy(path),
                crate::repo::MAX_OBJECT_SIZE
            )));
        }
        let data = std::fs::read(&real).map_err(|e| Error::Fatal(format!("{}: {e}", real.display())))?;
        (file_mode(&meta, entry.mode), data)
    } else {
        return Ok(None);
    };
    let id = gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::object::Kind::Blob, &data)
        .map_err(|e| Error::Fatal(e.to_string()))?;
    if id == entry.id {
        // As the index has it: git knows its id (and prints it with `--raw`).
        return Ok(Some(File { mode, id, data: None }));
    }
    Ok(Some(File { mode, id, data: Some(data) }))
}

/// The mode git records for a regular file: executable or not. In the component the
/// execute bit cannot be seen, so the index's mode is kept.
fn file_mode(meta: &std::fs::Metadata, index_mode: u32) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = index_mode;
        if meta.permissions().mode() & 0o100 != 0 { 0o100755 } else { 0o100644 }
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        if index_mode == 0o100755 { 0o100755 } else { 0o100644 }
    }
}

/// The changes from `old` to `new`, in path order, with renames paired when `renames`
/// is set (git's default `diff.renames`).
pub fn changes(
    repo: &Repo,
    old: BTreeMap<Vec<u8>, File>,
    mut new: BTreeMap<Vec<u8>, File>,
    renames: bool,
) -> Result<Vec<Change>, Error> {
    let mut out = Vec::new();
    for (path, o) in old {
        match new.remove(&path) {
            Some(n) if n.id == o.id && n.mode == o.mode => {}
            n => out.push(Change { old_path: path.clone(), new_path: path, old: Some(o), new: n, similarity: None }),
        }
    }
    for (path, n) in new {
        out.push(Change { old_path: path.clone(), new_path: path, old: None, new: Some(n), similarity: None });
    }
    out.sort_by(|a, b| a.new_path.cmp(&b.new_path).then((a.new.is_some()).cmp(&b.new.is_some())));
    if renames {
        crate::rename::pair_renames(repo, &mut out)?;
    }
    Ok(out)
}

/// Prints `changes` in the chosen output forms, in git's order (`diff_flush`): a blank
/// line between the patch and what comes before it.
pub fn print(repo: &Repo, changes: &[Change], opts: &Options, out: &mut Vec<u8>) -> Result<(), Error> {
    if changes.is_empty() || opts.silent() {
        return Ok(());
    }
    let term = if opts.nul { 0 } else { b'\n' };
    let name = |path: &[u8]| -> Vec<u8> { if opts.nul { path.to_vec() } else { quote(b"", path).into_bytes() } };
    let mut separator = false;
    if opts.shows(form::RAW | form::NAME_ONLY | form::NAME_STATUS) {
        for c in changes {
            if opts.shows(form::RAW | form::NAME_STATUS) {
                if opts.forms & form::NAME_STATUS == 0 {
                    let mode = |f: &Option<File>| f.as_ref().map_or(0, |f| f.mode);
                    // A working-tree file is not hashed for `--raw`: git prints zeros.
                    let null = ObjectId::null(gix::hash::Kind::Sha1);
                    let id = |f: &Option<File>| f.as_ref().map_or(null, |f| if f.data.is_some() { null } else { f.id });
                    let _ = write!(
                        SinkString(out),
                        ":{:06o} {:06o} {} {} ",
                        mode(&c.old),
                        mode(&c.new),
                        opts.id(repo, id(&c.old)),
                        opts.id(repo, id(&c.new))
                    );
                }
                out.extend_from_slice(c.status().as_bytes());
                out.push(if opts.nul { 0 } else { b'\t' });
                if c.similarity.is_some() {
                    out.extend_from_slice(&name(&c.old_path));
                    out.push(if opts.nul { 0 } else { b'\t' });
                }
            }
            out.extend_from_slice(&name(&c.new_path));
            out.push(term);
        }
        separator = true;
    }
    if opts.shows(form::NUMSTAT | form::STAT | form::SHORTSTAT) {
        if opts.shows(form::NUMSTAT) {
            for c in changes {
                let counted = match counts(repo, c)? {
                    Some((i, d)) => format!("{i}\t{d}\t"),
                    None => "-\t-\t".into(),
                };
                out.extend_from_slice(counted.as_bytes());
                if opts.nul && c.similarity.is_some() {
                    out.push(0);
                    out.extend_from_slice(&c.old_path);
                    out.push(0);
                    out.extend_from_slice(&c.new_path);
                } else if c.similarity.is_some() {
                    out.extend_from_slice(rename_name(&c.old_path, &c.new_path).as_bytes());
                } else {
                    out.extend_from_slice(&name(&c.new_path));
                }
                out.push(term);
            }
        }
        if opts.shows(form::STAT) {
            print_stat(repo, changes, opts, out)?;
        }
        if opts.shows(form::SHORTSTAT) {
            let (mut ins, mut del) = (0, 0);
            for c in changes {
                if let Some((i, d)) = counts(repo, c)? {
                    ins += i;
                    del += d;
                }
            }
            let _ = writeln!(SinkString(out), "{}", stat_summary(changes.len(), ins, del));
        }
        separator = true;
    }
    if opts.shows(form::SUMMARY) {
        let before = out.len();
        for c in changes {
            summary(c, out);
        }
        separator |= out.len() > before;
    }
    if opts.shows(form::PATCH) && opts.binary && !opts.text {
        // Refused before anything is printed.
        for c in changes {
            for f in [&c.old, &c.new].into_iter().flatten() {
                if content(repo, f)?.is_none_or(|d| is_binary(&d)) {
                    return Err(Error::Unsupported("--binary patches of binary files (GIT binary patch)".into()));
                }
            }
        }
    }
    if opts.shows(form::PATCH) {
        if separator {
            out.push(b'\n');
        }
        for c in changes {
            match (&c.old, &c.new) {
                // A type change (file to symlink) is a deletion and an addition.
                (Some(o), Some(n)) if kind(o.mode) != kind(n.mode) => {
                    patch(repo, &Change { new: None, ..c.clone() }, opts, out)?;
                    patch(repo, &Change { old: None, ..c.clone() }, opts, out)?;
                }
                _ => patch(repo, c, opts, out)?,
            }
        }
    }
    Ok(())
}

/// One line of `--summary` for a change that creates, deletes, renames a file or
/// changes its mode (git's `diff_summary`).
fn summary(c: &Change, out: &mut Vec<u8>) {
    let mut s = SinkString(out);
    match (&c.old, &c.new) {
        (None, Some(n)) => {
            let _ = writeln!(s, " create mode {:06o} {}", n.mode, quote(b"", &c.new_path));
        }
        (Some(o), None) => {
            let _ = writeln!(s, " delete mode {:06o} {}", o.mode, quote(b"", &c.old_path));
        }
        (Some(o), Some(n)) => {
            if let Some(similarity) = c.similarity {
                let _ = writeln!(s, " rename {} ({similarity}%)", rename_name(&c.old_path, &c.new_path));
                if o.mode != n.mode {
                    let _ = writeln!(s, " mode change {:06o} => {:06o}", o.mode, n.mode);
                }
            } else if o.mode != n.mode {
                let _ = writeln!(s, " mode change {:06o} => {:06o} {}", o.mode, n.mode, quote(b"", &c.new_path));
            }
        }
        (None, None) => {}
    }
}

/// The content of a file, or None when it is too large to read (then shown as binary).
pub(crate) fn content(repo: &Repo, file: &File) -> Result<Option<Vec<u8>>, Error> {
    if let Some(data) = &file.data {
        return Ok(Some(data.clone()));
    }
    if file.mode == MODE_GITLINK {
        return Ok(Some(format!("Subproject commit {}\n", file.id).into_bytes()));
    }
    match repo.object(file.id) {
        Ok((_, data)) => Ok(Some(data)),
        Err(Error::TooLarge(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The contents before and after `c` (empty for an added or deleted side), each None
/// when it is too large to read.
pub(crate) type Contents = (Option<Vec<u8>>, Option<Vec<u8>>);

pub(crate) fn contents(repo: &Repo, c: &Change) -> Result<Contents, Error> {
    let side = |file: &Option<File>| match file {
        Some(f) => content(repo, f),
        None => Ok(Some(Vec::new())),
    };
    Ok((side(&c.old)?, side(&c.new)?))
}

/// git's `buffer_is_binary`: a NUL in the first 8000 bytes.
pub(crate) fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(8000)].contains(&0)
}

fn patch(repo: &Repo, c: &Change, opts: &Options, out: &mut Vec<u8>) -> Result<(), Error> {
    let mut head = String::new();
    let a = quote(opts.src_prefix.as_bytes(), &c.old_path);
    let b = quote(opts.dst_prefix.as_bytes(), &c.new_path);
    let _ = writeln!(head, "diff --git {a} {b}");
    match (&c.old, &c.new) {
        (None, Some(n)) => {
            let _ = writeln!(head, "new file mode {:o}", n.mode);
        }
        (Some(o), None) => {
            let _ = writeln!(head, "deleted file mode {:o}", o.mode);
        }
        (Some(o), Some(n)) => {
            if o.mode != n.mode {
                let _ = writeln!(head, "old mode {:o}\nnew mode {:o}", o.mode, n.mode);
            }
            if let Some(similarity) = c.similarity {
                let _ = write!(
                    head,
                    "similarity index {similarity}%\nrename from {}\nrename to {}\n",
                    quote(b"", &c.old_path),
                    quote(b"", &c.new_path)
                );
            }
        }
        (None, None) => return Ok(()),
    }
    let old_id = c.old.as_ref().map(|f| f.id);
    let new_id = c.new.as_ref().map(|f| f.id);
    if old_id == new_id {
        out.extend_from_slice(head.as_bytes());
        return Ok(());
    }
    let null = ObjectId::null(gix::hash::Kind::Sha1);
    let _ = write!(
        head,
        "index {}..{}",
        opts.index_id(repo, old_id.unwrap_or(null)),
        opts.index_id(repo, new_id.unwrap_or(null))
    );
    match (&c.old, &c.new) {
        (Some(o), Some(n)) if o.mode == n.mode => {
            let _ = writeln!(head, " {:o}", o.mode);
        }
        _ => head.push('\n'),
    }
    let (old, new) = contents(repo, c)?;
    let a_name = if c.old.is_some() { a } else { "/dev/null".into() };
    let b_name = if c.new.is_some() { b } else { "/dev/null".into() };
    out.extend_from_slice(head.as_bytes());
    let (Some(old), Some(new)) = (old, new) else {
        let _ = writeln!(SinkString(out), "Binary files {a_name} and {b_name} differ");
        return Ok(());
    };
    if !opts.text && (is_binary(&old) || is_binary(&new)) {
        let _ = writeln!(SinkString(out), "Binary files {a_name} and {b_name} differ");
        return Ok(());
    }
    if old.is_empty() && new.is_empty() {
        return Ok(());
    }
    // git ends a name holding a space with a tab, so a patch tool can find its end.
    let tab = |n: &str| if n.contains(' ') { "\t" } else { "" };
    let _ = write!(SinkString(out), "--- {a_name}{}\n+++ {b_name}{}\n", tab(&a_name), tab(&b_name));
    unified(&old, &new, opts.context, out);
    Ok(())
}

/// Appends UTF-8 text to a byte buffer through `write!`.
pub(crate) struct SinkString<'a>(pub &'a mut Vec<u8>);

impl std::fmt::Write for SinkString<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// The lines of `data`, each with its newline (the last may lack one).
fn lines(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, b) in data.iter().enumerate() {
        if *b == b'\n' {
            out.push(&data[start..=i]);
            start = i + 1;
        }
    }
    if start < data.len() {
        out.push(&data[start..]);
    }
    out
}

/// The changed line ranges from `old` to `new`: (old start, old end, new start, new end).
pub fn line_changes(old: &[u8], new: &[u8]) -> Vec<(usize, usize, usize, usize)> {
    let input = imara_diff::InternedInput::new(old, new);
    let mut diff = imara_diff::Diff::compute(imara_diff::Algorithm::Myers, &input);
    diff.postprocess_lines(&input);
    diff.hunks()
        .map(|h| (h.before.start as usize, h.before.end as usize, h.after.start as usize, h.after.end as usize))
        .collect()
}

/// git's unified diff body: hunks of the changes with `context` lines around them.
fn unified(old: &[u8], new: &[u8], context: usize, out: &mut Vec<u8>) {
    let (ol, nl) = (lines(old), lines(new));
    let changes = line_changes(old, new);
    let mut i = 0;
    while i < changes.len() {
        // The changes of one hunk: those separated by at most 2 * context lines.
        let mut j = i;
        while j + 1 < changes.len() && changes[j + 1].0 - changes[j].1 <= 2 * context {
            j += 1;
        }
        let first = changes[i];
        let last = changes[j];
        let before = context.min(first.0);
        let after = context.min(ol.len() - last.1);
        let (os, oe) = (first.0 - before, last.1 + after);
        let (ns, ne) = (first.2 - before, last.3 + after);
        let mut header = format!("@@ -{} +{} @@", range(os, oe - os), range(ns, ne - ns));
        if let Some(func) = function_line(&ol, os) {
            header.push(' ');
            header.push_str(&String::from_utf8_lossy(func));
        }
        out.extend_from_slice(header.as_bytes());
        out.push(b'\n');
        let mut pos = os;
        for &(b0, b1, a0, a1) in &changes[i..=j] {
            for line in &ol[pos..b0] {
                emit(out, b' ', line);
            }
            for line in &ol[b0..b1] {
                emit(out, b'-', line);
            }
            for line in &nl[a0..a1] {
                emit(out, b'+', line);
            }
            pos = b1;
        }
        for line in &ol[pos..oe] {
            emit(out, b' ', line);
        }
        i = j + 1;
    }
}

fn emit(out: &mut Vec<u8>, mark: u8, line: &[u8]) {
    out.push(mark);
    out.extend_from_slice(line);
    if !line.ends_with(b"\n") {
        out.extend_from_slice(b"\n\\ No newline at end of file\n");
    }
}

/// `start,len` of a hunk header (0-based start), as git writes it.
fn range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

/// Size of git's buffer for the hunk header's function name, in bytes.
const FUNC_LINE_MAX: usize = 80;

/// git's default function line for a hunk starting at `start`: the nearest line above
/// it that begins with a letter, `_` or `$`, cut to 80 bytes, trailing blanks removed.
fn function_line<'a>(lines: &[&'a [u8]], start: usize) -> Option<&'a [u8]> {
    for line in lines[..start].iter().rev() {
        if let Some(&c) = line.first()
            && (c.is_ascii_alphabetic() || c == b'_' || c == b'$')
        {
            let mut l = &line[..line.len().min(FUNC_LINE_MAX)];
            while let Some((&last, rest)) = l.split_last() {
                if last.is_ascii_whitespace() {
                    l = rest;
                } else {
                    break;
                }
            }
            return Some(l);
        }
    }
    None
}

/// A path as git prints it (`core.quotePath`): in double quotes with C escapes when it
/// holds a control character, `"`, `\` or a byte above 0x7f.
pub fn quote(prefix: &[u8], path: &[u8]) -> String {
    let needs = path.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\' || b >= 0x7f);
    if !needs {
        return format!("{}{}", String::from_utf8_lossy(prefix), String::from_utf8_lossy(path));
    }
    let mut s = String::from("\"");
    s.push_str(&String::from_utf8_lossy(prefix));
    for &b in path {
        match b {
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\r' => s.push_str("\\r"),
            0x07 => s.push_str("\\a"),
            0x08 => s.push_str("\\b"),
            0x0b => s.push_str("\\v"),
            0x0c => s.push_str("\\f"),
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b if !(0x20..0x7f).contains(&b) => {
                let _ = write!(s, "\\{b:03o}");
            }
            b => s.push(b as char),
        }
    }
    s.push('"');
    s
}
