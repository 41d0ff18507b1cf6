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

use crate::Search;
use grep_matcher::LineTerminator;
use grep_printer::{StandardBuilder, SummaryBuilder, SummaryKind};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use reviewhost_prefilter::Needles;
use reviewhost_tool::getopt::{self, ErrorKind, HasArg, Item, Long, Order, Parser, Spec};
use reviewhost_tool::{Ctx, EXIT_TROUBLE, Io};
use std::path::Path;
use termcolor::NoColor;

use crate::walk::{Filters, Visit, walk};

/// The name rg prints for standard input.
const STDIN_LABEL: &str = "<stdin>";

/// Case handling: the last of `-i`, `-S`, `-s` wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Case {
    #[default]
    Sensitive,
    Insensitive,
    Smart,
}

/// The parsed command line.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub patterns: Vec<String>,
    pub pattern_files: Vec<String>,
    pub case: Case,
    pub fixed: bool,
    pub word: bool,
    pub line: bool,
    pub invert: bool,
    pub files_with_matches: bool,
    pub files_without_match: bool,
    pub count: bool,
    pub count_matches: bool,
    pub only_matching: bool,
    pub quiet: bool,
    /// The last of `-n`/`-N`; otherwise line numbers follow `--column` and `--vimgrep`.
    pub line_number: Option<bool>,
    /// The last of `--column`/`--no-column`; otherwise columns follow `--vimgrep`.
    pub column: Option<bool>,
    /// `--vimgrep`: one line per match, with path, line and column.
    pub vimgrep: bool,
    /// `--crlf`: `$` matches before `\r\n` and the `\r` is part of the terminator.
    pub crlf: bool,
    /// `--null-data`: lines end with NUL, and there is no binary detection.
    pub null_data: bool,
    /// `--context-separator` (unescaped; `--` when not given).
    pub context_separator: Option<Vec<u8>>,
    /// `--no-context-separator` came after any `--context-separator`.
    pub no_context_separator: bool,
    /// `--path-separator`: the byte printed for `/` in paths.
    pub path_separator: Option<u8>,
    /// `-M`: lines longer than this many bytes are omitted (0: no limit).
    pub max_columns: Option<u64>,
    pub max_columns_preview: bool,
    /// `--ignore-file`s, in order: rules relative to the current directory, below
    /// every other ignore file in precedence.
    pub ignore_files: Vec<String>,
    pub no_ignore_files: bool,
    pub ignore_file_case_insensitive: bool,
    /// `--no-require-git`: `.gitignore` applies outside git repositories too.
    pub no_require_git: bool,
    /// `--no-ignore-exclude`: `.git/info/exclude` is not read.
    pub no_ignore_exclude: bool,
    pub glob_case_insensitive: bool,
    /// `--include-zero`: `-c` also prints files with no match.
    pub include_zero: bool,
    pub no_unicode: bool,
    pub dfa_size_limit: Option<usize>,
    /// The last of `--heading` and `--no-heading`: the path on a line of its own.
    pub heading: Option<bool>,
    /// `-p`: heading and line numbers unless turned off.
    pub pretty: bool,
    pub field_match_separator: Option<Vec<u8>>,
    pub field_context_separator: Option<Vec<u8>>,
    /// `--max-filesize`: larger files met in a walk are skipped.
    pub max_filesize: Option<u64>,
    /// `--sortr path`: each directory's entries in reverse order.
    pub sort_reverse: bool,
    pub regex_size_limit: Option<usize>,
    pub byte_offset: bool,
    pub with_filename: Option<bool>,
    pub globs: Vec<String>,
    pub iglobs: Vec<String>,
    pub types: Vec<String>,
    pub types_not: Vec<String>,
    pub hidden: bool,
    pub no_ignore: bool,
    pub no_ignore_vcs: bool,
    pub no_ignore_dot: bool,
    pub no_ignore_parent: bool,
    pub binary: bool,
    pub text: bool,
    pub follow: bool,
    pub after: Option<usize>,
    pub before: Option<usize>,
    pub context: Option<usize>,
    pub max_count: Option<u64>,
    pub max_depth: Option<usize>,
    pub files: bool,
    pub type_list: bool,
    pub null: bool,
    pub no_messages: bool,
    /// `--no-mmap`: files on the command line are read like walked ones.
    pub no_mmap: bool,
    pub trim: bool,
    pub version: bool,
    pub help: bool,
    pub operands: Vec<String>,
}

/// rg's flags: those that take a value, then the switches. Every short flag has a long
/// name, by which the flag is applied. Long names are not abbreviated, and `-A=2` is
/// `-A 2`, as in ripgrep.
const SPEC: Spec = Spec {
    short: "A:B:C:e:f:g:t:T:m:d:j:M:E:r:iSsFwxvlcoqnNHILuab0pUPzVh",
    long: &[
        Long::short("after-context", 'A', HasArg::Required),
        Long::short("before-context", 'B', HasArg::Required),
        Long::short("context", 'C', HasArg::Required),
        Long::short("regexp", 'e', HasArg::Required),
        Long::short("file", 'f', HasArg::Required),
        Long::short("glob", 'g', HasArg::Required),
        Long::new("iglob", HasArg::Required),
        Long::short("type", 't', HasArg::Required),
        Long::short("type-not", 'T', HasArg::Required),
        Long::short("max-count", 'm', HasArg::Required),
        Long::short("max-depth", 'd', HasArg::Required),
        Long::new("maxdepth", HasArg::Required),
        Long::short("threads", 'j', HasArg::Required),
        Long::new("sort", HasArg::Required),
        Long::new("sortr", HasArg::Required),
        Long::new("color", HasArg::Required),
        Long::new("colors", HasArg::Required),
        Long::short("max-columns", 'M', HasArg::Required),
        Long::new("max-filesize", HasArg::Required),
        Long::short("encoding", 'E', HasArg::Required),
        Long::short("replace", 'r', HasArg::Required),
        Long::new("pre", HasArg::Required),
        Long::new("type-add", HasArg::Required),
        Long::new("type-clear", HasArg::Required),
        Long::new("context-separator", HasArg::Required),
        Long::new("field-match-separator", HasArg::Required),
        Long::new("field-context-separator", HasArg::Required),
        Long::new("path-separator", HasArg::Required),
        Long::new("ignore-file", HasArg::Required),
        Long::new("dfa-size-limit", HasArg::Required),
        Long::new("regex-size-limit", HasArg::Required),
        Long::new("engine", HasArg::Required),
        Long::new("pre-glob", HasArg::Required),
        Long::short("ignore-case", 'i', HasArg::No),
        Long::short("smart-case", 'S', HasArg::No),
        Long::short("case-sensitive", 's', HasArg::No),
        Long::short("fixed-strings", 'F', HasArg::No),
        Long::new("no-fixed-strings", HasArg::No),
        Long::short("word-regexp", 'w', HasArg::No),
        Long::short("line-regexp", 'x', HasArg::No),
        Long::short("invert-match", 'v', HasArg::No),
        Long::short("files-with-matches", 'l', HasArg::No),
        Long::new("files-without-match", HasArg::No),
        Long::short("count", 'c', HasArg::No),
        Long::new("count-matches", HasArg::No),
        Long::short("only-matching", 'o', HasArg::No),
        Long::short("quiet", 'q', HasArg::No),
        Long::short("line-number", 'n', HasArg::No),
        Long::short("no-line-number", 'N', HasArg::No),
        Long::new("column", HasArg::No),
        Long::new("no-column", HasArg::No),
        Long::short("byte-offset", 'b', HasArg::No),
        Long::short("with-filename", 'H', HasArg::No),
        Long::short("no-filename", 'I', HasArg::No),
        Long::short("follow", 'L', HasArg::No),
        Long::new("no-follow", HasArg::No),
        Long::new("hidden", HasArg::No),
        Long::new("no-hidden", HasArg::No),
        Long::new("no-ignore", HasArg::No),
        Long::new("ignore", HasArg::No),
        Long::new("no-ignore-vcs", HasArg::No),
        Long::new("no-ignore-dot", HasArg::No),
        Long::new("no-ignore-parent", HasArg::No),
        Long::new("no-ignore-global", HasArg::No),
        Long::new("no-ignore-exclude", HasArg::No),
        Long::new("no-ignore-files", HasArg::No),
        Long::new("no-config", HasArg::No),
        Long::new("no-heading", HasArg::No),
        Long::new("heading", HasArg::No),
        Long::new("no-messages", HasArg::No),
        Long::new("no-ignore-messages", HasArg::No),
        Long::new("line-buffered", HasArg::No),
        Long::new("block-buffered", HasArg::No),
        Long::new("no-mmap", HasArg::No),
        Long::new("mmap", HasArg::No),
        Long::new("no-pcre2-unicode", HasArg::No),
        Long::new("crlf", HasArg::No),
        Long::new("no-crlf", HasArg::No),
        Long::new("no-unicode", HasArg::No),
        Long::new("unicode", HasArg::No),
        Long::new("pcre2-unicode", HasArg::No),
        Long::new("null-data", HasArg::No),
        Long::new("no-context-separator", HasArg::No),
        Long::new("max-columns-preview", HasArg::No),
        Long::new("no-max-columns-preview", HasArg::No),
        Long::new("sort-files", HasArg::No),
        Long::new("no-sort-files", HasArg::No),
        Long::new("no-ignore-files", HasArg::No),
        Long::new("ignore-files", HasArg::No),
        Long::new("ignore-file-case-insensitive", HasArg::No),
        Long::new("no-ignore-file-case-insensitive", HasArg::No),
        Long::new("no-require-git", HasArg::No),
        Long::new("require-git", HasArg::No),
        Long::new("ignore-exclude", HasArg::No),
        Long::new("ignore-global", HasArg::No),
        Long::new("ignore-dot", HasArg::No),
        Long::new("ignore-vcs", HasArg::No),
        Long::new("ignore-parent", HasArg::No),
        Long::new("glob-case-insensitive", HasArg::No),
        Long::new("no-glob-case-insensitive", HasArg::No),
        Long::new("include-zero", HasArg::No),
        Long::new("one-file-system", HasArg::No),
        Long::new("no-one-file-system", HasArg::No),
        Long::new("no-trim", HasArg::No),
        Long::new("no-multiline", HasArg::No),
        Long::new("no-multiline-dotall", HasArg::No),
        Long::new("no-pcre2", HasArg::No),
        Long::new("auto-hybrid-regex", HasArg::No),
        Long::new("no-auto-hybrid-regex", HasArg::No),
        Long::new("no-search-zip", HasArg::No),
        Long::new("no-stats", HasArg::No),
        Long::new("messages", HasArg::No),
        Long::new("ignore-messages", HasArg::No),
        Long::new("no-encoding", HasArg::No),
        Long::new("no-pre", HasArg::No),
        Long::new("pcre2-version", HasArg::No),
        Long::new("debug", HasArg::No),
        Long::new("trace", HasArg::No),
        Long::new("stats", HasArg::No),
        Long::short("pretty", 'p', HasArg::No),
        Long::new("vimgrep", HasArg::No),
        Long::short("unrestricted", 'u', HasArg::No),
        Long::new("binary", HasArg::No),
        Long::new("no-binary", HasArg::No),
        Long::short("text", 'a', HasArg::No),
        Long::new("no-text", HasArg::No),
        Long::short("null", '0', HasArg::No),
        Long::new("trim", HasArg::No),
        Long::new("files", HasArg::No),
        Long::new("type-list", HasArg::No),
        Long::short("version", 'V', HasArg::No),
        Long::short("help", 'h', HasArg::No),
        Long::short("pcre2", 'P', HasArg::No),
        Long::new("json", HasArg::No),
        Long::short("multiline", 'U', HasArg::No),
        Long::new("multiline-dotall", HasArg::No),
        Long::short("search-zip", 'z', HasArg::No),
        Long::new("passthru", HasArg::No),
        Long::new("passthrough", HasArg::No),
    ],
    order: Order::Permute,
    abbreviations: false,
    short_equals: true,
};

/// Parses rg's arguments: flags anywhere, `--` ends them, short flags cluster (`-inw`)
/// and take attached values (`-A2`, `-tpy`), long flags take `=VALUE` or the next
/// argument.
pub fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut unrestricted = 0;
    for item in Parser::new(&SPEC, args) {
        match item.map_err(flag_error)? {
            Item::Opt(name, value) => {
                let long = SPEC.long_name(name).unwrap_or_default();
                match value {
                    Some(v) => apply_value(&mut o, long, v)?,
                    None => apply_switch(&mut o, long, &mut unrestricted)?,
                }
            }
            Item::Operand(operand) => o.operands.push(operand),
        }
    }
    Ok(o)
}

/// A command line the flags cannot be read from, in rg's words.
fn flag_error(e: getopt::Error) -> String {
    match e.kind {
        ErrorKind::UnknownShort(c) => format!("unrecognized flag -{c}"),
        ErrorKind::ShortNeedsValue(c) => format!("flag '-{c}' requires a value"),
        ErrorKind::LongNeedsValue(name) => format!("flag '--{name}' requires a value"),
        ErrorKind::LongTakesNoValue(name) => format!("flag '--{name}' does not take a value"),
        // An unknown name with `=VALUE` is refused as a switch given a value.
        ErrorKind::UnknownLong(name) if e.arg.contains('=') => format!("flag '--{name}' does not take a value"),
        ErrorKind::UnknownLong(name) | ErrorKind::Ambiguous { name, .. } => format!("unrecognized flag --{name}"),
    }
}

fn number<T: std::str::FromStr>(name: &str, v: &str) -> Result<T, String> {
    v.parse::<T>().map_err(|_| format!("invalid value '{v}' for '--{name}': expected a non-negative number"))
}

/// A size as rg reads it: digits and an optional `K`, `M` or `G` suffix.
fn human_size(name: &str, v: &str) -> Result<usize, String> {
    let invalid = || {
        format!(
            "invalid format for size '{v}', which should be a sequence of digits followed by an optional 'K', 'M' or 'G' suffix"
        )
    };
    let (digits, shift) = match v.as_bytes().last() {
        Some(b'K') => (&v[..v.len() - 1], 10),
        Some(b'M') => (&v[..v.len() - 1], 20),
        Some(b'G') => (&v[..v.len() - 1], 30),
        _ => (v, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    let n: u64 = digits.parse().map_err(|_| invalid())?;
    n.checked_mul(1 << shift)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| format!("number too large for '--{name}': {v}"))
}

/// ripgrep's `unescape` (grep-cli) for separators: `\\`, `\n`, `\r`, `\t` and `\xHH`;
/// any other backslash stays as written.
pub fn unescape(s: &str) -> Vec<u8> {
    enum State {
        Literal,
        Escape,
        HexFirst,
        HexSecond(char),
    }
    let mut out = Vec::new();
    let mut state = State::Literal;
    let mut buf = [0u8; 4];
    for c in s.chars() {
        state = match state {
            State::Literal if c == '\\' => State::Escape,
            State::Literal => {
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                State::Literal
            }
            State::Escape => {
                match c {
                    '\\' => out.push(b'\\'),
                    'n' => out.push(b'\n'),
                    'r' => out.push(b'\r'),
                    't' => out.push(b'\t'),
                    'x' => {}
                    c => {
                        out.push(b'\\');
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                }
                if c == 'x' { State::HexFirst } else { State::Literal }
            }
            State::HexFirst if c.is_ascii_hexdigit() => State::HexSecond(c),
            State::HexFirst => {
                out.extend_from_slice(b"\\x");
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                State::Literal
            }
            State::HexSecond(first) if c.is_ascii_hexdigit() => {
                let hex = |d: char| d.to_digit(16).unwrap_or_default() as u8;
                out.push(hex(first) << 4 | hex(c));
                State::Literal
            }
            State::HexSecond(first) => {
                out.extend_from_slice(format!("\\x{first}{c}").as_bytes());
                State::Literal
            }
        };
    }
    match state {
        State::Literal => {}
        State::Escape => out.push(b'\\'),
        State::HexFirst => out.extend_from_slice(b"\\x"),
        State::HexSecond(first) => out.extend_from_slice(format!("\\x{first}").as_bytes()),
    }
    out
}

fn apply_value(o: &mut Options, name: &str, v: String) -> Result<(), String> {
    match name {
        "after-context" => o.after = Some(number(name, &v)?),
        "before-context" => o.before = Some(number(name, &v)?),
        "context" => o.context = Some(number(name, &v)?),
        "regexp" => o.patterns.push(v),
        "file" => o.pattern_files.push(v),
        "glob" => o.globs.push(v),
        "iglob" => o.iglobs.push(v),
        "type" => o.types.push(v),
        "type-not" => o.types_not.push(v),
        "max-count" => o.max_count = Some(number(name, &v)?),
        "max-depth" | "maxdepth" => o.max_depth = Some(number(name, &v)?),
        "sort" | "sortr" => match v.as_str() {
            // The walk is always sorted by path (`none` leaves the order open), in
            // reverse for `--sortr path`.
            "path" | "none" => o.sort_reverse = name == "sortr" && v == "path",
            "modified" | "accessed" | "created" => {
                return Err(format!("--{name} {v} is not supported in the reviewhost sandbox"));
            }
            _ => return Err(format!("invalid value '{v}' for '--{name}'")),
        },
        "context-separator" => {
            o.context_separator = Some(unescape(&v));
            o.no_context_separator = false;
        }
        "path-separator" => {
            let sep = unescape(&v);
            o.path_separator = match sep.as_slice() {
                [] => None,
                [byte] => Some(*byte),
                _ => {
                    return Err(format!(
                        "A path separator must be exactly one byte, but the given separator is {} bytes: {v}\n\
                         In some shells on Windows '/' is automatically expanded. Use '//' instead.",
                        sep.len()
                    ));
                }
            };
        }
        "max-columns" => o.max_columns = Some(number::<u64>(name, &v)?).filter(|&n| n > 0),
        "ignore-file" => o.ignore_files.push(v),
        "dfa-size-limit" => o.dfa_size_limit = Some(human_size(name, &v)?),
        "regex-size-limit" => o.regex_size_limit = Some(human_size(name, &v)?),
        "engine" => match v.as_str() {
            "default" | "auto" => {}
            "pcre2" => return Err("--engine pcre2 is not supported in the reviewhost sandbox".into()),
            _ => return Err(format!("invalid value '{v}' for '--engine'")),
        },
        // `--pre-glob` only selects files for `--pre`, which is refused.
        "field-match-separator" => o.field_match_separator = Some(unescape(&v)),
        "field-context-separator" => o.field_context_separator = Some(unescape(&v)),
        "max-filesize" => o.max_filesize = Some(human_size(name, &v)? as u64),
        // Output is never coloured (documented): every valid choice is accepted.
        "color" if !matches!(v.as_str(), "never" | "auto" | "always" | "ansi") => {
            return Err(format!("invalid value '{v}' for '--color'"));
        }
        "color" => {}
        "threads" | "colors" | "pre-glob" => {}
        "encoding" | "replace" | "pre" | "type-add" | "type-clear" => {
            return Err(format!("--{name} is not supported in the reviewhost sandbox"));
        }
        _ => return Err(format!("unrecognized flag --{name}")),
    }
    Ok(())
}

fn apply_switch(o: &mut Options, name: &str, unrestricted: &mut u32) -> Result<(), String> {
    match name {
        "ignore-case" => o.case = Case::Insensitive,
        "smart-case" => o.case = Case::Smart,
        "case-sensitive" => o.case = Case::Sensitive,
        "fixed-strings" => o.fixed = true,
        "no-fixed-strings" => o.fixed = false,
        "word-regexp" => o.word = true,
        "line-regexp" => o.line = true,
        "invert-match" => o.invert = true,
        "files-with-matches" => o.files_with_matches = true,
        "files-without-match" => o.files_without_match = true,
        "count" => o.count = true,
        "count-matches" => o.count_matches = true,
        "only-matching" => o.only_matching = true,
        "quiet" => o.quiet = true,
        "line-number" => o.line_number = Some(true),
        "no-line-number" => o.line_number = Some(false),
        "column" => o.column = Some(true),
        "no-column" => o.column = Some(false),
        "vimgrep" => o.vimgrep = true,
        "byte-offset" => o.byte_offset = true,
        "with-filename" => o.with_filename = Some(true),
        "no-filename" => o.with_filename = Some(false),
        "follow" => o.follow = true,
        "no-follow" => o.follow = false,
        "hidden" => o.hidden = true,
        "no-hidden" => o.hidden = false,
        "no-ignore" => o.no_ignore = true,
        "ignore" => o.no_ignore = false,
        "no-ignore-vcs" => o.no_ignore_vcs = true,
        "no-ignore-dot" => o.no_ignore_dot = true,
        "no-ignore-parent" => o.no_ignore_parent = true,
        "no-ignore-exclude" => o.no_ignore_exclude = true,
        "ignore-exclude" => o.no_ignore_exclude = false,
        "no-ignore-files" => o.no_ignore_files = true,
        "ignore-files" => o.no_ignore_files = false,
        "ignore-file-case-insensitive" => o.ignore_file_case_insensitive = true,
        "no-ignore-file-case-insensitive" => o.ignore_file_case_insensitive = false,
        "no-require-git" => o.no_require_git = true,
        "require-git" => o.no_require_git = false,
        "ignore-vcs" => o.no_ignore_vcs = false,
        "ignore-dot" => o.no_ignore_dot = false,
        "ignore-parent" => o.no_ignore_parent = false,
        "glob-case-insensitive" => o.glob_case_insensitive = true,
        "no-glob-case-insensitive" => o.glob_case_insensitive = false,
        "crlf" => o.crlf = true,
        "no-crlf" => o.crlf = false,
        "null-data" => o.null_data = true,
        "no-unicode" => o.no_unicode = true,
        "unicode" => o.no_unicode = false,
        "no-context-separator" => o.no_context_separator = true,
        "max-columns-preview" => o.max_columns_preview = true,
        "no-max-columns-preview" => o.max_columns_preview = false,
        "include-zero" => o.include_zero = true,
        "no-messages" => o.no_messages = true,
        "messages" => o.no_messages = false,
        "no-mmap" => o.no_mmap = true,
        "mmap" => o.no_mmap = false,
        "no-trim" => o.trim = false,
        // Output is always sorted by path; the global git excludes file is never read
        // (no home directory); one file system, buffering, unicode in PCRE2 (refused)
        // and the statistics-free negations change nothing.
        "heading" => o.heading = Some(true),
        "no-heading" => o.heading = Some(false),
        // `--color always --heading --line-number`; the colour is not reproduced.
        "pretty" => o.pretty = true,
        "no-ignore-global"
        | "ignore-global"
        | "no-config"
        | "no-ignore-messages"
        | "ignore-messages"
        | "line-buffered"
        | "block-buffered"
        | "no-pcre2-unicode"
        | "pcre2-unicode"
        | "debug"
        | "trace"
        | "no-stats"
        | "sort-files"
        | "no-sort-files"
        | "one-file-system"
        | "no-one-file-system"
        | "no-multiline"
        | "no-multiline-dotall"
        | "no-pcre2"
        | "auto-hybrid-regex"
        | "no-auto-hybrid-regex"
        | "no-search-zip"
        | "no-encoding"
        | "no-pre" => {}
        "unrestricted" => {
            *unrestricted += 1;
            match *unrestricted {
                1 => o.no_ignore = true,
                2 => o.hidden = true,
                _ => o.binary = true,
            }
        }
        "binary" => o.binary = true,
        "no-binary" => o.binary = false,
        "text" => o.text = true,
        "no-text" => o.text = false,
        "null" => o.null = true,
        "trim" => o.trim = true,
        "files" => o.files = true,
        "type-list" => o.type_list = true,
        "version" => o.version = true,
        "help" => o.help = true,
        "pcre2" | "pcre2-version" | "json" | "multiline" | "multiline-dotall" | "search-zip" | "passthru"
        | "passthrough" | "stats" => {
            return Err(format!("--{name} is not supported in the reviewhost sandbox"));
        }
        _ => return Err(format!("unrecognized flag --{name}")),
    }
    Ok(())
}

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

/// The literals every line a search selects contains one of: the patterns parsed with
/// the case and Unicode modes the matcher compiles them with (smart case as
/// insensitive: its matches are a subset). `-v` selects lines without a match: it has
/// none, and reads every file.
fn needles(o: &Options, patterns: &[String]) -> Option<Needles> {
    if o.invert {
        return None;
    }
    let case = if o.case == Case::Sensitive { "" } else { "(?i)" };
    let unicode = if o.no_unicode { "(?-u)" } else { "" };
    Needles::any_of(patterns.iter().map(|p| {
        let p = if o.fixed { Needles::escape(p) } else { p.clone() };
        Needles::of_regex(&format!("{case}{unicode}{p}"))
    }))
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

/// Whether ripgrep 13 refuses `pattern` under `--no-unicode` ("Unicode not allowed
/// here"): its regex parser rejects any non-ASCII character there, written as such, as
/// `\x{...}` or through a `(?u)` group. Today's parser accepts them as UTF-8 bytes, so
/// they are refused here to give ripgrep's answer.
fn needs_unicode(pattern: &str) -> bool {
    if !pattern.is_ascii() || pattern.contains("(?u") {
        return true;
    }
    let mut rest = pattern;
    while let Some(at) = rest.find("\\x{") {
        let digits = &rest[at + 3..];
        let end = digits.find('}').unwrap_or(digits.len());
        if u32::from_str_radix(&digits[..end], 16).is_ok_and(|n| n > 0x7f) {
            return true;
        }
        rest = &rest[at + 3..];
    }
    false
}

/// Searches `data` as ripgrep reads the file: `mapped` (a file named on the command
/// line, which rg memory-maps unless `--no-mmap`) as one slice, where rg looks for a NUL
/// only at the start; otherwise through its read buffer, so a NUL anywhere before a match
/// is seen (a walked file is then skipped as binary).
fn search<S: grep_searcher::Sink>(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    data: &[u8],
    mapped: bool,
    sink: S,
) -> Result<(), S::Error> {
    if mapped { searcher.search_slice(matcher, data, sink) } else { searcher.search_reader(matcher, data, sink) }
}

/// `--type-list`: every type with its globs, as rg prints them.
fn type_list(io: &mut Io) -> i32 {
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
    fn message(&mut self, path: &str, msg: &str) {
        self.error = true;
        if !self.o.no_messages {
            self.io.stderr.extend_from_slice(format!("rg: {path}: {msg}\n").as_bytes());
        }
    }

    /// Searches every operand (or the cwd, or stdin). Returns an exit status to use
    /// instead of the computed one (bad glob or type).
    fn search_all(&mut self, matcher: Option<&RegexMatcher>, operands: &[String]) -> Option<i32> {
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

    fn searcher(&self, explicit: bool) -> Searcher {
        let context = self.o.context.unwrap_or(0);
        let (before, after) = if self.summary_kind().is_some() {
            (0, 0)
        } else {
            (self.o.before.unwrap_or(context), self.o.after.unwrap_or(context))
        };
        let binary = if self.o.text || self.o.null_data {
            BinaryDetection::none()
        } else if explicit || self.o.binary {
            BinaryDetection::convert(b'\0')
        } else {
            BinaryDetection::quit(b'\0')
        };
        let terminator = if self.o.crlf {
            LineTerminator::crlf()
        } else if self.o.null_data {
            LineTerminator::byte(b'\0')
        } else {
            LineTerminator::byte(b'\n')
        };
        SearcherBuilder::new()
            .line_terminator(terminator)
            .line_number(self.line_number())
            .invert_match(self.o.invert)
            .before_context(before)
            .after_context(after)
            .max_matches(self.o.max_count)
            .binary_detection(binary)
            .build()
    }

    /// ripgrep's `line_number`: `-n`/`-N` if given, else implied by `--column` and
    /// `--vimgrep`; never in summaries.
    fn line_number(&self) -> bool {
        self.summary_kind().is_none()
            && self.o.line_number.unwrap_or(self.o.column == Some(true) || self.o.vimgrep || self.o.pretty)
    }

    fn column(&self) -> bool {
        self.o.column.unwrap_or(self.o.vimgrep)
    }

    /// The context separator, `None` after `--no-context-separator`.
    fn context_separator(&self) -> Option<Vec<u8>> {
        if self.o.no_context_separator {
            None
        } else {
            Some(self.o.context_separator.clone().unwrap_or_else(|| b"--".to_vec()))
        }
    }

    fn summary_kind(&self) -> Option<SummaryKind> {
        if self.o.quiet {
            Some(SummaryKind::QuietWithMatch)
        } else if self.o.files_with_matches {
            Some(SummaryKind::PathWithMatch)
        } else if self.o.files_without_match {
            Some(SummaryKind::PathWithoutMatch)
        } else if self.o.count_matches || (self.o.count && self.o.only_matching) {
            Some(SummaryKind::CountMatches)
        } else if self.o.count {
            Some(SummaryKind::Count)
        } else {
            None
        }
    }

    /// Searches one file's `data`; `explicit` (named on the command line, or stdin) and
    /// `mapped` (searched as one slice: see [`search`]) are as ripgrep treats it.
    fn search_data(
        &mut self,
        matcher: &RegexMatcher,
        data: &[u8],
        shown: &str,
        with_name: bool,
        explicit: bool,
        mapped: bool,
    ) {
        let mut searcher = self.searcher(explicit);
        let terminator = if self.o.null { Some(0u8) } else { None };
        let result = if let Some(kind) = self.summary_kind() {
            let mut printer = SummaryBuilder::new()
                .kind(kind)
                .path(with_name)
                .exclude_zero(!self.o.include_zero)
                .separator_path(self.o.path_separator)
                .path_terminator(terminator)
                .build(NoColor::new(Vec::new()));
            let r = {
                let mut sink = printer.sink_with_path(matcher, Path::new(shown));
                let r = search(&mut searcher, matcher, data, mapped, &mut sink);
                let found = sink.has_match();
                r.map(|_| found)
            };
            self.io.stdout.extend_from_slice(printer.get_mut().get_ref());
            r
        } else {
            let context = searcher.before_context() > 0 || searcher.after_context() > 0;
            let separator = self.context_separator();
            let heading = self.o.heading.unwrap_or(self.o.pretty) && !self.o.vimgrep;
            let mut printer = StandardBuilder::new()
                .heading(heading)
                .separator_field_match(self.o.field_match_separator.clone().unwrap_or_else(|| b":".to_vec()))
                .separator_field_context(self.o.field_context_separator.clone().unwrap_or_else(|| b"-".to_vec()))
                .path(with_name || self.o.vimgrep)
                .only_matching(self.o.only_matching)
                .per_match(self.o.vimgrep)
                .column(self.column())
                .byte_offset(self.o.byte_offset)
                .trim_ascii(self.o.trim)
                .max_columns(self.o.max_columns)
                .max_columns_preview(self.o.max_columns_preview)
                .path_terminator(terminator)
                .separator_path(self.o.path_separator)
                .separator_context(separator.clone())
                .separator_search(None)
                .build(NoColor::new(Vec::new()));
            let r = {
                let mut sink = printer.sink_with_path(matcher, Path::new(shown));
                let r = search(&mut searcher, matcher, data, mapped, &mut sink);
                let found = sink.has_match();
                r.map(|_| found)
            };
            let out = printer.get_mut().get_ref();
            // ripgrep's file separator: an empty line with `--heading`, else the context
            // separator when there is context; it ends with the line terminator.
            let file_separator = if heading { Some(Vec::new()) } else { separator.filter(|_| context) };
            if let Some(sep) = file_separator.filter(|_| self.printed && !out.is_empty()) {
                self.io.stdout.extend_from_slice(&sep);
                self.io.stdout.extend_from_slice(searcher.line_terminator().as_bytes());
            }
            if !out.is_empty() {
                self.printed = true;
            }
            self.io.stdout.extend_from_slice(out);
            r
        };
        match result {
            Ok(found) => {
                if found {
                    self.matched = true;
                }
            }
            Err(e) => self.message(shown, &e.to_string()),
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
    fn parses_clusters_values_and_trailing_flags() {
        let o = parse_args(&args(&["-inw", "-A2", "-tpy", "Foo", "src", "--glob", "!**/_archive/**", "-uu"]))
            .expect("valid");
        assert_eq!(o.case, Case::Insensitive);
        assert!(o.line_number == Some(true) && o.word);
        assert_eq!(o.after, Some(2));
        assert_eq!(o.types, vec!["py".to_string()]);
        assert_eq!(o.globs, vec!["!**/_archive/**".to_string()]);
        assert!(o.no_ignore && o.hidden && !o.binary);
        assert_eq!(o.operands, args(&["Foo", "src"]));
    }

    #[test]
    fn last_case_flag_wins_and_unknown_flags_fail() {
        let o = parse_args(&args(&["-i", "-S", "x"])).expect("valid");
        assert_eq!(o.case, Case::Smart);
        assert!(parse_args(&args(&["--bogus"])).is_err());
        assert!(parse_args(&args(&["-Y"])).is_err());
        assert!(parse_args(&args(&["--pcre2", "x"])).is_err());
        let o = parse_args(&args(&["--max-count=3", "--", "-v"])).expect("valid");
        assert_eq!(o.max_count, Some(3));
        assert_eq!(o.operands, args(&["-v"]));
    }

    #[test]
    fn separators_sizes_and_unicode_as_ripgrep_reads_them() {
        assert_eq!(unescape(r"a\tb\x41\\\n"), b"a\tbA\\\n");
        assert_eq!(unescape(r"\0\q\x4\x41\"), br"\0\q\x4\x41\");
        assert_eq!(unescape(r"\xZZ\x"), br"\xZZ\x");
        assert_eq!(human_size("n", "10"), Ok(10));
        assert_eq!(human_size("n", "2K"), Ok(2048));
        assert_eq!(human_size("n", "1M"), Ok(1 << 20));
        assert!(human_size("n", "1Q").is_err() && human_size("n", "K").is_err());
        assert!(needs_unicode("Δ") && needs_unicode(r"\x{e9}") && needs_unicode(r"(?u)\w"));
        assert!(!needs_unicode(r"\w+") && !needs_unicode(r"\x{41}") && !needs_unicode(r"\xFF"));
        let o = parse_args(&args(&["--path-separator", "Z", "--context-separator", r"\t", "-M5", "x"])).expect("valid");
        assert_eq!((o.path_separator, o.context_separator, o.max_columns), (Some(b'Z'), Some(b"\t".to_vec()), Some(5)));
        assert!(parse_args(&args(&["--path-separator", "ZZ", "x"])).is_err());
        let o = parse_args(&args(&["--context-separator", "X", "--no-context-separator", "-M0", "x"])).expect("valid");
        assert!(o.no_context_separator && o.max_columns.is_none());
        assert!(parse_args(&args(&["--engine", "pcre2", "x"])).is_err());
        assert!(parse_args(&args(&["--pcre2-version"])).is_err());
    }

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
