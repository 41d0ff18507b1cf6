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

use crate::Search;
use crate::search::{self, LineOpts, Matcher, Shared};
use crate::translate::{self, Syntax};
use reviewhost_prefilter::{MAX_SUBTREE_HEIGHT, Needles};
use reviewhost_tool::getopt::{self, HasArg, Item, Long, Name, Parser, Spec};
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

/// Where patterns come from, in command-line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternSource {
    /// `-e PATTERNS`, or the first operand: one pattern a line.
    Literal(String),
    /// `-f FILE`: one pattern a line of the file (`-`: stdin); an empty file has none.
    File(String),
}

/// The parsed command line.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub syntax: PatternSyntax,
    /// Patterns from `-e` and `-f`, in order.
    pub patterns: Vec<PatternSource>,
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
    /// The line between groups of context (`--group-separator`; `None` after
    /// `--no-group-separator`).
    pub group_separator: Option<String>,
    /// `-T`: a tab before the line, after the prefixes.
    pub initial_tab: bool,
    /// `-u`: obsolete, no effect but GNU's warning.
    pub unix_byte_offsets: bool,
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

/// grep's options: GNU grep 3.8's, in its order of long names (which the message for an
/// ambiguous abbreviation lists, as glibc does). `-X` (GNU's undocumented matcher
/// choice) takes its argument and is then refused, as an invalid option.
const SPEC: Spec = Spec::gnu(
    "0123456789A:B:C:D:d:e:f:m:X:EFGPiyvclLnbHhoqswxrRaIZUTuVz",
    &[
        Long::short("basic-regexp", 'G', HasArg::No),
        Long::short("extended-regexp", 'E', HasArg::No),
        Long::short("fixed-regexp", 'F', HasArg::No),
        Long::short("fixed-strings", 'F', HasArg::No),
        Long::short("perl-regexp", 'P', HasArg::No),
        Long::short("after-context", 'A', HasArg::Required),
        Long::short("before-context", 'B', HasArg::Required),
        Long::new("binary-files", HasArg::Required),
        Long::short("byte-offset", 'b', HasArg::No),
        Long::short("context", 'C', HasArg::Required),
        Long::new("color", HasArg::Optional),
        Long::alias("colour", "color", HasArg::Optional),
        Long::short("count", 'c', HasArg::No),
        Long::short("devices", 'D', HasArg::Required),
        Long::short("directories", 'd', HasArg::Required),
        Long::short("dereference-recursive", 'R', HasArg::No),
        Long::new("exclude", HasArg::Required),
        Long::new("exclude-from", HasArg::Required),
        Long::new("exclude-dir", HasArg::Required),
        Long::short("file", 'f', HasArg::Required),
        Long::short("files-with-matches", 'l', HasArg::No),
        Long::short("files-without-match", 'L', HasArg::No),
        Long::new("group-separator", HasArg::Required),
        Long::new("help", HasArg::No),
        Long::new("include", HasArg::Required),
        Long::short("ignore-case", 'i', HasArg::No),
        Long::new("no-ignore-case", HasArg::No),
        Long::short("initial-tab", 'T', HasArg::No),
        Long::new("label", HasArg::Required),
        Long::new("line-buffered", HasArg::No),
        Long::short("line-number", 'n', HasArg::No),
        Long::short("line-regexp", 'x', HasArg::No),
        Long::short("max-count", 'm', HasArg::Required),
        Long::short("no-filename", 'h', HasArg::No),
        Long::new("no-group-separator", HasArg::No),
        Long::short("no-messages", 's', HasArg::No),
        Long::short("null", 'Z', HasArg::No),
        Long::short("null-data", 'z', HasArg::No),
        Long::short("only-matching", 'o', HasArg::No),
        Long::short("quiet", 'q', HasArg::No),
        Long::short("recursive", 'r', HasArg::No),
        Long::short("regexp", 'e', HasArg::Required),
        Long::short("invert-match", 'v', HasArg::No),
        Long::short("silent", 'q', HasArg::No),
        Long::short("text", 'a', HasArg::No),
        Long::short("binary", 'U', HasArg::No),
        Long::short("unix-byte-offsets", 'u', HasArg::No),
        Long::short("version", 'V', HasArg::No),
        Long::short("with-filename", 'H', HasArg::No),
        Long::short("word-regexp", 'w', HasArg::No),
    ],
);

/// Parses grep's arguments with GNU getopt_long's rules: options may follow operands,
/// `--` ends options, short options cluster (`-rnE`, `-m1`, `-eFOO`), long options take
/// `=VALUE` or the next argument and may be abbreviated to a unique prefix. Digits make
/// a context length (`-5`, `-12`) with the digits next to them in the same argument.
pub fn parse_args(args: &[String], initial: PatternSyntax) -> Result<Options, UsageError> {
    let mut o = Options { syntax: initial, group_separator: Some("--".into()), ..Options::default() };
    let mut parser = Parser::new(&SPEC, args);
    // The context length being read from digits: the argument they stand in, and the
    // length so far.
    let mut digits: Option<(usize, String)> = None;
    while let Some(item) = parser.next() {
        match item.map_err(option_error)? {
            Item::Opt(Name::Short(c), _) if c.is_ascii_digit() => {
                let mut text = match digits.take() {
                    Some((at, text)) if at == parser.index() => text,
                    _ => String::new(),
                };
                // GNU keeps 21 digits; one more is "too many", named by the 21 and `...`.
                if text.len() == MAX_CONTEXT_DIGITS {
                    return Err(UsageError::plain(&format!("{text}...: invalid context length argument")));
                }
                text.push(c);
                // A value past the integers saturates, as GNU's does.
                o.context = Some(text.parse().unwrap_or(usize::MAX));
                digits = Some((parser.index(), text));
                continue;
            }
            Item::Opt(name, value) => apply(&mut o, name, value.unwrap_or_default())?,
            Item::Operand(operand) => o.operands.push(operand),
        }
        digits = None;
    }
    Ok(o)
}

/// Digits of a `-NUM` context GNU grep reads before it calls the number too long.
const MAX_CONTEXT_DIGITS: usize = 21;

/// A command line getopt cannot read, in GNU grep's words.
fn option_error(e: getopt::Error) -> UsageError {
    UsageError::usage(e.to_string())
}

/// Applies one option; `v` is its argument (empty when it takes none).
fn apply(o: &mut Options, name: Name, v: String) -> Result<(), UsageError> {
    match name {
        Name::Short('E') => o.syntax = PatternSyntax::Extended,
        Name::Short('F') => o.syntax = PatternSyntax::Fixed,
        Name::Short('G') => o.syntax = PatternSyntax::Basic,
        Name::Short('P') => o.syntax = PatternSyntax::Perl,
        Name::Short('i' | 'y') => o.ignore_case = true,
        Name::Long("no-ignore-case") => o.ignore_case = false,
        Name::Short('v') => o.invert = true,
        Name::Short('c') => o.count = true,
        Name::Short('l') => o.list = Some(ListFiles::Matching),
        Name::Short('L') => o.list = Some(ListFiles::NonMatching),
        Name::Short('n') => o.line_number = true,
        Name::Short('b') => o.byte_offset = true,
        Name::Short('H') => o.with_filename = Some(true),
        Name::Short('h') => o.with_filename = Some(false),
        Name::Short('o') => o.only_matching = true,
        Name::Short('q') => o.quiet = true,
        Name::Short('s') => o.no_messages = true,
        Name::Short('w') => o.word = true,
        Name::Short('x') => o.line = true,
        Name::Short('r') => {
            o.directories = Directories::Recurse;
            o.dereference = false;
        }
        Name::Short('R') => {
            o.directories = Directories::Recurse;
            o.dereference = true;
        }
        Name::Short('a') => o.binary = BinaryFiles::Text,
        Name::Short('I') => o.binary = BinaryFiles::WithoutMatch,
        Name::Short('Z') => o.null = true,
        Name::Short('V') | Name::Long("version") => o.version = true,
        Name::Long("help") => o.help = true,
        Name::Short('z') => return Err(UsageError::plain("-z is not supported in the reviewhost sandbox")),
        Name::Short('e') => {
            o.patterns.push(PatternSource::Literal(v));
            o.pattern_given = true;
        }
        Name::Short('f') => {
            o.patterns.push(PatternSource::File(v));
            o.pattern_given = true;
        }
        Name::Short('m') => o.max_count = Some(parse_max_count(&v)?),
        Name::Short('A') => o.after = Some(parse_context(&v)?),
        Name::Short('B') => o.before = Some(parse_context(&v)?),
        Name::Short('C') => o.context = Some(parse_context(&v)?),
        Name::Short('d') => o.directories = parse_directories(&v)?,
        Name::Short('D') if v != "read" && v != "skip" => {
            return Err(UsageError::plain("unknown devices method"));
        }
        Name::Short('X') => return Err(UsageError::usage("invalid option -- 'X'".into())),
        Name::Long("include") => o.file_globs.push((true, v)),
        Name::Long("exclude") => o.file_globs.push((false, v)),
        // GNU strips trailing slashes from the glob (`--exclude-dir=dir/` excludes `dir`).
        Name::Long("exclude-dir") => o.exclude_dirs.push(match v.trim_end_matches('/') {
            "" => v,
            trimmed => trimmed.to_string(),
        }),
        Name::Long("binary-files") => {
            o.binary = match v.as_str() {
                "binary" => BinaryFiles::Binary,
                "text" => BinaryFiles::Text,
                "without-match" => BinaryFiles::WithoutMatch,
                _ => return Err(UsageError::plain("unknown binary-files type")),
            }
        }
        Name::Long("label") => o.label = Some(v),
        Name::Long("group-separator") => o.group_separator = Some(v),
        Name::Long("no-group-separator") => o.group_separator = None,
        Name::Short('T') => o.initial_tab = true,
        Name::Short('u') => o.unix_byte_offsets = true,
        Name::Long("exclude-from") => {
            return Err(UsageError::plain("--exclude-from is not supported in the reviewhost sandbox"));
        }
        Name::Long("color")
            if !matches!(
                v.as_str(),
                "" | "never" | "always" | "auto" | "yes" | "no" | "force" | "tty" | "if-tty" | "none"
            ) =>
        {
            return Err(UsageError::usage(format!("invalid argument '{v}' for '--color'")));
        }
        // -D read/skip (special files are never opened), --color, -U, -u,
        // -T/--initial-tab, --line-buffered: no visible effect on captured output.
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

/// The literals every line a search selects contains one of, taken from its compiled
/// pattern. `-v` selects lines without a match: it has none, and reads every file.
fn needles(o: &Options, pattern: Option<&str>) -> Option<Needles> {
    if o.invert {
        return None;
    }
    Needles::of_regex(pattern?)
}

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
    fn walk_root(&mut self, dir: PathBuf, display: &str) {
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
        if opts.initial_tab {
            // GNU's width for -T: the digits of the file's size, plus one with -n.
            let size = data.len() as u64 + u64::from(opts.line_number);
            opts.offset_width = size.checked_ilog10().unwrap_or(0) as usize + 1;
        }
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
        assert_eq!(o.patterns, vec![PatternSource::Literal("foo".to_string())]);
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
    fn abbreviations_as_glibc_resolves_them() {
        let o =
            parse_args(&args(&["--group=X", "--fixed-r", "--files-with-m", "p"]), PatternSyntax::Basic).expect("valid");
        assert_eq!(o.group_separator.as_deref(), Some("X"));
        assert_eq!((o.syntax, o.list), (PatternSyntax::Fixed, Some(ListFiles::Matching)));
        let e = parse_args(&args(&["--co=1", "p"]), PatternSyntax::Basic).expect_err("ambiguous");
        assert_eq!(
            e.message.as_deref(),
            Some("option '--co=1' is ambiguous; possibilities: '--context' '--color' '--colour' '--count'")
        );
        let e = parse_args(&args(&["--f", "p"]), PatternSyntax::Basic).expect_err("ambiguous");
        let want = "option '--f' is ambiguous; possibilities: '--fixed-regexp' '--file' '--files-with-matches' \
                    '--files-without-match'";
        assert_eq!(e.message.as_deref(), Some(want));
        let e = parse_args(&args(&["--foo=bar"]), PatternSyntax::Basic).expect_err("unknown");
        assert_eq!(e.message.as_deref(), Some("unrecognized option '--foo=bar'"));
        let o = parse_args(&args(&["--no-group", "p"]), PatternSyntax::Basic).expect("valid");
        assert_eq!(o.group_separator, None);
        assert!(parse_args(&args(&["--null-d", "p"]), PatternSyntax::Basic).is_err());
        assert!(parse_args(&args(&["--exclude-from=x", "p"]), PatternSyntax::Basic).is_err());
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
