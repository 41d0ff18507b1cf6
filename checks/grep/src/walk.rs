//! rg's directory walk: ripgrep's filters (ignore files, hidden files, `--glob`
//! overrides, `--type`) applied the way the `ignore` crate's walker applies them, over
//! the host's directory listings ([`Ctx::read_dir`]).
//!
//! The `ignore` crate's walker reads directories through `std::fs`, which in the
//! component is WASI: a stream and two `stat`s per entry, and an `open` for every
//! ignore file it looks for. Here a directory is one host call whose entries carry
//! their kind, and an ignore file is read only when its directory lists it. The
//! matchers are the crate's own (`Gitignore`, `Override`, `Types`); what this module
//! reproduces is the order of precedence in `ignore::dir::Ignore::matched`:
//!
//! 1. a `--glob` override that matches decides;
//! 2. then ignore files, the nearest directory first: `.rgignore` rules before
//!    `.ignore` rules before `.gitignore` before `.git/info/exclude`; `.gitignore` and
//!    the exclude file only inside a git repository (a `.git` in the directory or a
//!    parent), and not from directories above the repository's root;
//! 3. then `--type`;
//! 4. an entry nothing matched whose name starts with `.` is hidden.
//!
//! The walk is depth-first with each directory's entries sorted by name (ripgrep's
//! `--sort path`); the operand itself (depth 0) is never filtered. Parent directories of
//! the operand up to the root contribute their ignore files. Not read: the global git
//! excludes file (the sandbox has no home) and a `.git` *file* (a worktree's pointer).

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::overrides::Override;
use ignore::types::Types;
use reviewhost_tool::{Ctx, DirEntry, Kind};
use std::io;
use std::path::{Path, PathBuf};

/// Directory depth at which a walk that follows symlinks stops (a link loop).
const MAX_DEPTH: usize = 256;

/// Which filters apply (rg's flags).
#[derive(Debug, Clone)]
pub struct Filters {
    pub hidden: bool,
    pub parents: bool,
    /// `.rgignore` (only `--no-ignore` turns it off).
    pub rgignore: bool,
    /// `.ignore`.
    pub dot_ignore: bool,
    /// `.gitignore` and `.git/info/exclude`.
    pub git_ignore: bool,
    pub follow: bool,
    pub max_depth: Option<usize>,
    pub overrides: Override,
    pub types: Types,
}

/// What the walk found: a file to search (`explicit` for the operand itself), or an
/// error to report under a path.
pub enum Visit {
    File { path: PathBuf, explicit: bool },
    Error { path: PathBuf, error: String },
}

/// The ignore rules of one directory.
struct Rules {
    rgignore: Gitignore,
    ignore: Gitignore,
    gitignore: Gitignore,
    exclude: Gitignore,
    /// The directory holds a `.git`: it is a repository's root.
    has_git: bool,
}

impl Rules {
    fn none() -> Rules {
        let empty = Gitignore::empty;
        Rules { rgignore: empty(), ignore: empty(), gitignore: empty(), exclude: empty(), has_git: false }
    }
}

/// Walks `root` (a real path from [`Ctx::real`]) and calls `visit` for every file rg
/// would search, in order, and for every error met. `visit` returns false to stop.
pub fn walk(ctx: &Ctx, root: &Path, filters: &Filters, visit: &mut dyn FnMut(Visit) -> bool) {
    let meta = match std::fs::metadata(root) {
        Ok(meta) => meta,
        Err(e) => {
            visit(Visit::Error { path: root.to_path_buf(), error: crate::grep::io_message(&e) });
            return;
        }
    };
    if !meta.is_dir() {
        if meta.is_file() {
            visit(Visit::File { path: root.to_path_buf(), explicit: true });
        }
        return;
    }
    let mut walker = Walker { ctx, filters, stack: Vec::new(), visit };
    if filters.parents || filters.git_ignore {
        // Every directory from the sandbox root down to the operand's parent. As in the
        // `ignore` crate, a parent's `.git` makes the operand part of a repository even
        // with `--no-ignore-parent`, which only drops the parents' rules.
        let ancestors: Vec<&Path> = root.ancestors().skip(1).take_while(|dir| dir.starts_with(&ctx.root)).collect();
        for dir in ancestors.into_iter().rev() {
            let entries: Vec<DirEntry> =
                ctx.read_dir(dir).map(|list| list.into_iter().flatten().collect()).unwrap_or_default();
            let mut rules = walker.rules(dir, &entries);
            if !filters.parents {
                rules = Rules { has_git: rules.has_git, ..Rules::none() };
            }
            walker.stack.push(rules);
        }
    }
    walker.directory(root, 0);
}

struct Walker<'a> {
    ctx: &'a Ctx,
    filters: &'a Filters,
    /// The rules of every directory from the outermost parent to the current one.
    stack: Vec<Rules>,
    visit: &'a mut dyn FnMut(Visit) -> bool,
}

impl Walker<'_> {
    /// Visits the entries of `dir` (at `depth`); false when the visitor said stop.
    fn directory(&mut self, dir: &Path, depth: usize) -> bool {
        let listing = match self.ctx.read_dir(dir) {
            Ok(listing) => listing,
            Err(e) => {
                return (self.visit)(Visit::Error { path: dir.to_path_buf(), error: crate::grep::io_message(&e) });
            }
        };
        let mut entries = Vec::with_capacity(listing.len());
        for entry in listing {
            match entry {
                Ok(entry) => entries.push(entry),
                Err(e) => {
                    if !(self.visit)(Visit::Error { path: dir.to_path_buf(), error: crate::grep::io_message(&e) }) {
                        return false;
                    }
                }
            }
        }
        let rules = self.rules(dir, &entries);
        self.stack.push(rules);
        entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        let go_on = self.entries(dir, &entries, depth + 1);
        self.stack.pop();
        go_on
    }

    fn entries(&mut self, dir: &Path, entries: &[DirEntry], depth: usize) -> bool {
        if self.filters.max_depth.is_some_and(|max| depth > max) {
            return true;
        }
        for entry in entries {
            let path = dir.join(&entry.name);
            let kind = match entry.kind {
                Kind::Symlink if self.filters.follow => match std::fs::metadata(&path) {
                    Ok(meta) => Kind::from(meta.file_type()),
                    Err(e) => {
                        if !(self.visit)(Visit::Error { path, error: crate::grep::io_message(&e) }) {
                            return false;
                        }
                        continue;
                    }
                },
                kind => kind,
            };
            let is_dir = kind == Kind::Dir;
            if self.ignored(&path, &entry.name, is_dir) {
                continue;
            }
            let go_on = match kind {
                Kind::Dir if depth >= MAX_DEPTH => {
                    (self.visit)(Visit::Error { path, error: "directory nesting too deep (a symlink loop?)".into() })
                }
                Kind::Dir => self.directory(&path, depth),
                Kind::File => (self.visit)(Visit::File { path, explicit: false }),
                // Symlinks not followed, FIFOs, sockets and devices are never searched.
                Kind::Symlink | Kind::Other => true,
            };
            if !go_on {
                return false;
            }
        }
        true
    }

    /// `ignore::dir::Ignore::matched_dir_entry`: whether the filters drop `path`.
    fn ignored(&self, path: &Path, name: &str, is_dir: bool) -> bool {
        let overridden = self.filters.overrides.matched(path, is_dir);
        if !overridden.is_none() {
            return overridden.is_ignore();
        }
        let mut whitelisted = false;
        match self.ignore_files(path, is_dir) {
            Match::Ignore(()) => return true,
            Match::Whitelist(()) => whitelisted = true,
            Match::None => {}
        }
        match self.filters.types.matched(path, is_dir) {
            Match::Ignore(_) => return true,
            Match::Whitelist(_) => whitelisted = true,
            Match::None => {}
        }
        !whitelisted && self.filters.hidden && name.starts_with('.')
    }

    /// `ignore::dir::Ignore::matched_ignore`: the first match of each kind of ignore
    /// file, nearest directory first, then the kinds in order of precedence.
    fn ignore_files(&self, path: &Path, is_dir: bool) -> Match<()> {
        let any_git = self.stack.iter().any(|rules| rules.has_git);
        let (mut rgignore, mut ignore, mut gitignore, mut exclude) =
            (Match::None, Match::None, Match::None, Match::None);
        let mut saw_git = false;
        let first = |found: &mut Match<()>, rules: &Gitignore| {
            if found.is_none() {
                *found = rules.matched(path, is_dir).map(|_| ());
            }
        };
        for rules in self.stack.iter().rev() {
            first(&mut rgignore, &rules.rgignore);
            first(&mut ignore, &rules.ignore);
            if any_git && !saw_git {
                first(&mut gitignore, &rules.gitignore);
                first(&mut exclude, &rules.exclude);
            }
            saw_git = saw_git || rules.has_git;
        }
        rgignore.or(ignore).or(gitignore).or(exclude)
    }

    /// The ignore rules of `dir`, reading only the ignore files its listing shows.
    fn rules(&mut self, dir: &Path, entries: &[DirEntry]) -> Rules {
        let listed = |name: &str| entries.iter().any(|entry| entry.name == name);
        let filters = self.filters;
        let has_git = filters.git_ignore && entries.iter().any(|e| e.name == ".git");
        let git_dir = entries.iter().any(|e| e.name == ".git" && e.kind == Kind::Dir);
        let mut load = |on: bool, file: PathBuf| {
            if on { self.gitignore(dir, &file) } else { Gitignore::empty() }
        };
        Rules {
            rgignore: load(filters.rgignore && listed(".rgignore"), dir.join(".rgignore")),
            ignore: load(filters.dot_ignore && listed(".ignore"), dir.join(".ignore")),
            gitignore: load(filters.git_ignore && listed(".gitignore"), dir.join(".gitignore")),
            exclude: load(filters.git_ignore && git_dir, dir.join(".git/info/exclude")),
            has_git,
        }
    }

    /// The rules of the ignore file `file` for `dir`; an unreadable file has none, and a
    /// line that is not a valid glob is reported as rg reports it.
    fn gitignore(&mut self, dir: &Path, file: &Path) -> Gitignore {
        let data = match self.ctx.read(file) {
            Ok(data) => data,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Gitignore::empty(),
            Err(e) => {
                (self.visit)(Visit::Error { path: file.to_path_buf(), error: crate::grep::io_message(&e) });
                return Gitignore::empty();
            }
        };
        let mut builder = GitignoreBuilder::new(dir);
        let text = String::from_utf8_lossy(&data);
        for (i, line) in text.lines().enumerate() {
            // Git ignores a byte order mark at the start of the file.
            let line = if i == 0 { line.trim_start_matches('\u{feff}') } else { line };
            if let Err(e) = builder.add_line(Some(file.to_path_buf()), line) {
                (self.visit)(Visit::Error { path: file.to_path_buf(), error: format!("line {}: {e}", i + 1) });
            }
        }
        builder.build().unwrap_or_else(|e| {
            (self.visit)(Visit::Error { path: file.to_path_buf(), error: e.to_string() });
            Gitignore::empty()
        })
    }
}
