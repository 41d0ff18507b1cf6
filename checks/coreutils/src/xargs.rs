//! `xargs`'s reading of its options and input, as GNU findutils 4.9's xargs, as a
//! [`Plan`]: the command lines to run, in order, and what happens after them. Running
//! them is the shell's business (a command may be a builtin, a function or `bash -c`),
//! so the interpreter asks [`plan`] for the command lines and runs each with [`run`].
//!
//! Implemented: `-0`/`--null`, `-d`/`--delimiter` (one character or an escape: `\n`,
//! `\t`, `\\`, `\0NNN` octal, `\xHH`), `-a`/`--arg-file`, `-E`/`-e`/`--eof`, `-I`/`-i`/
//! `--replace`, `-L`/`-l`/`--max-lines`, `-n`/`--max-args`, `-s`/`--max-chars` (default
//! 131072 bytes, counting each argument with its terminating NUL, as GNU sizes its
//! buffer), `-x`/`--exit`, `-r`/`--no-run-if-empty`, `-t`/`--verbose`, and GNU's input
//! rules: blanks and newlines separate items, quotes and backslashes quote, a line
//! ending in a blank continues on the next for `-L`, a blank line is no item, an empty
//! `''` is one, the EOF string ends the input, an unmatched quote ends it with an error
//! after the command lines before it ran (unless `-x`, `-L` or `-I` is in force), GNU's
//! option conflicts (`-n`, `-L` and `-I` exclude each other; the last wins).
//!
//! `-P N`/`--max-procs` runs the command lines one after the other. With `-P` above 1
//! GNU xargs runs them at once and their output interleaves in an order that changes
//! from run to run; one after the other is one of those orders, and the one `-P 1`
//! gives. `--process-slot-var=NAME` sets NAME in each command's environment to its slot
//! number, which is always 0 when one command runs at a time.
//!
//! Refused by name ("… is not supported in the sandbox"): `-p`/`--interactive` and
//! `-o`/`--open-tty` (they read the terminal), `--show-limits` (it reports the host's
//! environment), `--help` and `--version`.

use reviewhost_tool::Ctx;

use crate::common::{ReadError, read_operand};

/// GNU xargs' default command-line buffer (`--show-limits`' "Size of command buffer we
/// are actually using").
const DEFAULT_MAX_CHARS: usize = 128 * 1024;

/// The command lines of one xargs run and what comes after them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Each command line: the command and its arguments.
    pub calls: Vec<Vec<String>>,
    /// `-t`: each command line is printed to stderr before it runs ([`trace_line`]).
    pub trace: bool,
    /// `--process-slot-var`: the variable each command sees set to `0`.
    pub slot_var: Option<String>,
    /// `-a FILE`: the commands read xargs' own stdin (otherwise theirs is empty).
    pub keep_stdin: bool,
    /// Warnings GNU prints before it runs anything (with their `xargs: ` prefix).
    pub warnings: String,
    /// An error GNU reaches after running [`Plan::calls`] (an unmatched quote, an item
    /// too long): its message without the `xargs: ` prefix; xargs then exits 1.
    pub failure: Option<String>,
}

/// An error before any command runs: what xargs prints on stderr, and its exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    pub status: i32,
}

impl Refusal {
    fn new(message: impl Into<String>) -> Refusal {
        Refusal { message: format!("xargs: {}\n", message.into()), status: 1 }
    }

    fn usage(message: impl Into<String>) -> Refusal {
        Refusal { message: format!("xargs: {}\nTry 'xargs --help' for more information.\n", message.into()), status: 1 }
    }
}

/// The options, as GNU's option loop leaves them.
struct Opts {
    delimiter: Option<u8>,
    eof: Option<String>,
    replace: Option<String>,
    max_lines: usize,
    max_args: usize,
    max_chars: usize,
    exit_if_too_long: bool,
    run_if_empty: bool,
    trace: bool,
    slot_var: Option<String>,
    arg_file: Option<String>,
    warnings: String,
}

/// The long options: name, short letter (or a private code), whether the argument is
/// required (`Some(true)`), optional and attached (`Some(false)`) or absent.
const LONG: &[(&str, char, Option<bool>)] = &[
    ("null", '0', None),
    ("arg-file", 'a', Some(true)),
    ("delimiter", 'd', Some(true)),
    ("eof", 'e', Some(false)),
    ("replace", 'i', Some(false)),
    ("max-lines", 'l', Some(false)),
    ("max-args", 'n', Some(true)),
    ("open-tty", 'o', None),
    ("interactive", 'p', None),
    ("no-run-if-empty", 'r', None),
    ("max-chars", 's', Some(true)),
    ("verbose", 't', None),
    ("show-limits", 'S', None),
    ("exit", 'x', None),
    ("max-procs", 'P', Some(true)),
    ("process-slot-var", 'V', Some(true)),
    ("version", 'v', None),
    ("help", 'h', None),
];

/// GNU's short options (`+0a:E:e::i::I:l::L:n:oprs:txP:d:`): letter and argument kind.
fn short_kind(c: char) -> Option<Option<bool>> {
    match c {
        '0' | 'o' | 'p' | 'r' | 't' | 'x' => Some(None),
        'a' | 'E' | 'I' | 'L' | 'n' | 's' | 'P' | 'd' => Some(Some(true)),
        'e' | 'i' | 'l' => Some(Some(false)),
        _ => None,
    }
}

/// Reads the options (getopt_long with `+`: the first operand ends them); returns them
/// and the index of the command.
fn parse_opts(args: &[String]) -> Result<(Opts, usize), Refusal> {
    let mut o = Opts {
        delimiter: None,
        eof: None,
        replace: None,
        max_lines: 0,
        max_args: 0,
        max_chars: DEFAULT_MAX_CHARS,
        exit_if_too_long: false,
        run_if_empty: true,
        trace: false,
        slot_var: None,
        arg_file: None,
        warnings: String::new(),
    };
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let matches: Vec<_> = match LONG.iter().find(|l| l.0 == name) {
                Some(l) => vec![l],
                None => LONG.iter().filter(|l| l.0.starts_with(name)).collect(),
            };
            let &&(full, code, kind) = match matches.as_slice() {
                [one] => one,
                [] => return Err(Refusal::usage(format!("unrecognized option '--{name}'"))),
                _ => return Err(Refusal::usage(format!("option '--{name}' is ambiguous"))),
            };
            let value = match (kind, attached) {
                (None, Some(_)) => return Err(Refusal::usage(format!("option '--{full}' doesn't allow an argument"))),
                (None, None) => None,
                (Some(false), v) => v,
                (Some(true), Some(v)) => Some(v),
                (Some(true), None) => match args.get(i) {
                    Some(v) => {
                        i += 1;
                        Some(v.clone())
                    }
                    None => return Err(Refusal::usage(format!("option '--{full}' requires an argument"))),
                },
            };
            apply(&mut o, code, value, &format!("--{full}"))?;
            continue;
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
            i -= 1;
            break;
        };
        for (at, c) in cluster.char_indices() {
            let rest = &cluster[at + c.len_utf8()..];
            match short_kind(c) {
                None => return Err(Refusal::usage(format!("invalid option -- '{c}'"))),
                Some(None) => apply(&mut o, c, None, &format!("-{c}"))?,
                Some(Some(false)) => {
                    apply(&mut o, c, (!rest.is_empty()).then(|| rest.to_string()), &format!("-{c}"))?;
                    break;
                }
                Some(Some(true)) => {
                    let value = if !rest.is_empty() {
                        rest.to_string()
                    } else if let Some(v) = args.get(i) {
                        i += 1;
                        v.clone()
                    } else {
                        return Err(Refusal::usage(format!("option requires an argument -- '{c}'")));
                    };
                    apply(&mut o, c, Some(value), &format!("-{c}"))?;
                    break;
                }
            }
        }
    }
    if o.eof.is_some() && o.delimiter.is_some() {
        o.warnings.push_str("xargs: warning: the -E option has no effect if -0 or -d is used.\n\n");
    }
    if o.replace.is_some() || o.max_lines > 0 {
        o.exit_if_too_long = true;
    }
    Ok((o, i))
}

/// GNU's `parse_num`: a C integer (leading blanks, a sign) of at least `min`.
fn number(value: &str, letter: char, min: i64) -> Result<usize, Refusal> {
    let trimmed = value.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let digits = trimmed.strip_prefix('+').unwrap_or(trimmed);
    let n: i64 = match digits.parse::<i64>() {
        Ok(n) if !digits.starts_with('+') && !digits.is_empty() => n,
        _ => return Err(Refusal::usage(format!("invalid number \"{value}\" for -{letter} option"))),
    };
    if n < min {
        return Err(Refusal::usage(format!("value {value} for -{letter} option should be >= {min}")));
    }
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

fn mutually_exclusive(o: &mut Opts, option: &str, previous: &str) {
    o.warnings.push_str(&format!(
        "xargs: warning: options {previous} and {option} are mutually exclusive, ignoring previous {previous} value\n"
    ));
}

/// One option, as GNU's option loop applies it.
fn apply(o: &mut Opts, code: char, value: Option<String>, spelled: &str) -> Result<(), Refusal> {
    let refused = |what: &str| Err(Refusal::new(format!("{what} is not supported in the sandbox")));
    match code {
        '0' => o.delimiter = Some(0),
        'd' => o.delimiter = Some(delimiter(value.as_deref().unwrap_or(""))?),
        'E' | 'e' => o.eof = value.filter(|v| !v.is_empty()),
        'I' | 'i' => {
            o.replace = Some(value.unwrap_or_else(|| "{}".to_string()));
            if o.max_args != 0 {
                mutually_exclusive(o, "--replace/-I/-i", "--max-args");
                o.max_args = 0;
            }
            if o.max_lines != 0 {
                mutually_exclusive(o, "--replace/-I/-i", "--max-lines");
                o.max_lines = 0;
            }
        }
        'L' | 'l' => {
            o.max_lines = match value {
                Some(v) => number(&v, code, 1)?,
                None => 1,
            };
            let name = if code == 'L' { "-L" } else { "--max-lines/-l" };
            if o.max_args != 0 {
                mutually_exclusive(o, name, "--max-args");
                o.max_args = 0;
            }
            if o.replace.is_some() {
                mutually_exclusive(o, name, "--replace");
                o.replace = None;
            }
        }
        'n' => {
            o.max_args = number(value.as_deref().unwrap_or(""), 'n', 1)?;
            if o.max_lines != 0 {
                mutually_exclusive(o, "--max-args/-n", "--max-lines");
                o.max_lines = 0;
            }
            if o.replace.is_some() {
                if o.max_args == 1 {
                    // GNU ignores `-n1` with `-I`.
                    o.max_args = 0;
                } else {
                    mutually_exclusive(o, "--max-args/-n", "--replace");
                    o.replace = None;
                }
            }
        }
        's' => o.max_chars = number(value.as_deref().unwrap_or(""), 's', 1)?,
        'x' => o.exit_if_too_long = true,
        'r' => o.run_if_empty = false,
        't' => o.trace = true,
        'P' => {
            number(value.as_deref().unwrap_or(""), 'P', 0)?;
        }
        'V' => {
            let name = value.unwrap_or_default();
            if name.contains('=') {
                return Err(Refusal::new("option --process-slot-var may not be set to a value which includes `='"));
            }
            o.slot_var = Some(name);
        }
        'a' => o.arg_file = value,
        'p' => return refused(&format!("{spelled} (asking on the terminal)")),
        'o' => return refused(&format!("{spelled} (reopening the terminal)")),
        'S' => return refused(spelled),
        'v' | 'h' => return refused(spelled),
        _ => unreachable!("every option code is handled"),
    }
    Ok(())
}

/// `-d`'s argument: one byte, or one of GNU's escapes.
fn delimiter(spec: &str) -> Result<u8, Refusal> {
    let bytes = spec.as_bytes();
    if bytes.len() == 1 {
        return Ok(bytes[0]);
    }
    let Some(escape) = spec.strip_prefix('\\') else {
        return Err(Refusal::new(format!(
            "Invalid input delimiter specification {spec}: the delimiter must be either a single character or an escape sequence starting with \\."
        )));
    };
    let invalid =
        |why: &str| Refusal::new(format!("invalid escape sequence {spec} in input delimiter specification{why}"));
    // GNU looks at the character after the backslash only, as C's escapes do.
    let simple = match escape.as_bytes().first() {
        Some(b'a') => Some(7),
        Some(b'b') => Some(8),
        Some(b'f') => Some(12),
        Some(b'n') => Some(b'\n'),
        Some(b'r') => Some(b'\r'),
        Some(b't') => Some(b'\t'),
        Some(b'v') => Some(11),
        Some(b'\\') => Some(b'\\'),
        _ => None,
    };
    if let Some(b) = simple {
        return Ok(b);
    }
    // `\xHH` and `\NNN` as strtoul reads them: the longest prefix of digits (none is 0).
    let (digits, radix, max) = match escape.strip_prefix('x') {
        Some(hex) => (hex, 16, "ff"),
        None if escape.starts_with(|c: char| c.is_ascii_digit()) => (escape, 8, "377"),
        None => return Err(invalid(".")),
    };
    let end = digits.find(|c: char| !c.is_digit(radix)).unwrap_or(digits.len());
    let value = if end == 0 { 0 } else { u64::from_str_radix(&digits[..end], radix).unwrap_or(u64::MAX) };
    if value > 255 {
        return Err(invalid(&format!("; character values must not exceed {max}.")));
    }
    if end < digits.len() {
        return Err(invalid(&format!("; trailing characters {} not recognised.", &digits[end..])));
    }
    Ok(value as u8)
}

/// `xargs [OPTIONS] [COMMAND [ARGS]]` with `stdin` as its input: the command lines it
/// would run, or the error it stops with before running any.
pub fn plan(args: &[String], ctx: &Ctx, stdin: &[u8]) -> Result<Plan, Refusal> {
    let (o, at) = parse_opts(args)?;
    let command: Vec<String> = match args.get(at..) {
        Some(rest) if !rest.is_empty() => rest.to_vec(),
        _ => vec!["echo".to_string()],
    };
    let file_data;
    let input: &[u8] = match &o.arg_file {
        Some(name) if name != "-" => {
            // GNU opens the file by name, `-` meaning stdin; any error is fatal.
            let io = reviewhost_tool::Io {
                stdin: b"",
                stdout: &mut Vec::new(),
                stderr: &mut Vec::new(),
                stdout_limit: reviewhost_tool::NO_LIMIT,
                unnamed_file: None,
            };
            file_data = read_operand(name, ctx, &io).map_err(|e| {
                let why = match e {
                    ReadError::IsDir => "Is a directory".to_string(),
                    ReadError::Other(m) => m,
                };
                Refusal::new(format!("Cannot open input file ‘{name}’: {why}"))
            })?;
            &file_data
        }
        _ => stdin,
    };
    let mut builder = Builder {
        calls: Vec::new(),
        current: Vec::new(),
        initial: command.clone(),
        initial_chars: command.iter().map(|a| a.len() + 1).sum(),
        chars: 0,
        o: &o,
    };
    builder.chars = builder.initial_chars;
    if builder.initial_chars > o.max_chars {
        return Err(Refusal::new("cannot fit single argument within argument list size limit"));
    }
    let failure = match &o.replace {
        Some(pattern) => builder.replacing(input, pattern),
        None => builder.appending(input),
    };
    Ok(Plan {
        calls: builder.calls,
        trace: o.trace,
        slot_var: o.slot_var.clone(),
        keep_stdin: o.arg_file.as_deref().is_some_and(|n| n != "-"),
        warnings: o.warnings.clone(),
        failure,
    })
}

/// What a command line's run ends xargs with.
const EXIT_SOME_FAILED: i32 = 123;
const EXIT_ABORTED: i32 = 124;

/// Runs the plan's command lines with `run` (which returns each one's exit status),
/// printing `-t`'s trace and GNU's messages to `err`; returns xargs' exit status: 123 if
/// a command exited 1-125, 124 (and no more commands) for 255, 126 or 127 when a command
/// could not be run or found, 1 for a [`Plan::failure`] (123 if a command failed
/// before it).
pub fn run(plan: &Plan, err: &mut Vec<u8>, mut run: impl FnMut(&[String], &mut Vec<u8>) -> i32) -> i32 {
    err.extend_from_slice(plan.warnings.as_bytes());
    let mut status = 0;
    for call in &plan.calls {
        if plan.trace {
            err.extend_from_slice(trace_line(call).as_bytes());
        }
        match run(call, err) {
            0 => {}
            code @ (126 | 127) => return code,
            255 => {
                err.extend_from_slice(format!("xargs: {}: exited with status 255; aborting\n", call[0]).as_bytes());
                return EXIT_ABORTED;
            }
            _ => status = EXIT_SOME_FAILED,
        }
    }
    if let Some(message) = &plan.failure {
        err.extend_from_slice(format!("xargs: {message}\n").as_bytes());
        // GNU exits 1 through exit(), whose handler exits with the commands' status
        // instead when one failed.
        return if status == 0 { 1 } else { status };
    }
    status
}

/// `-t`'s line: the words separated by spaces, each quoted for the shell where it needs
/// it, as GNU's `shell_escape_quoting_style`.
pub fn trace_line(call: &[String]) -> String {
    let words: Vec<String> = call.iter().map(|w| shell_quote(w)).collect();
    format!("{}\n", words.join(" "))
}

fn shell_quote(word: &str) -> String {
    let plain = |c: char| c.is_alphanumeric() || "_,./:=@%^+-".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    let mut out = String::from("'");
    for c in word.chars() {
        match c {
            '\'' => out.push_str("'\\''"),
            c if c.is_control() => out.push_str(&format!("'$'\\{:03o}''", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// GNU's `buildcmd`: command lines filled argument by argument within the limits.
struct Builder<'o> {
    calls: Vec<Vec<String>>,
    /// The arguments read for the command line being built.
    current: Vec<String>,
    initial: Vec<String>,
    initial_chars: usize,
    /// Bytes of the command line being built, each argument with its NUL.
    chars: usize,
    o: &'o Opts,
}

/// How one call of GNU's reader ended.
enum Read {
    /// At the end of a line (or item), with more input to come.
    Line,
    /// At the end of the input (physical, or the EOF string).
    End,
    /// At an error that stops xargs: the message.
    Fail(String),
}

impl Builder<'_> {
    fn exec(&mut self) {
        let call = self.initial.iter().cloned().chain(self.current.drain(..)).collect();
        self.calls.push(call);
        self.chars = self.initial_chars;
    }

    /// `bc_push_arg`: runs the command line first when the argument would not fit, and
    /// right after it when `-n` is reached. An argument that does not fit is an error
    /// with `-I`, and with `-x` when `-n` or `-L` sets the count.
    fn push(&mut self, arg: String) -> Result<(), String> {
        let len = arg.len() + 1;
        if self.chars + len > self.o.max_chars {
            if self.current.is_empty() {
                return Err("cannot fit single argument within argument list size limit".into());
            }
            if self.o.replace.is_some() || (self.o.exit_if_too_long && (self.o.max_lines > 0 || self.o.max_args > 0)) {
                return Err("argument list too long".into());
            }
            self.exec();
        }
        self.chars += len;
        self.current.push(arg);
        if self.o.max_args > 0 && self.current.len() == self.o.max_args {
            self.exec();
        }
        Ok(())
    }

    /// GNU's `exec_if_possible` before a fatal input error: the pending command line
    /// runs, unless `-x` (or `-L`, `-I`) is in force.
    fn fail(&mut self, message: String) -> Option<String> {
        if !self.o.exit_if_too_long && !self.current.is_empty() {
            self.exec();
        }
        Some(message)
    }

    /// Without `-I`: items appended to the command.
    fn appending(&mut self, input: &[u8]) -> Option<String> {
        let mut reader = Reader::new(input, self.o, self.initial_chars);
        let mut lines = 0;
        loop {
            let (items, read, counted) = reader.next();
            lines += counted;
            for item in items {
                if let Err(message) = self.push(item) {
                    return Some(message);
                }
            }
            match read {
                Read::End => break,
                Read::Fail(message) => return self.fail(message),
                Read::Line => {}
            }
            if self.o.max_lines > 0 && lines >= self.o.max_lines {
                self.exec();
                lines = 0;
            }
        }
        if !self.current.is_empty() || (self.o.run_if_empty && self.calls.is_empty()) {
            self.exec();
        }
        None
    }

    /// With `-I`: one command line per input line, the line in place of the pattern in
    /// each argument after the command name.
    fn replacing(&mut self, input: &[u8], pattern: &str) -> Option<String> {
        let mut reader = Reader::new(input, self.o, self.initial_chars);
        loop {
            let (items, read, _) = reader.next();
            for line in items {
                let mut call = vec![self.initial[0].clone()];
                call.extend(self.initial[1..].iter().map(|a| a.replace(pattern, &line)));
                self.calls.push(call);
            }
            match read {
                Read::End => return None,
                Read::Fail(message) => return Some(message),
                Read::Line => {}
            }
        }
    }
}

/// GNU's `read_line` (items with quotes) and `read_string` (`-0`, `-d`).
struct Reader<'a> {
    input: &'a [u8],
    pos: usize,
    o: &'a Opts,
    /// Longest item, with its NUL: the buffer left after the command.
    room: usize,
    eof: bool,
}

impl<'a> Reader<'a> {
    fn new(input: &'a [u8], o: &'a Opts, initial_chars: usize) -> Reader<'a> {
        Reader { input, pos: 0, o, room: o.max_chars.saturating_sub(initial_chars), eof: false }
    }

    /// One call of GNU's reader: the items it read (with `-I`, the line), how it
    /// ended, and the lines it counted for `-L`.
    fn next(&mut self) -> (Vec<String>, Read, usize) {
        if self.eof {
            return (Vec::new(), Read::End, 0);
        }
        match self.o.delimiter {
            Some(d) => self.read_string(d),
            None => self.read_line(),
        }
    }

    fn read_string(&mut self, delimiter: u8) -> (Vec<String>, Read, usize) {
        let rest = &self.input[self.pos..];
        let (item, lines) = match rest.iter().position(|b| *b == delimiter) {
            Some(at) => {
                self.pos += at + 1;
                (&rest[..at], 1)
            }
            None => {
                self.eof = true;
                self.pos = self.input.len();
                if rest.is_empty() {
                    return (Vec::new(), Read::End, 0);
                }
                (rest, 0)
            }
        };
        if !item.is_empty() && item.len() >= self.room {
            self.eof = true;
            return (Vec::new(), Read::Fail("argument line too long".into()), 0);
        }
        (vec![String::from_utf8_lossy(item).into_owned()], Read::Line, lines)
    }

    fn is_eof_string(&self, item: &[u8]) -> bool {
        self.o.eof.as_deref().is_some_and(|e| e.as_bytes() == item)
    }

    fn read_line(&mut self) -> (Vec<String>, Read, usize) {
        #[derive(PartialEq)]
        enum State {
            Norm,
            Space,
            Quote(u8),
            Backslash,
        }
        let replace = self.o.replace.is_some();
        let mut state = State::Space;
        let mut items: Vec<String> = Vec::new();
        let mut current: Vec<u8> = Vec::new();
        let mut seen_arg = false;
        let mut first = true;
        let mut lines = 0;
        let mut prev: Option<u8> = None;
        let take = |current: &mut Vec<u8>| String::from_utf8_lossy(&std::mem::take(current)).into_owned();
        loop {
            let Some(&c) = self.input.get(self.pos) else {
                self.eof = true;
                if current.is_empty() {
                    return (items, Read::End, lines);
                }
                if let State::Quote(q) = state {
                    return (items, Read::Fail(unmatched(q)), lines);
                }
                if !(first && self.is_eof_string(&current)) {
                    items.push(take(&mut current));
                }
                return (items, Read::End, lines);
            };
            self.pos += 1;
            let before = prev.replace(c);
            if state == State::Space {
                if is_space(c) {
                    continue;
                }
                state = State::Norm;
            }
            match state {
                State::Norm => {
                    if c == b'\n' {
                        if !before.is_some_and(is_blank) {
                            lines += 1;
                        }
                        if current.is_empty() && !seen_arg {
                            state = State::Space;
                            continue;
                        }
                        if self.is_eof_string(&current) {
                            self.eof = true;
                            return (items, Read::End, lines);
                        }
                        items.push(take(&mut current));
                        return (items, Read::Line, lines);
                    }
                    seen_arg = true;
                    if !replace && is_blank(c) {
                        if self.is_eof_string(&current) {
                            self.eof = true;
                            return (items, Read::End, lines);
                        }
                        items.push(take(&mut current));
                        state = State::Space;
                        first = false;
                        continue;
                    }
                    match c {
                        b'\\' => {
                            state = State::Backslash;
                            continue;
                        }
                        b'\'' | b'"' => {
                            state = State::Quote(c);
                            continue;
                        }
                        _ => {}
                    }
                }
                State::Quote(q) => {
                    if c == b'\n' {
                        return (items, Read::Fail(unmatched(q)), lines);
                    }
                    if c == q {
                        state = State::Norm;
                        seen_arg = true;
                        continue;
                    }
                }
                State::Backslash => state = State::Norm,
                State::Space => unreachable!("left above"),
            }
            if current.len() + 1 >= self.room {
                self.eof = true;
                return (items, Read::Fail("argument line too long".into()), lines);
            }
            current.push(c);
        }
    }
}

fn unmatched(quote: u8) -> String {
    let name = if quote == b'"' { "double" } else { "single" };
    format!("unmatched {name} quote; by default quotes are special to xargs unless you use the -0 option")
}

/// C's `isblank` in the C and UTF-8 locales.
fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// C's `isspace`.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_of(args: &[&str], stdin: &str) -> Result<Plan, Refusal> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        plan(&args, &Ctx::new("/nonexistent"), stdin.as_bytes())
    }

    fn calls(args: &[&str], stdin: &str) -> Vec<Vec<String>> {
        plan_of(args, stdin).expect("a plan").calls
    }

    fn words(list: &[&[&str]]) -> Vec<Vec<String>> {
        list.iter().map(|c| c.iter().map(|w| w.to_string()).collect()).collect()
    }

    /// `-P N` runs the command lines one after the other, in input order (one of the
    /// orders GNU may give); the slot variable is named for the interpreter to set to 0.
    #[test]
    fn max_procs_runs_one_at_a_time() {
        let plan = plan_of(&["-n", "1", "-P", "4", "--process-slot-var=V", "printenv", "V"], "one\ntwo\n").unwrap();
        assert_eq!(plan.calls, words(&[&["printenv", "V", "one"], &["printenv", "V", "two"]]));
        assert_eq!(plan.slot_var.as_deref(), Some("V"));
        assert_eq!(calls(&["-P0", "--max-procs=1"], "a b"), words(&[&["echo", "a", "b"]]));
        let bad = plan_of(&["-P", "x"], "").unwrap_err();
        assert_eq!((bad.status, bad.message.lines().next()), (1, Some("xargs: invalid number \"x\" for -P option")));
        assert!(plan_of(&["--process-slot-var=a=b"], "").unwrap_err().message.contains("may not be set"));
    }

    #[test]
    fn reads_items_as_gnu() {
        assert_eq!(calls(&["-n", "2"], "a 'b c'\n\\ d\n"), words(&[&["echo", "a", "b c"], &["echo", " d"]]));
        assert_eq!(calls(&["-L", "1"], "a \nb\nc\n"), words(&[&["echo", "a", "b"], &["echo", "c"]]));
        assert_eq!(calls(&["-I{}", "echo", "[{}]"], "  a b \n\n"), words(&[&["echo", "[a b ]"]]));
        assert_eq!(calls(&["-0", "-n1"], "a\0\0b"), words(&[&["echo", "a"], &["echo", ""], &["echo", "b"]]));
        assert_eq!(calls(&["-E", "_"], "a _ b\n"), words(&[&["echo", "a"]]));
        assert_eq!(calls(&["-r"], " \n"), Vec::<Vec<String>>::new());
        assert_eq!(calls(&[], ""), words(&[&["echo"]]));
        assert_eq!(calls(&["-s", "11"], "a b c d"), words(&[&["echo", "a", "b", "c"], &["echo", "d"]]));
        let quote = plan_of(&["-n1"], "a \"b\n").unwrap();
        assert_eq!(quote.calls, words(&[&["echo", "a"]]));
        assert!(quote.failure.unwrap().starts_with("unmatched double quote"));
    }

    /// What reads the terminal or describes the host is refused by name.
    #[test]
    fn refuses_the_terminal_and_the_host_by_name() {
        for option in ["-p", "--interactive", "-o", "--open-tty", "--show-limits", "--version", "--help"] {
            let refusal = plan_of(&[option, "echo"], "a").unwrap_err();
            assert!(refusal.message.contains("is not supported in the sandbox"), "{option}: {}", refusal.message);
            assert_eq!(refusal.status, 1);
        }
    }

    #[test]
    fn exit_status_as_gnu() {
        let plan = plan_of(&["-n1"], "a b c").unwrap();
        let mut err = Vec::new();
        assert_eq!(run(&plan, &mut err, |call, _| if call[1] == "b" { 1 } else { 0 }), 123);
        let mut ran = 0;
        assert_eq!(
            run(&plan, &mut err, |_, _| {
                ran += 1;
                255
            }),
            124
        );
        assert_eq!(ran, 1);
        assert_eq!(run(&plan, &mut err, |_, _| 127), 127);
        let failed = plan_of(&["-n1"], "a \"b").unwrap();
        assert_eq!(run(&failed, &mut err, |_, _| 0), 1);
        assert_eq!(run(&failed, &mut err, |_, _| 1), 123);
    }
}
