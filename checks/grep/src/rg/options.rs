//! rg's command line as ripgrep 13 reads it: flags anywhere, clustered short flags with
//! attached values, no abbreviations, the last of opposite flags winning, and refusals
//! naming what the sandbox leaves out. Kept apart because every flag is read first.

use super::values::{human_size, number, unescape};
use reviewhost_tool::getopt::{self, ErrorKind, HasArg, Item, Long, Order, Parser, Spec};

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
    fn separator_and_column_flags_as_ripgrep_reads_them() {
        let o = parse_args(&args(&["--path-separator", "Z", "--context-separator", r"\t", "-M5", "x"])).expect("valid");
        assert_eq!((o.path_separator, o.context_separator, o.max_columns), (Some(b'Z'), Some(b"\t".to_vec()), Some(5)));
        assert!(parse_args(&args(&["--path-separator", "ZZ", "x"])).is_err());
        let o = parse_args(&args(&["--context-separator", "X", "--no-context-separator", "-M0", "x"])).expect("valid");
        assert!(o.no_context_separator && o.max_columns.is_none());
        assert!(parse_args(&args(&["--engine", "pcre2", "x"])).is_err());
        assert!(parse_args(&args(&["--pcre2-version"])).is_err());
    }
}
