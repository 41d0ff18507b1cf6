//! `grep`, `egrep` and `fgrep` with the behaviour of GNU grep 3.8 under
//! `LC_ALL=C.UTF-8`: option parsing (with GNU's argument permutation and glibc's
//! long-option abbreviations and ambiguity message), BRE/ERE/fixed patterns, recursive
//! search in directory read order, binary files, output prefixes (with `-T`'s
//! alignment), context and exit status. `-R` warns about a symlink that leads back to a
//! directory it is in ("recursive directory loop") instead of following it, as GNU's
//! fts does. `/dev/null` is read as an empty file (operand or `-f`).
//!
//! Deliberately not supported: `-P` (no PCRE in the sandbox; exit 2 naming it),
//! back-references, `-z`/`--null-data` and `--exclude-from` (exit 2 naming them),
//! colour (`--color` is accepted and ignored), device handling options beyond skipping.
//! `-T` with `-n` or `-b` on standard input (G5) is refused (exit 2): GNU aligns the
//! numbers to the digits of the input's size, or to 19 columns when the size is unknown
//! (a pipe), and the sandbox cannot tell a pipe from a redirected file. Special files
//! (FIFOs, devices, sockets) are never opened: reading a FIFO would block the sandboxed
//! check forever, so a FIFO operand is an error and one met while recursing is skipped,
//! as GNU skips devices. A NUL byte anywhere makes a file binary (GNU looks per 32 KiB
//! buffer, so lines before a late NUL differ), and egrep/fgrep do not print GNU's
//! "obsolescent" warning.
//!
//! This file runs a search: it reads the patterns, compiles them, sets up the line
//! search and visits the inputs, then gives grep's exit status. The rest is one concept
//! a file: `grep/options.rs` (the command line), `grep/pattern.rs` (the patterns as one
//! `regex` pattern, and its needles), `grep/inputs.rs` (stdin, the operands and the
//! recursive walk with its globs) and `grep/output.rs` (one input's search, binary files
//! and the file-level output of `-c`, `-l`, `-L`).

mod inputs;
mod options;
mod output;
mod pattern;

pub use options::{BinaryFiles, Directories, ListFiles, Options, PatternSource, PatternSyntax, UsageError, parse_args};
pub use pattern::build_pattern;
pub use reviewhost_tool::fnmatch;
pub use reviewhost_tool::io_message;

use crate::Search;
use crate::search::{LineOpts, Matcher, Shared};
use pattern::needles;
use reviewhost_tool::{Ctx, EXIT_TROUBLE, Io};
use std::fs;
use std::path::PathBuf;

const USAGE: &str = "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n";

/// The search a grep command line makes, for the run's first pass: the needles of its
/// pattern as [`run`] compiles it, and the operands it reads (`.` for `-r` without
/// one). `None` when it has no needles, reads stdin, or takes patterns from a file.
pub fn plan(args: &[String], initial: PatternSyntax) -> Option<Search> {
    let mut o = parse_args(args, initial).ok()?;
    if o.help || o.version {
        return None;
    }
    if !o.pattern_given {
        let first = (!o.operands.is_empty()).then(|| o.operands.remove(0))?;
        o.patterns.push(PatternSource::Literal(first));
    }
    let mut patterns = Vec::new();
    for source in &o.patterns {
        match source {
            PatternSource::Literal(p) => patterns.extend(p.split('\n').map(str::to_string)),
            PatternSource::File(_) => return None,
        }
    }
    let (pattern, _) = build_pattern(&o, &patterns).ok()?;
    let needles = needles(&o, pattern.as_deref())?;
    let scopes = match o.operands.is_empty() {
        true if o.directories == Directories::Recurse => vec![".".to_string()],
        true => return None,
        false => o.operands.iter().filter(|op| *op != "-").cloned().collect(),
    };
    Some(Search { needles, scopes })
}

/// Everything one run needs while visiting files.
struct Grep<'a, 'io> {
    o: Options,
    ctx: &'a Ctx,
    io: &'a mut Io<'io>,
    matcher: Matcher,
    /// The run's first pass, when it looked for this search's needles ([`needles`]).
    prefilter: Option<u32>,
    shared: Shared,
    line_opts: LineOpts,
    /// `-H` behaviour for the current operand.
    out_file: bool,
    matched: bool,
    error: bool,
    /// `-q` saw a match: stop everything.
    done: bool,
    /// With `-R`: the directories on the way down from the operand, with every
    /// symlink resolved (`None` where that failed), to recognise a symlink that leads
    /// back to one of them (GNU's fts `FTS_DC`, "recursive directory loop").
    dirs: Vec<Option<PathBuf>>,
}

/// Runs grep with `initial` as the syntax before options (egrep: `-E`, fgrep: `-F`).
pub fn run(args: &[String], ctx: &Ctx, io: &mut Io, initial: PatternSyntax) -> i32 {
    let mut o = match parse_args(args, initial) {
        Ok(o) => o,
        Err(e) => {
            if let Some(m) = e.message {
                io.stderr.extend_from_slice(format!("grep: {m}\n").as_bytes());
            }
            if e.usage {
                io.stderr.extend_from_slice(USAGE.as_bytes());
            }
            return EXIT_TROUBLE;
        }
    };
    if o.help {
        io.stdout.extend_from_slice(USAGE.replace("Try 'grep --help' for more information.\n", "").as_bytes());
        io.stdout
            .extend_from_slice(b"Search for PATTERNS in each FILE (GNU grep 3.8 compatible, reviewhost sandbox).\n");
        return 0;
    }
    if o.unix_byte_offsets {
        io.stderr.extend_from_slice(b"grep: warning: --unix-byte-offsets (-u) is obsolete\n");
    }
    if o.version {
        io.stdout.extend_from_slice(b"grep (GNU grep compatible, reviewhost sandbox) 3.8\n");
        return 0;
    }
    if !o.pattern_given {
        if o.operands.is_empty() {
            io.stderr.extend_from_slice(USAGE.as_bytes());
            return EXIT_TROUBLE;
        }
        let p = o.operands.remove(0);
        o.patterns.push(PatternSource::Literal(p));
    }
    // Expand `-f FILE` entries and split every pattern at newlines.
    let mut patterns: Vec<String> = Vec::new();
    for source in &o.patterns {
        match source {
            PatternSource::Literal(p) => patterns.extend(p.split('\n').map(str::to_string)),
            PatternSource::File(file) => {
                let data = if file == "-" {
                    io.stdin.to_vec()
                } else if ctx.is_null_device(file) {
                    Vec::new()
                } else {
                    match ctx.read(&ctx.real(file)) {
                        Ok(d) => d,
                        Err(e) => {
                            io.stderr.extend_from_slice(format!("grep: {file}: {}\n", io_message(&e)).as_bytes());
                            return EXIT_TROUBLE;
                        }
                    }
                };
                let text = String::from_utf8_lossy(&data);
                let text = text.strip_suffix('\n').unwrap_or(&text);
                if !data.is_empty() {
                    patterns.extend(text.split('\n').map(str::to_string));
                }
            }
        }
    }
    // GNU grep 3.8: when nothing can match (`-m 0`; no pattern at all, as `-f` of an empty
    // file gives; `-v ''`) and `-L` is not asked for, grep exits 1 without opening a file.
    let nothing_matches = o.max_count == Some(0)
        || (patterns.is_empty() && !o.invert)
        || (o.invert && patterns == [""] && !o.line && !o.word);
    if nothing_matches && o.list != Some(ListFiles::NonMatching) {
        return 1;
    }
    let (pattern, warnings) = match build_pattern(&o, &patterns) {
        Ok(x) => x,
        Err(m) => {
            io.stderr.extend_from_slice(format!("grep: {m}\n").as_bytes());
            return EXIT_TROUBLE;
        }
    };
    for w in warnings {
        io.stderr.extend_from_slice(format!("grep: warning: {w}\n").as_bytes());
    }
    let matcher = match Matcher::new(pattern.as_deref(), o.only_matching) {
        Ok(m) => m,
        Err(regex::Error::CompiledTooBig(_)) => {
            io.stderr.extend_from_slice(b"grep: Regular expression too big\n");
            return EXIT_TROUBLE;
        }
        Err(e) => {
            let msg = e.to_string().lines().last().unwrap_or("invalid pattern").trim().to_string();
            io.stderr.extend_from_slice(format!("grep: {msg}\n").as_bytes());
            return EXIT_TROUBLE;
        }
    };
    let prefilter = needles(&o, pattern.as_deref()).and_then(|n| ctx.needle_set(n.as_slice()));
    let before = o.before.or(o.context).unwrap_or(0);
    let after = o.after.or(o.context).unwrap_or(0);
    let out_quiet = o.quiet || o.count || o.list.is_some();
    let line_opts = LineOpts {
        invert: o.invert,
        max_count: o.max_count,
        before,
        after,
        group_separator: o
            .group_separator
            .as_ref()
            .filter(|_| o.before.is_some() || o.after.is_some() || o.context.is_some())
            .map(|s| s.as_bytes().to_vec()),
        initial_tab: o.initial_tab,
        offset_width: 0,
        only_matching: o.only_matching,
        line_number: o.line_number,
        byte_offset: o.byte_offset,
        quiet: out_quiet,
        stop_at_first: o.quiet || o.list.is_some(),
        check_encoding: o.binary != BinaryFiles::Text,
        name_terminator_nul: o.null,
    };
    let operands = std::mem::take(&mut o.operands);
    let recursive = o.directories == Directories::Recurse;
    let reads_stdin = (operands.is_empty() && !recursive) || operands.iter().any(|op| op == "-");
    if o.initial_tab && (o.line_number || o.byte_offset) && reads_stdin {
        // GNU pads the numbers to the digits of the input's size, or to 19 columns when
        // that size is unknown (a pipe): which of the two stdin is, the sandbox cannot tell.
        io.stderr.extend_from_slice(
            b"grep: -T with -n or -b on standard input is not supported in the reviewhost sandbox\n",
        );
        return EXIT_TROUBLE;
    }
    let shared = Shared::new(io.stdout_limit);
    let mut g = Grep {
        out_file: false,
        o,
        ctx,
        io,
        matcher,
        prefilter,
        shared,
        line_opts,
        matched: false,
        error: false,
        done: false,
        dirs: Vec::new(),
    };
    if operands.is_empty() {
        if recursive {
            g.out_file = g.o.with_filename.unwrap_or(true);
            g.walk_root(ctx.real("."), "");
        } else {
            g.out_file = g.o.with_filename.unwrap_or(false);
            g.stdin();
        }
    } else {
        let several = operands.len() > 1;
        for op in &operands {
            if g.done {
                break;
            }
            g.out_file = g.o.with_filename.unwrap_or(several);
            g.operand(op, several);
        }
        if let [op] = operands.as_slice()
            && !g.out_file
            && op != "-"
            && fs::metadata(ctx.real(op)).is_ok_and(|m| m.is_file())
        {
            g.io.unnamed_file = Some(ctx.virtual_path(op));
        }
    }
    if g.o.quiet && g.matched {
        return 0;
    }
    if g.error {
        EXIT_TROUBLE
    } else if g.matched {
        0
    } else {
        1
    }
}

impl Grep<'_, '_> {
    fn message(&mut self, name: &str, msg: &str) {
        self.error = true;
        if !self.o.no_messages {
            self.io.stderr.extend_from_slice(format!("grep: {name}: {msg}\n").as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command line from string literals; `options.rs`'s tests use it too.
    pub(super) fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn initial_tab_with_numbers_on_stdin_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ctx = Ctx::new(dir.path());
        for a in [&["-Tn", "x"][..], &["-Tb", "x", "-"]] {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let mut io =
                Io { stdin: b"x\n", stdout: &mut out, stderr: &mut err, stdout_limit: usize::MAX, unnamed_file: None };
            assert_eq!(run(&args(a), &ctx, &mut io, PatternSyntax::Basic), EXIT_TROUBLE);
            assert!(String::from_utf8_lossy(&err).contains("-T with -n or -b on standard input is not supported"));
            assert!(out.is_empty());
        }
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut io =
            Io { stdin: b"x\n", stdout: &mut out, stderr: &mut err, stdout_limit: usize::MAX, unnamed_file: None };
        assert_eq!(run(&args(&["-TH", "x"]), &ctx, &mut io, PatternSyntax::Basic), 0);
        assert_eq!(out, b"(standard input):\tx\n");
    }
}
