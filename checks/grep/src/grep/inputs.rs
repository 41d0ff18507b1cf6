//! The inputs a run searches: standard input, the command-line operands, and the
//! directories `-r`/`-R` walk in read order, with `--include`, `--exclude` and
//! `--exclude-dir` deciding what is read. How each input is searched is `output.rs`'s.

use super::{Directories, Grep, ListFiles};
use reviewhost_prefilter::MAX_SUBTREE_HEIGHT;
use reviewhost_tool::{Kind, fnmatch, io_message};
use std::fs;
use std::path::{Path, PathBuf};

/// The name printed for standard input.
const STDIN_LABEL: &str = "(standard input)";
/// Directory depth limit for `-R`, which follows symlinks and could loop.
const MAX_DEPTH: usize = 256;

/// GNU's `excluded_file_name` for `--include`/`--exclude`: the most recent glob that
/// matches decides; when none matches, a file is excluded iff the first glob was an
/// `--include`.
fn excluded_by_globs(globs: &[(bool, String)], name: &str, suffixes: bool) -> bool {
    let Some(first) = globs.first() else { return false };
    for (include, glob) in globs.iter().rev() {
        if glob_matches(glob, name, suffixes) {
            return !include;
        }
    }
    first.0
}

/// Whether `glob` matches `name` or, for command-line names, any suffix of it that
/// starts after a `/` (GNU's "name suffix" rule).
fn glob_matches(glob: &str, name: &str, suffixes: bool) -> bool {
    let (g, n) = (glob.as_bytes(), name.as_bytes());
    if fnmatch(g, n) {
        return true;
    }
    suffixes
        && n.iter()
            .enumerate()
            .any(|(i, &b)| b == b'/' && n.get(i + 1).is_some_and(|&x| x != b'/') && fnmatch(g, &n[i + 1..]))
}

impl Grep<'_, '_> {
    pub(super) fn stdin(&mut self) {
        let label = self.o.label.clone().unwrap_or_else(|| STDIN_LABEL.to_string());
        let data = self.io.stdin;
        self.search_buffer(data, &label);
    }

    /// One command-line operand.
    pub(super) fn operand(&mut self, op: &str, several: bool) {
        if op == "-" {
            self.stdin();
            return;
        }
        if self.ctx.is_null_device(op) {
            // The one special file that is read: it is empty.
            if !excluded_by_globs(&self.o.file_globs, op, true) {
                self.search_buffer(&[], op);
            }
            return;
        }
        let real = self.ctx.real(op);
        let meta = match fs::metadata(&real) {
            Ok(m) => m,
            Err(e) => {
                // A dangling symlink on the command line: GNU reports the open error.
                let msg = io_message(&e);
                self.message(op, &msg);
                return;
            }
        };
        if meta.is_dir() {
            match self.o.directories {
                Directories::Skip => {}
                Directories::Read => self.message(op, "Is a directory"),
                Directories::Recurse => {
                    let trimmed = op.trim_end_matches('/');
                    let display = if trimmed.is_empty() { "/" } else { trimmed };
                    if self.o.exclude_dirs.iter().any(|g| glob_matches(g, display, true)) {
                        return;
                    }
                    self.out_file = self.o.with_filename.unwrap_or(true);
                    let display = display.to_string();
                    self.walk_root(real, &display);
                    self.out_file = self.o.with_filename.unwrap_or(several);
                }
            }
            return;
        }
        if excluded_by_globs(&self.o.file_globs, op, true) {
            return;
        }
        if !meta.is_file() {
            self.message(op, "special file (FIFO, device or socket) not searched in the reviewhost sandbox");
            return;
        }
        self.search_path(&real, op);
    }

    /// Recursive search from the operand directory `dir`, shown as `display`.
    pub(super) fn walk_root(&mut self, dir: PathBuf, display: &str) {
        if self.o.dereference {
            self.dirs = vec![crate::walk::resolve_below(Path::new("/"), &dir)];
        }
        self.walk(dir, display, 0);
        self.dirs.clear();
    }

    /// Recursive search in directory read order (GNU's fts without sorting). `display`
    /// is the directory as printed: empty for the implicit `.` of `grep -r PATTERN`.
    fn walk(&mut self, dir: PathBuf, display: &str, depth: usize) {
        if depth > MAX_DEPTH {
            self.message(display, "directory nesting too deep");
            return;
        }
        // When a file without a match prints nothing (not `-c`, not `-L`), a directory
        // none of whose files can match prints nothing at all: the run's first pass
        // answers for it whole, having read everything under it (no symlink, no special
        // or unreadable file, nothing changed since, not too deep to reach our limit).
        if let Some(set) = self.prefilter
            && !self.o.count
            && self.o.list != Some(ListFiles::NonMatching)
            && depth + MAX_SUBTREE_HEIGHT < MAX_DEPTH
            && self.ctx.cannot_match(set, &dir)
        {
            return;
        }
        let entries = match self.ctx.read_dir(&dir) {
            Ok(list) => list,
            Err(e) => {
                let name = if display.is_empty() { "." } else { display };
                let msg = io_message(&e);
                self.message(name, &msg);
                return;
            }
        };
        let mut list = Vec::new();
        for entry in entries {
            match entry {
                Ok(e) => list.push(e),
                Err(e) => {
                    let msg = io_message(&e);
                    self.message(if display.is_empty() { "." } else { display }, &msg);
                }
            }
        }
        for entry in list {
            if self.done {
                return;
            }
            let name = entry.name;
            let shown = if display.is_empty() {
                name.clone()
            } else if display.ends_with('/') {
                format!("{display}{name}")
            } else {
                format!("{display}/{name}")
            };
            let path = dir.join(&name);
            let mut kind = entry.kind;
            if kind == Kind::Symlink {
                if !self.o.dereference {
                    continue;
                }
                match fs::metadata(&path) {
                    Ok(m) => kind = Kind::from(m.file_type()),
                    Err(e) => {
                        let msg = io_message(&e);
                        self.message(&shown, &msg);
                        continue;
                    }
                }
            }
            match kind {
                Kind::Dir => {
                    if self.o.exclude_dirs.iter().any(|g| glob_matches(g, &name, false)) {
                        continue;
                    }
                    // -R: a directory met again below itself (through a symlink) is
                    // GNU's "recursive directory loop", a warning that leaves the exit
                    // status alone; with -r no symlink is followed below the operand.
                    if self.o.dereference {
                        let parent = self.dirs.last().cloned().flatten();
                        let resolved = match parent {
                            Some(parent) if entry.kind == Kind::Symlink => {
                                crate::walk::resolve_below(&parent, Path::new(&name))
                            }
                            Some(parent) => Some(parent.join(&name)),
                            None => None,
                        };
                        if resolved.as_ref().is_some_and(|r| self.dirs.iter().flatten().any(|d| d == r)) {
                            let warning = format!("grep: {shown}: warning: recursive directory loop\n");
                            self.io.stderr.extend_from_slice(warning.as_bytes());
                            continue;
                        }
                        self.dirs.push(resolved);
                        self.walk(path, &shown, depth + 1);
                        self.dirs.pop();
                    } else {
                        self.walk(path, &shown, depth + 1);
                    }
                }
                Kind::File => {
                    if excluded_by_globs(&self.o.file_globs, &name, false) {
                        continue;
                    }
                    self.search_path(&path, &shown);
                }
                // FIFOs, sockets and devices found while recursing are skipped unopened.
                Kind::Symlink | Kind::Other => {}
            }
        }
    }

    fn search_path(&mut self, real: &Path, shown: &str) {
        if let Some(set) = self.prefilter
            && self.ctx.cannot_match(set, real)
        {
            // It holds none of the literals every match contains: it was read and held no
            // match. The empty buffer gives exactly that file's output (`-c`'s 0, `-L`'s
            // name, nothing else: `-v`, which selects lines, has no needles).
            return self.search_buffer(&[], shown);
        }
        match self.ctx.read(real) {
            Ok(data) => self.search_buffer(&data, shown),
            Err(e) => {
                let msg = io_message(&e);
                self.message(shown, &msg);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnmatch_basics() {
        assert!(fnmatch(b"*.rs", b"main.rs"));
        assert!(fnmatch(b"*.rs", b"src/main.rs"));
        assert!(!fnmatch(b"*.rs", b"main.rsx"));
        assert!(fnmatch(b"a?c", b"abc"));
        assert!(fnmatch(b"[ab]*", b"b1"));
        assert!(!fnmatch(b"[!ab]*", b"b1"));
        assert!(fnmatch(b"*", b".hidden"));
    }

    #[test]
    fn include_exclude_precedence() {
        let g = vec![(true, "*.rs".to_string())];
        assert!(!excluded_by_globs(&g, "a.rs", false));
        assert!(excluded_by_globs(&g, "a.md", false));
        let g = vec![(false, "*.md".to_string())];
        assert!(excluded_by_globs(&g, "a.md", false));
        assert!(!excluded_by_globs(&g, "a.rs", false));
        let g = vec![(true, "*.rs".to_string()), (false, "a.rs".to_string())];
        assert!(excluded_by_globs(&g, "a.rs", false));
        assert!(!excluded_by_globs(&g, "b.rs", false));
    }
}
