//! The one option parser of the programs: getopt_long's rules, driven by a [`Spec`].
//!
//! A [`Parser`] reads the arguments one item at a time, options and operands in command
//! line order, so a program can give an operand a meaning that depends on the options
//! before it (jq's `--args`). It understands short option clusters (`-inr`), short
//! options with an attached or a separate argument (`-A3`, `-A 3`), long options with
//! `=VALUE` or a separate argument, unique prefixes of long options (where the
//! [`Spec`] allows them), `--` ending the options, and both orders: GNU's permutation
//! (options after operands) and POSIX's stop at the first operand.
//!
//! What it deliberately does not do: apply the options, or word its errors for every
//! tool. An [`Error`] says what went wrong and where; its `Display` is GNU getopt's
//! wording as coreutils prints it, and tools with other words (grep, rg, jq) build
//! theirs from the [`ErrorKind`]. Options that take more than one argument (jq's
//! `--arg NAME VALUE`) are declared without one, and the program takes their
//! arguments with [`Parser::values`].

use std::fmt;

/// Whether an option takes an argument (getopt_long's `has_arg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HasArg {
    No,
    /// Attached (`-A3`, `--after=3`) or the next argument (`-A 3`, `--after 3`).
    Required,
    /// Only attached to a long option (`--color=always`); `--color x` leaves `x` an
    /// operand.
    Optional,
}

/// What an option is reported as: its short letter, or the name of a long option that
/// has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name {
    Short(char),
    Long(&'static str),
}

/// One long option a tool accepts.
#[derive(Debug, Clone, Copy)]
pub struct Long {
    /// The name without `--`.
    pub name: &'static str,
    pub has_arg: HasArg,
    /// What the parser reports when it is given.
    pub reports: Name,
}

impl Long {
    /// `--name` without a short form, reported as [`Name::Long`]`(name)`.
    pub const fn new(name: &'static str, has_arg: HasArg) -> Long {
        Long { name, has_arg, reports: Name::Long(name) }
    }

    /// `--name`, the long form of `-short` (or of a private code no short option
    /// uses, as GNU tools do for long-only options), reported as [`Name::Short`].
    pub const fn short(name: &'static str, short: char, has_arg: HasArg) -> Long {
        Long { name, has_arg, reports: Name::Short(short) }
    }

    /// `--name`, another spelling of the long option `of` (`--colour` for `--color`).
    pub const fn alias(name: &'static str, of: &'static str, has_arg: HasArg) -> Long {
        Long { name, has_arg, reports: Name::Long(of) }
    }
}

/// Where options may stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// GNU: options anywhere; operands are reported where they stand.
    Permute,
    /// POSIX (`POSIXLY_CORRECT`, getopt's `+`): the first operand ends the options.
    StopAtOperand,
}

/// The options a tool accepts and the rules it reads them by.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// getopt's option string: each short option letter, followed by `:` when it takes
    /// an argument (`"A:B:cn"`).
    pub short: &'static str,
    pub long: &'static [Long],
    pub order: Order,
    /// Whether a long option may be shortened to a prefix that names one option (GNU:
    /// yes; ripgrep and jq: no).
    pub abbreviations: bool,
    /// Whether `-A=2` means `-A 2`, as in ripgrep; GNU takes `=2` as the argument.
    pub short_equals: bool,
}

impl Spec {
    /// GNU getopt_long's rules: permutation and long-option abbreviations.
    pub const fn gnu(short: &'static str, long: &'static [Long]) -> Spec {
        Spec { short, long, order: Order::Permute, abbreviations: true, short_equals: false }
    }

    /// Whether the short option `c` exists, and whether it takes an argument.
    fn short_option(&self, c: char) -> Option<HasArg> {
        let mut chars = self.short.chars().peekable();
        while let Some(x) = chars.next() {
            let takes = chars.peek() == Some(&':');
            if takes {
                chars.next();
            }
            if x == c && x != ':' {
                return Some(if takes { HasArg::Required } else { HasArg::No });
            }
        }
        None
    }

    /// The first long option reported as `name` (`--ignore-case` for `-i`), for messages
    /// that name an option by its long form.
    pub fn long_name(&self, name: Name) -> Option<&'static str> {
        match name {
            Name::Long(n) => Some(n),
            Name::Short(_) => self.long.iter().find(|l| l.reports == name).map(|l| l.name),
        }
    }

    /// The long option `name` stands for: an exact name, or (glibc's `getopt_long`) the
    /// first option it is a prefix of, unless another such option is a different option
    /// (another argument requirement or another meaning). The ambiguous set is, as
    /// glibc lists it, that first option and every later one that differs from it, in
    /// the order of [`Spec::long`].
    fn resolve_long(&self, name: &str) -> Result<&'static Long, ErrorKind> {
        if let Some(l) = self.long.iter().find(|l| l.name == name) {
            return Ok(l);
        }
        if !self.abbreviations {
            return Err(ErrorKind::UnknownLong(name.to_string()));
        }
        let mut prefixed = self.long.iter().filter(|l| l.name.starts_with(name));
        let Some(first) = prefixed.next() else { return Err(ErrorKind::UnknownLong(name.to_string())) };
        let others: Vec<&'static str> =
            prefixed.filter(|l| l.reports != first.reports || l.has_arg != first.has_arg).map(|l| l.name).collect();
        if others.is_empty() {
            return Ok(first);
        }
        let candidates = std::iter::once(first.name).chain(others).collect();
        Err(ErrorKind::Ambiguous { name: name.to_string(), candidates })
    }
}

/// One thing read from the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// An option and its argument, if it takes one and was given one.
    Opt(Name, Option<String>),
    Operand(String),
}

/// A command line the [`Spec`] does not accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The argument as written (`-nx`, `--foo=bar`).
    pub arg: String,
    pub kind: ErrorKind,
}

/// What is wrong with [`Error::arg`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// A short option letter the tool does not have.
    UnknownShort(char),
    /// A short option that takes an argument came last.
    ShortNeedsValue(char),
    /// A long option name (what stands before any `=`) the tool does not have.
    UnknownLong(String),
    /// A prefix of several long options: the candidates glibc lists.
    Ambiguous { name: String, candidates: Vec<&'static str> },
    /// A long option (its full name) that takes an argument came last.
    LongNeedsValue(&'static str),
    /// A long option (its full name) without an argument was given `=VALUE`.
    LongTakesNoValue(&'static str),
}

/// GNU getopt_long's words, as coreutils prints them after `tool: `.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::UnknownShort(c) => write!(f, "invalid option -- '{c}'"),
            ErrorKind::ShortNeedsValue(c) => write!(f, "option requires an argument -- '{c}'"),
            ErrorKind::UnknownLong(_) => write!(f, "unrecognized option '{}'", self.arg),
            ErrorKind::Ambiguous { candidates, .. } => {
                write!(f, "option '{}' is ambiguous; possibilities:", self.arg)?;
                candidates.iter().try_for_each(|c| write!(f, " '--{c}'"))
            }
            ErrorKind::LongNeedsValue(name) => write!(f, "option '--{name}' requires an argument"),
            ErrorKind::LongTakesNoValue(name) => write!(f, "option '--{name}' doesn't allow an argument"),
        }
    }
}

impl std::error::Error for Error {}

/// Reads a command line by a [`Spec`]; an [`Iterator`] of items in command-line order.
/// After an error, the rest of the command line is not meaningful.
pub struct Parser<'a> {
    spec: &'a Spec,
    args: &'a [String],
    /// The next argument to read.
    next: usize,
    /// The short-option cluster being read: its argument and the byte offset of the
    /// next letter.
    cluster: Option<(usize, usize)>,
    /// `--` was read, or (with [`Order::StopAtOperand`]) an operand.
    operands_only: bool,
    /// The argument of the last item.
    current: usize,
}

impl<'a> Parser<'a> {
    pub fn new(spec: &'a Spec, args: &'a [String]) -> Parser<'a> {
        Parser { spec, args, next: 0, cluster: None, operands_only: false, current: 0 }
    }

    /// The index in `args` of the argument the last item came from (getopt's `optind`,
    /// without the program name): equal for letters of one cluster (grep's `-12`).
    pub fn index(&self) -> usize {
        self.current
    }

    /// The next `n` arguments, taken as they are (options too), for an option that
    /// takes several (jq's `--arg NAME VALUE`); `None`, taking nothing, when fewer than
    /// `n` remain. A cluster being read goes on after them, as in jq (`-fr FILE`).
    pub fn values(&mut self, n: usize) -> Option<&'a [String]> {
        let taken = self.args.get(self.next..self.next + n)?;
        self.next += n;
        Some(taken)
    }

    /// The next argument as an option's value, if there is one.
    fn separate_value(&mut self) -> Option<String> {
        let v = self.args.get(self.next)?.clone();
        self.next += 1;
        Some(v)
    }

    /// The next letter of the cluster in `args[at]` at byte offset `pos`.
    fn short(&mut self, at: usize, pos: usize) -> Result<Item, Error> {
        let arg = &self.args[at];
        let c = arg[pos..].chars().next().unwrap_or_default();
        let after = pos + c.len_utf8();
        self.cluster = (after < arg.len()).then_some((at, after));
        let error = |kind| Error { arg: arg.clone(), kind };
        match self.spec.short_option(c) {
            None => Err(error(ErrorKind::UnknownShort(c))),
            Some(HasArg::Required) if after < arg.len() => {
                self.cluster = None;
                let rest = &arg[after..];
                let rest = if self.spec.short_equals { rest.strip_prefix('=').unwrap_or(rest) } else { rest };
                Ok(Item::Opt(Name::Short(c), Some(rest.to_string())))
            }
            Some(HasArg::Required) => match self.separate_value() {
                Some(v) => Ok(Item::Opt(Name::Short(c), Some(v))),
                None => Err(error(ErrorKind::ShortNeedsValue(c))),
            },
            Some(HasArg::No | HasArg::Optional) => Ok(Item::Opt(Name::Short(c), None)),
        }
    }

    /// The long option `args[at]`, `--` and all.
    fn long(&mut self, at: usize) -> Result<Item, Error> {
        let arg = &self.args[at];
        let error = |kind| Error { arg: arg.clone(), kind };
        let (name, inline) = match arg[2..].split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (&arg[2..], None),
        };
        let long = self.spec.resolve_long(name).map_err(error)?;
        let value = match (long.has_arg, inline) {
            (HasArg::No, Some(_)) => return Err(error(ErrorKind::LongTakesNoValue(long.name))),
            (HasArg::No, None) => None,
            (HasArg::Optional, v) => v,
            (HasArg::Required, Some(v)) => Some(v),
            (HasArg::Required, None) => match self.separate_value() {
                Some(v) => Some(v),
                None => return Err(error(ErrorKind::LongNeedsValue(long.name))),
            },
        };
        Ok(Item::Opt(long.reports, value))
    }
}

impl Iterator for Parser<'_> {
    type Item = Result<Item, Error>;

    fn next(&mut self) -> Option<Result<Item, Error>> {
        if let Some((at, pos)) = self.cluster {
            self.current = at;
            return Some(self.short(at, pos));
        }
        let at = self.next;
        let arg = self.args.get(at)?;
        self.next += 1;
        self.current = at;
        if self.operands_only || arg.len() < 2 || !arg.starts_with('-') {
            self.operands_only |= self.spec.order == Order::StopAtOperand;
            return Some(Ok(Item::Operand(arg.clone())));
        }
        if arg == "--" {
            self.operands_only = true;
            return self.next();
        }
        if arg.starts_with("--") {
            return Some(self.long(at));
        }
        Some(self.short(at, 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG: &[Long] = &[
        Long::short("after-context", 'A', HasArg::Required),
        Long::short("count", 'c', HasArg::No),
        Long::new("color", HasArg::Optional),
        Long::alias("colour", "color", HasArg::Optional),
        Long::new("context", HasArg::Required),
        Long::short("quiet", 'q', HasArg::No),
        Long::short("silent", 'q', HasArg::No),
    ];
    const GNU: Spec = Spec::gnu("A:cinrq", LONG);

    fn parse(spec: &Spec, args: &[&str]) -> Result<Vec<Item>, Error> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        Parser::new(spec, &args).collect()
    }

    fn opt(c: char, v: Option<&str>) -> Item {
        Item::Opt(Name::Short(c), v.map(str::to_string))
    }

    fn operand(s: &str) -> Item {
        Item::Operand(s.to_string())
    }

    fn kind(spec: &Spec, args: &[&str]) -> ErrorKind {
        parse(spec, args).expect_err("an error").kind
    }

    #[test]
    fn clusters_and_attached_or_separate_arguments() {
        let items = parse(&GNU, &["-inr", "-A3", "-A", "4", "-cA5", "-A", "-x"]).expect("valid");
        let want = [
            opt('i', None),
            opt('n', None),
            opt('r', None),
            opt('A', Some("3")),
            opt('A', Some("4")),
            opt('c', None),
            opt('A', Some("5")),
            opt('A', Some("-x")),
        ];
        assert_eq!(items, want);
        // `=` is part of the argument unless the spec says otherwise.
        assert_eq!(parse(&GNU, &["-A=2"]).expect("valid"), [opt('A', Some("=2"))]);
        let rg = Spec { short_equals: true, ..GNU };
        assert_eq!(parse(&rg, &["-A=2", "-A", "=3"]).expect("valid"), [opt('A', Some("2")), opt('A', Some("=3"))]);
    }

    #[test]
    fn long_options_with_equals_or_separate_argument() {
        let items = parse(&GNU, &["--after-context=1", "--after-context", "2", "--count", "--context", "--x"]);
        let want = [
            opt('A', Some("1")),
            opt('A', Some("2")),
            opt('c', None),
            Item::Opt(Name::Long("context"), Some("--x".into())),
        ];
        assert_eq!(items.expect("valid"), want);
        // An optional argument is only ever attached.
        let items = parse(&GNU, &["--color", "x", "--color=always", "--colour="]).expect("valid");
        let want = [
            Item::Opt(Name::Long("color"), None),
            operand("x"),
            Item::Opt(Name::Long("color"), Some("always".into())),
            Item::Opt(Name::Long("color"), Some(String::new())),
        ];
        assert_eq!(items, want);
    }

    #[test]
    fn abbreviations_resolve_to_one_option_or_are_ambiguous() {
        assert_eq!(parse(&GNU, &["--af=1", "--cou"]).expect("valid"), [opt('A', Some("1")), opt('c', None)]);
        // Two spellings of one option are not ambiguous.
        assert_eq!(parse(&GNU, &["--colo"]).expect("valid"), [Item::Opt(Name::Long("color"), None)]);
        let e = parse(&GNU, &["--co=1"]).expect_err("ambiguous");
        // glibc lists the first candidate and those that differ from it: `--colour`
        // differs from `--count`, though not from `--color`.
        assert_eq!(
            e.kind,
            ErrorKind::Ambiguous { name: "co".into(), candidates: vec!["count", "color", "colour", "context"] }
        );
        assert_eq!(
            e.to_string(),
            "option '--co=1' is ambiguous; possibilities: '--count' '--color' '--colour' '--context'"
        );
        // Spellings of one option are one option; a later candidate that is the same
        // option as the first is not listed.
        let e = parse(&GNU, &["--col"]).expect("one option");
        assert_eq!(e, [Item::Opt(Name::Long("color"), None)]);
        const ORDERED: &[Long] = &[
            Long::new("color", HasArg::Optional),
            Long::short("count", 'c', HasArg::No),
            Long::alias("colour", "color", HasArg::Optional),
        ];
        let e = parse(&Spec::gnu("c", ORDERED), &["--co"]).expect_err("ambiguous");
        assert_eq!(e.to_string(), "option '--co' is ambiguous; possibilities: '--color' '--count'");
        let exact = Spec { abbreviations: false, ..GNU };
        assert_eq!(kind(&exact, &["--cou"]), ErrorKind::UnknownLong("cou".into()));
    }

    #[test]
    fn double_dash_ends_options() {
        let items = parse(&GNU, &["-c", "--", "-n", "--", "--count"]).expect("valid");
        assert_eq!(items, [opt('c', None), operand("-n"), operand("--"), operand("--count")]);
        // `-` alone is an operand.
        assert_eq!(parse(&GNU, &["-", "-c"]).expect("valid"), [operand("-"), opt('c', None)]);
    }

    #[test]
    fn permutation_or_stop_at_first_operand() {
        let args = ["-c", "pat", "-n", "file", "--count"];
        let permuted = parse(&GNU, &args).expect("valid");
        assert_eq!(permuted, [opt('c', None), operand("pat"), opt('n', None), operand("file"), opt('c', None)]);
        let posix = Spec { order: Order::StopAtOperand, ..GNU };
        let stopped = parse(&posix, &args).expect("valid");
        assert_eq!(stopped, [opt('c', None), operand("pat"), operand("-n"), operand("file"), operand("--count")]);
    }

    #[test]
    fn missing_arguments() {
        let e = parse(&GNU, &["-c", "-nA"]).expect_err("missing");
        assert_eq!((e.arg.as_str(), &e.kind), ("-nA", &ErrorKind::ShortNeedsValue('A')));
        assert_eq!(e.to_string(), "option requires an argument -- 'A'");
        let e = parse(&GNU, &["--after"]).expect_err("missing");
        assert_eq!(e.kind, ErrorKind::LongNeedsValue("after-context"));
        assert_eq!(e.to_string(), "option '--after-context' requires an argument");
    }

    #[test]
    fn unknown_options_and_unwanted_arguments() {
        let e = parse(&GNU, &["-nxc"]).expect_err("unknown");
        assert_eq!((e.arg.as_str(), &e.kind), ("-nxc", &ErrorKind::UnknownShort('x')));
        assert_eq!(e.to_string(), "invalid option -- 'x'");
        assert_eq!(kind(&GNU, &["-Ä"]), ErrorKind::UnknownShort('Ä'));
        assert_eq!(kind(&GNU, &["-:"]), ErrorKind::UnknownShort(':'));
        let e = parse(&GNU, &["--foo=bar"]).expect_err("unknown");
        assert_eq!(e.kind, ErrorKind::UnknownLong("foo".into()));
        assert_eq!(e.to_string(), "unrecognized option '--foo=bar'");
        let e = parse(&GNU, &["--quiet=1"]).expect_err("no argument");
        assert_eq!(e.to_string(), "option '--quiet' doesn't allow an argument");
    }

    #[test]
    fn values_and_index() {
        let spec = Spec::gnu("fr", &[]);
        let args: Vec<String> = ["-fr", "FILE", "-r", "a", "b"].iter().map(|s| s.to_string()).collect();
        let mut p = Parser::new(&spec, &args);
        assert_eq!(p.next(), Some(Ok(opt('f', None))));
        assert_eq!(p.values(1), Some(&args[1..2]));
        assert_eq!((p.next(), p.index()), (Some(Ok(opt('r', None))), 0));
        assert_eq!((p.next(), p.index()), (Some(Ok(opt('r', None))), 2));
        assert_eq!(p.values(3), None);
        assert_eq!(p.values(2), Some(&args[3..5]));
        assert_eq!(p.next(), None);
        assert_eq!(GNU.long_name(Name::Short('q')), Some("quiet"));
    }
}
