//! grep's command line as GNU grep 3.8 reads it: getopt_long with argument permutation,
//! glibc's long-option abbreviations and ambiguity message, and `-NUM` context digits.
//! Kept apart from the search because every option is read before any input is opened.

use reviewhost_tool::getopt::{self, HasArg, Item, Long, Name, Parser, Spec};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grep::tests::args;

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
    fn numeric_context_option() {
        let o = parse_args(&args(&["-12", "p"]), PatternSyntax::Basic).expect("valid");
        assert_eq!(o.context, Some(12));
    }
}
