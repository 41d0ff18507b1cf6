//! `rg` with ripgrep's semantics for the common analyst uses, built on the crates
//! ripgrep itself uses (`ignore` for the walk, `grep-regex`/`grep-searcher`/
//! `grep-printer` for matching and output), so the output is ripgrep's own format.
//!
//! Output is always as when piped: no colour (`--color` and the colour of `-p` are
//! accepted and ignored), no heading unless `--heading` or `-p`, no line numbers unless
//! `-n`, `--column`, `--vimgrep` or `-p`. The walk is serial and sorted by path
//! (ripgrep's `--sort path` order, or `--sortr path`'s; parallel walks visit nothing on
//! wasm); sorting by time (`--sort modified` and the like) is refused (exit 2). With no path, rg searches the current directory,
//! or stdin when stdin is non-empty and did not hold the patterns (`-f-`), as rg does
//! when stdin is a pipe. `/dev/null` is read as an empty file.
//!
//! Deliberately not supported (exit 2 naming the flag): `--pcre2` (also `--engine
//! pcre2` and `--pcre2-version`), `--json`, `--multiline`, `--search-zip`, `--pre`,
//! `--replace`, `--passthru`, `--stats` (it prints timings), encodings, `--type-add`
//! and `--type-clear`. `--no-unicode` (R4): ripgrep 13's regex parser refuses every
//! non-ASCII character in that mode, so a pattern with one (or with `\x{..}` above
//! 0x7F, or a `(?u)` group) is refused with its "Unicode not allowed here", exit 2;
//! other differences of that parser's byte mode are not reproduced. `--dfa-size-limit`
//! and `--regex-size-limit` are honoured up to the sandbox's own limits. The global git
//! ignore file (`core.excludesFile`) is not read: the sandbox has no home directory, so
//! `--no-ignore-global` changes nothing; `--one-file-system` changes nothing either.
//! Error messages are worded `rg: PATH: ERROR` (ripgrep 13's wording differs).
//!
//! This file runs a search: it reads the patterns, builds the matcher and gives rg's
//! exit status. The rest is one concept a file: `rg/options.rs` (the command line),
//! `rg/values.rs` (how flag values are read: numbers, sizes, escaped separators),
//! `rg/pattern.rs` (what the patterns imply beyond the matcher), `rg/inputs.rs`
//! (stdin, the operands and the filtered walk) and `rg/output.rs` (one file's search
//! and ripgrep's printers).

mod inputs;
mod options;
mod output;
mod pattern;
mod values;

pub use options::{Case, Options, parse_args};
pub use values::unescape;

use crate::Search;
use grep_regex::RegexMatcherBuilder;
use inputs::type_list;
use pattern::{needles, needs_unicode};
use reviewhost_tool::{Ctx, EXIT_TROUBLE, Io};

/// One run's state.
struct Rg<'a, 'io> {
    o: Options,
    ctx: &'a Ctx,
    io: &'a mut Io<'io>,
    /// The run's first pass, when it looked for this search's needles ([`needles`]).
    prefilter: Option<u32>,
    matched: bool,
    error: bool,
    /// Something was printed with context: the next file starts with `--`.
    printed: bool,
    /// A file (or stdin) was searched. A search that searched nothing (every file
    /// filtered out) is an error in rg, not "no match": a `grep_not_match` over it must
    /// not pass.
    searched: bool,
}

/// Runs rg.
pub fn run(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    let mut o = match parse_args(args) {
        Ok(o) => o,
        Err(m) => {
            io.stderr.extend_from_slice(format!("rg: {m}\n").as_bytes());
            return EXIT_TROUBLE;
        }
    };
    if o.version {
        io.stdout.extend_from_slice(b"ripgrep 13.0.0 (reviewhost sandbox)\n");
        return 0;
    }
    if o.help {
        io.stdout
            .extend_from_slice(b"USAGE:\n    rg [OPTIONS] PATTERN [PATH ...]\n    rg [OPTIONS] --files [PATH ...]\n");
        return 0;
    }
    if o.type_list {
        return type_list(io);
    }
    let mut prefilter = None;
    let matcher = if o.files {
        None
    } else {
        let mut patterns = std::mem::take(&mut o.patterns);
        for f in &o.pattern_files {
            let data = if f == "-" {
                io.stdin.to_vec()
            } else if ctx.is_null_device(f) {
                Vec::new()
            } else {
                match ctx.read(&ctx.real(f)) {
                    Ok(d) => d,
                    Err(e) => {
                        io.stderr.extend_from_slice(format!("rg: {f}: {}\n", crate::grep::io_message(&e)).as_bytes());
                        return EXIT_TROUBLE;
                    }
                }
            };
            patterns.extend(String::from_utf8_lossy(&data).lines().map(str::to_string));
        }
        if patterns.is_empty() && o.pattern_files.is_empty() {
            if o.operands.is_empty() {
                io.stderr.extend_from_slice(b"rg: no pattern given\n\nUSAGE:\n    rg [OPTIONS] PATTERN [PATH ...]\n");
                return EXIT_TROUBLE;
            }
            patterns.push(o.operands.remove(0));
        }
        if patterns.is_empty() {
            // An empty -f file: nothing can match.
            return 1;
        }
        let mut b = RegexMatcherBuilder::new();
        // Sizes asked for are honoured up to the sandbox's own limits.
        let size_limit = o.regex_size_limit.unwrap_or(usize::MAX).min(crate::search::REGEX_SIZE_LIMIT);
        let dfa_size_limit = o.dfa_size_limit.unwrap_or(usize::MAX).min(crate::search::DFA_SIZE_LIMIT);
        b.case_insensitive(o.case == Case::Insensitive)
            .case_smart(o.case == Case::Smart)
            .fixed_strings(o.fixed)
            .word(o.word)
            .whole_line(o.line)
            .unicode(!o.no_unicode)
            .crlf(o.crlf)
            .line_terminator(Some(if o.null_data { b'\0' } else { b'\n' }))
            .size_limit(size_limit)
            .dfa_size_limit(dfa_size_limit);
        if o.no_unicode
            && let Some(p) = patterns.iter().find(|p| needs_unicode(p))
        {
            io.stderr.extend_from_slice(
                format!("rg: regex parse error:\n    {p}\nerror: Unicode not allowed here\n").as_bytes(),
            );
            return EXIT_TROUBLE;
        }
        prefilter = needles(&o, &patterns).and_then(|n| ctx.needle_set(n.as_slice()));
        match b.build_many(&patterns) {
            Ok(m) => Some(m),
            Err(e) => {
                io.stderr.extend_from_slice(format!("rg: {e}\n").as_bytes());
                return EXIT_TROUBLE;
            }
        }
    };
    let operands = std::mem::take(&mut o.operands);
    let mut rg = Rg { o, ctx, io, prefilter, matched: false, error: false, printed: false, searched: false };
    let status = rg.search_all(matcher.as_ref(), &operands);
    if let Some(s) = status {
        return s;
    }
    if !rg.searched && operands.is_empty() && !rg.o.files && !rg.o.no_messages {
        // Only for the implicit `.` (ripgrep's "using the default path"); ripgrep 13's
        // words, and the message sets its error flag, hence exit 2.
        rg.io.stderr.extend_from_slice(
            b"No files were searched, which means ripgrep probably applied a filter you didn't expect.\n\
              Running with --debug will show why files are being skipped.\n",
        );
        rg.error = true;
    }
    if rg.o.quiet && rg.matched {
        return 0;
    }
    if rg.error {
        EXIT_TROUBLE
    } else if rg.matched {
        0
    } else {
        1
    }
}

/// The search an rg command line makes, for the run's first pass: the needles of its
/// patterns and the paths it searches (`.` without one). `None` when it has no
/// needles, lists files, or takes patterns from a file.
pub fn plan(args: &[String]) -> Option<Search> {
    let mut o = parse_args(args).ok()?;
    if o.files || o.help || o.version || o.type_list || !o.pattern_files.is_empty() {
        return None;
    }
    if o.patterns.is_empty() {
        let first = (!o.operands.is_empty()).then(|| o.operands.remove(0))?;
        o.patterns.push(first);
    }
    let needles = needles(&o, &o.patterns)?;
    let scopes = if o.operands.is_empty() { vec![".".to_string()] } else { o.operands.clone() };
    Some(Search { needles, scopes: scopes.into_iter().filter(|op| op != "-").collect() })
}

impl Rg<'_, '_> {
    fn message(&mut self, path: &str, msg: &str) {
        self.error = true;
        if !self.o.no_messages {
            self.io.stderr.extend_from_slice(format!("rg: {path}: {msg}\n").as_bytes());
        }
    }
}
