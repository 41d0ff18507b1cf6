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

fn kind(mode: u32) -> u32 {
    mode & 0o170000
}

/// How a diff is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Patch,
    NameOnly,
    NameStatus,
    Stat,
    NumStat,
    ShortStat,
    None,
}

/// The options of a diff that change its result.
#[derive(Debug, Clone)]
pub struct Options {
    pub output: Output,
    pub context: usize,
    pub renames: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { output: Output::Patch, context: 3, renames: true }
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
        pair_renames(repo, &mut out)?;
    }
    Ok(out)
}

/// git's `diff.renameLimit`: past this many sources times destinations (squared),
/// only identical-content renames are looked for.
const RENAME_LIMIT: usize = 1000;

/// git's `MAX_SCORE` and default minimum rename score (50%).
const MAX_SCORE: u64 = 60000;
const MIN_SCORE: u64 = 30000;
/// The score a unique-basename pair needs: halfway from the minimum to identical (75%).
const MIN_BASENAME_SCORE: u64 = MIN_SCORE + (MAX_SCORE - MIN_SCORE) / 2;

/// Pairs added files with deleted ones as git's diffcore-rename does: identical content
/// first, then by similarity (at least 50%, the best pairs first); each pair takes the
/// added file's place.
fn pair_renames(repo: &Repo, changes: &mut Vec<Change>) -> Result<(), Error> {
    let mut taken = vec![false; changes.len()];
    let is_src = |c: &Change| c.new.is_none() && c.old.is_some();
    let is_dst = |c: &Change| c.old.is_none() && c.new.is_some();
    for i in 0..changes.len() {
        let Some(n) = changes[i].new.as_ref().filter(|_| changes[i].old.is_none()) else { continue };
        let found = (0..changes.len()).find(|&j| {
            !taken[j]
                && is_src(&changes[j])
                && changes[j].old.as_ref().is_some_and(|o| o.id == n.id && kind(o.mode) == kind(n.mode))
        });
        if let Some(j) = found {
            taken[j] = true;
            changes[i].old = changes[j].old.clone();
            changes[i].old_path = changes[j].old_path.clone();
            changes[i].similarity = Some(100);
        }
    }
    // Inexact renames among what is left: regular files only.
    let regular = |f: &Option<File>| f.as_ref().is_some_and(|f| kind(f.mode) == 0o100000);
    let srcs: Vec<usize> =
        (0..changes.len()).filter(|&j| !taken[j] && is_src(&changes[j]) && regular(&changes[j].old)).collect();
    let dsts: Vec<usize> = (0..changes.len())
        .filter(|&i| is_dst(&changes[i]) && changes[i].similarity.is_none() && regular(&changes[i].new))
        .collect();
    if !srcs.is_empty() && !dsts.is_empty() && srcs.len() * dsts.len() <= RENAME_LIMIT * RENAME_LIMIT {
        let mut src_data = Vec::new();
        for &j in &srcs {
            let data = content(repo, changes[j].old.as_ref().expect("a source has an old side"))?;
            src_data.push(data.map(|d| (d.len() as u64, span_hashes(&d))));
        }
        let mut dst_data = Vec::new();
        for &i in &dsts {
            let data = content(repo, changes[i].new.as_ref().expect("a destination has a new side"))?;
            dst_data.push(data.map(|d| (d.len() as u64, span_hashes(&d))));
        }
        let score_of = |k: usize, d: usize, min: u64| match (&src_data[k], &dst_data[d]) {
            (Some((ss, sh)), Some((ds, dh))) => similarity(*ss, sh, *ds, dh, min),
            _ => 0,
        };
        fn pair(changes: &mut [Change], taken: &mut [bool], i: usize, j: usize, score: u64) {
            taken[j] = true;
            changes[i].old = changes[j].old.clone();
            changes[i].old_path = changes[j].old_path.clone();
            changes[i].similarity = Some((score * 100 / MAX_SCORE) as u32);
        }
        // git 2.33+: a basename found once among the sources and once among the
        // destinations pairs them at 75% similarity, before the full comparison.
        let unique = |names: Vec<&[u8]>, name: &[u8]| names.iter().filter(|n| **n == name).count() == 1;
        let src_names: Vec<&[u8]> = srcs.iter().map(|&j| basename(&changes[j].old_path)).collect();
        let dst_names: Vec<&[u8]> = dsts.iter().map(|&i| basename(&changes[i].new_path)).collect();
        let mut by_basename = Vec::new();
        for (k, &j) in srcs.iter().enumerate() {
            let name = src_names[k];
            if !unique(src_names.clone(), name) || !unique(dst_names.clone(), name) {
                continue;
            }
            let d = dst_names.iter().position(|n| *n == name).expect("unique among destinations");
            let score = score_of(k, d, MIN_BASENAME_SCORE);
            if score >= MIN_BASENAME_SCORE {
                by_basename.push((dsts[d], j, score));
            }
        }
        for (i, j, score) in by_basename {
            pair(changes, &mut taken, i, j, score);
        }
        // (score, same basename, dst, src), the best first.
        let mut scores: Vec<(u64, bool, usize, usize)> = Vec::new();
        for (d, &i) in dsts.iter().enumerate() {
            if changes[i].similarity.is_some() {
                continue;
            }
            let mut mine = Vec::new();
            for (k, &j) in srcs.iter().enumerate() {
                if taken[j] {
                    continue;
                }
                let same_name = basename(&changes[i].new_path) == basename(&changes[j].old_path);
                mine.push((score_of(k, d, MIN_SCORE), same_name, i, j));
            }
            // git keeps the four best candidates of each destination.
            mine.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
            scores.extend(mine.into_iter().take(4));
        }
        scores.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        for (score, _, i, j) in scores {
            if score < MIN_SCORE {
                break;
            }
            if taken[j] || changes[i].similarity.is_some() {
                continue;
            }
            pair(changes, &mut taken, i, j, score);
        }
    }
    let mut k = 0;
    changes.retain(|_| {
        k += 1;
        !taken[k - 1]
    });
    Ok(())
}

fn basename(path: &[u8]) -> &[u8] {
    path.rsplit(|b| *b == b'/').next().unwrap_or(path)
}

/// git's `estimate_similarity`: how much of the larger file is material copied from
/// the source, in units of [`MAX_SCORE`]; 0 when the sizes differ too much for
/// `min_score`.
fn similarity(src_size: u64, src: &BTreeMap<u32, u64>, dst_size: u64, dst: &BTreeMap<u32, u64>, min_score: u64) -> u64 {
    let max = src_size.max(dst_size);
    let base = src_size.min(dst_size);
    if max * (MAX_SCORE - min_score) < (max - base) * MAX_SCORE || max == 0 {
        return 0;
    }
    let copied: u64 = src.iter().map(|(h, n)| (*n).min(dst.get(h).copied().unwrap_or(0))).sum();
    copied * MAX_SCORE / max
}

/// git's `hash_chars` (diffcore-delta.c): the content cut into spans ending at a newline
/// or after 64 bytes, each hashed; bytes per hash value.
fn span_hashes(data: &[u8]) -> BTreeMap<u32, u64> {
    const HASHBASE: u32 = 107927;
    let text = !is_binary(data);
    let mut out = BTreeMap::new();
    let (mut accum1, mut accum2, mut n) = (0u32, 0u32, 0u64);
    let mut i = 0;
    while i < data.len() {
        let c = data[i];
        i += 1;
        if text && c == b'\r' && data.get(i) == Some(&b'\n') {
            continue;
        }
        let old1 = accum1;
        accum1 = (accum1 << 7) ^ (accum2 >> 25);
        accum2 = (accum2 << 7) ^ (old1 >> 25);
        accum1 = accum1.wrapping_add(u32::from(c));
        n += 1;
        if n < 64 && c != b'\n' {
            continue;
        }
        let h = accum1.wrapping_add(accum2.wrapping_mul(0x61)) % HASHBASE;
        *out.entry(h).or_insert(0) += n;
        n = 0;
        accum1 = 0;
        accum2 = 0;
    }
    if n > 0 {
        let h = accum1.wrapping_add(accum2.wrapping_mul(0x61)) % HASHBASE;
        *out.entry(h).or_insert(0) += n;
    }
    out
}

/// Prints `changes` in the chosen output form.
pub fn print(repo: &Repo, changes: &[Change], opts: &Options, out: &mut Vec<u8>) -> Result<(), Error> {
    match opts.output {
        Output::None => {}
        Output::NameOnly => {
            for c in changes {
                out.extend_from_slice(quote(b"", &c.new_path).as_bytes());
                out.push(b'\n');
            }
        }
        Output::NameStatus => {
            for c in changes {
                out.extend_from_slice(c.status().as_bytes());
                out.push(b'\t');
                if c.similarity.is_some() {
                    out.extend_from_slice(quote(b"", &c.old_path).as_bytes());
                    out.push(b'\t');
                }
                out.extend_from_slice(quote(b"", &c.new_path).as_bytes());
                out.push(b'\n');
            }
        }
        Output::Stat => print_stat(repo, changes, out)?,
        Output::NumStat => {
            for c in changes {
                let name = if c.similarity.is_some() {
                    rename_name(&c.old_path, &c.new_path)
                } else {
                    quote(b"", &c.new_path)
                };
                let _ = match counts(repo, c)? {
                    Some((i, d)) => writeln!(SinkString(out), "{i}\t{d}\t{name}"),
                    None => writeln!(SinkString(out), "-\t-\t{name}"),
                };
            }
        }
        Output::ShortStat if changes.is_empty() => {}
        Output::ShortStat => {
            let (mut ins, mut del) = (0, 0);
            for c in changes {
                if let Some((i, d)) = counts(repo, c)? {
                    ins += i;
                    del += d;
                }
            }
            let _ = writeln!(SinkString(out), "{}", stat_summary(changes.len(), ins, del));
        }
        Output::Patch => {
            for c in changes {
                match (&c.old, &c.new) {
                    // A type change (file to symlink) is a deletion and an addition.
                    (Some(o), Some(n)) if kind(o.mode) != kind(n.mode) => {
                        patch(repo, &Change { new: None, ..c.clone() }, opts.context, out)?;
                        patch(repo, &Change { old: None, ..c.clone() }, opts.context, out)?;
                    }
                    _ => patch(repo, c, opts.context, out)?,
                }
            }
        }
    }
    Ok(())
}

/// The content of a file, or None when it is too large to read (then shown as binary).
fn content(repo: &Repo, file: &File) -> Result<Option<Vec<u8>>, Error> {
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

/// git's `buffer_is_binary`: a NUL in the first 8000 bytes.
fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(8000)].contains(&0)
}

fn patch(repo: &Repo, c: &Change, context: usize, out: &mut Vec<u8>) -> Result<(), Error> {
    let mut head = String::new();
    let a = quote(b"a/", &c.old_path);
    let b = quote(b"b/", &c.new_path);
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
    let _ = write!(head, "index {}..{}", repo.abbrev(old_id.unwrap_or(null)), repo.abbrev(new_id.unwrap_or(null)));
    match (&c.old, &c.new) {
        (Some(o), Some(n)) if o.mode == n.mode => {
            let _ = writeln!(head, " {:o}", o.mode);
        }
        _ => head.push('\n'),
    }
    let old = match &c.old {
        Some(f) => content(repo, f)?,
        None => Some(Vec::new()),
    };
    let new = match &c.new {
        Some(f) => content(repo, f)?,
        None => Some(Vec::new()),
    };
    let a_name = if c.old.is_some() { a } else { "/dev/null".into() };
    let b_name = if c.new.is_some() { b } else { "/dev/null".into() };
    out.extend_from_slice(head.as_bytes());
    let (Some(old), Some(new)) = (old, new) else {
        let _ = writeln!(SinkString(out), "Binary files {a_name} and {b_name} differ");
        return Ok(());
    };
    if is_binary(&old) || is_binary(&new) {
        let _ = writeln!(SinkString(out), "Binary files {a_name} and {b_name} differ");
        return Ok(());
    }
    if old.is_empty() && new.is_empty() {
        return Ok(());
    }
    // git ends a name holding a space with a tab, so a patch tool can find its end.
    let tab = |n: &str| if n.contains(' ') { "\t" } else { "" };
    let _ = write!(SinkString(out), "--- {a_name}{}\n+++ {b_name}{}\n", tab(&a_name), tab(&b_name));
    unified(&old, &new, context, out);
    Ok(())
}

/// Appends UTF-8 text to a byte buffer through `write!`.
struct SinkString<'a>(&'a mut Vec<u8>);

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

/// Insertions and deletions of one change, or None for a binary file.
fn counts(repo: &Repo, c: &Change) -> Result<Option<(usize, usize)>, Error> {
    let old = match &c.old {
        Some(f) => content(repo, f)?,
        None => Some(Vec::new()),
    };
    let new = match &c.new {
        Some(f) => content(repo, f)?,
        None => Some(Vec::new()),
    };
    let (Some(old), Some(new)) = (old, new) else { return Ok(None) };
    if is_binary(&old) || is_binary(&new) {
        return Ok(None);
    }
    let (mut ins, mut del) = (0, 0);
    for (b0, b1, a0, a1) in line_changes(&old, &new) {
        del += b1 - b0;
        ins += a1 - a0;
    }
    Ok(Some((ins, del)))
}

/// `--stat` as git prints it into a pipe (80 columns).
fn print_stat(repo: &Repo, changes: &[Change], out: &mut Vec<u8>) -> Result<(), Error> {
    if changes.is_empty() {
        return Ok(());
    }
    struct Row {
        name: String,
        counts: Option<(usize, usize)>,
        sizes: (u64, u64),
    }
    let mut rows = Vec::new();
    for c in changes {
        let name = if c.similarity.is_some() { rename_name(&c.old_path, &c.new_path) } else { quote(b"", &c.new_path) };
        let counts = counts(repo, c)?;
        let size = |f: &Option<File>| -> Result<u64, Error> {
            Ok(match f {
                Some(f) => match &f.data {
                    Some(d) => d.len() as u64,
                    None => repo.object_size(f.id)?,
                },
                None => 0,
            })
        };
        let sizes = if counts.is_none() { (size(&c.old)?, size(&c.new)?) } else { (0, 0) };
        rows.push(Row { name, counts, sizes });
    }
    // git's show_stats, for output that is not a terminal (80 columns).
    let width: usize = 80;
    let mut max_change = 0;
    let mut bin_width = 0;
    let mut number_width = 0;
    for r in &rows {
        match r.counts {
            Some((i, d)) => max_change = max_change.max(i + d),
            None => {
                bin_width = bin_width.max(14 + decimal_width(r.sizes.0) + decimal_width(r.sizes.1));
                number_width = 3;
            }
        }
    }
    let number_width = number_width.max(decimal_width(max_change as u64));
    let width = width.max(16 + 6 + number_width);
    let max_len = rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(0);
    let mut graph_width = if max_change + 4 > bin_width { max_change } else { bin_width - 4 };
    let mut name_width = max_len;
    if name_width + number_width + 6 + graph_width > width {
        let limit = (width * 3 / 8).saturating_sub(number_width + 6);
        if graph_width > limit {
            graph_width = limit.max(6);
        }
        if name_width > width.saturating_sub(number_width + 6 + graph_width) {
            name_width = width.saturating_sub(number_width + 6 + graph_width);
        } else {
            graph_width = width - number_width - 6 - name_width;
        }
    }
    let (mut total_ins, mut total_del) = (0, 0);
    for r in &rows {
        let mut name: String = r.name.clone();
        let mut prefix = "";
        let mut len = name_width;
        if name_width < name.chars().count() {
            prefix = "...";
            len = len.saturating_sub(3);
            let chars: Vec<char> = name.chars().collect();
            name = chars[chars.len() - len.min(chars.len())..].iter().collect();
            if let Some(slash) = name.find('/') {
                name = name[slash..].to_string();
            }
        }
        let padding = len.saturating_sub(name.chars().count());
        match r.counts {
            None => {
                let _ = writeln!(
                    SinkString(out),
                    " {prefix}{name}{} | {:>number_width$} {} -> {} bytes",
                    " ".repeat(padding),
                    "Bin",
                    r.sizes.0,
                    r.sizes.1
                );
            }
            Some((i, d)) => {
                total_ins += i;
                total_del += d;
                let (mut add, mut del) = (i, d);
                if graph_width <= max_change {
                    let mut total = scale(add + del, graph_width, max_change);
                    if total < 2 && add > 0 && del > 0 {
                        total = 2;
                    }
                    if add < del {
                        add = scale(add, graph_width, max_change);
                        del = total - add;
                    } else {
                        del = scale(del, graph_width, max_change);
                        add = total - del;
                    }
                }
                let sep = if i + d > 0 { " " } else { "" };
                let _ = writeln!(
                    SinkString(out),
                    " {prefix}{name}{} | {:>number_width$}{sep}{}{}",
                    " ".repeat(padding),
                    i + d,
                    "+".repeat(add),
                    "-".repeat(del)
                );
            }
        }
    }
    let _ = writeln!(SinkString(out), "{}", stat_summary(rows.len(), total_ins, total_del));
    Ok(())
}

/// The last line of `--stat`, and all of `--shortstat`: git's `print_stat_summary`.
fn stat_summary(files: usize, ins: usize, del: usize) -> String {
    let mut summary = format!(" {files} file{} changed", if files == 1 { "" } else { "s" });
    if ins > 0 || del == 0 {
        let _ = write!(summary, ", {ins} insertion{}(+)", if ins == 1 { "" } else { "s" });
    }
    if del > 0 || ins == 0 {
        let _ = write!(summary, ", {del} deletion{}(-)", if del == 1 { "" } else { "s" });
    }
    summary
}

/// git's `scale_linear`: at least one column for any change.
fn scale(it: usize, width: usize, max_change: usize) -> usize {
    if it == 0 {
        return 0;
    }
    1 + (it * (width - 1) / max_change.max(1))
}

fn decimal_width(n: u64) -> usize {
    n.to_string().len()
}

/// `--stat`'s name of a rename: `{old => new}` around the common prefix and suffix.
fn rename_name(old: &[u8], new: &[u8]) -> String {
    let (old, new) = (String::from_utf8_lossy(old).to_string(), String::from_utf8_lossy(new).to_string());
    let (ob, nb) = (old.as_bytes(), new.as_bytes());
    let mut pfx = 0;
    for i in 0..ob.len().min(nb.len()) {
        if ob[i] != nb[i] {
            break;
        }
        if ob[i] == b'/' {
            pfx = i + 1;
        }
    }
    let mut sfx = 0;
    let max_sfx = ob.len().min(nb.len()) - pfx;
    for i in 0..max_sfx {
        if ob[ob.len() - 1 - i] != nb[nb.len() - 1 - i] {
            break;
        }
        if ob[ob.len() - 1 - i] == b'/' {
            sfx = i + 1;
        }
    }
    if pfx == 0 && sfx == 0 {
        return format!("{old} => {new}");
    }
    format!(
        "{}{{{} => {}}}{}",
        &old[..pfx],
        &old[pfx..old.len() - sfx],
        &new[pfx..new.len() - sfx],
        &old[old.len() - sfx..]
    )
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
