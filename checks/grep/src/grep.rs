//! `grep`, `egrep` and `fgrep` with the behaviour of GNU grep 3.8 under
//! `LC_ALL=C.UTF-8`: option parsing (with GNU's argument permutation and long-option
//! abbreviations), BRE/ERE/fixed patterns, recursive search in directory read order,
//! binary files, output prefixes, context and exit status.
//!
//! Deliberately not supported: `-P` (no PCRE in the sandbox; exit 2 naming it),
//! back-references, `-z`, `--exclude-from`, colour (`--color` is accepted and ignored),
//! device handling options beyond skipping. Special files (FIFOs, devices, sockets) are
//! never opened: reading a FIFO would block the sandboxed check forever, so a FIFO
//! operand is an error and one met while recursing is skipped, as GNU skips devices.
//! A NUL byte anywhere makes a file binary (GNU looks per 32 KiB buffer, so lines
//! before a late NUL differ), and egrep/fgrep do not print GNU's "obsolescent" warning.

use crate::search::{self, LineOpts, Matcher, Shared};
use crate::translate::{self, Syntax};
use reviewhost_tool::{Ctx, EXIT_TROUBLE, Io, Kind};
use std::fs;

use std::path::{Path, PathBuf};

/// The name printed for standard input.
const STDIN_LABEL: &str = "(standard input)";
/// Directory depth limit for `-R`, which follows symlinks and could loop.
const MAX_DEPTH: usize = 256;
const USAGE: &str = "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n";

/// The pattern syntax selected by `-G`, `-E`, `-F`, `-P`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PatternSyntax {
    #[default]
    Basic,
    Extended,
    Fixed,
    Perl,
}

/// `--binary-files`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BinaryFiles {
    #[default]
    Binary,
    Text,
    WithoutMatch,
}

/// `-d ACTION` / `--directories`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Directories {
    #[default]
    Read,
    Skip,
    Recurse,
}

/// `-l` / `-L`: the last one given wins, as in GNU grep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFiles {
    Matching,
    NonMatching,
}

/// The parsed command line.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub syntax: PatternSyntax,
    /// Patterns from `-e` and `-f`, in order (each may still contain newlines).
    pub patterns: Vec<String>,
    /// Whether `-e` or `-f` was given (otherwise the first operand is the pattern).
    pub pattern_given: bool,
    pub ignore_case: bool,
    pub invert: bool,
    pub count: bool,
    pub list: Option<ListFiles>,
    pub line_number: bool,
    pub byte_offset: bool,
    /// `-H` (Some(true)) or `-h` (Some(false)); otherwise decided by the operands.
    pub with_filename: Option<bool>,
    pub only_matching: bool,
    pub quiet: bool,
    pub no_messages: bool,
    pub word: bool,
    pub line: bool,
    pub directories: Directories,
    /// `-R`: follow symlinks met while recursing.
    pub dereference: bool,
    pub max_count: Option<u64>,
    pub after: Option<usize>,
    pub before: Option<usize>,
    pub context: Option<usize>,
    /// `--include` (true) and `--exclude` (false) globs, in command-line order.
    pub file_globs: Vec<(bool, String)>,
    pub exclude_dirs: Vec<String>,
    pub binary: BinaryFiles,
    pub null: bool,
    pub label: Option<String>,
    pub no_group_separator: bool,
    pub help: bool,
    pub version: bool,
    pub operands: Vec<String>,
}

/// A usage error: the message (without `grep: `), and whether the usage hint follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError {
    pub message: Option<String>,
    pub usage: bool,
}

impl UsageError {
    fn usage(message: String) -> UsageError {
        UsageError { message: Some(message), usage: true }
    }
    fn plain(message: &str) -> UsageError {
        UsageError { message: Some(message.to_string()), usage: false }
    }
}

/// Long options: name and whether it takes an argument (`Some(true)` required,
/// `Some(false)` optional, `None` none).
const LONG_OPTIONS: &[(&str, Option<bool>)] = &[
    ("after-context", Some(true)),
    ("basic-regexp", None),
    ("before-context", Some(true)),
    ("binary-files", Some(true)),
    ("byte-offset", None),
    ("color", Some(false)),
    ("colour", Some(false)),
    ("context", Some(true)),
    ("count", None),
    ("dereference-recursive", None),
    ("devices", Some(true)),
    ("directories", Some(true)),
    ("exclude", Some(true)),
    ("exclude-dir", Some(true)),
    ("extended-regexp", None),
    ("file", Some(true)),
    ("files-with-matches", None),
    ("files-without-match", None),
    ("fixed-strings", None),
    ("help", None),
    ("ignore-case", None),
    ("include", Some(true)),
    ("initial-tab", None),
    ("invert-match", None),
    ("label", Some(true)),
    ("line-buffered", None),
    ("line-number", None),
    ("line-regexp", None),
    ("max-count", Some(true)),
    ("no-filename", None),
    ("no-group-separator", None),
    ("no-ignore-case", None),
    ("no-messages", None),
    ("null", None),
    ("only-matching", None),
    ("perl-regexp", None),
    ("quiet", None),
    ("recursive", None),
    ("regexp", Some(true)),
    ("silent", None),
    ("text", None),
    ("version", None),
    ("with-filename", None),
    ("word-regexp", None),
];

/// Short options that take an argument.
const SHORT_WITH_ARG: &str = "ABCDdefmX";

/// Parses grep's arguments with GNU getopt_long's rules: options may follow operands,
/// `--` ends options, short options cluster (`-rnE`, `-m1`, `-eFOO`), long options take
/// `=VALUE` or the next argument and may be abbreviated to a unique prefix.
pub fn parse_args(args: &[String], initial: PatternSyntax) -> Result<Options, UsageError> {
    let mut o = Options { syntax: initial, ..Options::default() };
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            o.operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let (full, takes) = resolve_long(name)?;
            let value = match (takes, inline) {
                (None, Some(_)) => {
                    return Err(UsageError::usage(format!("option '--{full}' doesn't allow an argument")));
                }
                (None, None) => None,
                (Some(false), v) => v,
                (Some(true), Some(v)) => Some(v),
                (Some(true), None) => {
                    let Some(v) = args.get(i) else {
                        return Err(UsageError::usage(format!("option '--{full}' requires an argument")));
                    };
                    i += 1;
                    Some(v.clone())
                }
            };
            apply_long(&mut o, full, value)?;
            continue;
        }
        if arg.len() > 1 && arg.starts_with('-') {
            let chars: Vec<char> = arg[1..].chars().collect();
            let mut k = 0;
            // `-5`, `-12`: a context length built from consecutive digits.
            let mut digits: Option<usize> = None;
            while k < chars.len() {
                let c = chars[k];
                k += 1;
                if let Some(d) = c.to_digit(10) {
                    let v = digits.unwrap_or(0).saturating_mul(10).saturating_add(d as usize);
                    digits = Some(v);
                    o.context = Some(v);
                    continue;
                }
                digits = None;
                if SHORT_WITH_ARG.contains(c) {
                    let value = if k < chars.len() {
                        let v: String = chars[k..].iter().collect();
                        k = chars.len();
                        v
                    } else {
                        let Some(v) = args.get(i) else {
                            return Err(UsageError::usage(format!("option requires an argument -- '{c}'")));
                        };
                        i += 1;
                        v.clone()
                    };
                    apply_short_arg(&mut o, c, value)?;
                } else {
                    apply_short(&mut o, c)?;
                }
            }
            continue;
        }
        o.operands.push(arg.clone());
    }
    Ok(o)
}

/// Resolves a long option name or unique abbreviation.
fn resolve_long(name: &str) -> Result<(&'static str, Option<bool>), UsageError> {
    if let Some(&(n, t)) = LONG_OPTIONS.iter().find(|(n, _)| *n == name) {
        return Ok((n, t));
    }
    let candidates: Vec<&(&str, Option<bool>)> = LONG_OPTIONS.iter().filter(|(n, _)| n.starts_with(name)).collect();
    match candidates.as_slice() {
        [] => Err(UsageError::usage(format!("unrecognized option '--{name}'"))),
        [(n, t)] => Ok((n, *t)),
        // `--color`/`--colour` are the same option.
        [(n, t), (m, _)] if n.starts_with("colo") && m.starts_with("colo") => Ok((n, *t)),
        many => {
            let list: Vec<String> = many.iter().map(|(n, _)| format!("'--{n}'")).collect();
            Err(UsageError::usage(format!("option '--{name}' is ambiguous; possibilities: {}", list.join(" "))))
        }
    }
}

fn apply_short(o: &mut Options, c: char) -> Result<(), UsageError> {
    match c {
        'E' => o.syntax = PatternSyntax::Extended,
        'F' => o.syntax = PatternSyntax::Fixed,
        'G' => o.syntax = PatternSyntax::Basic,
        'P' => o.syntax = PatternSyntax::Perl,
        'i' | 'y' => o.ignore_case = true,
        'v' => o.invert = true,
        'c' => o.count = true,
        'l' => o.list = Some(ListFiles::Matching),
        'L' => o.list = Some(ListFiles::NonMatching),
        'n' => o.line_number = true,
        'b' => o.byte_offset = true,
        'H' => o.with_filename = Some(true),
        'h' => o.with_filename = Some(false),
        'o' => o.only_matching = true,
        'q' => o.quiet = true,
        's' => o.no_messages = true,
        'w' => o.word = true,
        'x' => o.line = true,
        'r' => {
            o.directories = Directories::Recurse;
            o.dereference = false;
        }
        'R' => {
            o.directories = Directories::Recurse;
            o.dereference = true;
        }
        'a' => o.binary = BinaryFiles::Text,
        'I' => o.binary = BinaryFiles::WithoutMatch,
        'Z' => o.null = true,
        'U' | 'T' | 'u' => {}
        'V' => o.version = true,
        'z' => return Err(UsageError::plain("-z is not supported in the reviewhost sandbox")),
        _ => return Err(UsageError::usage(format!("invalid option -- '{c}'"))),
    }
    Ok(())
}

fn apply_short_arg(o: &mut Options, c: char, v: String) -> Result<(), UsageError> {
    match c {
        'e' => {
            o.patterns.push(v);
            o.pattern_given = true;
        }
        'f' => {
            o.patterns.push(format!("\0file:{v}"));
            o.pattern_given = true;
        }
        'm' => o.max_count = Some(parse_max_count(&v)?),
        'A' => o.after = Some(parse_context(&v)?),
        'B' => o.before = Some(parse_context(&v)?),
        'C' => o.context = Some(parse_context(&v)?),
        'd' => o.directories = parse_directories(&v)?,
        'D' => {
            if v != "read" && v != "skip" {
                return Err(UsageError::plain("unknown devices method"));
            }
        }
        _ => return Err(UsageError::usage(format!("invalid option -- '{c}'"))),
    }
    Ok(())
}

fn apply_long(o: &mut Options, name: &str, v: Option<String>) -> Result<(), UsageError> {
    let v = v.unwrap_or_default();
    match name {
        "after-context" => apply_short_arg(o, 'A', v)?,
        "before-context" => apply_short_arg(o, 'B', v)?,
        "context" => apply_short_arg(o, 'C', v)?,
        "max-count" => apply_short_arg(o, 'm', v)?,
        "regexp" => apply_short_arg(o, 'e', v)?,
        "file" => apply_short_arg(o, 'f', v)?,
        "directories" => apply_short_arg(o, 'd', v)?,
        "devices" => apply_short_arg(o, 'D', v)?,
        "basic-regexp" => apply_short(o, 'G')?,
        "extended-regexp" => apply_short(o, 'E')?,
        "fixed-strings" => apply_short(o, 'F')?,
        "perl-regexp" => apply_short(o, 'P')?,
        "ignore-case" => apply_short(o, 'i')?,
        "no-ignore-case" => o.ignore_case = false,
        "invert-match" => apply_short(o, 'v')?,
        "count" => apply_short(o, 'c')?,
        "files-with-matches" => apply_short(o, 'l')?,
        "files-without-match" => apply_short(o, 'L')?,
        "line-number" => apply_short(o, 'n')?,
        "byte-offset" => apply_short(o, 'b')?,
        "with-filename" => apply_short(o, 'H')?,
        "no-filename" => apply_short(o, 'h')?,
        "only-matching" => apply_short(o, 'o')?,
        "quiet" | "silent" => apply_short(o, 'q')?,
        "no-messages" => apply_short(o, 's')?,
        "word-regexp" => apply_short(o, 'w')?,
        "line-regexp" => apply_short(o, 'x')?,
        "recursive" => apply_short(o, 'r')?,
        "dereference-recursive" => apply_short(o, 'R')?,
        "text" => apply_short(o, 'a')?,
        "null" => apply_short(o, 'Z')?,
        "include" => o.file_globs.push((true, v)),
        "exclude" => o.file_globs.push((false, v)),
        "exclude-dir" => o.exclude_dirs.push(v),
        "binary-files" => {
            o.binary = match v.as_str() {
                "binary" => BinaryFiles::Binary,
                "text" => BinaryFiles::Text,
                "without-match" => BinaryFiles::WithoutMatch,
                _ => return Err(UsageError::plain("unknown binary-files type")),
            }
        }
        "label" => o.label = Some(v),
        "no-group-separator" => o.no_group_separator = true,
        "color" | "colour"
            if !matches!(
                v.as_str(),
                "" | "never" | "always" | "auto" | "yes" | "no" | "force" | "tty" | "if-tty" | "none"
            ) =>
        {
            return Err(UsageError::usage(format!("invalid argument '{v}' for '--color'")));
        }
        "help" => o.help = true,
        "version" => o.version = true,
        // initial-tab, line-buffered: no visible effect on captured output.
        _ => {}
    }
    Ok(())
}

fn parse_context(v: &str) -> Result<usize, UsageError> {
    v.parse::<usize>().map_err(|_| UsageError::plain(&format!("{v}: invalid context length argument")))
}

fn parse_max_count(v: &str) -> Result<u64, UsageError> {
    v.parse::<u64>().map_err(|_| UsageError::plain("invalid max count"))
}

fn parse_directories(v: &str) -> Result<Directories, UsageError> {
    match v {
        "read" => Ok(Directories::Read),
        "skip" => Ok(Directories::Skip),
        "recurse" => Ok(Directories::Recurse),
        _ => Err(UsageError::plain("invalid argument for --directories")),
    }
}

pub use reviewhost_tool::fnmatch;

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

pub use reviewhost_tool::io_message;

/// Builds the `regex` crate pattern for the pattern list, or GNU's error message.
/// Returns `None` for an empty pattern list (matches nothing) and the warnings.
pub fn build_pattern(o: &Options, patterns: &[String]) -> Result<(Option<String>, Vec<String>), String> {
    if o.syntax == PatternSyntax::Perl {
        return Err("-P is not supported in the reviewhost sandbox".into());
    }
    if patterns.is_empty() {
        return Ok((None, Vec::new()));
    }
    let mut warnings = Vec::new();
    let mut parts = Vec::with_capacity(patterns.len());
    for p in patterns {
        let part = match o.syntax {
            PatternSyntax::Fixed => regex::escape(p),
            PatternSyntax::Basic | PatternSyntax::Extended | PatternSyntax::Perl => {
                let syntax = if o.syntax == PatternSyntax::Extended { Syntax::Extended } else { Syntax::Basic };
                let t = translate::translate(p, syntax).map_err(|e| e.0)?;
                for w in t.warnings {
                    if !warnings.contains(&w) {
                        warnings.push(w);
                    }
                }
                t.regex
            }
        };
        parts.push(part);
    }
    let alternation = if parts.len() == 1 {
        parts.pop().unwrap_or_default()
    } else {
        parts.iter().map(|p| format!("(?:{p})")).collect::<Vec<_>>().join("|")
    };
    let flags = if o.ignore_case { "(?mi)" } else { "(?m)" };
    let body = if o.line {
        format!("^(?:{alternation})$")
    } else if o.word {
        format!(r"\b{{start-half}}(?:{alternation})\b{{end-half}}")
    } else {
        alternation
    };
    Ok((Some(format!("{flags}{body}")), warnings))
}

/// Everything one run needs while visiting files.
struct Grep<'a, 'io> {
    o: Options,
    ctx: &'a Ctx,
    io: &'a mut Io<'io>,
    matcher: Matcher,
    shared: Shared,
    line_opts: LineOpts,
    /// `-H` behaviour for the current operand.
    out_file: bool,
    matched: bool,
    error: bool,
    /// `-q` saw a match: stop everything.
    done: bool,
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
        o.patterns.push(p);
    }
    // Expand `-f FILE` entries and split every pattern at newlines.
    let mut patterns: Vec<String> = Vec::new();
    for p in &o.patterns {
        if let Some(file) = p.strip_prefix("\0file:") {
            let data = if file == "-" {
                io.stdin.to_vec()
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
        } else {
            patterns.extend(p.split('\n').map(str::to_string));
        }
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
    let before = o.before.or(o.context).unwrap_or(0);
    let after = o.after.or(o.context).unwrap_or(0);
    let out_quiet = o.quiet || o.count || o.list.is_some();
    let line_opts = LineOpts {
        invert: o.invert,
        max_count: o.max_count,
        before,
        after,
        separators: (o.before.is_some() || o.after.is_some() || o.context.is_some()) && !o.no_group_separator,
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
    let shared = Shared::new(io.stdout_limit);
    let mut g =
        Grep { out_file: false, o, ctx, io, matcher, shared, line_opts, matched: false, error: false, done: false };
    if operands.is_empty() {
        if recursive {
            g.out_file = g.o.with_filename.unwrap_or(true);
            g.walk(ctx.real("."), "", 0);
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

    fn stdin(&mut self) {
        let label = self.o.label.clone().unwrap_or_else(|| STDIN_LABEL.to_string());
        let data = self.io.stdin;
        self.search_buffer(data, &label);
    }

    /// One command-line operand.
    fn operand(&mut self, op: &str, several: bool) {
        if op == "-" {
            self.stdin();
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
                    self.walk(real, &display, 0);
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

    /// Recursive search in directory read order (GNU's fts without sorting). `display`
    /// is the directory as printed: empty for the implicit `.` of `grep -r PATTERN`.
    fn walk(&mut self, dir: PathBuf, display: &str, depth: usize) {
        if depth > MAX_DEPTH {
            self.message(display, "directory nesting too deep");
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
                    self.walk(path, &shown, depth + 1);
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
        match self.ctx.read(real) {
            Ok(data) => self.search_buffer(&data, shown),
            Err(e) => {
                let msg = io_message(&e);
                self.message(shown, &msg);
            }
        }
    }

    fn search_buffer(&mut self, data: &[u8], shown: &str) {
        let binary = self.o.binary != BinaryFiles::Text && memchr::memchr(0, data).is_some();
        let out_quiet = self.line_opts.quiet;
        let mut opts = self.line_opts.clone();
        let zapped;
        let buf: &[u8] = if binary {
            if self.o.binary == BinaryFiles::WithoutMatch {
                self.file_result(shown, 0);
                return;
            }
            // GNU treats NUL bytes of a binary file as line ends and prints no lines.
            zapped = data.iter().map(|&b| if b == 0 { b'\n' } else { b }).collect::<Vec<u8>>();
            opts.quiet = true;
            if !self.o.count {
                opts.stop_at_first = true;
            }
            &zapped
        } else {
            data
        };
        let name = if self.out_file { Some(shown.as_bytes()) } else { None };
        let found = search::search(buf, &self.matcher, &opts, name, self.io.stdout, &mut self.shared);
        if (found.encoding_error || binary) && found.selected > 0 && !out_quiet {
            self.io.stderr.extend_from_slice(format!("grep: {shown}: binary file matches\n").as_bytes());
        }
        self.file_result(shown, found.selected);
    }

    /// File-level output (`-c`, `-l`, `-L`) and the exit status bookkeeping.
    fn file_result(&mut self, shown: &str, selected: u64) {
        if selected > 0 {
            self.matched = true;
            if self.o.quiet {
                self.done = true;
                return;
            }
        }
        let end = if self.o.null { b'\0' } else { b'\n' };
        match self.o.list {
            Some(ListFiles::Matching) if selected > 0 => {
                self.io.stdout.extend_from_slice(shown.as_bytes());
                self.io.stdout.push(end);
            }
            Some(ListFiles::NonMatching) if selected == 0 => {
                self.io.stdout.extend_from_slice(shown.as_bytes());
                self.io.stdout.push(end);
            }
            Some(_) => {}
            None if self.o.count && !self.o.quiet => {
                if self.out_file {
                    self.io.stdout.extend_from_slice(shown.as_bytes());
                    self.io.stdout.push(if self.o.null { b'\0' } else { b':' });
                }
                self.io.stdout.extend_from_slice(format!("{selected}\n").as_bytes());
            }
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn clustered_and_attached_short_options() {
        let o =
            parse_args(&args(&["-rnE", "-m1", "-A2", "-efoo", "x", "-C", "3"]), PatternSyntax::Basic).expect("valid");
        assert_eq!(o.directories, Directories::Recurse);
        assert!(o.line_number);
        assert_eq!(o.syntax, PatternSyntax::Extended);
        assert_eq!(o.max_count, Some(1));
        assert_eq!(o.after, Some(2));
        assert_eq!(o.context, Some(3));
        assert_eq!(o.patterns, vec!["foo".to_string()]);
        assert_eq!(o.operands, vec!["x".to_string()]);
    }

    #[test]
    fn options_after_operands_and_double_dash() {
        let o = parse_args(&args(&["foo", "src", "-n", "--", "-v"]), PatternSyntax::Basic).expect("valid");
        assert!(o.line_number);
        assert!(!o.invert);
        assert_eq!(o.operands, args(&["foo", "src", "-v"]));
    }

    #[test]
    fn long_options_values_and_abbreviations() {
        let o = parse_args(
            &args(&["--max-count=2", "--context", "1", "--ignore", "--include=*.rs", "p"]),
            PatternSyntax::Basic,
        )
        .expect("valid");
        assert_eq!(o.max_count, Some(2));
        assert_eq!(o.context, Some(1));
        assert!(o.ignore_case);
        assert_eq!(o.file_globs, vec![(true, "*.rs".to_string())]);
        let e = parse_args(&args(&["--i", "p"]), PatternSyntax::Basic).expect_err("ambiguous");
        assert!(e.message.unwrap_or_default().contains("is ambiguous"));
        let e = parse_args(&args(&["--foo"]), PatternSyntax::Basic).expect_err("unknown");
        assert_eq!(e.message.as_deref(), Some("unrecognized option '--foo'"));
        let e = parse_args(&args(&["-k"]), PatternSyntax::Basic).expect_err("unknown");
        assert_eq!(e.message.as_deref(), Some("invalid option -- 'k'"));
        let e = parse_args(&args(&["-A", "x", "p"]), PatternSyntax::Basic).expect_err("bad");
        assert_eq!(e.message.as_deref(), Some("x: invalid context length argument"));
        let e = parse_args(&args(&["-e"]), PatternSyntax::Basic).expect_err("missing");
        assert_eq!(e.message.as_deref(), Some("option requires an argument -- 'e'"));
    }

    #[test]
    fn numeric_context_option() {
        let o = parse_args(&args(&["-12", "p"]), PatternSyntax::Basic).expect("valid");
        assert_eq!(o.context, Some(12));
    }

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
