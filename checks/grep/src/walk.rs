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
//!    parent; anywhere with `--no-require-git`), and not from directories above the
//!    repository's root; last, the `--ignore-file`s (relative to the current
//!    directory, the last one given first);
//! 3. then `--type`;
//! 4. an entry nothing matched whose name starts with `.` is hidden.
//!
//! The walk is depth-first with each directory's entries sorted by name (ripgrep's
//! `--sort path`); the operand itself (depth 0) is never filtered, nor is it subject to
//! `--max-filesize`. Parent directories of the operand up to the root contribute their
//! ignore files. With `--follow`, a symlink to a directory the walk is in is reported
//! as a loop, not followed. Not read: the global git excludes file (the sandbox has no
//! home) and a `.git` *file* (a worktree's pointer).

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
    /// `.gitignore`.
    pub git_ignore: bool,
    /// `.git/info/exclude`.
    pub git_exclude: bool,
    /// `.gitignore` and the exclude file apply only inside a git repository (rg's
    /// default; `--no-require-git` turns it off).
    pub require_git: bool,
    /// Ignore files' globs match case-insensitively (`--ignore-file-case-insensitive`).
    pub case_insensitive: bool,
    /// `--ignore-file` rules, in command-line order: the lowest precedence of all
    /// ignore files, the last file first.
    pub explicit_ignores: Vec<Gitignore>,
    /// `--max-filesize`: files larger than this met in the walk are skipped.
    pub max_filesize: Option<u64>,
    /// `--sortr path`: entries in reverse order of name.
    pub reverse: bool,
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
    let resolved = if filters.follow { vec![resolve_below(Path::new("/"), root)] } else { Vec::new() };
    let mut walker = Walker { ctx, filters, stack: Vec::new(), resolved, visit };
    if filters.parents || filters.git_ignore || filters.git_exclude {
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
    /// With `--follow`: the directories from the operand down, symlinks resolved (`None`
    /// where that failed), to recognise a link to one of them, which the `ignore`
    /// crate reports as a loop instead of following.
    resolved: Vec<Option<PathBuf>>,
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
        if self.filters.reverse {
            entries.reverse();
        }
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
                Kind::Dir if self.filters.follow => {
                    let resolved = match self.resolved.last().cloned().flatten() {
                        Some(parent) if entry.kind == Kind::Symlink => resolve_below(&parent, Path::new(&entry.name)),
                        Some(parent) => Some(parent.join(&entry.name)),
                        None => None,
                    };
                    if resolved.as_ref().is_some_and(|r| self.resolved.iter().flatten().any(|d| d == r)) {
                        (self.visit)(Visit::Error {
                            path,
                            error: "file system loop found: points to an ancestor".into(),
                        })
                    } else {
                        self.resolved.push(resolved);
                        let go_on = self.directory(&path, depth);
                        self.resolved.pop();
                        go_on
                    }
                }
                Kind::Dir => self.directory(&path, depth),
                Kind::File
                    if self
                        .filters
                        .max_filesize
                        .is_some_and(|max| std::fs::metadata(&path).is_ok_and(|m| m.len() > max)) =>
                {
                    true
                }
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
        let any_git = !self.filters.require_git || self.stack.iter().any(|rules| rules.has_git);
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
        let explicit = self
            .filters
            .explicit_ignores
            .iter()
            .rev()
            .map(|rules| rules.matched(path, is_dir).map(|_| ()))
            .find(|m| !m.is_none())
            .unwrap_or(Match::None);
        rgignore.or(ignore).or(gitignore).or(exclude).or(explicit)
    }

    /// The ignore rules of `dir`, reading only the ignore files its listing shows.
    fn rules(&mut self, dir: &Path, entries: &[DirEntry]) -> Rules {
        let listed = |name: &str| entries.iter().any(|entry| entry.name == name);
        let filters = self.filters;
        let has_git = filters.require_git
            && (filters.git_ignore || filters.git_exclude)
            && entries.iter().any(|e| e.name == ".git");
        let git_dir = entries.iter().any(|e| e.name == ".git" && e.kind == Kind::Dir);
        let mut load = |on: bool, file: PathBuf| {
            if on { self.gitignore(dir, &file) } else { Gitignore::empty() }
        };
        Rules {
            rgignore: load(filters.rgignore && listed(".rgignore"), dir.join(".rgignore")),
            ignore: load(filters.dot_ignore && listed(".ignore"), dir.join(".ignore")),
            gitignore: load(filters.git_ignore && listed(".gitignore"), dir.join(".gitignore")),
            exclude: load(filters.git_exclude && git_dir, dir.join(".git/info/exclude")),
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
        let (rules, errors) = parse_rules(dir, file, &data, self.filters.case_insensitive);
        for error in errors {
            (self.visit)(Visit::Error { path: file.to_path_buf(), error });
        }
        rules
    }
}

/// The rules of the ignore file `file` (holding `data`) for `dir`, and the errors of
/// its lines that are not valid globs.
fn parse_rules(dir: &Path, file: &Path, data: &[u8], case_insensitive: bool) -> (Gitignore, Vec<String>) {
    let mut builder = GitignoreBuilder::new(dir);
    builder.case_insensitive(case_insensitive).ok();
    let mut errors = Vec::new();
    let text = String::from_utf8_lossy(data);
    for (i, line) in text.lines().enumerate() {
        // Git ignores a byte order mark at the start of the file.
        let line = if i == 0 { line.trim_start_matches('\u{feff}') } else { line };
        if let Err(e) = builder.add_line(Some(file.to_path_buf()), line) {
            errors.push(format!("line {}: {e}", i + 1));
        }
    }
    let rules = builder.build().unwrap_or_else(|e| {
        errors.push(e.to_string());
        Gitignore::empty()
    });
    (rules, errors)
}

/// The rules of `--ignore-file FILE` (as written on the command line): relative to the
/// current directory `cwd`, as the `ignore` crate's `WalkBuilder::add_ignore` makes
/// them, and the messages for a file that cannot be read or has bad lines.
pub fn explicit_ignore(ctx: &Ctx, cwd: &Path, file: &str) -> (Gitignore, Vec<String>) {
    let real = ctx.real(file);
    match ctx.read(&real) {
        Ok(data) => {
            let (rules, errors) = parse_rules(cwd, &real, &data, false);
            (rules, errors.into_iter().map(|e| format!("{file}: {e}")).collect())
        }
        Err(e) => (Gitignore::empty(), vec![format!("{file}: {}", crate::grep::io_message(&e))]),
    }
}

/// `rest` below `base` (a path without symlinks) with every symlink resolved, as
/// `realpath` does; `None` when a component cannot be read or after 40 links. Only
/// `symlink_metadata` and `read_link`, which WASI has (`std::fs::canonicalize` is not
/// available there, nor device and inode numbers on stable Rust).
pub(crate) fn resolve_below(base: &Path, rest: &Path) -> Option<PathBuf> {
    use std::path::Component;
    enum Part {
        Parent,
        Name(std::ffi::OsString),
    }
    let parts = |path: &Path| -> Vec<Part> {
        let mut parts: Vec<Part> = path
            .components()
            .filter_map(|c| match c {
                Component::ParentDir => Some(Part::Parent),
                Component::Normal(name) => Some(Part::Name(name.to_os_string())),
                _ => None,
            })
            .collect();
        parts.reverse();
        parts
    };
    let mut resolved = base.to_path_buf();
    let mut pending = parts(rest);
    let mut links = 0;
    while let Some(part) = pending.pop() {
        let name = match part {
            Part::Parent => {
                resolved.pop();
                continue;
            }
            Part::Name(name) => name,
        };
        let next = resolved.join(&name);
        if !std::fs::symlink_metadata(&next).ok()?.file_type().is_symlink() {
            resolved = next;
            continue;
        }
        links += 1;
        if links > 40 {
            return None;
        }
        let target = std::fs::read_link(&next).ok()?;
        if target.is_absolute() {
            resolved = PathBuf::from("/");
        }
        pending.extend(parts(&target));
    }
    Some(resolved)
}
