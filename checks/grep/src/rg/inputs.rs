//! The inputs a run searches, as ripgrep picks them: stdin when piped and no path is
//! given, the operands, and the walk under them filtered by globs, file types and ignore
//! files; and the path printed for each. How a file is searched is `output.rs`'s.

use super::Rg;
use crate::walk::{Filters, Visit, walk};
use grep_regex::RegexMatcher;
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use reviewhost_tool::{EXIT_TROUBLE, Io};
use std::path::Path;

/// The name rg prints for standard input.
const STDIN_LABEL: &str = "<stdin>";

/// `--type-list`: every type with its globs, as rg prints them.
pub(super) fn type_list(io: &mut Io) -> i32 {
    let mut b = TypesBuilder::new();
    b.add_defaults();
    let mut defs = b.definitions();
    defs.sort_by(|a, b| a.name().cmp(b.name()));
    for d in defs {
        io.stdout.extend_from_slice(format!("{}: {}\n", d.name(), d.globs().join(", ")).as_bytes());
    }
    0
}

/// The path to print for a walked entry: the operand as written, joined with the part
/// of the real path below the operand's real path.
fn display_path(operand: Option<&str>, root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).map(|r| r.to_string_lossy().into_owned()).unwrap_or_default();
    match operand {
        None => rel,
        Some(op) if rel.is_empty() => op.to_string(),
        Some(op) if op.ends_with('/') => format!("{op}{rel}"),
        Some(op) => format!("{op}/{rel}"),
    }
}

impl Rg<'_, '_> {
    /// Searches every operand (or the cwd, or stdin). Returns an exit status to use
    /// instead of the computed one (bad glob or type).
    pub(super) fn search_all(&mut self, matcher: Option<&RegexMatcher>, operands: &[String]) -> Option<i32> {
        let cwd_real = self.ctx.real(".");
        let mut ob = OverrideBuilder::new(&cwd_real);
        if self.o.glob_case_insensitive {
            ob.case_insensitive(true).ok();
        }
        for g in &self.o.globs {
            if let Err(e) = ob.add(g) {
                self.io.stderr.extend_from_slice(format!("rg: {e}\n").as_bytes());
                return Some(EXIT_TROUBLE);
            }
        }
        if !self.o.iglobs.is_empty() {
            ob.case_insensitive(true).ok();
            for g in &self.o.iglobs {
                if let Err(e) = ob.add(g) {
                    self.io.stderr.extend_from_slice(format!("rg: {e}\n").as_bytes());
                    return Some(EXIT_TROUBLE);
                }
            }
        }
        let overrides = match ob.build() {
            Ok(ov) => ov,
            Err(e) => {
                self.io.stderr.extend_from_slice(format!("rg: {e}\n").as_bytes());
                return Some(EXIT_TROUBLE);
            }
        };
        let mut tb = TypesBuilder::new();
        tb.add_defaults();
        for t in &self.o.types {
            tb.select(t);
        }
        for t in &self.o.types_not {
            tb.negate(t);
        }
        let types = match tb.build() {
            Ok(t) => t,
            Err(e) => {
                self.io.stderr.extend_from_slice(format!("rg: {e}\n").as_bytes());
                return Some(EXIT_TROUBLE);
            }
        };

        // Stdin: no path given and something was piped in, unless it held the patterns
        // (`-f-`: rg then searches the current directory).
        let stdin_patterns = self.o.pattern_files.iter().any(|f| f == "-");
        if operands.is_empty() && !self.io.stdin.is_empty() && !self.o.files && !stdin_patterns {
            if let Some(m) = matcher {
                let data = self.io.stdin;
                let with_name = self.o.with_filename.unwrap_or(false);
                self.searched = true;
                // Stdin is read through the buffer, never mapped.
                self.search_data(m, data, STDIN_LABEL, with_name, true, false);
            }
            return None;
        }
        let implicit = operands.is_empty();
        let list: Vec<Option<&str>> =
            if implicit { vec![None] } else { operands.iter().map(|s| Some(s.as_str())).collect() };
        let single_stdin = operands.len() == 1 && operands[0] == "-";
        let single_null = operands.len() == 1 && self.ctx.is_null_device(&operands[0]);
        let single_file = operands.len() == 1
            && !single_stdin
            && !single_null
            && std::fs::metadata(self.ctx.real(&operands[0])).is_ok_and(|m| m.is_file());
        let with_name = self.o.with_filename.unwrap_or(!single_file && !single_stdin && !single_null);
        if single_file && !with_name {
            self.io.unnamed_file = Some(self.ctx.virtual_path(&operands[0]));
        }
        let filters = !self.o.no_ignore;
        // `--ignore-file`s: `--no-ignore` leaves them on, as in ripgrep.
        let mut explicit_ignores = Vec::new();
        if !self.o.no_ignore_files {
            for file in &self.o.ignore_files {
                let (rules, errors) = crate::walk::explicit_ignore(self.ctx, &cwd_real, file);
                for error in errors {
                    // As in ripgrep, a bad ignore file is reported but is not an error.
                    if !self.o.no_messages {
                        self.io.stderr.extend_from_slice(format!("rg: {error}\n").as_bytes());
                    }
                }
                explicit_ignores.push(rules);
            }
        }
        let walk_filters = Filters {
            hidden: !self.o.hidden,
            parents: filters && !self.o.no_ignore_parent,
            rgignore: filters,
            dot_ignore: filters && !self.o.no_ignore_dot,
            git_ignore: filters && !self.o.no_ignore_vcs,
            git_exclude: filters && !self.o.no_ignore_vcs && !self.o.no_ignore_exclude,
            require_git: !self.o.no_require_git,
            case_insensitive: self.o.ignore_file_case_insensitive,
            explicit_ignores,
            max_filesize: self.o.max_filesize,
            reverse: self.o.sort_reverse,
            follow: self.o.follow,
            max_depth: self.o.max_depth,
            overrides,
            types,
        };
        for op in list {
            if self.o.quiet && self.matched {
                break;
            }
            if op == Some("-") {
                if let Some(m) = matcher {
                    let data = self.io.stdin;
                    self.searched = true;
                    self.search_data(m, data, STDIN_LABEL, with_name, true, false);
                }
                continue;
            }
            if let Some(null) = op.filter(|op| self.ctx.is_null_device(op)) {
                // The one special file that is read: it is empty.
                self.searched = true;
                if self.o.files {
                    self.matched = true;
                    if !self.o.quiet {
                        self.io.stdout.extend_from_slice(null.as_bytes());
                        self.io.stdout.push(if self.o.null { 0 } else { b'\n' });
                    }
                } else if let Some(m) = matcher {
                    self.search_data(m, &[], null, with_name, true, true);
                }
                continue;
            }
            let root = match op {
                Some(p) => self.ctx.real(p),
                None => cwd_real.clone(),
            };
            walk(self.ctx, &root, &walk_filters, &mut |visit| {
                match visit {
                    Visit::Error { path, error } => {
                        let shown = display_path(op, &root, &path);
                        self.message(if shown.is_empty() { "." } else { &shown }, &error);
                    }
                    Visit::File { path, explicit } => {
                        self.searched = true;
                        let shown = display_path(op, &root, &path);
                        if self.o.files {
                            self.matched = true;
                            if !self.o.quiet {
                                let sep = self.o.path_separator.unwrap_or(b'/');
                                let shown = shown.bytes().map(|b| if b == b'/' { sep } else { b });
                                self.io.stdout.extend(shown);
                                self.io.stdout.push(if self.o.null { 0 } else { b'\n' });
                            }
                        } else if let Some(m) = matcher {
                            let mapped = explicit && !self.o.no_mmap;
                            if let Some(set) = self.prefilter
                                && self.ctx.cannot_match(set, &path)
                            {
                                // It holds none of the literals every match contains: read
                                // and found without a match (`-v` has no needles).
                                self.search_data(m, &[], &shown, with_name, explicit, mapped);
                                return !(self.o.quiet && self.matched);
                            }
                            match self.ctx.read(&path) {
                                Ok(data) => self.search_data(m, &data, &shown, with_name, explicit, mapped),
                                Err(e) => {
                                    let msg = crate::grep::io_message(&e);
                                    self.message(&shown, &msg);
                                }
                            }
                        }
                    }
                }
                !(self.o.quiet && self.matched)
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_paths_keep_the_operand_spelling() {
        let root = Path::new("/r/src");
        assert_eq!(display_path(Some("src"), root, Path::new("/r/src/a.rs")), "src/a.rs");
        assert_eq!(display_path(Some("src/"), root, Path::new("/r/src/a.rs")), "src/a.rs");
        assert_eq!(display_path(Some("./src"), root, Path::new("/r/src/a.rs")), "./src/a.rs");
        assert_eq!(display_path(None, root, Path::new("/r/src/a.rs")), "a.rs");
        assert_eq!(display_path(Some("f.rs"), Path::new("/r/f.rs"), Path::new("/r/f.rs")), "f.rs");
    }
}
