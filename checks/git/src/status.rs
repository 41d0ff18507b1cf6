//! `git status --porcelain` / `--short`: staged changes (HEAD against the index),
//! unstaged ones (the index against the working tree), and untracked files, with
//! `.gitignore` files and `.git/info/exclude` applied (global excludes are not read:
//! the configuration outside the repository never is).
//!
//! Untracked files are listed as git's default `-unormal` does: a directory with no
//! tracked file in it is one entry (`?? dir/`), a directory holding only ignored or
//! no files is not listed.

use crate::diff::{self, Side, quote};
use crate::pathspec::Pathspec;
use crate::repo::Repo;
use crate::{Args, Error};
use reviewhost_tool::{Ctx, Kind};
use std::collections::{BTreeMap, BTreeSet};

/// Deepest directory nesting walked for untracked files; deeper directories are
/// not listed (a guard against pathological trees, far beyond real projects).
const MAX_DEPTH: usize = 256;

/// One tracked path's line: X (staged), Y (unstaged), and the original path of a
/// staged rename.
type Row = (char, char, Option<Vec<u8>>);

pub fn status(args: &[String], repo: &Repo, ctx: &Ctx, out: &mut Vec<u8>) -> Result<i32, Error> {
    let mut short = false;
    let mut porcelain = false;
    let mut zero = false;
    let mut untracked = true;
    let mut paths = Vec::new();
    let mut a = Args::new(args);
    while let Some(arg) = a.next() {
        if a.after_dashdash || !arg.starts_with('-') {
            paths.push(arg);
            continue;
        }
        match arg.as_str() {
            "--porcelain" | "--porcelain=v1" => porcelain = true,
            "-s" | "--short" => short = true,
            "-z" => {
                zero = true;
                porcelain = porcelain || !short;
            }
            "-uno" | "--untracked-files=no" => untracked = false,
            "-unormal" | "--untracked-files=normal" | "-u" | "--untracked-files" => untracked = true,
            "--no-renames" | "--no-ahead-behind" => {}
            _ => return Err(Error::Unsupported(format!("option '{arg}' of git status"))),
        }
    }
    if !short && !porcelain {
        return Err(Error::Unsupported("git status without --porcelain or --short (the long format)".into()));
    }
    let pathspec = Pathspec::new(&paths, &repo.prefix)?;
    let head = match crate::revs::resolve(repo, "HEAD") {
        Some(id) => Side::Tree(repo.tree_of(id)?),
        None => Side::Tree(gix::ObjectId::empty_tree(gix::hash::Kind::Sha1)),
    };
    let staged = diff::changes(
        repo,
        diff::side_files(repo, head, &pathspec)?,
        diff::side_files(repo, Side::Index, &pathspec)?,
        true,
    )?;
    let unstaged = diff::changes(
        repo,
        diff::side_files(repo, Side::Index, &pathspec)?,
        diff::side_files(repo, Side::Worktree, &pathspec)?,
        false,
    )?;
    let mut rows: BTreeMap<Vec<u8>, Row> = BTreeMap::new();
    for c in &staged {
        let x = c.status().chars().next().unwrap_or('M');
        let orig = c.similarity.map(|_| c.old_path.clone());
        rows.insert(c.new_path.clone(), (x, ' ', orig));
    }
    for c in &unstaged {
        let y = c.status().chars().next().unwrap_or('M');
        rows.entry(c.new_path.clone()).or_insert((' ', ' ', None)).1 = y;
    }
    // Porcelain paths are from the top; short ones from the current directory.
    let shown = |p: &[u8]| -> Vec<u8> {
        let p = if porcelain { p.to_vec() } else { relative(p, &repo.prefix) };
        if zero {
            p
        } else if p.contains(&b' ') && !quote(b"", &p).starts_with('"') {
            // status quotes a name with a space too, so `XY a b` stays one name.
            format!("\"{}\"", String::from_utf8_lossy(&p)).into_bytes()
        } else {
            quote(b"", &p).into_bytes()
        }
    };
    let end = if zero { 0u8 } else { b'\n' };
    for (path, (x, y, orig)) in &rows {
        out.extend_from_slice(format!("{x}{y} ").as_bytes());
        match orig {
            Some(o) if zero => {
                out.extend_from_slice(&shown(path));
                out.push(0);
                out.extend_from_slice(&shown(o));
            }
            Some(o) => {
                out.extend_from_slice(&shown(o));
                out.extend_from_slice(b" -> ");
                out.extend_from_slice(&shown(path));
            }
            None => out.extend_from_slice(&shown(path)),
        }
        out.push(end);
    }
    if untracked {
        for path in untracked_paths(ctx, repo, true)? {
            if !pathspec.matches(&path) && !pathspec.matches(path.strip_suffix(b"/").unwrap_or(&path)) {
                continue;
            }
            out.extend_from_slice(b"?? ");
            out.extend_from_slice(&shown(&path));
            out.push(end);
        }
    }
    Ok(0)
}

/// The untracked, not ignored paths of the working tree, sorted as git sorts them
/// (`a-b` before `a/`). With `collapse` (status), a directory without tracked files is
/// one entry `dir/`; without (`ls-files -o`), its files are listed.
pub fn untracked_paths(ctx: &Ctx, repo: &Repo, collapse: bool) -> Result<Vec<Vec<u8>>, Error> {
    let tracked: BTreeSet<Vec<u8>> = repo.index_entries()?.into_iter().map(|(p, _)| p).collect();
    let mut found = Vec::new();
    let mut ignores = Ignores::default();
    if let Ok(text) = std::fs::read(repo.common_dir.join("info/exclude")) {
        ignores.add(b"", &text);
    }
    let walk = Walk { ctx, repo, tracked: &tracked, collapse };
    walk.dir(b"", &mut ignores, &mut found, 0)?;
    found.sort();
    Ok(found)
}

/// What a walk for untracked files knows throughout.
struct Walk<'a> {
    ctx: &'a Ctx,
    repo: &'a Repo,
    tracked: &'a BTreeSet<Vec<u8>>,
    collapse: bool,
}

fn relative(path: &[u8], prefix: &str) -> Vec<u8> {
    let p = prefix.as_bytes();
    if let Some(rest) = path.strip_prefix(p) {
        return rest.to_vec();
    }
    let dirs: Vec<&[u8]> = p.split(|b| *b == b'/').filter(|s| !s.is_empty()).collect();
    let parts: Vec<&[u8]> = path.split(|b| *b == b'/').collect();
    let common = dirs.iter().zip(&parts).take_while(|(a, b)| a == b).count();
    let mut out = b"../".repeat(dirs.len() - common);
    out.extend_from_slice(&parts[common..].join(&b'/'));
    out
}

impl Walk<'_> {
    /// Lists the untracked entries under `dir` (relative to the top, `""` or `a/b/`).
    fn dir(&self, dir: &[u8], ignores: &mut Ignores, found: &mut Vec<Vec<u8>>, depth: usize) -> Result<(), Error> {
        let (ctx, repo, tracked) = (self.ctx, self.repo, self.tracked);
        if depth > MAX_DEPTH {
            return Ok(());
        }
        let real = repo.work_path(dir);
        let mark = ignores.len();
        if let Ok(text) = std::fs::read(real.join(".gitignore")) {
            ignores.add(dir, &text);
        }
        let Ok(entries) = ctx.read_dir(&real) else { return Ok(()) };
        let mut names: Vec<(String, Kind)> = entries.into_iter().flatten().map(|e| (e.name, e.kind)).collect();
        names.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, kind) in names {
            if dir.is_empty() && name == ".git" {
                continue;
            }
            let mut path = dir.to_vec();
            path.extend_from_slice(name.as_bytes());
            let is_dir = kind == Kind::Dir;
            if tracked.contains(&path) {
                continue;
            }
            if ignores.ignored(&path, is_dir) {
                continue;
            }
            if is_dir {
                if repo.work_path(&path).join(".git").exists() {
                    // A nested repository is listed as an untracked directory.
                    path.push(b'/');
                    found.push(path);
                    continue;
                }
                path.push(b'/');
                let has_tracked = tracked.range(path.clone()..).next().is_some_and(|t| t.starts_with(&path));
                let mut inner = Vec::new();
                self.dir(&path, ignores, &mut inner, depth + 1)?;
                if has_tracked || !self.collapse {
                    found.extend(inner);
                } else if !inner.is_empty() {
                    found.push(path);
                }
            } else if matches!(kind, Kind::File | Kind::Symlink) {
                found.push(path);
            }
        }
        ignores.truncate(mark);
        Ok(())
    }
}

/// The ignore patterns in force, in increasing precedence.
#[derive(Default)]
struct Ignores {
    patterns: Vec<Pattern>,
}

struct Pattern {
    /// The directory of the `.gitignore` it came from (`""` or `a/b/`).
    base: Vec<u8>,
    glob: Vec<u8>,
    negated: bool,
    dir_only: bool,
    /// Matched against the path below `base` (it had a `/` other than a trailing one);
    /// otherwise against the last component.
    anchored: bool,
}

impl Ignores {
    fn len(&self) -> usize {
        self.patterns.len()
    }

    fn truncate(&mut self, n: usize) {
        self.patterns.truncate(n);
    }

    fn add(&mut self, base: &[u8], text: &[u8]) {
        for line in text.split(|b| *b == b'\n') {
            let mut line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() || line[0] == b'#' {
                continue;
            }
            // Trailing spaces go unless escaped.
            while line.ends_with(b" ") && !line.ends_with(b"\\ ") {
                line = &line[..line.len() - 1];
            }
            let negated = line.first() == Some(&b'!');
            if negated {
                line = &line[1..];
            }
            let dir_only = line.ends_with(b"/");
            if dir_only {
                line = &line[..line.len() - 1];
            }
            if line.is_empty() {
                continue;
            }
            let anchored = line.contains(&b'/');
            let glob = line.strip_prefix(b"/").unwrap_or(line).to_vec();
            self.patterns.push(Pattern { base: base.to_vec(), glob, negated, dir_only, anchored });
        }
    }

    /// Whether `path` (from the top) is ignored: the last matching pattern decides.
    fn ignored(&self, path: &[u8], is_dir: bool) -> bool {
        for p in self.patterns.iter().rev() {
            if p.dir_only && !is_dir {
                continue;
            }
            let Some(rel) = path.strip_prefix(p.base.as_slice()) else { continue };
            let hit = if p.anchored {
                wildmatch(&p.glob, rel)
            } else {
                let name = rel.rsplit(|b| *b == b'/').next().unwrap_or(rel);
                wildmatch(&p.glob, name)
            };
            if hit {
                return !p.negated;
            }
        }
        false
    }
}

/// git's wildmatch with `WM_PATHNAME`: `*` and `?` stop at `/`, `**` between slashes
/// (or at either end) matches any number of directories.
pub fn wildmatch(p: &[u8], s: &[u8]) -> bool {
    if p.is_empty() {
        return s.is_empty();
    }
    if p.starts_with(b"**") {
        let rest = &p[2..];
        if rest.is_empty() || rest[0] == b'/' {
            if rest.is_empty() {
                return true;
            }
            // `**/x`: x here, or after any number of directories.
            let rest = &rest[1..];
            if wildmatch(rest, s) {
                return true;
            }
            for (i, b) in s.iter().enumerate() {
                if *b == b'/' && wildmatch(rest, &s[i + 1..]) {
                    return true;
                }
            }
            return false;
        }
    }
    match p[0] {
        b'*' => {
            let rest = &p[1..];
            for i in 0..=s.len() {
                if wildmatch(rest, &s[i..]) {
                    return true;
                }
                if i < s.len() && s[i] == b'/' {
                    break;
                }
            }
            false
        }
        b'?' => !s.is_empty() && s[0] != b'/' && wildmatch(&p[1..], &s[1..]),
        b'[' => {
            let Some(&c) = s.first() else { return false };
            if c == b'/' {
                return false;
            }
            // Reuse fnmatch's bracket reading on the one byte.
            let close = p.iter().skip(2).position(|b| *b == b']').map(|i| i + 2);
            match close {
                Some(end) if reviewhost_tool::fnmatch(&p[..=end], &[c]) => wildmatch(&p[end + 1..], &s[1..]),
                Some(_) => false,
                None => c == b'[' && wildmatch(&p[1..], &s[1..]),
            }
        }
        b'\\' if p.len() > 1 => !s.is_empty() && s[0] == p[1] && wildmatch(&p[2..], &s[1..]),
        c => !s.is_empty() && s[0] == c && wildmatch(&p[1..], &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::wildmatch;

    #[test]
    fn wildmatch_follows_pathname_rules() {
        assert!(wildmatch(b"*.log", b"a.log"));
        assert!(!wildmatch(b"*.log", b"d/a.log"));
        assert!(wildmatch(b"**/a.log", b"a.log"));
        assert!(wildmatch(b"**/a.log", b"x/y/a.log"));
        assert!(wildmatch(b"d/**", b"d/x/y"));
        assert!(wildmatch(b"a/**/b", b"a/b"));
        assert!(wildmatch(b"a/**/b", b"a/x/y/b"));
        assert!(wildmatch(b"[abc].txt", b"b.txt"));
        assert!(!wildmatch(b"a?b", b"a/b"));
    }
}
